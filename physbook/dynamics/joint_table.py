"""Chapter 11: the joints of a world as a structure of arrays, one row per joint.

A compiled solver loops over every joint at once, so joint ``j`` is row ``j`` of each
column (:class:`JointColumns`): its kind, the body rows it links, where it holds each body,
its settings, and the impulses it gave in the last step (kept for warm starting and read as
the joint's reaction). Removing a joint moves the rows behind it up by one, in order.

Each joint has an id, its own while it is in the world; a removed joint's id goes to a
later joint (the smallest free id first), so the id map never outgrows the most joints held at
once. A joint handle that leaves the world forgets its id, so no generation is needed to
catch a stale one.

Adding and removing are all or nothing. A removal (of joints, and of the joints of removed
bodies) builds the table it leaves, and takes it in with one assignment.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._buffers import CachesViews, grown, without_rows
from physbook._jit import njit


@njit(refcounted=False)
def held_apart(joined, a, b):
    """Whether body rows a and b are held by a joint that keeps them from colliding:
    their key is in ``joined`` (:meth:`JointTable.joined_pairs`)."""
    key = (min(a, b) << 32) + max(a, b)
    at = np.searchsorted(joined, key)
    return at < joined.shape[0] and joined[at] == key


@njit
def drop_joined(pairs, shape_body, joined):
    """The shape pairs, in order, whose bodies no joint keeps from colliding (a new
    array); ``shape_body`` gives each shape's body row, ``joined`` the sorted keys of
    :meth:`JointTable.joined_pairs`."""
    kept = np.empty_like(pairs)
    count = 0
    for p in range(pairs.shape[0]):
        if not held_apart(joined, shape_body[pairs[p, 0]], shape_body[pairs[p, 1]]):
            kept[count, 0] = pairs[p, 0]
            kept[count, 1] = pairs[p, 1]
            count += 1
    return kept[:count]


class JointColumns(NamedTuple):
    """Every column of a :class:`JointTable`, rows in use (J joints).

    ``kinds`` (J,) codes of :data:`physbook.kinds.JOINT_KINDS`; ``bodies`` (J, 2) body rows
    of A and B (a mouse joint has B in both slots); ``local_anchors`` (J, 2, 2) each
    anchor relative to its body's centre of mass, in body axes (m; a mouse joint keeps its
    target, in the world, in slot A); ``local_axes`` (J, 2) the unit axis of a prismatic or
    wheel joint in A's axes; ``reference_angles`` (J,) θ_B − θ_A when the joint was made
    (rad); ``lengths`` (J,) a distance joint's rest length (m); ``lower``, ``upper`` (J,)
    limits (m or rad; ±inf when off); ``motor_speeds`` (J,) (m/s or rad/s);
    ``max_motor`` (J,) the motor's largest force or torque (N or N·m; 0: no motor);
    ``hertz``, ``damping_ratios`` (J,) the joint's spring (0 Hz: none); ``angular_hertz``,
    ``angular_damping_ratios`` (J,) a weld joint's angular spring; ``max_forces`` (J,) a
    mouse or motor joint's largest force (N); ``correction_factors`` (J,) the fraction of
    a motor joint's offset error it removes per (sub)step (a motor joint keeps its linear
    offset in ``local_axes``, its angular offset in ``reference_angles`` and its largest
    torque in ``max_motor``); the impulses of the last step (N·s, N·m·s):
    ``linear_impulses`` (J, 2) of the point constraint (a prismatic or wheel joint keeps
    its perpendicular impulse in slot 0), ``angular_impulses``, ``spring_impulses`` (the
    spring, or a rigid distance joint's rod), ``motor_impulses``, ``lower_impulses``,
    ``upper_impulses`` (J,); and the reaction they add up to, ``reaction_forces`` (J, 2)
    on B in the world (N) and ``reaction_torques`` (J,) on B (N·m).
    """

    kinds: np.ndarray
    bodies: np.ndarray
    local_anchors: np.ndarray
    local_axes: np.ndarray
    reference_angles: np.ndarray
    lengths: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    motor_speeds: np.ndarray
    max_motor: np.ndarray
    hertz: np.ndarray
    damping_ratios: np.ndarray
    angular_hertz: np.ndarray
    angular_damping_ratios: np.ndarray
    max_forces: np.ndarray
    correction_factors: np.ndarray
    linear_impulses: np.ndarray
    angular_impulses: np.ndarray
    spring_impulses: np.ndarray
    motor_impulses: np.ndarray
    lower_impulses: np.ndarray
    upper_impulses: np.ndarray
    reaction_forces: np.ndarray
    reaction_torques: np.ndarray


#: Shape of one row and dtype of each column, in the order of :class:`JointColumns`.
_LAYOUT = {name: ((), np.float64) for name in JointColumns._fields}
_LAYOUT.update({
    "kinds": ((), np.int64), "bodies": ((2,), np.int64), "local_anchors": ((2, 2), np.float64),
    "local_axes": ((2,), np.float64), "linear_impulses": ((2,), np.float64),
    "reaction_forces": ((2,), np.float64),
})
_LAYOUT = {name: _LAYOUT[name] for name in JointColumns._fields}

#: The columns of impulses, which a step writes (saved before it, restored if it fails).
IMPULSE_COLUMNS = ("linear_impulses", "angular_impulses", "spring_impulses",
                   "motor_impulses", "lower_impulses", "upper_impulses")


class JointRemoval(NamedTuple):
    """A removal worked out by :meth:`JointTable.removal`: the joint ``rows`` removed and
    their ``handles``, and the table after it: its ``columns``, ``count``, ``row_of_id``
    map, ``id_of_row`` map, ``free`` ids (the next given last) and ``kept`` handles."""

    rows: np.ndarray
    handles: list
    columns: dict
    count: int
    row_of_id: np.ndarray
    id_of_row: np.ndarray
    free: np.ndarray
    kept: list


class JointTable(CachesViews):
    """The rows of a world's joints (see the module docstring)."""

    _CACHED_VIEWS = {"_arrays": None}

    def __init__(self, capacity: int = 4):
        self._columns = {name: np.zeros((capacity,) + shape, dtype)
                         for name, (shape, dtype) in _LAYOUT.items()}
        self._count = 0
        # Ids given so far run from 0 to _next_id - 1; those of removed joints wait in
        # _free, largest first, for the next joints, which take the last.
        self._next_id = 0
        self._row_of_id = np.full(capacity, -1, np.int64)
        self._id_of_row = np.zeros(capacity, np.int64)
        self._free = np.zeros(0, np.int64)
        self._handles: list = []
        self._arrays: JointColumns | None = None
        self._joined: np.ndarray | None = None

    @property
    def count(self) -> int:
        """Number of joints (rows in use)."""
        return self._count

    @property
    def arrays(self) -> JointColumns:
        """Writable views of every column, rows in use (rebuilt only after a change)."""
        if self._arrays is None:
            self._arrays = JointColumns(**{name: column[: self._count]
                                           for name, column in self._columns.items()})
        return self._arrays

    @property
    def handles(self) -> list:
        """The joint objects, in row order (a new list)."""
        return list(self._handles)

    def row_of(self, joint_id: int) -> int:
        """The current row of joint ``joint_id``; ``LookupError`` once it was removed."""
        row = int(self._row_of_id[joint_id]) if 0 <= joint_id < len(self._row_of_id) else -1
        if not 0 <= row < self._count or self._id_of_row[row] != joint_id:
            raise LookupError(f"joint {joint_id} is not in this world (it was removed, or "
                              "belongs to another world)")
        return row

    def add(self, values: dict, handle) -> int:
        """Append a joint: ``values`` maps column names to its row's values (columns left
        out are 0). Returns its id."""
        row = self._count
        reused = len(self._free) > 0
        joint_id = int(self._free[-1]) if reused else self._next_id
        if row == len(self._columns["kinds"]):
            self._columns = {name: grown(column, row + 1)
                             for name, column in self._columns.items()}
        self._row_of_id = grown(self._row_of_id, joint_id + 1, fill=-1)
        self._id_of_row = grown(self._id_of_row, row + 1)
        # The new row and id lie beyond the count and the ids in use: unseen until the
        # last line takes them in.
        for name, column in self._columns.items():
            column[row] = values.get(name, 0)
        self._row_of_id[joint_id] = row
        self._id_of_row[row] = joint_id
        mark = self.mark()
        try:
            self._handles.append(handle)
            self._count, self._next_id, self._free, self._arrays, self._joined = (
                row + 1, self._next_id + (not reused), self._free[:len(self._free) - reused],
                None, None)
        except BaseException:
            self.truncate(mark)
            raise
        return joint_id

    def mark(self) -> tuple:
        """What :meth:`truncate` goes back to: (rows in use, next id, free ids)."""
        return self._count, self._next_id, self._free

    def truncate(self, mark: tuple) -> None:
        """Forget the joints added since :meth:`mark` gave ``mark``, whether their
        :meth:`add` finished or not; their ids are free again."""
        count, _, _ = mark
        self._row_of_id[self._id_of_row[count:self._count]] = -1
        del self._handles[count:]
        self._count, self._next_id, self._free, self._arrays, self._joined = (*mark, None,
                                                                             None)

    def remove(self, joint_id: int):
        """Remove joint ``joint_id``; the rows behind it move up one. Returns its handle."""
        removal = self.removal(joint_rows=[self.row_of(joint_id)])
        self.apply_removal(removal)
        return removal.handles[0]

    def removal(self, joint_rows=(), body_rows=()) -> JointRemoval | None:
        """Work out the removal of the joints at ``joint_rows`` and of every joint that
        holds a body at ``body_rows`` (sorted, distinct), bodies that leave the world: the
        joints' rows of the bodies behind them are renumbered (a body behind j of them
        moves up j rows). Returns None when the table would not change; nothing changes
        yet (:meth:`apply_removal` does it)."""
        count = self._count
        body_rows = np.asarray(body_rows, np.int64)
        bodies = self._columns["bodies"][:count]
        gone = np.zeros(count, np.bool_)
        gone[np.asarray(joint_rows, np.int64)] = True
        if len(body_rows):
            gone |= np.isin(bodies, body_rows).any(axis=1)
        rows = np.flatnonzero(gone)
        if not len(rows) and not (len(body_rows) and np.any(bodies > body_rows[0])):
            return None
        keep = np.flatnonzero(~gone)
        columns = {}
        for name, column in self._columns.items():
            columns[name] = np.zeros_like(column)
            columns[name][:len(keep)] = column[keep]
        renumbered = columns["bodies"][:len(keep)]
        renumbered -= np.searchsorted(body_rows, renumbered)
        ids = self._id_of_row[:count]
        row_of_id = self._row_of_id.copy()
        row_of_id[ids[rows]] = -1
        row_of_id[ids[keep]] = np.arange(len(keep))
        id_of_row = np.zeros_like(self._id_of_row)
        id_of_row[:len(keep)] = ids[keep]
        return JointRemoval(rows, [self._handles[row] for row in rows.tolist()], columns,
                            len(keep), row_of_id, id_of_row,
                            np.sort(np.concatenate([self._free, ids[rows]]))[::-1],
                            without_rows(self._handles, rows))

    def apply_removal(self, removal: JointRemoval | None) -> None:
        """Take in the table ``removal`` (from :meth:`removal`) leaves, in one assignment."""
        if removal is not None:
            self._columns, self._count, self._row_of_id, self._id_of_row, self._free, \
                self._handles, self._arrays, self._joined = (
                    removal.columns, removal.count, removal.row_of_id, removal.id_of_row,
                    removal.free, removal.kept, None, None)

    def joined_pairs(self) -> np.ndarray:
        """Sorted keys ``a·2³² + b`` (a < b body rows) of bodies held by a joint whose
        ``collide_connected`` is False: their shapes get no contacts. Kept until a joint
        or a body is added or removed."""
        if self._joined is None:
            self._joined = self._joined_keys()
        return self._joined

    def _joined_keys(self) -> np.ndarray:
        keep = [not handle.collide_connected for handle in self._handles]
        bodies = self.arrays.bodies[np.array(keep, bool)] if self._count else \
            np.zeros((0, 2), np.int64)
        low, high = np.minimum(bodies[:, 0], bodies[:, 1]), np.maximum(bodies[:, 0],
                                                                       bodies[:, 1])
        return np.unique((low << 32) + high)
