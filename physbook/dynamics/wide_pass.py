"""Chapter 10's soft contact pass, eight contacts at a time (``SoftStepSolver(parallel=True)``).

No two contacts of a colour (:mod:`physbook.dynamics.colouring`) share a body whose
velocity an impulse changes, so a pass may solve several of them at once. The coloured
pass cuts each colour into *groups* of :data:`~physbook.constants.LANES` rows. For a group
it gathers the bodies' velocities and motion into *lanes*, one contact per lane, runs the
arithmetic of :func:`~physbook.dynamics.contact_solver.solve_soft` on every lane, and
scatters the velocities and impulses back. Each line of that arithmetic is the same
operation on every lane, which the compiler turns into one vector instruction (eight
float64 at once with AVX-512, four with AVX2). The operations of each contact are those of
``solve_soft``, in the same order, so the results are the same bit for bit.

numba vectorises a loop over the lanes only when every value it reads or writes sits in
one flat array at a fixed offset from the lane (two arrays might overlap, and a row of a
2-D array sits at an offset the compiler cannot see), and only when the loop's length is
not a constant (a constant 8 is unrolled before the vectoriser sees a loop). So a group's
values live in one block of ``FIELDS × LANES`` float64, field f of lane l at
``f·LANES + l``, and the loops run to the width of ``lane_rows``.

A point bounces in the pass where it first approaches faster than the restitution
threshold (see ``solve_soft``): a branch taken once per collision, which writes the
contact's work columns. The lanes only note that a point would take it; the group is then
solved again, row by row, by ``solve_soft`` itself, and nothing the lanes computed is kept.
The overflow colour, whose rows may share bodies, is always solved row by row.
"""

from __future__ import annotations

import numpy as np

from physbook._jit import njit
from physbook.constants import COLOURS, LANES
from physbook.dynamics.contact_solver import solve_soft

# The fields of a group's block. Set once per step by pack_lanes: the normal, the inverse
# masses and inertias, friction, the spring (mass scale, bias rate, impulse scale),
# restitution, the push-out cap, per point k = 0, 1 the arms, base separation and normal and
# tangent masses, and whether to solve point k (the contact has it and one of its bodies is
# awake).
(NORMAL_X, NORMAL_Y, INVERSE_MASS_A, INVERSE_INERTIA_A, INVERSE_MASS_B, INVERSE_INERTIA_B,
 FRICTION, MASS_SCALE, BIAS_RATE, IMPULSE_SCALE, RESTITUTION, SPEED_CAP) = range(12)
ARM_AX, ARM_AY, ARM_BX, ARM_BY = 12, 13, 14, 15        # point k: + 4·k
BASE_SEPARATION, NORMAL_MASS, TANGENT_MASS, ACTIVE = 20, 22, 24, 26  # point k: + k
# Gathered at every pass: the impulses and bounce targets (point k: + k), the bodies'
# velocities, the motion since prepare (Δc_B − Δc_A and both rotations); and whether a
# point would bounce.
NORMAL_IMPULSE, TANGENT_IMPULSE, TOTAL_NORMAL_IMPULSE, TARGET = 28, 30, 32, 34
VELOCITY_AX, VELOCITY_AY, SPIN_A, VELOCITY_BX, VELOCITY_BY, SPIN_B = range(36, 42)
MOVED_X, MOVED_Y, COS_A, SIN_A, COS_B, SIN_B, BOUNCES = range(42, 49)
FIELDS = 49


def group_capacity(contacts: int) -> int:
    """The most groups ``contacts`` rows can make: full ones, and a partial one at the end
    of each colour (the overflow colour included)."""
    return contacts // LANES + COLOURS + 1


@njit(refcounted=False)
def group_rows(starts, colour_count, overflow, group_starts, lane_rows, by_rows):
    """Cut each colour c (gathered rows starts[c] .. starts[c + 1] − 1) into groups of
    ``lane_rows.shape[1]`` rows: ``lane_rows`` (G, LANES) each group's rows, −1 in the
    lanes past a colour's end; ``group_starts`` where each colour's groups begin; ``by_rows``
    (G,) whether the group is of the ``overflow`` colour, solved row by row. Returns the
    group count."""
    width = lane_rows.shape[1]
    group = 0
    for c in range(colour_count):
        group_starts[c] = group
        for first in range(starts[c], starts[c + 1], width):
            for lane in range(width):
                row = first + lane
                lane_rows[group, lane] = row if row < starts[c + 1] else -1
            by_rows[group] = c == overflow
            group += 1
    group_starts[colour_count] = group
    return group


