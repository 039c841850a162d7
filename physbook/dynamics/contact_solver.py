"""Chapters 9–10: the stages of a contact solver, shared by every solver of the engine.

For a contact point p with normal n (from body A to body B) the relative velocity is

    v_rel = (v_B + ω_B × r_B) − (v_A + ω_A × r_A),   r_A = p − c_A,  r_B = p − c_B,

and v_n = v_rel · n < 0 means the bodies approach there. An impulse j·n on B (−j·n on A)
changes v_n by j·K with

    K = 1/m_A + 1/m_B + (r_A × n)²/I_A + (r_B × n)²/I_B,

so the impulse that makes v_n reach a target v* is j = (v* − v_n)/K. Friction acts along
the tangent t = (−n_y, n_x) the same way, with its total kept within Coulomb's bound
|λ_t| ≤ μ·λ_n of the same point.

The stages, in the order a step runs them (Box2D v3 names them the same way):

- :func:`prepare_contacts`: arms, effective masses, separations, the approach speed, and
  the impulses to start from (last step's, when warm starting);
- :func:`set_targets`: the normal velocity a rigid solve aims for (restitution, Baumgarte);
- :func:`warm_start`: apply the impulses the points start from;
- :func:`solve_velocities`: one Gauss–Seidel pass of rigid contacts, the increment or the
  accumulated total clamped (chapter 9 or 10);
- :func:`solve_soft`: one pass of soft contacts, spring–damper bias and speculative gaps
  (the soft step); with the bias off it *relaxes*;
- :func:`project_positions` (chapter 9) or :func:`solve_positions` (non-linear Gauss–Seidel):
  remove overlap by moving positions;
- :func:`land_late_bounces`: move apart the bodies of a touching point that bounced from
  its depth, by what leaves e² of the step's discrete energy (chapter 9);
- :func:`land_early_bounces`: move the bodies of a speculative point that bounced from its
  gap to where a bounce from the surface would have left them (chapter 13);
- :func:`store_impulses`: keep this step's impulses for the next step.

The compiled steps of :mod:`physbook.dynamics.solver_steps` (``impulse_step``,
``soft_step``) run them, with chapter 11's joints, for the solvers of
:mod:`physbook.dynamics.solvers`. A pair of bodies that are both asleep, or one asleep and
one static (``bodies.awake`` false for both), is skipped by every stage.

The stage kernels take the contact and body columns as NamedTuples and take the columns out
of them once, at the top: reading a field of a tuple of arrays inside a hot loop costs a
reference count increment and decrement each time. Helpers called per contact point take
plain arrays for the same reason.

Symbols in formulas: m mass, I inertia, c centre of mass, v velocity, ω angular velocity,
r arm from c to p, e restitution, μ friction coefficient, s separation (negative when
overlapping), h the (sub)step.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook._buffers import zeroed_columns
from physbook._jit import njit
from physbook.constants import SLOP_SIZE_FRACTION
from physbook.kinds import DYNAMIC
from physbook.vecmath.kernels import cross, point_velocity, rotate

#: Codes of ``position_correction``, as the compiled drivers receive it.
NO_CORRECTION = 0
PROJECTION = 1
BAUMGARTE = 2
NONLINEAR = 3
#: Names of the codes, indexed by code.
POSITION_CORRECTIONS = ("none", "projection", "baumgarte", "nonlinear")


class ContactWork(NamedTuple):
    """What the solver computes per contact point, for M contact rows of two slots each.

    ``anchors_a``, ``anchors_b`` (M, 2, 2) arms r from each centre of mass to the point at
    the start of the step (m); ``normal_masses``, ``tangent_masses`` (M, 2) effective masses
    1/K (kg); ``base_separations`` (M, 2) the separation minus (r_B − r_A)·n (m), so that the
    separation after the bodies moved is found without a new narrow phase;
    ``relative_velocities`` (M, 2) v_n measured before any impulse (m/s); ``targets`` (M, 2)
    the normal velocity a rigid solve aims for (m/s); ``normal_impulses``,
    ``tangent_impulses`` (M, 2) the impulses accumulated by the solve (N·s; per substep in
    the soft step); ``total_normal_impulses`` (M, 2) all normal impulse the rigid solvers
    applied in the step (their late and early bounces read it; the soft step keeps none).
    """

    anchors_a: np.ndarray
    anchors_b: np.ndarray
    normal_masses: np.ndarray
    tangent_masses: np.ndarray
    base_separations: np.ndarray
    relative_velocities: np.ndarray
    targets: np.ndarray
    normal_impulses: np.ndarray
    tangent_impulses: np.ndarray
    total_normal_impulses: np.ndarray


class BodyWork(NamedTuple):
    """What the solver keeps per body: where it was when the contacts were prepared,
    ``start_centers`` (N, 2) and ``start_angles`` (N,); its rotation since then as
    ``delta_cos``, ``delta_sin`` (N,); ``overlaps`` (N,), its contacts that overlapped
    then, each weighed by how much a push-out moves it (:func:`count_overlaps`), which
    share out its push-out speed; ``moved`` (N, 2), how far its
    centre has moved since then (m), as of the last :func:`update_motion` (zeroed by
    :func:`start_motion`); and ``free_velocities`` (N, 2), ``free_spins`` (N,), its velocity
    and angular velocity as the soft step's last substep integrated them, before any
    contact impulse (see :func:`~physbook.dynamics.motion.integrate_and_repeat`)."""

    start_centers: np.ndarray
    start_angles: np.ndarray
    delta_cos: np.ndarray
    delta_sin: np.ndarray
    overlaps: np.ndarray
    moved: np.ndarray
    free_velocities: np.ndarray
    free_spins: np.ndarray


class Softness(NamedTuple):
    """The coefficients of a soft constraint for one (sub)step: see :func:`softness`."""

    bias_rate: float
    mass_scale: float
    impulse_scale: float


def work_arrays(contacts: int) -> ContactWork:
    """Zeroed :class:`ContactWork` for ``contacts`` rows."""
    return ContactWork(*zeroed_columns([((contacts, 2, 2), np.float64)] * 2
                                       + [((contacts, 2), np.float64)] * 8))


def body_work_arrays(bodies: int) -> BodyWork:
    """Zeroed :class:`BodyWork` for ``bodies`` rows."""
    n = bodies
    return BodyWork(*zeroed_columns([((n, 2), np.float64), ((n,), np.float64),
                                     ((n,), np.float64), ((n,), np.float64),
                                     ((n,), np.float64), ((n, 2), np.float64),
                                     ((n, 2), np.float64), ((n,), np.float64)]))


# --- the physics of one point ---------------------------------------------------------


@njit(refcounted=False)
def inverse_effective_mass(inverse_mass_a, inverse_inertia_a, arm_cross_a,
                           inverse_mass_b, inverse_inertia_b, arm_cross_b):
    """K = 1/m_A + 1/m_B + (r_A × d)²/I_A + (r_B × d)²/I_B for a direction d (1/kg).

    ``arm_cross_a`` is r_A × d, ``arm_cross_b`` is r_B × d. An impulse j along d changes
    the relative velocity along d at the point by j·K.
    """
    return (inverse_mass_a + inverse_mass_b + inverse_inertia_a * arm_cross_a * arm_cross_a
            + inverse_inertia_b * arm_cross_b * arm_cross_b)


@njit(refcounted=False)
def restitution_target(normal_velocity, restitution, threshold):
    """Newton's law of restitution: the normal velocity to reach, v* = −e·v_n (m/s).

    Only an approach faster than ``threshold`` (v_n < −threshold) bounces; slower contacts
    aim at v* = 0 so that a body resting under gravity does not hop.
    """
    if normal_velocity < -threshold:
        return -restitution * normal_velocity
    return 0.0


@njit(refcounted=False)
def relative_velocity(velocities, angular_velocities, a, b, rax, ray, rbx, rby):
    """v_rel = (v_B + ω_B × r_B) − (v_A + ω_A × r_A) at a contact point (m/s)."""
    vax, vay = point_velocity(velocities[a, 0], velocities[a, 1], angular_velocities[a],
                              rax, ray)
    vbx, vby = point_velocity(velocities[b, 0], velocities[b, 1], angular_velocities[b],
                              rbx, rby)
    return vbx - vax, vby - vay


@njit(refcounted=False)
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


@njit(refcounted=False, inline=True)
def impulse_on_pair(vax, vay, wa, vbx, vby, wb, inverse_mass_a, inverse_inertia_a,
                    inverse_mass_b, inverse_inertia_b, px, py, rax, ray, rbx, rby):
    """:func:`apply_impulse` to velocities held in locals: (v_A, ω_A, v_B, ω_B) after the
    impulse P, −P on A at arm r_A and +P on B at arm r_B."""
    return (vax - inverse_mass_a * px, vay - inverse_mass_a * py,
            wa - inverse_inertia_a * cross(rax, ray, px, py),
            vbx + inverse_mass_b * px, vby + inverse_mass_b * py,
            wb + inverse_inertia_b * cross(rbx, rby, px, py))


@njit(refcounted=False)
def separation_now(base_separation, nx, ny, rax, ray, rbx, rby, a, b, centers, start_centers,
                   delta_cos, delta_sin):
    """The separation of a point after its bodies moved since the contacts were prepared (m).

    With the normal held fixed, s = s₀ + ((c_B + R(Δθ_B)·r_B) − (c_A + R(Δθ_A)·r_A) −
    (c_B₀ + r_B − c_A₀ − r_A))·n, written as base + (Δc_B − Δc_A + R(Δθ_B)·r_B −
    R(Δθ_A)·r_A)·n with base = s₀ − (r_B − r_A)·n. The last three arrays are columns of a
    :class:`BodyWork`.
    """
    turned_ax, turned_ay = rotate(delta_cos[a], delta_sin[a], rax, ray)
    turned_bx, turned_by = rotate(delta_cos[b], delta_sin[b], rbx, rby)
    dx = (centers[b, 0] - start_centers[b, 0]) - (centers[a, 0] - start_centers[a, 0])
    dy = (centers[b, 1] - start_centers[b, 1]) - (centers[a, 1] - start_centers[a, 1])
    return base_separation + (dx + turned_bx - turned_ax) * nx + (dy + turned_by - turned_ay) * ny


@njit(refcounted=False)
def shift_positions(centers, angles, inverse_masses, inverse_inertias, a, b, px, py, rax, ray,
                    rbx, rby):
    """Apply the pseudo-impulse P = (px, py) to positions at arms r_A, r_B: B moves by
    Δc = P/m_B, Δθ = (r_B × P)/I_B, and A by the opposite (a position pass's move)."""
    centers[a, 0] -= inverse_masses[a] * px
    centers[a, 1] -= inverse_masses[a] * py
    angles[a] -= inverse_inertias[a] * cross(rax, ray, px, py)
    centers[b, 0] += inverse_masses[b] * px
    centers[b, 1] += inverse_masses[b] * py
    angles[b] += inverse_inertias[b] * cross(rbx, rby, px, py)


# --- the stages -------------------------------------------------------------------------


@njit(refcounted=False)
def every_row(contacts):
    """The span (first, last) of every row of ``contacts``, typed as a group's span is:
    given a literal 0, numba would compile each kernel it is passed to once more."""
    return np.int64(0), np.int64(contacts.bodies.shape[0])


@njit(refcounted=False)
def prepare_contacts(contacts, bodies, work, motion, warm_scale):
    """Per contact point: arms, effective masses 1/K along n and t, the base separation,
    the approach speed v_n, and the impulses to start from.

    The impulses start at ``warm_scale`` times the ones the contact table carries from the
    last step (0: from nothing; 1: warm starting; 1/substeps: warm starting the per-substep
    impulses of the soft step). Records every body's centre and angle in ``motion``, so that
    later stages can tell how far the bodies moved, and how many overlapping contacts each
    body has. The three parts are :func:`start_motion`, :func:`count_overlaps` and
    :func:`prepare_rows`.
    """
    start_motion(bodies, motion)
    count_overlaps(contacts, bodies, motion)
    # Every row as a span, as a group of rows is passed: one compilation serves both.
    prepare_rows(contacts, bodies, work, warm_scale, every_row(contacts))


@njit(refcounted=False)
def start_motion(bodies, motion):
    """Record every body's centre and angle as the start of the step's motion: no motion
    yet (Δc = 0, cos Δθ = 1, sin Δθ = 0), and no overlapping contact counted."""
    centers, angles = bodies.centers, bodies.angles
    start_centers, start_angles, delta_cos, delta_sin, overlaps, moved, _, _ = motion
    for i in range(angles.shape[0]):
        start_centers[i, 0] = centers[i, 0]
        start_centers[i, 1] = centers[i, 1]
        start_angles[i] = angles[i]
        delta_cos[i] = 1.0
        delta_sin[i] = 0.0
        overlaps[i] = 0.0
        moved[i, 0] = 0.0
        moved[i, 1] = 0.0


@njit(refcounted=False)
def count_overlaps(contacts, bodies, motion):
    """Count at each body the contacts that overlap (a point deeper than 0) and that a stage
    solves (a body awake), each weighed by how much pushing it out moves the body:
    ``motion.overlaps``, which shares out the push-out speed (:func:`solve_soft`).

    A push-out that moves bodies a and b apart at speed v moves a at about
    v·(1/m_a)/(1/m_a + 1/m_b) (less any turn), a's share of the pair's inverse mass. The
    contact counts at a as w_a = min(1, m_b/m_a): in full when b is at least as heavy as a
    (or static), in proportion to the masses when b is lighter. A static or kinematic
    body (1/m = 0) counts nothing. Since w_a is never below a's share, a body whose
    contacts are each pushed out at most at ``push_out_speed`` / its count moves at most at
    ``push_out_speed`` from all of them together; and a heavy body counts its light
    neighbours as little as they move it, so it does not slow their push-out: to them it is
    the ground. Between equal masses w = 1, every overlap counting once.
    """
    pairs, point_counts, depths = contacts.bodies, contacts.point_counts, contacts.depths
    awake, overlaps, inverse_masses = bodies.awake, motion.overlaps, bodies.inverse_masses
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        if not (awake[a] or awake[b]):
            continue
        if depths[m, 0] > 0.0 or (point_counts[m] > 1 and depths[m, 1] > 0.0):
            # w_a = min(1, m_b/m_a) = min(1, (1/m_a)/(1/m_b)), and w_b alike.
            inverse_mass_a, inverse_mass_b = inverse_masses[a], inverse_masses[b]
            if inverse_mass_a >= inverse_mass_b:
                if inverse_mass_a > 0.0:
                    overlaps[a] += 1.0
                    overlaps[b] += inverse_mass_b / inverse_mass_a
            else:
                overlaps[a] += inverse_mass_a / inverse_mass_b
                overlaps[b] += 1.0


@njit(refcounted=False)
def prepare_rows(contacts, bodies, work, warm_scale, span=None):
    """The per-point part of :func:`prepare_contacts`, for every row or, given a ``span``
    (first, last), for rows first .. last − 1."""
    pairs, point_counts, normals, points, depths = (
        contacts.bodies, contacts.point_counts, contacts.normals, contacts.points,
        contacts.depths)
    carried_normal, carried_tangent = contacts.normal_impulses, contacts.tangent_impulses
    centers, velocities, angular_velocities = (bodies.centers, bodies.velocities,
                                               bodies.angular_velocities)
    inverse_masses, inverse_inertias, awake = (bodies.inverse_masses, bodies.inverse_inertias,
                                               bodies.awake)
    (arms_a, arms_b, normal_masses, tangent_masses, base_separations, relative_velocities,
     targets, normal_impulses, tangent_impulses, total_normal_impulses) = work
    first, last = 0, pairs.shape[0]
    if span is not None:
        first, last = span
    for m in range(first, last):
        a = pairs[m, 0]
        b = pairs[m, 1]
        nx = normals[m, 0]
        ny = normals[m, 1]
        for k in range(2):
            # Unused slots take part in no sum, but keep them clean for store_impulses.
            if warm_scale == 0.0:
                normal_impulses[m, k] = 0.0
                tangent_impulses[m, k] = 0.0
            else:
                normal_impulses[m, k] = warm_scale * carried_normal[m, k]
                tangent_impulses[m, k] = warm_scale * carried_tangent[m, k]
            total_normal_impulses[m, k] = 0.0
            targets[m, k] = 0.0
        if not (awake[a] or awake[b]):
            # Both bodies asleep (or one asleep, one static): no stage solves this pair,
            # and it keeps the impulses it carries for when its island wakes.
            continue
        for k in range(point_counts[m]):
            rax = points[m, k, 0] - centers[a, 0]
            ray = points[m, k, 1] - centers[a, 1]
            rbx = points[m, k, 0] - centers[b, 0]
            rby = points[m, k, 1] - centers[b, 1]
            arms_a[m, k, 0] = rax
            arms_a[m, k, 1] = ray
            arms_b[m, k, 0] = rbx
            arms_b[m, k, 1] = rby
            normal_masses[m, k], tangent_masses[m, k] = point_masses(
                inverse_masses[a], inverse_inertias[a], inverse_masses[b],
                inverse_inertias[b], rax, ray, rbx, rby, nx, ny)
            # The point is midway between the surfaces, so s = −depth there.
            base_separations[m, k] = base_separation(depths[m, k], rax, ray, rbx, rby, nx, ny)
            dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray, rbx,
                                         rby)
            relative_velocities[m, k] = dvx * nx + dvy * ny


