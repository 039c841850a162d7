"""A world that gains bodies between steps, as a game that spawns projectiles or debris does,
holds no more memory than the same bodies added at once, within the factor of two by which
every buffer grows (physbook._buffers.room); one that adds and removes as many holds flat."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

import physbook as pb

DT = 1 / 60


def _held_bytes(make) -> tuple[object, int]:
    """What ``make()`` returns, and the bytes still allocated once it has returned (numpy's
    arrays included: numpy reports them to tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = make()
        gc.collect()
        return made, tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def _spread_ball(world: pb.World, i: int) -> None:
    """Ball ``i``, far from every other one: no contact, so only the body count grows."""
    world.add_body(pb.Circle(0.25), position=(3.0 * i, 0.0))


def _spawned(count: int, solver, compiled: bool) -> pb.World:
    world = pb.World(gravity=(0, 0), solver=solver)
    world.compiled = compiled
    for i in range(count):
        _spread_ball(world, i)  # a new high of the body count before every step
        world.step(DT)
    return world


def _added_at_once(count: int, solver, compiled: bool) -> pb.World:
    world = pb.World(gravity=(0, 0), solver=solver)
    world.compiled = compiled
    for i in range(count):
        _spread_ball(world, i)
    world.step(DT)
    return world


SOLVERS = {
    "colours": lambda: pb.SoftStepSolver(),
    "parallel": lambda: pb.SoftStepSolver(parallel=True),
    "rows": lambda: pb.SoftStepSolver(order="rows"),
}


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "staged"])
@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_a_body_added_before_every_step_costs_what_it_costs_added_at_once(solver, compiled):
    count = 2000
    _added_at_once(8, SOLVERS[solver](), compiled)  # compile and load every kernel first
    reference, at_once = _held_bytes(lambda: _added_at_once(count, SOLVERS[solver](),
                                                            compiled))
    world, spawned = _held_bytes(lambda: _spawned(count, SOLVERS[solver](), compiled))
    assert world.count == reference.count == count
    # Each buffer holds less than twice the rows it needs, whichever way it grew to them.
    assert spawned <= 2 * at_once, (spawned, at_once)


def test_a_world_that_adds_and_removes_a_body_every_step_holds_flat():
    world = pb.World()
    world.add_body(pb.Polygon.box(20, 0.5), position=(0, -0.5), kind="static")
    live = []

    def churn(steps: int) -> int:
        """Step ``steps`` times, adding a ball and removing the oldest of 60 before each;
        returns the bytes allocated (numpy's included) once they are done."""
        for i in range(steps):
            live.append(world.add_body(pb.Circle(0.2), position=(0.05 * (i % 40) - 1, 3)))
            if len(live) > 60:
                world.remove_body(live.pop(0))
            world.step(DT)
        gc.collect()
        return tracemalloc.get_traced_memory()[0]

    tracemalloc.start()
    try:
        churn(600)  # the pile of 60 balls forms and every buffer reaches its size
        settled = churn(1500)  # and every cache on the way (numba's types among them)
        later = churn(3000)
    finally:
        tracemalloc.stop()
    # Nothing held grows with the bodies ever made but the map from ids to rows, at most
    # 8 bytes per id and doubled when full: 16 bytes for each of the 3 000 bodies made.
    assert later - settled <= 16 * 3000, later - settled
