"""Snapshots and save files: a world put back to a snapshot, or loaded from a file in a new
process, steps on bit for bit as the world did after the snapshot. The oracle is the
original run itself, recorded step by step (every body, contact and joint column)."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import physbook as pb
from physbook import scenes, snapshots
from physbook.event_log import EventLog
from physbook.snapshots import Snapshot, restore, snapshot
from physbook.world_files import FORMAT_VERSION, load_world, read_header, save

STEPS = 600


def busy(compiled: bool = True) -> tuple[pb.World, float]:
    """A bridge of revolute joints with boxes on it, beside a small pyramid that falls
    asleep, and a ball thrown to wake the pyramid long after."""
    world = pb.World()
    dt = scenes.bridge(world=world, planks=16, boxes=4).dt
    world.add_body(pb.Polygon.box(6.0, 0.5), position=(20.0, -0.5), kind="static")
    for row in range(5):
        for k in range(5 - row):
            world.add_body(pb.Polygon.box(0.5, 0.5),
                           position=(20.0 + k - 0.5 * (4 - row), 0.5 + row))
    # thrown up over the pyramid, it falls on it about 5 s later
    world.add_body(pb.Circle(0.4), position=(20.2, 6.0), velocity=(0.0, 24.0))
    world.compiled = compiled
    return world, dt


def state(world: pb.World) -> list[np.ndarray]:
    """Every body column, the contact rows with their impulses, the joint columns, the
    events, the time and the step count: copies."""
    contacts = world.contacts.arrays
    events = world.events.contacts
    return ([column.copy() for column in world._bodies.arrays]
            + [column.copy() for column in contacts]
            + [column.copy() for column in world.joint_arrays]
            + [events.begin, events.end, *events.hits,
               np.array([world.time, world.step_count, world.sleep.awake_count])])


def same(a: list, b: list) -> bool:
    """Whether two states, or two runs of states, are equal bit for bit."""
    if len(a) != len(b):
        return False
    if a and isinstance(a[0], list):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def run(world: pb.World, dt: float, steps: int) -> list[list[np.ndarray]]:
    states = []
    for _ in range(steps):
        world.step(dt)
        states.append(state(world))
    return states


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "staged"])
def test_a_restored_world_steps_as_it_did_bit_for_bit(compiled):
    world, dt = busy(compiled)
    taken_at = 150
    first = run(world, dt, taken_at)
    shot = snapshot(world)
    assert shot.step_count == taken_at
    original = run(world, dt, STEPS - taken_at)
    # the run put the pyramid to sleep and the ball woke it
    awake = [s[-1][2] for s in first + original]
    asleep = awake.index(min(awake[:250]))
    assert awake[asleep] < world.count - 10 and max(awake[asleep:]) > awake[asleep] + 10
    for again in range(2):  # a snapshot restores as often as asked, either way
        if again:
            shot.restore()
        else:
            restore(world, shot)
        assert same(state(world), first[-1])
        replay = run(world, dt, STEPS - taken_at)
        for k, (a, b) in enumerate(zip(original, replay, strict=True)):
            assert same(a, b), k


def test_rollback_rewinds_eight_frames_and_resimulates_a_late_input():
    # A game's input (a push on a box) reaches the world 8 frames late: the world rewinds to
    # the frame it belonged to, applies it there, and simulates the 8 frames again. The
    # result equals a world that had the input on time.
    on_time, dt = busy()
    late, _ = busy()
    pushes = {60 + 37 * k: (k % 5 - 2.0, 3.0) for k in range(12)}
    frames: dict[int, Snapshot] = {}
    delay = 8

    def push(world, frame):
        if frame in pushes:
            box = world.bodies[world.count - 3 - frame % 7]
            box.apply_impulse(pushes[frame])

    for frame in range(STEPS):
        push(on_time, frame)
        on_time.step(dt)
        frames[frame] = snapshot(late)  # the state before this frame's step
        frames.pop(frame - 2 * delay, None)
        late.step(dt)
        if frame - delay in pushes:
            restore(late, frames[frame - delay])
            for again in range(frame - delay, frame + 1):
                frames[again] = snapshot(late)
                push(late, again)
                late.step(dt)
        if not any(frame - delay < at <= frame for at in pushes):  # none still on its way
            assert same(state(on_time), state(late)), frame
    assert same(state(on_time), state(late))


def test_bodies_and_joints_added_or_removed_after_a_snapshot_are_undone():
    world, dt = busy()
    run(world, dt, 100)
    shot = snapshot(world)
    reference = run(world, dt, 120)
    restore(world, shot)
    kept = world.bodies[world.count - 1]  # the ball
    gone = world.bodies[world.count - 2]
    old_joint = world.joints[-1]
    # A game changes the world: more bodies than the tables hold (they grow), a removal,
    # a joint added and one removed.
    added = [world.add_body(pb.Polygon.box(0.2, 0.2), position=(0.5 * i - 20.0, 30.0))
             for i in range(2 * world._bodies.capacity)]
    new_joint = world.add_joint(pb.RevoluteJoint(added[0], added[1],
                                                 anchor=added[0].position))
    world.remove_joint(old_joint)
    world.remove_body(gone)
    run(world, dt, 30)
    restore(world, shot)
    assert same(run(world, dt, 120), reference)
    assert kept.alive and gone.alive and not any(body.alive for body in added)
    with pytest.raises(LookupError):
        added[0].position  # noqa: B018
    assert old_joint.world is world and new_joint.world is None
    assert world.joints[-1] is old_joint
    # The ids of the bodies added after the snapshot go to new bodies; their old handles
    # stay stale.
    restore(world, shot)
    newer = [world.add_body(pb.Circle(0.1), position=(0.3 * i, 40.0))
             for i in range(len(added))]
    assert {body.id for body in added} & {body.id for body in newer}
    assert not any(body.alive for body in added) and all(body.alive for body in newer)


@pytest.mark.parametrize("declared", ["table", "class"])
def test_callbacks_are_not_part_of_a_snapshot(declared, monkeypatch):
    # The callbacks' attribute is declared in the snapshots' table, or by its class.
    if declared == "class":
        monkeypatch.setitem(snapshots.NOT_IN_SNAPSHOT, "EventLog", ())
        monkeypatch.setattr(EventLog, "_NOT_IN_SNAPSHOT", ("_handlers",), raising=False)
    world, dt = busy()
    shot = snapshot(world)
    began = []
    world.events.on_contact(1, 1, begin=began.append)
    run(world, dt, 30)
    count = len(began)
    assert count > 0
    restore(world, shot)
    run(world, dt, 30)
    assert len(began) == 2 * count


def test_snapshot_is_refused_for_another_world_and_other_values():
    world, _ = busy()
    other, _ = busy()
    with pytest.raises(ValueError, match="another world"):
        restore(other, snapshot(world))
    with pytest.raises(TypeError, match="snapshot must be a Snapshot"):
        restore(world, "state")


def test_a_snapshot_holds_copies_that_do_not_change():
    world, dt = busy()
    shot = snapshot(world)
    before = shot.nbytes
    run(world, dt, 20)
    restore(world, shot)
    centers = world.bodies.centers.copy()
    run(world, dt, 20)
    restore(world, shot)
    assert np.array_equal(world.bodies.centers, centers) and shot.nbytes == before


_CONTINUE = textwrap.dedent("""
    import sys
    import numpy as np
    from physbook.world_files import load_world
    world = load_world(sys.argv[1])
    dt, steps = float(sys.argv[2]), int(sys.argv[3])
    columns = []
    for _ in range(steps):
        world.step(dt)
        columns.append(np.concatenate([np.ravel(c) for c in world._bodies.arrays
                                       if c.dtype == np.float64]))
    np.save(sys.argv[4], np.array(columns))
