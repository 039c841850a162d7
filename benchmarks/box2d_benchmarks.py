"""Box2D v3's own benchmark scenes, described once for every engine, and how well each ended.

Box2D v3 times its solver on a set of scenes (``shared/benchmarks.c`` and ``benchmark/``
in its repository): a large pyramid, many small pyramids, a grid of jointed circles, a
tumbler, a smash, a washer, a spinner and a rain of ragdolls. Each function here describes
one of them (sizes, counts, speeds, densities, frictions and step counts as Box2D's release
build has them) as plain data: bodies with their shapes and materials, revolute joints with
their anchors in body coordinates, gravity, whether bodies may sleep, and the steps to run.
:mod:`benchmark_engines` builds a description in physbook, Box2D v3 and pymunk, so the
three worlds hold the same bodies by construction.

Materials are given as Box2D gives them, per shape: friction mixes as √(μ₁μ₂) in Box2D and
physbook alike, and every scene has one pair restitution for all its contacts (0 but for
the spinner's 0.1), which each builder gives every shape so that each engine's rule (max in
Box2D, min in physbook, the product in pymunk) makes that pair value. Masses follow from
the shapes and densities in every engine; Box2D weighs a rounded polygon as its core with
each corner pushed out by 1.412·r, a little more than the rounded shape weighs in physbook
and pymunk (the spinner's bar by 0.02 %).

Each scene carries a quality function of the final state (every body's origin and angle,
in the order described): how far the top box of each pyramid dropped, how far the joints of
the grid came apart, how many bodies left their container and how deep boxes sank into the
heavy body that drives them. It is evaluated the same way for every engine.

The rain of ragdolls makes and destroys bodies while it runs: a scene may have a
``schedule`` that says, before each step, which of its places get a new group of bodies
(destroying the group there), and the engines keep the groups in the order of their
places. Box2D's ragdoll (``shared/human.c``) is eleven capsule bones (the feet rounded
polygons) joined by revolute joints with limits, a spring (5 Hz, damping ratio 0.5) and
friction (a motor held at speed 0 with a torque limit); its head and lower arms have linear
damping 0.1/s, which pymunk has no per-body setting for, so pymunk's ragdolls go undamped.
Box2D also lets each ragdoll bone sleep from 0.1 m/s; physbook and pymunk use their own
sleep thresholds.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from physbook.scenes import deepest_sink, placed

DT = 1.0 / 60.0  # Box2D's benchmark steps at 60 Hz
ALL_BITS = (1 << 32) - 1  # the categories every engine has (pymunk's masks are 32 bits)
# The spinner's motor has no torque limit (Box2D gives FLT_MAX); physbook takes at most
# 1e30 N·m, which no step comes near either.
NO_LIMIT = 1e30


@dataclass(frozen=True)
class ShapeSpec:
    """One shape in body coordinates (m): a ``circle`` (``points``: its centre), a
    ``polygon`` (its vertices, counter-clockwise; ``radius`` rounds it), a ``capsule`` (the
    two centres), a ``segment`` (its two ends) or a closed ``chain`` (its points, clockwise
    so that it holds bodies in); density (kg/m²) and friction as Box2D's shape has them;
    a mask of its own, or None for its body's."""

    kind: str
    points: np.ndarray
    radius: float = 0.0
    density: float = 1.0
    friction: float = 0.6
    mask: int | None = None


@dataclass(frozen=True)
class BodySpec:
    """A body: ``static``, ``kinematic`` or ``dynamic``, its pose (m, rad), velocity (m/s,
    rad/s), shapes, whether it starts awake, its shapes' filter (category, mask, group:
    shapes of one negative group never collide) and its linear damping (1/s)."""

    kind: str
    position: tuple[float, float]
    shapes: tuple[ShapeSpec, ...] = ()
    angle: float = 0.0
    velocity: tuple[float, float] = (0.0, 0.0)
    angular_velocity: float = 0.0
    awake: bool = True
    category: int = 1
    mask: int = ALL_BITS
    group: int = 0
    linear_damping: float = 0.0


