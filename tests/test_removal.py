"""Removing bodies: many at once exactly as one at a time; every removal, addition, joint
added and joint removed all or nothing under an interrupt at any line and under a real
SIGINT; contact rows of removed bodies dropped when they are read; an id map as small as
the bodies alive; and a joint that left with its body says so."""

from __future__ import annotations

import copy
import functools
import gc
import hashlib
import itertools
import pickle
import signal
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook.broadphase.tree import DynamicTree
from physbook.dynamics.body_table import BodyArrays, BodyTable
from physbook.dynamics.contact_table import ContactColumns, mark_pairs_of
from physbook.dynamics.islands import island_after_removal, islands_after_removals
from physbook.geometry.shape_table import ShapeArrays, ShapeTable
from physbook.kinds import DYNAMIC, KINEMATIC, STATIC

DT = 1.0 / 60.0
PACKAGE = str(Path(pb.__file__).resolve().parent)

# --- a scene with everything a removal touches -------------------------------------------


@functools.cache
def scene(variant: str = "tree") -> bytes:
    """A pickled world with everything a removal changes: a stack asleep and one awake,
    a swinging chain of links on revolute joints, a rope (a distance joint) from the chain
    to the awake stack, a rolling ball, contacts touching and speculative, island labels;
    with ``variant`` "sensor" a static sensor over the awake stack (the staged step), with
    "sweep" sort and sweep as the broad phase and a query tree beside it, with "crowd" six
    more stacks.

    It is stepped stage by stage (``compiled = False``): a world that has taken a compiled
    step cannot be copied. Bodies are found again by id, see :func:`by_id`.
    """
    world = pb.World(broad_phase="sweep" if variant == "sweep" else "tree")
    world.compiled = False
    world.add_body(pb.Polygon.box(40.0, 1.0), position=(0.0, -0.5), kind="static")
    for left in (-5.0, 1.0):  # ids 1-9 and 10-18: two stacks of three by three boxes
        for j in range(3):
            for i in range(3):
                world.add_body(pb.Polygon.box(0.5, 0.5),
                               position=(left + 0.5 * i, 0.25 + 0.5 * j))
    pivot = world.add_body(pb.Circle(0.1), position=(5.0, 4.0), kind="static")  # id 19
    links = [world.add_body(pb.Polygon.box(0.5, 0.1), position=(5.25 + 0.5 * k, 4.0))
             for k in range(3)]  # ids 20-22
    world.add_joint(pb.RevoluteJoint(pivot, links[0], anchor=(5.0, 4.0)))
    for a, b in itertools.pairwise(links):
        world.add_joint(pb.RevoluteJoint(a, b, anchor=(a.position[0] + 0.25, 4.0)))
    world.add_body(pb.Circle(0.25), position=(-2.0, 0.25), velocity=(1.0, 0.0))  # id 23
    world.add_body(pb.Polygon.box(0.4, 0.4), position=(6.0, 0.5), kind="kinematic",
                   angular_velocity=1.0)  # id 24
    if variant == "sensor":
        world.add_body(pb.Circle(0.6), position=(1.5, 1.25), kind="static", sensor=True)
    for _ in range(400):  # the first stack falls asleep
        world.step(DT)
    if variant == "crowd":  # ids 25-174: six more stacks of five by five, awake
        for left in (-19.0, -16.0, -13.0, 9.0, 12.0, 15.0):
            for j in range(5):
                for i in range(5):
                    world.add_body(pb.Polygon.box(0.5, 0.5),
                                   position=(left + 0.5 * i, 0.25 + 0.5 * j))
    # The second stack is woken (in part at least) by a rope to the chain's end.
    world.add_joint(pb.DistanceJoint(by_id(world, 22), by_id(world, 18),
                                     anchor_a=by_id(world, 22).position,
                                     anchor_b=by_id(world, 18).position))
    for _ in range(5):
        world.step(DT)
    world.query_aabb((-8.0, -1.0), (8.0, 5.0))  # a sweep world makes its query tree
    bodies = world.bodies.arrays
    assert not bodies.awake[1:10].any() and bodies.awake[10:19].any(), "one stack asleep"
    return pickle.dumps(world)


