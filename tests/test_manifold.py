"""The contact manifold: circles, circle against polygon, the batch path, the AABB tests.

Oracles: closed-form geometry, shapely (exact point-to-polygon distances), the polygon path
against the chapter-6 box functions, and ``collide`` against ``collide_pairs``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from geometry import random_polygon, random_pose, world_polygon
from hypothesis import given
from hypothesis import strategies as st
from shapely.geometry import Point
from shapely.geometry import Polygon as ShapelyPolygon

import physbook as pb
from physbook.collision.aabb_contacts import aabb_vs_aabb, aabb_vs_circle, circle_vs_aabb
from physbook.collision.features import (
    MAX_FEATURE,
    feature_parts,
    make_feature,
    make_feature_unchecked,
    swap_feature,
)
from physbook.collision.sat import b_comes_first
from physbook.constants import COINCIDENT_NORMAL
from physbook.geometry.shape_table import ShapeTable
from physbook.geometry.shapes import AABB, Circle, Polygon
from physbook.vecmath.vec import Transform

IDENTITY = Transform()








def assert_manifold_shape(manifold):
    count = len(manifold.depths)
    assert count in (1, 2)
    assert manifold.points.shape == (count, 2)
    assert manifold.features.shape == (count,) and manifold.features.dtype == np.int64
    assert np.all(np.isfinite(manifold.points)) and np.all(np.isfinite(manifold.depths))
    assert math.isclose(float(np.hypot(*manifold.normal)), 1.0, abs_tol=1e-12)
    assert len(set(manifold.features.tolist())) == count  # points are told apart


# ---------------------------------------------------------------------------------------
# Circles


def test_circle_circle_closed_form():
    m = pb.collide(Circle(1.0), Transform((0.0, 0.0)), Circle(0.5), Transform((1.2, 0.9)))
    assert_manifold_shape(m)
    np.testing.assert_allclose(m.normal, [0.8, 0.6], atol=1e-15)  # |(1.2, 0.9)| = 1.5
    np.testing.assert_allclose(m.depths, [1.5 - 1.5 + 0.0], atol=1e-15)  # exactly touching
    # Overlapping: centres 1 apart, radii 1 and 0.5: depth 0.5; point midway between the
    # surface points (1, 0) and (0.5, 0).
    m = pb.collide(Circle(1.0), IDENTITY, Circle(0.5), Transform((1.0, 0.0)))
    np.testing.assert_allclose(m.depths, [0.5])
    np.testing.assert_allclose(m.points, [[0.75, 0.0]])
    assert pb.collide(Circle(1.0), IDENTITY, Circle(0.5), Transform((1.6, 0.0))) is None


def test_circle_centres_in_body_coordinates_follow_the_pose():
    # A circle centred at (1, 0) in a body turned 90° about (2, 0) sits at (2, 1).
    m = pb.collide(Circle(0.5, (1.0, 0.0)), Transform((2.0, 0.0), np.pi / 2),
                   Circle(0.5), Transform((2.0, 1.8)))
    np.testing.assert_allclose(m.normal, [0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(m.depths, [0.2], atol=1e-12)


def test_coincident_circles_get_the_fixed_normal_and_full_depth():
    m = pb.collide(Circle(1.0), Transform((3.0, 4.0)), Circle(0.25), Transform((3.0, 4.0)))
    np.testing.assert_array_equal(m.normal, COINCIDENT_NORMAL)
    assert m.depths[0] == 1.25  # any direction needs r_A + r_B to separate
    assert np.all(np.isfinite(m.points))


# ---------------------------------------------------------------------------------------
# Circle against polygon


def exact_circle_polygon(centre, radius, polygon: ShapelyPolygon):
    """Depth by shapely's exact distances: r − d outside, r + d inside (d to the boundary)."""
    point = Point(centre)
    if polygon.contains(point):
        return radius + polygon.exterior.distance(point)
    return radius - polygon.distance(point)


