"""Body and joint ids are recycled: a removed body's id goes to a later body, in a new
generation, so the id map stays as small as the most bodies alive at once, and a handle to
the removed body is refused on every use even after its id was given again."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import physbook as pb
from physbook.dynamics.body_table import BodyTable

DT = 1.0 / 60.0
BOX = pb.Polygon.box(0.5, 0.5)


def reused_id_world() -> tuple[pb.World, pb.Body, pb.Body]:
    """A world where body ``old`` was removed and ``new``, added after it, holds its id."""
    world = pb.World(gravity=(0.0, 0.0))
    world.add_body(BOX, position=(-5.0, 0.0))
    old = world.add_body(BOX, position=(0.0, 0.0), velocity=(1.0, 0.0))
    world.add_body(BOX, position=(5.0, 0.0))
    world.remove_body(old)
    new = world.add_body(BOX, position=(0.0, 3.0), velocity=(0.0, 2.0))
    return world, old, new


def every_use(body: pb.Body, other: pb.Body) -> dict:
    """Each way a game uses a handle, as a function of nothing."""
    world = body.world

    def set_position():
        body.position = (1.0, 1.0)

    def set_velocity():
        body.velocity = (1.0, 0.0)

    def set_kind():
        body.kind = "static"

    return {
        "position": lambda: body.position, "velocity": lambda: body.velocity,
        "angle": lambda: body.angle, "mass": lambda: body.mass, "row": lambda: body.row,
        "shapes": lambda: body.shapes, "filter": lambda: body.filter,
        "set position": set_position, "set velocity": set_velocity, "set kind": set_kind,
        "apply_impulse": lambda: body.apply_impulse((1.0, 0.0)),
        "apply_force": lambda: body.apply_force((1.0, 0.0)),
        "remove_body": lambda: world.remove_body(body),
        "remove_bodies": lambda: world.remove_bodies([body]),
        "add_joint": lambda: world.add_joint(pb.DistanceJoint(body, other, (0.0, 0.0), (0.0, 0.0))),
    }


def test_a_removed_bodys_id_goes_to_the_next_body_in_a_new_generation():
    world, old, new = reused_id_world()
    assert new.id == old.id  # the id was recycled
    assert new.generation == old.generation + 1
    assert not old.alive and new.alive
    assert sorted(world.bodies.ids.tolist()) == [0, 1, 2]  # no id beyond the most bodies alive


@pytest.mark.parametrize("use", list(every_use(*reused_id_world()[1:])))
def test_a_stale_handle_is_refused_after_its_id_was_given_again(use):
    world, old, new = reused_id_world()
    assert new.id == old.id
    other = world.bodies[0]
    before = {name: column.copy() for name, column in zip(
        world.bodies.arrays._fields, world.bodies.arrays, strict=True)}
    joints = len(world.joints)
    with pytest.raises((LookupError, ValueError), match=f"body {old.id}.*removed|"
                       "removed from its world"):
        every_use(old, other)[use]()
    # Nothing was read or written through the stale handle: the new body is untouched.
    for name, column in zip(world.bodies.arrays._fields, world.bodies.arrays, strict=True):
        np.testing.assert_array_equal(column, before[name], err_msg=name)
    assert len(world.joints) == joints and world.count == 3
    # The new body's handle works.
    np.testing.assert_array_equal(new.position, (0.0, 3.0))
    new.velocity = (0.0, 4.0)
    np.testing.assert_array_equal(new.velocity, (0.0, 4.0))


def test_a_stale_handle_says_its_body_was_removed():
    _, old, new = reused_id_world()
    with pytest.raises(LookupError, match=f"body {old.id} \\(generation 0\\) was removed "
                       "from this world.*generation 1"):
        old.position  # noqa: B018
    assert repr(old) == f"Body(id={old.id}, generation=0, removed)"
    assert repr(new) == f"Body(id={new.id}, dynamic, row=2)"


def test_churn_keeps_the_id_map_as_small_as_the_most_bodies_alive():
    # Add one body, remove the oldest, 10 000 times, with up to 5 alive at once.
    table = BodyTable(capacity=2)
    ids_seen = set()
    for _ in range(10_000):
        table.add({}, (), (), lambda body_id: body_id)
        ids_seen.add(int(table.arrays.ids[-1]))
        if table.count > 5:
            table.remove(int(table.arrays.ids[0]))
        # At most 6 alive at once (just after an add): ids below 6, maps of 8 slots.
        assert max(ids_seen) < 6
        assert len(table._row_of_slot) == len(table._generations) == table.capacity <= 8
    assert ids_seen == set(range(6))
    # Every id went round: its generation counts the bodies that had it and left.
    assert table._generations[:6].sum() == 10_000 - table.count  # the removals
    for row, body_id in enumerate(table.arrays.ids.tolist()):
        assert table.row_of(body_id) == row


def test_joint_churn_keeps_the_joint_id_map_as_small_as_the_most_joints():
    world = pb.World(gravity=(0.0, 0.0))
    a = world.add_body(BOX, position=(0.0, 0.0))
    b = world.add_body(BOX, position=(2.0, 0.0))
    joints = []
    for _ in range(2_000):
        joints.append(world.add_joint(pb.DistanceJoint(a, b, (0.0, 0.0), (2.0, 0.0))))
        if len(joints) > 3:
            world.remove_joint(joints.pop(0))
    table = world._joints
    assert max(joint._id for joint in joints) < 4 and len(table._row_of_id) <= 4
    assert sorted(joint._id for joint in joints) == sorted(
        table._id_of_row[:table.count].tolist())
    for joint in joints:
        assert table.row_of(joint._id) == world.joints.index(joint)


def test_events_and_callbacks_name_the_body_that_holds_the_id_now():
    # A ball rests on the floor, is removed, and a new ball given its id falls onto the
    # floor: the events of each name its own shape and body.
    world = pb.World(gravity=(0.0, -10.0))
    world.add_body(pb.Polygon.box(10.0, 0.5), kind="static")
    old = world.add_body(pb.Circle(0.5), position=(0.0, 0.95))
    began, ended = [], []
    world.events.on_contact(1, 1, begin=lambda c: began.append((c.shape_a, c.shape_b, c.body_a,
                                                         c.body_b)),
                     end=lambda c: ended.append((c.shape_a, c.shape_b, c.body_a, c.body_b)))
    world.step(DT)
    old_shape = int(world.shapes.arrays.ids[1])
    assert [(a, b, body_b) for a, b, _, body_b in began] == [(0, old_shape, old)]
    world.remove_body(old)
    new = world.add_body(pb.Circle(0.5), position=(0.0, 0.95))
    assert new.id == old.id
    new_shape = int(world.shapes.arrays.ids[1])
    assert new_shape != old_shape  # shape ids are never recycled
    began.clear()
    world.step(DT)
    events = world.events.contacts
    np.testing.assert_array_equal(events.begin, [[0, new_shape]])
    np.testing.assert_array_equal(events.end, [[0, old_shape]])
    assert [(a, b, body_b) for a, b, _, body_b in began] == [(0, new_shape, new)]
    assert [(a, b, body_b) for a, b, _, body_b in ended] == [(0, old_shape, old)]
    assert began[0][3] is new and ended[0][3] is old  # the handles themselves
    # The contact row is the new ball's.
    contacts = world.contacts
    np.testing.assert_array_equal(contacts.shape_ids, [[0, new_shape]])
    np.testing.assert_array_equal(contacts.bodies, [[0, new.row]])


@pytest.mark.parametrize("save", ["pickle", "deepcopy"])
def test_a_saved_world_keeps_the_generations(save):
    world, old, new = reused_id_world()
    saved = pickle.loads(pickle.dumps(world)) if save == "pickle" else copy.deepcopy(world)
    by_id = {body.id: body for body in saved.bodies}
    assert by_id[new.id].generation == 1
    np.testing.assert_array_equal(saved._bodies.generations, world._bodies.generations)
    # A body added to the copy takes the same id and generation as one added to the world.
    removed = world.bodies[0]
    world.remove_body(removed)
    saved.remove_body(saved.bodies[0])
    added, added_saved = world.add_body(BOX), saved.add_body(BOX)
    assert (added.id, added.generation) == (added_saved.id, added_saved.generation) == (
        removed.id, 1)
    with pytest.raises(LookupError, match="removed"):
        pickle.loads(pickle.dumps(removed)).position  # noqa: B018
