"""Appendix A: chapter 10's soft contact stages, up to 32 contacts of a colour at a time.

No two contacts of a colour (:mod:`physbook.dynamics.colouring`) share a body whose
velocity an impulse changes, so a pass may solve several of them at once. The colouring
cuts each colour into *groups* of up to :data:`~physbook.constants.LANES` rows. A group of
contacts that cannot bounce (restitution 0) and have the same number of points is solved in
*lanes*, one contact per lane: the pass gathers the bodies' velocities into a block on
its own stack and their motion into the group's block, runs the arithmetic of
:func:`~physbook.dynamics.contact_solver.solve_soft` on every lane, and scatters the
velocities back. Each line of that arithmetic is the same
operation on every lane, which the compiler turns into vector instructions (eight float64
at once with AVX-512, four with AVX2). A part-filled group is solved to the next multiple
of :data:`~physbook.constants.VECTOR_WIDTH` lanes (:func:`group_width`), so the last,
short group of a colour costs what its contacts need. Each contact gets the operations of
``solve_soft``, in the same order, so the results are the same bit for bit. The other
groups, of contacts that may bounce (a branch taken once per collision), of pairs that are
both asleep, of the overflow colour, whose rows may share bodies, or too few to fill
:data:`~physbook.constants.LANE_MINIMUM` lanes, are solved row by row by ``solve_soft``
itself.

A group's block lives through the whole step, as Box2D v3's wide contact constraints do:
:func:`pack_lanes` prepares its contacts into it, what stays the same through the step
(normal, masses, arms, springs) and the impulses the step starts from; the warm starts and
passes carry the impulses in the block; :func:`store_groups` keeps them in the contact table
at the end. A pass reads and writes only the bodies' velocities, and reads their motion
since the step began.

numba vectorises a loop over the lanes only when every value it reads or writes sits at a
fixed offset from the lane in flat arrays the compiler knows apart (two arrays it is
handed might overlap, and a row of a 2-D array sits at an offset the compiler cannot see),
and only when the loop's length is not a constant (a constant 8 is unrolled before the
vectoriser sees a loop). So a group's values live in one block of ``FIELDS × LANES``
float64, field f of lane l at ``f·LANES + l``, the velocities the pass changes in a block
of ``VELOCITY_FIELDS × LANES`` on the pass's stack (:func:`~physbook._stack.stack_floats`,
which overlaps nothing), and the loops run to the group's width, worked out as the pass
runs. The velocities are the values a pass writes most: kept apart, they stay in the
first-level cache from group to group, where in each group's block they would travel to
memory and back at every pass of a large pile (0.6.5).
"""

from __future__ import annotations

import numpy as np

from physbook._jit import njit
from physbook._stack import stack_floats
from physbook.constants import LANES, VECTOR_WIDTH
from physbook.dynamics.contact_solver import (
    base_separation,
    point_masses,
    solve_soft,
    warm_start,
)

# The fields of a group's block. Set once per step by pack_lanes: the normal, the inverse
# masses and inertias, friction, the spring (mass scale, bias rate, impulse scale), the
# push-out cap, and per point k = 0, 1 the arms, base separation and normal and tangent
# masses.
(NORMAL_X, NORMAL_Y, INVERSE_MASS_A, INVERSE_INERTIA_A, INVERSE_MASS_B, INVERSE_INERTIA_B,
 FRICTION, MASS_SCALE, BIAS_RATE, IMPULSE_SCALE, SPEED_CAP) = range(11)
ARM_AX, ARM_AY, ARM_BX, ARM_BY = 11, 12, 13, 14        # point k: + 4·k
BASE_SEPARATION, NORMAL_MASS, TANGENT_MASS = 19, 21, 23  # point k: + k
# Carried from pass to pass through the step (point k: + k).
NORMAL_IMPULSE, TANGENT_IMPULSE = 25, 27
# Gathered by a pass that follows a move: the bodies' motion since the step began
# (Δc_B − Δc_A and both rotations), kept for the passes until the next move.
MOVED_X, MOVED_Y, COS_A, SIN_A, COS_B, SIN_B = range(29, 35)
# The contact's tangent speed (chapter 16's conveyors), set once per step.
TANGENT_SPEED = 35
FIELDS = 36

