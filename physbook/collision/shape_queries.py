"""Exact questions about one shape in the world: does it contain a point, where does a ray
first hit it, does it overlap a box (chapter 12; shapes with a radius, chapter 15).

The kernels take a :class:`~physbook.geometry.shape_table.ShapeArrays`, the bodies' origins
and angles, and the rows of the shapes to ask about (a broad phase or a tree narrows those
down first). Each works in the shape's own body coordinates: the point, ray or box is
carried into them by the inverse of the body's transform, p_local = Rᵀ(p − origin).

Boundaries count: a point on an edge is contained, a box touching a shape overlaps it. A ray
that starts inside a shape (or on its boundary) does not hit it, as in Box2D: it has no
surface to cross on its way in.

A shape with a radius (a capsule, a rounded polygon) is its core, the points of
``core_count`` rows, grown by r: a point is in it when it lies within r of the core, a box
overlaps it when the box comes within r of the core. Segments and chain segments have no
area: they contain no point, overlap a box they touch (a chain segment from either side:
a box asks what is there, not what would collide), and a ray hits them where it crosses
them, a chain segment only from its front (the right side looking from point1 to point2).
"""

from __future__ import annotations

import math

import numpy as np

from physbook._jit import njit
from physbook.collision.toi import nearest_on_segment
from physbook.geometry.shape_table import core_count, vertex_extent
from physbook.kinds import CAPSULE, CHAIN_SEGMENT, CIRCLE, POLYGON, SEGMENT
from physbook.vecmath.kernels import rotate, rotate_inverse


@njit
def _local(origins, angles, b, x, y):
    """World point (x, y) in the coordinates of body ``b``."""
    return rotate_inverse(np.cos(angles[b]), np.sin(angles[b]), x - origins[b, 0],
                          y - origins[b, 1])


@njit
def _core_gap(start, count, vertices, x, y):
    """The distance (m) from the local point (x, y) to the boundary of a core of ``count``
    points from ``start``: a point, a segment (two points), or a convex polygon's edges."""
    if count == 1:
        return math.hypot(x - vertices[start, 0], y - vertices[start, 1])
    edges = 1 if count == 2 else count
    best = math.inf
    for i in range(edges):
        k = start + i
        j = start + (i + 1 if i + 1 < count else 0)
        gap, _ = nearest_on_segment(x, y, vertices[k, 0], vertices[k, 1], vertices[j, 0],
                                    vertices[j, 1])
        best = min(best, gap)
    return best


@njit
def _contains(kind, radius, start, count, vertices, normals, x, y):
    """Whether the shape (body coordinates; ``count`` its core rows) contains the local
    point (x, y)."""
    if kind == CIRCLE:
        dx = x - vertices[start, 0]
        dy = y - vertices[start, 1]
        return dx * dx + dy * dy <= radius * radius
    if kind == SEGMENT or kind == CHAIN_SEGMENT:
        return False  # no area: nothing is inside a line
    if kind == CAPSULE:
        return _core_gap(start, 2, vertices, x, y) <= radius
    # A convex polygon is the intersection of the half-planes n_i·(p − v_i) ≤ 0: the point
    # is inside its core when the largest of these separations s is ≤ 0. Grown by r, the
    # polygon holds no point with s > r; between, the point is in when it lies within r of
    # the core's boundary (near a corner the grown edge gives way to an arc).
    largest = -math.inf
    for k in range(start, start + count):
        largest = max(largest, normals[k, 0] * (x - vertices[k, 0])
                      + normals[k, 1] * (y - vertices[k, 1]))
        if largest > radius:
            return False
    if largest <= 0.0:
        return True
    return _core_gap(start, count, vertices, x, y) <= radius


