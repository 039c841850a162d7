"""Chapter 8: support functions, the Minkowski difference, GJK distance and EPA depth.

Every convex shape is known here only through its *support function*: the point of the
shape farthest in a direction d, s(d) = argmax_p p·d. The Minkowski difference
A ⊖ B = {a − b} has s_{A⊖B}(d) = s_A(d) − s_B(−d); it contains the origin exactly when A
and B overlap, and its point nearest the origin is as far from it as A is from B.

- :func:`distance` runs GJK (Gilbert–Johnson–Keerthi): a simplex of up to three support
  points of A ⊖ B walks towards the origin; it returns the distance and closest points.
- :func:`penetration` runs EPA (the expanding polytope algorithm) from GJK's final simplex
  when the shapes overlap: it returns the depth and normal of the minimum translation.

A circle is handled as its centre plus a radius: GJK and EPA run on the centre (a point,
so they finish exactly) and the radius is added at the end, so curved circles cost nothing
and lose nothing. Any other object with a ``support(direction)`` method (local frame) works
too, such as an ellipse; a curved shape is then approximated to the tolerances of
:mod:`physbook.constants`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.constants import (
    COINCIDENT_NORMAL,
    EPA_MAX_ITERATIONS,
    EPA_RELATIVE_TOLERANCE,
    GJK_CONTACT_FRACTION,
    GJK_MAX_ITERATIONS,
    GJK_RELATIVE_TOLERANCE,
)
from physbook.geometry.round_shapes import Capsule, ChainSegment, Segment
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.kernels import cross
from physbook.vecmath.vec import Transform

# ----------------------------------------------------------------------------------------
# Support functions


def _check_shape(shape, name: str) -> None:
    if not callable(getattr(shape, "support", None)):
        raise TypeError(f"{name} must be a convex shape with a support(direction) method, "
                        f"got {type(shape).__name__}")


def _check_pair(shape_a, xf_a, shape_b, xf_b) -> None:
    _check_shape(shape_a, "shape_a")
    _check_shape(shape_b, "shape_b")
    _check.instance(xf_a, "xf_a", Transform, "a Transform")
    _check.instance(xf_b, "xf_b", Transform, "a Transform")


def _local_support(shape, transform: Transform, direction: np.ndarray, name: str):
    """The shape's own support along a world direction, in its local frame, checked: a
    user's shape may return anything."""
    answer = shape.support(transform.rotate_to_local(direction))
    return _check.vector(answer, f"{name}.support(direction)")


def support_point(shape, transform: Transform, direction) -> np.ndarray:
    """The point of ``shape`` in pose ``transform`` farthest along ``direction`` (world).

    The shape's own support works in its local frame, so the direction is turned into it
    and the answer turned back: s(d) = T(s_local(Rᵀ·d)).
    """
    _check_shape(shape, "shape")
    _check.instance(transform, "transform", Transform, "a Transform")
    return transform.to_world(_local_support(shape, transform, _direction(direction),
                                             "shape"))


def _direction(value) -> np.ndarray:
    direction = _check.vector(value, "direction")
    if not np.any(direction):
        raise ValueError("direction must be a non-zero vector")
    return direction


def minkowski_support(shape_a, xf_a: Transform, shape_b, xf_b: Transform,
                      direction) -> np.ndarray:
    """Support point of the Minkowski difference A ⊖ B: s_A(d) − s_B(−d)."""
    _check_pair(shape_a, xf_a, shape_b, xf_b)
    direction = _direction(direction)
    point_a = xf_a.to_world(_local_support(shape_a, xf_a, direction, "shape_a"))
    point_b = xf_b.to_world(_local_support(shape_b, xf_b, -direction, "shape_b"))
    with np.errstate(over="ignore"):  # reported below, by name
        difference = point_a - point_b
    if not np.all(np.isfinite(difference)):
        raise FloatingPointError("the support point of A ⊖ B overflows the float range "
                                 "(±1.8e308 m): the shapes are too far apart")
    return difference


