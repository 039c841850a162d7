"""Chapter 11: joints, the constraints a game builds pendulums, chains, bridges, ragdolls and
cars from.

Make a joint from two bodies of a world and points given in world coordinates, then add it:

    hinge = world.add_joint(pb.RevoluteJoint(door, frame, anchor=(1.0, 2.0)))

The joint stores each anchor in its body's frame (relative to the body's centre of mass),
so it moves with the body. Once added, a joint's settings are columns of the world's
:class:`~physbook.dynamics.joint_table.JointTable` that the solver reads every step;
setting one (a motor's speed, a mouse joint's target) writes the column and wakes both
bodies. After each step ``reaction_force`` and ``reaction_torque`` say what the joint did
to body B to hold it.

Every joint is solved by the world's solver beside the contacts
(:mod:`physbook.dynamics.joint_solver`). By default the shapes of two jointed bodies do not
collide with each other (``collide_connected=False``): a hinge's two links overlap at the
pin.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.dynamics.body import Body
from physbook.kinds import (
    DISTANCE,
    JOINT_KINDS,
    MOTOR,
    MOUSE,
    PRISMATIC,
    REVOLUTE,
    WELD,
    WHEEL,
)

#: The largest spring frequency (Hz) and damping ratio a joint takes: far beyond any step a
#: game takes (a 10⁹ Hz spring is rigid at any step longer than a nanosecond), and small
#: enough that (2πf)² and 2ζ·2πf stay far inside float range.
MAX_SPRING_VALUE = 1e9

#: The largest length, limit or motor speed a joint takes (m, rad, m/s or rad/s): a
#: million kilometres, beyond which one step's motion would overflow the arithmetic.
MAX_JOINT_VALUE = 1e9

#: The largest motor force or torque, and mouse force, a joint takes (N or N·m).
MAX_JOINT_FORCE = 1e30


def _bounded(check, limit: float):
    """A check that also refuses magnitudes beyond ``limit``."""
    def checked(value, name: str) -> float:
        value = check(value, name)
        if abs(value) > limit:
            raise ValueError(f"{name} must be at most {limit:g} in size, got {value:g}")
        return value
    return checked


_spring_value = _bounded(_check.non_negative_scalar, MAX_SPRING_VALUE)
_positive_spring_value = _bounded(_check.positive_scalar, MAX_SPRING_VALUE)
_joint_value = _bounded(_check.finite_scalar, MAX_JOINT_VALUE)
_positive_joint_value = _bounded(_check.positive_scalar, MAX_JOINT_VALUE)
_force = _bounded(_check.non_negative_scalar, MAX_JOINT_FORCE)
_positive_force = _bounded(_check.positive_scalar, MAX_JOINT_FORCE)


def _alive_body(value, name: str) -> Body:
    _check.instance(value, name, Body, "a Body")
    if not value.alive:
        raise ValueError(f"{name} was removed from its world")
    return value


def _local_point(body: Body, point: np.ndarray, name: str) -> np.ndarray:
    """World ``point`` (the argument ``name``) in ``body``'s axes, relative to its centre of
    mass; it must lie within MAX_JOINT_VALUE of that centre."""
    arm = point - body.center_of_mass
    if not np.hypot(*arm) <= MAX_JOINT_VALUE:
        raise ValueError(f"{name} must lie within {MAX_JOINT_VALUE:g} m of the centre of "
                         f"mass of the body it holds, got {tuple(point)}")
    cosine, sine = math.cos(body.angle), math.sin(body.angle)
    return np.array([cosine * arm[0] + sine * arm[1], -sine * arm[0] + cosine * arm[1]])


def _world_point(body: Body, local: np.ndarray) -> np.ndarray:
    cosine, sine = math.cos(body.angle), math.sin(body.angle)
    return body.center_of_mass + np.array([cosine * local[0] - sine * local[1],
                                           sine * local[0] + cosine * local[1]])


def _pin(body_a: Body, body_b: Body, anchor: np.ndarray) -> dict:
    """The columns of a joint whose two anchors start at one world point ``anchor``: each
    body's copy of it, and the bodies' angle difference now."""
    return {"local_anchors": np.array([_local_point(body_a, anchor, "anchor"),
                                       _local_point(body_b, anchor, "anchor")]),
            "reference_angles": body_b.angle - body_a.angle}


def _slide(body_a: Body, body_b: Body, anchor, axis, lower, upper) -> dict:
    """The columns of a joint that slides along ``axis`` (world, now) fixed in body A: the
    pin, the axis in A's axes, and the checked limits of the travel."""
    anchor = _check.vector(anchor, "anchor")
    axis = _unit_axis(axis, "axis")
    lower = _limit(lower, "lower", -math.inf)
    upper = _limit(upper, "upper", math.inf)
    _ordered(lower, upper, "lower", "upper")
    cosine, sine = math.cos(body_a.angle), math.sin(body_a.angle)
    return {**_pin(body_a, body_b, anchor), "lower": lower, "upper": upper,
            "local_axes": np.array([cosine * axis[0] + sine * axis[1],
                                    -sine * axis[0] + cosine * axis[1]])}


