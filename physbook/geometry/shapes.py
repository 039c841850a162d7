"""Chapter 4: shapes, their bounding boxes, mass properties and support points.

Shapes are given in body coordinates (metres). A polygon is convex, counter-clockwise, and
carries its outward unit edge normals: normal ``i`` belongs to the edge from vertex ``i`` to
vertex ``i + 1``. Shapes are immutable, so a body can share one shape object many times and
a world's packed copy of a shape never goes out of date. :class:`Polygon` is the one place
where an outline is judged convex, for both engines; it does so in time linear in the number
of vertices.

A shape's area must be a float that a mass can be made from: positive, finite and with a
finite reciprocal (about 5.6e−309 m² to 1.8e308 m²), so circles have radii from about 1e−154
to 1e154 m and polygons spans in the same range. ``mass_properties`` raises ``ValueError``
when a density makes the mass or the inertia leave that range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.constants import WELD_TOLERANCE
from physbook.geometry.round_mass import rounding_moments
from physbook.vecmath.kernels import cross
from physbook.vecmath.vec import Transform

#: The most sides :meth:`Polygon.regular` makes. Beyond about 10⁵ sides the vertices of a
#: regular polygon already lie within the weld tolerance of the chord through their
#: neighbours and are dropped as collinear, so more sides only cost memory.
MAX_REGULAR_SIDES = 10**6

#: Edge pairs the search for a crossing may examine when it explains why an outline was
#: refused (about a tenth of a second); past it the message names the rule without the edges.
CROSSING_SEARCH_BUDGET = 10**7

_LARGEST = float(np.finfo(np.float64).max)
_SMALLEST_USABLE = 1.0 / _LARGEST  # smaller positive numbers have an infinite reciprocal


def frozen(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array, dtype=np.float64)
    array.setflags(write=False)
    return array


def usable(value: float) -> bool:
    """True for a positive, finite number with a finite reciprocal: a mass, an inertia or an
    area that a solver can divide by."""
    return math.isfinite(value) and value > 0.0 and math.isfinite(1.0 / value)


def scaled_product(*factors: float, exponent: int = 0) -> float:
    """factors[0] · factors[1] · … · 2**exponent, with no overflow or underflow on the way.

    Mantissas are multiplied and exponents added, so the result is inf or 0 only when the
    product itself lies beyond the float range (ρ·π·r² for ρ = 1e308 and r = 1e−5 is 3e298,
    although ρ·π alone overflows).
    """
    mantissa = 1.0
    for factor in factors:
        part, power = math.frexp(factor)
        mantissa *= part
        exponent += power
    try:
        return math.ldexp(mantissa, exponent)
    except OverflowError:
        return math.copysign(math.inf, mantissa)


def require_float_area(area: float, what: str, shape: str) -> None:
    """Raise ``ValueError`` unless ``area`` (m²) is usable; ``what`` names the size that
    makes the ``shape``'s area what it is."""
    if usable(area):
        return
    if area > 1.0:
        problem = f"too large: the {shape}'s area overflows the largest float ({_LARGEST:.2g} m²)"
    else:
        problem = (f"too small: the {shape}'s area falls below the smallest usable float "
                   f"({_SMALLEST_USABLE:.2g} m²)")
    raise ValueError(f"{what} is {problem}")


@dataclass(frozen=True, eq=False)
class MassData:
    """Mass (kg), rotational inertia about the centroid (kg·m²) and centroid (m, local).

    Mass and inertia are positive and finite with finite reciprocals; the centroid is a
    read-only 2D vector.
    """

    mass: float
    inertia: float
    centroid: np.ndarray

    def __post_init__(self):
        for name in ("mass", "inertia"):
            value = _check.positive_scalar(getattr(self, name), name)
            if not usable(value):
                raise ValueError(f"{name} must have a finite reciprocal, got {value}")
            object.__setattr__(self, name, value)
        object.__setattr__(self, "centroid", frozen(_check.vector(self.centroid, "centroid")))


def _aabb_argument(other) -> AABB:
    return _check.instance(other, "other", AABB, "an AABB")


