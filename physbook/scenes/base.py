"""What every scene is made of: the :class:`Scene` record and materials given per pair.

Materials are given per *pair* (a ball on the floor bounces with e = 0.5). physbook mixes
per-body values (:func:`physbook.dynamics.materials.mix_restitution`,
:func:`physbook.dynamics.materials.mix_friction`), so :func:`per_body_value` converts a pair
value into the body value that, mixed with its partner's, gives the pair value back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from physbook import _check
from physbook.constants import DEFAULT_GRAVITY
from physbook.dynamics.body import Body
from physbook.dynamics.materials import Material, mix_friction, mix_restitution
from physbook.geometry.shapes import Polygon
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


def new_world(world: World | None) -> World:
    if world is None:
        return World(gravity=DEFAULT_GRAVITY)
    if not isinstance(world, World):
        raise TypeError(f"world must be a World or None, got {type(world).__name__}")
    return world


def static_box(world: World, half_width: float, half_height: float, center, material,
                angle: float = 0.0) -> Body:
    return world.add_body(Polygon.box(half_width, half_height), position=center, angle=angle,
                          material=material, kind="static")


