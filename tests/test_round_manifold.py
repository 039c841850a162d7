"""Manifolds of shapes with a radius: capsules, rounded polygons and segments against every
shape, checked against exact core geometry from shapely.

Oracle: a round shape is its core grown by its radius, so two shapes are apart by the
distance of their cores (shapely's distance between points, segments and polygons is exact
up to rounding) less both radii, and overlap by the cores' overlap depth (the least overlap
over every axis their Minkowski difference can have, by brute force) plus both radii. The
narrow phase keeps a pair's form with two hysteresis bands (a reference face is kept until
the other shape's face separates more by FACE_SWITCH_TOLERANCE of the size; a clipped
manifold is kept until a corner-to-corner gap exceeds it by VERTEX_SWITCH); the tests
compute from the same exact geometry when a pair is inside a band, and allow the band's
width there only.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from geometry import (
    contact_rows,
    core_overlaps,
    random_capsule,
    random_polygon,
    random_pose,
    random_rounded,
    random_segment,
    world_core,
)

import physbook as pb
from physbook.collision.core_distance import convex_distance, segment_closest
from physbook.collision.features import swap_feature
from physbook.collision.toi import shape_distance
from physbook.constants import FACE_SWITCH_TOLERANCE, VERTEX_SWITCH
from physbook.geometry.shape_table import ShapeTable
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.vec import Transform

IDENTITY = Transform()
PAIRS = 10_000
MARGIN = 0.2


def random_circle(rng: np.random.Generator) -> Circle:
    return Circle(rng.uniform(0.05, 0.5), rng.uniform(-0.3, 0.3, 2))


MAKERS = {"circle": random_circle, "capsule": random_capsule, "polygon": random_polygon,
          "rounded": random_rounded, "segment": random_segment}
#: Poses within ±spread m: enough pairs overlap and enough lie within the margin.
SPREAD = {("rounded", "rounded"): 1.1, ("rounded", "polygon"): 0.9, ("capsule", "rounded"): 0.8,
          ("capsule", "polygon"): 0.7, ("rounded", "circle"): 0.7}
COMBINATIONS = [("capsule", "circle"), ("capsule", "capsule"), ("capsule", "polygon"),
                ("capsule", "rounded"), ("rounded", "circle"), ("rounded", "polygon"),
                ("rounded", "rounded"), ("segment", "circle"), ("segment", "capsule"),
                ("segment", "polygon"), ("segment", "rounded")]


def pair_table(shapes_a, shapes_b, poses_a, poses_b):
    """One table of every pair, A in row 2i and B in row 2i + 1, each on its own body."""
    table = ShapeTable()
    origins, angles = [], []
    for a, b, xf_a, xf_b in zip(shapes_a, shapes_b, poses_a, poses_b, strict=True):
        for shape, pose in ((a, xf_a), (b, xf_b)):
            table.append(shape, len(origins))
            origins.append(pose.position)
            angles.append(pose.angle)
    return table, np.array(origins), np.array(angles)


def face_separation(shape, transform, other, other_transform) -> float:
    """max over the faces of ``shape``'s core of the least separation of the other's core
    points (a 2-point core has its two faces, normals ±n): chapter 7's SAT, by brute force."""
    points = transform.to_world(shape.core()[0])
    if len(points) < 2:
        return -math.inf
    if len(points) == 2:
        edge = points[1] - points[0]
        normal = np.array([edge[1], -edge[0]]) / np.hypot(*edge)
        normals = np.array([normal, -normal])
    else:
        normals = transform.rotate_to_world(shape.normals)
    others = other_transform.to_world(other.core()[0])
    return float(np.max(np.min(np.einsum("ik,ijk->ij", normals,
                                         others[None, :, :] - points[:, None, :]), axis=1)))


def core_size(shape) -> float:
    points = shape.core()[0]
    return float(np.hypot(*(points - points[0]).T).max())


def at_vertex(point, shape, transform) -> bool:
    vertices = transform.to_world(shape.core()[0])
    return bool(np.min(np.hypot(*(vertices - point).T)) <= 1e-9)


def angle_between(u, v) -> float:
    return abs(math.atan2(u[0] * v[1] - u[1] * v[0], u @ v))


