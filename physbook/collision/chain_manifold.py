"""Chapter 15: contact manifolds of one-sided chain segments, without ghost collisions.

A chain segment p1→p2 collides only on its right side (its front normal n1 = rperp(e1),
e1 = unit(p2 − p1)), and it knows its neighbours' far points, the *ghosts* g1 and g2, so it
knows the faces that meet it at each end: the previous face's normal n0 = rperp(unit(p1 −
g1)) and the next face's n2 = rperp(unit(g2 − p2)).

The normals a smooth chain may push along form its *Gauss map*: along a face only its
normal, and at a convex vertex (the surface turning away from a body resting on it) the arc
of normals between the two faces' normals. At a flat or concave vertex there is no arc: a
normal that would lean into the neighbour there is *snapped* to the face normal n1. Each
segment owns its part of the map: the arc n0 → n1 at a convex p1, n1 itself, and the arc
n1 → n2 at a convex p2; a candidate normal turned past n0 or n2 belongs to a neighbour,
which makes that contact, so this segment *skips* it (:func:`classify_normal`). A body
sliding along a flat chain therefore never sees the side face of the next segment, the
inner corner where tiles catch ("ghost collisions").

The routines take the chain segment as shape A, in its own frame: its four vertex rows
``[p1, p2, g1, g2]`` and normal rows ``[n1, −n1, n0, n2]`` as the shape table stores them.
Feature numbers: p1 → 0, p2 → 2, the front face → 1. They check nothing.
"""

from __future__ import annotations

import math

import numpy as np

from physbook._jit import njit
from physbook.collision.core_distance import (
    EDGE_VERTEX,
    VERTEX_EDGE,
    VERTEX_VERTEX,
    core_closest,
    segment_closest,
)
from physbook.collision.features import make_feature_unchecked
from physbook.collision.round_manifold import write_round_point
from physbook.collision.sat import clip_incident_edge, polygon_size
from physbook.constants import (
    CHAIN_CONVEX_SINE,
    CHAIN_NORMAL_SINE,
    COINCIDENT_FRACTION,
    FACE_SWITCH_TOLERANCE,
    ROUND_CORE_GAP,
)

#: What :func:`classify_normal` says of a candidate normal.
SKIP, ADMIT, SNAP = 0, 1, 2

# int64 values, not literals: numba compiles a kernel once more for each literal it is
# handed, even a start value that a loop then changes.
SEGMENT_POINTS = np.int64(2)  #: a chain segment's own points, the first of its rows
NO_FACE = np.int64(-1)  #: no reference face found yet


@njit(refcounted=False)
def turns_left(nax, nay, nbx, nby):
    """Whether a chain is convex at the vertex between an edge of unit normal n_a and the
    next of normal n_b: it turns left (e_a × e_b = n_a × n_b > 0) by at least
    CHAIN_CONVEX_SINE, or by more than a right angle (n_a·n_b < 0). The sine alone would
    call a hairpin turn flat: sin(180° − ε) is as small as sin ε."""
    cross = nax * nby - nay * nbx
    return cross >= CHAIN_CONVEX_SINE or (cross > 0.0 and nax * nbx + nay * nby < 0.0)


