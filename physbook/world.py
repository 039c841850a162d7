"""Chapter 4: the World, its bodies, forces and torques, and the step pipeline.

Body state lives in dense numpy arrays, one row per body (a structure of arrays), so one
compiled loop integrates every body at once. A :class:`Body` is a thin handle with a stable
id; the world maps ids to rows, because removing a body compacts the rows behind it.

Each body has an origin (its ``position``, the point its shapes are given about) and a
centre of mass tracked beside it. It rotates about its centre of mass, ``velocity`` is the
velocity of that centre, and ``origin = center − R(θ)·local_center`` at all times.

Kinds: a *dynamic* body moves under gravity, forces and impulses; a *static* body never
moves (inverse mass and inertia 0); a *kinematic* body moves with the velocity you give it
and ignores forces, gravity and impulses (inverse mass and inertia 0 as well).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.contacts import Contacts, canonical_pairs
from physbook.manifold import collide_pairs
from physbook.materials import DEFAULT_MATERIAL, Material, mix_friction, mix_restitution
from physbook.shapes import Circle, Polygon, Shape, ShapeTable
from physbook.solver import contact_solver
from physbook.vec import Transform

#: Body kinds as stored in :attr:`World.kinds`.
DYNAMIC = 0
STATIC = 1
KINEMATIC = 2

#: Kind names accepted by :meth:`World.add_body`, indexed by kind code.
KIND_NAMES = ("dynamic", "static", "kinematic")

# Per-body arrays: name -> (shape of one row, dtype, writable through the public view).
# Derived quantities (origins, masses, ...) are read-only views so that they cannot drift
# out of step with the state they are computed from.
_FIELDS = {
    "origins": ((2,), np.float64, False),
    "centers": ((2,), np.float64, True),
    "angles": ((), np.float64, True),
    "velocities": ((2,), np.float64, True),
    "angular_velocities": ((), np.float64, True),
    "forces": ((2,), np.float64, True),
    "torques": ((), np.float64, True),
    "masses": ((), np.float64, False),
    "inertias": ((), np.float64, False),
    "inverse_masses": ((), np.float64, False),
    "inverse_inertias": ((), np.float64, False),
    "local_centers": ((2,), np.float64, False),
    "gravity_scales": ((), np.float64, True),
    "kinds": ((), np.int64, False),
    "restitutions": ((), np.float64, False),
    "frictions": ((), np.float64, False),
    "layers": ((), np.int64, True),
    "ids": ((), np.int64, False),
}


# --------------------------------------------------------------------------------------
# Compiled kernels: one pass over all bodies each.
# --------------------------------------------------------------------------------------


@njit
def integrate_velocities(velocities, angular_velocities, forces, torques, inverse_masses,
                         inverse_inertias, gravity_scales, kinds, gravity, dt):
    """Symplectic Euler, velocity half: v += dt·(g·s + F/m), ω += dt·τ/I, dynamic bodies only.

    ``gravity`` is the (2,) world gravity (m/s²) and ``s`` each body's gravity scale.
    Static and kinematic bodies keep their velocities.
    """
    for i in range(len(kinds)):
        if kinds[i] != DYNAMIC:
            continue
        velocities[i, 0] += dt * (gravity[0] * gravity_scales[i] + forces[i, 0] * inverse_masses[i])
        velocities[i, 1] += dt * (gravity[1] * gravity_scales[i] + forces[i, 1] * inverse_masses[i])
        angular_velocities[i] += dt * torques[i] * inverse_inertias[i]


@njit
def integrate_positions(centers, angles, origins, velocities, angular_velocities,
                        local_centers, kinds, dt):
    """Symplectic Euler, position half: c += dt·v, θ += dt·ω, then origin = c − R(θ)·local_c.

    Uses the velocities just updated (that is what makes the scheme symplectic). Static
    bodies do not move, but their origin is recomputed too, so that a centre or angle
    written directly into the arrays carries the origin along. Returns the number of
    bodies whose state is no longer finite (0 in a healthy world).
    """
    bad = 0
    for i in range(len(kinds)):
        if kinds[i] != STATIC:
            centers[i, 0] += dt * velocities[i, 0]
            centers[i, 1] += dt * velocities[i, 1]
            angles[i] += dt * angular_velocities[i]
        local_x = local_centers[i, 0]
        local_y = local_centers[i, 1]
        if local_x == 0.0 and local_y == 0.0:
            # Most bodies have their centre of mass at the origin: no rotation needed,
            # and cos/sin are the costliest part of this loop.
            origins[i, 0] = centers[i, 0]
            origins[i, 1] = centers[i, 1]
        else:
            c = math.cos(angles[i])
            s = math.sin(angles[i])
            origins[i, 0] = centers[i, 0] - (c * local_x - s * local_y)
            origins[i, 1] = centers[i, 1] - (s * local_x + c * local_y)
        if not (math.isfinite(origins[i, 0]) and math.isfinite(origins[i, 1])
                and math.isfinite(velocities[i, 0]) and math.isfinite(velocities[i, 1])
                and math.isfinite(angular_velocities[i])):
            bad += 1
    return bad


# --------------------------------------------------------------------------------------
# Mass properties of a compound body.
# --------------------------------------------------------------------------------------


def combine_mass(shapes: Sequence[Shape], density: float) -> tuple[float, float, np.ndarray]:
    """Mass (kg), inertia about the centre of mass (kg·m²) and centre (m, body frame).

    M = Σ mᵢ, C = Σ mᵢ·cᵢ / M, and by the parallel axis theorem
    I = Σ (Iᵢ + mᵢ·|cᵢ − C|²), where Iᵢ is shape i's inertia about its own centroid cᵢ.
    """
    parts = [shape.mass_properties(density) for shape in shapes]
    masses = np.array([part.mass for part in parts])
    centroids = np.array([part.centroid for part in parts])
    total = float(masses.sum())
    center = masses @ centroids / total
    arms = centroids - center
    inertia = float(sum(part.inertia for part in parts) + masses @ np.sum(arms * arms, axis=1))
    return total, inertia, center


def _as_shapes(value) -> tuple[Shape, ...]:
    if isinstance(value, (Circle, Polygon)):
        return (value,)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(
            "shape_or_shapes must be a Circle, a Polygon or a sequence of them, "
            f"got {type(value).__name__}"
        )
    shapes = tuple(value)
    if not shapes:
        raise ValueError("shape_or_shapes must hold at least one shape")
    for i, shape in enumerate(shapes):
        if not isinstance(shape, (Circle, Polygon)):
            raise TypeError(
                f"shape_or_shapes[{i}] must be a Circle or a Polygon, got {type(shape).__name__}"
            )
    return shapes


def _layers(value, name: str = "layers") -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer bitmask, got {type(value).__name__}")
    value = int(value)
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{name} must fit in a signed 64-bit integer, got {value}")
    return value


def _rotated(vector: np.ndarray, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * vector[0] - s * vector[1], s * vector[0] + c * vector[1]])


# --------------------------------------------------------------------------------------
# Body handles.
# --------------------------------------------------------------------------------------


class Body:
    """A handle to one body of a :class:`World`: its stable ``id`` and the world.

    Every property reads or writes the world's arrays at the body's current row, so the
    handle stays valid when other bodies are removed. Using it after its own body was
    removed raises ``LookupError``. Vectors are returned as fresh arrays (m, m/s, N).
    """

    __slots__ = ("_world", "_id")

    def __init__(self, world: World, body_id: int):
        self._world = world
        self._id = body_id

    @property
    def world(self) -> World:
        return self._world

    @property
    def id(self) -> int:
        """Stable identifier, unique within the world, never reused."""
        return self._id

    @property
    def index(self) -> int:
        """The body's current row in the world's arrays."""
        return self._world._row_of(self._id)

    @property
    def alive(self) -> bool:
        """False once the body has been removed from its world."""
        return self._world._row_of_id[self._id] >= 0

    # --- pose and motion -------------------------------------------------------------

    @property
    def position(self) -> np.ndarray:
        """The body origin in world coordinates (m): where body coordinates (0, 0) are."""
        return self._world._origins[self.index].copy()

    @position.setter
    def position(self, value) -> None:
        value = _check.vector(value, "position")
        world, row = self._world, self.index
        world._origins[row] = value
        world._centers[row] = value + _rotated(world._local_centers[row], world._angles[row])

    @property
    def angle(self) -> float:
        """Rotation of the body frame (rad, counter-clockwise)."""
        return float(self._world._angles[self.index])

    @angle.setter
    def angle(self, value) -> None:
        # Turning the body in place about its origin: the origin stays, the centre moves.
        value = _check.finite_scalar(value, "angle")
        world, row = self._world, self.index
        world._angles[row] = value
        world._centers[row] = world._origins[row] + _rotated(world._local_centers[row], value)

    @property
    def transform(self) -> Transform:
        """The body's pose as a :class:`physbook.vec.Transform` (origin, angle)."""
        row = self.index
        return Transform(self._world._origins[row], float(self._world._angles[row]))

    @property
    def center_of_mass(self) -> np.ndarray:
        """The centre of mass in world coordinates (m)."""
        return self._world._centers[self.index].copy()

    @property
    def local_center(self) -> np.ndarray:
        """The centre of mass in body coordinates (m)."""
        return self._world._local_centers[self.index].copy()

    @property
    def velocity(self) -> np.ndarray:
        """Velocity of the centre of mass (m/s)."""
        return self._world._velocities[self.index].copy()

    @velocity.setter
    def velocity(self, value) -> None:
        value = _check.vector(value, "velocity")
        row = self._movable_row("velocity", value.any())
        self._world._velocities[row] = value

    @property
    def angular_velocity(self) -> float:
        """Angular velocity about the centre of mass (rad/s, counter-clockwise)."""
        return float(self._world._angular_velocities[self.index])

    @angular_velocity.setter
    def angular_velocity(self, value) -> None:
        value = _check.finite_scalar(value, "angular_velocity")
        row = self._movable_row("angular_velocity", value != 0.0)
        self._world._angular_velocities[row] = value

    def _movable_row(self, name: str, moving: bool) -> int:
        row = self.index
        if moving and self._world._kinds[row] == STATIC:
            raise ValueError(f"{name} of a static body must be zero; use kind='kinematic'")
        return row

    def velocity_at(self, point) -> np.ndarray:
        """Velocity of the body's material point at world ``point``: v + ω × (p − c) (m/s)."""
        point = _check.vector(point, "point")
        world, row = self._world, self.index
        arm = point - world._centers[row]
        omega = world._angular_velocities[row]
        return world._velocities[row] + omega * np.array([-arm[1], arm[0]])

    # --- mass and material -----------------------------------------------------------

    @property
    def mass(self) -> float:
        """Mass (kg); 0 for static and kinematic bodies, whose mass counts as infinite."""
        return float(self._world._masses[self.index])

    @property
    def inertia(self) -> float:
        """Rotational inertia about the centre of mass (kg·m²); 0 when not dynamic."""
        return float(self._world._inertias[self.index])

    @property
    def inverse_mass(self) -> float:
        """1/m (1/kg); 0 for static and kinematic bodies."""
        return float(self._world._inverse_masses[self.index])

    @property
    def inverse_inertia(self) -> float:
        """1/I (1/(kg·m²)); 0 for static and kinematic bodies."""
        return float(self._world._inverse_inertias[self.index])

    @property
    def kind(self) -> str:
        """"dynamic", "static" or "kinematic"."""
        return KIND_NAMES[int(self._world._kinds[self.index])]

    @property
    def shapes(self) -> tuple[Shape, ...]:
        """The body's shapes, in body coordinates."""
        return self._world._body_shapes[self.index]

    @property
    def material(self) -> Material:
        return self._world._materials[self.index]

    @property
    def gravity_scale(self) -> float:
        """Multiplier of the world's gravity for this body (1 = normal, 0 = floats)."""
        return float(self._world._gravity_scales[self.index])

    @gravity_scale.setter
    def gravity_scale(self, value) -> None:
        self._world._gravity_scales[self.index] = _check.finite_scalar(value, "gravity_scale")

    @property
    def layers(self) -> int:
        """Collision bitmask: two bodies may collide only if ``layers_a & layers_b != 0``."""
        return int(self._world._layers[self.index])

    @layers.setter
    def layers(self, value) -> None:
        self._world._layers[self.index] = _layers(value)

    @property
    def force(self) -> np.ndarray:
        """Force accumulated for the coming step (N); cleared by every step."""
        return self._world._forces[self.index].copy()

    @property
    def torque(self) -> float:
        """Torque accumulated for the coming step (N·m); cleared by every step."""
        return float(self._world._torques[self.index])

    # --- forces and impulses ---------------------------------------------------------

    def apply_force(self, force, point=None) -> None:
        """Add ``force`` (N) for the coming step, at world ``point`` (default: the centre).

        A force away from the centre of mass c also adds the torque τ = (p − c) × F.
        """
        force = _check.vector(force, "force")
        point = None if point is None else _check.vector(point, "point")
        world, row = self._world, self.index
        world._forces[row] += force
        if point is not None:
            arm = point - world._centers[row]
            world._torques[row] += arm[0] * force[1] - arm[1] * force[0]

    def apply_torque(self, torque) -> None:
        """Add ``torque`` (N·m, counter-clockwise positive) for the coming step."""
        self._world._torques[self.index] += _check.finite_scalar(torque, "torque")

    def apply_impulse(self, impulse, point=None) -> None:
        """Change the velocity at once by an ``impulse`` J (N·s) at world ``point``.

        Δv = J/m and Δω = (p − c) × J / I. Static and kinematic bodies are unaffected
        (their inverse mass and inertia are 0).
        """
        impulse = _check.vector(impulse, "impulse")
        point = None if point is None else _check.vector(point, "point")
        world, row = self._world, self.index
        world._velocities[row] += world._inverse_masses[row] * impulse
        if point is not None:
            arm = point - world._centers[row]
            torque_impulse = arm[0] * impulse[1] - arm[1] * impulse[0]
            world._angular_velocities[row] += world._inverse_inertias[row] * torque_impulse

    def __repr__(self) -> str:
        if not self.alive:
            return f"Body(id={self._id}, removed)"
        return f"Body(id={self._id}, {self.kind}, row={self.index})"


