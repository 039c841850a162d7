"""Chapter 17's slingshot game: drag a projectile back, let go, knock a structure down.

Every part is a piece an earlier chapter built:

- the **drag** is a :class:`~physbook.dynamics.joints.MouseJoint` (chapter 11) pulling the
  projectile towards the pointer, held within :data:`MAX_PULL` of the sling's anchor;
- the **launch** gives it the speed a stretched band would, v = k·d (the band's stiffness
  per unit mass folded into :data:`LAUNCH_GAIN`), and makes it a **bullet** (chapter 13), so
  that at 20 m/s it still meets thin planks;
- the **structures** stand because the solver stacks (chapter 10); some parts are hinged or
  welded (chapter 11), some made from outlines (chapter 14: an arch cut into convex pieces,
  a rock as a convex hull), many rounded (chapter 15: rounded blocks, capsule beams);
- **targets break** when something hits them faster than :data:`BREAK_SPEED`, told by hit
  events (chapter 12), and **stars** are sensors the projectile collects;
- a **turn ends** when the world falls asleep (chapter 11), or the projectile leaves the
  level, or :data:`TURN_TIME` has passed; then the next projectile waits at the sling.

Keys ``1``, ``2``, ``3`` choose the projectile before it is drawn back: a ball, a heavy
rounded block, a capsule. A level ends when its targets are gone or its shots spent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from physbook import _check
from physbook.draw.protocol import Style
from physbook.dynamics.body import Body
from physbook.dynamics.joints import MouseJoint, RevoluteJoint, WeldJoint
from physbook.dynamics.materials import Material
from physbook.games.game import Game
from physbook.geometry.decompose import decompose
from physbook.geometry.hull import convex_hull
from physbook.geometry.round_shapes import Capsule, Chain
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shapes import Circle, Polygon
from physbook.world import World

#: Collision categories: the level's solid parts, the projectile, the targets, the stars
#: (sensors the projectile collects), and the sling, which is scenery and touches nothing.
SOLID, PROJECTILE, TARGET, STAR, SLING = 0b00001, 0b00010, 0b00100, 0b01000, 0b10000

#: Where the projectile waits to be drawn back (m).
ANCHOR = (-9.0, 2.6)
#: The farthest it may be drawn from the anchor (m), and how near the pointer must go down
#: to it to grab it (m).
MAX_PULL, GRAB_DISTANCE = 2.0, 0.8
#: Launch speed per metre drawn back (1/s): v = LAUNCH_GAIN · (anchor − position), up to
#: 20 m/s at the full pull, a range of v²/g = 40 m on level ground at 45°.
LAUNCH_GAIN = 10.0
#: A target breaks when a contact point hits it faster than this (m/s).
BREAK_SPEED = 4.5
#: A turn ends at the latest this long after the launch (s).
TURN_TIME = 10.0
#: Angular damping of a launched projectile (1/s), so that it stops rolling.
SPIN_DAMPING = 6.0
#: Points for a target broken and a star collected.
TARGET_POINTS, STAR_POINTS = 100, 50
#: The level's bounds: a projectile that leaves them is spent (m).
BOUNDS = (-16.0, -4.0, 30.0, 40.0)

#: The height of the plateau the structures stand on (m): a flat shot meets its cliff.
PLATEAU = 2.5
#: The ground, left to right (m): flat under the sling, a cliff up to the plateau, which
#: ends in a slope down; the first and last points are the chain's ghosts.
GROUND = ((-17.0, 0.0), (-16.0, 0.0), (3.0, 0.0), (4.0, PLATEAU), (16.0, PLATEAU),
          (19.0, 0.0), (30.0, 0.0), (31.0, 0.0))

#: The projectiles, by key: (name, density in kg/m²); :func:`projectile_shape` makes each
#: one's shape (made when needed: a polygon's construction runs compiled code, which
#: importing the package must not wait for).
PROJECTILES = {"1": ("ball", 4.0), "2": ("block", 6.0), "3": ("capsule", 4.0)}


def projectile_shape(key: str):
    """The shape of the projectile chosen by ``key`` ("1", "2" or "3"): a ball of radius
    0.3 m, a block 0.54 m square rounded by 0.06 m, or a capsule 0.6 m long of radius
    0.2 m."""
    if key == "1":
        return Circle(0.3)
    if key == "2":
        return Polygon.box(0.27, 0.27, radius=0.06)
    if key == "3":
        return Capsule((-0.3, 0.0), (0.3, 0.0), 0.2)
    raise ValueError(f"key must be one of {sorted(PROJECTILES)}, got {key!r}")


#: How the game draws what draw_world does not: the sling's band, the aim (the path the
#: projectile would fly if let go now), the targets, and the stars.
BAND_STYLE = Style("band", None, (90, 50, 20))
AIM_STYLE = Style("aim", (120, 120, 120), (120, 120, 120))
TARGET_STYLE = Style("target", (110, 190, 60), (40, 100, 20))
STAR_STYLE = Style("star", (250, 210, 40), (180, 140, 0))
#: Where the band is tied, on the sling's fork (m), and the times the aim is drawn at (s).
FORK_TIPS = ((ANCHOR[0] - 0.35, ANCHOR[1] + 0.3), (ANCHOR[0] + 0.35, ANCHOR[1] + 0.3))
AIM_TIMES = tuple(0.08 * k for k in range(1, 16))

#: Materials: wood for blocks, stone for rocks, and the targets a little bouncy.
WOOD = Material(density=0.6, friction=0.6, restitution=0.05)
STONE = Material(density=2.0, friction=0.8, restitution=0.02)
TARGET_MATERIAL = Material(density=0.5, friction=0.7, restitution=0.2)


@dataclass(frozen=True)
class Level:
    """One level: its ``name``, how many ``shots`` it gives, and ``build(world, game)``,
    which adds the structure, calling ``game.add_target`` and ``game.add_star``."""

    name: str
    shots: int
    build: Callable

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "shots", _check.positive_int(self.shots, "shots"))
        if not callable(self.build):
            raise TypeError(f"build must be callable as build(world, game), got "
                            f"{type(self.build).__name__}")


def block(world: World, center, half_width: float, half_height: float, *,
          angle: float = 0.0, material: Material = WOOD, radius: float = 0.03) -> Body:
    """A rounded wooden block standing at ``center`` (m)."""
    return world.add_body(Polygon.box(half_width - radius, half_height - radius,
                                      radius=radius),
                          position=center, angle=angle, material=material,
                          filter=Filter(SOLID))


def ledge(world: World, game: Slingshot, center) -> None:
    """A static ledge high up at ``center`` (m), with a target on it: it takes a shot of
    its own."""
    x, y = center
    world.add_body(Polygon.box(1.0, 0.12, radius=0.03), position=(x, y), kind="static",
                   material=STONE, filter=Filter(SOLID))
    game.add_target((x + 0.3, y + 0.15 + 0.35))


def _tower(world: World, game: Slingshot) -> None:
    """Level 1: two rounded posts under a capsule lintel, a target on top and one inside,
    a third behind a stone block."""
    x, y = 9.0, PLATEAU
    for side in (-1.0, 1.0):
        block(world, (x + side * 1.0, y + 1.0), 0.2, 1.0)
    world.add_body(Capsule((-1.45, 0.0), (1.45, 0.0), 0.15), position=(x, y + 2.15),
                   material=WOOD, filter=Filter(SOLID))
    game.add_target((x, y + 2.3 + 0.35))
    game.add_target((x, y + 0.35))
    # A third target far behind, sheltered by a stone block.
    block(world, (x + 4.6, y + 0.6), 0.3, 0.6, material=STONE)
    game.add_target((x + 5.4, y + 0.35))
    ledge(world, game, (13.0, 9.0))
    game.add_star((1.0, 7.5))


def _hinged_gate(world: World, game: Slingshot) -> None:
    """Level 2: a stone wall welded into an L, a gate hinged to the top of a post, two
    targets behind them and a third on a pillar."""
    x, y = 10.0, PLATEAU
    post = block(world, (x - 1.5, y + 1.5), 0.2, 1.5)
    # The gate hangs from the post's top on a hinge and leans on the wall's foot.
    gate = world.add_body(Polygon.box(0.08, 1.3, radius=0.02), position=(x - 1.5 + 0.3, y + 1.65),
                          material=WOOD, filter=Filter(SOLID))
    world.add_joint(RevoluteJoint(post, gate, (x - 1.5 + 0.3, y + 2.95)))
    # An L of stone: an upright and a foot, welded into one rigid piece.
    upright = block(world, (x + 1.0, y + 1.0), 0.2, 1.0, material=STONE)
    foot = block(world, (x + 1.6, y + 0.15), 0.4, 0.15, material=STONE)
    world.add_joint(WeldJoint(upright, foot, (x + 1.2, y + 0.15)))
    game.add_target((x + 0.3, y + 0.35))
    game.add_target((x + 1.0, y + 2.0 + 0.35))
    # A target high on a capsule pillar, further on.
    world.add_body(Capsule((0.0, -1.2), (0.0, 1.2), 0.25), position=(x + 4.5, y + 1.45),
                   material=STONE, filter=Filter(SOLID))
    game.add_target((x + 4.5, y + 2.9 + 0.35))
    ledge(world, game, (7.0, 10.0))
    game.add_star((2.0, 8.0))


#: Level 3's arch, outline counter-clockwise (m, about its base's centre): a concave
#: polygon that chapter 14's decomposition cuts into convex pieces.
ARCH = ((-1.6, 0.0), (-0.8, 0.0), (-0.8, 0.9), (-0.4, 1.25), (0.4, 1.25), (0.8, 0.9),
        (0.8, 0.0), (1.6, 0.0), (1.6, 1.6), (1.2, 2.0), (-1.2, 2.0), (-1.6, 1.6))
#: Level 3's rock: the convex hull of these points is its outline (m).
ROCK_POINTS = ((-0.5, -0.3), (0.1, -0.45), (0.55, -0.1), (0.3, 0.2), (0.4, 0.35),
               (-0.2, 0.4), (-0.55, 0.1), (0.0, 0.0), (0.2, -0.1))


def _arch(world: World, game: Slingshot) -> None:
    """Level 3: a target under an arch made from an outline, a rock (a convex hull) and a
    target on top, a stack of rounded blocks beyond with a third."""
    x, y = 8.5, PLATEAU
    world.add_body(decompose(ARCH), position=(x, y), material=WOOD, filter=Filter(SOLID))
    game.add_target((x, y + 0.35))
    hull = convex_hull(ROCK_POINTS)
    rock_bottom = float(hull[:, 1].min())
    world.add_body(Polygon(hull), position=(x - 0.8, y + 2.0 - rock_bottom), material=STONE,
                   filter=Filter(SOLID))
    game.add_target((x + 0.8, y + 2.0 + 0.35))
    for k in range(3):
        block(world, (x + 4.0, y + 0.4 + 0.8 * k), 0.4, 0.4)
    game.add_target((x + 4.0, y + 2.4 + 0.35))
    ledge(world, game, (15.0, 10.0))
    game.add_star((0.0, 6.5))
    game.add_star((4.5, 8.0))


#: The three levels, in order.
LEVELS = (Level("tower", 3, _tower), Level("hinged gate", 3, _hinged_gate),
          Level("arch", 4, _arch))


class Slingshot(Game):
    """The slingshot game of the module docstring, at one of :data:`LEVELS`.

    Parameters
    ----------
    level
        Which of :data:`LEVELS`, 0, 1 or 2, or a :class:`Level` of your own.
    replay
        A log to play instead of live inputs (see :class:`~physbook.games.game.Game`).

    Attributes
    ----------
    score
        Points so far: :data:`TARGET_POINTS` per target, :data:`STAR_POINTS` per star.
    targets, stars
        The target and star bodies left.
    projectile
        The body at the sling or in flight (None once the shots are spent).
    choice
        The key of the next projectile (``"1"``, ``"2"`` or ``"3"``).
    """

    #: The world rectangle the game shows (m): 32 m by 18 m.
    view = (-14.0, -1.0, 18.0, 17.0)

    def __init__(self, level: int | Level = 0, replay=None):
        if isinstance(level, Level):
            self.level, self.stage = None, level
        else:
            self.level = _check.integer(level, "level", 0, len(LEVELS) - 1)
            self.stage = LEVELS[self.level]
        self.choice = "1"
        super().__init__(replay)

    # --- the level ------------------------------------------------------------------------

    def build(self, world: World) -> None:
        level = self.stage
        self.score, self.shots_left = 0, level.shots
        self.targets: list[Body] = []
        self.stars: list[Body] = []
        self.broken = 0
        self.projectile: Body | None = None
        self.drag: MouseJoint | None = None
        self.launched_at: int | None = None  # the step of the launch, while in flight
        self.choice = "1"
        world.events.hit_speed = BREAK_SPEED
        world.events.on_contact(TARGET, SOLID | PROJECTILE | TARGET, hit=self._hit)
        world.events.on_contact(STAR, PROJECTILE, begin=self._collect)
        # The ground, a chain (chapter 15), listed right to left so its solid side is below.
        world.add_body(Chain(GROUND[::-1]), kind="static", material=Material(friction=0.8),
                       filter=Filter(SOLID))
        # The sling: a fork of two posts, scenery that touches nothing.
        x, y = ANCHOR
        world.add_body([Polygon.box(0.12, y / 2, center=(0.0, -y / 2 - 0.3)),
                        Polygon.box(0.08, 0.35, center=(-0.25, 0.0), angle=0.35),
                        Polygon.box(0.08, 0.35, center=(0.25, 0.0), angle=-0.35)],
                       position=(x, y), kind="static", filter=Filter(SLING, 0))
        level.build(world, self)
        self._load()

    def add_target(self, center) -> Body:
        """A target: a round creature of radius 0.35 m at ``center`` (m)."""
        body = self.world.add_body(Circle(0.35), position=center, material=TARGET_MATERIAL,
                                   filter=Filter(TARGET))
        self.targets.append(body)
        return body

    def add_star(self, center) -> Body:
        """A star: a sensor of radius 0.4 m at ``center`` (m) the projectile collects."""
        body = self.world.add_body(Circle(0.4), position=center, kind="static", sensor=True,
                                   filter=Filter(STAR, PROJECTILE))
        self.stars.append(body)
        return body

    def _load(self) -> None:
        """Put the chosen projectile at the sling, weightless until it is launched."""
        _, density = PROJECTILES[self.choice]
        shape = projectile_shape(self.choice)
        if self.projectile is not None and self.projectile.alive:
            self.world.remove_body(self.projectile)
        self.projectile = self.world.add_body(
            shape, position=ANCHOR, gravity_scale=0.0,
            material=Material(density=density, friction=0.6, restitution=0.1),
            filter=Filter(PROJECTILE, SOLID | TARGET | STAR))

    # --- events -----------------------------------------------------------------------------

    def _hit(self, hit) -> None:
        """A hit faster than BREAK_SPEED (the world's hit speed) breaks the target."""
        target = hit.body_a
        if target.alive:  # two hits in one step break it once
            self.world.remove_body(target)
            self.targets = [t for t in self.targets if t.alive]
            self.broken += 1
            self.score += TARGET_POINTS

    def _collect(self, contact) -> None:
        star = contact.body_a
        if star.alive:
            self.world.remove_body(star)
            self.stars = [s for s in self.stars if s.alive]
            self.score += STAR_POINTS

    # --- inputs and turns -------------------------------------------------------------------

    @property
    def waiting(self) -> bool:
        """Whether a projectile waits at the sling (it may be chosen, grabbed, drawn)."""
        return self.projectile is not None and self.launched_at is None

    @property
    def over(self) -> bool:
        """Whether the level has ended: no target left, or no shot left and none flying."""
        return not self.targets or self.projectile is None

    def apply(self, event: dict) -> None:
        kind = event["type"]
        if kind == "keydown" and event["key"] in PROJECTILES and self.waiting \
                and self.drag is None:
            self.choice = event["key"]
            self._load()
        elif kind in ("down", "move", "up") and self.waiting:
            pointer = np.array([event["x"], event["y"]])
            if kind == "down" and self.drag is None:
                centre = self.projectile.center_of_mass
                if np.hypot(*(pointer - centre)) <= GRAB_DISTANCE:
                    mass = self.projectile.mass
                    self.drag = self.world.add_joint(MouseJoint(
                        self.projectile, centre, max_force=500.0 * mass, hertz=10.0,
                        damping_ratio=1.0))
                    self.drag.target = self._held(pointer)
            elif kind == "move" and self.drag is not None:
                self.drag.target = self._held(pointer)
            elif kind == "up" and self.drag is not None:
                self._launch()

    @staticmethod
    def _held(pointer: np.ndarray) -> np.ndarray:
        """The pointer, moved to within MAX_PULL of the anchor."""
        anchor = np.array(ANCHOR)
        pull = pointer - anchor
        length = float(np.hypot(*pull))
        return anchor + pull * (MAX_PULL / length) if length > MAX_PULL else pointer

    def _launch(self) -> None:
        """Let go: v = LAUNCH_GAIN · (anchor − position), gravity on, a bullet."""
        self.world.remove_joint(self.drag)
        self.drag = None
        body = self.projectile
        pull = np.array(ANCHOR) - body.center_of_mass
        body.velocity = LAUNCH_GAIN * pull
        body.angular_velocity = 0.0
        body.gravity_scale = 1.0
        body.bullet = True
        # A ball rolls on flat ground for ever (the contact has no rolling resistance):
        # damping its spin lets it stop, and the world fall asleep to end the turn.
        body.angular_damping = SPIN_DAMPING
        self.launched_at = self.steps
        self.shots_left -= 1

    def update(self) -> None:
        """End the turn when the world sleeps, the projectile left, or time is up."""
        if self.launched_at is None or self.projectile is None:
            return
        body = self.projectile
        left, bottom, right, top = BOUNDS
        if body.alive:  # a game of your own may have removed it (a projectile that bursts)
            x, y = body.center_of_mass
            gone = not (left < x < right and bottom < y < top)
        else:
            gone = True
        asleep = self.world.sleep.awake_count == 0
        late = (self.steps - self.launched_at) * self.dt >= TURN_TIME
        if gone or asleep or late:
            if body.alive:
                self.world.remove_body(body)
            self.projectile, self.launched_at = None, None
            if self.targets and self.shots_left > 0:
                self._load()

    def draw(self, drawer) -> None:
        """Draw the band, the aim and the targets and stars through ``drawer`` (a
        :class:`~physbook.draw.protocol.DebugDraw`), over what ``draw_world`` drew."""
        for target in self.targets:
            drawer.circle(target.center_of_mass, 0.35, float(target.angle), TARGET_STYLE)
        for star in self.stars:
            drawer.circle(star.center_of_mass, 0.4, 0.0, STAR_STYLE)
        if not self.waiting:
            return
        centre = self.projectile.center_of_mass
        for tip in FORK_TIPS:
            drawer.segment(np.array(tip), centre, BAND_STYLE)
        if self.drag is not None:
            # The path if let go now: p(t) = p₀ + v t + ½ g t², v = k·(anchor − p₀).
            velocity = LAUNCH_GAIN * (np.array(ANCHOR) - centre)
            gravity = self.world.gravity
            for t in AIM_TIMES:
                drawer.point(centre + velocity * t + 0.5 * gravity * t * t, 3.0, AIM_STYLE)

    def status(self) -> str:
        title = self.stage.name if self.level is None else (
            f"Level {self.level + 1} ({self.stage.name})")
        name = PROJECTILES[self.choice][0]
        if self.over:
            result = "cleared" if not self.targets else "failed"
            return f"{title} {result} · score {self.score}"
        return (f"{title} · score {self.score} · targets "
                f"{len(self.targets)} · shots {self.shots_left} · {name} (keys 1 2 3)")