@njit(refcounted=False)
def chain_circle_contact(vertices_a, normals_a, cx, cy, radius, margin, normal, points, depths,
                         features):
    """A chain segment (A: rows ``[p1, p2, g1, g2]``, normals ``[n1, −n1, n0, n2]``) and a
    circle (B: centre c, radius r).

    No contact when c is behind the segment's line (one-sided). The closest point is
    decided by the projections v = e·(c − p1), u = e·(p2 − c), e = p2 − p1: before p1
    (v ≤ 0) it is p1, unless c projects onto the previous segment ((p1 − g1)·(c − p1) ≤ 0),
    which then owns the contact; after p2 (u ≤ 0) it is p2, unless the next segment owns it
    ((g2 − p2)·(c − p2) > 0); otherwise the point (u·p1 + v·p2)/e·e of the face. Then
    n, depth and point as for a circle against a point: depth = r − d. A vertex that is
    not convex has no normals of its own (the Gauss map): there the normal is snapped to
    the face's, n1, and the separation measured along it. Features (0 | 2 | 1, 0).
    """
    p1x, p1y = vertices_a[0, 0], vertices_a[0, 1]
    p2x, p2y = vertices_a[1, 0], vertices_a[1, 1]
    n1x, n1y = normals_a[0, 0], normals_a[0, 1]
    ex, ey = p2x - p1x, p2y - p1y
    # rperp(e)·(c − p1): the front side is to the right of p1 → p2.
    if ey * (cx - p1x) - ex * (cy - p1y) < 0.0:
        return 0
    v = ex * (cx - p1x) + ey * (cy - p1y)
    u = ex * (p2x - cx) + ey * (p2y - cy)
    snap = False
    if v <= 0.0:
        if (p1x - vertices_a[2, 0]) * (cx - p1x) + (p1y - vertices_a[2, 1]) * (cy - p1y) <= 0.0:
            return 0
        ax, ay, feature_a = p1x, p1y, 0
        snap = not turns_left(normals_a[2, 0], normals_a[2, 1], n1x, n1y)
    elif u <= 0.0:
        if (vertices_a[3, 0] - p2x) * (cx - p2x) + (vertices_a[3, 1] - p2y) * (cy - p2y) > 0.0:
            return 0
        ax, ay, feature_a = p2x, p2y, 2
        snap = not turns_left(n1x, n1y, normals_a[3, 0], normals_a[3, 1])
    else:
        ee = ex * ex + ey * ey
        ax, ay, feature_a = (u * p1x + v * p2x) / ee, (u * p1y + v * p2y) / ee, 1
    if snap:
        distance = n1x * (cx - p1x) + n1y * (cy - p1y)
        ax, ay, feature_a = cx - distance * n1x, cy - distance * n1y, 1
        nx, ny = n1x, n1y
        if distance > radius + margin:
            return 0
    else:
        dx, dy = cx - ax, cy - ay
        distance = math.sqrt(dx * dx + dy * dy)
        if distance > radius + margin:
            return 0
        if distance <= COINCIDENT_FRACTION * radius:
            nx, ny = n1x, n1y
        else:
            nx, ny = dx / distance, dy / distance
    normal[0], normal[1] = nx, ny
    points[0, 0] = 0.5 * (ax + (cx - radius * nx))
    points[0, 1] = 0.5 * (ay + (cy - radius * ny))
    depths[0] = radius - distance
    features[0] = make_feature_unchecked(feature_a, 0)
    return 1


@njit(refcounted=False)
def classify_normal(nx, ny, e1x, e1y, n0x, n0y, n2x, n2y, convex1, convex2):
    """Where the candidate normal n (from the chain to the body) falls on the segment's part
    of the Gauss map: :data:`SKIP` (turned past a convex neighbour's face normal by more than
    CHAIN_NORMAL_SINE: the neighbour makes this contact), :data:`ADMIT` (on the segment's
    face or its convex corners' arcs), :data:`SNAP` (leaning over a flat or concave vertex:
    use the face normal instead).

    n leans towards p1 when n·e1 ≤ 0: past n0 means n × n0 > sine; towards p2, past n2
    means n2 × n > sine (a × b = a_x b_y − a_y b_x).
    """
    if nx * e1x + ny * e1y <= 0.0:
        if convex1:
            if nx * n0y - ny * n0x > CHAIN_NORMAL_SINE:
                return SKIP
            return ADMIT
        return SNAP
    if convex2:
        if n2x * ny - n2y * nx > CHAIN_NORMAL_SINE:
            return SKIP
        return ADMIT
    return SNAP


