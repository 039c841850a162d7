"""Chapter 15: contact manifolds of shapes with a radius — capsules, segments, rounded polygons.

A round shape is a core grown by a radius, so its manifold comes from its core: find how
the cores touch (their closest features, or their least overlap), then move each contact
point out by the radii. For a point found on the incident core at signed separation s along
the reference normal n (from the reference core towards the incident one), with reference
and incident radii r_ref and r_inc, the surfaces are at s = r_ref and s = s − r_inc, so

    point = p_inc + ½ (r_ref − r_inc − s) · n,        depth = r_ref + r_inc − s,

midway between the two surfaces. With both radii 0 it is chapter 7's midpoint p − s·n/2.

The routines here work in the first shape's frame on plain numbers and arrays, and write a
manifold (normal, points, depths, features) as the routines of
:mod:`~physbook.collision.manifold` do. A capsule or segment is its two core points with
side normals ``[n, −n]``; feature numbers follow the polygon rule: end 1 → 0, end 2 → 2,
the side with normal +n → 1, the side with −n → 3. They check nothing.
"""

from __future__ import annotations

import math

from physbook._jit import njit
from physbook.collision.core_distance import VERTEX_VERTEX, core_closest, segment_closest
from physbook.collision.features import make_feature_unchecked
from physbook.constants import COINCIDENT_FRACTION, FACE_SWITCH_TOLERANCE, VERTEX_SWITCH


@njit(refcounted=False)
def write_round_point(px, py, nx, ny, separation, radius_ref, radius_inc, feature, slot,
                      points, depths, features):
    """Store the contact point of an incident core point p at separation s along n from
    the reference core: midway between the surfaces, p + ½(r_ref − r_inc − s)·n, with depth
    r_ref + r_inc − s."""
    shift = 0.5 * (radius_ref - radius_inc - separation)
    points[slot, 0] = px + shift * nx
    points[slot, 1] = py + shift * ny
    depths[slot] = radius_ref + radius_inc - separation
    features[slot] = feature


@njit(refcounted=False)
def capsule_circle_contact(p1x, p1y, p2x, p2y, side_x, side_y, radius_a, cx, cy, radius_b,
                           margin, normal, points, depths, features):
    """A capsule or segment (A: core p1→p2, side normal (side_x, side_y), radius r_A) and
    a circle (B: centre c, radius r_B), in A's frame.

    The closest core point a is p1 when e·(c − p1) ≤ 0 (e = p2 − p1), p2 when
    e·(p2 − c) ≤ 0, else p1 + t·e with t = e·(c − p1)/e·e: decided by the two signed
    projections, without division. Then d = |c − a|, n = (c − a)/d and depth = r_A + r_B − d;
    a centre on the core (d ≤ COINCIDENT_FRACTION·(r_A + r_B)) takes the side normal, not
    an arbitrary fixed one. Features: the end (0, 2) or the side (1, 3) on A, 0 on B.
    """
    ex, ey = p2x - p1x, p2y - p1y
    s1 = ex * (cx - p1x) + ey * (cy - p1y)
    s2 = ex * (p2x - cx) + ey * (p2y - cy)
    if s1 <= 0.0:
        ax, ay, feature_a = p1x, p1y, 0
    elif s2 <= 0.0:
        ax, ay, feature_a = p2x, p2y, 2
    else:
        t = s1 / (ex * ex + ey * ey)
        ax, ay, feature_a = p1x + t * ex, p1y + t * ey, 1
    dx, dy = cx - ax, cy - ay
    distance = math.sqrt(dx * dx + dy * dy)
    reach = radius_a + radius_b
    if distance > reach + margin:
        return 0
    if distance <= COINCIDENT_FRACTION * reach:
        nx, ny = side_x, side_y
    else:
        nx, ny = dx / distance, dy / distance
    if feature_a == 1 and nx * side_x + ny * side_y < 0.0:
        feature_a = 3
    normal[0], normal[1] = nx, ny
    points[0, 0] = 0.5 * ((ax + radius_a * nx) + (cx - radius_b * nx))
    points[0, 1] = 0.5 * ((ay + radius_a * ny) + (cy - radius_b * ny))
    depths[0] = reach - distance
    features[0] = make_feature_unchecked(feature_a, 0)
    return 1


@njit(refcounted=False)
def _facing_separation(nx, ny, ox, oy, p1x, p1y, p2x, p2y):
    """The separation of the segment p1p2 from the line through o with normal ±n, on the
    side that separates best: (separation, sign of the normal taken)."""
    s1 = nx * (p1x - ox) + ny * (p1y - oy)
    s2 = nx * (p2x - ox) + ny * (p2y - oy)
    positive = min(s1, s2)
    negative = min(-s1, -s2)
    if positive >= negative:
        return positive, 1.0
    return negative, -1.0


