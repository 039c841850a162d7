"""Chapter 15: capsules, segments and chains.

Every shape of the engine is a *core* grown by a *radius*: a circle is a point grown by r, a
capsule a segment grown by r, a rounded polygon a convex polygon grown by r, and a segment
or a chain segment a segment with no radius. Collision then works on the cores, and the
radii are added at the end (chapter 15). :class:`~physbook.geometry.shapes.Polygon` takes
its radius as a keyword; this module holds the shapes whose core is a segment.

A :class:`Chain` is no shape but a maker of :class:`ChainSegment` shapes, each one-sided and
aware of its neighbours through two *ghost* points, so that a body sliding over the joint
of two segments never meets the corner between them (a "ghost collision"). Segments and
chains have no area, so they belong to static and kinematic bodies.

Winding rule: a chain segment collides on its right, looking from ``point1`` to ``point2``
(its normal is the direction turned clockwise). A counter-clockwise loop therefore collides
on its outside, a clockwise loop on its inside, and a floor collides from above when its
points run from right to left.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.constants import MIN_SEGMENT_LENGTH, WELD_TOLERANCE
from physbook.geometry.round_mass import capsule_moments
from physbook.geometry.shapes import (
    AABB,
    CROSSING_SEARCH_BUDGET,
    Circle,
    Immutable,
    MassData,
    Polygon,
    checked_direction,
    first_crossing,
    frozen,
    mass_data,
    placed,
    require_float_area,
    scaled_product,
    transform_argument,
)
from physbook.vecmath.vec import Transform


def right_normal(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The unit normal on the right of the direction start → end: (dy, −dx)/|d|."""
    dx, dy = end - start
    length = math.hypot(dx, dy)
    return np.array([dy / length, -dx / length]) + 0.0  # + 0.0 turns −0.0 into 0.0


def _length(start: np.ndarray, end: np.ndarray, what: str) -> float:
    """|end − start| (m); ``ValueError`` when it overflows."""
    with np.errstate(over="ignore"):
        length = math.hypot(*(end - start))
    if not math.isfinite(length):
        raise ValueError(f"{what} is longer than the largest float")
    return length


def _require_length(start: np.ndarray, end: np.ndarray, what: str) -> float:
    length = _length(start, end, what)
    if length < MIN_SEGMENT_LENGTH:
        raise ValueError(
            f"{what} must be at least {MIN_SEGMENT_LENGTH:g} m long (shorter ones have no "
            f"reliable direction), got {length:.3g} m")
    return length


def _folds_back(before: np.ndarray, after: np.ndarray) -> bool:
    """Whether the direction ``after`` turns back exactly along ``before`` (a 180° fold)."""
    lengths = math.hypot(*before) * math.hypot(*after)
    sine = (before[0] * after[1] - before[1] * after[0]) / lengths
    return bool(before @ after < 0.0 and abs(sine) <= WELD_TOLERANCE)


def _segment_aabb(points: np.ndarray, radius: float, transform, what: str) -> AABB:
    transform = transform_argument(transform)
    if transform is not None:
        points = placed(points, transform, what)
    return AABB(points.min(axis=0) - radius, points.max(axis=0) + radius)


def _segment_support(point1: np.ndarray, point2: np.ndarray, radius: float,
                     direction) -> np.ndarray:
    """The end farther along ``direction`` (point1 on a tie), plus r·d/|d|."""
    direction = checked_direction(direction)
    end = point2 if (point2 - point1) @ direction > 0.0 else point1
    return end + radius * direction / np.hypot(*direction)


def _no_mass(shape: str) -> ValueError:
    return ValueError(
        f"a {shape} has no area, so no mass: give it to a static or kinematic body "
        "(kind='static' or 'kinematic'); for a thin dynamic rod use a Capsule")


