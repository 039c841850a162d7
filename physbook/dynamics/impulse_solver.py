"""Chapter 9: impulse resolution with restitution, friction and positional correction.

For a contact point p with normal n (from body A to body B) the relative velocity is

    v_rel = (v_B + ω_B × r_B) − (v_A + ω_A × r_A),   r_A = p − c_A,  r_B = p − c_B,

and v_n = v_rel · n < 0 means the bodies approach there. An impulse j·n on B (−j·n on A)
changes v_n by j·K with

    K = 1/m_A + 1/m_B + (r_A × n)²/I_A + (r_B × n)²/I_B,

so the impulse that makes v_n reach a target v* is j = (v* − v_n)/K. Newton's law of
restitution sets v* = −e·v_n⁻, with v_n⁻ the approach speed measured once before the solve
(and e = 0 below a threshold speed, so resting contacts do not jitter). An impulse may only
push (j ≥ 0): a pair that already separates faster than v* is left alone.

Friction acts along the tangent t = (−n_y, n_x) with an impulse that would stop the sliding
there, clamped by Coulomb's law: the friction a point gives in a step is at most μ times the
normal impulse it gives in that step. Inside the bound the point sticks (static friction),
at the bound it slides (dynamic friction).

The solver visits every contact point ``iterations`` times, each time with the velocities
left by the previous ones, and then moves the bodies apart by ``correction_fraction`` of
the penetration beyond ``slop`` (linear projection; the seed article calls the fraction
``percent``). Without that correction bodies sink into
each other: a contact is found only after the overlap has begun, and a few passes over a
stack leave it still moving down a little every step.

Each visit may only push, so a pass cannot take back what an earlier one overdid. That
makes the method simple but limited: tall stacks sink and topple, and a box that should
stick on a slope creeps. Chapter 10's sequential impulses (impulses accumulated and clamped
over the step, warm started from the previous step) remove those limits.

Symbols in formulas: m mass, I inertia, c centre of mass, v velocity, ω angular velocity,
r arm from c to p, e restitution, μ friction coefficient.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.constants import (
    CORRECTION_FRACTION,
    LINEAR_SLOP,
    RESTITUTION_THRESHOLD,
    SOLVER_ITERATIONS,
)
from physbook.vecmath.kernels import cross, point_velocity


class ContactWork(NamedTuple):
    """The solver's per-point numbers for M contact rows, (M, 2) each, two slots per row.

    ``arms_a``, ``arms_b`` (M, 2, 2) arms r from each centre of mass to the point (m);
    ``normal_masses``, ``tangent_masses`` effective masses 1/K along n and t (kg);
    ``targets`` the normal velocity v* to reach (m/s); ``normal_impulses``,
    ``tangent_impulses`` the totals given in this step (N·s).
    """

    arms_a: np.ndarray
    arms_b: np.ndarray
    normal_masses: np.ndarray
    tangent_masses: np.ndarray
    targets: np.ndarray
    normal_impulses: np.ndarray
    tangent_impulses: np.ndarray


@njit
def inverse_effective_mass(inverse_mass_a, inverse_inertia_a, arm_cross_a,
                           inverse_mass_b, inverse_inertia_b, arm_cross_b):
    """K = 1/m_A + 1/m_B + (r_A × d)²/I_A + (r_B × d)²/I_B for a direction d (1/kg).

    ``arm_cross_a`` is r_A × d, ``arm_cross_b`` is r_B × d. An impulse j along d changes
    the relative velocity along d at the point by j·K.
    """
    return (inverse_mass_a + inverse_mass_b + inverse_inertia_a * arm_cross_a * arm_cross_a
            + inverse_inertia_b * arm_cross_b * arm_cross_b)


@njit
def restitution_target(normal_velocity, restitution, threshold):
    """Newton's law of restitution: the normal velocity to reach, v* = −e·v_n (m/s).

    Only an approach faster than ``threshold`` (v_n < −threshold) bounces; slower contacts
    aim at v* = 0 so that a body resting under gravity does not hop.
    """
    if normal_velocity < -threshold:
        return -restitution * normal_velocity
    return 0.0


# The stage kernels take the contact and body columns as NamedTuples and take the columns
# out of them once, at the top: reading a field of a tuple of arrays inside a hot loop costs
# a reference count increment and decrement each time. The helpers called per contact point
# take plain arrays for the same reason.


@njit
def relative_velocity(velocities, angular_velocities, a, b, rax, ray, rbx, rby):
    """v_rel = (v_B + ω_B × r_B) − (v_A + ω_A × r_A) at a contact point (m/s)."""
    vax, vay = point_velocity(velocities[a, 0], velocities[a, 1], angular_velocities[a],
                              rax, ray)
    vbx, vby = point_velocity(velocities[b, 0], velocities[b, 1], angular_velocities[b],
                              rbx, rby)
    return vbx - vax, vby - vay


@njit
def apply_impulse(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b, px,
                  py, rax, ray, rbx, rby):
    """Apply impulse P at the contact: −P on body A at arm r_A, +P on body B at arm r_B.

    Δv_A = −P/m_A, Δω_A = −(r_A × P)/I_A; Δv_B = P/m_B, Δω_B = (r_B × P)/I_B. Bodies of
    inverse mass 0 (static, kinematic) do not change.
    """
    velocities[a, 0] -= inverse_masses[a] * px
    velocities[a, 1] -= inverse_masses[a] * py
    angular_velocities[a] -= inverse_inertias[a] * cross(rax, ray, px, py)
    velocities[b, 0] += inverse_masses[b] * px
    velocities[b, 1] += inverse_masses[b] * py
    angular_velocities[b] += inverse_inertias[b] * cross(rbx, rby, px, py)


@njit
def prepare_contacts(contacts, bodies, restitution_threshold, work):
    """Per contact point: arms, effective masses 1/K along n and t, and the target v*.

    Fills ``work`` (a :class:`ContactWork`): masses in kg (0 where K = 0), targets in m/s.
    The approach speed for restitution is measured here, once, before any impulse of the
    step.
    """
    pairs, point_counts, normals, points = (contacts.bodies, contacts.point_counts,
                                            contacts.normals, contacts.points)
    restitutions = contacts.restitutions
    centers, velocities, angular_velocities = (bodies.centers, bodies.velocities,
                                               bodies.angular_velocities)
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    arms_a, arms_b, normal_masses, tangent_masses, targets = (
        work.arms_a, work.arms_b, work.normal_masses, work.tangent_masses, work.targets)
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        nx = normals[m, 0]
        ny = normals[m, 1]
        for k in range(point_counts[m]):
            rax = points[m, k, 0] - centers[a, 0]
            ray = points[m, k, 1] - centers[a, 1]
            rbx = points[m, k, 0] - centers[b, 0]
            rby = points[m, k, 1] - centers[b, 1]
            arms_a[m, k, 0] = rax
            arms_a[m, k, 1] = ray
            arms_b[m, k, 0] = rbx
            arms_b[m, k, 1] = rby
            k_normal = inverse_effective_mass(
                inverse_masses[a], inverse_inertias[a], cross(rax, ray, nx, ny),
                inverse_masses[b], inverse_inertias[b], cross(rbx, rby, nx, ny))
            # The tangent t = (−n_y, n_x).
            k_tangent = inverse_effective_mass(
                inverse_masses[a], inverse_inertias[a], cross(rax, ray, -ny, nx),
                inverse_masses[b], inverse_inertias[b], cross(rbx, rby, -ny, nx))
            normal_masses[m, k] = 1.0 / k_normal if k_normal > 0.0 else 0.0
            tangent_masses[m, k] = 1.0 / k_tangent if k_tangent > 0.0 else 0.0
            dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray, rbx,
                                         rby)
            targets[m, k] = restitution_target(dvx * nx + dvy * ny, restitutions[m],
                                               restitution_threshold)


@njit
def solve_velocities(contacts, bodies, work, iterations):
    """Visit every contact point ``iterations`` times, applying normal and friction impulses.

    ``work.normal_impulses``/``work.tangent_impulses`` receive the totals of this step
    (N·s); the chapter 9 method starts them from zero every step.
    """
    pairs, point_counts, normals, frictions = (contacts.bodies, contacts.point_counts,
                                               contacts.normals, contacts.frictions)
    velocities, angular_velocities = bodies.velocities, bodies.angular_velocities
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    arms_a, arms_b, normal_masses, tangent_masses, targets, normal_impulses, \
        tangent_impulses = work
    normal_impulses[:] = 0.0
    tangent_impulses[:] = 0.0
    for _ in range(iterations):
        for m in range(pairs.shape[0]):
            a = pairs[m, 0]
            b = pairs[m, 1]
            nx = normals[m, 0]
            ny = normals[m, 1]
            tx = -ny
            ty = nx
            for k in range(point_counts[m]):
                rax = arms_a[m, k, 0]
                ray = arms_a[m, k, 1]
                rbx = arms_b[m, k, 0]
                rby = arms_b[m, k, 1]
                # Normal: j = (v* − v_n)/K, applied only if it pushes (j > 0); a pair
                # already separating faster than v* needs nothing.
                dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray,
                                             rbx, rby)
                normal_velocity = dvx * nx + dvy * ny
                j = (targets[m, k] - normal_velocity) * normal_masses[m, k]
                if j > 0.0:
                    apply_impulse(velocities, angular_velocities, inverse_masses,
                                  inverse_inertias, a, b, j * nx, j * ny, rax, ray, rbx, rby)
                    normal_impulses[m, k] += j
                # Friction: the impulse that stops sliding, jt = −v_t/K_t, with the step's
                # total at this point kept within Coulomb's cone |Σjt| ≤ μ·Σj.
                dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray,
                                             rbx, rby)
                tangent_velocity = dvx * tx + dvy * ty
                bound = frictions[m] * normal_impulses[m, k]
                total = tangent_impulses[m, k] - tangent_velocity * tangent_masses[m, k]
                total = min(max(total, -bound), bound)
                jt = total - tangent_impulses[m, k]
                tangent_impulses[m, k] = total
                if jt != 0.0:
                    apply_impulse(velocities, angular_velocities, inverse_masses,
                                  inverse_inertias, a, b, jt * tx, jt * ty, rax, ray, rbx, rby)


@njit
def correct_positions(contacts, bodies, fraction, slop):
    """Linear projection: move each pair apart by ``fraction`` of its depth beyond ``slop``.

    With d the pair's deepest point, the shift s = fraction·max(d − slop, 0)/(1/m_A + 1/m_B)
    along n moves A's centre by −s/m_A and B's by +s/m_B (the lighter body moves more; the
    pair's centre of mass stays). Angles do not change; the world recomputes the origins
    from the centres when it integrates positions.
    """
    pairs, point_counts, normals, depths = (contacts.bodies, contacts.point_counts,
                                            contacts.normals, contacts.depths)
    centers, inverse_masses = bodies.centers, bodies.inverse_masses
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        inverse_mass_sum = inverse_masses[a] + inverse_masses[b]
        if inverse_mass_sum <= 0.0:
            continue
        depth = depths[m, 0]
        for k in range(1, point_counts[m]):
            depth = max(depth, depths[m, k])
        shift = fraction * max(depth - slop, 0.0) / inverse_mass_sum
        if shift == 0.0:
            continue
        for axis in range(2):
            delta = shift * normals[m, axis]
            centers[a, axis] -= inverse_masses[a] * delta
            centers[b, axis] += inverse_masses[b] * delta


@njit
def store_impulses(contacts, work):
    """Keep this step's impulses in the contact table, for the next step to find."""
    contacts.normal_impulses[:] = work.normal_impulses
    contacts.tangent_impulses[:] = work.tangent_impulses


@njit
def impulse_stages(contacts, bodies, work, iterations, restitution_threshold, fraction,
                   slop):
    """The chapter 9 solver, stage by stage, in one compiled call."""
    prepare_contacts(contacts, bodies, restitution_threshold, work)
    solve_velocities(contacts, bodies, work, iterations)
    if fraction > 0.0:
        correct_positions(contacts, bodies, fraction, slop)
    store_impulses(contacts, work)


class ImpulseSolver:
    """The impulse method of chapter 9 as a world's contact solver stage.

    Parameters
    ----------
    iterations
        Passes over all contact points per step (≥ 1).
    correction_fraction
        Fraction of the penetration beyond ``slop`` removed per step by positional
        correction, in [0, 1]; 0 switches the correction off.
    slop
        Penetration (m) allowed without correction, ≥ 0; it stops resting bodies from
        jittering between touching and not touching.
    restitution_threshold
        Approach speed (m/s) below which a contact does not bounce (e = 0), ≥ 0.
    """

    def __init__(self, iterations: int = SOLVER_ITERATIONS,
                 correction_fraction: float = CORRECTION_FRACTION, slop: float = LINEAR_SLOP,
                 restitution_threshold: float = RESTITUTION_THRESHOLD):
        self.iterations = _check.positive_int(iterations, "iterations")
        self.correction_fraction = _check.non_negative_scalar(correction_fraction,
                                                              "correction_fraction")
        if self.correction_fraction > 1.0:
            raise ValueError(f"correction_fraction must be at most 1, got "
                             f"{self.correction_fraction}")
        self.slop = _check.non_negative_scalar(slop, "slop")
        self.restitution_threshold = _check.non_negative_scalar(
            restitution_threshold, "restitution_threshold")
        self._work = _work_arrays(16)
        self._views = self._work

    def __repr__(self) -> str:
        return (f"ImpulseSolver(iterations={self.iterations}, "
                f"correction_fraction={self.correction_fraction:g}, slop={self.slop:g}, "
                f"restitution_threshold={self.restitution_threshold:g})")

    def solve(self, contacts, bodies, dt: float) -> None:
        """Resolve ``contacts`` (:class:`~physbook.dynamics.contact_table.ContactColumns`)
        between ``bodies`` (:class:`~physbook.dynamics.body_table.BodyArrays`).

        Changes the velocities of the dynamic bodies, then their centres by the positional
        correction, and stores each point's impulses of the step in ``contacts``. ``dt`` is
        unused by this solver (its corrections are per step, not per second).
        """
        count = len(contacts.bodies)
        if count == 0:
            return
        if len(self._views.targets) != count:
            if len(self._work.targets) < count:
                self._work = _work_arrays(max(count, 2 * len(self._work.targets)))
            self._views = ContactWork(*(column[:count] for column in self._work))
        impulse_stages(contacts, bodies, self._views, self.iterations,
                       self.restitution_threshold, self.correction_fraction, self.slop)


def _work_arrays(capacity: int) -> ContactWork:
    return ContactWork(np.zeros((capacity, 2, 2)), np.zeros((capacity, 2, 2)),
                       *(np.zeros((capacity, 2)) for _ in range(5)))
