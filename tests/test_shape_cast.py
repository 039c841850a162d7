"""Shape casts and overlaps through the world, checked against shapely on the shapes' cores.

Every shape is its core (a point, a segment or a convex polygon) grown by its radius, so two
shapes are at distance shapely.distance(core_A, core_B) − r_A − r_B, which GEOS computes
exactly for points, lines and polygons. That is the oracle:

- a cast is checked against a brute-force sweep: the moving core is placed at K + 1
  evenly spaced fractions t_k = k/K of the translation T, and the first sample at which its
  distance to some world shape is ≤ 0 is t_first. The true first touch t* lies in
  (t_first − 1/K, t_first] (the sample before was apart), and the cast's fraction f in
  [t* − 2·tol/|T|, t*]: conservative advancement stops once the distance is within ``tol``,
  never past the touch, and its fallback for a grazing approach bisects until the bracket
  is ``tol`` wide and returns its safe end, whose distance exceeds ``tol`` by at most
  ``tol``; so the distance at f is ≤ 2·tol and t_first − 1/K − 2·tol/|T| ≤ f ≤ t_first.
  When no sample overlaps, a hit can only be a graze shorter than a sample: its distance at
  f is then checked alone.
- at a hit the point lies on both surfaces (distance ≤ tol to each) and the normal is an
  outward normal of the shape hit at that point: the point moved out along it by h is at
  distance h from the shape (for a convex shape the nearest point of p + h·n is p exactly
  when n is in the normal cone at p), and the motion approaches along it (n·T ≤ 0).
- overlap: a shape overlaps another when the distance of the cores is ≤ the sum of radii.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from geometry import random_polygon

import physbook as pb
from physbook.collision.toi import core
from physbook.shape_cast import cast_shape, cast_shape_all, moving_shape, overlap_shape

CASTS = 1000
SAMPLES = 1000  # K: the sweep's fraction step is 1/K
MOVING_KINDS = ("circle", "polygon", "rounded", "capsule", "segment")
SENSOR_CATEGORY = 0b100
HIDDEN_CATEGORY = 0b10  # shapes of this category are left out by the casts' filter
CAST_FILTER = pb.Filter(category=1, mask=~HIDDEN_CATEGORY & pb.ALL_CATEGORIES)


def random_shape(rng: np.random.Generator, kind: str, scale: float = 1.0):
    """A random shape of ``kind`` about ``scale`` m across, in body coordinates."""
    if kind == "circle":
        return pb.Circle(rng.uniform(0.1, 0.7) * scale, center=rng.uniform(-0.3, 0.3, 2))
    if kind == "polygon":
        return random_polygon(rng, 0.5 * scale)
    if kind == "rounded":
        polygon = random_polygon(rng, 0.4 * scale)
        return pb.Polygon(polygon.vertices, radius=rng.uniform(0.05, 0.3) * scale)
    ends = rng.uniform(-0.8, 0.8, (2, 2)) * scale
    while np.hypot(*(ends[1] - ends[0])) < 0.05 * scale:
        ends = rng.uniform(-0.8, 0.8, (2, 2)) * scale
    if kind == "capsule":
        return pb.Capsule(ends[0], ends[1], rng.uniform(0.05, 0.4) * scale)
    return pb.Segment(ends[0], ends[1])


def world_core(shape, transform: pb.Transform):
    """The shape's core in the world as a shapely geometry, and its radius."""
    points, _, radius = core(shape)
    placed = np.array([transform.to_world(p) for p in points])
    return geometry(placed), radius


def geometry(points: np.ndarray):
    """A point, a segment or a polygon from 1, 2 or n core points (world)."""
    if len(points) == 1:
        return shapely.Point(points[0])
    if len(points) == 2:
        return shapely.LineString(points)
    return shapely.Polygon(points)


def swept_geometries(points: np.ndarray, offsets: np.ndarray):
    """The core ``points`` moved by each of ``offsets`` (K, 2), as an array of geometries."""
    coords = points[None, :, :] + offsets[:, None, :]
    if len(points) == 1:
        return shapely.points(coords[:, 0])
    if len(points) == 2:
        return shapely.linestrings(coords)
    return shapely.polygons(np.concatenate([coords, coords[:, :1]], axis=1))


