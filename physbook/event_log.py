"""Chapter 12: a world's log of its steps: how many it took, for how long, and what they
found (contacts that began, ended or hit, shapes entering and leaving sensors), with the
game's callbacks for them.

:class:`EventLog` is what ``World.events`` returns. What the steps so far have left is one
immutable :class:`StepRecord`, replaced in one assignment when a step concludes: an
interrupt that lands while a step is concluded leaves either the record before it or the
record after it, never half of each.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.constants import HIT_SPEED
from physbook.contact_hooks import ContactHooks, ContactRule, PreSolveHandler, handler_order
from physbook.dynamics.contact_table import ContactTable, mark_pairs_of
from physbook.events import (
    Contact,
    ContactEvents,
    ContactHandler,
    EventBuffers,
    EventCounts,
    Hit,
    HitEvents,
    SensorEvents,
    difference,
    key_pairs,
    pair_keys,
    touching_rows,
)

_NO_KEYS = np.empty(0, np.int64)
_NO_HITS = HitEvents(np.empty((0, 2), np.int64), np.empty((0, 2)), np.empty((0, 2)),
                     np.empty(0))


class StepRecord(NamedTuple):
    """What the steps so far have left.

    Time is counted in whole steps: time = ``elapsed`` + ``steps_at_dt``·``dt`` (chapter 3),
    never a running sum. ``touching`` and ``sensing`` are the pair keys
    (:func:`~physbook.events.pair_keys`) that touch, and that overlap a sensor, after the
    last step; ``previous_*`` after the one before. Pairs a removal ended since the last step
    wait in ``ended_by_removal`` (contacts, then sensors); the last step's are
    ``step_ended``. Shapes removed since the last step are remembered in
    ``removed_shapes`` (shape id → (category, sensor, body)), the last step's in
    ``removed_at_step``, so that their events still name them.
    """

    step_count: int = 0
    steps_at_dt: int = 0
    dt: float = 0.0
    elapsed: float = 0.0
    touching: np.ndarray = _NO_KEYS
    previous_touching: np.ndarray = _NO_KEYS
    sensing: np.ndarray = _NO_KEYS
    previous_sensing: np.ndarray = _NO_KEYS
    hits: HitEvents = _NO_HITS
    ended_by_removal: tuple[list, list] = ((), ())
    step_ended: tuple[list, list] = ((), ())
    removed_shapes: dict = {}  # noqa: RUF012 (never written: a removal gives a new dict)
    removed_at_step: dict = {}  # noqa: RUF012

    @property
    def time(self) -> float:
        """Simulated time (s)."""
        return self.elapsed + self.steps_at_dt * self.dt


class EventLog:
    """The events of a world's last step and the functions a game registered for them.

    Parameters
    ----------
    bodies
        The world's :class:`~physbook.dynamics.body_table.BodyTable` (for the handles an
        event names).
    shapes
        The world's :class:`~physbook.geometry.shape_table.ShapeTable`.
    contacts
        The world's :class:`~physbook.dynamics.contact_table.ContactTable` (for the points,
        normal and impulses of a contact that began).
    """

    def __init__(self, bodies, shapes, contacts: ContactTable | None = None) -> None:
        self._bodies = bodies
        self._shapes = shapes
        self._contacts = contacts
        self.hooks = ContactHooks()
        self.record = StepRecord(ended_by_removal=([], []))
        self._hit_speed = HIT_SPEED
        self._handlers: list[ContactHandler] = []
        self.dispatching = False  # the callbacks are running (see in_callback)
        self.pending_removals: list = []

    # --- what a game reads ------------------------------------------------------------

    @property
    def hit_speed(self) -> float:
        """Contact points approaching faster than this (m/s, 1 by default) and closing
        within the step are hits (:attr:`contacts`)."""
        return self._hit_speed

    @hit_speed.setter
    def hit_speed(self, value) -> None:
        self._hit_speed = _check.non_negative_scalar(value, "hit_speed")

    @property
    def contacts(self) -> ContactEvents:
        """The contacts that began touching in the last step, ended (or lost a body since
        the step before), and hit (see :mod:`physbook.events`)."""
        record = self.record
        began = difference(record.touching, record.previous_touching)
        ended = np.union1d(difference(record.previous_touching, record.touching),
                           np.array(record.step_ended[0], np.int64))
        return ContactEvents(key_pairs(began), key_pairs(ended), record.hits)

    @property
    def sensors(self) -> SensorEvents:
        """The shapes that began and ended overlapping a sensor in the last step, as
        (sensor id, visitor id) pairs."""
        record = self.record
        began = difference(record.sensing, record.previous_sensing)
        ended = np.union1d(difference(record.previous_sensing, record.sensing),
                           np.array(record.step_ended[1], np.int64))
        return SensorEvents(self._sensor_first(key_pairs(began)),
                            self._sensor_first(key_pairs(ended)))

    def on_contact(self, category_a: int, category_b: int, begin: Callable | None = None,
                   end: Callable | None = None, hit: Callable | None = None
                   ) -> ContactHandler:
        """Call ``begin(contact)`` / ``end(contact)`` after each step for every contact or
        sensor overlap that began / ended between a shape of ``category_a`` and one of
        ``category_b`` (bitmasks, matched against the shapes' filter categories), and
        ``hit(hit)`` for every hit between them (:attr:`hit_speed`).

        The :class:`~physbook.events.Contact` passed has the shapes in that order, and a
        contact that began its points, normal and impulses; a
        :class:`~physbook.events.Hit` its point, normal and approach speed. The callbacks
        run after the step; bodies they remove read ``alive == False`` at once and are
        removed once the last callback has returned, and ``World.step`` may not be called
        from them. If one raises, the others still get their events, and the step raises
        the first exception once they have (the step itself is done). Returns the
        registration, for :meth:`remove_handler`.
        """
        category_a = _check.bitmask(category_a, "category_a")
        category_b = _check.bitmask(category_b, "category_b")
        for name, function in (("begin", begin), ("end", end), ("hit", hit)):
            if function is not None and not callable(function):
                raise TypeError(f"{name} must be callable or None")
        if begin is None and end is None and hit is None:
            raise ValueError("give begin, end, hit or several: a handler with none does "
                             "nothing")
        handler = ContactHandler(category_a, category_b, begin, end, hit)
        self._handlers.append(handler)
        return handler

    def contact_rule(self, category_a: int, category_b: int, *, enabled: bool = True,
                     friction: float | None = None, restitution: float | None = None,
                     tangent_speed: float | None = None) -> ContactRule:
        """A rule for every contact between a shape of ``category_a`` and one of
        ``category_b`` (bitmasks), applied each step inside the compiled step: ``enabled``
        False lets them pass through each other (no contact, no event); ``friction``,
        ``restitution`` and ``tangent_speed`` (m/s, positive counter-clockwise about the
        category-a shape) replace the values mixed from the shapes. Later rules win.
        Returns the rule, for :meth:`remove_handler`."""
        return self.hooks.add_rule(category_a, category_b, enabled=enabled, friction=friction,
                                   restitution=restitution, tangent_speed=tangent_speed)

    def on_pre_solve(self, category_a: int, category_b: int,
                     function: Callable) -> PreSolveHandler:
        """Call ``function(contact)`` each step, between the narrow phase and the solver,
        for every contact between a shape of ``category_a`` and one of ``category_b``: a
        :class:`~physbook.contact_hooks.PreSolveContact` whose ``enabled``, ``friction``,
        ``restitution`` and ``tangent_speed`` it may set for this step. While one is
        registered the world steps stage by stage, not as one compiled call (slower; prefer
        shape settings and :meth:`contact_rule`). The function may not step the world nor
        add or remove bodies or joints. Returns the registration, for
        :meth:`remove_handler`."""
        return self.hooks.add_pre_solve(category_a, category_b, function)

    def remove_handler(self, handler) -> None:
        """Stop calling the functions ``handler`` registered (from :meth:`on_contact` or
        :meth:`on_pre_solve`), or stop applying a :meth:`contact_rule`."""
        for i, registered in enumerate(self._handlers):
            if registered is handler:
                del self._handlers[i]
                return
        if not self.hooks.remove(handler):
            raise ValueError("handler is not registered with this world")

    def body_of(self, shape_id: int):
        """The handle of the body a shape belongs to, by the shape's stable id (as events
        and query hits name shapes); a shape removed in the last step still names its
        body."""
        shape_id = _check.non_negative_int(shape_id, "shape_id")
        record = self.record
        for removed in (record.removed_shapes, record.removed_at_step):
            if shape_id in removed:
                return removed[shape_id][2]
        ids = self._shapes.arrays.ids
        row = int(np.searchsorted(ids, shape_id))
        if row == len(ids) or ids[row] != shape_id:
            raise LookupError(f"no shape of this world has id {shape_id}")
        return self._bodies.handle(int(self._shapes.arrays.body[row]))

    @property
    def has_handlers(self) -> bool:
        """Whether any function is registered (a step then dispatches its events)."""
        return bool(self._handlers)

    # --- what the world tells it ------------------------------------------------------

    def conclude(self, dt: float, sensor_contacts: ContactTable, found: EventCounts,
                 buffers: EventBuffers) -> None:
        """A step of ``dt`` is done: count it, and record which pairs touch, which sensors
        see whom and the hits. ``found`` holds the counts the step's events stage wrote into
        ``buffers`` (:func:`~physbook.stages.contact_events_into`; an
        :class:`~physbook.events.EventCounts`, or the same three values in a tuple).

        Everything is worked out first and the record replaced in one assignment at the
        end, so that an exception (an interrupt) leaves either none of it or all of it.
        """
        # This runs at every step: the record is built field by field (not with _replace
        # and a dict), and the common step, in which nothing was hit, no sensor sees
        # anything and nothing was removed, tests each of those once.
        touch_count, hit_count, changed = found
        record = self.record
        # The keys stay last step's array unless they changed.
        touching = buffers.keys[:touch_count].copy() if changed else record.touching
        hits = record.hits
        if hit_count or len(hits.speeds):
            hits = HitEvents(buffers.hit_ids[:hit_count].copy(),
                             buffers.hit_points[:hit_count].copy(),
                             buffers.hit_normals[:hit_count].copy(),
                             buffers.hit_speeds[:hit_count].copy())
        sensing = record.sensing
        if sensor_contacts.count or len(sensing):
            # Contact rows are sorted by shape ids, so the keys are sorted too.
            sensed = sensor_contacts.arrays
            sensing = pair_keys(sensed.shape_ids[touching_rows(sensed.point_counts,
                                                               sensed.depths)])
        if dt == record.dt:
            steps_at_dt, elapsed = record.steps_at_dt + 1, record.elapsed
        else:
            steps_at_dt, elapsed = 1, record.time
        ended, step_ended = record.ended_by_removal, record.step_ended
        if ended[0] or ended[1] or step_ended[0] or step_ended[1]:
            ended, step_ended = ([], []), ended
        removed, removed_at_step = record.removed_shapes, record.removed_at_step
        if removed or removed_at_step:
            removed, removed_at_step = {}, removed
        self.record = StepRecord(record.step_count + 1, steps_at_dt, dt, elapsed, touching,
                                 record.touching, sensing, record.sensing, hits, ended,
                                 step_ended, removed, removed_at_step)

    def removal(self, shape_rows: np.ndarray, owners: dict) -> tuple:
        """Bodies are being removed, ``owners`` mapping their rows to their handles: what
        becomes of the events of their shapes at ``shape_rows``, changing nothing yet (for
        :meth:`apply_removal`). The shapes are remembered for the events of the next step;
        their touching pairs and sensor overlaps end."""
        shapes, filters = self._shapes.arrays, self._shapes.filters
        ids = shapes.ids[shape_rows]
        remembered = {shape_id: (category, sensor, owners[row]) for shape_id, category, sensor,
                      row in zip(ids.tolist(), filters.category[shape_rows].tolist(),
                                 filters.sensor[shape_rows].tolist(),
                                 shapes.body[shape_rows].tolist(), strict=True)}
        record = self.record
        kept, ended = [], []
        for keys in (record.touching, record.sensing):
            gone = np.zeros(len(keys), np.bool_)
            if len(ids):
                mark_pairs_of(keys, ids, gone)
            kept.append(keys[~gone])
            ended.append(keys[gone].tolist())
        return record, remembered, tuple(kept), tuple(ended)

    def apply_removal(self, removal: tuple) -> None:
        """Carry out what :meth:`removal` worked out, in one assignment: done once however
        often it is called (the record it started from is kept in ``removal``)."""
        before, remembered, (touching, sensing), (ended, sensed) = removal
        if self.record is not before:
            return
        self.record = before._replace(
            touching=touching, sensing=sensing,
            removed_shapes={**before.removed_shapes, **remembered},
            ended_by_removal=(before.ended_by_removal[0] + ended,
                              before.ended_by_removal[1] + sensed))

    # --- the callbacks ----------------------------------------------------------------

    def dispatch(self, remove_bodies: Callable) -> None:
        """Call the handlers for the last step's begin and end events.

        A handler that raises does not cost the others their events: every event is
        delivered, the bodies the handlers removed are removed (``remove_bodies``), and then
        the first exception is raised (an interrupt stops the delivery at once)."""
        contact_events, sensor_events = self.contacts, self.sensors
        failure = None
        try:
            self.dispatching = True
            failure = self._call_handlers(contact_events, sensor_events)
        finally:
            self.dispatching = False
            pending, self.pending_removals = self.pending_removals, []
            alive = [body for body in pending if body.alive]
            if alive:
                remove_bodies(alive)
        if failure is not None:
            raise failure

    def in_callback(self) -> bool:
        """Whether the callbacks are running: :meth:`dispatch` of this log is on the call
        stack. ``dispatching`` says so at once, but an interrupt that lands as it is being
        cleared could leave it set; the stack cannot lie, and is walked only when the flag
        is set."""
        if not self.dispatching:
            return False
        frame = sys._getframe(1)
        while frame is not None:
            if (frame.f_code is EventLog.dispatch.__code__
                    and frame.f_locals.get("self") is self):
                return True
            frame = frame.f_back
        self.dispatching = False
        return False

    def _call_handlers(self, contact_events: ContactEvents,
                       sensor_events: SensorEvents) -> Exception | None:
        """Call every handler for the events (see :meth:`dispatch`); the first exception
        one of them raised, or None."""
        failure = None
        table = self._contacts.arrays if self._contacts is not None else None
        keys = None if table is None else pair_keys(table.shape_ids)
        for kind in ("begin", "end"):
            for pairs, sensor in ((getattr(contact_events, kind), False),
                                  (getattr(sensor_events, kind), True)):
                for a, b in pairs.tolist():
                    data = (self._contact_data(table, keys, a, b)
                            if kind == "begin" and not sensor else None)
                    raised = self._call_matching(kind, a, b, sensor, data)
                    failure = failure or raised
        hits = contact_events.hits
        for (a, b), point, normal, speed in zip(hits.shape_ids.tolist(), hits.points,
                                                hits.normals, hits.speeds.tolist(),
                                                strict=True):
            raised = self._call_matching("hit", a, b, False, (point, normal, speed))
            failure = failure or raised
        return failure

    def _call_matching(self, kind: str, a: int, b: int, sensor: bool,
                       data) -> Exception | None:
        """Call the handlers' ``kind`` functions whose categories match shapes a and b,
        with the shapes in the handler's order; the first exception, or None."""
        failure = None
        category_a, _, body_a = self._shape_info(a)
        category_b, _, body_b = self._shape_info(b)
        for handler in list(self._handlers):
            function = getattr(handler, kind)
            if function is None:
                continue
            flipped = handler_order(category_a, category_b, handler)
            if flipped is None:
                continue
            first, second = ((b, body_b), (a, body_a)) if flipped else ((a, body_a),
                                                                         (b, body_b))
            sign = -1.0 if flipped else 1.0
            if kind == "hit":
                point, normal, speed = data
                event = Hit(first[0], second[0], first[1], second[1], point.copy(),
                            sign * normal, speed)
            elif data is None:
                event = Contact(first[0], second[0], first[1], second[1], sensor)
            else:
                points, normal, normal_impulse, tangent_impulse = data
                # Swapped, the normal and tangent turn round and the impulses on the second
                # body are those the first received: λ_n and λ_t keep their values.
                event = Contact(first[0], second[0], first[1], second[1], sensor, points,
                                sign * normal, normal_impulse, tangent_impulse)
            try:
                function(event)
            except Exception as error:  # the game's: raised once all ran
                failure = failure or error
        return failure

    @staticmethod
    def _contact_data(table, keys, a: int, b: int):
        """(points, normal, total normal impulse, total tangent impulse) of the row of
        shapes a < b in the contact columns ``table`` (whose pair ``keys`` are given), or
        None if it has none."""
        if table is None:
            return None
        row = int(np.searchsorted(keys, (a << 32) + b))
        if row == len(keys) or keys[row] != (a << 32) + b:
            return None
        count = int(table.point_counts[row])
        return (table.points[row, :count].copy(), table.normals[row].copy(),
                float(table.normal_impulses[row, :count].sum()),
                float(table.tangent_impulses[row, :count].sum()))

    def _shape_info(self, shape_id: int) -> tuple:
        """(category, sensor, body) of a shape, live or removed since the last step."""
        record = self.record
        for removed in (record.removed_shapes, record.removed_at_step):
            if shape_id in removed:
                return removed[shape_id]
        shapes, filters = self._shapes.arrays, self._shapes.filters
        row = int(np.searchsorted(shapes.ids, shape_id))
        return (int(filters.category[row]), bool(filters.sensor[row]),
                self._bodies.handle(int(shapes.body[row])))

    def _sensor_first(self, pairs: np.ndarray) -> np.ndarray:
        """Pairs reordered as (sensor, visitor)."""
        for pair in pairs:
            if not self._shape_info(int(pair[0]))[1]:
                pair[0], pair[1] = pair[1], pair[0]
        return pairs
