"""Chapter 16: the compiled part of explosions (:mod:`physbook.explosion` derives it): where
and how a blast meets each shape of a shape table.
"""

from __future__ import annotations

import math

import numpy as np

from physbook._jit import njit
from physbook.collision.core_distance import nearest_on_segment
from physbook.geometry.shape_table import core_count


@njit
def blast_rows(shapes, origins, angles, rows, cx, cy):
    """For each shape of ``rows``: (distance from (cx, cy) to the shape (m, 0 inside),
    the point pushed (nearest point, or centroid inside), the unit direction away from the
    centre, the shape's width across that direction (m)), as arrays."""
    _, kind, body, radii, vertex_start, vertex_count, vertices, normals = shapes
    n = rows.shape[0]
    distances = np.zeros(n)
    points = np.zeros((n, 2))
    directions = np.zeros((n, 2))
    widths = np.zeros(n)
    for k in range(n):
        s = rows[k]
        b = body[s]
        start = vertex_start[s]
        count = core_count(kind[s], vertex_count[s])
        cosine = math.cos(angles[b])
        sine = math.sin(angles[b])
        world = np.empty((count, 2))
        for j in range(count):
            x = vertices[start + j, 0]
            y = vertices[start + j, 1]
            world[j, 0] = origins[b, 0] + cosine * x - sine * y
            world[j, 1] = origins[b, 1] + sine * x + cosine * y
        # The nearest point of the core: a point, a segment, or a polygon (0 inside).
        inside = count >= 3
        best = math.inf
        qx = world[0, 0]
        qy = world[0, 1]
        if count == 1:
            best = math.hypot(cx - qx, cy - qy)
        edges = 1 if count == 2 else (count if count >= 3 else 0)
        for i in range(edges):
            j = i + 1 if i + 1 < count else 0
            if count >= 3:
                nx = cosine * normals[start + i, 0] - sine * normals[start + i, 1]
                ny = sine * normals[start + i, 0] + cosine * normals[start + i, 1]
                if nx * (cx - world[i, 0]) + ny * (cy - world[i, 1]) > 0.0:
                    inside = False
            gap, u = nearest_on_segment(cx, cy, world[i, 0], world[i, 1], world[j, 0],
                                        world[j, 1])
            if gap < best:
                best = gap
                qx = world[i, 0] + u * (world[j, 0] - world[i, 0])
                qy = world[i, 1] + u * (world[j, 1] - world[i, 1])
        r = radii[s]
        if not inside and best > r:
            distances[k] = best - r
            # Out from the core towards the centre by r: the surface point nearest it.
            px = qx + r * (cx - qx) / best
            py = qy + r * (cy - qy) / best
        else:
            # The centre is inside: push at the centroid (a polygon's area centroid,
            # Σ (p_i + p_{i+1})(p_i × p_{i+1}) / (6·area); the middle of a capsule's,
            # segment's or circle's core).
            px = 0.0
            py = 0.0
            if count >= 3:
                twice_area = 0.0
                for i in range(count):
                    j = i + 1 if i + 1 < count else 0
                    cross = world[i, 0] * world[j, 1] - world[j, 0] * world[i, 1]
                    twice_area += cross
                    px += (world[i, 0] + world[j, 0]) * cross
                    py += (world[i, 1] + world[j, 1]) * cross
                px /= 3.0 * twice_area
                py /= 3.0 * twice_area
            else:
                for j in range(count):
                    px += world[j, 0] / count
                    py += world[j, 1] / count
        points[k, 0] = px
        points[k, 1] = py
        dx = px - cx
        dy = py - cy
        length = math.hypot(dx, dy)
        if length > 1e-12 * max(1.0, abs(cx), abs(cy)):
            dx /= length
            dy /= length
        else:
            dx = 1.0
            dy = 0.0
        directions[k, 0] = dx
        directions[k, 1] = dy
        # The width across u: the spread of the core along u⊥ = (−u_y, u_x), plus 2r.
        low = math.inf
        high = -math.inf
        for j in range(count):
            along = -dy * world[j, 0] + dx * world[j, 1]
            low = min(low, along)
            high = max(high, along)
        widths[k] = high - low + 2.0 * r
    return distances, points, directions, widths
