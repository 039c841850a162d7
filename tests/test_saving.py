"""A world saved with pickle or copied with copy.deepcopy, at any moment, steps on exactly as
the world itself does: the oracle is the original world, stepped beside its copies."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import physbook as pb
from physbook import scenes
from physbook.dynamics.colouring import colouring_arrays

COLUMNS = ("origins", "centers", "angles", "velocities", "angular_velocities", "awake",
           "sleep_times", "forces", "torques")


def _state(world: pb.World) -> list[np.ndarray]:
    contacts, events = world.contacts, world.events.contacts
    joints = world.joint_arrays
    return [getattr(world.bodies, name).copy() for name in COLUMNS] + [
        contacts.shape_ids.copy(), contacts.normal_impulses.copy(),
        contacts.tangent_impulses.copy(), events.begin, events.end, *events.hits,
        *(column.copy() for column in joints), np.array([world.time, world.step_count])]


def _twins(world: pb.World) -> list[pb.World]:
    return [pickle.loads(pickle.dumps(world)), copy.deepcopy(world)]


def _counted(contact) -> None:
    _counted.calls += 1


_counted.calls = 0


def _sensed_bounce() -> scenes.Scene:
    """The bounce scene with a sensor the ball passes (so a world steps stage by stage) and
    a handler, a function of this module, that counts what the sensor reports."""
    scene = scenes.bounce()
    scene.world.add_body(pb.Circle(1.0), position=(0.0, 5.0), kind="static", sensor=True)
    scene.world.events.on_contact(1, 1, begin=_counted, end=_counted)
    return scene


BUILDS = {
    "pyramid asleep": lambda: scenes.pyramid(base=6),
    "bridge": scenes.bridge,
    "car": scenes.car,
    "rain": lambda: scenes.rain(n=120),
    "sensor and handler": _sensed_bounce,
}


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "staged"])
@pytest.mark.parametrize("name", sorted(BUILDS))
def test_a_saved_world_steps_on_bit_for_bit(name, compiled):
    scene = BUILDS[name]()
    world = scene.world
    world.compiled = compiled
    for _ in range(150):  # long enough for the pyramid to fall asleep
        world.step(scene.dt)
    if name == "pyramid asleep":
        assert world.sleep.awake_count == 0
    twins = _twins(world)
    for k in range(200):
        for each in (world, *twins):
            each.step(scene.dt)
        reference = _state(world)
        for twin in twins:
            assert all(np.array_equal(a, b) for a, b in zip(reference, _state(twin),
                                                            strict=True)), k
    # The copies are the world's own: stepping one moves none of the others.
    moving = next(body for body in twins[0].bodies if body.kind == "dynamic")
    moving.velocity = (0.0, 30.0)
    twins[0].step(scene.dt)
    assert not np.array_equal(twins[0].bodies.centers, world.bodies.centers)
    assert np.array_equal(twins[1].bodies.centers, world.bodies.centers)


def test_a_saved_world_holds_no_work_arrays():
    # The soft step's colouring work arrays for a world's first contacts (empty lanes for
    # every colour) outweigh a small world's own tables: a save leaves them out.
    scene = scenes.bounce()
    scene.world.step(scene.dt)
    empty_colouring = sum(column.nbytes for column in colouring_arrays(16, 2)
                          if isinstance(column, np.ndarray))
    assert len(pickle.dumps(scene.world)) < empty_colouring / 4


def _edit(world: pb.World, k: int) -> None:
    """Change a world the ways a game does between steps, through handles found by order
    alone, so that the world and its copies make the same change."""
    bodies = world.bodies
    dynamic = [body for body in bodies if body.kind == "dynamic"]
    if k == 0:
        # More bodies than the tables hold, so that every table grows.
        for i in range(2 * world._bodies.capacity):
            world.add_body(pb.Polygon.box(0.1, 0.1), position=(0.3 * (i % 40) - 6.0,
                                                               12.0 + 0.3 * (i // 40)))
    elif k == 1:
        world.remove_bodies(dynamic[::3])
    elif k == 2:
        world.add_joint(pb.RevoluteJoint(dynamic[1], dynamic[2], anchor=dynamic[1].position))
    elif k == 3:
        world.remove_joint(world.joints[-1])
        dynamic[0].kind = "static"
    elif k == 4:
        dynamic[-1].position = (0.0, 20.0)
        world.remove_body(dynamic[-2])


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "staged"])
@pytest.mark.parametrize("name", ["pyramid asleep", "bridge"])
def test_a_saved_world_changed_as_a_game_changes_it_steps_on_bit_for_bit(name, compiled):
    # A copy holds no view of its own columns that outlives a change: a body added, removed,
    # jointed or given another kind reads and writes the same rows in the copy as in the
    # world, before and after its tables grow.
    scene = BUILDS[name]()
    world = scene.world
    world.compiled = compiled
    for _ in range(150):
        world.step(scene.dt)
    twins = _twins(world)
    for k in range(60):
        for each in (world, *twins):
            if k % 10 == 0:
                _edit(each, k // 10)
            each.step(scene.dt)
        reference = _state(world)
        for twin in twins:
            assert all(np.array_equal(a, b) for a, b in zip(reference, _state(twin),
                                                            strict=True)), k
