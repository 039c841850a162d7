"""The small records of the Verlet world: body handles, contacts and snapshots.

The state itself lives in :class:`~physbook.verlet.world.VerletWorld`'s arrays; these types
only point into it (a body handle) or copy a part of it (a contact, a snapshot).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from physbook import _check
from physbook.geometry.shapes import AABB
from physbook.verlet import _arguments as arguments


@dataclass(frozen=True)
class VerletContact:
    """A vertex–edge collision found by the separating-axis test.

    ``depth`` (m, ≥ 0) is how far ``vertex`` (a particle of ``vertex_body``) lies behind the
    line of ``edge`` (an edge of ``edge_body``); ``normal`` is the edge's outward unit normal,
    from ``edge_body`` towards ``vertex_body``. The fields are checked on their own here;
    :meth:`~physbook.verlet.world.VerletWorld.respond` checks them against its world.
    """

    depth: float
    normal: np.ndarray
    edge: int
    vertex: int
    edge_body: int
    vertex_body: int

    def __post_init__(self) -> None:
        normal = _check.vector(self.normal, "normal")
        arguments.unit_length(normal[0], normal[1], "normal")
        normal.setflags(write=False)
        checked = {"depth": _check.non_negative_scalar(self.depth, "depth"), "normal": normal}
        for name in ("edge", "vertex", "edge_body", "vertex_body"):
            checked[name] = _check.non_negative_int(getattr(self, name), name)
        if checked["edge_body"] == checked["vertex_body"]:
            raise ValueError("edge_body and vertex_body must be different bodies")
        for name, value in checked.items():
            object.__setattr__(self, name, value)  # frozen: store the checked values once


@dataclass(frozen=True)
class VerletSnapshot:
    """A copy of a world's drawable state: what an animation frame needs.

    ``positions`` (n, 2) in m; ``edges`` (m, 2) particle indices with ``boundary`` (m,)
    flags; ``pinned`` (n,) flags; ``bodies`` a tuple of particle-index arrays, one per body;
    ``bounds`` the walls (x_min, y_min, x_max, y_max) in m, or None.
    """

    positions: np.ndarray
    edges: np.ndarray
    boundary: np.ndarray
    pinned: np.ndarray
    bodies: tuple
    bounds: tuple | None

    def __post_init__(self) -> None:
        positions = arguments.values(self.positions, "positions", 2)
        count = len(positions)
        edges = arguments.indices(self.edges, "edges", count, 2, "positions")
        boundary = arguments.flags(self.boundary, "boundary")
        pinned = arguments.flags(self.pinned, "pinned")
        if len(boundary) != len(edges):
            raise ValueError(f"boundary must have one flag per row of edges ({len(edges)}), "
                             f"got {len(boundary)}")
        if len(pinned) != count:
            raise ValueError(f"pinned must have one flag per row of positions ({count}), "
                             f"got {len(pinned)}")
        if not isinstance(self.bodies, (tuple, list)):
            raise TypeError(f"bodies must be a tuple of particle-index arrays, got "
                            f"{type(self.bodies).__name__}")
        bodies = tuple(arguments.indices(body, "bodies", count, rows_of="positions")
                       for body in self.bodies)
        bounds = None if self.bounds is None else tuple(
            float(b) for b in arguments.bounds_box(self.bounds, "bounds"))
        checked = {"positions": positions, "edges": edges, "boundary": boundary,
                   "pinned": pinned, "bodies": bodies, "bounds": bounds}
        for name, value in checked.items():
            object.__setattr__(self, name, value)  # frozen: store the checked values once


class VerletBody:
    """A handle on body ``index`` of a :class:`~physbook.verlet.world.VerletWorld` (the
    state lives in the world, which the handle keeps as ``world``)."""

    __slots__ = ("_world", "_index")

    def __init__(self, world, index: int):
        # judged by the body arrays a handle reads: the world module imports this one
        if not hasattr(world, "_body_particle_start"):
            raise TypeError(f"world must be a VerletWorld, got {type(world).__name__}")
        self._index = world._index(index, world.body_count, "index")
        self._world = world

    @property
    def world(self):
        """The :class:`~physbook.verlet.world.VerletWorld` that holds the body."""
        return self._world

    @property
    def index(self) -> int:
        """The body's row in its world's body arrays."""
        return self._index

    @property
    def particles(self) -> np.ndarray:
        """Indices of the body's particles, in outline order for the factory shapes."""
        w = self.world
        start = w._body_particle_start[self.index]
        return w._body_particles[start : start + w._body_particle_count[self.index]].copy()

    @property
    def edges(self) -> np.ndarray:
        """Indices of the body's edges, boundary edges first."""
        w = self.world
        start = w._body_edge_start[self.index]
        return w._body_edges[start : start + w._body_edge_count[self.index]].copy()

    @property
    def mass(self) -> float:
        """Mass (kg) used to share a collision's push between two bodies."""
        return float(self.world._body_mass[self.index])

    @property
    def center(self) -> np.ndarray:
        """Mean of the particle positions (m), recomputed now."""
        return self.world.positions[self.particles].mean(axis=0)

    @property
    def aabb(self) -> AABB:
        """Axis-aligned bounding box of the particles (m), recomputed now."""
        points = self.world.positions[self.particles]
        return AABB(points.min(axis=0), points.max(axis=0))

    def velocity(self, dt: float) -> np.ndarray:
        """Mass-weighted mean of the particles' implicit velocities (m/s) for step ``dt``."""
        indices = self.particles
        weights = self._weights(indices)
        velocities = self.world.velocities(dt)[indices]
        return arguments.finite_result(weights @ velocities / weights.sum(), "body velocity")

    def angular_velocity(self, dt: float) -> float:
        """Best-fit rigid spin (rad/s, CCW positive) of the particles' implicit velocities.

        ω = Σ mᵢ rᵢ × vᵢ / Σ mᵢ |rᵢ|², with r and v relative to the mass centre: the angular
        momentum divided by the moment of inertia of the particles.
        """
        indices = self.particles
        weights = self._weights(indices)
        points = self.world.positions[indices]
        velocities = self.world.velocities(dt)[indices]
        with np.errstate(over="ignore", invalid="ignore"):  # judged by finite_result below
            r = points - weights @ points / weights.sum()
            v = velocities - weights @ velocities / weights.sum()
            momentum = np.sum(weights * (r[:, 0] * v[:, 1] - r[:, 1] * v[:, 0]))
            inertia = np.sum(weights * np.sum(r * r, axis=1))
            return float(arguments.finite_result(momentum / inertia, "angular velocity"))

    def _weights(self, indices: np.ndarray) -> np.ndarray:
        # masses over the largest: the same weighted means, and their sums cannot overflow
        masses = self.world._mass[indices]
        return masses / masses.max()

    def __repr__(self) -> str:
        return f"VerletBody(index={self.index}, particles={len(self.particles)})"
