"""Interaction with a Verlet world: picking, dragging, and collisions run by hand.

Mixed into :class:`~physbook.verlet.world.VerletWorld`. Dragging holds a particle as if
pinned and moves it each step; on release the last move becomes its velocity, because in
position Verlet the velocity is x − x_prev.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from physbook import _check
from physbook.verlet.collide import (
    find_contact_unchecked,
    respond_vertex_edge_unchecked,
    update_bodies,
)
from physbook.verlet.handles import VerletBody, VerletContact, VerletSnapshot


class Interaction:
    """Picking, dragging and by-hand collision methods of the Verlet world."""

    def nearest_particle(self, point, max_distance: float = math.inf) -> int:
        """Index of the particle nearest to ``point`` (m), or −1 if none within ``max_distance``."""
        point = _check.vector(point, "point")
        max_distance = _search_radius(max_distance)
        if self._particle_count == 0:
            return -1
        offsets = self.positions - point
        distances = np.hypot(offsets[:, 0], offsets[:, 1])
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
        point = self._within_reach(_check.vector(point, "point"), "point")
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
        path = self._within_reach(_check.points(path, "path").reshape(-1, 2), "path")
        index = self._index(index, self._particle_count, "index")
        _check.positive_scalar(dt, "dt")
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

    def _refresh_bodies(self) -> None:
        update_bodies(self._position, self._body_particle_start, self._body_particle_count,
                      self._body_particles, self._body_count, self._centers, self._boxes)

    def find_contact(self, body_a, body_b) -> VerletContact | None:
        """Run the separating-axis test on two bodies now; None when they do not overlap."""
        a = self._body_row(body_a, "body_a")
        b = self._body_row(body_b, "body_b")
        if a == b:
            raise ValueError("body_a and body_b must be different bodies")
        self._refresh_bodies()
        depth, nx, ny, edge, vertex, edge_body, vertex_body = find_contact_unchecked(
            self._position, self._edge_ends, self._boundary, a, b, self._body_particle_start,
            self._body_particle_count, self._body_particles, self._body_edge_start,
            self._body_edge_count, self._body_edges, self._centers)
        if depth < 0.0:
            return None
        return VerletContact(float(depth), np.array([nx, ny]), int(edge), int(vertex),
                             int(edge_body), int(vertex_body))

    def _body_row(self, body, name: str) -> int:
        """The row of ``body``: a handle on a body of this world, or a body index."""
        if isinstance(body, VerletBody):
            if body.world is not self:
                raise ValueError(f"{name} is a body of another VerletWorld")
            return body.index
        return self._index(body, self._body_count, name)

    def respond(self, contact: VerletContact) -> float:
        """Apply the vertex–edge response to ``contact`` now; return the edge parameter t.

        The contact must name bodies, an edge and a vertex of this world, as
        :meth:`find_contact` does. Raises ``FloatingPointError``, with the positions
        restored, when the push overflows.
        """
        _check.instance(contact, "contact", VerletContact, "a VerletContact from find_contact")
        self._check_contact(contact)
        moved = np.array([contact.vertex, *self._edge_ends[contact.edge]])
        before = self._position[moved].copy()
        t = float(respond_vertex_edge_unchecked(
            self._position, self._inverse_mass, self._edge_ends, contact.edge, contact.vertex,
            float(contact.normal[0]), float(contact.normal[1]), contact.depth,
            self._body_mass[contact.vertex_body], self._body_mass[contact.edge_body]))
        if not np.isfinite(self._position[moved]).all():
            self._position[moved] = before
            raise FloatingPointError(f"contact.depth {contact.depth} m overflows the positions "
                                     "it moves; they are restored")
        return t

    def _check_contact(self, contact: VerletContact) -> None:
        """Refuse a contact whose bodies, edge or vertex are not those of this world."""
        for name in ("edge_body", "vertex_body"):
            body = getattr(contact, name)
            if body >= self._body_count:
                raise ValueError(f"contact.{name} must be a body of this world "
                                 f"[0, {self._body_count}), got {body}")
        edge_body = VerletBody(self, contact.edge_body)
        boundary = edge_body.edges[self._boundary[edge_body.edges]]
        if contact.edge not in boundary:
            raise ValueError(f"contact.edge {contact.edge} must be a boundary edge of "
                             f"contact.edge_body {contact.edge_body}")
        if contact.vertex not in VerletBody(self, contact.vertex_body).particles:
            raise ValueError(f"contact.vertex {contact.vertex} must be a particle of "
                             f"contact.vertex_body {contact.vertex_body}")
        if contact.vertex in self._edge_ends[contact.edge]:
            raise ValueError(f"contact.vertex {contact.vertex} must not be an end of "
                             f"contact.edge {contact.edge}")


def _search_radius(value) -> float:
    """``max_distance`` as a float: a positive real number, inf allowed (no limit)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"max_distance must be a real number, got {type(value).__name__}")
    try:
        value = float(value)
    except OverflowError:  # an int such as 10**400: beyond every float distance
        value = math.inf if value > 0 else -math.inf
    if not value > 0.0:
        raise ValueError(f"max_distance must be positive (inf for no limit), got {value}")
    return value
