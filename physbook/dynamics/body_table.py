"""The bodies of a world as a structure of arrays: one row per body, one array per column.

A compiled loop runs over every body at once, so the state of body ``i`` is row ``i`` of
each column (:class:`BodyArrays`). Removing bodies closes the gaps by moving the rows behind
them up, in order (one compiled pass over the columns however many bodies go).

Each body also has an ``id``, which stays with it while it lives, and a ``generation``. Ids
are recycled, as Box2D's id pool recycles them: a removed body's id goes to a later body,
so the ids in use never exceed the most bodies alive at once, and a game that spawns and
removes bodies forever keeps a map as small as its busiest moment. The generation counts
the bodies that had the id before: a handle keeps the generation of its body, so a handle
to a removed body is refused (``LookupError``) even after its id was given to a new body.
Nothing is ordered by body id (contacts and events are keyed by shape ids, which are never
reused), so ids need not follow the rows.

The id is the body's *slot*: an array gives each slot its current row, and another each
row its slot; the rows beyond the count hold the free slots, the next body's first. A
removal renumbers the rows of the slots that moved, all at once. Besides the arrays the
table keeps what a compiled loop cannot hold: each body's shapes and material, and its
handle.

Adding and removing are all or nothing: an exception inside either (an interrupt, a
``MemoryError``) leaves the table as it was before the call or as it is after it. A
removal is worked out first (:meth:`BodyTable.removal`, which changes nothing) and then
carried out by :meth:`BodyTable.remove_rows`, whose every part happens once however often
it is called: called again after an interruption, it finishes what is left.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._buffers import CachesViews, carry_out, grown, without_rows
from physbook._jit import njit


class BodyArrays(NamedTuple):
    """Every column of a :class:`BodyTable`, rows in use: what the stages of a step read and
    write. Units: m, rad, m/s, rad/s, N, N·m, kg, kg·m²."""

    origins: np.ndarray  #: (N, 2) body origins in the world
    centers: np.ndarray  #: (N, 2) centres of mass in the world
    angles: np.ndarray  #: (N,) body angles
    velocities: np.ndarray  #: (N, 2) velocities of the centres of mass
    angular_velocities: np.ndarray  #: (N,)
    forces: np.ndarray  #: (N, 2) forces accumulated for the coming step
    torques: np.ndarray  #: (N,) torques accumulated for the coming step
    masses: np.ndarray  #: (N,) 0 when not dynamic
    inertias: np.ndarray  #: (N,) about the centres of mass; 0 when not dynamic
    inverse_masses: np.ndarray  #: (N,) 0 when not dynamic
    inverse_inertias: np.ndarray  #: (N,) 0 when not dynamic
    local_centers: np.ndarray  #: (N, 2) centres of mass in body coordinates
    gravity_scales: np.ndarray  #: (N,) multipliers of the world's gravity
    kinds: np.ndarray  #: (N,) int64 codes of physbook.kinds
    ids: np.ndarray  #: (N,) int64 body ids (a removed body's id goes to a later body)
    sizes: np.ndarray  #: (N,) the thinnest shape, 2·area/perimeter (m; inf for segments only)
    awake: np.ndarray  #: (N,) bool: moves this step (false when asleep, and for static bodies)
    sleep_times: np.ndarray  #: (N,) how long the body has been slow enough to sleep (s)
    #: (N, 2) and (N,): where a sleeping body's centre was, and its angle, when it fell
    #: asleep; one found elsewhere was moved through the arrays, and wakes (chapter 11)
    sleep_centers: np.ndarray
    sleep_angles: np.ndarray
    bullets: np.ndarray  #: (N,) bool: continuous against dynamic bodies too (chapter 13)
    #: (N,) damping rates c (1/s): each step divides v, or ω, by 1 + c·h (chapter 16)
    linear_dampings: np.ndarray
    angular_dampings: np.ndarray


#: Shape of one row and dtype of each column, in the order of :class:`BodyArrays`.
_LAYOUT = {
    "origins": ((2,), np.float64),
    "centers": ((2,), np.float64),
    "angles": ((), np.float64),
    "velocities": ((2,), np.float64),
    "angular_velocities": ((), np.float64),
    "forces": ((2,), np.float64),
    "torques": ((), np.float64),
    "masses": ((), np.float64),
    "inertias": ((), np.float64),
    "inverse_masses": ((), np.float64),
    "inverse_inertias": ((), np.float64),
    "local_centers": ((2,), np.float64),
    "gravity_scales": ((), np.float64),
    "kinds": ((), np.int64),
    "ids": ((), np.int64),
    "sizes": ((), np.float64),
    "awake": ((), np.bool_),
    "sleep_times": ((), np.float64),
    "sleep_centers": ((2,), np.float64),
    "sleep_angles": ((), np.float64),
    "bullets": ((), np.bool_),
    "linear_dampings": ((), np.float64),
    "angular_dampings": ((), np.float64),
}
assert tuple(_LAYOUT) == BodyArrays._fields


def _names(row_shape: tuple, dtype) -> tuple[str, ...]:
    return tuple(name for name, layout in _LAYOUT.items() if layout == (row_shape, dtype))


#: The columns by kind, as the compiled removal takes them: (N, 2) floats, (N,) floats,
#: integers and flags.
_PAIRS, _SCALARS, _INTEGERS, _FLAGS = (_names((2,), np.float64), _names((), np.float64),
                                      _names((), np.int64), _names((), np.bool_))
assert sorted(_PAIRS + _SCALARS + _INTEGERS + _FLAGS) == sorted(_LAYOUT)


@njit(refcounted=False)
def _close_gaps(column, removed, count):
    """Drop the rows ``removed`` (sorted, distinct) from the first ``count`` rows of the
    (N,) ``column``: each run of rows between two gaps moves up by the gaps before it."""
    kept = removed[0]
    for gap in range(removed.shape[0]):
        end = removed[gap + 1] if gap + 1 < removed.shape[0] else count
        for row in range(removed[gap] + 1, end):
            column[kept] = column[row]
            kept += 1


@njit(refcounted=False)
def _close_pair_gaps(column, removed, count):
    """:func:`_close_gaps` for an (N, 2) column."""
    kept = removed[0]
    for gap in range(removed.shape[0]):
        end = removed[gap + 1] if gap + 1 < removed.shape[0] else count
        for row in range(removed[gap] + 1, end):
            column[kept, 0] = column[row, 0]
            column[kept, 1] = column[row, 1]
            kept += 1


@njit(refcounted=False)
def _remove_body_rows(pairs, scalars, integers, flags, slot_of_row, row_of_slot,
                      generations, removed, freed, count, done):
    """Drop the rows ``removed`` (sorted) of ``count`` from every column, in one call:
    the rows behind each gap move up, in order. ``slot_of_row`` is compacted the same way
    and gets the slots ``freed`` (those of the removed rows, the next one given first) just
    behind the rows kept, ``row_of_slot`` the new row of every slot that moved, and each
    freed slot its next generation. ``done[0]`` is set last: the pass ran, all of it."""
    for column in pairs:
        _close_pair_gaps(column, removed, count)
    for column in scalars:
        _close_gaps(column, removed, count)
    for column in integers:
        _close_gaps(column, removed, count)
    for column in flags:
        _close_gaps(column, removed, count)
    _close_gaps(slot_of_row, removed, count)
    kept = count - removed.shape[0]
    for k in range(freed.shape[0]):
        slot_of_row[kept + k] = freed[k]
        generations[freed[k]] += 1
    for row in range(removed[0], kept):
        row_of_slot[slot_of_row[row]] = row
    done[0] = True


class BodyRemoval(NamedTuple):
    """A removal worked out by :meth:`BodyTable.removal`: the ``rows`` removed (sorted),
    their ``ids``, their ``slots`` in the order they are freed, the row ``count`` before
    it, the per-body lists after it (``(start, stop)`` when the rows are one run, cut out
    in place, else the new shapes, materials and handles lists), and ``done``, (1,) bool,
    set by the compiled pass."""

    rows: np.ndarray
    ids: list
    slots: np.ndarray
    count: int
    lists: tuple
    done: np.ndarray


class BodyTable(CachesViews):
    """The rows of a world's bodies (see the module docstring).

    Parameters
    ----------
    capacity
        Rows to allocate at first; the columns double whenever they fill up.
    """

    _CACHED_VIEWS = {"_arrays": None}

    def __init__(self, capacity: int = 16):
        capacity = _check.positive_int(capacity, "capacity", _check.MAX_CAPACITY)
        self._columns = {name: np.zeros((capacity,) + row_shape, dtype)
                         for name, (row_shape, dtype) in _LAYOUT.items()}
        self._count = 0
        # Slots are ids. Slot -> row; row -> slot, a permutation of the slots: the rows
        # beyond the count hold the free ones, the next new body's first. Slot -> its
        # generation: how many bodies had it and were removed.
        self._slot_of_row = np.arange(capacity, dtype=np.int64)
        self._row_of_slot = np.zeros(capacity, np.int64)
        self._generations = np.zeros(capacity, np.int64)
        self._shapes: list[tuple] = []
        self._materials: list = []
        self._fixed_rotations: list[bool] = []
        self._user_data: list = []
        self._handles: list = []
        self._arrays: BodyArrays | None = None

    @property
    def count(self) -> int:
        """Number of bodies (rows in use)."""
        return self._count

    @property
    def capacity(self) -> int:
        """Rows allocated (and ids: the ids in use are below it)."""
        return len(self._columns["ids"])

    @property
    def arrays(self) -> BodyArrays:
        """Writable views of every column, rows in use (rebuilt only after a change)."""
        if self._arrays is None:
            self._arrays = BodyArrays(**{name: column[: self._count]
                                         for name, column in self._columns.items()})
        return self._arrays

    @property
    def generations(self) -> np.ndarray:
        """(N,) int64 the generation of each row's body: how many bodies had its id
        before it (a new array)."""
        return self._generations[self._slot_of_row[: self._count]]

    def _live_row(self, body_id: int) -> int:
        """The row of the body holding ``body_id`` now, or -1 if none does."""
        if not 0 <= body_id < len(self._row_of_slot):
            return -1
        row = int(self._row_of_slot[body_id])
        return row if row < self._count and self._slot_of_row[row] == body_id else -1

    def generation(self, body_id: int) -> int:
        """The generation of the body holding ``body_id`` now; ``LookupError`` if none."""
        self.row_of(body_id)
        return int(self._generations[body_id])

    def row_of(self, body_id: int, generation: int | None = None) -> int:
        """The current row of body ``body_id``; ``LookupError`` once it was removed. With
        a ``generation``, the body must be that one, not a later body given its id."""
        row = self._live_row(body_id)
        if row < 0:
            if 0 <= body_id < len(self._generations) and self._generations[body_id] > 0:
                raise LookupError(f"body {body_id} was removed from this world; its handle "
                                  "is stale")
            raise LookupError(f"no body has id {body_id} in this world")
        if generation is not None and generation != self._generations[body_id]:
            raise LookupError(f"body {body_id} (generation {generation}) was removed from "
                              "this world; its handle is stale (the id now belongs to "
                              f"a later body, generation {self._generations[body_id]})")
        return row

    def is_alive(self, body_id: int, generation: int | None = None) -> bool:
        """Whether body ``body_id`` (of that ``generation``, if given) is in the table."""
        return self._live_row(body_id) >= 0 and (
            generation is None or generation == self._generations[body_id])

    def shapes(self, row: int) -> tuple:
        """The shapes of the body at ``row``."""
        return self._shapes[row]

    def materials(self, row: int) -> tuple:
        """The material of each shape of the body at ``row``, in order."""
        return self._materials[row]

    def set_materials(self, row: int, materials: tuple) -> None:
        """Record ``materials`` (one per shape) as those of the body at ``row``."""
        self._materials[row] = tuple(materials)

    def user_data(self, row: int):
        """What the game keeps with the body at ``row``."""
        return self._user_data[row]

    def set_user_data(self, row: int, value) -> None:
        """Keep ``value`` with the body at ``row``."""
        self._user_data[row] = value

    def fixed_rotation(self, row: int) -> bool:
        """Whether the body at ``row`` was asked never to turn (its inverse inertia is then
        0 while it is dynamic)."""
        return self._fixed_rotations[row]

    def set_fixed_rotation(self, row: int, fixed: bool) -> None:
        self._fixed_rotations[row] = fixed

    def handle(self, row: int):
        """The handle of the body at ``row``."""
        return self._handles[row]

    @property
    def handles(self) -> list:
        """The handles of all bodies, in row order (a new list)."""
        return list(self._handles)

    @property
    def all_shapes(self) -> tuple:
        """The shapes of every body, in row order."""
        return tuple(self._shapes)

    def reserve(self, rows: int) -> None:
        """Make room for ``rows`` rows (the columns double as they grow); the rows in use
        do not change."""
        capacity = self.capacity
        if rows <= capacity:
            return
        columns = {name: grown(column, rows) for name, column in self._columns.items()}
        size = len(columns["ids"])
        slot_of_row = np.concatenate([self._slot_of_row, np.arange(capacity, size)])
        row_of_slot = grown(self._row_of_slot, size)
        generations = grown(self._generations, size)
        self._columns, self._slot_of_row, self._row_of_slot, self._generations, \
            self._arrays = columns, slot_of_row, row_of_slot, generations, None

    def add(self, values: dict, shapes: tuple, materials: tuple, make_handle,
            fixed_rotation: bool = False, user_data=None) -> int:
        """Append a body: ``values`` maps column names to its row's values (columns left out
        are 0), ``materials`` holds one material per shape, ``make_handle(body_id)`` builds
        its handle. Returns its row. The body takes the first free id, the latest one
        freed, in its next generation."""
        row = self._count
        self.reserve(row + 1)
        mark = self.mark()
        try:
            body_id = int(self._slot_of_row[row])
            for name, column in self._columns.items():
                column[row] = values.get(name, 0)
            self._columns["ids"][row] = body_id
            self._row_of_slot[body_id] = row
            self._shapes.append(shapes)
            self._materials.append(tuple(materials))
            self._fixed_rotations.append(fixed_rotation)
            self._user_data.append(user_data)
            self._count, self._arrays = row + 1, None
            self._handles.append(make_handle(body_id))
        except BaseException:
            self.truncate(mark)
            raise
        return row

    def _lists(self) -> tuple[list, list, list, list, list]:
        """What the table keeps per row outside its columns, in Python lists."""
        return (self._shapes, self._materials, self._fixed_rotations, self._user_data,
                self._handles)

    def mark(self) -> int:
        """What :meth:`truncate` goes back to: the rows in use."""
        return self._count

    def truncate(self, mark: int) -> None:
        """Forget the bodies added since :meth:`mark` gave ``mark``, whether their
        :meth:`add` finished or not; their ids are free again."""
        count = mark
        del self._shapes[count:], self._materials[count:], self._fixed_rotations[count:], \
            self._user_data[count:], self._handles[count:]
        self._count, self._arrays = count, None

    def removal(self, rows, order=None) -> BodyRemoval:
        """Work out the removal of the bodies at ``rows`` (sorted, distinct rows in use)
        for :meth:`remove_rows`; nothing changes yet. ``order``, the rows in the order
        they are removed (default: ``rows``), orders the ids freed: the last removed is
        given again first, as if each were removed in turn."""
        rows = np.asarray(rows, np.int64)
        if rows.ndim != 1 or not len(rows) or rows[0] < 0 or rows[-1] >= self._count or (
                np.any(np.diff(rows) <= 0)):
            raise ValueError(f"rows must be sorted distinct rows from 0 to {self._count - 1}, "
                             f"at least one, got {rows}")
        order = rows if order is None else np.asarray(order, np.int64)
        if order.shape != rows.shape or not np.array_equal(np.sort(order), rows):
            raise ValueError(f"order must hold the rows {rows} in some order, got {order}")
        if rows[-1] - rows[0] + 1 == len(rows):  # one run, cut out of the lists in place
            lists = (int(rows[0]), int(rows[-1]) + 1)
        else:
            lists = tuple(without_rows(items, rows) for items in self._lists())
        return BodyRemoval(rows, self._columns["ids"][rows].tolist(),
                           self._slot_of_row[order[::-1]], self._count, lists,
                           np.zeros(1, np.bool_))

    def remove_rows(self, removal: BodyRemoval) -> None:
        """Carry out ``removal`` (from :meth:`removal`): the rows behind each removed one
        move up, in order, and the removed ids are free, the first given again. Each part
        is done once, so a call interrupted midway is finished by calling again."""
        rows, _, slots, count, lists, done = removal
        if not done[0]:
            columns = self._columns
            _remove_body_rows(tuple(columns[name] for name in _PAIRS),
                              tuple(columns[name] for name in _SCALARS),
                              tuple(columns[name] for name in _INTEGERS),
                              tuple(columns[name] for name in _FLAGS), self._slot_of_row,
                              self._row_of_slot, self._generations, rows, slots, count, done)
        if len(lists) == 2 and isinstance(lists[0], int):
            start, stop = lists
            for items in self._lists():
                if len(items) == count:
                    del items[start:stop]
        else:
            (self._shapes, self._materials, self._fixed_rotations, self._user_data,
             self._handles) = lists
        self._count, self._arrays = count - len(rows), None

    def remove(self, body_id: int) -> int:
        """Remove body ``body_id``; the rows behind it move up one. Returns its old row."""
        row = self.row_of(body_id)
        carry_out(self.remove_rows, self.removal([row]))
        return row
