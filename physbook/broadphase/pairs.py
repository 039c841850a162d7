"""What a broad phase takes and gives: shape boxes in, canonical shape pairs out.

A broad phase is a function ``(boxes, filters) -> (P, 2) int64`` of shape rows ``(a, b)``
with ``a < b``, sorted by ``a`` then ``b``, holding exactly the pairs whose boxes overlap
(touching counts) and that pass the filter of :mod:`physbook.broadphase.filters`. Every
broad phase returns the same pairs in the same order, so the rest of the step (and the
simulation) does not depend on which one ran. It knows nothing of bodies or worlds: boxes
and filters in, pairs out.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.broadphase.filters import ShapeFilters


class ShapeBoxes(NamedTuple):
    """World axis-aligned boxes of S shapes: ``lower`` and ``upper`` (S, 2) corners (m)."""

    lower: np.ndarray
    upper: np.ndarray


def stage_input(boxes, filters) -> tuple[ShapeBoxes, ShapeFilters]:
    """Check and convert a broad phase's input: S boxes and S filters, as the kernels want.

    Arrays already of the right type are used as they are (no copy, no scan), so the cost
    does not grow with S; NaN boxes overlap nothing.
    """
    _check.instance(boxes, "boxes", ShapeBoxes, "a ShapeBoxes")
    _check.instance(filters, "filters", ShapeFilters, "a ShapeFilters")
    lower = np.ascontiguousarray(boxes.lower, dtype=np.float64)
    upper = np.ascontiguousarray(boxes.upper, dtype=np.float64)
    count = len(lower)
    if lower.shape != (count, 2) or upper.shape != (count, 2):
        raise ValueError(f"boxes.lower and boxes.upper must both have shape (S, 2), got "
                         f"{lower.shape} and {upper.shape}")
    columns = []
    for name, dtype in (("body", np.int64), ("layers", np.int64), ("dynamic", np.bool_)):
        column = np.ascontiguousarray(getattr(filters, name), dtype=dtype)
        if column.shape != (count,):
            raise ValueError(f"filters.{name} must have one entry per box ({count}), got "
                             f"shape {column.shape}")
        columns.append(column)
    return ShapeBoxes(lower, upper), ShapeFilters(*columns)


@njit
def pairs_are_sorted(pairs) -> bool:
    """True when every row has ``a < b`` and the rows increase by ``a``, then ``b``."""
    for k in range(pairs.shape[0]):
        if pairs[k, 0] >= pairs[k, 1]:
            return False
        if k > 0:
            if pairs[k, 0] < pairs[k - 1, 0]:
                return False
            if pairs[k, 0] == pairs[k - 1, 0] and pairs[k, 1] <= pairs[k - 1, 1]:
                return False
    return True


def canonical_pairs(pairs, name: str = "pairs") -> np.ndarray:
    """Pairs as ``(min, max)`` rows sorted by first then second index, duplicates dropped.

    The contact table matches the points of consecutive steps by walking two sorted lists,
    so the output of a broad phase the library does not know passes through here; ``name``
    is what an error message calls the input.
    """
    pairs = np.asarray(pairs)
    if pairs.size == 0:
        return np.empty((0, 2), np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise ValueError(f"{name} must be a (P, 2) array of integers, got shape "
                         f"{pairs.shape} and dtype {pairs.dtype}")
    pairs = np.ascontiguousarray(pairs, dtype=np.int64)
    if pairs_are_sorted(pairs):
        return pairs
    ordered = np.sort(pairs, axis=1)
    ordered = ordered[ordered[:, 0] != ordered[:, 1]]
    return np.unique(ordered, axis=0)


@njit
def sorted_pairs(first, second, count):
    """Rows (first[k], second[k]) sorted by first, then second index, for S = ``count``
    shapes: a counting sort on the first index, then an insertion sort of each (short) run
    of equal first indices by the second."""
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
