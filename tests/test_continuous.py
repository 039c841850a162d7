"""Chapter 13's continuous collision in the world: fast bodies never end a step past what
they should hit, with speculative contacts, time of impact, or both.

The oracle is geometry: where the wall or the ground is, and which side of it the body
started on. Each scene is also run with both defences off, to show it does tunnel then
(v·dt is larger than the thickness), so the test can fail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb
from physbook.constants import CONTINUOUS_TARGET, SPECULATIVE_DISTANCE
from physbook.dynamics.solvers import SOLVERS

DT = 1.0 / 60.0
THICKNESS = 0.02  # m, the wall's and the ground's
RADIUS = 0.1


def solver_named(name: str, speculative: bool):
    """A default solver of this name, with its speculative contacts on or off (chapter
    9's impulse solver has them off by default)."""
    solver = SOLVERS[name]()
    solver.speculative_distance = SPECULATIVE_DISTANCE if speculative else 0.0
    return solver


DEFENCES = pytest.mark.parametrize("solver, speculative, continuous", [
    (name, speculative, continuous) for name in sorted(SOLVERS)
    for speculative, continuous in ((True, True), (False, True), (True, False))])


def wall_world(solver, continuous: bool, gravity=(0.0, 0.0)):
    """A static wall 0.02 m thick and 2 m tall, its near face at x = 2 − 0.01."""
    world = pb.World(gravity=gravity, solver=solver)
    world.continuous = continuous
    world.add_body(pb.Polygon.box(THICKNESS / 2, 1.0), position=(2.0, 0.0), kind="static")
    return world


def crossed_the_wall(world, ball, steps=60) -> bool:
    """Whether the ball's centre ever ends a step beyond the wall's near face while level
    with the wall."""
    for _ in range(steps):
        world.step(DT)
        x, y = ball.position
        if x > 2.0 - THICKNESS / 2 and abs(y) < 1.0 + RADIUS:
            return True
    return False


@DEFENCES
@pytest.mark.parametrize("speed", [20.0, 100.0, 500.0])
def test_a_fast_ball_never_ends_a_step_past_a_thin_wall(solver, speculative, continuous,
                                                        speed):
    world = wall_world(solver_named(solver, speculative), continuous)
    ball = world.add_body(pb.Circle(RADIUS), position=(0.0, 0.0), velocity=(speed, 0.0))
    assert not crossed_the_wall(world, ball)
    # It is stopped in front of the wall, not left inside it.
    assert ball.position[0] <= 2.0 - THICKNESS / 2 - RADIUS + CONTINUOUS_TARGET


@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_without_either_defence_the_ball_tunnels(solver):
    # v·dt = 100/60 m is 83 wall thicknesses: the wall is never seen.
    world = wall_world(solver_named(solver, False), False)
    ball = world.add_body(pb.Circle(RADIUS), position=(0.0, 0.0), velocity=(100.0, 0.0))
    world.run(60, DT)
    assert ball.position[0] == pytest.approx(100.0)


@pytest.mark.parametrize("solver", sorted(SOLVERS))
@pytest.mark.parametrize("continuous", [True, False])
def test_a_hundred_random_shots_at_a_thin_wall_never_cross_it(solver, continuous):
    # (With speculative contacts. Without them, time of impact stops a ball short of the
    # wall, but the next step, touching from the start, sweeps only its core: a ball
    # glancing off near the wall's end can then sink into the wall before it is pushed
    # out. Continuous collision is built to work with speculative contacts, as Box2D's.)
    speculative = True
    rng = np.random.default_rng(15)
    crossed = 0
    for _ in range(100):
        world = wall_world(solver_named(solver, speculative), continuous, gravity=(0, -10))
        start = np.array([rng.uniform(-1.0, 1.8), rng.uniform(-3.0, 3.0)])
        aim = np.array([2.0, rng.uniform(-0.9, 0.9)])
        velocity = (aim - start) / np.hypot(*(aim - start)) * rng.uniform(20.0, 500.0)
        ball = world.add_body(pb.Circle(RADIUS), position=start, velocity=velocity)
        crossed += crossed_the_wall(world, ball, steps=20)
    if solver == "soft_step" and not continuous:
        # Speculative contacts alone: a ball that passes close by the wall's end sees a
        # normal from that corner, which does not stop it crossing the face beyond.
        assert crossed > 0
    else:
        assert crossed == 0


def shot_at_a_box(solver, bullet: bool, continuous: bool = True):
    world = pb.World(gravity=(0.0, 0.0), solver=solver)
    world.continuous = continuous
    target = world.add_body(pb.Polygon.box(0.1, 0.1), position=(3.0, 0.0))
    shot = world.add_body(pb.Polygon.box(0.05, 0.02), position=(0.0, 0.0),
                          velocity=(300.0, 0.0))
    shot.bullet = bullet
    return world, shot, target


def passes_untouched(world, shot, target, steps=30) -> bool:
    """Whether the shot ends a step beyond the box before the box has been hit."""
    for _ in range(steps):
        world.step(DT)
        if not np.any(target.velocity):
            if shot.position[0] > target.position[0]:
                return True
        else:
            return False
    return False


@pytest.mark.parametrize("solver", sorted(SOLVERS))
@pytest.mark.parametrize("speculative", [True, False])
def test_a_bullet_at_300_m_s_never_passes_a_small_dynamic_box(solver, speculative):
    world, shot, target = shot_at_a_box(solver_named(solver, speculative), bullet=True)
    assert not passes_untouched(world, shot, target)
    assert target.velocity[0] > 0.0  # the box was hit and pushed on


def test_a_fast_box_that_is_not_a_bullet_passes_dynamic_bodies_without_speculation():
    # Continuous collision is against static bodies only unless the body is a bullet.
    world, shot, target = shot_at_a_box(solver_named("soft_step", False), bullet=False)
    assert passes_untouched(world, shot, target)


def rod_world(solver, continuous: bool = True):
    """A rod 2 m × 0.02 m spinning at 50 rad/s, dropped from 10 m (it lands at 14 m/s,
    0.23 m a step) onto ground 0.02 m thick."""
    world = pb.World(solver=solver)
    world.continuous = continuous
    world.add_body(pb.Polygon.box(40.0, THICKNESS / 2), position=(0.0, 0.0), kind="static")
    rod = world.add_body(pb.Polygon.box(1.0, 0.01), position=(0.0, 10.0), angular_velocity=50.0)
    return world, rod


@pytest.mark.parametrize("solver", sorted(SOLVERS))
@pytest.mark.parametrize("continuous", [True, False])
def test_a_spinning_thin_rod_never_falls_through_thin_ground(solver, continuous):
    world, rod = rod_world(solver_named(solver, True), continuous)
    lowest = math.inf
    for _ in range(400):
        world.step(DT)
        lowest = min(lowest, rod.position[1])
    # Its centre never goes below the ground's top face, and it ends lying on the ground.
    assert lowest > THICKNESS / 2 - 0.005
    assert rod.position[1] == pytest.approx(THICKNESS / 2 + 0.01, abs=0.005)


def test_the_spinning_rod_falls_through_without_either_defence():
    world, rod = rod_world(solver_named("soft_step", False), continuous=False)
    world.run(400, DT)
    assert rod.position[1] < -1.0


def test_a_body_already_touching_slides_on_instead_of_freezing():
    # A box sliding fast on the ground touches it at the start of every step: the time of
    # impact with the ground is 0, and only the box's core is swept (it does not cross).
    world = pb.World(solver=solver_named("soft_step", True))
    world.add_body(pb.Polygon.box(100.0, 0.5), position=(0.0, -0.5), kind="static",
                   material=pb.Material(friction=0.0))
    box = world.add_body(pb.Polygon.box(0.1, 0.1), position=(0.0, 0.1), velocity=(30.0, 0.0),
                         material=pb.Material(friction=0.0))
    world.run(60, DT)
    assert box.position[0] == pytest.approx(30.0, rel=1e-3)
    assert box.position[1] == pytest.approx(0.1, abs=0.005)


def test_filters_sensors_and_joints_are_respected():
    # A ball whose mask leaves out the wall, or a wall that is a sensor, is not stopped;
    # nor is a fast arm by the static hub its joint keeps it from colliding with.
    for wall_options in ({"sensor": True}, {"filter": pb.Filter(category=2)}):
        world = pb.World(gravity=(0.0, 0.0), solver=solver_named("soft_step", False))
        world.add_body(pb.Polygon.box(THICKNESS / 2, 1.0), position=(2.0, 0.0), kind="static",
                       **wall_options)
        ball = world.add_body(pb.Circle(RADIUS), position=(0.0, 0.0), velocity=(100.0, 0.0),
                              filter=pb.Filter(mask=1))
        world.run(10, DT)
        assert ball.position[0] == pytest.approx(100.0 * 10 * DT)
    arms = []
    for continuous in (True, False):
        world = pb.World(gravity=(0.0, 0.0), solver=solver_named("soft_step", False))
        world.continuous = continuous
        hub = world.add_body(pb.Polygon.box(0.05, 1.0), position=(0.0, 0.0), kind="static")
        arm = world.add_body(pb.Polygon.box(1.0, 0.02), position=(1.0, 0.0),
                             angular_velocity=20.0)
        world.add_joint(pb.RevoluteJoint(hub, arm, anchor=(0.0, 0.0)))
        world.run(30, DT)  # 10 turns, each sweeping the arm through the hub
        arms.append(np.array([*arm.position, arm.angle, arm.angular_velocity]))
    np.testing.assert_array_equal(arms[0], arms[1])


@pytest.mark.parametrize("scene", ["pyramid", "vertical_stack", "ramp"])
def test_scenes_without_fast_bodies_are_bit_identical_either_way(scene):
    runs = []
    for continuous in (True, False):
        world = pb.World()
        world.continuous = continuous
        pb.scenes.SCENES[scene](world=world)
        world.run(120, DT)
        runs.append((world.bodies.centers.copy(), world.bodies.angles.copy(),
                     world.bodies.velocities.copy()))
    for on, off in zip(*runs, strict=True):
        np.testing.assert_array_equal(on, off)


def test_switches_refuse_what_is_not_a_flag():
    world = pb.World()
    body = world.add_body(pb.Circle(1.0))
    assert world.continuous is True and body.bullet is False
    for bad in (1, "yes", None, np.array([True])):
        with pytest.raises(TypeError, match="continuous"):
            world.continuous = bad
        with pytest.raises(TypeError, match="bullet"):
            body.bullet = bad
    body.bullet = True
    assert body.bullet and world.bodies.bullets.tolist() == [True]


def test_the_static_tree_follows_removals_and_moved_walls():
    # Continuous collision walks a tree of the static shapes alone, kept between steps: it
    # must follow a body removed before the wall (rows shift), a wall moved, and a new wall.
    world = pb.World(gravity=(0.0, 0.0), solver=solver_named("soft_step", False))
    spare = world.add_body(pb.Circle(0.5), position=(-10.0, 5.0))
    wall = world.add_body(pb.Polygon.box(THICKNESS / 2, 1.0), position=(2.0, 0.0),
                          kind="static")
    ball = world.add_body(pb.Circle(RADIUS), position=(0.0, 0.0), velocity=(100.0, 0.0))
    world.step(DT)
    world.remove_body(spare)
    ball.position, ball.velocity = (0.0, 0.0), (100.0, 0.0)
    assert not crossed_the_wall(world, ball, steps=5)
    wall.position = (2.0, 3.0)                       # moved up: the ball's lane is open
    ball.position, ball.velocity = (0.0, 3.0), (100.0, 0.0)
    world.run(3, DT)
    assert ball.position[0] < 2.0 - THICKNESS / 2   # stopped by the wall where it is now
    world.add_body(pb.Polygon.box(THICKNESS / 2, 1.0), position=(-2.0, 3.0), kind="static")
    ball.velocity = (-100.0, 0.0)
    world.run(5, DT)
    assert -2.0 + THICKNESS / 2 < ball.position[0] < 2.0 - THICKNESS / 2


@pytest.mark.parametrize("solver", ["sequential_impulses", "impulse"])
def test_a_speculative_bounce_ends_the_step_where_a_bounce_from_the_surface_would(solver):
    # No gravity: a ball s = 0.1 m above the floor falling at 12 m/s meets it at τ = s/(v·dt)
    # = 1/2 of the step and leaves at e·v = 6 m/s (e = 0.5), so it ends the step
    # e·v·(1 − τ)·dt = 0.05 m above the floor, rising at 6 m/s.
    world = pb.World(gravity=(0.0, 0.0), solver=solver_named(solver, True))
    bouncy = pb.Material(restitution=0.5, friction=0.0)
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static",
                   material=bouncy)
    ball = world.add_body(pb.Circle(0.5), position=(0.0, 0.6), velocity=(0.0, -12.0),
                          material=bouncy)
    world.step(DT)
    assert ball.position[1] == pytest.approx(0.55, abs=1e-12)
    assert ball.velocity[1] == pytest.approx(6.0, abs=1e-12)


def test_sequential_impulses_bounce_near_the_analytic_apexes():
    # The standard bounce scene (e = 0.5, from 10 m). A rigid solve measures the approach
    # speed at the start of the step (after the step's gravity), which differs from the
    # speed on reaching the floor by at most g·dt; the apex goes as v², so the n-th is good
    # to 2·g·dt/v_n, with v_n = e^(n−1)·√(2g(h0 − r)) the n-th impact speed (2.4 % for the
    # first). Bouncing from the gap without landing the bounce put them 4–10 % too high.
    scene = pb.scenes.bounce(pb.World(solver="sequential_impulses"))
    heights = scene.run().centers[:, scene.bodies["ball"].row, 1]
    apexes = pb.scenes.apex_heights(heights)
    analytic = pb.scenes.bounce_apexes(10.0, 0.5, 0.5)
    impact_speeds = 0.5 ** np.arange(4) * math.sqrt(2 * 10.0 * 9.5)
    assert np.all(np.abs(apexes / analytic - 1) <= 2 * 10.0 * DT / impact_speeds)