@dataclass(frozen=True, eq=False)
class AABB:
    """An axis-aligned bounding box from ``lower`` to ``upper`` corner (m)."""

    lower: np.ndarray
    upper: np.ndarray

    def __init__(self, lower, upper):
        lower = _check.vector(lower, "lower")
        upper = _check.vector(upper, "upper")
        if np.any(lower > upper):
            raise ValueError(f"lower must not exceed upper on either axis: {lower} > {upper}")
        object.__setattr__(self, "lower", frozen(lower))
        object.__setattr__(self, "upper", frozen(upper))

    # Halving each corner before adding or subtracting keeps every sum in float range, for
    # boxes whose corners are near the largest float.
    @property
    def center(self) -> np.ndarray:
        return 0.5 * self.lower + 0.5 * self.upper

    @property
    def extents(self) -> np.ndarray:
        """Half width and half height."""
        return 0.5 * self.upper - 0.5 * self.lower

    @property
    def perimeter(self) -> float:
        half_width, half_height = self.extents
        with np.errstate(over="ignore"):
            perimeter = 4.0 * (half_width + half_height)
        if not math.isfinite(perimeter):
            raise FloatingPointError(
                f"the perimeter of {self!r} overflows the largest float ({_LARGEST:.2g} m)")
        return float(perimeter)

    def overlaps(self, other: AABB) -> bool:
        """True when the boxes share at least a point (touching counts)."""
        other = _aabb_argument(other)
        return bool(np.all(self.lower <= other.upper) and np.all(other.lower <= self.upper))

    def contains(self, other: AABB) -> bool:
        """True when ``other`` lies entirely inside this box (boundaries included)."""
        other = _aabb_argument(other)
        return bool(np.all(self.lower <= other.lower) and np.all(other.upper <= self.upper))

    def contains_point(self, point) -> bool:
        point = _check.vector(point, "point")
        return bool(np.all(self.lower <= point) and np.all(point <= self.upper))

    def union(self, other: AABB) -> AABB:
        """The smallest box holding both."""
        other = _aabb_argument(other)
        return AABB(np.minimum(self.lower, other.lower), np.maximum(self.upper, other.upper))

    def __repr__(self) -> str:
        return f"AABB(lower={self.lower.tolist()}, upper={self.upper.tolist()})"


def checked_direction(direction) -> np.ndarray:
    """A checked non-zero direction, divided by its largest component: the same direction
    with entries in [−1, 1], so that no product with it overflows."""
    direction = _check.vector(direction, "direction")
    largest = np.max(np.abs(direction))
    if largest == 0.0:
        raise ValueError("direction must be a non-zero vector")
    return direction / largest


def transform_argument(transform) -> Transform | None:
    if transform is None:
        return None
    return _check.instance(transform, "transform", Transform, "a Transform or None")


def placed(points: np.ndarray, transform: Transform, what: str) -> np.ndarray:
    """``points`` placed by ``transform``; ``FloatingPointError`` if that leaves float range."""
    with np.errstate(over="ignore", invalid="ignore"):
        try:
            world = transform.to_world(points)
        except FloatingPointError:
            world = np.array([np.inf])
    if not np.all(np.isfinite(world)):
        raise FloatingPointError(
            f"transform {transform!r} moves the {what} beyond the largest float")
    return world


class Immutable:
    """Attributes are set once, in ``__init__``: a world packs a copy of each shape it is
    given and bodies share shape objects, so a shape changed in place would disagree with
    the copies."""

    __slots__ = ()
    _remade_by = ""  # how to make a changed copy, for the error message

    def __setattr__(self, name: str, value) -> None:
        self.__delattr__(name)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(
            f"{type(self).__name__} is immutable, so {name} cannot be changed: make a new "
            f"shape instead, e.g. {self._remade_by}")


