"""A step cut short by an exception leaves the world exactly as it was before the step.

The oracle is a twin: a deep copy of the world taken before the step. An exception is
injected at every line of physbook's Python that a step runs (a line tracer that raises at
the k-th line, for every k until the step runs to its end), and at random moments by a
timer signal whose handler raises ``KeyboardInterrupt``, as Ctrl-C or a notebook's stop
button does; the latter also lands while numba converts the compiled step's result, where it
used to come out as ``SystemError``. After each, the world must equal its twin, raise what
was injected, and step on bit for bit with it.
"""

from __future__ import annotations

import copy
import signal
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import physbook as pb
from physbook import scenes

PACKAGE = str(Path(pb.__file__).resolve().parent)
DT = scenes.DT


class Injected(KeyboardInterrupt):
    """The interrupt a test raises: a KeyboardInterrupt that names where it came from."""


def _state(world: pb.World) -> list[np.ndarray]:
    """Everything a step changes that a program can see, in comparable arrays."""
    bodies = world.bodies.arrays
    asleep = ~bodies.awake
    columns = [getattr(bodies, name).copy() for name in bodies._fields
               if name not in ("sleep_centers", "sleep_angles")]
    # Where a body fell asleep matters while it sleeps.
    columns += [bodies.sleep_centers[asleep].copy(), bodies.sleep_angles[asleep].copy()]
    columns += [column.copy() for column in world.contacts.arrays]
    columns += [column.copy() for column in world.joint_arrays]
    contact_events, sensor_events = world.events.contacts, world.events.sensors
    columns += [contact_events.begin, contact_events.end, *contact_events.hits,
                sensor_events.begin, sensor_events.end]
    columns.append(np.array([world.time, world.step_count]))
    return columns


def _raising_at(line: int):
    """A trace function that raises Injected at the ``line``-th moment physbook's Python
    may be interrupted at: the start of a line, or a function's return (CPython looks for
    a signal as each call returns, so an interrupt can land just after a call's work)."""
    count = [0]

    def trace(frame, event, argument):
        if event == "call":
            return trace if frame.f_code.co_filename.startswith(PACKAGE) else None
        if event in ("line", "return"):
            count[0] += 1
            if count[0] == line:
                raise Injected(f"line {line}: {frame.f_code.co_filename}:{frame.f_lineno}")
        return trace

    return trace


def _interrupted_step(world: pb.World, line: int) -> bool:
    """Step ``world`` with an interrupt at its ``line``-th line; whether it was raised."""
    sys.settrace(_raising_at(line))
    try:
        world.step(DT)
    except Injected:
        return True
    finally:
        sys.settrace(None)
    return False


def _handler(contact) -> None:
    pass


def _pile_with_joints() -> pb.World:
    """A pyramid asleep and one awake beside a hinged pair: the compiled path, islands,
    sleep, joints and warm-started contacts."""
    world = scenes.pyramid(base=4).world
    for _ in range(150):
        world.step(DT)
    assert world.sleep.awake_count == 0
    first = world.add_body(pb.Polygon.box(0.5, 0.1), position=(5.0, 2.0))
    second = world.add_body(pb.Polygon.box(0.5, 0.1), position=(6.0, 2.0))
    world.add_joint(pb.RevoluteJoint(first, second, anchor=(5.5, 2.0)))
    for x in (8.0, 8.4, 8.8):
        world.add_body(pb.Polygon.box(0.2, 0.2), position=(x, 3.0), angle=0.3)
    for _ in range(20):
        world.step(DT)
    return world


def _sensed() -> pb.World:
    """Balls falling through a sensor with a handler: the staged path and sensor events."""
    world = scenes.rain(n=40).world
    world.add_body(pb.Polygon.box(3.0, 1.0), position=(0.0, 3.0), kind="static", sensor=True)
    world.events.on_contact(1, 1, begin=_handler, end=_handler)
    for _ in range(40):
        world.step(DT)
    return world


def _fast() -> pb.World:
    """A shot at a wall: continuous collision, which runs in Python after the compiled
    step."""
    world = scenes.shot_at_wall().world
    for _ in range(3):
        world.step(DT)
    return world