def fresh(variant: str = "tree", compiled: bool = True) -> pb.World:
    world = pickle.loads(scene(variant))
    # A pickle stores the views the tables keep of their columns as arrays of their own,
    # and a contact table keys its views by the id of the arrays they view: drop them, so
    # that the copy makes its views of its own columns.
    world._bodies._arrays = world._joints._arrays = None
    world._shapes._arrays = world._shapes._filters = None
    for table in (world._contacts, world._sensor_contacts):
        table._views, table._arrays = {}, None
    world.compiled = compiled
    return world


def by_id(world: pb.World, body_id: int) -> pb.Body:
    return next(body for body in world.bodies if body.id == body_id)


def frozen(value):
    """``value`` (arrays, lists, tuples, dicts of them) as something ``==`` compares
    exactly: arrays by dtype, shape and bytes."""
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes()
    if isinstance(value, (list, tuple)):
        return tuple(frozen(item) for item in value)
    if isinstance(value, dict):
        return tuple((key, frozen(item)) for key, item in value.items())
    return value


def tree_state(stage) -> tuple:
    if isinstance(stage, DynamicTree):
        count = stage._count
        return (tuple(stage._nodes), stage._state, stage._leaf_of_row[:count],
                stage._centers[:count], stage._moved[:count], count, stage._keys)
    return tuple(vars(stage).items()) if stage is not None else None


def world_state(world: pb.World, joints: list | None = None) -> dict:
    """Every part of ``world`` a removal or an addition writes, frozen: each body column,
    the id map, the per-body objects, the shape table, both contact tables as stored (not
    read: reading drops removed rows), the joint table and the joints ``joints`` (handles
    kept from before), island labels, events, the broad phase and query tree."""
    bodies, shapes = world._bodies, world._shapes
    record = world.events.record
    rows = []
    for body_id in range(bodies.capacity + 2):
        try:
            rows.append(bodies.row_of(body_id))
        except LookupError as error:
            rows.append(str(error))
    state = {f"bodies.{name}": column for name, column in zip(BodyArrays._fields,
                                                                world.bodies.arrays, strict=True)}
    state.update({
        "bodies.rows of ids": rows, "bodies.count": bodies.count,
        "bodies.generations": bodies._generations.copy(),
        "bodies.handles": [handle.id for handle in bodies.handles],
        "bodies.objects": pickle.dumps((bodies.all_shapes, bodies._materials)),
        "shapes.count": (shapes.count, shapes.vertex_total, shapes.sensor_count,
                         shapes._next_id),
        "shapes.objects": pickle.dumps(shapes._shapes),
        "joints.ids": [joint._id for joint in world.joints],
        "joints.next id": (world._joints._next_id, world._joints._free.tolist()),
        "islands": world.sleep.labels[:bodies.count],
        "events": (record.touching, record.sensing, list(record.ended_by_removal[0]),
                   list(record.ended_by_removal[1]),
                   {key: (category, sensor, body.id)
                    for key, (category, sensor, body) in record.removed_shapes.items()},
                   [body.id for body in world.events.pending_removals]),
        "stages": (tree_state(world._broad_phase), tree_state(world._queries.own_tree)),
        "step count": world.step_count,
    })
    state.update({f"shapes.{name}": column for name, column in zip(
        ShapeArrays._fields, shapes.arrays, strict=True)})
    state.update({f"shapes.filters.{name}": column for name, column in zip(
        ("category", "mask", "group", "sensor"), shapes.filters, strict=True)})
    for name, table in (("contacts", world._contacts), ("sensed", world._sensor_contacts)):
        # Read through arrays: rows a removal left stale get their new body rows there.
        state[name] = (table.count, [column.copy() for column in table.arrays])
    state.update({f"joints.{name}": column for name, column in zip(
        world.joint_arrays._fields, world.joint_arrays, strict=True)})
    if joints is not None:
        state["joint handles"] = [(joint.world is world, joint._id, joint._removed_with,
                                   pickle.dumps(joint._values)) for joint in joints]
    return {key: frozen(value) for key, value in state.items()}


def differences(state: dict, other: dict) -> list[str]:
    return [key for key in state if state[key] != other[key]]


