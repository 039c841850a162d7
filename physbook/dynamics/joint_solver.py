"""Chapter 11: the stages that solve joints, run by the contact solvers beside their contacts.

Every joint is a set of constraints C(x) = 0 on the poses of its two bodies. Differentiating
gives the velocity constraint Ċ = J·v = 0, with J the constraint's Jacobian; an impulse
along Jᵀ changes Ċ by K·λ, K = J M⁻¹ Jᵀ, so the impulse that drives Ċ to a target is
λ = −K⁻¹(Ċ + bias). That is a contact's normal row (chapter 9) with another J. The rows here:

- a *point* row (revolute, weld, mouse): C = (c_B + r_B) − (c_A + r_A), a 2-vector, with
  the 2×2 K = (1/m_A + 1/m_B)·I + [r_A]ᵀ[r_A]/I_A + [r_B]ᵀ[r_B]/I_B;
- an *angle* row (revolute spring, motor and limits, weld, prismatic): C = θ_B − θ_A − θ₀,
  Ċ = ω_B − ω_A, K = 1/I_A + 1/I_B;
- a *motor* (two point rows and an angle row driven towards an offset): C_θ = θ_B − θ_A −
  θ₀ wrapped into (−π, π], C_p = (c_B + r_B) − (c_A + r_A) − R_A·o with r the arms to each
  body's origin and o the offset in A's axes; each row's velocity target is −β·C/h, a
  fraction β (the correction factor) of the error removed per (sub)step, and its total
  impulse stays within h times the largest torque, or, as a 2-vector, within h times the
  largest force;
- an *axial* row along a unit axis u (distance, prismatic, wheel): C = d·u − target with
  d = (c_B + r_B) − (c_A + r_A), Ċ = u·(v_B + ω_B × r_B − v_A − ω_A × r_A) plus, when u is
  fixed in A, the term (d × u)·ω_A from A turning the axis, K = 1/m_A + 1/m_B +
  (a₁)²/I_A + (a₂)²/I_B with a₁ = (d + r_A) × u and a₂ = r_B × u.

An equality row accumulates its impulse freely; a limit row keeps its total ≥ 0 (it can
only push), a motor row within ± its largest force times the step. A row whose limit is not
yet reached is *speculative*: it lets the gap C > 0 close in this step, bias C/h, and no
further. Position error is removed by a soft constraint (:func:`spring`): with the bias on,
Δλ = −m_s·K⁻¹(Ċ + b·C) − i_s·λ, the impulse of a spring–damper of frequency f and damping
ratio ζ stepped implicitly; with it off (the soft step's relax pass) the row is rigid. A
joint's own spring (``hertz`` > 0) uses the same formula with its own f and ζ and is always
on.

Symbols: m mass, I inertia, c centre of mass, r arm from c to the anchor, θ angle, v, ω
velocities, h the (sub)step, λ accumulated impulse.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook._jit import njit
from physbook.dynamics.contact_solver import apply_impulse, relative_velocity
from physbook.kinds import DISTANCE, MOTOR, MOUSE, PRISMATIC, REVOLUTE, WELD, WHEEL
from physbook.vecmath.kernels import cross, rotate


class JointWork(NamedTuple):
    """What the solver keeps per joint during a step: the arms r_A, r_B from each centre of
    mass to the anchors when the joints were prepared, ``arms`` (J, 2, 2) in the world (m),
    and the joint axis fixed in A then, ``axes`` (J, 2)."""

    arms: np.ndarray
    axes: np.ndarray


def joint_work_arrays(joints: int) -> JointWork:
    """Zeroed :class:`JointWork` for ``joints`` rows."""
    return JointWork(np.zeros((joints, 2, 2)), np.zeros((joints, 2)))


@njit(refcounted=False)
def spring(hertz, damping_ratio, h):
    """(bias_rate, mass_scale, impulse_scale) of a spring of ``hertz`` and ``damping_ratio``
    for a step h: with ω = 2πf, a₁ = 2ζ + hω, a₂ = hω·a₁, a₃ = 1/(1 + a₂), they are ω/a₁,
    a₂·a₃ and a₃ (the formula of :func:`~physbook.dynamics.contact_solver.softness`)."""
    omega = 2.0 * math.pi * hertz
    a1 = 2.0 * damping_ratio + h * omega
    a2 = h * omega * a1
    a3 = 1.0 / (1.0 + a2)
    return omega / a1, a2 * a3, a3


@njit(refcounted=False)
def _limit(position_error, use_bias, soft, inverse_h):
    """Bias, mass scale and impulse scale of a limit row whose gap is ``position_error``: a
    gap (C > 0) may close in this step (bias C/h, rigid), an overlap is pushed out by the
    joint softness when the bias is on."""
    if position_error > 0.0:
        return position_error * inverse_h, 1.0, 0.0
    if use_bias:
        return soft.bias_rate * position_error, soft.mass_scale, soft.impulse_scale
    return 0.0, 1.0, 0.0


@njit(refcounted=False)
def _equality(use_bias, soft):
    """(bias rate, mass scale, impulse scale) of a rigid equality row: the joint softness
    with the bias on, a rigid row without it."""
    if use_bias:
        return soft.bias_rate, soft.mass_scale, soft.impulse_scale
    return 0.0, 1.0, 0.0


@njit(refcounted=False)
def _solve_2x2(k11, k12, k22, bx, by):
    """x with K·x = b for the symmetric K = [[k11, k12], [k12, k22]] (0 if K is singular)."""
    det = k11 * k22 - k12 * k12
    if det == 0.0:
        return 0.0, 0.0
    det = 1.0 / det
    return det * (k22 * bx - k12 * by), det * (k11 * by - k12 * bx)


@njit(refcounted=False)
def _point_mass(im_a, ii_a, im_b, ii_b, rax, ray, rbx, rby):
    """The entries k11, k12, k22 of the point row's K (1/kg)."""
    k11 = im_a + im_b + ray * ray * ii_a + rby * rby * ii_b
    k12 = -ray * rax * ii_a - rby * rbx * ii_b
    k22 = im_a + im_b + rax * rax * ii_a + rbx * rbx * ii_b
    return k11, k12, k22