@pytest.mark.parametrize(("kind_a", "kind_b"), COMBINATIONS)
def test_random_pairs_against_exact_core_geometry(kind_a, kind_b):
    rng = np.random.default_rng(sum(map(ord, kind_a + kind_b)))
    shapes_a = [MAKERS[kind_a](rng) for _ in range(PAIRS)]
    shapes_b = [MAKERS[kind_b](rng) for _ in range(PAIRS)]
    poses_a = [random_pose(rng, SPREAD.get((kind_a, kind_b), 0.6)) for _ in range(PAIRS)]
    poses_b = [random_pose(rng, SPREAD.get((kind_a, kind_b), 0.6)) for _ in range(PAIRS)]
    table, origins, angles = pair_table(shapes_a, shapes_b, poses_a, poses_b)
    pairs = np.arange(2 * PAIRS).reshape(PAIRS, 2)
    contacts = pb.collide_pairs(pairs, table, origins, angles, margin=MARGIN)
    mirrored = pb.collide_pairs(pairs[:, ::-1], table, origins, angles, margin=MARGIN)

    # Mirror exactness: (b, a) is (a, b) with the normal negated and the ids swapped.
    np.testing.assert_array_equal(mirrored.point_counts, contacts.point_counts)
    np.testing.assert_array_equal(mirrored.normals, -contacts.normals)
    np.testing.assert_array_equal(mirrored.points, contacts.points)
    np.testing.assert_array_equal(mirrored.depths, contacts.depths)
    touching = contacts.point_counts > 0
    swapped = [swap_feature(int(f)) if k < c else 0 for c, row in
               zip(mirrored.point_counts, mirrored.features, strict=True)
               for k, f in enumerate(row)]
    np.testing.assert_array_equal(np.array(swapped).reshape(PAIRS, 2)[touching],
                                  contacts.features[touching])

    cores_a = [world_core(a, xf) for a, xf in zip(shapes_a, poses_a, strict=True)]
    cores_b = [world_core(b, xf) for b, xf in zip(shapes_b, poses_b, strict=True)]
    geometry_a = np.array([g for g, _ in cores_a])
    geometry_b = np.array([g for g, _ in cores_b])
    reach = np.array([r for _, r in cores_a]) + np.array([r for _, r in cores_b])
    gaps = shapely.distance(geometry_a, geometry_b)
    closest = shapely.get_coordinates(shapely.shortest_line(geometry_a, geometry_b)).reshape(
        PAIRS, 2, 2)

    counts = {"overlapping": 0, "speculative": 0, "band": 0, "exact": 0}
    for i in range(PAIRS):
        a, b, xf_a, xf_b = shapes_a[i], shapes_b[i], poses_a[i], poses_b[i]
        if gaps[i] > 0.0:
            true = gaps[i] - reach[i]
        else:
            overlaps = core_overlaps(a, xf_a, b, xf_b)
            true = -float(overlaps.min()) - reach[i]
        count = contacts.point_counts[i]
        if true > MARGIN + 1e-9:
            assert count == 0, (i, true)
            continue
        if true < MARGIN - 1e-9:
            assert count > 0, (i, true)
        if count == 0:
            continue
        counts["overlapping" if true < 0.0 else "speculative"] += 1
        normal = contacts.normals[i]
        assert math.isclose(float(np.hypot(*normal)), 1.0, abs_tol=1e-12)
        separation = -float(contacts.depths[i, :count].max())

        # Is the pair inside a hysteresis band?
        tolerance = FACE_SWITCH_TOLERANCE * min(core_size(a), core_size(b))
        sep_a = face_separation(a, xf_a, b, xf_b)
        sep_b = face_separation(b, xf_b, a, xf_a)
        band = abs(sep_a - sep_b) <= tolerance
        # (A circle's manifold is its centre's distance, which has no band.)
        corner_to_corner = not isinstance(b, Circle) and gaps[i] > 0.0 and at_vertex(
            closest[i, 0], a, xf_a) and at_vertex(closest[i, 1], b, xf_b)
        if corner_to_corner and (gaps[i] - max(sep_a, sep_b) <= VERTEX_SWITCH or count == 2):
            band = True
        if abs(separation - true) > 1e-9:
            # Only inside a band, by at most its width.
            assert band, (i, separation, true)
            assert abs(separation - true) <= max(tolerance, VERTEX_SWITCH) + 1e-12, (i,)
            counts["band"] += 1
            continue
        counts["exact"] += 1
        if band:
            continue  # exact, but the normal may be the band's other choice

        # The normal, where its direction is unique.
        if gaps[i] > 1e-6:
            direction = (closest[i, 1] - closest[i, 0]) / gaps[i]
            assert angle_between(direction, normal) <= 1e-9, (i,)
        elif gaps[i] == 0.0:
            overlaps = core_overlaps(a, xf_a, b, xf_b)
            order = np.argsort(overlaps)
            if overlaps[order[1]] - overlaps[order[0]] > 1e-9:
                assert abs(abs(float(normal @ _axes(a, xf_a, b, xf_b)[order[0]])) - 1.0) \
                    <= 1e-12, (i,)

        # Each point lies within half its depth of both surfaces.
        for k in range(count):
            point = shapely.Point(contacts.points[i, k])
            half = abs(contacts.depths[i, k]) / 2 + 1e-9
            for geometry, radius in (cores_a[i], cores_b[i]):
                assert max(geometry.distance(point) - radius, 0.0) <= half, (i, k)
    assert counts["overlapping"] > 1000 and counts["speculative"] > 1000, counts
    assert counts["band"] < 0.02 * PAIRS, counts


