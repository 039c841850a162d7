"""Point, box and ray queries against capsules, rounded polygons, segments and chain segments,
checked on 1 000 random cases each against shapely on the shapes' cores: a shape with a
radius is the set of points within r of its core, so it contains a point when shapely's
(exact) distance from the core to the point is ≤ r, overlaps a box when the distance from
the core to the box is ≤ r, and a ray enters it at the first root of
f(t) = distance(core, o + t·d) − r (f is convex along a line, so the root is found by
bracketing the minimum and bisecting). Segments and chain segments: shapely's intersection
of the ray with the segment.

The kernels read the shape table's rows, laid out as the shape classes write them: a
capsule or segment is its two points with normals [n, −n] (n the right perpendicular of
point2 − point1), a chain segment [point1, point2, ghost1, ghost2] with normals
[n1, −n1, n0, n2], a rounded polygon its core's vertices and normals with its radius.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
import shapely
from geometry import random_polygon
from shapely.geometry import LineString, Point
from shapely.geometry import Polygon as ShapelyPolygon

import physbook as pb
from physbook.collision.shape_queries import (
    ray_cast_rows,
    shapes_containing,
    shapes_overlapping_box,
)
from physbook.geometry.shape_table import ShapeArrays
from physbook.kinds import CAPSULE, CHAIN_SEGMENT, POLYGON, SEGMENT

CASES = 1000
KINDS = ("capsule", "rounded", "segment", "chain")


def right_normal(a, b):
    """The unit right perpendicular of b − a, (dy, −dx)/L."""
    d = np.asarray(b, float) - np.asarray(a, float)
    return np.array([d[1], -d[0]]) / np.hypot(*d)


def rotation(angle: float) -> np.ndarray:
    return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])


class Case(NamedTuple):
    """One shape on one body: its table row's columns, its pose, and its core in the world
    as a shapely geometry with its radius."""

    kind: int
    radius: float
    vertices: np.ndarray  # body coordinates, the table's pool rows
    normals: np.ndarray
    origin: np.ndarray
    angle: float
    core: object  # shapely geometry, world
    core_points: np.ndarray  # world


def random_case(rng: np.random.Generator, name: str) -> Case:
    if name == "rounded":
        polygon = random_polygon(rng, scale=0.5)
        kind, radius = POLYGON, rng.uniform(0.02, 0.5)
        vertices, normals = polygon.vertices, polygon.normals
    else:
        while True:
            p1, p2 = rng.uniform(-0.8, 0.8, (2, 2))
            if np.hypot(*(p2 - p1)) > 0.05:
                break
        n = right_normal(p1, p2)
        if name == "chain":
            # The neighbours turn by up to ±143° from this segment's direction.
            g1 = p1 + rotation(rng.uniform(-2.5, 2.5)) @ (p1 - p2)
            g2 = p2 + rotation(rng.uniform(-2.5, 2.5)) @ (p2 - p1)
            kind, radius = CHAIN_SEGMENT, 0.0
            vertices = np.array([p1, p2, g1, g2])
            normals = np.array([n, -n, right_normal(g1, p1), right_normal(p2, g2)])
        else:
            kind = CAPSULE if name == "capsule" else SEGMENT
            radius = rng.uniform(0.02, 0.5) if name == "capsule" else 0.0
            vertices, normals = np.array([p1, p2]), np.array([n, -n])
    origin, angle = rng.uniform(-2.0, 2.0, 2), rng.uniform(-np.pi, np.pi)
    count = 2 if kind == CHAIN_SEGMENT else len(vertices)
    core_points = vertices[:count] @ rotation(angle).T + origin
    core = ShapelyPolygon(core_points) if count > 2 else LineString(core_points)
    return Case(kind, radius, np.array(vertices, float), np.array(normals, float), origin,
                angle, core, core_points)


def table(case: Case) -> tuple[ShapeArrays, np.ndarray, np.ndarray]:
    """The one-row shape table of ``case`` and its body's origin and angle."""
    count = len(case.vertices)
    shapes = ShapeArrays(np.zeros(1, np.int64), np.array([case.kind], np.int64),
                         np.zeros(1, np.int64), np.array([case.radius]),
                         np.zeros(1, np.int64), np.array([count], np.int64),
                         case.vertices, case.normals)
    return shapes, case.origin[None, :].copy(), np.array([case.angle])


def cases(name: str, seed: int) -> list[Case]:
    rng = np.random.default_rng(seed)
    return [random_case(rng, name) for _ in range(CASES)], rng


def near_point(rng, case: Case, spread: float) -> np.ndarray:
    """A random point in the core's box grown by the radius and ``spread``."""
    low = case.core_points.min(axis=0) - case.radius - spread
    high = case.core_points.max(axis=0) + case.radius + spread
    return rng.uniform(low, high)


