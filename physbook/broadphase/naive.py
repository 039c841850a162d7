"""The N² reference broad phase: every pair of boxes is tested (chapter 9).

Vectorised with numpy, a block of rows of the S × S overlap matrix at a time; testing only
the upper triangle (``a < b``) is the duplicate culling. Every other broad phase must return
exactly its pairs.
"""

from __future__ import annotations

import numpy as np

from physbook.broadphase.filters import ShapeFilters
from physbook.broadphase.pairs import ShapeBoxes, stage_input
from physbook.constants import NAIVE_BLOCK_ROWS


def naive_pairs(boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
    """All filtered pairs ``a < b`` whose boxes overlap, as (P, 2) sorted rows."""
    return compare_every_pair(*stage_input(boxes, filters))


def compare_every_pair(boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
    """The method itself, on input :func:`~physbook.broadphase.pairs.stage_input` has
    checked (see :func:`naive_pairs`), as the world calls it: it checks nothing."""
    lower, upper = boxes
    body, category, mask, group, dynamic = filters
    count = len(lower)
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
        # The filter rule of physbook.broadphase.filters, on whole blocks at once.
        keep &= body[rows, None] != body[None, :]
        keep &= dynamic[rows, None] | dynamic[None, :]
        shared = (group[rows, None] == group[None, :]) & (group[rows, None] != 0)
        categories = (((category[rows, None] & mask[None, :]) != 0)
                      & ((category[None, :] & mask[rows, None]) != 0))
        keep &= np.where(shared, group[rows, None] > 0, categories)
        first, second = np.nonzero(keep)
        firsts.append(rows[first])
        seconds.append(second)
    pairs = np.empty((sum(len(f) for f in firsts), 2), np.int64)
    if len(pairs):
        # Row-major nonzero already yields (a, b) sorted by a then b.
        pairs[:, 0] = np.concatenate(firsts)
        pairs[:, 1] = np.concatenate(seconds)
    return pairs


class NaiveBroadPhase:
    """The N² method as a stage: ``(boxes, filters) -> pairs``; it keeps nothing."""

    def __call__(self, boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
        return naive_pairs(boxes, filters)

    def pairs(self, boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
        """The method on checked input, as the world calls it."""
        return compare_every_pair(boxes, filters)
