"""Sort and sweep: the N² test cut down to the boxes that overlap along x (chapter 9).

Boxes are sorted by their lower x; each box is tested only against the boxes that start
before it ends along x. The same answer as :func:`~physbook.broadphase.naive.naive_pairs`
for far less work, compiled; it is the world's default broad phase.
"""

from __future__ import annotations

import numpy as np

from physbook._jit import njit
from physbook.broadphase.filters import ShapeFilters, may_collide
from physbook.broadphase.pairs import ShapeBoxes, sorted_pairs, stage_input


@njit
def sort_and_sweep(boxes, filters):
    """The sweep itself, on checked input: (P, 2) sorted pairs."""
    # Columns are taken out of the tuples once: reading a field of a tuple of arrays
    # inside a hot loop costs a reference count increment and decrement each time.
    lower, upper = boxes
    body, layers, dynamic = filters
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
        # The tests are written as "not overlapping" so that a NaN coordinate, which fails
        # every comparison, overlaps nothing (argsort puts NaN lower corners last).
        for k in range(i + 1, count):
            if not low_x[k] <= high_x[i]:
                break
            if not (low_y[i] <= high_y[k] and low_y[k] <= high_y[i]):
                continue
            a = order[i]
            b = order[k]
            if not may_collide(body, layers, dynamic, a, b):
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
    return sorted_pairs(first[:found], second[:found], count)


def sweep_pairs(boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
    """Broad phase by sort and sweep along x: (P, 2) sorted pairs, see the module doc."""
    boxes, filters = stage_input(boxes, filters)
    return sort_and_sweep(boxes, filters)
