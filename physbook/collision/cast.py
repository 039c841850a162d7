"""Chapter 16: the compiled parts of shape casts and overlaps (:mod:`physbook.shape_cast`
derives them): the time of impact of a translating shape against rows of a shape table, the
normal and point where two shapes touch, and which rows a placed shape overlaps.

A moving shape is given as its core in the world (points, edge normals, radius); the
table's shapes are placed by their bodies' origins and angles.
"""

from __future__ import annotations

import math

import numpy as np

from physbook._jit import njit
from physbook.collision.core_distance import (
    EDGE_VERTEX,
    VERTEX_EDGE,
    convex_distance,
    core_closest,
)
from physbook.collision.toi import (
    FAILED_CODE,
    HIT_CODE,
    OVERLAPPED_CODE,
    SEPARATED_CODE,
    advance,
    pose_both,
)
from physbook.geometry.shape_table import core_count
from physbook.kinds import CHAIN_SEGMENT


@njit
def _posed_row(vertices, normals, start, end, origin_x, origin_y, angle, points, turned):
    """Place rows ``start:end`` of a shape (body coordinates) into the world:
    p = origin + R(θ)·p_local, n = R(θ)·n_local. Returns the point count."""
    cosine = math.cos(angle)
    sine = math.sin(angle)
    for k in range(end - start):
        x = vertices[start + k, 0]
        y = vertices[start + k, 1]
        points[k, 0] = origin_x + cosine * x - sine * y
        points[k, 1] = origin_y + sine * x + cosine * y
        turned[k, 0] = cosine * normals[start + k, 0] - sine * normals[start + k, 1]
        turned[k, 1] = sine * normals[start + k, 0] + cosine * normals[start + k, 1]
    return end - start


@njit
def behind_chain(points, vertices, normals, start, origin_x, origin_y, angle):
    """Whether the middle c of the core ``points`` (world; the mean of the points) lies
    behind the chain segment whose rows start at ``start``: n₁·(c − p₁) < 0, its front
    normal n₁."""
    cx = 0.0
    cy = 0.0
    for k in range(points.shape[0]):
        cx += points[k, 0]
        cy += points[k, 1]
    cx /= points.shape[0]
    cy /= points.shape[0]
    cosine = math.cos(angle)
    sine = math.sin(angle)
    px = origin_x + cosine * vertices[start, 0] - sine * vertices[start, 1]
    py = origin_y + sine * vertices[start, 0] + cosine * vertices[start, 1]
    nx = cosine * normals[start, 0] - sine * normals[start, 1]
    ny = sine * normals[start, 0] + cosine * normals[start, 1]
    return nx * (cx - px) + ny * (cy - py) < 0.0


@njit
def _gap(moving, motion, other, still, t, work):
    """The distance of the two shapes at fraction t of the cast (m)."""
    points_a, turned_a, points_b, turned_b = work
    count_a, count_b = pose_both(moving, motion, other, still, t, work)
    return convex_distance(points_a[:count_a], turned_a[:count_a], moving[2],
                           points_b[:count_b], turned_b[:count_b], other[2])


@njit
def first_touch(moving, motion, other, still, t_max, tolerance, bound, work, trace):
    """The first fraction ≤ ``t_max`` at which the moving shape comes within
    ``tolerance`` of the still one: (state code, fraction).

    Conservative advancement first. It creeps when the motion grazes the other shape (each
    step closes only the part of the gap the motion points into), and may give up before
    it gets there; then, since the distance d(t) of two convex shapes is convex along a
    translation, a ternary search over the rest of the cast finds its least value, and if
    that is within ``tolerance`` a bisection between the last safe fraction and it finds
    the first touch (d decreases all the way there)."""
    state, fraction, _ = advance(moving, motion, other, still, t_max, 0.0, tolerance, bound,
                                 work, trace)
    if state != FAILED_CODE:
        return state, fraction
    low = fraction
    high = t_max
    touching = -1.0
    for _ in range(200):
        if (high - low) * bound <= tolerance:
            break
        third = (high - low) / 3.0
        left = low + third
        right = high - third
        gap_left = _gap(moving, motion, other, still, left, work)
        if gap_left <= tolerance:
            touching = left
            break
        gap_right = _gap(moving, motion, other, still, right, work)
        if gap_right <= tolerance:
            touching = right
            break
        if gap_left < gap_right:
            high = right
        else:
            low = left
    if touching < 0.0:
        middle = 0.5 * (low + high)
        if _gap(moving, motion, other, still, middle, work) > tolerance:
            return SEPARATED_CODE, t_max
        touching = middle
    low = fraction  # apart by more than the tolerance: advancement stepped there safely
    high = touching
    for _ in range(200):  # each halving at least halves the bracket: 200 reach rounding
        if (high - low) * bound <= tolerance:
            break
        middle = 0.5 * (low + high)
        if _gap(moving, motion, other, still, middle, work) > tolerance:
            low = middle
        else:
            high = middle
    return HIT_CODE, low


