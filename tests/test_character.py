"""The character mover on chain terrain and kinematic platforms, each scene against its
analytic expectation.

The capsule is 1.6 m tall: its core from (0, −0.5) to (0, 0.5) about the body origin,
radius R = 0.3, so standing on flat ground at y = 0 its origin is at y = 0.8. Steps are
h = 1/60 s and gravity is (0, −10) m/s².

- walking at w on a walkable slope of angle θ it moves along the slope at speed w exactly:
  Δ = n·h·w·(cos θ, sin θ), its round bottom touching the slope (origin at distance R from
  the slope's line, less the 0.5 m of the core's lower half);
- standing on a walkable slope it does not move at all (no gravity on the ground);
- on a slope steeper than ``max_slope`` it slides as a frictionless block under symplectic
  Euler: its speed along the slope after k steps is k·g·sin θ·h, the distance
  s_k = g·sin θ·h²·k(k + 1)/2; walking into such a slope it does not rise;
- on a step of 0.2 m (below the step height) it ends on top, origin at 0.2 + 0.8, walking
  on at w; an edge higher than the step height stops it;
- on a kinematic platform it moves as the platform does; walking at 20 m/s it never
  passes through a thin wall.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb
from physbook.character import CharacterMover

H = 1.0 / 60.0
G = 10.0
R = 0.3
CAPSULE = pb.Capsule((0.0, -0.5), (0.0, 0.5), R)
STAND = 0.5 + R  # the origin's height above the ground it stands on


def slope_world(angle_degrees: float, flat: float = 10.0, rise: float = 20.0):
    """Flat chain ground at y = 0 for x ≤ 0, then a straight slope rising to the right
    (points right to left, so the front faces up)."""
    world = pb.World(gravity=(0.0, -G))
    slope = math.tan(math.radians(angle_degrees))
    points = [(rise + 5.0, rise * slope + 5.0), (rise, rise * slope), (0.0, 0.0),
              (-flat, 0.0), (-flat - 5.0, 0.0)]
    ground = world.add_body(pb.Chain(points), kind="static")
    return world, ground


def on_slope(angle_degrees: float, x: float) -> np.ndarray:
    """The origin of a capsule whose round bottom touches the slope at distance R, its
    lowest core point above the slope point at ``x``."""
    theta = math.radians(angle_degrees)
    normal = np.array([-math.sin(theta), math.cos(theta)])
    bottom = np.array([x, x * math.tan(theta)]) + R * normal
    return bottom + [0.0, 0.5]


def distance_to_slope(origin, angle_degrees: float) -> float:
    """How far the lowest core point is from the slope's line (m)."""
    theta = math.radians(angle_degrees)
    bottom = np.asarray(origin) - [0.0, 0.5]
    return float(-math.sin(theta) * bottom[0] + math.cos(theta) * bottom[1])


def run(world, mover, velocity, steps: int, before=None) -> list[np.ndarray]:
    """Move and step ``steps`` times; the origins after each step."""
    origins = []
    for k in range(steps):
        if before is not None:
            before(k)
        mover.move(velocity, H)
        world.step(H)
        origins.append(mover.position)
    return origins


def test_walks_up_a_30_degree_slope_at_its_walking_speed():
    world, _ = slope_world(30.0)
    mover = CharacterMover(world, CAPSULE, on_slope(30.0, 3.0) + [0.0, 1e-4])
    run(world, mover, (0.0, 0.0), 10)  # lands
    assert mover.on_ground
    np.testing.assert_allclose(mover.ground_normal, [-0.5, math.sqrt(3) / 2], atol=1e-12)
    start = mover.position
    theta = math.radians(30.0)
    steps = 240
    origins = run(world, mover, (3.0, 0.0), steps)
    for k, origin in enumerate(origins, 1):
        np.testing.assert_allclose(origin - start,
                                   k * H * 3.0 * np.array([math.cos(theta), math.sin(theta)]),
                                   atol=1e-9)
        assert distance_to_slope(origin, 30.0) == pytest.approx(R, abs=1e-6)
    assert mover.on_ground


def test_walks_from_the_flat_onto_the_slope_and_down_again_on_the_ground():
    world, _ = slope_world(30.0)
    mover = CharacterMover(world, CAPSULE, (-3.0, STAND + 1e-3))
    run(world, mover, (0.0, 0.0), 10)
    origins = run(world, mover, (3.0, 0.0), 180)  # 9 m: well up the slope
    assert mover.on_ground
    # Up the slope the origin rises as tan 30° per metre, at 3 m/s along the slope.
    rise = np.diff(np.array(origins[-60:]), axis=0)
    np.testing.assert_allclose(rise, np.tile(H * 3.0 * np.array(
        [math.cos(math.radians(30)), math.sin(math.radians(30))]), (59, 1)), atol=1e-9)
    # Walking back down it stays on the ground every step (snapped, never launched).
    for _ in range(240):
        mover.move((-3.0, 0.0), H)
        world.step(H)
        assert mover.on_ground
    assert mover.position[1] == pytest.approx(STAND, abs=1e-6)


