"""Chapter 15: the exact distance and closest features of two shape cores.

Every shape is a *core* grown by a radius: a circle is a point grown by r, a capsule a
segment grown by r, a rounded polygon a convex polygon grown by r, and a segment or chain
segment is its core alone (r = 0). Growing a convex set by a disk moves its boundary out by
r along every normal, so for two shapes

    distance(A, B) = distance(core_A, core_B) − r_A − r_B        (cores apart)

and the narrow phase, the time of impact and the queries all start from the distance of the
cores. For two convex cores that are apart the closest points are a vertex of one and a
point of an edge of the other (possibly its end), so the least vertex–edge distance both
ways is exact: no iteration, only rounding. Cores of one or two points (a circle's centre,
a segment) need no separating axis test: the distance between a point and a segment, or
between two segments, is computed directly (two segments that cross are at distance 0,
else the closest pair has an end of one of them).

A core is passed as an (n, 2) array of points, counter-clockwise for a polygon, with its
point count; the kernels check nothing (compiled callers know their arrays).
"""

from __future__ import annotations

import math

from physbook._jit import njit

#: Two segments whose directions' sine is below this are parallel to :func:`segment_closest`.
PARALLEL_SINE = 1e-12

#: Kinds of closest-feature pair that :func:`core_closest` reports: two vertices, a
#: vertex of A and the inside of an edge of B, the inside of an edge of A and a vertex of B.
VERTEX_VERTEX, VERTEX_EDGE, EDGE_VERTEX = 0, 1, 2


@njit(refcounted=False)
def nearest_on_segment(px, py, ax, ay, bx, by):
    """(distance (m) from the point p to the segment ab, the fraction u ∈ [0, 1] along ab
    of the segment's point nearest p)."""
    ex = bx - ax
    ey = by - ay
    length_squared = ex * ex + ey * ey
    u = 0.0
    if length_squared > 0.0:
        u = min(max(((px - ax) * ex + (py - ay) * ey) / length_squared, 0.0), 1.0)
    dx = px - ax - u * ex
    dy = py - ay - u * ey
    return math.sqrt(dx * dx + dy * dy), u


@njit(refcounted=False)
def nearest_vertex_edge(vertices, polygon):
    """The vertex of ``vertices`` nearest to an edge of ``polygon`` (its vertices
    counter-clockwise; the edge i runs from vertex i to the next): (the distance (m), the
    vertex's index, the edge's index, the fraction u ∈ [0, 1] along the edge of its point
    nearest the vertex). The first such pair wins a tie."""
    best, vertex, edge, fraction = math.inf, 0, 0, 0.0
    n = polygon.shape[0]
    for j in range(vertices.shape[0]):
        for i in range(n):
            k = i + 1 if i + 1 < n else 0
            gap, u = nearest_on_segment(vertices[j, 0], vertices[j, 1], polygon[i, 0],
                                        polygon[i, 1], polygon[k, 0], polygon[k, 1])
            if gap < best:
                best, vertex, edge, fraction = gap, j, i, u
    return best, vertex, edge, fraction


@njit(refcounted=False)
def _cross(ax, ay, bx, by):
    """a × b = a_x b_y − a_y b_x."""
    return ax * by - ay * bx


@njit(refcounted=False)
def segments_intersect(p1x, p1y, q1x, q1y, p2x, p2y, q2x, q2y):
    """Whether the segments p1q1 and p2q2 cross at a point inside both (each one's ends lie
    strictly on the two sides of the other's line). Touching at an end is not crossing:
    the end-to-segment distances then find the contact at distance 0."""
    d1x, d1y = q1x - p1x, q1y - p1y
    d2x, d2y = q2x - p2x, q2y - p2y
    o1 = _cross(d1x, d1y, p2x - p1x, p2y - p1y)
    o2 = _cross(d1x, d1y, q2x - p1x, q2y - p1y)
    o3 = _cross(d2x, d2y, p1x - p2x, p1y - p2y)
    o4 = _cross(d2x, d2y, q1x - p2x, q1y - p2y)
    return ((o1 > 0.0 and o2 < 0.0) or (o1 < 0.0 and o2 > 0.0)) and (
        (o3 > 0.0 and o4 < 0.0) or (o3 < 0.0 and o4 > 0.0))


