"""The soft step in colours (physbook.dynamics.colouring): contacts coloured, each colour
solved in lanes and, in parallel, on numba's threads.

Oracles: the greedy colouring written again with Python sets; the definition of a proper
colouring (no two contacts of one colour share a moving body); the coloured pass with its
groups shared out in 1, 2 and 3 chunks, which must agree bit for bit; the staged pipeline for
the compiled one; and chapter 10's criteria for the physics, in both orders.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import physbook as pb
from physbook.constants import COLOURS, PARALLEL_ROWS, STATIC_COLOURS
from physbook.dynamics.colouring import (
    KINDS,
    ONE_POINT,
    OVERFLOW,
    ROW_BY_ROW,
    TWO_POINTS,
    colour_contacts,
    colouring_arrays,
    gather_contacts,
    make_groups,
    solve_soft_coloured,
)
from physbook.dynamics.contact_solver import prepare_contacts
from physbook.dynamics.contact_table import contact_rows
from physbook.dynamics.wide_pass import pack_lanes


def python_colours(pairs, moving) -> list[int]:
    """Greedy colouring with sets: each row, in order, takes the lowest colour below the
    STATIC_COLOURS at the top that no earlier row at one of its moving bodies took, or, if
    one of its bodies does not move, the highest such colour of all; OVERFLOW if none is
    free."""
    taken = [set() for _ in moving]
    colours = []
    for a, b in pairs:
        busy = (taken[a] if moving[a] else set()) | (taken[b] if moving[b] else set())
        choices = (range(COLOURS - STATIC_COLOURS) if moving[a] and moving[b]
                   else range(COLOURS - 1, -1, -1))
        colour = next((c for c in choices if c not in busy), OVERFLOW)
        if colour != OVERFLOW:
            for body in (a, b):
                if moving[body]:
                    taken[body].add(colour)
        colours.append(colour)
    return colours


def python_kind(colour, restitution, points, awake) -> int:
    """How a row is solved: in lanes by its point count if it is in an ordinary colour,
    cannot bounce and has a body awake; else row by row."""
    if colour == OVERFLOW or restitution > 0.0 or not awake:
        return ROW_BY_ROW
    return TWO_POINTS if points == 2 else ONE_POINT


@st.composite
def contact_graphs(draw):
    bodies = draw(st.integers(2, 12))
    moving = draw(st.lists(st.booleans(), min_size=bodies, max_size=bodies))
    awake = draw(st.lists(st.booleans(), min_size=bodies, max_size=bodies))
    pairs = draw(st.lists(st.tuples(st.integers(0, bodies - 1), st.integers(0, bodies - 1))
                          .filter(lambda pair: pair[0] != pair[1]), max_size=80))
    rows = len(pairs)
    points = draw(st.lists(st.integers(1, 2), min_size=rows, max_size=rows))
    bouncy = draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
    return (np.array(pairs, np.int64).reshape(-1, 2), np.array(moving), np.array(awake),
            np.array(points, np.int64), np.where(bouncy, 0.5, 0.0))


def colour(pairs, moving, awake=None, points=None, restitutions=None):
    awake = np.ones(len(moving), bool) if awake is None else awake
    points = np.full(len(pairs), 2, np.int64) if points is None else points
    restitutions = np.zeros(len(pairs)) if restitutions is None else restitutions
    colouring = colouring_arrays(len(pairs), len(moving))
    inverse_masses = np.where(moving, 1.0, 0.0)
    count = colour_contacts(pairs, points, restitutions, inverse_masses,
                            np.zeros(len(moving)), awake, colouring)
    return count, colouring


@given(contact_graphs())
def test_colouring_is_greedy_proper_and_sorted_stably(graph):
    pairs, moving, awake, points, restitutions = graph
    count, colouring = colour(pairs, moving, awake, points, restitutions)
    solved = awake[pairs].any(axis=1) if len(pairs) else np.zeros(0, bool)
    # Pairs no stage solves take colour 0 and claim nothing: the others are coloured as
    # if they were not there.
    expected = np.zeros(len(pairs), np.int64)
    expected[solved] = python_colours(pairs[solved].tolist(), moving.tolist())
    kinds = [python_kind(c, e, n, s)
             for c, e, n, s in zip(expected, restitutions, points, solved, strict=True)]
    rows = len(pairs)
    assert colouring.colours[:rows].tolist() == expected.tolist()
    assert colouring.kinds[:rows].tolist() == kinds
    assert count == (max(expected) + 1 if rows else 0)
    # order: the rows sorted by colour, then kind, in row order within one; starts and
    # kind_starts: where each colour and each kind of a colour begins.
    keys = KINDS * expected + np.array(kinds, np.int64)
    np.testing.assert_array_equal(colouring.order[:rows], np.argsort(keys, kind="stable"))
    counts = np.bincount(keys, minlength=KINDS * (OVERFLOW + 1))
    np.testing.assert_array_equal(colouring.kind_starts,
                                  np.concatenate([[0], np.cumsum(counts)]))
    np.testing.assert_array_equal(colouring.starts, colouring.kind_starts[::KINDS])
    # Proper: within a colour (but the overflow), no moving body of a solved pair appears
    # twice.
    for c in range(min(count, OVERFLOW)):
        rows_of_c = colouring.order[colouring.starts[c]:colouring.starts[c + 1]]
        bodies = [body for row in rows_of_c if solved[row] for body in pairs[row]
                  if moving[body]]
        assert len(bodies) == len(set(bodies))


def test_a_body_with_more_contacts_than_colours_overflows():
    # A moving hub touching 40 moving bodies: the 28 colours below the static ones, then 12
    # rows in the overflow colour.
    pairs = np.array([[0, k] for k in range(1, 41)], np.int64)
    count, colouring = colour(pairs, np.ones(41, bool))
    dynamic = COLOURS - STATIC_COLOURS
    assert count == COLOURS + 1
    np.testing.assert_array_equal(colouring.colours[:40],
                                  list(range(dynamic)) + [OVERFLOW] * (40 - dynamic))
    # A static hub is shared by every colour: one colour does, the highest.
    count, colouring = colour(pairs, np.r_[False, np.ones(40, bool)])
    assert count == COLOURS and set(colouring.colours[:40]) == {COLOURS - 1}
    # A moving hub on 40 static bodies takes every colour, from the top down.
    count, colouring = colour(pairs, np.r_[True, np.zeros(40, bool)])
    np.testing.assert_array_equal(colouring.colours[:40],
                                  list(range(COLOURS - 1, -1, -1)) + [OVERFLOW] * 8)


def _pile(order: str = "colours", parallel: bool = False, base: int = 30,
          steps: int = 40) -> pb.World:
    scene = pb.scenes.pyramid(base, world=pb.World(
        sleeping=False, solver=pb.SoftStepSolver(order=order, parallel=parallel)))
    for _ in range(steps):
        scene.world.step(scene.dt)
    return scene.world


def test_a_colour_shared_out_in_any_number_of_chunks_gives_the_same_pass():
    # What makes the thread count irrelevant: the rows of a colour share no moving body, so
    # however its groups are split among threads, each contact reads and writes what it
    # would alone. One relaxing pass over a pile whose colours are big enough to be split.
    world = _pile()
    contacts, bodies = world._contacts.arrays, world.bodies.arrays
    solver = world.solver
    work, motion, _ = solver._scratch.views(len(contacts.bodies), world.count, None)
    soft, static_soft = solver.springs(1 / 60)
    colouring = colouring_arrays(len(contacts.bodies), world.count)
    count = colour_contacts(contacts.bodies, contacts.point_counts, contacts.restitutions,
                            bodies.inverse_masses, bodies.inverse_inertias, bodies.awake,
                            colouring)
    gather_contacts(contacts, colouring.order, colouring.contacts)
    table, contacts = contacts, contact_rows(colouring.contacts, len(contacts.bodies))
    groups, _ = make_groups(colouring, count)
    prepare_contacts(contacts, bodies, work, motion, 0.0)
    pack_lanes(groups, colouring.groups, colouring.lane_bodies, colouring.lanes,
               colouring.order, table, bodies, motion, 0.0, soft, static_soft, 3.0)
    assert np.diff(colouring.starts[:count + 1]).max() >= PARALLEL_ROWS  # split
    results = []
    for chunks in (1, 2, 3):
        velocities = bodies.velocities.copy(), bodies.angular_velocities.copy()
        copy = bodies._replace(velocities=velocities[0], angular_velocities=velocities[1])
        colouring.chunks[0] = chunks
        solve_soft_coloured(colouring._replace(lanes=colouring.lanes.copy()), count,
                            contacts, copy, work._replace(
                                normal_impulses=work.normal_impulses.copy(),
                                tangent_impulses=work.tangent_impulses.copy(),
                                total_normal_impulses=work.total_normal_impulses.copy(),
                                targets=work.targets.copy()), motion, world.gravity, 480.0,
                            False, soft, static_soft, 3.0, 1.0)
        results.append(np.concatenate([velocities[0].ravel(), velocities[1]]))
    assert not np.array_equal(results[0], np.concatenate(
        [bodies.velocities.ravel(), bodies.angular_velocities]))  # the pass did something
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])


@pytest.mark.parametrize(("base", "lanes"), [(4, False), (30, True)])
def test_with_no_group_in_lanes_the_rows_solved_row_by_row_are_every_row(base, lanes):
    # The coloured soft step gathers only the rows it solves row by row, and with no group
    # in lanes it solves the gathered rows as all of them. So make_groups must then have
    # marked every row row-by-row. Oracle: gathering every row, kinds not asked. A pile
    # with groups in lanes gathers fewer, which shows the comparison can fail.
    world = _pile(base=base, steps=20)  # a pyramid of that base
    contacts, state = world._contacts.arrays, world.bodies.arrays
    rows = len(contacts.bodies)
    gathered = []
    for by_kind in (True, False):
        colouring = colouring_arrays(rows, world.count)
        count = colour_contacts(contacts.bodies, contacts.point_counts,
                                contacts.restitutions, state.inverse_masses,
                                state.inverse_inertias, state.awake, colouring)
        _, in_lanes = make_groups(colouring, count)
        colouring.contacts.bodies[:] = -1  # a row not gathered keeps no pair
        if by_kind:
            gather_contacts(contacts, colouring.order, colouring.contacts, colouring.kinds)
        else:
            gather_contacts(contacts, colouring.order, colouring.contacts)
        gathered.append(contact_rows(colouring.contacts, rows))
    assert (in_lanes > 0) == lanes
    same = all(np.array_equal(a, b) for a, b in zip(*gathered, strict=True))
    assert same != lanes
    assert (gathered[1].bodies >= 0).all()  # the oracle gathered every row


def test_one_and_two_threads_step_alike_and_as_the_staged_pipeline():
    threads = numba.get_num_threads()
    try:
        states = [_pile().bodies.centers]
        for count in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
            numba.set_num_threads(count)
            states.append(_pile(parallel=True).bodies.centers)
        staged = pb.scenes.pyramid(30, world=pb.World(
            sleeping=False, solver=pb.SoftStepSolver(parallel=True)))
        staged.world.compiled = False
        for _ in range(40):
            staged.world.step(staged.dt)
    finally:
        numba.set_num_threads(threads)
    for state in states[1:]:
        np.testing.assert_array_equal(state, states[0])
    np.testing.assert_array_equal(staged.world.bodies.centers, states[0])
    # In row order a pass meets the contacts in another order: a different state.
    assert not np.array_equal(_pile(order="rows").bodies.centers, states[0])


@pytest.mark.parametrize("criterion", ["pyramid-20", "large pyramid", "box pile"])
def test_the_solver_in_row_order_meets_chapter_10s_criteria(criterion):
    # Criteria 1, 2 and 5 of tests/test_stacking.py (which hold them for the default,
    # colours), with order="rows".
    world = pb.World(solver=pb.SoftStepSolver(order="rows"))
    if criterion == "box pile":
        scene = pb.scenes.boxes(1000, world=world)
        scene.run(600)
        bodies = scene.world.bodies
        speeds = np.linalg.norm(bodies.velocities[bodies.kinds == pb.DYNAMIC],
                                axis=1)
        assert speeds.max() < 0.05
        return
    scene = pb.scenes.pyramid(20 if criterion == "pyramid-20" else 100, world=world)
    top = scene.bodies["boxes"][-1]
    start = top.position.copy()
    scene.run(600 if criterion == "pyramid-20" else 500)
    if criterion == "pyramid-20":
        assert np.linalg.norm(top.position - start) < 0.02
    else:
        assert start[1] - top.position[1] <= 0.2


def test_order_and_parallel_are_settings():
    solver = pb.SoftStepSolver()
    assert solver.parallel is False and solver.order == "colours"
    solver.parallel = True
    assert "parallel=True" in repr(solver) and "order='colours'" in repr(solver)
    with pytest.raises(TypeError, match="parallel"):
        pb.SoftStepSolver(parallel="yes")
    with pytest.raises(ValueError, match="order must be one of"):
        pb.SoftStepSolver(order="random")
    # Rows in order cannot be shared out among threads; a refused setting changes nothing.
    with pytest.raises(ValueError, match="parallel=True needs order='colours'"):
        solver.order = "rows"
    assert solver.order == "colours" and solver.parallel is True
    with pytest.raises(ValueError, match="parallel=True needs order='colours'"):
        pb.SoftStepSolver(order="rows", parallel=True)
    solver.parallel = False
    solver.order = "rows"
    assert solver.colouring(10, 10) is None


@given(contact_graphs(), st.integers(0, 5), st.integers(0, 1000))
def test_a_colouring_is_kept_only_while_what_it_depends_on_is_unchanged(graph, change, which):
    """Colouring the rows again on the same arrays gives what fresh arrays give: the same
    colouring when nothing changed (it is then kept, not worked out again), another when a
    body wakes or sleeps, starts or stops moving, or a row changes its bodies, points or
    restitution."""
    pairs, moving, awake, points, restitutions = graph
    _, colouring = colour(pairs, moving, awake, points, restitutions)
    before = [array.copy() for array in graph]
    moving, awake, points, restitutions = (moving.copy(), awake.copy(), points.copy(),
                                           restitutions.copy())
    if change == 1:
        awake[which % len(awake)] ^= True
    elif change == 2:
        moving[which % len(moving)] ^= True
    elif change == 3 and len(pairs):
        points[which % len(pairs)] = 3 - points[which % len(pairs)]
    elif change == 4 and len(pairs):
        restitutions[which % len(pairs)] = 0.5 - restitutions[which % len(pairs)]
    elif change == 5 and len(pairs):
        pairs = pairs[::-1].copy()
    unchanged = all(np.array_equal(old, new) for old, new in
                    zip(before, (pairs, moving, awake, points, restitutions), strict=True))
    colouring.used[:] = -1  # scratch that working the colouring out writes over
    count = colour_contacts(pairs, points, restitutions, np.where(moving, 1.0, 0.0),
                            np.zeros(len(moving)), awake, colouring)
    if unchanged:
        assert (colouring.used == -1).all()   # kept as it was
    fresh_count, fresh = colour(pairs, moving, awake, points, restitutions)
    rows = len(pairs)
    assert count == fresh_count
    for name in ("colours", "kinds", "order"):
        np.testing.assert_array_equal(getattr(colouring, name)[:rows],
                                      getattr(fresh, name)[:rows])
    np.testing.assert_array_equal(colouring.kind_starts, fresh.kind_starts)
    np.testing.assert_array_equal(colouring.starts, fresh.starts)
    assert (colouring.remembered[0] == rows) and colouring.remembered[1] == count
