"""Fuzz cases for chapter 11's settings that ``fuzz_joint_api`` leaves out: every joint
setter, the revolute joint's limits, the solvers' joint softness, the world's sleep switch
at construction and a static body's ``awake``."""

from __future__ import annotations

from fuzz_joint_api import _pair  # a static pin and a ball beside it
from fuzz_support import Case

import physbook as pb

DT = 1.0 / 60.0


#: One valid joint of each kind between the pin and the ball of :func:`_pair`.
_JOINTS = {
    "DistanceJoint": lambda pin, ball: pb.DistanceJoint(pin, ball, (0.0, 0.0), (1.0, 0.0)),
    "RevoluteJoint": lambda pin, ball: pb.RevoluteJoint(pin, ball, (0.0, 0.0)),
    "PrismaticJoint": lambda pin, ball: pb.PrismaticJoint(pin, ball, (0.0, 0.0), (1.0, 0.0)),
    "WeldJoint": lambda pin, ball: pb.WeldJoint(pin, ball, (0.5, 0.0)),
    "WheelJoint": lambda pin, ball: pb.WheelJoint(pin, ball, (1.0, 0.0), (0.0, 1.0)),
    "MouseJoint": lambda pin, ball: pb.MouseJoint(ball, (1.0, 1.0), 10.0),
    "MotorJoint": lambda pin, ball: pb.MotorJoint(pin, ball, (1.0, 0.5), 0.5, 10.0, 1.0),
}

#: The settable values of each joint kind not already fuzzed by ``fuzz_joint_api``.
_SETTERS = {
    "DistanceJoint": ("hertz", "damping_ratio"),
    "RevoluteJoint": ("damping_ratio",),
    "PrismaticJoint": ("max_motor_force",),
    "WeldJoint": ("linear_hertz", "angular_hertz"),
    "WheelJoint": ("max_motor_torque", "hertz", "damping_ratio"),
    "MouseJoint": ("hertz", "damping_ratio"),
    "MotorJoint": ("linear_offset", "angular_offset", "max_force", "max_torque",
                   "correction_factor"),
}


def _set_on_joint(kind: str, argument: str, added: bool):
    """Set ``argument`` of a joint of ``kind``, added to its world (then step) or not."""
    def call(bad):
        world, pin, ball = _pair()
        joint = _JOINTS[kind](pin, ball)
        if added:
            world.add_joint(joint)
        setattr(joint, argument, bad)
        if not added:
            world.add_joint(joint)
        world.step(DT)
    return call


def _set_limits(argument: str):
    def call(bad):
        world, pin, ball = _pair()
        hinge = world.add_joint(pb.RevoluteJoint(pin, ball, (0.0, 0.0)))
        hinge.set_limits(**{argument: bad})
        world.step(DT)
    return call


def _solver_joint_setting(make, argument: str, construct: bool):
    """Give ``argument`` to a solver (at construction or by setting it) and step a world
    with a joint through it."""
    def call(bad):
        if construct:
            chosen = make(**{argument: bad})
        else:
            chosen = make()
            setattr(chosen, argument, bad)
        world = pb.World(solver=chosen)
        pin = world.add_body(pb.Circle(0.1), kind="static")
        ball = world.add_body(pb.Circle(0.2), position=(1.0, 0.0))
        world.add_joint(pb.DistanceJoint(pin, ball, (0.0, 0.0), (1.0, 0.0)))
        world.step(DT)
    return call


def _static_awake(bad):
    _, pin, _ = _pair()
    pin.awake = bad


def _sleeping_world(bad):
    world = pb.World(sleeping=bad)
    world.add_body(pb.Circle(0.2))
    world.step(DT)


CASES: list[Case] = [
    *(Case(f"{kind}.{argument}" + ("" if added else ".unadded"), argument,
           _set_on_joint(kind, argument, added))
      for kind, arguments in _SETTERS.items() for argument in arguments
      for added in (True, False)),
    *(Case("RevoluteJoint.set_limits", argument, _set_limits(argument))
      for argument in ("lower_angle", "upper_angle")),
    *(Case(make.__name__ + ("" if construct else "." + argument), argument,
           _solver_joint_setting(make, argument, construct))
      for make in (pb.SoftStepSolver, pb.SequentialImpulseSolver, pb.ImpulseSolver)
      for argument in ("joint_hertz", "joint_damping_ratio")
      for construct in (True, False)),
    Case("World.sleeping.constructor", "sleeping", _sleeping_world),
    Case("Body.awake.static", "awake", _static_awake),
]
