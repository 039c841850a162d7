"""Chapter 13: continuous collision in the world — fast bodies stopped at their time of
impact instead of passing through what they hit.

After the solver has moved the bodies, each *fast* dynamic body (one whose farthest point
may have moved more than half its thinnest shape's size, :data:`~physbook.constants.FAST_FRACTION`)
is swept from its pose at the start of the step to its pose now. The tree gives the shapes
its swept box touches; against each static one (and, for a bullet, each other body's shape
as it stands now) :func:`~physbook.collision.toi.advance` finds when they would first come
within :data:`~physbook.constants.CONTINUOUS_TARGET` of each other. The body is put back at
the earliest such time, keeping its velocity: the rest of its motion is the next step's,
whose speculative contact then sees the surface (Box2D does the same). Ordinary fast bodies
are stopped first, so that bullets meet them where they end.

A shape already within the target at the start of the step is resting on, or sliding
along, the surface: stopping it there would freeze it. Instead its *core*, a circle a
quarter of its inner radius about its centroid, is swept (Box2D v3's fallback): the body
may sink into the surface, which the solver then pushes out of, but its middle never
crosses it. A capsule or a rounded polygon first sweeps its own core (segment or polygon)
grown by a quarter of its radius, the same rule as a circle's (its centre grown by r/4):
a long capsule met end first would otherwise sink up to its middle, its end through the
surface.

A chain segment is one-sided, and a body sliding fast along a chain would meet the end of
each next segment as an impact: it is skipped for a shape whose centroid started behind it,
or that moves along it and ends in front of it (Box2D's rule, :func:`chain_skips`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook._jit import njit
from physbook.broadphase.filters import categories_match
from physbook.collision.toi import FAILED_CODE, HIT_CODE, advance, work_arrays
from physbook.constants import (
    CONTINUOUS_CORE_FRACTION,
    CONTINUOUS_TARGET,
    FAST_FRACTION,
    TOI_TOLERANCE_FRACTION,
)
from physbook.dynamics.joint_table import held_apart
from physbook.geometry.shape_table import core_count, reach
from physbook.kinds import CAPSULE, CHAIN_SEGMENT, CIRCLE, DYNAMIC, SEGMENT, STATIC


class Reaches(NamedTuple):
    """How far shapes reach from their body's centre of mass (m): ``shapes`` (S,), the
    farthest point of each shape, and ``bodies`` (N,), the largest over each body's
    shapes."""

    shapes: np.ndarray
    bodies: np.ndarray


def shape_reaches(shapes, local_centers) -> Reaches:
    """The farthest any point of each shape lies from its body's centre of mass (m), and
    the same for each body (the largest over its shapes), as :class:`Reaches`."""
    return Reaches(*reach_arrays(shapes, local_centers))


@njit
def reach_arrays(shapes, local_centers):
    """:func:`shape_reaches` as a plain tuple (per shape, per body). A compiled function
    hands Python plain tuples: numba builds a named one by calling its class, Python code
    that an interrupt can cut short, which numba does not expect."""
    _, kind, body, radius, vertex_start, vertex_count, vertices, _ = shapes
    per_shape = np.zeros(kind.shape[0])
    per_body = np.zeros(local_centers.shape[0])
    for s in range(kind.shape[0]):
        start = vertex_start[s]
        per_shape[s] = reach(vertices[start:start + core_count(kind[s], vertex_count[s])],
                             radius[s], local_centers[body[s]])
        per_body[body[s]] = max(per_body[body[s]], per_shape[s])
    return per_shape, per_body


@njit(inline=True)
def is_fast(bodies, start_centers, start_angles, reaches, b):
    """Whether body ``b`` is awake, dynamic and fast: its farthest point (``reaches`` (N,),
    m) may have moved more than :data:`FAST_FRACTION` of its size since the start of the
    step, |Δc| + |Δθ|·reach > FAST_FRACTION·size. Both ways of stepping a world ask this
    one function."""
    if bodies.kinds[b] != DYNAMIC or not bodies.awake[b]:
        return False
    motion = (math.hypot(bodies.centers[b, 0] - start_centers[b, 0],
                         bodies.centers[b, 1] - start_centers[b, 1])
              + abs(bodies.angles[b] - start_angles[b]) * reaches[b])
    return motion > FAST_FRACTION * bodies.sizes[b]


@njit
def fast_bodies(bodies, start_centers, start_angles, reaches):
    """Rows of the awake dynamic bodies whose farthest point may have moved more than
    :data:`FAST_FRACTION` of their size this step (:func:`is_fast`):
    |Δc| + |Δθ|·reach > FAST_FRACTION·size."""
    rows = np.empty(bodies.kinds.shape[0], np.int64)
    count = 0
    for b in range(bodies.kinds.shape[0]):
        if is_fast(bodies, start_centers, start_angles, reaches, b):
            rows[count] = b
            count += 1
    return rows[:count]


@njit(refcounted=False)
def may_stop_fast(bodies, start_centers, start_angles, reaches, shape_bodies):
    """Whether continuous collision may stop a body this step: a body is fast
    (:func:`is_fast`), and it is a bullet or some shape is static (an ordinary fast body is
    stopped only by a static shape); ``shape_bodies`` (S,) is each shape's body."""
    ordinary = False
    for b in range(bodies.kinds.shape[0]):
        if is_fast(bodies, start_centers, start_angles, reaches, b):
            if bodies.bullets[b]:
                return True
            ordinary = True
    if not ordinary:
        return False
    for s in range(shape_bodies.shape[0]):
        if bodies.kinds[shape_bodies[s]] == STATIC:
            return True
    return False