@njit(refcounted=False, inline=True)
def point_masses(inverse_mass_a, inverse_inertia_a, inverse_mass_b, inverse_inertia_b, rax,
                 ray, rbx, rby, nx, ny):
    """The effective masses 1/K of a point along the normal n and the tangent
    t = (−n_y, n_x) (kg; 0 where K = 0, between two bodies of infinite mass)."""
    k_normal = inverse_effective_mass(
        inverse_mass_a, inverse_inertia_a, cross(rax, ray, nx, ny),
        inverse_mass_b, inverse_inertia_b, cross(rbx, rby, nx, ny))
    k_tangent = inverse_effective_mass(
        inverse_mass_a, inverse_inertia_a, cross(rax, ray, -ny, nx),
        inverse_mass_b, inverse_inertia_b, cross(rbx, rby, -ny, nx))
    return (1.0 / k_normal if k_normal > 0.0 else 0.0,
            1.0 / k_tangent if k_tangent > 0.0 else 0.0)


@njit(refcounted=False, inline=True)
def base_separation(depth, rax, ray, rbx, rby, nx, ny):
    """s₀ − (r_B − r_A)·n for a point at ``depth`` (m), with s₀ = −depth: the point lies
    midway between the surfaces. :func:`separation_now` adds the bodies' motion to it."""
    return -depth - ((rbx - rax) * nx + (rby - ray) * ny)