def test_circle_polygon_against_exact_distances():
    rng = np.random.default_rng(11)
    touching = 0
    for _ in range(1500):
        polygon, pose = random_polygon(rng), random_pose(rng, 0.5)
        circle = Circle(rng.uniform(0.05, 0.6), rng.normal(size=2) * 0.1)
        circle_pose = random_pose(rng)
        centre = circle_pose.to_world(circle.center)
        region = world_polygon(polygon, pose)
        expected = exact_circle_polygon(centre, circle.radius, region)
        m = pb.collide(polygon, pose, circle, circle_pose)
        if abs(expected) < 1e-9:
            continue  # the touching band
        assert (m is not None) == (expected > 0.0)
        if m is None:
            continue
        touching += 1
        assert_manifold_shape(m)
        assert math.isclose(m.depths[0], expected, abs_tol=1e-9)
        # The normal is the way out: the circle moved by depth·n just touches.
        moved = centre + m.depths[0] * m.normal
        assert math.isclose(region.distance(Point(moved)), circle.radius, abs_tol=1e-9)
        # The point is within depth/2 of both shapes (midway between the surfaces).
        assert region.distance(Point(m.points[0])) <= m.depths[0] / 2 + 1e-9
        assert np.hypot(*(m.points[0] - centre)) <= circle.radius + m.depths[0] / 2 + 1e-9
        # Swapping the shapes flips the normal and keeps the rest.
        swapped = pb.collide(circle, circle_pose, polygon, pose)
        np.testing.assert_allclose(swapped.normal, -m.normal, atol=1e-12)
        np.testing.assert_allclose(swapped.depths, m.depths, atol=1e-12)
        np.testing.assert_allclose(swapped.points, m.points, atol=1e-12)
    assert touching > 300


def test_circle_centre_inside_polygon_is_pushed_out_through_the_nearest_face():
    box = Polygon.box(2.0, 1.0)
    m = pb.collide(box, IDENTITY, Circle(0.25), Transform((1.5, 0.2)))
    np.testing.assert_allclose(m.normal, [1.0, 0.0])
    assert math.isclose(m.depths[0], 0.25 + 0.5)  # r + d, not r − d
    # The centre on the face itself: depth = r.
    m = pb.collide(box, IDENTITY, Circle(0.25), Transform((2.0, 0.0)))
    assert math.isclose(m.depths[0], 0.25)


# ---------------------------------------------------------------------------------------
# The chapter-6 box tests against the polygon path


def box_polygon(box: AABB) -> Polygon:
    return Polygon.box(*box.extents, center=box.center)


def assert_same_manifold(expected, got):
    """The same manifold, its points matched by feature id: the facing sides of two boxes
    tie, the narrow phase may take either as the reference face, and the two choices list
    the same points in the other order."""
    assert (expected is None) == (got is None)
    if expected is None:
        return
    mine, theirs = np.argsort(got.features), np.argsort(expected.features)
    np.testing.assert_allclose(got.normal, expected.normal, atol=1e-12)
    np.testing.assert_allclose(got.points[mine], expected.points[theirs], atol=1e-12)
    np.testing.assert_allclose(got.depths[mine], expected.depths[theirs], atol=1e-12)
    np.testing.assert_array_equal(got.features[mine], expected.features[theirs])


def test_aabb_functions_agree_with_the_polygon_path():
    rng = np.random.default_rng(5)
    hits = 0
    for _ in range(1000):
        centres, halves = rng.uniform(-1, 1, (2, 2)), rng.uniform(0.1, 1, (2, 2))
        a = AABB(centres[0] - halves[0], centres[0] + halves[0])
        b = AABB(centres[1] - halves[1], centres[1] + halves[1])
        box = aabb_vs_aabb(a, b)
        hits += box is not None
        assert_same_manifold(pb.collide(box_polygon(a), IDENTITY, box_polygon(b), IDENTITY),
                             box)
        circle = Circle(rng.uniform(0.1, 1.0), rng.uniform(-1.8, 1.8, 2))
        as_shape = Circle(circle.radius)
        assert_same_manifold(
            pb.collide(box_polygon(a), IDENTITY, as_shape, Transform(circle.center)),
            aabb_vs_circle(a, circle))
        assert_same_manifold(
            pb.collide(as_shape, Transform(circle.center), box_polygon(a), IDENTITY),
            circle_vs_aabb(circle, a))
    assert hits > 300


