"""The soft contact pass in lanes (physbook.dynamics.wide_pass).

Oracle: solve_soft itself, row by row over the same rows in the same (colour) order. Within
a colour no two rows share a moving body, so solving eight of them at once must give what
solving them one after the other gives, bit for bit: the velocities, and every impulse the
pass writes. The scene has what the lanes must get right: one- and two-point contacts,
points that bounce (their group solved again row by row), a body with more contacts than
there are colours (the overflow colour, row by row), sleeping pairs, and colours that end in
a part-filled group.
"""

from __future__ import annotations

import numpy as np
import pytest

import physbook as pb
from physbook.constants import COLOURS, LANES
from physbook.dynamics.colouring import (
    OVERFLOW,
    colour_contacts,
    colouring_arrays,
    gather_contacts,
    solve_soft_coloured,
)
from physbook.dynamics.contact_solver import prepare_contacts, solve_soft, update_rotations
from physbook.dynamics.contact_table import contact_rows
from physbook.dynamics.motion import integrate_positions
from physbook.dynamics.wide_pass import group_capacity, group_rows, pack_lanes

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
    """The pile's contacts coloured, gathered, grouped, prepared and packed, as the
    parallel soft step has them before its first pass; a few bodies put to sleep, the
    bodies moved a substep so that each point's separation has changed since prepare, and
    the bouncy bodies thrown down."""
    world = _mixed_pile()
    contacts, bodies, solver = world._contacts.arrays, world.arrays, world.solver
    rows, count = len(contacts.bodies), world.count
    colouring = colouring_arrays(rows, count)
    colour_count = colour_contacts(contacts.bodies, bodies.inverse_masses,
                                   bodies.inverse_inertias, colouring)
    gather_contacts(contacts, colouring.order, colouring.contacts)
    gathered = contact_rows(colouring.contacts, rows)
    groups = group_rows(colouring.starts, colour_count, OVERFLOW, colouring.group_starts,
                        colouring.lane_rows, colouring.by_rows)
    work, motion, _ = solver._scratch.views(rows, count, None)
    soft, static_soft = solver.springs(1 / 60)
    bodies.awake[1:160:17] = False
    prepare_contacts(gathered, bodies, work, motion, 1 / 8)
    pack_lanes(groups, colouring.lane_rows, colouring.by_rows, colouring.lanes, gathered,
               bodies, work, motion, soft, static_soft, 3.0)
    integrate_positions(bodies, 1 / 480)
    update_rotations(bodies.angles, bodies.awake, motion)
    bodies.velocities[1:161:10] = (0.5, -3.0)  # the bouncy ones, fast enough to bounce
    return world, colouring, colour_count, groups, gathered, work, motion, soft, static_soft


def test_the_scene_has_what_the_lanes_must_handle(coloured):
    world, colouring, colour_count, groups, gathered, *_ = coloured
    rows = len(gathered.bodies)
    assert colour_count == COLOURS + 1                       # the plank overflows
    assert groups <= group_capacity(rows)
    lane_rows = colouring.lane_rows[:groups]
    assert sorted(lane_rows[lane_rows >= 0].tolist()) == list(range(rows))  # each row once
    assert (lane_rows < 0).any()                             # part-filled groups
    assert set(gathered.point_counts.tolist()) == {1, 2}
    overflow = np.arange(groups) >= colouring.group_starts[OVERFLOW]
    np.testing.assert_array_equal(colouring.by_rows[:groups], overflow)
    bouncy = np.array([(gathered.restitutions[r[r >= 0]] > 0).any() for r in lane_rows])
    assert (bouncy & ~overflow).any()                        # bouncy groups in lanes
    asleep = ~world.arrays.awake[gathered.bodies]
    assert asleep.all(axis=1).any()                          # pairs the pass skips


@pytest.mark.parametrize("use_bias", [True, False])
def test_lanes_give_solve_softs_passes_bit_for_bit(coloured, use_bias):
    world, colouring, colour_count, _, gathered, work, motion, soft, static_soft = coloured
    bodies = world.arrays
    results = []
    for in_lanes in (False, True):
        state = bodies._replace(velocities=bodies.velocities.copy(),
                                angular_velocities=bodies.angular_velocities.copy())
        scratch = work._replace(**{name: getattr(work, name).copy() for name in (
            "normal_impulses", "tangent_impulses", "total_normal_impulses", "targets",
            "relative_velocities")})
        for _ in range(3):
            if in_lanes:
                solve_soft_coloured(colouring, colour_count, gathered, state, scratch, motion,
                                    world.gravity, 480.0, use_bias, soft, static_soft, 3.0, 1.0)
            else:
                solve_soft(gathered, state, scratch, motion, world.gravity, 480.0, use_bias,
                           soft, static_soft, 3.0, 1.0)
        results.append((state.velocities, state.angular_velocities, scratch.normal_impulses,
                        scratch.tangent_impulses, scratch.total_normal_impulses,
                        scratch.targets, scratch.relative_velocities))
    (rows_first, *_), (lanes_first, *_) = results
    assert not np.array_equal(rows_first, bodies.velocities)   # the passes did something
    assert (results[0][5] != 0.0).any()                          # and something bounced
    for by_rows, in_lanes in zip(results[0], results[1], strict=True):
        np.testing.assert_array_equal(in_lanes, by_rows)


def test_lanes_are_as_many_as_the_constant_says():
    colouring = colouring_arrays(100, 10)
    assert colouring.lane_rows.shape == (group_capacity(100), LANES)
