"""Each joint's rows (chapter 11 §11.3) against the solver: the rows J are written here from
the pose alone and checked by finite differences of the joint's rules C at a general pose;
the solver must then apply every impulse along Jᵀ (Δv = M⁻¹Jᵀλ) and its rigid passes must
drive J·v of the rules to zero, at a pose where the anchors' gap d is not zero, so that a
prismatic or wheel joint's turning term, −ω_A (u·d), counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb

KINDS = ["revolute", "prismatic", "weld", "wheel", "mouse"]
AXIS = np.array([0.8, 0.6])
LIMITS_AND_MOTORS = {
    "revolute": dict(lower_angle=-1.0, upper_angle=1.0, motor_speed=1.0, max_motor_torque=0.1),
    "prismatic": dict(lower=-0.1, upper=0.5, motor_speed=1.0, max_motor_force=0.5),
    "weld": {}, "wheel": dict(motor_speed=3.0, max_motor_torque=0.2), "mouse": {}}
ANGLE_ROW = np.array([0.0, 0.0, -1.0, 0.0, 0.0, 1.0])


def turned(v):
    return np.array([-v[1], v[0]])


def cross_z(a, b):
    return a[0] * b[1] - a[1] * b[0]


def line_row(n, arm_a, r_b):
    return np.array([-n[0], -n[1], -cross_z(arm_a, n), n[0], n[1], cross_z(r_b, n)])


def point_rows(r_a, r_b):
    return np.hstack([-np.eye(2), -turned(r_a)[:, None], np.eye(2), turned(r_b)[:, None]])


def pair(kind, solver=None, **settings):
    rng = np.random.default_rng(7)
    world = pb.World(gravity=(0, 0), solver=solver)
    a = world.add_body(pb.Polygon.box(0.4, 0.3), position=(0.1, 0.2), angle=0.3,
                       velocity=rng.normal(size=2), angular_velocity=rng.normal())
    b = world.add_body(pb.Polygon.box(0.3, 0.2), position=(1.4, 0.9), angle=-0.2,
                       velocity=rng.normal(size=2), angular_velocity=rng.normal())
    joint = {"revolute": lambda: pb.RevoluteJoint(a, b, (0.7, 0.5), **settings),
             "prismatic": lambda: pb.PrismaticJoint(a, b, (0.7, 0.5), AXIS, **settings),
             "weld": lambda: pb.WeldJoint(a, b, (0.7, 0.5), **settings),
             "wheel": lambda: pb.WheelJoint(a, b, (0.7, 0.5), AXIS, **settings),
             "mouse": lambda: pb.MouseJoint(b, (1.3, 0.8), max_force=1.0, **settings)}[kind]()
    world.add_joint(joint)
    return world, joint


def rows(world, joint):
    """(J, C, number of rules) of the world's only joint at the pose now."""
    table = world.joint_arrays
    p_a, p_b = pb.viz.joint_anchor_pairs(table, world.bodies.centers, world.bodies.angles)[0]
    a, b = joint.body_a, joint.body_b
    r_a, r_b, d = p_a - a.center_of_mass, p_b - b.center_of_mass, p_b - p_a
    angle = b.angle - a.angle - table.reference_angles[0]
    cosine, sine = math.cos(a.angle), math.sin(a.angle)
    local = table.local_axes[0]
    u = np.array([cosine * local[0] - sine * local[1], sine * local[0] + cosine * local[1]])
    n = turned(u)
    if joint.kind == "mouse":
        return point_rows(r_b, r_b)[:, 3:], d, 0
    if joint.kind in ("revolute", "weld"):
        return (np.vstack([point_rows(r_a, r_b), ANGLE_ROW]), np.append(d, angle),
                2 if joint.kind == "revolute" else 3)
    side, axial = line_row(n, r_a + d, r_b), line_row(u, r_a + d, r_b)
    if joint.kind == "prismatic":
        return np.array([side, ANGLE_ROW, axial]), np.array([n @ d, angle, u @ d]), 2
    return np.array([side, axial, ANGLE_ROW]), np.array([n @ d, u @ d, angle]), 1


