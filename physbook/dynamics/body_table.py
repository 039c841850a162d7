"""The bodies of a world as a structure of arrays: one row per body, one array per column.

A compiled loop runs over every body at once, so the state of body ``i`` is row ``i`` of
each column (:class:`BodyArrays`). Each body also has an ``id`` that never changes and is
never reused: removing a body closes the gap by moving the rows behind it up one, in order,
and the table maps ids to their current rows. Besides the arrays the table keeps what a
compiled loop cannot hold: each body's shapes and material, and its handle.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._buffers import grown


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
    restitutions: np.ndarray  #: (N,) restitution of each body's material
    frictions: np.ndarray  #: (N,) friction coefficient of each body's material
    ids: np.ndarray  #: (N,) int64 stable body ids
    sizes: np.ndarray  #: (N,) the body's thinnest shape, 2·area/perimeter (m)
    awake: np.ndarray  #: (N,) bool: moves this step (false when asleep, and for static bodies)
    sleep_times: np.ndarray  #: (N,) how long the body has been slow enough to sleep (s)
    #: (N, 2) and (N,): where a sleeping body's centre was, and its angle, when it fell
    #: asleep; one found elsewhere was moved through the arrays, and wakes (chapter 11)
    sleep_centers: np.ndarray
    sleep_angles: np.ndarray
    bullets: np.ndarray  #: (N,) bool: continuous against dynamic bodies too (chapter 13)


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
    "restitutions": ((), np.float64),
    "frictions": ((), np.float64),
    "ids": ((), np.int64),
    "sizes": ((), np.float64),
    "awake": ((), np.bool_),
    "sleep_times": ((), np.float64),
    "sleep_centers": ((2,), np.float64),
    "sleep_angles": ((), np.float64),
    "bullets": ((), np.bool_),
}
assert tuple(_LAYOUT) == BodyArrays._fields


class BodyTable:
    """The rows of a world's bodies (see the module docstring).

    Parameters
    ----------
    capacity
        Rows to allocate at first; the columns double whenever they fill up.
    """

    def __init__(self, capacity: int = 16):
        capacity = _check.positive_int(capacity, "capacity", _check.MAX_CAPACITY)
        self._columns = {name: np.zeros((capacity,) + row_shape, dtype)
                         for name, (row_shape, dtype) in _LAYOUT.items()}
        self._count = 0
        self._next_id = 0
        self._row_of_id = np.full(capacity, -1, np.int64)
        self._shapes: list[tuple] = []
        self._materials: list = []
        self._handles: list = []
        self._arrays: BodyArrays | None = None

    @property
    def count(self) -> int:
        """Number of bodies (rows in use)."""
        return self._count

    @property
    def capacity(self) -> int:
        """Rows allocated."""
        return len(self._columns["ids"])

    @property
    def arrays(self) -> BodyArrays:
        """Writable views of every column, rows in use (rebuilt only after a change)."""
        if self._arrays is None:
            self._arrays = BodyArrays(**{name: column[: self._count]
                                         for name, column in self._columns.items()})
        return self._arrays

    def row_of(self, body_id: int) -> int:
        """The current row of body ``body_id``; ``LookupError`` once it was removed."""
        if not 0 <= body_id < self._next_id:
            raise LookupError(f"no body has id {body_id} in this world; ids run from 0 to "
                              f"{self._next_id - 1}")
        row = int(self._row_of_id[body_id])
        if row < 0:
            raise LookupError(f"body {body_id} was removed from this world; its handle is stale")
        return row

    def is_alive(self, body_id: int) -> bool:
        return 0 <= body_id < self._next_id and bool(self._row_of_id[body_id] >= 0)

    def shapes(self, row: int) -> tuple:
        """The shapes of the body at ``row``."""
        return self._shapes[row]

    def material(self, row: int):
        """The material of the body at ``row``."""
        return self._materials[row]

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

    def add(self, values: dict, shapes: tuple, material, make_handle) -> int:
        """Append a body: ``values`` maps column names to its row's values (columns left out
        are 0), ``make_handle(body_id)`` builds its handle. Returns its row."""
        row, body_id = self._count, self._next_id
        if row == self.capacity:
            self._columns = {name: grown(column, row + 1)
                             for name, column in self._columns.items()}
        self._row_of_id = grown(self._row_of_id, body_id + 1, fill=-1)
        for name, column in self._columns.items():
            column[row] = values.get(name, 0)
        self._columns["ids"][row] = body_id
        self._row_of_id[body_id] = row
        self._next_id += 1
        self._count += 1
        self._shapes.append(shapes)
        self._materials.append(material)
        self._handles.append(make_handle(body_id))
        self._arrays = None
        return row

    def remove(self, body_id: int) -> int:
        """Remove body ``body_id``; the rows behind it move up one. Returns its old row."""
        row = self.row_of(body_id)
        count = self._count
        for column in self._columns.values():
            column[row : count - 1] = column[row + 1 : count]
        self._count -= 1
        self._row_of_id[body_id] = -1
        self._row_of_id[self._columns["ids"][row : self._count]] -= 1
        del self._shapes[row], self._materials[row], self._handles[row]
        self._arrays = None
        return row