# --------------------------------------------------------------------------------------
# Recordings.
# --------------------------------------------------------------------------------------


class Frame(NamedTuple):
    """One recorded instant: what it takes to draw every body."""

    time: float
    origins: np.ndarray
    angles: np.ndarray
    centers: np.ndarray
    shapes: tuple[tuple[Shape, ...], ...]
    kinds: np.ndarray
    body_ids: np.ndarray


@dataclass(frozen=True, eq=False)
class Recording:
    """The states of a world over a run: row 0 is the start, row k the state after k steps.

    Arrays have ``len(recording)`` = steps + 1 rows: ``times`` (F,) s, ``origins`` and
    ``centers`` (F, N, 2) m, ``angles`` (F, N) rad, ``velocities`` (F, N, 2) m/s,
    ``angular_velocities`` (F, N) rad/s. ``shapes`` and ``kinds`` describe the N bodies,
    ``body_ids`` their ids. ``pb.viz.play(recording)`` animates it.
    """

    times: np.ndarray
    origins: np.ndarray
    angles: np.ndarray
    centers: np.ndarray
    velocities: np.ndarray
    angular_velocities: np.ndarray
    shapes: tuple[tuple[Shape, ...], ...]
    kinds: np.ndarray
    body_ids: np.ndarray

    def __len__(self) -> int:
        return len(self.times)

    def frame(self, k: int) -> Frame:
        """The state after ``k`` steps, as a :class:`Frame`."""
        return Frame(float(self.times[k]), self.origins[k], self.angles[k], self.centers[k],
                     self.shapes, self.kinds, self.body_ids)

    @property
    def frames(self) -> list[Frame]:
        """Every recorded state, for ``pb.viz.animate(recording.frames, draw)``."""
        return [self.frame(k) for k in range(len(self))]