def _unit_axis(value, name: str) -> np.ndarray:
    axis = _check.vector(value, name)
    length = float(np.hypot(*axis))
    if not length > 0.0 or not math.isfinite(length):
        raise ValueError(f"{name} must be a non-zero direction, got {axis.tolist()}")
    return axis / length


def _limit(value, name: str, default: float) -> float:
    return default if value is None else _joint_value(value, name)


def _ordered(lower: float, upper: float, lower_name: str, upper_name: str) -> None:
    if lower > upper:
        raise ValueError(f"{lower_name} must not exceed {upper_name}, got {lower} > {upper}")


class _Column:
    """A joint setting kept in a column of the world's joint table once the joint is added
    (before that, on the joint). Setting it is checked, and wakes the joint's bodies."""

    def __init__(self, column: str, check, doc: str):
        self.column = column
        self.check = check
        self.__doc__ = doc

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, joint, owner=None):
        if joint is None:
            return self
        return joint._read(self.column)

    def __set__(self, joint, value) -> None:
        joint._write(self.column, self.check(joint, value, self.name))


def _checked(check):
    return lambda joint, value, name: check(value, name)


class Joint:
    """What every joint has: two bodies, a world once added, a reaction, a filter flag."""

    kind_code = -1

    def __init__(self, body_a: Body, body_b: Body, collide_connected: bool = False):
        body_a = _alive_body(body_a, "body_a")
        body_b = _alive_body(body_b, "body_b")
        if body_a.world is not body_b.world:
            raise ValueError("body_a and body_b must belong to the same world")
        if body_a.id == body_b.id and self.kind_code != MOUSE:
            raise ValueError("body_a and body_b must be two different bodies")
        if self.kind_code != MOUSE and body_a.kind != "dynamic" and body_b.kind != "dynamic":
            raise ValueError("a joint needs at least one dynamic body: body_a and body_b are "
                             f"{body_a.kind} and {body_b.kind}, and neither can move")
        self._body_a = body_a
        self._body_b = body_b
        self._collide_connected = _check.flag(collide_connected, "collide_connected")
        self._values = {"kinds": self.kind_code, "lower": -math.inf, "upper": math.inf}
        self._world = None
        self._id = -1
        self._removed_with: tuple[int, ...] = ()  # ids of its bodies whose removal took it

    # --- the table behind the joint ---------------------------------------------------

    def _row(self) -> int:
        return self._world._joints.row_of(self._id)

    def _read(self, column: str):
        if self._world is None:
            value = self._values.get(column, 0.0)
        else:
            value = getattr(self._world._joints.arrays, column)[self._row()]
        return value.copy() if isinstance(value, np.ndarray) else float(value)

    def _write(self, column: str, value) -> None:
        self._values[column] = value
        if self._world is not None:
            getattr(self._world._joints.arrays, column)[self._row()] = value
            self.wake_bodies()

    def _attach(self, world, joint_id: int) -> None:
        self._world, self._id = world, joint_id

    def _settings(self, table) -> dict:
        """The settings ``table`` holds for this joint: what it keeps when it leaves."""
        arrays, row = table.arrays, table.row_of(self._id)
        settings = {}
        for column in self._values:
            if column != "kinds":
                value = getattr(arrays, column)[row]
                settings[column] = value.copy() if isinstance(value, np.ndarray) \
                    else float(value)
        return settings

    def _leave(self, settings: dict, removed_with: tuple[int, ...] = ()) -> None:
        """Leave the world (its table has dropped the joint's row), keeping ``settings``;
        ``removed_with``: the ids of its bodies whose removal took it along. Calling it
        again changes nothing more."""
        self._values.update(settings)
        self._world, self._id, self._removed_with = None, -1, removed_with

    def row_values(self) -> dict:
        """The columns of this joint's row, as :meth:`World.add_joint` writes them."""
        values = dict(self._values)
        values["bodies"] = (self._body_a.row, self._body_b.row)
        return values

    def wake_bodies(self) -> None:
        """Wake both bodies (a joint that changes moves them)."""
        for body in (self._body_a, self._body_b):
            if body.alive:
                body.awake = True

    # --- what every joint shows -------------------------------------------------------

    @property
    def kind(self) -> str:
        """The joint's kind: ``"distance"``, ``"revolute"``, ``"prismatic"``, ``"weld"``,
        ``"wheel"``, ``"mouse"`` or ``"motor"``."""
        return JOINT_KINDS[self.kind_code]

    @property
    def body_a(self) -> Body:
        return self._body_a

    @property
    def body_b(self) -> Body:
        return self._body_b

    @property
    def world(self):
        """The world the joint was added to, or None."""
        return self._world

    @property
    def collide_connected(self) -> bool:
        """Whether the shapes of the two bodies collide with each other (False by default)."""
        return self._collide_connected

    @property
    def reaction_force(self) -> np.ndarray:
        """The force (N) the joint put on body B in the last step, in world axes (body A
        received the opposite). Zero before the first step."""
        return self._read("reaction_forces") if self._world is not None else np.zeros(2)

    @property
    def reaction_torque(self) -> float:
        """The torque (N·m) about B's centre the joint's angular rows put on B in the last
        step (a revolute joint's spring, motor and limits; a weld's or prismatic joint's
        angle row)."""
        return self._read("reaction_torques") if self._world is not None else 0.0

    def __repr__(self) -> str:
        where = "not in a world" if self._world is None else f"id={self._id}"
        return (f"{type(self).__name__}(body_a={self._body_a.id}, body_b={self._body_b.id}, "
                f"{where})")


