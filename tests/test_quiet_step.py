"""A step in which nothing is awake: it ends after the wake stage, and must leave the
world exactly as the full pipeline would have for the bodies (nothing moves), keep the
contacts and what touches, and still wake on every cause of chapter 11. Also the fast
finite check the check stages run, against the check it speeds up."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook import compiled_step
from physbook import step_driver as driver_module
from physbook.dynamics.snapshot import first_non_finite, first_non_finite_fast

DT = 1.0 / 60.0


def sleeping_pile(compiled: bool = True) -> tuple[pb.World, list[pb.Body]]:
    """Three boxes on the ground, stepped until every one sleeps."""
    world = pb.World()
    world.compiled = compiled
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    boxes = [world.add_body(pb.Polygon.box(0.5, 0.5), position=(0.1 * k, 0.5 + 1.0 * k))
             for k in range(3)]
    for _ in range(600):
        world.step(DT)
        if world.sleep.awake_count == 0:
            return world, boxes
    raise AssertionError("the pile never fell asleep")


def state(world: pb.World) -> list[np.ndarray]:
    columns = ("origins", "centers", "angles", "velocities", "angular_velocities", "awake",
               "sleep_times", "forces", "torques")
    return [getattr(world.bodies, name).copy() for name in columns] + [
        world.contacts.shape_ids.copy(), world.contacts.normal_impulses.copy(),
        world.events.record.touching.copy()]


@pytest.mark.parametrize("compiled", [True, False])
def test_an_asleep_step_runs_no_stage_after_waking_and_changes_nothing(compiled, monkeypatch):
    world, _ = sleeping_pile(compiled)
    before = state(world)
    touching = len(world.events.record.touching)
    assert touching >= 3  # each box touches what is under it
    # That the step stopped early: the staged driver never calls the narrow phase, and
    # every compiled call says QUIET.
    calls, statuses = [], []
    narrow = driver_module.update_contacts
    monkeypatch.setattr(driver_module, "update_contacts",
                        lambda *args: calls.append(1) or narrow(*args))
    kernel = driver_module.step_from_state

    def recorded(*args):
        result = kernel(*args)
        statuses.append(result[0])
        return result

    monkeypatch.setattr(driver_module, "step_from_state", recorded)
    steps = world.events.record.step_count
    for _ in range(30):
        world.step(DT)
    assert world.events.record.step_count == steps + 30
    assert calls == []
    assert statuses == ([compiled_step.QUIET] * 30 if compiled else [])
    for got, want in zip(state(world), before, strict=True):
        np.testing.assert_array_equal(got, want)
    events = world.events.contacts
    assert len(events.begin) == 0 and len(events.end) == 0 and len(events.hits.speeds) == 0


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("cause", ["velocity", "force", "position", "kinematic"])
def test_an_asleep_world_still_wakes_on_every_cause(compiled, cause):
    world, boxes = sleeping_pile(compiled)
    top = boxes[-1]
    if cause == "velocity":
        top.velocity = (1.0, 0.0)
    elif cause == "force":
        top.apply_force((0.0, 500.0))
    elif cause == "position":
        world.bodies.centers[top.row] += (0.5, 0.0)  # written through the arrays
    else:
        pusher = world.add_body(pb.Polygon.box(0.25, 0.25), position=(-2.0, 0.75), kind="kinematic")
        world.step(DT)  # a kinematic body at rest is not awake: still nothing moves
        assert world.sleep.awake_count == 0
        pusher.velocity = (3.0, 0.0)
    start = top.position.copy()
    for _ in range(30):
        world.step(DT)
    assert not np.array_equal(top.position, start)


@pytest.mark.parametrize("compiled", [True, False])
def test_an_interrupted_asleep_step_leaves_the_world_as_it_was(compiled, monkeypatch):
    world, boxes = sleeping_pile(compiled)
    before = state(world)
    steps = world.events.record.step_count

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(world._driver, "conclude", interrupted)
    with pytest.raises(KeyboardInterrupt):
        world.step(DT)
    assert world.events.record.step_count == steps
    for got, want in zip(state(world), before, strict=True):
        np.testing.assert_array_equal(got, want)


def columns(rows: int) -> list[np.ndarray]:
    """The eight checked columns of ``rows`` bodies, cut from larger arrays as a world's."""
    generator = np.random.default_rng(rows)
    shapes = [(2,), (), (2,), (), (2,), (), (), (2,)]
    return [generator.normal(size=(rows + 3, *shape))[:rows] for shape in shapes]


@settings(derandomize=True, max_examples=200, deadline=None)
@given(rows=st.integers(1, 40), column=st.integers(0, 7), at=st.integers(0, 10_000),
       value=st.sampled_from([np.nan, np.inf, -np.inf, 1e308, -0.0, 5e-324]))
def test_the_fast_check_finds_what_the_plain_check_finds(rows, column, at, value):
    arrays = columns(rows)
    flat = arrays[column].reshape(-1)
    flat[at % flat.shape[0]] = value
    assert first_non_finite_fast(*arrays) == first_non_finite(*arrays)
    assert (first_non_finite_fast(*arrays) >= 0) == (not np.isfinite(value))