class Circle(Immutable):
    """A circle of ``radius`` (m) centred at ``center`` in body coordinates (immutable)."""

    __slots__ = ("radius", "center")
    _remade_by = "Circle(new_radius, center=circle.center)"

    def __init__(self, radius: float, center=(0.0, 0.0)):
        radius = _check.positive_scalar(radius, "radius")
        require_float_area(scaled_product(math.pi, radius, radius), f"radius {radius:g} m",
                           "circle")
        object.__setattr__(self, "radius", radius)
        object.__setattr__(self, "center", frozen(_check.vector(center, "center")))

    def __reduce__(self):
        return Circle, (self.radius, self.center)

    def area(self) -> float:
        """πr² (m²)."""
        return scaled_product(math.pi, self.radius, self.radius)

    def mass_properties(self, density: float) -> MassData:
        """m = ρπr², I = m·r²/2 about the centre (density in kg/m²)."""
        density = _check.positive_scalar(density, "density")
        mass = scaled_product(density, math.pi, self.radius, self.radius)
        inertia = scaled_product(density, math.pi, self.radius, self.radius, self.radius,
                                 self.radius, exponent=-1)
        return mass_data(density, mass, inertia, self.center, f"radius {self.radius:g} m")

    def aabb(self, transform: Transform | None = None) -> AABB:
        """The box around the circle, placed by ``transform`` (body frame when None)."""
        transform = transform_argument(transform)
        center = self.center if transform is None else placed(self.center, transform,
                                                                  "circle's centre")
        return AABB(center - self.radius, center + self.radius)

    def support(self, direction) -> np.ndarray:
        """The farthest point in ``direction``: c + r·d/|d| (local frame)."""
        direction = checked_direction(direction)
        return self.center + self.radius * direction / np.hypot(*direction)

    def core(self) -> tuple[np.ndarray, float]:
        """The circle as a core grown by a radius: its centre (1, 2) and r (m)."""
        return frozen(self.center[None, :]), self.radius

    def __repr__(self) -> str:
        return f"Circle(radius={self.radius:g}, center={self.center.tolist()})"


def mass_data(density: float, mass: float, inertia: float, centroid: np.ndarray,
               size: str) -> MassData:
    """``MassData``, or ``ValueError`` naming the density and the size when the mass or
    the inertia is no usable number."""
    if not (usable(mass) and usable(inertia)):
        raise ValueError(
            f"density {density:g} kg/m² and {size} give mass {mass:.3g} kg and inertia "
            f"{inertia:.3g} kg·m²; both must lie between {_SMALLEST_USABLE:.2g} and "
            f"{_LARGEST:.2g} (positive and finite with finite reciprocals): choose a density "
            "or a size nearer 1")
    return MassData(mass, inertia, centroid)


# --- judging an outline ------------------------------------------------------------------
#
# Polygon's rules are judged on ``local``: the points relative to point 0, scaled by a power
# of two (which is exact) to about unit size. The tolerances are relative to the size, so a
# millimetre and a kilometre polygon are judged alike, and no product of two coordinates
# overflows or underflows. Each rule is one pass over the points.


def _extent(points: np.ndarray) -> float:
    """The polygon's size, its larger side of the bounding box (m)."""
    with np.errstate(over="ignore"):
        size = float(np.max(np.ptp(points, axis=0)))
    if not math.isfinite(size):
        raise ValueError(
            "vertices span more than the largest float on one axis, so the polygon's size "
            "and area overflow")
    return size


def scale_exponent(points: np.ndarray) -> int:
    """k with the points' size in [2**(k−1), 2**k): dividing by 2**k brings it to about 1."""
    return math.frexp(float(np.max(np.ptp(points, axis=0))))[1]


def twice_signed_area(ring: np.ndarray) -> float:
    """Twice the signed area of the closed outline ``ring`` (positive counter-clockwise),
    as a fan from ring[0]."""
    fan = ring[1:] - ring[0]
    return float(np.sum(fan[:-1, 0] * fan[1:, 1] - fan[:-1, 1] * fan[1:, 0]))