class DistanceJoint(Joint):
    """Keeps an anchor on each body at a distance: a rod, a rope or a spring.

    Parameters
    ----------
    body_a, body_b
        The bodies (of one world; at least one dynamic).
    anchor_a, anchor_b
        The anchors in world coordinates now (m).
    length
        The rest length (m, > 0); the anchors' distance now when None.
    min_length, max_length
        The range the distance is kept in (m, 0 ≤ min ≤ length ≤ max). Without a spring
        both default to ``length`` (a rigid rod); give ``max_length`` alone for a rope
        (slack below it). With a spring they default to 0 and ∞.
    hertz, damping_ratio
        A spring towards ``length`` of frequency f (Hz, ≥ 0; 0: no spring) and damping
        ratio ζ (≥ 0): a mass m on it oscillates at f, its stiffness is m·(2πf)².
    collide_connected
        Whether the two bodies' shapes collide with each other.
    """

    kind_code = DISTANCE

    def __init__(self, body_a: Body, body_b: Body, anchor_a, anchor_b, length=None,
                 min_length=None, max_length=None, hertz: float = 0.0,
                 damping_ratio: float = 0.0, collide_connected: bool = False):
        super().__init__(body_a, body_b, collide_connected)
        anchor_a = _check.vector(anchor_a, "anchor_a")
        anchor_b = _check.vector(anchor_b, "anchor_b")
        hertz = _spring_value(hertz, "hertz")
        damping_ratio = _spring_value(damping_ratio, "damping_ratio")
        distance = float(np.hypot(*(anchor_b - anchor_a)))
        if length is None:
            if not distance > 0.0:
                raise ValueError("anchor_a and anchor_b are at the same point: give a "
                                 "positive length")
            length = distance
        length = _positive_joint_value(length, "length")
        if hertz == 0.0 and min_length is None and max_length is None:
            min_length = max_length = length  # a rigid rod
        else:
            min_length = _limit(min_length, "min_length", 0.0)
            max_length = _limit(max_length, "max_length", math.inf)
        if min_length < 0.0:
            raise ValueError(f"min_length must be non-negative, got {min_length}")
        _ordered(min_length, max_length, "min_length", "max_length")
        if not min_length <= length <= max_length:
            raise ValueError(f"length must lie between min_length and max_length, got "
                             f"{length} outside [{min_length}, {max_length}]")
        self._values.update({
            "local_anchors": np.array([_local_point(body_a, anchor_a, "anchor_a"),
                                       _local_point(body_b, anchor_b, "anchor_b")]),
            "lengths": length, "lower": min_length, "upper": max_length, "hertz": hertz,
            "damping_ratios": damping_ratio,
        })

    length = _Column("lengths", _checked(_positive_joint_value), "Rest length (m).")
    hertz = _Column("hertz", _checked(_spring_value),
                    "Spring frequency (Hz); 0: no spring.")
    damping_ratio = _Column("damping_ratios", _checked(_spring_value),
                            "Spring damping ratio.")

    @property
    def min_length(self) -> float:
        """Shortest distance allowed (m)."""
        return self._read("lower")

    @property
    def max_length(self) -> float:
        """Longest distance allowed (m)."""
        return self._read("upper")

    @property
    def anchors(self) -> tuple[np.ndarray, np.ndarray]:
        """The two anchors in the world now (m)."""
        local = self._read("local_anchors")
        return _world_point(self._body_a, local[0]), _world_point(self._body_b, local[1])

    @property
    def current_length(self) -> float:
        """The distance between the anchors now (m)."""
        anchor_a, anchor_b = self.anchors
        return float(np.hypot(*(anchor_b - anchor_a)))