@njit(refcounted=False)
def _centroid(vertices):
    """The area centroid of a convex polygon core (shoelace sums about vertex 0), or the
    midpoint of a two-point core."""
    count = vertices.shape[0]
    ox, oy = vertices[0, 0], vertices[0, 1]
    if count == 2:
        return 0.5 * (ox + vertices[1, 0]), 0.5 * (oy + vertices[1, 1])
    area = 0.0
    sx, sy = 0.0, 0.0
    for i in range(1, count - 1):
        ax, ay = vertices[i, 0] - ox, vertices[i, 1] - oy
        bx, by = vertices[i + 1, 0] - ox, vertices[i + 1, 1] - oy
        twice = ax * by - ay * bx
        area += twice
        sx += twice * (ax + bx)
        sy += twice * (ay + by)
    return ox + sx / (3.0 * area), oy + sy / (3.0 * area)


@njit(refcounted=False)
def _single_point(r1x, r1y, r2x, r2y, nx, ny, px, py, radius_ref, radius_inc, feature, margin,
                  flip, normal, points, depths, features):
    """One contact point: the incident point p at separation n·(p − r1) from the reference
    edge r1→r2 (outward normal n), kept when p lies over the edge (between its end planes)
    and within the margin. The normal written is n, or −n when ``flip`` (the reference is
    shape B). Returns the point count."""
    tx, ty = r2x - r1x, r2y - r1y
    along = tx * (px - r1x) + ty * (py - r1y)
    if along < 0.0 or along > tx * tx + ty * ty:
        return 0
    separation = nx * (px - r1x) + ny * (py - r1y)
    if separation - radius_ref - radius_inc > margin:
        return 0
    write_round_point(px, py, nx, ny, separation, radius_ref, radius_inc, feature, 0, points,
                      depths, features)
    normal[0], normal[1] = (-nx, -ny) if flip else (nx, ny)
    return 1


@njit(refcounted=False)
def _polygon_face_contact(vertices_b, normals_b, radius_b, face, p1x, p1y, p2x, p2y, margin,
                          normal, points, depths, features):
    """The polygon's edge ``face`` as reference, the chain segment p1→p2 as incident edge
    (it runs against the face): clip, keep points within the margin. Normal −m (from the
    chain to the polygon); features pair each segment end with the face vertex beside it."""
    count = vertices_b.shape[0]
    next_vertex = face + 1 if face + 1 < count else 0
    mx, my = normals_b[face, 0], normals_b[face, 1]
    v1x, v1y = vertices_b[face, 0], vertices_b[face, 1]
    ok, lower_x, lower_y, upper_x, upper_y = clip_incident_edge(
        v1x, v1y, vertices_b[next_vertex, 0], vertices_b[next_vertex, 1], p1x, p1y, p2x, p2y)
    if not ok:
        # The segment misses the strip over the face, or stands square on it: its deeper
        # end alone, if it lies over the face.
        end = 0
        if mx * (p2x - p1x) + my * (p2y - p1y) < 0.0:
            end = 1
        ex, ey = (p1x, p1y) if end == 0 else (p2x, p2y)
        return _single_point(v1x, v1y, vertices_b[next_vertex, 0], vertices_b[next_vertex, 1],
                             mx, my, ex, ey, radius_b, 0.0,
                             make_feature_unchecked(2 * end, 2 * face + 1), margin, True,
                             normal, points, depths, features)
    kept = 0
    for k in range(2):
        px, py = (lower_x, lower_y) if k == 0 else (upper_x, upper_y)
        s = mx * (px - v1x) + my * (py - v1y)
        if s - radius_b > margin:
            continue
        # The lower point came from p2, next to the face's first vertex; the upper from p1.
        feature = (make_feature_unchecked(2, 2 * face) if k == 0
                   else make_feature_unchecked(0, 2 * next_vertex))
        write_round_point(px, py, mx, my, s, radius_b, 0.0, feature, kept, points, depths,
                          features)
        kept += 1
    normal[0], normal[1] = -mx, -my
    return kept