class Capsule(Immutable):
    """The segment from ``center1`` to ``center2`` grown by ``radius`` (m): a rectangle with
    a half disk at each end, in body coordinates (immutable).

    The centres must lie more than ``WELD_TOLERANCE`` × ``radius`` apart (a shorter capsule
    is a circle, and its axis would be rounding noise).
    """

    __slots__ = ("center1", "center2", "radius")
    _remade_by = "Capsule(center1, center2, new_radius)"

    def __init__(self, center1, center2, radius: float):
        center1 = _check.vector(center1, "center1")
        center2 = _check.vector(center2, "center2")
        radius = _check.positive_scalar(radius, "radius")
        length = _length(center1, center2, "the segment from center1 to center2")
        if length <= WELD_TOLERANCE * radius:
            raise ValueError(
                f"center1 and center2 must lie more than {WELD_TOLERANCE:g} × radius apart, "
                f"got {center1.tolist()} and {center2.tolist()} with radius {radius:g} m: "
                "a capsule that short is a Circle")
        require_float_area(_capsule_area(length, radius),
                            f"length {length:.3g} m and radius {radius:g} m", "capsule")
        object.__setattr__(self, "center1", frozen(center1))
        object.__setattr__(self, "center2", frozen(center2))
        object.__setattr__(self, "radius", radius)

    def __reduce__(self):
        return Capsule, (self.center1, self.center2, self.radius)

    @property
    def length(self) -> float:
        """Length of the core segment (m), without the end caps."""
        return math.hypot(*(self.center2 - self.center1))

    def core(self) -> tuple[np.ndarray, float]:
        """The core segment's ends (2, 2) and the radius (m)."""
        return frozen(np.array([self.center1, self.center2])), self.radius

    def area(self) -> float:
        """2rL + πr² (m²): a rectangle and two half disks."""
        return _capsule_area(self.length, self.radius)

    def mass_properties(self, density: float) -> MassData:
        """Mass, inertia about the centroid (the core's midpoint) and centroid (density in
        kg/m²), exactly (see :func:`~physbook.geometry.round_mass.capsule_moments`)."""
        density = _check.positive_scalar(density, "density")
        exponent = math.frexp(max(self.length, self.radius))[1]
        area, second = capsule_moments(math.ldexp(self.length, -exponent),
                                       math.ldexp(self.radius, -exponent))
        mass = scaled_product(density, area, exponent=2 * exponent)
        inertia = scaled_product(density, second, exponent=4 * exponent)
        centroid = 0.5 * self.center1 + 0.5 * self.center2
        return mass_data(density, mass, inertia, centroid,
                          f"a capsule of length {self.length:.3g} m and radius {self.radius:g} m")

    def aabb(self, transform: Transform | None = None) -> AABB:
        """The box around the capsule, placed by ``transform`` (body frame when None)."""
        return _segment_aabb(self.core()[0], self.radius, transform, "capsule's centres")

    def support(self, direction) -> np.ndarray:
        """The farthest point in ``direction`` (local frame)."""
        return _segment_support(self.center1, self.center2, self.radius, direction)

    def __repr__(self) -> str:
        return (f"Capsule({self.center1.tolist()}, {self.center2.tolist()}, "
                f"radius={self.radius:g})")


def _capsule_area(length: float, radius: float) -> float:
    return scaled_product(radius, 2.0 * length + math.pi * radius)


class _Wire(Immutable):
    """What a segment and a chain segment share: a straight piece from ``point1`` to
    ``point2`` with no area and no radius."""

    __slots__ = ()
    _what = ""  # the class's name in messages

    @property
    def length(self) -> float:
        """|point2 − point1| (m)."""
        return math.hypot(*(self.point2 - self.point1))

    @property
    def normal(self) -> np.ndarray:
        """The unit normal on the right of point1 → point2."""
        return right_normal(self.point1, self.point2)

    def core(self) -> tuple[np.ndarray, float]:
        """Its two points (2, 2) and radius 0."""
        return frozen(np.array([self.point1, self.point2])), 0.0

    def area(self) -> float:
        return 0.0

    def mass_properties(self, density: float) -> MassData:
        """Refused: a segment has no area (``ValueError``)."""
        raise _no_mass(self._what)

    def aabb(self, transform: Transform | None = None) -> AABB:
        """The box around point1 and point2, placed by ``transform`` (body frame when
        None)."""
        return _segment_aabb(self.core()[0], 0.0, transform, f"{self._what}'s points")

    def support(self, direction) -> np.ndarray:
        """The end farther along ``direction`` (point1 on a tie, local frame)."""
        return _segment_support(self.point1, self.point2, 0.0, direction)


class Segment(_Wire):
    """The straight segment from ``point1`` to ``point2`` in body coordinates, collided from
    both sides (immutable); ``normal`` is the side on the right of point1 → point2. It has
    no area, so only static and kinematic bodies carry it; at least ``MIN_SEGMENT_LENGTH``
    long."""

    __slots__ = ("point1", "point2")
    _remade_by = "Segment(point1, point2)"
    _what = "Segment"

    def __init__(self, point1, point2):
        point1 = _check.vector(point1, "point1")
        point2 = _check.vector(point2, "point2")
        _require_length(point1, point2, "the segment from point1 to point2")
        object.__setattr__(self, "point1", frozen(point1))
        object.__setattr__(self, "point2", frozen(point2))

    def __reduce__(self):
        return Segment, (self.point1, self.point2)

    def __repr__(self) -> str:
        return f"Segment({self.point1.tolist()}, {self.point2.tolist()})"


