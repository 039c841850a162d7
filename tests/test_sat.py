"""Polygon against polygon: the separating axis theorem and contact points by clipping.

Oracles: shapely (intersects, exact distances), worked examples whose depth is derived in
closed form, and brute-force support functions of the Minkowski difference.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from geometry import random_polygon, random_pose, world_polygon
from shapely.geometry import Point

import physbook as pb
from physbook.collision.features import feature_parts, swap_feature
from physbook.collision.sat import clip_incident_edge, max_separation, sat_axes, sat_query
from physbook.constants import FACE_SWITCH_TOLERANCE
from physbook.geometry.shape_table import ShapeTable
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.vec import Transform

IDENTITY = Transform()








def face_separations(vertices_1, normals_1, vertices_2) -> np.ndarray:
    """s_i = min_j n_i·(w_j − v_i) for every edge i of polygon 1, by brute force."""
    return np.min(np.einsum("ik,ijk->ij", normals_1,
                            vertices_2[None, :, :] - vertices_1[:, None, :]), axis=1)


def separations(a, xf_a, b, xf_b):
    """Best face separation of each polygon against the other, the switch tolerance, and
    the gap between the best and the second-best face of one polygon (a near tie there
    lets rounding pick either face)."""
    va, na = xf_a.to_world(a.vertices), xf_a.rotate_to_world(a.normals)
    vb, nb = xf_b.to_world(b.vertices), xf_b.rotate_to_world(b.normals)
    size = min(np.hypot(*(v - v[0]).T).max() for v in (va, vb))
    sep_a, sep_b = face_separations(va, na, vb), face_separations(vb, nb, va)
    assert math.isclose(sep_a.max(), max_separation(va, na, vb)[0], abs_tol=1e-12)
    runner_up = min(np.diff(np.sort(s)[-2:])[0] for s in (sep_a, sep_b))
    return sep_a.max(), sep_b.max(), FACE_SWITCH_TOLERANCE * size, runner_up


def brute_force_depth(a, xf_a, b, xf_b) -> float:
    """Penetration depth as the least support of A ⊖ B over all edge normals of both."""
    va, vb = xf_a.to_world(a.vertices), xf_b.to_world(b.vertices)
    normals = np.vstack([xf_a.rotate_to_world(a.normals), -xf_b.rotate_to_world(b.normals)])
    # h_{A⊖B}(n) = max_a n·a − min_b n·b
    return float(np.min((va @ normals.T).max(axis=0) - (vb @ normals.T).min(axis=0)))


def test_random_polygon_pairs_against_shapely():
    rng = np.random.default_rng(2024)
    overlapping = 0
    near_ties = 0
    for _ in range(2500):
        a, b = random_polygon(rng), random_polygon(rng)
        xf_a, xf_b = random_pose(rng), random_pose(rng)
        region_a, region_b = world_polygon(a, xf_a), world_polygon(b, xf_b)
        m = pb.collide(a, xf_a, b, xf_b)
        gap = region_a.distance(region_b)
        if gap > 1e-9 or not region_a.intersects(region_b):
            assert m is None or gap <= 1e-9
            continue
        overlap_area = region_a.intersection(region_b).area
        if overlap_area < 1e-12:
            continue  # the touching band
        assert m is not None
        overlapping += 1
        assert len(m.depths) in (1, 2)
        assert math.isclose(float(np.hypot(*m.normal)), 1.0, abs_tol=1e-12)
        assert np.all(m.depths >= 0.0)
        # The deepest point is as deep as the least penetration, up to the face-switch
        # tolerance that may keep the reference face on A.
        depth = brute_force_depth(a, xf_a, b, xf_b)
        sep_a, sep_b, tolerance, runner_up = separations(a, xf_a, b, xf_b)
        assert depth - 1e-12 <= m.depth <= depth + tolerance + 1e-12
        # The normal points from A to B: B moved by depth·n (and a hair) is clear of A.
        moved = shapely.affinity.translate(region_b, *((m.depth + 1e-9) * m.normal))
        assert not moved.intersects(region_a)
        # Each point lies midway between the surfaces: within depth/2 of both shapes.
        for point, point_depth in zip(m.points, m.depths, strict=True):
            assert region_a.distance(Point(point)) <= point_depth / 2 + 1e-9
            assert region_b.distance(Point(point)) <= point_depth / 2 + 1e-9
        # Swapping A and B gives the exact mirror image, even where the two best axes are
        # within the switch tolerance and the reference face could go either way.
        swapped = pb.collide(b, xf_b, a, xf_a)
        np.testing.assert_array_equal(swapped.normal, -m.normal)
        np.testing.assert_array_equal(swapped.points, m.points)
        np.testing.assert_array_equal(swapped.depths, m.depths)
        assert [swap_feature(f) for f in swapped.features] == m.features.tolist()
        near_ties += abs(sep_a - sep_b) <= tolerance or runner_up <= 1e-9
    assert overlapping > 800 and near_ties > 0


def test_sat_query_depth_is_the_least_penetration():
    rng = np.random.default_rng(3)
    for _ in range(300):
        a, b = random_polygon(rng), random_polygon(rng)
        xf_a, xf_b = random_pose(rng, 0.5), random_pose(rng, 0.5)
        result = sat_query(a, xf_a, b, xf_b)
        region_a, region_b = world_polygon(a, xf_a), world_polygon(b, xf_b)
        if result.depth > 0.0:
            assert math.isclose(result.depth, brute_force_depth(a, xf_a, b, xf_b),
                                abs_tol=1e-12)
            moved = shapely.affinity.translate(region_b, *((result.depth + 1e-9)
                                                           * result.normal))
            assert not moved.intersects(region_a)
        else:
            # Apart: the best axis gap is a lower bound on the true distance.
            assert -result.depth <= region_a.distance(region_b) + 1e-12


def test_sat_axes_lists_every_edge_normal_with_both_intervals():
    a, b = Polygon.box(1.0, 0.5), Polygon.regular(3, 1.0)
    xf_b = Transform((1.5, 0.2), 0.3)
    table = sat_axes(a, IDENTITY, b, xf_b)
    assert len(table.axes) == 4 + 3
    np.testing.assert_array_equal(table.owners, [0] * 4 + [1] * 3)
    for axis, low_high_a, low_high_b in zip(table.axes, table.intervals_a,
                                            table.intervals_b, strict=True):
        pa = a.vertices @ axis
        pb_ = xf_b.to_world(b.vertices) @ axis
        np.testing.assert_allclose(low_high_a, [pa.min(), pa.max()], atol=1e-12)
        np.testing.assert_allclose(low_high_b, [pb_.min(), pb_.max()], atol=1e-12)
    # A circle adds one axis: from its centre to the polygon's nearest vertex.
    circle_table = sat_axes(Circle(0.5), Transform((1.6, 0.9)), a, IDENTITY)
    assert len(circle_table.axes) == 1 + 4
    np.testing.assert_allclose(circle_table.axes[0], [-0.6, -0.4] / np.hypot(0.6, 0.4))
    assert circle_table.owners[0] == 2


def test_sat_query_rejects_other_shapes():
    with pytest.raises(TypeError, match="shape_a must be a Circle or a Polygon"):
        sat_axes("box", IDENTITY, Polygon.box(1, 1), IDENTITY)
    with pytest.raises(TypeError, match="xf_b must be a Transform"):
        sat_query(Polygon.box(1, 1), IDENTITY, Polygon.box(1, 1), None)


# ---------------------------------------------------------------------------------------
# Worked examples


def test_pentagon_and_hexagon_at_one_centre():
    """Regular pentagon of circumradius 1 and hexagon of circumradius 0.5, same centre.

    The least support of A ⊖ B is along a pentagon normal, at 36° from a vertex: the
    pentagon's apothem cos 36° plus the hexagon's reach in the opposite direction, which
    lies 24° from its nearest vertex: 0.5·cos 24°. Depth = cos(π/5) + cos(2π/15)/2.
    """
    expected = math.cos(math.pi / 5) + 0.5 * math.cos(2 * math.pi / 15)
    assert math.isclose(expected, 1.2657897, abs_tol=1e-7)
    pentagon, hexagon = Polygon.regular(5, 1.0), Polygon.regular(6, 0.5)
    m = pb.collide(pentagon, IDENTITY, hexagon, IDENTITY)
    assert math.isclose(m.depth, expected, rel_tol=1e-14)
    assert math.isclose(sat_query(pentagon, IDENTITY, hexagon, IDENTITY).depth,
                        expected, rel_tol=1e-14)
    assert math.isclose(pb.penetration(pentagon, IDENTITY, hexagon, IDENTITY).depth,
                        expected, rel_tol=1e-14)
    # The normal is a pentagon edge normal (one of those at 36° + k·72°).
    angle = math.degrees(math.atan2(m.normal[1], m.normal[0])) % 360.0
    assert min(abs(angle - (36 + 72 * k)) for k in range(5)) < 1e-9


def test_two_boxes_clipped_to_two_points():
    """Box A spans (8, 4)–(14, 9), box B (4, 2)–(12, 5): B's top face pokes 1 m into A's
    bottom. Reference face A's bottom (normal (0, −1)), incident face B's top, clipped to
    x in [8, 12]; the points sit midway, at y = 4.5."""
    a = Polygon([(8, 4), (14, 4), (14, 9), (8, 9)])
    b = Polygon([(4, 2), (12, 2), (12, 5), (4, 5)])
    m = pb.collide(a, IDENTITY, b, IDENTITY)
    np.testing.assert_array_equal(m.normal, [0.0, -1.0])
    np.testing.assert_array_equal(m.depths, [1.0, 1.0])
    np.testing.assert_array_equal(m.points, [[8.0, 4.5], [12.0, 4.5]])
    # Reference edge 0 of A runs from vertex 0 (8, 4) to 1 (14, 4); the incident edge of B
    # is its top, edge 2, from vertex 2 (12, 5) to 3 (4, 5).
    assert [feature_parts(f) for f in m.features] == [(0, 6), (2, 4)]


def test_clipping_step_by_step():
    # Reference edge (0, 0)→(2, 0), incident edge (3, −1)→(−1, −0.5): both ends stick out
    # of the strip 0 ≤ x ≤ 2 and are moved in along the edge.
    ok, lx, ly, ux, uy = clip_incident_edge(0.0, 0.0, 2.0, 0.0, 3.0, -1.0, -1.0, -0.5)
    assert ok
    np.testing.assert_allclose([lx, ly], [0.0, -0.625])
    np.testing.assert_allclose([ux, uy], [2.0, -0.875])
    ok, *_ = clip_incident_edge(0.0, 0.0, 2.0, 0.0, -1.0, -1.0, -3.0, -0.5)
    assert not ok  # the edge misses the strip


# ---------------------------------------------------------------------------------------
# Degenerate cases: never NaN, always sensible


def test_polygon_entirely_inside_another():
    big, small = Polygon.box(5.0, 5.0), Polygon.box(0.5, 0.5)
    m = pb.collide(big, IDENTITY, small, Transform((1.0, 0.2)))
    np.testing.assert_array_equal(m.normal, [1.0, 0.0])  # out through the nearest face
    # Out through the right face: 5 − (1 − 0.5) = 4.5; the other faces need 5.3 to 6.5.
    np.testing.assert_allclose(m.depths, [4.5, 4.5])
    assert np.all(np.isfinite(m.points))


def test_exactly_touching_boxes_report_zero_depth():
    a, b = Polygon.box(0.5, 0.5), Polygon.box(0.5, 0.5)
    m = pb.collide(a, Transform((0.0, 0.5)), b, Transform((0.3, 1.5)))
    np.testing.assert_array_equal(m.normal, [0.0, 1.0])
    np.testing.assert_array_equal(m.depths, [0.0, 0.0])
    np.testing.assert_allclose(m.points, [[0.5, 1.0], [-0.2, 1.0]])
    # Corner on corner.
    m = pb.collide(a, IDENTITY, b, Transform((1.0, 1.0)))
    assert m is not None and np.all(m.depths == 0.0)
    assert pb.collide(a, IDENTITY, b, Transform((1.0, 1.0 + 1e-12))) is None


def test_identical_shapes_in_one_pose():
    shape = Polygon.regular(7, 1.0)
    pose = Transform((2.0, -1.0), 0.4)
    m = pb.collide(shape, pose, shape, pose)
    # Across the heptagon from a face lies a vertex: apothem cos(π/7) plus circumradius 1.
    expected = 1.0 + math.cos(math.pi / 7)
    assert math.isclose(m.depth, expected, rel_tol=1e-12)
    assert np.all(np.isfinite(m.points)) and len(m.depths) == 2


def test_far_from_the_origin_keeps_precision():
    a, b = Polygon.box(0.5, 0.5), Polygon.box(0.5, 0.5)
    far = np.array([1e6, -2e6])
    m = pb.collide(a, Transform(far, 0.0), b, Transform(far + (0.9, 0.3), 0.0))
    np.testing.assert_allclose(m.depths, [0.1, 0.1], atol=1e-9)
    np.testing.assert_array_equal(m.normal, [1.0, 0.0])


def test_scale_invariance():
    rng = np.random.default_rng(8)
    for scale in (1e-3, 1e3):
        for _ in range(50):
            a, b = random_polygon(rng), random_polygon(rng)
            xf_a, xf_b = random_pose(rng), random_pose(rng)
            m = pb.collide(a, xf_a, b, xf_b)
            big_a = Polygon(a.vertices * scale)
            big_b = Polygon(b.vertices * scale)
            scaled = pb.collide(big_a, Transform(xf_a.position * scale, xf_a.angle),
                                big_b, Transform(xf_b.position * scale, xf_b.angle))
            assert (m is None) == (scaled is None)
            if m is not None:
                np.testing.assert_allclose(scaled.normal, m.normal, atol=1e-9)
                np.testing.assert_allclose(scaled.depths, m.depths * scale,
                                           atol=1e-9 * scale)
                np.testing.assert_array_equal(scaled.features, m.features)


def test_features_stay_while_a_box_slides_and_tilts_on_the_ground():
    ground = Polygon.box(20.0, 0.5)
    box = Polygon.box(0.5, 0.5)
    ids = set()
    for x, angle in ((0.0, 0.0), (0.3, 0.01), (1.0, -0.01), (2.0, 0.02)):
        m = pb.collide(ground, Transform((0.0, -0.5)), box, Transform((x, 0.47), angle))
        assert len(m.depths) == 2
        ids.add(tuple(m.features.tolist()))
    assert len(ids) == 1


def test_grid_of_exact_contacts_never_gives_nan():
    """Boxes, triangles and circles on a grid where edges coincide, corners meet and shapes
    sit exactly on top of each other: every answer is finite, unit-normal, and touching
    pairs (depth 0) are reported, not dropped."""
    shapes = [Polygon.box(0.5, 0.5), Polygon.box(1.0, 0.25), Polygon([(0, 0), (1, 0), (0, 1)]),
              Circle(0.5)]
    table = ShapeTable()
    origins, angles = [], []
    for shape in shapes:
        for x in (0.0, 0.5, 1.0, 1.5):
            for y in (0.0, 0.5, 1.0):
                for angle in (0.0, np.pi / 2, np.pi):
                    table.append(shape, len(origins))
                    origins.append((x, y))
                    angles.append(angle)
    count = table.count
    pairs = np.array([(a, b) for a in range(count) for b in range(count) if a != b], np.int64)
    contacts = pb.collide_pairs(pairs, table, np.array(origins), np.array(angles))
    touching = contacts.point_counts > 0
    assert np.all(np.isfinite(contacts.points)) and np.all(np.isfinite(contacts.depths))
    lengths = np.hypot(*contacts.normals[touching].T)
    np.testing.assert_allclose(lengths, 1.0, atol=1e-12)
    assert np.all(contacts.depths[touching, 0] >= -1e-12)
    # Exactly touching pairs are among them: a unit box at x = 0 and one at x = 1, unturned
    # (turned by π/2, cos and sin round, and the faces end up 1e-17 m apart or overlapping).
    exact = [row for row, (a, b) in enumerate(pairs)
             if table.shape(a) is shapes[0] and table.shape(b) is shapes[0]
             and origins[a] == (0.0, 0.0) and origins[b] == (1.0, 0.0)
             and angles[a] == angles[b] == 0.0]
    assert exact and all(contacts.point_counts[row] == 2 for row in exact)
    assert all(np.all(np.abs(contacts.depths[row]) < 1e-12) for row in exact)