def trajectory(world: pb.World, steps: int = 30) -> list[str]:
    """A digest of the bodies, the contacts read through the world and the events (what
    ``world.events.contacts`` and ``world.events.sensors`` are made from) after each
    of ``steps`` steps."""
    digests = []
    for _ in range(steps):
        world.step(DT)
        digest = hashlib.sha256()
        record = world.events.record
        events = (record.touching, record.previous_touching, record.sensing,
                  record.previous_sensing, *record.hits,
                  *(np.unique(np.array(keys, np.int64)) for keys in record.step_ended))
        for column in (*world.bodies.arrays, *world.contacts.arrays, *events):
            digest.update(np.ascontiguousarray(column).tobytes())
        digests.append(digest.hexdigest())
    return digests


# --- many at once, as one at a time ------------------------------------------------------

#: Bodies removed together: a box in the middle of the sleeping stack, the middle link of
#: the chain (two joints go with it), the top right box of the awake stack (under the
#: sensor, and the rope goes with it), the ball and the kinematic box.
VICTIMS = (5, 21, 18, 23, 24)


@pytest.mark.parametrize("variant", ["tree", "sensor", "sweep"])
def test_remove_bodies_is_remove_body_on_each(variant):
    together, one_by_one = fresh(variant), fresh(variant)
    joints = together.joints
    together.remove_bodies([by_id(together, body_id) for body_id in VICTIMS])
    for body_id in VICTIMS:
        one_by_one.remove_body(by_id(one_by_one, body_id))
    state, other = world_state(together), world_state(one_by_one)
    # One at a time lists the ended keys body by body, and takes the tree's leaves out one
    # by one (another shape of tree, the same pairs): compared apart, and by the steps.
    for key in ("events", "stages"):
        state.pop(key), other.pop(key)
    assert differences(state, other) == []
    records = together.events.record, one_by_one.events.record
    assert sorted(records[0].ended_by_removal[0]) == sorted(records[1].ended_by_removal[0])
    assert records[0].removed_shapes.keys() == records[1].removed_shapes.keys()
    np.testing.assert_array_equal(records[0].touching, records[1].touching)
    # What every removal does, checked against the world before it.
    before = fresh(variant)
    gone = np.isin(before.bodies.ids, VICTIMS)
    kept = ~gone
    for name, column in zip(BodyArrays._fields, before.bodies.arrays, strict=True):
        if name not in ("awake", "sleep_times"):
            np.testing.assert_array_equal(getattr(together.bodies.arrays, name), column[kept])
    # The islands of the removed bodies wake (the joints' other bodies are awake): each
    # sleeping dynamic body labelled as a removed one.
    woke = together.bodies.awake & ~before.bodies.awake[kept]
    labels = before.sleep.labels[:before.count]
    islands = (np.isin(labels, labels[gone]) & (before.bodies.kinds == DYNAMIC)
               & ~before.bodies.awake & kept)
    assert set(together.bodies.ids[woke].tolist()) == set(before.bodies.ids[islands].tolist())
    assert {2, 8} <= set(together.bodies.ids[woke].tolist()), "the boxes on and under box 5"
    assert [joint.world is None for joint in joints] == [False, True, True, True]
    assert [joint._removed_with for joint in joints] == [(), (21,), (21,), (18,)]
    assert trajectory(together) == trajectory(one_by_one)


@pytest.mark.parametrize("variant", ["tree", "crowd"])
def test_the_partners_of_a_removed_body_are_read_through_stale_rows(variant):
    # Removals one after another leave the contact rows of the shapes removed before in
    # the table until it is read; the partners of the next body must be the same as those
    # the table gives once those rows are dropped (here, on a copy).
    world, touched = fresh(variant), []
    for body_id in VICTIMS:
        body = by_id(world, body_id)
        shapes = world.shapes.arrays
        ids = shapes.ids[shapes.body == body.row]
        dropped = copy.deepcopy(world)._contacts.arrays.bodies  # reading drops stale rows
        expected = np.concatenate([dropped[dropped[:, 0] == body.row, 1],
                                   dropped[dropped[:, 1] == body.row, 0]])
        assert world._contacts._stale == (body_id != VICTIMS[0])
        np.testing.assert_array_equal(np.sort(world._contacts.partners_of(ids, shapes)),
                                      np.sort(expected))
        touched.append(len(expected))
        world.remove_body(body)
    assert any(touched[1:]), "a body touching others was removed after another"