def test_standing_on_a_slope_does_not_move_or_jitter():
    world, _ = slope_world(30.0)
    mover = CharacterMover(world, CAPSULE, on_slope(30.0, 5.0) + [0.0, 1e-3])
    run(world, mover, (0.0, 0.0), 30)
    start = mover.position
    origins = np.array(run(world, mover, (0.0, 0.0), 600))
    assert mover.on_ground
    assert np.abs(origins - start).max() == 0.0


def test_slides_down_a_60_degree_slope_as_a_frictionless_block():
    world, _ = slope_world(60.0)
    theta = math.radians(60.0)
    start = on_slope(60.0, 8.0)
    mover = CharacterMover(world, CAPSULE, start)
    steps = 60
    origins = run(world, mover, (0.0, 0.0), steps)
    down = -np.array([math.cos(theta), math.sin(theta)])
    for k, origin in enumerate(origins, 1):
        travelled = (origin - start) @ down
        assert travelled == pytest.approx(G * math.sin(theta) * H**2 * k * (k + 1) / 2,
                                          abs=1e-9)
        assert distance_to_slope(origin, 60.0) == pytest.approx(R, abs=1e-6)
        assert not mover.on_ground


def test_cannot_walk_up_a_60_degree_slope():
    world, _ = slope_world(60.0)
    mover = CharacterMover(world, CAPSULE, (-2.0, STAND + 1e-3))
    run(world, mover, (0.0, 0.0), 10)
    origins = np.array(run(world, mover, (4.0, 0.0), 180))
    # It reaches the foot of the slope (its bottom touching the slope's line) and rises
    # no higher than standing on the flat.
    assert origins[:, 1].max() <= STAND + 1e-6
    assert distance_to_slope(origins[-1], 60.0) == pytest.approx(R, abs=1e-6)
    assert mover.on_ground


def step_world(height: float):
    world = pb.World(gravity=(0.0, -G))
    world.add_body(pb.Chain([(20.0, 0.0), (10.0, 0.0), (-10.0, 0.0), (-20.0, 0.0)]),
                   kind="static")
    step = world.add_body(pb.Polygon.box(2.0, height / 2, center=(4.0, height / 2)),
                          kind="static")
    return world, step


def test_steps_onto_a_20_cm_step_and_walks_on():
    world, step = step_world(0.2)
    mover = CharacterMover(world, CAPSULE, (0.0, STAND + 1e-3), step_height=0.25)
    run(world, mover, (0.0, 0.0), 10)
    origins = np.array(run(world, mover, (2.0, 0.0), 120))  # 4 m: onto the step at x = 2
    assert mover.on_ground and mover.ground_body == step
    assert mover.position[1] == pytest.approx(0.2 + STAND, abs=1e-6)
    np.testing.assert_allclose(mover.velocity, [2.0, 0.0], atol=1e-9)
    assert origins[-1][0] > 3.0
    assert np.all(np.diff(origins[:, 1]) >= -1e-9)  # it climbs, never dips
    assert origins[:, 1].max() <= 0.2 + STAND + 1e-6  # nor overshoots


def test_an_edge_higher_than_the_step_height_stops_it():
    world, _ = step_world(0.28)
    mover = CharacterMover(world, CAPSULE, (0.0, STAND + 1e-3), step_height=0.25)
    run(world, mover, (0.0, 0.0), 10)
    origins = np.array(run(world, mover, (2.0, 0.0), 120))
    # The edge at x = 2, 0.28 m up, meets the round bottom at height 0.28 − ... of the
    # capsule's lowest point: its centre stops R·sin(acos((R − 0.28)/R)) before x = 2.
    stop = 2.0 - R * math.sin(math.acos((R - 0.28) / R))
    assert origins[:, 0].max() <= stop + 1e-6
    assert origins[-1][0] == pytest.approx(stop, abs=1e-6)
    assert origins[:, 1].max() == pytest.approx(STAND, abs=1e-6)


