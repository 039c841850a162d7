"""Chapter 15's terrain: floors of tiles and chains, a slope, a character and a marble run.

Chains run from right to left where they are floors: a chain segment is solid on its right,
looking from its first point to its second.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.dynamics.materials import Material, mix_friction
from physbook.geometry.round_shapes import Capsule, Chain, Segment
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

#: What :func:`tile_floor` slides along the floor.
GLIDERS = ("box", "capsule")
#: What :func:`tile_floor`'s floor is made of.
FLOORS = ("tiles", "chain")


def _glider(kind: str):
    """A box of side 0.5 m, or a capsule 1 m long and 0.5 m thick lying along x."""
    return Polygon.box(0.25, 0.25) if kind == "box" else Capsule((-0.25, 0.0), (0.25, 0.0), 0.25)


def tile_floor(tiles: int = 100, body: str = "box", floor: str = "tiles", *,
               speed: float = 5.0, friction: float = 0.0,
               world: World | None = None) -> Scene:
    """A body sent sliding at ``speed`` (m/s) along a floor ``tiles`` metres long.

    The floor's top is y = 0 from x = 0 to x = ``tiles``: with ``floor="tiles"`` it is that
    many static unit boxes side by side, each its own body (as a tile map builds them); with
    ``floor="chain"`` one static chain of one-metre segments, its ghosts a metre beyond
    each end. The body (``"box"``, side 0.5 m, or ``"capsule"``, 1 m long and 0.5 m thick,
    lying) starts touching the floor at x = 1 moving along +x; pair friction ``friction``,
    restitution 0. The run stops before the body reaches the floor's far end.
    """
    world = new_world(world)
    tiles = scene_size(tiles, "tiles")
    if tiles < 4:
        raise ValueError(f"tiles must be at least 4 (the body starts on tile 1), got {tiles}")
    body = _check.choice(body, "body", GLIDERS)
    floor = _check.choice(floor, "floor", FLOORS)
    speed = _check.positive_scalar(speed, "speed")
    if not 0.1 <= speed <= 100.0:
        raise ValueError(f"speed must be from 0.1 to 100 m/s, got {speed}")
    material = uniform_material(friction=_check.non_negative_scalar(friction, "friction"),
                                restitution=0.0)
    if floor == "tiles":
        ground = [static_box(world, 0.5, 0.5, (k + 0.5, -0.5), material) for k in range(tiles)]
    else:
        points = [(float(x), 0.0) for x in range(tiles + 1, -2, -1)]  # right to left
        ground = world.add_body(Chain(points), kind="static", material=material)
    glider = world.add_body(_glider(body), position=(1.0, 0.25), velocity=(speed, 0.0),
                            material=material)
    steps = int((tiles - 3.0) / speed * 60.0)
    return Scene(f"tile-floor-{body}-{floor}", world, steps,
                 bodies={"floor": ground, "body": glider},
                 params={"tiles": tiles, "body": body, "floor": floor, "speed": speed,
                         "friction": friction})


def _slope_chain(angle: float, length: float) -> Chain:
    """A straight chain rising to the right at ``angle`` through the origin, ``length``
    metres each way, in 2 m segments, solid below (points from top right to bottom left)."""
    along = np.array([math.cos(angle), math.sin(angle)])
    count = int(round(length / 2.0))
    reach = np.arange(count + 1, -count - 2, -1) * 2.0  # one more each end: the ghosts
    return Chain(reach[:, None] * along)


def chain_slope(angle: float = 0.3, frictions=(0.2, 0.5), world: World | None = None) -> Scene:
    """Capsules (1 m long, radius 0.25 m) lying at rest on a static chain slope rising to
    the right at ``angle`` (rad), in 2 m segments; capsule i has pair friction
    ``frictions[i]`` and its centre sits 6·i + 3 m up the slope from the origin: give the
    slippery ones first, so that they start lowest and slide away from the others. A
    capsule sticks when μ ≥ tan θ and otherwise accelerates down the slope
    at g(sin θ − μ cos θ), whether it lies across a joint of the chain or not.
    """
    world = new_world(world)
    angle = _check.finite_scalar(angle, "angle")
    if not 0.0 <= angle < 0.5 * math.pi:
        raise ValueError(f"angle must be in [0, π/2), got {angle}")
    frictions = _check.finite_array(frictions, "frictions")
    if frictions.ndim != 1 or not 1 <= len(frictions) <= 6:
        raise ValueError(f"frictions must hold 1 to 6 values, got shape {frictions.shape}")
    frictions = [_check.non_negative_scalar(mu, f"frictions[{i}]")
                 for i, mu in enumerate(frictions)]
    along = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-math.sin(angle), math.cos(angle)])
    slope = world.add_body(_slope_chain(angle, 40.0), kind="static",
                           material=Material(restitution=0.0, friction=1.0))
    capsule = Capsule((-0.5, 0.0), (0.5, 0.0), 0.25)
    capsules, distances = [], []
    for i, mu in enumerate(frictions):
        distance = 6.0 * i + 3.0
        distances.append(distance)
        body_friction = body_value(mu, 1.0, mix_friction, f"frictions[{i}]")
        capsules.append(world.add_body(
            capsule, position=distance * along + 0.25 * normal, angle=angle,
            material=Material(restitution=0.0, friction=body_friction)))
    return Scene("chain-slope", world, 300, bodies={"slope": slope, "capsules": capsules},
                 params={"angle": angle, "frictions": tuple(frictions),
                         "distances": tuple(distances), "direction": along})


def capsule_character(world: World | None = None) -> Scene:
    """An upright capsule character (core 1 m, radius 0.3 m, fixed rotation) standing on a
    chain floor at x = 0, with a step 0.2 m high at x = 3 and a slope beyond, under gravity
    and friction 0.8; it should stand still where it was put."""
    world = new_world(world)
    material = uniform_material(friction=0.8, restitution=0.0)
    # Right to left: slope down from (12, 2), the step's top, the step, the floor.
    points = [(14.0, 3.0), (12.0, 2.0), (6.0, 0.2), (3.0, 0.2), (3.0, 0.0), (-8.0, 0.0),
              (-10.0, 0.0)]
    ground = world.add_body(Chain(points), kind="static", material=material)
    character = world.add_body(Capsule((0.0, -0.5), (0.0, 0.5), 0.3), position=(0.0, 0.8),
                               material=material, fixed_rotation=True)
    return Scene("capsule-character", world, 300,
                 bodies={"ground": ground, "character": character},
                 params={"foot": 0.0, "step_x": 3.0, "step_height": 0.2})


#: Where the marble run's ramps lie: (high end x, low end x, height of the low end), top
#: first; each falls 2.5 m over its 9 m (a slope of 0.27 rad, steeper than the friction
#: angle, so that boxes slide too) and drops its marbles onto the next.
_RAMPS = ((-5.0, 4.0, 14.0), (5.0, -4.0, 9.5), (-5.0, 4.0, 5.0), (5.0, -4.0, 0.5))
#: The run's side walls (x, m) and the bin's floor (y, m).
_WALL_X, _BIN_FLOOR = 6.5, -2.0
_DROP = 2.5


def _ramp(high_x: float, low_x: float, low_y: float) -> Chain:
    """A ramp of four segments from (high_x, low_y + 2.5) down to (low_x, low_y), solid
    above: its high end meets a wall (the ghost goes up), its low end is an edge the
    marbles roll over (the ghost goes down)."""
    xs = np.linspace(high_x, low_x, 5)
    ys = low_y + _DROP * (xs - low_x) / (high_x - low_x)
    points = np.column_stack([xs, ys])
    if low_x > high_x:  # descending to the right: solid above means right to left
        points = points[::-1]
        return Chain(np.vstack([points[0] + (0.0, -1.0), points, points[-1] + (0.0, 1.0)]))
    return Chain(np.vstack([points[0] + (0.0, 1.0), points, points[-1] + (0.0, -1.0)]))


def marble_run(marbles: int = 20, world: World | None = None) -> Scene:
    """``marbles`` bodies (circles, capsules and rounded boxes in turn, about 0.3 m across)
    dropped at the top of four zig-zag ramps of chains between two walls, into a bin.

    Ramps are open chains of four segments each, solid above; walls are two-sided
    segments at x = ±6.5 m from the bin's floor (y = −2) to y = 20. Friction 0.1,
    restitution 0.1. The run lasts 15 s.
    """
    world = new_world(world)
    marbles = scene_size(marbles, "marbles")
    if marbles > 200:
        raise ValueError(f"marbles must be at most 200 (the top ramp's room), got {marbles}")
    material = uniform_material(friction=0.1, restitution=0.1)
    ramps = [world.add_body(_ramp(*ramp), kind="static", material=material) for ramp in _RAMPS]
    walls = world.add_body(
        [Segment((-_WALL_X, _BIN_FLOOR), (-_WALL_X, 20.0)),
         Segment((_WALL_X, _BIN_FLOOR), (_WALL_X, 20.0))], kind="static", material=material)
    bin_floor = static_box(world, _WALL_X, 0.5, (0.0, _BIN_FLOOR - 0.5), material)
    shapes = (Circle(0.15), Capsule((-0.1, 0.0), (0.1, 0.0), 0.12),
              Polygon.box(0.08, 0.08, radius=0.06))
    bodies = []
    for k in range(marbles):
        row, column = divmod(k, 10)
        position = (-5.0 + 0.45 * column, 17.5 + 0.45 * row)
        bodies.append(world.add_body(shapes[k % 3], position=position, material=material))
    return Scene("marble-run", world, 900,
                 bodies={"ramps": ramps, "walls": walls, "bin": bin_floor, "marbles": bodies},
                 params={"wall_x": _WALL_X, "bin_floor": _BIN_FLOOR,
                         "bin_top": _BIN_FLOOR + 2.0})
