"""Checks for the public forms of the Verlet kernels.

A compiled kernel indexes its arrays without bounds checks: that is what keeps its loops
fast, and what would let a wrong count or index read or write outside an array. Each kernel a
user may call is therefore a thin Python function that checks dtypes, shapes, counts and
indices with these helpers, runs the kernel, and refuses a result that is no longer finite,
putting back the arrays the kernel wrote. The world calls the kernels directly: it builds
their arguments itself and checks them when particles, edges and bodies are added.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check

#: A normal counts as a unit vector when its length is within this of 1: far above the
#: rounding of a normalised vector (~1e-16), far below any real mistake.
UNIT_TOLERANCE = 1e-9


def shows(kernel):
    """Mark a checked function as the public face of ``kernel``.

    ``inspect.getsource`` (and so ``pb.viz.show_source``) follows ``__wrapped__``: the book
    shows the compiled loop that does the work, not the argument checks in front of it.
    """

    def mark(function):
        function.__wrapped__ = kernel
        return function

    return mark


def _shape(array: np.ndarray, name: str, columns: int | None) -> None:
    expected = "(n,)" if columns is None else f"(n, {columns})"
    if (array.ndim != (1 if columns is None else 2)
            or (columns is not None and array.shape[1] != columns)):
        raise ValueError(f"{name} must have shape {expected}, got shape {array.shape}")


def in_place(value, name: str, columns: int | None = None) -> np.ndarray:
    """The caller's own float64 array, which a kernel updates in place; its entries finite."""
    if not isinstance(value, np.ndarray) or value.dtype != np.float64:
        got = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
        raise TypeError(f"{name} must be a float64 numpy array (it is updated in place), "
                        f"got {got}")
    _shape(value, name, columns)
    if not value.flags.writeable:
        raise ValueError(f"{name} must be writable: it is updated in place")
    if not np.isfinite(value).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return value


def values(value, name: str, columns: int | None = None, minimum: float | None = None,
           positive: bool = False) -> np.ndarray:
    """A finite float64 copy of an array a kernel only reads, optionally bounded below."""
    array = _check.finite_array(value, name)
    _shape(array, name, columns)
    if minimum is not None and np.any(array < minimum):
        raise ValueError(f"{name} must be at least {minimum}, got {array.min()}")
    if positive and np.any(array <= 0.0):
        raise ValueError(f"{name} must be positive, got {array.min()}")
    return array


