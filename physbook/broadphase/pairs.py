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


def _corners(value, name: str) -> np.ndarray:
    """A (S, 2) float64 array of finite box corners; one already of that type is not copied."""
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        corners = np.ascontiguousarray(value)
        if not np.all(np.isfinite(corners)):
            raise ValueError(f"{name} must be finite (no NaN or inf)")
    else:
        corners = _check.finite_array(value, name)
    if corners.ndim != 2 or corners.shape[1] != 2:
        raise ValueError(f"{name} must have shape (S, 2), got {corners.shape}")
    return corners


def _column(value, name: str, dtype, count: int) -> np.ndarray:
    """A (S,) array of ``dtype``: integers for ``int64``, True/False for ``bool_``."""
    try:
        column = np.asarray(value)
    except ValueError:  # ragged
        raise ValueError(f"{name} must be a 1-D array, one entry per box") from None
    kinds = "b" if dtype == np.bool_ else "iu"
    if column.dtype.kind not in kinds and column.size:
        raise TypeError(f"{name} must hold {'True/False' if kinds == 'b' else 'integers'}, "
                        f"got dtype {column.dtype}")
    if column.shape != (count,):
        raise ValueError(f"{name} must have one entry per box ({count}), got shape "
                         f"{column.shape}")
    if column.dtype.kind == "u" and column.size and column.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} must fit in a signed 64-bit integer")
    return np.ascontiguousarray(column, dtype=dtype)


def removed_rows(rows) -> np.ndarray:
    """Check the rows a stage's ``remove_rows`` is given: sorted unique non-negative
    integers (a list or an array)."""
    try:
        array = np.asarray(rows)
    except ValueError:
        raise ValueError("rows must be a 1-D sequence of row numbers") from None
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise ValueError(f"rows must be a 1-D sequence of row numbers, got shape "
                         f"{array.shape} and dtype {array.dtype}")
    if array.size and (array.min() < 0 or array.max() >= 2**31):
        raise ValueError("rows must lie from 0 to 2**31 − 1")
    return np.unique(array.astype(np.int64))


def stage_input(boxes, filters) -> tuple[ShapeBoxes, ShapeFilters]:
    """Check and convert a broad phase's input: S boxes and S filters, as the kernels want.

    Boxes must be finite, with ``lower ≤ upper``: a sweep skips the boxes that start past
    the end of another, which an inverted box would break. Arrays already of the right
    type are used as they are (no copy); the checks are one pass over them, small beside
    the broad phase itself.
    """
    _check.instance(boxes, "boxes", ShapeBoxes, "a ShapeBoxes")
    _check.instance(filters, "filters", ShapeFilters, "a ShapeFilters")
    lower = _corners(boxes.lower, "boxes.lower")
    upper = _corners(boxes.upper, "boxes.upper")
    if lower.shape != upper.shape:
        raise ValueError(f"boxes.lower and boxes.upper must both have shape (S, 2), got "
                         f"{lower.shape} and {upper.shape}")
    inverted = np.flatnonzero(np.any(lower > upper, axis=1))
    if len(inverted):
        raise ValueError(f"boxes.lower must not exceed boxes.upper, but it does for box "
                         f"{inverted[0]}")
    count = len(lower)
    columns = [_column(getattr(filters, name), f"filters.{name}", dtype, count)
               for name, dtype in (("body", np.int64), ("category", np.int64),
                                   ("mask", np.int64), ("group", np.int64),
                                   ("dynamic", np.bool_))]
    return ShapeBoxes(lower, upper), ShapeFilters(*columns)


@njit(refcounted=False)
def _pairs_are_sorted(pairs) -> bool:
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
    name = _check.instance(name, "name", str, "a string")
    try:
        pairs = np.asarray(pairs)
    except ValueError:  # ragged rows
        raise ValueError(f"{name} must be a (P, 2) array of integers, got ragged rows") \
            from None
    if pairs.size == 0:
        return np.empty((0, 2), np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.dtype.kind not in "iu" or (
            pairs.dtype.kind == "u" and pairs.max() > np.iinfo(np.int64).max):
        raise ValueError(f"{name} must be a (P, 2) array of integers, got shape "
                         f"{pairs.shape} and dtype {pairs.dtype}")
    pairs = np.ascontiguousarray(pairs, dtype=np.int64)
    if _pairs_are_sorted(pairs):
        return pairs
    ordered = np.sort(pairs, axis=1)
    ordered = ordered[ordered[:, 0] != ordered[:, 1]]
    return np.unique(ordered, axis=0)


@njit
def lengthened(array, used, length):
    """A new array of ``length`` entries of ``array``'s type, holding its first ``used``."""
    longer = np.empty(length, array.dtype)
    # A loop, not a slice assignment: that would compile numba's message for a shape
    # mismatch too, 3 to 5 s of a world's first step.
    for i in range(used):
        longer[i] = array[i]
    return longer


@njit
def _grown_pairs(first, second, found):
    """Pair buffers of twice the capacity holding the first ``found`` pairs: called by a
    method's kernel when its buffers are full (amortised O(1) per pair)."""
    capacity = 2 * first.shape[0] + 16
    return lengthened(first, found, capacity), lengthened(second, found, capacity)


@njit
def append_pair(first, second, found, a, b):
    """Store the pair (min(a, b), max(a, b)) at ``found``, growing the buffers if full;
    returns the buffers and the new count."""
    if found == first.shape[0]:
        first, second = _grown_pairs(first, second, found)
    first[found] = min(a, b)
    second[found] = max(a, b)
    return first, second, found + 1


@njit
def appended(out, found, value):
    """Store ``value`` at ``found`` in ``out``, doubling it if full; returns the array."""
    if found == out.shape[0]:
        out = lengthened(out, found, 2 * found + 16)
    out[found] = value
    return out


@njit(refcounted=False)
def boxes_overlap(lower, upper, a, b):
    """Whether boxes ``a`` and ``b`` overlap (touching counts): their projections overlap
    on x and on y. Written as "not apart" so that a NaN corner overlaps nothing."""
    return not (lower[a, 0] > upper[b, 0] or lower[b, 0] > upper[a, 0]
                or lower[a, 1] > upper[b, 1] or lower[b, 1] > upper[a, 1])


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
