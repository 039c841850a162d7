"""Chapter 4: moving every body by one step, the two halves of symplectic Euler.

Each body has an origin (the point its shapes are given about) and a centre of mass
tracked beside it. It rotates about its centre of mass, its ``velocity`` is the velocity of
that centre, and ``origin = center − R(θ)·local_center`` at all times. Each kernel is one
compiled pass over all bodies (:class:`~physbook.dynamics.body_table.BodyArrays`).
"""

from __future__ import annotations

import math

from physbook._jit import njit
from physbook.kinds import DYNAMIC
from physbook.vecmath.kernels import rotate


@njit(refcounted=False, inline=True)
def _velocity_columns(bodies):
    """The columns the velocity half reads. They are taken out of the tuple once: reading a
    field of a tuple of arrays inside a loop costs a reference count increment and
    decrement each time."""
    return (bodies.kinds, bodies.velocities, bodies.angular_velocities, bodies.forces,
            bodies.torques, bodies.gravity_scales, bodies.inverse_masses,
            bodies.inverse_inertias, bodies.awake, bodies.linear_dampings,
            bodies.angular_dampings)


@njit(refcounted=False, inline=True)
def damped(velocity, damping, dt):
    """Chapter 2's implicit step of dv/dt = −c·v over ``dt``: v/(1 + c·dt), which decays
    for any c ≥ 0 and step, where the explicit v·(1 − c·dt) overshoots past zero once
    c·dt > 1. A body without damping (c = 0) keeps ``velocity`` bit for bit."""
    # Without a branch, so that the loops over the bodies stay vector code: c = 0 divides
    # by exactly 1.
    return velocity / (1.0 + damping * dt)


@njit(refcounted=False)
def integrate_velocities(bodies, gravity, dt):
    """Symplectic Euler, velocity half: v += dt·(g·s + F/m), ω += dt·τ/I, dynamic bodies only,
    then damping: v ← v/(1 + c·dt) and ω ← ω/(1 + c_ω·dt) (:func:`damped`).

    ``gravity`` is the (2,) world gravity (m/s²) and ``s`` each body's gravity scale.
    Static and kinematic bodies keep their velocities, and sleeping bodies (``awake``
    false, chapter 11) stay at rest.
    """
    (kinds, velocities, angular_velocities, forces, torques, scales, inverse_masses,
     inverse_inertias, awake, linear_dampings, angular_dampings) = _velocity_columns(bodies)
    for i in range(kinds.shape[0]):
        if kinds[i] != DYNAMIC or not awake[i]:
            continue
        velocities[i, 0] = damped(velocities[i, 0] + dt * (
            gravity[0] * scales[i] + forces[i, 0] * inverse_masses[i]), linear_dampings[i], dt)
        velocities[i, 1] = damped(velocities[i, 1] + dt * (
            gravity[1] * scales[i] + forces[i, 1] * inverse_masses[i]), linear_dampings[i], dt)
        angular_velocities[i] = damped(angular_velocities[i] + dt * torques[i]
                                       * inverse_inertias[i], angular_dampings[i], dt)


# Copied into the soft step (inline): called at every substep, where handing over the
# columns costs a world of a few bodies more than the loop does.
@njit(refcounted=False, inline=True)
def integrate_and_repeat(bodies, gravity, dt, free_velocities, free_spins, repeat):
    """:func:`integrate_velocities`, keeping each body's velocity after it, its *free*
    velocity v_f (what it would have if nothing touched it), in ``free_velocities`` (N, 2)
    and ``free_spins`` (N,); with ``repeat``, each body then gets again the change that
    impulses made to its velocity since the last call: v ← v_f + (v − v_f,last), and the same
    for ω.

    This is the soft step's warm start after its first substep. A warm start applies every
    contact's impulse λ, and the passes of a substep change λ step by step: a body's
    velocity ends the substep changed by exactly Σ M⁻¹Jᵀλ over its contacts (J held fixed
    through the step), which is the next warm start. So one pass over the bodies replaces a
    pass over the contacts (see :func:`~physbook.dynamics.solver_steps.soft_step`).
    """
    (kinds, velocities, angular_velocities, forces, torques, scales, inverse_masses,
     inverse_inertias, awake, linear_dampings, angular_dampings) = _velocity_columns(bodies)
    for i in range(kinds.shape[0]):
        vx, vy, spin = velocities[i, 0], velocities[i, 1], angular_velocities[i]
        free_x, free_y, free_spin = vx, vy, spin
        if kinds[i] == DYNAMIC and awake[i]:
            # integrate_velocities' update, the same operations
            free_x = damped(free_x + dt * (gravity[0] * scales[i]
                                           + forces[i, 0] * inverse_masses[i]),
                            linear_dampings[i], dt)
            free_y = damped(free_y + dt * (gravity[1] * scales[i]
                                           + forces[i, 1] * inverse_masses[i]),
                            linear_dampings[i], dt)
            free_spin = damped(free_spin + dt * torques[i] * inverse_inertias[i],
                               angular_dampings[i], dt)
        if repeat:
            velocities[i, 0] = free_x + (vx - free_velocities[i, 0])
            velocities[i, 1] = free_y + (vy - free_velocities[i, 1])
            angular_velocities[i] = free_spin + (spin - free_spins[i])
        else:
            velocities[i, 0], velocities[i, 1], angular_velocities[i] = free_x, free_y, \
                free_spin
        free_velocities[i, 0], free_velocities[i, 1], free_spins[i] = free_x, free_y, free_spin


