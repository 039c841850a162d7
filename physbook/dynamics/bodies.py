"""Chapters 4 and 9: a world's bodies as a game and a plot see them: handles, one per body,
and the body columns as numpy views.

:class:`Bodies` is what ``World.bodies`` returns. It is a sequence of
:class:`~physbook.dynamics.body.Body` handles in row order (``len``, iteration, indexing),
and it shows every column of the rows in use: ``world.bodies.centers`` is an (N, 2) view,
``world.bodies.velocities`` another, as the stages of a step receive them.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator

import numpy as np

from physbook._buffers import ColumnView
from physbook.dynamics.body_table import BodyArrays, BodyTable
from physbook.dynamics.motion import update_origins


class Bodies:
    """The bodies of a world: their handles and their columns.

    The columns are views of the rows in use, ``0 .. N − 1``; the ones marked writable may
    be written through the view (the origins follow written centres and angles at the next
    step, or at once with :meth:`update_origins`). The others are derived, and read-only. A
    view shows the rows in use when it was taken: adding or removing a body makes new views,
    so read the column again after either (a view kept from before writes to rows no longer
    used).
    """

    origins = ColumnView("(N, 2) body origins in the world (m).")
    centers = ColumnView("(N, 2) centres of mass in the world (m); writable.", writable=True)
    angles = ColumnView("(N,) body angles (rad); writable.", writable=True)
    velocities = ColumnView("(N, 2) velocities of the centres of mass (m/s); writable.",
                            writable=True)
    angular_velocities = ColumnView("(N,) angular velocities (rad/s); writable.",
                                    writable=True)
    forces = ColumnView("(N, 2) forces for the coming step (N); writable.", writable=True)
    torques = ColumnView("(N,) torques for the coming step (N·m); writable.", writable=True)
    masses = ColumnView("(N,) masses (kg); 0 for static and kinematic bodies.")
    inertias = ColumnView("(N,) inertias about the centres of mass (kg·m²); 0 if not dynamic.")
    inverse_masses = ColumnView("(N,) 1/m (1/kg); 0 for static and kinematic bodies.")
    inverse_inertias = ColumnView("(N,) 1/I (1/(kg·m²)); 0 for static and kinematic bodies.")
    local_centers = ColumnView("(N, 2) centres of mass in body coordinates (m).")
    gravity_scales = ColumnView("(N,) multipliers of the world's gravity; writable.",
                                writable=True)
    kinds = ColumnView("(N,) body kinds: DYNAMIC=0, STATIC=1, KINEMATIC=2.")
    linear_dampings = ColumnView("(N,) linear damping rates (1/s); writable.", writable=True)
    angular_dampings = ColumnView("(N,) angular damping rates (1/s); writable.",
                                  writable=True)
    ids = ColumnView("(N,) body ids, by row (a removed body's id goes to a later body).")
    awake = ColumnView("(N,) bool: the body moves in the next step (false when asleep and "
                       "for static bodies; set Body.awake to change it).")
    sleep_times = ColumnView("(N,) how long each body has been slow enough to sleep (s).")
    bullets = ColumnView("(N,) bool: continuous against dynamic bodies too (Body.bullet).")

    def __init__(self, table: BodyTable) -> None:
        self._table = table

    @property
    def arrays(self) -> BodyArrays:
        """Every body column as the stages receive it: writable views, rows in use.

        For compiled code written against the engine, such as a force field applied to all
        bodies. Unlike the column properties, the derived columns here are writable too;
        write a mass or an origin only if you keep what it is derived from in step.
        """
        return self._table.arrays

    @property
    def generations(self) -> np.ndarray:
        """(N,) how many bodies had each row's id before its body (a new array): an id
        goes to a later body once its body is removed, in the next generation."""
        return self._table.generations

    @property
    def capacity(self) -> int:
        """Body rows allocated; grows by doubling."""
        return self._table.capacity

    def update_origins(self) -> None:
        """Recompute every origin from its centre and angle: origin = c − R(θ)·local_c.

        Only needed after writing ``centers`` or ``angles`` directly, to read ``origins``
        before the next step, which does this too.
        """
        update_origins(self._table.arrays)

    def __len__(self) -> int:
        return self._table.count

    def __iter__(self) -> Iterator:
        return iter(self._table.handles)

    def __getitem__(self, index):
        """The handle at row ``index``, or a list of handles for a slice."""
        if isinstance(index, slice):
            return self._table.handles[index]
        row, count = operator.index(index), self._table.count
        if not -count <= row < count:
            raise IndexError(f"index {row} is out of range for {count} bodies")
        return self._table.handle(row % count)

    def __contains__(self, body) -> bool:
        return any(body is handle for handle in self._table.handles)

    def __repr__(self) -> str:
        return f"<{len(self)} bodies>"