class RevoluteJoint(Joint):
    """Pins two bodies together at a point; they turn freely about it (a hinge).

    Parameters
    ----------
    body_a, body_b
        The bodies (of one world; at least one dynamic).
    anchor
        The pin, in world coordinates now (m).
    lower_angle, upper_angle
        Limits of the joint angle θ_B − θ_A − θ₀ (rad; θ₀ is that difference now); None:
        no limit.
    motor_speed, max_motor_torque
        A motor that drives ω_B − ω_A to ``motor_speed`` (rad/s) with at most
        ``max_motor_torque`` (N·m, ≥ 0; 0: no motor).
    hertz, damping_ratio
        An angular spring towards θ₀ (Hz, ≥ 0; 0: none) and its damping ratio.
    collide_connected
        Whether the two bodies' shapes collide with each other.
    """

    kind_code = REVOLUTE

    def __init__(self, body_a: Body, body_b: Body, anchor, lower_angle=None, upper_angle=None,
                 motor_speed: float = 0.0, max_motor_torque: float = 0.0,
                 hertz: float = 0.0, damping_ratio: float = 0.0,
                 collide_connected: bool = False):
        super().__init__(body_a, body_b, collide_connected)
        anchor = _check.vector(anchor, "anchor")
        lower = _limit(lower_angle, "lower_angle", -math.inf)
        upper = _limit(upper_angle, "upper_angle", math.inf)
        _ordered(lower, upper, "lower_angle", "upper_angle")
        self._values.update({
            **_pin(body_a, body_b, anchor), "lower": lower, "upper": upper,
            "motor_speeds": _joint_value(motor_speed, "motor_speed"),
            "max_motor": _force(max_motor_torque, "max_motor_torque"),
            "hertz": _spring_value(hertz, "hertz"),
            "damping_ratios": _spring_value(damping_ratio, "damping_ratio"),
        })

    motor_speed = _Column("motor_speeds", _checked(_joint_value),
                          "Speed the motor drives ω_B − ω_A to (rad/s).")
    max_motor_torque = _Column("max_motor", _checked(_force),
                               "Largest motor torque (N·m); 0: no motor.")
    hertz = _Column("hertz", _checked(_spring_value),
                    "Angular spring frequency (Hz); 0: none.")
    damping_ratio = _Column("damping_ratios", _checked(_spring_value),
                            "Angular spring damping ratio.")

    @property
    def lower_angle(self) -> float:
        """Lower limit of the joint angle (rad; −inf: none)."""
        return self._read("lower")

    @property
    def upper_angle(self) -> float:
        """Upper limit of the joint angle (rad; inf: none)."""
        return self._read("upper")

    def set_limits(self, lower_angle=None, upper_angle=None) -> None:
        """Set both limits (rad; None: none); ``lower_angle`` ≤ ``upper_angle``."""
        lower = _limit(lower_angle, "lower_angle", -math.inf)
        upper = _limit(upper_angle, "upper_angle", math.inf)
        _ordered(lower, upper, "lower_angle", "upper_angle")
        self._write("lower", lower)
        self._write("upper", upper)

    @property
    def angle(self) -> float:
        """The joint angle θ_B − θ_A − θ₀ now (rad)."""
        return self._body_b.angle - self._body_a.angle - self._read("reference_angles")

    @property
    def anchor(self) -> np.ndarray:
        """The pin as body A carries it now (m)."""
        return _world_point(self._body_a, self._read("local_anchors")[0])