class Scene:
    """A random world holding every kind of shape: static circles, sharp and rounded
    polygons, capsules, segments and a chain; a kinematic and a dynamic body; a sensor and a
    shape of the hidden category (neither may be hit). ``targets`` lists, for each shape a
    cast may hit, (shape id, shapely core, radius, chain front (point1, normal) or None)."""

    def __init__(self, rng: np.random.Generator):
        self.world = pb.World(gravity=(0.0, 0.0))
        self.targets = []
        for kind in ("circle", "polygon", "rounded", "capsule", "segment"):
            for _ in range(2):
                self._add(random_shape(rng, kind, 2.0), rng, "static")
        self._add(random_shape(rng, "polygon", 2.0), rng, "kinematic")
        self._add(random_shape(rng, "circle", 2.0), rng, "dynamic")
        # A chain of four segments (six points: the ends are ghosts) over a random zigzag.
        xs = np.linspace(-6.0, 6.0, 6)
        points = np.column_stack([xs, rng.uniform(-1.0, 1.0, 6)])[::-1]
        self._add(pb.Chain(points), rng, "static")
        self._add(random_shape(rng, "polygon", 2.0), rng, "static", sensor=True)
        self._add(random_shape(rng, "capsule", 2.0), rng, "static",
                  filter=pb.Filter(category=HIDDEN_CATEGORY))

    def _add(self, shape, rng, kind, sensor=False, filter=None):  # noqa: A002
        position = rng.uniform(-6.0, 6.0, 2)
        angle = float(rng.uniform(-np.pi, np.pi)) if not isinstance(shape, pb.Chain) else 0.0
        body = self.world.add_body(shape, position=position, angle=angle, kind=kind,
                                   sensor=sensor, filter=filter)
        if sensor or filter is not None:
            return
        transform = pb.Transform(position, angle)
        rows = body._shape_rows()
        for row, part in zip(rows, body.shapes, strict=True):
            shape_id = int(self.world.shapes.arrays.ids[row])
            front = None
            if isinstance(part, pb.ChainSegment):
                p1, p2 = transform.to_world(part.point1), transform.to_world(part.point2)
                d = p2 - p1
                front = (p1, np.array([d[1], -d[0]]) / np.hypot(*d))
            self.targets.append((shape_id, *world_core(part, transform), front))


def sweep(scene: Scene, shape, transform: pb.Transform, translation: np.ndarray):
    """The brute-force sweep: (t_first or None, {shape id: (shapely core, radius)}) of the
    shapes that can be hit (a chain segment the moving core's middle starts behind cannot)."""
    points, _, radius = core(shape)
    placed = np.array([transform.to_world(p) for p in points])
    start = geometry(placed)
    middle = placed.mean(axis=0)
    offsets = np.linspace(0.0, 1.0, SAMPLES + 1)[:, None] * translation
    moved = None
    first = None
    hittable = {}
    for shape_id, target, target_radius, front in scene.targets:
        if front is not None and front[1] @ (middle - front[0]) < 0.0:
            continue
        hittable[shape_id] = (target, target_radius)
        reach = radius + target_radius
        if shapely.distance(start, target) - reach > np.hypot(*translation):
            continue  # out of reach: no point of the sweep comes closer than that
        if moved is None:
            moved = swept_geometries(placed, offsets)
        touching = np.flatnonzero(shapely.distance(moved, target) - reach <= 0.0)
        if len(touching) and (first is None or touching[0] < first):
            first = int(touching[0])
    return (None if first is None else first / SAMPLES), hittable


def gap(shape, transform, offset, target, target_radius) -> float:
    """The distance between ``shape`` at ``transform`` moved by ``offset`` and a core."""
    points, _, radius = core(shape)
    placed = np.array([transform.to_world(p) for p in points]) + offset
    return shapely.distance(geometry(placed), target) - radius - target_radius


