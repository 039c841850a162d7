"""A uniform grid (spatial hash): boxes are binned into square cells, and only boxes that
share a cell are tested (chapter 12).

Every box is entered in each cell it covers. The entries are sorted by cell, so that the
boxes of one cell lie side by side (a spatial hash without a hash table); each cell's boxes
are then tested against each other. A pair of boxes that both span several cells shares
several of them, and would be found in each: it is reported only from the cell holding the
lower-left corner of the two boxes' overlap, which is exactly one cell.

The cell size decides the cost. Cells much smaller than the boxes enter each box many
times; cells much larger test many boxes that are far apart. By default the cell is twice
the median box size, so that a typical box covers at most 2 × 2 cells. A box that would
cover more than :data:`~physbook.constants.MAX_CELLS_PER_BOX` cells (a long ground, a giant
among pebbles) is kept out of the grid; a sort and sweep of all boxes finds its pairs.
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.broadphase.filters import ShapeFilters, may_collide
from physbook.broadphase.pairs import (
    ShapeBoxes,
    append_pair,
    boxes_overlap,
    sorted_pairs,
    stage_input,
)
from physbook.broadphase.sweep import sweep_axis, sweep_sorted
from physbook.constants import GRID_CELL_FACTOR, MAX_CELLS_PER_AXIS, MAX_CELLS_PER_BOX


@njit
def choose_cell_size(lower, upper):
    """:data:`~physbook.constants.GRID_CELL_FACTOR` times the median of the boxes' larger
    sides (m), or, for boxes of no size (points),
    the extent of all boxes over √N; 1 m if even that is zero."""
    count = lower.shape[0]
    if count == 0:
        return 1.0
    sizes = np.empty(count)
    for i in range(count):
        sizes[i] = max(upper[i, 0] - lower[i, 0], upper[i, 1] - lower[i, 1])
    size = GRID_CELL_FACTOR * np.median(sizes)
    if size > 0.0:
        return size
    extent = max(upper[:, 0].max() - lower[:, 0].min(), upper[:, 1].max() - lower[:, 1].min())
    if extent > 0.0:
        return extent / np.sqrt(count)
    return 1.0


@njit
def _grid_pairs(lower, upper, filters, cell_size):
    """The grid method on checked input, with cells ``cell_size`` wide: canonical pairs."""
    body, category, mask, group, dynamic = filters
    count = lower.shape[0]
    first = np.empty(4 * count + 16, np.int64)
    second = np.empty(4 * count + 16, np.int64)
    if count == 0:
        return sorted_pairs(first[:0], second[:0], count)
    origin_x = lower[:, 0].min()
    origin_y = lower[:, 1].min()
    extent = max(upper[:, 0].max() - origin_x, upper[:, 1].max() - origin_y)
    size = max(cell_size, extent / MAX_CELLS_PER_AXIS)
    rows = int(np.floor((upper[:, 1].max() - origin_y) / size)) + 1
    # Cell ranges of every box; a box covering too many cells goes to the oversized list.
    first_column = np.empty(count, np.int64)
    last_column = np.empty(count, np.int64)
    first_row = np.empty(count, np.int64)
    last_row = np.empty(count, np.int64)
    oversized = np.zeros(count, np.bool_)
    entries = 0
    for i in range(count):
        # The spans are compared as floats first: a huge box would overflow an integer.
        span_x = (np.floor((upper[i, 0] - origin_x) / size)
                  - np.floor((lower[i, 0] - origin_x) / size))
        span_y = (np.floor((upper[i, 1] - origin_y) / size)
                  - np.floor((lower[i, 1] - origin_y) / size))
        if (span_x + 1.0) * (span_y + 1.0) > MAX_CELLS_PER_BOX:
            oversized[i] = True
            continue
        first_column[i] = int(np.floor((lower[i, 0] - origin_x) / size))
        last_column[i] = int(np.floor((upper[i, 0] - origin_x) / size))
        first_row[i] = int(np.floor((lower[i, 1] - origin_y) / size))
        last_row[i] = int(np.floor((upper[i, 1] - origin_y) / size))
        entries += (last_column[i] - first_column[i] + 1) * (last_row[i] - first_row[i] + 1)
    # One entry per (cell, box), sorted by cell: each cell's boxes are then side by side.
    cells = np.empty(entries, np.int64)
    boxes = np.empty(entries, np.int64)
    k = 0
    for i in range(count):
        if oversized[i]:
            continue
        for column in range(first_column[i], last_column[i] + 1):
            for row in range(first_row[i], last_row[i] + 1):
                cells[k] = column * rows + row
                boxes[k] = i
                k += 1
    order = np.argsort(cells, kind="mergesort")
    found = 0
    start = 0
    while start < entries:
        cell = cells[order[start]]
        end = start + 1
        while end < entries and cells[order[end]] == cell:
            end += 1
        for p in range(start, end):
            a = boxes[order[p]]
            for q in range(p + 1, end):
                b = boxes[order[q]]
                if not boxes_overlap(lower, upper, a, b):
                    continue
                # Reported from one cell only: the one holding the overlap's lower corner.
                corner_column = int(np.floor((max(lower[a, 0], lower[b, 0]) - origin_x) / size))
                corner_row = int(np.floor((max(lower[a, 1], lower[b, 1]) - origin_y) / size))
                if corner_column * rows + corner_row != cell:
                    continue
                if may_collide(body, category, mask, group, dynamic, a, b):
                    first, second, found = append_pair(first, second, found, a, b)
        start = end
    # Oversized boxes against every box: tested against each one, they would make the
    # method quadratic in a field of many large boxes; a sort and sweep of all boxes finds
    # their pairs in the time of a sweep instead.
    if oversized.any():
        along = sweep_axis(lower, upper)
        swept = sweep_sorted(lower, upper, filters,
                             np.argsort(lower[:, along], kind="mergesort"), along)
        for k in range(swept.shape[0]):
            a = swept[k, 0]
            b = swept[k, 1]
            if oversized[a] or oversized[b]:
                first, second, found = append_pair(first, second, found, a, b)
    return sorted_pairs(first[:found], second[:found], count)


def grid_pairs(boxes: ShapeBoxes, filters: ShapeFilters, cell_size: float | None = None
               ) -> np.ndarray:
    """Broad phase by a uniform grid: (P, 2) canonical pairs, see the module docstring.

    ``cell_size`` (m) defaults to :func:`choose_cell_size` of the boxes.
    """
    boxes, filters = stage_input(boxes, filters)
    if cell_size is None:
        cell_size = choose_cell_size(*boxes)
    cell_size = _check.positive_scalar(cell_size, "cell_size")
    return _grid_pairs(boxes.lower, boxes.upper, filters, cell_size)


class UniformGrid:
    """The grid as a stage: ``(boxes, filters) -> pairs``, with a fixed ``cell_size`` (m)
    or, by default, one chosen from the boxes at every call."""

    def __init__(self, cell_size: float | None = None):
        self.cell_size = None if cell_size is None else _check.positive_scalar(
            cell_size, "cell_size")

    def __call__(self, boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
        return self.pairs(*stage_input(boxes, filters))

    def pairs(self, boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
        """The method on checked input, as the world calls it."""
        size = choose_cell_size(*boxes) if self.cell_size is None else self.cell_size
        return _grid_pairs(boxes.lower, boxes.upper, filters, size)
