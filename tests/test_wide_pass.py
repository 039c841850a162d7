"""The soft contact stages in lanes (physbook.dynamics.wide_pass).

Oracle: warm_start and solve_soft themselves, row by row over the same rows in the same
(colour) order. Within a colour no two rows share a moving body, so solving eight of them at
once must give what solving them one after the other gives, bit for bit: the velocities, and
every impulse. The scene has what the groups must get right: one- and two-point contacts,
points that bounce (solved row by row inside a colour), a body with more contacts than
there are colours (the overflow colour, row by row), sleeping pairs, and colours that end in
a part-filled group.
"""

from __future__ import annotations

import numpy as np
import pytest

import physbook as pb
from physbook.constants import COLOURS, LANE_MINIMUM, LANES, VECTOR_WIDTH
from physbook.dynamics.colouring import (
    KINDS,
    ONE_POINT,
    OVERFLOW,
    ROW_BY_ROW,
    TWO_POINTS,
    colour_contacts,
    colouring_arrays,
    gather_contacts,
    group_capacity,
    make_groups,
    scatter_impulses,
    solve_soft_coloured,
    warm_start_coloured,
)
from physbook.dynamics.contact_solver import (
    prepare_contacts,
    solve_soft,
    store_impulses,
    update_motion,
    warm_start,
)
from physbook.dynamics.contact_table import contact_rows
from physbook.dynamics.motion import integrate_positions
from physbook.dynamics.wide_pass import (
    ARM_AX,
    ARM_AY,
    ARM_BX,
    ARM_BY,
    BASE_SEPARATION,
    BY_ROWS,
    COS_A,
    COS_B,
    FIELDS,
    MOVED_X,
    MOVED_Y,
    NORMAL_IMPULSE,
    NORMAL_MASS,
    POINTS,
    ROWS,
    SIN_A,
    SIN_B,
    TANGENT_IMPULSE,
    TANGENT_MASS,
    group_width,
    pack_lanes,
    store_groups,
)

BOUNCY = pb.Material(restitution=0.5, friction=0.4)


