"""Chapter 13: when two moving shapes first touch within a step — the time of impact.

A body's motion over a step is a :class:`Sweep`: its centre of mass goes from ``c0`` to
``c1`` and its angle from ``a0`` to ``a1``, both linearly in the fraction t ∈ [0, 1] of the
step (Box2D's b2Sweep). The shape is carried by the body, so at fraction t a point p of the
body (body coordinates) is at c(t) + R(a(t))·(p − local_center).

:func:`time_of_impact` finds the first t at which the shapes come within ``target`` of each
other by *conservative advancement*: at the current t the distance d is known, and no
point of either shape moves faster, relative to the other, than

    bound = |Δc_B − Δc_A| + |Δa_A|·r_A + |Δa_B|·r_B   (per unit of t),

with r the farthest point of each shape from its body's centre of mass. So the shapes cannot
come closer than ``target`` before t + (d − target)/bound, and t may jump there safely. Each
jump is safe, none overshoots, and near contact d shrinks geometrically; the iterations are
capped, and a pair that has not converged by then is finished by sampling the rest of the
step and bisecting on "apart by more than ``target``", which needs only that sign.

The distance is :func:`~physbook.collision.core_distance.convex_distance`: for two convex
shapes it is exact and needs no iteration (the separating axis test of chapter 7 says
whether they overlap; if not, the closest points are a vertex of one and an edge of the
other; cores of one or two points are measured directly). It agrees with chapter 8's
GJK distance, which the tests use as its oracle, and it compiles, so the world can call it
for every fast body every step.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.collision.core_distance import (  # noqa: F401  (the distance's home; kept here)
    convex_distance,
    nearest_on_segment,
    nearest_vertex_edge,
)
from physbook.constants import TOI_MAX_ITERATIONS, TOI_TOLERANCE_FRACTION
from physbook.geometry.round_shapes import Capsule, Chain, ChainSegment, Segment
from physbook.geometry.shape_table import reach
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.vec import Transform

#: What :func:`time_of_impact` found.
HIT, SEPARATED, OVERLAPPED, FAILED = "hit", "separated", "overlapped", "failed"
#: The same states as the compiled kernels return them, by code.
STATES = (HIT, SEPARATED, OVERLAPPED, FAILED)
HIT_CODE, SEPARATED_CODE, OVERLAPPED_CODE, FAILED_CODE = range(4)


class Sweep(NamedTuple):
    """A body's motion over a step: centre of mass from ``c0`` to ``c1`` (m), angle from
    ``a0`` to ``a1`` (rad), and the centre of mass in body coordinates ``local_center``."""

    c0: np.ndarray
    c1: np.ndarray
    a0: float
    a1: float
    local_center: np.ndarray

    def transform(self, t: float) -> Transform:
        """The body's pose at fraction ``t`` of the step: origin and angle."""
        angle = (1.0 - t) * self.a0 + t * self.a1
        center = (1.0 - t) * self.c0 + t * self.c1
        cosine, sine = math.cos(angle), math.sin(angle)
        x, y = self.local_center
        return Transform(center - np.array([cosine * x - sine * y, sine * x + cosine * y]),
                         angle)

    def packed(self) -> np.ndarray:
        """The sweep as the compiled kernels take it: (c0x, c0y, c1x, c1y, a0, a1, lcx, lcy)."""
        return np.array([*self.c0, *self.c1, self.a0, self.a1, *self.local_center])


def sweep(c0, c1, a0: float = 0.0, a1: float = 0.0, local_center=(0.0, 0.0)) -> Sweep:
    """A checked :class:`Sweep`."""
    return Sweep(_check.vector(c0, "c0"), _check.vector(c1, "c1"),
                 _check.finite_scalar(a0, "a0"), _check.finite_scalar(a1, "a1"),
                 _check.vector(local_center, "local_center"))


class ToiResult(NamedTuple):
    """``state`` (:data:`HIT`, :data:`SEPARATED`, :data:`OVERLAPPED` or :data:`FAILED`),
    ``fraction`` t of the step (the time of impact for a hit, ``t_max`` when separated,
    0 when overlapped at the start), the ``iterations`` taken, and, when asked for, the
    ``fractions`` conservative advancement stepped through (0 first)."""

    state: str
    fraction: float
    iterations: int
    fractions: np.ndarray = np.zeros(0)