def test_aabb_vs_aabb_picks_the_axis_of_least_penetration_with_a_unit_normal():
    a = AABB((0.0, 0.0), (2.0, 2.0))
    # Side by side: overlap 0.1 in x, 2 in y. The axis is x, towards B.
    m = aabb_vs_aabb(a, AABB((1.9, 0.0), (3.9, 2.0)))
    np.testing.assert_array_equal(m.normal, [1.0, 0.0])
    np.testing.assert_allclose(m.depths, [0.1, 0.1])
    np.testing.assert_allclose(m.points, [[1.95, 0.0], [1.95, 2.0]])
    # Each of the four directions gives a unit normal (never a zero vector).
    for offset, normal in (((1.5, 0.2), (1, 0)), ((-1.5, 0.2), (-1, 0)),
                           ((0.2, 1.5), (0, 1)), ((0.2, -1.5), (0, -1))):
        b = AABB(np.add(offset, (0.0, 0.0)), np.add(offset, (2.0, 2.0)))
        np.testing.assert_array_equal(aabb_vs_aabb(a, b).normal, normal)
    assert aabb_vs_aabb(a, AABB((2.5, 0.0), (3.0, 1.0))) is None
    touching = aabb_vs_aabb(a, AABB((2.0, 0.5), (3.0, 1.0)))
    np.testing.assert_array_equal(touching.depths, [0.0, 0.0])


def test_circle_inside_a_box_has_depth_r_plus_d_through_the_nearest_face():
    box = AABB((0.0, 0.0), (4.0, 1.0))
    # Centre at (3, 0.5): 1 from the right face, 0.5 from top and bottom: the bottom face
    # (first of the nearest) wins, depth r + d = 0.2 + 0.5. Comparing the centre offset
    # (|dx| = 1 > |dy| = 0) instead of the face distances would pick the right face.
    m = aabb_vs_circle(box, Circle(0.2, (3.0, 0.5)))
    np.testing.assert_array_equal(m.normal, [0.0, -1.0])
    assert math.isclose(m.depths[0], 0.7)
    m = aabb_vs_circle(box, Circle(0.2, (3.9, 0.6)))
    np.testing.assert_array_equal(m.normal, [1.0, 0.0])
    assert math.isclose(m.depths[0], 0.2 + 0.1)
    m = circle_vs_aabb(Circle(0.2, (3.9, 0.6)), box)
    np.testing.assert_array_equal(m.normal, [-1.0, 0.0])


def test_aabb_functions_reject_other_types():
    box = AABB((0, 0), (1, 1))
    with pytest.raises(TypeError, match="b must be an AABB"):
        aabb_vs_aabb(box, Polygon.box(1, 1))
    with pytest.raises(TypeError, match="circle must be a Circle"):
        aabb_vs_circle(box, box)
    with pytest.raises(TypeError, match="box must be an AABB"):
        circle_vs_aabb(Circle(1.0), Circle(1.0))


# ---------------------------------------------------------------------------------------
# The batch path


def random_table(rng: np.random.Generator, bodies: int):
    """Bodies with one or two shapes each, offset from their origins, in random poses."""
    table = ShapeTable()
    for body in range(bodies):
        for _ in range(int(rng.integers(1, 3))):
            if rng.random() < 0.35:
                table.append(Circle(rng.uniform(0.1, 0.7), rng.normal(size=2) * 0.3), body)
            else:
                offset = Transform(rng.normal(size=2) * 0.3, rng.uniform(-np.pi, np.pi))
                shape = random_polygon(rng)
                table.append(Polygon(offset.to_world(shape.vertices)), body)
    origins = rng.uniform(-1.5, 1.5, (bodies, 2))
    angles = rng.uniform(-np.pi, np.pi, bodies)
    return table, origins, angles