@njit(refcounted=False)
def _neighbour_is_incident(mx, my, p1x, p1y, p2x, p2y, v1x, v1y, n1x, n1y, n0x, n0y, n2x,
                           n2y):
    """For the polygon face with normal m through v1 as reference: whether the chain's face
    most opposed to m at the segment's end deeper along m is a neighbour's (n0 at p1, n2 at
    p2, snapped to n1 at a flat or concave vertex), so the neighbour makes the contact."""
    if mx * (p1x - v1x) + my * (p1y - v1y) < mx * (p2x - v1x) + my * (p2y - v1y):
        return n0x * mx + n0y * my < n1x * mx + n1y * my
    return n2x * mx + n2y * my < n1x * mx + n1y * my


@njit(refcounted=False)
def _cores_overlap(vertices_a, n1x, n1y, vertices_b, normals_b):
    """Whether the segment (rows 0, 1 of ``vertices_a``, normal n1) and the polygon or
    two-point core B overlap or touch. For a polygon, the separating axis test over B's
    normals and ±n1 (the only directions of their Minkowski difference's edges); two
    segments are measured directly (parallel ones have no third axis)."""
    p1x, p1y = vertices_a[0, 0], vertices_a[0, 1]
    p2x, p2y = vertices_a[1, 0], vertices_a[1, 1]
    count = vertices_b.shape[0]
    if count == 2:
        return segment_closest(p1x, p1y, p2x, p2y, vertices_b[0, 0], vertices_b[0, 1],
                               vertices_b[1, 0], vertices_b[1, 1])[0] == 0.0
    for i in range(count):
        mx, my = normals_b[i, 0], normals_b[i, 1]
        vx, vy = vertices_b[i, 0], vertices_b[i, 1]
        if min(mx * (p1x - vx) + my * (p1y - vy), mx * (p2x - vx) + my * (p2y - vy)) > 0.0:
            return False
    front = math.inf
    back = math.inf
    for i in range(count):
        s = n1x * (vertices_b[i, 0] - p1x) + n1y * (vertices_b[i, 1] - p1y)
        front = min(front, s)
        back = min(back, -s)
    return front <= 0.0 and back <= 0.0


