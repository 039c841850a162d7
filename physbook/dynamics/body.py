"""A handle to one body of a world: its id and generation, read and written through its table.

Every property reads or writes the table's columns at the body's current row, so the handle
stays valid when other bodies are removed. Using it after its own body was removed raises
``LookupError``, even once the body's id belongs to a later body: the handle keeps its
body's generation, and the table the generation of each id's latest body. Vectors are
returned as fresh arrays (m, m/s, N).
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.dynamics.body_feel import BodyFeel
from physbook.dynamics.body_table import BodyTable
from physbook.geometry.shape_filter import Filter
from physbook.kinds import BODY_KINDS, DYNAMIC, KINEMATIC, STATIC, body_kind_code
from physbook.vecmath.kernels import rotate
from physbook.vecmath.vec import Transform


def _wake(bodies, row: int) -> None:
    """Wake the dynamic body at ``row`` (its island wakes before the next step)."""
    if bodies.kinds[row] == DYNAMIC and not bodies.awake[row]:
        bodies.awake[row] = True
        bodies.sleep_times[row] = 0.0


def rotated(vector: np.ndarray, angle: float) -> np.ndarray:
    """R(angle)·vector, for one (2,) vector."""
    return np.array(rotate(math.cos(angle), math.sin(angle), vector[0], vector[1]))


class Body(BodyFeel):
    """A handle to one body: the world it belongs to, the body's ``id`` and the id's
    ``generation``. The settings a game tunes while it runs (materials, surfaces, damping,
    user data, :meth:`move_to`) are those of :class:`~physbook.dynamics.body_feel.BodyFeel`."""

    __slots__ = ("_world", "_table", "_id", "_generation")

    def __init__(self, world, table: BodyTable, body_id: int):
        # Handles are made by World.add_body; one made by hand names the body that holds
        # the id now.
        _check.instance(table, "table", BodyTable, "a BodyTable")
        body_id = _check.non_negative_int(body_id, "body_id")
        self._world = world
        self._table = table
        self._id = body_id
        # LookupError for an id no body holds
        self._generation = table.generation(body_id)

    def _row(self) -> tuple:
        """(columns, row) of this body; raises ``LookupError`` once it was removed."""
        return self._table.arrays, self._table.row_of(self._id, self._generation)

    @property
    def world(self):
        """The :class:`~physbook.world.World` the body belongs to."""
        return self._world

    @property
    def id(self) -> int:
        """Identifier, the body's while it lives and unique among the world's bodies; once
        the body is removed, a later body may get it (:attr:`generation` tells them
        apart)."""
        return self._id

    @property
    def generation(self) -> int:
        """How many bodies of the world had this body's :attr:`id` before it."""
        return self._generation

    @property
    def row(self) -> int:
        """The body's current row in the world's arrays (it changes when bodies are removed)."""
        return self._table.row_of(self._id, self._generation)

    @property
    def alive(self) -> bool:
        """False once the body has been removed from its world, or, in a contact callback,
        once the callback has asked for its removal (done when the callbacks return)."""
        if not self._table.is_alive(self._id, self._generation):
            return False
        pending = self._world.events.pending_removals
        return not pending or all(body._id != self._id for body in pending)

    # --- pose and motion -------------------------------------------------------------

    @property
    def position(self) -> np.ndarray:
        """The body origin in world coordinates (m): where body coordinates (0, 0) are."""
        bodies, row = self._row()
        return bodies.origins[row].copy()

    @position.setter
    def position(self, value) -> None:
        value = _check.vector(value, "position")
        bodies, row = self._row()
        bodies.origins[row] = value
        bodies.centers[row] = value + rotated(bodies.local_centers[row], bodies.angles[row])
        self._moved(bodies, row)

    @property
    def angle(self) -> float:
        """Rotation of the body frame (rad, counter-clockwise)."""
        bodies, row = self._row()
        return float(bodies.angles[row])

    @angle.setter
    def angle(self, value) -> None:
        # Turning the body in place about its origin: the origin stays, the centre moves.
        value = _check.finite_scalar(value, "angle")
        bodies, row = self._row()
        bodies.angles[row] = value
        bodies.centers[row] = bodies.origins[row] + rotated(bodies.local_centers[row], value)
        self._moved(bodies, row)

    def _moved(self, bodies, row: int) -> None:
        """The body was put somewhere by hand: it wakes, and so does what rests on it when
        it is static or kinematic (a dynamic body's island wakes with it, and an awake body
        wakes what it touches)."""
        if bodies.kinds[row] == DYNAMIC:
            _wake(bodies, row)
        else:
            self._world._wake_around(row)

    @property
    def transform(self) -> Transform:
        """The body's pose as a :class:`~physbook.vecmath.vec.Transform` (origin, angle)."""
        bodies, row = self._row()
        return Transform(bodies.origins[row], float(bodies.angles[row]))

    @property
    def center_of_mass(self) -> np.ndarray:
        """The centre of mass in world coordinates (m)."""
        bodies, row = self._row()
        return bodies.centers[row].copy()

    @property
    def local_center(self) -> np.ndarray:
        """The centre of mass in body coordinates (m)."""
        bodies, row = self._row()
        return bodies.local_centers[row].copy()

    @property
    def velocity(self) -> np.ndarray:
        """Velocity of the centre of mass (m/s)."""
        bodies, row = self._row()
        return bodies.velocities[row].copy()

    @velocity.setter
    def velocity(self, value) -> None:
        value = _check.vector(value, "velocity")
        bodies, row = self._movable_row("velocity", value.any())
        bodies.velocities[row] = value
        _wake(bodies, row)

    @property
    def angular_velocity(self) -> float:
        """Angular velocity about the centre of mass (rad/s, counter-clockwise)."""
        bodies, row = self._row()
        return float(bodies.angular_velocities[row])

    @angular_velocity.setter
    def angular_velocity(self, value) -> None:
        value = _check.finite_scalar(value, "angular_velocity")
        bodies, row = self._movable_row("angular_velocity", value != 0.0)
        bodies.angular_velocities[row] = value
        _wake(bodies, row)

    def _movable_row(self, name: str, moving: bool) -> tuple:
        bodies, row = self._row()
        if moving and bodies.kinds[row] == STATIC:
            raise ValueError(f"{name} of a static body must be zero; use kind='kinematic'")
        return bodies, row

    # --- sleep (chapter 11) ---------------------------------------------------------------

    @property
    def awake(self) -> bool:
        """Whether the body moves in the next step (chapter 11).

        A dynamic body falls asleep with its island when every body of it has been slow
        for the world's ``sleep.time_to_sleep``, and wakes when touched by an awake body, given
        a velocity, force or impulse, or moved. Set True to wake the body and its island,
        False to put the island to sleep at once. A static body is never awake; a
        kinematic body is awake while it moves (setting either has no effect).
        """
        bodies, row = self._row()
        if bodies.kinds[row] == KINEMATIC:
            return bool(bodies.velocities[row].any() or bodies.angular_velocities[row] != 0.0)
        return bool(bodies.awake[row])

    @awake.setter
    def awake(self, value) -> None:
        value = _check.flag(value, "awake")
        bodies, row = self._row()
        if bodies.kinds[row] != DYNAMIC:
            return
        if value:
            _wake(bodies, row)
        else:
            self._world.sleep.put_island_to_sleep(row)

    @property
    def sleep_time(self) -> float:
        """How long the body has been slow enough to sleep (s)."""
        bodies, row = self._row()
        return float(bodies.sleep_times[row])

    def velocity_at(self, point) -> np.ndarray:
        """Velocity of the body's material point at world ``point``: v + ω × (p − c) (m/s)."""
        point = _check.vector(point, "point")
        bodies, row = self._row()
        arm = point - bodies.centers[row]
        omega = bodies.angular_velocities[row]
        return bodies.velocities[row] + omega * np.array([-arm[1], arm[0]])

    # --- mass and material -----------------------------------------------------------

    @property
    def mass(self) -> float:
        """Mass (kg); 0 for static and kinematic bodies, whose mass counts as infinite."""
        bodies, row = self._row()
        return float(bodies.masses[row])

    @property
    def inertia(self) -> float:
        """Rotational inertia about the centre of mass (kg·m²); 0 when not dynamic."""
        bodies, row = self._row()
        return float(bodies.inertias[row])

    @property
    def inverse_mass(self) -> float:
        """1/m (1/kg); 0 for static and kinematic bodies."""
        bodies, row = self._row()
        return float(bodies.inverse_masses[row])

    @property
    def inverse_inertia(self) -> float:
        """1/I (1/(kg·m²)); 0 for static and kinematic bodies."""
        bodies, row = self._row()
        return float(bodies.inverse_inertias[row])

    @property
    def kind(self) -> str:
        """"dynamic", "static" or "kinematic". Set it to change the body's kind: a body made
        dynamic takes the mass and inertia of its shapes and material, one made static
        stops, one made kinematic keeps its velocity and moves on at it; the body wakes,
        with whatever rests on it."""
        bodies, row = self._row()
        return BODY_KINDS[int(bodies.kinds[row])]

    @kind.setter
    def kind(self, value) -> None:
        code = body_kind_code(value)
        _, row = self._row()
        self._world._changes.set_kind(row, code)

    @property
    def fixed_rotation(self) -> bool:
        """Whether the body never turns: contacts, joints and impulses leave its angle and
        angular velocity alone (its inverse inertia is 0 while it is dynamic), as a game's
        upright character wants. Setting it True also stops the body turning; the body
        wakes."""
        _, row = self._row()
        return self._table.fixed_rotation(row)

    @fixed_rotation.setter
    def fixed_rotation(self, value) -> None:
        value = _check.flag(value, "fixed_rotation")
        _, row = self._row()
        self._world._changes.set_fixed_rotation(row, value)

    @property
    def shapes(self) -> tuple:
        """The body's shapes, in body coordinates."""
        return self._table.shapes(self.row)

    @property
    def gravity_scale(self) -> float:
        """Multiplier of the world's gravity for this body (1 = normal, 0 = floats)."""
        bodies, row = self._row()
        return float(bodies.gravity_scales[row])

    @gravity_scale.setter
    def gravity_scale(self, value) -> None:
        value = _check.finite_scalar(value, "gravity_scale")
        bodies, row = self._row()
        bodies.gravity_scales[row] = value

    @property
    def bullet(self) -> bool:
        """A bullet is stopped at its time of impact against dynamic bodies too, not only
        static ones (chapter 13); for small, fast bodies such as projectiles."""
        bodies, row = self._row()
        return bool(bodies.bullets[row])

    @bullet.setter
    def bullet(self, value) -> None:
        value = _check.flag(value, "bullet")
        bodies, row = self._row()
        bodies.bullets[row] = value

    def _shape_rows(self) -> np.ndarray:
        """Rows of this body's shapes in the world's shape table."""
        _, row = self._row()
        return np.flatnonzero(self._world.shapes.arrays.body == row)

    @property
    def filters(self) -> tuple[Filter, ...]:
        """The collision filter of each of the body's shapes, in order."""
        shapes = self._world.shapes
        return tuple(shapes.filter(row) for row in self._shape_rows().tolist())

    @property
    def filter(self) -> Filter:
        """The collision filter of the body's shapes (they must share one to read it;
        setting it gives it to every shape)."""
        filters = set(self.filters)
        if len(filters) != 1:
            raise ValueError("this body's shapes have different filters; read body.filters")
        return filters.pop()

    @filter.setter
    def filter(self, value) -> None:
        _check.instance(value, "filter", Filter, "a Filter")
        for row in self._shape_rows().tolist():
            self._world.shapes.set_filter(row, value)
        # What it may touch has changed: it wakes, with whatever rests on it.
        self._world._wake_around(self.row)

    @property
    def sensors(self) -> tuple[bool, ...]:
        """Whether each of the body's shapes is a sensor."""
        return tuple(self._world.shapes.filters.sensor[self._shape_rows()].tolist())

    @property
    def layers(self) -> int:
        """Collision bitmask, shorthand for the filter ``Filter(layers, layers)`` on every
        shape: two bodies on layers that share a bit collide. Reading it raises
        ``ValueError`` if the shapes' filters are not of that form."""
        shape_filter = self.filter
        if shape_filter.category != shape_filter.mask or shape_filter.group != 0:
            raise ValueError(f"this body's filter {shape_filter} is not a layer bitmask "
                             "(category = mask, no group); read body.filter")
        return shape_filter.category

    @layers.setter
    def layers(self, value) -> None:
        self.filter = Filter.layers(value)

    @property
    def force(self) -> np.ndarray:
        """Force accumulated for the coming step (N); cleared by every step."""
        bodies, row = self._row()
        return bodies.forces[row].copy()

    @property
    def torque(self) -> float:
        """Torque accumulated for the coming step (N·m); cleared by every step."""
        bodies, row = self._row()
        return float(bodies.torques[row])

    # --- forces and impulses ---------------------------------------------------------

    def apply_force(self, force, point=None) -> None:
        """Add ``force`` (N) for the coming step, at world ``point`` (default: the centre).

        A force away from the centre of mass c also adds the torque τ = (p − c) × F.
        """
        force = _check.vector(force, "force")
        point = None if point is None else _check.vector(point, "point")
        bodies, row = self._row()
        bodies.forces[row] += force
        _wake(bodies, row)
        if point is not None:
            arm = point - bodies.centers[row]
            bodies.torques[row] += arm[0] * force[1] - arm[1] * force[0]

    def apply_torque(self, torque) -> None:
        """Add ``torque`` (N·m, counter-clockwise positive) for the coming step."""
        torque = _check.finite_scalar(torque, "torque")
        bodies, row = self._row()
        bodies.torques[row] += torque
        _wake(bodies, row)

    def apply_impulse(self, impulse, point=None) -> None:
        """Change the velocity at once by an ``impulse`` J (N·s) at world ``point``.

        Δv = J/m and Δω = (p − c) × J / I. Static and kinematic bodies are unaffected
        (their inverse mass and inertia are 0).
        """
        impulse = _check.vector(impulse, "impulse")
        point = None if point is None else _check.vector(point, "point")
        bodies, row = self._row()
        bodies.velocities[row] += bodies.inverse_masses[row] * impulse
        _wake(bodies, row)
        if point is not None:
            arm = point - bodies.centers[row]
            torque_impulse = arm[0] * impulse[1] - arm[1] * impulse[0]
            bodies.angular_velocities[row] += bodies.inverse_inertias[row] * torque_impulse

    def __repr__(self) -> str:
        if not self.alive:
            return f"Body(id={self._id}, generation={self._generation}, removed)"
        return f"Body(id={self._id}, {self.kind}, row={self.row})"
