"""Sort and sweep: the N² test cut down to the boxes that overlap along one axis (chapter 9).

Boxes are sorted by their lower corner along the sweep axis; each box is tested only
against the boxes that start before it ends along that axis. The sweep axis is the one
along which the box centres spread the most (the larger variance): along the other, a
column of bodies stacked in y would overlap all at once, and the sweep would test every
pair. The same answer as :func:`~physbook.broadphase.naive.naive_pairs`, whichever axis is
swept, for far less work, compiled; it is the world's default broad phase.
"""

from __future__ import annotations

import numpy as np

from physbook._jit import njit
from physbook.broadphase.filters import ShapeFilters, _may_collide
from physbook.broadphase.pairs import ShapeBoxes, _sorted_pairs, stage_input


@njit
def _spread(lower, upper, axis):
    """Sum of squared deviations of the box centres from their mean along ``axis`` (m²):
    the variance times the count, enough to compare two axes."""
    count = lower.shape[0]
    mean = 0.0
    for i in range(count):
        mean += 0.5 * lower[i, axis] + 0.5 * upper[i, axis]
    mean /= max(count, 1)
    total = 0.0
    for i in range(count):
        deviation = 0.5 * lower[i, axis] + 0.5 * upper[i, axis] - mean
        total += deviation * deviation
    return total


@njit
def _sort_and_sweep(boxes, filters):
    """The sweep itself, on checked input: (P, 2) sorted pairs."""
    # Columns are taken out of the tuples once: reading a field of a tuple of arrays
    # inside a hot loop costs a reference count increment and decrement each time.
    lower, upper = boxes
    body, layers, dynamic = filters
    count = lower.shape[0]
    along = 1 if _spread(lower, upper, 1) > _spread(lower, upper, 0) else 0
    across = 1 - along
    order = np.argsort(lower[:, along])
    # Copies in sweep order, so that the inner loop reads memory front to back.
    low_along = np.empty(count)
    high_along = np.empty(count)
    low_across = np.empty(count)
    high_across = np.empty(count)
    for i in range(count):
        low_along[i] = lower[order[i], along]
        high_along[i] = upper[order[i], along]
        low_across[i] = lower[order[i], across]
        high_across[i] = upper[order[i], across]
    capacity = 4 * count + 16
    first = np.empty(capacity, np.int64)
    second = np.empty(capacity, np.int64)
    found = 0
    for i in range(count):
        # Every box starting before box i ends along the sweep axis is a candidate; boxes
        # are sorted by their lower corner, so the first one starting after that ends the
        # sweep for box i. The tests are written as "not overlapping" so that a NaN
        # coordinate, which fails every comparison, overlaps nothing (argsort puts NaN
        # lower corners last); the checked entry point rejects NaN boxes before that.
        for k in range(i + 1, count):
            if not low_along[k] <= high_along[i]:
                break
            if not (low_across[i] <= high_across[k] and low_across[k] <= high_across[i]):
                continue
            a = order[i]
            b = order[k]
            if not _may_collide(body, layers, dynamic, a, b):
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
    # Sorted by the shapes' rows, the pairs are the same whichever axis was swept.
    return _sorted_pairs(first[:found], second[:found], count)


def sweep_pairs(boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
    """Broad phase by sort and sweep: (P, 2) sorted pairs, see the module docstring."""
    boxes, filters = stage_input(boxes, filters)
    return _sort_and_sweep(boxes, filters)
