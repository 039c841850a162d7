"""Chapter 12: asking the world where its shapes are, through the broad phase's tree.

A world answers them through its :class:`QueryIndex`, which keeps the tree the queries walk
up to date. Three questions a game asks: which shapes overlap this box (a selection rectangle, an
explosion's reach), which contain this point (what is under the mouse), and what does this
ray hit first (a line of sight, a bullet). Each is answered in two phases, as collisions
are: the tree gives the shapes whose fat boxes the box, point or ray touches, then an exact
test (:mod:`physbook.collision.shape_queries`) keeps the ones whose geometry does.

A query takes an optional :class:`~physbook.geometry.shape_filter.Filter`: a shape is
reported only if its category is in the filter's mask and the filter's category in its
mask. Sensors are never reported: they are zones, not surfaces.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._buffers import grown
from physbook.broadphase.pairs import ShapeBoxes
from physbook.broadphase.tree import DynamicTree
from physbook.collision.shape_queries import (
    ray_cast_rows,
    shapes_containing,
    shapes_overlapping_box,
)
from physbook.constants import ZERO_LENGTH
from physbook.dynamics.motion import update_origins
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shape_table import ShapeTable, shape_aabbs
from physbook.kinds import STATIC


class ShapeRef(NamedTuple):
    """One shape of the world: its ``body`` (a handle), the ``shape`` object, and its stable
    ``shape_id``."""

    body: object
    shape: object
    shape_id: int


class RayHit(NamedTuple):
    """Where a ray hits a shape: the shape (``body``, ``shape``, ``shape_id``), the world
    ``point`` (m), the unit outward ``normal`` there, and the ``fraction`` of the ray's
    translation at which it hits (0 to 1)."""

    body: object
    shape: object
    shape_id: int
    point: np.ndarray
    normal: np.ndarray
    fraction: float


def query_filter(value) -> Filter | None:
    """Check a query's ``filter`` argument: a Filter, or None for every shape."""
    if value is None:
        return None
    return _check.instance(value, "filter", Filter, "a Filter or None")


def allowed(shapes: ShapeTable, rows: np.ndarray, shape_filter: Filter | None) -> np.ndarray:
    """The entries of ``rows`` a query with ``shape_filter`` may report (never sensors)."""
    filters = shapes.filters
    keep = ~filters.sensor[rows]
    if shape_filter is not None:
        keep &= (filters.category[rows] & shape_filter.mask) != 0
        keep &= (filters.mask[rows] & shape_filter.category) != 0
    return rows[keep]


def box_query(tree: DynamicTree, shapes: ShapeTable, origins, angles, lower, upper,
              shape_filter: Filter | None) -> np.ndarray:
    """Rows of the shapes overlapping the box ``lower``–``upper`` (sorted)."""
    rows = allowed(shapes, tree.query(lower, upper), shape_filter)
    return shapes_overlapping_box(shapes.arrays, origins, angles, rows, lower[0], lower[1],
                                  upper[0], upper[1])


def point_query(tree: DynamicTree, shapes: ShapeTable, origins, angles, point,
                shape_filter: Filter | None) -> np.ndarray:
    """Rows of the shapes containing ``point`` (sorted)."""
    rows = allowed(shapes, tree.query(point, point), shape_filter)
    return shapes_containing(shapes.arrays, origins, angles, rows, point[0], point[1])