@njit(refcounted=False)
def chain_polygon_contact(vertices_a, normals_a, vertices_b, normals_b, radius_b, margin,
                          normal, points, depths, features):
    """A chain segment (A: rows ``[p1, p2, g1, g2]``, normals ``[n1, −n1, n0, n2]``) and a
    polygon, capsule or segment core (B, radius r_B), in A's frame.

    1. One-sided: no contact when B's centroid is behind the segment's line and behind the
       planes of its convex neighbours.
    2. The cores' closest features (exact); beyond r_B + margin → no contact.
    3. Cores apart (d > ROUND_CORE_GAP): two vertices → the normal between them,
       classified (skip: none; admit: one point; snap: the segment's face); a segment end
       and a polygon face → that face's normal, classified (admit: the polygon face clips
       the segment, unless a neighbour's face is the incident one); the segment's inside and
       a polygon vertex → the segment's face. Apart cores whose closest features hold an
       end of the segment take this branch even when B's centroid is behind the line (B
       beside a sharp convex corner): the classification then decides, where the separating
       axis test of step 4 would measure a gap as an overlap. A polygon face within
       FACE_SWITCH_TOLERANCE of lying flat on the segment gives way to the segment's face,
       so a body resting on a chain keeps one form and its feature ids.
    4. Cores touching or overlapping (d ≤ ROUND_CORE_GAP), or B's centroid behind the line
       and nearest to the segment's inside: the separating axis test over the segment's
       face (and
       its convex neighbours', which own their axes) and the polygon faces whose normals the
       Gauss map admits; a polygon face must beat the segment's by FACE_SWITCH_TOLERANCE of
       the polygon's size.
    5. The segment's face as reference: the polygon edge at the incident vertex most
       opposed to n1 is clipped to the segment's end planes.
    """
    p1x, p1y = vertices_a[0, 0], vertices_a[0, 1]
    p2x, p2y = vertices_a[1, 0], vertices_a[1, 1]
    n1x, n1y = normals_a[0, 0], normals_a[0, 1]
    n0x, n0y = normals_a[2, 0], normals_a[2, 1]
    n2x, n2y = normals_a[3, 0], normals_a[3, 1]
    # Unit edge directions are the normals turned left: e = lperp(n).
    e1x, e1y = -n1y, n1x
    convex1 = turns_left(n0x, n0y, n1x, n1y)
    convex2 = turns_left(n1x, n1y, n2x, n2y)
    count = vertices_b.shape[0]

    cx, cy = _centroid(vertices_b)
    behind1 = n1x * (cx - p1x) + n1y * (cy - p1y) < 0.0
    behind0 = True
    behind2 = True
    if convex1:
        behind0 = n0x * (cx - p1x) + n0y * (cy - p1y) < 0.0
    if convex2:
        behind2 = n2x * (cx - p2x) + n2y * (cy - p2y) < 0.0
    if behind1 and behind0 and behind2:
        return 0

    if _cores_overlap(vertices_a, n1x, n1y, vertices_b, normals_b):
        distance, kind, index_a, index_b = 0.0, VERTEX_VERTEX, 0, 0
    else:
        distance, kind, index_a, index_b, _ = core_closest(vertices_a, SEGMENT_POINTS,
                                                           vertices_b, count)
    if distance > radius_b + margin:
        return 0
    # A flat or concave neighbour's face is this segment's own for the incidence checks.
    s0x, s0y = (n0x, n0y) if convex1 else (n1x, n1y)
    s2x, s2y = (n2x, n2y) if convex2 else (n1x, n1y)

    incident_vertex = -1
    incident_edge = -1
    if distance > ROUND_CORE_GAP and not (behind1 and kind == EDGE_VERTEX):
        if kind == VERTEX_VERTEX:
            ax, ay = vertices_a[index_a, 0], vertices_a[index_a, 1]
            bx, by = vertices_b[index_b, 0], vertices_b[index_b, 1]
            nx, ny = (bx - ax) / distance, (by - ay) / distance
            kind_of_normal = classify_normal(nx, ny, e1x, e1y, n0x, n0y, n2x, n2y, convex1,
                                             convex2)
            if kind_of_normal == SKIP:
                return 0
            if kind_of_normal == ADMIT:
                normal[0], normal[1] = nx, ny
                points[0, 0] = 0.5 * (ax + (bx - radius_b * nx))
                points[0, 1] = 0.5 * (ay + (by - radius_b * ny))
                depths[0] = radius_b - distance
                features[0] = make_feature_unchecked(2 * index_a, 2 * index_b)
                return 1
            incident_vertex = index_b
        elif kind == VERTEX_EDGE:
            mx, my = normals_b[index_b, 0], normals_b[index_b, 1]
            if -(mx * n1x + my * n1y) >= 1.0 - FACE_SWITCH_TOLERANCE:
                incident_edge = index_b  # lying flat on the segment: the segment's face
            else:
                kind_of_normal = classify_normal(-mx, -my, e1x, e1y, n0x, n0y, n2x, n2y,
                                                 convex1, convex2)
                if kind_of_normal == SKIP:
                    return 0
                if kind_of_normal == ADMIT:
                    if _neighbour_is_incident(mx, my, p1x, p1y, p2x, p2y,
                                              vertices_b[index_b, 0], vertices_b[index_b, 1],
                                              n1x, n1y, s0x, s0y, s2x, s2y):
                        return 0
                    return _polygon_face_contact(vertices_b, normals_b, radius_b, index_b,
                                                 p1x, p1y, p2x, p2y, margin, normal, points,
                                                 depths, features)
                incident_edge = index_b
        else:  # EDGE_VERTEX: the segment's inside and a polygon vertex
            incident_vertex = index_b
    else:
        # The separating axis test with the chain's smooth normals.
        edge_separation = math.inf
        for i in range(count):
            s = n1x * (vertices_b[i, 0] - p1x) + n1y * (vertices_b[i, 1] - p1y)
            if s < edge_separation:
                edge_separation = s
                incident_vertex = i
        neighbour_owns = False
        if convex1:
            s0 = math.inf
            for i in range(count):
                s0 = min(s0, n0x * (vertices_b[i, 0] - p1x) + n0y * (vertices_b[i, 1] - p1y))
            if s0 > edge_separation:
                edge_separation = s0
                neighbour_owns = True
        if convex2:
            s2 = math.inf
            for i in range(count):
                s2 = min(s2, n2x * (vertices_b[i, 0] - p2x) + n2y * (vertices_b[i, 1] - p2y))
            if s2 > edge_separation:
                edge_separation = s2
                neighbour_owns = True
        polygon_separation = -math.inf
        reference = NO_FACE
        for i in range(count):
            mx, my = normals_b[i, 0], normals_b[i, 1]
            if classify_normal(-mx, -my, e1x, e1y, n0x, n0y, n2x, n2y, convex1,
                               convex2) != ADMIT:
                continue
            vx, vy = vertices_b[i, 0], vertices_b[i, 1]
            s = min(mx * (p1x - vx) + my * (p1y - vy), mx * (p2x - vx) + my * (p2y - vy))
            if s > polygon_separation:
                polygon_separation = s
                reference = i
        if reference >= 0 and polygon_separation > (
                edge_separation + FACE_SWITCH_TOLERANCE * polygon_size(vertices_b)):
            mx, my = normals_b[reference, 0], normals_b[reference, 1]
            if _neighbour_is_incident(mx, my, p1x, p1y, p2x, p2y, vertices_b[reference, 0],
                                      vertices_b[reference, 1], n1x, n1y, s0x, s0y, s2x, s2y):
                return 0
            return _polygon_face_contact(vertices_b, normals_b, radius_b, reference, p1x, p1y,
                                         p2x, p2y, margin, normal, points, depths, features)
        if neighbour_owns:
            return 0

    # The segment's face as reference.
    if incident_edge >= 0:
        ib1 = incident_edge
    else:
        i2 = incident_vertex
        i1 = i2 - 1 if i2 > 0 else count - 1
        if n1x * normals_b[i1, 0] + n1y * normals_b[i1, 1] < (
                n1x * normals_b[i2, 0] + n1y * normals_b[i2, 1]):
            ib1 = i1
        else:
            ib1 = i2
    ib2 = ib1 + 1 if ib1 + 1 < count else 0
    ok, lower_x, lower_y, upper_x, upper_y = clip_incident_edge(
        p1x, p1y, p2x, p2y, vertices_b[ib1, 0], vertices_b[ib1, 1], vertices_b[ib2, 0],
        vertices_b[ib2, 1])
    if not ok:
        # The incident edge misses the strip over the segment, or stands square on the
        # face (no extent along it): its deeper end alone, if it lies over the segment.
        deeper = ib1
        if n1x * (vertices_b[ib2, 0] - vertices_b[ib1, 0]) + n1y * (
                vertices_b[ib2, 1] - vertices_b[ib1, 1]) < 0.0:
            deeper = ib2
        return _single_point(p1x, p1y, p2x, p2y, n1x, n1y, vertices_b[deeper, 0],
                             vertices_b[deeper, 1], 0.0, radius_b,
                             make_feature_unchecked(1, 2 * deeper), margin, False, normal,
                             points, depths, features)
    kept = 0
    for k in range(2):
        px, py = (lower_x, lower_y) if k == 0 else (upper_x, upper_y)
        s = n1x * (px - p1x) + n1y * (py - p1y)
        if s - radius_b > margin:
            continue
        # The lower point (next to p1) came from the incident edge's end vertex ib2.
        feature = (make_feature_unchecked(0, 2 * ib2) if k == 0
                   else make_feature_unchecked(2, 2 * ib1))
        write_round_point(px, py, n1x, n1y, s, 0.0, radius_b, feature, kept, points, depths,
                          features)
        kept += 1
    normal[0], normal[1] = n1x, n1y
    return kept