@dataclass(frozen=True)
class JointSpec:
    """A revolute joint between bodies ``a`` and ``b`` (indices), pinned at ``local_a`` on
    a and ``local_b`` on b (body coordinates, m), with a motor driving ω_b − ω_a to
    ``motor_speed`` (rad/s) with at most ``max_motor_torque`` (N·m; 0: no motor). The
    joint angle is θ_b − θ_a − ``reference_angle``; it stays within ``lower``, ``upper``
    (rad; None: no limit), and a spring of ``hertz`` (0: none) and ``damping_ratio``
    pulls it to 0."""

    a: int
    b: int
    local_a: tuple[float, float]
    local_b: tuple[float, float]
    motor_speed: float = 0.0
    max_motor_torque: float = 0.0
    reference_angle: float = 0.0
    lower: float | None = None
    upper: float | None = None
    hertz: float = 0.0
    damping_ratio: float = 0.0


@dataclass
class BenchmarkScene:
    """A described scene: bodies, joints, gravity (m/s²), sleep, the pair restitution, the
    steps Box2D's benchmark runs, and the quality of a state: a dict of named numbers from
    every body's origins (B, 2) and angles (B,). A scene that makes bodies as it runs has a
    ``schedule``, the places to fill before step k (counting from 0), and ``group(place)``,
    the bodies and joints (indices within the group) to put there; the state then lists
    the scene's own bodies and after them each filled place's, in the order of places."""

    name: str
    bodies: list[BodySpec]
    joints: list[JointSpec] = field(default_factory=list)
    gravity: tuple[float, float] = (0.0, -10.0)
    sleeping: bool = True
    restitution: float = 0.0
    steps: int = 500
    quality: Callable[[np.ndarray, np.ndarray], dict] | None = None
    dt: float = DT
    schedule: Callable[[int], list[int]] | None = None
    group: Callable[[int], tuple[list[BodySpec], list[JointSpec]]] | None = None

    def start(self) -> tuple[np.ndarray, np.ndarray]:
        """Every body's origin (B, 2) and angle (B,) as described (the state at step 0)."""
        return (np.array([body.position for body in self.bodies], dtype=float),
                np.array([body.angle for body in self.bodies], dtype=float))


def box(half_width: float, half_height: float, center=(0.0, 0.0), **material) -> ShapeSpec:
    """A rectangle of half extents (m) centred at ``center`` in body coordinates."""
    cx, cy = center
    corners = np.array([[-half_width, -half_height], [half_width, -half_height],
                        [half_width, half_height], [-half_width, half_height]])
    return ShapeSpec("polygon", corners + (cx, cy), **material)


def _hull(points) -> np.ndarray:
    """The convex hull of a few points, counter-clockwise from the lowest-leftmost one."""
    points = np.asarray(points, dtype=float)
    start = points[np.lexsort((points[:, 0], points[:, 1]))[0]]
    others = [p for p in points if not np.array_equal(p, start)]
    others.sort(key=lambda p: math.atan2(p[1] - start[1], p[0] - start[0]))
    return np.array([start, *others])


def _top_drop(top: np.ndarray, heights: np.ndarray):
    """Quality of pyramids: the largest drop (m) of their top boxes (rows ``top``) from
    their start ``heights``."""
    def quality(origins, angles):
        return {"top_drop_m": float(np.max(heights - origins[top, 1]))}
    return quality


# --- the pyramids ----------------------------------------------------------------------

def _pyramid(bodies: list, base: int, extent: float, x0: float, y0: float) -> int:
    """Box2D's pyramid of ``base`` squares of half ``extent`` (m) in the bottom row; row i
    at y = (2i + 1)·extent + y0 and x = (i + 1)·extent + 2(j − i)·extent + x0. The index
    of its top box."""
    square = box(extent, extent)
    for i in range(base):
        for j in range(i, base):
            bodies.append(BodySpec("dynamic", ((i + 1.0) * extent + 2.0 * (j - i) * extent + x0,
                                               (2.0 * i + 1.0) * extent + y0), (square,)))
    return len(bodies) - 1


def large_pyramid(base: int = 100) -> BenchmarkScene:
    """5 050 unit boxes in a pyramid of base 100 on a ground box 200 × 2 (top at y = 0);
    sleep off; 500 steps. Quality: the top box's drop."""
    bodies = [BodySpec("static", (0.0, -1.0), (box(100.0, 1.0),))]
    top = _pyramid(bodies, base, 0.5, -0.5 * base, 0.0)
    return BenchmarkScene("large_pyramid", bodies, sleeping=False, steps=500,
                          quality=_top_drop(np.array([top]), np.array([bodies[top].position[1]])))