@njit(refcounted=False)
def pair_slop(slop, sizes, a, b):
    """The slop of a contact between bodies a and b (m): ``slop``, but at most
    SLOP_SIZE_FRACTION of the thinner body's size, so small bodies are not left buried."""
    return min(slop, SLOP_SIZE_FRACTION * min(sizes[a], sizes[b]))


@njit(refcounted=False)
def solve_friction(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b,
                   rax, ray, rbx, rby, tx, ty, bound, tangent_impulses, tangent_masses, m, k,
                   tangent_speed=0.0):
    """Friction at point k of contact m: the impulse that brings the sliding speed along
    the tangent (tx, ty) to the contact's ``tangent_speed`` v_t* (m/s; 0 but on a conveyor,
    chapter 16), −(v_t − v_t*)/K_t, accumulated and clamped to Coulomb's bound
    |λ_t| ≤ μ·λ_n."""
    dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray, rbx, rby)
    total = tangent_impulses[m, k] - ((dvx * tx + dvy * ty) - tangent_speed) \
        * tangent_masses[m, k]
    total = min(max(total, -bound), bound)
    jt = total - tangent_impulses[m, k]
    tangent_impulses[m, k] = total
    if jt != 0.0:
        apply_impulse(velocities, angular_velocities, inverse_masses, inverse_inertias,
                      a, b, jt * tx, jt * ty, rax, ray, rbx, rby)