def velocity(joint):
    a, b = joint.body_a, joint.body_b
    own = [*b.velocity, b.angular_velocity]
    return np.array(own if joint.kind == "mouse" else [*a.velocity, a.angular_velocity, *own])


def inverse_mass(joint):
    a, b = joint.body_a, joint.body_b
    own = [1 / b.mass, 1 / b.mass, 1 / b.inertia]
    return np.diag(own if joint.kind == "mouse" else
                   [1 / a.mass, 1 / a.mass, 1 / a.inertia, *own])


def drift(world, seconds):
    world.bodies.arrays.centers[:] += seconds * world.bodies.arrays.velocities
    world.bodies.arrays.angles[:] += seconds * world.bodies.arrays.angular_velocities
    world.bodies.update_origins()


def slid(world, joint):
    """Slide a prismatic or wheel joint's B 0.4 m along its axis: every rule still holds,
    and d = 0.4 u is not zero."""
    if joint.kind in ("prismatic", "wheel"):
        joint.body_b.position = joint.body_b.position + 0.4 * AXIS


@pytest.mark.parametrize("kind", KINDS)
def test_rows_are_the_time_derivative_of_the_rules_at_a_general_pose(kind):
    # Central differences of C over ±ε are exact to O(ε²): 1e-10 for ε = 1e-5 and speeds
    # of order 1, so 1e-8 leaves room for rounding (C/ε ~ 1e-11).
    world, joint = pair(kind)
    joint.body_b.position = joint.body_b.position + (0.3, -0.2)
    joint.body_b.angle = joint.body_b.angle + 0.4
    matrix, rules, _ = rows(world, joint)
    epsilon = 1e-5
    drift(world, epsilon)
    ahead = rows(world, joint)[1]
    drift(world, -2 * epsilon)
    behind = rows(world, joint)[1]
    drift(world, epsilon)
    assert np.abs(rules).min() > 0.05
    assert matrix @ velocity(joint) == pytest.approx((ahead - behind) / (2 * epsilon), abs=1e-8)


@pytest.mark.parametrize("kind", KINDS)
def test_solver_impulses_lie_along_the_rows(kind):
    # Without gravity the only velocity change of a step of sequential impulses is the
    # joint's impulses, M⁻¹Jᵀλ; a least-squares fit of λ then leaves only rounding.
    world, joint = pair(kind, "sequential_impulses", **LIMITS_AND_MOTORS[kind])
    slid(world, joint)
    matrix, rules, held = rows(world, joint)
    assert np.allclose(rules[:held], 0.0, atol=1e-12)
    before = velocity(joint)
    world.step(1 / 60)
    change = velocity(joint) - before
    directions = inverse_mass(joint) @ matrix.T
    multipliers = np.linalg.lstsq(directions, change, rcond=None)[0]
    assert np.abs(change).max() > 1e-3
    assert np.abs(directions @ multipliers - change).max() < 1e-12


@pytest.mark.parametrize("kind", ["revolute", "prismatic", "weld", "wheel"])
def test_relax_passes_hold_the_rules(kind):
    # The relax passes solve the rules rigidly after the positions moved; the last row a
    # pass solves is a joint's rule block (one exact 2×2 or 1×1 solve), so J·v of the rules
    # at the final pose is rounding, and 30 passes converge a weld's two blocks.
    world, joint = pair(kind, pb.SoftStepSolver(substeps=1, relax_iterations=30),
                        **LIMITS_AND_MOTORS[kind])
    slid(world, joint)
    world.step(1 / 60)
    matrix, _, held = rows(world, joint)
    assert np.abs(matrix[:held] @ velocity(joint)).max() < 1e-9
