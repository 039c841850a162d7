"""The standard scenes of :mod:`physbook.scenes`, built in Box2D 2.3 (pybox2d) with the same
geometry, for ``run.py``.

Box2D mixes friction as √(f₁f₂) and restitution as max(e₁, e₂), so a pair value v is v on
both shapes when every shape is made of the same material, and v² on a body touching scenery
of friction 1 (the ramp). Box2D keeps the settings its testbed uses: 8 velocity and 3
position iterations; sleeping is off unless a scene asks for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import Box2D
import numpy as np

from physbook.scenes import DT, RAMP_FRICTIONS, rain_positions

VELOCITY_ITERATIONS = 8
POSITION_ITERATIONS = 3


@dataclass
class Box2DScene:
    """A filled Box2D world and what a run of it needs (the twin of ``physbook.Scene``)."""

    name: str
    world: Box2D.b2World
    steps: int
    dt: float = DT

    def step(self, dt: float) -> None:
        self.world.Step(dt, VELOCITY_ITERATIONS, POSITION_ITERATIONS)


def _world(sleeping: bool = False) -> Box2D.b2World:
    return Box2D.b2World(gravity=(0.0, -10.0), doSleep=sleeping)


def _static_box(world, half_width, half_height, center, friction, restitution, angle=0.0):
    body = world.CreateStaticBody(position=tuple(center), angle=angle)
    body.CreatePolygonFixture(box=(half_width, half_height), friction=friction,
                              restitution=restitution)
    return body


def _dynamic_box(world, half_extent, center, friction, restitution=0.0, angle=0.0):
    body = world.CreateDynamicBody(position=tuple(center), angle=angle)
    body.CreatePolygonFixture(box=(half_extent, half_extent), density=1.0, friction=friction,
                              restitution=restitution)
    return body


def _dynamic_circle(world, radius, center, friction, restitution=0.0):
    body = world.CreateDynamicBody(position=tuple(center))
    body.CreateCircleFixture(radius=radius, density=1.0, friction=friction,
                             restitution=restitution)
    return body


def bounce(height=10.0, radius=0.5, restitution=0.5) -> Box2DScene:
    world = _world()
    _static_box(world, 20.0, 0.5, (0.0, -0.5), 0.0, restitution)
    _dynamic_circle(world, radius, (0.0, height), 0.0, restitution)
    return Box2DScene("bounce", world, 600)


def ramp(angle=0.25, frictions=RAMP_FRICTIONS) -> Box2DScene:
    world = _world()
    along = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-math.sin(angle), math.cos(angle)])
    _static_box(world, 30.0, 0.5, -0.5 * normal, 1.0, 0.0, angle)
    for i, pair_friction in enumerate(frictions):
        distance = 3.0 * (len(frictions) - i) + 1.0
        _dynamic_box(world, 0.5, distance * along + 0.5 * normal, pair_friction**2,
                     angle=angle)  # √(1 · μ²) = μ
    return Box2DScene("ramp", world, 300)


def pyramid(base=20, sleeping=False) -> Box2DScene:
    world = _world(sleeping)
    _static_box(world, max(40.0, 0.5 * base + 10.0), 0.5, (0.0, -0.5), 0.6, 0.0)
    for row in range(base):
        count = base - row
        for j in range(count):
            _dynamic_box(world, 0.5, (j - 0.5 * (count - 1), 0.5 + row), 0.6)
    return Box2DScene(f"pyramid-{base}", world, 600 if base <= 20 else 500)


def vertical_stack(count=10, friction=0.3) -> Box2DScene:
    world = _world()
    _static_box(world, 20.0, 0.5, (0.0, -0.5), friction, 0.0)
    for i in range(count):
        _dynamic_box(world, 0.5, (0.0, 0.5 + i), friction)
    return Box2DScene("vertical-stack", world, 600)


def _container(world, friction):
    _static_box(world, 21.0, 0.5, (0.0, -0.5), friction, 0.0)
    _static_box(world, 0.5, 20.0, (-20.5, 20.0), friction, 0.0)
    _static_box(world, 0.5, 20.0, (20.5, 20.0), friction, 0.0)


def rain(n=1000) -> Box2DScene:
    world = _world()
    _container(world, 0.6)
    for position in rain_positions(n):
        _dynamic_circle(world, 0.25, position, 0.6)
    return Box2DScene(f"rain-{n}", world, 600)


def boxes(n=1000) -> Box2DScene:
    world = _world()
    _container(world, 0.6)
    for position in rain_positions(n):
        _dynamic_box(world, 0.25, position, 0.6)
    return Box2DScene(f"boxes-{n}", world, 600)


def free_bodies(positions, velocities, spins) -> Box2DScene:
    """Alternate unit boxes and circles of radius 0.5 that never touch, with no gravity's
    effect on contacts (they fall freely)."""
    world = _world()
    for i, (position, velocity, spin) in enumerate(zip(positions, velocities, spins,
                                                       strict=True)):
        if i % 2:
            body = _dynamic_circle(world, 0.5, position, 0.0)
        else:
            body = _dynamic_box(world, 0.5, position, 0.0)
        body.linearVelocity = tuple(velocity)
        body.angularVelocity = float(spin)
    return Box2DScene(f"free-{len(positions)}", world, 120)