def _crowded() -> pb.World:
    """More touching pairs than the contact rows hold: the step grows them and goes on."""
    world = pb.World()
    world.add_body(pb.Polygon.box(20.0, 0.5), position=(0.0, -0.5), kind="static")
    for k in range(12):
        world.add_body(pb.Circle(0.2), position=(-2.0 + 0.35 * k, 0.2))
    world.step(DT)
    for k in range(60):
        world.add_body(pb.Circle(0.2), position=(-5.0 + 0.39 * (k % 25), 0.6 + 0.4 * (k // 25)))
    return world


WORLDS = {"pile and joints": _pile_with_joints, "sensor, staged": _sensed, "fast": _fast,
          "contact rows grow": _crowded}


def _trajectory(world: pb.World, steps: int) -> list[list[np.ndarray]]:
    """The states of a copy of ``world`` now and after each of ``steps`` steps (a copy
    steps exactly as the world would: tests/test_saving.py)."""
    world = copy.deepcopy(world)
    states = [_state(world)]
    for _ in range(steps):
        world.step(DT)
        states.append(_state(world))
    return states


def _equal(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("name", sorted(WORLDS))
def test_an_interrupt_at_any_line_of_a_step_leaves_the_world_as_it_was(name):
    template = WORLDS[name]()
    later = 10
    reference = _trajectory(template, later + 1)
    outcomes = []
    line, interrupted = 0, True
    while interrupted:
        line += 1
        world = copy.deepcopy(template)
        interrupted = _interrupted_step(world, line)
        # Before the step, or (an interrupt once it was done, or none) after it.
        steps = 0 if _equal(_state(world), reference[0]) else 1
        assert _equal(_state(world), reference[steps]), f"line {line}"
        outcomes.append(steps)
        for _ in range(later):
            world.step(DT)
        assert _equal(_state(world), reference[steps + later]), f"line {line}"
    # The step took effect at one line: every interrupt before it undid the step, every
    # one after it (in the callbacks, or in step() after its work) found it done.
    done_at = outcomes.index(1)
    assert 0 not in outcomes[done_at:], done_at
    assert done_at > 20  # the step runs that many lines of physbook's Python at least


def test_an_interrupt_at_a_random_moment_leaves_the_world_before_or_after_the_step():
    # A timer signal whose handler raises KeyboardInterrupt, at a random moment of each of
    # many steps of a large pile (most of a step is the compiled call).
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals are delivered to the main thread only")
    world = scenes.pyramid(base=12).world
    world.sleep.enabled = False
    for _ in range(5):
        world.step(DT)

    def interrupt(signum, frame):
        raise Injected("timer")

    previous = signal.signal(signal.SIGALRM, interrupt)
    rng = np.random.default_rng(3)
    landed = {"before": 0, "after": 0}
    try:
        for _ in range(150):
            before = copy.deepcopy(world)
            try:
                signal.setitimer(signal.ITIMER_REAL, rng.uniform(1e-5, 1.5e-3))
                world.step(DT)
                signal.setitimer(signal.ITIMER_REAL, 0.0)
            except Injected:
                signal.setitimer(signal.ITIMER_REAL, 0.0)
            if _equal(_state(world), _state(before)):
                landed["before"] += 1
            else:
                before.step(DT)
                assert _equal(_state(world), _state(before))
                landed["after"] += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)
    # Both outcomes happened, so the timer did land inside steps.
    assert landed["before"] > 10 and landed["after"] > 10, landed


def test_a_state_numba_failed_to_hand_over_is_made_again(monkeypatch):
    """An interrupt inside numba's making of the step state's Python object comes out as
    a TypeError from its constructor, the interrupt lost (seen under a timer signal): the
    driver makes the state again and steps as the world would have."""
    import physbook.step_driver as driver_module

    world = scenes.pyramid(base=4).world
    reference = copy.deepcopy(world)
    reference.step(DT)
    made = driver_module.new_step_state
    failures = [TypeError("StructRefProxy._numba_box_() missing 2 required positional "
                          "arguments: 'ty' and 'mi'")]

    def fails_once(*args):
        if failures:
            raise failures.pop()
        return made(*args)

    monkeypatch.setattr(driver_module, "new_step_state", fails_once)
    world.step(DT)
    assert not failures
    assert _equal(_state(world), _state(reference))
    # Any other TypeError is the caller's, and goes through.
    monkeypatch.setattr(driver_module, "new_step_state",
                        lambda *args: (_ for _ in ()).throw(TypeError("another")))
    world.add_body(pb.Circle(0.1), position=(9.0, 9.0))   # the state is gathered anew
    with pytest.raises(TypeError, match="another"):
        world.step(DT)