# --- the distance between two convex shapes ------------------------------------------------


@njit
def _posed(local, normals, motion, t, points, turned):
    """The shape's vertices and edge normals at fraction t of the sweep ``motion`` (packed):
    p = c(t) + R(a(t))·(p_local − local_center), n = R(a(t))·n_local."""
    angle = (1.0 - t) * motion[4] + t * motion[5]
    cx = (1.0 - t) * motion[0] + t * motion[2]
    cy = (1.0 - t) * motion[1] + t * motion[3]
    cosine = math.cos(angle)
    sine = math.sin(angle)
    for k in range(local.shape[0]):
        x = local[k, 0] - motion[6]
        y = local[k, 1] - motion[7]
        points[k, 0] = cx + cosine * x - sine * y
        points[k, 1] = cy + sine * x + cosine * y
        turned[k, 0] = cosine * normals[k, 0] - sine * normals[k, 1]
        turned[k, 1] = sine * normals[k, 0] + cosine * normals[k, 1]


# --- conservative advancement -----------------------------------------------------------


@njit
def pose_both(shape_a, motion_a, shape_b, motion_b, t, work):
    """Pose both shapes' cores at fraction t of their sweeps into ``work`` (the arrays of
    :func:`work_arrays`); returns their vertex counts."""
    local_a, normals_a, _ = shape_a
    local_b, normals_b, _ = shape_b
    points_a, turned_a, points_b, turned_b = work
    count_a = local_a.shape[0]
    count_b = local_b.shape[0]
    _posed(local_a, normals_a, motion_a, t, points_a[:count_a], turned_a[:count_a])
    _posed(local_b, normals_b, motion_b, t, points_b[:count_b], turned_b[:count_b])
    return count_a, count_b


@njit
def _gap(shape_a, motion_a, shape_b, motion_b, t, work):
    """The distance between the shapes at fraction t of their sweeps (m)."""
    radius_a, radius_b = shape_a[2], shape_b[2]
    points_a, turned_a, points_b, turned_b = work
    count_a, count_b = pose_both(shape_a, motion_a, shape_b, motion_b, t, work)
    return convex_distance(points_a[:count_a], turned_a[:count_a], radius_a,
                           points_b[:count_b], turned_b[:count_b], radius_b)


@njit
def advance(shape_a, motion_a, shape_b, motion_b, t_max, target, tolerance, bound, work,
            trace):
    """Conservative advancement (see the module docstring): returns (state code, fraction,
    iterations). ``shape_a`` and ``shape_b`` are (local vertices, local normals, radius),
    the motions packed sweeps, ``bound`` the bound on approach speed per unit of t, and
    ``work`` four (n, 2) arrays at least as long as either shape's vertex count. The
    advancement's fractions are written to ``trace`` as far as it is long."""
    t = 0.0
    d = _gap(shape_a, motion_a, shape_b, motion_b, t, work)
    if d <= target:
        return (OVERLAPPED_CODE if d == 0.0 else HIT_CODE), 0.0, 0
    for iteration in range(1, TOI_MAX_ITERATIONS + 1):
        if iteration - 1 < trace.shape[0]:
            trace[iteration - 1] = t
        if d <= target + tolerance:
            return HIT_CODE, t, iteration - 1
        # No point comes closer by more than bound·Δt: no contact before t_next.
        t_next = t + (d - target) / bound if bound > 0.0 else math.inf
        if t_next >= t_max:
            return SEPARATED_CODE, t_max, iteration
        t = t_next
        d = _gap(shape_a, motion_a, shape_b, motion_b, t, work)
        if d <= target:  # only rounding can bring it here: the jump was safe
            return HIT_CODE, t, iteration
    # Not converged (a grazing approach creeps): look for a sample of the rest of the step
    # within reach of the target, then bisect between the last safe t and it.
    low = t
    high = t_max
    found = False
    for k in range(1, TOI_MAX_ITERATIONS + 1):
        high = t + (t_max - t) * k / TOI_MAX_ITERATIONS
        if _gap(shape_a, motion_a, shape_b, motion_b, high, work) <= target + tolerance:
            found = True
            break
        low = high
    if not found:
        # Apart at every sample: a contact, if any, is shorter than a sample. The last
        # safe fraction is still safe.
        return FAILED_CODE, t, 2 * TOI_MAX_ITERATIONS
    halvings = 0
    while (high - low) * bound > tolerance and halvings < TOI_MAX_ITERATIONS:
        middle = 0.5 * (low + high)
        if _gap(shape_a, motion_a, shape_b, motion_b, middle, work) > target + tolerance:
            low = middle
        else:
            high = middle
        halvings += 1
    return HIT_CODE, low, 2 * TOI_MAX_ITERATIONS + halvings


