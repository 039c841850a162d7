"""Exact questions about one shape in the world: does it contain a point, where does a ray
first hit it, does it overlap a box (chapter 12).

The kernels take a :class:`~physbook.geometry.shape_table.ShapeArrays`, the bodies' origins
and angles, and the rows of the shapes to ask about (a broad phase or a tree narrows those
down first). Each works in the shape's own body coordinates: the point, ray or box is
carried into them by the inverse of the body's transform, p_local = Rᵀ(p − origin).

Boundaries count: a point on an edge is contained, a box touching a shape overlaps it. A ray
that starts inside a shape (or on its boundary) does not hit it, as in Box2D: it has no
surface to cross on its way in.
"""

from __future__ import annotations

import numpy as np

from physbook._jit import njit
from physbook.geometry.shape_table import vertex_extent
from physbook.kinds import CIRCLE
from physbook.vecmath.kernels import rotate, rotate_inverse


@njit
def _local(origins, angles, b, x, y):
    """World point (x, y) in the coordinates of body ``b``."""
    return rotate_inverse(np.cos(angles[b]), np.sin(angles[b]), x - origins[b, 0],
                          y - origins[b, 1])


@njit
def _contains(kind, radius, start, count, vertices, normals, x, y):
    """Whether the shape (body coordinates) contains the local point (x, y)."""
    if kind == CIRCLE:
        dx = x - vertices[start, 0]
        dy = y - vertices[start, 1]
        return dx * dx + dy * dy <= radius * radius
    # Inside a convex polygon: on the inner side of every edge, n_i·(p − v_i) ≤ 0.
    for k in range(start, start + count):
        if normals[k, 0] * (x - vertices[k, 0]) + normals[k, 1] * (y - vertices[k, 1]) > 0.0:
            return False
    return True


@njit
def shapes_containing(shapes, origins, angles, rows, x, y):
    """The entries of ``rows`` whose shapes contain the world point (x, y)."""
    _, kind, body, radius, vertex_start, vertex_count, vertices, normals = shapes
    out = np.empty(rows.shape[0], np.int64)
    found = 0
    for s in rows:
        local_x, local_y = _local(origins, angles, body[s], x, y)
        if _contains(kind[s], radius[s], vertex_start[s], vertex_count[s], vertices, normals,
                     local_x, local_y):
            out[found] = s
            found += 1
    return out[:found]


@njit
def _ray_circle(center_x, center_y, radius, x, y, dx, dy):
    """First hit of the ray (x, y) + t·(dx, dy), t ∈ [0, 1], on a circle: (t, nx, ny), or
    t = −1 for none. Solves |m + t·d|² = r² with m = origin − centre for its smaller root."""
    mx = x - center_x
    my = y - center_y
    c = mx * mx + my * my - radius * radius
    if c <= 0.0:
        return -1.0, 0.0, 0.0  # starts inside or on the circle
    a = dx * dx + dy * dy
    b = mx * dx + my * dy
    discriminant = b * b - a * c
    if b >= 0.0 or discriminant < 0.0:
        return -1.0, 0.0, 0.0  # moving away, or the line misses the circle
    t = (-b - np.sqrt(discriminant)) / a
    if t > 1.0:
        return -1.0, 0.0, 0.0
    nx = (mx + t * dx) / radius
    ny = (my + t * dy) / radius
    length = np.sqrt(nx * nx + ny * ny)
    return t, nx / length, ny / length


@njit
def _ray_polygon(start, count, vertices, normals, x, y, dx, dy):
    """First hit of the ray on a convex polygon: (t, nx, ny), or t = −1 for none.

    The polygon is the intersection of the half-planes n_i·(p − v_i) ≤ 0; the ray is inside
    half-plane i for t on one side of t_i = n_i·(v_i − o) / n_i·d. The ray enters the
    polygon at the largest entering t_i and leaves at the smallest leaving one (clipping a
    segment against half-planes, Cyrus and Beck); it hits if it enters before it leaves.
    """
    enter = 0.0
    leave = 1.0
    face = -1
    for k in range(start, start + count):
        numerator = normals[k, 0] * (vertices[k, 0] - x) + normals[k, 1] * (vertices[k, 1] - y)
        denominator = normals[k, 0] * dx + normals[k, 1] * dy
        if denominator == 0.0:
            if numerator < 0.0:
                return -1.0, 0.0, 0.0  # parallel to the edge, and outside it
            continue
        # t < numerator/denominator when entering (denominator < 0), > when leaving.
        if denominator < 0.0 and numerator < enter * denominator:
            enter = numerator / denominator
            face = k
        elif denominator > 0.0 and numerator < leave * denominator:
            leave = numerator / denominator
        if leave < enter:
            return -1.0, 0.0, 0.0
    if face < 0:
        return -1.0, 0.0, 0.0  # the ray starts inside: it crosses no edge on its way in
    return enter, normals[face, 0], normals[face, 1]