def _require_distinct_neighbours(points, local, weld: float, size: float) -> None:
    following = np.roll(local, -1, axis=0)
    close = np.flatnonzero(np.hypot(*(following - local).T) <= weld)
    if len(close) == 0:
        return
    i = int(close[0])
    j = (i + 1) % len(points)
    gap = float(np.hypot(*(points[j] - points[i])))
    detail = "coincide" if gap == 0.0 else (
        f"are {gap:.3g} m apart, within the weld tolerance {WELD_TOLERANCE:g} × the "
        f"polygon's size {size:.3g} m = {WELD_TOLERANCE * size:.3g} m")
    raise ValueError(f"vertices must be distinct: points {min(i, j)} and {max(i, j)} {detail}")


def require_not_collinear(local, weld: float, name: str = "vertices") -> None:
    """Every point's distance from the line through point 0 and the point farthest from it."""
    far = local[int(np.argmax(np.hypot(*local.T)))]
    offsets = far[0] * local[:, 1] - far[1] * local[:, 0]
    if np.max(np.abs(offsets)) <= weld * np.hypot(*far):
        raise ValueError(f"{name} must enclose a non-zero area (all points collinear)")


_CORNER, _BETWEEN, _SPIKE = 0, 1, 2


@njit
def _classify(points, a, b, c, weld):
    """Whether vertex b of a → b → c is a corner, lies within ``weld`` of the chord ac
    between a and c, or within ``weld`` of its line beyond them (a spike)."""
    chord_x = points[c, 0] - points[a, 0]
    chord_y = points[c, 1] - points[a, 1]
    out_x = points[b, 0] - points[a, 0]
    out_y = points[b, 1] - points[a, 1]
    if abs(cross(chord_x, chord_y, out_x, out_y)) > weld * math.hypot(chord_x, chord_y):
        return _CORNER
    back_x = points[c, 0] - points[b, 0]
    back_y = points[c, 1] - points[b, 1]
    return _BETWEEN if out_x * back_x + out_y * back_y > 0.0 else _SPIKE


@njit
def _drop_collinear(points, order, weld, kept):
    """Walk the closed outline ``points[order]`` keeping a stack of vertices in ``kept``, and
    pop the top whenever it lies within ``weld`` of the chord from the one below it to the
    next vertex; then close the ring the same way at its two ends.

    Returns (start, stop, spike): the kept vertices are ``kept[start:stop]``; ``spike`` is a
    point index where the outline doubles back on itself, or −1. Every vertex is pushed and
    popped at most once, so the walk takes linear time.
    """
    top = 0
    for index in order:
        while top >= 2:
            kind = _classify(points, kept[top - 2], kept[top - 1], index, weld)
            if kind == _CORNER:
                break
            if kind == _SPIKE:
                return 0, top, kept[top - 1]
            top -= 1
        kept[top] = index
        top += 1
    start = 0
    while top - start >= 3:
        kind = _classify(points, kept[top - 2], kept[top - 1], kept[start], weld)
        if kind == _SPIKE:
            return start, top, kept[top - 1]
        if kind == _BETWEEN:
            top -= 1
            continue
        kind = _classify(points, kept[top - 1], kept[start], kept[start + 1], weld)
        if kind == _SPIKE:
            return start, top, kept[start]
        if kind == _BETWEEN:
            start += 1
            continue
        break
    return start, top, -1


def without_collinear(local, order: np.ndarray, weld: float) -> np.ndarray:
    """``order`` without its vertices that lie within ``weld`` of the line through their
    neighbours. Such a vertex must lie between its neighbours; one beyond them is a spike
    where the outline doubles back on itself, which is rejected rather than dropped."""
    kept = np.empty(len(order), np.int64)
    start, stop, spike = _drop_collinear(local, order, weld, kept)
    if spike >= 0:
        raise ValueError(
            "vertices must not self-intersect: the outline doubles back on itself at point "
            f"{spike}, which is collinear with its neighbours")
    if stop - start < 3:
        raise ValueError("vertices must enclose a non-zero area (all points collinear)")
    return kept[start:stop].copy()