@njit(refcounted=False)
def segment_closest(p1x, p1y, q1x, q1y, p2x, p2y, q2x, q2y):
    """The closest points of the segments p1→q1 and p2→q2: (distance (m), f1, f2), the
    points being p1 + f1·(q1 − p1) and p2 + f2·(q2 − p2), f ∈ [0, 1].

    Segments that cross are at distance 0, at their lines' intersection. Otherwise the
    closest pair has an end of one segment (the distance between two segments that do not
    cross is the least of the four end-to-segment distances), which is exact up to
    rounding even for parallel segments, where a closed-form solve divides by almost 0.
    On a tie the first of p1, q1, p2, q2 wins.
    """
    d1x, d1y = q1x - p1x, q1y - p1y
    d2x, d2y = q2x - p2x, q2y - p2y
    denominator = _cross(d1x, d1y, d2x, d2y)
    # Lines within rounding of parallel "cross" by the signs of rounding noise; their
    # closest points are then found from the ends, as for parallel segments.
    if abs(denominator) > PARALLEL_SINE * math.hypot(d1x, d1y) * math.hypot(d2x, d2y) and \
            segments_intersect(p1x, p1y, q1x, q1y, p2x, p2y, q2x, q2y):
        # p1 + f1·d1 = p2 + f2·d2: f1 = (p2 − p1) × d2 / (d1 × d2), f2 = (p2 − p1) × d1 / …
        rx, ry = p2x - p1x, p2y - p1y
        f1 = min(max(_cross(rx, ry, d2x, d2y) / denominator, 0.0), 1.0)
        f2 = min(max(_cross(rx, ry, d1x, d1y) / denominator, 0.0), 1.0)
        return 0.0, f1, f2
    f1 = 0.0
    best, f2 = nearest_on_segment(p1x, p1y, p2x, p2y, q2x, q2y)
    gap, u = nearest_on_segment(q1x, q1y, p2x, p2y, q2x, q2y)
    if gap < best:
        best, f1, f2 = gap, 1.0, u
    gap, u = nearest_on_segment(p2x, p2y, p1x, p1y, q1x, q1y)
    if gap < best:
        best, f1, f2 = gap, u, 0.0
    gap, u = nearest_on_segment(q2x, q2y, p1x, p1y, q1x, q1y)
    if gap < best:
        best, f1, f2 = gap, u, 1.0
    return best, f1, f2


@njit(refcounted=False)
def _classify(u, edge, count):
    """A point at fraction u along edge ``edge`` of a core of ``count`` points: (True, the
    vertex) at an end, (False, the edge) inside it."""
    if u == 0.0:
        return True, edge
    if u == 1.0:
        return True, edge + 1 if edge + 1 < count else 0
    return False, edge


@njit(refcounted=False)
def _behind(px, py, segment):
    """Whether p lies on the left of the 2-point core ``segment`` (point 0 → point 1): on the
    side of its edge 1 (point 1 → point 0, normal −n) rather than of its edge 0 (normal n,
    the right perpendicular)."""
    ex, ey = segment[1, 0] - segment[0, 0], segment[1, 1] - segment[0, 1]
    return ey * (px - segment[0, 0]) - ex * (py - segment[0, 1]) < 0.0


@njit(refcounted=False)
def core_closest(points_a, count_a, points_b, count_b):
    """The closest features of two disjoint convex cores given in one frame.

    ``points_a`` and ``points_b`` hold at least ``count_a`` and ``count_b`` points (1: a
    point, 2: a segment, ≥ 3: a counter-clockwise polygon). Returns (distance (m), kind,
    index on A, index on B, fraction): kind :data:`VERTEX_VERTEX` names a vertex of each;
    :data:`VERTEX_EDGE` a vertex of A and the edge of B (from its vertex ``index_b`` to the
    next) whose inside, at ``fraction`` along it, is nearest; :data:`EDGE_VERTEX` the
    reverse. A 2-point core has two edges, its two sides: edge 0 (point 0 → point 1,
    normal n on its right) and edge 1 (point 1 → point 0, normal −n); the one facing the
    vertex is named, with the fraction along it. For overlapping cores
    the distance is not 0 (use :func:`convex_distance`); a tie goes to the first pair found,
    vertices of A against B's edges first.
    """
    if count_a == 1 and count_b == 1:
        return (math.hypot(points_b[0, 0] - points_a[0, 0], points_b[0, 1] - points_a[0, 1]),
                VERTEX_VERTEX, 0, 0, 0.0)
    best = math.inf
    kind, index_a, index_b, fraction = VERTEX_VERTEX, 0, 0, 0.0
    edges_b = 1 if count_b == 2 else count_b
    if count_b > 1:
        for j in range(count_a):
            for i in range(edges_b):
                k = i + 1 if i + 1 < count_b else 0
                gap, u = nearest_on_segment(points_a[j, 0], points_a[j, 1], points_b[i, 0],
                                            points_b[i, 1], points_b[k, 0], points_b[k, 1])
                if gap < best:
                    best = gap
                    at_vertex, feature = _classify(u, i, count_b)
                    kind = VERTEX_VERTEX if at_vertex else VERTEX_EDGE
                    index_a, index_b, fraction = j, feature, u
                    if kind == VERTEX_EDGE and count_b == 2 and _behind(
                            points_a[j, 0], points_a[j, 1], points_b):
                        index_b, fraction = 1, 1.0 - u  # the side facing the vertex
    edges_a = 1 if count_a == 2 else count_a
    if count_a > 1:
        for j in range(count_b):
            for i in range(edges_a):
                k = i + 1 if i + 1 < count_a else 0
                gap, u = nearest_on_segment(points_b[j, 0], points_b[j, 1], points_a[i, 0],
                                            points_a[i, 1], points_a[k, 0], points_a[k, 1])
                if gap < best:
                    best = gap
                    at_vertex, feature = _classify(u, i, count_a)
                    kind = VERTEX_VERTEX if at_vertex else EDGE_VERTEX
                    index_a, index_b, fraction = feature, j, u
                    if kind == EDGE_VERTEX and count_a == 2 and _behind(
                            points_b[j, 0], points_b[j, 1], points_a):
                        index_a, fraction = 1, 1.0 - u  # the side facing the vertex
    return best, kind, index_a, index_b, fraction


