"""A described benchmark scene (:mod:`box2d_benchmarks`) built in physbook, Box2D v3
(``pyb2d3``) or pymunk, and read back through each engine's own API.

Each builder returns a :class:`BuiltScene`: the step, and the state, masses and joint count
as the engine reports them, so that the tests can check one engine's world against
another's and the runner can time the step and judge the final state alike.

Box2D v3 runs with 4 substeps (its default) on one thread (no task system). pymunk keeps its
defaults (10 iterations); it has no one-sided chains, so a chain is built as its segments,
solid on both sides, and a capsule is a segment with a radius. pymunk multiplies the two
shapes' friction and elasticity, so each of its shapes gets the square root of the value
Box2D's shape has (√μ₁·√μ₂ = √(μ₁μ₂), Box2D's and physbook's mix). Where bodies may
sleep, pymunk's bodies sleep after 0.5 s at rest, as Box2D's do. pymunk's revolute joint
is a pivot joint, with a simple motor, a rotary limit and a damped rotary spring (of the
stiffness and damping Box2D's spring frequency and damping ratio give) as the joint has
them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from box2d_benchmarks import BenchmarkScene, BodySpec, JointSpec, ShapeSpec

BOX2D_SUBSTEPS = 4
SLEEP_SECONDS = 0.5  # Box2D's b2_timeToSleep


@dataclass
class BuiltScene:
    """A scene built in one engine: ``step(dt)``; ``state()``, every body's origin (B, 2)
    and angle (B,) in the order described; ``masses()``, each body's mass (kg, 0 for a
    static or kinematic body); ``joint_count()``, the joints the engine holds; and
    ``fill(place)``, which puts a new group of bodies at a place of a scene that makes
    bodies as it runs (the step calls it as the scene's schedule says)."""

    engine: str
    step: Callable[[float], None]
    state: Callable[[], tuple[np.ndarray, np.ndarray]]
    masses: Callable[[], np.ndarray]
    joint_count: Callable[[], int]
    world: object
    fill: Callable[[int], None] | None = None


def scheduled(step: Callable[[float], None], scene: BenchmarkScene,
              fill: Callable[[int], None]) -> Callable[[float], None]:
    """``step`` preceded, when the scene makes bodies as it runs, by filling each place its
    schedule names for this step (``fill(place)``), as Box2D's benchmark does."""
    if scene.schedule is None:
        return step
    steps = itertools.count()

    def step_scheduled(dt: float) -> None:
        for place in scene.schedule(next(steps)):
            fill(place)
        step(dt)

    return step_scheduled


def spring_constants(inertia_a: float, inertia_b: float, hertz: float,
                     damping_ratio: float) -> tuple[float, float]:
    """Stiffness (N·m/rad) and damping (N·m·s/rad) of an angular spring of ``hertz`` and
    ``damping_ratio`` between two bodies: k = I(2πf)², c = 2Iζ(2πf), with I the effective
    inertia 1/(1/I_a + 1/I_b) (infinite inertias count 0 in the sum)."""
    inverse = sum(1.0 / inertia for inertia in (inertia_a, inertia_b)
                  if math.isfinite(inertia) and inertia > 0.0)
    inertia = 1.0 / inverse
    omega = 2.0 * math.pi * hertz
    return inertia * omega**2, 2.0 * inertia * damping_ratio * omega


# --- physbook --------------------------------------------------------------------------

def _physbook_shape(spec: ShapeSpec):
    import physbook as pb

    if spec.kind == "circle":
        return pb.Circle(spec.radius, spec.points[0])
    if spec.kind == "polygon":
        return pb.Polygon(spec.points, radius=spec.radius)
    if spec.kind == "capsule":
        return pb.Capsule(spec.points[0], spec.points[1], spec.radius)
    if spec.kind == "segment":
        return pb.Segment(spec.points[0], spec.points[1])
    return pb.Chain(spec.points, loop=True)


def _physbook_material(density: float, friction: float, restitution: float):
    import physbook as pb

    return pb.Material(density=density, friction=friction, restitution=restitution)


def _physbook_filter(category: int, mask: int, group: int):
    import physbook as pb

    return pb.Filter(category=category, mask=mask, group=group)


def _physbook_bodies(world, specs: list[BodySpec], joints: list[JointSpec],
                     restitution: float) -> list:
    """Add described bodies and their joints to a physbook world; the bodies' handles. A
    body without shapes (a joint's ground) gets a small circle that collides with nothing
    (physbook's bodies have at least one shape)."""
    import physbook as pb

    handles = []
    # Shapes, materials and filters are immutable: one of each for the many bodies that
    # share it (a scene's boxes share their shape's description), as a game would.
    shared = {}

    def once(key, make, *arguments):
        if key not in shared:
            shared[key] = make(*arguments)
        return shared[key]

    for spec in specs:
        if spec.shapes:
            shapes = [once(id(shape), _physbook_shape, shape) for shape in spec.shapes]
            materials = [once((shape.density, shape.friction), _physbook_material,
                              shape.density, shape.friction, restitution)
                         for shape in spec.shapes]
            masks = [spec.mask if shape.mask is None else shape.mask for shape in spec.shapes]
            filters = [once((spec.category, mask, spec.group), _physbook_filter,
                            spec.category, mask, spec.group) for mask in masks]
        else:
            shapes, materials, filters = [pb.Circle(0.1)], [pb.Material()], [pb.Filter(mask=0)]
        handles.append(world.add_body(
            shapes, position=spec.position, angle=spec.angle, velocity=spec.velocity,
            angular_velocity=spec.angular_velocity, material=materials, kind=spec.kind,
            filter=filters, linear_damping=spec.linear_damping))
    for joint in joints:
        body_a, body_b = handles[joint.a], handles[joint.b]
        c, s = math.cos(body_a.angle), math.sin(body_a.angle)
        x, y = joint.local_a
        anchor = body_a.position + (c * x - s * y, s * x + c * y)
        pose_b = body_b.position.copy(), body_b.angle
        if joint.reference_angle:
            # physbook measures the joint angle from θ_B − θ_A when the joint is made: turn
            # B about the pin by the reference angle while it is made, then turn it back.
            c, s = math.cos(joint.reference_angle), math.sin(joint.reference_angle)
            x, y = pose_b[0] - anchor
            body_b.position = anchor + (c * x - s * y, s * x + c * y)
            body_b.angle = pose_b[1] + joint.reference_angle
        world.add_joint(pb.RevoluteJoint(
            body_a, body_b, anchor, lower_angle=joint.lower, upper_angle=joint.upper,
            motor_speed=joint.motor_speed, max_motor_torque=joint.max_motor_torque,
            hertz=joint.hertz, damping_ratio=joint.damping_ratio))
        if joint.reference_angle:
            body_b.position, body_b.angle = pose_b
    for handle, spec in zip(handles, specs, strict=True):
        if not spec.awake:
            handle.awake = False
    return handles


def build_physbook(scene: BenchmarkScene, solver=None) -> BuiltScene:
    """The scene in a physbook world (its default solver unless ``solver`` is given)."""
    import physbook as pb

    world = pb.World(gravity=scene.gravity, sleeping=scene.sleeping, solver=solver,
                     capacity=len(scene.bodies) + 16)
    base = _physbook_bodies(world, scene.bodies, scene.joints, scene.restitution)
    places = {}

    def fill(place):
        if place in places:
            world.remove_bodies(places[place])
        places[place] = _physbook_bodies(world, *scene.group(place), scene.restitution)

    def handles():
        return base + [handle for place in sorted(places) for handle in places[place]]

    def state():
        rows = np.array([handle.row for handle in handles()], dtype=np.int64)
        return world.bodies.origins[rows].copy(), world.bodies.angles[rows].copy()

    def masses():
        return np.array([handle.mass if handle.kind == "dynamic" else 0.0
                         for handle in handles()])

    return BuiltScene("physbook", scheduled(world.step, scene, fill), state, masses,
                      lambda: len(world.joints), world, fill)


# --- Box2D v3 --------------------------------------------------------------------------

def _box2d3_bodies(world, specs: list[BodySpec], joints: list[JointSpec],
                   restitution: float) -> tuple[list, list]:
    """Add described bodies and their joints to a Box2D v3 world; the bodies and the
    joints."""
    import pyb2d3 as b2

    kinds = {"static": b2.BodyType.STATIC, "kinematic": b2.BodyType.KINEMATIC,
             "dynamic": b2.BodyType.DYNAMIC}
    handles = []
    for spec in specs:
        body = world.create_body(type=kinds[spec.kind], position=spec.position,
                                 rotation=spec.angle, linear_velocity=spec.velocity,
                                 angular_velocity=spec.angular_velocity, is_awake=spec.awake,
                                 linear_damping=spec.linear_damping)
        for shape in spec.shapes:
            material = b2.surface_material(friction=shape.friction, restitution=restitution)
            shape_def = b2.shape_def(
                density=shape.density, material=material, filter=b2.make_filter(
                    category_bits=spec.category, group_index=spec.group,
                    mask_bits=spec.mask if shape.mask is None else shape.mask))
            points = np.asarray(shape.points, dtype=np.float32)
            if shape.kind == "circle":
                body.create_circle_shape(shape_def, b2.circle(tuple(points[0]), shape.radius))
            elif shape.kind == "polygon":
                body.create_polygon_shape(shape_def, b2.polygon(
                    points=points, radius=shape.radius or None))
            elif shape.kind == "capsule":
                body.create_capsule_shape(shape_def, b2.capsule(tuple(points[0]),
                                                                tuple(points[1]), shape.radius))
            elif shape.kind == "segment":
                body.create_segment_shape(shape_def, b2.segment(tuple(points[0]),
                                                                tuple(points[1])))
            else:
                body.create_chain(b2.chain_def(points, is_loop=True, material=material))
        handles.append(body)
    made = [world.create_revolute_joint(
            body_a=handles[joint.a], body_b=handles[joint.b], local_anchor_a=joint.local_a,
            local_anchor_b=joint.local_b, reference_angle=joint.reference_angle,
            enable_motor=joint.max_motor_torque > 0.0, motor_speed=joint.motor_speed,
            max_motor_torque=joint.max_motor_torque,
            enable_limit=joint.lower is not None,
            lower_angle=-math.inf if joint.lower is None else joint.lower,
            upper_angle=math.inf if joint.upper is None else joint.upper,
            enable_spring=joint.hertz > 0.0, hertz=joint.hertz,
            damping_ratio=joint.damping_ratio) for joint in joints]
    return handles, made


def build_box2d3(scene: BenchmarkScene) -> BuiltScene:
    """The scene in a Box2D v3 world through ``pyb2d3``: one thread, 4 substeps."""
    import pyb2d3 as b2

    world = b2.World(gravity=scene.gravity)
    world.sleeping_enabled = scene.sleeping
    base, joints = _box2d3_bodies(world, scene.bodies, scene.joints, scene.restitution)
    places = {}

    def fill(place):
        for body in places.get(place, []):
            body.destroy()
        places[place], made = _box2d3_bodies(world, *scene.group(place), scene.restitution)
        joints.extend(made)  # a destroyed body's joints are no longer valid

    def handles():
        return base + [body for place in sorted(places) for body in places[place]]

    def step(dt):
        world.step(dt, BOX2D_SUBSTEPS)

    def state():
        bodies = b2.Bodies()
        for body in handles():
            bodies.append(body)
        rotations = bodies.get_rotations()
        return (np.asarray(bodies.get_positions(), dtype=float),
                np.arctan2(rotations[:, 1], rotations[:, 0]).astype(float))

    def masses():
        return np.array([body.mass for body in handles()])

    def joint_count():
        return sum(joint.is_valid for joint in joints)

    return BuiltScene("box2d3", scheduled(step, scene, fill), state, masses, joint_count,
                      world, fill)


# --- pymunk ----------------------------------------------------------------------------

def _pymunk_shapes(body, spec: ShapeSpec) -> list:
    import pymunk

    points = [tuple(point) for point in spec.points]
    if spec.kind == "circle":
        return [pymunk.Circle(body, spec.radius, points[0])]
    if spec.kind == "polygon":
        return [pymunk.Poly(body, points, radius=spec.radius)]
    if spec.kind in ("capsule", "segment"):
        return [pymunk.Segment(body, points[0], points[1], spec.radius)]
    return [pymunk.Segment(body, points[i], points[(i + 1) % len(points)], 0.0)
            for i in range(len(points))]


def _pymunk_bodies(space, specs: list[BodySpec], joints: list[JointSpec],
                   restitution: float) -> list:
    """Add described bodies and their joints to a pymunk space; (body, its shapes and
    constraints) of each."""
    import pymunk

    kinds = {"static": pymunk.Body.STATIC, "kinematic": pymunk.Body.KINEMATIC,
             "dynamic": pymunk.Body.DYNAMIC}
    elasticity = math.sqrt(restitution)
    made = []
    for spec in specs:
        body = pymunk.Body(body_type=kinds[spec.kind])
        body.position, body.angle = spec.position, spec.angle
        shapes = []
        for shape_spec in spec.shapes:
            for shape in _pymunk_shapes(body, shape_spec):
                shape.density = shape_spec.density
                shape.friction = math.sqrt(shape_spec.friction)
                shape.elasticity = elasticity
                # A negative Box2D group is a pymunk group (never collide within it).
                shape.filter = pymunk.ShapeFilter(
                    group=-spec.group if spec.group < 0 else 0, categories=spec.category,
                    mask=spec.mask if shape_spec.mask is None else shape_spec.mask)
                shapes.append(shape)
        space.add(body, *shapes)
        if spec.kind != "static":
            body.velocity, body.angular_velocity = spec.velocity, spec.angular_velocity
        made.append((body, shapes))
    for joint in joints:
        a, b = made[joint.a][0], made[joint.b][0]
        pivot = pymunk.PivotJoint(a, b, joint.local_a, joint.local_b)
        constraints = [pivot]
        if joint.max_motor_torque > 0.0:
            # Chipmunk's motor drives ω_a − ω_b to its rate, so the rate is −(ω_b − ω_a).
            motor = pymunk.SimpleMotor(a, b, -joint.motor_speed)
            motor.max_force = joint.max_motor_torque
            constraints.append(motor)
        if joint.lower is not None:
            constraints.append(pymunk.RotaryLimitJoint(
                a, b, joint.lower + joint.reference_angle, joint.upper + joint.reference_angle))
        if joint.hertz > 0.0:
            constraints.append(pymunk.DampedRotarySpring(
                a, b, joint.reference_angle,
                *spring_constants(a.moment, b.moment, joint.hertz, joint.damping_ratio)))
        for constraint in constraints:
            constraint.collide_bodies = False
        space.add(*constraints)
        made[joint.b] = (b, made[joint.b][1] + constraints)
    for (body, _), spec in zip(made, specs, strict=True):
        if not spec.awake:
            body.sleep()
    return made


def build_pymunk(scene: BenchmarkScene) -> BuiltScene:
    """The scene in a pymunk space: its defaults, sleep after 0.5 s at rest where the
    scene lets bodies sleep; a revolute joint is a pivot joint, with a simple motor, a
    rotary limit and a damped rotary spring as the joint has them."""
    import pymunk

    space = pymunk.Space()
    space.gravity = scene.gravity
    if scene.sleeping:
        space.sleep_time_threshold = SLEEP_SECONDS
    base = _pymunk_bodies(space, scene.bodies, scene.joints, scene.restitution)
    places = {}

    def fill(place):
        for body, parts in places.get(place, []):
            space.remove(body, *parts)
        places[place] = _pymunk_bodies(space, *scene.group(place), scene.restitution)

    def handles():
        return [body for body, _ in base] + [
            body for place in sorted(places) for body, _ in places[place]]

    def state():
        bodies = handles()
        origins = np.array([tuple(body.local_to_world((0.0, 0.0))) for body in bodies])
        return origins, np.array([body.angle for body in bodies])

    def masses():
        return np.array([body.mass if body.body_type == pymunk.Body.DYNAMIC else 0.0
                         for body in handles()])

    def joint_count():
        return sum(isinstance(joint, pymunk.PivotJoint) for joint in space.constraints)

    return BuiltScene("pymunk", scheduled(space.step, scene, fill), state, masses,
                      joint_count, space, fill)


BUILDERS = {"physbook": build_physbook, "box2d3": build_box2d3, "pymunk": build_pymunk}
