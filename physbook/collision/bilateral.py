"""Chapter 13: time of impact by root finding on separation functions (bilateral advancement).

Conservative advancement (:mod:`~physbook.collision.toi`) jumps by the distance over a
bound on the approach speed; a fast spin makes the bound large and the jumps short. This
module finds the same time of impact as Box2D's b2TimeOfImpact does (Catto, GDC 2013):

1. at the current fraction t₁ the distance of the two cores names their closest features:
   two vertices, or a vertex of one and an edge (a *face*) of the other;
2. those features fix an axis: the line through the two vertices (fixed in the world), or
   the face's outward normal (turning with its body). The **separation function**
   s(t) = min over B's vertices of n·q − max over A's vertices of n·p is the gap of the two
   shapes' projections on that axis at fraction t, so s(t) ≤ d(t), the distance;
3. at t₂ = t_max the deepest pair of vertices along the axis gives s(t₂). If it is clear of
   the target the shapes are apart along that axis at the end of the step (*separated*).
   Otherwise s(t₁) > target > s(t₂) brackets a root of s(t) = target, found by alternating
   secant and bisection steps; t₂ moves to the root, and the deepest pair is found again
   there (another pair of vertices may now lie deeper) until the pair's separation at t₂
   is the target. Then t₁ = t₂ and step 1 starts again.

Each t₁ is safe when the root found is the first root of s on its bracket: s ≤ d there, so
the distance has not reached the target either. A body that turns far in the step can make
s dip and rise again within a bracket, or leave the shapes apart along the axis at t_max
after passing through each other mid-step (a rod swinging through the vertical just above
the ground does it at a quarter turn): root finding then misses a contact, or finds a later
one, where conservative advancement, whose every jump is safe, finds the first. Box2D
limits a body's turn per step for this reason (a quarter turn).
"""

from __future__ import annotations

import math

import numpy as np

from physbook._jit import njit
from physbook.collision.toi import (
    FAILED_CODE,
    HIT_CODE,
    OVERLAPPED_CODE,
    SEPARATED_CODE,
    STATES,
    ToiResult,
    checked_problem,
    convex_distance,
    nearest_vertex_edge,
    pose_both,
    work_arrays,
)

#: The kinds of separation function: two vertices, or a face of A or of B and a vertex.
POINTS, FACE_A, FACE_B = 0, 1, 2
#: At most this many distance computations (Box2D's B2_MAX_ITERATIONS).
MAX_ITERATIONS = 20
#: At most this many secant or bisection steps for one root.
MAX_ROOT_ITERATIONS = 50


@njit
def closest_features(points_a, points_b):
    """The closest features of two disjoint convex cores in world coordinates:
    (kind, index on A, index on B). A face is named by its first vertex's index, the edge
    from it to the next vertex counter-clockwise; the kind is :data:`FACE_A` or
    :data:`FACE_B` when a vertex is nearest to a face's interior, else :data:`POINTS`."""
    count_a = points_a.shape[0]
    count_b = points_b.shape[0]
    best = math.inf
    kind, index_a, index_b = POINTS, 0, 0
    if count_b > 1:  # a vertex of A against the faces of B
        best, j, i, u = nearest_vertex_edge(points_a, points_b)
        k = i + 1 if i + 1 < count_b else 0
        kind = FACE_B if 0.0 < u < 1.0 else POINTS
        index_a, index_b = j, (i if u < 1.0 else k)
    if count_a > 1:  # a vertex of B against the faces of A
        gap, j, i, u = nearest_vertex_edge(points_b, points_a)
        if gap < best:
            k = i + 1 if i + 1 < count_a else 0
            kind = FACE_A if 0.0 < u < 1.0 else POINTS
            index_a, index_b = (i if u < 1.0 else k), j
    return kind, index_a, index_b


@njit
def _deepest(kind, axis_x, axis_y, face_a, face_b, work, count_a, count_b):
    """Along the separation function's axis at the posed cores: (separation s (m), the
    vertex of A, the vertex of B) of the deepest pair. For :data:`POINTS` the axis is the
    fixed world direction (axis_x, axis_y) and s = min n·q_B − max n·p_A; for a face it is
    the face's turned normal n, and s = min over the other shape's vertices of n·(q − p_face)."""
    points_a, turned_a, points_b, turned_b = work
    if kind == POINTS:
        most, vertex_a = -math.inf, 0
        for i in range(count_a):
            along = axis_x * points_a[i, 0] + axis_y * points_a[i, 1]
            if along > most:
                most, vertex_a = along, i
        least, vertex_b = math.inf, 0
        for j in range(count_b):
            along = axis_x * points_b[j, 0] + axis_y * points_b[j, 1]
            if along < least:
                least, vertex_b = along, j
        return least - most, vertex_a, vertex_b
    if kind == FACE_A:
        nx, ny = turned_a[face_a, 0], turned_a[face_a, 1]
        least, vertex_b = math.inf, 0
        for j in range(count_b):
            along = nx * (points_b[j, 0] - points_a[face_a, 0]) + ny * (
                points_b[j, 1] - points_a[face_a, 1])
            if along < least:
                least, vertex_b = along, j
        return least, face_a, vertex_b
    nx, ny = turned_b[face_b, 0], turned_b[face_b, 1]
    least, vertex_a = math.inf, 0
    for i in range(count_a):
        along = nx * (points_a[i, 0] - points_b[face_b, 0]) + ny * (
            points_a[i, 1] - points_b[face_b, 1])
        if along < least:
            least, vertex_a = along, i
    return least, vertex_a, face_b


