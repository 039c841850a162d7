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
sleep, pymunk's bodies sleep after 0.5 s at rest, as Box2D's do.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from box2d_benchmarks import BenchmarkScene, ShapeSpec

BOX2D_SUBSTEPS = 4
SLEEP_SECONDS = 0.5  # Box2D's b2_timeToSleep


@dataclass
class BuiltScene:
    """A scene built in one engine: ``step(dt)``; ``state()``, every body's origin (B, 2)
    and angle (B,) in the order described; ``masses()``, each body's mass (kg, 0 for a
    static or kinematic body); the joints the engine holds."""

    engine: str
    step: Callable[[float], None]
    state: Callable[[], tuple[np.ndarray, np.ndarray]]
    masses: Callable[[], np.ndarray]
    joint_count: int
    world: object


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


def build_physbook(scene: BenchmarkScene, solver=None) -> BuiltScene:
    """The scene in a physbook world (its default solver unless ``solver`` is given). A
    body without shapes (a joint's ground) gets a small circle that collides with
    nothing (physbook's bodies have at least one shape)."""
    import physbook as pb

    world = pb.World(gravity=scene.gravity, sleeping=scene.sleeping, solver=solver,
                     capacity=len(scene.bodies) + 16)
    handles = []
    for spec in scene.bodies:
        if spec.shapes:
            shapes = [_physbook_shape(shape) for shape in spec.shapes]
            materials = [pb.Material(density=shape.density, friction=shape.friction,
                                     restitution=scene.restitution) for shape in spec.shapes]
            body_filter = pb.Filter(category=spec.category, mask=spec.mask)
        else:
            shapes, materials = [pb.Circle(0.1)], [pb.Material()]
            body_filter = pb.Filter(mask=0)
        handles.append(world.add_body(
            shapes, position=spec.position, angle=spec.angle, velocity=spec.velocity,
            angular_velocity=spec.angular_velocity, material=materials, kind=spec.kind,
            filter=body_filter))
    for joint in scene.joints:
        body_a = handles[joint.a]
        c, s = math.cos(body_a.angle), math.sin(body_a.angle)
        x, y = joint.local_a
        anchor = body_a.position + (c * x - s * y, s * x + c * y)
        world.add_joint(pb.RevoluteJoint(body_a, handles[joint.b], anchor,
                                         motor_speed=joint.motor_speed,
                                         max_motor_torque=joint.max_motor_torque))
    for handle, spec in zip(handles, scene.bodies, strict=True):
        if not spec.awake:
            handle.awake = False
    rows = np.array([handle.row for handle in handles])

    def state():
        return world.bodies.origins[rows].copy(), world.bodies.angles[rows].copy()

    def masses():
        return np.array([handle.mass if handle.kind == "dynamic" else 0.0
                         for handle in handles])

    return BuiltScene("physbook", world.step, state, masses, len(world.joints), world)


# --- Box2D v3 --------------------------------------------------------------------------

def build_box2d3(scene: BenchmarkScene) -> BuiltScene:
    """The scene in a Box2D v3 world through ``pyb2d3``: one thread, 4 substeps."""
    import pyb2d3 as b2

    world = b2.World(gravity=scene.gravity)
    world.sleeping_enabled = scene.sleeping
    kinds = {"static": b2.BodyType.STATIC, "kinematic": b2.BodyType.KINEMATIC,
             "dynamic": b2.BodyType.DYNAMIC}
    bodies = b2.Bodies()
    handles = []
    for spec in scene.bodies:
        body = world.create_body(type=kinds[spec.kind], position=spec.position,
                                 rotation=spec.angle, linear_velocity=spec.velocity,
                                 angular_velocity=spec.angular_velocity, is_awake=spec.awake)
        for shape in spec.shapes:
            shape_def = b2.shape_def(
                density=shape.density,
                material=b2.surface_material(friction=shape.friction,
                                             restitution=scene.restitution),
                filter=b2.make_filter(category_bits=spec.category, mask_bits=spec.mask))
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
                body.create_chain(b2.chain_def(points, is_loop=True, material=b2.surface_material(
                    friction=shape.friction, restitution=scene.restitution)))
        handles.append(body)
        bodies.append(body)
    joints = [world.create_revolute_joint(
        body_a=handles[joint.a], body_b=handles[joint.b], local_anchor_a=joint.local_a,
        local_anchor_b=joint.local_b, enable_motor=joint.max_motor_torque > 0.0,
        motor_speed=joint.motor_speed, max_motor_torque=joint.max_motor_torque)
        for joint in scene.joints]

    def step(dt):
        world.step(dt, BOX2D_SUBSTEPS)

    def state():
        rotations = bodies.get_rotations()
        return (np.asarray(bodies.get_positions(), dtype=float),
                np.arctan2(rotations[:, 1], rotations[:, 0]).astype(float))

    def masses():
        return np.array([body.mass for body in handles])

    return BuiltScene("box2d3", step, state, masses, sum(joint.is_valid for joint in joints),
                      world)


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


def build_pymunk(scene: BenchmarkScene) -> BuiltScene:
    """The scene in a pymunk space: its defaults, sleep after 0.5 s at rest where the
    scene lets bodies sleep; a motor is a pivot joint and a simple motor."""
    import pymunk

    space = pymunk.Space()
    space.gravity = scene.gravity
    if scene.sleeping:
        space.sleep_time_threshold = SLEEP_SECONDS
    kinds = {"static": pymunk.Body.STATIC, "kinematic": pymunk.Body.KINEMATIC,
             "dynamic": pymunk.Body.DYNAMIC}
    elasticity = math.sqrt(scene.restitution)
    handles = []
    for spec in scene.bodies:
        body = pymunk.Body(body_type=kinds[spec.kind])
        body.position, body.angle = spec.position, spec.angle
        shapes = []
        for shape_spec in spec.shapes:
            for shape in _pymunk_shapes(body, shape_spec):
                shape.density = shape_spec.density
                shape.friction = math.sqrt(shape_spec.friction)
                shape.elasticity = elasticity
                shape.filter = pymunk.ShapeFilter(categories=spec.category, mask=spec.mask)
                shapes.append(shape)
        space.add(body, *shapes)
        if spec.kind != "static":
            body.velocity, body.angular_velocity = spec.velocity, spec.angular_velocity
        handles.append(body)
    for joint in scene.joints:
        a, b = handles[joint.a], handles[joint.b]
        pivot = pymunk.PivotJoint(a, b, joint.local_a, joint.local_b)
        pivot.collide_bodies = False
        space.add(pivot)
        if joint.max_motor_torque > 0.0:
            # Chipmunk's motor drives ω_a − ω_b to its rate, so the rate is −(ω_b − ω_a).
            motor = pymunk.SimpleMotor(a, b, -joint.motor_speed)
            motor.max_force = joint.max_motor_torque
            space.add(motor)
    for body, spec in zip(handles, scene.bodies, strict=True):
        if not spec.awake:
            body.sleep()

    def state():
        origins = np.array([tuple(body.local_to_world((0.0, 0.0))) for body in handles])
        return origins, np.array([body.angle for body in handles])

    def masses():
        return np.array([body.mass if body.body_type == pymunk.Body.DYNAMIC else 0.0
                         for body in handles])

    pins = sum(isinstance(joint, pymunk.PivotJoint) for joint in space.constraints)
    return BuiltScene("pymunk", space.step, state, masses, pins, space)


BUILDERS = {"physbook": build_physbook, "box2d3": build_box2d3, "pymunk": build_pymunk}