@njit
def _on_segment(points, p, a, b, tolerance):
    """True when point p lies within ``tolerance`` of segment ab."""
    dx = points[b, 0] - points[a, 0]
    dy = points[b, 1] - points[a, 1]
    px = points[p, 0] - points[a, 0]
    py = points[p, 1] - points[a, 1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0.0 else min(max((px * dx + py * dy) / length2, 0.0), 1.0)
    return math.hypot(px - t * dx, py - t * dy) <= tolerance


@njit
def _side(points, a, b, c):
    """Twice the signed area of triangle abc: > 0 when c lies left of a → b."""
    return cross(points[b, 0] - points[a, 0], points[b, 1] - points[a, 1],
                 points[c, 0] - points[a, 0], points[c, 1] - points[a, 1])


@njit
def _segments_touch(points, p1, p2, q1, q2, tolerance):
    """True when segments p1p2 and q1q2 cross or come within ``tolerance`` of each other.

    Two segments cross properly when each one's end points lie strictly on opposite sides
    of the other's line; otherwise they can only meet where an end point lies on the other
    segment. Testing the second case by distance (not by a zero orientation) keeps
    collinear but disjoint segments, such as two edges along one side of a box, apart.
    """
    if (_side(points, q1, q2, p1) * _side(points, q1, q2, p2) < 0.0
            and _side(points, p1, p2, q1) * _side(points, p1, p2, q2) < 0.0):
        return True
    return (_on_segment(points, p1, q1, q2, tolerance) or _on_segment(points, p2, q1, q2, tolerance)
            or _on_segment(points, q1, p1, p2, tolerance)
            or _on_segment(points, q2, p1, p2, tolerance))


@njit
def first_crossing(points, ring, tolerance, budget):
    """Two non-adjacent edges of the closed outline ``points[ring]`` that cross or come within
    ``tolerance``, as edge numbers (edge k runs from ring[k] to ring[k + 1]).

    Edges are swept in order of their left ends: an edge is tested only against the edges
    that start before it ends in x and overlap it in y. Returns (−1, −1) when no edges touch
    and (−2, −2) when ``budget`` pairs were examined without an answer.
    """
    m = len(ring)
    low_x = np.empty(m)
    high_x = np.empty(m)
    low_y = np.empty(m)
    high_y = np.empty(m)
    for k in range(m):
        a, b = ring[k], ring[(k + 1) % m]
        low_x[k] = min(points[a, 0], points[b, 0]) - tolerance
        high_x[k] = max(points[a, 0], points[b, 0]) + tolerance
        low_y[k] = min(points[a, 1], points[b, 1]) - tolerance
        high_y[k] = max(points[a, 1], points[b, 1]) + tolerance
    by_left_end = np.argsort(low_x, kind="mergesort")
    examined = 0
    for s in range(m):
        e = by_left_end[s]
        for t in range(s + 1, m):
            f = by_left_end[t]
            if low_x[f] > high_x[e]:
                break
            examined += 1
            if examined > budget:
                return -2, -2
            gap = abs(e - f)
            if gap == 1 or gap == m - 1 or low_y[f] > high_y[e] or low_y[e] > high_y[f]:
                continue
            if _segments_touch(points, ring[e], ring[(e + 1) % m], ring[f], ring[(f + 1) % m],
                               tolerance):
                return min(e, f), max(e, f)
    return -1, -1


def _require_convex(local, ring: np.ndarray, weld: float) -> None:
    """Every turn strictly to the left and one full turn in all: then the outline is a simple
    convex polygon. A star such as the pentagram turns left at every vertex too, but turns
    twice around, which the second condition rejects."""
    outline = local[ring]
    edges = np.roll(outline, -1, axis=0) - outline
    following = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]  # at vertex k + 1
    angles = np.arctan2(turns, np.sum(edges * following, axis=1))
    full_turns = round(float(np.sum(angles)) / (2.0 * np.pi))
    if np.all(turns > 0.0) and full_turns == 1:
        return
    first, second = first_crossing(local, ring, weld, CROSSING_SEARCH_BUDGET)
    m = len(ring)
    if first >= 0:
        raise ValueError(
            f"vertices must not self-intersect: the edge from point {ring[first]} to point "
            f"{ring[(first + 1) % m]} crosses the edge from point {ring[second]} to point "
            f"{ring[(second + 1) % m]}")
    if np.any(turns <= 0.0):
        inward = ring[(int(np.argmax(turns <= 0.0)) + 1) % m]
        raise ValueError(f"vertices must form a convex polygon: it turns inward at point {inward}")
    raise ValueError(
        f"vertices must not self-intersect: the outline turns around {full_turns} times, "
        "a convex polygon once")