def test_a_batch_drops_the_contact_rows_of_its_bodies_and_renumbers_the_rest():
    world = fresh()
    before = ContactColumns(*(column.copy() for column in world.contacts.arrays))
    rows = np.flatnonzero(np.isin(world.bodies.ids, VICTIMS))
    world.remove_bodies([by_id(world, body_id) for body_id in VICTIMS])
    assert world._contacts._stale, "rows are dropped when next read, not at once"
    touches = np.isin(before.bodies, rows).any(axis=1)
    assert touches.any() and (before.bodies[~touches] > rows[0]).any()
    for name, now, old in zip(ContactColumns._fields, world.contacts.arrays, before,
                              strict=True):
        expected = old[~touches]
        if name == "bodies":  # a row behind j removed ones moves up j rows
            expected = expected - np.searchsorted(rows, expected)
        np.testing.assert_array_equal(now, expected, err_msg=name)
        assert now.dtype == expected.dtype


@pytest.mark.parametrize("variant", ["tree", "sensor"])
def test_contact_rows_read_or_not_after_a_removal_the_next_steps_are_the_same(variant):
    # An update reads no body row of last step's rows, and a row whose shape is gone
    # matches no pair: whether the dropped rows were taken out (by reading them) or not
    # changes no state after it, bit for bit.
    read, unread = fresh(variant), fresh(variant)
    for world in (read, unread):
        world.remove_bodies([by_id(world, body_id) for body_id in VICTIMS])
    assert read.contacts.count < unread._contacts._count  # read: the rows are dropped
    assert read._sensor_contacts.count <= unread._sensor_contacts._count
    assert trajectory(read, 60) == trajectory(unread, 60)


def test_removal_inside_a_callback_waits_until_the_callbacks_are_done_and_happens_once():
    world = fresh()
    ball = by_id(world, 23)
    seen = []

    def began(contact):
        seen.append((contact.body_a.alive, contact.body_b.alive))
        world.remove_bodies([contact.body_a, contact.body_b])
        world.remove_body(contact.body_a)  # pending already: removed once
        # Asked for, the removal waits for the callbacks; the bodies read dead at once.
        assert not contact.body_a.alive and not contact.body_b.alive

    world.events.on_contact(1, 1, begin=began)
    ball.velocity = (0.0, 0.0)
    ball.position = by_id(world, 17).position + (0.0, 0.49)  # onto the awake stack
    world.step(DT)
    assert seen and seen[0] == (True, True)
    assert not ball.alive and world.events.pending_removals == []


def test_remove_bodies_checks_everything_before_removing_anything():
    world, other = fresh(), fresh()
    boxes = [by_id(world, 12), by_id(world, 13)]
    state = world_state(world)
    with pytest.raises(TypeError, match="bodies must be an iterable"):
        world.remove_bodies(boxes[0])
    with pytest.raises(TypeError, match=r"bodies\[1\] must be a Body"):
        world.remove_bodies([boxes[0], "box"])
    with pytest.raises(ValueError, match=r"bodies\[2\] repeats bodies\[0\] \(body 12\)"):
        world.remove_bodies([boxes[0], boxes[1], boxes[0]])
    with pytest.raises(ValueError, match=r"bodies\[1\] belongs to another world"):
        world.remove_bodies([boxes[0], by_id(other, 14)])
    assert world_state(world) == state
    world.remove_body(boxes[1])
    state = world_state(world)
    with pytest.raises(LookupError, match="body 13 was removed"):
        world.remove_bodies([boxes[0], boxes[1]])
    assert world_state(world) == state
    world.remove_bodies([])
    assert world_state(world) == state


# --- the tables' batch removals, against oracles ----------------------------------------

