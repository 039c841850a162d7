"""Chapter 4: the values of a new body, checked: what ``World.add_body`` writes into the
tables once every argument has passed.

A body's row is derived from its shapes and material: the mass, inertia and centre of mass
of its shapes together (:func:`~physbook.geometry.mass.combine_mass`), infinite (stored as
zero, as Box2D does) unless it is dynamic, and its thickness scale for the solvers.
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook.dynamics.body import rotated
from physbook.dynamics.materials import Material
from physbook.geometry.mass import combine_mass
from physbook.geometry.round_shapes import (
    SHAPE_CLASSES,
    Capsule,
    Chain,
    ChainSegment,
    Segment,
    Shape,
)
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shapes import Circle
from physbook.geometry.surface import one_way_direction, surface_row
from physbook.kinds import DYNAMIC, KINEMATIC, STATIC, body_kind_code

_SHAPE_NAMES = "a Circle, Polygon, Capsule, Segment, ChainSegment or Chain"


def _as_items(value) -> tuple:
    """The shapes and chains given to ``add_body``, checked, as a tuple."""
    if isinstance(value, (*SHAPE_CLASSES, Chain)):
        return (value,)
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(
            f"shape_or_shapes must be {_SHAPE_NAMES}, or a sequence of them, got "
            f"{type(value).__name__}")
    items = tuple(value)
    if not items:
        raise ValueError("shape_or_shapes must hold at least one shape")
    for i, item in enumerate(items):
        _check.instance(item, f"shape_or_shapes[{i}]", (*SHAPE_CLASSES, Chain), _SHAPE_NAMES)
    return items


def _rows_of(item) -> tuple[Shape, ...]:
    """The shapes an item gives the body: a chain its segments, a shape itself."""
    return item.segments if isinstance(item, Chain) else (item,)


def _per_shape(value, name: str, items: tuple, check) -> list:
    """``value`` for each shape of ``items``: one value for all, or a list or tuple of one
    value per item given (a chain's value goes to each of its segments);
    ``check(item, name)`` checks each."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(items):
            raise ValueError(f"{name} must be one value or one per shape given "
                             f"({len(items)}), got {len(value)}")
        checked = [check(item, f"{name}[{i}]") for i, item in enumerate(value)]
        return [v for v, item in zip(checked, items, strict=True) for _ in _rows_of(item)]
    return [check(value, name)] * sum(len(_rows_of(item)) for item in items)


def _size(shape: Shape) -> float:
    """A shape's thickness scale, 2·area/perimeter (m): a circle's radius, half a square's
    side, a long plate's thickness. Solvers scale their length tolerances by it. Segments
    have none (infinite): they leave the choice to the body they touch."""
    if isinstance(shape, Circle):
        return shape.radius
    if isinstance(shape, Segment | ChainSegment):
        return np.inf
    if isinstance(shape, Capsule):
        return 2.0 * shape.area() / (2.0 * shape.length + 2.0 * np.pi * shape.radius)
    edges = np.roll(shape.vertices, -1, axis=0) - shape.vertices
    perimeter = float(np.hypot(*edges.T).sum()) + 2.0 * np.pi * shape.radius
    return 2.0 * shape.area() / perimeter


def turning_inverse(inertia: float, fixed_rotation: bool) -> float:
    """The inverse inertia a body turns with: 1/I, or 0 when it has no inertia (static,
    kinematic) or must not turn."""
    return 1.0 / inertia if inertia > 0.0 and not fixed_rotation else 0.0


def require_area_for(kind_code: int, shapes: tuple[Shape, ...], name: str = "kind") -> None:
    """``ValueError`` naming ``name`` when a dynamic body would carry a segment or a chain:
    they have no area, so no mass."""
    if kind_code == DYNAMIC and any(isinstance(s, Segment | ChainSegment) for s in shapes):
        raise ValueError(
            f"{name} must be 'static' or 'kinematic' for a body with segments or chains: they "
            "have no area, so no mass; for a thin dynamic rod use a Capsule")


def new_body_values(shape_or_shapes, position, angle, velocity, angular_velocity,
                    material, kind, gravity_scale, layers, filter,  # noqa: A002
                    sensor, fixed_rotation=False, linear_damping=0.0, angular_damping=0.0,
                    surface_velocity=(0.0, 0.0), one_way=None
                    ) -> tuple[tuple[Shape, ...], dict, list[Filter], list[bool], list]:
    """Check the arguments of ``World.add_body`` (see there) and return the body's shapes,
    the values of its row by column name, each shape's filter and sensor flag, and each
    shape's material (:class:`~physbook.dynamics.materials.Material`) and surface row
    (:func:`~physbook.geometry.surface.surface_row`), as pairs.

    Raises ``TypeError`` or ``ValueError`` naming the argument and the rule it breaks, and
    ``ValueError`` naming the density if a mass or an inertia leaves the range of floats.
    """
    items = _as_items(shape_or_shapes)
    shapes = tuple(shape for item in items for shape in _rows_of(item))
    position = _check.vector(position, "position")
    angle = _check.finite_scalar(angle, "angle")
    velocity = _check.vector(velocity, "velocity")
    angular_velocity = _check.finite_scalar(angular_velocity, "angular_velocity")
    materials = _per_shape(material, "material", items, lambda value, name:
                           _check.instance(value, name, Material, "a Material"))
    kind_code = body_kind_code(kind)
    require_area_for(kind_code, shapes)
    gravity_scale = _check.finite_scalar(gravity_scale, "gravity_scale")
    fixed_rotation = _check.flag(fixed_rotation, "fixed_rotation")
    if fixed_rotation and angular_velocity != 0.0:
        raise ValueError("angular_velocity must be 0 for a body with fixed_rotation, got "
                         f"{angular_velocity}")
    if filter is not None and layers is not None:
        raise ValueError("give layers or filter, not both: layers is shorthand for "
                         "Filter(category=layers, mask=layers)")
    if filter is None:
        filters = [Filter.layers(1 if layers is None else layers)] * len(shapes)
    else:
        filters = _per_shape(filter, "filter", items, lambda value, name:
                             _check.instance(value, name, Filter, "a Filter"))
    sensors = _per_shape(sensor, "sensor", items, _check.flag)
    linear_damping = _check.non_negative_scalar(linear_damping, "linear_damping")
    angular_damping = _check.non_negative_scalar(angular_damping, "angular_damping")
    surface_velocity = _check.vector(surface_velocity, "surface_velocity")
    one_way = one_way_direction(one_way)
    surfaces = [(m, surface_row(m.friction, m.restitution, surface_velocity, one_way))
                for m in materials]
    if kind_code == STATIC and (velocity.any() or angular_velocity != 0.0):
        raise ValueError(
            "a static body cannot move: velocity and angular_velocity must be zero "
            "(use kind='kinematic' for a body that moves at a set velocity)"
        )

    # Raises ValueError, naming the density, if a mass or an inertia leaves float range.
    mass, inertia, local_center = combine_mass(shapes, [m.density for m in materials])
    if kind_code != DYNAMIC:
        # Infinite mass: stored as mass 0 and inverse 0, as Box2D does. The centre of
        # mass stays the shapes' centroid, so a kinematic body spins about it.
        mass = inertia = 0.0
    values = {
        "origins": position, "centers": position + rotated(local_center, angle),
        "angles": angle, "local_centers": local_center, "velocities": velocity,
        "angular_velocities": angular_velocity, "masses": mass, "inertias": inertia,
        "inverse_masses": 1.0 / mass if mass > 0.0 else 0.0,
        "inverse_inertias": turning_inverse(inertia, fixed_rotation),
        "fixed_rotation": fixed_rotation,
        "gravity_scales": gravity_scale, "kinds": kind_code,
        "linear_dampings": linear_damping, "angular_dampings": angular_damping,
        "sizes": min(_size(shape) for shape in shapes),
        "awake": kind_code == DYNAMIC or (kind_code == KINEMATIC and (
            velocity.any() or angular_velocity != 0.0)),
    }
    return shapes, values, filters, sensors, surfaces