class CoreFrame(NamedTuple):
    """The frame GJK and EPA work in: a world point p is ``(p − origin)·scale`` there.

    The unit frame (origin 0, scale 1) serves every ordinary pair. Shapes far out or tiny
    get an origin between them and a power-of-two scale (exact), which keep every length
    near 1, so that the squares and products of GJK and EPA stay in float range.
    """

    origin: np.ndarray
    scale: float

    def place(self, transform: Transform, local: np.ndarray) -> np.ndarray:
        """Body-local points, placed by ``transform``: (R·p + (position − origin))·scale."""
        return (local @ transform.rotation.T + (transform.position - self.origin)) * self.scale

    def to_world(self, points: np.ndarray) -> np.ndarray:
        """Points of this frame back in world space (m)."""
        return points / self.scale + self.origin


UNIT_FRAME = CoreFrame(np.zeros(2), 1.0)


#: The shape classes whose core GJK takes from ``shape.core()``: points and a radius.
CORE_SHAPES = (Circle, Polygon, Capsule, Segment, ChainSegment)


class Core:
    """A shape as a core and a radius, in a :class:`CoreFrame` (world space by default): a
    circle is its centre plus radius, a polygon its vertices (plus its radius when
    rounded), a capsule or segment its two points (plus radius); any other convex shape
    with a ``support(direction)`` method is its support function alone."""

    def __init__(self, shape, transform: Transform, frame: CoreFrame = UNIT_FRAME,
                 name: str = "shape"):
        _check_shape(shape, "shape")
        self.shape = shape
        self.transform = _check.instance(transform, "transform", Transform, "a Transform")
        _check.instance(name, "name", str, "a string")
        _check.instance(frame, "frame", CoreFrame, "a CoreFrame")
        self.frame = frame = CoreFrame(_check.vector(frame.origin, "frame.origin"),
                                       _check.positive_scalar(frame.scale, "frame.scale"))
        self.name = name
        if isinstance(shape, CORE_SHAPES):
            points, radius = shape.core()
            self.points = frame.place(transform, points)
            self.radius = radius * frame.scale
        else:
            self.points = None  # only a support function
            self.radius = 0.0
        if self.points is not None and not np.all(np.isfinite(self.points)):
            raise FloatingPointError(f"the points of {name} overflow the float range "
                                     "(±1.8e308 m) in this frame")

    def support(self, direction: np.ndarray) -> tuple[np.ndarray, object]:
        """(point, key): the key names the vertex, so GJK can see it come back."""
        direction = _check.vector(direction, "direction")
        if self.points is not None:
            index = int(np.argmax(self.points @ direction))
            return self.points[index], index
        local = _local_support(self.shape, self.transform, direction, self.name)
        point = self.frame.place(self.transform, local)
        return point, (float(point[0]), float(point[1]))


#: Pairs whose coordinates all lie within 2**±LENGTH_EXPONENT m run in world space; GJK and
#: EPA multiply up to four lengths (a signed area times a signed area), which then stays
#: inside the float range (2**±1022).
LENGTH_EXPONENT = 200


def _reach(shape, transform: Transform, frame: CoreFrame, name: str) -> float:
    """The largest coordinate of the shape in ``frame``, by its support along ±x, ±y."""
    if isinstance(shape, CORE_SHAPES):
        points, radius = shape.core()
        return float(np.max(np.abs(frame.place(transform, points)))) + radius * frame.scale
    return max(float(np.max(np.abs(frame.place(
        transform, _local_support(shape, transform, np.array(direction), name)))))
        for direction in ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)))