@njit(refcounted=False)
def pack_lanes(group_count, lane_rows, by_rows, lanes, contacts, bodies, work, motion, soft,
               static_soft, push_out_speed):
    """Write the step's constants of each group solved in lanes into its block of
    ``lanes`` (after :func:`~physbook.dynamics.contact_solver.prepare_contacts`); empty
    lanes and the second point of a one-point contact get zeros."""
    width = lane_rows.shape[1]
    size = FIELDS * LANES
    pairs, point_counts, normals = contacts.bodies, contacts.point_counts, contacts.normals
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    for g in range(group_count):
        if by_rows[g]:
            continue
        block = lanes[g * size:(g + 1) * size]
        block[:] = 0.0
        for lane in range(width):
            m = lane_rows[g, lane]
            if m < 0:
                continue
            at = lane
            a, b = pairs[m, 0], pairs[m, 1]
            block[at + NORMAL_X * LANES] = normals[m, 0]
            block[at + NORMAL_Y * LANES] = normals[m, 1]
            block[at + INVERSE_MASS_A * LANES] = inverse_masses[a]
            block[at + INVERSE_INERTIA_A * LANES] = inverse_inertias[a]
            block[at + INVERSE_MASS_B * LANES] = inverse_masses[b]
            block[at + INVERSE_INERTIA_B * LANES] = inverse_inertias[b]
            block[at + FRICTION * LANES] = contacts.frictions[m]
            spring = static_soft if inverse_masses[a] == 0.0 or inverse_masses[b] == 0.0 \
                else soft
            block[at + MASS_SCALE * LANES] = spring.mass_scale
            block[at + BIAS_RATE * LANES] = spring.bias_rate
            block[at + IMPULSE_SCALE * LANES] = spring.impulse_scale
            block[at + RESTITUTION * LANES] = contacts.restitutions[m]
            busiest = max(motion.overlaps[a] if inverse_masses[a] > 0.0 else 1.0,
                          motion.overlaps[b] if inverse_masses[b] > 0.0 else 1.0, 1.0)
            block[at + SPEED_CAP * LANES] = push_out_speed / busiest
            awake = bodies.awake[a] or bodies.awake[b]
            for k in range(point_counts[m]):
                block[at + (ARM_AX + 4 * k) * LANES] = work.anchors_a[m, k, 0]
                block[at + (ARM_AY + 4 * k) * LANES] = work.anchors_a[m, k, 1]
                block[at + (ARM_BX + 4 * k) * LANES] = work.anchors_b[m, k, 0]
                block[at + (ARM_BY + 4 * k) * LANES] = work.anchors_b[m, k, 1]
                block[at + (BASE_SEPARATION + k) * LANES] = work.base_separations[m, k]
                block[at + (NORMAL_MASS + k) * LANES] = work.normal_masses[m, k]
                block[at + (TANGENT_MASS + k) * LANES] = work.tangent_masses[m, k]
                block[at + (ACTIVE + k) * LANES] = 1.0 if awake else 0.0


@njit(refcounted=False)
def solve_groups(groups, lane_rows, by_rows, lanes, contacts, bodies, work, motion, gravity,
                 inverse_h, use_bias, soft, static_soft, push_out_speed,
                 restitution_threshold):
    """One pass of :func:`~physbook.dynamics.contact_solver.solve_soft` over the groups
    first .. last − 1 (``groups``), each in lanes (see the module docstring) or, if
    ``by_rows`` says so, row by row; the same results, bit for bit."""
    width = lane_rows.shape[1]  # LANES, read from the array: see the module docstring
    for g in range(groups[0], groups[1]):
        if by_rows[g] or not _solved_in_lanes(g, lane_rows, lanes, contacts, bodies, work,
                                              motion, inverse_h, use_bias,
                                              restitution_threshold):
            rows = 0
            for lane in range(width):
                rows += lane_rows[g, lane] >= 0
            solve_soft(contacts, bodies, work, motion, gravity, inverse_h, use_bias, soft,
                       static_soft, push_out_speed, restitution_threshold,
                       (lane_rows[g, 0], lane_rows[g, 0] + rows))