def ray_query(tree: DynamicTree, shapes: ShapeTable, origins, angles, origin, translation,
              shape_filter: Filter | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every shape the ray ``origin + t·translation``, t ∈ [0, 1], hits: rows, fractions and
    normals, ordered by fraction (then row)."""
    if np.hypot(*translation) <= ZERO_LENGTH * max(1.0, float(np.abs(origin).max())):
        raise ValueError("translation must not be zero: a ray needs a direction and a length")
    rows, _ = tree.segment_query(origin, translation)
    rows = allowed(shapes, rows, shape_filter)
    fractions, normals = ray_cast_rows(shapes.arrays, origins, angles, rows, origin[0],
                                       origin[1], translation[0], translation[1])
    hit = fractions >= 0.0
    rows, fractions, normals = rows[hit], fractions[hit], normals[hit]
    order = np.lexsort((rows, fractions))
    return rows[order], fractions[order], normals[order]


class QueryIndex:
    """A world's answers to where its shapes are: the tree the queries walk, brought up to
    date only when something moved since the last query, so that many queries between two
    steps cost one update.

    The tree is the broad phase's own when it is a :class:`DynamicTree`, else one kept
    here. The queries see where the bodies are now, centres or angles written since the
    step included, but they work those origins out apart from the world's own: a query
    changes nothing a step reads, so a program that queries steps exactly as one that does
    not (the world's origins follow written centres at the next step).

    Parameters
    ----------
    bodies, shapes
        The world's body table and shape table.
    broad_phase
        The world's broad phase stage.
    log
        The world's :class:`~physbook.event_log.EventLog`, which counts the steps (a step
        moves everything).
    """

    def __init__(self, bodies, shapes: ShapeTable, broad_phase, log) -> None:
        self._bodies = bodies
        self._shapes = shapes
        self._log = log
        self.own_tree = None if isinstance(broad_phase, DynamicTree) else DynamicTree()
        self._broad_tree = broad_phase if self.own_tree is None else None
        self._seen = None  # (step count, centres, angles) at the last refresh
        self._origins = np.zeros((0, 2))  # the origins the queries saw
        self._static_seen = None  # (tree of static shapes, their (ids, centres, angles))

    def forget(self) -> None:
        """Something changed that the comparison of centres and angles cannot see (a body
        added or removed, a step undone): the next query brings the tree up to date."""
        self._seen = None

    def box(self, lower, upper, shape_filter: Filter | None = None) -> list[ShapeRef]:
        """The shapes overlapping the box from ``lower`` to ``upper`` (m; touching counts),
        ordered by shape id. ``shape_filter``: report only shapes it would collide with."""
        lower = _check.vector(lower, "lower")
        upper = _check.vector(upper, "upper")
        if np.any(lower > upper):
            raise ValueError(f"lower must not exceed upper, got {lower} and {upper}")
        shape_filter = query_filter(shape_filter)
        tree, origins = self.refreshed()
        rows = box_query(tree, self._shapes, origins, self._bodies.arrays.angles, lower,
                         upper, shape_filter)
        return [self._shape_ref(row) for row in rows.tolist()]

    def point(self, point, shape_filter: Filter | None = None) -> list[ShapeRef]:
        """The shapes containing ``point`` (m; their boundary counts), by shape id. Segments
        and chain segments have no area and contain no point."""
        point = _check.vector(point, "point")
        shape_filter = query_filter(shape_filter)
        tree, origins = self.refreshed()
        rows = point_query(tree, self._shapes, origins, self._bodies.arrays.angles, point,
                           shape_filter)
        return [self._shape_ref(row) for row in rows.tolist()]

    def ray(self, origin, translation, shape_filter: Filter | None = None) -> list[RayHit]:
        """Every shape the ray from ``origin`` along ``translation`` (m) hits, nearest
        first; a shape the ray starts inside is not hit, nor is a sensor, nor a chain
        segment from behind (chains are one-sided)."""
        origin = _check.vector(origin, "origin")
        translation = _check.vector(translation, "translation")
        shape_filter = query_filter(shape_filter)
        tree, origins = self.refreshed()
        rows, fractions, normals = ray_query(tree, self._shapes, origins,
                                             self._bodies.arrays.angles, origin, translation,
                                             shape_filter)
        return [RayHit(*self._shape_ref(row), origin + fraction * translation, normal,
                       float(fraction))
                for row, fraction, normal in zip(rows.tolist(), fractions, normals, strict=True)]

    def refreshed(self) -> tuple[DynamicTree, np.ndarray]:
        """The tree the queries walk, its leaves brought up to date with the shapes now
        (its rows are the shape rows), and the (N, 2) origins its boxes were placed at."""
        tree = self._broad_tree if self.own_tree is None else self.own_tree
        bodies = self._bodies.arrays
        count = len(bodies.kinds)
        seen, step_count = self._seen, self._log.record.step_count
        if (seen is not None and seen[0] == step_count
                and np.array_equal(seen[1], bodies.centers)
                and np.array_equal(seen[2], bodies.angles)):
            return tree, self._origins[:count]
        self._origins = grown(self._origins, count)
        origins = self._origins[:count]
        update_origins(bodies._replace(origins=origins))
        shapes = self._shapes.arrays
        boxes = ShapeBoxes(np.empty((len(shapes.ids), 2)), np.empty((len(shapes.ids), 2)))
        shape_aabbs(shapes, origins, bodies.angles, np.zeros(len(shapes.ids)), boxes.lower,
                    boxes.upper)
        tree.update(boxes)
        self._seen = (step_count, bodies.centers.copy(), bodies.angles.copy())
        return tree, origins

    def continuous_tree(self, moving: bool) -> tuple[DynamicTree, np.ndarray | None]:
        """A tree for continuous collision and the shape rows of its leaves (None: its rows
        are the shape rows). With ``moving`` it is the query tree brought up to date; else a
        tree of the static shapes alone, rebuilt only when they change, so that the walk of
        a fast body's swept box does not visit the moving bodies around it."""
        if moving:
            return self.refreshed()[0], None
        bodies, shapes = self._bodies.arrays, self._shapes.arrays
        rows = np.flatnonzero(bodies.kinds[shapes.body] == STATIC)
        owners = shapes.body[rows]
        key = (shapes.ids[rows], bodies.centers[owners], bodies.angles[owners])
        seen = self._static_seen
        if seen is None or not all(np.array_equal(a, b) for a, b in zip(seen[1], key,
                                                                         strict=True)):
            boxes = ShapeBoxes(np.empty((len(shapes.ids), 2)), np.empty((len(shapes.ids), 2)))
            shape_aabbs(shapes, bodies.origins, bodies.angles, np.zeros(len(shapes.ids)),
                        boxes.lower, boxes.upper)
            tree = DynamicTree()
            tree.update(ShapeBoxes(boxes.lower[rows], boxes.upper[rows]))
            self._static_seen = (tree, tuple(column.copy() for column in key))
        # The tree's row k is the k-th static shape, whichever row it has moved to.
        return self._static_seen[0], rows

    def _shape_ref(self, row: int) -> ShapeRef:
        shapes = self._shapes.arrays
        return ShapeRef(self._bodies.handle(int(shapes.body[row])), self._shapes.shape(row),
                        int(shapes.ids[row]))