def _core_frame(shape_a, xf_a: Transform, shape_b, xf_b: Transform) -> CoreFrame:
    """The unit frame, unless the pair reaches beyond 2**±LENGTH_EXPONENT m: then an origin
    midway between the two poses (halves first, so the sum stays in range) and the power
    of two that brings the remaining reach into [0.5, 1)."""
    def reach(frame: CoreFrame) -> float:
        return max(_reach(shape_a, xf_a, frame, "shape_a"),
                   _reach(shape_b, xf_b, frame, "shape_b"))

    if 2.0**-LENGTH_EXPONENT <= reach(UNIT_FRAME) <= 2.0**LENGTH_EXPONENT:
        return UNIT_FRAME
    centred = CoreFrame(0.5 * xf_a.position + 0.5 * xf_b.position, 1.0)
    remaining = reach(centred)
    if not math.isfinite(remaining):
        raise FloatingPointError("the two shapes reach beyond the float range (±1.8e308 m) "
                                 "from the point midway between them")
    if remaining == 0.0:
        return centred
    return CoreFrame(centred.origin, math.ldexp(1.0, -math.frexp(remaining)[1]))


# ----------------------------------------------------------------------------------------
# GJK


class GjkStep(NamedTuple):
    """One GJK iteration: ``simplex`` (k, 2) points of A ⊖ B kept after the reduction,
    ``closest`` (2,) the simplex point nearest the origin, ``support`` (2,) the new support
    point found along −closest (None on the last step)."""

    simplex: np.ndarray
    closest: np.ndarray
    support: np.ndarray | None


@dataclass(frozen=True)
class DistanceResult:
    """``distance`` (m, 0 when the shapes overlap or touch), ``point_a``/``point_b`` the
    closest points on A and B (world; one common point when overlapping), ``iterations``
    GJK iterations, ``simplex`` the final simplex of A ⊖ B (cores), ``trace`` the
    :class:`GjkStep` list when asked for."""

    distance: float
    point_a: np.ndarray
    point_b: np.ndarray
    iterations: int
    simplex: np.ndarray
    trace: list[GjkStep] | None = None


class _Vertex(NamedTuple):
    a: np.ndarray  # support point of A's core
    b: np.ndarray  # support point of B's core
    w: np.ndarray  # a − b, a point of the Minkowski difference
    key: tuple


def _cross(u, v) -> float:
    """u × v of two (2,) arrays, as a Python float."""
    return float(cross(u[0], u[1], v[0], v[1]))


def _solve_segment(v1: _Vertex, v2: _Vertex):
    """Closest point of segment w1w2 to the origin, as kept vertices and weights.

    With e = w2 − w1 the origin projects at t = −w1·e / e·e along the segment; the two
    unnormalised barycentric weights are u1 = w2·e (for w1) and u2 = −w1·e (for w2), with
    u1 + u2 = e·e and t = u2 / (u1 + u2). A non-positive weight means the other end is
    closest (u2 ≤ 0: t ≤ 0, keep w1; u1 ≤ 0: t ≥ 1, keep w2).
    """
    e = v2.w - v1.w
    weight_1 = float(v2.w @ e)
    weight_2 = -float(v1.w @ e)
    if weight_2 <= 0.0:
        return [v1], [1.0]
    if weight_1 <= 0.0:
        return [v2], [1.0]
    total = weight_1 + weight_2
    return [v1, v2], [weight_1 / total, weight_2 / total]


