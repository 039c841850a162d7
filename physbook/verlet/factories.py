"""Factories for the Verlet world: polygons, boxes, triangles, ropes and cloth.

Mixed into :class:`~physbook.verlet.world.VerletWorld`; each factory validates its input,
creates particles and edges with the world's array helpers, and returns what it made.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.constants import MAXIMUM_VERLET_POLYGON_VERTICES, MINIMUM_EDGE_LENGTH
from physbook.geometry.shapes import Polygon
from physbook.vecmath.vec import rotate
from physbook.verlet.handles import VerletBody


class ShapeFactories:
    """Shape-building methods of :class:`~physbook.verlet.world.VerletWorld`."""

    def add_polygon(self, vertices, mass: float = 1.0) -> VerletBody:
        """A convex polygon body: one particle per vertex (m), mass (kg) shared equally.

        The outline edges are boundary edges; every other pair of vertices is braced, which
        makes the shape rigid (2n − 3 edges would be the least; all pairs resist better).
        The outline is judged by the same rules as :class:`~physbook.geometry.shapes.Polygon`
        (convex, simple, distinct points, an area): clockwise input is reordered
        counter-clockwise and vertices collinear with their neighbours are dropped.
        """
        points = Polygon(vertices).vertices
        n = len(points)
        if n > MAXIMUM_VERLET_POLYGON_VERTICES:
            raise ValueError(f"a polygon needs 3 to {MAXIMUM_VERLET_POLYGON_VERTICES} vertices, "
                             f"got {n}")
        mass = _check.positive_scalar(mass, "mass")

        particles = self._append_particles(points, mass / n, False)
        outline = [(particles[k], particles[(k + 1) % n]) for k in range(n)]
        braces = [(particles[a], particles[b]) for a in range(n) for b in range(a + 2, n)
                  if not (a == 0 and b == n - 1)]
        edges = [self._append_edges(np.array(outline), True, math.inf)]
        if braces:
            edges.append(self._append_edges(np.array(braces), False, math.inf))
        return self.add_body(particles, np.concatenate(edges), mass)

    def add_box(self, center, width: float, height: float, mass: float = 1.0,
                angle: float = 0.0) -> VerletBody:
        """A box body ``width`` × ``height`` (m) centred at ``center``, turned by ``angle`` rad."""
        center = _check.vector(center, "center")
        half_w = 0.5 * _check.positive_scalar(width, "width")
        half_h = 0.5 * _check.positive_scalar(height, "height")
        corners = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h],
                            [-half_w, half_h]])
        return self.add_polygon(center + rotate(corners, angle), mass)

    def add_triangle(self, center, width: float, height: float, mass: float = 1.0,
                     angle: float = 0.0) -> VerletBody:
        """An isosceles triangle body: base ``width`` (m), apex ``height`` (m) above the base,
        centroid at ``center``, turned by ``angle`` rad."""
        center = _check.vector(center, "center")
        w = _check.positive_scalar(width, "width")
        h = _check.positive_scalar(height, "height")
        corners = np.array([[-0.5 * w, -h / 3.0], [0.5 * w, -h / 3.0], [0.0, 2.0 * h / 3.0]])
        return self.add_polygon(center + rotate(corners, angle), mass)

    def add_regular_polygon(self, center, radius: float, sides: int, mass: float = 1.0,
                            angle: float = 0.0) -> VerletBody:
        """A regular polygon body with ``sides`` vertices on a circle of ``radius`` (m)."""
        center = _check.vector(center, "center")
        radius = _check.positive_scalar(radius, "radius")
        sides = _check.integer(sides, "sides", 3)
        theta = _check.finite_scalar(angle, "angle") + 2.0 * np.pi * np.arange(sides) / sides
        corners = radius * np.column_stack([np.cos(theta), np.sin(theta)])
        return self.add_polygon(center + corners, mass)

    def add_rope(self, start, end, segments: int, mass: float = 1.0, pin_start: bool = True,
                 pin_end: bool = False, tear_ratio: float | None = None) -> np.ndarray:
        """A rope of ``segments`` edges from ``start`` to ``end`` (m), ``mass`` kg in all.

        Returns the indices of its ``segments + 1`` particles, from start to end.
        """
        start = _check.vector(start, "start")
        end = _check.vector(end, "end")
        segments = _check.positive_int(segments, "segments")
        mass = _check.positive_scalar(mass, "mass")
        pin_start = _check.flag(pin_start, "pin_start")
        pin_end = _check.flag(pin_end, "pin_end")
        tear_ratio = self._tear_ratio_value(tear_ratio)
        if np.linalg.norm(end - start) / segments < MINIMUM_EDGE_LENGTH:
            raise ValueError("start and end must be apart: the rope's edges would have no length")
        fractions = np.linspace(0.0, 1.0, segments + 1)[:, None]
        particles = self._append_particles(start + fractions * (end - start),
                                           mass / (segments + 1), False)
        self._append_edges(np.column_stack([particles[:-1], particles[1:]]), True, tear_ratio)
        if pin_start:
            self.pin(int(particles[0]))
        if pin_end:
            self.pin(int(particles[-1]))
        return particles

    def add_cloth(self, top_left, width: float, height: float, columns: int, rows: int,
                  mass: float = 1.0, pin: str = "corners",
                  tear_ratio: float | None = None) -> np.ndarray:
        """A cloth: a ``rows`` × ``columns`` grid of particles joined to their right and lower
        neighbours, hanging from ``top_left`` (m), ``width`` × ``height`` m, ``mass`` kg in all.

        ``pin`` is ``"corners"`` (the two top corners), ``"top"`` (the whole top row) or
        ``"none"``. Returns the particle indices as a (rows, columns) array, row 0 on top.
        """
        top_left = _check.vector(top_left, "top_left")
        width = _check.positive_scalar(width, "width")
        height = _check.positive_scalar(height, "height")
        columns = _check.integer(columns, "columns", 2)
        rows = _check.integer(rows, "rows", 2)
        mass = _check.positive_scalar(mass, "mass")
        pin = _check.choice(pin, "pin", ("corners", "top", "none"))
        tear_ratio = self._tear_ratio_value(tear_ratio)
        xs = top_left[0] + np.linspace(0.0, width, columns)
        ys = top_left[1] - np.linspace(0.0, height, rows)
        grid_x, grid_y = np.meshgrid(xs, ys)
        points = np.column_stack([grid_x.ravel(), grid_y.ravel()])
        particles = self._append_particles(points, mass / len(points), False)
        grid = particles.reshape(rows, columns)
        right = np.column_stack([grid[:, :-1].ravel(), grid[:, 1:].ravel()])
        down = np.column_stack([grid[:-1, :].ravel(), grid[1:, :].ravel()])
        self._append_edges(np.concatenate([right, down]), True, tear_ratio)
        if pin == "corners":
            self.pin(int(grid[0, 0]))
            self.pin(int(grid[0, -1]))
        elif pin == "top":
            for index in grid[0]:
                self.pin(int(index))
        return grid
