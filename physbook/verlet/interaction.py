"""Interaction with a Verlet world: picking, dragging, and collisions run by hand.

Mixed into :class:`~physbook.verlet.world.VerletWorld`. Dragging holds a particle as if
pinned and moves it each step; on release the last move becomes its velocity, because in
position Verlet the velocity is x − x_prev.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.verlet.collide import find_contact, respond_vertex_edge, update_bodies
from physbook.verlet.handles import VerletBody, VerletContact, VerletSnapshot


class Interaction:
    """Picking, dragging and by-hand collision methods of the Verlet world."""

    def nearest_particle(self, point, max_distance: float = math.inf) -> int:
        """Index of the particle nearest to ``point`` (m), or −1 if none within ``max_distance``."""
        point = _check.vector(point, "point")
        if isinstance(max_distance, bool) or not isinstance(max_distance, (int, float)) \
                or not max_distance > 0.0:
            raise ValueError(f"max_distance must be a positive number, got {max_distance!r}")
        if self._particle_count == 0:
            return -1
        distances = np.linalg.norm(self.positions - point, axis=1)
        nearest = int(np.argmin(distances))
        return nearest if distances[nearest] <= max_distance else -1

    def grab(self, index: int) -> None:
        """Hold particle ``index``: it stops being simulated and follows :meth:`drag_to`."""
        index = self._index(index, self._particle_count, "index")
        if self._grabbed >= 0:
            self.release()
        self._grabbed = index
        self._inverse_mass[index] = 0.0
        self._previous[index] = self._position[index]

    def drag_to(self, point) -> None:
        """Move the grabbed particle to ``point`` (m); the move becomes its velocity."""
        if self._grabbed < 0:
            raise ValueError("no particle is grabbed: call grab(index) first")
        point = _check.vector(point, "point")
        self._previous[self._grabbed] = self._position[self._grabbed]
        self._position[self._grabbed] = point

    def release(self) -> None:
        """Let the grabbed particle go, with the velocity of its last drag."""
        index = self._grabbed
        if index < 0:
            return
        if not self._pinned[index]:
            self._inverse_mass[index] = 1.0 / self._mass[index]
            # the last drag moved it over a whole step; as a velocity it spans one substep
            motion = self._position[index] - self._previous[index]
            self._previous[index] = self._position[index] - motion / self.substeps
        self._grabbed = -1

    def drag_along(self, index: int, path, dt: float, every: int = 1) -> list[VerletSnapshot]:
        """Grab particle ``index``, move it through the points of ``path`` (m), one step of
        ``dt`` s per point, and release it. Returns a snapshot every ``every`` steps."""
        path = _check.points(path, "path").reshape(-1, 2)
        every = _check.positive_int(every, "every")
        self.grab(index)
        frames = []
        try:
            for k, point in enumerate(path):
                self.drag_to(point)
                self.step(dt)
                if k % every == 0:
                    frames.append(self.snapshot())
        finally:
            self.release()
        return frames

    def _update_bodies(self) -> None:
        update_bodies(self._position, self._body_particle_start, self._body_particle_count,
                      self._body_particles, self._body_count, self._centers, self._boxes)

    def find_contact(self, body_a, body_b) -> VerletContact | None:
        """Run the separating-axis test on two bodies now; None when they do not overlap."""
        a = body_a.index if isinstance(body_a, VerletBody) else body_a
        b = body_b.index if isinstance(body_b, VerletBody) else body_b
        a = self._index(a, self._body_count, "body_a")
        b = self._index(b, self._body_count, "body_b")
        if a == b:
            raise ValueError("body_a and body_b must be different bodies")
        self._update_bodies()
        depth, nx, ny, edge, vertex, edge_body, vertex_body = find_contact(
            self._position, self._edge_ends, self._boundary, a, b, self._body_particle_start,
            self._body_particle_count, self._body_particles, self._body_edge_start,
            self._body_edge_count, self._body_edges, self._centers)
        if depth < 0.0:
            return None
        return VerletContact(float(depth), np.array([nx, ny]), int(edge), int(vertex),
                             int(edge_body), int(vertex_body))

    def respond(self, contact: VerletContact) -> float:
        """Apply the vertex–edge response to ``contact`` now; return the edge parameter t."""
        if not isinstance(contact, VerletContact):
            raise TypeError("contact must be a VerletContact from find_contact")
        return float(respond_vertex_edge(
            self._position, self._inverse_mass, self._edge_ends, contact.edge, contact.vertex,
            float(contact.normal[0]), float(contact.normal[1]), contact.depth,
            self._body_mass[contact.vertex_body], self._body_mass[contact.edge_body]))