@njit
def _pair_separation(kind, axis_x, axis_y, vertex_a, vertex_b, work):
    """The separation (m) of one pair of vertices along the axis, at the posed cores."""
    points_a, turned_a, points_b, turned_b = work
    dx = points_b[vertex_b, 0] - points_a[vertex_a, 0]
    dy = points_b[vertex_b, 1] - points_a[vertex_a, 1]
    if kind == POINTS:
        return axis_x * dx + axis_y * dy
    if kind == FACE_A:
        return turned_a[vertex_a, 0] * dx + turned_a[vertex_a, 1] * dy
    return -(turned_b[vertex_b, 0] * dx + turned_b[vertex_b, 1] * dy)


@njit
def root_advance(shape_a, motion_a, shape_b, motion_b, t_max, target, tolerance, work, trace):
    """Bilateral advancement (see the module docstring): returns (state code, fraction,
    distance computations, evaluations). ``shape_a`` and ``shape_b`` are (local vertices,
    local normals, radius), the motions packed sweeps, ``work`` four (n, 2) arrays; the
    fractions t₁ of the distance computations are written to ``trace`` as far as it is long.
    An *evaluation* is one posing of the shapes at a fraction (for a distance or a
    separation), the unit of cost shared with conservative advancement."""
    radius_a = shape_a[2]
    radius_b = shape_b[2]
    # The cores (the shapes less their radii) must come within this of each other.
    core_target = target + radius_a + radius_b
    t1 = 0.0
    evaluations = 0
    for iteration in range(MAX_ITERATIONS):
        if iteration < trace.shape[0]:
            trace[iteration] = t1
        count_a, count_b = pose_both(shape_a, motion_a, shape_b, motion_b, t1, work)
        evaluations += 1
        points_a, turned_a, points_b, turned_b = work
        d = convex_distance(points_a[:count_a], turned_a[:count_a], radius_a,
                            points_b[:count_b], turned_b[:count_b], radius_b)
        if d <= target + tolerance:
            if t1 == 0.0 and d == 0.0:
                return OVERLAPPED_CODE, 0.0, iteration + 1, evaluations
            return HIT_CODE, t1, iteration + 1, evaluations
        # The separation function of the closest features at t1.
        kind, face_a, face_b = closest_features(points_a[:count_a], points_b[:count_b])
        axis_x = points_b[face_b, 0] - points_a[face_a, 0]
        axis_y = points_b[face_b, 1] - points_a[face_a, 1]
        length = math.hypot(axis_x, axis_y)
        axis_x /= length
        axis_y /= length
        t2 = t_max
        advanced = False
        for _ in range(max(count_a, count_b) + 1):
            count_a, count_b = pose_both(shape_a, motion_a, shape_b, motion_b, t2, work)
            evaluations += 1
            s2, vertex_a, vertex_b = _deepest(kind, axis_x, axis_y, face_a, face_b, work,
                                              count_a, count_b)
            if s2 > core_target + tolerance:
                # Apart along this axis at t2: if t2 is t_max, apart at the end of the step.
                if t2 == t_max:
                    return SEPARATED_CODE, t_max, iteration + 1, evaluations
                t1 = t2
                advanced = True
                break
            if s2 > core_target - tolerance:
                t1 = t2
                advanced = True
                break
            pose_both(shape_a, motion_a, shape_b, motion_b, t1, work)
            evaluations += 1
            s1 = _pair_separation(kind, axis_x, axis_y, vertex_a, vertex_b, work)
            if s1 <= core_target + tolerance:
                # This pair is already at the target at t1 (it was not the closest).
                return HIT_CODE, t1, iteration + 1, evaluations
            # s1 > target > s2: find the root of s(t) = target between t1 and t2, by secant
            # and bisection steps in turn (the secant converges fast on a smooth s, the
            # bisection halves the bracket whatever s does).
            low, high, s_low, s_high = t1, t2, s1, s2
            t = t2
            for root_iteration in range(MAX_ROOT_ITERATIONS):
                if root_iteration % 2 == 1:
                    t = low + (core_target - s_low) * (high - low) / (s_high - s_low)
                else:
                    t = 0.5 * (low + high)
                pose_both(shape_a, motion_a, shape_b, motion_b, t, work)
                evaluations += 1
                s = _pair_separation(kind, axis_x, axis_y, vertex_a, vertex_b, work)
                if abs(s - core_target) < tolerance:
                    break
                if s > core_target:
                    low, s_low = t, s
                else:
                    high, s_high = t, s
            t2 = t
        if not advanced:
            return FAILED_CODE, t1, iteration + 1, evaluations
    return FAILED_CODE, t1, MAX_ITERATIONS, evaluations


def time_of_impact(shape_a, sweep_a, shape_b, sweep_b, t_max: float = 1.0,
                   target: float = 0.0, tolerance: float | None = None,
                   trace: bool = False) -> ToiResult:
    """The first fraction t ≤ ``t_max`` of the step at which the shapes come within
    ``target`` (m) of each other, by root finding on separation functions (see the module
    docstring); arguments and result as :func:`physbook.collision.toi.time_of_impact`.

    The result's ``iterations`` counts *evaluations*, each a posing of both shapes at a
    fraction of the step (conservative advancement's jumps cost one each), and with
    ``trace`` its ``fractions`` are those at which the distance was computed.
    """
    (core_a, sweep_a, _), (core_b, sweep_b, _), t_max, target, tolerance, trace = \
        checked_problem(shape_a, sweep_a, shape_b, sweep_b, t_max, target, tolerance, trace)
    work = work_arrays(max(len(core_a[0]), len(core_b[0])))
    fractions = np.full(MAX_ITERATIONS if trace else 0, np.nan)
    state, fraction, _, evaluations = root_advance(
        core_a, sweep_a.packed(), core_b, sweep_b.packed(), t_max, target, tolerance, work,
        fractions)
    return ToiResult(STATES[state], float(fraction), int(evaluations),
                     fractions[~np.isnan(fractions)])
