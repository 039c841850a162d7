"""Chapter 16: the compiled parts of the character mover (:mod:`physbook.character`
derives them): the contact of a capsule with rows of a shape table, and the displacement
nearest a target that stays in front of a set of planes.
"""

from __future__ import annotations

import math

import numpy as np

from physbook._jit import njit
from physbook.collision.cast import behind_chain, contact_at
from physbook.collision.core_distance import VERTEX_EDGE
from physbook.kinds import CHAIN_SEGMENT


@njit
def capsule_contacts(shapes, origins, angles, rows, points, normals, radius):
    """The contact of the capsule core ``points``/``normals``/``radius`` (world) with each
    shape of ``rows``: arrays of normals (towards the capsule), points, gaps (m), whether
    the shape's feature is a corner (not a face), and whether it was found (False when the
    cores overlap, or for a chain segment the capsule's middle is behind)."""
    _, kind, body, radii, vertex_start, _, vertices, shape_normals = shapes
    n = rows.shape[0]
    out_normals = np.zeros((n, 2))
    out_points = np.zeros((n, 2))
    gaps = np.zeros(n)
    corners = np.zeros(n, np.bool_)
    found = np.zeros(n, np.bool_)
    for k in range(n):
        s = rows[k]
        b = body[s]
        if kind[s] == CHAIN_SEGMENT and behind_chain(points, vertices, shape_normals,
                                                      vertex_start[s], origins[b, 0],
                                                      origins[b, 1], angles[b]):
            continue
        nx, ny, px, py, core_gap, feature, ok = contact_at(shapes, origins, angles, s,
                                                           points, normals, radius, 0.0, 0.0)
        if ok:
            out_normals[k, 0] = nx
            out_normals[k, 1] = ny
            out_points[k, 0] = px
            out_points[k, 1] = py
            gaps[k] = core_gap - radius - radii[s]
            corners[k] = feature != VERTEX_EDGE
            found[k] = True
    return out_normals, out_points, gaps, corners, found


@njit
def _in_front(x, y, normals, offsets, slack):
    """Whether the displacement (x, y) satisfies n_i·δ ≥ o_i − slack for every plane."""
    for i in range(offsets.shape[0]):
        if normals[i, 0] * x + normals[i, 1] * y < offsets[i] - slack:
            return False
    return True


@njit
def nearest_in_front(tx, ty, normals, offsets):
    """The displacement nearest the target (tx, ty) (m) with n_i·δ ≥ o_i for every plane:
    (δx, δy, the first and second plane it lies on (−1: none), found).

    The nearest point of a convex region defined by half-planes lies on the lines of the
    constraints that hold it back, and in 2D at most two of them meet at a point: so it is
    the target itself, its projection onto one line, or the meeting point of two lines.
    Each candidate that satisfies every constraint is a feasible point at least as far as
    the nearest, and the nearest is among them: the closest feasible candidate is exact.
    ``found`` is False when no candidate is feasible (planes that leave no room)."""
    m = offsets.shape[0]
    size = abs(tx) + abs(ty)
    for i in range(m):
        size = max(size, abs(offsets[i]))
    slack = 1e-12 * (1.0 + size)
    if _in_front(tx, ty, normals, offsets, slack):
        return tx, ty, -1, -1, True
    best = math.inf
    bx = tx
    by = ty
    first = -1
    second = -1
    for i in range(m):
        push = offsets[i] - (normals[i, 0] * tx + normals[i, 1] * ty)
        if push <= 0.0:
            continue
        x = tx + push * normals[i, 0]
        y = ty + push * normals[i, 1]
        if push < best and _in_front(x, y, normals, offsets, slack):
            best, bx, by, first, second = push, x, y, i, -1
    for i in range(m):
        for j in range(i + 1, m):
            # n_i·δ = o_i and n_j·δ = o_j by Cramer's rule.
            det = normals[i, 0] * normals[j, 1] - normals[i, 1] * normals[j, 0]
            if abs(det) <= 1e-12:
                continue  # parallel lines meet nowhere (or everywhere)
            x = (offsets[i] * normals[j, 1] - offsets[j] * normals[i, 1]) / det
            y = (normals[i, 0] * offsets[j] - normals[j, 0] * offsets[i]) / det
            gap = math.hypot(x - tx, y - ty)
            if gap < best and _in_front(x, y, normals, offsets, slack):
                best, bx, by, first, second = gap, x, y, i, j
    return bx, by, first, second, best < math.inf