@njit(refcounted=False)
def _arms_now(arms, j, a, b, delta_cos, delta_sin):
    """The arms r_A, r_B of joint j as the bodies are turned now."""
    rax, ray = rotate(delta_cos[a], delta_sin[a], arms[j, 0, 0], arms[j, 0, 1])
    rbx, rby = rotate(delta_cos[b], delta_sin[b], arms[j, 1, 0], arms[j, 1, 1])
    return rax, ray, rbx, rby


@njit(refcounted=False)
def _apply_angular(angular_velocities, inverse_inertias, a, b, impulse):
    """An angular impulse L: ω_A −= L/I_A, ω_B += L/I_B."""
    angular_velocities[a] -= inverse_inertias[a] * impulse
    angular_velocities[b] += inverse_inertias[b] * impulse


@njit(refcounted=False)
def _apply_axial(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b,
                 impulse, ux, uy, a1, a2):
    """An impulse λ along an axis u fixed in A: P = λu on B at lever a₂, −P on A at a₁."""
    velocities[a, 0] -= inverse_masses[a] * impulse * ux
    velocities[a, 1] -= inverse_masses[a] * impulse * uy
    angular_velocities[a] -= inverse_inertias[a] * impulse * a1
    velocities[b, 0] += inverse_masses[b] * impulse * ux
    velocities[b, 1] += inverse_masses[b] * impulse * uy
    angular_velocities[b] += inverse_inertias[b] * impulse * a2


@njit(refcounted=False)
def _axial_speed(velocities, angular_velocities, a, b, ux, uy, a1, a2):
    """Ċ of an axial row: u·(v_B − v_A) + a₂ω_B − a₁ω_A (m/s)."""
    return (ux * (velocities[b, 0] - velocities[a, 0]) + uy * (velocities[b, 1]
            - velocities[a, 1]) + a2 * angular_velocities[b] - a1 * angular_velocities[a])


@njit(refcounted=False)
def _inverse(value):
    return 1.0 / value if value > 0.0 else 0.0


# --- the stages ---------------------------------------------------------------------------


@njit(refcounted=False)
def prepare_joints(joints, bodies, work, warm_scale):
    """Per joint: the arms and axis in the world, and the impulses to start from, the last
    step's times ``warm_scale`` (0: from nothing; 1/substeps for the soft step)."""
    kinds, pairs, local_anchors, local_axes = (joints.kinds, joints.bodies,
                                               joints.local_anchors, joints.local_axes)
    angles = bodies.angles
    arms, axes = work
    for j in range(kinds.shape[0]):
        a = pairs[j, 0]
        b = pairs[j, 1]
        cos_a, sin_a = math.cos(angles[a]), math.sin(angles[a])
        cos_b, sin_b = math.cos(angles[b]), math.sin(angles[b])
        if kinds[j] == MOUSE:
            arms[j, 0, 0] = 0.0
            arms[j, 0, 1] = 0.0
        else:
            arms[j, 0, 0], arms[j, 0, 1] = rotate(cos_a, sin_a, local_anchors[j, 0, 0],
                                                  local_anchors[j, 0, 1])
        arms[j, 1, 0], arms[j, 1, 1] = rotate(cos_b, sin_b, local_anchors[j, 1, 0],
                                              local_anchors[j, 1, 1])
        axes[j, 0], axes[j, 1] = rotate(cos_a, sin_a, local_axes[j, 0], local_axes[j, 1])
    scale_impulses(joints, warm_scale)


