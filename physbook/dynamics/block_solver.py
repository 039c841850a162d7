"""Chapter 10: Box2D v2's block solver, a contact's two normal impulses solved together.

A contact of two points has two normal rows. Sequential impulses solves them one after the
other, and since the rows are coupled (an impulse at one point changes the velocity at the
other through both bodies' masses), each pass leaves the other point wrong; a box resting
flat on another rocks between its corners. The *block solver* (Box2D v2, after Dirk
Gregorius) solves the two rows at once. With the points' normal velocities v_n = K x + b in
terms of the new accumulated impulses x = (x₁, x₂),

    K = [[k₁₁, k₁₂], [k₁₂, k₂₂]],  k_ij = 1/m_A + 1/m_B + (r_Ai × n)(r_Aj × n)/I_A
                                            + (r_Bi × n)(r_Bj × n)/I_B,

the pair must meet the 2×2 linear complementarity problem

    x ≥ 0,   w = K x + b ≥ 0,   x₁w₁ = x₂w₂ = 0,

(w the normal velocity beyond the target). Each point is either pushing (x > 0, w = 0) or
not (x = 0, w ≥ 0): four cases, and :func:`solve_two_point_lcp` tries them in turn. K is
symmetric positive definite when the bodies can turn, so exactly one case holds. When the
two rows are nearly parallel (K almost singular: the points close together, or both on the
line of the centres), the block solve is ill-conditioned and the pass falls back to one
point after the other, as Box2D v2 does.
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.constants import SOLVER_ITERATIONS
from physbook.dynamics.contact_solver import (
    BAUMGARTE,
    NONLINEAR,
    POSITION_CORRECTIONS,
    PROJECTION,
    apply_impulse,
    land_early_bounces,
    land_late_bounces,
    prepare_contacts,
    project_positions,
    relative_velocity,
    set_targets,
    solve_friction,
    solve_positions,
    store_impulses,
    update_motion,
    warm_start,
)
from physbook.dynamics.motion import integrate_positions, integrate_velocities, update_origins
from physbook.dynamics.solvers import SequentialImpulseSolver, Setting, stage_input
from physbook.dynamics.split_impulses import push_apart, set_split_targets, solve_split
from physbook.vecmath.kernels import cross

#: The code of split impulses, after the position corrections of
#: :data:`~physbook.dynamics.contact_solver.POSITION_CORRECTIONS`.
SPLIT = len(POSITION_CORRECTIONS)
#: The position corrections :class:`BlockSolver` offers, by code.
CORRECTIONS = (*POSITION_CORRECTIONS, "split")

#: The largest condition number k₁₁²/det K for which a contact's two points are solved as a
#: block (Box2D v2's ``k_maxConditionNumber``); beyond it they are solved one by one.
MAX_CONDITION = 1000.0


@njit(refcounted=False)
def solve_two_point_lcp(k11, k12, k22, b1, b2):
    """The solution (x₁, x₂, case) of x ≥ 0, w = Kx + b ≥ 0, x·w = 0 for a symmetric 2×2 K.

    The cases, in the order they are tried: 1, both points push (w = 0, x = −K⁻¹b);
    2, only the first (x₂ = 0, x₁ = −b₁/k₁₁, w₂ = k₁₂x₁ + b₂ ≥ 0); 3, only the second;
    4, neither (x = 0, w = b ≥ 0). Returns case 0 and x = 0 when none holds, which for a
    positive definite K happens only through rounding.
    """
    det = k11 * k22 - k12 * k12
    if det > 0.0:
        x1 = (k12 * b2 - k22 * b1) / det
        x2 = (k12 * b1 - k11 * b2) / det
        if x1 >= 0.0 and x2 >= 0.0:
            return x1, x2, 1
    if k11 > 0.0:
        x1 = -b1 / k11
        if x1 >= 0.0 and k12 * x1 + b2 >= 0.0:
            return x1, 0.0, 2
    if k22 > 0.0:
        x2 = -b2 / k22
        if x2 >= 0.0 and k12 * x2 + b1 >= 0.0:
            return 0.0, x2, 3
    if b1 >= 0.0 and b2 >= 0.0:
        return 0.0, 0.0, 4
    return 0.0, 0.0, 0


@njit(refcounted=False)
def solve_velocities_block(contacts, bodies, work, block):
    """One pass of rigid contacts in Box2D v2's order: each contact's friction first, then
    its normal impulses, both points as a block when ``block`` and the contact has two
    well-conditioned points (:data:`MAX_CONDITION`), else one point after the other.

    The accumulated totals are clamped as :func:`~physbook.dynamics.contact_solver.
    solve_velocities` clamps them (λ_n ≥ 0, |λ_t| ≤ μλ_n); friction goes first because
    non-penetration matters more, so the normal impulses have the last word.
    """
    awake = bodies.awake
    pairs, point_counts, normals, frictions = (contacts.bodies, contacts.point_counts,
                                               contacts.normals, contacts.frictions)
    velocities, angular_velocities = bodies.velocities, bodies.angular_velocities
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    (arms_a, arms_b, normal_masses, tangent_masses, _, _, targets, normal_impulses,
     tangent_impulses, total_normal_impulses) = work
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        if not (awake[a] or awake[b]):
            continue
        nx = normals[m, 0]
        ny = normals[m, 1]
        count = point_counts[m]
        for k in range(count):
            solve_friction(velocities, angular_velocities, inverse_masses, inverse_inertias,
                           a, b, arms_a[m, k, 0], arms_a[m, k, 1], arms_b[m, k, 0],
                           arms_b[m, k, 1], -ny, nx, frictions[m] * normal_impulses[m, k],
                           tangent_impulses, tangent_masses, m, k, contacts.tangent_speeds[m])
        if block and count == 2:
            # k_ij = 1/m_A + 1/m_B + (r_Ai×n)(r_Aj×n)/I_A + (r_Bi×n)(r_Bj×n)/I_B.
            ca1 = cross(arms_a[m, 0, 0], arms_a[m, 0, 1], nx, ny)
            ca2 = cross(arms_a[m, 1, 0], arms_a[m, 1, 1], nx, ny)
            cb1 = cross(arms_b[m, 0, 0], arms_b[m, 0, 1], nx, ny)
            cb2 = cross(arms_b[m, 1, 0], arms_b[m, 1, 1], nx, ny)
            linear = inverse_masses[a] + inverse_masses[b]
            k11 = linear + inverse_inertias[a] * ca1 * ca1 + inverse_inertias[b] * cb1 * cb1
            k22 = linear + inverse_inertias[a] * ca2 * ca2 + inverse_inertias[b] * cb2 * cb2
            k12 = linear + inverse_inertias[a] * ca1 * ca2 + inverse_inertias[b] * cb1 * cb2
            if k11 * k11 < MAX_CONDITION * (k11 * k22 - k12 * k12):
                old1 = normal_impulses[m, 0]
                old2 = normal_impulses[m, 1]
                dvx, dvy = relative_velocity(velocities, angular_velocities, a, b,
                                             arms_a[m, 0, 0], arms_a[m, 0, 1],
                                             arms_b[m, 0, 0], arms_b[m, 0, 1])
                w1 = dvx * nx + dvy * ny - targets[m, 0]
                dvx, dvy = relative_velocity(velocities, angular_velocities, a, b,
                                             arms_a[m, 1, 0], arms_a[m, 1, 1],
                                             arms_b[m, 1, 0], arms_b[m, 1, 1])
                w2 = dvx * nx + dvy * ny - targets[m, 1]
                # w = K x + b with x the new totals: b = w_now − K·(old totals).
                x1, x2, case = solve_two_point_lcp(k11, k12, k22,
                                                   w1 - k11 * old1 - k12 * old2,
                                                   w2 - k12 * old1 - k22 * old2)
                if case == 0:
                    continue  # rounding left no case: keep the impulses as they are
                normal_impulses[m, 0] = x1
                normal_impulses[m, 1] = x2
                for k in range(2):
                    j = (x1 - old1) if k == 0 else (x2 - old2)
                    total_normal_impulses[m, k] += j
                    if j != 0.0:
                        apply_impulse(velocities, angular_velocities, inverse_masses,
                                      inverse_inertias, a, b, j * nx, j * ny,
                                      arms_a[m, k, 0], arms_a[m, k, 1], arms_b[m, k, 0],
                                      arms_b[m, k, 1])
                continue
        for k in range(count):
            j = push_apart(velocities, angular_velocities, inverse_masses, inverse_inertias,
                           a, b, nx, ny, arms_a[m, k], arms_b[m, k], targets[m, k],
                           normal_masses[m, k], normal_impulses, m, k)
            if j != 0.0:
                total_normal_impulses[m, k] += j


@njit(refcounted=False)
def block_step(contacts, bodies, work, motion, split, gravity, dt, iterations, block,
               warm_starting, restitution_threshold, position_correction, correction, slop,
               position_iterations, max_correction):
    """A step of :class:`BlockSolver`: :func:`~physbook.dynamics.solver_steps.impulse_step`'s
    stages with :func:`solve_velocities_block` for the passes and, when
    ``position_correction`` is :data:`SPLIT`, split impulses (``split``: the pseudo
    velocities (N, 2) and spins (N,), the split rows' targets and impulses (M, 2)). Returns
    the count of bodies whose state is no longer finite."""
    split_velocities, split_spins, split_targets, split_impulses = split
    prepare_contacts(contacts, bodies, work, motion, 1.0 if warm_starting else 0.0)
    integrate_velocities(bodies, gravity, dt)
    set_targets(contacts, work, bodies, restitution_threshold,
                correction if position_correction == BAUMGARTE else 0.0, slop, 1.0 / dt)
    if warm_starting:
        warm_start(contacts, bodies, work)
    splitting = position_correction == SPLIT
    if splitting:
        for i in range(split_spins.shape[0]):
            split_velocities[i, 0] = 0.0
            split_velocities[i, 1] = 0.0
            split_spins[i] = 0.0
        set_split_targets(contacts, bodies, work, correction, slop, 1.0 / dt, split_targets,
                          split_impulses)
    for _ in range(iterations):
        if splitting:
            solve_split(contacts, bodies, work, split_velocities, split_spins, split_targets,
                        split_impulses)
        solve_velocities_block(contacts, bodies, work, block)
    if position_correction == PROJECTION and correction > 0.0:
        project_positions(contacts, bodies, work, correction, slop)
    velocities, spins = bodies.velocities, bodies.angular_velocities
    if splitting:
        # The positions move by (v + v_b)·Δt; the pseudo arrays keep v meanwhile.
        for i in range(spins.shape[0]):
            for axis in range(2):
                kept = velocities[i, axis]
                velocities[i, axis] = kept + split_velocities[i, axis]
                split_velocities[i, axis] = kept
            kept = spins[i]
            spins[i] = kept + split_spins[i]
            split_spins[i] = kept
    bad = integrate_positions(bodies, dt)
    if splitting:  # ... and v_b is forgotten
        for i in range(spins.shape[0]):
            velocities[i, 0] = split_velocities[i, 0]
            velocities[i, 1] = split_velocities[i, 1]
            spins[i] = split_spins[i]
    late = land_late_bounces(contacts, bodies, work, gravity, restitution_threshold, dt)
    if position_correction == NONLINEAR:
        update_motion(bodies.centers, bodies.angles, motion)
        for _ in range(position_iterations):
            solve_positions(contacts, bodies, work, motion, correction, slop, max_correction)
        update_origins(bodies)
    if land_early_bounces(contacts, bodies, work) or late:
        update_origins(bodies)
    store_impulses(contacts, bodies, work, 1.0)
    return bad


class BlockSolver(SequentialImpulseSolver):
    """Sequential impulses as Box2D v2 runs them: rigid contacts, warm started, friction then
    normal impulses, a two-point contact's normal impulses solved as a block; with
    ``position_correction="split"``, overlap removed by split impulses (Chipmunk's). It
    solves contacts only: a world with joints needs another solver.

    Parameters
    ----------
    iterations
        Velocity passes per step (≥ 1).
    block
        Solve a two-point contact's normal impulses together (the 2×2 LCP,
        :func:`solve_two_point_lcp`); False solves them one point after the other, in the
        same order, so that the two differ only there.
    position_correction
        ``"nonlinear"`` (Box2D v2's position pass), ``"split"`` (split impulses: a pseudo
        velocity, β/Δt·max(d − slop, 0) at each point, moves the positions and is dropped),
        ``"baumgarte"``, ``"projection"`` or ``"none"``.
    **settings
        The other settings of :class:`~physbook.dynamics.solvers.SequentialImpulseSolver`
        (``warm_starting``, ``correction`` (β), ``slop``, ``position_iterations``,
        ``max_correction``, ``restitution_threshold``, ``speculative_distance``).
    """

    position_correction = Setting(lambda value, name: _check.choice(value, name, CORRECTIONS))
    block = Setting(_check.flag)

    def __init__(self, iterations: int = SOLVER_ITERATIONS, *, block: bool = True,
                 position_correction: str = "nonlinear", **settings):
        if "accumulate" in settings:
            raise TypeError("BlockSolver always clamps the accumulated impulse: "
                            "accumulate is not a setting of it")
        super().__init__(iterations, position_correction=position_correction, **settings)
        self.block = block

    def _settings(self) -> str:
        return f"block={self.block}, " + super()._settings()

    def compiled_settings(self, dt: float) -> tuple:
        """Refused: a world runs this solver's :meth:`step`, not its compiled step."""
        raise TypeError("BlockSolver has no compiled settings: a world calls its step")

    def step(self, contacts, bodies, gravity, dt: float, joints=None) -> int:
        """Move ``bodies`` through a step of ``dt`` s with ``contacts`` (see the class doc);
        ``joints`` must be None."""
        dt, joints = stage_input(contacts, bodies, gravity, dt, joints)
        if joints is not None and len(joints.kinds):
            raise ValueError("joints: BlockSolver solves contacts only; give a world with "
                             "joints a SequentialImpulseSolver or a SoftStepSolver")
        count, rows = len(bodies.kinds), len(contacts.bodies)
        work, motion, _ = self._scratch.views(rows, count, None)
        split = (np.zeros((count, 2)), np.zeros(count), np.zeros((rows, 2)),
                 np.zeros((rows, 2)))
        return block_step(contacts, bodies, work, motion, split, gravity, dt, self.iterations,
                          self.block, self.warm_starting, self.restitution_threshold,
                          CORRECTIONS.index(self.position_correction), self.correction,
                          self.slop, self.position_iterations, self.max_correction)