@njit
def shape_core(kind, radius, vertices, normals):
    """A shape's core for the fallback sweep, as (vertices, normals, radius): a circle of
    CONTINUOUS_CORE_FRACTION of the shape's inner radius about its centroid. The inner
    radius is a circle's radius, a capsule's radius (about the middle of its segment), and
    for a polygon the least distance from its centroid to its edges plus its own radius;
    ``vertices`` are the shape's core points (a segment's two: its middle, radius 0)."""
    centroid = np.zeros((1, 2))
    if kind == CIRCLE:
        centroid[0] = vertices[0]
        return centroid, np.zeros((1, 2)), CONTINUOUS_CORE_FRACTION * radius
    if kind == CAPSULE or kind == SEGMENT or kind == CHAIN_SEGMENT:
        centroid[0] = 0.5 * (vertices[0] + vertices[1])
        return centroid, np.zeros((1, 2)), CONTINUOUS_CORE_FRACTION * radius
    # The area centroid of a polygon: Σ (p_i + p_{i+1})·(p_i × p_{i+1}) / (6·area).
    twice_area = 0.0
    n = vertices.shape[0]
    for i in range(n):
        j = i + 1 if i + 1 < n else 0
        cross = vertices[i, 0] * vertices[j, 1] - vertices[j, 0] * vertices[i, 1]
        twice_area += cross
        centroid[0, 0] += (vertices[i, 0] + vertices[j, 0]) * cross
        centroid[0, 1] += (vertices[i, 1] + vertices[j, 1]) * cross
    centroid /= 3.0 * twice_area
    inner = math.inf
    for i in range(n):
        inner = min(inner, normals[i, 0] * (vertices[i, 0] - centroid[0, 0])
                    + normals[i, 1] * (vertices[i, 1] - centroid[0, 1]))
    return centroid, np.zeros((1, 2)), CONTINUOUS_CORE_FRACTION * (inner + radius)


@njit(refcounted=False)
def chain_skips(point1, normal1, centroid_start, centroid_end, core):
    """Whether continuous collision skips a chain segment (its ``point1`` and front
    ``normal1``, world) for a shape whose centroid moves from ``centroid_start`` to
    ``centroid_end`` this step: with s = n₁·(c − p₁) its signed distance in front of the
    segment's line, skip if s_start < 0 (it started behind: the segment is one-sided) or
    if s_start − s_end < ``core`` and s_end > ``core`` (it moves along the surface, and
    ends in front of it by more than its core: stopping it at the next segment's end
    would catch it on a seam, as Box2D's continuous solver does not either)."""
    start = (normal1[0] * (centroid_start[0] - point1[0])
             + normal1[1] * (centroid_start[1] - point1[1]))
    end = (normal1[0] * (centroid_end[0] - point1[0])
           + normal1[1] * (centroid_end[1] - point1[1]))
    return start < 0.0 or (start - end < core and end > core)


@njit
def _world_point(centers, angles, local_centers, b, x, y):
    """The body-coordinates point (x, y) of body ``b`` in the world:
    c + R(θ)·(p − local centre)."""
    cosine = math.cos(angles[b])
    sine = math.sin(angles[b])
    px = x - local_centers[b, 0]
    py = y - local_centers[b, 1]
    return (centers[b, 0] + cosine * px - sine * py, centers[b, 1] + sine * px + cosine * py)