@njit(refcounted=False)
def origin_of(origins, centers, angles, local_centers, i):
    """Set body i's origin from its centre and angle: origin = c − R(θ)·local_c."""
    local_x = local_centers[i, 0]
    local_y = local_centers[i, 1]
    if local_x == 0.0 and local_y == 0.0:
        # Most bodies have their centre of mass at the origin: no rotation needed, and
        # cos/sin are the costliest part of a pass over the bodies.
        origins[i, 0] = centers[i, 0]
        origins[i, 1] = centers[i, 1]
    else:
        x, y = rotate(math.cos(angles[i]), math.sin(angles[i]), local_x, local_y)
        origins[i, 0] = centers[i, 0] - x
        origins[i, 1] = centers[i, 1] - y


@njit(refcounted=False)
def placed_and_finite(origins, centers, angles, local_centers, velocities, angular_velocities,
                      i):
    """Set body i's origin (:func:`origin_of`); True when the origin and the velocities
    are finite."""
    origin_of(origins, centers, angles, local_centers, i)
    return (math.isfinite(origins[i, 0]) and math.isfinite(origins[i, 1])
            and math.isfinite(velocities[i, 0]) and math.isfinite(velocities[i, 1])
            and math.isfinite(angular_velocities[i]))


@njit(refcounted=False)
def integrate_positions(bodies, dt):
    """Symplectic Euler, position half: c += dt·v, θ += dt·ω, then origin = c − R(θ)·local_c.

    Uses the velocities just updated (that is what makes the scheme symplectic). Static
    and sleeping bodies do not move, but their origin is recomputed too, so that a centre or angle
    written directly into the arrays carries the origin along. Returns the number of
    bodies whose state is no longer finite (0 in a healthy world).
    """
    kinds, origins, centers, angles = bodies.kinds, bodies.origins, bodies.centers, \
        bodies.angles
    velocities, angular_velocities = bodies.velocities, bodies.angular_velocities
    local_centers, awake = bodies.local_centers, bodies.awake
    bad = 0
    for i in range(kinds.shape[0]):
        if awake[i]:
            centers[i, 0] += dt * velocities[i, 0]
            centers[i, 1] += dt * velocities[i, 1]
            angles[i] += dt * angular_velocities[i]
        if not placed_and_finite(origins, centers, angles, local_centers, velocities,
                                 angular_velocities, i):
            bad += 1
    return bad


# Copied into the soft step (inline): called at every substep, where handing over the
# columns costs a world of a few bodies more than the loop does.
@njit(refcounted=False, inline=True)
def advance_positions(bodies, dt):
    """The position half of :func:`integrate_positions` alone, c += dt·v and θ += dt·ω for
    the awake bodies, origins left as they were: the soft step's substeps before its last.
    Nothing reads an origin until the step ends, and a centre or velocity that is no longer
    finite stays so, so placing and checking the bodies after the last substep is enough."""
    centers, angles, velocities, angular_velocities, awake = (
        bodies.centers, bodies.angles, bodies.velocities, bodies.angular_velocities,
        bodies.awake)
    for i in range(angles.shape[0]):
        if awake[i]:
            centers[i, 0] += dt * velocities[i, 0]
            centers[i, 1] += dt * velocities[i, 1]
            angles[i] += dt * angular_velocities[i]


