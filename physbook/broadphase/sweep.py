"""Sort and sweep: the N² test cut down to the boxes that overlap along one axis (chapters 9, 12).

Boxes are sorted by their lower corner along the sweep axis; each box is tested only
against the boxes that start before it ends along that axis. The sweep axis is the one
along which the box centres spread the most (the larger variance): along the other, a
column of bodies stacked in y would overlap all at once, and the sweep would test every
pair. The same answer as :func:`~physbook.broadphase.naive.naive_pairs`, whichever axis is
swept, for far less work.

Bodies move little in a step, so last step's order is nearly sorted: :class:`SortAndSweep`
keeps it and repairs it by insertion sort, O(N + swaps), instead of sorting afresh in
O(N log N). Should the order have been scrambled (a teleport, a change of axis), the
insertion sort gives up after a bounded number of swaps and a full sort takes over.
"""

from __future__ import annotations

import numpy as np

from physbook._jit import njit
from physbook.broadphase.filters import ShapeFilters, may_collide
from physbook.broadphase.pairs import (
    ShapeBoxes,
    append_pair,
    removed_rows,
    sorted_pairs,
    stage_input,
)
from physbook.constants import SWAPS_PER_BOX


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
def sweep_axis(lower, upper):
    """The axis of greater spread of the box centres: 0 (x) or 1 (y)."""
    return 1 if _spread(lower, upper, 1) > _spread(lower, upper, 0) else 0


@njit
def insertion_sort(keys, order, max_swaps):
    """Sort ``order`` (a permutation of rows) by ``keys[order]``, in place, by insertion.

    Returns the number of swaps, or −1 if it would need more than ``max_swaps`` (``order``
    is then a permutation still, partly sorted). Nearly sorted input costs O(N + swaps).
    """
    swaps = 0
    for i in range(1, order.shape[0]):
        row = order[i]
        key = keys[row]
        j = i - 1
        while j >= 0 and keys[order[j]] > key:
            order[j + 1] = order[j]
            j -= 1
            swaps += 1
        order[j + 1] = row
        if swaps > max_swaps:
            return -1
    return swaps


@njit
def sweep_sorted(lower, upper, filters, order, along):
    """The sweep along axis ``along`` over boxes already sorted by their lower corner on it
    (``order``): (P, 2) canonical pairs."""
    # Columns are taken out of the tuples once: reading a field of a tuple of arrays
    # inside a hot loop costs a reference count increment and decrement each time.
    body, category, mask, group, dynamic = filters
    count = lower.shape[0]
    across = 1 - along
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
    first = np.empty(4 * count + 16, np.int64)
    second = np.empty(4 * count + 16, np.int64)
    found = 0
    for i in range(count):
        # Every box starting before box i ends along the sweep axis is a candidate; boxes
        # are sorted by their lower corner, so the first one starting after that ends the
        # sweep for box i. The tests are written as "not overlapping" so that a NaN
        # coordinate, which fails every comparison, overlaps nothing; the checked entry
        # points reject NaN boxes before that.
        for k in range(i + 1, count):
            if not low_along[k] <= high_along[i]:
                break
            if not (low_across[i] <= high_across[k] and low_across[k] <= high_across[i]):
                continue
            a = order[i]
            b = order[k]
            if may_collide(body, category, mask, group, dynamic, a, b):
                first, second, found = append_pair(first, second, found, a, b)
    # Sorted by the shapes' rows, the pairs are the same whichever axis was swept.
    return sorted_pairs(first[:found], second[:found], count)


@njit
def _sort_and_sweep(boxes, filters):
    """Sort from scratch, then sweep, on checked input: (P, 2) canonical pairs."""
    lower, upper = boxes
    along = sweep_axis(lower, upper)
    order = np.argsort(lower[:, along], kind="mergesort")
    return sweep_sorted(lower, upper, filters, order, along)


@njit
def _resorted(lower, along, order, count):
    """Last step's ``order`` brought to ``count`` rows (rows beyond it dropped, new rows
    appended) and sorted again along ``along``: insertion sort, or a full sort if that
    would take too many swaps. Returns the order and whether it was sorted from scratch."""
    kept = np.empty(count, np.int64)
    size = 0
    for i in range(order.shape[0]):
        if order[i] < count:
            kept[size] = order[i]
            size += 1
    for row in range(order.shape[0], count):
        kept[size] = row
        size += 1
    keys = lower[:, along].copy()
    if insertion_sort(keys, kept, SWAPS_PER_BOX * count + 16) < 0:
        return np.argsort(keys, kind="mergesort"), True
    return kept, False


def sweep_pairs(boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
    """Broad phase by sort and sweep: (P, 2) canonical pairs, see the module docstring."""
    return _sort_and_sweep(*stage_input(boxes, filters))


class SortAndSweep:
    """Sort and sweep as a stage that keeps its order between calls (see the module
    docstring). Call it with ``(boxes, filters)`` as any broad phase."""

    def __init__(self):
        self._order = np.empty(0, np.int64)
        self._axis = -1
        self.full_sorts = 0  #: calls whose insertion sort gave up for a full sort

    def __call__(self, boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
        return self.pairs(*stage_input(boxes, filters))

    def pairs(self, boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
        """The method on checked input, as the world calls it."""
        lower, upper = boxes
        axis = int(sweep_axis(lower, upper))
        if axis != self._axis:
            # Last step's order was along the other axis: no use as a start.
            self._order = np.empty(0, np.int64)
            self._axis = axis
        order, from_scratch = _resorted(lower, axis, self._order, len(lower))
        self.full_sorts += bool(from_scratch)
        self._order = order
        return sweep_sorted(lower, upper, filters, order, axis)

    def remove_rows(self, rows) -> None:
        """Rows ``rows`` were removed and the rows behind them moved up: renumber."""
        rows = removed_rows(rows)
        order = self._order[~np.isin(self._order, rows)]
        self._order = order - np.searchsorted(rows, order)