@njit(refcounted=False, inline=True)
def _solved_in_lanes(g, lane_rows, lanes, contacts, bodies, work, motion, inverse_h,
                     use_bias, restitution_threshold):
    """The pass over group ``g`` in lanes; False, with nothing written, if a point of it
    would bounce."""
    width = lane_rows.shape[1]
    # The group's own block: indexed by lane (from 0) and constants, an index the compiler
    # can see is never negative, so it need not check it (numba counts a negative index
    # from the end), and can vectorise.
    block = lanes[g * FIELDS * LANES:(g + 1) * FIELDS * LANES]
    pairs = contacts.bodies
    velocities, spins, centers = bodies.velocities, bodies.angular_velocities, bodies.centers
    start_centers, delta_cos, delta_sin = motion.start_centers, motion.delta_cos, \
        motion.delta_sin
    # Gather: what the pass reads of the bodies and the impulses, lane by lane.
    for lane in range(width):
        m = lane_rows[g, lane]
        at = lane
        block[at + BOUNCES * LANES] = 0.0
        if m < 0:
            continue
        a = np.uint64(pairs[m, 0])
        b = np.uint64(pairs[m, 1])
        block[at + VELOCITY_AX * LANES] = velocities[a, 0]
        block[at + VELOCITY_AY * LANES] = velocities[a, 1]
        block[at + SPIN_A * LANES] = spins[a]
        block[at + VELOCITY_BX * LANES] = velocities[b, 0]
        block[at + VELOCITY_BY * LANES] = velocities[b, 1]
        block[at + SPIN_B * LANES] = spins[b]
        block[at + MOVED_X * LANES] = ((centers[b, 0] - start_centers[b, 0])
                                       - (centers[a, 0] - start_centers[a, 0]))
        block[at + MOVED_Y * LANES] = ((centers[b, 1] - start_centers[b, 1])
                                       - (centers[a, 1] - start_centers[a, 1]))
        block[at + COS_A * LANES] = delta_cos[a]
        block[at + SIN_A * LANES] = delta_sin[a]
        block[at + COS_B * LANES] = delta_cos[b]
        block[at + SIN_B * LANES] = delta_sin[b]
        for k in range(2):
            block[at + (NORMAL_IMPULSE + k) * LANES] = work.normal_impulses[m, k]
            block[at + (TANGENT_IMPULSE + k) * LANES] = work.tangent_impulses[m, k]
            block[at + (TOTAL_NORMAL_IMPULSE + k) * LANES] = work.total_normal_impulses[m, k]
            block[at + (TARGET + k) * LANES] = work.targets[m, k]
    # Normal impulses, point by point, on every lane at once: solve_soft's lines, with its
    # branches as selects. An inactive lane computes too, and keeps what it had.
    for k in range(2):
        for lane in range(width):
            at = lane
            nx, ny, rax, ray, rbx, rby = _normal_and_arms(block, at, k)
            cos_a, sin_a = block[at + COS_A * LANES], block[at + SIN_A * LANES]
            cos_b, sin_b = block[at + COS_B * LANES], block[at + SIN_B * LANES]
            # separation_now: s = base + (Δc_B − Δc_A + R(Δθ_B)·r_B − R(Δθ_A)·r_A)·n
            turned_ax, turned_ay = cos_a * rax - sin_a * ray, sin_a * rax + cos_a * ray
            turned_bx, turned_by = cos_b * rbx - sin_b * rby, sin_b * rbx + cos_b * rby
            s = (block[at + (BASE_SEPARATION + k) * LANES]
                 + (block[at + MOVED_X * LANES] + turned_bx - turned_ax) * nx
                 + (block[at + MOVED_Y * LANES] + turned_by - turned_ay) * ny)
            mass_scale = block[at + MASS_SCALE * LANES]
            spring_bias = max(mass_scale * block[at + BIAS_RATE * LANES] * s,
                              -block[at + SPEED_CAP * LANES])
            gap = s > 0.0
            soft = use_bias and not gap
            bias = s * inverse_h if gap else (spring_bias if use_bias else 0.0)
            mass_scale = mass_scale if soft else 1.0
            impulse_scale = block[at + IMPULSE_SCALE * LANES] if soft else 0.0
            vn = _relative_speed(block, at, rax, ray, rbx, rby, nx, ny)
            accumulated = block[at + (NORMAL_IMPULSE + k) * LANES]
            j = -block[at + (NORMAL_MASS + k) * LANES] * (mass_scale * vn + bias) \
                - impulse_scale * accumulated
            total = max(accumulated + j, 0.0)
            active = block[at + (ACTIVE + k) * LANES] != 0.0
            # solve_soft's test for a bounce, without its short cuts (& for and).
            bounces = active & (j > 0.0) & (block[at + RESTITUTION * LANES] > 0.0) & (
                vn < -restitution_threshold) & (block[at + (TARGET + k) * LANES] == 0.0)
            block[at + BOUNCES * LANES] = 1.0 if bounces else block[at + BOUNCES * LANES]
            j = total - accumulated if active else 0.0
            block[at + (NORMAL_IMPULSE + k) * LANES] = total if active else accumulated
            block[at + (TOTAL_NORMAL_IMPULSE + k) * LANES] += j
            _push(block, at, j * nx, j * ny, rax, ray, rbx, rby)
    # Friction, as solve_soft's: the total λ_t − v_t/K_t clamped to ±μ·λ_n.
    for k in range(2):
        for lane in range(width):
            at = lane
            nx, ny, rax, ray, rbx, rby = _normal_and_arms(block, at, k)
            bound = block[at + FRICTION * LANES] * block[at + (NORMAL_IMPULSE + k) * LANES]
            vt = _relative_speed(block, at, rax, ray, rbx, rby, -ny, nx)
            accumulated = block[at + (TANGENT_IMPULSE + k) * LANES]
            total = min(max(accumulated - vt * block[at + (TANGENT_MASS + k) * LANES], -bound),
                        bound)
            active = block[at + (ACTIVE + k) * LANES] != 0.0
            jt = total - accumulated if active else 0.0
            block[at + (TANGENT_IMPULSE + k) * LANES] = total if active else accumulated
            _push(block, at, jt * -ny, jt * nx, rax, ray, rbx, rby)
    for lane in range(width):
        if block[lane + BOUNCES * LANES] != 0.0:
            return False
    # Scatter: the velocities and impulses of the contacts back to their bodies and rows.
    for lane in range(width):
        m = lane_rows[g, lane]
        if m < 0:
            continue
        at = lane
        a = np.uint64(pairs[m, 0])
        b = np.uint64(pairs[m, 1])
        velocities[a, 0] = block[at + VELOCITY_AX * LANES]
        velocities[a, 1] = block[at + VELOCITY_AY * LANES]
        spins[a] = block[at + SPIN_A * LANES]
        velocities[b, 0] = block[at + VELOCITY_BX * LANES]
        velocities[b, 1] = block[at + VELOCITY_BY * LANES]
        spins[b] = block[at + SPIN_B * LANES]
        for k in range(2):
            work.normal_impulses[m, k] = block[at + (NORMAL_IMPULSE + k) * LANES]
            work.tangent_impulses[m, k] = block[at + (TANGENT_IMPULSE + k) * LANES]
            work.total_normal_impulses[m, k] = block[at + (TOTAL_NORMAL_IMPULSE + k) * LANES]
    return True