@njit
def ray_cast_rows(shapes, origins, angles, rows, x, y, dx, dy):
    """Ray (x, y) + t·(dx, dy), t ∈ [0, 1], against the shapes of ``rows``: for each
    entry the fraction t of the first hit (−1 for none) and the world normal there."""
    _, kind, body, radius, vertex_start, vertex_count, vertices, normals = shapes
    fractions = np.full(rows.shape[0], -1.0)
    hit_normals = np.zeros((rows.shape[0], 2))
    for i in range(rows.shape[0]):
        s = rows[i]
        b = body[s]
        cosine = np.cos(angles[b])
        sine = np.sin(angles[b])
        local_x, local_y = rotate_inverse(cosine, sine, x - origins[b, 0], y - origins[b, 1])
        local_dx, local_dy = rotate_inverse(cosine, sine, dx, dy)
        start = vertex_start[s]
        if kind[s] == CIRCLE:
            t, nx, ny = _ray_circle(vertices[start, 0], vertices[start, 1], radius[s],
                                    local_x, local_y, local_dx, local_dy)
        else:
            t, nx, ny = _ray_polygon(start, vertex_count[s], vertices, normals, local_x,
                                     local_y, local_dx, local_dy)
        if t >= 0.0:
            fractions[i] = t
            hit_normals[i, 0], hit_normals[i, 1] = rotate(cosine, sine, nx, ny)
    return fractions, hit_normals


@njit
def shapes_overlapping_box(shapes, origins, angles, rows, low_x, low_y, high_x, high_y):
    """The entries of ``rows`` whose shapes overlap the world box (touching counts).

    A circle overlaps the box when the box's point closest to its centre lies within r. A
    polygon and a box are convex: they overlap unless an axis separates them, and only the
    box's two axes and the polygon's edge normals can (the separating axis theorem).
    """
    _, kind, body, radius, vertex_start, vertex_count, vertices, normals = shapes
    out = np.empty(rows.shape[0], np.int64)
    found = 0
    for s in rows:
        b = body[s]
        cosine = np.cos(angles[b])
        sine = np.sin(angles[b])
        start = vertex_start[s]
        if kind[s] == CIRCLE:
            cx, cy = rotate(cosine, sine, vertices[start, 0], vertices[start, 1])
            cx += origins[b, 0]
            cy += origins[b, 1]
            gap_x = cx - min(max(cx, low_x), high_x)
            gap_y = cy - min(max(cy, low_y), high_y)
            if gap_x * gap_x + gap_y * gap_y <= radius[s] * radius[s]:
                out[found] = s
                found += 1
            continue
        # The box's axes: the polygon's world extent against the box.
        poly_low_x, poly_low_y, poly_high_x, poly_high_y = vertex_extent(
            vertices, start, vertex_count[s], cosine, sine, origins[b, 0], origins[b, 1])
        if (poly_low_x > high_x or low_x > poly_high_x or poly_low_y > high_y
                or low_y > poly_high_y):
            continue
        # The polygon's normals: separated if every box corner lies beyond one edge.
        separated = False
        for k in range(start, start + vertex_count[s]):
            nx, ny = rotate(cosine, sine, normals[k, 0], normals[k, 1])
            vx, vy = rotate(cosine, sine, vertices[k, 0], vertices[k, 1])
            vx += origins[b, 0]
            vy += origins[b, 1]
            # The box corner deepest along −n: its lowest projection on n.
            corner_x = low_x if nx > 0.0 else high_x
            corner_y = low_y if ny > 0.0 else high_y
            if nx * (corner_x - vx) + ny * (corner_y - vy) > 0.0:
                separated = True
                break
        if not separated:
            out[found] = s
            found += 1
    return out[:found]