def _solve_triangle(v1: _Vertex, v2: _Vertex, v3: _Vertex):
    """Closest point of triangle w1w2w3 to the origin (Voronoi regions by signed areas).

    Edge weights are as in :func:`_solve_segment` (d12_1, d12_2 are u1, u2 of edge w1w2).
    The triangle weights are Δ·σ_i (d123_i), with Δ = (w2 − w1) × (w3 − w1) (n123) twice
    the signed area and σ1 = w2 × w3, σ2 = w3 × w1, σ3 = w1 × w2 twice the signed areas of
    the triangles the origin makes with each edge; σ_i / Δ are the origin's barycentric
    coordinates, and multiplying by Δ instead of dividing keeps their signs for either
    orientation. The regions are tested in order: a corner (the origin projects behind it
    on both of its edges), an edge (inside the edge, and Δ·σ of the opposite corner ≤ 0),
    the inside (all Δ·σ_i > 0). A flat triangle (Δ = 0) falls back to its best edge.
    """
    w1, w2, w3 = v1.w, v2.w, v3.w
    e12, e13, e23 = w2 - w1, w3 - w1, w3 - w2
    d12_1, d12_2 = float(w2 @ e12), -float(w1 @ e12)
    d13_1, d13_2 = float(w3 @ e13), -float(w1 @ e13)
    d23_1, d23_2 = float(w3 @ e23), -float(w2 @ e23)
    n123 = _cross(e12, e13)
    d123_1 = n123 * _cross(w2, w3)
    d123_2 = n123 * _cross(w3, w1)
    d123_3 = n123 * _cross(w1, w2)

    if d12_2 <= 0.0 and d13_2 <= 0.0:
        return [v1], [1.0]
    if d12_1 <= 0.0 and d23_2 <= 0.0:
        return [v2], [1.0]
    if d13_1 <= 0.0 and d23_1 <= 0.0:
        return [v3], [1.0]
    if n123 != 0.0:
        if d12_1 > 0.0 and d12_2 > 0.0 and d123_3 <= 0.0:
            return _solve_segment(v1, v2)
        if d13_1 > 0.0 and d13_2 > 0.0 and d123_2 <= 0.0:
            return _solve_segment(v1, v3)
        if d23_1 > 0.0 and d23_2 > 0.0 and d123_1 <= 0.0:
            return _solve_segment(v2, v3)
        total = d123_1 + d123_2 + d123_3
        if total > 0.0:
            return [v1, v2, v3], [d123_1 / total, d123_2 / total, d123_3 / total]
    # Collinear points (or rounding at the border): the best of the three edges.
    options = [_solve_segment(v1, v2), _solve_segment(v1, v3), _solve_segment(v2, v3)]
    return min(options, key=lambda o: float(np.hypot(*_combine(o, "w"))))


def _combine(solution, field: str) -> np.ndarray:
    vertices, weights = solution
    return sum(weight * getattr(vertex, field) for vertex, weight in zip(vertices, weights,
                                                                         strict=True))


def _search_direction(vertices: list[_Vertex], closest: np.ndarray) -> np.ndarray:
    """Towards the origin from the simplex. For a segment the exact perpendicular is used:
    −v, computed from weights, can lose its direction to cancellation when v is small."""
    if len(vertices) == 2:
        e = vertices[1].w - vertices[0].w
        left = np.array([-e[1], e[0]])
        return left if _cross(e, -vertices[0].w) > 0.0 else -left
    return -closest


def gjk(core_a: Core, core_b: Core, keep_trace: bool = False):
    """GJK on two cores (see :class:`Core`), the loop :func:`distance` runs.

    Returns ``(solution, core_distance, iterations, trace)``: ``solution`` is the final
    simplex as (vertices, barycentric weights) of its point nearest the origin, the core
    distance (in the cores' frame, see :class:`CoreFrame`) is 0 when the cores
    touch or overlap, and ``trace`` the :class:`GjkStep` list (None unless ``keep_trace``).
    """
    _check.instance(core_a, "core_a", Core, "a Core")
    _check.instance(core_b, "core_b", Core, "a Core")
    keep_trace = _check.flag(keep_trace, "keep_trace")
    direction = np.array([1.0, 0.0])
    a, key_a = core_a.support(direction)
    b, key_b = core_b.support(-direction)
    vertices = [_Vertex(a, b, a - b, (key_a, key_b))]
    solution = (vertices, [1.0])
    trace = [] if keep_trace else None
    iterations = 0
    while True:
        if len(vertices) == 2:
            solution = _solve_segment(*vertices)
        elif len(vertices) == 3:
            solution = _solve_triangle(*vertices)
        vertices = solution[0]
        closest = _combine(solution, "w")
        size = max(float(np.hypot(*vertex.w)) for vertex in vertices)
        squared = float(closest @ closest)
        touching = len(vertices) == 3 or squared <= (GJK_CONTACT_FRACTION * size) ** 2
        if touching or iterations >= GJK_MAX_ITERATIONS:
            if keep_trace:
                trace.append(GjkStep(np.array([v.w for v in vertices]), closest, None))
            return solution, (0.0 if touching else np.sqrt(squared)), iterations, trace

        direction = _search_direction(vertices, closest)
        a, key_a = core_a.support(direction)
        b, key_b = core_b.support(-direction)
        new = _Vertex(a, b, a - b, (key_a, key_b))
        iterations += 1
        if keep_trace:
            trace.append(GjkStep(np.array([v.w for v in vertices]), closest, new.w))
        # A support point seen before (by its vertex keys, immune to rounding) cannot help.
        repeated = any(vertex.key == new.key for vertex in vertices)
        # No progress: the new point is no nearer the origin along v than v itself. Since
        # v·w/|v| ≤ distance ≤ |v|, this relative test (van den Bergen 1999) bounds the
        # error of the distance returned by GJK_RELATIVE_TOLERANCE·|v|.
        stalled = squared - float(closest @ new.w) <= GJK_RELATIVE_TOLERANCE * squared
        if repeated or stalled:
            if keep_trace:
                trace.append(GjkStep(np.array([v.w for v in vertices]), closest, None))
            return solution, np.sqrt(squared), iterations, trace
        vertices = vertices + [new]