@njit(refcounted=False)
def scale_impulses(joints, scale):
    """Multiply every accumulated impulse of every joint by ``scale``: per step to per
    substep and back, or to 0 for a step that does not warm start."""
    for column in (joints.angular_impulses, joints.spring_impulses, joints.motor_impulses,
                   joints.lower_impulses, joints.upper_impulses):
        for j in range(column.shape[0]):
            column[j] *= scale
    linear = joints.linear_impulses
    for j in range(linear.shape[0]):
        linear[j, 0] *= scale
        linear[j, 1] *= scale


@njit(refcounted=False)
def _axis_frame(j, a, b, arms, axes, centers, delta_cos, delta_sin):
    """For an axis fixed in A: r_A, r_B, d = (c_B + r_B) − (c_A + r_A), the axis u and its
    perpendicular p = (−u_y, u_x) as the bodies are now."""
    rax, ray, rbx, rby = _arms_now(arms, j, a, b, delta_cos, delta_sin)
    ux, uy = rotate(delta_cos[a], delta_sin[a], axes[j, 0], axes[j, 1])
    dx = centers[b, 0] + rbx - centers[a, 0] - rax
    dy = centers[b, 1] + rby - centers[a, 1] - ray
    return rax, ray, rbx, rby, dx, dy, ux, uy


@njit(refcounted=False)
def warm_start_joints(joints, bodies, work, motion):
    """Apply the impulses each joint starts from (its accumulated λ of every row)."""
    kinds, pairs = joints.kinds, joints.bodies
    linear, angular, springs, motors, lowers, uppers = (
        joints.linear_impulses, joints.angular_impulses, joints.spring_impulses,
        joints.motor_impulses, joints.lower_impulses, joints.upper_impulses)
    centers, velocities, angular_velocities = (bodies.centers, bodies.velocities,
                                               bodies.angular_velocities)
    inverse_masses, inverse_inertias, awake = (bodies.inverse_masses, bodies.inverse_inertias,
                                               bodies.awake)
    arms, axes = work
    delta_cos, delta_sin = motion.delta_cos, motion.delta_sin
    for j in range(kinds.shape[0]):
        a = pairs[j, 0]
        b = pairs[j, 1]
        if not (awake[a] or awake[b]):
            continue
        kind = kinds[j]
        if kind == MOUSE:
            rbx, rby = rotate(delta_cos[b], delta_sin[b], arms[j, 1, 0], arms[j, 1, 1])
            velocities[b, 0] += inverse_masses[b] * linear[j, 0]
            velocities[b, 1] += inverse_masses[b] * linear[j, 1]
            angular_velocities[b] += inverse_inertias[b] * cross(rbx, rby, linear[j, 0],
                                                                 linear[j, 1])
            continue
        rax, ray, rbx, rby, dx, dy, ux, uy = _axis_frame(j, a, b, arms, axes, centers,
                                                         delta_cos, delta_sin)
        if kind == REVOLUTE or kind == WELD or kind == MOTOR:
            apply_impulse(velocities, angular_velocities, inverse_masses, inverse_inertias,
                          a, b, linear[j, 0], linear[j, 1], rax, ray, rbx, rby)
            _apply_angular(angular_velocities, inverse_inertias, a, b,
                           angular[j] + springs[j] + motors[j] + lowers[j] - uppers[j])
        elif kind == DISTANCE:
            length = math.sqrt(dx * dx + dy * dy)
            if length > 0.0:
                total = springs[j] + lowers[j] - uppers[j]
                apply_impulse(velocities, angular_velocities, inverse_masses,
                              inverse_inertias, a, b, total * dx / length,
                              total * dy / length, rax, ray, rbx, rby)
        else:  # PRISMATIC or WHEEL: perpendicular, axial and angular rows
            px, py = -uy, ux
            axial = springs[j] + lowers[j] - uppers[j]
            if kind == PRISMATIC:
                axial += motors[j]
            _apply_axial(velocities, angular_velocities, inverse_masses, inverse_inertias,
                         a, b, axial, ux, uy, cross(dx + rax, dy + ray, ux, uy),
                         cross(rbx, rby, ux, uy))
            _apply_axial(velocities, angular_velocities, inverse_masses, inverse_inertias,
                         a, b, linear[j, 0], px, py, cross(dx + rax, dy + ray, px, py),
                         cross(rbx, rby, px, py))
            turn = angular[j] + (motors[j] if kind == WHEEL else 0.0)
            _apply_angular(angular_velocities, inverse_inertias, a, b, turn)