@njit(refcounted=False)
def integrate_free(bodies, gravity, h, substeps):
    """``substeps`` substeps of h s of symplectic Euler for bodies that nothing ties
    together (no contact, no joint): :func:`integrate_velocities` then
    :func:`integrate_positions`, ``substeps`` times, taken body by body. Returns the
    number of bodies whose state is no longer finite.

    Each body's substeps depend on no other body, so one pass that runs all of a body's
    substeps gives the same numbers, bit for bit, as ``substeps`` passes over every body,
    and reads the columns once instead of 2·``substeps`` times. The origin depends only on
    the final centre and angle, so it is set once, at the end.
    """
    kinds, origins, centers, angles = bodies.kinds, bodies.origins, bodies.centers, \
        bodies.angles
    velocities, angular_velocities = bodies.velocities, bodies.angular_velocities
    forces, torques, scales = bodies.forces, bodies.torques, bodies.gravity_scales
    inverse_masses, inverse_inertias = bodies.inverse_masses, bodies.inverse_inertias
    local_centers, awake = bodies.local_centers, bodies.awake
    linear_dampings, angular_dampings = bodies.linear_dampings, bodies.angular_dampings
    bad = 0
    for i in range(kinds.shape[0]):
        if awake[i]:
            pushed = kinds[i] == DYNAMIC
            vx, vy, w = velocities[i, 0], velocities[i, 1], angular_velocities[i]
            x, y, angle = centers[i, 0], centers[i, 1], angles[i]
            # The accelerations of integrate_velocities, the same in every substep.
            ax = gravity[0] * scales[i] + forces[i, 0] * inverse_masses[i]
            ay = gravity[1] * scales[i] + forces[i, 1] * inverse_masses[i]
            c, c_spin = linear_dampings[i], angular_dampings[i]
            for _ in range(substeps):
                if pushed:
                    vx = damped(vx + h * ax, c, h)
                    vy = damped(vy + h * ay, c, h)
                    w = damped(w + h * torques[i] * inverse_inertias[i], c_spin, h)
                x += h * vx
                y += h * vy
                angle += h * w
            velocities[i, 0], velocities[i, 1], angular_velocities[i] = vx, vy, w
            centers[i, 0], centers[i, 1], angles[i] = x, y, angle
        if not placed_and_finite(origins, centers, angles, local_centers, velocities,
                                 angular_velocities, i):
            bad += 1
    return bad


@njit(refcounted=False)
def update_origins(bodies):
    """Recompute every origin from its centre and angle (after centres were written)."""
    origins, centers, angles, local_centers = (bodies.origins, bodies.centers, bodies.angles,
                                               bodies.local_centers)
    for i in range(origins.shape[0]):
        origin_of(origins, centers, angles, local_centers, i)


@njit(refcounted=False)
def speculative_margins(shape_bodies, reaches, bodies, distance, dt, margins, drifts):
    """How close two shapes must come to be given a contact this step: each shape's own
    margin, ``margins`` (S,), m, and each body's drift over the step, ``drifts`` (B, 2), m.

    A body moving at v drifts v·dt in a step, and a shape of a body turning at ω, whose
    farthest point is R from the centre of mass (``reaches`` (S,), the first of
    :func:`~physbook.continuous.shape_reaches`; ``shape_bodies`` (S,) each shape's body),
    turns its points by at most |ω|·R·dt about it. The shape's own margin is that turn
    plus ``distance``. Two shapes' closest points approach at most at the bodies'
    relative velocity plus each one's turn, so a pair may touch before the step ends only
    if its gap is at most its *pair margin* (:func:`pair_margin`),
    m_a + m_b + |v_a − v_b|·dt; such a pair gets a *speculative* contact that the solver
    lets close, but not pass. A crowd moving together needs no speculative contact for its
    common motion. The broad phase sweeps each shape's box along its drift and grows it by
    its own margin (:func:`sweep_boxes`): it finds every pair that comes within its own
    margins at some moment of the step at the velocities it has, and leaves out pairs that
    only drift apart.
    """
    angular_velocities = bodies.angular_velocities
    for s in range(shape_bodies.shape[0]):
        margins[s] = distance + dt * abs(angular_velocities[shape_bodies[s]]) * reaches[s]
    velocities = bodies.velocities
    for b in range(drifts.shape[0]):
        drifts[b, 0] = dt * velocities[b, 0]
        drifts[b, 1] = dt * velocities[b, 1]


@njit(refcounted=False, inline=True)
def pair_margin(margins, drifts, body, a, b):
    """How far apart shapes ``a`` and ``b`` (rows; ``body`` each shape's body row) may be
    and still get a contact this step (m): the sum of their ``margins`` (S,), plus the
    drift of one body relative to the other when ``drifts`` (B, 2) has rows
    (:func:`speculative_margins`)."""
    margin = margins[a] + margins[b]
    if drifts.shape[0] == 0:
        return margin
    body_a, body_b = body[a], body[b]
    return margin + math.sqrt((drifts[body_a, 0] - drifts[body_b, 0]) ** 2
                              + (drifts[body_a, 1] - drifts[body_b, 1]) ** 2)


@njit(refcounted=False)
def sweep_boxes(shape_bodies, drifts, lower, upper):
    """Stretch each shape's box (``lower``, ``upper`` (S, 2), m) over the path of its body's
    drift (``drifts`` (B, 2), m; ``shape_bodies`` (S,) each shape's body): the box then holds
    the shape all through the step, whatever the pair it meets. Two shapes whose swept boxes,
    grown by their own margins, are apart stay farther apart than those margins all through
    the step, at the velocities they have."""
    for s in range(shape_bodies.shape[0]):
        b = shape_bodies[s]
        for k in range(2):
            drift = drifts[b, k]
            if drift < 0.0:
                lower[s, k] += drift
            else:
                upper[s, k] += drift
