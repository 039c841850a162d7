"""The standard scenes of :mod:`physbook.scenes`, built in pymunk with the same geometry.

pymunk (Chipmunk2D) mixes materials by multiplying the two shapes' friction and the two
shapes' elasticity, so a pair value v becomes √v on both shapes when every shape is made
of the same material, and v on a body touching scenery of value 1 (the ramp). pymunk keeps
its defaults: 10 iterations, collision slop 0.1, sleeping off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pymunk

from physbook.scenes import DT, RAMP_FRICTIONS, rain_positions


@dataclass
class PymunkScene:
    """A filled pymunk space and what a run of it needs (the twin of ``physbook.Scene``)."""

    name: str
    space: pymunk.Space
    steps: int
    dt: float = DT
    bodies: dict[str, object] = field(default_factory=dict)
    params: dict[str, object] = field(default_factory=dict)


def _space() -> pymunk.Space:
    space = pymunk.Space()
    space.gravity = (0.0, -10.0)
    return space


def _static_box(space, half_width, half_height, center, friction, elasticity, angle=0.0):
    body = pymunk.Body(body_type=pymunk.Body.STATIC)
    body.position = tuple(center)
    body.angle = angle
    shape = pymunk.Poly.create_box(body, (2.0 * half_width, 2.0 * half_height))
    shape.friction = friction
    shape.elasticity = elasticity
    space.add(body, shape)
    return body


def _dynamic(space, shape_factory, position, friction, elasticity, angle=0.0):
    body = pymunk.Body()
    body.position = tuple(position)
    body.angle = angle
    shape = shape_factory(body)
    shape.density = 1.0
    shape.friction = friction
    shape.elasticity = elasticity
    space.add(body, shape)
    return body


def bounce(height=10.0, radius=0.5, restitution=0.5) -> PymunkScene:
    space = _space()
    elasticity = math.sqrt(restitution)  # √e · √e = e
    floor = _static_box(space, 20.0, 0.5, (0.0, -0.5), 0.0, elasticity)
    ball = _dynamic(space, lambda body: pymunk.Circle(body, radius), (0.0, height), 0.0,
                    elasticity)
    return PymunkScene("bounce", space, 600, bodies={"floor": floor, "ball": ball},
                       params={"height": height, "radius": radius,
                               "restitution": restitution})


def ramp(angle=0.25, frictions=RAMP_FRICTIONS) -> PymunkScene:
    space = _space()
    along = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-math.sin(angle), math.cos(angle)])
    ramp_body = _static_box(space, 30.0, 0.5, -0.5 * normal, 1.0, 0.0, angle)
    boxes = []
    distances = []
    for i, pair_friction in enumerate(frictions):
        distance = 3.0 * (len(frictions) - i) + 1.0
        distances.append(distance)
        center = distance * along + 0.5 * normal
        boxes.append(_dynamic(space, lambda body: pymunk.Poly.create_box(body, (1.0, 1.0)),
                              center, pair_friction, 0.0, angle))  # 1 · μ = μ
    return PymunkScene("ramp", space, 300, bodies={"ramp": ramp_body, "boxes": boxes},
                       params={"angle": angle, "frictions": tuple(frictions),
                               "distances": tuple(distances), "direction": along})


def pyramid(base=20) -> PymunkScene:
    space = _space()
    friction = math.sqrt(0.6)
    ground = _static_box(space, max(40.0, 0.5 * base + 10.0), 0.5, (0.0, -0.5), friction, 0.0)
    boxes = []
    for row in range(base):
        count = base - row
        for j in range(count):
            boxes.append(_dynamic(space, lambda body: pymunk.Poly.create_box(body, (1.0, 1.0)),
                                  (j - 0.5 * (count - 1), 0.5 + row), friction, 0.0))
    return PymunkScene(f"pyramid-{base}", space, 600 if base <= 20 else 500,
                       bodies={"ground": ground, "boxes": boxes}, params={"base": base})


def vertical_stack(count=10, friction=0.3) -> PymunkScene:
    space = _space()
    friction = math.sqrt(friction)
    ground = _static_box(space, 20.0, 0.5, (0.0, -0.5), friction, 0.0)
    boxes = [_dynamic(space, lambda body: pymunk.Poly.create_box(body, (1.0, 1.0)),
                      (0.0, 0.5 + i), friction, 0.0) for i in range(count)]
    return PymunkScene("vertical-stack", space, 600, bodies={"ground": ground, "boxes": boxes},
                       params={"count": count})


def _container(space, friction):
    return {
        "floor": _static_box(space, 21.0, 0.5, (0.0, -0.5), friction, 0.0),
        "left_wall": _static_box(space, 0.5, 20.0, (-20.5, 20.0), friction, 0.0),
        "right_wall": _static_box(space, 0.5, 20.0, (20.5, 20.0), friction, 0.0),
    }


def rain(n=1000) -> PymunkScene:
    space = _space()
    friction = math.sqrt(0.6)
    bodies = _container(space, friction)
    bodies["circles"] = [_dynamic(space, lambda body: pymunk.Circle(body, 0.25), p, friction,
                                  0.0) for p in rain_positions(n)]
    return PymunkScene(f"rain-{n}", space, 600, bodies=bodies,
                       params={"n": n, "radius": 0.25, "half_width": 20.0})


def boxes(n=1000) -> PymunkScene:
    space = _space()
    friction = math.sqrt(0.6)
    bodies = _container(space, friction)
    bodies["boxes"] = [_dynamic(space, lambda body: pymunk.Poly.create_box(body, (0.5, 0.5)),
                                p, friction, 0.0) for p in rain_positions(n)]
    return PymunkScene(f"boxes-{n}", space, 600, bodies=bodies,
                       params={"n": n, "half_extent": 0.25, "half_width": 20.0})


SCENES = {"bounce": bounce, "ramp": ramp, "pyramid": pyramid, "rain": rain, "boxes": boxes}


def centers(bodies) -> np.ndarray:
    """(B, 2) world centres of mass of pymunk bodies (m)."""
    return np.array([tuple(body.local_to_world(body.center_of_gravity)) for body in bodies])


def angles(bodies) -> np.ndarray:
    """(B,) angles of pymunk bodies (rad)."""
    return np.array([body.angle for body in bodies])