@pytest.mark.parametrize("kind", MOVING_KINDS)
def test_cast_agrees_with_a_brute_force_sweep(kind):
    rng = np.random.default_rng(MOVING_KINDS.index(kind))
    step = 1.0 / SAMPLES
    hits = misses = 0
    scene = None
    for case in range(CASTS):
        if case % 100 == 0:
            scene = Scene(rng)
        shape = random_shape(rng, kind)
        transform = pb.Transform(rng.uniform(-8.0, 8.0, 2), rng.uniform(-np.pi, np.pi))
        translation = rng.uniform(-1.0, 1.0, 2) * rng.uniform(0.5, 12.0)
        length = np.hypot(*translation)
        tolerance = moving_shape(shape, transform.position, transform.angle).tolerance
        hit = cast_shape(scene.world, shape, transform.position, transform.angle,
                         translation, filter=CAST_FILTER)
        first, hittable = sweep(scene, shape, transform, translation)
        if hit is None:
            assert first is None, (case, first)
            misses += 1
            continue
        hits += 1
        assert hit.shape_id in hittable, (case, hit.shape_id)
        target, target_radius = hittable[hit.shape_id]
        f = hit.fraction
        rounding = 1e-9
        assert gap(shape, transform, f * translation, target, target_radius) <= \
            2.0 * tolerance + rounding, case
        if first is None:
            continue  # a graze between two samples; its distance at f was just checked
        assert first - step - 2.0 * tolerance / length - rounding <= f <= first + rounding, \
            (case, f, first)
        if f > 0.0:
            # The point is on both surfaces, the normal an outward normal of the shape hit.
            point, normal = hit.point, hit.normal
            assert abs(np.hypot(*normal) - 1.0) < 1e-12
            assert shapely.distance(shapely.Point(point), target) - target_radius == \
                pytest.approx(0.0, abs=1e-9)
            assert gap(shape, transform, f * translation, shapely.Point(point), 0.0) <= \
                2.0 * tolerance + rounding
            h = 0.05
            assert shapely.distance(shapely.Point(point + h * normal), target) - \
                target_radius == pytest.approx(h, abs=1e-7), case
            assert normal @ translation <= 1e-6 * length
    # The cases exercise both answers.
    assert hits > CASTS // 10 and misses > CASTS // 10, (hits, misses)


def test_cast_all_lists_each_shape_at_its_own_first_touch():
    rng = np.random.default_rng(7)
    scene = Scene(rng)
    checked = 0
    for _ in range(200):
        shape = random_shape(rng, "capsule")
        transform = pb.Transform(rng.uniform(-8.0, 8.0, 2), 0.3)
        translation = rng.uniform(-12.0, 12.0, 2)
        hits = cast_shape_all(scene.world, shape, transform.position, transform.angle,
                              translation, filter=CAST_FILTER)
        first = cast_shape(scene.world, shape, transform.position, transform.angle,
                           translation, filter=CAST_FILTER)
        assert (first is None) == (not hits)
        if not hits:
            continue
        assert hits[0].fraction == first.fraction
        assert [h.fraction for h in hits] == sorted(h.fraction for h in hits)
        _, hittable = sweep(scene, shape, transform, translation)
        for hit in hits:
            # Each is a touch: within tolerance, and no sample before it overlaps that shape.
            target, radius = hittable[hit.shape_id]
            assert gap(shape, transform, hit.fraction * translation, target, radius) <= 1e-5
            before = np.linspace(0.0, hit.fraction, 50)[:-1] if hit.fraction > 0.0 else []
            assert all(gap(shape, transform, t * translation, target, radius) > 0.0
                       for t in before)
            checked += 1
    assert checked > 100