def _cores(shape_a, xf_a, shape_b, xf_b) -> tuple[Core, Core]:
    """The checked shapes as cores, in a frame where GJK and EPA cannot overflow (see
    :func:`_core_frame`): lengths of 1e160 m or 1e-160 m would square out of float range."""
    _check_pair(shape_a, xf_a, shape_b, xf_b)
    frame = _core_frame(shape_a, xf_a, shape_b, xf_b)
    return Core(shape_a, xf_a, frame, "shape_a"), Core(shape_b, xf_b, frame, "shape_b")


def _finite(value, what: str):
    """``value``, unless it overflowed: the inputs are finite, so only a result beyond the
    float range can be inf (two shapes farther apart than 1.8e308 m)."""
    if not np.all(np.isfinite(value)):
        raise FloatingPointError(f"the {what} overflows the float range (±1.8e308 m)")
    return value


def distance(shape_a, xf_a: Transform, shape_b, xf_b: Transform, *,
             trace: bool = False) -> DistanceResult:
    """Distance between two convex shapes and their closest points, by GJK.

    With radii r_A, r_B (circles, capsules, rounded polygons; 0 otherwise) and core
    distance d (GJK on the centres, segments and polygons), the distance is
    max(0, d − r_A − r_B) and the closest points move out from the cores by their radii
    along n = (p_B − p_A)/d. ``trace=True`` records every
    iteration's simplex for drawing.
    """
    core_a, core_b = _cores(shape_a, xf_a, shape_b, xf_b)
    trace = _check.flag(trace, "trace")
    solution, core_distance, iterations, steps = gjk(core_a, core_b, trace)
    point_a = _combine(solution, "a")
    point_b = _combine(solution, "b")
    simplex = np.array([vertex.w for vertex in solution[0]])
    reach = core_a.radius + core_b.radius
    if core_distance > reach:
        normal = (point_b - point_a) / core_distance
        point_a = point_a + core_a.radius * normal
        point_b = point_b - core_b.radius * normal
        gap = core_distance - reach
    else:
        if core_distance > 0.0:
            # Only the radii overlap: one common point, midway between the surfaces.
            normal = (point_b - point_a) / core_distance
            point_a = point_b = 0.5 * ((point_a + core_a.radius * normal)
                                       + (point_b - core_b.radius * normal))
        else:
            point_a = point_b = 0.5 * (point_a + point_b)
        gap = 0.0
    # Back from the cores' frame to metres; points of A ⊖ B are differences, which the
    # origin does not move.
    frame, scale = core_a.frame, core_a.frame.scale
    if steps is not None:
        steps = [GjkStep(step.simplex / scale, step.closest / scale,
                         None if step.support is None else step.support / scale)
                 for step in steps]
    with np.errstate(over="ignore"):  # an overflow is reported by _finite, by name
        gap, point_a, point_b = gap / scale, frame.to_world(point_a), frame.to_world(point_b)
    return DistanceResult(float(_finite(gap, "distance")),
                          _finite(point_a, "closest point on A"),
                          _finite(point_b, "closest point on B"), iterations,
                          simplex / scale, steps)