def test_collide_pairs_agrees_with_collide_pair_by_pair():
    rng = np.random.default_rng(7)
    table, origins, angles = random_table(rng, 40)
    pairs = np.array([(a, b) for a in range(table.count) for b in range(table.count)
                      if table.arrays.body[a] != table.arrays.body[b]])
    contacts = pb.collide_pairs(pairs, table, origins, angles)
    assert contacts.point_counts.shape == (len(pairs),)
    assert contacts.points.shape == (len(pairs), 2, 2)
    kinds = set()
    for row, (a, b) in enumerate(pairs):
        body_a, body_b = table.arrays.body[a], table.arrays.body[b]
        shape_a, xf_a = table.shape(a), Transform(origins[body_a], angles[body_a])
        shape_b, xf_b = table.shape(b), Transform(origins[body_b], angles[body_b])
        single = pb.collide(shape_a, xf_a, shape_b, xf_b)
        batch = contacts.manifold(row)
        assert (single is None) == (batch is None)
        if single is None:
            assert contacts.point_counts[row] == 0
            np.testing.assert_array_equal(contacts.normals[row], [0.0, 0.0])
            continue
        # A table works two polygons, or two circles, in row order, collide in the order
        # b_comes_first gives; where the orders differ, the arithmetic differs by rounding.
        if type(shape_a) is type(shape_b) and b_comes_first(shape_a, xf_a, shape_b,
                                                             xf_b) != (b < a):
            continue
        kinds.add((type(table.shape(a)), type(table.shape(b))))
        np.testing.assert_array_equal(batch.normal, single.normal)
        np.testing.assert_array_equal(batch.points, single.points)
        np.testing.assert_array_equal(batch.depths, single.depths)
        np.testing.assert_array_equal(batch.features, single.features)
        count = contacts.point_counts[row]
        assert np.all(contacts.points[row, count:] == 0.0)
    assert len(kinds) == 4  # all four orders of circle and polygon were exercised


def test_collide_pairs_with_no_pairs_and_margin():
    table = ShapeTable()
    table.append(Polygon.box(0.5, 0.5), 0)
    table.append(Polygon.box(0.5, 0.5), 1)
    origins, angles = np.array([[0.0, 0.0], [0.0, 1.05]]), np.zeros(2)
    empty = pb.collide_pairs(np.zeros((0, 2), np.int64), table, origins, angles)
    assert empty.point_counts.shape == (0,) and empty.points.shape == (0, 2, 2)
    assert pb.collide_pairs([[0, 1]], table, origins, angles).point_counts[0] == 0
    near = pb.collide_pairs([[0, 1]], table, origins, angles, margin=0.1)
    assert near.point_counts[0] == 2
    np.testing.assert_allclose(near.depths[0], [-0.05, -0.05])


def test_collide_pairs_rejects_bad_input():
    table = ShapeTable()
    table.append(Circle(1.0), 0)
    table.append(Circle(1.0), 1)
    origins, angles = np.zeros((2, 2)), np.zeros(2)
    with pytest.raises(ValueError, match="pairs must index shapes"):
        pb.collide_pairs([[0, 2]], table, origins, angles)
    with pytest.raises(ValueError, match="pairs must have shape"):
        pb.collide_pairs([0, 1], table, origins, angles)
    with pytest.raises(TypeError, match="pairs must hold integers"):
        pb.collide_pairs([[0.0, 1.0]], table, origins, angles)
    with pytest.raises(ValueError, match="origins must be finite"):
        pb.collide_pairs([[0, 1]], table, np.array([[0.0, np.nan], [0, 0]]), angles)
    with pytest.raises(ValueError, match="angles must have shape"):
        pb.collide_pairs([[0, 1]], table, origins, np.zeros(3))
    with pytest.raises(ValueError, match="origins must have a row for every body"):
        pb.collide_pairs([[0, 1]], table, origins[:1], angles[:1])
    with pytest.raises(TypeError, match="shapes must be a ShapeTable"):
        pb.collide_pairs([[0, 1]], [Circle(1.0)], origins, angles)
    with pytest.raises(ValueError, match="margin must be non-negative"):
        pb.collide_pairs([[0, 1]], table, origins, angles, margin=-1.0)
    with pytest.raises(ValueError, match="pairs must be a .* got ragged rows"):
        pb.collide_pairs([[0, 1], [1]], table, origins, angles)
    with pytest.raises(TypeError, match="pairs must hold integers"):
        pb.collide_pairs([[True, False]], table, origins, angles)