def test_sensors_and_filtered_shapes_are_never_hit():
    world = pb.World(gravity=(0.0, 0.0))
    world.add_body(pb.Polygon.box(0.5, 2.0), position=(2.0, 0.0), kind="static",
                   sensor=True)
    hidden = world.add_body(pb.Polygon.box(0.5, 2.0), position=(4.0, 0.0), kind="static",
                            filter=pb.Filter(category=HIDDEN_CATEGORY))
    wall = world.add_body(pb.Segment((6.0, -2.0), (6.0, 2.0)), kind="static")
    ball = pb.Circle(0.25)
    # Without a filter the hidden box is hit first (x = 3.5 − 0.25 = 3.25 of 10 m);
    # the sensor never is.
    hit = cast_shape(world, ball, (0.0, 0.0), 0.0, (10.0, 0.0))
    assert hit.body == hidden and hit.fraction == pytest.approx(0.325, abs=1e-6)
    hit = cast_shape(world, ball, (0.0, 0.0), 0.0, (10.0, 0.0), filter=CAST_FILTER)
    assert hit.body == wall and hit.fraction == pytest.approx(0.575, abs=1e-6)
    np.testing.assert_allclose(hit.point, [6.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(hit.normal, [-1.0, 0.0], atol=1e-12)
    inside_all = overlap_shape(world, pb.Circle(3.0), (4.0, 0.0))
    assert [ref.body for ref in inside_all] == [hidden, wall]
    assert [ref.body for ref in overlap_shape(world, pb.Circle(3.0), (4.0, 0.0),
                                              filter=CAST_FILTER)] == [wall]


def test_a_cast_from_behind_a_chain_passes_and_from_the_front_stops():
    world = pb.World()
    # Right to left: the front (right-hand) normal points up.
    world.add_body(pb.Chain([(6.0, 0.0), (4.0, 0.0), (-4.0, 0.0), (-6.0, 0.0)]),
                   kind="static")
    box = pb.Polygon.box(0.5, 0.25)
    assert cast_shape(world, box, (0.0, -1.0), 0.0, (0.0, 3.0)) is None
    hit = cast_shape(world, box, (0.0, 1.0), 0.0, (0.0, -3.0))
    # The box's bottom (y = 1 − 0.25) reaches y = 0 after 0.75 m of 3.
    assert hit.fraction == pytest.approx(0.25, abs=1e-6)
    np.testing.assert_allclose(hit.normal, [0.0, 1.0], atol=1e-12)


def test_a_shape_overlapping_at_the_start_is_hit_at_fraction_zero_pushed_out():
    world = pb.World()
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    hit = cast_shape(world, pb.Polygon.box(0.5, 0.5), (1.0, 0.3), 0.0, (2.0, 0.0))
    assert hit.fraction == 0.0
    # The box sinks 0.2 m into the ground's top face: the way out is up.
    np.testing.assert_allclose(hit.normal, [0.0, 1.0], atol=1e-12)


def test_cast_refuses_bad_input():
    world = pb.World()
    with pytest.raises(ValueError, match="translation"):
        cast_shape(world, pb.Circle(1.0), (0.0, 0.0), 0.0, (0.0, 0.0))
    with pytest.raises(ValueError, match="position"):
        cast_shape(world, pb.Circle(1.0), (np.nan, 0.0), 0.0, (1.0, 0.0))
    with pytest.raises(TypeError, match="Chain"):
        overlap_shape(world, pb.Chain([(0, 0), (1, 0), (2, 0), (3, 0)]), (0.0, 0.0))
    with pytest.raises(TypeError, match="filter"):
        overlap_shape(world, pb.Circle(1.0), (0.0, 0.0), filter=3)


def test_overlap_agrees_with_shapely():
    rng = np.random.default_rng(11)
    checked = 0
    for case in range(1000):
        if case % 100 == 0:
            scene = Scene(rng)
        kind = MOVING_KINDS[case % len(MOVING_KINDS)]
        shape = random_shape(rng, kind, 2.0)
        transform = pb.Transform(rng.uniform(-8.0, 8.0, 2), rng.uniform(-np.pi, np.pi))
        found = {ref.shape_id for ref in overlap_shape(scene.world, shape,
                                                       transform.position, transform.angle,
                                                       filter=CAST_FILTER)}
        mine, radius = world_core(shape, transform)
        assert found <= {target[0] for target in scene.targets}
        for shape_id, target, target_radius, _ in scene.targets:
            distance = shapely.distance(mine, target) - radius - target_radius
            if abs(distance) < 1e-9:
                continue  # a tie within rounding says nothing
            assert (shape_id in found) == (distance < 0.0), (case, shape_id, distance)
            checked += distance < 0.0
    assert checked > 300


def test_a_one_way_shape_is_hit_from_its_side_only():
    world = pb.World(gravity=(0.0, 0.0))
    floor = world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    platform = world.add_body(pb.Polygon.box(2.0, 0.1), position=(0.0, 2.0), kind="static",
                              one_way=(0.0, 1.0))
    ball = pb.Circle(0.25)
    # From below it passes: nothing above to hit.
    assert cast_shape(world, ball, (0.0, 1.0), 0.0, (0.0, 3.0)) is None
    # From above it lands on the top at y = 2.1: 0.9 − 0.25 = 0.65 m of 2 m.
    hit = cast_shape(world, ball, (0.0, 3.0), 0.0, (0.0, -2.0))
    assert hit.body == platform and hit.fraction == pytest.approx(0.325, abs=1e-6)
    np.testing.assert_allclose(hit.normal, [0.0, 1.0], atol=1e-12)
    # Half way through it, a ball falls on through to the floor (y = 0.25 after 1.75 m).
    hit = cast_shape(world, ball, (0.0, 2.0), 0.0, (0.0, -3.0))
    assert hit.body == floor and hit.fraction == pytest.approx(1.75 / 3.0, abs=1e-6)
    # From the side, its normal leans 90° from up: it passes.
    assert [h.body for h in cast_shape_all(world, ball, (-4.0, 2.0), 0.0, (8.0, 0.0))] == []