@njit(refcounted=False)
def _solve_distance(joints, j, a, b, rax, ray, rbx, rby, dx, dy, velocities,
                    angular_velocities, inverse_masses, inverse_inertias, h, inverse_h,
                    use_bias, soft):
    """A distance joint: a rigid rod (min = max length, no spring), or a spring towards
    its length with a lower and an upper limit (a rope has only the upper one)."""
    length = math.sqrt(dx * dx + dy * dy)
    if length == 0.0:
        return  # no direction to hold the anchors apart along
    ux = dx / length
    uy = dy / length
    axial_mass = _inverse(inverse_masses[a] + inverse_masses[b]
                          + inverse_inertias[a] * cross(rax, ray, ux, uy) ** 2
                          + inverse_inertias[b] * cross(rbx, rby, ux, uy) ** 2)
    lower = joints.lower[j]
    upper = joints.upper[j]
    hertz = joints.hertz[j]
    springs, lowers, uppers = joints.spring_impulses, joints.lower_impulses, \
        joints.upper_impulses
    if lower < upper:
        if hertz > 0.0:
            bias_rate, mass_scale, impulse_scale = spring(hertz, joints.damping_ratios[j], h)
            dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray,
                                         rbx, rby)
            speed = dvx * ux + dvy * uy
            error = length - joints.lengths[j]
            impulse = -mass_scale * axial_mass * (speed + bias_rate * error) \
                - impulse_scale * springs[j]
            springs[j] += impulse
            apply_impulse(velocities, angular_velocities, inverse_masses, inverse_inertias,
                          a, b, impulse * ux, impulse * uy, rax, ray, rbx, rby)
        if lower > 0.0:
            bias, mass_scale, impulse_scale = _limit(length - lower, use_bias, soft,
                                                     inverse_h)
            dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray,
                                         rbx, rby)
            speed = dvx * ux + dvy * uy
            impulse = -mass_scale * axial_mass * (speed + bias) - impulse_scale * lowers[j]
            total = max(lowers[j] + impulse, 0.0)
            impulse = total - lowers[j]
            lowers[j] = total
            apply_impulse(velocities, angular_velocities, inverse_masses, inverse_inertias,
                          a, b, impulse * ux, impulse * uy, rax, ray, rbx, rby)
        if upper < math.inf:
            bias, mass_scale, impulse_scale = _limit(upper - length, use_bias, soft,
                                                     inverse_h)
            dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray,
                                         rbx, rby)
            speed = -(dvx * ux + dvy * uy)
            impulse = -mass_scale * axial_mass * (speed + bias) - impulse_scale * uppers[j]
            total = max(uppers[j] + impulse, 0.0)
            impulse = total - uppers[j]
            uppers[j] = total
            apply_impulse(velocities, angular_velocities, inverse_masses, inverse_inertias,
                          a, b, -impulse * ux, -impulse * uy, rax, ray, rbx, rby)
    else:
        # A rod: C = |d| − L held at 0 in both directions.
        bias_rate, mass_scale, impulse_scale = _equality(use_bias, soft)
        dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray, rbx, rby)
        speed = dvx * ux + dvy * uy
        error = length - joints.lengths[j]
        impulse = -mass_scale * axial_mass * (speed + bias_rate * error) \
            - impulse_scale * springs[j]
        springs[j] += impulse
        apply_impulse(velocities, angular_velocities, inverse_masses, inverse_inertias,
                      a, b, impulse * ux, impulse * uy, rax, ray, rbx, rby)