class ChainSegment(_Wire):
    """One segment of a chain: ``point1`` → ``point2``, solid on its right only (the side
    ``normal`` points to), with the neighbouring chain points ``ghost1`` (before point1)
    and ``ghost2`` (after point2) that tell its collision which normals its neighbours own
    (immutable). The ghosts are not part of the shape: its box, support and core are its
    two points'.

    Made by :class:`Chain`; build one directly to stream terrain piece by piece. Every edge
    (ghost1 → point1 → point2 → ghost2) must be at least ``MIN_SEGMENT_LENGTH`` long and no
    edge may fold back exactly along the previous one.
    """

    __slots__ = ("ghost1", "point1", "point2", "ghost2")
    _remade_by = "ChainSegment(ghost1, point1, point2, ghost2)"
    _what = "ChainSegment"

    def __init__(self, ghost1, point1, point2, ghost2):
        points = [_check.vector(value, name) for value, name in
                  ((ghost1, "ghost1"), (point1, "point1"), (point2, "point2"),
                   (ghost2, "ghost2"))]
        names = ("ghost1", "point1", "point2", "ghost2")
        for k in range(3):
            _require_length(points[k], points[k + 1],
                            f"the edge from {names[k]} to {names[k + 1]}")
        for k in (1, 2):
            if _folds_back(points[k] - points[k - 1], points[k + 1] - points[k]):
                raise ValueError(f"the chain must not fold back on itself at {names[k]}: the "
                                 f"edges before and after it point in opposite directions")
        for name, value in zip(names, points, strict=True):
            object.__setattr__(self, name, frozen(value))

    def __reduce__(self):
        return ChainSegment, (self.ghost1, self.point1, self.point2, self.ghost2)

    def __repr__(self) -> str:
        return (f"ChainSegment(ghost1={self.ghost1.tolist()}, point1={self.point1.tolist()}, "
                f"point2={self.point2.tolist()}, ghost2={self.ghost2.tolist()})")


class Chain:
    """A run of one-sided :class:`ChainSegment` shapes through ``points`` (m, body
    coordinates), each knowing its neighbours, for terrain: a body slides across the joints
    without catching on them.

    ``loop=True`` closes the run: n ≥ 3 points make n segments. An open chain (n ≥ 4) makes
    n − 3 segments: its first and last points are ghosts only, giving the end segments the
    direction the terrain continues in. A segment is solid on its right, looking along the
    points, so a counter-clockwise loop is solid outside (a clockwise loop holds bodies in)
    and a floor is solid above when its points run from right to left.

    Points must be finite, at least ``MIN_SEGMENT_LENGTH`` apart in sequence, and the run
    must not cross or touch itself. Give a chain to ``World.add_body`` (static or kinematic);
    the body gets one shape per segment.
    """

    __slots__ = ("points", "loop", "segments")

    def __init__(self, points, loop: bool = False):
        loop = _check.flag(loop, "loop")
        points = _check.points(points, "points")
        least = 3 if loop else 4
        if len(points) < least:
            kind = "a loop" if loop else "an open chain (its end points are ghosts)"
            raise ValueError(f"points must hold at least {least} points for {kind}, "
                             f"got {len(points)}")
        _require_chain_outline(points, loop)
        n = len(points)
        firsts = range(n) if loop else range(1, n - 2)
        segments = tuple(
            ChainSegment(points[(i - 1) % n], points[i], points[(i + 1) % n],
                         points[(i + 2) % n]) for i in firsts)
        object.__setattr__(self, "points", frozen(points))
        object.__setattr__(self, "loop", loop)
        object.__setattr__(self, "segments", segments)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"Chain is immutable, so {name} cannot be changed: make a new "
                             "Chain(points, loop) instead")

    def __reduce__(self):
        return Chain, (self.points, self.loop)

    def reversed(self) -> Chain:
        """The same points in the opposite order: solid on the other side."""
        return Chain(self.points[::-1], loop=self.loop)

    def __len__(self) -> int:
        return len(self.segments)

    def __repr__(self) -> str:
        kind = "loop" if self.loop else "open"
        return f"Chain({len(self.points)} points, {kind}: {len(self.segments)} segments)"