def work_arrays(vertices: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Scratch for :func:`advance` with shapes of up to ``vertices`` vertices."""
    return tuple(np.empty((max(vertices, 1), 2)) for _ in range(4))


# --- the public function ---------------------------------------------------------------


def core(shape) -> tuple[np.ndarray, np.ndarray, float]:
    """A shape as the kernels take it: (core points, edge normals, radius), body
    coordinates (``shape.core()`` with the normals the distance's axis test needs): a
    circle is its centre (one unused normal) and radius, a polygon its vertices, normals and
    radius, a capsule, segment or chain segment its two points with normals n and −n (a
    chain segment is taken two-sided here; its ghosts are not part of it)."""
    points, radius = shape.core()
    points = np.array(points, dtype=float)
    if isinstance(shape, Polygon):
        normals = np.array(shape.normals)
    elif len(points) == 2:
        edge = points[1] - points[0]
        normal = np.array([edge[1], -edge[0]]) / math.hypot(edge[0], edge[1])
        normals = np.array([normal, -normal]) + 0.0
    else:
        normals = np.zeros((len(points), 2))
    return points, normals, float(radius)


def _check_core_shape(shape, name: str) -> None:
    """TypeError unless ``shape`` is one of the five shape classes (a Chain is told to give
    one of its segments)."""
    if isinstance(shape, Chain):
        raise TypeError(f"{name} must be a single shape, got a Chain: give one of its "
                        ".segments")
    _check.instance(shape, name, (Circle, Polygon, Capsule, Segment, ChainSegment),
                    "a Circle, Polygon, Capsule, Segment or ChainSegment")


def _checked_sweep(value, name: str) -> Sweep:
    _check.instance(value, name, Sweep, "a Sweep (physbook.collision.toi.sweep(...))")
    for field in ("c0", "c1", "local_center"):
        vector = np.asarray(getattr(value, field), dtype=float) if not isinstance(
            getattr(value, field), str) else None
        if vector is None or vector.shape != (2,) or not np.all(np.isfinite(vector)):
            raise ValueError(f"{name}.{field} must be a finite 2-vector")
    for field in ("a0", "a1"):
        angle = getattr(value, field)
        if not isinstance(angle, (int, float, np.floating, np.integer)) or isinstance(
                angle, bool) or not math.isfinite(angle):
            raise ValueError(f"{name}.{field} must be a finite number of radians")
    return Sweep(np.asarray(value.c0, float), np.asarray(value.c1, float), float(value.a0),
                 float(value.a1), np.asarray(value.local_center, float))


def checked_problem(shape_a, sweep_a, shape_b, sweep_b, t_max, target, tolerance, trace):
    """The arguments of a time of impact, checked: ((core, sweep, reach) of each shape,
    t_max, target, tolerance, trace), the tolerance by default a millionth of the larger
    reach (:data:`~physbook.constants.TOI_TOLERANCE_FRACTION`)."""
    trace = _check.flag(trace, "trace")
    for name, shape in (("shape_a", shape_a), ("shape_b", shape_b)):
        _check_core_shape(shape, name)
    sweep_a = _checked_sweep(sweep_a, "sweep_a")
    sweep_b = _checked_sweep(sweep_b, "sweep_b")
    t_max = _check.positive_scalar(t_max, "t_max")
    if t_max > 1.0:
        raise ValueError(f"t_max must be at most 1 (a fraction of the step), got {t_max}")
    target = _check.non_negative_scalar(target, "target")
    core_a, core_b = core(shape_a), core(shape_b)
    reach_a = reach(core_a[0], core_a[2], sweep_a.local_center)
    reach_b = reach(core_b[0], core_b[2], sweep_b.local_center)
    if tolerance is None:
        tolerance = TOI_TOLERANCE_FRACTION * max(reach_a, reach_b)
    tolerance = _check.positive_scalar(tolerance, "tolerance")
    return ((core_a, sweep_a, reach_a), (core_b, sweep_b, reach_b), t_max, target, tolerance,
            trace)


def approach_bound(reach_a: float, sweep_a: Sweep, reach_b: float, sweep_b: Sweep) -> float:
    """How fast the shapes may approach, per unit of t (m):
    |Δc_B − Δc_A| + |Δa_A|·r_A + |Δa_B|·r_B."""
    return (float(np.hypot(*((sweep_b.c1 - sweep_b.c0) - (sweep_a.c1 - sweep_a.c0))))
            + abs(sweep_a.a1 - sweep_a.a0) * reach_a + abs(sweep_b.a1 - sweep_b.a0) * reach_b)


def time_of_impact(shape_a, sweep_a: Sweep, shape_b, sweep_b: Sweep, t_max: float = 1.0,
                   target: float = 0.0, tolerance: float | None = None,
                   trace: bool = False) -> ToiResult:
    """The first fraction t ≤ ``t_max`` of the step at which the shapes come within
    ``target`` (m) of each other, by conservative advancement (see the module docstring).

    A hit is reported once the distance is within ``tolerance`` above ``target`` (by
    default a millionth of the shapes' size, :data:`~physbook.constants.TOI_TOLERANCE_FRACTION`):
    the time found is then at most tolerance/approach-speed early, and never late. With
    ``trace`` the result also holds the fractions the advancement stepped through.
    """
    (core_a, sweep_a, reach_a), (core_b, sweep_b, reach_b), t_max, target, tolerance, trace = \
        checked_problem(shape_a, sweep_a, shape_b, sweep_b, t_max, target, tolerance, trace)
    bound = approach_bound(reach_a, sweep_a, reach_b, sweep_b)
    if not math.isfinite(bound):
        raise ValueError("the sweeps move too far for a float: the bound on approach, "
                         f"{bound}, is not finite")
    work = work_arrays(max(len(core_a[0]), len(core_b[0])))
    fractions = np.full(TOI_MAX_ITERATIONS if trace else 0, np.nan)
    state, fraction, iterations = advance(core_a, sweep_a.packed(), core_b, sweep_b.packed(),
                                          t_max, target, tolerance, bound, work, fractions)
    return ToiResult(STATES[state], float(fraction), int(iterations),
                     fractions[~np.isnan(fractions)])


def shape_distance(shape_a, transform_a, shape_b, transform_b) -> float:
    """The distance (m) between two shapes placed by transforms (origin, angle): the
    compiled :func:`convex_distance` behind :func:`time_of_impact`."""
    gaps = []
    for name, shape, transform in (("shape_a", shape_a, transform_a),
                                   ("shape_b", shape_b, transform_b)):
        _check_core_shape(shape, name)
        _check.instance(transform, f"transform_{name[-1]}", Transform, "a Transform")
        vertices, normals, radius = core(shape)
        motion = Sweep(np.asarray(transform.position, float), np.asarray(transform.position,
                       float), float(transform.angle), float(transform.angle), np.zeros(2))
        points, turned = np.empty_like(vertices), np.empty_like(normals)
        _posed(vertices, normals, motion.packed(), 0.0, points, turned)
        gaps.append((points, turned, radius))
    (points_a, normals_a, radius_a), (points_b, normals_b, radius_b) = gaps
    return float(convex_distance(points_a, normals_a, radius_a, points_b, normals_b,
                                 radius_b))
