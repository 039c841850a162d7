"""Chapter 11's scenes: bodies held together by joints.

- :func:`pendulum`: a small ball on a rod, against 2π√(L/g);
- :func:`cradle`: Newton's cradle, the standard scene of that name;
- :func:`chain`: links hanging from a pin;
- :func:`bridge`: planks pinned end to end between two banks, boxes dropped on them;
- :func:`ragdoll`: a body of ten parts with limited hinges;
- :func:`car`: a chassis on two sprung, motor-driven wheels over bumps.

:func:`energy` and :func:`pin_gap` measure how well a run went.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.constants import DEFAULT_GRAVITY
from physbook.dynamics.joints import (
    MAX_SPRING_VALUE,
    DistanceJoint,
    RevoluteJoint,
    WheelJoint,
)
from physbook.dynamics.materials import Material
from physbook.geometry.shapes import Circle, Polygon
from physbook.scenes.base import Scene, new_world, scene_size, static_box, uniform_material
from physbook.world import World

#: Gravity's magnitude in the standard scenes (m/s²).
_G = -DEFAULT_GRAVITY[1]


def pendulum(world: World | None = None, *, length: float = 3.0, angle: float = 0.05,
             radius: float = 0.1) -> Scene:
    """A ball of ``radius`` on a rigid rod of ``length`` (m) from a pin at (0, 10), let go
    at ``angle`` (rad) from the vertical. ``params["period"]`` is the small-angle period
    2π√(L/g) (s)."""
    world = new_world(world)
    length = _check.positive_scalar(length, "length")
    angle = _check.finite_scalar(angle, "angle")
    radius = _check.positive_scalar(radius, "radius")
    if radius >= length:
        raise ValueError(f"radius must be smaller than length, got {radius} >= {length}")
    pin = np.array([0.0, 10.0])
    frame = static_box(world, 0.5, 0.1, pin + (0.0, 0.1), Material())
    start = pin + length * np.array([math.sin(angle), -math.cos(angle)])
    ball = world.add_body(Circle(radius), position=start)
    rod = world.add_joint(DistanceJoint(frame, ball, pin, start))
    period = 2.0 * math.pi * math.sqrt(length / _G)
    return Scene("pendulum", world, 600, bodies={"frame": frame, "ball": ball},
                 params={"length": length, "angle": angle, "period": period, "rod": rod})


def cradle(world: World | None = None, *, count: int = 5, radius: float = 0.5,
           length: float = 3.0, release_angle_degrees: float = 30.0) -> Scene:
    """Newton's cradle: ``count`` balls of ``radius`` in a row, exactly touching, each on a
    rod of ``length`` from a pin above it; pair restitution 1, no friction; the first
    (leftmost) ball let go at ``release_angle_degrees`` from the vertical. 300 steps."""
    world = new_world(world)
    count = scene_size(count, "count")
    if count < 2:
        raise ValueError(f"count must be at least 2, got {count}")
    radius = _check.positive_scalar(radius, "radius")
    length = _check.positive_scalar(length, "length")
    release = _check.finite_scalar(release_angle_degrees, "release_angle_degrees")
    if not 0.0 < release < 90.0:
        raise ValueError(f"release_angle_degrees must lie in (0, 90), got {release}")
    if radius >= length:
        raise ValueError(f"radius must be smaller than length, got {radius} >= {length}")
    elastic = uniform_material(friction=0.0, restitution=1.0)
    top = 10.0
    frame = static_box(world, count * radius + 1.0, 0.1, (0.0, top + 0.1), elastic)
    balls, rods = [], []
    for i in range(count):
        pin = np.array([(2 * i - (count - 1)) * radius, top])
        if i == 0:
            theta = math.radians(release)
            start = pin + length * np.array([-math.sin(theta), -math.cos(theta)])
        else:
            start = pin + (0.0, -length)
        ball = world.add_body(Circle(radius), position=start, material=elastic)
        rods.append(world.add_joint(DistanceJoint(frame, ball, pin, start)))
        balls.append(ball)
    rest_height = top - length
    release_height = length * (1.0 - math.cos(math.radians(release)))
    return Scene(f"cradle-{count}", world, 300, bodies={"frame": frame, "balls": balls},
                 params={"radius": radius, "length": length, "release": release,
                         "rest_height": rest_height, "release_height": release_height,
                         "rods": rods, "restitution": 1.0, "friction": 0.0})


def chain(world: World | None = None, *, links: int = 20, link_length: float = 0.5) -> Scene:
    """``links`` thin boxes of ``link_length`` (m) hinged end to end, hanging from a pin at
    (0, 12) and let go horizontally, so the chain swings down."""
    world = new_world(world)
    links = scene_size(links, "links")
    link_length = _check.positive_scalar(link_length, "link_length")
    if not 0.01 <= link_length <= 100.0:
        raise ValueError(f"link_length must lie in [0.01, 100] m, got {link_length:g}")
    material = uniform_material(friction=0.4, restitution=0.0)
    anchor = static_box(world, 0.2, 0.2, (0.0, 12.2), material)
    half = 0.5 * link_length
    shape = Polygon.box(half, 0.05 * link_length + 0.02)
    previous, hinges, bodies = anchor, [], []
    for i in range(links):
        link = world.add_body(shape, position=(half + i * link_length, 12.0),
                              material=material)
        hinges.append(world.add_joint(RevoluteJoint(previous, link,
                                                    (i * link_length, 12.0))))
        previous = link
        bodies.append(link)
    return Scene(f"chain-{links}", world, 600, bodies={"anchor": anchor, "links": bodies},
                 params={"link_length": link_length, "hinges": hinges})


def _arc_chords(count: int, span: float) -> np.ndarray:
    """The ``count + 1`` ends of ``count`` unit chords on a circular arc that hangs below
    the line between (−span/2, 0) and (span/2, 0), ``span`` < ``count``.

    Chords of length 1 turning by δ each lie on a circle of radius R = 1/(2 sin(δ/2)) and
    span 2R·sin(nδ/2); that decreases from n as δ grows from 0, so bisection finds δ.
    """
    def span_of(turn: float) -> float:
        return math.sin(0.5 * count * turn) / math.sin(0.5 * turn)

    low, high = 1e-9, 2.0 * math.pi / count
    for _ in range(200):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if span_of(middle) > span else (low, middle)
    turn = 0.5 * (low + high)
    radius = 0.5 / math.sin(0.5 * turn)
    angles = -0.5 * math.pi + (np.arange(count + 1) - 0.5 * count) * turn
    centre_y = radius * math.cos(0.5 * count * turn)
    return np.column_stack([radius * np.cos(angles), centre_y + radius * np.sin(angles)])


def bridge(world: World | None = None, *, planks: int = 40, boxes: int = 10,
           slack: float = 1.0) -> Scene:
    """A bridge of ``planks`` planks (1 m × 0.25 m) pinned end to end between two static
    banks ``planks − slack`` (m) apart, hanging in a circular arc, and ``boxes`` boxes of
    side 0.5 dropped on it from 2 m up and more. 600 steps.

    The slack matters: a chain exactly as long as the gap it spans could only sag by
    stretching, and holds its weight with a tension that grows without bound as it
    straightens.
    """
    world = new_world(world)
    planks = scene_size(planks, "planks")
    boxes = scene_size(boxes, "boxes")
    slack = _check.positive_scalar(slack, "slack")
    if slack >= 0.5 * planks:
        raise ValueError(f"slack must be less than half of planks, got {slack}")
    material = uniform_material(friction=0.6, restitution=0.0)
    ends = _arc_chords(planks, planks - slack)
    half_gap = 0.5 * (planks - slack)
    bank_left = static_box(world, 1.0, 1.0, (-half_gap - 1.0, -1.0), material)
    bank_right = static_box(world, 1.0, 1.0, (half_gap + 1.0, -1.0), material)
    previous, hinges, deck = bank_left, [], []
    for start, end in zip(ends[:-1], ends[1:], strict=True):
        middle = 0.5 * (start + end)
        plank = world.add_body(Polygon.box(0.5, 0.125), position=middle,
                               angle=math.atan2(end[1] - start[1], end[0] - start[0]),
                               material=material)
        hinges.append(world.add_joint(RevoluteJoint(previous, plank, start)))
        previous = plank
        deck.append(plank)
    hinges.append(world.add_joint(RevoluteJoint(previous, bank_right, ends[-1])))
    cargo = [world.add_body(Polygon.box(0.25, 0.25),
                            position=(-half_gap + (planks - slack) * (k + 0.5) / boxes,
                                      2.0 + 0.4 * k), material=material)
             for k in range(boxes)]
    return Scene(f"bridge-{planks}", world, 600,
                 bodies={"banks": [bank_left, bank_right], "planks": deck, "boxes": cargo},
                 params={"hinges": hinges, "slack": slack, "sag": float(-ends[:, 1].min())})


#: The ragdoll's parts: name, half width, half height, centre (m), relative to the hips.
_RAGDOLL_PARTS = (
    ("torso", 0.18, 0.35, (0.0, 0.55)),
    ("head", None, 0.15, (0.0, 1.08)),
    ("upper_arm_left", 0.06, 0.17, (-0.26, 0.72)),
    ("lower_arm_left", 0.05, 0.16, (-0.26, 0.38)),
    ("upper_arm_right", 0.06, 0.17, (0.26, 0.72)),
    ("lower_arm_right", 0.05, 0.16, (0.26, 0.38)),
    ("thigh_left", 0.08, 0.21, (-0.1, -0.01)),
    ("shin_left", 0.07, 0.2, (-0.1, -0.43)),
    ("thigh_right", 0.08, 0.21, (0.1, -0.01)),
    ("shin_right", 0.07, 0.2, (0.1, -0.43)),
)

#: The ragdoll's hinges: the two parts, the pin relative to the hips (m), limits (rad).
_RAGDOLL_HINGES = (
    ("torso", "head", (0.0, 0.92), -0.5, 0.5),
    ("torso", "upper_arm_left", (-0.26, 0.88), -2.5, 1.0),
    ("upper_arm_left", "lower_arm_left", (-0.26, 0.55), -2.4, 0.0),
    ("torso", "upper_arm_right", (0.26, 0.88), -1.0, 2.5),
    ("upper_arm_right", "lower_arm_right", (0.26, 0.55), 0.0, 2.4),
    ("torso", "thigh_left", (-0.1, 0.2), -1.5, 0.6),
    ("thigh_left", "shin_left", (-0.1, -0.22), 0.0, 2.3),
    ("torso", "thigh_right", (0.1, 0.2), -0.6, 1.5),
    ("thigh_right", "shin_right", (0.1, -0.22), -2.3, 0.0),
)


def ragdoll(world: World | None = None, *, height: float = 4.0, spin: float = 2.0) -> Scene:
    """A ragdoll of ten parts (head, torso, arms and legs in two parts each) on revolute
    joints with angle limits, its hips ``height`` (m) above the ground, thrown turning at
    ``spin`` (rad/s) onto a ground with a step in it."""
    world = new_world(world)
    height = _check.positive_scalar(height, "height")
    spin = _check.finite_scalar(spin, "spin")
    material = uniform_material(friction=0.6, restitution=0.1)
    ground = static_box(world, 20.0, 0.5, (0.0, -0.5), material)
    step = static_box(world, 1.0, 0.4, (1.2, 0.4), material)
    hips = np.array([0.0, height])
    parts = {}
    for name, half_width, half_height, offset in _RAGDOLL_PARTS:
        shape = Circle(half_height) if half_width is None else Polygon.box(half_width,
                                                                           half_height)
        parts[name] = world.add_body(shape, position=hips + offset, material=material,
                                     velocity=(1.0, 0.0), angular_velocity=spin)
    hinges = [world.add_joint(RevoluteJoint(parts[a], parts[b], hips + pin, lower_angle=lower,
                                            upper_angle=upper))
              for a, b, pin, lower, upper in _RAGDOLL_HINGES]
    return Scene("ragdoll", world, 600, bodies={"ground": ground, "step": step,
                                                "parts": list(parts.values())},
                 params={"parts": tuple(parts), "hinges": hinges})


def car(world: World | None = None, *, motor_speed: float = -8.0,
        max_motor_torque: float = 40.0, suspension_hertz: float = 4.0,
        bumps: int = 20) -> Scene:
    """A car: a 2.4 m × 0.5 m chassis on two wheels of radius 0.4 m, each on a wheel joint
    with a vertical suspension of ``suspension_hertz`` (ζ = 0.7); the rear wheel's motor
    turns at ``motor_speed`` (rad/s; negative drives to the right) with at most
    ``max_motor_torque`` (N·m). The road has ``bumps`` half-buried round bumps and ends
    in a wall."""
    world = new_world(world)
    motor_speed = _check.finite_scalar(motor_speed, "motor_speed")
    max_motor_torque = _check.non_negative_scalar(max_motor_torque, "max_motor_torque")
    suspension_hertz = _check.positive_scalar(suspension_hertz, "suspension_hertz")
    if suspension_hertz > MAX_SPRING_VALUE:
        raise ValueError(f"suspension_hertz must be at most {MAX_SPRING_VALUE:g}, got "
                         f"{suspension_hertz:g}")
    bumps = _check.non_negative_int(bumps, "bumps", 1000)
    road = uniform_material(friction=0.9, restitution=0.0)
    half_length = 20.0 + 4.0 * bumps
    ground = static_box(world, half_length, 0.5, (10.0 + 2.0 * bumps, -0.5), road)
    # A wall where the road ends: the car stops there instead of driving off into a fall.
    end = 10.0 + 2.0 * bumps + half_length
    wall = static_box(world, 0.5, 1.5, (end - 0.5, 1.5), road)
    humps = [world.add_body(Circle(0.3), position=(4.0 + 4.0 * k, -0.15), kind="static",
                            material=road) for k in range(bumps)]
    chassis = world.add_body(Polygon.box(1.2, 0.25), position=(0.0, 1.0), material=road)
    wheels, axles = [], []
    for x, speed, torque in ((-0.8, motor_speed, max_motor_torque), (0.8, 0.0, 0.0)):
        wheel = world.add_body(Circle(0.4), position=(x, 0.4), material=road)
        axles.append(world.add_joint(WheelJoint(
            chassis, wheel, (x, 0.4), (0.0, 1.0), hertz=suspension_hertz, damping_ratio=0.7,
            motor_speed=speed, max_motor_torque=torque)))
        wheels.append(wheel)
    return Scene("car", world, 600, bodies={"ground": ground, "wall": wall, "bumps": humps,
                                            "chassis": chassis, "wheels": wheels},
                 params={"axles": axles, "motor_speed": motor_speed, "wheel_radius": 0.4})


# --- measures ------------------------------------------------------------------------------


def energy(world: World) -> float:
    """Kinetic plus gravitational potential energy of every dynamic body (J):
    Σ ½m|v|² + ½Iω² − m·(g·c)."""
    bodies = world.bodies.arrays
    gravity = world.gravity
    kinetic = 0.5 * (bodies.masses * np.einsum("ij,ij->i", bodies.velocities,
                                                bodies.velocities)
                     + bodies.inertias * bodies.angular_velocities ** 2)
    potential = -bodies.masses * (bodies.centers @ gravity)
    return float(np.sum(kinetic + potential))


def pin_gap(joint: RevoluteJoint) -> float:
    """How far apart (m) the two bodies' copies of a revolute joint's pin are now: 0 when
    the joint holds exactly."""
    anchors = joint.world.joint_arrays.local_anchors[joint.world.joints.index(joint)]
    points = []
    for body, local in ((joint.body_a, anchors[0]), (joint.body_b, anchors[1])):
        cosine, sine = math.cos(body.angle), math.sin(body.angle)
        points.append(body.center_of_mass + (cosine * local[0] - sine * local[1],
                                             sine * local[0] + cosine * local[1]))
    return float(np.hypot(*(points[1] - points[0])))
