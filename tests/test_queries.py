"""Chapter 12's queries against independent oracles: shapely for polygons (exact in double
precision for points, boxes and segments), and a second formula for circles; 1 000 random
queries of each kind on worlds of mixed shapes, at rest and after moving."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon
from shapely.geometry import box as shapely_box

import physbook as pb


def random_world(seed: int, count: int = 40, broad_phase="tree") -> pb.World:
    rng = np.random.default_rng(seed)
    world = pb.World(gravity=(0.0, 0.0), broad_phase=broad_phase)
    for _ in range(count):
        pick = rng.random()
        if pick < 0.35:
            shape = pb.Circle(rng.uniform(0.2, 1.5), center=rng.uniform(-0.3, 0.3, 2))
        elif pick < 0.7:
            shape = pb.Polygon.regular(int(rng.integers(3, 9)), rng.uniform(0.3, 1.5))
        else:
            shape = pb.Polygon.box(rng.uniform(0.1, 2.0), rng.uniform(0.1, 1.0))
        kind = "static" if rng.random() < 0.3 else "dynamic"
        world.add_body(shape, position=rng.uniform(-10, 10, 2), angle=rng.uniform(-3, 3),
                       kind=kind, filter=pb.Filter(int(rng.integers(1, 4)),
                                                   int(rng.integers(1, 4))),
                       velocity=(0.0, 0.0) if kind == "static" else rng.normal(0, 2, 2),
                       angular_velocity=0.0 if kind == "static" else rng.normal(0, 1))
    return world


def world_shapes(world: pb.World):
    """Each shape as ('circle', centre, radius) or ('polygon', shapely polygon, vertices)."""
    out = []
    for body in world.bodies:
        transform = body.transform
        for shape in body.shapes:
            if isinstance(shape, pb.Circle):
                out.append(("circle", transform.to_world(shape.center), shape.radius))
            else:
                vertices = transform.to_world(shape.vertices)
                out.append(("polygon", ShapelyPolygon(vertices), vertices))
    return out


def circle_ray(center, radius, origin, translation):
    """First t ∈ [0, 1] with |origin + t·translation − centre| = r, by the closest point
    of the line to the centre (not the quadratic the library solves); None for a miss or
    an origin inside."""
    offset = origin - center
    if offset @ offset <= radius**2:
        return None
    length2 = translation @ translation
    closest = -(offset @ translation) / length2
    miss2 = np.sum((offset + closest * translation) ** 2)
    if miss2 > radius**2:
        return None
    t = closest - np.sqrt((radius**2 - miss2) / length2)
    return t if 0.0 <= t <= 1.0 else None


def polygon_ray(polygon, origin, translation):
    """First t along the segment where it meets the polygon, from shapely; None for a
    miss or an origin inside."""
    if polygon.covers(Point(origin)):
        return None
    crossing = LineString([origin, origin + translation]).intersection(polygon)
    if crossing.is_empty:
        return None
    points = shapely.get_coordinates(crossing)
    ts = (points - origin) @ translation / (translation @ translation)
    return float(ts.min())


def expected_rays(world, shapes, origin, translation, ids, query_filter=None):
    hits = []
    for (kind, geometry, extra), shape_id in zip(shapes, ids, strict=True):
        if not passes(world, shape_id, query_filter):
            continue
        t = circle_ray(geometry, extra, origin, translation) if kind == "circle" \
            else polygon_ray(geometry, origin, translation)
        if t is not None:
            hits.append((t, shape_id))
    return sorted(hits)


def passes(world, shape_id, query_filter) -> bool:
    row = int(np.searchsorted(world.shapes.arrays.ids, shape_id))
    if world.shapes.filters.sensor[row]:
        return False
    if query_filter is None:
        return True
    shape_filter = world.shapes.filter(row)
    return bool(shape_filter.category & query_filter.mask) and bool(
        query_filter.category & shape_filter.mask)


@pytest.mark.parametrize("seed", range(4))
def test_point_box_and_ray_queries_equal_the_oracles(seed):
    rng = np.random.default_rng(seed)
    world = random_world(seed)
    for phase in range(2):
        if phase:  # after moving: the tree must follow the bodies
            for _ in range(30):
                world.step(1 / 60)
        shapes = world_shapes(world)
        ids = world.shapes.arrays.ids.tolist()
        for k in range(125):
            query_filter = None if k % 3 else pb.Filter(int(rng.integers(1, 4)),
                                                        int(rng.integers(1, 4)))
            # Points: inside when within r of a circle's centre, or covered by a polygon.
            point = rng.uniform(-12, 12, 2)
            expected = [shape_id for (kind, geometry, extra), shape_id in
                        zip(shapes, ids, strict=True) if passes(world, shape_id, query_filter)
                        and (np.sum((point - geometry) ** 2) <= extra**2 if kind == "circle"
                             else geometry.covers(Point(point)))]
            found = [ref.shape_id for ref in world.query_point(point, query_filter)]
            assert found == expected
            # Boxes: shapely's distance from a box to a circle's centre, its intersects.
            a, b = rng.uniform(-12, 12, 2), rng.uniform(-12, 12, 2)
            lower, upper = np.minimum(a, b), np.maximum(a, b)
            region = shapely_box(*lower, *upper)
            expected = [shape_id for (kind, geometry, extra), shape_id in
                        zip(shapes, ids, strict=True) if passes(world, shape_id, query_filter)
                        and (region.distance(Point(geometry)) <= extra if kind == "circle"
                             else region.intersects(geometry))]
            found = [ref.shape_id for ref in world.query_aabb(lower, upper, query_filter)]
            assert found == expected
            # Rays: every hit, nearest first, fractions within 1e-9.
            origin, end = rng.uniform(-14, 14, 2), rng.uniform(-14, 14, 2)
            translation = end - origin
            expected = expected_rays(world, shapes, origin, translation, ids, query_filter)
            hits = world.ray_cast_all(origin, translation, query_filter)
            assert [hit.shape_id for hit in hits] == [shape_id for _, shape_id in expected]
            for hit, (t, _) in zip(hits, expected, strict=True):
                assert hit.fraction == pytest.approx(t, abs=1e-9)
                np.testing.assert_allclose(hit.point, origin + t * translation, atol=1e-8)
                assert abs(np.hypot(*hit.normal) - 1.0) < 1e-12
                assert hit.normal @ translation <= 0.0  # it faces the ray
            first = world.ray_cast(origin, translation, query_filter)
            assert (first is None) == (not hits)
            if hits:
                assert first.shape_id == hits[0].shape_id


def test_ray_hit_normals_are_the_surface_normals():
    world = pb.World()
    box = world.add_body(pb.Polygon.box(1.0, 1.0), position=(0.0, 0.0), angle=0.3,
                         kind="static")
    ball = world.add_body(pb.Circle(1.0), position=(5.0, 0.0), kind="static")
    hit = world.ray_cast((-5.0, 0.2), (10.0, 0.0))
    assert hit.body == box
    # The face hit is the one whose outward normal is R(0.3)·(−1, 0).
    np.testing.assert_allclose(hit.normal, [-np.cos(0.3), -np.sin(0.3)], atol=1e-12)
    hit = world.ray_cast((5.0, 5.0), (0.0, -10.0))
    assert hit.body == ball and hit.fraction == pytest.approx(0.4)
    np.testing.assert_allclose(hit.normal, [0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(hit.point, [5.0, 1.0], atol=1e-12)


def test_a_ray_starting_inside_passes_out_and_sensors_are_not_hit():
    world = pb.World()
    world.add_body(pb.Polygon.box(1.0, 1.0), kind="static")
    zone = world.add_body(pb.Polygon.box(1.0, 1.0), position=(4.0, 0.0), kind="static",
                          sensor=True)
    wall = world.add_body(pb.Polygon.box(0.5, 3.0), position=(8.0, 0.0), kind="static")
    hits = world.ray_cast_all((0.0, 0.0), (20.0, 0.0))
    assert [hit.body for hit in hits] == [wall]  # not the box it starts in, not the zone
    assert world.query_point((4.0, 0.0)) == []
    assert [ref.body for ref in world.query_aabb((3.5, -0.1), (8.0, 0.1))] == [wall]
    assert zone.sensors == (True,)


@pytest.mark.parametrize("broad_phase", list(pb.BROAD_PHASES))
def test_queries_agree_whatever_the_broad_phase(broad_phase):
    # A world whose broad phase is not a tree keeps a tree for its queries.
    reference, other = random_world(9), random_world(9, broad_phase=broad_phase)
    for world in (reference, other):
        for _ in range(20):
            world.step(1 / 60)
    rng = np.random.default_rng(1)
    for _ in range(50):
        origin, end = rng.uniform(-12, 12, 2), rng.uniform(-12, 12, 2)
        assert [(hit.shape_id, hit.fraction) for hit in
                reference.ray_cast_all(origin, end - origin)] == \
            [(hit.shape_id, hit.fraction) for hit in other.ray_cast_all(origin, end - origin)]
        assert [ref.shape_id for ref in reference.query_point(origin)] == \
            [ref.shape_id for ref in other.query_point(origin)]


def test_queries_follow_written_positions_and_removed_bodies():
    world = pb.World(gravity=(0, 0))
    ball = world.add_body(pb.Circle(0.5), position=(0.0, 0.0))
    other = world.add_body(pb.Circle(0.5), position=(3.0, 0.0))
    assert [ref.body for ref in world.query_point((0.0, 0.0))] == [ball]
    ball.position = (10.0, 10.0)  # written between steps: queries see it at once
    assert world.query_point((0.0, 0.0)) == []
    assert [ref.body for ref in world.query_point((10.2, 10.0))] == [ball]
    world.remove_body(ball)
    assert world.query_point((10.2, 10.0)) == []
    assert [ref.body for ref in world.query_aabb((2.0, -1.0), (4.0, 1.0))] == [other]


@pytest.mark.parametrize("call, error, message", [
    (lambda world: world.query_aabb((1.0, 0.0), (0.0, 1.0)), ValueError,
     "lower must not exceed upper"),
    (lambda world: world.query_aabb((np.nan, 0.0), (1.0, 1.0)), ValueError, "lower"),
    (lambda world: world.ray_cast((0.0, 0.0), (0.0, 0.0)), ValueError,
     "translation must not be zero"),
    (lambda world: world.ray_cast((0.0, 0.0), (np.inf, 0.0)), ValueError, "translation"),
    (lambda world: world.query_point((0.0, 0.0), filter=3), TypeError,
     "filter must be a Filter or None"),
    (lambda world: pb.World(broad_phase="octree"), ValueError, "broad_phase"),
])
def test_bad_queries_are_refused_naming_the_argument(call, error, message):
    world = random_world(0, count=5)
    with pytest.raises(error, match=message):
        call(world)
