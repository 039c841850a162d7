"""The standard scenes of :mod:`physbook.scenes`, built in Box2D v3 (``pyb2d3``) with the same
geometry, for ``run.py``.

Box2D v3 mixes friction as √(f₁f₂), as physbook does, and restitution as max(e₁, e₂)
(physbook takes the smaller), so a pair value v is v on both shapes when every shape is made
of the same material, and v² on a body touching scenery of friction 1 (the ramp). Box2D v3
keeps its defaults: 4 substeps, soft contacts, one thread (no task system is given, so it
runs on the calling thread); sleeping is off unless a scene asks for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyb2d3 as b2

from physbook.scenes import DT, RAMP_FRICTIONS, rain_positions

SUBSTEPS = 4  # Box2D v3's default


@dataclass
class Box2D3Scene:
    """A filled Box2D v3 world and what a run of it needs (the twin of ``physbook.Scene``);
    ``bodies`` are its dynamic bodies in the order made."""

    name: str
    world: b2.World
    steps: int
    bodies: list
    dt: float = DT

    def step(self, dt: float) -> None:
        self.world.step(dt, SUBSTEPS)


def _world(sleeping: bool = False) -> b2.World:
    world = b2.World(gravity=(0.0, -10.0))
    world.sleeping_enabled = sleeping
    return world


def _shape_def(friction: float, restitution: float, density: float = 1.0):
    return b2.shape_def(density=density, material=b2.surface_material(
        friction=friction, restitution=restitution))


def _static_box(world, half_width, half_height, center, friction, restitution, angle=0.0):
    body = world.create_static_body(position=tuple(center), rotation=float(angle))
    body.create_polygon_shape(_shape_def(friction, restitution),
                              b2.box(half_width, half_height))
    return body


def _dynamic(world, center, angle=0.0):
    return world.create_dynamic_body(position=tuple(float(x) for x in center),
                                     rotation=float(angle))


def _dynamic_box(world, half_extent, center, friction, restitution=0.0, angle=0.0):
    body = _dynamic(world, center, angle)
    body.create_polygon_shape(_shape_def(friction, restitution), b2.box(half_extent,
                                                                        half_extent))
    return body


def _dynamic_circle(world, radius, center, friction, restitution=0.0):
    body = _dynamic(world, center)
    body.create_circle_shape(_shape_def(friction, restitution), b2.circle(radius=radius))
    return body


def bounce(height=10.0, radius=0.5, restitution=0.5) -> Box2D3Scene:
    world = _world()
    _static_box(world, 20.0, 0.5, (0.0, -0.5), 0.0, restitution)
    ball = _dynamic_circle(world, radius, (0.0, height), 0.0, restitution)
    return Box2D3Scene("bounce", world, 600, [ball])


def ramp(angle=0.25, frictions=RAMP_FRICTIONS) -> Box2D3Scene:
    world = _world()
    along = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-math.sin(angle), math.cos(angle)])
    _static_box(world, 30.0, 0.5, -0.5 * normal, 1.0, 0.0, angle)
    boxes = [_dynamic_box(world, 0.5, (3.0 * (len(frictions) - i) + 1.0) * along + 0.5 * normal,
                          pair_friction**2, angle=angle)  # √(1 · μ²) = μ
             for i, pair_friction in enumerate(frictions)]
    return Box2D3Scene("ramp", world, 300, boxes)


def pyramid(base=20, sleeping=False) -> Box2D3Scene:
    world = _world(sleeping)
    _static_box(world, max(40.0, 0.5 * base + 10.0), 0.5, (0.0, -0.5), 0.6, 0.0)
    boxes = [_dynamic_box(world, 0.5, (j - 0.5 * (base - row - 1), 0.5 + row), 0.6)
             for row in range(base) for j in range(base - row)]
    return Box2D3Scene(f"pyramid-{base}", world, 600 if base <= 20 else 500, boxes)


def vertical_stack(count=10, friction=0.3) -> Box2D3Scene:
    world = _world()
    _static_box(world, 20.0, 0.5, (0.0, -0.5), friction, 0.0)
    boxes = [_dynamic_box(world, 0.5, (0.0, 0.5 + i), friction) for i in range(count)]
    return Box2D3Scene("vertical-stack", world, 600, boxes)


def _container(world, friction):
    _static_box(world, 21.0, 0.5, (0.0, -0.5), friction, 0.0)
    _static_box(world, 0.5, 20.0, (-20.5, 20.0), friction, 0.0)
    _static_box(world, 0.5, 20.0, (20.5, 20.0), friction, 0.0)


def rain(n=1000) -> Box2D3Scene:
    world = _world()
    _container(world, 0.6)
    circles = [_dynamic_circle(world, 0.25, position, 0.6) for position in rain_positions(n)]
    return Box2D3Scene(f"rain-{n}", world, 600, circles)


def boxes(n=1000) -> Box2D3Scene:
    world = _world()
    _container(world, 0.6)
    made = [_dynamic_box(world, 0.25, position, 0.6) for position in rain_positions(n)]
    return Box2D3Scene(f"boxes-{n}", world, 600, made)


def free_bodies(positions, velocities, spins) -> Box2D3Scene:
    """Alternate unit boxes and circles of radius 0.5 that never touch, falling freely."""
    world = _world()
    made = []
    for i, (position, velocity, spin) in enumerate(zip(positions, velocities, spins,
                                                       strict=True)):
        if i % 2:
            body = _dynamic_circle(world, 0.5, position, 0.0)
        else:
            body = _dynamic_box(world, 0.5, position, 0.0)
        body.linear_velocity = tuple(float(v) for v in velocity)
        body.angular_velocity = float(spin)
        made.append(body)
    return Box2D3Scene(f"free-{len(positions)}", world, 120, made)