# The bodies' velocities, gathered at every pass into a block of VELOCITY_FIELDS × LANES
# on the pass's stack, not into the group's (see the module docstring).
VELOCITY_AX, VELOCITY_AY, SPIN_A, VELOCITY_BX, VELOCITY_BY, SPIN_B = range(6)
VELOCITY_FIELDS = 6
VELOCITY_BLOCK = VELOCITY_FIELDS * LANES  # a constant, as stack_floats needs

#: Columns of a colouring's ``groups`` (G, 3): a group's first gathered row, its number of
#: rows, and the points of each of its contacts when it is solved in lanes (1 or 2), or
#: :data:`BY_ROWS`.
FIRST, ROWS, POINTS = 0, 1, 2
BY_ROWS = 0


@njit(refcounted=False, inline=True)
def _block(lanes, g):
    """Group g's block: indexed by lane (from 0) and constants, an index the compiler can
    see is never negative, so it need not check it (numba counts a negative index from the
    end), and can vectorise."""
    return lanes[g * FIELDS * LANES:(g + 1) * FIELDS * LANES]


@njit(refcounted=False, inline=True)
def group_width(rows):
    """The lanes a group of ``rows`` contacts is solved in: ``rows`` rounded up to whole
    vector registers (:data:`~physbook.constants.VECTOR_WIDTH` lanes), at most LANES."""
    return min(LANES, (rows + VECTOR_WIDTH - 1) // VECTOR_WIDTH * VECTOR_WIDTH)


@njit(refcounted=False)
def pack_lanes(group_count, groups, lane_bodies, lanes, order, contacts, bodies, motion,
               warm_scale, soft, static_soft, push_out_speed):
    """Prepare each lane group: its bodies into ``lane_bodies``, and into its block of
    ``lanes`` what :func:`~physbook.dynamics.contact_solver.prepare_rows` works out for a
    row (arms, effective masses, base separations, the impulses to start from, ``warm_scale``
    times those the contact carries), the same numbers, with the contact's normal, friction,
    spring and push-out cap. Gathered row i is row ``order[i]`` of ``contacts``, the contact
    table; ``motion.overlaps`` must be counted. An empty lane (past the group's rows, within
    its :func:`group_width`) gets zeros, so that it changes no velocity, and the bodies of
    lane 0; the passes never read a lane past the width."""
    pairs, normals, points, depths = (contacts.bodies, contacts.normals, contacts.points,
                                      contacts.depths)
    carried_normal, carried_tangent = contacts.normal_impulses, contacts.tangent_impulses
    centers, inverse_masses, inverse_inertias = (bodies.centers, bodies.inverse_masses,
                                                 bodies.inverse_inertias)
    overlaps = motion.overlaps
    for g in range(group_count):
        point_count = groups[g, POINTS]
        if point_count == BY_ROWS:
            continue
        block = _block(lanes, g)
        first, rows = groups[g, FIRST], groups[g, ROWS]
        width = group_width(rows)
        if rows < width:
            for field in range(FIELDS):
                # The empty lanes' zeros; the rows' lanes write all they read.
                block[field * LANES + rows:field * LANES + width] = 0.0
        for lane in range(width):
            # An empty lane takes the bodies of lane 0 (see _scatter_velocities).
            m = order[first + (lane if lane < rows else 0)]
            a, b = pairs[m, 0], pairs[m, 1]
            lane_bodies[g, 0, lane] = a
            lane_bodies[g, 1, lane] = b
            if lane >= rows:
                continue
            nx, ny = normals[m, 0], normals[m, 1]
            inverse_mass_a, inverse_inertia_a = inverse_masses[a], inverse_inertias[a]
            inverse_mass_b, inverse_inertia_b = inverse_masses[b], inverse_inertias[b]
            block[lane + NORMAL_X * LANES] = nx
            block[lane + NORMAL_Y * LANES] = ny
            block[lane + INVERSE_MASS_A * LANES] = inverse_mass_a
            block[lane + INVERSE_INERTIA_A * LANES] = inverse_inertia_a
            block[lane + INVERSE_MASS_B * LANES] = inverse_mass_b
            block[lane + INVERSE_INERTIA_B * LANES] = inverse_inertia_b
            block[lane + FRICTION * LANES] = contacts.frictions[m]
            block[lane + TANGENT_SPEED * LANES] = contacts.tangent_speeds[m]
            spring = static_soft if inverse_mass_a == 0.0 or inverse_mass_b == 0.0 else soft
            block[lane + MASS_SCALE * LANES] = spring.mass_scale
            block[lane + BIAS_RATE * LANES] = spring.bias_rate
            block[lane + IMPULSE_SCALE * LANES] = spring.impulse_scale
            # solve_soft's cap: shared by the larger count of the pair (count_overlaps).
            block[lane + SPEED_CAP * LANES] = push_out_speed / max(overlaps[a], overlaps[b],
                                                                   1.0)
            for k in range(point_count):
                rax = points[m, k, 0] - centers[a, 0]
                ray = points[m, k, 1] - centers[a, 1]
                rbx = points[m, k, 0] - centers[b, 0]
                rby = points[m, k, 1] - centers[b, 1]
                block[lane + (ARM_AX + 4 * k) * LANES] = rax
                block[lane + (ARM_AY + 4 * k) * LANES] = ray
                block[lane + (ARM_BX + 4 * k) * LANES] = rbx
                block[lane + (ARM_BY + 4 * k) * LANES] = rby
                normal_mass, tangent_mass = point_masses(
                    inverse_mass_a, inverse_inertia_a, inverse_mass_b, inverse_inertia_b,
                    rax, ray, rbx, rby, nx, ny)
                block[lane + (NORMAL_MASS + k) * LANES] = normal_mass
                block[lane + (TANGENT_MASS + k) * LANES] = tangent_mass
                block[lane + (BASE_SEPARATION + k) * LANES] = base_separation(
                    depths[m, k], rax, ray, rbx, rby, nx, ny)
                block[lane + (NORMAL_IMPULSE + k) * LANES] = \
                    warm_scale * carried_normal[m, k] if warm_scale != 0.0 else 0.0
                block[lane + (TANGENT_IMPULSE + k) * LANES] = \
                    warm_scale * carried_tangent[m, k] if warm_scale != 0.0 else 0.0
            # No motion yet: Δc = 0, Δθ = 0 (what start_motion records).
            block[lane + MOVED_X * LANES] = 0.0
            block[lane + MOVED_Y * LANES] = 0.0
            block[lane + COS_A * LANES] = 1.0
            block[lane + SIN_A * LANES] = 0.0
            block[lane + COS_B * LANES] = 1.0
            block[lane + SIN_B * LANES] = 0.0


@njit(refcounted=False)
def store_groups(group_count, groups, lanes, order, contacts, bodies, work, scale):
    """Keep the step's impulses, times ``scale``, in the contact table for the next step, as
    :func:`~physbook.dynamics.contact_solver.store_impulses` does: a lane group's from its
    block, a group solved row by row's from the work arrays (gathered row i is row
    ``order[i]`` of ``contacts``). A sleeping pair keeps the impulses it carries."""
    pairs, awake = contacts.bodies, bodies.awake
    normal, tangent = contacts.normal_impulses, contacts.tangent_impulses
    for g in range(group_count):
        point_count = groups[g, POINTS]
        first = groups[g, FIRST]
        if point_count == BY_ROWS:
            for i in range(first, first + groups[g, ROWS]):
                m = order[i]
                if awake[pairs[m, 0]] or awake[pairs[m, 1]]:
                    for k in range(2):
                        normal[m, k] = scale * work.normal_impulses[i, k]
                        tangent[m, k] = scale * work.tangent_impulses[i, k]
            continue
        block = _block(lanes, g)
        for lane in range(groups[g, ROWS]):
            m = order[first + lane]
            for k in range(2):
                # A slot past the contact's points was never solved: it keeps no impulse.
                solved = k < point_count
                normal[m, k] = scale * (block[lane + (NORMAL_IMPULSE + k) * LANES]
                                        if solved else 0.0)
                tangent[m, k] = scale * (block[lane + (TANGENT_IMPULSE + k) * LANES]
                                         if solved else 0.0)


@njit(refcounted=False, inline=True)
def _gather_velocities(speeds, lane_bodies, g, width, velocities, spins):
    """Read the velocities of each lane's bodies, group g's, into ``speeds``."""
    for lane in range(width):
        # Unsigned: numba checks a signed index for being negative at every use.
        a = np.uint64(lane_bodies[g, 0, lane])
        b = np.uint64(lane_bodies[g, 1, lane])
        speeds[lane + VELOCITY_AX * LANES] = velocities[a, 0]
        speeds[lane + VELOCITY_AY * LANES] = velocities[a, 1]
        speeds[lane + SPIN_A * LANES] = spins[a]
        speeds[lane + VELOCITY_BX * LANES] = velocities[b, 0]
        speeds[lane + VELOCITY_BY * LANES] = velocities[b, 1]
        speeds[lane + SPIN_B * LANES] = spins[b]


@njit(refcounted=False, inline=True)
def _scatter_velocities(speeds, lane_bodies, g, width, velocities, spins):
    """Write each lane's velocities back to its bodies, from the last lane to the first: an
    empty lane holds the bodies of lane 0 as they were gathered, and lane 0 then writes
    them as they are now. (With no test for empty lanes the loops have no branch.)"""
    for lane in range(width - 1, -1, -1):
        a = np.uint64(lane_bodies[g, 0, lane])
        b = np.uint64(lane_bodies[g, 1, lane])
        velocities[a, 0] = speeds[lane + VELOCITY_AX * LANES]
        velocities[a, 1] = speeds[lane + VELOCITY_AY * LANES]
        spins[a] = speeds[lane + SPIN_A * LANES]
        velocities[b, 0] = speeds[lane + VELOCITY_BX * LANES]
        velocities[b, 1] = speeds[lane + VELOCITY_BY * LANES]
        spins[b] = speeds[lane + SPIN_B * LANES]


@njit(refcounted=False)
def warm_start_groups(groups_span, groups, lane_bodies, lanes, contacts, bodies, work):
    """:func:`~physbook.dynamics.contact_solver.warm_start` of the groups first .. last − 1
    (``groups_span``), each in lanes or row by row; the same results, bit for bit."""
    velocities, spins = bodies.velocities, bodies.angular_velocities
    speeds = stack_floats(VELOCITY_BLOCK)
    for g in range(groups_span[0], groups_span[1]):
        points = groups[g, POINTS]
        if points == BY_ROWS:
            warm_start(contacts, bodies, work,
                       (groups[g, FIRST], groups[g, FIRST] + groups[g, ROWS]))
            continue
        block = _block(lanes, g)
        width = group_width(groups[g, ROWS])
        _gather_velocities(speeds, lane_bodies, g, width, velocities, spins)
        _warm_lanes(block, speeds, width, 0)
        if points == 2:
            _warm_lanes(block, speeds, width, 1)
        _scatter_velocities(speeds, lane_bodies, g, width, velocities, spins)


@njit(refcounted=False)
def solve_groups(groups_span, groups, lane_bodies, lanes, contacts, bodies, work, motion,
                 gravity, inverse_h, use_bias, soft, static_soft, push_out_speed,
                 restitution_threshold, moved_since=True):
    """One pass of :func:`~physbook.dynamics.contact_solver.solve_soft` over the groups
    first .. last − 1 (``groups_span``), each in lanes (see the module docstring) or row by
    row; the same results, bit for bit.

    ``moved_since`` says whether the bodies moved since a pass last read their motion into
    the lanes (or :func:`pack_lanes` set it to none): if not, the lanes keep what they hold.
    A substep's solving pass follows only velocity stages, so it can take the motion its
    last relaxing pass read.
    """
    velocities, spins = bodies.velocities, bodies.angular_velocities
    moved, delta_cos, delta_sin = motion.moved, motion.delta_cos, motion.delta_sin
    speeds = stack_floats(VELOCITY_BLOCK)
    for g in range(groups_span[0], groups_span[1]):
        points = groups[g, POINTS]
        if points == BY_ROWS:
            solve_soft(contacts, bodies, work, motion, gravity, inverse_h, use_bias, soft,
                       static_soft, push_out_speed, restitution_threshold,
                       (groups[g, FIRST], groups[g, FIRST] + groups[g, ROWS]))
            continue
        block = _block(lanes, g)
        width = group_width(groups[g, ROWS])
        _gather_velocities(speeds, lane_bodies, g, width, velocities, spins)
        for lane in range(width if moved_since else 0):
            a = np.uint64(lane_bodies[g, 0, lane])
            b = np.uint64(lane_bodies[g, 1, lane])
            # Δc_B − Δc_A, summed as separation_now sums it.
            block[lane + MOVED_X * LANES] = moved[b, 0] - moved[a, 0]
            block[lane + MOVED_Y * LANES] = moved[b, 1] - moved[a, 1]
            block[lane + COS_A * LANES] = delta_cos[a]
            block[lane + SIN_A * LANES] = delta_sin[a]
            block[lane + COS_B * LANES] = delta_cos[b]
            block[lane + SIN_B * LANES] = delta_sin[b]
        # The flag as a constant in each of two copies of the lanes' lines: in the relaxing
        # pass's (False) the compiler drops the spring, the push-out cap and their loads.
        if use_bias:
            _solve_lanes(block, speeds, width, points, inverse_h, True)
        else:
            _solve_lanes(block, speeds, width, points, inverse_h, False)
        _scatter_velocities(speeds, lane_bodies, g, width, velocities, spins)


@njit(refcounted=False, inline=True)
def _solve_lanes(block, speeds, width, points, inverse_h, use_bias):
    """solve_soft's lines for a contact that cannot bounce, on every lane at once, its
    branches as selects: normal impulses point by point, then friction. An empty lane, all
    zeros, computes zeros. (Each point is a call with k a constant, so that the compiler
    sees the fields' offsets: a loop over a number of points it cannot see is not
    vectorised.)"""
    _normal_lanes(block, speeds, width, 0, inverse_h, use_bias)
    if points == 2:
        _normal_lanes(block, speeds, width, 1, inverse_h, use_bias)
    _friction_lanes(block, speeds, width, 0)
    if points == 2:
        _friction_lanes(block, speeds, width, 1)


@njit(refcounted=False, inline=True)
def _normal_lanes(block, speeds, width, k, inverse_h, use_bias):
    """The normal impulse of point k on every lane, as solve_soft's."""
    for lane in range(width):
        nx, ny, rax, ray, rbx, rby = _normal_and_arms(block, lane, k)
        cos_a, sin_a = block[lane + COS_A * LANES], block[lane + SIN_A * LANES]
        cos_b, sin_b = block[lane + COS_B * LANES], block[lane + SIN_B * LANES]
        # separation_now: s = base + (Δc_B − Δc_A + R(Δθ_B)·r_B − R(Δθ_A)·r_A)·n
        turned_ax, turned_ay = cos_a * rax - sin_a * ray, sin_a * rax + cos_a * ray
        turned_bx, turned_by = cos_b * rbx - sin_b * rby, sin_b * rbx + cos_b * rby
        s = (block[lane + (BASE_SEPARATION + k) * LANES]
             + (block[lane + MOVED_X * LANES] + turned_bx - turned_ax) * nx
             + (block[lane + MOVED_Y * LANES] + turned_by - turned_ay) * ny)
        mass_scale = block[lane + MASS_SCALE * LANES]
        spring_bias = max(mass_scale * block[lane + BIAS_RATE * LANES] * s,
                          -block[lane + SPEED_CAP * LANES])
        gap = s > 0.0
        soft = use_bias and not gap
        bias = s * inverse_h if gap else (spring_bias if use_bias else 0.0)
        mass_scale = mass_scale if soft else 1.0
        impulse_scale = block[lane + IMPULSE_SCALE * LANES] if soft else 0.0
        vn = _relative_speed(speeds, lane, rax, ray, rbx, rby, nx, ny)
        accumulated = block[lane + (NORMAL_IMPULSE + k) * LANES]
        j = -block[lane + (NORMAL_MASS + k) * LANES] * (mass_scale * vn + bias) \
            - impulse_scale * accumulated
        total = max(accumulated + j, 0.0)
        j = total - accumulated
        block[lane + (NORMAL_IMPULSE + k) * LANES] = total
        _push(block, speeds, lane, j * nx, j * ny, rax, ray, rbx, rby)


@njit(refcounted=False, inline=True)
def _friction_lanes(block, speeds, width, k):
    """The friction impulse of point k on every lane, as solve_soft's: the total
    λ_t − (v_t − v_t*)/K_t clamped to ±μ·λ_n."""
    for lane in range(width):
        nx, ny, rax, ray, rbx, rby = _normal_and_arms(block, lane, k)
        bound = block[lane + FRICTION * LANES] * block[lane + (NORMAL_IMPULSE + k) * LANES]
        vt = (_relative_speed(speeds, lane, rax, ray, rbx, rby, -ny, nx)
              - block[lane + TANGENT_SPEED * LANES])
        accumulated = block[lane + (TANGENT_IMPULSE + k) * LANES]
        total = min(max(accumulated - vt * block[lane + (TANGENT_MASS + k) * LANES],
                        -bound), bound)
        jt = total - accumulated
        block[lane + (TANGENT_IMPULSE + k) * LANES] = total
        _push(block, speeds, lane, jt * -ny, jt * nx, rax, ray, rbx, rby)


@njit(refcounted=False, inline=True)
def _warm_lanes(block, speeds, width, k):
    """Point k's starting impulse on every lane: P = λ_n·n + λ_t·t with t = (−n_y, n_x),
    as warm_start sums it."""
    for lane in range(width):
        nx, ny, rax, ray, rbx, rby = _normal_and_arms(block, lane, k)
        jn = block[lane + (NORMAL_IMPULSE + k) * LANES]
        jt = block[lane + (TANGENT_IMPULSE + k) * LANES]
        _push(block, speeds, lane, jn * nx - jt * ny, jn * ny + jt * nx, rax, ray, rbx, rby)


@njit(refcounted=False, inline=True)
def _push(block, speeds, lane, px, py, rax, ray, rbx, rby):
    """impulse_on_pair on a lane: −P on A at arm r_A, +P on B at arm r_B (the inverse
    masses from the group's block, the velocities in ``speeds``)."""
    speeds[lane + VELOCITY_AX * LANES] -= block[lane + INVERSE_MASS_A * LANES] * px
    speeds[lane + VELOCITY_AY * LANES] -= block[lane + INVERSE_MASS_A * LANES] * py
    speeds[lane + SPIN_A * LANES] -= block[lane + INVERSE_INERTIA_A * LANES] * (rax * py
                                                                                - ray * px)
    speeds[lane + VELOCITY_BX * LANES] += block[lane + INVERSE_MASS_B * LANES] * px
    speeds[lane + VELOCITY_BY * LANES] += block[lane + INVERSE_MASS_B * LANES] * py
    speeds[lane + SPIN_B * LANES] += block[lane + INVERSE_INERTIA_B * LANES] * (rbx * py
                                                                                - rby * px)


@njit(refcounted=False, inline=True)
def _normal_and_arms(block, lane, k):
    """(n_x, n_y, r_Ax, r_Ay, r_Bx, r_By) of point k of a lane."""
    return (block[lane + NORMAL_X * LANES], block[lane + NORMAL_Y * LANES],
            block[lane + (ARM_AX + 4 * k) * LANES], block[lane + (ARM_AY + 4 * k) * LANES],
            block[lane + (ARM_BX + 4 * k) * LANES], block[lane + (ARM_BY + 4 * k) * LANES])


@njit(refcounted=False, inline=True)
def _relative_speed(speeds, lane, rax, ray, rbx, rby, dx, dy):
    """(v_B + ω_B × r_B − v_A − ω_A × r_A)·d on a lane, as solve_soft sums it."""
    return (((speeds[lane + VELOCITY_BX * LANES] - speeds[lane + SPIN_B * LANES] * rby)
             - (speeds[lane + VELOCITY_AX * LANES] - speeds[lane + SPIN_A * LANES] * ray))
            * dx
            + ((speeds[lane + VELOCITY_BY * LANES] + speeds[lane + SPIN_B * LANES] * rbx)
               - (speeds[lane + VELOCITY_AY * LANES] + speeds[lane + SPIN_A * LANES] * rax))
            * dy)


def lane_arrays(groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed ``groups`` (G, 3), ``lane_bodies`` (G, 2, LANES) and blocks (G·FIELDS·LANES,)
    for ``groups`` groups."""
    return (np.zeros((groups, 3), np.int64), np.zeros((groups, 2, LANES), np.int64),
            np.zeros(groups * FIELDS * LANES))