class PrismaticJoint(Joint):
    """Lets body B slide along an axis fixed in body A, without turning relative to it.

    Parameters
    ----------
    body_a, body_b
        The bodies (of one world; at least one dynamic).
    anchor
        A point on the axis, in world coordinates now (m).
    axis
        The direction of sliding in the world now (normalised; non-zero).
    lower, upper
        Limits of the translation along the axis from the anchor (m); None: no limit.
    motor_speed, max_motor_force
        A motor driving the sliding speed to ``motor_speed`` (m/s) with at most
        ``max_motor_force`` (N, ≥ 0; 0: no motor).
    collide_connected
        Whether the two bodies' shapes collide with each other.
    """

    kind_code = PRISMATIC

    def __init__(self, body_a: Body, body_b: Body, anchor, axis, lower=None, upper=None,
                 motor_speed: float = 0.0, max_motor_force: float = 0.0,
                 collide_connected: bool = False):
        super().__init__(body_a, body_b, collide_connected)
        self._values.update({
            **_slide(body_a, body_b, anchor, axis, lower, upper),
            "motor_speeds": _joint_value(motor_speed, "motor_speed"),
            "max_motor": _force(max_motor_force, "max_motor_force"),
        })

    motor_speed = _Column("motor_speeds", _checked(_joint_value),
                          "Speed the motor drives the sliding to (m/s).")
    max_motor_force = _Column("max_motor", _checked(_force),
                              "Largest motor force (N); 0: no motor.")

    @property
    def lower(self) -> float:
        """Lower translation limit (m; −inf: none)."""
        return self._read("lower")

    @property
    def upper(self) -> float:
        """Upper translation limit (m; inf: none)."""
        return self._read("upper")

    @property
    def translation(self) -> float:
        """How far B's anchor is along the axis from A's now (m)."""
        return _translation(self)


class WeldJoint(Joint):
    """Glues two bodies together where they are now, rigidly or softly.

    Parameters
    ----------
    body_a, body_b
        The bodies (of one world; at least one dynamic).
    anchor
        The glue point, in world coordinates now (m).
    linear_hertz, angular_hertz
        Springs (Hz, ≥ 0) for the point and the angle; 0: rigid.
    linear_damping_ratio, angular_damping_ratio
        Their damping ratios (≥ 0).
    collide_connected
        Whether the two bodies' shapes collide with each other.
    """

    kind_code = WELD

    def __init__(self, body_a: Body, body_b: Body, anchor, linear_hertz: float = 0.0,
                 angular_hertz: float = 0.0, linear_damping_ratio: float = 1.0,
                 angular_damping_ratio: float = 1.0, collide_connected: bool = False):
        super().__init__(body_a, body_b, collide_connected)
        anchor = _check.vector(anchor, "anchor")
        self._values.update({
            **_pin(body_a, body_b, anchor),
            "hertz": _spring_value(linear_hertz, "linear_hertz"),
            "damping_ratios": _spring_value(linear_damping_ratio, "linear_damping_ratio"),
            "angular_hertz": _spring_value(angular_hertz, "angular_hertz"),
            "angular_damping_ratios": _spring_value(angular_damping_ratio,
                                                    "angular_damping_ratio"),
        })

    linear_hertz = _Column("hertz", _checked(_spring_value),
                           "Spring frequency of the point (Hz); 0: rigid.")
    angular_hertz = _Column("angular_hertz", _checked(_spring_value),
                            "Spring frequency of the angle (Hz); 0: rigid.")


