"""The geometry layer at its limits: large outlines, refused outlines and why, sizes whose
area or mass leaves the float range, immutable shapes, argument types.

Oracles: shapely for crossings and simplicity, closed forms for regular polygons and for
mass properties, the weld rule of the constants for dropped points.
"""

from __future__ import annotations

import copy
import math
import pickle
import re
from fractions import Fraction

import numpy as np
import pytest
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import physbook as pb
from physbook.constants import WELD_TOLERANCE
from physbook.geometry import shapes
from physbook.geometry.mass import combine_mass

LARGEST = float(np.finfo(float).max)

# --- large outlines ---------------------------------------------------------------------------


def segment_distances(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of each point to its segment a→b (rows match)."""
    d = b - a
    t = np.clip(np.sum((points - a) * d, axis=1) / np.sum(d * d, axis=1), 0.0, 1.0)
    return np.hypot(*(points - a - t[:, None] * d).T)


def check_outline_of(points: np.ndarray, polygon: pb.Polygon) -> None:
    """The weld rule, point by point: the polygon keeps input points in their cyclic order,
    and each dropped point lies within r weld distances of the kept edge that spans it,
    where r is the number of points that edge replaced (each drop moves it by at most one)."""
    rows = {tuple(p): i for i, p in enumerate(points)}
    kept = np.array([rows[tuple(v)] for v in polygon.vertices])
    kept = np.roll(kept, -int(np.argmin(kept)))
    assert np.all(np.diff(kept) > 0), "kept points keep their cyclic order"
    n, m = len(points), len(kept)
    edge = (np.searchsorted(kept, np.arange(n), side="right") - 1) % m  # the edge spanning i
    start, end = kept[edge], kept[(edge + 1) % m]
    replaced = (end - start) % n - 1
    weld = WELD_TOLERANCE * float(np.max(np.ptp(points, axis=0)))
    distances = segment_distances(points, points[start], points[end])
    assert np.all(distances <= np.maximum(replaced, 1) * weld * (1 + 1e-9))


@pytest.mark.parametrize("n", [1000, 20_000, 90_000])
def test_large_regular_polygons_keep_every_vertex_and_their_area(n):
    # Below about π/√WELD_TOLERANCE ≈ 99 000 sides no vertex is within the weld distance of
    # its neighbours' chord, so all are kept, in order, and the area is n/2·r²·sin(2π/n).
    polygon = pb.Polygon.regular(n, 2.0)
    angles = 2.0 * np.pi * np.arange(n) / n
    np.testing.assert_array_equal(polygon.vertices,
                                  2.0 * np.column_stack([np.cos(angles), np.sin(angles)]))
    assert polygon.area() == pytest.approx(n / 2 * 4.0 * math.sin(2 * math.pi / n), rel=1e-12)
    assert polygon.mass_properties(1.0).inertia == pytest.approx(
        # ∫|p|² dA of a regular n-gon: (n r⁴ / 12) · sin(2π/n) · (2 + cos(2π/n))
        n * 16.0 / 12.0 * math.sin(2 * math.pi / n) * (2 + math.cos(2 * math.pi / n)),
        rel=1e-9)


def ellipse_points(n: int, rng: np.random.Generator) -> np.ndarray:
    """n points on a turned, shifted ellipse, at jittered angles: a convex outline."""
    angles = (np.arange(n) + rng.uniform(0.1, 0.9, n)) * 2.0 * np.pi / n
    turn = np.array([[0.8, 0.6], [-0.6, 0.8]])
    return np.column_stack([np.cos(angles), 0.5 * np.sin(angles)]) @ turn + (3.0, -2.0)


@pytest.mark.parametrize("make", ["regular", "ellipse", "ellipse clockwise", "square sides"])
def test_outlines_of_a_hundred_thousand_points_follow_the_weld_rule(make):
    n = 100_000
    rng = np.random.default_rng(7)
    if make == "regular":
        angles = 2.0 * np.pi * np.arange(n) / n
        points = np.column_stack([np.cos(angles), np.sin(angles)])
    elif make.startswith("ellipse"):
        points = ellipse_points(n, rng)
        if make.endswith("clockwise"):
            points = np.roll(points[::-1], 1, axis=0)
    else:  # 25 000 points along each side of a square: only its corners are corners
        t = np.arange(n // 4) / (n // 4)
        points = np.concatenate([np.column_stack([t, 0 * t]), np.column_stack([1 + 0 * t, t]),
                                 np.column_stack([1 - t, 1 + 0 * t]),
                                 np.column_stack([0 * t, 1 - t])])
    polygon = pb.Polygon(points)
    ccw = points if not make.endswith("clockwise") else np.roll(points[::-1], 1, axis=0)
    check_outline_of(ccw, polygon)
    hull = shapely.MultiPoint(points).convex_hull
    assert polygon.area() == pytest.approx(hull.area, rel=1e-8)
    if make == "square sides":
        np.testing.assert_array_equal(polygon.vertices, [(0, 0), (1, 0), (1, 1), (0, 1)])


def star(n: int, step: int) -> np.ndarray:
    """The star polygon {n/step}: n points on the unit circle, joined every ``step``-th."""
    angles = 2.0 * np.pi * step * np.arange(n) / n
    return np.column_stack([np.cos(angles), np.sin(angles)])


def named_edges(message: str) -> tuple[tuple[int, int], tuple[int, int]]:
    found = re.search(r"edge from point (\d+) to point (\d+) crosses the edge from point "
                      r"(\d+) to point (\d+)", message)
    assert found, message
    a, b, c, d = map(int, found.groups())
    return (a, b), (c, d)


def assert_edges_meet(points: np.ndarray, message: str) -> None:
    """The two edges the message names are within the weld distance of each other."""
    first, second = named_edges(message)
    weld = WELD_TOLERANCE * float(np.max(np.ptp(points, axis=0)))
    distance = shapely.LineString(points[list(first)]).distance(
        shapely.LineString(points[list(second)]))
    assert distance <= weld * (1 + 1e-9), message


@pytest.mark.parametrize(("n", "step"), [(5, 2), (7, 3), (10_001, 2), (100_001, 3)])
def test_stars_turn_left_everywhere_yet_are_refused_naming_two_crossing_edges(n, step):
    points = star(n, step)
    edges = np.roll(points, -1, axis=0) - points
    following = np.roll(edges, -1, axis=0)
    assert np.all(edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0] > 0)
    with pytest.raises(ValueError, match="must not self-intersect") as error:
        pb.Polygon(points)
    assert_edges_meet(points, str(error.value))


def test_a_large_simple_but_dented_outline_is_refused_naming_the_dent():
    # A 10 000-point circle with one point pushed inwards: simple, not convex.
    angles = 2.0 * np.pi * np.arange(10_000) / 10_000
    points = np.column_stack([np.cos(angles), np.sin(angles)])
    points[6_000] *= 0.99
    with pytest.raises(ValueError, match="must form a convex polygon: it turns inward at "
                                         "point 6000$"):
        pb.Polygon(points)


def test_without_a_search_budget_the_rule_is_still_named(monkeypatch):
    monkeypatch.setattr(shapes, "CROSSING_SEARCH_BUDGET", 0)
    with pytest.raises(ValueError, match="self-intersect: the outline turns around 2 times"):
        pb.Polygon(star(5, 2))
    with pytest.raises(ValueError, match="convex polygon: it turns inward at point 2"):
        pb.Polygon([(0, 0), (2, 0), (1, 0.5), (2, 2), (0, 2)])


points_lists = arrays(np.float64, st.tuples(st.integers(3, 9), st.just(2)),
                      elements=st.floats(-5, 5, allow_nan=False, allow_infinity=False))


@settings(max_examples=150)
@given(points=points_lists)
@example(points=np.array([[2.11918565e-206, 0.0], [0.0, 2.11918565e-206], [0.0, 0.0]]))
def test_every_refusal_of_a_point_list_is_true_by_shapely(points):
    try:
        pb.Polygon(points)
    except ValueError as error:
        message = str(error)
    else:
        return  # accepted outlines are checked against their hull in test_shapes.py
    ring = shapely.LinearRing(points) if len(np.unique(points, axis=0)) >= 3 else None
    if "crosses the edge" in message:
        assert_edges_meet(points, message)
    elif "turns inward at point" in message:
        # A simple outline whose named point is no corner of the convex hull.
        k = int(message.rsplit(" ", 1)[1])
        assert ring is not None and ring.is_simple, message
        corners = {tuple(p) for p in shapely.MultiPoint(points).convex_hull.exterior.coords}
        assert tuple(points[k]) not in corners, message
    elif "doubles back" in message:
        # The outline runs back along itself at k: the shorter of its two edges there lies
        # along the longer one, within the weld distance.
        k = int(re.search(r"at point (\d+)", message).group(1))
        weld = WELD_TOLERANCE * float(np.max(np.ptp(points, axis=0)))
        edges = sorted([points[[k - 1, k]], points[[k, (k + 1) % len(points)]]],
                       key=lambda edge: np.hypot(*(edge[1] - edge[0])))
        midpoint = shapely.Point(edges[0].mean(axis=0))
        assert shapely.LineString(edges[1]).distance(midpoint) <= weld * (1 + 1e-9), message
    elif "too small" in message:
        # A convex outline so small that its area (exact, in rationals) has no finite
        # reciprocal: the smallest usable area is 1 / the largest float.
        area = abs(sum(Fraction(x0) * Fraction(y1) - Fraction(x1) * Fraction(y0)
                       for (x0, y0), (x1, y1) in zip(points, np.roll(points, -1, axis=0),
                                                     strict=True))) / 2
        assert area < 1 / Fraction(LARGEST), message
    else:
        assert re.search("distinct|non-zero area", message), message


# --- refusals that name the size ----------------------------------------------------------


def test_box_refusals_name_the_arguments_and_the_rule():
    with pytest.raises(ValueError, match=r"half_width 1e\+200 m .* is too large: the polygon's "
                                         "area overflows"):
        pb.Polygon.box(1e200, 1e200)
    with pytest.raises(ValueError, match=r"half_height 1e-06 m .* points 1 and 2 are 2e-06 m "
                                         r"apart, within the weld tolerance 1e-09 × the "
                                         r"polygon's size 2e\+06 m = 0.002 m"):
        pb.Polygon.box(1e6, 1e-6)
    with pytest.raises(ValueError, match="half_width 1e-160 m .* is too small: the polygon's "
                                         "area falls below"):
        pb.Polygon.box(1e-160, 1e-160)
    with pytest.raises(FloatingPointError, match=r"center \[1e\+308, 0.0\].*beyond the largest"):
        pb.Polygon.box(1e308, 1.0, center=(1e308, 0.0))
    with pytest.raises(ValueError, match="radius 1e.308 m is no valid polygon: vertices span"):
        pb.Polygon.regular(5, 1e308)
    with pytest.raises(ValueError, match="n must be at most 1000000"):
        pb.Polygon.regular(10**6 + 1, 1.0)


@pytest.mark.parametrize(("radius", "problem"), [(1e-170, "too small"), (1e-155, "too small"),
                                                 (1e155, "too large"), (1e200, "too large")])
def test_a_circle_whose_area_is_no_float_is_refused(radius, problem):
    with pytest.raises(ValueError, match=f"radius .* m is {problem}: the circle's area"):
        pb.Circle(radius)


@pytest.mark.parametrize(("shape", "density", "size"), [
    (pb.Circle(1e100), 1.0, r"radius 1e\+100 m"),                # inertia overflows
    (pb.Circle(0.01), 1e-306, "radius 0.01 m"),                  # mass has no reciprocal
    (pb.Circle(1.0), 1e308, "radius 1 m"),                       # mass overflows
    (pb.Polygon.box(1e-100, 1e-100), 1.0, "polygon 2e-100 m"),   # inertia underflows
    (pb.Polygon.box(1e80, 1e80), 1.0, r"polygon 2e\+80 m"),      # inertia overflows
])
def test_mass_and_inertia_beyond_float_range_are_refused_naming_density_and_size(
        shape, density, size):
    with pytest.raises(ValueError, match=f"density .* and .*{size}.* give mass"):
        shape.mass_properties(density)


def test_extreme_but_representable_masses_are_exact():
    # ρ·π alone overflows here, ρ·π·r² does not; the closed forms are the oracle.
    data = pb.Circle(1e-5).mass_properties(1.7e308)
    assert data.mass == pytest.approx(1.7e308 * (math.pi * 1e-10), rel=1e-14)
    assert data.inertia == pytest.approx(data.mass * 1e-10 / 2, rel=1e-14)
    box = pb.Polygon.box(1e-100, 2e-100).mass_properties(1e100)  # 2e−100 × 4e−100
    assert box.mass == pytest.approx(1e100 * 8e-200, rel=1e-12)
    assert box.inertia == pytest.approx(box.mass * (4e-200 + 16e-200) / 12, rel=1e-12)
    np.testing.assert_allclose(box.centroid, 0.0, atol=1e-115)
    # Powers of two keep the corners 2**232 ± 2**200 exact: a square of side 2**201.
    far = pb.Polygon.box(2.0**200, 2.0**200, center=(2.0**232, -(2.0**232)))
    data = far.mass_properties(2.0**-330)
    assert data.mass == pytest.approx(2.0**72, rel=1e-12)
    assert data.inertia == pytest.approx(2.0**72 * 2 * 2.0**402 / 12, rel=1e-12)
    np.testing.assert_allclose(data.centroid, [2.0**232, -(2.0**232)], rtol=1e-15)


def test_mass_data_holds_only_usable_numbers():
    data = pb.MassData(2.0, 3.0, [1.0, 2.0])
    assert (data.mass, data.inertia) == (2.0, 3.0) and not data.centroid.flags.writeable
    for name, bad, error in [("mass", 0.0, ValueError), ("inertia", 1e-320, ValueError),
                             ("mass", "x", TypeError), ("centroid", [1.0], ValueError)]:
        arguments = {"mass": 1.0, "inertia": 1.0, "centroid": (0.0, 0.0), name: bad}
        with pytest.raises(error, match=name):
            pb.MassData(**arguments)


# --- compound mass ----------------------------------------------------------------------------


def test_two_halves_have_the_mass_of_the_whole():
    halves = [pb.Polygon.box(0.5, 0.5, center=(-0.5, 3.0)), pb.Polygon.box(0.5, 0.5,
                                                                            center=(0.5, 3.0))]
    whole = pb.Polygon.box(1.0, 0.5, center=(0.0, 3.0)).mass_properties(2.0)
    mass, inertia, center = combine_mass(halves, 2.0)
    assert mass == pytest.approx(whole.mass) and inertia == pytest.approx(whole.inertia)
    np.testing.assert_allclose(center, whole.centroid, atol=1e-15)


def test_combine_mass_refuses_bad_shapes_and_totals_beyond_float_range():
    with pytest.raises(TypeError, match="shapes must be a list or tuple"):
        combine_mass(pb.Circle(1.0), 1.0)
    with pytest.raises(ValueError, match="shapes must hold at least one"):
        combine_mass([], 1.0)
    with pytest.raises(TypeError, match=r"shapes\[1\] must be a Circle, Polygon, Capsule"):
        combine_mass([pb.Circle(1.0), "box"], 1.0)
    far_apart = [pb.Circle(1.0, (1e200, 0.0)), pb.Circle(1.0, (-1e200, 0.0))]
    with pytest.raises(ValueError, match="shapes at density 1 kg/m² .* inertia inf"):
        combine_mass(far_apart, 1.0)
    with pytest.raises(ValueError, match="shapes at density .* add up to mass inf"):
        combine_mass([pb.Circle(1.0), pb.Circle(1.0)], 1.5e308 / math.pi)


# --- immutable shapes -------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [pb.Circle(2.0, (1.0, -3.0)), pb.Polygon.regular(7, 1.5),
                                   pb.Polygon.box(1.0, 0.25, (3.0, 1.0), 0.3)])
def test_shapes_pickle_and_copy_to_equal_immutable_shapes(shape):
    for twin in (pickle.loads(pickle.dumps(shape)), copy.deepcopy(shape), copy.copy(shape)):
        assert type(twin) is type(shape) and repr(twin) == repr(shape)
        for name in type(shape).__slots__:
            original, copied = getattr(shape, name), getattr(twin, name)
            np.testing.assert_array_equal(copied, original)
            if isinstance(copied, np.ndarray):
                assert not copied.flags.writeable
        with pytest.raises(AttributeError, match="immutable"):
            setattr(twin, type(shape).__slots__[0], None)


def test_a_world_keeps_shapes_as_they_were_given():
    world = pb.World(gravity=(0.0, 0.0))
    circle = pb.Circle(1.0)
    body = world.add_body([circle, pb.Polygon.box(0.5, 0.5, center=(2.0, 0.0))])
    with pytest.raises(AttributeError, match="immutable"):
        circle.radius = 5.0
    world.step(1 / 60)
    assert body.shapes[0].radius == world.shapes.arrays.radius[0] == 1.0


# --- argument types and overflow of placed shapes -----------------------------------------


def test_aabb_methods_check_their_argument_and_stay_finite():
    box = pb.AABB((0.0, 0.0), (1.0, 1.0))
    for method in (box.overlaps, box.contains, box.union):
        with pytest.raises(TypeError, match="other must be an AABB, got str"):
            method("x")
    huge = pb.AABB((-1e308, -1.7e308), (1e308, 1.7e308))
    np.testing.assert_array_equal(huge.center, [0.0, 0.0])
    np.testing.assert_array_equal(huge.extents, [1e308, 1.7e308])
    with pytest.raises(FloatingPointError, match="perimeter .* overflows"):
        huge.perimeter  # noqa: B018


@pytest.mark.parametrize("shape", [pb.Circle(1.0, (1e308, 0.0)), pb.Polygon.box(1.0, 1.0)])
def test_aabb_checks_the_transform(shape):
    with pytest.raises(TypeError, match="transform must be a Transform or None, got tuple"):
        shape.aabb((0.0, 0.0))
    if isinstance(shape, pb.Circle):
        with pytest.raises(FloatingPointError, match="transform .* beyond the largest float"):
            shape.aabb(pb.Transform((1e308, 0.0)))


def test_support_in_a_direction_too_long_to_square():
    direction = (1.7e308, 1.7e308)
    np.testing.assert_allclose(pb.Circle(2.0).support(direction), [math.sqrt(2)] * 2,
                               rtol=1e-15)
    np.testing.assert_array_equal(pb.Polygon.box(1.0, 2.0).support(direction), [1.0, 2.0])
    np.testing.assert_array_equal(pb.Polygon.box(1.0, 2.0).support((5e-324, 0.0)), [1.0, -2.0])
    assert np.all(np.isfinite(pb.Circle(1.0, (LARGEST, 0.0)).support((1.0, 0.0))))
