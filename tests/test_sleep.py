"""Chapter 11's sleep rules through the public API, beyond ``test_islands``: when exactly
a slow body falls asleep, what the thresholds decide, what links an island (contacts and
joints, not static bodies), and which changes to a joint wake its bodies."""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb

DT = 1.0 / 60.0


def steps_to_sleep(time_to_sleep: float) -> int:
    """The step at which a body slow from the start falls asleep: the first whose
    accumulated sleep time, DT added once a step (in floating point, as the world adds
    it), reaches ``time_to_sleep``."""
    slow_for, steps = 0.0, 0
    while slow_for < time_to_sleep:
        slow_for += DT
        steps += 1
    return steps


def step_until_asleep(world: pb.World, body: pb.Body, limit: int = 600) -> int:
    """Step ``world`` until ``body`` sleeps; the number of steps taken."""
    for step in range(1, limit + 1):
        world.step(DT)
        if not body.awake:
            return step
    raise AssertionError(f"{body} still awake after {limit} steps")


@pytest.mark.parametrize("time_to_sleep", [0.5, 1.0, 0.25])
def test_a_slow_body_sleeps_once_it_has_been_slow_for_time_to_sleep(time_to_sleep):
    # A ball drifting at 0.01 m/s (under the 0.05 m/s threshold) in empty space is slow
    # from its first step, so it sleeps at the step predicted to the step; asleep, it
    # stops, and waking it starts its sleep clock again.
    world = pb.World(gravity=(0, 0))
    world.sleep.time_to_sleep = time_to_sleep
    ball = world.add_body(pb.Circle(0.5), velocity=(0.01, 0.0))
    assert step_until_asleep(world, ball) == steps_to_sleep(time_to_sleep)
    assert ball.sleep_time >= time_to_sleep
    assert np.all(ball.velocity == 0.0) and world.sleep.awake_count == 0
    ball.awake = True
    assert ball.sleep_time == 0.0 and world.sleep.awake_count == 1


@pytest.mark.parametrize("threshold, moving", [
    ("linear_speed", {"velocity": (0.1, 0.0)}),
    ("angular_speed", {"angular_velocity": 0.1}),
])
def test_the_thresholds_decide_what_is_slow(threshold, moving):
    # 0.1 m/s and 0.1 rad/s are above the defaults (0.05 m/s, 2°/s = 0.035 rad/s): the
    # body keeps moving, awake, for 2 s. Raise the threshold to 0.2 and the same motion is
    # slow: it sleeps after time_to_sleep, like any slow body.
    for value, sleeps in ((None, False), (0.2, True)):
        world = pb.World(gravity=(0, 0))
        if value is not None:
            setattr(world.sleep, threshold, value)
            assert getattr(world.sleep, threshold) == value
        body = world.add_body(pb.Polygon.box(0.5, 0.5), **moving)
        for _ in range(120):
            world.step(DT)
        assert body.awake is not sleeps
        if not sleeps:
            assert body.sleep_time == 0.0  # never slow, so never counting


def test_default_thresholds():
    world = pb.World()
    assert world.sleep.enabled is True
    assert world.sleep.linear_speed == pytest.approx(0.05)
    assert world.sleep.angular_speed == pytest.approx(math.radians(2.0))
    assert world.sleep.time_to_sleep == pytest.approx(0.5)


def test_a_static_body_does_not_join_the_islands_it_holds():
    # Two pendulums hang from one static pin: one swings, one hangs still. A static body
    # moves nothing, so the two are separate islands and the still one sleeps.
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
    swinging = world.add_body(pb.Circle(0.2), position=(1, 4))
    hanging = world.add_body(pb.Circle(0.2), position=(0, 3))
    for ball in (swinging, hanging):
        world.add_joint(pb.DistanceJoint(pin, ball, (0, 5), ball.position))
    for _ in range(120):
        world.step(DT)
    assert swinging.awake and not hanging.awake
    assert world.bodies.awake.tolist() == [False, True, False] and world.sleep.awake_count == 1


def test_a_joint_links_two_bodies_into_one_island():
    # Two balls joined by a rod, apart from each other and from a third ball: nothing
    # touches, so only the rod links them. Sleep and waking go through it, not past it.
    world = pb.World(gravity=(0, 0))
    first = world.add_body(pb.Circle(0.2), position=(0, 0))
    second = world.add_body(pb.Circle(0.2), position=(1, 0))
    alone = world.add_body(pb.Circle(0.2), position=(5, 0))
    world.add_joint(pb.DistanceJoint(first, second, (0, 0), (1, 0)))
    world.step(DT)
    first.awake = False
    assert not second.awake and alone.awake
    assert world.bodies.awake.tolist() == [False, False, True]
    # Waking is marked on the body at once and spread through its island by the next
    # step's island search.
    second.awake = True
    assert second.awake and world.sleep.awake_count == 2
    world.step(DT)
    assert first.awake and world.sleep.awake_count == 3


@pytest.mark.parametrize("change", ["motor_speed", "set_limits", "remove_joint",
                                    "add_joint"])
def test_changing_a_joint_wakes_its_bodies(change):
    # A bar hanging still from a hinge falls asleep; a change to a joint on it may move it,
    # so the change wakes it (and a bar that is not woken would not feel the change).
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
    bar = world.add_body(pb.Polygon.box(1.0, 0.1), position=(0, 4), angle=math.pi / 2)
    hinge = world.add_joint(pb.RevoluteJoint(pin, bar, (0, 5), max_motor_torque=100.0))
    step_until_asleep(world, bar)
    {"motor_speed": lambda: setattr(hinge, "motor_speed", 1.0),
     "set_limits": lambda: hinge.set_limits(-0.5, 0.5),
     "remove_joint": lambda: world.remove_joint(hinge),
     "add_joint": lambda: world.add_joint(pb.DistanceJoint(pin, bar, (0, 5), (0, 3)))}[
        change]()
    assert bar.awake and bar.sleep_time == 0.0


def test_a_moving_kinematic_body_wakes_a_sleeping_box_it_reaches():
    # A box asleep on the ground; a kinematic pusher sliding in at 1 m/s touches it and
    # wakes it, and the box is pushed along.
    world = pb.World()
    world.add_body(pb.Polygon.box(10.0, 0.5), position=(0, -0.5), kind="static")
    box = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 0.5))
    step_until_asleep(world, box)
    pusher = world.add_body(pb.Polygon.box(0.25, 0.25), position=(-2.0, 0.3),
                            kind="kinematic", velocity=(1.0, 0.0))
    assert pusher.awake and not box.awake
    for _ in range(120):  # 2 s: the pusher's 1.25 m gap closes after 1.25 s
        world.step(DT)
    assert box.awake and box.position[0] > 0.5


def test_islands_sleep_independently():
    # Two boxes resting on the ground 4 m apart are two islands; one kept moving by a
    # steady push never sleeps, and the other sleeps on time regardless.
    world = pb.World()
    world.add_body(pb.Polygon.box(10.0, 0.5), position=(0, -0.5), kind="static")
    quiet = world.add_body(pb.Polygon.box(0.5, 0.5), position=(-2, 0.5))
    pushed = world.add_body(pb.Polygon.box(0.5, 0.5), position=(2, 0.5),
                            material=pb.Material(friction=0.0))
    for _ in range(90):
        pushed.apply_force((0.1, 0.0))
        world.step(DT)
    assert not quiet.awake and pushed.awake
    assert world.bodies.awake.tolist() == [False, False, True]