@njit(refcounted=False, inline=True)
def _push(block, at, px, py, rax, ray, rbx, rby):
    """impulse_on_pair on a lane: −P on A at arm r_A, +P on B at arm r_B."""
    block[at + VELOCITY_AX * LANES] -= block[at + INVERSE_MASS_A * LANES] * px
    block[at + VELOCITY_AY * LANES] -= block[at + INVERSE_MASS_A * LANES] * py
    block[at + SPIN_A * LANES] -= block[at + INVERSE_INERTIA_A * LANES] * (rax * py - ray * px)
    block[at + VELOCITY_BX * LANES] += block[at + INVERSE_MASS_B * LANES] * px
    block[at + VELOCITY_BY * LANES] += block[at + INVERSE_MASS_B * LANES] * py
    block[at + SPIN_B * LANES] += block[at + INVERSE_INERTIA_B * LANES] * (rbx * py - rby * px)


@njit(refcounted=False, inline=True)
def _normal_and_arms(block, at, k):
    """(n_x, n_y, r_Ax, r_Ay, r_Bx, r_By) of point k of the lane at ``at``."""
    return (block[at + NORMAL_X * LANES], block[at + NORMAL_Y * LANES],
            block[at + (ARM_AX + 4 * k) * LANES], block[at + (ARM_AY + 4 * k) * LANES],
            block[at + (ARM_BX + 4 * k) * LANES], block[at + (ARM_BY + 4 * k) * LANES])


@njit(refcounted=False, inline=True)
def _relative_speed(block, at, rax, ray, rbx, rby, dx, dy):
    """(v_B + ω_B × r_B − v_A − ω_A × r_A)·d on a lane, as solve_soft sums it."""
    return (((block[at + VELOCITY_BX * LANES] - block[at + SPIN_B * LANES] * rby)
             - (block[at + VELOCITY_AX * LANES] - block[at + SPIN_A * LANES] * ray)) * dx
            + ((block[at + VELOCITY_BY * LANES] + block[at + SPIN_B * LANES] * rbx)
               - (block[at + VELOCITY_AY * LANES] + block[at + SPIN_A * LANES] * rax)) * dy)
