"""Shapes, bounding boxes, mass properties and support points, against independent oracles.

Areas and centroids come from shapely; inertias from an exact quadrature over scipy's
Delaunay triangulation (a different decomposition from the library's triangle fan).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial import ConvexHull, Delaunay

import physbook as pb
from physbook.constants import WELD_TOLERANCE


def hull_points(points: np.ndarray) -> np.ndarray | None:
    """The convex hull of ``points`` (CCW, scipy), or None when it is degenerate."""
    try:
        hull = ConvexHull(points)
    except Exception:  # scipy raises QhullError for flat or repeated input
        return None
    if hull.volume < 1e-3:  # 2D "volume" is the area
        return None
    vertices = points[hull.vertices]
    # Keep hulls whose corners are clearly corners: points closer together, or closer to
    # the chord of their neighbours, than 1e-6 are welded or dropped by design.
    before, after = np.roll(vertices, 1, axis=0), np.roll(vertices, -1, axis=0)
    chord = after - before
    offsets = np.abs(chord[:, 0] * (vertices - before)[:, 1]
                     - chord[:, 1] * (vertices - before)[:, 0]) / np.hypot(*chord.T)
    if np.min(offsets) < 1e-6:
        return None
    return vertices


def polar_moment_about(vertices: np.ndarray, center: np.ndarray) -> float:
    """∫|p − c|² dA over the polygon, by Delaunay triangles and the edge-midpoint rule.

    The three-point rule ∫_T f dA = A/3·(f(m₁) + f(m₂) + f(m₃)), with mᵢ the edge midpoints,
    is exact for quadratic f, so the result is exact up to rounding.
    """
    total = 0.0
    for tri in vertices[Delaunay(vertices).simplices]:
        a, b, c = tri
        area = 0.5 * abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
        mids = np.array([(a + b) / 2, (b + c) / 2, (c + a) / 2]) - center
        total += area / 3.0 * float(np.sum(mids**2))
    return total


def rounding_tolerance(magnitude: float) -> float:
    """An absolute tolerance for a few float operations on numbers up to ``magnitude``: each
    rounds by at most half an ulp, and a sum of a handful of them by a few ulps."""
    return 16 * np.finfo(float).eps * magnitude


random_points = arrays(np.float64, st.tuples(st.integers(3, 12), st.just(2)),
                       elements=st.floats(-5, 5, allow_nan=False, allow_infinity=False))


# --- mass properties ------------------------------------------------------------------------


@settings(max_examples=60)
@given(points=random_points, density=st.floats(0.1, 10.0), shift=st.tuples(
    st.floats(-50, 50), st.floats(-50, 50)))
def test_polygon_mass_properties_match_shapely_and_quadrature(points, density, shift):
    hull = hull_points(points)
    assume(hull is not None)
    hull = hull + np.array(shift)
    polygon = pb.Polygon(hull)
    reference = shapely.Polygon(hull)
    data = polygon.mass_properties(density)
    assert data.mass == pytest.approx(density * reference.area, rel=1e-9)
    centroid = np.array(reference.centroid.coords[0])
    np.testing.assert_allclose(data.centroid, centroid, atol=1e-8)
    inertia = density * polar_moment_about(hull, centroid)
    assert data.inertia == pytest.approx(inertia, rel=1e-7)
    assert polygon.area() == pytest.approx(reference.area, rel=1e-9)


def test_unit_shapes_have_the_textbook_mass_properties():
    circle = pb.Circle(1.0).mass_properties(1.0)
    assert circle.mass == pytest.approx(math.pi)
    assert circle.inertia == pytest.approx(math.pi / 2)
    np.testing.assert_array_equal(circle.centroid, [0.0, 0.0])
    box = pb.Polygon.box(1.0, 1.0).mass_properties(1.0)  # 2 × 2
    assert box.mass == pytest.approx(4.0)
    assert box.inertia == pytest.approx(8.0 / 3.0)
    np.testing.assert_allclose(box.centroid, [0.0, 0.0], atol=1e-15)


@pytest.mark.parametrize("center", [(3.0, -2.0), (1e6, 1e6), (-1e4, 2.5)])
@pytest.mark.parametrize("angle", [0.0, 0.3, 2.0])
def test_moved_box_keeps_mass_and_inertia_about_its_centroid(center, angle):
    data = pb.Polygon.box(1.0, 0.5, center=center, angle=angle).mass_properties(3.0)
    assert data.mass == pytest.approx(6.0, rel=1e-9)
    assert data.inertia == pytest.approx(6.0 * (4.0 + 1.0) / 12.0, rel=1e-6)
    np.testing.assert_allclose(data.centroid, center, rtol=1e-12, atol=1e-9)


def test_offset_circle_has_its_centre_as_centroid():
    data = pb.Circle(2.0, center=(1.0, -3.0)).mass_properties(0.5)
    assert data.mass == pytest.approx(0.5 * math.pi * 4.0)
    assert data.inertia == pytest.approx(0.5 * data.mass * 4.0)
    np.testing.assert_array_equal(data.centroid, [1.0, -3.0])


@pytest.mark.parametrize("density", [0.0, -1.0, math.nan, math.inf])
def test_mass_properties_reject_bad_density(density):
    for shape in (pb.Circle(1.0), pb.Polygon.box(1.0, 1.0)):
        with pytest.raises(ValueError, match="density"):
            shape.mass_properties(density)


# --- polygon construction -----------------------------------------------------------------


@settings(max_examples=60)
@given(points=random_points)
def test_polygon_is_ccw_with_outward_unit_normals(points):
    hull = hull_points(points)
    assume(hull is not None)
    polygon = pb.Polygon(hull[::-1])  # clockwise input
    v, n = polygon.vertices, polygon.normals
    np.testing.assert_array_equal(v[0], hull[-1])  # vertex 0 stays first
    edges = np.roll(v, -1, axis=0) - v
    cross = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(
        edges, -1, axis=0)[:, 0]
    assert np.all(cross > 0)  # every turn is to the left: counter-clockwise
    np.testing.assert_allclose(np.hypot(n[:, 0], n[:, 1]), 1.0)
    np.testing.assert_allclose(np.sum(n * edges, axis=1), 0.0, atol=1e-9)  # ⟂ edge i→i+1
    # Outward: every vertex lies behind (or on) every edge's line.
    distances = n @ v.T - np.sum(n * v, axis=1)[:, None]  # n_i · (v_j − v_i)
    assert np.all(distances <= 1e-9)
    assert {tuple(p) for p in v} == {tuple(p) for p in hull}


@settings(max_examples=40)
@given(points=random_points, picks=st.lists(st.tuples(st.integers(0, 20), st.floats(0.1, 0.9)),
                                             min_size=1, max_size=5))
def test_collinear_points_on_edges_are_dropped(points, picks):
    hull = hull_points(points)
    assume(hull is not None)
    outline = [tuple(p) for p in hull]
    for edge, t in picks:  # insert points inside edges
        i = edge % len(outline)
        a, b = np.array(outline[i]), np.array(outline[(i + 1) % len(outline)])
        outline.insert(i + 1, tuple(a + t * (b - a)))
    polygon = pb.Polygon(outline)
    assert {tuple(p) for p in polygon.vertices} == {tuple(p) for p in hull}


def test_collinear_runs_along_one_side_are_dropped():
    # Two edges on the bottom line do not touch each other: this is not a self-intersection.
    polygon = pb.Polygon([(0, 0), (1, 0), (2, 0), (3, 0), (3, 1)])
    np.testing.assert_array_equal(polygon.vertices, [(0, 0), (3, 0), (3, 1)])
    square = pb.Polygon([(0, 0), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1)])
    np.testing.assert_array_equal(square.vertices, [(0, 0), (2, 0), (2, 2), (0, 2)])
    np.testing.assert_array_equal(square.normals, [(0, -1), (1, 0), (0, 1), (-1, 0)])


@pytest.mark.parametrize(
    ("vertices", "rule"),
    [
        ([(0, 0), (2, 0), (1, 0.5), (2, 2), (0, 2)], "convex"),  # dented
        ([(0, 0), (2, 2), (2, 0), (0, 2)], "self-intersect"),  # bow tie
        ([(0, 0), (1, 0), (1, 1), (0.5, -1), (0, 1)], "self-intersect"),
        ([(0, 0), (2, 0), (1, 0), (1, 1)], "self-intersect"),  # doubles back along an edge
        ([(0, 0), (1, 1), (2, 2)], "non-zero area"),
        ([(0, 0), (1, 1), (2, 2), (3, 3)], "non-zero area"),
        ([(0, 0), (1, 0), (1, 0), (0, 1)], "distinct"),
        ([(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)], "distinct"),  # closed ring
        ([(0, 0), (1, 0)], "at least 3"),
        ([(0, 0, 0), (1, 0, 0), (0, 1, 0)], "shape"),
        ([(0, 0), (1, math.nan), (0, 1)], "finite"),
        ([(0, 0), (math.inf, 0), (0, 1)], "finite"),
        ([[0, 0], [1, 0], [1, 1], [0.9, 0.2], [0.0, 1.0], [2.0, 2.0]], "convex|self-intersect"),
    ],
)
def test_bad_polygons_raise_naming_the_rule(vertices, rule):
    with pytest.raises(ValueError, match=rule):
        pb.Polygon(vertices)


def test_polygon_rejects_non_numeric_input():
    with pytest.raises(TypeError, match="vertices"):
        pb.Polygon([("a", "b"), (1, 0), (0, 1)])


@settings(max_examples=80)
@given(points=random_points)
def test_any_point_list_is_a_valid_convex_polygon_or_raises_value_error(points):
    # In the given order the points form a convex polygon (then it is their hull), or
    # the constructor raises ValueError: never another error, never a wrong polygon.
    try:
        polygon = pb.Polygon(points)
    except ValueError:
        return
    hull = shapely.MultiPoint(points).convex_hull
    assert polygon.area() == pytest.approx(hull.area, rel=1e-9)
    # Every vertex is a corner of the hull, and a corner of the hull is missing only if the
    # polygon dropped it as collinear: within the weld tolerance of the polygon's outline.
    corners = np.array(hull.exterior.coords[:-1])
    kept = [np.min(np.hypot(*(corners - v).T)) for v in polygon.vertices]
    assert max(kept) == 0.0
    # Each drop moves the outline by at most the weld distance, so after d drops a dropped
    # corner lies within d weld distances of it.
    weld = WELD_TOLERANCE * float(np.max(np.ptp(points, axis=0)))
    dropped = len(corners) - len(polygon.vertices)
    outline = shapely.LinearRing(polygon.vertices)
    for corner in corners:
        assert outline.distance(shapely.Point(corner)) <= dropped * weld * (1 + 1e-9)


def test_box_and_regular_constructors():
    box = pb.Polygon.box(2.0, 1.0, center=(1.0, 1.0), angle=math.pi / 2)
    np.testing.assert_allclose(box.vertices, [(2, -1), (2, 3), (0, 3), (0, -1)], atol=1e-12)
    for n in (3, 5, 8):
        polygon = pb.Polygon.regular(n, 2.0)
        np.testing.assert_allclose(polygon.vertices[0], [2.0, 0.0])
        np.testing.assert_allclose(np.hypot(*polygon.vertices.T), 2.0)
        angles = np.unwrap(np.arctan2(polygon.vertices[:, 1], polygon.vertices[:, 0]))
        assert np.all(np.diff(angles) > 0)  # counter-clockwise
        assert polygon.area() == pytest.approx(n / 2 * 4.0 * math.sin(2 * math.pi / n))
    with pytest.raises(ValueError, match="n"):
        pb.Polygon.regular(2, 1.0)
    with pytest.raises(ValueError, match="half_width"):
        pb.Polygon.box(0.0, 1.0)
    with pytest.raises(ValueError, match="radius"):
        pb.Polygon.regular(4, -1.0)


@pytest.mark.parametrize("radius", [0.0, -1.0, math.nan, math.inf])
def test_circle_rejects_bad_radius(radius):
    with pytest.raises(ValueError, match="radius"):
        pb.Circle(radius)


def test_circle_rejects_bad_center():
    with pytest.raises(ValueError, match="center"):
        pb.Circle(1.0, center=(math.nan, 0.0))


def test_shapes_are_immutable():
    polygon = pb.Polygon.box(1.0, 1.0)
    circle = pb.Circle(1.0)
    with pytest.raises(ValueError, match="read-only"):
        polygon.vertices[0, 0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        circle.center[0] = 1.0
    for shape, name, value in [(circle, "radius", 5.0), (circle, "center", (1.0, 1.0)),
                               (polygon, "vertices", np.zeros((1, 2))),
                               (polygon, "normals", None), (circle, "colour", "red")]:
        with pytest.raises(AttributeError, match=f"immutable, so {name} cannot be changed.*new"):
            setattr(shape, name, value)
        with pytest.raises(AttributeError, match="immutable"):
            delattr(shape, name)
    assert circle.radius == 1.0 and polygon.vertices.shape == (4, 2)


# --- AABB -------------------------------------------------------------------------------------


boxes = st.tuples(st.floats(-5, 5), st.floats(-5, 5), st.floats(0, 4), st.floats(0, 4)).map(
    lambda t: pb.AABB((t[0], t[1]), (t[0] + t[2], t[1] + t[3])))


@settings(max_examples=100)
@given(a=boxes, b=boxes)
def test_aabb_operations_against_brute_force(a, b):
    # Brute force on a grid of sample points: overlap iff some shared point exists.
    def interval_overlap(lo1, hi1, lo2, hi2):
        return max(lo1, lo2) <= min(hi1, hi2)

    expected = all(interval_overlap(a.lower[k], a.upper[k], b.lower[k], b.upper[k])
                   for k in range(2))
    assert a.overlaps(b) == expected == b.overlaps(a)
    union = a.union(b)
    corners = np.array([a.lower, a.upper, b.lower, b.upper])
    np.testing.assert_array_equal(union.lower, corners.min(axis=0))
    np.testing.assert_array_equal(union.upper, corners.max(axis=0))
    assert union.contains(a) and union.contains(b)
    assert a.contains(b) == (all(a.lower <= b.lower) and all(b.upper <= a.upper))
    width, height = a.upper - a.lower
    assert a.perimeter == pytest.approx(2 * (width + height))
    np.testing.assert_allclose(a.center, (a.lower + a.upper) / 2)
    for corner in (b.lower, b.upper):
        assert a.contains_point(corner) == (all(a.lower <= corner) and all(corner <= a.upper))


def test_aabb_rejects_inverted_or_bad_corners():
    with pytest.raises(ValueError, match="lower"):
        pb.AABB((1.0, 0.0), (0.0, 1.0))
    with pytest.raises(ValueError, match="upper"):
        pb.AABB((0.0, 0.0), (math.inf, 1.0))


@settings(max_examples=40)
@given(points=random_points, x=st.floats(-10, 10), y=st.floats(-10, 10),
       angle=st.floats(-4, 4), radius=st.floats(0.1, 3))
def test_shape_aabb_bounds_the_transformed_shape_tightly(points, x, y, angle, radius):
    transform = pb.Transform((x, y), angle)
    hull = hull_points(points)
    assume(hull is not None)
    polygon = pb.Polygon(hull)
    world = transform.to_world(polygon.vertices)
    box = polygon.aabb(transform)
    np.testing.assert_allclose(box.lower, world.min(axis=0))
    np.testing.assert_allclose(box.upper, world.max(axis=0))
    # A circle's rim reaches exactly r beyond its centre along each axis, so its box is the
    # world centre ± r; the centre is placed here by hand, R(θ)·c + (x, y).
    circle = pb.Circle(radius, center=hull[0])
    cx, cy = hull[0]
    center = np.array([math.cos(angle) * cx - math.sin(angle) * cy + x,
                       math.sin(angle) * cx + math.cos(angle) * cy + y])
    box = circle.aabb(transform)
    tolerance = rounding_tolerance(abs(x) + abs(y) + abs(cx) + abs(cy) + radius)
    np.testing.assert_allclose(box.lower, center - radius, rtol=0, atol=tolerance)
    np.testing.assert_allclose(box.upper, center + radius, rtol=0, atol=tolerance)
    np.testing.assert_array_equal(circle.aabb().lower, hull[0] - radius)


# --- support points -------------------------------------------------------------------------


@settings(max_examples=60)
@given(points=random_points, direction_angle=st.floats(-4, 4), scale=st.floats(0.01, 100))
def test_support_is_the_farthest_point_in_a_direction(points, direction_angle, scale):
    hull = hull_points(points)
    assume(hull is not None)
    direction = scale * np.array([math.cos(direction_angle), math.sin(direction_angle)])
    polygon = pb.Polygon(hull)
    support = polygon.support(direction)
    assert any(np.array_equal(support, v) for v in polygon.vertices)
    assert support @ direction == pytest.approx(np.max(hull @ direction), abs=1e-9)
    # The farthest point of a circle in direction d is its centre plus r along d; here d's
    # unit vector is known exactly from how it was drawn, (cos a, sin a).
    circle = pb.Circle(1.5, center=(1.0, 2.0))
    expected = np.array([1.0 + 1.5 * math.cos(direction_angle),
                         2.0 + 1.5 * math.sin(direction_angle)])
    np.testing.assert_allclose(circle.support(direction), expected, rtol=0,
                               atol=rounding_tolerance(2.0 + 1.5))


def test_support_rejects_zero_or_bad_direction():
    for shape in (pb.Circle(1.0), pb.Polygon.box(1.0, 1.0)):
        with pytest.raises(ValueError, match="direction"):
            shape.support((0.0, 0.0))
        with pytest.raises(ValueError, match="direction"):
            shape.support((math.nan, 1.0))
