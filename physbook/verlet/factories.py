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

#: Particles are placed within ±COORDINATE_LIMIT m of the origin: two of them are then at
#: most 2e150 m apart, so the squared distances the kernels compute (up to 8e300 m²) stay
#: finite. Any game or simulation scene is smaller by far.
COORDINATE_LIMIT = 1e150

#: Most particles one rope or cloth may create: a 1024 × 1024 cloth (2**20 particles) already
#: takes a few tenths of a second per step, so a larger count is a mistake, not a scene; the
#: cap also keeps a mistyped count from allocating gigabytes before anything can check it.
MAXIMUM_FACTORY_PARTICLES = 2**20


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
        points = self._within_reach(Polygon(vertices).vertices, "vertices")
        mass = _check.positive_scalar(mass, "mass")
        return self._add_outline(points, mass, "vertices")

    def _add_outline(self, points: np.ndarray, mass: float, names: str) -> VerletBody:
        """The braced body of a convex counter-clockwise outline ``points`` (m), made from the
        arguments ``names``."""
        n = len(points)
        if n > MAXIMUM_VERLET_POLYGON_VERTICES:
            raise ValueError(f"a polygon needs 3 to {MAXIMUM_VERLET_POLYGON_VERTICES} vertices, "
                             f"got {n}")
        share = self._particle_mass(mass, n)
        outline = np.array([(k, (k + 1) % n) for k in range(n)])
        braces = np.array([(a, b) for a in range(n) for b in range(a + 2, n)
                           if not (a == 0 and b == n - 1)], dtype=np.int64).reshape(-1, 2)
        pairs = np.concatenate([outline, braces])
        self._rest_lengths(points[pairs[:, 1]] - points[pairs[:, 0]], names)
        first = self._append_particles(points, share, False)[0]
        edges = [self._append_edges(first + outline, True, math.inf, names)]
        if len(braces):
            edges.append(self._append_edges(first + braces, False, math.inf, names))
        return self.add_body(first + np.arange(n), np.concatenate(edges), mass)

    def _shape_outline(self, center: np.ndarray, corners: np.ndarray, angle: float,
                       names: str) -> np.ndarray:
        """The outline of ``corners`` (m, about the origin) turned by ``angle`` and moved to
        ``center``: a factory's shape, made from its arguments ``names``.

        Judged as :meth:`add_polygon` judges vertices, but an error names the arguments.
        """
        with np.errstate(over="ignore", invalid="ignore"):  # judged by _within_reach
            self._within_reach(corners, names)
            points = self._within_reach(center + rotate(corners, angle), names)
        try:
            return Polygon(points).vertices
        except ValueError as error:
            raise ValueError(f"{names} give no valid outline: {error}") from None

    def add_box(self, center, width: float, height: float, mass: float = 1.0,
                angle: float = 0.0) -> VerletBody:
        """A box body ``width`` × ``height`` (m) centred at ``center``, turned by ``angle`` rad."""
        center = _check.vector(center, "center")
        half_w = 0.5 * _check.positive_scalar(width, "width")
        half_h = 0.5 * _check.positive_scalar(height, "height")
        mass = _check.positive_scalar(mass, "mass")
        angle = _check.finite_scalar(angle, "angle")
        corners = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h],
                            [-half_w, half_h]])
        return self._add_outline(
            self._shape_outline(center, corners, angle, "center, width, height and angle"),
            mass, "center, width, height and angle")

    def add_triangle(self, center, width: float, height: float, mass: float = 1.0,
                     angle: float = 0.0) -> VerletBody:
        """An isosceles triangle body: base ``width`` (m), apex ``height`` (m) above the base,
        centroid at ``center``, turned by ``angle`` rad."""
        center = _check.vector(center, "center")
        w = _check.positive_scalar(width, "width")
        h = _check.positive_scalar(height, "height")
        mass = _check.positive_scalar(mass, "mass")
        angle = _check.finite_scalar(angle, "angle")
        corners = np.array([[-0.5 * w, -h / 3.0], [0.5 * w, -h / 3.0], [0.0, 2.0 * h / 3.0]])
        return self._add_outline(
            self._shape_outline(center, corners, angle, "center, width, height and angle"),
            mass, "center, width, height and angle")

    def add_regular_polygon(self, center, radius: float, sides: int, mass: float = 1.0,
                            angle: float = 0.0) -> VerletBody:
        """A regular polygon body with ``sides`` vertices on a circle of ``radius`` (m)."""
        center = _check.vector(center, "center")
        radius = _check.positive_scalar(radius, "radius")
        sides = _check.integer(sides, "sides", 3)
        if sides > MAXIMUM_VERLET_POLYGON_VERTICES:
            raise ValueError(f"sides must be at most {MAXIMUM_VERLET_POLYGON_VERTICES}: a "
                             f"polygon needs 3 to {MAXIMUM_VERLET_POLYGON_VERTICES} vertices, "
                             f"got {sides}")
        mass = _check.positive_scalar(mass, "mass")
        theta = _check.finite_scalar(angle, "angle") + 2.0 * np.pi * np.arange(sides) / sides
        corners = radius * np.column_stack([np.cos(theta), np.sin(theta)])  # already turned
        return self._add_outline(
            self._shape_outline(center, corners, 0.0, "center, radius and angle"), mass,
            "center, radius and angle")

    def add_rope(self, start, end, segments: int, mass: float = 1.0, pin_start: bool = True,
                 pin_end: bool = False, tear_ratio: float | None = None) -> np.ndarray:
        """A rope of ``segments`` edges from ``start`` to ``end`` (m), ``mass`` kg in all.

        Returns the indices of its ``segments + 1`` particles, from start to end.
        """
        start = self._within_reach(_check.vector(start, "start"), "start")
        end = self._within_reach(_check.vector(end, "end"), "end")
        segments = _check.positive_int(segments, "segments", MAXIMUM_FACTORY_PARTICLES - 1)
        share = self._particle_mass(mass, segments + 1)
        pin_start = _check.flag(pin_start, "pin_start")
        pin_end = _check.flag(pin_end, "pin_end")
        tear_ratio = self._tear_ratio_value(tear_ratio)
        if math.hypot(*(end - start)) / segments < MINIMUM_EDGE_LENGTH:
            raise ValueError(f"start and end must be at least segments × "
                             f"{MINIMUM_EDGE_LENGTH} m apart: the rope's edges would have no "
                             "length")
        fractions = np.linspace(0.0, 1.0, segments + 1)[:, None]
        points = start + fractions * (end - start)
        names = "start, end and segments"
        self._rest_lengths(np.diff(points, axis=0), names)
        particles = self._append_particles(points, share, False)
        self._append_edges(np.column_stack([particles[:-1], particles[1:]]), True, tear_ratio,
                           names)
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
        columns = _check.integer(columns, "columns", 2, MAXIMUM_FACTORY_PARTICLES // 2)
        rows = _check.integer(rows, "rows", 2, MAXIMUM_FACTORY_PARTICLES // 2)
        if columns * rows > MAXIMUM_FACTORY_PARTICLES:
            raise ValueError(f"columns × rows must be at most {MAXIMUM_FACTORY_PARTICLES} "
                             f"particles, got {columns} × {rows}")
        if min(width / (columns - 1), height / (rows - 1)) < MINIMUM_EDGE_LENGTH:
            raise ValueError(f"width / (columns − 1) and height / (rows − 1) must be at least "
                             f"{MINIMUM_EDGE_LENGTH} m: the cloth's edges would have no length")
        share = self._particle_mass(mass, columns * rows)
        pin = _check.choice(pin, "pin", ("corners", "top", "none"))
        tear_ratio = self._tear_ratio_value(tear_ratio)
        with np.errstate(over="ignore"):  # judged by _within_reach
            far_corner = top_left + np.array([width, -height])
        self._within_reach(np.array([top_left, far_corner]), "top_left, width and height")
        xs = top_left[0] + np.linspace(0.0, width, columns)
        ys = top_left[1] - np.linspace(0.0, height, rows)
        grid_x, grid_y = np.meshgrid(xs, ys)
        points = np.column_stack([grid_x.ravel(), grid_y.ravel()])
        local = np.arange(len(points)).reshape(rows, columns)
        right = np.column_stack([local[:, :-1].ravel(), local[:, 1:].ravel()])
        down = np.column_stack([local[:-1, :].ravel(), local[1:, :].ravel()])
        ends = np.concatenate([right, down])
        names = "top_left, width, height, columns and rows"
        self._rest_lengths(points[ends[:, 1]] - points[ends[:, 0]], names)
        first = self._append_particles(points, share, False)[0]
        grid = first + local
        self._append_edges(first + ends, True, tear_ratio, names)
        if pin == "corners":
            self.pin(int(grid[0, 0]))
            self.pin(int(grid[0, -1]))
        elif pin == "top":
            for index in grid[0]:
                self.pin(int(index))
        return grid