@njit(refcounted=False)
def set_targets(contacts, work, bodies, restitution_threshold, bias_factor, slop, inverse_dt):
    """The normal velocity each point of a rigid solve aims for (m/s).

    Runs after gravity and forces have changed the velocities (:func:`prepare_contacts`
    ran before): v_n⁻ below is the approach speed prepare measured, before this step's
    forces; v_n the speed now, with them.

    A touching point (depth d ≥ 0) collided before the step began, so it bounces from the
    speed it hit with: it aims for v* = max(−e·v_n⁻ if v_n⁻ < −threshold else 0,
    β/dt·max(d − slop, 0)), the bounce of Newton's law, or Baumgarte's push-out speed that
    removes the fraction β of the depth beyond the slop in one step, whichever is larger
    (β = ``bias_factor``; 0 turns it off). Bouncing from v_n instead would add this step's
    g·dt to every bounce: with e = 1 a ball would climb by about 2·g·dt/v_n of its height
    per bounce. The slop is :func:`pair_slop` of the pair's body sizes.

    A point with a gap s = −d > 0 is *speculative* (chapter 13): it aims for v* = −s/dt, so
    the solver removes only the approach that would close the gap within the step, and
    nothing from a slower one. A point that will close the gap within the step
    (v_n·dt < −s) while approaching faster than the threshold bounces at once, v* = −e·v_n,
    in the pass, so that the collision passes down a row of touching bodies as a touching
    one does (a Newton's cradle); :func:`land_early_bounces` then moves its bodies to where
    a bounce from the surface would have left them. It collides during the step, after
    gravity has acted on it, so its bounce uses v_n.
    """
    pairs, point_counts, normals, depths, restitutions = (
        contacts.bodies, contacts.point_counts, contacts.normals, contacts.depths,
        contacts.restitutions)
    velocities, angular_velocities, sizes, awake = (
        bodies.velocities, bodies.angular_velocities, bodies.sizes, bodies.awake)
    arms_a, arms_b, relative_velocities, targets = (work.anchors_a, work.anchors_b,
                                                    work.relative_velocities, work.targets)
    for m in range(point_counts.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        if not (awake[a] or awake[b]):
            continue  # no stage solves it (see prepare_contacts)
        allowed = pair_slop(slop, sizes, a, b)
        for k in range(point_counts[m]):
            gap = -depths[m, k]
            if gap > 0.0:
                dvx, dvy = relative_velocity(velocities, angular_velocities, a, b,
                                             arms_a[m, k, 0], arms_a[m, k, 1],
                                             arms_b[m, k, 0], arms_b[m, k, 1])
                approach = dvx * normals[m, 0] + dvy * normals[m, 1]
                bounce = restitution_target(approach, restitutions[m], restitution_threshold)
                closes = approach + gap * inverse_dt < 0.0
                targets[m, k] = bounce if closes and bounce > 0.0 else -gap * inverse_dt
                continue
            bounce = restitution_target(relative_velocities[m, k], restitutions[m],
                                        restitution_threshold)
            push = bias_factor * inverse_dt * max(depths[m, k] - allowed, 0.0)
            targets[m, k] = max(bounce, push)


@njit(refcounted=False)
def warm_start(contacts, bodies, work, span=None):
    """Apply the impulses each point starts from: P = λ_n·n + λ_t·t; given a ``span``
    (first, last), to rows first .. last − 1 only (a group of rows,
    :mod:`physbook.dynamics.colouring`)."""
    awake = bodies.awake
    pairs, point_counts, normals = contacts.bodies, contacts.point_counts, contacts.normals
    velocities, angular_velocities = bodies.velocities, bodies.angular_velocities
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    arms_a, arms_b = work.anchors_a, work.anchors_b
    normal_impulses, tangent_impulses = work.normal_impulses, work.tangent_impulses
    total_normal_impulses = work.total_normal_impulses
    first, last = 0, pairs.shape[0]
    if span is not None:
        first, last = span
    for m in range(first, last):
        # Unsigned, the body indices are used as they are: numba would check a signed
        # index for being negative (to count it from the end) at every use.
        a = np.uint64(pairs[m, 0])
        b = np.uint64(pairs[m, 1])
        if not (awake[a] or awake[b]):
            continue
        nx = normals[m, 0]
        ny = normals[m, 1]
        vax, vay, wa = velocities[a, 0], velocities[a, 1], angular_velocities[a]
        vbx, vby, wb = velocities[b, 0], velocities[b, 1], angular_velocities[b]
        for k in range(point_counts[m]):
            jn = normal_impulses[m, k]
            jt = tangent_impulses[m, k]
            total_normal_impulses[m, k] += jn
            vax, vay, wa, vbx, vby, wb = impulse_on_pair(
                vax, vay, wa, vbx, vby, wb, inverse_masses[a], inverse_inertias[a],
                inverse_masses[b], inverse_inertias[b], jn * nx - jt * ny, jn * ny + jt * nx,
                arms_a[m, k, 0], arms_a[m, k, 1], arms_b[m, k, 0], arms_b[m, k, 1])
        velocities[a, 0], velocities[a, 1], angular_velocities[a] = vax, vay, wa
        velocities[b, 0], velocities[b, 1], angular_velocities[b] = vbx, vby, wb


@njit(refcounted=False)
def solve_velocities(contacts, bodies, work, accumulate):
    """One pass over every contact point: normal then friction impulses, rigid contacts.

    Normal: j = (v* − v_n)/K. With ``accumulate`` (chapter 10) the *total* λ_n + j is
    clamped at 0, so a later pass may take back part of what an earlier one gave; without
    (chapter 9) each increment is clamped, j ≥ 0, and a pass may only push. Friction: the
    total λ_t − v_t/K_t is clamped to ±μ·λ_n of the same point in both cases.
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
        tx = -ny
        ty = nx
        for k in range(point_counts[m]):
            rax = arms_a[m, k, 0]
            ray = arms_a[m, k, 1]
            rbx = arms_b[m, k, 0]
            rby = arms_b[m, k, 1]
            dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray, rbx,
                                         rby)
            j = (targets[m, k] - (dvx * nx + dvy * ny)) * normal_masses[m, k]
            if accumulate:
                total = max(normal_impulses[m, k] + j, 0.0)
                j = total - normal_impulses[m, k]
                normal_impulses[m, k] = total
            elif j > 0.0:
                normal_impulses[m, k] += j
            else:
                j = 0.0
            if j != 0.0:
                total_normal_impulses[m, k] += j
                apply_impulse(velocities, angular_velocities, inverse_masses,
                              inverse_inertias, a, b, j * nx, j * ny, rax, ray, rbx, rby)
            solve_friction(velocities, angular_velocities, inverse_masses, inverse_inertias,
                           a, b, rax, ray, rbx, rby, tx, ty, frictions[m] * normal_impulses[m, k],
                           tangent_impulses, tangent_masses, m, k, contacts.tangent_speeds[m])


def softness(hertz: float, damping_ratio: float, h: float) -> Softness:
    """The soft constraint of a spring–damper of frequency f and damping ratio ζ, stepped
    implicitly with step h.

    With ω = 2πf, a₁ = 2ζ + hω, a₂ = hω·a₁ and a₃ = 1/(1 + a₂), an impulse
    Δλ = −m·(mass_scale·v_n + bias_rate·mass_scale·s) − impulse_scale·λ makes the contact
    behave as a spring of stiffness m·ω² and damper 2ζmω: bias_rate = ω/a₁,
    mass_scale = a₂·a₃, impulse_scale = a₃. f = 0 gives a rigid constraint.
    """
    if hertz == 0.0:
        return Softness(0.0, 1.0, 0.0)
    omega = 2.0 * math.pi * hertz
    a1 = 2.0 * damping_ratio + h * omega
    a2 = h * omega * a1
    a3 = 1.0 / (1.0 + a2)
    return Softness(omega / a1, a2 * a3, a3)


@njit(refcounted=False)
def gravity_along_normal(gravity, bodies, a, b, nx, ny):
    """(g_B − g_A)·n: how fast gravity changes the normal velocity v_n of a point between
    bodies a and b (m/s²); each dynamic, awake body falls at ``gravity`` times its scale."""
    kinds, scales, awake = bodies.kinds, bodies.gravity_scales, bodies.awake
    gx = 0.0
    gy = 0.0
    if kinds[b] == DYNAMIC and awake[b]:
        gx += gravity[0] * scales[b]
        gy += gravity[1] * scales[b]
    if kinds[a] == DYNAMIC and awake[a]:
        gx -= gravity[0] * scales[a]
        gy -= gravity[1] * scales[a]
    return gx * nx + gy * ny


@njit(refcounted=False)
def bounce_speed(approach, gap, restitution, pull, inverse_h):
    """The speed w (m/s) a point leaves at when it bounces at the start of a step of h s,
    ``gap`` m from the surface (negative: that deep in it), having arrived at ``approach``
    m/s (> 0).

    ``pull`` = g_n·h is what a constant pull (gravity) adds to the approach speed in one
    step (m/s). Symplectic Euler then keeps Q = ½·u_k·u_{k+1} + g_n·x_k the same from step
    to step, exactly (u_k the velocity that brought the point to height x_k): it is the
    discrete energy per unit mass, and the apex it reaches is Q/g_n. Before the bounce
    Q = ½·U² + ½·g_n·h·U + g_n·s. Newton's law leaves e² of it, and w solves
    ½·w² + ½·g_n·h·w + g_n·s = e²·Q. With e = 1 that is w = U, the step's motion mirrored
    in time; with no pull it is w = e·U. A point that starts inside (s < 0) leaves a little
    faster than e·U, to make up the depth it starts from. If e²·Q cannot lift the point to
    its gap (no real root), it leaves at e·U.
    """
    if pull == 0.0 or restitution == 0.0:
        return restitution * approach
    lift = pull * gap * inverse_h  # g_n·s
    kept = restitution * restitution * (0.5 * approach * approach + 0.5 * pull * approach
                                        + lift) - lift
    radicand = 0.25 * pull * pull + 2.0 * kept
    if radicand < 0.0:
        return restitution * approach
    return -0.5 * pull + math.sqrt(radicand)


@njit(refcounted=False)
def solve_soft(contacts, bodies, work, motion, gravity, inverse_h, use_bias, soft,
               static_soft, push_out_speed, restitution_threshold, span=None):
    """One pass of soft contacts (the soft step); with ``use_bias`` False it *relaxes*.
    Given a ``span`` (first, last), the pass takes rows first .. last − 1 only (a group of
    rows, :mod:`physbook.dynamics.colouring`).

    The separation s of each point is found from how far its bodies moved since prepare.
    A gap (s > 0) is a speculative contact: it may close by the end of the substep, bias
    s/h. An overlap is pushed out by a spring–damper (``soft``, or ``static_soft`` when a
    body has infinite mass), at most at ``push_out_speed`` (m/s) divided by the larger of
    its two bodies' counts of overlapping contacts (``motion.overlaps``, at least 1).
    Pushes along a chain of overlaps add up, so n boxes created at one spot would
    otherwise fly apart at n times the speed (Box2D v3, which caps each contact at 3 m/s
    unshared, launches 100 unit boxes created at one point at 84 m/s; shared, none passes
    0.5 m/s). Each body counts a contact by how much its push-out moves it,
    min(1, m_other/m_self) (:func:`count_overlaps`): no body is pushed out faster than
    ``push_out_speed`` by all its contacts together, and a heavy body, which counts its
    light neighbours by their mass, leaves their push-out unshared, as the ground does.
    Counted once each, the overlaps of the 4 000 kg walls of a tumbler with some 100
    boxes of 62.5 g would push each box out at 3/100 m/s, too slow to hold the pile up:
    the deepest box then sits 0.24 m into a wall, for 0.25 m boxes
    (:func:`~physbook.scenes.pressed.tumbler`, median over 10 s; 13 mm with the masses
    counted, Box2D v3 53 mm). Relaxing solves the same contacts rigidly with no bias, to
    take out the velocity the push-out added. The total normal impulse is clamped at 0;
    friction as in :func:`solve_velocities`.

    Restitution: a point's first impulse of the step, when it approaches faster than
    ``restitution_threshold``, is a bounce: it aims for v_n = −e·v_n at once (once per
    step: ``work.targets`` keeps the speed it left at), with an impulse kept out of the
    accumulated one so that no later pass takes it back and no later warm start repeats
    it. Bouncing inside the
    pass, in the order of the contacts, lets a collision pass on down a row of touching
    bodies within the pass, as a Newton's cradle needs (applied after the pass, every
    contact of the row would bounce from the shared velocity the pass left).

    The bounce's speed is :func:`bounce_speed`'s, which keeps e² of the substep's discrete
    energy under ``gravity`` (m/s², times each body's gravity scale). The solving pass runs
    after this substep's gravity, so the approach it bounces from is v_n less what gravity
    added; the relaxing pass runs after the positions moved, so it bounces from v_n and
    subtracts what the next substep's gravity will add. With −e·v_n in both, a ball with
    e = 1 would lose about 2·g·h/|v_n| of its height per bounce.

    The two bodies' velocities are read into locals once per contact, carried through its
    points' normal and friction impulses, and written back after them (as Box2D v3 does):
    kept in the arrays, they would be stored and read back around every impulse, since the
    compiler cannot tell that no other array shares their memory.
    """
    awake = bodies.awake
    pairs, point_counts, normals, frictions, restitutions = (
        contacts.bodies, contacts.point_counts, contacts.normals, contacts.frictions,
        contacts.restitutions)
    tangent_speeds = contacts.tangent_speeds
    centers, velocities, angular_velocities = (bodies.centers, bodies.velocities,
                                               bodies.angular_velocities)
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    (arms_a, arms_b, normal_masses, tangent_masses, base_separations, relative_velocities,
     targets, normal_impulses, tangent_impulses, _) = work
    start_centers, delta_cos, delta_sin = motion.start_centers, motion.delta_cos, \
        motion.delta_sin
    overlaps, free_velocities, free_spins = motion.overlaps, motion.free_velocities, \
        motion.free_spins
    first, last = 0, pairs.shape[0]
    if span is not None:
        first, last = span
    for m in range(first, last):
        # Unsigned: numba checks a signed index for being negative at every use.
        a = np.uint64(pairs[m, 0])
        b = np.uint64(pairs[m, 1])
        if not (awake[a] or awake[b]):
            continue
        nx = normals[m, 0]
        ny = normals[m, 1]
        inverse_mass_a, inverse_inertia_a = inverse_masses[a], inverse_inertias[a]
        inverse_mass_b, inverse_inertia_b = inverse_masses[b], inverse_inertias[b]
        spring = static_soft if inverse_mass_a == 0.0 or inverse_mass_b == 0.0 else soft
        speed_cap = push_out_speed / max(overlaps[a], overlaps[b], 1.0)
        e = restitutions[m]
        vax, vay, wa = velocities[a, 0], velocities[a, 1], angular_velocities[a]
        vbx, vby, wb = velocities[b, 0], velocities[b, 1], angular_velocities[b]
        for k in range(point_counts[m]):
            rax = arms_a[m, k, 0]
            ray = arms_a[m, k, 1]
            rbx = arms_b[m, k, 0]
            rby = arms_b[m, k, 1]
            s = separation_now(base_separations[m, k], nx, ny, rax, ray, rbx, rby, a, b,
                               centers, start_centers, delta_cos, delta_sin)
            bias = 0.0
            mass_scale = 1.0
            impulse_scale = 0.0
            if s > 0.0:
                bias = s * inverse_h
            elif use_bias:
                bias = max(spring.mass_scale * spring.bias_rate * s, -speed_cap)
                mass_scale = spring.mass_scale
                impulse_scale = spring.impulse_scale
            point_ax, point_ay = point_velocity(vax, vay, wa, rax, ray)
            point_bx, point_by = point_velocity(vbx, vby, wb, rbx, rby)
            vn = (point_bx - point_ax) * nx + (point_by - point_ay) * ny
            j = -normal_masses[m, k] * (mass_scale * vn + bias) - impulse_scale * \
                normal_impulses[m, k]
            if j > 0.0 and e > 0.0 and vn < -restitution_threshold and targets[m, k] == 0.0:
                # A collision: the point approaches fast, and has not bounced yet in this
                # step. It bounces now, v_n → −e·v_n. The bounce is not added to the
                # accumulated impulse: no later pass may take it back, and the soft
                # rows, which relax their accumulated impulse, do not pull it back.
                relative_velocities[m, k] = vn
                # What gravity adds to v_n in one substep (worked out only here: bounces
                # are rare, and this reads four columns of both bodies).
                gravity_change = gravity_along_normal(gravity, bodies, a, b, nx, ny) / inverse_h
                if use_bias:
                    targets[m, k] = bounce_speed(gravity_change - vn, s, e,
                                                 -gravity_change, inverse_h)
                else:
                    targets[m, k] = bounce_speed(-vn, s, e, -gravity_change,
                                                 inverse_h) - gravity_change
                j = normal_masses[m, k] * (targets[m, k] - vn)
                # Nor may the next substep's warm start repeat it: the bounce's change of
                # velocity goes into the free velocities too (see integrate_and_repeat).
                apply_impulse(free_velocities, free_spins, inverse_masses, inverse_inertias,
                              a, b, j * nx, j * ny, rax, ray, rbx, rby)
            else:
                total = max(normal_impulses[m, k] + j, 0.0)
                j = total - normal_impulses[m, k]
                normal_impulses[m, k] = total
            vax, vay, wa, vbx, vby, wb = impulse_on_pair(
                vax, vay, wa, vbx, vby, wb, inverse_mass_a, inverse_inertia_a,
                inverse_mass_b, inverse_inertia_b, j * nx, j * ny, rax, ray, rbx, rby)
        # Friction along the tangent t = (−n_y, n_x), as in solve_friction: the total
        # λ_t − v_t/K_t clamped to ±μ·λ_n.
        for k in range(point_counts[m]):
            rax = arms_a[m, k, 0]
            ray = arms_a[m, k, 1]
            rbx = arms_b[m, k, 0]
            rby = arms_b[m, k, 1]
            bound = frictions[m] * normal_impulses[m, k]
            point_ax, point_ay = point_velocity(vax, vay, wa, rax, ray)
            point_bx, point_by = point_velocity(vbx, vby, wb, rbx, rby)
            # v_t − v_t*: the sliding speed beyond the contact's tangent speed (chapter 16)
            vt = (point_bx - point_ax) * -ny + (point_by - point_ay) * nx - tangent_speeds[m]
            total = min(max(tangent_impulses[m, k] - vt * tangent_masses[m, k], -bound), bound)
            jt = total - tangent_impulses[m, k]
            tangent_impulses[m, k] = total
            if jt != 0.0:
                vax, vay, wa, vbx, vby, wb = impulse_on_pair(
                    vax, vay, wa, vbx, vby, wb, inverse_mass_a, inverse_inertia_a,
                    inverse_mass_b, inverse_inertia_b, jt * -ny, jt * nx, rax, ray, rbx, rby)
        velocities[a, 0], velocities[a, 1], angular_velocities[a] = vax, vay, wa
        velocities[b, 0], velocities[b, 1], angular_velocities[b] = vbx, vby, wb


@njit(refcounted=False)
def land_early_bounces(contacts, bodies, work):
    """Move back the bodies of each speculative point that bounced at the start of the step
    (chapter 13); returns how many there were.

    :func:`set_targets` bounces a point that will close its gap s within the step at once,
    from the gap: its bodies then end the step s + e·|v_n|·dt apart along n, where, had they
    met the surface at the fraction τ = s/(−v_n·dt) and left at e·|v_n|, they would be
    e·|v_n|·(1 − τ)·dt = e·|v_n|·dt − e·s apart. The difference, (1 + e)·s, is removed as a
    position pass removes overlap: a pseudo-impulse q = (1 + e)·s/K along −n on B and +n on
    A moves positions, Δc = ±q·n/m and Δθ = ±(r × q·n)/I, and no velocity. Without it the
    bodies end the step (1 + e)·s too far apart; under gravity a bouncing ball's apex then
    comes out (1 − e²)·s too high, its error in continuous time.
    """
    awake = bodies.awake
    pairs, point_counts, normals, restitutions, depths = (
        contacts.bodies, contacts.point_counts, contacts.normals, contacts.restitutions,
        contacts.depths)
    centers, angles = bodies.centers, bodies.angles
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    arms_a, arms_b, normal_masses, targets, total_normal_impulses = (
        work.anchors_a, work.anchors_b, work.normal_masses, work.targets,
        work.total_normal_impulses)
    landed = 0
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        if not (awake[a] or awake[b]):
            continue
        nx = normals[m, 0]
        ny = normals[m, 1]
        for k in range(point_counts[m]):
            # A speculative point's target is −s/dt unless it bounced early (−e·v_n > 0).
            if depths[m, k] >= 0.0 or targets[m, k] <= 0.0 or total_normal_impulses[m, k] <= 0.0:
                continue
            q = (1.0 + restitutions[m]) * -depths[m, k] * normal_masses[m, k]
            shift_positions(centers, angles, inverse_masses, inverse_inertias, a, b, -q * nx,
                            -q * ny, arms_a[m, k, 0], arms_a[m, k, 1], arms_b[m, k, 0],
                            arms_b[m, k, 1])
            landed += 1
    return landed


@njit(refcounted=False)
def land_late_bounces(contacts, bodies, work, gravity, threshold, dt):
    """Move apart the bodies of each touching point that bounced (chapter 9); returns how
    many there were.

    A point found at depth d ≥ 0 met the surface before the step began and bounces from
    there, v_n → −e·v_n⁻ (:func:`set_targets`), starting d deep. Under gravity symplectic
    Euler keeps a discrete energy, Q = ½·u_k·u_{k+1} + g_n·x_k per unit mass
    (:func:`bounce_speed`), and Newton's law should leave e² of it. Bouncing from
    x = −d at U = −v_n⁻ leaves e²·Q exactly when the pair is also moved apart by
    (1 − e²)·d − ½·e·(1 − e)·U·dt: with e = 1 nothing moves (the bounce retraces the path
    the pair came in by, and any push would lift it higher than it fell); with e < 1,
    left where it is, the ball's apex falls short by about (1 − e²)·d. (For a shallow d
    the move is slightly negative.) It is made as a pseudo-impulse q = shift/K along n,
    as in :func:`land_early_bounces`. Only points whose bounce set their target (not a
    Baumgarte push) and that took an impulse count, and only under a pull along n: with
    no gravity along n the energy is all kinetic, any position keeps it, and the pair is
    left where it is (so that nothing but impulses changes its angular momentum).
    """
    awake = bodies.awake
    pairs, point_counts, normals, restitutions, depths = (
        contacts.bodies, contacts.point_counts, contacts.normals, contacts.restitutions,
        contacts.depths)
    centers, angles = bodies.centers, bodies.angles
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    arms_a, arms_b, normal_masses, relative_velocities, targets, total_normal_impulses = (
        work.anchors_a, work.anchors_b, work.normal_masses, work.relative_velocities,
        work.targets, work.total_normal_impulses)
    landed = 0
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        e = restitutions[m]
        if not (awake[a] or awake[b]) or e == 0.0:
            continue
        nx = normals[m, 0]
        ny = normals[m, 1]
        for k in range(point_counts[m]):
            bounce = restitution_target(relative_velocities[m, k], e, threshold)
            if (depths[m, k] < 0.0 or bounce <= 0.0 or targets[m, k] != bounce
                    or total_normal_impulses[m, k] <= 0.0):
                continue
            # Read only for a bounce, which is rare: no pull along n, no move.
            if gravity_along_normal(gravity, bodies, a, b, nx, ny) == 0.0:
                continue
            approach = -relative_velocities[m, k]
            shift = (1.0 - e * e) * depths[m, k] - 0.5 * e * (1.0 - e) * approach * dt
            q = shift * normal_masses[m, k]
            shift_positions(centers, angles, inverse_masses, inverse_inertias, a, b,
                            q * nx, q * ny, arms_a[m, k, 0], arms_a[m, k, 1],
                            arms_b[m, k, 0], arms_b[m, k, 1])
            landed += 1
    return landed


@njit(refcounted=False)
def project_positions(contacts, bodies, work, fraction, slop):
    """Linear projection (chapter 9): move each pair apart by ``fraction`` of its depth
    beyond the slop (:func:`pair_slop`).

    With d the pair's deepest point, the shift s = fraction·max(d − slop, 0)/(1/m_A + 1/m_B)
    along n moves A's centre by −s/m_A and B's by +s/m_B (the lighter body moves more; the
    pair's centre of mass stays). Angles do not change; the world recomputes the origins
    from the centres when it integrates positions.

    A pair that bounced in this step (a touching point whose target, from
    :func:`set_targets`, is a bounce) is left where it is: the bounce takes it back out
    along the path it came in by, and a push on top of that would lift it higher than it
    fell, by the push, at every bounce (with e = 1 the apex would climb).
    """
    awake = bodies.awake
    pairs, point_counts, normals, depths = (contacts.bodies, contacts.point_counts,
                                            contacts.normals, contacts.depths)
    centers, inverse_masses, targets = bodies.centers, bodies.inverse_masses, work.targets
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        if not (awake[a] or awake[b]):
            continue
        bounced = False
        for k in range(point_counts[m]):
            # With projection there is no Baumgarte push, so a positive target is a bounce.
            bounced = bounced or (depths[m, k] >= 0.0 and targets[m, k] > 0.0)
        if bounced:
            continue
        inverse_mass_sum = inverse_masses[a] + inverse_masses[b]
        if inverse_mass_sum <= 0.0:
            continue
        depth = depths[m, 0]
        for k in range(1, point_counts[m]):
            depth = max(depth, depths[m, k])
        shift = fraction * max(depth - pair_slop(slop, bodies.sizes, a, b), 0.0) \
            / inverse_mass_sum
        if shift == 0.0:
            continue
        for axis in range(2):
            delta = shift * normals[m, axis]
            centers[a, axis] -= inverse_masses[a] * delta
            centers[b, axis] += inverse_masses[b] * delta


# Copied into the soft step (inline): called at every substep, where handing over the
# columns costs a world of a few bodies more than the loop does.
@njit(refcounted=False, inline=True)
def update_motion(centers, angles, motion):
    """Refresh each body's motion since prepare: Δc = c − c₀ into ``moved``, and the
    rotation Δθ = θ − θ₀ as its cosine and sine (a body not awake has not moved, and gets
    exactly Δc = 0, cos 1 and sin 0).

    A turn of at most :data:`SERIES_TURN` takes the cosine and sine of :func:`turn_series`:
    one loop of plain arithmetic over the bodies, which the compiler runs in vector lanes,
    where the library's cos and sin are a call per body (in a settled pile, nine tenths of
    this stage's time). The rare larger turn takes the library's.
    """
    start_centers, start_angles, delta_cos, delta_sin, _, moved, _, _ = motion
    count = angles.shape[0]
    for i in range(count):
        moved[i, 0] = centers[i, 0] - start_centers[i, 0]
        moved[i, 1] = centers[i, 1] - start_centers[i, 1]
    large = False
    for i in range(count):
        turn = angles[i] - start_angles[i]
        delta_cos[i], delta_sin[i] = turn_series(turn)
        large |= abs(turn) > SERIES_TURN
    if large:
        for i in range(count):
            turn = angles[i] - start_angles[i]
            if abs(turn) > SERIES_TURN:
                delta_cos[i] = math.cos(turn)
                delta_sin[i] = math.sin(turn)


#: The largest turn (rad) whose cosine and sine :func:`update_motion` takes from
#: :func:`turn_series`. Its terms then fall below 10⁻¹⁸ by the 16th power.
SERIES_TURN = 0.5


@njit(refcounted=False, inline=True)
def turn_series(x):
    """(cos x, sin x) by their Taylor series to the 14th and 15th powers, summed by Horner's
    rule in x². For |x| ≤ :data:`SERIES_TURN` the terms left out are below 10⁻¹⁸, so the
    result is within the rounding of the sums, a few 10⁻¹⁶."""
    x2 = x * x
    cosine = 1.0 + x2 * (-1.0 / 2.0 + x2 * (1.0 / 24.0 + x2 * (
        -1.0 / 720.0 + x2 * (1.0 / 40320.0 + x2 * (-1.0 / 3628800.0 + x2 * (
            1.0 / 479001600.0 + x2 * (-1.0 / 87178291200.0)))))))
    sine = x * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (
        -1.0 / 5040.0 + x2 * (1.0 / 362880.0 + x2 * (-1.0 / 39916800.0 + x2 * (
            1.0 / 6227020800.0 + x2 * (-1.0 / 1307674368000.0))))))))
    return cosine, sine


@njit(refcounted=False)
def solve_positions(contacts, bodies, work, motion, bias_factor, slop, max_correction):
    """One pass of non-linear Gauss–Seidel: move positions, not velocities, out of overlap.

    For each point the separation s is measured again after the bodies moved, and the
    position error C = β·(s + slop), clamped to [−max_correction, 0] (slop as in
    :func:`pair_slop`), is removed by a
    *pseudo-impulse* P = −C/K along n applied to positions: Δc = ±P/m, Δθ = ±(r × P)/I.
    Velocities do not change, so no energy is added. Returns the deepest separation met.
    """
    awake = bodies.awake
    pairs, point_counts, normals = contacts.bodies, contacts.point_counts, contacts.normals
    centers, angles = bodies.centers, bodies.angles
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    arms_a, arms_b, normal_masses, base_separations = (work.anchors_a, work.anchors_b,
                                                       work.normal_masses,
                                                       work.base_separations)
    start_centers, start_angles, delta_cos, delta_sin, _, _, _, _ = motion
    deepest = 0.0
    for m in range(pairs.shape[0]):
        a = pairs[m, 0]
        b = pairs[m, 1]
        if not (awake[a] or awake[b]):
            continue
        nx = normals[m, 0]
        ny = normals[m, 1]
        allowed = pair_slop(slop, bodies.sizes, a, b)
        for k in range(point_counts[m]):
            rax = arms_a[m, k, 0]
            ray = arms_a[m, k, 1]
            rbx = arms_b[m, k, 0]
            rby = arms_b[m, k, 1]
            s = separation_now(base_separations[m, k], nx, ny, rax, ray, rbx, rby, a, b,
                               centers, start_centers, delta_cos, delta_sin)
            deepest = min(deepest, s)
            error = min(max(bias_factor * (s + allowed), -max_correction), 0.0)
            push = -error * normal_masses[m, k]
            if push == 0.0:
                continue
            # The arms as the bodies are turned now.
            turned_ax, turned_ay = rotate(delta_cos[a], delta_sin[a], rax, ray)
            turned_bx, turned_by = rotate(delta_cos[b], delta_sin[b], rbx, rby)
            shift_positions(centers, angles, inverse_masses, inverse_inertias, a, b,
                            push * nx, push * ny, turned_ax, turned_ay, turned_bx, turned_by)
            for body in (a, b):
                turn = angles[body] - start_angles[body]
                delta_cos[body] = math.cos(turn)
                delta_sin[body] = math.sin(turn)
    return deepest


@njit(refcounted=False)
def store_impulses(contacts, bodies, work, scale):
    """Keep this step's impulses, times ``scale``, in the contact table for the next step.

    ``scale`` turns what the solver accumulates into impulses per step (N·s): 1, or the
    number of substeps for the soft step, whose impulses are per substep. A sleeping pair
    was not solved and keeps the impulses it carries.
    """
    pairs, awake = contacts.bodies, bodies.awake
    normal, tangent = contacts.normal_impulses, contacts.tangent_impulses
    for m in range(pairs.shape[0]):
        if awake[pairs[m, 0]] or awake[pairs[m, 1]]:
            for k in range(2):
                normal[m, k] = scale * work.normal_impulses[m, k]
                tangent[m, k] = scale * work.tangent_impulses[m, k]