ROW = np.zeros(1, np.int64)


@pytest.mark.parametrize("name", KINDS)
def test_point_queries_agree_with_the_core_distance(name):
    shapes_cases, rng = cases(name, 1)
    inside = outside = 0
    for case in shapes_cases:
        shapes, origins, angles = table(case)
        point = near_point(rng, case, 0.2)
        found = len(shapes_containing(shapes, origins, angles, ROW, *point)) == 1
        gap = case.core.distance(Point(point))
        if case.kind in (SEGMENT, CHAIN_SEGMENT):
            assert not found
            # Not even a point on the line itself: a segment has no inside.
            on_line = case.core_points.mean(axis=0)
            assert not len(shapes_containing(shapes, origins, angles, ROW, *on_line))
            continue
        # Rounding in the kernel's transform is ~1e-16 m; no random point is that close.
        assert abs(gap - case.radius) > 1e-12
        assert found == (gap <= case.radius), (case, point, gap)
        inside += found
        outside += not found
    if name in ("capsule", "rounded"):
        assert inside > 200 and outside > 200


@pytest.mark.parametrize("name", KINDS)
def test_box_queries_agree_with_the_core_distance(name):
    shapes_cases, rng = cases(name, 2)
    overlapping = apart = 0
    for i, case in enumerate(shapes_cases):
        shapes, origins, angles = table(case)
        corner = near_point(rng, case, 0.3)
        size = rng.uniform(0.0, 0.6, 2)
        if i % 10 == 0:
            size[i // 10 % 2] = 0.0  # a box of no width: a segment, or a point
        lower, upper = corner - size / 2, corner + size / 2
        found = len(shapes_overlapping_box(shapes, origins, angles, ROW, *lower, *upper)) == 1
        region = shapely.box(*lower, *upper)
        gap = case.core.distance(region)
        if case.kind in (SEGMENT, CHAIN_SEGMENT):
            expected = case.core.intersects(region)
        else:
            assert abs(gap - case.radius) > 1e-12
            expected = gap <= case.radius
        assert found == expected, (case, lower, upper, gap)
        overlapping += found
        apart += not found
    assert overlapping > 200 and apart > 200


def first_root(cores, radii, origins, translations):
    """For each ray, the first t ∈ [0, 1] with distance(core, o + t·d) = r, or NaN if
    none or the ray starts within r; also |f'| there per unit of t (how well the root is
    determined) and the world normal from the core's nearest point."""
    def f(t):
        return shapely.distance(cores, shapely.points(origins + t[:, None] * translations)) - radii

    count = len(cores)
    low, high = np.zeros(count), np.ones(count)
    # f is convex along the ray: golden-section search brackets its minimum.
    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    for _ in range(90):
        left = high - ratio * (high - low)
        right = low + ratio * (high - low)
        keep_left = f(left) <= f(right)
        high = np.where(keep_left, right, high)
        low = np.where(keep_left, low, left)
    lowest = 0.5 * (low + high)
    f_lowest = f(lowest)
    start = f(np.zeros(count))
    hit = (start > 0.0) & (f_lowest <= 0.0)
    # f falls from f(0) > 0 to f(lowest) ≤ 0: bisect for its one root there.
    low, high = np.zeros(count), lowest.copy()
    for _ in range(60):
        middle = 0.5 * (low + high)
        above = f(middle) > 0.0
        low = np.where(above, middle, low)
        high = np.where(above, high, middle)
    t = np.where(hit, high, np.nan)
    points = origins + np.nan_to_num(t)[:, None] * translations
    step = 1e-7
    slope = np.abs(f(np.nan_to_num(t) + step) - f(np.maximum(np.nan_to_num(t) - step, 0.0))
                   ) / (2 * step)
    nearest = shapely.get_coordinates(shapely.shortest_line(cores, shapely.points(points))
                                      ).reshape(count, 2, 2)[:, 0]
    normals = points - nearest
    with np.errstate(invalid="ignore"):  # the misses' points may lie on the core
        normals /= np.hypot(normals[:, 0], normals[:, 1])[:, None]
    return t, slope, normals, start, f_lowest


def segment_ray(case: Case, origin, translation):
    """The first t of the ray on the segment from shapely's intersection, the normal facing
    the origin; a chain segment only from its front. None for a miss."""
    p1, p2 = case.core_points
    n = right_normal(p1, p2)
    if case.kind == CHAIN_SEGMENT and n @ (origin - p1) < 0.0:
        return None
    crossing = LineString([origin, origin + translation]).intersection(case.core)
    if crossing.is_empty:
        return None
    point = shapely.get_coordinates(crossing)[0]
    t = (point - origin) @ translation / (translation @ translation)
    return t, (n if n @ (origin - p1) > 0.0 else -n)


def angle_between(u, v) -> float:
    return abs(np.arctan2(u[0] * v[1] - u[1] * v[0], u @ v))


@pytest.mark.parametrize("name", KINDS)
def test_ray_casts_agree_with_shapely(name):
    shapes_cases, rng = cases(name, 3)
    origins_world = np.array([near_point(rng, case, 1.0) for case in shapes_cases])
    targets = np.array([near_point(rng, case, 0.1) for case in shapes_cases])
    translations = (targets - origins_world) * rng.uniform(0.5, 1.5, (CASES, 1))
    results = []
    for case, origin, translation in zip(shapes_cases, origins_world, translations,
                                         strict=True):
        shapes, origins, angles = table(case)
        fractions, normals = ray_cast_rows(shapes, origins, angles, ROW, *origin,
                                           *translation)
        results.append((fractions[0], normals[0]))
    hits = misses = inside = unsure = behind = 0
    if name in ("segment", "chain"):
        for case, origin, translation, (fraction, normal) in zip(
                shapes_cases, origins_world, translations, results, strict=True):
            expected = segment_ray(case, origin, translation)
            if expected is None:
                assert fraction == -1.0
                misses += 1
                p1, p2 = case.core_points
                behind += (case.kind == CHAIN_SEGMENT and right_normal(p1, p2) @ (origin - p1)
                           < 0.0 and case.core.intersects(LineString([origin,
                                                                      origin + translation])))
                continue
            t, expected_normal = expected
            assert abs(fraction - t) <= 1e-9
            assert angle_between(normal, expected_normal) <= 1e-9
            hits += 1
        assert hits > 150 and misses > 200
        assert behind > 100 if name == "chain" else behind == 0
        return
    cores = np.array([case.core for case in shapes_cases])
    radii = np.array([case.radius for case in shapes_cases])
    t, slope, expected_normals, start, lowest = first_root(cores, radii, origins_world,
                                                           translations)
    for k, (fraction, normal) in enumerate(results):
        # shapely's distances are exact to ~1e-15 m, so the root is known to 1e-15/|f'|:
        # leave out the few rays that graze the surface too closely to know it to 1e-9.
        if (abs(lowest[k]) < 1e-9 or (not np.isnan(t[k]) and slope[k] < 1e-5)
                or abs(start[k]) < 1e-12):
            unsure += 1
            continue
        if start[k] <= 0.0:
            inside += 1
            assert fraction == -1.0
        elif np.isnan(t[k]):
            misses += 1
            assert fraction == -1.0, (k, shapes_cases[k])
        else:
            hits += 1
            assert abs(fraction - t[k]) <= 1e-9, (k, fraction, t[k])
            assert angle_between(normal, expected_normals[k]) <= 1e-9
    assert hits > 300 and misses > 100 and inside > 20 and unsure < 0.01 * CASES


def test_a_ray_along_a_segment_line_past_its_end_misses_it():
    case = Case(SEGMENT, 0.0, np.array([[0.0, 0.0], [1.0, 0.0]]),
                np.array([[0.0, -1.0], [0.0, 1.0]]), np.zeros(2), 0.0,
                LineString([(0, 0), (1, 0)]), np.array([[0.0, 0.0], [1.0, 0.0]]))
    shapes, origins, angles = table(case)
    # Along the line, towards and through the segment: parallel, never a crossing.
    assert ray_cast_rows(shapes, origins, angles, ROW, -1.0, 0.0, 3.0, 0.0)[0][0] == -1.0
    # Across the line just past either end.
    for x in (-1e-9, 1.0 + 1e-9):
        assert ray_cast_rows(shapes, origins, angles, ROW, x, 1.0, 0.0, -2.0)[0][0] == -1.0
    # Just inside the end it hits, from above and from below, facing the ray.
    fractions, normals = ray_cast_rows(shapes, origins, angles, ROW, 1.0 - 1e-9, 1.0, 0.0,
                                       -2.0)
    assert fractions[0] == 0.5 and normals[0].tolist() == [0.0, 1.0]
    fractions, normals = ray_cast_rows(shapes, origins, angles, ROW, 0.5, -1.0, 0.0, 2.0)
    assert fractions[0] == 0.5 and normals[0].tolist() == [0.0, -1.0]


def test_a_chain_segment_is_hit_from_its_front_only():
    # point1 = (1, 0) → point2 = (0, 0): its right side, the front, is up (+y).
    p1, p2 = np.array([1.0, 0.0]), np.array([0.0, 0.0])
    n = right_normal(p1, p2)
    assert n.tolist() == [0.0, 1.0]
    vertices = np.array([p1, p2, [2.0, 0.0], [-1.0, 0.0]])
    normals = np.array([n, -n, n, n])
    case = Case(CHAIN_SEGMENT, 0.0, vertices, normals, np.zeros(2), 0.0,
                LineString([p1, p2]), np.array([p1, p2]))
    shapes, origins, angles = table(case)
    fractions, hit_normals = ray_cast_rows(shapes, origins, angles, ROW, 0.5, 1.0, 0.0, -2.0)
    assert fractions[0] == 0.5 and hit_normals[0].tolist() == [0.0, 1.0]
    # The same line from below passes through.
    assert ray_cast_rows(shapes, origins, angles, ROW, 0.5, -1.0, 0.0, 2.0)[0][0] == -1.0
    # A two-sided segment on the same points is hit from below.
    two_sided = case._replace(kind=SEGMENT, vertices=vertices[:2], normals=normals[:2])
    shapes, origins, angles = table(two_sided)
    assert ray_cast_rows(shapes, origins, angles, ROW, 0.5, -1.0, 0.0, 2.0)[0][0] == 0.5


def test_world_queries_find_the_new_shapes_where_shapely_does():
    # The shape classes' own table rows, through the world's tree, after moving.
    rng = np.random.default_rng(11)
    world = pb.World(gravity=(0.0, 0.0))
    for k in range(24):
        if k % 2:
            p1 = rng.uniform(-0.8, 0.8, 2)
            shape = pb.Capsule(p1, p1 + rng.uniform(0.1, 0.8) * np.array(
                [np.cos(k), np.sin(k)]), rng.uniform(0.02, 0.5))
        else:
            shape = random_polygon(rng, scale=0.5).rounded(rng.uniform(0.02, 0.5))
        world.add_body(shape, position=rng.uniform(-6, 6, 2), angle=rng.uniform(-3, 3),
                       velocity=rng.normal(0, 1, 2), angular_velocity=rng.normal(0, 1))
    world.add_body([pb.Segment((-7.0, -7.0), (7.0, -6.0)), pb.Segment((7.5, -7.0),
                                                                      (7.5, 7.0))],
                   kind="static")
    walk = np.column_stack([np.linspace(7.0, -7.0, 12), 6.0 + rng.uniform(-0.5, 0.5, 12)])
    world.add_body(pb.Chain(walk), kind="static", position=(0.0, 0.3), angle=0.05)
    world.run(20, 1 / 60)
    ids = world.shapes.arrays.ids.tolist()
    rows = []
    for body in world.bodies:
        for shape in body.shapes:
            points, radius = shape.core()
            points = body.transform.to_world(np.asarray(points, float).reshape(-1, 2))
            core = ShapelyPolygon(points) if len(points) > 2 else LineString(points)
            rows.append((shape, points, core, radius))
    assert len(rows) == len(ids) == 24 + 2 + 9
    cores = np.array([core for _, _, core, _ in rows])
    radii = np.array([radius for *_, radius in rows])
    flat = np.array([radius == 0.0 for *_, radius in rows])
    checked = 0
    for _ in range(150):
        point = rng.uniform(-8, 8, 2)
        gaps = shapely.distance(cores, Point(point))
        expected = [ids[i] for i in range(len(ids)) if not flat[i] and gaps[i] <= radii[i]]
        assert [ref.shape_id for ref in world.query_point(point)] == expected
        a, b = rng.uniform(-8, 8, 2), rng.uniform(-8, 8, 2)
        lower, upper = np.minimum(a, b), np.maximum(a, b)
        gaps = shapely.distance(cores, shapely.box(*lower, *upper))
        expected = [ids[i] for i in range(len(ids)) if gaps[i] <= radii[i]]
        assert [ref.shape_id for ref in world.query_aabb(lower, upper)] == expected
        origin, translation = rng.uniform(-9, 9, 2), rng.uniform(-9, 9, 2)
        hits = {hit.shape_id: hit for hit in world.ray_cast_all(origin, translation)}
        t, slope, normals, start, lowest = first_root(
            cores, radii, np.tile(origin, (len(ids), 1)), np.tile(translation, (len(ids), 1)))
        for i, shape_id in enumerate(ids):
            shape, points, core, radius = rows[i]
            if flat[i]:
                case = Case(CHAIN_SEGMENT if isinstance(shape, pb.ChainSegment) else SEGMENT,
                            0.0, None, None, None, 0.0, core, points)
                expected = segment_ray(case, origin, translation)
            elif abs(lowest[i]) < 1e-9 or abs(start[i]) < 1e-12 or (
                    not np.isnan(t[i]) and slope[i] < 1e-5):
                continue  # grazing: the oracle cannot tell to 1e-9
            else:
                expected = None if np.isnan(t[i]) else (t[i], normals[i])
            assert (shape_id in hits) == (expected is not None)
            if expected is not None:
                assert abs(hits[shape_id].fraction - expected[0]) <= 1e-9
                assert angle_between(hits[shape_id].normal, expected[1]) <= 1e-9
                checked += 1
    assert checked > 100
