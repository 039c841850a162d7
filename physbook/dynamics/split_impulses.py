"""Chapter 10: split impulses, overlap removed by a velocity that is used once and forgotten.

Baumgarte's bias puts the push-out speed into the bodies' velocities, where it stays as
energy; a position pass moves positions after the velocities are done. Chipmunk (the engine
behind pymunk) and Bullet take a third way: each body gets a second, *pseudo* velocity
(v_b, ω_b), zero at the start of every step. A second set of contact rows, solved in the
same passes as the real ones, gives the pseudo velocities the push-out a point needs,

    v_b,n* = β/Δt · max(d − slop, 0),

with its own accumulated impulse λ_b ≥ 0 (so bodies that are not overlapping hold each
other up, and a box is pushed out of the ground, not into the box below). The positions
move by (v + v_b)Δt, and then v_b is dropped: the overlap is removed as Baumgarte removes
it, but no push-out speed remains in v, so nothing flies off. Unlike a position pass the
rows are linear (solved at the arms and normal of the step's start), and each pass costs
the same as a velocity pass.
"""

from __future__ import annotations

from physbook._jit import njit
from physbook.dynamics.contact_solver import apply_impulse, pair_slop, relative_velocity


@njit(refcounted=False)
def push_apart(velocities, spins, inverse_masses, inverse_inertias, a, b, nx, ny, arm_a,
               arm_b, target, normal_mass, impulses, m, k):
    """One accumulated normal row, at point k of contact m (bodies a and b, normal n, arms
    ``arm_a`` and ``arm_b``): j = (v* − v_n)·K⁻¹ with the total ``impulses[m, k]`` + j kept
    at or above 0, applied along n to ``velocities`` and ``spins``; returns the j applied
    (N·s)."""
    rax, ray, rbx, rby = arm_a[0], arm_a[1], arm_b[0], arm_b[1]
    dvx, dvy = relative_velocity(velocities, spins, a, b, rax, ray, rbx, rby)
    j = (target - (dvx * nx + dvy * ny)) * normal_mass
    total = max(impulses[m, k] + j, 0.0)
    j = total - impulses[m, k]
    impulses[m, k] = total
    if j != 0.0:
        apply_impulse(velocities, spins, inverse_masses, inverse_inertias, a, b, j * nx,
                      j * ny, rax, ray, rbx, rby)
    return j


@njit(refcounted=False)
def set_split_targets(contacts, bodies, work, bias_factor, slop, inverse_dt, split_targets,
                      split_impulses):
    """The pseudo-velocity each touching point aims for, β/Δt·max(d − slop, 0) (m/s), into
    ``split_targets`` (M, 2), and its accumulated impulse zeroed; −1 for a speculative
    point (a gap), which no split row solves."""
    pairs, point_counts, depths, awake, sizes = (contacts.bodies, contacts.point_counts,
                                                 contacts.depths, bodies.awake, bodies.sizes)
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        allowed = pair_slop(slop, sizes, a, b)
        for k in range(2):
            split_impulses[m, k] = 0.0
            split_targets[m, k] = -1.0
            if k < point_counts[m] and (awake[a] or awake[b]) and depths[m, k] >= 0.0:
                split_targets[m, k] = bias_factor * inverse_dt * max(depths[m, k] - allowed,
                                                                     0.0)


@njit(refcounted=False)
def solve_split(contacts, bodies, work, split_velocities, split_spins, split_targets,
                split_impulses):
    """One pass of the split rows: j = (v_b,n* − v_b,n)/K on the pseudo velocities, the
    total λ_b clamped at 0; the arms and effective masses are the real rows' (``work``)."""
    pairs, point_counts, normals = contacts.bodies, contacts.point_counts, contacts.normals
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    arms_a, arms_b, normal_masses = work.anchors_a, work.anchors_b, work.normal_masses
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        nx = normals[m, 0]
        ny = normals[m, 1]
        for k in range(point_counts[m]):
            if split_targets[m, k] < 0.0:
                continue
            push_apart(split_velocities, split_spins, inverse_masses, inverse_inertias, a, b,
                       nx, ny, arms_a[m, k], arms_b[m, k], split_targets[m, k],
                       normal_masses[m, k], split_impulses, m, k)
