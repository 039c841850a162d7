"""GJK distance and EPA depth against shapely, SAT and closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from geometry import random_polygon, random_pose, world_polygon
from shapely.geometry import Point
from shapely.geometry import Polygon as ShapelyPolygon

import physbook as pb
from physbook.collision import gjk
from physbook.collision.gjk import minkowski_support, support_point
from physbook.collision.sat import sat_query
from physbook.constants import COINCIDENT_NORMAL, GJK_MAX_ITERATIONS
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.vec import Transform

IDENTITY = Transform()


class Ellipse:
    """An ellipse x²/a² + y²/b² ≤ 1, known only by its support function."""

    def __init__(self, a: float, b: float):
        self.a, self.b = a, b

    def support(self, direction):
        # The farthest point along d is (a²·dx, b²·dy)/sqrt(a²dx² + b²dy²).
        dx, dy = direction
        scaled = np.array([self.a**2 * dx, self.b**2 * dy])
        return scaled / math.sqrt(self.a**2 * dx**2 + self.b**2 * dy**2)

    def boundary(self, transform: Transform, count: int) -> np.ndarray:
        t = np.linspace(0.0, 2 * np.pi, count, endpoint=False)
        return transform.to_world(np.column_stack([self.a * np.cos(t), self.b * np.sin(t)]))








def test_support_points():
    box = Polygon.box(1.0, 0.5)
    pose = Transform((2.0, 1.0), np.pi / 2)  # the box now stands 1 wide, 2 tall
    np.testing.assert_allclose(support_point(box, pose, (0.1, 1.0)), [2.5, 2.0], atol=1e-12)
    np.testing.assert_allclose(support_point(Circle(0.5, (1.0, 0.0)), pose, (3.0, 4.0)),
                               [2.3, 2.4], atol=1e-12)
    # The Minkowski difference's support is s_A(d) − s_B(−d).
    np.testing.assert_allclose(
        minkowski_support(box, IDENTITY, Circle(1.0), Transform((5.0, 0.0)), (1.0, 0.0)),
        [1.0 - 4.0, -0.5 - 0.0], atol=1e-12)  # vertex (1, −0.5) wins the tie; circle (4, 0)
    with pytest.raises(ValueError, match="direction must be a non-zero vector"):
        support_point(box, pose, (0.0, 0.0))
    with pytest.raises(TypeError, match="support\\(direction\\) method"):
        support_point("box", pose, (1.0, 0.0))
    with pytest.raises(TypeError, match="transform must be a Transform"):
        support_point(box, (0.0, 0.0), (1.0, 0.0))


def test_gjk_distance_against_shapely():
    rng = np.random.default_rng(99)
    apart = 0
    for _ in range(2500):
        a, b = random_polygon(rng), random_polygon(rng)
        xf_a, xf_b = random_pose(rng, 1.5), random_pose(rng, 1.5)
        region_a, region_b = world_polygon(a, xf_a), world_polygon(b, xf_b)
        result = pb.distance(a, xf_a, b, xf_b)
        expected = region_a.distance(region_b)
        assert abs(result.distance - expected) <= 1e-9
        assert result.iterations <= GJK_MAX_ITERATIONS
        if expected > 1e-9:
            apart += 1
            assert not pb.intersect(a, xf_a, b, xf_b)
            assert math.isclose(float(np.hypot(*(result.point_b - result.point_a))),
                                result.distance, abs_tol=1e-12)
            assert region_a.distance(Point(result.point_a)) <= 1e-9
            assert region_b.distance(Point(result.point_b)) <= 1e-9
        elif region_a.intersection(region_b).area > 1e-12:
            assert pb.intersect(a, xf_a, b, xf_b)
            # One common point, inside both shapes.
            assert region_a.distance(Point(result.point_a)) <= 1e-9
            assert region_b.distance(Point(result.point_a)) <= 1e-9
    assert apart > 1000


def test_circles_are_a_point_plus_radius():
    rng = np.random.default_rng(4)
    for _ in range(500):
        polygon, pose = random_polygon(rng), random_pose(rng)
        circle = Circle(rng.uniform(0.05, 0.8), rng.normal(size=2) * 0.2)
        circle_pose = random_pose(rng, 2.0)
        centre = circle_pose.to_world(circle.center)
        region = world_polygon(polygon, pose)
        expected = max(0.0, region.distance(Point(centre)) - circle.radius)
        result = pb.distance(polygon, pose, circle, circle_pose)
        assert abs(result.distance - expected) <= 1e-9
        if expected > 0.0:
            assert math.isclose(float(np.hypot(*(result.point_b - centre))), circle.radius,
                                rel_tol=1e-12)
        # Depth: r − d outside, r + d (d to the boundary) inside, as the manifold has it.
        manifold = pb.collide(polygon, pose, circle, circle_pose)
        depth = pb.penetration(polygon, pose, circle, circle_pose)
        assert (manifold is None) == (depth is None)
        if depth is not None:
            assert math.isclose(depth.depth, manifold.depth, abs_tol=1e-9)
            np.testing.assert_allclose(depth.normal, manifold.normal, atol=1e-7)
    two = pb.distance(Circle(1.0), IDENTITY, Circle(0.5), Transform((3.0, 4.0)))
    assert two.distance == 3.5
    np.testing.assert_allclose(two.point_a, [0.6, 0.8])
    np.testing.assert_allclose(two.point_b, [2.7, 3.6])


def test_sat_depth_equals_epa_depth():
    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(2000):
        a, b = random_polygon(rng), random_polygon(rng)
        xf_a, xf_b = random_pose(rng, 0.7), random_pose(rng, 0.7)
        sat = sat_query(a, xf_a, b, xf_b)
        epa = pb.penetration(a, xf_a, b, xf_b)
        if abs(sat.depth) < 1e-9:
            continue  # touching band
        assert (epa is not None) == (sat.depth > 0.0)
        if epa is None:
            continue
        compared += 1
        assert abs(epa.depth - sat.depth) <= 1e-6
        assert math.isclose(float(np.hypot(*epa.normal)), 1.0, abs_tol=1e-12)
        # EPA's normal is a minimum translation too: B moved by it is just clear of A.
        moved = shapely.affinity.translate(world_polygon(b, xf_b), *((epa.depth + 1e-9)
                                                             * epa.normal))
        assert not moved.intersects(world_polygon(a, xf_a))
    assert compared > 800


def test_trace_walks_towards_the_origin():
    a, b = Polygon.regular(6, 1.0), Polygon.box(0.5, 2.0)
    result = pb.distance(a, IDENTITY, b, Transform((3.0, 0.7), 0.4), trace=True)
    distances = [float(np.hypot(*step.closest)) for step in result.trace]
    assert np.all(np.diff(distances) <= 1e-12)
    assert math.isclose(distances[-1], result.distance, abs_tol=1e-12)
    assert result.trace[-1].support is None
    assert len(result.trace) == result.iterations + 1
    for step in result.trace:
        assert 1 <= len(step.simplex) <= 3


def test_epa_trace_grows_the_polytope():
    a, b = Polygon.regular(8, 1.0), Polygon.regular(5, 1.0)
    result = pb.penetration(a, IDENTITY, b, Transform((1.2, 0.3), 0.2), trace=True)
    sizes = [len(step.polytope) for step in result.trace]
    assert sizes == sorted(sizes) and sizes[0] >= 3
    assert len(result.trace) == result.iterations + 1
    # The closest edge's distance from the origin only grows, up to the depth.
    gaps = []
    for step in result.trace:
        p, q = step.polytope[step.edge], step.polytope[(step.edge + 1) % len(step.polytope)]
        edge = q - p
        gaps.append(abs(edge[0] * p[1] - edge[1] * p[0]) / np.hypot(*edge))
    assert np.all(np.diff(gaps) >= -1e-12)
    assert math.isclose(gaps[-1], result.depth, rel_tol=1e-12)
    assert math.isclose(result.depth, sat_query(a, IDENTITY, b, Transform((1.2, 0.3), 0.2))
                        .depth, rel_tol=1e-12)


def test_ellipse_through_its_support_function():
    ellipse = Ellipse(2.0, 1.0)
    # A wide box whose top is at y = −0.5 cuts 0.5 off the ellipse's bottom (y = −1).
    floor = Polygon.box(50.0, 1.0, center=(0.0, -1.5))
    depth = pb.penetration(floor, IDENTITY, ellipse, IDENTITY)
    assert abs(depth.depth - 0.5) <= 1e-9
    np.testing.assert_allclose(depth.normal, [0.0, 1.0], atol=1e-9)
    # Apart: against a dense sampling of the ellipse's boundary.
    pose = Transform((1.0, 2.0), 0.7)
    box = Polygon.box(0.5, 0.3)
    box_pose = Transform((3.5, 3.5), 0.2)
    result = pb.distance(ellipse, pose, box, box_pose)
    sampled = ShapelyPolygon(ellipse.boundary(pose, 200_000)).distance(world_polygon(box, box_pose))
    assert 0.0 < result.distance <= sampled + 1e-9
    assert sampled - result.distance < 1e-8
    # An ellipse with equal axes is a circle: the same answers as the exact circle.
    round_one, circle = Ellipse(0.7, 0.7), Circle(0.7)
    for xf in (Transform((1.5, 0.4), 0.3), Transform((0.4, 0.2), 1.0)):
        exact = pb.distance(box, IDENTITY, circle, xf).distance
        assert abs(pb.distance(box, IDENTITY, round_one, xf).distance - exact) <= 1e-9
        exact_depth = pb.penetration(box, IDENTITY, circle, xf)
        approx = pb.penetration(box, IDENTITY, round_one, xf)
        assert (exact_depth is None) == (approx is None)
        if approx is not None:
            assert abs(approx.depth - exact_depth.depth) <= 1e-9


def test_degenerate_cases():
    # Coincident circle centres: the fixed normal and the full depth, no NaN.
    result = pb.penetration(Circle(1.0), Transform((2.0, 2.0)), Circle(0.5),
                            Transform((2.0, 2.0)))
    assert result.depth == 1.5
    np.testing.assert_array_equal(result.normal, COINCIDENT_NORMAL)
    # Exactly touching boxes: distance 0, depth 0.
    a = Polygon.box(0.5, 0.5)
    touching = Transform((1.0, 0.25))
    assert pb.distance(a, IDENTITY, a, touching).distance == 0.0
    depth = pb.penetration(a, IDENTITY, a, touching)
    assert depth.depth <= 1e-12
    np.testing.assert_allclose(depth.normal, [1.0, 0.0], atol=1e-12)
    # Corner on corner.
    corner = pb.penetration(a, IDENTITY, a, Transform((1.0, 1.0)))
    assert corner is not None and corner.depth <= 1e-12
    # Identical shapes in one pose, and a polygon inside another.
    same = pb.penetration(a, Transform((3.0, 1.0), 0.3), a, Transform((3.0, 1.0), 0.3))
    assert math.isclose(same.depth, 1.0, rel_tol=1e-12)
    inside = pb.penetration(Polygon.box(5.0, 5.0), IDENTITY, a, Transform((1.0, 0.2)))
    assert math.isclose(inside.depth, 4.5, rel_tol=1e-12)
    np.testing.assert_allclose(inside.normal, [1.0, 0.0], atol=1e-12)
    # Apart: None.
    assert pb.penetration(a, IDENTITY, a, Transform((1.5, 0.0))) is None


def test_bad_input():
    with pytest.raises(TypeError, match="shape_b must be a convex shape"):
        pb.distance(Circle(1.0), IDENTITY, object(), IDENTITY)
    with pytest.raises(TypeError, match="xf_a must be a Transform"):
        pb.penetration(Circle(1.0), None, Circle(1.0), IDENTITY)
    with pytest.raises(TypeError, match="trace must be True or False"):
        pb.distance(Circle(1.0), IDENTITY, Circle(1.0), IDENTITY, trace="yes")
    with pytest.raises(TypeError, match="shape_a must be a convex shape"):
        minkowski_support("x", IDENTITY, Circle(1.0), IDENTITY, (1.0, 0.0))
    core = gjk.Core(Circle(1.0), IDENTITY)
    with pytest.raises(TypeError, match="core_b must be a Core"):
        gjk.gjk(core, Circle(1.0))
    with pytest.raises(TypeError, match="keep_trace must be True or False"):
        gjk.gjk(core, core, keep_trace=1)
    with pytest.raises(ValueError, match="simplex must hold 1 to 3 points"):
        gjk.epa(core, core, np.zeros((4, 2)))
    with pytest.raises(ValueError, match="simplex must hold distinct points"):
        gjk.epa(core, core, [[1.0, 1.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="frame.scale must be positive"):
        gjk.Core(Circle(1.0), IDENTITY, gjk.CoreFrame(np.zeros(2), 0.0))
    with pytest.raises(ValueError, match="direction must be a 2D vector"):
        core.support([1.0, 0.0, 0.0])


class Garbage:
    """A shape whose support function returns what no support function may."""

    def __init__(self, answer):
        self.answer = answer

    def support(self, direction):
        return self.answer


@pytest.mark.parametrize("answer, error", [
    (np.array([np.nan, 0.0]), ValueError), ("x", TypeError), ([1.0, 2.0, 3.0], ValueError),
    (None, TypeError)])
def test_a_support_function_returning_garbage_is_named(answer, error):
    shape = Garbage(answer)
    with pytest.raises(error, match=r"shape_b\.support\(direction\)"):
        pb.distance(Circle(1.0), IDENTITY, shape, Transform((3.0, 0.0)))
    with pytest.raises(error, match=r"shape\.support\(direction\)"):
        support_point(shape, IDENTITY, (1.0, 0.0))


def test_shapes_far_out_keep_their_distance():
    # 2e160 m apart, squared lengths would overflow: the cores are scaled first.
    far = pb.distance(Circle(1.0), Transform((1e160, 0.0)), Circle(1.0),
                      Transform((-1e160, 0.0)))
    assert far.distance == 2e160 - 2.0  # the exact distance, rounded
    np.testing.assert_array_equal(far.point_a, [1e160 - 1.0, 0.0])
    assert not pb.intersect(Circle(1.0), Transform((1e160, 0.0)), Circle(1.0),
                            Transform((-1e160, 0.0)))
    # Far from the origin but near each other, they keep their metres.
    box = Polygon.box(1.0, 1.0)
    out = pb.distance(box, Transform((1e200, 0.0)), box, Transform((1e200, 3.0)))
    assert out.distance == 1.0
    np.testing.assert_array_equal(out.point_b[1], 2.0)
    overlap = pb.penetration(box, Transform((1e200, 0.0)), box, Transform((1e200, 1.5)))
    assert overlap.depth == 0.5
    np.testing.assert_array_equal(overlap.normal, [0.0, 1.0])


@pytest.mark.parametrize("exponent", [-300, 300])
def test_a_power_of_two_scale_scales_every_answer_exactly(exponent):
    # Lengths scaled by 2**k (exact) give answers scaled by 2**k, where products of four
    # scaled lengths would leave the float range.
    scale = 2.0**exponent
    rng = np.random.default_rng(exponent % 7)
    for _ in range(20):
        a, b = random_polygon(rng), random_polygon(rng)
        xf_a, xf_b = random_pose(rng), random_pose(rng)
        big_a, big_b = Polygon(a.vertices * scale), Polygon(b.vertices * scale)
        big_xf_a = Transform(xf_a.position * scale, xf_a.angle)
        big_xf_b = Transform(xf_b.position * scale, xf_b.angle)
        unit = pb.distance(a, xf_a, b, xf_b)
        scaled = pb.distance(big_a, big_xf_a, big_b, big_xf_b)
        assert math.isclose(scaled.distance, unit.distance * scale, rel_tol=1e-12,
                            abs_tol=1e-12 * scale)
        depth = pb.penetration(a, xf_a, b, xf_b)
        scaled_depth = pb.penetration(big_a, big_xf_a, big_b, big_xf_b)
        assert (depth is None) == (scaled_depth is None)
        if depth is not None:
            assert math.isclose(scaled_depth.depth, depth.depth * scale, rel_tol=1e-9,
                                abs_tol=1e-12 * scale)


def test_a_distance_beyond_the_float_range_is_reported():
    with pytest.raises(FloatingPointError, match="distance overflows"):
        pb.distance(Circle(1.0), Transform((1.7e308, 0.0)), Circle(1.0),
                    Transform((-1.7e308, 0.0)))
    # Whether they touch has an answer all the same: no.
    assert not pb.intersect(Circle(1.0), Transform((1.7e308, 0.0)), Circle(1.0),
                            Transform((-1.7e308, 0.0)))
    assert pb.penetration(Circle(1.0), Transform((1.7e308, 0.0)), Circle(1.0),
                          Transform((-1.7e308, 0.0))) is None
    with pytest.raises(FloatingPointError, match="support point of A ⊖ B overflows"):
        minkowski_support(Circle(1.0), Transform((1.7e308, 0.0)), Circle(1.0),
                          Transform((-1.7e308, 0.0)), (1.0, 0.0))
