"""The standard scenes shared by the book, the tests and the benchmarks.

Each scene function fills a :class:`~physbook.world.World` (a new one unless one is given)
and returns a :class:`Scene`: the world, the number of steps and the time step the scene is
run for, named handles of the bodies that matter, and the scene's parameters. The geometry
follows the project's table of standard scenes: dt = 1/60 s, gravity (0, −10), density 1,
floor tops at y = 0.

Materials are given per *pair* (a ball on the floor bounces with e = 0.5). physbook mixes
per-body values (:func:`physbook.dynamics.materials.mix_restitution`,
:func:`physbook.dynamics.materials.mix_friction`), so :func:`per_body_value` converts a pair value
into the body value that, mixed with its partner's, gives the pair value back.

The quality measures at the end are pure functions of recorded positions, so that the
benchmark judges physbook and other engines with the same code.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from physbook import _check
from physbook.constants import DEFAULT_GRAVITY
from physbook.dynamics.body import Body
from physbook.dynamics.materials import Material, mix_friction, mix_restitution
from physbook.geometry.shapes import Circle, Polygon
from physbook.world import World

#: Time step of every standard scene (s).
DT = 1.0 / 60.0

#: Bisection steps of :func:`per_body_value` (halves the bracket each time).
_BISECTION_STEPS = 200


@dataclass
class Scene:
    """A filled world and what a run of it needs.

    Attributes
    ----------
    name
        The scene's name in the standard table (e.g. ``"pyramid-20"``).
    world
        The world holding the scene.
    steps
        Steps the standard run takes.
    dt
        Time step (s).
    bodies
        Named handles: a :class:`Body` or a list of them (e.g. ``"ball"``, ``"boxes"``).
    params
        The scene's numbers (heights, radii, angles, pair materials, ...).
    """

    name: str
    world: World
    steps: int
    dt: float = DT
    bodies: dict[str, Body | list[Body]] = field(default_factory=dict)
    params: dict[str, object] = field(default_factory=dict)

    def run(self, steps: int | None = None):
        """Step the world ``steps`` times (the scene's own count by default); a Recording."""
        return self.world.run(self.steps if steps is None else steps, self.dt)


def per_body_value(pair_value: float, partner_value: float,
                   mix: Callable[[float, float], float], upper: float = 1.0e3) -> float:
    """The value x with ``mix(partner_value, x) == pair_value``, found by bisection.

    ``mix`` must grow with x (min, max, √(a·b) and the mean all do). Raises ``ValueError``
    when no x in [0, upper] gives the pair value.
    """
    pair_value = _check.non_negative_scalar(pair_value, "pair_value")
    partner_value = _check.non_negative_scalar(partner_value, "partner_value")
    low, high = 0.0, _check.positive_scalar(upper, "upper")
    if not mix(partner_value, low) <= pair_value <= mix(partner_value, high):
        raise ValueError(
            f"no body value mixes with {partner_value} to the pair value {pair_value}")
    if mix(partner_value, pair_value) == pair_value:
        return pair_value  # an idempotent mix (min, max, mean, geometric mean) of equals
    for _ in range(_BISECTION_STEPS):
        middle = 0.5 * (low + high)
        if mix(partner_value, middle) < pair_value:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def uniform_material(friction: float, restitution: float, density: float = 1.0) -> Material:
    """A material that gives every pair of bodies made of it these pair values."""
    body_friction = per_body_value(friction, friction, mix_friction)
    body_restitution = per_body_value(restitution, restitution, mix_restitution)
    return Material(density=density, restitution=body_restitution, friction=body_friction)


def _world(world: World | None) -> World:
    if world is None:
        return World(gravity=DEFAULT_GRAVITY)
    if not isinstance(world, World):
        raise TypeError(f"world must be a World or None, got {type(world).__name__}")
    return world


def _static_box(world: World, half_width: float, half_height: float, center, material,
                angle: float = 0.0) -> Body:
    return world.add_body(Polygon.box(half_width, half_height), position=center, angle=angle,
                          material=material, kind="static")


def bounce(world: World | None = None, *, height: float = 10.0, radius: float = 0.5,
           restitution: float = 0.5) -> Scene:
    """One circle dropped from centre ``height`` onto the floor; pair restitution, no friction.

    The analytic apexes are r + (h0 − r)·e^(2n) (:func:`bounce_apexes`).
    """
    world = _world(world)
    height = _check.positive_scalar(height, "height")
    radius = _check.positive_scalar(radius, "radius")
    restitution = _check.non_negative_scalar(restitution, "restitution")
    if height <= radius:
        raise ValueError(f"height must exceed radius so the ball starts above the floor, "
                         f"got {height} <= {radius}")
    material = uniform_material(friction=0.0, restitution=restitution)
    floor = _static_box(world, 20.0, 0.5, (0.0, -0.5), material)
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
    world = _world(world)
    angle = _check.finite_scalar(angle, "angle")
    if not 0.0 <= angle < 0.5 * math.pi:
        raise ValueError(f"angle must be in [0, π/2), got {angle}")
    frictions = [_check.non_negative_scalar(mu, f"frictions[{i}]")
                 for i, mu in enumerate(frictions)]
    if not 1 <= len(frictions) <= 9:
        raise ValueError(f"frictions must hold 1 to 9 values (the ramp's length), "
                         f"got {len(frictions)}")
    along = np.array([math.cos(angle), math.sin(angle)])  # up the slope
    normal = np.array([-math.sin(angle), math.cos(angle)])  # out of the ramp's top face
    ramp_friction = 1.0
    ramp_body = _static_box(world, 30.0, 0.5, -0.5 * normal,
                            Material(restitution=0.0, friction=ramp_friction), angle)
    boxes = []
    distances = []
    for i, pair_friction in enumerate(frictions):
        box_friction = per_body_value(pair_friction, ramp_friction, mix_friction)
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
    world = _world(world)
    base = _check.positive_int(base, "base")
    material = uniform_material(friction=0.6, restitution=0.0)
    ground = _static_box(world, max(40.0, 0.5 * base + 10.0), 0.5, (0.0, -0.5), material)
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
    floor = _static_box(world, 21.0, 0.5, (0.0, -0.5), material)
    left = _static_box(world, 0.5, 20.0, (-20.5, 20.0), material)
    right = _static_box(world, 0.5, 20.0, (20.5, 20.0), material)
    return {"floor": floor, "left_wall": left, "right_wall": right}


def rain_positions(n: int) -> np.ndarray:
    """Start positions of the rain scene: rows of 40 at spacing 0.9 from y = 2 (m).

    Row i (0 the lowest) is shifted by −0.225 m when i is even and +0.225 m when odd.
    """
    n = _check.positive_int(n, "n")
    k = np.arange(n)
    row, column = k // 40, k % 40
    x = (column - 19.5) * 0.9 + np.where(row % 2 == 1, 0.225, -0.225)
    y = 2.0 + 0.9 * row
    return np.column_stack([x, y])


def rain(n: int = 1000, world: World | None = None) -> Scene:
    """``n`` circles of radius 0.25 falling into a box 40 m wide (floor and two walls).

    Pair friction 0.6, restitution 0. The standard scene has n = 1000 (25 rows of 40).
    """
    world = _world(world)
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
    world = _world(world)
    positions = rain_positions(n)
    material = uniform_material(friction=0.6, restitution=0.0)
    bodies: dict[str, Body | list[Body]] = dict(_container(world, material))
    box = Polygon.box(0.25, 0.25)
    bodies["boxes"] = [world.add_body(box, position=p, material=material) for p in positions]
    return Scene(f"boxes-{n}", world, 600, bodies=bodies,
                 params={"n": n, "half_extent": 0.25, "half_width": 20.0, "friction": 0.6,
                         "restitution": 0.0})


#: The scene functions by base name.
SCENES: dict[str, Callable[..., Scene]] = {
    "bounce": bounce, "ramp": ramp, "pyramid": pyramid, "rain": rain, "boxes": boxes,
}


# --------------------------------------------------------------------------------------
# Quality measures: pure functions of recorded positions.
# --------------------------------------------------------------------------------------


def bounce_apexes(height: float, radius: float, restitution: float, count: int = 4):
    """Analytic apex heights of the centre after bounce 1..count: r + (h0 − r)·e^(2n) (m)."""
    n = np.arange(1, _check.positive_int(count, "count") + 1)
    return radius + (height - radius) * restitution ** (2 * n)


def apex_heights(heights, count: int = 4) -> np.ndarray:
    """The first ``count`` apexes of a bouncing height series (m), after its first fall.

    An apex is a sample higher than the one before it and not lower than the one after;
    the start (a release from rest) is not one. Fewer are returned if the series has fewer.
    """
    heights = _check.finite_array(heights, "heights")
    count = _check.positive_int(count, "count")
    inner = heights[1:-1]
    peaks = np.nonzero((inner > heights[:-2]) & (inner >= heights[2:]))[0] + 1
    return heights[peaks[:count]]


def ramp_motion(distances, dt: float, slide_threshold: float = 0.1):
    """Which ramp boxes slide, and their acceleration down the slope.

    Parameters
    ----------
    distances
        (F, B) each box's position along the slope over F frames (m, up positive).
    dt
        Time between frames (s).
    slide_threshold
        A box slides if it moved farther than this down the slope (m).

    Returns
    -------
    slides : (B,) bool
    accelerations : (B,) m/s², from a least-squares fit s(t) = s0 + v0·t − a·t²/2 over
        the frames (positive down the slope).
    """
    distances = _check.finite_array(distances, "distances")
    if distances.ndim != 2 or len(distances) < 3:
        raise ValueError(f"distances must have shape (F, B) with F >= 3 frames to fit a "
                         f"parabola, got shape {distances.shape}")
    dt = _check.positive_scalar(dt, "dt")
    times = dt * np.arange(len(distances))
    moved = distances[0] - distances.min(axis=0)
    design = np.column_stack([np.ones_like(times), times, -0.5 * times**2])
    coefficients, *_ = np.linalg.lstsq(design, distances, rcond=None)
    return moved > slide_threshold, coefficients[2]


def ramp_accelerations(angle: float, frictions, gravity: float = 10.0) -> np.ndarray:
    """g·(sin θ − μ cos θ) where the box slides (μ < tan θ), else 0 (m/s²).

    ``angle`` is the slope (rad), ``frictions`` the pair coefficients μ, ``gravity`` g (m/s²).
    """
    angle = _check.finite_scalar(angle, "angle")
    frictions = _check.finite_array(frictions, "frictions")
    gravity = _check.positive_scalar(gravity, "gravity")
    slide = gravity * (math.sin(angle) - frictions * math.cos(angle))
    return np.where(frictions < math.tan(angle), slide, 0.0)


def _wrap_quarter_turn(angles: np.ndarray) -> np.ndarray:
    # A square looks the same after a quarter turn: tilt is the distance to the nearest one.
    return (angles + 0.25 * np.pi) % (0.5 * np.pi) - 0.25 * np.pi


def pyramid_quality(start_centers, end_centers, end_angles, top: int = -1) -> dict:
    """Displacements of the pyramid's boxes between two states (boxes only, in order).

    Returns ``top_displacement`` (m, of box ``top``, the last by default),
    ``largest_displacement``, ``largest_slide`` (|Δx|, m), ``largest_tilt`` (rad, modulo a
    quarter turn) and ``standing``: no box slid over 0.5 m or tilted over 0.2 rad.
    """
    start = _check.finite_array(start_centers, "start_centers")
    end = _check.finite_array(end_centers, "end_centers")
    angles = _check.finite_array(end_angles, "end_angles")
    displacement = np.hypot(*(end - start).T)
    slide = np.abs(end[:, 0] - start[:, 0])
    tilt = np.abs(_wrap_quarter_turn(angles))
    return {
        "top_displacement": float(displacement[top]),
        "largest_displacement": float(displacement.max()),
        "largest_slide": float(slide.max()),
        "largest_tilt": float(tilt.max()),
        "standing": bool(slide.max() <= 0.5 and tilt.max() <= 0.2),
    }


def container_quality(centers, radius: float, half_width: float = 20.0) -> dict:
    """How well a container held its circles: ``escaped`` (centres outside the inner box
    |x| ≤ half_width, y ≥ 0), ``deepest_penetration`` into the floor (m, 0 if none) and
    ``pile_height`` (top of the highest circle inside, m)."""
    centers = _check.finite_array(centers, "centers")
    radius = _check.positive_scalar(radius, "radius")
    inside = (np.abs(centers[:, 0]) <= half_width) & (centers[:, 1] >= 0.0)
    held = centers[inside]
    deepest = float(max(0.0, radius - held[:, 1].min())) if len(held) else 0.0
    pile = float(held[:, 1].max() + radius) if len(held) else 0.0
    return {"escaped": int(np.count_nonzero(~inside)), "deepest_penetration": deepest,
            "pile_height": pile}
