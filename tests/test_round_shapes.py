"""Capsules, rounded polygons, segments and chains (chapter 15): their checks, exact mass,
boxes, support points, table rows and pickles, against closed forms and shapely."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon

import physbook as pb
from physbook.geometry.mass import combine_mass
from physbook.geometry.shape_table import ShapeTable, shape_aabbs
from physbook.kinds import CAPSULE, CHAIN_SEGMENT, POLYGON, SEGMENT
from physbook.stages import broad_phase_input
from physbook.vecmath.vec import Transform

RNG_SEED = 1815


def capsule_inertia(length: float, radius: float, density: float) -> float:
    """A capsule's inertia about its centre, the closed form written out term by term:
    rectangle 2r × L, plus a disk split in two and moved out by L/2, whose half disks'
    centroids lie 4r/(3π) beyond the cut: πr²(r²/2 + L²/4) + πr²·(L/2)·2·4r/(3π)."""
    rectangle = 2.0 * radius * length * (length**2 + 4.0 * radius**2) / 12.0
    disk = (math.pi * radius**2 * (radius**2 / 2.0 + length**2 / 4.0)
            + 4.0 / 3.0 * length * radius**3)
    return density * (rectangle + disk)


def rounded_box_inertia(a: float, b: float, r: float, density: float) -> float:
    """A rounded box's polar moment about its centre: core 2a × 2b, four strips of width r
    and four quarter disks that together make a disk, each at its corner (±a, ±b)."""
    core = 4.0 * a * b * (a * a + b * b) / 3.0
    horizontal = 2.0 * (2.0 * a * r * ((2.0 * a) ** 2 + r * r) / 12.0
                        + 2.0 * a * r * (b + r / 2.0) ** 2)
    vertical = 2.0 * (2.0 * b * r * ((2.0 * b) ** 2 + r * r) / 12.0
                      + 2.0 * b * r * (a + r / 2.0) ** 2)
    # Quarter disk at (a, b) spanning angles 0..π/2: ∫|v + q|² = πr⁴/8 + 2 v·∫q + (πr²/4)|v|²
    # with ∫q = (r³/3, r³/3); four of them by symmetry.
    corners = (math.pi * r**4 / 2.0 + 8.0 / 3.0 * r**3 * (a + b)
               + math.pi * r * r * (a * a + b * b))
    return density * (core + horizontal + vertical + corners)


def polygon_moments(outline: np.ndarray) -> tuple[float, np.ndarray, float]:
    """Area, centroid and polar moment about the centroid of a simple polygon (shoelace),
    for shapely's sampled outlines."""
    x, y = outline[:, 0], outline[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cross = x * y1 - x1 * y
    area = cross.sum() / 2.0
    centroid = np.array([((x + x1) * cross).sum(), ((y + y1) * cross).sum()]) / (6.0 * area)
    polar = ((x * x + x * x1 + x1 * x1 + y * y + y * y1 + y1 * y1) * cross).sum() / 12.0
    return area, centroid, polar - area * centroid @ centroid


def buffered(geometry, radius: float) -> np.ndarray:
    """The outline of ``geometry`` grown by ``radius``, counter-clockwise, arcs sampled by
    4 096 chords per quarter turn (each chord's segment loses about θ³r²/12 of area, θ =
    π/8 192: a relative error near 1e-8)."""
    grown = shapely.geometry.polygon.orient(shapely.buffer(geometry, radius, quad_segs=4096))
    return np.asarray(grown.exterior.coords)[:-1]


# --- mass -----------------------------------------------------------------------------


def test_capsule_mass_equals_the_closed_form():
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(200):
        c1, c2 = rng.uniform(-3, 3, (2, 2))
        radius, density = rng.uniform(0.01, 2.0), rng.uniform(0.1, 10.0)
        capsule = pb.Capsule(c1, c2, radius)
        length = math.hypot(*(c2 - c1))
        data = capsule.mass_properties(density)
        mass = density * (2.0 * radius * length + math.pi * radius**2)
        assert data.mass == pytest.approx(mass, rel=1e-12)
        assert data.inertia == pytest.approx(capsule_inertia(length, radius, density), rel=1e-12)
        np.testing.assert_allclose(data.centroid, (c1 + c2) / 2.0, rtol=0, atol=1e-15)
        assert capsule.area() == pytest.approx(mass / density, rel=1e-12)


def test_rounded_box_mass_equals_the_closed_form_anywhere_it_is_put():
    rng = np.random.default_rng(RNG_SEED + 1)
    for _ in range(200):
        a, b = rng.uniform(0.01, 3.0, 2)
        r, density = rng.uniform(0.001, 2.0), rng.uniform(0.1, 10.0)
        center, angle = rng.uniform(-5, 5, 2), rng.uniform(-np.pi, np.pi)
        box = pb.Polygon.box(a, b, center=center, angle=angle, radius=r)
        data = box.mass_properties(density)
        area = 4 * a * b + 4 * r * (a + b) + math.pi * r * r
        assert box.area() == pytest.approx(area, rel=1e-12)
        assert data.mass == pytest.approx(density * area, rel=1e-12)
        assert data.inertia == pytest.approx(rounded_box_inertia(a, b, r, density), rel=1e-12)
        np.testing.assert_allclose(data.centroid, center, rtol=0, atol=1e-12 * (1 + a + b + r))


def test_rounded_polygon_mass_matches_shapely_buffer():
    """A general rounded polygon against its outline sampled by shapely (4 096 points per
    quarter turn): the sampled arcs lie inside the true ones, so agreement is to about the
    sampling's relative error, 1e-6."""
    rng = np.random.default_rng(RNG_SEED + 2)
    for _ in range(20):
        hull = pb.convex_hull(rng.uniform(-1, 1, (8, 2)))
        polygon = pb.Polygon(hull, radius=rng.uniform(0.01, 0.5))
        area, centroid, inertia = polygon_moments(
            buffered(ShapelyPolygon(polygon.vertices), polygon.radius))
        data = polygon.mass_properties(1.0)
        assert polygon.area() == pytest.approx(area, rel=1e-6)
        assert data.inertia == pytest.approx(inertia, rel=1e-6)
        np.testing.assert_allclose(data.centroid, centroid, atol=1e-6)


def test_capsule_mass_matches_shapely_buffer():
    capsule = pb.Capsule((0.3, -0.2), (1.4, 0.5), 0.35)
    area, centroid, inertia = polygon_moments(
        buffered(LineString([capsule.center1, capsule.center2]), capsule.radius))
    data = capsule.mass_properties(1.0)
    assert data.mass == pytest.approx(area, rel=1e-6)
    assert data.inertia == pytest.approx(inertia, rel=1e-6)
    np.testing.assert_allclose(data.centroid, centroid, atol=1e-6)


def test_radius_zero_gives_the_sharp_polygons_numbers_bit_for_bit():
    rng = np.random.default_rng(RNG_SEED + 3)
    for _ in range(50):
        sharp = pb.Polygon(pb.convex_hull(rng.uniform(-2, 2, (7, 2))))
        same = pb.Polygon(sharp.vertices, radius=0.0)
        for a, b in ((sharp, same), (sharp, sharp.rounded(0.0))):
            assert a.mass_properties(2.5).inertia == b.mass_properties(2.5).inertia
            assert a.area() == b.area()
            assert np.array_equal(a.mass_properties(2.5).centroid,
                                  b.mass_properties(2.5).centroid)


def test_huge_radius_on_a_tiny_core_keeps_its_numbers_in_range():
    box = pb.Polygon.box(1e-6, 1e-6, radius=1e3)
    data = box.mass_properties(1.0)
    assert data.inertia == pytest.approx(math.pi * 1e12 / 2.0, rel=1e-5)  # nearly a disk


def test_segments_and_chains_have_no_mass_and_say_where_they_belong():
    for shape in (pb.Segment((0, 0), (1, 0)),
                  pb.ChainSegment((-1, 0), (0, 0), (1, 0), (2, 0))):
        assert shape.area() == 0.0
        with pytest.raises(ValueError, match="static or kinematic"):
            shape.mass_properties(1.0)


def test_combine_mass_skips_segments_and_a_wire_body_has_its_centre_on_the_wire():
    box = pb.Polygon.box(0.5, 0.5)
    with_segment = combine_mass([box, pb.Segment((3, 0), (4, 0))], 1.0)
    alone = combine_mass([box], 1.0)
    assert with_segment[:2] == alone[:2]
    mass, inertia, center = combine_mass([pb.Segment((0, 0), (2, 0)),
                                          pb.Segment((2, 0), (2, 1))], 1.0)
    assert (mass, inertia) == (0.0, 0.0)
    np.testing.assert_allclose(center, (2 * np.array([1, 0]) + 1 * np.array([2, 0.5])) / 3)


# --- boxes and support points -----------------------------------------------------------


def random_shapes(rng):
    c1, c2 = rng.uniform(-1, 1, (2, 2))
    points = rng.uniform(-1, 1, (4, 2))
    yield pb.Capsule(c1, c2, rng.uniform(0.05, 0.5))
    yield pb.Polygon(pb.convex_hull(rng.uniform(-1, 1, (6, 2))), radius=rng.uniform(0.01, 0.4))
    yield pb.Segment(c1, c2)
    yield pb.ChainSegment(*points)


def shapely_core(shape, transform: Transform):
    points = transform.to_world(shape.core()[0])
    return LineString(points) if len(points) == 2 else ShapelyPolygon(points)


def test_boxes_and_support_points_agree_with_shapely():
    rng = np.random.default_rng(RNG_SEED + 4)
    for _ in range(100):
        transform = Transform(rng.uniform(-3, 3, 2), rng.uniform(-np.pi, np.pi))
        for shape in random_shapes(rng):
            radius = shape.core()[1]
            geometry = shapely_core(shape, transform)
            low_x, low_y, high_x, high_y = geometry.bounds
            box = shape.aabb(transform)
            np.testing.assert_allclose(box.lower, (low_x - radius, low_y - radius), atol=1e-12)
            np.testing.assert_allclose(box.upper, (high_x + radius, high_y + radius), atol=1e-12)
            direction = rng.normal(size=2)
            local = shapely_core(shape, Transform((0.0, 0.0), 0.0))
            farthest = shape.support(direction) @ direction
            reach = max(np.asarray(local.exterior.coords if radius and len(
                shape.core()[0]) > 2 else local.coords) @ direction) + radius * np.hypot(
                *direction)
            assert farthest == pytest.approx(reach, abs=1e-12)


def test_capsule_box_through_the_table_equals_the_shapes_box():
    rng = np.random.default_rng(RNG_SEED + 5)
    table = ShapeTable()
    shapes = [shape for _ in range(20) for shape in random_shapes(rng)]
    for shape in shapes:
        table.append(shape, 0)
    origin, angle = rng.uniform(-2, 2, 2), 0.7
    lower, upper = np.empty((len(shapes), 2)), np.empty((len(shapes), 2))
    shape_aabbs(table.arrays, origin[None, :], np.array([angle]), np.zeros(len(shapes)),
                lower, upper)
    for s, shape in enumerate(shapes):
        box = shape.aabb(Transform(origin, angle))
        np.testing.assert_allclose(lower[s], box.lower, atol=1e-12)
        np.testing.assert_allclose(upper[s], box.upper, atol=1e-12)


# --- table rows ----------------------------------------------------------------------


def test_table_rows_of_each_new_shape():
    table = ShapeTable()
    table.append(pb.Capsule((0, 0), (2, 0), 0.5), 0)
    table.append(pb.Segment((0, 0), (0, 3)), 0)
    table.append(pb.ChainSegment((-1, 1), (0, 0), (1, 0), (2, 1)), 0)
    table.append(pb.Polygon.box(1, 1, radius=0.25), 0)
    rows = table.arrays
    assert rows.kind.tolist() == [CAPSULE, SEGMENT, CHAIN_SEGMENT, POLYGON]
    assert rows.radius.tolist() == [0.5, 0.0, 0.0, 0.25]
    assert rows.vertex_count.tolist() == [2, 2, 4, 4]
    np.testing.assert_array_equal(rows.normals[0:2], [[0, -1], [0, 1]])  # right of +x: −y
    np.testing.assert_array_equal(rows.normals[2:4], [[1, 0], [-1, 0]])
    chain = slice(4, 8)
    np.testing.assert_array_equal(rows.vertices[chain], [[0, 0], [1, 0], [-1, 1], [2, 1]])
    s = math.sqrt(0.5)
    np.testing.assert_allclose(rows.normals[chain], [[0, -1], [0, 1], [-s, -s], [s, -s]])
    assert not np.any(np.signbit(rows.normals[:8]) & (rows.normals[:8] == 0.0))  # no −0.0


def test_a_chain_is_appended_segment_by_segment_not_whole():
    with pytest.raises(TypeError, match="segments"):
        ShapeTable().append(pb.Chain([(0, 0), (1, 0), (2, 0), (3, 0)]), 0)


# --- chains --------------------------------------------------------------------------


def test_open_chain_makes_n_minus_3_segments_with_its_ends_as_ghosts():
    points = np.array([(4.0, 0), (3, 0), (2, 0.5), (1, 0), (0, 0), (-1, 0)])
    chain = pb.Chain(points)
    assert len(chain) == len(points) - 3
    for k, segment in enumerate(chain.segments):
        np.testing.assert_array_equal(
            [segment.ghost1, segment.point1, segment.point2, segment.ghost2], points[k:k + 4])
    assert repr(chain) == "Chain(6 points, open: 3 segments)"


def test_loop_chain_makes_n_segments_around():
    square = np.array([(0.0, 0), (1, 0), (1, 1), (0, 1)])
    chain = pb.Chain(square, loop=True)
    assert len(chain) == 4
    last = chain.segments[-1]
    np.testing.assert_array_equal([last.ghost1, last.point1, last.point2, last.ghost2],
                                  square[[2, 3, 0, 1]])
    # Counter-clockwise: every normal points out of the square.
    for segment in chain.segments:
        middle = (segment.point1 + segment.point2) / 2
        assert not ShapelyPolygon(square).contains(Point(middle + 0.01 * segment.normal))


def test_reversed_chain_faces_the_other_way():
    chain = pb.Chain([(3, 0), (2, 0), (1, 0), (0, 0)])
    assert chain.segments[0].normal.tolist() == [0.0, 1.0]
    assert chain.reversed().segments[0].normal.tolist() == [0.0, -1.0]


@pytest.mark.parametrize("points, loop, match", [
    ([(0, 0), (1, 0), (2, 0)], False, "at least 4 points"),
    ([(0, 0), (1, 0)], True, "at least 3 points"),
    ([(0, 0), (1, 0), (1.001, 0), (2, 0)], False, "points 1 and 2 are 0.001 m apart"),
    ([(0, 0), (2, 0), (1, 0), (3, 0)], False, "fold back"),
    ([(0, 0), (2, 0), (2, 1), (1, -1), (0, -2)], False, "edge from point 0 to point 1 meets "
                                                        "the edge from point 2 to point 3"),
    ([(0, 0), (2, 0), (0, 2), (2, 2)], True, "must not cross"),
    ([(0, 0), (1, 0), (np.nan, 1), (2, 2)], False, "finite"),
])
def test_bad_chains_are_refused_naming_the_rule(points, loop, match):
    with pytest.raises(ValueError, match=match):
        pb.Chain(points, loop=loop)


def test_bad_shapes_are_refused_naming_the_argument():
    with pytest.raises(ValueError, match="center1 and center2 must lie more than 1e-09 × radius"):
        pb.Capsule((1, 1), (1, 1), 0.5)
    with pytest.raises(ValueError, match="radius must be positive"):
        pb.Capsule((0, 0), (1, 1), 0.0)
    with pytest.raises(ValueError, match="at least 0.01 m long"):
        pb.Segment((0, 0), (0.001, 0))
    with pytest.raises(ValueError, match="radius must be non-negative"):
        pb.Polygon.box(1, 1, radius=-0.1)
    with pytest.raises(ValueError, match="fold back on itself at point2"):
        pb.ChainSegment((0, 0), (1, 0), (2, 0), (1.5, 0))
    with pytest.raises(ValueError, match="overflows"):
        pb.Capsule((0, 0), (1e200, 0), 1e200)


def test_every_new_shape_and_a_chain_survive_pickling_and_stay_immutable():
    shapes = [pb.Capsule((0, 0), (1, 0), 0.2), pb.Polygon.box(1, 2, radius=0.1),
              pb.Segment((0, 0), (1, 1)), pb.ChainSegment((-1, 0), (0, 0), (1, 0), (2, 1)),
              pb.Chain([(0, 0), (1, 0), (1, 1)], loop=True)]
    for shape in shapes:
        copy = pickle.loads(pickle.dumps(shape))
        assert repr(copy) == repr(shape)
        with pytest.raises(AttributeError, match="immutable"):
            shape.radius = 3.0
    assert pickle.loads(pickle.dumps(shapes[1])).radius == 0.1


# --- bodies ---------------------------------------------------------------------------


def test_a_dynamic_body_refuses_segments_and_chains():
    world = pb.World()
    for shape in (pb.Segment((0, 0), (1, 0)), pb.Chain([(0, 0), (1, 0), (1, 1)], loop=True)):
        with pytest.raises(ValueError, match="kind must be 'static' or 'kinematic'"):
            world.add_body(shape)
    assert len(world.bodies) == 0


def test_making_a_chain_body_dynamic_is_refused_and_changes_nothing():
    world = pb.World()
    ground = world.add_body(pb.Chain([(3, 0), (2, 0), (1, 0), (0, 0)]), kind="static")
    before = pickle.dumps(world)
    with pytest.raises(ValueError, match="kind must be 'static' or 'kinematic'"):
        ground.kind = "dynamic"
    assert pickle.dumps(world) == before


def test_a_chain_body_gets_one_shape_per_segment_and_the_chains_filter_for_each():
    world = pb.World()
    chain = pb.Chain([(5, 0), (4, 0), (3, 0), (2, 0), (1, 0), (0, 0)])
    wall = pb.Segment((0, 0), (0, 2))
    body = world.add_body([chain, wall], kind="static",
                          filter=[pb.Filter(category=2), pb.Filter(category=4)])
    assert body.shapes == (*chain.segments, wall)
    _, filters = broad_phase_input(world)
    assert filters.category.tolist() == [2, 2, 2, 4]
    with pytest.raises(ValueError, match="one per shape given \\(2\\)"):
        world.add_body([chain, wall], kind="static", sensor=[False, False, False, False])


def test_capsule_and_rounded_bodies_get_their_exact_mass():
    world = pb.World()
    capsule = pb.Capsule((-0.5, 0), (0.5, 0), 0.25)
    body = world.add_body(capsule, material=pb.Material(density=2.0))
    data = capsule.mass_properties(2.0)
    assert (body.mass, body.inertia) == (data.mass, data.inertia)