@njit
def cast_rows(shapes, origins, angles, rows, points, normals, radius, dx, dy, tolerance,
              first_only, work):
    """The time of impact of the core ``points``/``normals``/``radius`` (world, at the
    start) moved by (dx, dy) against each shape of ``rows``: (fraction (−1: no hit), state
    code) per row. With ``first_only`` each advancement stops at the best fraction found so
    far (the rows beyond it read −1). A chain segment the moving core's middle starts behind
    is not hit."""
    _, kind, body, radii, vertex_start, vertex_count, vertices, shape_normals = shapes
    fractions = np.full(rows.shape[0], -1.0)
    states = np.zeros(rows.shape[0], np.int64)
    # The moving core is given in the world: its sweep goes from (0, 0) to (dx, dy).
    motion = np.array([0.0, 0.0, dx, dy, 0.0, 0.0, 0.0, 0.0])
    moving = (points, normals, radius)
    bound = math.hypot(dx, dy)
    no_trace = np.zeros(0)
    t_max = 1.0
    for k in range(rows.shape[0]):
        s = rows[k]
        b = body[s]
        start = vertex_start[s]
        end = start + core_count(kind[s], vertex_count[s])
        if kind[s] == CHAIN_SEGMENT and behind_chain(points, vertices, shape_normals, start,
                                                      origins[b, 0], origins[b, 1],
                                                      angles[b]):
            continue
        # The world shape stands still: its sweep is its pose, twice.
        still = np.array([origins[b, 0], origins[b, 1], origins[b, 0], origins[b, 1],
                          angles[b], angles[b], 0.0, 0.0])
        other = (vertices[start:end], shape_normals[start:end], radii[s])
        state, fraction = first_touch(moving, motion, other, still, t_max, tolerance, bound,
                                      work, no_trace)
        if state == HIT_CODE or state == OVERLAPPED_CODE:
            fractions[k] = fraction
            states[k] = state
            if first_only:
                t_max = max(fraction, 1e-300)
    return fractions, states


@njit
def contact_at(shapes, origins, angles, row, points, normals, radius, x, y):
    """The normal and point where the core ``points``/``normals``/``radius`` (world, moved
    by (x, y)) touches the shape ``row``: (nx, ny, px, py, core gap (m), feature, found).
    The normal is the shape's outward normal towards the moving one, from the closest
    features of the two cores (``feature``, a kind of
    :func:`~physbook.collision.core_distance.core_closest`: VERTEX_EDGE means a face of
    the shape); the point is on the shape's surface. ``found`` is False when the cores
    overlap (the features then say nothing)."""
    _, kind, body, radii, vertex_start, vertex_count, vertices, shape_normals = shapes
    b = body[row]
    start = vertex_start[row]
    count = core_count(kind[row], vertex_count[row])
    other = np.empty((count, 2))
    other_normals = np.empty((count, 2))
    _posed_row(vertices, shape_normals, start, start + count, origins[b, 0], origins[b, 1],
               angles[b], other, other_normals)
    moved = points.copy()
    for k in range(moved.shape[0]):
        moved[k, 0] += x
        moved[k, 1] += y
    gap, feature, index_a, index_b, fraction = core_closest(moved, moved.shape[0], other,
                                                            count)
    if gap <= 0.0:
        return 0.0, 0.0, 0.0, 0.0, gap, feature, False
    nx = 0.0
    ny = 0.0
    if feature == VERTEX_EDGE:
        nx = other_normals[index_b, 0]
        ny = other_normals[index_b, 1]
        j = index_b + 1 if index_b + 1 < count else 0
        qx = other[index_b, 0] + fraction * (other[j, 0] - other[index_b, 0])
        qy = other[index_b, 1] + fraction * (other[j, 1] - other[index_b, 1])
    elif feature == EDGE_VERTEX:
        nx = -normals[index_a, 0]
        ny = -normals[index_a, 1]
        qx = other[index_b, 0]
        qy = other[index_b, 1]
    else:  # VERTEX_VERTEX: along the line between the two vertices
        qx = other[index_b, 0]
        qy = other[index_b, 1]
        nx = moved[index_a, 0] - qx
        ny = moved[index_a, 1] - qy
        length = math.hypot(nx, ny)
        nx /= length
        ny /= length
    r = radii[row]
    return nx, ny, qx + r * nx, qy + r * ny, gap, feature, True


@njit
def overlapping(shapes, origins, angles, rows, points, normals, radius):
    """Whether the core ``points``/``normals``/``radius`` (world) overlaps or touches each
    shape of ``rows``: their distance is 0 (:func:`convex_distance`)."""
    _, kind, body, radii, vertex_start, vertex_count, vertices, shape_normals = shapes
    keep = np.zeros(rows.shape[0], np.bool_)
    largest = 1
    for k in range(rows.shape[0]):
        largest = max(largest, vertex_count[rows[k]])
    other = np.empty((largest, 2))
    other_normals = np.empty((largest, 2))
    for k in range(rows.shape[0]):
        s = rows[k]
        b = body[s]
        start = vertex_start[s]
        count = _posed_row(vertices, shape_normals, start,
                           start + core_count(kind[s], vertex_count[s]), origins[b, 0],
                           origins[b, 1], angles[b], other, other_normals)
        keep[k] = convex_distance(points, normals, radius, other[:count],
                                  other_normals[:count], radii[s]) <= 0.0
    return keep
