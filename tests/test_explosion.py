"""Explosions: the impulse each shape receives, against analytic cases and against a brute
force over the shapes' outlines.

The rule (physbook.explosion): a shape at distance d ≤ radius + falloff from the centre c
receives J = impulse · w · s · u at its nearest point p, u = (p − c)/|p − c|, w its width
across u, s = 1 within ``radius`` and (radius + falloff − d)/falloff beyond.

The brute force samples each shape's outline (shapely's buffer of the core by the radius,
densified) and takes the nearest sample to c and the spread of the samples across u. Its
errors are derived from the sampling: the buffer's arcs have ``QUAD_SEGS`` segments per
quarter circle, so they lie within r·(1 − cos(π/(4·QUAD_SEGS))) inside the true outline,
chords 2r·sin(π/(4·QUAD_SEGS)) long, and samples ``SPACING`` apart put the nearest sample
within SPACING/2 of the nearest point of the sampled outline.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from geometry import random_polygon

import physbook as pb
from physbook.collision.toi import core
from physbook.explosion import explode

QUAD_SEGS = 256
SPACING = 1e-3
DENSITY = 1.0


def test_a_circle_receives_impulse_times_its_diameter():
    world = pb.World(gravity=(0.0, 0.0))
    r = 0.5
    ball = world.add_body(pb.Circle(r), position=(3.0, 4.0))
    mass = DENSITY * np.pi * r**2
    hits = explode(world, (0.0, 0.0), radius=5.0, impulse=2.0)
    # Nearest point 5 − 0.5 = 4.5 m away along u = (0.6, 0.8); width 2r = 1 m.
    (hit,) = hits
    assert hit.distance == pytest.approx(4.5, abs=1e-12)
    np.testing.assert_allclose(hit.point, 4.5 * np.array([0.6, 0.8]), atol=1e-12)
    np.testing.assert_allclose(hit.impulse, 2.0 * 1.0 * np.array([0.6, 0.8]), atol=1e-12)
    np.testing.assert_allclose(ball.velocity, 2.0 * np.array([0.6, 0.8]) / mass,
                               atol=1e-12)
    assert ball.angular_velocity == pytest.approx(0.0, abs=1e-12)


def test_the_falloff_scales_linearly_beyond_the_radius():
    for radius, falloff, scale in ((4.0, 1.0, 0.5), (4.0, 2.0, 0.75), (3.0, 1.0, 0.0)):
        world = pb.World(gravity=(0.0, 0.0))
        ball = world.add_body(pb.Circle(0.5), position=(5.0, 0.0))
        hits = explode(world, (0.0, 0.0), radius=radius, impulse=1.0, falloff=falloff)
        mass = DENSITY * np.pi * 0.25
        # d = 4.5: s = (radius + falloff − 4.5)/falloff, and no push at all out of reach.
        assert len(hits) == (scale > 0.0)
        np.testing.assert_allclose(ball.velocity, [scale * 1.0 / mass, 0.0], atol=1e-12)


def test_a_box_receives_impulse_times_its_side_and_spins_off_axis():
    world = pb.World(gravity=(0.0, 0.0))
    hw, hh = 1.0, 0.25
    box = world.add_body(pb.Polygon.box(hw, hh), position=(3.0, 0.0))
    mass = DENSITY * 4 * hw * hh
    explode(world, (0.0, 0.0), radius=5.0, impulse=3.0)
    # The nearest point is the middle of the left side, (2, 0); the box hides 2·hh of the
    # line across x; the push goes through the centre: no spin.
    np.testing.assert_allclose(box.velocity, [3.0 * 2 * hh / mass, 0.0], atol=1e-12)
    assert box.angular_velocity == pytest.approx(0.0, abs=1e-12)
    # From below the left end, at c = (2, −1): nearest point (2, −0.25), u = (0, 1), the box
    # hides its whole length 2·hw; the push at x = 2 is 1 m left of the centre, so it
    # turns the box clockwise: Δω = (p − c_m) × J / I, I = m(4hw² + 4hh²)/12.
    world = pb.World(gravity=(0.0, 0.0))
    box = world.add_body(pb.Polygon.box(hw, hh), position=(3.0, 0.0))
    explode(world, (2.0, -1.0), radius=5.0, impulse=3.0)
    impulse = 3.0 * 2 * hw
    inertia = mass * (4 * hw**2 + 4 * hh**2) / 12
    np.testing.assert_allclose(box.velocity, [0.0, impulse / mass], atol=1e-12)
    assert box.angular_velocity == pytest.approx((-1.0 * impulse) / inertia, rel=1e-12)


def test_a_blast_inside_a_shape_pushes_at_its_centroid():
    world = pb.World(gravity=(0.0, 0.0))
    box = world.add_body(pb.Polygon.box(1.0, 0.5), position=(0.0, 0.0))
    (hit,) = explode(world, (-0.5, 0.0), radius=1.0, impulse=1.0)
    assert hit.distance == 0.0
    np.testing.assert_allclose(hit.point, [0.0, 0.0], atol=1e-12)
    # u = (1, 0): the box hides its height, 1 m.
    np.testing.assert_allclose(hit.impulse, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(box.velocity, [1.0 / 2.0, 0.0], atol=1e-12)


def test_only_awake_or_sleeping_dynamic_non_sensor_shapes_in_the_filter_are_pushed():
    world = pb.World(gravity=(0.0, 0.0))
    static = world.add_body(pb.Circle(0.5), position=(1.0, 0.0), kind="static")
    moving = world.add_body(pb.Circle(0.5), position=(-1.0, 0.0), kind="kinematic",
                            velocity=(0.0, 1.0))
    sensor = world.add_body(pb.Circle(0.5), position=(0.0, 1.0), sensor=True)
    hidden = world.add_body(pb.Circle(0.5), position=(0.0, -1.0),
                            filter=pb.Filter(category=2))
    sleeper = world.add_body(pb.Circle(0.5), position=(1.5, 1.5))
    sleeper.awake = False
    hits = explode(world, (0.0, 0.0), radius=3.0, impulse=1.0,
                   filter=pb.Filter(category=1, mask=1))
    assert [hit.body for hit in hits] == [sleeper]
    assert sleeper.awake and sleeper.velocity @ np.array([1.0, 1.0]) > 0.0
    for body in (static, sensor, hidden):
        np.testing.assert_array_equal(body.velocity, [0.0, 0.0])
    np.testing.assert_array_equal(moving.velocity, [0.0, 1.0])


def test_explode_refuses_bad_input():
    world = pb.World()
    with pytest.raises(ValueError, match="radius"):
        explode(world, (0.0, 0.0), radius=-1.0, impulse=1.0)
    with pytest.raises(ValueError, match="falloff"):
        explode(world, (0.0, 0.0), radius=1.0, impulse=1.0, falloff=np.inf)
    with pytest.raises(ValueError, match="impulse"):
        explode(world, (0.0, 0.0), radius=1.0, impulse=np.nan)
    with pytest.raises(ValueError, match="center"):
        explode(world, (0.0, np.nan), radius=1.0, impulse=1.0)


def outline(shape, transform: pb.Transform) -> np.ndarray:
    """Points of the shape's outline in the world, SPACING apart (the buffer's arcs have
    QUAD_SEGS segments per quarter turn)."""
    points, _, radius = core(shape)
    placed = np.array([transform.to_world(p) for p in points])
    geometry = (shapely.Point(placed[0]) if len(placed) == 1 else
                shapely.LineString(placed) if len(placed) == 2 else shapely.Polygon(placed))
    if radius > 0.0:
        geometry = geometry.buffer(radius, quad_segs=QUAD_SEGS)
    boundary = shapely.segmentize(geometry.boundary, SPACING)
    return shapely.get_coordinates(boundary), geometry, radius


def random_shape(rng):
    kind = rng.integers(4)
    if kind == 0:
        return pb.Circle(rng.uniform(0.1, 0.8))
    if kind == 1:
        return random_polygon(rng, 0.6)
    if kind == 2:
        return pb.Polygon(random_polygon(rng, 0.5).vertices, radius=rng.uniform(0.05, 0.3))
    ends = rng.uniform(-0.8, 0.8, (2, 2))
    while np.hypot(*(ends[1] - ends[0])) < 0.1:
        ends = rng.uniform(-0.8, 0.8, (2, 2))
    return pb.Capsule(ends[0], ends[1], rng.uniform(0.05, 0.4))


def test_impulses_agree_with_a_brute_force_over_outlines():
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(300):
        world = pb.World(gravity=(0.0, 0.0))
        shape = random_shape(rng)
        transform = pb.Transform(rng.uniform(-4.0, 4.0, 2), rng.uniform(-np.pi, np.pi))
        body = world.add_body(shape, position=transform.position, angle=transform.angle)
        center = rng.uniform(-4.0, 4.0, 2)
        radius, falloff, impulse = rng.uniform(0.0, 4.0), rng.uniform(0.0, 3.0), 1.5
        samples, area, r = outline(shape, transform)
        if area.area > 0.0 and area.contains(shapely.Point(center)):
            continue  # inside: the centroid case, checked above
        gaps = np.hypot(*(samples - center).T)
        nearest = samples[np.argmin(gaps)]
        # The buffer's arcs are chords 2r·sin(π/(4·QUAD_SEGS)) long lying within
        # r(1 − cos(π/(4·QUAD_SEGS))) of the outline: the nearest point of the chord across
        # the true nearest point lies within a chord of it, and the nearest sample within
        # SPACING/2 of that.
        sag = r * (1.0 - np.cos(np.pi / (4 * QUAD_SEGS)))
        chord = 2 * r * np.sin(np.pi / (4 * QUAD_SEGS))
        point_error = SPACING / 2 + chord + sag
        distance = gaps.min()
        reach = radius + falloff
        if abs(distance - reach) < 2 * point_error or (
                falloff > 0 and abs(distance - radius) < 2 * point_error):
            continue  # on an edge of the rule within the sampling: says nothing
        hits = explode(world, center, radius=radius, impulse=impulse, falloff=falloff)
        if distance > reach:
            assert hits == [] and not body.velocity.any()
            continue
        (hit,) = hits
        u = (nearest - center) / distance
        across = np.array([-u[1], u[0]])
        width = np.ptp(samples @ across)
        scale = 1.0 if distance <= radius else (reach - distance) / falloff
        assert hit.distance == pytest.approx(distance, abs=point_error)
        np.testing.assert_allclose(hit.point, nearest, atol=point_error + 1e-12)
        # u turns by at most point_error/distance; the width changes by at most that turn
        # times the shape's extent, plus 2·sag.
        turn = 2 * point_error / distance
        extent = np.ptp(samples, axis=0).max() * np.sqrt(2)
        width_error = turn * extent + 2 * sag + 2 * SPACING
        expected = impulse * width * scale * u
        scale_error = (point_error / falloff if falloff > 0 and distance > radius else 0.0)
        np.testing.assert_allclose(
            hit.impulse, expected,
            atol=impulse * (width_error + width * (turn + scale_error)) + 1e-12)
        # The body's velocity is the impulse over its mass.
        np.testing.assert_allclose(body.velocity, hit.impulse / body.mass, atol=1e-12)
        checked += 1
    assert checked > 100
