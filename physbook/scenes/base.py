"""What every scene is made of: the :class:`Scene` record and materials given per pair.

Materials are given per *pair* (a ball on the floor bounces with e = 0.5). physbook mixes
the values of the two shapes' materials (:func:`physbook.dynamics.materials.mix_restitution`,
:func:`physbook.dynamics.materials.mix_friction`), so :func:`per_body_value` converts a pair
value into the value of one body's material that, mixed with its partner's, gives the pair
value back.
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

#: The most bodies a scene function builds: twice the largest standard scene (the large
#: pyramid's 5 050 boxes), so that a mistyped size fails at once instead of building for
#: minutes.
MAX_BODIES = 10_000


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

    def __post_init__(self):
        _check.instance(self.name, "name", str, "a string")
        _check.instance(self.world, "world", World, "a World")
        self.steps = _check.non_negative_int(self.steps, "steps")
        self.dt = _check.positive_scalar(self.dt, "dt")
        _check.instance(self.bodies, "bodies", dict, "a dict of Body handles")
        _check.instance(self.params, "params", dict, "a dict")

    def run(self, steps: int | None = None):
        """Step the world ``steps`` times (the scene's own count by default); a Recording."""
        return self.world.run(self.steps if steps is None else steps, self.dt)


def scene_size(value, name: str, bodies=lambda size: size) -> int:
    """``value`` as a positive size whose scene has ``bodies(size)`` ≤ :data:`MAX_BODIES`."""
    size = _check.positive_int(value, name)
    if bodies(size) > MAX_BODIES:
        raise ValueError(f"{name} = {size} would build {bodies(size)} bodies; a scene holds "
                         f"at most {MAX_BODIES}")
    return size


def _mixed(mix: Callable, value_a: float, value_b: float) -> float:
    """``mix(value_a, value_b)``, checked: a mixing rule must return a finite number."""
    try:
        value = mix(value_a, value_b)
    except Exception as error:  # noqa: BLE001 - the rule is the caller's code: name it
        raise TypeError(f"mix must be a function of two numbers; mix({value_a}, {value_b}) "
                        f"raised {type(error).__name__}: {error}") from error
    return _check.finite_scalar(value, f"mix({value_a}, {value_b})")


def per_body_value(pair_value: float, partner_value: float,
                   mix: Callable[[float, float], float], upper: float = 1.0e3) -> float:
    """The value x with ``mix(partner_value, x) == pair_value``, found by bisection.

    ``mix`` must grow with x (min, max, √(a·b) and the mean all do). Raises ``ValueError``
    when no x in [0, upper] gives the pair value.
    """
    pair_value = _check.non_negative_scalar(pair_value, "pair_value")
    partner_value = _check.non_negative_scalar(partner_value, "partner_value")
    if not callable(mix):
        raise TypeError(f"mix must be a function of two numbers, got {type(mix).__name__}")
    low, high = 0.0, _check.positive_scalar(upper, "upper")
    if not _mixed(mix, partner_value, low) <= pair_value <= _mixed(mix, partner_value, high):
        raise ValueError(f"no body value x in [0, upper = {high}] gives mix(partner_value = "
                         f"{partner_value}, x) = pair_value = {pair_value}")
    if _mixed(mix, partner_value, pair_value) == pair_value:
        return pair_value  # an idempotent mix (min, max, mean, geometric mean) of equals
    for _ in range(_BISECTION_STEPS):
        middle = 0.5 * low + 0.5 * high
        if _mixed(mix, partner_value, middle) < pair_value:
            low = middle
        else:
            high = middle
    return 0.5 * low + 0.5 * high


def body_value(pair_value: float, partner_value: float, mix: Callable[[float, float], float],
               name: str) -> float:
    """:func:`per_body_value` for a scene's argument ``name``, which its errors name."""
    pair_value = _check.non_negative_scalar(pair_value, name)
    try:
        return per_body_value(pair_value, partner_value, mix, upper=max(1.0e3, pair_value))
    except ValueError as error:
        raise ValueError(f"{name} = {pair_value} cannot be given to bodies: {error}") from None


def uniform_material(friction: float, restitution: float, density: float = 1.0) -> Material:
    """A material that gives every pair of bodies made of it these pair values."""
    body_friction = body_value(friction, friction, mix_friction, "friction")
    body_restitution = body_value(restitution, restitution, mix_restitution, "restitution")
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