@njit(refcounted=False)
def _solve_angle_rows(joints, j, a, b, angles, angular_velocities, inverse_inertias, h,
                      inverse_h, use_bias, soft, spring_hertz, spring_damping):
    """The angle rows of a revolute joint (and a wheel joint's motor): spring, motor,
    lower and upper limit, on θ = θ_B − θ_A − θ₀."""
    axial_mass = _inverse(inverse_inertias[a] + inverse_inertias[b])
    if axial_mass == 0.0:
        return
    angle = angles[b] - angles[a] - joints.reference_angles[j]
    springs, motors = joints.spring_impulses, joints.motor_impulses
    lowers, uppers = joints.lower_impulses, joints.upper_impulses
    if spring_hertz > 0.0:
        bias_rate, mass_scale, impulse_scale = spring(spring_hertz, spring_damping, h)
        speed = angular_velocities[b] - angular_velocities[a]
        impulse = -mass_scale * axial_mass * (speed + bias_rate * angle) \
            - impulse_scale * springs[j]
        springs[j] += impulse
        _apply_angular(angular_velocities, inverse_inertias, a, b, impulse)
    if joints.max_motor[j] > 0.0:
        # The motor drives ω_B − ω_A to its speed with at most its torque over the step.
        speed = angular_velocities[b] - angular_velocities[a] - joints.motor_speeds[j]
        bound = joints.max_motor[j] * h
        total = min(max(motors[j] - axial_mass * speed, -bound), bound)
        impulse = total - motors[j]
        motors[j] = total
        _apply_angular(angular_velocities, inverse_inertias, a, b, impulse)
    if joints.kinds[j] != REVOLUTE:
        return
    if joints.lower[j] > -math.inf:
        bias, mass_scale, impulse_scale = _limit(angle - joints.lower[j], use_bias, soft,
                                                 inverse_h)
        speed = angular_velocities[b] - angular_velocities[a]
        impulse = -mass_scale * axial_mass * (speed + bias) - impulse_scale * lowers[j]
        total = max(lowers[j] + impulse, 0.0)
        impulse = total - lowers[j]
        lowers[j] = total
        _apply_angular(angular_velocities, inverse_inertias, a, b, impulse)
    if joints.upper[j] < math.inf:
        bias, mass_scale, impulse_scale = _limit(joints.upper[j] - angle, use_bias, soft,
                                                 inverse_h)
        speed = angular_velocities[a] - angular_velocities[b]
        impulse = -mass_scale * axial_mass * (speed + bias) - impulse_scale * uppers[j]
        total = max(uppers[j] + impulse, 0.0)
        impulse = total - uppers[j]
        uppers[j] = total
        _apply_angular(angular_velocities, inverse_inertias, a, b, -impulse)


@njit(refcounted=False)
def _solve_point(joints, j, a, b, rax, ray, rbx, rby, dx, dy, velocities,
                 angular_velocities, inverse_masses, inverse_inertias, bias_rate, mass_scale,
                 impulse_scale):
    """The point row: drive Ċ = v_B + ω_B × r_B − v_A − ω_A × r_A (2-vector) to −b·C."""
    linear = joints.linear_impulses
    k11, k12, k22 = _point_mass(inverse_masses[a], inverse_inertias[a], inverse_masses[b],
                                inverse_inertias[b], rax, ray, rbx, rby)
    dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray, rbx, rby)
    bx, by = _solve_2x2(k11, k12, k22, dvx + bias_rate * dx, dvy + bias_rate * dy)
    px = -mass_scale * bx - impulse_scale * linear[j, 0]
    py = -mass_scale * by - impulse_scale * linear[j, 1]
    linear[j, 0] += px
    linear[j, 1] += py
    apply_impulse(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b,
                  px, py, rax, ray, rbx, rby)


@njit(refcounted=False)
def _solve_weld_angle(joints, j, a, b, angles, angular_velocities, inverse_inertias, h,
                      use_bias, soft):
    """A weld's angle row: rigid (joint softness) or its own angular spring."""
    axial_mass = _inverse(inverse_inertias[a] + inverse_inertias[b])
    hertz = joints.angular_hertz[j]
    if hertz > 0.0:
        bias_rate, mass_scale, impulse_scale = spring(hertz, joints.angular_damping_ratios[j],
                                                      h)
    else:
        bias_rate, mass_scale, impulse_scale = _equality(use_bias, soft)
    angle = angles[b] - angles[a] - joints.reference_angles[j]
    speed = angular_velocities[b] - angular_velocities[a]
    impulse = -mass_scale * axial_mass * (speed + bias_rate * angle) \
        - impulse_scale * joints.angular_impulses[j]
    joints.angular_impulses[j] += impulse
    _apply_angular(angular_velocities, inverse_inertias, a, b, impulse)


