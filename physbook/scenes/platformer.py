"""Chapter 16's platformer: a capsule character on chain terrain, with a one-way platform,
a conveyor belt, a lift and coins, driven by a recorded input.

Every mechanic is a contact setting, so the step stays one compiled call:

- the **character walks by its own surface velocity**: its capsule's surface runs backwards
  under it, like a tank's tread, and friction drives it forwards relative to whatever it
  stands on: the ground, a conveyor that carries it, a platform that moves. Walking needs
  no velocity written each step, and stops where friction stops it;
- the **one-way platform** has ``one_way=(0, 1)``: the character jumps up through it and
  lands on it;
- the **conveyor** has a ``surface_velocity``;
- the **lift** is kinematic, moved each step by :meth:`Body.move_to
  <physbook.dynamics.body_feel.BodyFeel.move_to>`, so that it carries what stands on it;
- the **coins** are sensors; a contact callback removes each coin the character touches.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.dynamics.contact_surface import CONTACT_DISABLED
from physbook.dynamics.materials import Material
from physbook.geometry.round_shapes import Capsule, Chain
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shapes import Circle, Polygon
from physbook.scenes.base import DT, Scene, new_world
from physbook.world import World

#: Collision categories of the level.
PLAYER, GROUND, COIN = 0b001, 0b010, 0b100

#: The character's walking speed (m/s), the speed it jumps at (m/s), and how fast it may
#: change its horizontal speed in the air (m/s², a game's "air control").
WALK_SPEED, JUMP_SPEED, AIR_CONTROL = 4.0, 7.5, 12.0
#: A contact whose normal leans within 45° of up holds the character up: it may jump.
GROUND_COSINE = math.cos(math.radians(45.0))
#: ... once its gap is at most this (m): a speculative contact further off is the ground
#: the character may meet within the step, not ground it stands on.
GROUND_GAP = 0.005

#: The terrain, left to right, as two chains either side of the conveyor: flat, a 20° hill
#: up to a plateau, down again and flat to the conveyor; flat beyond it (m).
TERRAIN = (((-4.0, 0.0), (8.0, 0.0), (13.0, 5.0 * math.tan(math.radians(20.0))),
            (19.0, 5.0 * math.tan(math.radians(20.0))), (24.0, 0.0), (27.0, 0.0)),
           ((33.0, 0.0), (44.0, 0.0)))
#: The one-way platform's centre and half extents (m).
ONE_WAY_PLATFORM = ((4.0, 2.2), (1.5, 0.1))
#: The conveyor's centre, half extents (m) and belt speed (m/s, carrying to the left): its
#: top is the ground's level, between the two chains.
CONVEYOR = ((30.0, -0.1), (3.0, 0.1), -2.0)
#: The lift: its centre at its lowest, half extents, how high it rises (m), and its period
#: (s); it starts at its lowest, flush with the ground.
LIFT = ((37.0, -0.1), (1.2, 0.1), 3.4, 6.0)
#: The coins' centres (m).
COINS = ((-1.5, 0.6), (4.0, 2.9), (16.0, 2.6), (30.0, 0.6), (37.5, 4.3))

#: What the recorded run presses, as (first step, last step, keys) spans; keys are any of
#: "left", "right", "jump".
RECORDED_INPUT = (
    (0, 35, ("left",)),         # left to the first coin
    (36, 164, ("right",)),      # back, and under the one-way platform
    (196, 196, ("jump",)),      # up through it: the second coin
    (262, 821, ("right",)),     # over the hill (the third) and along the belt (the fourth)
    (1068, 1119, ("right",)),   # onto the lift once it is down
    (1120, 1145, ("left",)),    # stop on it; it lifts the character to the fifth coin
)


def _terrain_chains() -> list[Chain]:
    """The terrain as chains, solid below: points from right to left, a ghost each end
    (the conveyor's top continues the ground at each gap)."""
    chains = []
    for run in TERRAIN:
        points = [(run[0][0] - 2.0, run[0][1]), *run, (run[-1][0] + 2.0, run[-1][1])]
        chains.append(Chain(points[::-1]))
    return chains


class Platformer:
    """The level of the module docstring in a world, and its controls.

    Parameters
    ----------
    world
        An empty world to build in (a new one by default).

    Attributes
    ----------
    scene
        The :class:`~physbook.scenes.base.Scene`: ``bodies`` holds the ``"player"``, the
        ``"terrain"``, the ``"one_way"`` platform, the ``"lift"``, the ``"conveyor"`` and
        the ``"coins"``.
    collected
        Ids of the coins the character has picked up, in order.
    """

    def __init__(self, world: World | None = None):
        world = new_world(world)
        ground = Filter(GROUND)
        terrain = world.add_body(_terrain_chains(), kind="static", filter=ground)
        (x, y), (hw, hh) = ONE_WAY_PLATFORM
        one_way = world.add_body(Polygon.box(hw, hh), position=(x, y), kind="static",
                                 filter=ground, one_way=(0.0, 1.0))
        (x, y), (hw, hh), belt = CONVEYOR
        conveyor = world.add_body(Polygon.box(hw, hh), position=(x, y), kind="static",
                                  filter=ground, surface_velocity=(belt, 0.0))
        (x, y), (hw, hh), _, _ = LIFT
        lift = world.add_body(Polygon.box(hw, hh), position=(x, y), kind="kinematic",
                                filter=ground)
        coins = [world.add_body(Circle(0.25), position=c, kind="static", sensor=True,
                                filter=Filter(COIN, PLAYER)) for c in COINS]
        # An upright capsule 1.2 m tall that never turns, with grippy feet (μ = 1): it
        # walks by its surface velocity (see the module docstring).
        player = world.add_body(Capsule((0.0, -0.35), (0.0, 0.35), 0.25), position=(0.0, 0.6),
                                fixed_rotation=True, filter=Filter(PLAYER),
                                material=Material(density=1.0, friction=1.0))
        self.collected: list[int] = []
        world.events.on_contact(COIN, PLAYER, begin=self._collect)
        self.scene = Scene("platformer", world, 1260, DT,
                           bodies={"player": player, "terrain": terrain, "one_way": one_way,
                                   "conveyor": conveyor, "lift": lift, "coins": coins},
                           params={"walk_speed": WALK_SPEED, "jump_speed": JUMP_SPEED})

    @property
    def world(self) -> World:
        return self.scene.world

    def _collect(self, contact) -> None:
        coin = contact.body_a
        if coin.alive:  # a removal waits for the callbacks: this coin counts once
            self.collected.append(coin.id)
            self.world.remove_body(coin)

    def on_ground(self) -> bool:
        """Whether the character stands on something: a contact that acts this step, with a
        point within 5 mm, and whose normal, towards the character, leans within 45° of
        up."""
        player = self.scene.bodies["player"]
        contacts = self.world.contacts
        row = player.row
        for (a, b), normal, flags, depths, count in zip(
                contacts.bodies, contacts.normals, contacts.flags, contacts.depths,
                contacts.point_counts, strict=True):
            if flags & CONTACT_DISABLED or row not in (a, b) or depths[:count].max() < -GROUND_GAP:
                continue
            up = normal[1] if b == row else -normal[1]  # the normal points from a to b
            if up > GROUND_COSINE:
                return True
        return False

    def step(self, keys=()) -> None:
        """One step of the game with ``keys`` held (any of "left", "right", "jump"): the
        character's tread set from left and right, a jump if it stands on something, the
        lift moved to its next pose, then the world stepped."""
        if isinstance(keys, str) or not isinstance(keys, (tuple, list, set, frozenset)):
            raise TypeError(f"keys must be a tuple, list or set of key names, got "
                            f"{type(keys).__name__}")
        if not all(isinstance(key, str) for key in keys):
            raise TypeError("keys must hold key names (strings)")
        keys = set(keys)
        unknown = keys - {"left", "right", "jump"}
        if unknown:
            raise ValueError(f"keys must be 'left', 'right' or 'jump', got {sorted(unknown)}")
        player = self.scene.bodies["player"]
        direction = ("right" in keys) - ("left" in keys)
        # The tread: the surface runs backwards at the walking speed, so friction drives
        # the character forwards at it, relative to what it stands on.
        player.surface_velocity = (-direction * WALK_SPEED, 0.0)
        grounded = self.on_ground()
        vx, vy = player.velocity
        if not grounded and direction:
            # In the air the tread touches nothing: steer at the air control's rate.
            change = direction * WALK_SPEED - vx
            limit = AIR_CONTROL * self.scene.dt
            vx += min(max(change, -limit), limit)
        if "jump" in keys and grounded:
            vy = JUMP_SPEED
        player.velocity = (vx, vy)
        # The lift rises and sinks: y = y₀ + ½·rise·(1 − cos 2πt/T).
        (x, y), _, rise, period = LIFT
        time = self.world.time + self.scene.dt
        self.scene.bodies["lift"].move_to(
            (x, y + 0.5 * rise * (1.0 - math.cos(2.0 * math.pi * time / period))),
            dt=self.scene.dt)
        self.world.step(self.scene.dt)

    def play(self, recording=RECORDED_INPUT, steps: int | None = None) -> np.ndarray:
        """Play ``recording`` ((first step, last step, keys) spans) for ``steps`` steps (the
        scene's count by default) from where the game is; returns the character's centre
        after each step, (steps, 2) (m)."""
        steps = self.scene.steps if steps is None else _check.non_negative_int(steps, "steps")
        start = self.world.step_count
        path = np.zeros((steps, 2))
        for k in range(steps):
            n = start + k
            keys = next((held for first, last, held in recording if first <= n <= last), ())
            self.step(keys)
            path[k] = self.scene.bodies["player"].center_of_mass
        return path


def platformer(world: World | None = None) -> Scene:
    """The level of :class:`Platformer`, as a scene (its ``params["game"]`` is the
    :class:`Platformer`, whose :meth:`~Platformer.step` plays it)."""
    game = Platformer(world)
    game.scene.params["game"] = game
    return game.scene
