"""Broad phase: which shapes might touch, from their axis-aligned bounding boxes (AABBs).

A broad phase is a function ``(world) -> (P, 2) int64`` of shape index pairs ``(a, b)`` with
``a < b``, sorted by ``a`` then ``b``, holding exactly the pairs whose world AABBs overlap
(touching counts) and that pass the filter:

- two shapes of the same body never collide;
- two bodies collide only if their ``layers`` bitmasks share a bit (``layers_a & layers_b``);
- a pair where neither body is dynamic is skipped: static and kinematic bodies do not push
  each other.

Every broad phase returns the same pairs in the same order, so the rest of the pipeline (and
the simulation) does not depend on which one ran. Two are here:

- :func:`naive_pairs`, the N² reference: every pair of boxes is tested (vectorised with
  numpy, a block of rows at a time); testing only ``a < b`` is the duplicate culling.
- :func:`sweep_pairs`, sort and sweep: boxes sorted by their lower x; each box is tested only
  against the boxes that start before it ends along x. The same answer for far less work,
  compiled; it is the default.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.world import DYNAMIC

#: Rows of the N² matrix tested at once by :func:`naive_pairs` (bounds its memory).
NAIVE_BLOCK_ROWS = 512


@njit
def _shape_aabbs_kernel(kind, body, radius, vertex_start, vertex_count, vertices, origins,
                        angles, lower, upper):
    # A vertex v in body coordinates is at origin + R(θ)·v in the world; a polygon's box
    # spans its transformed vertices, a circle's box is its centre ± r.
    for s in range(kind.shape[0]):
        b = body[s]
        cosine = np.cos(angles[b])
        sine = np.sin(angles[b])
        ox = origins[b, 0]
        oy = origins[b, 1]
        start = vertex_start[s]
        low_x = np.inf
        low_y = np.inf
        high_x = -np.inf
        high_y = -np.inf
        for k in range(start, start + vertex_count[s]):
            x = ox + cosine * vertices[k, 0] - sine * vertices[k, 1]
            y = oy + sine * vertices[k, 0] + cosine * vertices[k, 1]
            low_x = min(low_x, x)
            low_y = min(low_y, y)
            high_x = max(high_x, x)
            high_y = max(high_y, y)
        r = radius[s] if kind[s] == 0 else 0.0
        lower[s, 0] = low_x - r
        lower[s, 1] = low_y - r
        upper[s, 0] = high_x + r
        upper[s, 1] = high_y + r


def shape_aabbs(shapes, origins, angles) -> tuple[np.ndarray, np.ndarray]:
    """World AABBs of every shape of a :class:`~physbook.shapes.ShapeTable` (m).

    Parameters
    ----------
    shapes
        The shape table; vertices in body coordinates.
    origins, angles
        Body origins (N, 2) and angles (N,) in the world.

    Returns
    -------
    lower, upper : (S, 2) arrays
        Lower-left and upper-right corners, one row per shape.
    """
    count = shapes.count
    lower = np.empty((count, 2))
    upper = np.empty((count, 2))
    if count:
        _shape_aabbs_kernel(shapes.kind, shapes.body, shapes.radius, shapes.vertex_start,
                            shapes.vertex_count, shapes.vertices,
                            np.ascontiguousarray(origins, dtype=np.float64),
                            np.ascontiguousarray(angles, dtype=np.float64), lower, upper)
    return lower, upper


def _shape_filter_arrays(world) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per shape: owning body, layer bitmask, and whether the body is dynamic."""
    body = world.shapes.body
    layers = np.ascontiguousarray(world.layers, dtype=np.int64)[body]
    dynamic = np.ascontiguousarray(world.kinds == DYNAMIC)[body]
    return body, layers, dynamic


