"""The small records of the Verlet world: body handles, contacts and snapshots.

The state itself lives in :class:`~physbook.verlet.world.VerletWorld`'s arrays; these types
only point into it (a body handle) or copy a part of it (a contact, a snapshot).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from physbook.geometry.shapes import AABB


@dataclass(frozen=True)
class VerletContact:
    """A vertex–edge collision found by the separating-axis test.

    ``depth`` (m) is how far ``vertex`` (a particle of ``vertex_body``) lies behind the line of
    ``edge`` (an edge of ``edge_body``); ``normal`` is the edge's outward unit normal, from
    ``edge_body`` towards ``vertex_body``.
    """

    depth: float
    normal: np.ndarray
    edge: int
    vertex: int
    edge_body: int
    vertex_body: int


@dataclass(frozen=True)
class VerletSnapshot:
    """A copy of a world's drawable state: what an animation frame needs."""

    positions: np.ndarray
    edges: np.ndarray
    boundary: np.ndarray
    pinned: np.ndarray
    bodies: tuple
    bounds: tuple | None


class VerletBody:
    """A handle on body ``index`` of a :class:`~physbook.verlet.world.VerletWorld` (the
    state lives in the world, which the handle keeps as ``world``)."""

    __slots__ = ("world", "index")

    def __init__(self, world, index: int):
        self.world = world
        self.index = index

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
        masses = self.world._mass[indices]
        velocities = self.world.velocities(dt)[indices]
        return masses @ velocities / masses.sum()

    def angular_velocity(self, dt: float) -> float:
        """Best-fit rigid spin (rad/s, CCW positive) of the particles' implicit velocities.

        ω = Σ mᵢ rᵢ × vᵢ / Σ mᵢ |rᵢ|², with r and v relative to the mass centre: the angular
        momentum divided by the moment of inertia of the particles.
        """
        indices = self.particles
        masses = self.world._mass[indices]
        points = self.world.positions[indices]
        velocities = self.world.velocities(dt)[indices]
        r = points - masses @ points / masses.sum()
        v = velocities - masses @ velocities / masses.sum()
        momentum = np.sum(masses * (r[:, 0] * v[:, 1] - r[:, 1] * v[:, 0]))
        inertia = np.sum(masses * np.sum(r * r, axis=1))
        return float(momentum / inertia)

    def __repr__(self) -> str:
        return f"VerletBody(index={self.index}, particles={len(self.particles)})"