def _axes(a, xf_a, b, xf_b):
    from geometry import core_axes
    return np.vstack([core_axes(a, xf_a), core_axes(b, xf_b)])


# ---------------------------------------------------------------------------------------
# Sharp polygons are unchanged


def test_sharp_polygon_manifolds_keep_their_bits():
    """The radius terms add exact zeros for sharp polygons: the random polygon and circle
    suites of chapter 7 give the bits they gave before shapes had radii. The digests were
    taken from the narrow phase before radii (the same pairs, the same calls)."""
    rng = np.random.default_rng(77)
    count = 3000
    shapes_a = [random_polygon(rng) for _ in range(count)]
    shapes_b = [random_polygon(rng) if k % 2 else random_circle(rng) for k in range(count)]
    poses_a = [random_pose(rng, 0.8) for _ in range(count)]
    poses_b = [random_pose(rng, 0.8) for _ in range(count)]
    table, origins, angles = pair_table(shapes_a, shapes_b, poses_a, poses_b)
    pairs = np.arange(2 * count).reshape(count, 2)
    contacts = pb.collide_pairs(pairs, table, origins, angles, margin=0.1)
    assert contacts.point_counts.sum() == 2213
    assert _digest(contacts) == SHARP_DIGEST


def _digest(contacts) -> str:
    import hashlib
    digest = hashlib.sha256()
    for array in contacts:
        digest.update(np.ascontiguousarray(array + 0.0 if array.dtype.kind == "f"
                                           else array).tobytes())
    return digest.hexdigest()


#: sha256 of the contact arrays of test_sharp_polygon_manifolds_keep_their_bits, computed
#: with the narrow phase before shapes had radii (−0.0 counted as 0.0).
SHARP_DIGEST = "b7ce8c8a97dc37e551a4c0d88d89a6fb0a45389519195b7f85270364ee8c3d13"


# ---------------------------------------------------------------------------------------
# Worked examples


def test_capsule_lying_on_a_box_gets_two_points_at_its_ends():
    """A capsule of core (−0.5, 0)–(0.5, 0) and radius 0.25 whose surface sinks 0.01 m into
    the top of a box: two points under its centres, depth 0.01, normal up from the box."""
    box = Polygon.box(2.0, 0.5)
    capsule = pb.Capsule((-0.5, 0.0), (0.5, 0.0), 0.25)
    m = pb.collide(box, Transform((0.0, -0.5)), capsule, Transform((0.3, 0.24)))
    np.testing.assert_array_equal(m.normal, [0.0, 1.0])
    np.testing.assert_allclose(m.depths, [0.01, 0.01], atol=1e-15)
    np.testing.assert_allclose(np.sort(m.points[:, 0]), [-0.2, 0.8], atol=1e-15)
    np.testing.assert_allclose(m.points[:, 1], [-0.005, -0.005], atol=1e-15)


def test_parallel_capsules_side_by_side_keep_two_points():
    """Two capsules lying side by side (radii 0.2 and 0.3, axes 0.49 m apart, the second
    shifted by half its length): two points over the common span, depth 0.01 each, while
    the upper one tilts slightly; one point when it stands on its end."""
    lower = pb.Capsule((-1.0, 0.0), (1.0, 0.0), 0.2)
    upper = pb.Capsule((-0.5, 0.0), (0.5, 0.0), 0.3)
    ids = set()
    for x, angle in ((0.8, 0.0), (0.7, 0.002), (0.6, -0.002)):
        m = pb.collide(lower, IDENTITY, upper, Transform((x, 0.49), angle))
        assert len(m) == 2
        ids.add(tuple(m.features.tolist()))
        if angle == 0.0:
            np.testing.assert_allclose(m.depths, [0.01, 0.01], atol=1e-15)
            np.testing.assert_allclose(np.sort(m.points[:, 0]), [0.3, 1.0], atol=1e-15)
    assert len(ids) == 1
    standing = pb.collide(lower, IDENTITY, upper, Transform((0.0, 0.99), math.pi / 2))
    assert len(standing) == 1
    assert math.isclose(standing.depth, 0.01, abs_tol=1e-14)
    np.testing.assert_allclose(standing.normal, [0.0, 1.0], atol=1e-15)


