"""The Verlet world: particles, edges and bodies kept in growable numpy arrays.

Particles carry a position, a previous position, a force accumulator and an inverse mass
(0 = pinned). Edges join two particles at a rest length; a ``boundary`` flag marks the edges
that form a body's outline (the only ones collision looks at) as opposed to interior braces.
A body is a convex set of particles and edges with a mass; its centre and AABB are recomputed
from the particles whenever they are needed. Arrays double their capacity when full.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook._buffers import grown
from physbook.constants import MINIMUM_EDGE_LENGTH
from physbook.verlet import _arguments as arguments
from physbook.verlet._outline import convex_orientation, outline_order, points_outside
from physbook.verlet.constraints import stretched_edges
from physbook.verlet.factories import COORDINATE_LIMIT, ShapeFactories
from physbook.verlet.handles import VerletBody, VerletSnapshot
from physbook.verlet.interaction import Interaction
from physbook.verlet.solver import compliance_per_substep, step_world_unchecked, substep_length

SOLVERS = ("verlet", "xpbd")


class VerletWorld(ShapeFactories, Interaction):
    """A position-based world of particles, edges ("poles") and convex bodies.

    Parameters
    ----------
    gravity
        Acceleration of every free particle (m/s²).
    iterations
        Passes per step (per substep) over walls, edges and collisions; at least 1.
    bounds
        ``(x_min, y_min, x_max, y_max)`` walls in m, or None for an open world.
    solver
        ``"verlet"``: the seed's rigid projection of each edge. ``"xpbd"``: compliant edges,
        each with compliance α = ``compliance`` (m/N; 0 is rigid) and a Lagrange multiplier.
    compliance
        XPBD compliance α (m/N), the inverse of the edge stiffness. Only for ``"xpbd"``.
    substeps
        Each step is split into this many substeps, each integrated and iterated in full.
    damping
        Fraction of the implicit velocity removed per (sub)step, in [0, 1).
    """

    def __init__(self, gravity=(0.0, -10.0), iterations: int = 10, bounds=None, *,
                 solver: str = "verlet", compliance: float = 0.0, substeps: int = 1,
                 damping: float = 0.0):
        self.gravity = gravity
        self.iterations = iterations
        self.bounds = bounds
        self._compliance = 0.0
        self.solver = solver
        self.compliance = compliance
        self.substeps = substeps
        self.damping = damping

        capacity = 16
        self._position = np.zeros((capacity, 2))
        self._previous = np.zeros((capacity, 2))
        self._force = np.zeros((capacity, 2))
        self._mass = np.ones(capacity)
        self._inverse_mass = np.zeros(capacity)
        self._pinned = np.zeros(capacity, dtype=np.bool_)
        self._particle_count = 0

        self._edge_ends = np.zeros((capacity, 2), dtype=np.int64)
        self._rest_length = np.zeros(capacity)
        self._boundary = np.zeros(capacity, dtype=np.bool_)
        self._tear_ratio = np.full(capacity, np.inf)
        self._multipliers = np.zeros(capacity)
        self._edge_count = 0
        self._tearable = False
        self.torn_edges = 0
        """Edges removed so far because they stretched past their tear ratio."""

        self._body_particle_start = np.zeros(capacity, dtype=np.int64)
        self._body_particle_count = np.zeros(capacity, dtype=np.int64)
        self._body_particles = np.zeros(capacity, dtype=np.int64)
        self._body_particles_used = 0
        self._body_edge_start = np.zeros(capacity, dtype=np.int64)
        self._body_edge_count = np.zeros(capacity, dtype=np.int64)
        self._body_edges = np.zeros(capacity, dtype=np.int64)
        self._body_edges_used = 0
        self._body_mass = np.ones(capacity)
        self._centers = np.zeros((capacity, 2))
        self._boxes = np.zeros((capacity, 4))
        self._body_count = 0

        self._grabbed = -1
        self.last_responses = 0
        """Vertex–edge responses applied during the last step."""

    # ----------------------------------------------------------------- settings
    @property
    def gravity(self) -> np.ndarray:
        """Acceleration of every free particle (m/s²)."""
        return self._gravity.copy()

    @gravity.setter
    def gravity(self, value) -> None:
        self._gravity = _check.vector(value, "gravity")

    @property
    def iterations(self) -> int:
        """Passes over walls, edges and collisions per (sub)step."""
        return self._iterations

    @iterations.setter
    def iterations(self, value: int) -> None:
        self._iterations = _check.positive_int(value, "iterations")

    @property
    def solver(self) -> str:
        """``"verlet"`` (rigid edge projection) or ``"xpbd"`` (compliant edges)."""
        return self._solver

    @solver.setter
    def solver(self, value: str) -> None:
        value = _check.choice(value, "solver", SOLVERS)
        if value == "verlet" and self._compliance != 0.0:
            raise ValueError('compliance is an XPBD setting: use solver="xpbd" with it')
        self._solver = value

    @property
    def compliance(self) -> float:
        """XPBD compliance α of every edge (m/N): the inverse of its stiffness; 0 is rigid."""
        return self._compliance

    @compliance.setter
    def compliance(self, value: float) -> None:
        value = _check.non_negative_scalar(value, "compliance")
        if self._solver == "verlet" and value != 0.0:
            raise ValueError('compliance is an XPBD setting: use solver="xpbd" with it')
        self._compliance = value

    @property
    def substeps(self) -> int:
        """Substeps per step; each integrates and iterates in full."""
        return self._substeps

    @substeps.setter
    def substeps(self, value: int) -> None:
        self._substeps = _check.positive_int(value, "substeps")

    @property
    def damping(self) -> float:
        """Fraction of the implicit velocity removed per (sub)step, in [0, 1)."""
        return self._damping

    @damping.setter
    def damping(self, value: float) -> None:
        self._damping = arguments.fraction(value, "damping")

    @property
    def bounds(self) -> tuple | None:
        """``(x_min, y_min, x_max, y_max)`` walls (m), or None."""
        return None if self._bounds is None else tuple(float(b) for b in self._bounds)

    @bounds.setter
    def bounds(self, value) -> None:
        if value is None:
            self._bounds = None
            return
        self._bounds = arguments.bounds_box(value, "bounds")

    # ----------------------------------------------------------------- state views
    @property
    def particle_count(self) -> int:
        return self._particle_count

    @property
    def edge_count(self) -> int:
        return self._edge_count

    @property
    def body_count(self) -> int:
        return self._body_count

    @property
    def positions(self) -> np.ndarray:
        """Particle positions (m), shape (n, 2).

        A live view: writing into it moves particles (and so changes their implicit velocity).
        It stays live until particles are added, which may move the arrays.
        """
        return self._position[: self._particle_count]

    @property
    def previous_positions(self) -> np.ndarray:
        """Positions one (sub)step ago (m), shape (n, 2): a live view, like :attr:`positions`."""
        return self._previous[: self._particle_count]

    @property
    def masses(self) -> np.ndarray:
        """Particle masses (kg), shape (n,)."""
        return self._mass[: self._particle_count].copy()

    @property
    def inverse_masses(self) -> np.ndarray:
        """Particle inverse masses (1/kg), 0 for pinned or grabbed particles, shape (n,)."""
        return self._inverse_mass[: self._particle_count].copy()

    @property
    def pinned(self) -> np.ndarray:
        """True for pinned particles, shape (n,)."""
        return self._pinned[: self._particle_count].copy()

    @property
    def edges(self) -> np.ndarray:
        """Particle index pairs of the edges, shape (m, 2)."""
        return self._edge_ends[: self._edge_count].copy()

    @property
    def rest_lengths(self) -> np.ndarray:
        """Rest length of each edge (m), shape (m,)."""
        return self._rest_length[: self._edge_count].copy()

    @property
    def boundary(self) -> np.ndarray:
        """True for boundary edges (collision looks at them), False for braces."""
        return self._boundary[: self._edge_count].copy()

    @property
    def bodies(self) -> list[VerletBody]:
        return [VerletBody(self, b) for b in range(self._body_count)]

    def body(self, index: int) -> VerletBody:
        """Handle on body ``index``."""
        index = self._index(index, self._body_count, "index")
        return VerletBody(self, index)

    def _index(self, value, count: int, name: str) -> int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an integer index, got {type(value).__name__}")
        value = int(value)
        if not 0 <= value < count:
            raise ValueError(f"{name} must be in [0, {count}), got {value}")
        return value

    def _particle_indices(self, values, name: str) -> np.ndarray:
        try:
            indices = np.atleast_1d(values)
        except (TypeError, ValueError):  # ragged nesting
            raise TypeError(f"{name} must be a 1D sequence of integer indices") from None
        if indices.ndim == 1 and indices.size == 0:
            return np.zeros(0, dtype=np.int64)
        if indices.ndim != 1 or indices.dtype.kind not in "iu":
            raise TypeError(f"{name} must be a 1D sequence of integer indices")
        if np.any((indices < 0) | (indices >= self._particle_count)):
            raise ValueError(f"{name} must index existing particles [0, {self._particle_count})")
        return indices.astype(np.int64)

    # ----------------------------------------------------------------- particles
    @staticmethod
    def _particle_mass(mass, count: int) -> float:
        """Each of ``count`` particles' share of ``mass`` (kg); its inverse must be finite."""
        mass = _check.positive_scalar(mass, "mass")
        share = mass / count
        if not math.isfinite(1.0 / share):
            raise ValueError(f"mass must leave each of its {count} particle(s) a mass whose "
                             f"inverse 1/m is finite, got {mass} kg")
        return share

    @staticmethod
    def _within_reach(points: np.ndarray, names: str) -> np.ndarray:
        """``points`` if every coordinate is finite and within ±``COORDINATE_LIMIT`` m."""
        with np.errstate(invalid="ignore"):
            reach = np.max(np.abs(points)) if points.size else 0.0
        if not reach <= COORDINATE_LIMIT:
            raise ValueError(f"{names} must place every particle within ±{COORDINATE_LIMIT:g} m "
                             f"(so that squared distances stay finite), got {reach:g} m")
        return points

    def _append_particles(self, points: np.ndarray, mass: float, pinned: bool) -> np.ndarray:
        n = len(points)
        first = self._particle_count
        needed = first + n
        self._position = grown(self._position, needed)
        self._previous = grown(self._previous, needed)
        self._force = grown(self._force, needed)
        self._mass = grown(self._mass, needed, 1.0)
        self._inverse_mass = grown(self._inverse_mass, needed)
        self._pinned = grown(self._pinned, needed, False)
        rows = slice(first, needed)
        self._position[rows] = points
        self._previous[rows] = points  # at rest: no implicit velocity
        self._force[rows] = 0.0
        self._mass[rows] = mass
        self._pinned[rows] = pinned
        self._inverse_mass[rows] = 0.0 if pinned else 1.0 / mass
        self._particle_count = needed
        return np.arange(first, needed, dtype=np.int64)

    def add_particle(self, position, mass: float = 1.0, pinned: bool = False) -> int:
        """Add a particle at rest at ``position`` (m) with ``mass`` (kg); return its index.

        A pinned particle never moves (inverse mass 0) until it is unpinned.
        """
        position = self._within_reach(_check.vector(position, "position"), "position")
        mass = self._particle_mass(mass, 1)
        pinned = _check.flag(pinned, "pinned")
        return int(self._append_particles(position[None, :], mass, pinned)[0])

    def pin(self, index: int, pinned: bool = True) -> None:
        """Pin (or free) particle ``index``. Pinning also stops it: x_prev ← x."""
        index = self._index(index, self._particle_count, "index")
        pinned = _check.flag(pinned, "pinned")
        self._pinned[index] = pinned
        if pinned:
            self._previous[index] = self._position[index]
        if index != self._grabbed:
            self._inverse_mass[index] = 0.0 if pinned else 1.0 / self._mass[index]

    def apply_force(self, index: int, force) -> None:
        """Add ``force`` (N) to particle ``index`` for the next step only."""
        index = self._index(index, self._particle_count, "index")
        force = _check.vector(force, "force")
        with np.errstate(over="ignore"):
            total = self._force[index] + force
        if not np.isfinite(total).all():
            raise FloatingPointError(f"force: the total force on particle {index} overflows "
                                     f"({self._force[index]} N + {force} N)")
        self._force[index] = total

    def set_velocity(self, indices, velocity, dt: float) -> None:
        """Give particles ``velocity`` (m/s) for steps of ``dt`` s: x_prev ← x − v h.

        h = dt / substeps is the (sub)step over which the implicit velocity x − x_prev acts.
        """
        indices = self._particle_indices(indices, "indices")
        velocity = _check.points(velocity, "velocity")
        if velocity.ndim == 2 and len(velocity) != len(indices):
            raise ValueError(f"velocity must be one (2,) vector or one row per index "
                             f"({len(indices)}), got shape {velocity.shape}")
        h = substep_length(_check.positive_scalar(dt, "dt"), self.substeps)
        with np.errstate(over="ignore", invalid="ignore"):
            previous = self._position[indices] - velocity * h
        if not np.isfinite(previous).all():
            raise FloatingPointError("velocity × dt overflows: the particles' previous "
                                     "positions x − v h would not be finite")
        self._previous[indices] = previous

    def velocities(self, dt: float) -> np.ndarray:
        """Implicit particle velocities (x − x_prev) / h (m/s), h = dt / substeps; shape (n, 2)."""
        h = substep_length(_check.positive_scalar(dt, "dt"), self.substeps)
        with np.errstate(over="ignore", invalid="ignore"):
            velocities = (self.positions - self.previous_positions) / h
        return arguments.finite_result(velocities, f"velocity over dt = {dt} s")

    def momentum(self, dt: float) -> np.ndarray:
        """Total linear momentum Σ m v (kg·m/s) of the particles for steps of ``dt`` s."""
        velocities = self.velocities(dt)
        with np.errstate(over="ignore", invalid="ignore"):
            momentum = self.masses @ velocities
        return arguments.finite_result(momentum, "momentum")

    # ----------------------------------------------------------------- edges
    @staticmethod
    def _rest_lengths(offsets: np.ndarray, names: str) -> np.ndarray:
        """Rest lengths (m) of edges spanning ``offsets`` (k, 2), made from ``names``.

        Factories check their edges with it before they add any particle, so that a refused
        shape leaves nothing behind.
        """
        # the kernels' own √(dx² + dy²), so that a resting edge has zero error to the last bit
        lengths = np.linalg.norm(offsets, axis=1)
        if not np.isfinite(lengths ** 2).all():
            raise ValueError(f"{names} give an edge whose squared length overflows: its "
                             "particles must lie within 1e154 m of each other")
        if np.any(lengths < MINIMUM_EDGE_LENGTH):
            raise ValueError(
                f"{names} give an edge shorter than {MINIMUM_EDGE_LENGTH} m: its particles lie "
                "on top of each other (zero-length edge)")
        return lengths

    def _append_edges(self, ends: np.ndarray, boundary: bool, tear_ratio: float,
                      names: str = "the particles") -> np.ndarray:
        ends = np.asarray(ends, dtype=np.int64).reshape(-1, 2)
        if np.any(ends[:, 0] == ends[:, 1]):
            raise ValueError("an edge must join two different particles")
        lengths = self._rest_lengths(self._position[ends[:, 1]] - self._position[ends[:, 0]],
                                     names)
        first = self._edge_count
        needed = first + len(ends)
        self._edge_ends = grown(self._edge_ends, needed)
        self._rest_length = grown(self._rest_length, needed)
        self._boundary = grown(self._boundary, needed, False)
        self._tear_ratio = grown(self._tear_ratio, needed, np.inf)
        self._multipliers = grown(self._multipliers, needed)
        rows = slice(first, needed)
        self._edge_ends[rows] = ends
        self._rest_length[rows] = lengths
        self._boundary[rows] = boundary
        self._tear_ratio[rows] = tear_ratio
        self._edge_count = needed
        if math.isfinite(tear_ratio):
            self._tearable = True
        return np.arange(first, needed, dtype=np.int64)

    @staticmethod
    def _tear_ratio_value(tear_ratio) -> float:
        if tear_ratio is None:
            return math.inf
        tear_ratio = _check.finite_scalar(tear_ratio, "tear_ratio")
        if tear_ratio <= 1.0:
            raise ValueError(f"tear_ratio must exceed 1 (a stretch factor), got {tear_ratio}")
        return tear_ratio

    def add_edge(self, i: int, j: int, boundary: bool = True, tear_ratio: float | None = None
                 ) -> int:
        """Join particles ``i`` and ``j`` at their current distance; return the edge index.

        ``boundary`` edges outline a body and take part in collision; braces (False) only
        hold shape. With ``tear_ratio`` the edge is removed after a step in which it is
        longer than ``tear_ratio`` × its rest length.
        """
        i = self._index(i, self._particle_count, "i")
        j = self._index(j, self._particle_count, "j")
        boundary = _check.flag(boundary, "boundary")
        tear_ratio = self._tear_ratio_value(tear_ratio)
        return int(self._append_edges(np.array([[i, j]]), boundary, tear_ratio,
                                      "particles i and j")[0])

    def edge_lengths(self) -> np.ndarray:
        """Current length of each edge (m), shape (m,)."""
        ends = self._edge_ends[: self._edge_count]
        return np.linalg.norm(self.positions[ends[:, 1]] - self.positions[ends[:, 0]], axis=1)

    def edge_errors(self) -> np.ndarray:
        """Relative length error |L − L₀| / L₀ of each edge, shape (m,)."""
        rest = self._rest_length[: self._edge_count]
        return np.abs(self.edge_lengths() - rest) / rest

    def max_edge_error(self) -> float:
        """The largest relative edge-length error (0 when there are no edges)."""
        return float(self.edge_errors().max()) if self._edge_count else 0.0

    def _remove_edges(self, remove: np.ndarray) -> None:
        keep = ~remove
        count = int(keep.sum())
        new_index = np.cumsum(keep) - 1
        for name in ("_edge_ends", "_rest_length", "_boundary", "_tear_ratio"):
            array = getattr(self, name)
            array[:count] = array[: self._edge_count][keep]
        # body edges never tear (add_body refuses tearable edges), so they all survive
        used = self._body_edges_used
        self._body_edges[:used] = new_index[self._body_edges[:used]]
        self._edge_count = count

    # ----------------------------------------------------------------- bodies
    def add_body(self, particles, edges, mass: float | None = None) -> VerletBody:
        """Group existing particles and edges into a convex body that collides.

        ``mass`` (kg) shares collision pushes between bodies; by default it is the sum of the
        particle masses. The body's boundary edges must close one convex outline: turning
        strictly the same way at each of its particles (no three in a line) and going round
        once. Its other particles must lie on or inside that outline.
        """
        particles = self._particle_indices(particles, "particles")
        edges = self._edge_indices(edges, "edges")
        if len(np.unique(particles)) != len(particles) or len(particles) < 3:
            raise ValueError("particles: a body needs at least 3 distinct particles")
        if len(np.unique(edges)) != len(edges):
            raise ValueError("edges must not repeat an edge")
        if not np.all(np.isin(self._edge_ends[edges], particles)):
            raise ValueError("edges: every edge of a body must join two of its particles")
        if np.any(np.isfinite(self._tear_ratio[edges])):
            raise ValueError("edges: a body's edges cannot tear (give them no tear_ratio)")
        outline = outline_order(self._edge_ends[edges[self._boundary[edges]]])
        self._check_convex_body(outline, particles)
        if mass is None:
            with np.errstate(over="ignore"):
                mass = float(self._mass[particles].sum())
            if not math.isfinite(mass):
                raise ValueError("mass: the particles' masses add up beyond float range; "
                                 "give the body a mass")
        mass = _check.positive_scalar(mass, "mass")
        # boundary edges first: the collision loop meets them first
        edges = np.concatenate([edges[self._boundary[edges]], edges[~self._boundary[edges]]])

        b = self._body_count
        for name in ("_body_particle_start", "_body_particle_count", "_body_edge_start",
                     "_body_edge_count"):
            setattr(self, name, grown(getattr(self, name), b + 1))
        self._body_mass = grown(self._body_mass, b + 1, 1.0)
        self._centers = grown(self._centers, b + 1)
        self._boxes = grown(self._boxes, b + 1)
        p_used, e_used = self._body_particles_used, self._body_edges_used
        self._body_particles = grown(self._body_particles, p_used + len(particles))
        self._body_edges = grown(self._body_edges, e_used + len(edges))
        self._body_particles[p_used : p_used + len(particles)] = particles
        self._body_edges[e_used : e_used + len(edges)] = edges
        self._body_particle_start[b] = p_used
        self._body_particle_count[b] = len(particles)
        self._body_edge_start[b] = e_used
        self._body_edge_count[b] = len(edges)
        self._body_mass[b] = mass
        self._body_particles_used += len(particles)
        self._body_edges_used += len(edges)
        self._body_count = b + 1
        return VerletBody(self, b)

    def _edge_indices(self, values, name: str) -> np.ndarray:
        try:
            edges = np.asarray(values)
        except (TypeError, ValueError):  # ragged nesting
            raise TypeError(f"{name} must be a 1D sequence of integer edge indices") from None
        if edges.ndim != 1 or edges.dtype.kind not in "iu":
            raise TypeError(f"{name} must be a 1D sequence of integer edge indices")
        if np.any((edges < 0) | (edges >= self._edge_count)):
            raise ValueError(f"{name} must index existing edges [0, {self._edge_count})")
        return edges.astype(np.int64)

    def _check_convex_body(self, outline: np.ndarray, particles: np.ndarray) -> None:
        """Refuse a body whose outline is not convex, or with a particle outside it.

        The separating-axis test takes its axes from the outline's edges and projects every
        particle of the body: it is exact only for a convex outline holding all of them.
        """
        points = self._position[outline]
        orientation = convex_orientation(points, outline)
        inner = np.setdiff1d(particles, outline)
        outside = points_outside(points, orientation, self._position[inner])
        if len(outside):
            raise ValueError(f"particles: particle {inner[outside[0]]} lies outside the body's "
                             "outline; every particle of a body must be on or inside it")

    # ----------------------------------------------------------------- stepping
    def step(self, dt: float) -> None:
        """Advance the world by ``dt`` seconds.

        Forces → position Verlet → ``iterations`` × (walls, edges, collisions), once per
        substep; then edges stretched past their tear ratio are removed and forces cleared.

        A step that overflows (huge gravity, forces, dt or compliance) raises
        ``FloatingPointError`` naming the particle and the quantity, and leaves the world as
        it was before the step, applied forces included.
        """
        dt = _check.positive_scalar(dt, "dt")
        h = substep_length(dt, self.substeps)
        if self.solver == "xpbd":
            compliance_per_substep(self.compliance, h)
        n = self._particle_count
        written = _first_non_finite({"positions": self._position[:n],
                                     "previous_positions": self._previous[:n]})
        if written is not None:
            name, index = written
            raise ValueError(f"{name} must be finite: particle {index} holds NaN or inf, "
                             "written into the live view")
        saved = {name: array.copy() for name, array in self._step_output().items()}
        bounds = self._bounds if self._bounds is not None else np.zeros(4)
        responses = int(step_world_unchecked(
            self._position, self._previous, self._force, self._inverse_mass, n,
            float(self._gravity[0]), float(self._gravity[1]), dt, self.damping, self.substeps,
            self._iterations, self.solver == "xpbd", self.compliance, self._multipliers,
            self._bounds is not None, bounds, self._edge_ends, self._rest_length,
            self._boundary, self._edge_count, self._body_particle_start,
            self._body_particle_count, self._body_particles, self._body_edge_start,
            self._body_edge_count, self._body_edges, self._body_mass, self._body_count,
            self._centers, self._boxes))
        self._refuse_non_finite_step(saved, dt)
        self.last_responses = responses
        self._force[:n] = 0.0
        if self._tearable and self._edge_count:
            torn = np.zeros(self._edge_count, dtype=np.bool_)
            count = stretched_edges(self._position, self._edge_ends, self._rest_length,
                                    self._tear_ratio, self._edge_count, torn)
            if count:
                self._remove_edges(torn)
                self.torn_edges += int(count)

    def _step_output(self) -> dict[str, np.ndarray]:
        """Views of the rows a step writes."""
        n, b = self._particle_count, self._body_count
        return {"positions": self._position[:n], "previous": self._previous[:n],
                "multipliers": self._multipliers[: self._edge_count],
                "centers": self._centers[:b], "boxes": self._boxes[:b]}

    def _refuse_non_finite_step(self, saved: dict[str, np.ndarray], dt: float) -> None:
        """Undo a step that overflowed to NaN or inf, and say where.

        One vectorised pass over what the step wrote; on failure every written array gets
        its saved rows back, so the world is exactly as before the step.
        """
        n = self._particle_count
        position, previous = self._position[:n], self._previous[:n]
        with np.errstate(over="ignore", invalid="ignore"):
            motion = position - previous
        failure = _first_non_finite({"position": position, "previous position": previous,
                                     "velocity (x − x_prev)": motion})
        if failure is None:
            return
        for name, array in self._step_output().items():
            array[...] = saved[name]
        quantity, index = failure
        raise FloatingPointError(
            f"the step of dt = {dt} s overflowed: particle {index}'s {quantity} became NaN or "
            "inf (look at gravity, applied forces, dt and compliance); the world is as it "
            "was before the step")

    def snapshot(self) -> VerletSnapshot:
        """A copy of what an animation frame draws."""
        bodies = tuple(body.particles for body in self.bodies)
        return VerletSnapshot(self.positions.copy(), self.edges, self.boundary, self.pinned,
                              bodies, self.bounds)

    def record(self, steps: int, dt: float, every: int = 1) -> list[VerletSnapshot]:
        """Step ``steps`` times and return the start plus a snapshot every ``every`` steps."""
        steps = _check.non_negative_int(steps, "steps")
        _check.positive_scalar(dt, "dt")
        every = _check.positive_int(every, "every")
        frames = [self.snapshot()]
        for k in range(1, steps + 1):
            self.step(dt)
            if k % every == 0:
                frames.append(self.snapshot())
        return frames

    def __repr__(self) -> str:
        return (f"VerletWorld(particles={self._particle_count}, edges={self._edge_count}, "
                f"bodies={self._body_count}, solver={self.solver!r})")


def _first_non_finite(arrays: dict[str, np.ndarray]) -> tuple[str, int] | None:
    """The name and first row of the first (n, 2) array holding NaN or inf, else None."""
    for name, array in arrays.items():
        finite = np.isfinite(array)
        if not finite.all():
            return name, int(np.flatnonzero(~finite.all(axis=1))[0])
    return None
