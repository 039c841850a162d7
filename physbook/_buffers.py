"""Arrays that grow by doubling: the storage behind every table of the engine.

A table (bodies, shapes, contacts, Verlet particles) allocates more rows than it uses and
doubles its capacity when it fills up, so a long run of appends costs amortised O(1) per row
and a step in steady state allocates nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import numpy as np


def room(capacity: int, rows: int) -> int:
    """The capacity of a buffer of ``capacity`` rows once it must hold ``rows``: the same
    if they fit, else ``max(rows, 2·capacity)``. Each dimension of a buffer grows by this
    rule on its own, so that repeated growth of one never inflates another."""
    return capacity if rows <= capacity else max(rows, 2 * capacity)


def grown(array: np.ndarray, rows: int, fill=0) -> np.ndarray:
    """``array`` itself if it has at least ``rows`` rows, else a larger copy.

    The copy has :func:`room` for ``rows`` rows; the old rows are copied over and the new
    ones set to ``fill``.
    """
    if rows <= len(array):
        return array
    capacity = room(len(array), rows)
    bigger = np.full((capacity,) + array.shape[1:], fill, dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger


def zeroed_columns(columns: list[tuple[tuple[int, ...], type]]) -> list[np.ndarray]:
    """Zeroed arrays of the given (shape, dtype) pairs, 8-byte items each, carved one after
    the other from one allocation, each starting on a 64-byte cache line.

    A table's columns, each under a megabyte in a large scene, together span tens of them,
    and numpy asks the kernel to back an allocation of 4 MiB or more with 2 MiB pages: the
    thousands of 4 KiB pages a column each would take become a few large ones, whose
    addresses the processor keeps translated through a pass over a large pile instead of
    missing and waiting for them (most of all in a virtual machine, whose misses walk two
    tables).
    """
    for _, dtype in columns:
        if np.dtype(dtype).itemsize != 8:
            raise ValueError(f"zeroed_columns: dtype {dtype} must have 8-byte items")
    sizes = [int(np.prod(shape)) for shape, _ in columns]
    starts, end = [], 0
    for size in sizes:
        starts.append(end)
        end += -(-size // 8) * 8  # to the next 64 bytes
    buffer = np.zeros(max(end, 1))
    arrays = []
    for (shape, dtype), start, size in zip(columns, starts, sizes, strict=True):
        arrays.append(buffer[start:start + size].view(dtype).reshape(shape))
    return arrays


class ColumnView:
    """A property that shows one column of a table's rows in use, as a numpy view.

    Declared in a class body as ``velocities = ColumnView("(N, 2) velocities (m/s).")``, it
    reads the field of the same name from ``instance.arrays`` (a NamedTuple of columns).
    Columns that are derived from others (a mass from a shape, an origin from a centre) are
    shown read-only, so that they cannot drift out of step with what they are derived from.
    """

    def __init__(self, doc: str, *, writable: bool = False):
        self.__doc__ = doc
        self.writable = writable
        self.name = ""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        column = getattr(instance.arrays, self.name)
        if self.writable:
            return column
        view = column.view()
        view.flags.writeable = False
        return view


def without_rows(items: list, rows: np.ndarray) -> list:
    """A new list of ``items`` without the positions ``rows`` (sorted, distinct), the rest
    in order: one slice copied per run of kept items, so the work in Python grows with the
    rows dropped, not with the list."""
    kept, start = [], 0
    for row in rows.tolist():
        kept.extend(items[start:row])
        start = row + 1
    kept.extend(items[start:])
    return kept


class CachesViews:
    """A table that caches views of its columns (in the attributes named by
    ``_CACHED_VIEWS``, with the value each holds when nothing is cached) and rebuilds them
    after a change. ``pickle`` and ``copy.deepcopy`` keep the columns without the views: a
    copied view is an array of its own, so writes through it would miss the columns and
    the next rebuilt view would undo them."""

    _CACHED_VIEWS: dict = {}

    def __getstate__(self) -> dict:
        return {**self.__dict__, **copy.deepcopy(self._CACHED_VIEWS)}


def carry_out(apply: Callable, plan) -> None:
    """``apply(plan)``, finished even if an exception (Ctrl-C, a ``MemoryError``) cuts it
    short: ``apply`` does each part of ``plan`` once however often it is called, so calling
    it again completes it, and the exception is raised after. A change worked out first as
    a plan, changing nothing, and applied this way is all or nothing."""
    try:
        apply(plan)
    except BaseException:
        apply(plan)
        raise