@njit(refcounted=False)
def _clip_to_ends(ox, oy, ux, uy, length, ax, ay, bx, by):
    """Clip the segment a→b to the strip 0 ≤ u·(p − o) ≤ length: (ok, a', b'), each end moved
    in along the segment to the plane it is outside of; ok False when it misses the strip."""
    fa = ux * (ax - ox) + uy * (ay - oy)
    fb = ux * (bx - ox) + uy * (by - oy)
    if (fa <= 0.0 and fb <= 0.0) or (fa >= length and fb >= length):
        return False, ax, ay, bx, by
    cax, cay, cbx, cby = ax, ay, bx, by
    if fa < 0.0:
        lam = -fa / (fb - fa)
        cax, cay = ax + lam * (bx - ax), ay + lam * (by - ay)
    elif fa > length:
        lam = (fa - length) / (fa - fb)
        cax, cay = ax + lam * (bx - ax), ay + lam * (by - ay)
    if fb < 0.0:
        lam = -fb / (fa - fb)
        cbx, cby = bx + lam * (ax - bx), by + lam * (ay - by)
    elif fb > length:
        lam = (fb - length) / (fb - fa)
        cbx, cby = bx + lam * (ax - bx), by + lam * (ay - by)
    return True, cax, cay, cbx, cby


@njit(refcounted=False)
def capsule_contact(vertices_a, normals_a, radius_a, vertices_b, normals_b, radius_b, margin,
                    normal, points, depths, features):
    """Two capsules or segments (cores of two points, side normals ``[n, −n]``), one frame.

    1. The closest points of the cores (:func:`~physbook.collision.core_distance.segment_closest`)
       give the distance δ; δ > r_A + r_B + margin → no contact.
    2. Two points, when each core projects onto the other: the side of each core facing
       the other separates the other's ends by s_A and s_B; the reference is A unless s_B
       exceeds s_A by FACE_SWITCH_TOLERANCE of the shorter length; the incident core is
       clipped to the reference core's end planes. The pair is kept when its shallower
       bound is right: the least clipped separation is within VERTEX_SWITCH of δ (cores
       apart) or of the reference separation (cores crossing). This is exact when an end of
       the incident core is nearest to the inside of the reference core (a capsule lying on
       another), and otherwise lets a resting pair keep its two points while it tilts.
    3. Otherwise one point on the line between the closest core points (exact); the side
       normal of A when they coincide. Crossing cores with no two points: the incident
       core's deepest end, at the reference separation.
    Features: the reference side (1 or 3) with each incident end (0 or 2) it came from; for
    one point, each core's end when the closest point is an end, else its side.
    """
    p1x, p1y, q1x, q1y = vertices_a[0, 0], vertices_a[0, 1], vertices_a[1, 0], vertices_a[1, 1]
    p2x, p2y, q2x, q2y = vertices_b[0, 0], vertices_b[0, 1], vertices_b[1, 0], vertices_b[1, 1]
    reach = radius_a + radius_b
    distance, f1, f2 = segment_closest(p1x, p1y, q1x, q1y, p2x, p2y, q2x, q2y)
    if distance > reach + margin:
        return 0
    length_a = math.hypot(q1x - p1x, q1y - p1y)
    length_b = math.hypot(q2x - p2x, q2y - p2y)
    ua_x, ua_y = (q1x - p1x) / length_a, (q1y - p1y) / length_a
    ub_x, ub_y = (q2x - p2x) / length_b, (q2y - p2y) / length_b
    na_x, na_y = normals_a[0, 0], normals_a[0, 1]
    nb_x, nb_y = normals_b[0, 0], normals_b[0, 1]
    separation_a, sign_a = _facing_separation(na_x, na_y, p1x, p1y, p2x, p2y, q2x, q2y)
    separation_b, sign_b = _facing_separation(nb_x, nb_y, p2x, p2y, p1x, p1y, q1x, q1y)
    flip = separation_b > separation_a + FACE_SWITCH_TOLERANCE * min(length_a, length_b)
    if flip:
        ox, oy, ux, uy, length = p2x, p2y, ub_x, ub_y, length_b
        nx, ny = sign_b * nb_x, sign_b * nb_y
        ix1, iy1, ix2, iy2 = p1x, p1y, q1x, q1y
        reference_separation = separation_b
        radius_ref, radius_inc = radius_b, radius_a
        side = 1 if sign_b > 0.0 else 3
    else:
        ox, oy, ux, uy, length = p1x, p1y, ua_x, ua_y, length_a
        nx, ny = sign_a * na_x, sign_a * na_y
        ix1, iy1, ix2, iy2 = p2x, p2y, q2x, q2y
        reference_separation = separation_a
        radius_ref, radius_inc = radius_a, radius_b
        side = 1 if sign_a > 0.0 else 3
    target = distance if distance > 0.0 else reference_separation
    ok, c1x, c1y, c2x, c2y = _clip_to_ends(ox, oy, ux, uy, length, ix1, iy1, ix2, iy2)
    if ok:
        s1 = nx * (c1x - ox) + ny * (c1y - oy)
        s2 = nx * (c2x - ox) + ny * (c2y - oy)
        if min(s1, s2) <= target + VERTEX_SWITCH:
            count = 0
            for end in range(2):
                cx, cy, s = (c1x, c1y, s1) if end == 0 else (c2x, c2y, s2)
                if s - reach > margin:
                    continue
                feature = (make_feature_unchecked(2 * end, side) if flip
                           else make_feature_unchecked(side, 2 * end))
                write_round_point(cx, cy, nx, ny, s, radius_ref, radius_inc, feature, count,
                                  points, depths, features)
                count += 1
            if count > 0:
                normal[0], normal[1] = (-nx, -ny) if flip else (nx, ny)
                return count
    if distance == 0.0:
        # Crossing cores: the incident core's deepest end along the reference normal.
        s1 = nx * (ix1 - ox) + ny * (iy1 - oy)
        s2 = nx * (ix2 - ox) + ny * (iy2 - oy)
        end = 0 if s1 <= s2 else 1
        cx, cy, s = (ix1, iy1, s1) if end == 0 else (ix2, iy2, s2)
        feature = (make_feature_unchecked(2 * end, side) if flip
                   else make_feature_unchecked(side, 2 * end))
        write_round_point(cx, cy, nx, ny, s, radius_ref, radius_inc, feature, 0, points,
                          depths, features)
        normal[0], normal[1] = (-nx, -ny) if flip else (nx, ny)
        return 1
    # One point between the closest core points.
    x1x, x1y = p1x + f1 * (q1x - p1x), p1y + f1 * (q1y - p1y)
    x2x, x2y = p2x + f2 * (q2x - p2x), p2y + f2 * (q2y - p2y)
    if distance <= COINCIDENT_FRACTION * reach:
        mx, my = na_x, na_y
    else:
        mx, my = (x2x - x1x) / distance, (x2y - x1y) / distance
    feature_a = 0 if f1 == 0.0 else (2 if f1 == 1.0 else (1 if mx * na_x + my * na_y >= 0.0
                                                          else 3))
    feature_b = 0 if f2 == 0.0 else (2 if f2 == 1.0 else (1 if mx * nb_x + my * nb_y <= 0.0
                                                          else 3))
    normal[0], normal[1] = mx, my
    points[0, 0] = 0.5 * ((x1x + radius_a * mx) + (x2x - radius_b * mx))
    points[0, 1] = 0.5 * ((x1y + radius_a * my) + (x2y - radius_b * my))
    depths[0] = reach - distance
    features[0] = make_feature_unchecked(feature_a, feature_b)
    return 1