@njit
def _chain_skips_shape(centers, angles, local_centers, sizes, motion, row, my_core,
                       my_kind, my_radius, other_body, other_core, other_normals):
    """:func:`chain_skips` for the fast body ``row``'s shape (its core ``my_core``, local)
    against a chain segment of ``other_body`` (its core rows and normals, local)."""
    centroid, _, _ = shape_core(my_kind, my_radius, my_core[0], my_core[1])
    # The centroid at the start and end of the sweep: c + R(θ)·(p − local centre).
    px = centroid[0, 0] - motion[6]
    py = centroid[0, 1] - motion[7]
    c_start = np.empty(2)
    c_end = np.empty(2)
    cosine = math.cos(motion[4])
    sine = math.sin(motion[4])
    c_start[0] = motion[0] + cosine * px - sine * py
    c_start[1] = motion[1] + sine * px + cosine * py
    cosine = math.cos(motion[5])
    sine = math.sin(motion[5])
    c_end[0] = motion[2] + cosine * px - sine * py
    c_end[1] = motion[3] + sine * px + cosine * py
    point1 = np.empty(2)
    normal1 = np.empty(2)
    point1[0], point1[1] = _world_point(centers, angles, local_centers, other_body,
                                        other_core[0, 0], other_core[0, 1])
    cosine = math.cos(angles[other_body])
    sine = math.sin(angles[other_body])
    normal1[0] = cosine * other_normals[0, 0] - sine * other_normals[0, 1]
    normal1[1] = sine * other_normals[0, 0] + cosine * other_normals[0, 1]
    return chain_skips(point1, normal1, c_start, c_end,
                       CONTINUOUS_CORE_FRACTION * sizes[row])


@njit
def _packed(centers, angles, local_centers, start_centers, start_angles, b):
    """Body b's sweep from its start pose to its pose now, packed for the kernels."""
    return np.array([start_centers[b, 0], start_centers[b, 1], centers[b, 0], centers[b, 1],
                     start_angles[b], angles[b], local_centers[b, 0], local_centers[b, 1]])


@njit(refcounted=False)
def _may_stop(kinds, bullets, category, mask, group, sensor, joined, row, mine, other,
              other_body):
    """Whether shape ``other`` can stop shape ``mine`` of the fast body ``row``."""
    if other_body == row or sensor[other] or sensor[mine] or bullets[other_body]:
        return False
    if kinds[other_body] != STATIC and not bullets[row]:
        return False
    if not categories_match(category[mine], mask[mine], group[mine], category[other],
                            mask[other], group[other]):
        return False
    return not held_apart(joined, row, other_body)