def many_pyramids(rows: int = 20, columns: int = 20, base: int = 10) -> BenchmarkScene:
    """rows × columns pyramids of base 10 (55 unit boxes each) on shelves: one static body
    holding a segment 11·columns wide per row of pyramids, 11 m apart; sleep off; 200
    steps. Quality: the largest drop of a pyramid's top box."""
    extent = 0.5
    shelf_gap = 2.0 * extent * (base + 1.0)
    width = 2.0 * extent * columns * (base + 1.0)
    shelves = tuple(ShapeSpec("segment", np.array([[-0.5 * width, i * shelf_gap],
                                                   [0.5 * width, i * shelf_gap]]))
                    for i in range(rows))
    bodies = [BodySpec("static", (0.0, 0.0), shelves)]
    tops = []
    for i in range(rows):
        for j in range(columns):
            center_x = -0.5 * width + j * (2.0 * extent * base + 2.0 * extent) + 2.0 * extent
            tops.append(_pyramid(bodies, base, extent, center_x - 0.5, i * shelf_gap))
    tops = np.array(tops)
    heights = np.array([bodies[k].position[1] for k in tops])
    return BenchmarkScene("many_pyramids", bodies, sleeping=False, steps=200,
                          quality=_top_drop(tops, heights))


# --- the joint grid --------------------------------------------------------------------