# --------------------------------------------------------------------------------------
# The world.
# --------------------------------------------------------------------------------------


class World:
    """A collection of bodies that move together under gravity and forces.

    Parameters
    ----------
    gravity
        Acceleration of gravity (m/s²), (0, −10) by default.
    capacity
        Rows to allocate at first; the arrays double whenever they fill up.
    solver
        The contact solver stage: an object with ``solve(world, contacts, dt)`` such as
        :class:`physbook.solver.ImpulseSolver` (the default, with its default settings),
        or a name from :data:`physbook.solver.SOLVERS`.
    broad_phase
        The broad phase stage: a callable ``(world) -> (P, 2)`` shape pairs or a name from
        :data:`physbook.broadphase.BROAD_PHASES` (``"sweep"`` by default).

    After each step ``world.contacts`` (:class:`physbook.contacts.Contacts`) holds the
    touching shape pairs, their points and the impulses the solver gave them.

    The public arrays (``origins``, ``centers``, ``velocities``, ...) are views of the rows
    in use, ``0 .. count − 1``. Velocities, forces, torques, gravity scales and layers may
    be written through them; centres and angles too, and the origins follow at the next
    step (or at once with :meth:`update_origins`). Masses, kinds and the other derived
    arrays are read-only.
    """

    def __init__(self, gravity=(0.0, -10.0), capacity: int = 16, solver=None,
                 broad_phase="sweep"):
        # Imported here, not at the top: the broad phase reads this module's kind codes.
        from physbook.broadphase import broad_phase as resolve_broad_phase

        self.solver = contact_solver("impulse" if solver is None else solver)
        self.broad_phase = resolve_broad_phase(broad_phase)
        self.contacts = Contacts()
        self._contact_generation = 0
        self._gravity = _check.vector(gravity, "gravity")
        capacity = _check.positive_int(capacity, "capacity")
        self._count = 0
        self.time = 0.0
        self._next_id = 0
        self._row_of_id = np.full(capacity, -1, dtype=np.int64)
        for name, (row_shape, dtype, _) in _FIELDS.items():
            setattr(self, "_" + name, np.zeros((capacity,) + row_shape, dtype=dtype))
        self.shapes = ShapeTable()
        self._handles: list[Body] = []
        self._body_shapes: list[tuple[Shape, ...]] = []
        self._materials: list[Material] = []

    # --- sizes and views -------------------------------------------------------------

    @property
    def count(self) -> int:
        """Number of bodies (rows in use)."""
        return self._count

    def __len__(self) -> int:
        return self._count

    @property
    def capacity(self) -> int:
        """Rows allocated; grows by doubling."""
        return len(self._kinds)

    @property
    def gravity(self) -> np.ndarray:
        """Gravity (m/s²)."""
        return self._gravity.copy()

    @gravity.setter
    def gravity(self, value) -> None:
        self._gravity = _check.vector(value, "gravity")

    @property
    def bodies(self) -> list[Body]:
        """Handles of all bodies, in row order."""
        return list(self._handles)

    def _row_of(self, body_id: int) -> int:
        row = int(self._row_of_id[body_id])
        if row < 0:
            raise LookupError(f"body {body_id} was removed from this world; its handle is stale")
        return row

    # --- adding and removing ---------------------------------------------------------

    def add_body(
        self,
        shape_or_shapes,
        position=(0.0, 0.0),
        angle: float = 0.0,
        velocity=(0.0, 0.0),
        angular_velocity: float = 0.0,
        material: Material = DEFAULT_MATERIAL,
        kind: str = "dynamic",
        gravity_scale: float = 1.0,
        layers: int = 1,
    ) -> Body:
        """Add a body made of one shape or several (a compound) and return its handle.

        Parameters
        ----------
        shape_or_shapes
            A :class:`Circle` or :class:`Polygon`, or a sequence of them, in body
            coordinates (about the body origin).
        position, angle
            Pose of the body origin in the world (m, rad).
        velocity, angular_velocity
            Initial velocity of the centre of mass (m/s) and angular velocity (rad/s).
            Must be zero for a static body.
        material
            Density, restitution and friction (:class:`physbook.materials.Material`).
        kind
            ``"dynamic"``, ``"static"`` or ``"kinematic"``.
        gravity_scale
            Multiplier of the world's gravity for this body.
        layers
            Collision bitmask (an integer).
        """
        shapes = _as_shapes(shape_or_shapes)
        position = _check.vector(position, "position")
        angle = _check.finite_scalar(angle, "angle")
        velocity = _check.vector(velocity, "velocity")
        angular_velocity = _check.finite_scalar(angular_velocity, "angular_velocity")
        if not isinstance(material, Material):
            raise TypeError(f"material must be a Material, got {type(material).__name__}")
        kind_code = KIND_NAMES.index(_check.choice(kind, "kind", KIND_NAMES))
        gravity_scale = _check.finite_scalar(gravity_scale, "gravity_scale")
        layers = _layers(layers)
        if kind_code == STATIC and (velocity.any() or angular_velocity != 0.0):
            raise ValueError(
                "a static body cannot move: velocity and angular_velocity must be zero "
                "(use kind='kinematic' for a body that moves at a set velocity)"
            )

        mass, inertia, local_center = combine_mass(shapes, material.density)
        if kind_code != DYNAMIC:
            # Infinite mass: stored as mass 0 and inverse 0, as Box2D does. The centre of
            # mass stays the shapes' centroid, so a kinematic body spins about it.
            mass = inertia = 0.0

        row = self._count
        self._reserve(row + 1)
        body_id = self._next_id
        self._next_id += 1
        if body_id >= len(self._row_of_id):
            grown = np.full(2 * len(self._row_of_id), -1, dtype=np.int64)
            grown[: len(self._row_of_id)] = self._row_of_id
            self._row_of_id = grown
        self._row_of_id[body_id] = row

        self._origins[row] = position
        self._angles[row] = angle
        self._local_centers[row] = local_center
        self._centers[row] = position + _rotated(local_center, angle)
        self._velocities[row] = velocity
        self._angular_velocities[row] = angular_velocity
        self._forces[row] = 0.0
        self._torques[row] = 0.0
        self._masses[row] = mass
        self._inertias[row] = inertia
        self._inverse_masses[row] = 1.0 / mass if mass > 0.0 else 0.0
        self._inverse_inertias[row] = 1.0 / inertia if inertia > 0.0 else 0.0
        self._gravity_scales[row] = gravity_scale
        self._kinds[row] = kind_code
        self._restitutions[row] = material.restitution
        self._frictions[row] = material.friction
        self._layers[row] = layers
        self._ids[row] = body_id
        self._count += 1

        for shape in shapes:
            self.shapes.append(shape, row)
        handle = Body(self, body_id)
        self._handles.append(handle)
        self._body_shapes.append(shapes)
        self._materials.append(material)
        return handle

    def _reserve(self, rows: int) -> None:
        """Make room for ``rows`` bodies, doubling the arrays as often as needed."""
        capacity = self.capacity
        if rows <= capacity:
            return
        while capacity < rows:
            capacity *= 2  # doubling keeps a long run of add_body amortised O(1)
        for name, (row_shape, dtype, _) in _FIELDS.items():
            old = getattr(self, "_" + name)
            new = np.zeros((capacity,) + row_shape, dtype=dtype)
            new[: self._count] = old[: self._count]
            setattr(self, "_" + name, new)

    def remove_body(self, body: Body) -> None:
        """Remove ``body``. Rows behind it move up by one, in order; other handles stay valid."""
        if not isinstance(body, Body):
            raise TypeError(f"body must be a Body, got {type(body).__name__}")
        if body.world is not self:
            raise ValueError("body belongs to another world")
        row = body.index  # raises if it was removed already
        old_count = self._count
        for name in _FIELDS:
            array = getattr(self, "_" + name)
            array[row : old_count - 1] = array[row + 1 : old_count]
        self._count -= 1
        self._row_of_id[body.id] = -1
        self._row_of_id[self._ids[row : self._count]] -= 1
        del self._handles[row]
        del self._body_shapes[row]
        del self._materials[row]

        body_map = np.arange(old_count, dtype=np.int64)
        body_map[row + 1 :] -= 1
        self.shapes.rebuild(self.shapes.body != row, body_map)

    # --- the step --------------------------------------------------------------------

    def step(self, dt: float) -> None:
        """Advance the world by ``dt`` seconds: the pipeline of one time step."""
        dt = _check.positive_scalar(dt, "dt")
        self._integrate_velocities(dt)  # v += dt·(g·gravity_scale + F/m), ω += dt·τ/I
        self._update_contacts()  # broad phase + narrow phase
        self._solve_contacts(dt)  # contact impulses change velocities
        self._integrate_positions(dt)  # c += dt·v, θ += dt·ω, origin = c − R(θ)·local_center
        self._clear_forces()  # forces act for one step only
        self.time += dt

    def _integrate_velocities(self, dt: float) -> None:
        n = self._count
        integrate_velocities(
            self._velocities[:n], self._angular_velocities[:n], self._forces[:n],
            self._torques[:n], self._inverse_masses[:n], self._inverse_inertias[:n],
            self._gravity_scales[:n], self._kinds[:n], self._gravity, dt,
        )

    def _update_contacts(self) -> None:
        """Find touching shapes: broad phase, then narrow phase, into ``self.contacts``.

        A point that touched in the previous step (same shape pair, same feature id) keeps
        the impulses it received there.
        """
        n = self._count
        # Removing a body rebuilds the shape table and renumbers the shapes, so contacts
        # of earlier steps would name the wrong shapes: forget them then.
        if self.shapes.generation != self._contact_generation:
            self.contacts.reset()
            self._contact_generation = self.shapes.generation
        pairs = canonical_pairs(self.broad_phase(self))
        if len(pairs) == 0:
            self.contacts.clear()
            return
        manifolds = collide_pairs(pairs, self.shapes, self._origins[:n], self._angles[:n])
        self.contacts.update(pairs, manifolds, self.shapes.body, self._restitutions[:n],
                             self._frictions[:n], mix_restitution, mix_friction)

    def _solve_contacts(self, dt: float) -> None:
        """Resolve the contacts with ``self.solver``: impulses change velocities, and the
        solver may move overlapping bodies apart."""
        self.solver.solve(self, self.contacts, dt)

    def _integrate_positions(self, dt: float) -> None:
        n = self._count
        bad = integrate_positions(
            self._centers[:n], self._angles[:n], self._origins[:n], self._velocities[:n],
            self._angular_velocities[:n], self._local_centers[:n], self._kinds[:n], dt,
        )
        if bad:
            raise FloatingPointError(
                f"{bad} bodies reached a non-finite position or velocity; check the forces "
                "and impulses applied to them"
            )

    def _clear_forces(self) -> None:
        n = self._count
        self._forces[:n] = 0.0
        self._torques[:n] = 0.0

    def update_origins(self) -> None:
        """Recompute every origin from its centre and angle: origin = c − R(θ)·local_c.

        Only needed after writing ``centers`` or ``angles`` directly, to read ``origins``
        before the next step. A position update of zero length does exactly this.
        """
        self._integrate_positions(0.0)

    # --- running and recording -------------------------------------------------------

    def run(self, steps: int, dt: float,
            before_step: Callable[[World], None] | None = None) -> Recording:
        """Step ``steps`` times and return a :class:`Recording` of steps + 1 states.

        ``before_step(world)``, if given, runs before each step: the place to apply forces,
        which every step clears. Bodies may not be added or removed during a run.
        """
        steps = _check.positive_int(steps, "steps", minimum=0)
        dt = _check.positive_scalar(dt, "dt")
        if before_step is not None and not callable(before_step):
            raise TypeError("before_step must be callable or None")
        n = self._count
        ids = self._ids[:n].copy()
        times = np.empty(steps + 1)
        origins = np.empty((steps + 1, n, 2))
        angles = np.empty((steps + 1, n))
        centers = np.empty((steps + 1, n, 2))
        velocities = np.empty((steps + 1, n, 2))
        angular_velocities = np.empty((steps + 1, n))

        def record(k: int) -> None:
            times[k] = self.time
            origins[k] = self._origins[:n]
            angles[k] = self._angles[:n]
            centers[k] = self._centers[:n]
            velocities[k] = self._velocities[:n]
            angular_velocities[k] = self._angular_velocities[:n]

        record(0)
        for k in range(1, steps + 1):
            if before_step is not None:
                before_step(self)
                if self._count != n or not np.array_equal(self._ids[:n], ids):
                    raise RuntimeError("bodies were added or removed during run(); "
                                       "step the world yourself when the bodies change")
            self.step(dt)
            record(k)
        return Recording(times, origins, angles, centers, velocities, angular_velocities,
                         tuple(self._body_shapes), self._kinds[:n].copy(), ids)