@njit(refcounted=False)
def polygon_separation(points_a, normals_a, points_b):
    """The largest separation of ``points_b`` from the polygon a along a's edge normals
    (m): max_i min_j n_i·(q_j − p_i). Positive only if an edge of a separates them."""
    best = -math.inf
    for i in range(points_a.shape[0]):
        nearest = math.inf
        for j in range(points_b.shape[0]):
            nearest = min(nearest, normals_a[i, 0] * (points_b[j, 0] - points_a[i, 0])
                          + normals_a[i, 1] * (points_b[j, 1] - points_a[i, 1]))
        best = max(best, nearest)
    return best


@njit(refcounted=False)
def _small_core_distance(points_a, count_a, points_b, count_b):
    """The distance between two cores of one or two points each (m), computed directly."""
    if count_a == 1 and count_b == 1:
        return math.hypot(points_b[0, 0] - points_a[0, 0], points_b[0, 1] - points_a[0, 1])
    if count_a == 1:
        return nearest_on_segment(points_a[0, 0], points_a[0, 1], points_b[0, 0],
                                  points_b[0, 1], points_b[1, 0], points_b[1, 1])[0]
    if count_b == 1:
        return nearest_on_segment(points_b[0, 0], points_b[0, 1], points_a[0, 0],
                                  points_a[0, 1], points_a[1, 0], points_a[1, 1])[0]
    return segment_closest(points_a[0, 0], points_a[0, 1], points_a[1, 0], points_a[1, 1],
                           points_b[0, 0], points_b[0, 1], points_b[1, 0], points_b[1, 1])[0]


@njit(refcounted=False)
def convex_distance(points_a, normals_a, radius_a, points_b, normals_b, radius_b):
    """The distance between two convex shapes in one frame (m, 0 if they overlap).

    A shape is its core — a convex polygon's counter-clockwise vertices and outward edge
    normals, a segment's two points (normals ±n), or a circle's single centre — grown by
    its radius. Two cores of at most two points each are measured directly (point, segment).
    Otherwise the cores overlap unless an edge normal of one separates them (the separating
    axis test: the Minkowski difference of a polygon and a segment or polygon has only
    their edge directions, so those normals are the only axes to try). If they are apart,
    their closest points are a vertex of one and a point on an edge of the other, so the
    core distance is the least vertex–edge distance; the shapes' distance is that less
    both radii.
    """
    count_a = points_a.shape[0]
    count_b = points_b.shape[0]
    if count_a <= 2 and count_b <= 2:
        core = _small_core_distance(points_a, count_a, points_b, count_b)
    else:
        separation = -math.inf
        if count_a > 1:
            separation = max(separation, polygon_separation(points_a, normals_a, points_b))
        if count_b > 1:
            separation = max(separation, polygon_separation(points_b, normals_b, points_a))
        if separation <= 0.0:
            return 0.0
        core = math.inf
        if count_b > 1:
            core = min(core, nearest_vertex_edge(points_a, points_b)[0])
        if count_a > 1:
            core = min(core, nearest_vertex_edge(points_b, points_a)[0])
    return max(core - radius_a - radius_b, 0.0)