@settings(max_examples=40)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=12), st.data())
def test_removing_many_bodies_leaves_the_shape_table_a_fresh_build_would_have(sizes, data):
    shapes = [pb.Polygon.box(1, 1), pb.Circle(0.5, (1, 2)), pb.Polygon.regular(5, 1)]
    table = ShapeTable(capacity=1)
    owned = []
    for body, size in enumerate(sizes):
        picks = data.draw(st.lists(st.integers(0, 2), min_size=size, max_size=size))
        for pick in picks:
            table.append(shapes[pick], body, sensor=pick == 1)
        owned.append([shapes[pick] for pick in picks])
    gone = data.draw(st.sets(st.integers(0, len(sizes) - 1), min_size=1))
    table.remove_bodies(sorted(gone, reverse=True))
    fresh_table = ShapeTable()
    for body, kept in enumerate(shape_list for b, shape_list in enumerate(owned)
                                if b not in gone):
        for shape in kept:
            fresh_table.append(shape, body, sensor=shape is shapes[1])
    for name, now, wanted in zip(ShapeArrays._fields, table.arrays, fresh_table.arrays,
                                 strict=True):
        if name != "ids":  # a fresh table numbers its ids from 0
            np.testing.assert_array_equal(now, wanted, err_msg=name)
    np.testing.assert_array_equal(table.filters.sensor, fresh_table.filters.sensor)
    assert table.sensor_count == fresh_table.sensor_count
    assert table.vertex_total == fresh_table.vertex_total


@settings(max_examples=40)
@given(st.integers(1, 40), st.data())
def test_removing_many_rows_is_numpys_delete_on_every_column(count, data):
    table = BodyTable(capacity=1)
    for k in range(count):
        values = {name: float(k) for name in BodyArrays._fields
                  if name not in ("kinds", "materials", "ids")}
        table.add(values, (f"shapes {k}",), f"material {k}", lambda body_id: body_id)
    rows = sorted(data.draw(st.sets(st.integers(0, count - 1), min_size=1)))
    before = BodyArrays(*(column.copy() for column in table.arrays))
    table.remove_rows(table.removal(rows))
    for name, column, old in zip(BodyArrays._fields, table.arrays, before, strict=True):
        np.testing.assert_array_equal(column, np.delete(old, rows, axis=0), err_msg=name)
    kept = np.delete(before.ids, rows).tolist()
    assert table.handles == kept
    assert [table.row_of(body_id) for body_id in kept] == list(range(len(kept)))
    for body_id in before.ids[rows].tolist():
        with pytest.raises(LookupError, match="stale"):
            table.row_of(body_id)


def island_labels(parents: list[int]) -> np.ndarray:
    """Labels as update_islands leaves them: each body's root, the smallest row of its
    island (``parents`` links each row to an earlier one or itself)."""
    labels = np.array(parents, np.int64)
    for i in range(len(labels)):
        labels[i] = labels[labels[i]]
    return labels


@settings(max_examples=80)
@given(st.data())
def test_islands_after_removals_is_island_after_removal_on_each(data):
    count = data.draw(st.integers(1, 30))
    parents = [data.draw(st.integers(0, i)) for i in range(count)]
    kinds = np.array(data.draw(st.lists(st.sampled_from([DYNAMIC, STATIC, KINEMATIC]),
                                        min_size=count, max_size=count)), np.int64)
    labels = island_labels(parents)
    labels[kinds != DYNAMIC] = np.flatnonzero(kinds != DYNAMIC)  # alone, as update sets
    awake = np.array(data.draw(st.lists(st.booleans(), min_size=count, max_size=count)))
    removed = np.array(sorted(data.draw(st.sets(st.integers(0, count - 1), min_size=1))))
    new_labels, woken = islands_after_removals(labels, kinds, awake, removed)
    # The oracle: the one-body function, highest row first, on copies.
    islands, wake, sleep = labels.copy(), awake.copy(), np.ones(count)
    kinds_now = kinds.copy()
    for row in removed[::-1]:
        island_after_removal(islands, kinds_now, wake, sleep, row)
        kinds_now, wake, sleep = (np.delete(column, row) for column in (kinds_now, wake, sleep))
    np.testing.assert_array_equal(new_labels, islands[:count - len(removed)])
    expected = np.delete(np.arange(count), removed)[wake & ~np.delete(awake, removed)]
    np.testing.assert_array_equal(woken, expected)


def test_mark_pairs_of_marks_the_pairs_of_removed_shapes():
    keys = np.array(sorted((a << 32) + b for a in range(6) for b in range(a + 1, 7)))
    ids = np.array([2, 5])
    marked = np.zeros(len(keys), np.bool_)
    mark_pairs_of(keys, ids, marked)
    pairs = np.column_stack([keys >> 32, keys & 0xFFFFFFFF])
    np.testing.assert_array_equal(marked, np.isin(pairs, ids).any(axis=1))


# --- the id map follows the bodies alive -------------------------------------------------