def test_a_shape_cannot_collide_with_itself():
    table = ShapeTable()
    table.append(Circle(1.0), 0)
    table.append(Circle(1.0), 1)
    origins, angles = np.zeros((2, 2)), np.zeros(2)
    with pytest.raises(ValueError, match=r"pairs must join two different shapes.*row 1 is "
                                         r"\[1, 1\]"):
        pb.collide_pairs([[0, 1], [1, 1]], table, origins, angles)


def test_contact_arrays_manifold_checks_its_row():
    table = ShapeTable()
    table.append(Circle(1.0), 0)
    table.append(Circle(1.0), 1)
    contacts = pb.collide_pairs([[0, 1]], table, np.array([[0.0, 0.0], [1.0, 0.0]]),
                                np.zeros(2))
    assert len(contacts.manifold(0)) == 1
    with pytest.raises(IndexError, match="row must be below the number of pairs, 1, got 5"):
        contacts.manifold(5)
    with pytest.raises(ValueError, match="row must be at least 0"):
        contacts.manifold(-1)
    with pytest.raises(TypeError, match="row must be an integer"):
        contacts.manifold(0.5)


def test_shapes_farther_apart_than_a_float_holds_do_not_touch():
    # The offset between the bodies, 3.4e308 m, overflows: no shape reaches that far.
    box, circle = Polygon.box(1.0, 1.0), Circle(1.0)
    east, west = Transform((1.7e308, 0.0)), Transform((-1.7e308, 0.0), 0.3)
    for a, b in [(box, box), (box, circle), (circle, box), (circle, circle)]:
        assert pb.collide(a, east, b, west) is None
    # Near each other that far out, they touch as they would at the origin.
    m = pb.collide(box, east, box, Transform((1.7e308, 1.5)))
    np.testing.assert_array_equal(m.normal, [0.0, 1.0])
    np.testing.assert_array_equal(m.depths, [0.5, 0.5])


def test_huge_boxes_give_finite_manifolds_or_a_named_overflow():
    # Their centres overflow (1e308 + 1.7e308), their overlaps do not: 0.7e308 per axis.
    big = AABB((1e308, 1e308), (1.7e308, 1.7e308))
    m = aabb_vs_aabb(big, big)
    np.testing.assert_array_equal(m.depths, [1.7e308 - 1e308] * 2)
    assert np.all(np.isfinite(m.points)) and np.all(m.points[:, 0] == 1.35e308)
    assert "1.35e+308" in repr(m)  # printing does not overflow either
    # A 3.6e308 m overlap has no float.
    whole = AABB((-1.79e308, -1.79e308), (1.79e308, 1.79e308))
    with pytest.raises(FloatingPointError, match="depth of this contact overflows"):
        aabb_vs_aabb(whole, whole)
    m = aabb_vs_circle(whole, Circle(1.0, (1.79e308, 0.0)))
    assert np.all(np.isfinite(m.points)) and m.depths[0] == 1.0


def test_collide_rejects_bad_input():
    with pytest.raises(TypeError, match="shape_b must be a Circle, Polygon, Capsule, "
                       "Segment or ChainSegment, got AABB"):
        pb.collide(Circle(1.0), IDENTITY, AABB((0, 0), (1, 1)), IDENTITY)
    chain = pb.Chain([(3, 0), (2, 0), (1, 0), (0, 0)])
    with pytest.raises(TypeError, match="shape_a must be a single shape, got a Chain: "
                       "collide one of its .segments"):
        pb.collide(chain, IDENTITY, Circle(1.0), IDENTITY)
    with pytest.raises(TypeError, match="xf_a must be a Transform"):
        pb.collide(Circle(1.0), (0.0, 0.0), Circle(1.0), IDENTITY)


def test_feature_ids_pack_and_unpack():
    feature = make_feature(7, 12)
    assert feature_parts(feature) == (7, 12)
    assert feature_parts(make_feature(0, 0)) == (0, 0)
    assert swap_feature(feature) == make_feature(12, 7)


