"""Light bodies pressed against heavy moving ones: a tumbler, a platform and a vice.

Each scene function fills a :class:`~physbook.world.World` (a new one unless one is given)
and returns a :class:`~physbook.scenes.base.Scene` with dt = 1/60 s and gravity (0, −10).
In each, a heavy dynamic body driven by a motor touches many small boxes at once, and a
pile or a force presses the boxes into it:

- :func:`tumbler`: a box-shaped container of four walls turned by a motor about its centre,
  full of small boxes (Box2D v3's benchmark of that name);
- :func:`platform`: a heavy platform on a vertical slide, raised by a motor until it
  reaches its stop, carrying a pile of small boxes;
- :func:`vice`: two heavy jaws on horizontal slides, pushed together by motors, closing on
  a channel of small boxes.

Each scene lists its heavy body's shapes in ``params["heavy_shapes"]`` (body coordinates)
and its boxes' half extent in ``params["half_extent"]``, so that
:func:`~physbook.scenes.quality.polygon_depths` and
:func:`~physbook.scenes.quality.sink_quality` can measure, for any engine's poses, how deep
the boxes sink into the heavy bodies.
"""

from __future__ import annotations

import math

from physbook import _check
from physbook.dynamics.joints import (
    MAX_JOINT_FORCE,
    MAX_JOINT_VALUE,
    PrismaticJoint,
    RevoluteJoint,
)
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shapes import Polygon
from physbook.scenes.base import Scene, new_world, scene_size, static_box, uniform_material
from physbook.world import World

#: Pair friction of every scene here (Box2D v3's default), no restitution.
FRICTION = 0.6

#: An anchor that collides with nothing: a joint needs a static body to hold on to.
_ANCHOR_FILTER = Filter(category=1, mask=0)


def _at_most(value: float, name: str, limit: float) -> float:
    """``value`` no larger in size than a joint takes (``limit``)."""
    if abs(value) > limit:
        raise ValueError(f"{name} must be at most {limit:g} in size, got {value:g}")
    return value


def _anchor(world, center):
    return world.add_body(Polygon.box(0.5, 0.5), position=center, kind="static",
                          filter=_ANCHOR_FILTER)


def _boxes(world, half_extent, positions, material):
    box = Polygon.box(half_extent, half_extent)
    return [world.add_body(box, position=p, material=material) for p in positions]


def tumbler(count: int = 45, world: World | None = None, *, density: float = 50.0,
            turn_rate: float = math.radians(25.0)) -> Scene:
    """A hollow square container turned about its centre at ``turn_rate`` (rad/s), holding
    ``count`` × ``count`` boxes of 0.25 m; 600 steps.

    The container is one dynamic body of four walls 1 m thick (inside 19 × 19 m, centre at
    (0, 10)) and ``density`` (kg/m², 50: 4 000 kg, sixty thousand times a box), pinned by a
    :class:`~physbook.dynamics.joints.RevoluteJoint` to a static anchor at its centre, whose
    motor turns it at ``turn_rate`` with up to 10⁸ N·m. The boxes (density 1) start on a
    grid 0.4 m apart and fall into it; the container keeps lifting them up one wall and
    letting them slide down the pile. Judge it with
    :func:`~physbook.scenes.quality.sink_quality`.
    """
    world = new_world(world)
    count = scene_size(count, "count", lambda size: size * size)
    if count > 47:
        raise ValueError(f"count must be at most 47 (47 boxes 0.4 m apart fill the 19 m "
                         f"inside), got {count}")
    density = _check.positive_scalar(density, "density")
    turn_rate = _at_most(_check.finite_scalar(turn_rate, "turn_rate"), "turn_rate",
                         MAX_JOINT_VALUE)
    material = uniform_material(friction=FRICTION, restitution=0.0)
    heavy = uniform_material(friction=FRICTION, restitution=0.0, density=density)
    center = (0.0, 10.0)
    walls = [Polygon.box(0.5, 10.0, (10.0, 0.0)), Polygon.box(0.5, 10.0, (-10.0, 0.0)),
             Polygon.box(10.0, 0.5, (0.0, 10.0)), Polygon.box(10.0, 0.5, (0.0, -10.0))]
    anchor = _anchor(world, center)
    container = world.add_body(walls, position=center, material=heavy)
    motor = world.add_joint(RevoluteJoint(anchor, container, center, motor_speed=turn_rate,
                                          max_motor_torque=1.0e8))
    start = -0.2 * count
    positions = [(start + 0.4 * j, start + 10.0 + 0.4 * i)
                 for i in range(count) for j in range(count)]
    boxes = _boxes(world, 0.125, positions, material)
    return Scene(f"tumbler-{count}", world, 600,
                 bodies={"anchor": anchor, "container": container, "boxes": boxes},
                 params={"count": count, "density": density, "turn_rate": turn_rate,
                         "half_extent": 0.125, "heavy_shapes": {"container": walls},
                         "motor": motor, "friction": FRICTION, "restitution": 0.0})