def test_the_id_map_stays_as_small_as_the_bodies_alive():
    table = BodyTable(capacity=8)
    alive = []
    tracemalloc.start()
    try:
        for k in range(20000):
            alive.append(table.add({}, (), (), lambda body_id: body_id))
            if len(alive) > 5:  # keep five alive: remove the oldest but one, or the newest
                victim = table.arrays.ids[1 if k % 3 else len(alive) - 1]
                table.remove(int(victim))
                alive.pop()
            if k == 5000:  # by now CPython's free lists of tuples are full
                start, _ = tracemalloc.get_traced_memory()
            assert table.arrays.ids.max() < 6
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # An entry per body ever made would be 15 000 · 8 bytes more by now.
    assert end - start < 16000
    assert len(table._row_of_slot) == len(table._slot_of_row) == table.capacity == 8
    assert sorted(table._slot_of_row.tolist()) == list(range(8))  # a permutation
    for row, body_id in enumerate(table.arrays.ids.tolist()):
        assert table.row_of(body_id) == row
    (free,) = set(range(6)) - set(table.arrays.ids.tolist())
    with pytest.raises(LookupError, match=f"body {free} was removed from this world"):
        table.row_of(free)
    with pytest.raises(LookupError, match="no body has id 20000"):
        table.row_of(20000)


# --- a joint that left with its body -----------------------------------------------------

def test_remove_joint_after_its_body_was_removed_says_the_joint_left_with_it():
    world = fresh()
    chain, rope = world.joints[1], world.joints[3]
    world.remove_body(by_id(world, 21))
    with pytest.raises(ValueError, match="it left the world with its body 21, which "
                                         "remove_body removed"):
        world.remove_joint(chain)
    world.remove_bodies([by_id(world, 22), by_id(world, 18)])
    with pytest.raises(ValueError, match="with its bodies 18 and 22"):
        world.remove_joint(rope)
    loose = pb.RevoluteJoint(by_id(world, 12), by_id(world, 13), anchor=(1.5, 0.5))
    with pytest.raises(ValueError, match=r"^joint is not in this world$"):
        world.remove_joint(loose)
    with pytest.raises(ValueError, match=r"^joint is not in this world$"):
        fresh().remove_joint(world.joints[0])  # another world's joint


# --- all or nothing: an interrupt at every line ------------------------------------------

def interrupted_at(line: int, call) -> bool:
    """Run ``call()`` with ``KeyboardInterrupt`` raised at its ``line``-th line or return
    event (every Python line it runs, in every function it calls, and just after each
    returns, where CPython looks for a signal too); False if it finished first.
    A trace function that raises is taken off, so the rest runs untraced. The garbage
    collector is off meanwhile: its callbacks (hypothesis registers one) would be traced,
    and an exception raised in one is dropped."""
    seen = 0

    def trace(frame, event, arg):
        nonlocal seen
        if event in ("line", "return"):
            seen += 1
            if seen == line:
                raise KeyboardInterrupt
        return trace

    collecting = gc.isenabled()
    gc.disable()
    sys.settrace(trace)
    try:
        call()
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
        if collecting:
            gc.enable()
    assert seen < line, f"the interrupt at line {line} was raised and lost"
    return False


def operation(name: str, world: pb.World):
    """The call under test on ``world``, its handles found before it runs."""
    if name == "remove_bodies":
        victims = [by_id(world, body_id) for body_id in VICTIMS]
        return lambda: world.remove_bodies(victims)
    if name == "remove_body":
        box = by_id(world, 5)
        return lambda: world.remove_body(box)
    if name == "add_body":
        shapes = [pb.Polygon.box(0.5, 0.5), pb.Circle(0.2, (0.4, 0.0))]
        return lambda: world.add_body(shapes, position=(-4.5, 1.75), angle=0.1,
                                      filter=pb.Filter(1, 3), sensor=[False, True])
    if name == "add_joint":
        joint = pb.DistanceJoint(by_id(world, 3), by_id(world, 12), anchor_a=(-4.0, 0.25),
                                 anchor_b=(1.5, 0.25))
        return lambda: world.add_joint(joint)
    if name == "remove_joint":
        joint = world.joints[2]
        return lambda: world.remove_joint(joint)
    raise AssertionError(name)