def _to_world(local: np.ndarray, origins: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Points (N, 2) given in the coordinates of N bodies, in the world: o + R(θ)·p."""
    c, s = np.cos(angles), np.sin(angles)
    return origins + np.column_stack([c * local[:, 0] - s * local[:, 1],
                                      s * local[:, 0] + c * local[:, 1]])


def joint_stretch(bodies_origins, angles, joints: list[JointSpec]) -> float:
    """The largest distance (m) between the two anchors of any joint, from the bodies'
    origins (B, 2) and angles (B,): how far the joints came apart."""
    a = np.array([joint.a for joint in joints])
    b = np.array([joint.b for joint in joints])
    local_a = np.array([joint.local_a for joint in joints], dtype=float)
    local_b = np.array([joint.local_b for joint in joints], dtype=float)
    world_a = _to_world(local_a, bodies_origins[a], angles[a])
    world_b = _to_world(local_b, bodies_origins[b], angles[b])
    return float(np.max(np.hypot(*(world_a - world_b).T)))


def joint_grid(n: int = 100) -> BenchmarkScene:
    """n × n circles of radius 0.4 a metre apart, each pinned to its neighbours below and
    to the right by revolute joints (2n(n − 1) − 6), hanging from seven static circles in the
    middle of the top row; the circles collide with nothing (category 2, mask all but 2);
    sleep off; 500 steps. Quality: the largest joint stretch."""
    circle = ShapeSpec("circle", np.zeros((1, 2)), radius=0.4)
    bodies, joints = [], []
    for k in range(n):
        for i in range(n):
            pinned = n // 2 - 3 <= k <= n // 2 + 3 and i == 0
            bodies.append(BodySpec("static" if pinned else "dynamic", (float(k), float(-i)),
                                   (circle,), category=2, mask=ALL_BITS & ~2))
            index = len(bodies) - 1
            if i > 0:
                joints.append(JointSpec(index - 1, index, (0.0, -0.5), (0.0, 0.5)))
            # Box2D's grid also pins the seven static circles to each other; such a joint
            # moves nothing (and physbook refuses it), so it is left out.
            if k > 0 and not (pinned and bodies[index - n].kind == "static"):
                joints.append(JointSpec(index - n, index, (0.5, 0.0), (-0.5, 0.0)))
    return BenchmarkScene("joint_grid", bodies, joints, sleeping=False, steps=500,
                          quality=lambda o, a: {"stretch_m": joint_stretch(o, a, joints)})


# --- heavy bodies driving light boxes --------------------------------------------------

def _sink_and_out(heavy: int, polygons: list[np.ndarray], boxes: slice, half_extent: float,
                  outside: Callable[[np.ndarray], np.ndarray]):
    """Quality of light boxes driven by a heavy body (index ``heavy``, with ``polygons`` in
    its body coordinates): the deepest a box sinks into it (m), and how many box origins
    ``outside`` (a test of positions in the heavy body's coordinates) finds out."""
    def quality(origins, angles):
        position, angle = origins[heavy], angles[heavy]
        heavy_polygons = [placed(polygon, position[None], np.array([angle]))[0]
                          for polygon in polygons]
        c, s = math.cos(angle), math.sin(angle)
        relative = origins[boxes] - position
        local = np.column_stack([c * relative[:, 0] + s * relative[:, 1],
                                 -s * relative[:, 0] + c * relative[:, 1]])
        return {"sink_m": deepest_sink(origins[boxes], angles[boxes], half_extent,
                                       heavy_polygons),
                "out": int(np.count_nonzero(outside(local)))}
    return quality


def tumbler(grid: int = 45) -> BenchmarkScene:
    """A box 20 m square of four walls 1 m thick (density 50) turned at 25°/s by a motor
    (up to 10⁸ N·m) about its centre at (0, 10), holding 45 × 45 squares of 0.25 m, 0.4 m
    apart; 750 steps. Quality: the deepest sink into the walls and the boxes outside
    (centre beyond the walls' inner faces, 9.5 m from the centre)."""
    walls = (box(0.5, 10.0, (10.0, 0.0), density=50.0), box(0.5, 10.0, (-10.0, 0.0), density=50.0),
             box(10.0, 0.5, (0.0, 10.0), density=50.0), box(10.0, 0.5, (0.0, -10.0), density=50.0))
    bodies = [BodySpec("static", (0.0, 0.0)), BodySpec("dynamic", (0.0, 10.0), walls)]
    joints = [JointSpec(0, 1, (0.0, 10.0), (0.0, 0.0), motor_speed=math.radians(25.0),
                        max_motor_torque=1e8)]
    square = box(0.125, 0.125)
    for i in range(grid):
        for j in range(grid):
            bodies.append(BodySpec("dynamic", (-0.2 * grid + 0.4 * j, -0.2 * grid + 10.0 + 0.4 * i),
                                   (square,)))
    quality = _sink_and_out(1, [wall.points for wall in walls], slice(2, None), 0.125,
                            lambda local: np.max(np.abs(local), axis=1) > 9.5)
    return BenchmarkScene("tumbler", bodies, joints, steps=750, quality=quality)


def washer(grid: int = 90) -> BenchmarkScene:
    """A kinematic drum at (0, 10) turning at 25°/s (and drifting at (0.001, −0.002) m/s,
    as Box2D's does): 36 blocks between radii 16 and 18 m, each reaching a tenth of its
    arc into its neighbours, and four paddles between radii 14 and 16; inside, 90 × 90
    squares of 0.1 m, 0.21 m apart; 500 steps. Quality: the deepest sink into the drum
    and the boxes outside (centre beyond radius 16)."""
    r0, r1, r2 = 14.0, 16.0, 18.0
    step = math.pi / 18.0

    def turned(angle):
        return np.array([math.cos(angle), math.sin(angle)])

    pieces = []
    for i in range(36):
        start, end = i * step, (i + 1) * step if i < 35 else 0.0  # the last ends at 0
        a1, a2 = turned(start - 0.1 * step), turned(end + 0.1 * step)
        pieces.append(ShapeSpec("polygon", _hull([r1 * a1, r2 * a1, r1 * a2, r2 * a2])))
        if i % 9 == 0:
            u1, u2 = turned(start), turned(end)
            pieces.append(ShapeSpec("polygon", _hull([r0 * u1, r1 * u1, r0 * u2, r1 * u2])))
    bodies = [BodySpec("static", (0.0, 0.0)),
              BodySpec("kinematic", (0.0, 10.0), tuple(pieces), velocity=(0.001, -0.002),
                       angular_velocity=math.radians(25.0))]
    square, a = box(0.1, 0.1), 0.1
    for i in range(grid):
        for j in range(grid):
            bodies.append(BodySpec("dynamic", (-1.1 * a * grid + 2.1 * a * j,
                                               -1.1 * a * grid + 10.0 + 2.1 * a * i), (square,)))
    quality = _sink_and_out(1, [piece.points for piece in pieces], slice(2, None), 0.1,
                            lambda local: np.hypot(*local.T) > r1)
    return BenchmarkScene("washer", bodies, steps=500, quality=quality)


def smash(columns: int = 120, rows: int = 80) -> BenchmarkScene:
    """No gravity: a square of 8 m (density 8) at 40 m/s into a block of 120 × 80 squares
    of 0.4 m, touching and asleep; 300 steps. Quality: the deepest sink of a square into
    the hammer, and how far the hammer got (its centre's x, m)."""
    hammer = box(4.0, 4.0, density=8.0)
    bodies = [BodySpec("dynamic", (-20.0, 0.0), (hammer,), velocity=(40.0, 0.0))]
    d = 0.4
    square = box(0.5 * d, 0.5 * d)
    for i in range(columns):
        for j in range(rows):
            bodies.append(BodySpec("dynamic", (i * d + 30.0, (j - rows / 2.0) * d), (square,),
                                   awake=False))

    def quality(origins, angles):
        sink = deepest_sink(origins[1:], angles[1:], 0.5 * d,
                            [placed(hammer.points, origins[:1], angles[:1])[0]])
        return {"sink_m": sink, "hammer_x_m": float(origins[0, 0])}
    return BenchmarkScene("smash", bodies, gravity=(0.0, 0.0), steps=300, quality=quality)


def spinner(count: int = 2 * 3038) -> BenchmarkScene:
    """A closed chain of 360 points on a circle of radius 40 about (0, 32) (friction 0.1)
    holding 6 076 capsules, circles and squares (density 0.25, friction 0.1, restitution
    0.1; capsule 0.5 long of radius 0.25, circle of radius 0.35, square of 0.7) in rows of
    92 from (−23, 2), and a rounded bar 1.2 × 40.4 (core 0.8 × 40, radius 0.2,
    frictionless) pinned at (0, 12) and driven at 5 rad/s with no torque limit; 500 steps.
    Quality: the bodies outside the circle (centre beyond 40 m)."""
    turn = -2.0 * math.pi / 360
    angles = turn * np.arange(360)
    points = np.column_stack([40.0 * np.cos(angles), 40.0 * np.sin(angles) + 32.0])
    bodies = [BodySpec("static", (0.0, 0.0),
                       (ShapeSpec("chain", points, friction=0.1),)),
              BodySpec("dynamic", (0.0, 12.0),
                       (ShapeSpec("polygon", box(0.4, 20.0).points, radius=0.2,
                                  friction=0.0),))]
    joints = [JointSpec(0, 1, (0.0, 12.0), (0.0, 0.0), motor_speed=5.0,
                        max_motor_torque=NO_LIMIT)]
    material = {"density": 0.25, "friction": 0.1}
    kinds = (ShapeSpec("capsule", np.array([[-0.25, 0.0], [0.25, 0.0]]), radius=0.25,
                       **material),
             ShapeSpec("circle", np.zeros((1, 2)), radius=0.35, **material),
             ShapeSpec("polygon", box(0.35, 0.35).points, **material))
    x, y = -23.0, 2.0
    for i in range(count):
        bodies.append(BodySpec("dynamic", (x, y), (kinds[i % 3],)))
        x += 0.5
        if x >= 23.0:
            x, y = -23.0, y + 0.5

    def quality(origins, angles):
        return {"out": int(np.count_nonzero(np.hypot(origins[2:, 0], origins[2:, 1] - 32.0)
                                            > 40.0))}
    return BenchmarkScene("spinner", bodies, joints, restitution=0.1, steps=500,
                          quality=quality)


# --- the rain of ragdolls --------------------------------------------------------------

#: Box2D's ragdoll, standing with its feet at y = 0: (name, parent, body y, capsule's
#: lower and upper centre y, radius, pivot y, lower and upper limit (× π), friction
#: scale, linear damping); the reference angle of the elbows is π/4.
BONES = (
    ("hip", None, 0.95, -0.02, 0.02, 0.095, None, None, None, 1.0, 0.0),
    ("torso", 0, 1.2, -0.135, 0.135, 0.09, 1.0, -0.25, 0.0, 0.5, 0.0),
    ("head", 1, 1.475, -0.038, 0.039, 0.075, 1.4, -0.3, 0.1, 0.25, 0.1),
    ("upper left leg", 0, 0.775, -0.125, 0.125, 0.06, 0.9, -0.05, 0.4, 1.0, 0.0),
    ("lower left leg", 3, 0.475, -0.155, 0.125, 0.045, 0.625, -0.5, -0.02, 0.5, 0.0),
    ("upper right leg", 0, 0.775, -0.125, 0.125, 0.06, 0.9, -0.05, 0.4, 1.0, 0.0),
    ("lower right leg", 5, 0.475, -0.155, 0.125, 0.045, 0.625, -0.5, -0.02, 0.5, 0.0),
    ("upper left arm", 1, 1.225, -0.125, 0.125, 0.035, 1.35, -0.1, 0.8, 0.5, 0.0),
    ("lower left arm", 7, 0.975, -0.125, 0.125, 0.03, 1.1, -0.2, 0.3, 0.1, 0.1),
    ("upper right arm", 1, 1.225, -0.125, 0.125, 0.035, 1.35, -0.1, 0.8, 0.5, 0.0),
    ("lower right arm", 9, 0.975, -0.125, 0.125, 0.03, 1.1, -0.2, 0.3, 0.1, 0.1),
)
FOOT = np.array([[-0.03, -0.185], [0.11, -0.185], [0.11, -0.16], [-0.03, -0.14]])


def ragdoll(position, group: int, friction_torque: float = 0.05, hertz: float = 5.0,
            damping_ratio: float = 0.5) -> tuple[list[BodySpec], list[JointSpec]]:
    """Box2D's ragdoll at ``position`` (its feet's level, m): eleven bones of density 1 and
    friction 0.2 (feet 0.05, colliding with the ground only), category 2 colliding with
    categories 1 and 2 but not with its own negative ``group``; joints with limits, the
    spring and friction torque ``friction_torque`` × the bone's scale (N·m)."""
    x, y = position
    bodies, joints = [], []
    for name, parent, height, low, high, radius, pivot, lower, upper, scale, damping in BONES:
        shapes = [ShapeSpec("capsule", np.array([[0.0, low], [0.0, high]]), radius=radius,
                            friction=0.2)]
        if name.startswith("lower") and name.endswith("leg"):
            shapes.append(ShapeSpec("polygon", _hull(FOOT), radius=0.015, friction=0.05,
                                    mask=1))
        bodies.append(BodySpec("dynamic", (x, y + height), tuple(shapes), category=2,
                               mask=1 | 2, group=-group, linear_damping=damping))
        if parent is not None:
            elbow = name.startswith("lower") and name.endswith("arm")
            joints.append(JointSpec(
                parent, len(bodies) - 1, (0.0, pivot - BONES[parent][2]), (0.0, pivot - height),
                max_motor_torque=scale * friction_torque,
                reference_angle=0.25 * math.pi if elbow else 0.0,
                lower=lower * math.pi, upper=upper * math.pi, hertz=hertz,
                damping_ratio=damping_ratio))
    return bodies, joints


RAIN_ROWS, RAIN_COLUMNS, RAIN_GROUP = 5, 40, 5


def rain(rows: int = RAIN_ROWS, columns: int = RAIN_COLUMNS, group_size: int = RAIN_GROUP,
         grid_count: int = 500, steps: int = 1000) -> BenchmarkScene:
    """Five floors, 45 m apart, each a row of 501 squares of 0.5 m on one static body; every
    eight steps a group of five ragdolls (0.5 m apart) appears 40 m above each floor in
    the next of 40 columns, and once every column is filled, the oldest column's groups
    are destroyed and made again; 1 000 steps. Quality: the largest stretch of a ragdoll's
    joint."""
    cell = 0.5
    span = grid_count * cell
    squares = tuple(box(0.5 * cell, 0.5 * cell, (-0.5 * span + j * cell, 45.0 * i))
                    for i in range(rows) for j in range(grid_count + 1))
    bodies = [BodySpec("static", (0.0, 0.0), squares)]

    def group(place):
        row, column = divmod(place, columns)
        x = -0.5 * span + span / columns * (column + 0.5)
        made, pins = [], []
        for i in range(group_size):
            ragdoll_bodies, ragdoll_joints = ragdoll((x + 0.5 * i, 40.0 + 45.0 * row), i + 1)
            pins += [replace_indices(joint, len(made)) for joint in ragdoll_joints]
            made += ragdoll_bodies
        return made, pins

    def schedule(step):
        if step % 8:
            return []
        column = (step // 8) % columns
        return [row * columns + column for row in range(rows)]

    size, pins = len(group(0)[0]), group(0)[1]  # every place's group has these

    def quality(origins, angles):
        filled = (len(origins) - 1) // size
        joints = [replace_indices(joint, 1 + k * size) for k in range(filled)
                  for joint in pins]
        return {"stretch_m": joint_stretch(origins, angles, joints) if joints else 0.0}

    return BenchmarkScene("rain", bodies, steps=steps, quality=quality, schedule=schedule,
                          group=group)


def replace_indices(joint: JointSpec, offset: int) -> JointSpec:
    """``joint`` between the bodies ``offset`` further on."""
    return dataclasses.replace(joint, a=joint.a + offset, b=joint.b + offset)


SCENES = {"large_pyramid": large_pyramid, "many_pyramids": many_pyramids,
          "joint_grid": joint_grid, "tumbler": tumbler, "washer": washer, "smash": smash,
          "spinner": spinner, "rain": rain}
