"""Bodies that never turn (``fixed_rotation``): an upright character, a capsule standing."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import physbook as pb


def test_an_off_centre_impulse_moves_a_fixed_body_without_turning_it():
    world = pb.World(gravity=(0.0, 0.0))
    body = world.add_body(pb.Polygon.box(0.5, 0.25), fixed_rotation=True)
    free = world.add_body(pb.Polygon.box(0.5, 0.25), position=(5, 0))
    for handle in (body, free):
        handle.apply_impulse((0.0, 2.0), handle.position + (0.5, 0.0))
    world.step(1 / 60)
    assert body.inverse_inertia == 0.0 and body.angular_velocity == 0.0 and body.angle == 0.0
    np.testing.assert_array_equal(body.velocity, free.velocity)  # Δv = J/m for both
    assert free.angular_velocity == pytest.approx(2.0 * 0.5 / free.inertia, rel=1e-12)


def test_a_fixed_plank_stands_on_its_corner_and_topples_once_released():
    """A plank 0.1 m thick and 1.6 m tall, tilted 0.1 rad: past atan(0.05/0.8) = 0.062 rad
    its centre of mass is beyond the corner it stands on, so only fixed rotation holds it."""
    world = pb.World()
    world.add_body(pb.Polygon.box(10, 0.5), position=(0, -0.5), kind="static")
    lowest = 0.8 * np.cos(0.1) + 0.05 * np.sin(0.1)
    body = world.add_body(pb.Polygon.box(0.05, 0.8), position=(0, lowest + 1e-3), angle=0.1,
                          fixed_rotation=True)
    for _ in range(180):
        world.step(1 / 60)
    assert body.angle == 0.1 and body.position[1] == pytest.approx(lowest, abs=0.02)
    body.fixed_rotation = False
    assert body.inverse_inertia == 1.0 / body.inertia
    for _ in range(180):
        world.step(1 / 60)
    assert body.angle > 1.0  # it toppled


def test_fixing_a_turning_body_stops_its_turn_and_wakes_it():
    world = pb.World(gravity=(0.0, 0.0))
    body = world.add_body(pb.Circle(0.5), angular_velocity=3.0)
    body.awake = False
    body.fixed_rotation = True
    assert (body.angular_velocity, body.inverse_inertia, body.awake) == (0.0, 0.0, True)


def test_fixed_rotation_survives_a_change_of_kind_a_removal_and_a_pickle():
    world = pb.World()
    first = world.add_body(pb.Circle(0.5))
    body = world.add_body(pb.Polygon.box(0.5, 0.5), fixed_rotation=True)
    body.kind = "static"
    body.kind = "dynamic"
    assert body.inverse_inertia == 0.0 and body.mass > 0.0
    world.remove_body(first)
    assert body.fixed_rotation and body.row == 0
    copy = pickle.loads(pickle.dumps(world))
    assert [handle.fixed_rotation for handle in copy.bodies] == [True]


def test_a_fixed_body_given_a_spin_is_refused():
    with pytest.raises(ValueError, match="angular_velocity must be 0 for a body with "
                                         "fixed_rotation"):
        pb.World().add_body(pb.Circle(0.5), angular_velocity=1.0, fixed_rotation=True)
    with pytest.raises(TypeError, match="fixed_rotation must be"):
        pb.World().add_body(pb.Circle(0.5), fixed_rotation="yes")
