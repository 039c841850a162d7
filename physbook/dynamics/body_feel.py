"""Chapter 16: what a game tunes on a body while it runs — its shapes' materials and
surfaces, its damping, the data the game keeps with it, and a kinematic body's next pose.

Each property reads and writes the world's tables at the body's current row, as the rest of
:class:`~physbook.dynamics.body.Body` does, and takes effect at the next step.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.dynamics.materials import Material
from physbook.geometry.surface import (
    FRICTION,
    ONE_WAY_X,
    VELOCITY_X,
    one_way_direction,
)
from physbook.kinds import KINEMATIC


def _shared(values: tuple, name: str, plural: str):
    """The one value every shape of a body shares, or ``ValueError`` pointing at the
    per-shape property ``plural``."""
    first = values[0]
    if any(not np.array_equal(value, first) for value in values[1:]):
        raise ValueError(f"this body's shapes have different {name}s; read body.{plural}")
    return first


class BodyFeel:
    """The settings of :class:`~physbook.dynamics.body.Body` a game changes at run time
    (a mixin: the handle's own attributes, no state of its own)."""

    __slots__ = ()

    # --- materials and surfaces, per shape -------------------------------------------

    @property
    def materials(self) -> tuple[Material, ...]:
        """The :class:`~physbook.dynamics.materials.Material` of each of the body's shapes,
        in order (a chain counts one per segment)."""
        _, row = self._row()
        return self._table.materials(row)

    @property
    def material(self) -> Material:
        """The material of the body's shapes (they must share one to read it). Setting it
        gives it to every shape: friction and restitution act from the next step, and a
        new density gives a dynamic body its new mass and inertia at once."""
        return _shared(self.materials, "material", "materials")

    @material.setter
    def material(self, value) -> None:
        self.set_material(value)

    def set_material(self, material: Material, shape: int | None = None) -> None:
        """Give ``material`` to the body's shape number ``shape`` (in the order of
        :attr:`shapes`), or to every shape when ``shape`` is None."""
        _check.instance(material, "material", Material, "a Material")
        rows = self._shape_rows_of(shape)
        _, row = self._row()
        materials = list(self._table.materials(row))
        for index in ([shape] if shape is not None else range(len(materials))):
            materials[index] = material
        for shape_row in rows:
            self._world.shapes.set_surface(int(shape_row), FRICTION,
                                           (material.friction, material.restitution))
        self._world._changes.set_materials(row, tuple(materials))
        self._world._wake_around(row)  # it, and what rests on it, meet the new surface

    @property
    def surface_velocities(self) -> tuple[np.ndarray, ...]:
        """The surface velocity of each shape (m/s, body coordinates)."""
        surfaces = self._world.shapes.surfaces
        return tuple(surfaces[r, VELOCITY_X:VELOCITY_X + 2].copy() for r in self._shape_rows())

    @property
    def surface_velocity(self) -> np.ndarray:
        """Velocity (m/s, body coordinates) at which the shapes' surfaces move along
        themselves, as a conveyor belt's: friction drives what touches them to it, and the
        body itself stays put (chapter 16). Setting it sets every shape's."""
        return _shared(self.surface_velocities, "surface velocity", "surface_velocities")

    @surface_velocity.setter
    def surface_velocity(self, value) -> None:
        self.set_surface_velocity(value)

    def set_surface_velocity(self, velocity, shape: int | None = None) -> None:
        """Give shape number ``shape`` (every shape when None) the surface ``velocity``
        (m/s, body coordinates)."""
        velocity = _check.vector(velocity, "surface_velocity")
        for shape_row in self._shape_rows_of(shape):
            self._world.shapes.set_surface(int(shape_row), VELOCITY_X, velocity)
        self._world._wake_around(self.row)

    @property
    def one_ways(self) -> tuple[np.ndarray | None, ...]:
        """The one-way side of each shape (a unit vector, body coordinates), or None."""
        surfaces = self._world.shapes.surfaces
        sides = (surfaces[r, ONE_WAY_X:ONE_WAY_X + 2].copy() for r in self._shape_rows())
        return tuple(side if side.any() else None for side in sides)

    @property
    def one_way(self) -> np.ndarray | None:
        """The side (a unit vector, body coordinates) from which the shapes stop what
        comes at them; they let through what comes from elsewhere, a platform a character
        jumps up through (chapter 16). None: an ordinary, two-sided body. Setting it sets
        every shape's."""
        side = _shared(tuple(np.zeros(2) if s is None else s for s in self.one_ways),
                       "one-way side", "one_ways")
        return side if side.any() else None

    @one_way.setter
    def one_way(self, value) -> None:
        self.set_one_way(value)

    def set_one_way(self, direction, shape: int | None = None) -> None:
        """Make shape number ``shape`` (every shape when None) one-way towards
        ``direction`` (body coordinates), or two-sided again with None."""
        direction = one_way_direction(direction)
        for shape_row in self._shape_rows_of(shape):
            self._world.shapes.set_surface(int(shape_row), ONE_WAY_X, direction)
        self._world._wake_around(self.row)

    def _shape_rows_of(self, shape: int | None) -> np.ndarray:
        """Shape-table rows of the body's shape number ``shape``, or of all of them."""
        rows = self._shape_rows()
        if shape is None:
            return rows
        index = _check.integer(shape, "shape", 0)
        if index >= len(rows):
            raise ValueError(f"shape must be below the body's shape count {len(rows)}, got "
                             f"{index}")
        return rows[index:index + 1]

    # --- damping -------------------------------------------------------------------------

    @property
    def linear_damping(self) -> float:
        """Damping rate c ≥ 0 (1/s) of the velocity: each step h divides it by 1 + c·h,
        chapter 2's implicit step of dv/dt = −c·v (air drag; a pool table's felt)."""
        bodies, row = self._row()
        return float(bodies.linear_dampings[row])

    @linear_damping.setter
    def linear_damping(self, value) -> None:
        value = _check.non_negative_scalar(value, "linear_damping")
        bodies, row = self._row()
        bodies.linear_dampings[row] = value

    @property
    def angular_damping(self) -> float:
        """Damping rate c ≥ 0 (1/s) of the angular velocity, as :attr:`linear_damping`."""
        bodies, row = self._row()
        return float(bodies.angular_dampings[row])

    @angular_damping.setter
    def angular_damping(self, value) -> None:
        value = _check.non_negative_scalar(value, "angular_damping")
        bodies, row = self._row()
        bodies.angular_dampings[row] = value

    # --- the game's own data ---------------------------------------------------------

    @property
    def user_data(self):
        """Any object the game keeps with the body (a sprite, an enemy's state); None at
        first. It moves with the body's row and goes with the body."""
        _, row = self._row()
        return self._table.user_data(row)

    @user_data.setter
    def user_data(self, value) -> None:
        _, row = self._row()
        self._table.set_user_data(row, value)

    # --- a kinematic body's next pose ------------------------------------------------

    def move_to(self, position, angle: float | None = None, dt: float = 1.0 / 60.0) -> None:
        """Give a kinematic body the velocity and angular velocity that bring its origin to
        ``position`` (m) and its angle to ``angle`` (rad; None: as it is) over the next
        step of ``dt`` seconds: v = (p − p₀)/dt for the centre of mass, ω = (θ − θ₀)/dt.

        A platform moved this way carries what stands on it, since contacts see its
        velocity; one whose position is written each frame teleports, and carries nothing.
        The velocity stays until it is changed: call it every step of a tween.
        """
        position = _check.vector(position, "position")
        dt = _check.positive_scalar(dt, "dt")
        bodies, row = self._row()
        if bodies.kinds[row] != KINEMATIC:
            raise ValueError("move_to moves a kinematic body; this body is "
                             f"{self.kind} (set body.kind = 'kinematic', or set a dynamic "
                             "body's velocity)")
        angle0 = float(bodies.angles[row])
        angle = angle0 if angle is None else _check.finite_scalar(angle, "angle")
        local = bodies.local_centers[row]
        # The centre of mass at the target pose: p + R(θ)·local_center.
        cosine, sine = math.cos(angle), math.sin(angle)
        target = position + np.array([cosine * local[0] - sine * local[1],
                                      sine * local[0] + cosine * local[1]])
        with np.errstate(over="ignore", invalid="ignore"):
            velocity = (target - bodies.centers[row]) / dt
            spin = (angle - angle0) / dt
        if not (np.all(np.isfinite(velocity)) and math.isfinite(spin)):
            raise ValueError(f"position {position.tolist()}, angle {angle} and dt {dt} ask for "
                             "a velocity beyond the range of floats: move by less, or over a "
                             "longer dt")
        self.velocity = velocity
        self.angular_velocity = spin