@njit(refcounted=False)
def _solve_slider(joints, j, a, b, rax, ray, rbx, rby, dx, dy, ux, uy, angles, velocities,
                  angular_velocities, inverse_masses, inverse_inertias, h, inverse_h,
                  use_bias, soft):
    """A prismatic or wheel joint: the rows along the axis u (wheel spring, prismatic
    motor, limits), then B's anchor held on the line (and, for a prismatic joint, the
    angle held), the two solved together as one 2×2 block for the prismatic joint."""
    kind = joints.kinds[j]
    a1 = cross(dx + rax, dy + ray, ux, uy)
    a2 = cross(rbx, rby, ux, uy)
    im_a, ii_a, im_b, ii_b = (inverse_masses[a], inverse_inertias[a], inverse_masses[b],
                              inverse_inertias[b])
    axial_mass = _inverse(im_a + im_b + ii_a * a1 * a1 + ii_b * a2 * a2)
    translation = ux * dx + uy * dy
    springs, motors = joints.spring_impulses, joints.motor_impulses
    lowers, uppers = joints.lower_impulses, joints.upper_impulses
    if kind == WHEEL:
        _solve_angle_rows(joints, j, a, b, angles, angular_velocities, inverse_inertias, h,
                          inverse_h, use_bias, soft, 0.0, 0.0)
        if joints.hertz[j] > 0.0:
            bias_rate, mass_scale, impulse_scale = spring(joints.hertz[j],
                                                          joints.damping_ratios[j], h)
            speed = _axial_speed(velocities, angular_velocities, a, b, ux, uy, a1, a2)
            impulse = -mass_scale * axial_mass * (speed + bias_rate * translation) \
                - impulse_scale * springs[j]
            springs[j] += impulse
            _apply_axial(velocities, angular_velocities, inverse_masses, inverse_inertias,
                         a, b, impulse, ux, uy, a1, a2)
    elif joints.max_motor[j] > 0.0:
        speed = _axial_speed(velocities, angular_velocities, a, b, ux, uy, a1, a2)
        bound = joints.max_motor[j] * h
        total = min(max(motors[j] + axial_mass * (joints.motor_speeds[j] - speed), -bound),
                    bound)
        impulse = total - motors[j]
        motors[j] = total
        _apply_axial(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b,
                     impulse, ux, uy, a1, a2)
    if joints.lower[j] > -math.inf:
        bias, mass_scale, impulse_scale = _limit(translation - joints.lower[j], use_bias,
                                                 soft, inverse_h)
        speed = _axial_speed(velocities, angular_velocities, a, b, ux, uy, a1, a2)
        impulse = -mass_scale * axial_mass * (speed + bias) - impulse_scale * lowers[j]
        total = max(lowers[j] + impulse, 0.0)
        impulse = total - lowers[j]
        lowers[j] = total
        _apply_axial(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b,
                     impulse, ux, uy, a1, a2)
    if joints.upper[j] < math.inf:
        bias, mass_scale, impulse_scale = _limit(joints.upper[j] - translation, use_bias,
                                                 soft, inverse_h)
        speed = -_axial_speed(velocities, angular_velocities, a, b, ux, uy, a1, a2)
        impulse = -mass_scale * axial_mass * (speed + bias) - impulse_scale * uppers[j]
        total = max(uppers[j] + impulse, 0.0)
        impulse = total - uppers[j]
        uppers[j] = total
        _apply_axial(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b,
                     -impulse, ux, uy, a1, a2)
    # B's anchor on the line through A's anchor along u: C = p·d with p = (−u_y, u_x).
    px, py = -uy, ux
    s1 = cross(dx + rax, dy + ray, px, py)
    s2 = cross(rbx, rby, px, py)
    bias_rate, mass_scale, impulse_scale = _equality(use_bias, soft)
    perpendicular = px * dx + py * dy
    speed = _axial_speed(velocities, angular_velocities, a, b, px, py, s1, s2)
    linear = joints.linear_impulses
    if kind == WHEEL:
        perpendicular_mass = _inverse(im_a + im_b + ii_a * s1 * s1 + ii_b * s2 * s2)
        impulse = -mass_scale * perpendicular_mass * (speed + bias_rate * perpendicular) \
            - impulse_scale * linear[j, 0]
        linear[j, 0] += impulse
        _apply_axial(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b,
                     impulse, px, py, s1, s2)
        return
    # Prismatic: the perpendicular row and the angle row as one 2×2 block.
    angle = angles[b] - angles[a] - joints.reference_angles[j]
    turn = angular_velocities[b] - angular_velocities[a]
    k11 = im_a + im_b + ii_a * s1 * s1 + ii_b * s2 * s2
    k12 = ii_a * s1 + ii_b * s2
    k22 = ii_a + ii_b
    if k22 == 0.0:
        k22 = 1.0  # both bodies cannot turn: the angle row is idle
    bx, by = _solve_2x2(k11, k12, k22, speed + bias_rate * perpendicular,
                        turn + bias_rate * angle)
    impulse = -mass_scale * bx - impulse_scale * linear[j, 0]
    angular_impulse = -mass_scale * by - impulse_scale * joints.angular_impulses[j]
    linear[j, 0] += impulse
    joints.angular_impulses[j] += angular_impulse
    _apply_axial(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b,
                 impulse, px, py, s1, s2)
    _apply_angular(angular_velocities, inverse_inertias, a, b, angular_impulse)


