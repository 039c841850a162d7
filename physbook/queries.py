"""Chapter 12: asking the world where its shapes are, through the broad phase's tree.

Three questions a game asks: which shapes overlap this box (a selection rectangle, an
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
from physbook.broadphase.tree import DynamicTree
from physbook.collision.shape_queries import (
    ray_cast_rows,
    shapes_containing,
    shapes_overlapping_box,
)
from physbook.constants import ZERO_LENGTH
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shape_table import ShapeTable


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