def _mixed_pile() -> pb.World:
    """Boxes and circles in a heap on a bouncy floor, a tenth of them bouncy too (the
    least restitution of a pair is its own), and a plank lying on 40 pebbles."""
    world = pb.World(sleeping=False)
    world.add_body(pb.Polygon.box(30.0, 0.5), position=(0.0, -0.5), kind="static",
                   material=BOUNCY)
    rng = np.random.default_rng(7)
    for i in range(160):
        shape = pb.Circle(0.22) if i % 3 else pb.Polygon.box(0.2, 0.2)
        world.add_body(shape, position=(rng.uniform(-6.0, -1.0), 0.3 + 0.45 * (i // 12)),
                       angle=rng.uniform(0.0, 1.0),
                       material=BOUNCY if i % 10 == 0 else pb.DEFAULT_MATERIAL)
    for k in range(40):
        world.add_body(pb.Circle(0.1), position=(1.0 + 0.21 * k, 0.1))
    world.add_body(pb.Polygon.box(4.5, 0.1), position=(5.1, 0.3))
    for _ in range(50):
        world.step(1 / 60)
    return world


@pytest.fixture(scope="module")
def coloured():
    """The pile's contacts coloured and cut into groups, all of them also copied into colour
    order (the oracle's rows) and prepared there, and the lane groups packed from the
    contact table, as the coloured soft step has them before its first warm start; a few
    bodies put to sleep, the bodies moved a substep so that each point's separation has
    changed since prepare, and the bouncy bodies thrown down."""
    world = _mixed_pile()
    contacts, bodies, solver = world._contacts.arrays, world.bodies.arrays, world.solver
    rows, count = len(contacts.bodies), world.count
    bodies.awake[1:160:17] = False
    colouring = colouring_arrays(rows, count)
    colour_count = colour_contacts(contacts.bodies, contacts.point_counts,
                                   contacts.restitutions, bodies.inverse_masses,
                                   bodies.inverse_inertias, bodies.awake, colouring)
    gather_contacts(contacts, colouring.order, colouring.contacts)
    gathered = contact_rows(colouring.contacts, rows)
    groups, _ = make_groups(colouring, colour_count)
    work, motion, _ = solver._scratch.views(rows, count, None)
    soft, static_soft = solver.springs(1 / 60)
    prepare_contacts(gathered, bodies, work, motion, 1 / 8)
    pack_lanes(groups, colouring.groups, colouring.lane_bodies, colouring.lanes,
               colouring.order, contacts, bodies, motion, 1 / 8, soft, static_soft, 3.0)
    integrate_positions(bodies, 1 / 480)
    update_motion(bodies.centers, bodies.angles, motion)
    bodies.velocities[1:161:10] = (0.5, -3.0)  # the bouncy ones, fast enough to bounce
    return (world, colouring, colour_count, groups, contacts, gathered, work, motion, soft,
            static_soft)


def test_the_scene_has_what_the_groups_must_handle(coloured):
    world, colouring, colour_count, groups, _, gathered, *_ = coloured
    rows = len(gathered.bodies)
    assert colour_count == COLOURS + 1                       # the plank overflows
    assert groups <= group_capacity(rows)
    table = colouring.groups[:groups]
    covered = np.concatenate([np.arange(first, first + size) for first, size, _ in table])
    np.testing.assert_array_equal(covered, np.arange(rows))  # each row once, in order
    assert (table[:, ROWS] < LANES).any() and (table[:, ROWS] <= LANES).all()
    kinds = colouring.kinds[colouring.order[:rows]]
    lanes_of = {TWO_POINTS: 2, ONE_POINT: 1, ROW_BY_ROW: BY_ROWS}
    for first, size, points in table:                        # one kind to a group
        assert {lanes_of[kind] for kind in kinds[first:first + size]} == {points}
        assert points == BY_ROWS or size >= LANE_MINIMUM
    assert {2, 1, BY_ROWS} <= set(table[:, POINTS].tolist())
    assert set(gathered.point_counts.tolist()) == {1, 2}
    in_lanes = np.repeat(table[:, POINTS] != BY_ROWS, table[:, ROWS])
    np.testing.assert_array_equal(gathered.point_counts[in_lanes],
                                  np.repeat(table[:, POINTS], table[:, ROWS])[in_lanes])
    # Lanes hold the rows that cannot bounce, with a body awake, outside the overflow, but
    # for groups too small to pay for the lanes.
    awake = world.bodies.arrays.awake[gathered.bodies].any(axis=1)
    overflow = np.arange(rows) >= colouring.starts[OVERFLOW]
    may_be_in_lanes = (gathered.restitutions == 0) & awake & ~overflow
    assert not (in_lanes & ~may_be_in_lanes).any()
    small = np.repeat(table[:, ROWS] < LANE_MINIMUM, table[:, ROWS])
    np.testing.assert_array_equal(in_lanes, may_be_in_lanes & ~small)
    assert (may_be_in_lanes & small).any()                   # a small group, by rows
    assert (~may_be_in_lanes & ~overflow & awake).any()      # bouncy rows, by rows
    assert (~awake).any()                                    # pairs no stage solves
    assert colouring.kind_starts[KINDS * (OVERFLOW + 1)] == rows


def test_packing_prepares_the_lanes_as_prepare_contacts_prepares_the_rows(coloured):
    _, colouring, _, groups, _, gathered, work, *_ = coloured
    fields = {"anchors_a": (ARM_AX, ARM_AY), "anchors_b": (ARM_BX, ARM_BY)}
    checked = 0
    widths = set()
    for g, (first, size, points) in enumerate(colouring.groups[:groups]):
        if points == BY_ROWS:
            continue
        block = colouring.lanes[g * FIELDS * LANES:(g + 1) * FIELDS * LANES].reshape(
            FIELDS, LANES)
        for lane in range(size):
            i = first + lane
            np.testing.assert_array_equal(colouring.lane_bodies[g, :, lane],
                                          gathered.bodies[i])
            for k in range(points):
                for name, (x, y) in fields.items():
                    assert block[x + 4 * k, lane] == getattr(work, name)[i, k, 0]
                    assert block[y + 4 * k, lane] == getattr(work, name)[i, k, 1]
                for field, name in ((BASE_SEPARATION, "base_separations"),
                                    (NORMAL_MASS, "normal_masses"),
                                    (TANGENT_MASS, "tangent_masses"),
                                    (NORMAL_IMPULSE, "normal_impulses"),
                                    (TANGENT_IMPULSE, "tangent_impulses")):
                    assert block[field + k, lane] == getattr(work, name)[i, k]
                checked += 1
        # No motion yet, as start_motion records it; the passes read it anew when the
        # bodies have moved.
        np.testing.assert_array_equal(
            block[[MOVED_X, MOVED_Y, COS_A, SIN_A, COS_B, SIN_B], :size],
            np.repeat([[0.0], [0.0], [1.0], [0.0], [1.0], [0.0]], size, axis=1))
        # Empty lanes up to the group's width, a whole number of vector registers: zeros,
        # and the bodies of lane 0 (written back before lane 0's).
        width = -(-size // VECTOR_WIDTH) * VECTOR_WIDTH
        assert width == group_width(size)
        widths.add(width)
        assert (colouring.lane_bodies[g, :, size:width] == gathered.bodies[first][:, None]).all()
        assert (block[:, size:width] == 0.0).all()
    assert checked > 100
    assert len(widths) > 1 and LANES in widths  # full groups and part-filled ones


def _copies(bodies, work, contacts):
    state = bodies._replace(velocities=bodies.velocities.copy(),
                            angular_velocities=bodies.angular_velocities.copy())
    scratch = work._replace(**{name: getattr(work, name).copy() for name in (
        "normal_impulses", "tangent_impulses", "total_normal_impulses", "targets",
        "relative_velocities")})
    table = contacts._replace(normal_impulses=contacts.normal_impulses.copy(),
                              tangent_impulses=contacts.tangent_impulses.copy())
    return state, scratch, table


def _outcome(colouring, groups, lanes, contacts, gathered, state, scratch, in_lanes):
    """Velocities, the impulses kept in the contact table, and the bounce columns of the
    rows solved row by row."""
    if in_lanes:
        store_groups(groups, colouring.groups, lanes, colouring.order, contacts, state,
                     scratch, 1.0)
    else:
        store_impulses(gathered, state, scratch, 1.0)
        scatter_impulses(gathered, colouring.order, contacts)
    by_rows = np.repeat(colouring.groups[:groups, POINTS] == BY_ROWS,
                        colouring.groups[:groups, ROWS])
    return (state.velocities, state.angular_velocities, contacts.normal_impulses,
            contacts.tangent_impulses, scratch.targets[by_rows],
            scratch.relative_velocities[by_rows], scratch.total_normal_impulses[by_rows])


@pytest.mark.parametrize("chunks", [1, 2])
def test_lanes_warm_start_as_warm_start_does_bit_for_bit(coloured, chunks):
    world, colouring, colour_count, groups, contacts, gathered, work, *_ = coloured
    bodies = world.bodies.arrays
    results = []
    for in_lanes in (False, True):
        state, scratch, table = _copies(bodies, work, contacts)
        lanes = colouring.lanes.copy()
        if in_lanes:
            colouring.chunks[0] = chunks
            warm_start_coloured(colouring._replace(lanes=lanes), colour_count, gathered,
                                state, scratch)
            colouring.chunks[0] = 1
        else:
            warm_start(gathered, state, scratch)
        results.append(_outcome(colouring, groups, lanes, table, gathered, state, scratch,
                                in_lanes))
    assert not np.array_equal(results[0][0], bodies.velocities)  # it did something
    for by_rows, in_lanes in zip(results[0], results[1], strict=True):
        np.testing.assert_array_equal(in_lanes, by_rows)


@pytest.mark.parametrize("use_bias", [True, False])
def test_lanes_give_solve_softs_passes_bit_for_bit(coloured, use_bias):
    (world, colouring, colour_count, groups, contacts, gathered, work, motion, soft,
     static_soft) = coloured
    bodies = world.bodies.arrays
    results = []
    for in_lanes in (False, True):
        state, scratch, table = _copies(bodies, work, contacts)
        lanes = colouring.lanes.copy()
        for passes in range(3):
            if in_lanes:
                # The bodies moved since packing, not between the passes: the lanes read
                # their motion once and keep it.
                solve_soft_coloured(colouring._replace(lanes=lanes), colour_count, gathered,
                                    state, scratch, motion, world.gravity, 480.0, use_bias,
                                    soft, static_soft, 3.0, 1.0, passes == 0)
            else:
                solve_soft(gathered, state, scratch, motion, world.gravity, 480.0, use_bias,
                           soft, static_soft, 3.0, 1.0)
        results.append(_outcome(colouring, groups, lanes, table, gathered, state, scratch,
                                in_lanes))
    assert not np.array_equal(results[0][0], bodies.velocities)  # the passes did something
    assert (results[0][4] != 0.0).any()                          # and something bounced
    for by_rows, in_lanes in zip(results[0], results[1], strict=True):
        np.testing.assert_array_equal(in_lanes, by_rows)


def test_the_order_within_a_colour_does_not_matter(coloured):
    # What lets the lanes take eight rows at once, and the groups sort a colour's rows by
    # kind: rows of a colour share no moving body. Reversing each ordinary colour's rows
    # gives the same relaxing pass, bit for bit.
    world, colouring, colour_count, _, _, gathered, work, motion, soft, static_soft = coloured
    bodies = world.bodies.arrays
    order = np.arange(len(gathered.bodies))
    for c in range(min(colour_count, OVERFLOW)):
        start, end = colouring.starts[c], colouring.starts[c + 1]
        order[start:end] = order[start:end][::-1]
    results = []
    for rows in (np.arange(len(order)), order):
        state, scratch, _ = _copies(bodies, work, gathered)
        table = gathered._replace(**{name: getattr(gathered, name)[rows]
                                     for name in gathered._fields})
        shuffled = scratch._replace(**{name: getattr(scratch, name)[rows]
                                       for name in scratch._fields})
        solve_soft(table, state, shuffled, motion, world.gravity, 480.0, False, soft,
                   static_soft, 3.0, 1.0)
        results.append((state.velocities, shuffled.normal_impulses[np.argsort(rows)]))
    assert not np.array_equal(order, np.arange(len(order)))
    for first, second in zip(*results, strict=True):
        np.testing.assert_array_equal(first, second)


def test_lanes_are_as_many_as_the_constant_says():
    colouring = colouring_arrays(100, 10)
    assert colouring.lane_bodies.shape == (group_capacity(100), 2, LANES)