class Polygon(Immutable):
    """A convex polygon in body coordinates (immutable), grown by ``radius`` (m) when the
    radius is positive: a rounded polygon, whose corners are arcs (chapter 15).

    ``vertices`` is an (n, 2) array, counter-clockwise, n ≥ 3; ``normals[i]`` is the outward
    unit normal of the edge from vertex i to vertex i + 1. Clockwise input is reordered and
    collinear middle points are dropped. Input that is non-convex, self-intersecting, of zero
    area, with duplicate neighbours, not finite, or too large or small for its area to be a
    float raises ``ValueError`` naming the rule and the points. Points closer than
    ``WELD_TOLERANCE`` × the polygon's size count as one point. The vertices are the
    rounded polygon's core: the shape is every point within ``radius`` of it.
    """

    __slots__ = ("vertices", "normals", "radius")
    _remade_by = "Polygon(new_vertices, radius=r) or polygon.rounded(r)"

    def __init__(self, vertices, radius: float = 0.0):
        radius = _check.non_negative_scalar(radius, "radius")
        points = _check.finite_array(vertices, "vertices")
        if points.ndim != 2 or points.shape[1] != 2:
            raise ValueError(f"vertices must have shape (n, 2), got {points.shape}")
        if len(points) < 3:
            raise ValueError(f"vertices must hold at least 3 points, got {len(points)}")
        size = _extent(points)
        # The rules are judged on the points relative to point 0, scaled by a power of two
        # (exactly) to about unit size, so that no product of coordinates overflows.
        exponent = math.frexp(size)[1]
        local = np.ldexp(points - points[0], -exponent)
        weld = WELD_TOLERANCE * math.ldexp(size, -exponent)

        _require_distinct_neighbours(points, local, weld, size)
        require_not_collinear(local, weld)
        order = np.arange(len(points))
        if twice_signed_area(local) < 0.0:
            order = np.roll(order[::-1], 1)  # clockwise: reverse, keeping vertex 0 first
        order = without_collinear(local, order, weld)
        _require_convex(local, order, weld)
        area = scaled_product(0.5 * twice_signed_area(local[order]), exponent=2 * exponent)
        require_float_area(area, f"the vertices' span of {size:.3g} m", "polygon")
        if radius > 0.0:
            grown = _rounded_area(points[order], radius)
            require_float_area(grown, f"the vertices' span of {size:.3g} m grown by radius "
                                f"{radius:g} m", "polygon")

        points = points[order]
        edges = np.roll(points, -1, axis=0) - points
        lengths = np.hypot(edges[:, 0], edges[:, 1])
        # n = (dy, −dx)/|d|: the edge direction turned clockwise, outward for a CCW polygon.
        # Adding 0.0 turns −0.0 into 0.0, so that printed normals read cleanly.
        normals = np.column_stack([edges[:, 1], -edges[:, 0]]) / lengths[:, None] + 0.0
        object.__setattr__(self, "vertices", frozen(points))
        object.__setattr__(self, "normals", frozen(normals))
        object.__setattr__(self, "radius", radius)

    def __reduce__(self):
        return _restore_polygon, (self.vertices, self.normals, self.radius)

    @classmethod
    def box(cls, half_width: float, half_height: float, center=(0.0, 0.0),
            angle: float = 0.0, radius: float = 0.0) -> Polygon:
        """A rectangle of half extents (m), centred at ``center`` and turned by ``angle``.

        With a ``radius`` (m) the rectangle is the core of a rounded box, which then reaches
        ``half_width + radius`` and ``half_height + radius`` from its centre.
        """
        radius = _check.non_negative_scalar(radius, "radius")
        half_width = _check.positive_scalar(half_width, "half_width")
        half_height = _check.positive_scalar(half_height, "half_height")
        pose = Transform(_check.vector(center, "center"), _check.finite_scalar(angle, "angle"))
        what = (f"a box of half_width {half_width:g} m and half_height {half_height:g} m at "
                f"center {pose.position.tolist()} turned by angle {pose.angle:g} rad")
        corners = np.array(
            [[-half_width, -half_height], [half_width, -half_height],
             [half_width, half_height], [-half_width, half_height]]
        )
        try:
            corners = placed(corners, pose, "corners")
        except FloatingPointError:
            raise FloatingPointError(f"{what}: its corners lie beyond the largest float") from None
        return _built(cls, corners, what, radius)

    @classmethod
    def regular(cls, n: int, radius: float) -> Polygon:
        """A regular n-gon of circumradius ``radius``; vertex 0 at (radius, 0), then CCW."""
        n = _check.integer(n, "n", 3, MAX_REGULAR_SIDES)
        radius = _check.positive_scalar(radius, "radius")
        angles = 2.0 * np.pi * np.arange(n) / n
        return _built(cls, radius * np.column_stack([np.cos(angles), np.sin(angles)]),
                      f"a regular polygon of n={n} sides and radius {radius:g} m")

    def rounded(self, radius: float) -> Polygon:
        """The same core grown by ``radius`` (m): a rounded polygon (0 makes it sharp)."""
        radius = _check.non_negative_scalar(radius, "radius")
        if radius > 0.0:
            size = (f"the vertices' span of {_extent(self.vertices):.3g} m grown by radius "
                    f"{radius:g} m")
            require_float_area(_rounded_area(self.vertices, radius), size, "polygon")
        return _restore_polygon(self.vertices, self.normals, radius)

    def core(self) -> tuple[np.ndarray, float]:
        """The polygon as a core grown by a radius: its vertices (n, 2) and r (m)."""
        return self.vertices, self.radius

    def area(self) -> float:
        """Area (m²): the fan of triangles from vertex 0 (see :meth:`mass_properties`), plus
        r·perimeter + πr² when rounded (Steiner's formula)."""
        if self.radius > 0.0:
            return _rounded_area(self.vertices, self.radius)
        exponent, _, _, d = _fan(self.vertices)
        return scaled_product(0.5 * float(np.sum(d)), exponent=2 * exponent)

    def mass_properties(self, density: float) -> MassData:
        """Mass, inertia about the centroid and centroid, by a fan of triangles (density in
        kg/m²).

        The fan is rooted at vertex 0 (not the origin) so that a polygon far from its
        body origin keeps its precision. For a triangle (0, e1, e2) with D = e1 × e2 the area
        is D/2 and the second moment about vertex 0 is D/12 · (e1x² + e1x·e2x + e2x² +
        e1y² + e1y·e2y + e2y²); the parallel axis theorem moves it to the centroid. The
        sums run on e1, e2 divided by 2**k (exactly), the polygon's size brought to about
        1 m, so they neither overflow nor underflow; area scales back by 2**2k and the
        second moment by 2**4k. A rounded polygon adds its edge strips and corner sectors
        (:func:`~physbook.geometry.round_mass.rounding_moments`), exactly.
        """
        density = _check.positive_scalar(density, "density")
        exponent, e1, e2, d = _fan(self.vertices, self.radius)
        area = 0.5 * np.sum(d)
        first_moment = np.sum((d / 6.0)[:, None] * (e1 + e2), axis=0)
        second_moment = np.sum(
            d / 12.0
            * (e1[:, 0] ** 2 + e1[:, 0] * e2[:, 0] + e2[:, 0] ** 2
               + e1[:, 1] ** 2 + e1[:, 1] * e2[:, 1] + e2[:, 1] ** 2)
        )
        if self.radius > 0.0:
            local = np.ldexp(self.vertices - self.vertices[0], -exponent)
            added = rounding_moments(local, self.normals, math.ldexp(self.radius, -exponent))
            area, first_moment, second_moment = (area + added[0], first_moment + added[1],
                                                 second_moment + added[2])
        centroid_from_root = first_moment / area
        about_centroid = second_moment - area * float(centroid_from_root @ centroid_from_root)
        mass = scaled_product(density, float(area), exponent=2 * exponent)
        inertia = scaled_product(density, float(about_centroid), exponent=4 * exponent)
        centroid = self.vertices[0] + np.ldexp(centroid_from_root, exponent)
        size = float(np.max(np.ptp(self.vertices, axis=0)))
        rounding = f" rounded by {self.radius:g} m" if self.radius > 0.0 else ""
        return mass_data(density, mass, inertia, centroid,
                          f"a polygon {size:.3g} m across{rounding}")

    def aabb(self, transform: Transform | None = None) -> AABB:
        """The box around the polygon, placed by ``transform`` (body frame when None)."""
        transform = transform_argument(transform)
        points = self.vertices if transform is None else placed(
            self.vertices, transform, "polygon's vertices")
        return AABB(points.min(axis=0) - self.radius, points.max(axis=0) + self.radius)

    def support(self, direction) -> np.ndarray:
        """The farthest point in ``direction`` (local frame): the farthest vertex (the lowest
        index on ties), plus r·d/|d| when rounded."""
        direction = checked_direction(direction)
        # Relative to vertex 0 the products stay within the polygon's size, which is finite.
        reach = (self.vertices - self.vertices[0]) @ direction
        vertex = self.vertices[int(np.argmax(reach))].copy()
        if self.radius > 0.0:
            vertex += self.radius * direction / np.hypot(*direction)
        return vertex

    def __repr__(self) -> str:
        rounding = f", radius={self.radius:g}" if self.radius > 0.0 else ""
        return f"Polygon({np.round(self.vertices, 6).tolist()}{rounding})"


