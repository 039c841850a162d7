"""Chapter 13's scenes: fast bodies and thin things, where a step can jump past a wall.

- :func:`shot_at_wall`: a ball fired along x at a static wall;
- :func:`spinning_rod`: a thin rod spinning as it falls onto thin ground;
- :func:`bullets`: a volley of small bullets at a column of boxes before a thin wall.
"""

from __future__ import annotations

from physbook import _check
from physbook.geometry.shapes import Circle, Polygon
from physbook.scenes.base import Scene, new_world, scene_size, static_box, uniform_material
from physbook.world import World

#: The fastest shot the scenes make (m/s): a step then crosses 170 m.
MAX_SPEED = 1.0e4


def _at_most(value: float, name: str, limit: float, unit: str) -> float:
    if value > limit:
        raise ValueError(f"{name} must be at most {limit:g} {unit}, got {value}")
    return value


def shot_at_wall(speed: float = 100.0, thickness: float = 0.02, radius: float = 0.1,
                 world: World | None = None) -> Scene:
    """A ball of ``radius`` (m) at the origin fired at ``speed`` (m/s) along +x at a static
    wall ``thickness`` (m) thick and 2 m tall whose near face is at x = 2; friction 0.3,
    restitution 0. Gravity is the world's (set it to zero for a straight shot)."""
    world = new_world(world)
    speed = _at_most(_check.positive_scalar(speed, "speed"), "speed", MAX_SPEED, "m/s")
    thickness = _at_most(_check.positive_scalar(thickness, "thickness"), "thickness", 1.0, "m")
    radius = _at_most(_check.positive_scalar(radius, "radius"), "radius", 1.0, "m")
    if min(thickness, radius) < 1e-4:
        raise ValueError(f"thickness and radius must be at least 0.1 mm, got {thickness} m "
                         f"and {radius} m")
    material = uniform_material(friction=0.3, restitution=0.0)
    wall = static_box(world, 0.5 * thickness, 1.0, (2.0 + 0.5 * thickness, 0.0), material)
    ball = world.add_body(Circle(radius), position=(0.0, 0.0), velocity=(speed, 0.0),
                          material=material)
    return Scene("shot-at-wall", world, 60, bodies={"wall": wall, "ball": ball},
                 params={"speed": speed, "thickness": thickness, "radius": radius,
                         "near_face": 2.0})


def spinning_rod(height: float = 10.0, spin: float = 50.0, world: World | None = None) -> Scene:
    """A rod 2 m × 0.02 m dropped from ``height`` (m) spinning at ``spin`` (rad/s) onto
    ground 0.02 m thick (top face y = 0.01) and 80 m wide; friction 0.6, restitution 0."""
    world = new_world(world)
    height = _at_most(_check.positive_scalar(height, "height"), "height", 1000.0, "m")
    spin = _check.finite_scalar(spin, "spin")
    _at_most(abs(spin), "spin", 1000.0, "rad/s in size")
    material = uniform_material(friction=0.6, restitution=0.0)
    ground = static_box(world, 40.0, 0.01, (0.0, 0.0), material)
    rod = world.add_body(Polygon.box(1.0, 0.01), position=(0.0, height), angular_velocity=spin,
                         material=material)
    return Scene("spinning-rod", world, 400, bodies={"ground": ground, "rod": rod},
                 params={"height": height, "spin": spin, "ground_top": 0.01})


def bullets(count: int = 100, speed: float = 300.0, world: World | None = None) -> Scene:
    """``count`` bullets (circles of radius 0.05 m, ``bullet`` set) fired at ``speed`` (m/s)
    along +x from x = 0, at heights 0.3 m apart from y = 0.2, at a column of boxes of side
    0.2 m resting on the ground at x = 12.6, before a static wall 0.02 m thick (near face
    at x = 17.3); friction 0.5, restitution 0.2. The scene runs one second. (At 300 m/s a
    step is 5 m: neither the column nor the wall lies where a step ends.)"""
    world = new_world(world)
    count = scene_size(count, "count")
    speed = _at_most(_check.positive_scalar(speed, "speed"), "speed", MAX_SPEED, "m/s")
    material = uniform_material(friction=0.5, restitution=0.2)
    top = 0.2 + 0.3 * (count - 1) + 1.0
    ground = static_box(world, 30.0, 0.5, (10.0, -0.5), material)
    wall = static_box(world, 0.01, 0.5 * top, (17.31, 0.5 * top), material)
    box = Polygon.box(0.1, 0.1)
    boxes = [world.add_body(box, position=(12.6, 0.1 + 0.2 * k), material=material)
             for k in range(int(top / 0.2))]
    shot = Circle(0.05)
    shots = []
    for k in range(count):
        body = world.add_body(shot, position=(0.0, 0.2 + 0.3 * k), velocity=(speed, 0.0),
                              material=material)
        body.bullet = True
        shots.append(body)
    return Scene(f"bullets-{count}", world, 60,
                 bodies={"ground": ground, "wall": wall, "boxes": boxes, "bullets": shots},
                 params={"count": count, "speed": speed, "near_face": 17.3})