def indices(value, name: str, upper: int, columns: int | None = None,
            rows_of: str = "") -> np.ndarray:
    """An int64 copy of an array of indices, each in [0, ``upper``): rows of ``rows_of``."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):  # ragged nesting
        raise TypeError(f"{name} must be an array of integer indices") from None
    if raw.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an array of integer indices, got dtype {raw.dtype}")
    _shape(raw, name, columns)
    if raw.size and (raw.min() < 0 or raw.max() >= upper):
        where = f" of {rows_of}" if rows_of else ""
        raise ValueError(f"{name} must index the {upper} rows{where}, got "
                         f"{raw.min() if raw.min() < 0 else raw.max()}")
    return raw.astype(np.int64)


def index(value, name: str, upper: int) -> int:
    """One index in [0, ``upper``)."""
    value = _check.non_negative_int(value, name)
    if value >= upper:
        raise ValueError(f"{name} must be below {upper}, got {value}")
    return value


def particles(positions, inverse_mass) -> tuple[np.ndarray, np.ndarray]:
    """Particle ``positions`` (n, 2), written in place, and their ``inverse_mass`` (n,)."""
    positions = in_place(positions, "positions", 2)
    inverse_mass = values(inverse_mass, "inverse_mass", minimum=0.0)
    if len(inverse_mass) != len(positions):
        raise ValueError(f"inverse_mass must have one entry per row of positions "
                         f"({len(positions)}), got {len(inverse_mass)}")
    return positions, inverse_mass


def flags(value, name: str) -> np.ndarray:
    """A 1D boolean array (True/False, not 0/1)."""
    try:
        array = np.asarray(value) if isinstance(value, (np.ndarray, list, tuple)) else None
    except ValueError:  # ragged nesting
        array = None
    if array is None or array.dtype != np.bool_ or array.ndim != 1:
        raise TypeError(f"{name} must be a 1D array of booleans")
    return array.copy()


def count(value, name: str, arrays: dict[str, np.ndarray]) -> int:
    """A count of rows in use: no more than the rows of any array it counts."""
    value = _check.non_negative_int(value, name)
    for array_name, array in arrays.items():
        if value > len(array):
            raise ValueError(f"{name} must not exceed the {len(array)} rows of {array_name}, "
                             f"got {value}")
    return value


def fraction(value, name: str) -> float:
    """A fraction in [0, 1), such as the share of velocity damping removes."""
    value = _check.non_negative_scalar(value, name)
    if value >= 1.0:
        raise ValueError(f"{name} must be below 1, got {value}")
    return value


def unit_length(x: float, y: float, name: str) -> None:
    """Refuse a direction (x, y) whose length is not 1."""
    length = math.hypot(x, y)
    if abs(length - 1.0) > UNIT_TOLERANCE:
        raise ValueError(f"{name} must be a unit vector, got length {length}")


def bounds_box(value, name: str) -> np.ndarray:
    """Walls ``(x_min, y_min, x_max, y_max)`` (m), finite, with x_min < x_max, y_min < y_max."""
    box = _check.finite_array(value, name)
    if box.shape != (4,):
        raise ValueError(f"{name} must be (x_min, y_min, x_max, y_max), got shape {box.shape}")
    if not (box[0] < box[2] and box[1] < box[3]):
        raise ValueError(f"{name} must have x_min < x_max and y_min < y_max, got {box}")
    return box


def body_rows(start, count_, items, names: tuple[str, str, str], upper: int, rows_of: str,
              least: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compressed rows: body b owns ``items[start[b] : start[b] + count[b]]``.

    Each body's rows must lie inside ``items``, hold at least ``least`` entries, and each
    entry must index one of the ``upper`` rows of ``rows_of`` (particles or edges).
    """
    start_name, count_name, items_name = names
    items = indices(items, items_name, upper, rows_of=rows_of)
    start = indices(start, start_name, len(items) + 1)
    count_ = indices(count_, count_name, len(items) + 1)
    if len(count_) != len(start):
        raise ValueError(f"{count_name} must have one row per row of {start_name}")
    if np.any(count_ < least):
        raise ValueError(f"{count_name} must be at least {least} for every body")
    if np.any(start + count_ > len(items)):
        raise ValueError(f"{start_name} + {count_name} must not run past the "
                         f"{len(items)} rows of {items_name}")
    return start, count_, items


def run_in_place(kernel, arguments: tuple, written: dict[str, np.ndarray], inputs: str):
    """``kernel(*arguments)``, refusing a result that left a ``written`` array non-finite.

    The written arrays are copied first and put back before ``FloatingPointError`` is raised,
    so the caller's arrays are never left holding NaN or inf; the message names ``inputs``,
    the arguments whose size can make the kernel overflow.
    """
    saved = {name: array.copy() for name, array in written.items()}
    result = kernel(*arguments)
    for name, array in written.items():
        if not np.isfinite(array).all():
            row = int(np.flatnonzero(~np.isfinite(array.reshape(len(array), -1)).all(axis=1))[0])
            for restored, copy in saved.items():
                written[restored][...] = copy
            raise FloatingPointError(
                f"{name} row {row} became non-finite: {inputs} overflow float64 here; every "
                f"array the kernel wrote ({', '.join(written)}) is restored")
    return result


def finite_result(value, description: str):
    """``value`` if every entry is finite, else ``FloatingPointError`` naming ``description``."""
    if not np.all(np.isfinite(value)):
        raise FloatingPointError(f"the {description} overflows float64 (got {value}) although "
                                 "its inputs are finite")
    return value
