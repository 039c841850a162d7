"""Chapter 14's convex hulls and outline predicates, against scipy's Qhull and shapely."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.spatial
import shapely

import physbook as pb
from physbook.geometry import hull

SETS_PER_KIND = 400


def point_set(kind: str, rng) -> np.ndarray:
    """One random set of the kinds the hull must handle."""
    n = int(rng.integers(3, 300))
    if kind == "normal":
        return rng.normal(size=(n, 2)) * rng.uniform(1e-3, 1e3)
    if kind == "grid":  # collinear runs and duplicates, exactly
        return rng.integers(-6, 7, size=(n, 2)).astype(float) * 0.5
    if kind == "circle":  # every point a corner
        angles = rng.permutation(np.linspace(0.0, 2 * np.pi, n, endpoint=False))
        return np.column_stack([np.cos(angles), np.sin(angles)]) * 4.0 + 1.0
    if kind == "duplicates":
        points = rng.uniform(-1, 1, (n, 2))
        return np.vstack([points, points[rng.integers(0, n, n)]])
    # A triangle's edges sampled on exact binary fractions: long collinear runs.
    t = np.arange(n) / 64.0
    return rng.permutation(np.vstack([np.column_stack([t, 0 * t]), np.column_stack([0 * t, t]),
                                      np.column_stack([t, t[-1] - t])]))


KINDS = ["normal", "grid", "circle", "duplicates", "triangle_edges"]


def corners_by_qhull(points) -> set:
    return {tuple(p) for p in points[scipy.spatial.ConvexHull(points).vertices]}


@pytest.mark.parametrize("kind", KINDS)
def test_hulls_equal_qhulls_corners_and_the_methods_agree(kind):
    rng = np.random.default_rng(KINDS.index(kind))
    for _ in range(SETS_PER_KIND):
        points = point_set(kind, rng)
        try:
            expected = corners_by_qhull(points)
        except scipy.spatial.QhullError:  # a few grid draws fall on one line: no hull
            for method in pb.HULL_METHODS:
                with pytest.raises(ValueError, match="not on one line"):
                    pb.convex_hull(points, method)
            continue
        by_method = [pb.convex_hull(points, method) for method in pb.HULL_METHODS]
        for corners in by_method:
            assert {tuple(p) for p in corners} == expected
            np.testing.assert_array_equal(corners, by_method[0])
        # Counter-clockwise from the lowest of the leftmost corners, and convex.
        assert tuple(by_method[0][0]) == min(expected)
        assert shapely.Polygon(by_method[0]).exterior.is_ccw and pb.is_convex(by_method[0])


def test_a_hundred_thousand_points():
    points = np.random.default_rng(7).normal(size=(100_000, 2))
    expected = corners_by_qhull(points)
    for method in pb.HULL_METHODS:
        assert {tuple(p) for p in pb.convex_hull(points, method)} == expected


def test_every_point_on_a_circle_is_a_corner():
    angles = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
    points = np.column_stack([np.cos(angles), np.sin(angles)])
    for method in pb.HULL_METHODS:
        assert len(pb.convex_hull(points, method)) == 2000


def test_points_within_the_weld_tolerance_count_as_one():
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    nudged = np.vstack([square, square[2] + 1e-12, [[0.5, 1e-12]]])
    for method in pb.HULL_METHODS:
        assert len(pb.convex_hull(nudged, method)) == 4


@pytest.mark.parametrize("points", [
    [[0.0, 0.0]], [[0.0, 0.0], [1.0, 1.0]], [[1.0, 1.0]] * 5,
    [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]])
def test_sets_without_area_have_no_hull(points):
    for method in pb.HULL_METHODS:
        with pytest.raises(ValueError, match="at least 3 distinct points not on one line"):
            pb.convex_hull(points, method)


@pytest.mark.parametrize("call, error, message", [
    (lambda: pb.convex_hull([[0, 0], [1, 0], [0, 1]], "graham"), ValueError, "method"),
    (lambda: pb.convex_hull([[0, 0], [1, np.nan], [0, 1]]), ValueError, "points"),
    (lambda: pb.convex_hull(np.zeros((3, 3))), ValueError, "points must have shape"),
    (lambda: pb.is_simple([[0, 0], [1, 0]]), ValueError, "at least 3 points"),
    (lambda: pb.orientation([[0, 0], [1, 1], [2, 2]]), ValueError, "non-zero area"),
])
def test_bad_input_is_refused_naming_the_rule(call, error, message):
    with pytest.raises(error, match=message):
        call()


def random_outline(rng, n):
    """A random closed outline: often self-intersecting, sometimes not."""
    return rng.uniform(-1, 1, (n, 2))


def test_predicates_agree_with_shapely_on_random_outlines():
    rng = np.random.default_rng(3)
    simple = convex = 0
    for _ in range(1500):
        n = int(rng.integers(3, 9))
        points = random_outline(rng, n)
        if rng.random() < 0.3:  # some convex ones: a hull, in either direction
            points = pb.convex_hull(points)
            points = points[::-1] if rng.random() < 0.5 else points
        ring = shapely.Polygon(points)
        assert pb.is_simple(points) == ring.is_valid
        is_convex = ring.is_valid and abs(ring.convex_hull.area - ring.area) <= 1e-12
        assert pb.is_convex(points) == is_convex
        if ring.is_valid:
            assert pb.orientation(points) == (1 if ring.exterior.is_ccw else -1)
        simple += ring.is_valid
        convex += is_convex
    assert 300 < simple < 1400 and convex > 300


def test_a_pentagram_turns_left_everywhere_yet_is_neither_simple_nor_convex():
    angles = np.pi / 2 + 4 * np.pi / 5 * np.arange(5)
    star = np.column_stack([np.cos(angles), np.sin(angles)])
    assert not pb.is_simple(star) and not pb.is_convex(star)


def test_traces_record_each_method_at_work():
    points = np.random.default_rng(2).uniform(-1, 1, (40, 2))
    _, local, weld = hull._unit_points(points, "points")
    order = np.lexsort((local[:, 1], local[:, 0]))
    stacks = np.full((2 * 40 - 1, 40), -2, np.int64)  # one row per push
    hull.monotone_chain(local, order, weld, stacks)
    assert stacks[0, 0] == order[0] and stacks[-1, 0] == order[0]  # lower hull starts there
    corners = np.full((40, 2), -1, np.int64)
    found = hull.gift_wrapping(local, int(order[0]), weld, corners)
    assert np.array_equal(corners[:len(found), 0], found)
    assert np.all(np.diff(corners[:len(found), 1]) == 38)  # n − 2 tests a corner: all but p, q
    chords = []
    hull.quickhull(local, int(order[0]), int(order[-1]), weld, chords)
    assert sum(far >= 0 for *_, far in chords) == len(found) - 2