def _as_pairs(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    pairs = np.empty((len(first), 2), np.int64)
    pairs[:, 0] = first
    pairs[:, 1] = second
    return pairs


def aabb_pairs(lower, upper, body, layers, dynamic) -> np.ndarray:
    """The N² reference on arrays: all filtered pairs ``a < b`` whose boxes overlap.

    ``lower``/``upper`` are (S, 2) box corners; ``body``, ``layers``, ``dynamic`` are per
    shape. Vectorised: a block of rows of the S × S overlap matrix at a time, keeping only
    the upper triangle (each unordered pair once, never a shape with itself).
    """
    lower = _check.finite_array(lower, "lower")
    upper = _check.finite_array(upper, "upper")
    count = len(lower)
    body = np.asarray(body, np.int64)
    layers = np.asarray(layers, np.int64)
    dynamic = np.asarray(dynamic, bool)
    firsts, seconds = [], []
    columns = np.arange(count)
    for start in range(0, count, NAIVE_BLOCK_ROWS):
        rows = np.arange(start, min(count, start + NAIVE_BLOCK_ROWS))
        # Two boxes overlap iff their projections overlap on both axes:
        # lower_a ≤ upper_b and lower_b ≤ upper_a, for x and for y.
        keep = (
            (lower[rows, None, 0] <= upper[None, :, 0])
            & (lower[None, :, 0] <= upper[rows, None, 0])
            & (lower[rows, None, 1] <= upper[None, :, 1])
            & (lower[None, :, 1] <= upper[rows, None, 1])
        )
        keep &= columns[None, :] > rows[:, None]  # duplicate culling: only a < b
        keep &= body[rows, None] != body[None, :]
        keep &= (layers[rows, None] & layers[None, :]) != 0
        keep &= dynamic[rows, None] | dynamic[None, :]
        first, second = np.nonzero(keep)
        firsts.append(rows[first])
        seconds.append(second)
    if not firsts:
        return np.empty((0, 2), np.int64)
    # Row-major nonzero already yields (a, b) sorted by a then b.
    return _as_pairs(np.concatenate(firsts), np.concatenate(seconds))


def naive_pairs(world) -> np.ndarray:
    """Broad phase by testing every pair of shape boxes (the N² reference), see module doc."""
    lower, upper = shape_aabbs(world.shapes, world.origins, world.angles)
    body, layers, dynamic = _shape_filter_arrays(world)
    return aabb_pairs(lower, upper, body, layers, dynamic)


@njit
def _sweep_kernel(lower, upper, body, layers, dynamic):
    count = lower.shape[0]
    order = np.argsort(lower[:, 0])
    # Copies in sweep order, so that the inner loop reads memory front to back.
    low_x = np.empty(count)
    high_x = np.empty(count)
    low_y = np.empty(count)
    high_y = np.empty(count)
    for i in range(count):
        low_x[i] = lower[order[i], 0]
        high_x[i] = upper[order[i], 0]
        low_y[i] = lower[order[i], 1]
        high_y[i] = upper[order[i], 1]
    capacity = 4 * count + 16
    first = np.empty(capacity, np.int64)
    second = np.empty(capacity, np.int64)
    found = 0
    for i in range(count):
        # Every box starting before box i ends along x is a candidate; boxes are sorted by
        # their lower x, so the first one starting after that ends the sweep for box i.
        for k in range(i + 1, count):
            if low_x[k] > high_x[i]:
                break
            if low_y[i] > high_y[k] or low_y[k] > high_y[i]:
                continue
            a = order[i]
            b = order[k]
            if body[a] == body[b] or (layers[a] & layers[b]) == 0:
                continue
            if not (dynamic[a] or dynamic[b]):
                continue
            if found == capacity:
                capacity *= 2
                grown_first = np.empty(capacity, np.int64)
                grown_second = np.empty(capacity, np.int64)
                grown_first[:found] = first[:found]
                grown_second[:found] = second[:found]
                first = grown_first
                second = grown_second
            first[found] = min(a, b)
            second[found] = max(a, b)
            found += 1
    return _sorted_pairs(first[:found], second[:found], count)


@njit
def _sorted_pairs(first, second, count):
    """Pairs sorted by first, then second index: a counting sort on the first index, then
    an insertion sort of each (short) run of equal first indices by the second."""
    starts = np.zeros(count + 1, np.int64)
    for k in range(first.shape[0]):
        starts[first[k] + 1] += 1
    for s in range(count):
        starts[s + 1] += starts[s]
    filled = starts[:count].copy()
    pairs = np.empty((first.shape[0], 2), np.int64)
    for k in range(first.shape[0]):
        row = filled[first[k]]
        filled[first[k]] += 1
        pairs[row, 0] = first[k]
        pairs[row, 1] = second[k]
    for s in range(count):
        for i in range(starts[s] + 1, starts[s + 1]):
            value = pairs[i, 1]
            j = i - 1
            while j >= starts[s] and pairs[j, 1] > value:
                pairs[j + 1, 1] = pairs[j, 1]
                j -= 1
            pairs[j + 1, 1] = value
    return pairs


def sweep_aabb_pairs(lower, upper, body, layers, dynamic) -> np.ndarray:
    """Sort and sweep on arrays; the same result as :func:`aabb_pairs`."""
    lower = np.ascontiguousarray(lower, dtype=np.float64)
    upper = np.ascontiguousarray(upper, dtype=np.float64)
    if len(lower) == 0:
        return np.empty((0, 2), np.int64)
    return _sweep_kernel(lower, upper, np.ascontiguousarray(body, dtype=np.int64),
                         np.ascontiguousarray(layers, dtype=np.int64),
                         np.ascontiguousarray(dynamic, dtype=np.bool_))


def sweep_pairs(world) -> np.ndarray:
    """Broad phase by sort and sweep along x (compiled), see module doc. The default."""
    lower, upper = shape_aabbs(world.shapes, world.origins, world.angles)
    body, layers, dynamic = _shape_filter_arrays(world)
    return sweep_aabb_pairs(lower, upper, body, layers, dynamic)


#: Broad phases by name; a World takes a name or any callable ``(world) -> (P, 2) pairs``.
BROAD_PHASES: dict[str, Callable] = {"naive": naive_pairs, "sweep": sweep_pairs}


def broad_phase(name_or_function) -> Callable:
    """Resolve a broad phase given by name (see :data:`BROAD_PHASES`) or as a callable."""
    if callable(name_or_function):
        return name_or_function
    name = _check.choice(name_or_function, "broad_phase", BROAD_PHASES)
    return BROAD_PHASES[name]