def test_rounded_boxes_corner_to_corner():
    """Two unit rounded boxes (core half extents 0.5, radius 0.1) placed corner to corner
    along the diagonal, cores 0.15 m apart: one point on the diagonal, depth 0.2 − 0.15."""
    box = Polygon.box(0.5, 0.5, radius=0.1)
    offset = 1.0 + 0.15 / math.sqrt(2.0)
    m = pb.collide(box, IDENTITY, box, Transform((offset, offset)))
    assert len(m) == 1
    assert math.isclose(m.depth, 0.05, abs_tol=1e-14)
    np.testing.assert_allclose(m.normal, [math.sqrt(0.5)] * 2, atol=1e-15)
    np.testing.assert_allclose(m.points[0], [0.5 + 0.075 / math.sqrt(2.0)] * 2, atol=1e-14)


def test_capsule_circle_on_the_axis_uses_the_side_normal():
    capsule = pb.Capsule((-1.0, 0.0), (1.0, 0.0), 0.5)
    m = pb.collide(capsule, IDENTITY, Circle(0.25), Transform((0.3, 0.0)))
    # The capsule's side normal: right of center1 → center2, i.e. (0, −1).
    np.testing.assert_array_equal(m.normal, [0.0, -1.0])
    assert m.depth == 0.75


# ---------------------------------------------------------------------------------------
# Core distances


def test_core_distance_of_collinear_and_random_segments_matches_shapely():
    """Cores of one or two points are measured directly: a segment on another's line past
    its end is apart (the separating axis test alone found no axis and said 0)."""
    a = np.array([[0.0, 0.0], [1.0, 0.0]])
    b = np.array([[1.5, 0.0], [3.0, 0.0]])
    normals = np.array([[0.0, -1.0], [0.0, 1.0]])
    assert convex_distance(a, normals, 0.0, b, normals, 0.0) == 0.5
    assert math.isclose(convex_distance(a, normals, 0.1, b[:1], np.zeros((1, 2)), 0.1), 0.3,
                        abs_tol=1e-15)
    capsule = pb.Capsule((0.0, 0.0), (1.0, 0.0), 0.1)
    assert math.isclose(shape_distance(capsule, IDENTITY, capsule, Transform((2.0, 0.0))),
                        0.8, abs_tol=1e-15)
    rng = np.random.default_rng(5)
    segments = rng.uniform(-1.0, 1.0, (4000, 2, 2))
    collinear = rng.random(4000) < 0.3
    along = segments[:, 1] - segments[:, 0]
    placed = segments[:, :1] + along[:, None, :] * rng.uniform(-2.0, 2.0, (4000, 2, 1))
    others = np.where(collinear[:, None, None], placed, rng.uniform(-1.0, 1.0, (4000, 2, 2)))
    expected = shapely.distance(shapely.linestrings(segments), shapely.linestrings(others))
    for k in range(4000):
        distance, f1, f2 = segment_closest(*segments[k].ravel(), *others[k].ravel())
        assert abs(distance - expected[k]) <= 1e-12
        x1 = segments[k, 0] + f1 * (segments[k, 1] - segments[k, 0])
        x2 = others[k, 0] + f2 * (others[k, 1] - others[k, 0])
        assert abs(np.hypot(*(x2 - x1)) - distance) <= 1e-12
        assert convex_distance(segments[k], normals, 0.0, others[k], normals, 0.0) == distance


def test_core_distance_of_polygons_and_segments_matches_shapely():
    rng = np.random.default_rng(6)
    for _ in range(1500):
        shape_a = random_rounded(rng) if rng.random() < 0.5 else random_capsule(rng)
        shape_b = random_segment(rng) if rng.random() < 0.5 else random_polygon(rng)
        xf_a, xf_b = random_pose(rng), random_pose(rng)
        (core_a, r_a), (core_b, r_b) = world_core(shape_a, xf_a), world_core(shape_b, xf_b)
        expected = max(core_a.distance(core_b) - r_a - r_b, 0.0)
        assert abs(shape_distance(shape_a, xf_a, shape_b, xf_b) - expected) <= 1e-12