@given(st.integers(0, MAX_FEATURE), st.integers(0, MAX_FEATURE))
def test_every_pair_of_feature_numbers_round_trips(feature_a, feature_b):
    feature = make_feature(feature_a, feature_b)
    assert 0 <= feature < 2**63
    assert feature_parts(feature) == (feature_a, feature_b)
    assert feature_parts(swap_feature(feature)) == (feature_b, feature_a)
    assert make_feature_unchecked(feature_a, feature_b) == feature  # the compiled kernel agrees


@pytest.mark.parametrize("call, error, message", [
    (lambda: make_feature(2**40, 0), ValueError, "feature_a must be at most 2147483647"),
    (lambda: make_feature(0, 2**33), ValueError, "feature_b must be at most 2147483647"),
    (lambda: make_feature(-1, 0), ValueError, "feature_a must be at least 0"),
    (lambda: make_feature("a", 1), TypeError, "feature_a must be an integer"),
    (lambda: make_feature(1.5, 2), TypeError, "feature_a must be an integer"),
    (lambda: make_feature(1, True), TypeError, "feature_b must be an integer"),
    (lambda: feature_parts(1.7), TypeError, "feature must be an integer"),
    (lambda: feature_parts("a"), TypeError, "feature must be an integer"),
    (lambda: feature_parts(-1), ValueError, "feature must be at least 0"),
    (lambda: feature_parts(2**63), ValueError, "feature must be at most"),
    (lambda: feature_parts(2**31), ValueError, "feature must be an id made by make_feature"),
    (lambda: swap_feature(-1), ValueError, "feature must be at least 0"),
])
def test_feature_functions_reject_what_is_not_a_feature(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_pair_rotations_skip_pairs_of_bodies_that_are_not_awake():
    """Given ``awake``, a pair of two bodies that are not awake takes no rotation (the
    narrow phase copies its row), a pair with one awake body takes both; ``done`` is all
    False again."""
    from physbook.collision.manifold import pair_rotations

    angles = np.array([0.3, -1.2, 2.0, 0.7])
    body = np.array([0, 1, 2, 3])
    pairs = np.array([[0, 1], [2, 3]])
    awake = np.array([False, False, True, False])
    cosines, sines = np.full(4, 9.0), np.full(4, 9.0)
    done = np.zeros(4, dtype=np.bool_)
    pair_rotations(pairs, body, angles, cosines, sines, done, awake)
    # The kernel calls the C library's cosine and sine, as math does.
    np.testing.assert_array_equal(cosines, [9.0, 9.0, math.cos(2.0), math.cos(0.7)])
    np.testing.assert_array_equal(sines, [9.0, 9.0, math.sin(2.0), math.sin(0.7)])
    assert not done.any()
    pair_rotations(pairs, body, angles, cosines, sines, done)
    np.testing.assert_array_equal(cosines, [math.cos(angle) for angle in angles])


def test_pair_rotations_skip_circles_on_their_bodys_origin():
    """A shape ``unturned`` marks (a circle on its body's origin, as narrow_scratch finds
    them) takes no rotation; its body still gets one for another shape in a pair."""
    from physbook.collision.manifold import narrow_scratch, pair_rotations
    from physbook.world import World

    world = World()
    world.add_body(Circle(0.5), angle=0.3)
    world.add_body(Circle(0.5, center=(1.0, 0.0)), angle=-1.2)
    world.add_body([Circle(0.25), Polygon.box(1.0, 1.0)], angle=2.0)
    shapes = world.shapes.arrays
    *_, cosines, sines, done, unturned = narrow_scratch(shapes, 3)
    assert unturned.tolist() == [True, False, True, False]
    assert cosines.tolist() == [1.0] * 3 and sines.tolist() == [0.0] * 3  # cos 0, sin 0
    pairs = np.array([[0, 1], [2, 3]])
    pair_rotations(pairs, shapes.body, world.bodies.arrays.angles, cosines, sines, done, None,
                   unturned)
    np.testing.assert_array_equal(cosines, [1.0, math.cos(-1.2), math.cos(2.0)])
    np.testing.assert_array_equal(sines, [0.0, math.sin(-1.2), math.sin(2.0)])
    assert not done.any()