class WheelJoint(Joint):
    """A wheel on a sprung axle: B's anchor slides on an axis fixed in A, held there by a
    spring, and B turns freely (driven by an optional motor).

    Parameters
    ----------
    body_a, body_b
        The chassis and the wheel (of one world; at least one dynamic).
    anchor
        The wheel's centre, in world coordinates now (m).
    axis
        The suspension's direction in the world now (non-zero; normalised).
    hertz, damping_ratio
        The suspension spring (Hz, ≥ 0; 0: no spring, free sliding) and its damping ratio.
    motor_speed, max_motor_torque
        A motor driving ω_B − ω_A to ``motor_speed`` (rad/s) with at most
        ``max_motor_torque`` (N·m, ≥ 0; 0: no motor).
    lower, upper
        Limits of the suspension's travel (m); None: none.
    collide_connected
        Whether the two bodies' shapes collide with each other.
    """

    kind_code = WHEEL

    def __init__(self, body_a: Body, body_b: Body, anchor, axis, hertz: float = 1.0,
                 damping_ratio: float = 0.7, motor_speed: float = 0.0,
                 max_motor_torque: float = 0.0, lower=None, upper=None,
                 collide_connected: bool = False):
        super().__init__(body_a, body_b, collide_connected)
        self._values.update({
            **_slide(body_a, body_b, anchor, axis, lower, upper),
            "hertz": _spring_value(hertz, "hertz"),
            "damping_ratios": _spring_value(damping_ratio, "damping_ratio"),
            "motor_speeds": _joint_value(motor_speed, "motor_speed"),
            "max_motor": _force(max_motor_torque, "max_motor_torque"),
        })

    motor_speed = _Column("motor_speeds", _checked(_joint_value),
                          "Speed the motor drives ω_B − ω_A to (rad/s).")
    max_motor_torque = _Column("max_motor", _checked(_force),
                               "Largest motor torque (N·m); 0: no motor.")
    hertz = _Column("hertz", _checked(_spring_value),
                    "Suspension frequency (Hz).")
    damping_ratio = _Column("damping_ratios", _checked(_spring_value),
                            "Suspension damping ratio.")

    @property
    def translation(self) -> float:
        """The suspension's travel along the axis now (m)."""
        return _translation(self)


def _translation(joint: Joint) -> float:
    local = joint._read("local_anchors")
    anchor_a = _world_point(joint.body_a, local[0])
    anchor_b = _world_point(joint.body_b, local[1])
    axis = joint._read("local_axes")
    cosine, sine = math.cos(joint.body_a.angle), math.sin(joint.body_a.angle)
    world_axis = np.array([cosine * axis[0] - sine * axis[1], sine * axis[0] + cosine * axis[1]])
    return float(np.dot(anchor_b - anchor_a, world_axis))


class MouseJoint(Joint):
    """Pulls a point of a body towards a target in the world, with a bounded force: how a
    game (and the book's widgets) drag bodies.

    Parameters
    ----------
    body
        The dynamic body to pull.
    target
        Where to pull it, in world coordinates (m). The point of the body pulled is the
        body's point at ``target`` now.
    max_force
        The largest force (N, > 0); a few times the body's weight drags it briskly.
    hertz, damping_ratio
        The spring pulling the point (Hz, > 0) and its damping ratio (≥ 0).
    """

    kind_code = MOUSE

    def __init__(self, body: Body, target, max_force: float, hertz: float = 5.0,
                 damping_ratio: float = 0.7):
        super().__init__(body, body, collide_connected=True)
        if body.kind != "dynamic":
            raise ValueError(f"body must be dynamic to be pulled, got a {body.kind} body")
        target = _check.vector(target, "target")
        self._values.update({
            "local_anchors": np.array([target, _local_point(body, target, "target")]),
            "max_forces": _positive_force(max_force, "max_force"),
            "hertz": _positive_spring_value(hertz, "hertz"),
            "damping_ratios": _spring_value(damping_ratio, "damping_ratio"),
        })

    @property
    def body(self) -> Body:
        return self._body_b

    @property
    def target(self) -> np.ndarray:
        """Where the body's point is pulled to (m); set it to move the target."""
        return self._read("local_anchors")[0]

    @target.setter
    def target(self, value) -> None:
        anchors = self._read("local_anchors")
        anchors[0] = _check.vector(value, "target")
        self._write("local_anchors", anchors)

    max_force = _Column("max_forces", _checked(_positive_force),
                        "Largest pulling force (N).")
    hertz = _Column("hertz", _checked(_positive_spring_value), "Pulling spring frequency (Hz).")
    damping_ratio = _Column("damping_ratios", _checked(_spring_value),
                            "Pulling spring damping ratio.")

    @property
    def point(self) -> np.ndarray:
        """The pulled point of the body, in the world now (m)."""
        return _world_point(self._body_b, self._read("local_anchors")[1])