def platform(columns: int = 40, rows: int = 40, world: World | None = None, *,
             speed: float = 2.0, travel: float = 2.0, density: float = 50.0) -> Scene:
    """A heavy platform carrying a pile of ``columns`` × ``rows`` boxes of 0.25 m, raised at
    ``speed`` (m/s) by a motor until it reaches its stop ``travel`` (m) up; 240 steps.

    The platform is one dynamic body, a floor 0.5 m thick with walls 0.5 m thick on both
    ends, of ``density`` (kg/m²), on a vertical :class:`~physbook.dynamics.joints.PrismaticJoint`
    to a static anchor, with a motor of up to 10⁶ N. The boxes (density 1) start stacked
    in columns, exactly touching, on its floor. The motor jerks the pile from rest to
    ``speed``; at the stop the platform halts, the pile flies on, falls back and comes to
    rest on it. Judge it with :func:`~physbook.scenes.quality.sink_quality`.
    """
    world = new_world(world)
    columns = scene_size(columns, "columns")
    rows = scene_size(rows, "rows", lambda size: size * columns)
    speed = _at_most(_check.positive_scalar(speed, "speed"), "speed", MAX_JOINT_VALUE)
    travel = _at_most(_check.positive_scalar(travel, "travel"), "travel", MAX_JOINT_VALUE)
    density = _check.positive_scalar(density, "density")
    material = uniform_material(friction=FRICTION, restitution=0.0)
    heavy = uniform_material(friction=FRICTION, restitution=0.0, density=density)
    half_width = 0.125 * columns
    wall_height = 0.25 * rows + 1.0
    shapes = [Polygon.box(half_width + 0.5, 0.25, (0.0, -0.25)),
              Polygon.box(0.25, 0.5 * wall_height, (-half_width - 0.25, 0.5 * wall_height)),
              Polygon.box(0.25, 0.5 * wall_height, (half_width + 0.25, 0.5 * wall_height))]
    anchor = _anchor(world, (0.0, -1.0))
    body = world.add_body(shapes, position=(0.0, 0.0), material=heavy)
    motor = world.add_joint(PrismaticJoint(anchor, body, (0.0, 0.0), (0.0, 1.0), lower=0.0,
                                           upper=travel, motor_speed=speed,
                                           max_motor_force=1.0e6))
    positions = [(0.25 * (j + 0.5) - half_width, 0.25 * (i + 0.5))
                 for i in range(rows) for j in range(columns)]
    boxes = _boxes(world, 0.125, positions, material)
    return Scene(f"platform-{columns}x{rows}", world, 240,
                 bodies={"anchor": anchor, "platform": body, "boxes": boxes},
                 params={"columns": columns, "rows": rows, "speed": speed, "travel": travel,
                         "density": density, "half_extent": 0.125,
                         "heavy_shapes": {"platform": shapes}, "motor": motor,
                         "friction": FRICTION, "restitution": 0.0})


def vice(columns: int = 8, rows: int = 40, world: World | None = None, *,
         force: float = 2000.0, speed: float = 0.5, density: float = 50.0) -> Scene:
    """Two heavy jaws pushed together with ``force`` (N) each, closing at up to ``speed``
    (m/s) on a channel of ``columns`` × ``rows`` boxes of 0.25 m; 240 steps.

    The boxes (density 1) start stacked in columns, exactly touching, on a static floor
    whose top is y = 0, with 0.25 m of play on each side. Each jaw, 1 m thick and as tall
    as the stack, of ``density`` (kg/m²), slides along x on a
    :class:`~physbook.dynamics.joints.PrismaticJoint` to a static anchor just above the
    floor, its motor driving it inwards. Judge it with
    :func:`~physbook.scenes.quality.sink_quality`.
    """
    world = new_world(world)
    columns = scene_size(columns, "columns")
    rows = scene_size(rows, "rows", lambda size: size * columns)
    force = _at_most(_check.positive_scalar(force, "force"), "force", MAX_JOINT_FORCE)
    speed = _at_most(_check.positive_scalar(speed, "speed"), "speed", MAX_JOINT_VALUE)
    density = _check.positive_scalar(density, "density")
    material = uniform_material(friction=FRICTION, restitution=0.0)
    heavy = uniform_material(friction=FRICTION, restitution=0.0, density=density)
    floor = static_box(world, 0.25 * columns + 10.0, 0.5, (0.0, -0.5), material)
    half_width = 0.125 * columns
    half_height = 0.125 * rows
    jaw_shape = Polygon.box(0.5, half_height)
    jaws, motors = [], []
    for side in (-1.0, 1.0):
        x = side * (half_width + 0.25 + 0.5)
        center = (x, half_height + 0.01)
        anchor = _anchor(world, (x, -3.0))
        jaw = world.add_body(jaw_shape, position=center, material=heavy)
        motors.append(world.add_joint(PrismaticJoint(anchor, jaw, center, (-side, 0.0),
                                                     motor_speed=speed,
                                                     max_motor_force=force)))
        jaws.append(jaw)
    positions = [(0.25 * (j + 0.5) - half_width, 0.25 * (i + 0.5))
                 for i in range(rows) for j in range(columns)]
    boxes = _boxes(world, 0.125, positions, material)
    return Scene(f"vice-{columns}x{rows}", world, 240,
                 bodies={"floor": floor, "jaws": jaws, "boxes": boxes},
                 params={"columns": columns, "rows": rows, "force": force, "speed": speed,
                         "density": density, "half_extent": 0.125,
                         "heavy_shapes": {"jaws": [jaw_shape]}, "motors": motors,
                         "friction": FRICTION, "restitution": 0.0})