@njit
def stop_at_impacts(shapes, bodies, start_centers, start_angles, fast, queries, candidates,
                    shape_order, shape_offsets, reaches, category, mask, group, sensor, joined,
                    work):
    """Put each body of ``fast`` (rows, ordinary bodies first) back at its earliest time of
    impact with the shapes ``candidates[queries == k]`` its swept box touches (k its index
    in ``fast``); ``shape_order[shape_offsets[b]:shape_offsets[b + 1]]`` are body b's
    shapes and ``reaches`` (S,) each shape's reach. Returns how many bodies were stopped."""
    _, kind, body, radius, vertex_start, vertex_count, vertices, normals = shapes
    centers, angles, local_centers = bodies.centers, bodies.angles, bodies.local_centers
    kinds, bullets = bodies.kinds, bodies.bullets
    no_trace = np.zeros(0)
    stopped = 0
    at = 0
    for k in range(fast.shape[0]):
        row = fast[k]
        motion = _packed(centers, angles, local_centers, start_centers, start_angles, row)
        turn = abs(motion[5] - motion[4])
        travel = math.hypot(motion[2] - motion[0], motion[3] - motion[1])
        first = 1.0
        while at < queries.shape[0] and queries[at] == k:
            other = candidates[at]
            at += 1
            other_body = body[other]
            # The other body stands where it is now: its sweep is still.
            still = _packed(centers, angles, local_centers, centers, angles, other_body)
            other_start = vertex_start[other]
            other_end = other_start + core_count(kind[other], vertex_count[other])
            other_shape = (vertices[other_start:other_end], normals[other_start:other_end],
                           radius[other])
            for slot in range(shape_offsets[row], shape_offsets[row + 1]):
                mine = shape_order[slot]
                if not _may_stop(kinds, bullets, category, mask, group, sensor, joined, row,
                                 mine, other, other_body):
                    continue
                start = vertex_start[mine]
                end = start + core_count(kind[mine], vertex_count[mine])
                my_shape = (vertices[start:end], normals[start:end], radius[mine])
                if kind[other] == CHAIN_SEGMENT and _chain_skips_shape(
                        centers, angles, local_centers, bodies.sizes, motion, row, my_shape,
                        kind[mine], radius[mine], other_body, other_shape[0],
                        other_shape[1]):
                    continue
                bound = travel + turn * reaches[mine]
                tolerance = TOI_TOLERANCE_FRACTION * max(reaches[mine], reaches[other])
                state, fraction, _ = advance(my_shape, motion, other_shape, still, first,
                                             CONTINUOUS_TARGET, tolerance, bound, work,
                                             no_trace)
                if (fraction == 0.0 and state != FAILED_CODE and radius[mine] > 0.0
                        and kind[mine] != CIRCLE):
                    # Touching already, and round: sweep its core grown by a quarter of
                    # its radius (see the module docstring). Its reach is the shape's,
                    # less the three quarters of r it gave up.
                    thin = (1.0 - CONTINUOUS_CORE_FRACTION) * radius[mine]
                    bound = travel + turn * (reaches[mine] - thin)
                    state, fraction, _ = advance(
                        (my_shape[0], my_shape[1], radius[mine] - thin), motion, other_shape,
                        still, first, CONTINUOUS_TARGET, tolerance, bound, work, no_trace)
                if fraction == 0.0 and state != FAILED_CODE:
                    # Touching already: sweep the core instead (see the module docstring).
                    centroid, unused, core_radius = shape_core(kind[mine], radius[mine],
                                                               my_shape[0], my_shape[1])
                    bound = travel + turn * reach(centroid, core_radius, local_centers[row])
                    state, fraction, _ = advance((centroid, unused, core_radius), motion,
                                                 other_shape, still, first,
                                                 CONTINUOUS_TARGET, tolerance, bound, work,
                                                 no_trace)
                if (state == HIT_CODE or state == FAILED_CODE) and 0.0 < fraction < first:
                    first = fraction
        if first < 1.0:
            centers[row, 0] = motion[0] + first * (motion[2] - motion[0])
            centers[row, 1] = motion[1] + first * (motion[3] - motion[1])
            angles[row] = motion[4] + first * (motion[5] - motion[4])
            stopped += 1
    return stopped


def stop_fast_bodies(bodies, table, joined, start_centers, start_angles, tree_of, fast,
                     reaches) -> int:
    """Put each of the ``fast`` bodies (rows, from :func:`fast_bodies`) back at its earliest
    time of impact this step (see the module docstring); returns how many were stopped.

    ``bodies`` and ``table`` are a world's body columns and shape table, ``joined`` the
    sorted keys of bodies a joint keeps from colliding, ``start_centers`` and
    ``start_angles`` the poses at the start of the step, ``tree_of(moving)`` gives a
    tree whose leaves hold the static shapes (``moving`` False) or every shape as it is now
    (True), and the shape row of each of its rows (None when they are the shape rows), and
    ``reaches`` is what :func:`shape_reaches` gives for the shapes and bodies.
    """
    shapes, filters = table.arrays, table.filters
    per_shape, per_body = reaches
    if not len(fast):
        return 0
    fast = fast[np.argsort(bodies.bullets[fast], kind="stable")]  # bullets last
    # The box each fast body sweeps: both ends, grown by its reach.
    ends = np.stack([start_centers[fast], bodies.centers[fast]])
    lowers = ends.min(axis=0) - per_body[fast, None]
    uppers = ends.max(axis=0) + per_body[fast, None]
    tree, shape_rows = tree_of(bool(bodies.bullets[fast[-1]]))
    queries, candidates = tree.query_many(lowers, uppers)
    if not len(candidates):
        return 0
    if shape_rows is not None:
        candidates = shape_rows[candidates]
    shape_order = np.argsort(shapes.body, kind="stable")
    shape_offsets = np.searchsorted(shapes.body[shape_order], np.arange(len(bodies.kinds) + 1))
    work = work_arrays(int(shapes.vertex_count.max()))
    return stop_at_impacts(shapes, bodies, start_centers, start_angles, fast, queries,
                           candidates, shape_order, shape_offsets, per_shape, filters.category,
                           filters.mask, filters.group, filters.sensor, joined, work)