def intersect(shape_a, xf_a: Transform, shape_b, xf_b: Transform) -> bool:
    """True when the shapes overlap or touch (GJK distance is zero).

    The cores' distance is compared with the radii where GJK left it, in the cores' frame,
    so shapes farther apart than the float range can hold are simply apart.
    """
    core_a, core_b = _cores(shape_a, xf_a, shape_b, xf_b)
    _, core_distance, _, _ = gjk(core_a, core_b)
    return bool(core_distance <= core_a.radius + core_b.radius)


# ----------------------------------------------------------------------------------------
# EPA


class EpaStep(NamedTuple):
    """One EPA iteration: ``polytope`` (m, 2) counter-clockwise points of A ⊖ B, ``edge``
    the index of its edge closest to the origin (from point edge to edge + 1), ``support``
    the support point found along that edge's normal."""

    polytope: np.ndarray
    edge: int
    support: np.ndarray


@dataclass(frozen=True)
class PenetrationResult:
    """``depth`` (m, ≥ 0) and ``normal`` (unit, from A to B) of the minimum translation:
    moving B by depth·normal ends the overlap. ``iterations`` counts EPA iterations,
    ``polytope`` is EPA's final polygon (cores), ``trace`` its :class:`EpaStep` list."""

    depth: float
    normal: np.ndarray
    iterations: int
    polytope: np.ndarray
    trace: list[EpaStep] | None = None


def _core_support(core_a: Core, core_b: Core, direction: np.ndarray) -> np.ndarray:
    return core_a.support(direction)[0] - core_b.support(-direction)[0]


def _closest_edge(polytope: list[np.ndarray]) -> tuple[int, float, np.ndarray]:
    """The edge nearest the origin: for CCW points its outward normal is (e_y, −e_x)/|e|
    and its distance from the origin is n·p."""
    best = (0, np.inf, np.array([1.0, 0.0]))
    count = len(polytope)
    for i in range(count):
        p, q = polytope[i], polytope[(i + 1) % count]
        e = q - p
        size = float(np.hypot(*e))
        if size == 0.0:
            continue
        normal = np.array([e[1], -e[0]]) / size
        gap = float(normal @ p)
        if gap < best[1]:
            best = (i, gap, normal)
    return best


def _start_polytope(core_a: Core, core_b: Core, simplex: np.ndarray) -> list[np.ndarray]:
    """A counter-clockwise polygon of A ⊖ B points around the origin, from GJK's simplex.

    GJK may stop on a point or a segment when the origin lies on it (touching shapes);
    support points on both sides of it then give the polygon some area.
    """
    points = [p for p in simplex]
    if len(points) == 1:
        for direction in ([1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]):
            other = _core_support(core_a, core_b, np.array(direction))
            if np.any(other != points[0]):
                points.append(other)
                break
        else:
            return points  # A ⊖ B is a single point (two circle centres)
    if len(points) == 2:
        p, q = points
        e = q - p
        left = np.array([-e[1], e[0]]) / float(np.hypot(*e))
        size = max(float(np.hypot(*p)), float(np.hypot(*q)))
        polygon = [p]
        right_point = _core_support(core_a, core_b, -left)
        if -float(left @ (right_point - p)) > EPA_RELATIVE_TOLERANCE * size:
            polygon.append(right_point)
        polygon.append(q)
        left_point = _core_support(core_a, core_b, left)
        if float(left @ (left_point - p)) > EPA_RELATIVE_TOLERANCE * size:
            polygon.append(left_point)
        return polygon
    if _cross(points[1] - points[0], points[2] - points[0]) < 0.0:
        points[1], points[2] = points[2], points[1]
    return points