@njit
def shapes_containing(shapes, origins, angles, rows, x, y):
    """The entries of ``rows`` whose shapes contain the world point (x, y)."""
    _, kind, body, radius, vertex_start, vertex_count, vertices, normals = shapes
    out = np.empty(rows.shape[0], np.int64)
    found = 0
    for s in rows:
        local_x, local_y = _local(origins, angles, body[s], x, y)
        if _contains(kind[s], radius[s], vertex_start[s], core_count(kind[s], vertex_count[s]),
                     vertices, normals, local_x, local_y):
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
def _ray_rounded(start, count, vertices, normals, radius, x, y, dx, dy):
    """First hit of the ray on a core of ``count`` points grown by ``radius`` (a rounded
    polygon; a capsule, whose two edges run c1→c2 and back with normals n and −n): (t, nx,
    ny), or t = −1 for none.

    The boundary is made of the edges pushed out by r, {v_k + r·n_k + u·(v_{k+1} − v_k)},
    and the arcs of the circles of radius r about the vertices. Each piece lies in the
    shape, so the first piece the ray meets is where it enters: the least t over the pushed
    edges it crosses from outside (n_k·d < 0: n_k·(o + t·d − v_k) = r, with the crossing
    within the edge's span) and over the circles. The normal is n_k on an edge, the circle's
    on an arc.
    """
    if _core_gap(start, count, vertices, x, y) <= radius:
        return -1.0, 0.0, 0.0  # starts inside or on the shape
    best = math.inf
    best_x = 0.0
    best_y = 0.0
    for i in range(count):
        k = start + i
        j = start + (i + 1 if i + 1 < count else 0)
        nx = normals[k, 0]
        ny = normals[k, 1]
        denominator = nx * dx + ny * dy
        if denominator < 0.0:
            t = (radius - (nx * (x - vertices[k, 0]) + ny * (y - vertices[k, 1]))) / denominator
            if 0.0 <= t < best:
                # u: where along the edge the crossing lies ((h − v_k)·e / e·e; n ⟂ e).
                ex = vertices[j, 0] - vertices[k, 0]
                ey = vertices[j, 1] - vertices[k, 1]
                u = (ex * (x + t * dx - vertices[k, 0])
                     + ey * (y + t * dy - vertices[k, 1])) / (ex * ex + ey * ey)
                if 0.0 <= u <= 1.0:
                    best, best_x, best_y = t, nx, ny
        t, arc_x, arc_y = _ray_circle(vertices[k, 0], vertices[k, 1], radius, x, y, dx, dy)
        if 0.0 <= t < best:
            best, best_x, best_y = t, arc_x, arc_y
    if best > 1.0:
        return -1.0, 0.0, 0.0
    return best, best_x, best_y


@njit
def _ray_segment(start, vertices, normals, one_sided, x, y, dx, dy):
    """First hit of the ray on the segment from vertex ``start`` to the next, whose normal
    is ``normals[start]``: (t, nx, ny), or t = −1 for none. The ray meets the segment's line
    at t = n·(p1 − o) / n·d; it hits if that t is in (0, 1] and the crossing lies between
    the ends. The normal faces the ray's origin. ``one_sided`` (a chain segment): a ray from
    behind the line (n·(o − p1) < 0) passes through. A ray starting on the line (t = 0)
    does not hit, as for every shape."""
    p1x = vertices[start, 0]
    p1y = vertices[start, 1]
    nx = normals[start, 0]
    ny = normals[start, 1]
    numerator = nx * (p1x - x) + ny * (p1y - y)
    if one_sided and numerator > 0.0:
        return -1.0, 0.0, 0.0  # behind a one-sided segment
    denominator = nx * dx + ny * dy
    if denominator == 0.0:
        return -1.0, 0.0, 0.0  # parallel to the line
    t = numerator / denominator
    if not 0.0 < t <= 1.0:
        return -1.0, 0.0, 0.0
    ex = vertices[start + 1, 0] - p1x
    ey = vertices[start + 1, 1] - p1y
    u = (ex * (x + t * dx - p1x) + ey * (y + t * dy - p1y)) / (ex * ex + ey * ey)
    if not 0.0 <= u <= 1.0:
        return -1.0, 0.0, 0.0
    if denominator > 0.0:
        return t, -nx, -ny
    return t, nx, ny


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
        shape_kind = kind[s]
        if shape_kind == CIRCLE:
            t, nx, ny = _ray_circle(vertices[start, 0], vertices[start, 1], radius[s],
                                    local_x, local_y, local_dx, local_dy)
        elif shape_kind == SEGMENT or shape_kind == CHAIN_SEGMENT:
            t, nx, ny = _ray_segment(start, vertices, normals, shape_kind == CHAIN_SEGMENT,
                                     local_x, local_y, local_dx, local_dy)
        elif shape_kind == CAPSULE or radius[s] > 0.0:
            t, nx, ny = _ray_rounded(start, vertex_count[s], vertices, normals, radius[s],
                                     local_x, local_y, local_dx, local_dy)
        else:
            t, nx, ny = _ray_polygon(start, vertex_count[s], vertices, normals, local_x,
                                     local_y, local_dx, local_dy)
        if t >= 0.0:
            fractions[i] = t
            hit_normals[i, 0], hit_normals[i, 1] = rotate(cosine, sine, nx, ny)
    return fractions, hit_normals