def _built(cls, points: np.ndarray, what: str, radius: float = 0.0) -> Polygon:
    """``cls(points)``, with a refusal explained in terms of the arguments that made them."""
    try:
        return cls(points, radius=radius)
    except ValueError as error:
        raise ValueError(f"{what} is no valid polygon: {error}") from None


def _fan(vertices: np.ndarray,
         radius: float = 0.0) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The fan of triangles from vertex 0: (k, e1, e2, D) with e1, e2 the edge vectors from
    vertex 0 divided by 2**k (about unit length) and D = e1 × e2 per triangle. A radius
    larger than the vertices' span sets the scale instead, so that r**4 stays in range."""
    exponent = scale_exponent(vertices)
    if radius > 0.0:
        exponent = max(exponent, math.frexp(radius)[1])
    fan = np.ldexp(vertices[1:] - vertices[0], -exponent)
    e1, e2 = fan[:-1], fan[1:]
    return exponent, e1, e2, e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]


def _rounded_area(vertices: np.ndarray, radius: float) -> float:
    """A_core + r·perimeter + πr² (m²), Steiner's formula, computed at a scale near 1."""
    exponent, _, _, d = _fan(vertices, radius)
    local = np.ldexp(vertices - vertices[0], -exponent)
    r = math.ldexp(radius, -exponent)
    edges = np.roll(local, -1, axis=0) - local
    perimeter = float(np.sum(np.hypot(edges[:, 0], edges[:, 1])))
    return scaled_product(0.5 * float(np.sum(d)) + r * perimeter + math.pi * r * r,
                    exponent=2 * exponent)


def _restore_polygon(vertices: np.ndarray, normals: np.ndarray,
                     radius: float = 0.0) -> Polygon:
    """Unpickle a polygon exactly as it was stored, without judging it again."""
    polygon = object.__new__(Polygon)
    object.__setattr__(polygon, "vertices", frozen(vertices))
    object.__setattr__(polygon, "normals", frozen(normals))
    object.__setattr__(polygon, "radius", float(radius))
    return polygon