def epa(core_a: Core, core_b: Core, simplex: np.ndarray, keep_trace: bool = False):
    """EPA on two overlapping cores from GJK's final ``simplex``, the loop of :func:`penetration`.

    Returns ``(depth, normal, iterations, polytope, trace)``: the depth (of the cores only,
    in their frame, see :class:`CoreFrame`) and unit normal of the closest edge of
    the final polytope, and the :class:`EpaStep` list (None unless ``keep_trace``).
    """
    _check.instance(core_a, "core_a", Core, "a Core")
    _check.instance(core_b, "core_b", Core, "a Core")
    simplex = _check.finite_array(simplex, "simplex")
    if simplex.ndim != 2 or simplex.shape[1] != 2 or not 1 <= len(simplex) <= 3:
        raise ValueError(f"simplex must hold 1 to 3 points of A ⊖ B, shape (k, 2), got "
                         f"shape {simplex.shape}")
    if len(np.unique(simplex, axis=0)) != len(simplex):
        raise ValueError("simplex must hold distinct points")
    keep_trace = _check.flag(keep_trace, "keep_trace")
    polytope = _start_polytope(core_a, core_b, simplex)
    steps = [] if keep_trace else None
    iterations = 0
    while True:
        if len(polytope) == 1:  # two points: A ⊖ B is the origin alone
            return 0.0, np.array(COINCIDENT_NORMAL), iterations, polytope, steps
        edge, gap, normal = _closest_edge(polytope)
        if len(polytope) == 2:  # a flat difference: no area to expand into
            return max(gap, 0.0), normal, iterations, polytope, steps
        new = _core_support(core_a, core_b, normal)
        if keep_trace:
            steps.append(EpaStep(np.array(polytope), edge, new))
        size = max(float(np.hypot(*p)) for p in polytope)
        if float(normal @ new) - gap <= EPA_RELATIVE_TOLERANCE * size or (
                iterations >= EPA_MAX_ITERATIONS):
            return max(gap, 0.0), normal, iterations, polytope, steps
        polytope.insert(edge + 1, new)
        iterations += 1


def penetration(shape_a, xf_a: Transform, shape_b, xf_b: Transform, *,
                trace: bool = False) -> PenetrationResult | None:
    """Depth and normal of the overlap of two convex shapes, or None when they are apart.

    GJK runs on the cores first. If the cores are apart but the radii overlap, the depth
    is r_A + r_B − d along the line of the closest points, exactly. If the cores overlap,
    EPA expands GJK's final simplex inside A ⊖ B until its closest edge lies on the
    boundary: that edge's distance plus r_A + r_B is the depth and its normal the normal.
    """
    core_a, core_b = _cores(shape_a, xf_a, shape_b, xf_b)
    trace = _check.flag(trace, "trace")
    solution, core_distance, _, _ = gjk(core_a, core_b, False)
    reach = core_a.radius + core_b.radius
    if core_distance > reach:
        return None
    scale = core_a.frame.scale  # back from the cores' frame to metres
    if core_distance > 0.0:
        normal = (_combine(solution, "b") - _combine(solution, "a")) / core_distance
        simplex = np.array([vertex.w for vertex in solution[0]])
        return PenetrationResult(float(reach - core_distance) / scale, normal, 0,
                                 simplex / scale, [] if trace else None)
    simplex = np.array([vertex.w for vertex in solution[0]])
    depth, normal, iterations, polytope, steps = epa(core_a, core_b, simplex, trace)
    if steps is not None:
        steps = [EpaStep(step.polytope / scale, step.edge, step.support / scale)
                 for step in steps]
    return PenetrationResult(float(depth + reach) / scale, normal, iterations,
                             np.array(polytope) / scale, steps)