""")


def _floats(world: pb.World) -> np.ndarray:
    return np.concatenate([np.ravel(c) for c in world._bodies.arrays if c.dtype == np.float64])


def test_a_saved_world_continues_bit_for_bit_in_a_new_process(tmp_path):
    world, dt = busy()
    run(world, dt, 90)
    path = tmp_path / "world.physbook"
    save(world, path)
    header = read_header(path)
    assert header["version"] == FORMAT_VERSION and header["bodies"] == world.count
    assert header["step_count"] == 90
    expected = []
    for _ in range(150):
        world.step(dt)
        expected.append(_floats(world))
    out = tmp_path / "states.npy"
    subprocess.run([sys.executable, "-c", _CONTINUE, str(path), repr(dt), "150", str(out)],
                   check=True)
    assert np.array_equal(np.load(out), np.array(expected))


def test_a_snapshot_saves_the_world_as_it_was(tmp_path):
    world, dt = busy()
    run(world, dt, 40)
    shot = snapshot(world)
    after = run(world, dt, 50)
    now = state(world)
    path = tmp_path / "then.physbook"
    save(shot, path)
    assert same(state(world), now)  # the world itself did not move
    loaded = load_world(path)
    assert loaded.step_count == 40
    assert same(run(loaded, dt, 50), after)


def test_a_loaded_world_has_no_callbacks_and_steps_on(tmp_path):
    world, dt = busy()
    world.events.on_contact(1, 1, begin=lambda contact: None)  # a lambda: not picklable
    path = tmp_path / "w.physbook"
    save(world, path)
    loaded = load_world(path)
    assert loaded._log._handlers == []
    assert world._log._handlers != []  # the world saved keeps its own
    loaded.step(dt)
    with pytest.raises(TypeError, match="world must be a World or a Snapshot"):
        save("world", path)


def test_files_of_another_version_or_format_are_refused(tmp_path):
    world, _ = busy()
    path = tmp_path / "w.physbook"
    save(world, path)
    data = path.read_bytes()
    header, payload = data.split(b"\n", 1)
    fields = json.loads(header)
    fields["version"] = FORMAT_VERSION + 1
    path.write_bytes(json.dumps(fields).encode() + b"\n" + payload)
    with pytest.raises(ValueError, match=rf"version {FORMAT_VERSION + 1}.*version "
                                         rf"{FORMAT_VERSION} only"):
        load_world(path)
    path.write_bytes(b"not a world\n" + payload)
    with pytest.raises(ValueError, match="not a physbook world file"):
        load_world(path)
    path.write_bytes(header + b"\n" + payload[: len(payload) // 2])
    with pytest.raises(ValueError, match="damaged"):
        load_world(path)


class _Foreign:
    def __reduce__(self):
        return (print, ("this must not run",))


def test_a_file_naming_other_code_is_refused_before_it_runs(tmp_path, capsys):
    world, _ = busy()
    path = tmp_path / "w.physbook"
    save(world, path)
    header = path.read_bytes().split(b"\n", 1)[0]
    path.write_bytes(header + b"\n" + pickle.dumps(_Foreign()))
    with pytest.raises(ValueError, match="builtins.print"):
        load_world(path)
    assert "must not run" not in capsys.readouterr().out