@njit
def _segment_meets_box(ax, ay, bx, by, low_x, low_y, high_x, high_y):
    """Whether the segment ab meets the box (touching counts): the part of a + u·(b − a),
    u ∈ [0, 1], inside both slabs low ≤ x ≤ high and low ≤ y ≤ high is not empty (clipping
    against the slabs, Liang and Barsky)."""
    enter = 0.0
    leave = 1.0
    for axis in range(2):
        a = ax if axis == 0 else ay
        d = (bx - ax) if axis == 0 else (by - ay)
        low = low_x if axis == 0 else low_y
        high = high_x if axis == 0 else high_y
        if d == 0.0:
            if a < low or a > high:
                return False
            continue
        u1 = (low - a) / d
        u2 = (high - a) / d
        if u1 > u2:
            u1, u2 = u2, u1
        enter = max(enter, u1)
        leave = min(leave, u2)
        if enter > leave:
            return False
    return True


@njit
def _core_box_gap(vertices, normals, start, count, cosine, sine, origin_x, origin_y, low_x,
                  low_y, high_x, high_y):
    """The distance (m) between a core of ``count`` points (body coordinates, the body at
    (origin_x, origin_y) turned by (cos θ, sin θ)) and the world box; 0 if they meet.

    They meet if an edge of the core meets the box, or the box lies inside a polygon core.
    Two convex sets apart have a closest pair with a vertex of one of them, so the distance
    is then the least of each core point's distance to the box and each box corner's to the
    core's edges."""
    edges = 0 if count == 1 else (1 if count == 2 else count)
    best = math.inf
    for i in range(count):
        ax, ay = rotate(cosine, sine, vertices[start + i, 0], vertices[start + i, 1])
        ax += origin_x
        ay += origin_y
        gap_x = ax - min(max(ax, low_x), high_x)
        gap_y = ay - min(max(ay, low_y), high_y)
        best = min(best, math.hypot(gap_x, gap_y))
        if i < edges:
            j = start + (i + 1 if i + 1 < count else 0)
            bx, by = rotate(cosine, sine, vertices[j, 0], vertices[j, 1])
            if _segment_meets_box(ax, ay, bx + origin_x, by + origin_y, low_x, low_y, high_x,
                                  high_y):
                return 0.0
    if edges == 0:
        return best
    for corner in range(4):
        # The corner in the body's coordinates, p = Rᵀ(c − origin).
        cx, cy = rotate_inverse(cosine, sine,
                                (low_x if corner & 1 == 0 else high_x) - origin_x,
                                (low_y if corner & 2 == 0 else high_y) - origin_y)
        if count > 2 and corner == 0:
            inside = True
            for k in range(start, start + count):
                if (normals[k, 0] * (cx - vertices[k, 0])
                        + normals[k, 1] * (cy - vertices[k, 1]) > 0.0):
                    inside = False
                    break
            if inside:
                return 0.0
        best = min(best, _core_gap(start, count, vertices, cx, cy))
    return best


@njit
def shapes_overlapping_box(shapes, origins, angles, rows, low_x, low_y, high_x, high_y):
    """The entries of ``rows`` whose shapes overlap the world box (touching counts).

    A circle overlaps the box when the box's point closest to its centre lies within r. A
    polygon and a box are convex: they overlap unless an axis separates them, and only the
    box's two axes and the polygon's edge normals can (the separating axis theorem). Any
    other shape (a capsule, a rounded polygon, a segment, a chain segment) overlaps the box
    when its core comes within its radius of it.
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
        if kind[s] != POLYGON or radius[s] > 0.0:
            gap = _core_box_gap(vertices, normals, start, core_count(kind[s], vertex_count[s]),
                                cosine, sine, origins[b, 0], origins[b, 1], low_x, low_y,
                                high_x, high_y)
            if gap <= radius[s]:
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