@njit(refcounted=False)
def rounded_vertex_contact(vertices_a, vertices_b, radius_a, radius_b, margin, count,
                           normal, points, depths, features):
    """The rounding step of polygon–polygon contact (radii r_A + r_B > 0, cores apart):
    replace the clipped manifold of ``count`` points by one point between two core
    vertices when those are the cores' closest features, unless their distance d exceeds
    the clipped points' least separation s by at most VERTEX_SWITCH (0 ≤ d − s ≤ VERTEX_SWITCH:
    a band that keeps a resting pair's two points while a corner nears a corner). Otherwise
    the clipped points measure along a face normal a gap that is really corner to corner.
    Returns the new point count: 0 when the vertices are beyond reach, else 1, or
    ``count`` unchanged.

    The manifold is read in the frame of the cores, with normal from A to B and depths
    r_A + r_B − separation.
    """
    distance, kind, index_a, index_b, _ = core_closest(
        vertices_a, vertices_a.shape[0], vertices_b, vertices_b.shape[0])
    reach = radius_a + radius_b
    if kind != VERTEX_VERTEX:
        return count
    if distance - reach > margin:
        return 0
    least = math.inf
    for k in range(count):
        least = min(least, reach - depths[k])
    if least <= distance <= least + VERTEX_SWITCH:
        return count
    vx, vy = vertices_a[index_a, 0], vertices_a[index_a, 1]
    wx, wy = vertices_b[index_b, 0], vertices_b[index_b, 1]
    nx, ny = (wx - vx) / distance, (wy - vy) / distance
    normal[0], normal[1] = nx, ny
    points[0, 0] = 0.5 * ((vx + radius_a * nx) + (wx - radius_b * nx))
    points[0, 1] = 0.5 * ((vy + radius_a * ny) + (wy - radius_b * ny))
    depths[0] = reach - distance
    features[0] = make_feature_unchecked(2 * index_a, 2 * index_b)
    return 1