@njit(refcounted=False)
def _solve_mouse(joints, j, b, rbx, rby, centers, velocities, angular_velocities,
                 inverse_masses, inverse_inertias, h):
    """A mouse joint: a spring (its hertz and damping ratio) pulling B's anchor towards
    the target, its total force at most ``max_forces``."""
    linear = joints.linear_impulses
    bias_rate, mass_scale, impulse_scale = spring(joints.hertz[j], joints.damping_ratios[j], h)
    im, ii = inverse_masses[b], inverse_inertias[b]
    k11, k12, k22 = _point_mass(0.0, 0.0, im, ii, 0.0, 0.0, rbx, rby)
    cx = centers[b, 0] + rbx - joints.local_anchors[j, 0, 0]
    cy = centers[b, 1] + rby - joints.local_anchors[j, 0, 1]
    vx = velocities[b, 0] - angular_velocities[b] * rby
    vy = velocities[b, 1] + angular_velocities[b] * rbx
    bx, by = _solve_2x2(k11, k12, k22, vx + bias_rate * cx, vy + bias_rate * cy)
    old_x, old_y = linear[j, 0], linear[j, 1]
    total_x, total_y = _within(old_x - mass_scale * bx - impulse_scale * old_x,
                               old_y - mass_scale * by - impulse_scale * old_y,
                               joints.max_forces[j] * h)
    linear[j, 0] = total_x
    linear[j, 1] = total_y
    px = total_x - old_x
    py = total_y - old_y
    velocities[b, 0] += im * px
    velocities[b, 1] += im * py
    angular_velocities[b] += ii * cross(rbx, rby, px, py)


@njit(refcounted=False, inline=True)
def _within(x, y, bound):
    """The impulse (x, y) shortened to length ``bound`` (N·s) if it is longer: a force limit
    over the step, in every direction alike."""
    size = math.sqrt(x * x + y * y)
    if size > bound:
        return x * (bound / size), y * (bound / size)
    return x, y


@njit(refcounted=False)
def _wrapped(angle):
    """``angle`` (rad) moved by whole turns into (−π, π]: the short way round."""
    turns = math.floor((math.pi - angle) / (2.0 * math.pi))
    return angle + 2.0 * math.pi * turns


@njit(refcounted=False)
def _solve_motor(joints, j, a, b, rax, ray, rbx, rby, dx, dy, ox, oy, angles, velocities,
                 angular_velocities, inverse_masses, inverse_inertias, h):
    """A motor joint: the angle row, then the point row, each driving its error C to
    (1 − β)·C in the (sub)step (velocity target −β·C/h), their totals bounded by h times
    the largest torque and force. ``(ox, oy)`` is the offset R_A·o in the world now."""
    beta_rate = joints.correction_factors[j] / h
    angular = joints.angular_impulses
    angle = _wrapped(angles[b] - angles[a] - joints.reference_angles[j])
    turn = angular_velocities[b] - angular_velocities[a]
    old = angular[j]
    bound = joints.max_motor[j] * h
    total = min(max(old - _inverse(inverse_inertias[a] + inverse_inertias[b])
                    * (turn + beta_rate * angle), -bound), bound)
    angular[j] = total
    _apply_angular(angular_velocities, inverse_inertias, a, b, total - old)
    linear = joints.linear_impulses
    k11, k12, k22 = _point_mass(inverse_masses[a], inverse_inertias[a], inverse_masses[b],
                                inverse_inertias[b], rax, ray, rbx, rby)
    dvx, dvy = relative_velocity(velocities, angular_velocities, a, b, rax, ray, rbx, rby)
    bx, by = _solve_2x2(k11, k12, k22, dvx + beta_rate * (dx - ox),
                        dvy + beta_rate * (dy - oy))
    old_x, old_y = linear[j, 0], linear[j, 1]
    total_x, total_y = _within(old_x - bx, old_y - by, joints.max_forces[j] * h)
    linear[j, 0] = total_x
    linear[j, 1] = total_y
    apply_impulse(velocities, angular_velocities, inverse_masses, inverse_inertias, a, b,
                  total_x - old_x, total_y - old_y, rax, ray, rbx, rby)


