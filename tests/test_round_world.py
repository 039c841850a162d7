"""Capsules, rounded polygons, segments and chains in a world: sensors, events, sleep and
waking, compounds, removal and pickles work for them as for circles and polygons."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import physbook as pb

DT = 1 / 60
FLOOR = [(6.0, 0.0), (4.0, 0.0), (2.0, 0.0), (0.0, 0.0), (-2.0, 0.0), (-4.0, 0.0),
         (-6.0, 0.0)]


def every_shape_world() -> pb.World:
    """A chain floor with a segment wall; a capsule, a rounded box, a circle, a compound of
    a box, a capsule and a rounded triangle, falling and sliding."""
    world = pb.World()
    world.add_body([pb.Chain(FLOOR), pb.Segment((-3.9, 0.0), (-3.9, 3.0))], kind="static")
    world.add_body(pb.Capsule((-0.4, 0), (0.4, 0), 0.2), position=(-1.0, 1.0), angle=0.3,
                   velocity=(-2.0, 0.0))
    world.add_body(pb.Polygon.box(0.3, 0.2, radius=0.05), position=(0.5, 2.0), angle=0.7)
    world.add_body(pb.Circle(0.25), position=(1.5, 0.5), velocity=(1.0, 0.0))
    world.add_body([pb.Polygon.box(0.2, 0.2), pb.Capsule((0.2, 0), (0.8, 0), 0.1),
                    pb.Polygon([(-0.2, 0.2), (0.2, 0.2), (0, 0.5)], radius=0.05)],
                   position=(2.5, 1.5))
    return world


def states(world: pb.World) -> np.ndarray:
    return np.concatenate([world.bodies.centers.ravel(), world.bodies.angles,
                           world.bodies.velocities.ravel(), world.bodies.angular_velocities])


def test_a_world_of_every_shape_pickles_and_copies_before_and_after_a_step():
    for steps in (0, 1, 45):
        world = every_shape_world()
        world.run(steps, DT) if steps else None
        copies = [pickle.loads(pickle.dumps(world)), copy.deepcopy(world)]
        for _ in range(60):
            for w in (world, *copies):
                w.step(DT)
        for other in copies:
            assert np.array_equal(states(world), states(other))


def test_bodies_of_every_shape_come_to_rest_on_the_chain_and_sleep():
    world = every_shape_world()
    world.run(600, DT)
    dynamic = [b for b in world.bodies if b.kind == "dynamic"]
    assert all(not body.awake for body in dynamic)
    for body in dynamic:
        assert -3.9 < body.position[0] < 6.0 and body.position[1] > 0.0  # on the floor


def test_a_moving_kinematic_chain_wakes_the_capsules_asleep_on_it():
    world = pb.World()
    floor = world.add_body(pb.Chain(FLOOR), kind="kinematic")
    capsules = [world.add_body(pb.Capsule((-0.3, 0), (0.3, 0), 0.2), position=(x, 0.2))
                for x in (-2.0, 0.0, 2.0)]
    world.run(120, DT)
    assert not any(c.awake for c in capsules)
    floor.velocity = (0.0, 0.5)
    world.step(DT)
    assert all(c.awake for c in capsules)
    world.run(60, DT)
    assert all(c.position[1] > 0.2 + 0.4 for c in capsules)  # carried up 0.5 m in a second


def test_a_sensor_capsule_reports_a_ball_passing_through_it_and_never_touches_it():
    world = pb.World(gravity=(0.0, 0.0))
    gate = world.add_body(pb.Capsule((0, -1), (0, 1), 0.3), kind="static", sensor=True)
    ball = world.add_body(pb.Circle(0.2), position=(-2.0, 0.5), velocity=(4.0, 0.0))
    began = ended = 0
    for _ in range(90):
        world.step(DT)
        began += len(world.events.sensors.begin)
        ended += len(world.events.sensors.end)
    assert (began, ended) == (1, 1)
    assert ball.velocity[0] == 4.0 and gate.kind == "static"


def test_a_capsule_dropped_on_a_chain_raises_one_begin_and_a_hit():
    world = pb.World()
    world.events.hit_speed = 1.0
    world.add_body(pb.Chain(FLOOR), kind="static")
    world.add_body(pb.Capsule((-0.3, 0), (0.3, 0), 0.2), position=(0.5, 2.0))
    began, speeds = 0, []
    for _ in range(90):
        world.step(DT)
        began += len(world.events.contacts.begin)
        speeds.extend(world.events.contacts.hits.speeds)
    assert began >= 1 and speeds
    speed = np.sqrt(2 * 10 * (2.0 - 0.2))  # falling 1.8 m
    assert max(speeds) == pytest.approx(speed, rel=0.05)


def test_removing_a_chain_body_compacts_the_vertex_pool_and_the_world_steps_on():
    world = pb.World()
    ramp = world.add_body(pb.Chain([(3, 1), (1, 0.5), (0, 0), (-1, 0), (-3, 0.5)]),
                          kind="static")
    world.add_body(pb.Chain(FLOOR), position=(0, -2), kind="static")
    ball = world.add_body(pb.Circle(0.2), position=(0.0, 1.0))
    world.run(30, DT)
    assert ball.position[1] > 0.1
    world.remove_body(ramp)
    world.run(90, DT)
    assert ball.position[1] == pytest.approx(-2 + 0.2, abs=0.02)
    rows = world.shapes.arrays
    assert rows.vertex_count.tolist() == [4] * 4 + [1]
    floor = pb.Chain(FLOOR).segments
    expected = [point for s in floor for point in (s.point1, s.point2, s.ghost1, s.ghost2)]
    np.testing.assert_array_equal(rows.vertices[:16], expected)
