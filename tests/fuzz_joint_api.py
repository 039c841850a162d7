"""Fuzz cases for chapter 11: joints, their settings and sleep (the jointed scenes are in
``fuzz_collision``, with the other scenes)."""

from __future__ import annotations

from fuzz_support import Case

import physbook as pb


def _pair():
    """A world with a static pin and a ball beside it."""
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0.0, 0.0), kind="static")
    ball = world.add_body(pb.Circle(0.2), position=(1.0, 0.0))
    return world, pin, ball


#: Each joint's constructor with valid arguments for the pair of _pair().
_VALID = {
    pb.DistanceJoint: {"anchor_a": (0.0, 0.0), "anchor_b": (1.0, 0.0), "length": 1.0,
                       "min_length": 0.5, "max_length": 2.0, "hertz": 1.0,
                       "damping_ratio": 0.5, "collide_connected": False},
    pb.RevoluteJoint: {"anchor": (0.0, 0.0), "lower_angle": -1.0, "upper_angle": 1.0,
                       "motor_speed": 1.0, "max_motor_torque": 1.0, "hertz": 1.0,
                       "damping_ratio": 0.5, "collide_connected": False},
    pb.PrismaticJoint: {"anchor": (0.0, 0.0), "axis": (1.0, 0.0), "lower": -1.0,
                        "upper": 1.0, "motor_speed": 1.0, "max_motor_force": 1.0,
                        "collide_connected": False},
    pb.WeldJoint: {"anchor": (0.5, 0.0), "linear_hertz": 1.0, "angular_hertz": 1.0,
                   "linear_damping_ratio": 1.0, "angular_damping_ratio": 1.0,
                   "collide_connected": False},
    pb.WheelJoint: {"anchor": (1.0, 0.0), "axis": (0.0, 1.0), "hertz": 1.0,
                    "damping_ratio": 0.7, "motor_speed": 1.0, "max_motor_torque": 1.0,
                    "lower": -1.0, "upper": 1.0, "collide_connected": False},
    pb.MotorJoint: {"linear_offset": (1.0, 0.5), "angular_offset": 0.5, "max_force": 10.0,
                    "max_torque": 1.0, "correction_factor": 0.3, "collide_connected": False},
}


def _construct(joint_class, argument: str):
    def call(bad):
        world, pin, ball = _pair()
        arguments = dict(_VALID[joint_class], **{argument: bad})
        world.add_joint(joint_class(pin, ball, **arguments)).body_b.world.step(1 / 60)
    return call


def _construct_body(joint_class, argument: str):
    def call(bad):
        _, pin, ball = _pair()
        bodies = {"body_a": pin, "body_b": ball, argument: bad}
        return joint_class(bodies["body_a"], bodies["body_b"], **_VALID[joint_class])
    return call


def _mouse(argument: str):
    def call(bad):
        world, _, ball = _pair()
        arguments = {"body": ball, "target": (1.0, 1.0), "max_force": 10.0, argument: bad}
        world.add_joint(pb.MouseJoint(**arguments))
        world.step(1 / 60)
    return call


def _joint_setting(make, argument: str):
    def call(bad):
        world, pin, ball = _pair()
        joint = world.add_joint(make(pin, ball))
        setattr(joint, argument, bad)
        world.step(1 / 60)
    return call


def _world_call(method: str, argument: str):
    def call(bad):
        world, _, _ = _pair()
        getattr(world, method)(bad)
    return call


def _world_setting(argument: str):
    def call(bad):
        world, _, _ = _pair()
        setattr(world, argument, bad)
        world.step(1 / 60)
    return call


def _awake(bad):
    _, _, ball = _pair()
    ball.awake = bad


CASES: list[Case] = [
    *(Case(f"{cls.__name__}", argument, _construct(cls, argument))
      for cls, arguments in _VALID.items() for argument in arguments),
    *(Case(f"{cls.__name__}", argument, _construct_body(cls, argument))
      for cls in _VALID for argument in ("body_a", "body_b")),
    *(Case("MouseJoint", argument, _mouse(argument))
      for argument in ("body", "target", "max_force", "hertz", "damping_ratio")),
    Case("RevoluteJoint.motor_speed", "motor_speed", _joint_setting(
        lambda a, b: pb.RevoluteJoint(a, b, (0.0, 0.0)), "motor_speed")),
    Case("RevoluteJoint.max_motor_torque", "max_motor_torque", _joint_setting(
        lambda a, b: pb.RevoluteJoint(a, b, (0.0, 0.0)), "max_motor_torque")),
    Case("RevoluteJoint.hertz", "hertz", _joint_setting(
        lambda a, b: pb.RevoluteJoint(a, b, (0.0, 0.0)), "hertz")),
    Case("PrismaticJoint.motor_speed", "motor_speed", _joint_setting(
        lambda a, b: pb.PrismaticJoint(a, b, (0.0, 0.0), (1.0, 0.0)), "motor_speed")),
    Case("DistanceJoint.length", "length", _joint_setting(
        lambda a, b: pb.DistanceJoint(a, b, (0.0, 0.0), (1.0, 0.0)), "length")),
    Case("WheelJoint.motor_speed", "motor_speed", _joint_setting(
        lambda a, b: pb.WheelJoint(a, b, (1.0, 0.0), (0.0, 1.0)), "motor_speed")),
    Case("MouseJoint.target", "target", _joint_setting(
        lambda a, b: pb.MouseJoint(b, (1.0, 1.0), 10.0), "target")),
    Case("MouseJoint.max_force", "max_force", _joint_setting(
        lambda a, b: pb.MouseJoint(b, (1.0, 1.0), 10.0), "max_force")),
    Case("World.add_joint", "joint", _world_call("add_joint", "joint")),
    Case("World.remove_joint", "joint", _world_call("remove_joint", "joint")),
    *(Case(f"World.{argument}", argument, _world_setting(argument))
      for argument in ("sleeping", "sleep_linear_speed", "sleep_angular_speed",
                       "time_to_sleep")),
    Case("Body.awake", "awake", _awake),
]


def _drawing(argument: str):
    def call(bad):
        import matplotlib.pyplot as plt

        from physbook.viz import draw_joints

        world, pin, ball = _pair()
        world.add_joint(pb.DistanceJoint(pin, ball, (0.0, 0.0), (1.0, 0.0)))
        figure, ax = plt.subplots()
        arguments = {"ax": ax, "joints": world.joint_arrays, "centers": world.bodies.centers,
                     "angles": world.bodies.angles, argument: bad}
        try:
            draw_joints(**arguments)
        finally:
            plt.close(figure)
    return call


CASES += [Case("viz.draw_joints", argument, _drawing(argument))
          for argument in ("ax", "joints", "centers", "angles", "color", "linewidth")]