# ---------------------------------------------------------------------------------------
# Feature ids over a resting contact (warm starting needs them fixed)


def settled_rows(world, steps: int = 660, settle: int = 60):
    """Step ``world`` and return the contact rows seen from step ``settle`` on, checking
    that they never change: the same pairs, two points each, the same feature ids."""
    for _ in range(settle):
        world.step(1.0 / 60.0)
    first = contact_rows(world)
    for step in range(settle, steps):
        world.step(1.0 / 60.0)
        assert contact_rows(world) == first, step
    return first


def test_capsule_resting_on_a_box_keeps_its_feature_ids():
    world = pb.World(gravity=(0.0, -9.81))
    world.add_body(Polygon.box(3.0, 0.5), position=(0.0, -0.5), kind="static")
    capsule = world.add_body(pb.Capsule((-0.5, 0.0), (0.5, 0.0), 0.25), position=(0.2, 0.26))
    rows = settled_rows(world)
    assert [count for count, _ in rows.values()] == [2]
    assert abs(capsule.position[1] - 0.25) < 0.01



def test_time_of_impact_of_collinear_capsules():
    """A capsule (core 1 m, radius 0.1) sliding along its own axis at another from 2 m
    away, over a step that ends at the origin: the surfaces meet when the moving core's
    start is 1.2 m out, at t = 0.4. (Measured by the separating axis test alone, the
    collinear cores were at distance 0 from the start: "overlapped".)"""
    from physbook.collision.toi import HIT, sweep, time_of_impact
    capsule = pb.Capsule((0.0, 0.0), (1.0, 0.0), 0.1)
    result = time_of_impact(capsule, sweep((0.0, 0.0), (0.0, 0.0)), capsule,
                            sweep((2.0, 0.0), (0.0, 0.0)))
    assert result.state == HIT
    assert 0.4 - 1e-6 <= result.fraction <= 0.4


def test_gjk_distance_and_depth_of_round_shapes_match_the_cores():
    """Chapter 8's GJK and EPA take each shape's core and radius: distances agree with
    shapely's core distance less the radii, and depths with the narrow phase's."""
    rng = np.random.default_rng(9)
    makers = [random_capsule, random_rounded, random_segment, random_circle]
    overlapping = 0
    for _ in range(300):
        a, b = makers[int(rng.integers(4))](rng), makers[int(rng.integers(3))](rng)
        xf_a, xf_b = random_pose(rng, 0.8), random_pose(rng, 0.8)
        (core_a, r_a), (core_b, r_b) = world_core(a, xf_a), world_core(b, xf_b)
        expected = max(core_a.distance(core_b) - r_a - r_b, 0.0)
        assert abs(pb.distance(a, xf_a, b, xf_b).distance - expected) <= 1e-9
        if core_a.distance(core_b) > 0.0 and expected == 0.0:
            overlapping += 1
            depth = pb.penetration(a, xf_a, b, xf_b).depth
            assert abs(depth - (r_a + r_b - core_a.distance(core_b))) <= 1e-9
    assert overlapping > 20


def test_chapter_7_tools_and_time_of_impact_name_what_they_refuse():
    from physbook.collision.sat import clipping_steps, sat_axes
    from physbook.collision.toi import sweep, time_of_impact
    rounded = Polygon.box(0.5, 0.5, radius=0.1)
    with pytest.raises(TypeError, match="shape_b must be a Circle or a Polygon without a "
                       "radius"):
        sat_axes(Polygon.box(1, 1), IDENTITY, rounded, IDENTITY)
    with pytest.raises(TypeError, match="shape_a must be a Circle or a Polygon, got Capsule"):
        sat_axes(pb.Capsule((0, 0), (1, 0), 0.1), IDENTITY, rounded, IDENTITY)
    with pytest.raises(TypeError, match="polygon_a must be a Polygon without a radius"):
        clipping_steps(rounded, IDENTITY, Polygon.box(1, 1), IDENTITY)
    chain = pb.Chain([(3, 0), (2, 0), (1, 0), (0, 0)])
    still = sweep((0.0, 0.0), (0.0, 0.0))
    with pytest.raises(TypeError, match="shape_b must be a single shape, got a Chain"):
        time_of_impact(Circle(1.0), still, chain, still)
    with pytest.raises(TypeError, match="shape_a must be a Circle, Polygon, Capsule, Segment "
                       "or ChainSegment, got str"):
        time_of_impact("box", still, Circle(1.0), still)
