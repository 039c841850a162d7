"""Chapter 11: removing bodies from a world, all or nothing.

A removal is worked out first (:meth:`BodyRemover.plan`: every table's removal, the joints
that leave, the events that end, the islands that wake), changing nothing, and then carried
out (:meth:`BodyRemover.apply`), each part once however often it is called; so an exception
inside a removal (Ctrl-C, a ``MemoryError``) leaves the world as it was or with the bodies
removed, never in between.
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np

from physbook._buffers import carry_out
from physbook.broadphase.tree import DynamicTree
from physbook.dynamics.body import Body
from physbook.dynamics.body_table import BodyRemoval, BodyTable
from physbook.dynamics.contact_table import ContactTable
from physbook.dynamics.islands import islands_after_removals
from physbook.dynamics.joint_table import JointRemoval, JointTable
from physbook.dynamics.sleep import Sleep
from physbook.event_log import EventLog
from physbook.geometry.shape_table import ShapeRemoval, ShapeTable
from physbook.kinds import DYNAMIC
from physbook.queries import QueryIndex


class WorldRemoval(NamedTuple):
    """What :meth:`BodyRemover.plan` worked out for :meth:`BodyRemover.apply`: the joint
    table after it (None: unchanged) and, for each joint that goes, the joint, the settings
    it keeps and the ids of its removed bodies; the events (the removed shapes to
    remember, and for the touching pairs and then the sensor overlaps: the keys left, the
    keys ended and the length of the list they join); the broad phase and query stages
    with what each does; the body and shape table removals; the rows, after it, of the
    bodies that wake; and the island labels after it."""

    joints: JointRemoval | None
    detached: list
    events: tuple
    stages: list
    bodies: BodyRemoval
    shapes: ShapeRemoval
    woken: np.ndarray
    islands: np.ndarray



class BodyRemover:
    """Removes bodies from the tables of a world, and from what keeps their rows: the
    joints, the contact and sensor tables, the events, the broad phase and the query tree,
    the islands.

    Parameters
    ----------
    bodies, shapes, contacts, sensor_contacts, joints
        The world's tables: bodies, shapes, touching pairs, sensor overlaps, joints.
    sleep, log, queries
        The world's sleep (islands), event log and query index.
    broad_phase
        The world's broad phase stage.
    """

    def __init__(self, *, bodies: BodyTable, shapes: ShapeTable, contacts: ContactTable,
                 sensor_contacts: ContactTable, joints: JointTable, sleep: Sleep,
                 log: EventLog, queries: QueryIndex, broad_phase):
        self._bodies, self._shapes, self._joints = bodies, shapes, joints
        self._contacts, self._sensor_contacts = contacts, sensor_contacts
        self._sleep, self._log, self._queries = sleep, log, queries
        self._broad_phase = broad_phase

    def remove(self, bodies: list[Body]) -> None:
        """Remove ``bodies`` (checked: live, distinct, of this world), or, during the
        callbacks, note them for removal when they have run."""
        if self._log.in_callback():
            pending = {body.id for body in self._log.pending_removals}
            self._log.pending_removals = self._log.pending_removals + [
                body for body in bodies if body.id not in pending]
            return
        if not bodies:
            return
        carry_out(self.apply, self.plan(bodies))

    def plan(self, bodies: list[Body]) -> WorldRemoval:
        """Work out the removal of ``bodies``: everything it writes, computed first, so
        that an exception here leaves the world untouched."""
        table = self._bodies.arrays
        rows = np.sort(np.array([body.row for body in bodies], np.int64))
        gone_ids = {body.id for body in bodies}
        # Joints of removed bodies leave with them, and their other bodies wake.
        joints = self._joints.removal(body_rows=rows)
        detached, partners = [], []
        for joint in joints.handles if joints is not None else ():
            ends = (joint.body_a, joint.body_b)
            detached.append((joint, joint._settings(self._joints),
                             tuple(sorted({end.id for end in ends if end.id in gone_ids}))))
            partners += [end.row for end in ends if end.id not in gone_ids]
        shapes = self._shapes.removal(rows)
        owners = dict(zip(rows.tolist(), sorted(bodies, key=lambda body: body.row),
                          strict=True))
        events = self._log.removal(shapes.rows, owners)
        stages = []
        for stage in (self._broad_phase, self._queries.own_tree):
            if isinstance(stage, DynamicTree):
                stages.append((stage, stage.removal(shapes.rows)))
            elif getattr(stage, "remove_rows", None) is not None:
                # Another stage that keeps rows: it removes them on a copy of itself,
                # whose attributes it takes in at once.
                staged = copy.copy(stage)
                staged.remove_rows(shapes.rows)
                stages.append((stage, staged))
        # Islands: each holding a removed body wakes, with the joints' other bodies.
        labels, woken = islands_after_removals(self._sleep.labels, table.kinds, table.awake,
                                               rows)
        # What touched a removed body wakes too (what rested on a static floor falls with
        # it: static bodies link no island).
        near = self._contacts.partners_of(self._shapes.arrays.ids[shapes.rows],
                                          self._shapes.arrays)
        partners = np.setdiff1d(np.concatenate([np.array(partners, np.int64), near]), rows)
        partners = partners[(table.kinds[partners] == DYNAMIC) & ~table.awake[partners]]
        woken = np.union1d(woken, partners)
        order = [body.row for body in bodies]  # the last of them is the first id given again
        return WorldRemoval(joints, detached, events, stages, self._bodies.removal(rows, order),
                        shapes, woken - np.searchsorted(rows, woken), labels)

    def apply(self, removal: WorldRemoval) -> None:
        """Carry out ``removal`` (from :meth:`plan`). Each part is done once however
        often this is called, so a call interrupted midway is finished by calling again."""
        self._joints.apply_removal(removal.joints)
        for joint, settings, removed_with in removal.detached:
            joint._leave(settings, removed_with)
        self._log.apply_removal(removal.events)
        for stage, staged in removal.stages:
            if isinstance(stage, DynamicTree):
                stage.apply_removal(staged)
            else:
                vars(stage).update(vars(staged))
        self._contacts.drop_removed(self._shapes)
        self._sensor_contacts.drop_removed(self._shapes)
        self._bodies.remove_rows(removal.bodies)
        self._shapes.apply_removal(removal.shapes)
        bodies = self._bodies.arrays
        bodies.awake[removal.woken] = True
        bodies.sleep_times[removal.woken] = 0.0
        self._sleep.labels[:len(removal.islands)] = removal.islands
        self._queries.forget()
