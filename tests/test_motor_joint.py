"""The motor joint against its analytic motion: each (sub)step asks for the velocity that
removes the fraction β of the pose error, so unbounded it takes the error C to
(1 − β)ⁿ·C in a step of n substeps; bounded, it pushes with its largest force F (torque T),
so a body of mass m (inertia I) gains F/m·dt (T/I·dt) of speed per step."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import physbook as pb

DT = 1.0 / 60.0

#: Solvers by name, with the substeps n of each step (the sequential impulse solver moves
#: the bodies once per step).
SOLVERS = {"soft_step": lambda: pb.SoftStepSolver(),
           "sequential_impulses": lambda: pb.SequentialImpulseSolver()}


def _substeps(solver) -> int:
    return getattr(solver, "substeps", 1)


def driven(solver, shape, gravity=(0.0, -10.0), **settings):
    """A static body A turned by 0.4 rad at (1, 2), and a dynamic body B whose centre of
    mass is its origin (so the motor's arm on B is zero), driven by a motor joint."""
    world = pb.World(gravity=gravity, solver=solver, sleeping=False)
    a = world.add_body(pb.Circle(0.2), position=(1.0, 2.0), angle=0.4, kind="static")
    b = world.add_body(shape, position=(-1.0, 0.5), angle=-0.3)
    joint = world.add_joint(pb.MotorJoint(a, b, **settings))
    return world, a, b, joint


def errors(a, b, joint):
    """B's position and angle errors from its target (m, rad), in the world."""
    cosine, sine = math.cos(a.angle), math.sin(a.angle)
    offset = joint.linear_offset
    target = a.position + np.array([cosine * offset[0] - sine * offset[1],
                                    sine * offset[0] + cosine * offset[1]])
    return b.position - target, b.angle - a.angle - joint.angular_offset


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "staged"])
@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_an_unbounded_motor_removes_the_same_fraction_of_the_error_each_substep(name,
                                                                                compiled):
    solver = SOLVERS[name]()
    beta = 0.3
    world, a, b, joint = driven(solver, pb.Circle(0.5), linear_offset=(1.5, -0.5),
                                angular_offset=0.9, max_force=1e30, max_torque=1e30,
                                correction_factor=beta)
    world.compiled = compiled
    linear0, angular0 = errors(a, b, joint)
    n = _substeps(solver)
    for k in range(1, 16):
        world.step(DT)
        linear, angular = errors(a, b, joint)
        decay = (1.0 - beta) ** (n * k)
        # Gravity pulls on B too: an unbounded motor cancels it within each substep. The
        # floats round ~1e-16 of the 2 m lengths at each of a few operations per substep:
        # 1e-12 m is far above that, and far below the errors left at the end.
        np.testing.assert_allclose(linear, decay * linear0, rtol=0.0, atol=1e-12)
        assert angular == pytest.approx(decay * angular0, abs=1e-12)
    assert np.hypot(*linear) < 0.01 * np.hypot(*linear0)  # it did move most of the way


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_the_largest_force_bounds_the_acceleration_at_f_over_m(name):
    force = 2.0
    world, a, b, joint = driven(SOLVERS[name](), pb.Circle(0.5), gravity=(0.0, 0.0),
                                linear_offset=(100.0, 0.0), angular_offset=-0.3 - 0.4,
                                max_force=force, max_torque=1e30)
    # B starts with its angle on target and the target far away along A's first axis.
    direction = np.array([math.cos(0.4), math.sin(0.4)])
    target = a.position + 100.0 * direction
    direction = (target - b.position) / np.hypot(*(target - b.position))
    mass = b.mass
    for k in range(1, 31):
        world.step(DT)
        # The pull is along the line to the target, which B moves along: speed k·dt·F/m.
        np.testing.assert_allclose(b.velocity, k * DT * force / mass * direction,
                                   rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(joint.reaction_force, force * direction, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(SOLVERS))
def test_the_largest_torque_bounds_the_angular_acceleration_at_t_over_i(name):
    torque = 0.5
    world, a, b, joint = driven(SOLVERS[name](), pb.Polygon.box(0.5, 0.25), gravity=(0, 0),
                                angular_offset=1.5, max_force=1e30, max_torque=torque)
    inertia = b.inertia
    for k in range(1, 31):
        world.step(DT)
        assert b.angular_velocity == pytest.approx(k * DT * torque / inertia, rel=1e-12)
        assert joint.reaction_torque == pytest.approx(torque, rel=1e-12)
        # the linear rows hold B where it was (its offset is where it is)
        assert np.hypot(*errors(a, b, joint)[0]) < 1e-12


def test_two_driven_bodies_keep_their_momentum():
    # A motor joint between two free bodies pushes them apart with equal and opposite
    # impulses: their total momentum stays as it was.
    world = pb.World(gravity=(0.0, 0.0), sleeping=False)
    a = world.add_body(pb.Polygon.box(0.4, 0.3), position=(0.1, 0.2), angle=0.3,
                       velocity=(0.3, -0.2), angular_velocity=0.5)
    b = world.add_body(pb.Circle(0.3), position=(1.4, 0.9), velocity=(-0.1, 0.4))
    world.add_joint(pb.MotorJoint(a, b, linear_offset=(2.0, 1.0), angular_offset=1.0,
                                  max_force=3.0, max_torque=0.4))
    before = a.mass * a.velocity + b.mass * b.velocity
    for _ in range(60):
        world.step(DT)
    np.testing.assert_allclose(a.mass * a.velocity + b.mass * b.velocity, before,
                               atol=1e-12)


def test_the_angle_error_is_taken_the_short_way_round():
    world, a, b, joint = driven(pb.SoftStepSolver(), pb.Polygon.box(0.5, 0.25),
                                gravity=(0.0, 0.0), max_force=1e30, max_torque=1e30)
    joint.angular_offset = joint.angular_offset + 2.0 * math.pi - 0.5  # 0.5 rad ahead
    world.step(DT)
    assert b.angular_velocity < 0.0  # turns back 0.5 rad, not on by 2π − 0.5


def test_defaults_keep_the_bodies_as_they_are_and_settings_survive_removal_and_pickle():
    world, a, b, joint = driven(pb.SoftStepSolver(), pb.Circle(0.5), gravity=(0.0, 0.0))
    assert joint.kind == "motor"
    linear, angular = errors(a, b, joint)
    assert np.hypot(*linear) < 1e-12 and abs(angular) < 1e-12
    joint.linear_offset = (0.5, 0.25)
    joint.correction_factor = 0.5
    twin = pickle.loads(pickle.dumps(world))
    for each in (world, twin):
        for _ in range(20):
            each.step(DT)
    assert np.array_equal(world.bodies.centers, twin.bodies.centers)
    world.remove_joint(joint)
    assert joint.world is None
    np.testing.assert_array_equal(joint.linear_offset, (0.5, 0.25))
    assert joint.correction_factor == 0.5 and joint.max_force == 1.0
    world.add_joint(joint)
    world.remove_body(b)
    assert joint.world is None and world.joints == []


@pytest.mark.parametrize(("arguments", "named"), [
    ({"correction_factor": 1.5}, "correction_factor"),
    ({"correction_factor": -0.1}, "correction_factor"),
    ({"correction_factor": math.nan}, "correction_factor"),
    ({"max_force": -1.0}, "max_force"),
    ({"max_torque": math.inf}, "max_torque"),
    ({"linear_offset": (math.nan, 0.0)}, "linear_offset"),
    ({"linear_offset": (1e12, 0.0)}, "linear_offset"),
    ({"linear_offset": (1.0, 2.0, 3.0)}, "linear_offset"),
    ({"angular_offset": math.inf}, "angular_offset"),
])
def test_bad_arguments_are_refused_by_name(arguments, named):
    world = pb.World()
    a = world.add_body(pb.Circle(0.2), kind="static")
    b = world.add_body(pb.Circle(0.5), position=(1.0, 0.0))
    with pytest.raises((ValueError, TypeError), match=named):
        pb.MotorJoint(a, b, **arguments)
    joint = world.add_joint(pb.MotorJoint(a, b))
    (name, value), = arguments.items()
    with pytest.raises((ValueError, TypeError), match=named):
        setattr(joint, name, value)