@njit(refcounted=False)
def solve_joints(joints, bodies, work, motion, h, use_bias, soft):
    """One Gauss–Seidel pass over every joint of an awake body (see the module doc).

    ``soft`` (a :class:`~physbook.dynamics.contact_solver.Softness`) removes the position
    error of rigid rows when ``use_bias`` is on; without it they only hold the velocity.
    """
    kinds, pairs = joints.kinds, joints.bodies
    centers, angles, velocities, angular_velocities = (
        bodies.centers, bodies.angles, bodies.velocities, bodies.angular_velocities)
    inverse_masses, inverse_inertias, awake = (bodies.inverse_masses, bodies.inverse_inertias,
                                               bodies.awake)
    arms, axes = work
    delta_cos, delta_sin = motion.delta_cos, motion.delta_sin
    inverse_h = 1.0 / h
    for j in range(kinds.shape[0]):
        a = pairs[j, 0]
        b = pairs[j, 1]
        if not (awake[a] or awake[b]):
            continue
        kind = kinds[j]
        if kind == MOUSE:
            rbx, rby = rotate(delta_cos[b], delta_sin[b], arms[j, 1, 0], arms[j, 1, 1])
            _solve_mouse(joints, j, b, rbx, rby, centers, velocities, angular_velocities,
                         inverse_masses, inverse_inertias, h)
            continue
        rax, ray, rbx, rby, dx, dy, ux, uy = _axis_frame(j, a, b, arms, axes, centers,
                                                         delta_cos, delta_sin)
        if kind == DISTANCE:
            _solve_distance(joints, j, a, b, rax, ray, rbx, rby, dx, dy, velocities,
                            angular_velocities, inverse_masses, inverse_inertias, h,
                            inverse_h, use_bias, soft)
        elif kind == REVOLUTE:
            _solve_angle_rows(joints, j, a, b, angles, angular_velocities, inverse_inertias,
                              h, inverse_h, use_bias, soft, joints.hertz[j],
                              joints.damping_ratios[j])
            bias_rate, mass_scale, impulse_scale = _equality(use_bias, soft)
            _solve_point(joints, j, a, b, rax, ray, rbx, rby, dx, dy, velocities,
                         angular_velocities, inverse_masses, inverse_inertias, bias_rate,
                         mass_scale, impulse_scale)
        elif kind == WELD:
            _solve_weld_angle(joints, j, a, b, angles, angular_velocities, inverse_inertias,
                              h, use_bias, soft)
            if joints.hertz[j] > 0.0:
                bias_rate, mass_scale, impulse_scale = spring(joints.hertz[j],
                                                              joints.damping_ratios[j], h)
            else:
                bias_rate, mass_scale, impulse_scale = _equality(use_bias, soft)
            _solve_point(joints, j, a, b, rax, ray, rbx, rby, dx, dy, velocities,
                         angular_velocities, inverse_masses, inverse_inertias, bias_rate,
                         mass_scale, impulse_scale)
        elif kind == MOTOR:
            # The motor's error is its drive, not drift: removed in every pass, relax too.
            _solve_motor(joints, j, a, b, rax, ray, rbx, rby, dx, dy, ux, uy, angles,
                         velocities, angular_velocities, inverse_masses, inverse_inertias, h)
        else:
            _solve_slider(joints, j, a, b, rax, ray, rbx, rby, dx, dy, ux, uy, angles,
                          velocities, angular_velocities, inverse_masses, inverse_inertias,
                          h, inverse_h, use_bias, soft)


@njit(refcounted=False)
def store_joint_impulses(joints, bodies, work, motion, scale, inverse_dt):
    """Keep this step's impulses, times ``scale`` (the substeps of the soft step), for the
    next step, and turn them into each joint's reaction on B: force (N) and torque (N·m)."""
    kinds, pairs = joints.kinds, joints.bodies
    linear, angular, springs, motors, lowers, uppers = (
        joints.linear_impulses, joints.angular_impulses, joints.spring_impulses,
        joints.motor_impulses, joints.lower_impulses, joints.upper_impulses)
    forces, torques = joints.reaction_forces, joints.reaction_torques
    centers = bodies.centers
    arms, axes = work
    delta_cos, delta_sin = motion.delta_cos, motion.delta_sin
    scale_impulses(joints, scale)
    for j in range(kinds.shape[0]):
        kind = kinds[j]
        a = pairs[j, 0]
        b = pairs[j, 1]
        fx = linear[j, 0]
        fy = linear[j, 1]
        torque = 0.0
        if kind == REVOLUTE:
            torque = springs[j] + motors[j] + lowers[j] - uppers[j]
        elif kind == WELD or kind == MOTOR:
            torque = angular[j]
        elif kind == DISTANCE or kind == PRISMATIC or kind == WHEEL:
            rax, ray, rbx, rby, dx, dy, ux, uy = _axis_frame(j, a, b, arms, axes, centers,
                                                             delta_cos, delta_sin)
            axial = springs[j] + lowers[j] - uppers[j]
            if kind == DISTANCE:
                length = math.sqrt(dx * dx + dy * dy)
                ux, uy = (dx / length, dy / length) if length > 0.0 else (0.0, 0.0)
                fx = fy = 0.0
            else:
                fx, fy = -uy * linear[j, 0], ux * linear[j, 0]
                if kind == PRISMATIC:
                    axial += motors[j]
                    torque = angular[j]
                else:
                    torque = motors[j]
            fx += axial * ux
            fy += axial * uy
        forces[j, 0] = fx * inverse_dt
        forces[j, 1] = fy * inverse_dt
        torques[j] = torque * inverse_dt