def test_rides_a_moving_platform_within_a_millimetre():
    world = pb.World(gravity=(0.0, -G))
    platform = world.add_body(pb.Polygon.box(3.0, 0.1), position=(0.0, 2.0),
                              kind="kinematic")
    mover = CharacterMover(world, CAPSULE, (0.5, 2.1 + STAND + 1e-3))
    run(world, mover, (0.0, 0.0), 10)
    assert mover.on_ground and mover.ground_body == platform
    offset = mover.position - platform.position

    def drive(k):  # up and down and sideways: an elevator that also slides
        t = k * H
        platform.velocity = (1.5 * math.cos(1.3 * t), 2.0 * math.cos(2.0 * t))

    for k in range(300):
        drive(k)
        mover.move((0.0, 0.0), H)
        world.step(H)
        assert mover.on_ground
        np.testing.assert_allclose(mover.position - platform.position, offset, atol=1e-3)
    # Walking on it, it moves with the platform plus its walk.
    for k in range(1, 61):
        drive(300 + k)
        mover.move((0.5, 0.0), H)
        world.step(H)
        np.testing.assert_allclose(mover.position - platform.position,
                                   offset + [0.5 * k * H, 0.0], atol=1e-3)


@pytest.mark.parametrize("wall", ["segment", "box"])
def test_never_passes_through_a_thin_wall_at_20_metres_per_second(wall):
    world = pb.World(gravity=(0.0, -G))
    world.add_body(pb.Chain([(20.0, 0.0), (10.0, 0.0), (-10.0, 0.0), (-20.0, 0.0)]),
                   kind="static")
    shape = (pb.Segment((5.0, 0.0), (5.0, 3.0)) if wall == "segment"
             else pb.Polygon.box(0.01, 1.5, center=(5.01, 1.5)))
    world.add_body(shape, kind="static")
    mover = CharacterMover(world, CAPSULE, (0.0, STAND + 1e-3))
    run(world, mover, (0.0, 0.0), 5)
    h = 1.0 / 30.0  # 0.67 m a step: more than the capsule is wide
    for _ in range(30):
        mover.move((20.0, 0.0), h)
        world.step(h)
        assert mover.position[0] <= 5.0 - R + 1e-6
    assert mover.position[0] == pytest.approx(5.0 - R, abs=1e-5)
    # Jumping at it, in the air, the same.
    for _ in range(30):
        mover.move((20.0, 6.0 if mover.on_ground else 0.0), h)
        world.step(h)
        assert mover.position[0] <= 5.0 - R + 1e-6


def test_jumps_and_lands_as_a_projectile():
    world, _ = step_world(0.2)
    mover = CharacterMover(world, CAPSULE, (-5.0, STAND + 1e-3))
    run(world, mover, (0.0, 0.0), 10)
    start = mover.position
    origins = np.array(run(world, mover, (0.0, 5.0), 1) + run(world, mover, (0.0, 0.0), 120))
    # Symplectic Euler from v₀ = 5 m/s: the first step moves v₀·h, then each k-th after it
    # (v₀ − k·g·h)·h, until it lands on the ground again.
    k = np.arange(len(origins))
    heights = start[1] + H * (5.0 * (k + 1) - G * H * k * (k + 1) / 2)
    flying = heights > STAND
    np.testing.assert_allclose(origins[flying, 1], heights[flying], atol=1e-9)
    assert origins[-1][1] == pytest.approx(STAND, abs=1e-6) and mover.on_ground


def test_the_character_finds_the_sensors_it_overlaps():
    world = pb.World(gravity=(0.0, -G))
    world.add_body(pb.Chain([(20.0, 0.0), (10.0, 0.0), (-10.0, 0.0), (-20.0, 0.0)]),
                   kind="static")
    coin = world.add_body(pb.Circle(0.2), position=(3.0, 0.8), kind="static", sensor=True)
    world.add_body(pb.Circle(0.2), position=(2.0, 0.8), kind="static", sensor=True,
                   filter=pb.Filter(category=2, mask=2))  # not for the character
    mover = CharacterMover(world, CAPSULE, (0.0, STAND + 1e-3))
    touched = []
    for _ in range(120):
        mover.move((3.0, 0.0), H)
        world.step(H)
        touched.append([ref.body for ref in mover.sensors()])
    # It walks through the coin (sensors do not stop it): it overlaps it while its centre
    # is within R + 0.2 of x = 3, at 3 m/s.
    x = np.array([3.0 * H * k for k in range(1, 121)])
    expected = [[coin] if abs(xk - 3.0) < R + 0.2 - 1e-9 else [] for xk in x]
    inside = [k for k, xk in enumerate(x) if abs(abs(xk - 3.0) - (R + 0.2)) > 1e-6]
    assert [touched[k] for k in inside] == [expected[k] for k in inside]


def test_mover_refuses_bad_input():
    world = pb.World()
    with pytest.raises(TypeError, match="capsule"):
        CharacterMover(world, pb.Circle(1.0), (0.0, 0.0))
    with pytest.raises(ValueError, match="step_height"):
        CharacterMover(world, CAPSULE, (0.0, 0.0), step_height=0.5)
    with pytest.raises(ValueError, match="max_slope"):
        CharacterMover(world, CAPSULE, (0.0, 0.0), max_slope=2.0)
    mover = CharacterMover(world, CAPSULE, (0.0, 0.0))
    with pytest.raises(ValueError, match="dt"):
        mover.move((1.0, 0.0), 0.0)
    with pytest.raises(ValueError, match="velocity"):
        mover.move((np.nan, 0.0), H)


