"""Chapter 9's standard scenes: a bounce, a ramp, a pyramid, and piles of circles and boxes.

Each scene function fills a :class:`~physbook.world.World` (a new one unless one is given)
and returns a :class:`~physbook.scenes.base.Scene`. The geometry follows the project's table
of standard scenes: dt = 1/60 s, gravity (0, −10), density 1, floor tops at y = 0.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.dynamics.body import Body
from physbook.dynamics.materials import Material, mix_friction
from physbook.geometry.shapes import Circle, Polygon
from physbook.scenes.base import (
    Scene,
    body_value,
    new_world,
    scene_size,
    static_box,
    uniform_material,
)
from physbook.world import World


def bounce(world: World | None = None, *, height: float = 10.0, radius: float = 0.5,
           restitution: float = 0.5) -> Scene:
    """One circle dropped from centre ``height`` onto the floor; pair restitution, no friction.

    The analytic apexes are r + (h0 − r)·e^(2n) (:func:`bounce_apexes`).
    """
    world = new_world(world)
    height = _check.positive_scalar(height, "height")
    radius = _check.positive_scalar(radius, "radius")
    restitution = _check.non_negative_scalar(restitution, "restitution")
    if height <= radius:
        raise ValueError(f"height must exceed radius so the ball starts above the floor, "
                         f"got {height} <= {radius}")
    material = uniform_material(friction=0.0, restitution=restitution)
    floor = static_box(world, 20.0, 0.5, (0.0, -0.5), material)
    ball = world.add_body(Circle(radius), position=(0.0, height), material=material)
    return Scene("bounce", world, 600, bodies={"floor": floor, "ball": ball},
                 params={"height": height, "radius": radius, "restitution": restitution,
                         "friction": 0.0})


#: Pair friction of the five ramp boxes, from the top of the ramp down.
RAMP_FRICTIONS = (0.75, 0.5, 0.35, 0.1, 0.0)


def ramp(world: World | None = None, *, angle: float = 0.25,
         frictions=RAMP_FRICTIONS) -> Scene:
    """Unit boxes set at rest on a static ramp rising to the right at ``angle`` (rad).

    The ramp is 60 m long; its top face passes through the origin. With B boxes, box i
    sits ``3·(B − i) + 1`` m up the slope from the origin with pair friction
    ``frictions[i]`` against the ramp (no restitution), so the slippery boxes of the
    standard list start lowest and slide away from the others. A box sticks when
    μ ≥ tan θ and otherwise accelerates down the slope at g(sin θ − μ cos θ).
    """
    world = new_world(world)
    angle = _check.finite_scalar(angle, "angle")
    if not 0.0 <= angle < 0.5 * math.pi:
        raise ValueError(f"angle must be in [0, π/2), got {angle}")
    frictions = _check.finite_array(frictions, "frictions")
    if frictions.ndim != 1 or not 1 <= len(frictions) <= 9:
        raise ValueError(f"frictions must hold 1 to 9 values (the ramp's length), got "
                         f"shape {frictions.shape}")
    frictions = [_check.non_negative_scalar(mu, f"frictions[{i}]")
                 for i, mu in enumerate(frictions)]
    along = np.array([math.cos(angle), math.sin(angle)])  # up the slope
    normal = np.array([-math.sin(angle), math.cos(angle)])  # out of the ramp's top face
    ramp_friction = 1.0
    ramp_body = static_box(world, 30.0, 0.5, -0.5 * normal,
                            Material(restitution=0.0, friction=ramp_friction), angle)
    boxes = []
    distances = []
    for i, pair_friction in enumerate(frictions):
        box_friction = body_value(pair_friction, ramp_friction, mix_friction,
                                  f"frictions[{i}]")
        distance = 3.0 * (len(frictions) - i) + 1.0
        distances.append(distance)
        center = distance * along + 0.5 * normal
        boxes.append(world.add_body(Polygon.box(0.5, 0.5), position=center, angle=angle,
                                    material=Material(restitution=0.0,
                                                      friction=box_friction)))
    return Scene("ramp", world, 300, bodies={"ramp": ramp_body, "boxes": boxes},
                 params={"angle": angle, "frictions": tuple(frictions),
                         "distances": tuple(distances), "direction": along})


def pyramid(base: int = 20, world: World | None = None) -> Scene:
    """A pyramid of unit boxes, ``base`` in the bottom row, exactly touching, at rest.

    Row i (from 0 at the bottom) holds base − i boxes at x = j − (n − 1)/2, y = 0.5 + i, on
    a static ground box 80 × 1 whose top is y = 0; pair friction 0.6, restitution 0.
    """
    world = new_world(world)
    base = scene_size(base, "base", lambda size: size * (size + 1) // 2)
    material = uniform_material(friction=0.6, restitution=0.0)
    ground = static_box(world, max(40.0, 0.5 * base + 10.0), 0.5, (0.0, -0.5), material)
    box = Polygon.box(0.5, 0.5)
    boxes = []
    for row in range(base):
        count = base - row
        for j in range(count):
            boxes.append(world.add_body(box, position=(j - 0.5 * (count - 1), 0.5 + row),
                                        material=material))
    steps = 600 if base <= 20 else 500
    return Scene(f"pyramid-{base}", world, steps, bodies={"ground": ground, "boxes": boxes},
                 params={"base": base, "friction": 0.6, "restitution": 0.0})


def _container(world: World, material: Material) -> dict[str, Body]:
    floor = static_box(world, 21.0, 0.5, (0.0, -0.5), material)
    left = static_box(world, 0.5, 20.0, (-20.5, 20.0), material)
    right = static_box(world, 0.5, 20.0, (20.5, 20.0), material)
    return {"floor": floor, "left_wall": left, "right_wall": right}


def rain_positions(n: int) -> np.ndarray:
    """Start positions of the rain scene: rows of 40 at spacing 0.9 from y = 2 (m).

    Row i (0 the lowest) is shifted by −0.225 m when i is even and +0.225 m when odd.
    """
    n = scene_size(n, "n")
    k = np.arange(n)
    row, column = k // 40, k % 40
    x = (column - 19.5) * 0.9 + np.where(row % 2 == 1, 0.225, -0.225)
    y = 2.0 + 0.9 * row
    return np.column_stack([x, y])


def rain(n: int = 1000, world: World | None = None) -> Scene:
    """``n`` circles of radius 0.25 falling into a box 40 m wide (floor and two walls).

    Pair friction 0.6, restitution 0. The standard scene has n = 1000 (25 rows of 40).
    """
    world = new_world(world)
    positions = rain_positions(n)
    material = uniform_material(friction=0.6, restitution=0.0)
    bodies: dict[str, Body | list[Body]] = dict(_container(world, material))
    circle = Circle(0.25)
    bodies["circles"] = [world.add_body(circle, position=p, material=material)
                         for p in positions]
    return Scene(f"rain-{n}", world, 600, bodies=bodies,
                 params={"n": n, "radius": 0.25, "half_width": 20.0, "friction": 0.6,
                         "restitution": 0.0})


def boxes(n: int = 1000, world: World | None = None) -> Scene:
    """As :func:`rain` with boxes of side 0.5 instead of circles."""
    world = new_world(world)
    positions = rain_positions(n)
    material = uniform_material(friction=0.6, restitution=0.0)
    bodies: dict[str, Body | list[Body]] = dict(_container(world, material))
    box = Polygon.box(0.25, 0.25)
    bodies["boxes"] = [world.add_body(box, position=p, material=material) for p in positions]
    return Scene(f"boxes-{n}", world, 600, bodies=bodies,
                 params={"n": n, "half_extent": 0.25, "half_width": 20.0, "friction": 0.6,
                         "restitution": 0.0})