@pytest.mark.parametrize("name, variant", [
    ("remove_bodies", "tree"), ("remove_bodies", "sensor"), ("remove_bodies", "sweep"),
    ("remove_body", "tree"), ("add_body", "tree"), ("add_body", "sensor"),
    ("add_joint", "tree"), ("remove_joint", "tree")])
def test_an_interrupt_at_any_line_leaves_the_world_as_before_or_as_after(name, variant):
    untouched, done = fresh(variant), fresh(variant)
    joints = untouched.joints
    before = world_state(untouched, joints)
    done_joints = done.joints
    operation(name, done)()
    after = world_state(done, done_joints)
    assert differences(before, after), "the operation changes the world"
    paths = {"before": trajectory(untouched), "after": trajectory(done)}
    outcomes = {"before": 0, "after": 0}
    for line in itertools.count(1):
        world = fresh(variant)
        joints = world.joints
        call = operation(name, world)
        if not interrupted_at(line, call):
            assert world_state(world, joints) == after
            break
        state = world_state(world, joints)
        outcome = "before" if state == before else "after"
        assert state == (before if outcome == "before" else after), (
            f"interrupted at line {line}: differs from before in "
            f"{differences(state, before)} and from after in {differences(state, after)}")
        assert trajectory(world) == paths[outcome], f"interrupted at line {line}"
        outcomes[outcome] += 1
    assert outcomes["before"] and outcomes["after"], outcomes


# --- all or nothing: real SIGINTs --------------------------------------------------------

def test_sigint_at_random_moments_leaves_each_removal_done_or_not_done():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are handled in the main thread only")
    rng = np.random.default_rng(43)
    world, twin = fresh("crowd"), fresh("crowd")
    scratch = fresh("crowd")
    scratch.remove_bodies([by_id(scratch, body_id) for body_id in VICTIMS])  # warm up
    start = time.perf_counter()
    scratch.remove_bodies([by_id(scratch, 30), by_id(scratch, 60)])
    duration = time.perf_counter() - start
    main = threading.get_ident()
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the signalling thread runs as soon as its sleep is over
    inside = 0
    try:
        # Until 25 signals have landed inside a removal: how many land there, and not
        # just after, depends on how soon the thread wakes on a busy machine.
        for trial in itertools.count():
            if inside == 25 or trial == 3000:
                break
            candidates = [int(i) for i, kind in zip(world.bodies.ids, world.bodies.kinds,
                                                    strict=True)
                          if kind != STATIC]
            ids = rng.choice(candidates, size=int(rng.integers(1, 4)), replace=False)
            victims = [by_id(world, body_id) for body_id in ids]
            before = world_state(world)
            go = threading.Event()
            # The thread wakes some 0.1 ms after its event and its sleep: a delay up to
            # half the removal's time lands the signal anywhere in it, or just after.
            delay = float(rng.uniform(0.0, 0.5 * duration))

            def fire(go=go, delay=delay):
                go.wait()
                time.sleep(delay)
                signal.pthread_kill(main, signal.SIGINT)

            thread = threading.Thread(target=fire)
            thread.start()
            try:
                go.set()
                world.remove_bodies(victims)
                thread.join()
                time.sleep(0.001)  # the signal is sent: it lands by now, in the try
            except KeyboardInterrupt as interrupt:
                files = []
                trace = interrupt.__traceback__
                while trace is not None:
                    files.append(trace.tb_frame.f_code.co_filename)
                    trace = trace.tb_next
                inside += any(name.startswith(PACKAGE) for name in files)
            thread.join()
            twin.remove_bodies([by_id(twin, body_id) for body_id in ids])
            state = world_state(world)
            if state == before:  # it did not happen: do it now
                world.remove_bodies(victims)
                state = world_state(world)
            assert state == world_state(twin), f"trial {trial}"
            # A new box for each removed body, dropped onto the stacks.
            for k in range(len(ids)):
                for w in (world, twin):
                    w.add_body(pb.Polygon.box(0.5, 0.5), position=(-18.0 + trial % 30, 4.0 + k))
            if trial % 10 == 9:
                assert trajectory(world, 5) == trajectory(twin, 5), f"trial {trial}"
    finally:
        sys.setswitchinterval(interval)
        signal.signal(signal.SIGINT, handler)
    assert inside == 25, f"only {inside} interrupts landed inside a removal"
    assert trajectory(world) == trajectory(twin)