def _row_view(name: str, writable: bool, doc: str) -> property:
    def get(self: World) -> np.ndarray:
        view = getattr(self, "_" + name)[: self._count]
        if not writable:
            view = view.view()
            view.flags.writeable = False
        return view

    return property(get, doc=doc)


_DOCS = {
    "origins": "(N, 2) body origins in the world (m).",
    "centers": "(N, 2) centres of mass in the world (m).",
    "angles": "(N,) body angles (rad).",
    "velocities": "(N, 2) velocities of the centres of mass (m/s).",
    "angular_velocities": "(N,) angular velocities (rad/s).",
    "forces": "(N, 2) forces accumulated for the coming step (N).",
    "torques": "(N,) torques accumulated for the coming step (N·m).",
    "masses": "(N,) masses (kg); 0 for static and kinematic bodies.",
    "inertias": "(N,) inertias about the centres of mass (kg·m²); 0 when not dynamic.",
    "inverse_masses": "(N,) 1/m (1/kg); 0 for static and kinematic bodies.",
    "inverse_inertias": "(N,) 1/I (1/(kg·m²)); 0 for static and kinematic bodies.",
    "local_centers": "(N, 2) centres of mass in body coordinates (m).",
    "gravity_scales": "(N,) multipliers of the world's gravity.",
    "kinds": "(N,) body kinds: DYNAMIC=0, STATIC=1, KINEMATIC=2.",
    "restitutions": "(N,) restitution of each body's material.",
    "frictions": "(N,) friction coefficient of each body's material.",
    "layers": "(N,) collision bitmasks; a pair may collide only if their AND is non-zero.",
    "ids": "(N,) stable body ids, by row.",
}

for _name, (_shape, _dtype, _writable) in _FIELDS.items():
    setattr(World, _name, _row_view(_name, _writable, _DOCS[_name]))