def _correction(value, name: str) -> float:
    value = _check.finite_scalar(value, name)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value:g}")
    return value


def _offset(value, name: str) -> np.ndarray:
    value = _check.vector(value, name)
    if not np.hypot(*value) <= MAX_JOINT_VALUE:
        raise ValueError(f"{name} must be at most {MAX_JOINT_VALUE:g} m long, got "
                         f"{value.tolist()}")
    return value


class MotorJoint(Joint):
    """Drives body B's pose relative to body A towards an offset, with a bounded force and
    torque: a platform or a character steered by its target, a body held in a pose that
    gives way to a push (Box2D's motor joint).

    Each (sub)step the joint asks for the velocities that remove the fraction β
    (``correction_factor``) of the pose error, C → (1 − β)·C, and pushes B (and A back)
    with at most ``max_force`` and ``max_torque`` to get them. The angle error is taken
    the short way round, within (−π, π].

    Parameters
    ----------
    body_a, body_b
        The bodies (of one world; at least one dynamic). B is driven relative to A.
    linear_offset
        Where B's origin should be, relative to A's origin, in A's axes (m); None: where it
        is now.
    angular_offset
        The angle θ_B − θ_A to reach (rad); None: as it is now.
    max_force, max_torque
        The largest force (N, ≥ 0) and torque (N·m, ≥ 0) the joint applies.
    correction_factor
        β, the fraction of the error removed per (sub)step, in [0, 1].
    collide_connected
        Whether the two bodies' shapes collide with each other.
    """

    kind_code = MOTOR

    def __init__(self, body_a: Body, body_b: Body, linear_offset=None,
                 angular_offset: float | None = None, max_force: float = 1.0,
                 max_torque: float = 1.0, correction_factor: float = 0.3,
                 collide_connected: bool = False):
        super().__init__(body_a, body_b, collide_connected)
        if linear_offset is None:
            cosine, sine = math.cos(body_a.angle), math.sin(body_a.angle)
            gap = body_b.position - body_a.position
            linear_offset = (cosine * gap[0] + sine * gap[1], -sine * gap[0] + cosine * gap[1])
        if angular_offset is None:
            angular_offset = body_b.angle - body_a.angle
        self._values.update({
            "local_anchors": np.array([_local_point(body_a, body_a.position, "body_a"),
                                       _local_point(body_b, body_b.position, "body_b")]),
            "local_axes": _offset(linear_offset, "linear_offset"),
            "reference_angles": _joint_value(angular_offset, "angular_offset"),
            "max_forces": _force(max_force, "max_force"),
            "max_motor": _force(max_torque, "max_torque"),
            "correction_factors": _correction(correction_factor, "correction_factor"),
        })

    linear_offset = _Column("local_axes", _checked(_offset),
                            "Target of B's origin relative to A's, in A's axes (m).")
    angular_offset = _Column("reference_angles", _checked(_joint_value),
                             "Target of θ_B − θ_A (rad).")
    max_force = _Column("max_forces", _checked(_force), "Largest force (N).")
    max_torque = _Column("max_motor", _checked(_force), "Largest torque (N·m).")
    correction_factor = _Column("correction_factors", _checked(_correction),
                                "Fraction of the pose error removed per (sub)step.")