def nearest_by_slsqp(target, normals, offsets, start):
    """The nearest point to ``target`` with normals·δ ≥ offsets, by scipy's SLSQP."""
    from scipy.optimize import minimize

    return minimize(lambda d: np.sum((d - target) ** 2), start,
                    jac=lambda d: 2 * (d - target),
                    constraints=[{"type": "ineq", "fun": lambda d: normals @ d - offsets,
                                  "jac": lambda d: normals}],
                    method="SLSQP", options={"ftol": 1e-14, "maxiter": 200})


def test_the_plane_solver_finds_the_nearest_displacement_in_front_of_every_plane():
    """Against scipy's SLSQP on random sets of one to five planes through a region that is
    not empty (each plane's offset is at most n·δ* for a random feasible δ*)."""
    from physbook.character import solve_planes

    rng = np.random.default_rng(3)
    for _ in range(300):
        count = int(rng.integers(1, 6))
        angles = rng.uniform(-np.pi, np.pi, count)
        normals = np.column_stack([np.cos(angles), np.sin(angles)])
        inside = rng.uniform(-1.0, 1.0, 2)
        offsets = normals @ inside - rng.uniform(0.0, 0.5, count)
        target = rng.uniform(-2.0, 2.0, 2)
        delta, held = solve_planes(target, normals, offsets)
        assert np.all(normals @ delta >= offsets - 1e-12)
        best = nearest_by_slsqp(target, normals, offsets, inside)
        assert np.hypot(*(delta - target)) <= np.hypot(*(best.x - target)) + 1e-9
        np.testing.assert_allclose(delta, best.x, atol=1e-6)
        # The planes that hold it back are the ones it lies on, pushed.
        assert np.all(np.abs(normals[held] @ delta - offsets[held]) <= 1e-9)


def test_a_jump_under_a_ceiling_stops_there_and_falls_from_rest():
    world = pb.World(gravity=(0.0, -G))
    world.add_body(pb.Chain([(20.0, 0.0), (10.0, 0.0), (-10.0, 0.0), (-20.0, 0.0)]),
                   kind="static")
    world.add_body(pb.Polygon.box(3.0, 0.1, center=(0.0, 2.6)), kind="static")
    mover = CharacterMover(world, CAPSULE, (0.0, STAND + 1e-3))
    run(world, mover, (0.0, 0.0), 5)
    heights = np.array([p[1] for p in run(world, mover, (0.0, 6.0), 1)
                        + run(world, mover, (0.0, 0.0), 60)])
    # The head (0.5 + R above the origin) stops at the ceiling's underside, y = 2.5 ...
    top = 2.5 - STAND
    assert heights.max() <= top + 1e-9
    (first,) = np.flatnonzero(np.abs(heights - top) <= 1e-9)[:1]
    # ... where its upward velocity is clipped away: it falls from rest, symplectic Euler.
    k = np.arange(1, len(heights) - first)
    falling = top - G * H**2 * k * (k + 1) / 2
    above = falling > STAND
    np.testing.assert_allclose(heights[first + 1:][above], falling[above], atol=1e-9)
    assert mover.on_ground and heights[-1] == pytest.approx(STAND, abs=1e-6)


def test_jumps_up_through_a_one_way_platform_and_lands_on_it():
    world = pb.World(gravity=(0.0, -G))
    world.add_body(pb.Chain([(20.0, 0.0), (10.0, 0.0), (-10.0, 0.0), (-20.0, 0.0)]),
                   kind="static")
    platform = world.add_body(pb.Polygon.box(2.0, 0.1), position=(0.0, 2.0), kind="static",
                              one_way=(0.0, 1.0))
    mover = CharacterMover(world, CAPSULE, (0.0, STAND + 1e-3))
    run(world, mover, (0.0, 0.0), 5)
    heights = [p[1] for p in run(world, mover, (0.0, 9.0), 1)
               + run(world, mover, (0.0, 0.0), 120)]
    # 9 m/s reaches 9²/(2g) ≈ 4 m above: well past the top, y = 2.1, it lands on.
    assert max(heights) > 2.1 + STAND + 1.0
    assert mover.on_ground and mover.ground_body == platform
    assert heights[-1] == pytest.approx(2.1 + STAND, abs=1e-6)
    # Never pushed up or down while inside it (no pop): the rise is smooth up to the apex.
    apex = int(np.argmax(heights))
    assert np.all(np.diff(heights[:apex + 1]) > 0.0)
