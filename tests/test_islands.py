"""Chapter 11's islands and sleep, through the public API."""

from __future__ import annotations

import numpy as np
import pytest

import physbook as pb

DT = 1.0 / 60.0


def settled_pyramid():
    """pyramid-20 stepped until it is asleep; returns the scene and the step it settled
    (every box slower than the sleep speed) and the step it fell asleep."""
    scene = pb.scenes.pyramid(20)
    world = scene.world
    settled = asleep = None
    for step in range(1, 600):
        world.step(DT)
        speeds = np.hypot(*world.bodies.velocities[1:].T)
        if settled is None and step > 5 and speeds.max() < world.sleep.linear_speed:
            settled = step
        if world.sleep.awake_count == 0:
            asleep = step
            break
    return scene, settled, asleep


@pytest.fixture(scope="module")
def pyramid_asleep():
    return settled_pyramid()


def test_pyramid_falls_asleep_within_three_seconds_of_settling(pyramid_asleep):
    scene, settled, asleep = pyramid_asleep
    assert settled is not None and asleep is not None
    # An island sleeps once every body has been slow for time_to_sleep (0.5 s).
    assert asleep * DT <= settled * DT + 3.0
    assert asleep * DT >= scene.world.sleep.time_to_sleep
    assert not any(body.awake for body in scene.bodies["boxes"])


def test_sleeping_bodies_do_not_move_at_all():
    scene, _, _ = settled_pyramid()
    world = scene.world
    before = world.bodies.centers.copy(), world.bodies.angles.copy()
    for _ in range(100):
        world.step(DT)
    assert np.array_equal(world.bodies.centers, before[0]) and np.array_equal(world.bodies.angles,
                                                                       before[1])
    assert world.sleep.awake_count == 0


def test_a_box_dropped_on_a_sleeping_pyramid_wakes_it_and_it_sleeps_again():
    scene, _, _ = settled_pyramid()
    world = scene.world
    boxes = scene.bodies["boxes"]
    dropped = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0.0, 25.0))
    woke = False
    for _ in range(600):
        world.step(DT)
        if world.sleep.awake_count == len(boxes) + 1:
            woke = True
        if woke and world.sleep.awake_count == 0:
            break
    assert woke  # the whole pile, through its contacts, wakes when the box lands
    assert world.sleep.awake_count == 0 and dropped.position[1] > 19.0


@pytest.mark.parametrize("push", ["force", "impulse", "velocity", "position", "awake"])
def test_a_push_wakes_the_island(push):
    scene, _, _ = settled_pyramid()
    world = scene.world
    top = scene.bodies["boxes"][-1]
    bottom = scene.bodies["boxes"][0]
    {"force": lambda: bottom.apply_force((0.0, 1.0)),
     "impulse": lambda: bottom.apply_impulse((0.0, 1e-3)),
     "velocity": lambda: setattr(bottom, "velocity", (0.0, 1e-3)),
     "position": lambda: setattr(bottom, "position", bottom.position),
     "awake": lambda: setattr(bottom, "awake", True)}[push]()
    assert bottom.awake
    world.step(DT)
    assert top.awake and world.sleep.awake_count == len(scene.bodies["boxes"])


def test_putting_a_body_to_sleep_puts_its_island_to_sleep():
    world = pb.World()
    world.add_body(pb.Polygon.box(5, 0.5), position=(0, -0.5), kind="static")
    lower = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 0.5))
    upper = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 1.5))
    apart = world.add_body(pb.Polygon.box(0.5, 0.5), position=(3, 0.5))
    world.step(DT)
    upper.awake = False
    assert not lower.awake and not upper.awake and apart.awake
    assert np.all(upper.velocity == 0.0)


def test_static_bodies_are_never_awake_and_kinematic_ones_while_they_move():
    world = pb.World()
    ground = world.add_body(pb.Polygon.box(5, 0.5), kind="static")
    lift = world.add_body(pb.Polygon.box(1, 0.1), position=(0, 2), kind="kinematic")
    ground.awake = True
    assert not ground.awake and not lift.awake
    lift.velocity = (0.0, 0.5)
    assert lift.awake


def test_a_body_on_a_moving_platform_stays_awake():
    world = pb.World()
    world.add_body(pb.Polygon.box(2, 0.1), position=(0, 0), kind="kinematic",
                   velocity=(0.02, 0.0))
    rider = world.add_body(pb.Polygon.box(0.3, 0.3), position=(0, 0.4))
    for _ in range(240):
        world.step(DT)
    # The rider moves at 0.02 m/s, below the sleep speed, but the platform carries it.
    assert rider.awake and rider.velocity[0] == pytest.approx(0.02, abs=1e-3)


def test_a_swinging_pendulum_never_sleeps_and_a_resting_one_does():
    scene = pb.scenes.pendulum()
    for _ in range(600):
        scene.world.step(DT)
    assert scene.bodies["ball"].awake
    hanging = pb.scenes.pendulum(angle=0.0)
    for _ in range(60):
        hanging.world.step(DT)
    assert not hanging.bodies["ball"].awake


def test_removing_a_body_wakes_what_rested_on_it():
    world = pb.World()
    world.add_body(pb.Polygon.box(5, 0.5), position=(0, -0.5), kind="static")
    lower = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 0.5))
    upper = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 1.5))
    for _ in range(120):
        world.step(DT)
    assert not upper.awake
    world.remove_body(lower)
    assert upper.awake
    for _ in range(60):
        world.step(DT)
    assert upper.position[1] == pytest.approx(0.5, abs=0.02)  # it fell onto the ground


def test_sleep_can_be_turned_off():
    world = pb.World(sleeping=False)
    world.add_body(pb.Polygon.box(5, 0.5), position=(0, -0.5), kind="static")
    box = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 0.5))
    for _ in range(120):
        world.step(DT)
    assert box.awake
    world.sleep.enabled = True
    for _ in range(60):
        world.step(DT)
    assert not box.awake
    world.sleep.enabled = False
    assert box.awake


def test_a_body_pushed_every_step_never_sleeps():
    # A slow body under a steady force is accelerating, not resting.
    world = pb.World(gravity=(0, 0))
    body = world.add_body(pb.Circle(0.5))
    for _ in range(120):
        body.apply_force((1e-3, 0.0))
        world.step(DT)
    assert body.awake and body.velocity[0] == pytest.approx(1e-3 * 2.0 / body.mass)


def test_sleep_thresholds_are_checked():
    world = pb.World()
    world.sleep.linear_speed = 0.1
    world.sleep.angular_speed = 0.1
    world.sleep.time_to_sleep = 1.0
    assert (world.sleep.linear_speed, world.sleep.angular_speed, world.sleep.time_to_sleep) == (
        0.1, 0.1, 1.0)
    for name in ("linear_speed", "angular_speed", "time_to_sleep"):
        with pytest.raises(ValueError, match=name):
            setattr(world.sleep, name, -1.0)
    with pytest.raises(TypeError, match="enabled"):
        world.sleep.enabled = "yes"