def _require_chain_outline(points: np.ndarray, loop: bool) -> None:
    """Edges long enough, no fold back, no crossing (``ValueError`` naming the points)."""
    n = len(points)
    edges = (np.roll(points, -1, axis=0) - points)[: n if loop else n - 1]
    with np.errstate(over="ignore"):
        lengths = np.hypot(edges[:, 0], edges[:, 1])
    if not np.all(np.isfinite(lengths)):
        raise ValueError("points must lie within the float range of each other")
    short = np.flatnonzero(lengths < MIN_SEGMENT_LENGTH)
    if len(short):
        k = int(short[0])
        raise ValueError(
            f"points must be at least {MIN_SEGMENT_LENGTH:g} m apart in sequence: points "
            f"{k} and {(k + 1) % n} are {lengths[k]:.3g} m apart")
    turns = range(n) if loop else range(1, n - 1)
    for k in turns:
        if _folds_back(edges[k - 1], edges[k % len(edges)]):
            raise ValueError(f"points must not fold back: the chain turns back on itself at "
                             f"point {k}")
    first, second = _first_crossing(points, loop)
    if first == -2:
        raise ValueError(f"points: {n} points are too many to test for crossings within "
                         f"{CROSSING_SEARCH_BUDGET} edge pairs")
    if first >= 0:
        raise ValueError(
            f"points must not cross: the edge from point {first} to point {(first + 1) % n} "
            f"meets the edge from point {second} to point {(second + 1) % n}")


def _first_crossing(points: np.ndarray, loop: bool) -> tuple[int, int]:
    """Two non-adjacent edges that cross or touch, as edge numbers, else (−1, −1); −2 when
    a loop is too long to test. A loop is swept as a polygon's outline is (its closing edge
    is one of its edges); an open run has no closing edge, so it is tested edge by edge.
    Points are judged relative to point 0 at a scale near 1, as a polygon's are."""
    size = float(np.max(np.ptp(points, axis=0)))
    exponent = math.frexp(size)[1]
    local = np.ldexp(points - points[0], -exponent)
    tolerance = WELD_TOLERANCE * math.ldexp(size, -exponent)
    if loop:
        return first_crossing(local, np.arange(len(local)), tolerance, CROSSING_SEARCH_BUDGET)
    return _open_crossing(local, tolerance)


def _open_crossing(local: np.ndarray, tolerance: float) -> tuple[int, int]:
    """The first pair of non-adjacent edges of an open run that cross or come within
    ``tolerance`` (edge k from point k to point k + 1), else (−1, −1); one pass per edge."""
    starts, ends = local[:-1], local[1:]
    m = len(starts)
    for k in range(m - 2):
        a, b = starts[k], ends[k]
        c, d = starts[k + 2:], ends[k + 2:]
        if _segments_meet(a, b, c, d, tolerance).any():
            j = k + 2 + int(np.argmax(_segments_meet(a, b, c, d, tolerance)))
            return k, j
    return -1, -1


def _segments_meet(a, b, c, d, tolerance) -> np.ndarray:
    """Whether segment ab crosses or comes within ``tolerance`` of each segment c[i]d[i]."""
    def side(p, q, r):
        return (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1]) - \
            (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])

    proper = (side(c, d, a) * side(c, d, b) < 0.0) & (side(a, b, c) * side(a, b, d) < 0.0)
    near = ((_point_segment_distance(a, c, d) <= tolerance)
            | (_point_segment_distance(b, c, d) <= tolerance)
            | (_point_segment_distance(c, a, b) <= tolerance)
            | (_point_segment_distance(d, a, b) <= tolerance))
    return proper | near


def _point_segment_distance(p, a, b) -> np.ndarray:
    """Distance from points p to segments ab (broadcast over leading axes)."""
    ab = b - a
    ap = p - a
    length2 = np.sum(ab * ab, axis=-1)
    t = np.clip(np.sum(ap * ab, axis=-1) / length2, 0.0, 1.0)
    gap = ap - t[..., None] * ab
    return np.hypot(gap[..., 0], gap[..., 1])


#: Every shape a body can carry.
Shape = Circle | Polygon | Capsule | Segment | ChainSegment

#: The shape classes, for ``isinstance`` checks and messages.
SHAPE_CLASSES = (Circle, Polygon, Capsule, Segment, ChainSegment)
