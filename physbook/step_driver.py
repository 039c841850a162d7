"""Chapters 4, 9 and 11: the driver of a world's step, which runs the stages over the tables.

A :class:`StepDriver` holds the tables of a world (bodies, shapes, contacts, joints), its
solver and broad phase, and the buffers a step reuses (the boxes, filters and margins of the
broad phase, the event buffers, the state saved at the start of a step, the compiled step's
gathered columns). It steps in one of two ways: with the library's own broad phase and
solver, as one compiled call (:meth:`StepDriver.run_compiled`); with a broad phase or solver
of the user's, stage by stage from Python (:meth:`StepDriver.run_staged`). Both run the
stages of :data:`~physbook.stages.STEP_STAGES` in its order, and a step cut short by an
exception is undone (:meth:`StepDriver.undo`).
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from physbook._buffers import grown
from physbook.broadphase.filters import ShapeFilters, shape_filters
from physbook.broadphase.pairs import ShapeBoxes, canonical_pairs
from physbook.broadphase.tree import DynamicTree
from physbook.collision.manifold import narrow_scratch
from physbook.compiled_step import (
    BAD_STATE,
    FAST,
    NEED_ROOM,
    NOT_FINITE,
    QUIET,
    SensorSets,
    StepArgs,
    new_step_state,
    step_from_state,
)
from physbook.continuous import fast_bodies, may_stop_fast, shape_reaches, stop_fast_bodies
from physbook.dynamics.body_table import BodyArrays, BodyTable
from physbook.dynamics.colouring import Colouring, share_out
from physbook.dynamics.contact_table import ContactTable, update_contacts
from physbook.dynamics.islands import (
    IslandWork,
    update_islands,
    wake_before_step,
    wake_touched,
)
from physbook.dynamics.joint_table import IMPULSE_COLUMNS, JointTable, drop_joined
from physbook.dynamics.motion import update_origins
from physbook.dynamics.sleep import Sleep
from physbook.dynamics.snapshot import StepSnapshot, check_finite, save_motion, save_step_start
from physbook.dynamics.solver_steps import CompiledSettings, SolverWork
from physbook.dynamics.solvers import COMPILED_SOLVERS
from physbook.event_log import EventLog
from physbook.events import EventBuffers, EventCounts, event_buffers, split_sensor_pairs
from physbook.geometry.shape_table import ShapeTable
from physbook.queries import QueryIndex
from physbook.stages import (
    boxes_and_filters,
    check_state,
    clear_forces,
    contact_events_into,
    step_margins,
)

#: What a step has saved of the joints' impulses before it saves them: nothing.
_NONE_SAVED: dict = {}


def interrupt_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The ``KeyboardInterrupt`` that ``error`` stands for, or None. An interrupt that
    arrives while numba converts a compiled call's result comes out as a ``SystemError``
    ("returned a result with an exception set") whose cause is the interrupt."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def gathered_state(args: StepArgs, sensors: SensorSets):
    """:func:`~physbook.compiled_step.new_step_state`, made again if numba failed to hand
    it over. An interrupt that lands while numba makes the Python object of the structure
    it returns (a signal's handler runs inside the object's constructor) comes out as a
    ``TypeError`` from that constructor, and the interrupt is lost with it; the state is
    made again and the step goes on, as after an interrupt that came too late."""
    try:
        return new_step_state(args, sensors)
    except TypeError as error:
        if "_numba_box_" not in str(error):
            raise
        return new_step_state(args, sensors)


class CompiledState(NamedTuple):
    """What :meth:`StepDriver.compiled_state` gathered: the ``handle`` (a
    :class:`~physbook.compiled_step.StepState`), the objects and values it was gathered
    from (:meth:`StepDriver._gathered_from`, :meth:`StepDriver._gathered_with`), the
    solver's ``compiled_settings`` it was gathered with, the two contact sets and
    the two sensor sets in the order the handle holds them, the shape count, and the
    solver's colouring work arrays (None unless it solves in colours)."""

    handle: object
    sources: tuple
    values: tuple
    settings: CompiledSettings
    contact_sets: tuple
    sensor_sets: tuple
    shape_count: int
    colouring: Colouring | None


def compiled_entry(dispatcher, arguments: tuple):
    """The compiled function that numba's ``dispatcher`` runs for ``arguments`` (its
    overload for their types, already loaded or compiled), or the dispatcher itself if
    there is none (numba switched off, say).

    A call through the dispatcher works out the type of every argument and picks the
    overload for them, about 1.5 µs for the compiled step's 16 arguments, as much as a
    third of a one-ball step's Python. The overload's own entry point only converts them.
    It is called only with arguments of the types it was picked for: the state it was
    picked with (a new one goes through the dispatcher again), and values the library
    makes itself, with fixed types (arrays of fixed dtype and dimensions, C-contiguous:
    the tree's keys, the log's touching keys, the checked gravity, the solver's springs
    table; bools and floats its setters checked)."""
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads:
        return dispatcher
    types = tuple(dispatcher.typeof_pyval(argument) for argument in arguments)
    overload = overloads.get(types)
    return dispatcher if overload is None else overload.entry_point


class StepDriver:
    """Runs the steps of a world over its tables, and keeps what a step reuses.

    Parameters
    ----------
    bodies, shapes, contacts, sensor_contacts, joints
        The world's tables: bodies, shapes, touching pairs, sensor overlaps, joints.
    sleep, log, queries
        The world's sleep (islands), event log and query index.
    solver, broad_phase
        The contact solver and the broad phase stages; ``trusted_pairs`` says the broad
        phase is the library's (its pairs are canonical; a user's are checked).
    gravity
        Acceleration of gravity (m/s²), a checked array of 2.
    capacity
        Shape rows the stage buffers hold at first (they grow with the shapes).

    Notes
    -----
    The world's switches live here, set through the world, which checks them:
    :attr:`gravity` (m/s²), :attr:`compiled` (run the library's own stages as one compiled
    call) and :attr:`continuous` (stop fast bodies at their time of impact).
    """

    #: (state handle, dispatcher, compiled function) once :meth:`run_compiled` resolved the
    #: compiled function its state's steps call (see :meth:`_compiled_call`); a class
    #: default, so that a driver pickled before it existed unpickles without it.
    _entry: tuple | None = None

    def __init__(self, *, bodies: BodyTable, shapes: ShapeTable, contacts: ContactTable,
                 sensor_contacts: ContactTable, joints: JointTable, sleep: Sleep,
                 log: EventLog, queries: QueryIndex, solver, broad_phase,
                 trusted_pairs: bool, gravity: np.ndarray, capacity: int):
        self._bodies, self._shapes, self._joints = bodies, shapes, joints
        self._contacts, self._sensor_contacts = contacts, sensor_contacts
        self._sleep, self._log, self._queries = sleep, log, queries
        self._solver, self._broad_phase, self._trusted_pairs = solver, broad_phase, trusted_pairs
        self.gravity = gravity
        self.compiled = True
        self.continuous = True
        # Stages the compiled step can run: a library solver (by type: a subclass may have
        # its own step) and the library's tree.
        self._own_stages = (type(solver) in COMPILED_SOLVERS
                            and type(broad_phase) is DynamicTree)
        self._snapshot = StepSnapshot()
        self._saved_joint_impulses: dict = {}
        self._stage_views = None
        self._step_state: CompiledState | None = None
        self._boxes = ShapeBoxes(np.zeros((capacity, 2)), np.zeros((capacity, 2)))
        self._filters = ShapeFilters(*(np.zeros(capacity, np.int64) for _ in range(4)),
                                     np.zeros(capacity, np.bool_))
        self._margins = np.zeros(capacity)
        self._zero_margins = np.zeros(capacity)
        self._events = event_buffers(0)  # the events stage's buffers

    def __getstate__(self) -> dict:
        """What ``pickle`` and ``copy.deepcopy`` keep of a driver: all of it but the compiled
        step's gathered state (numba's handles on the columns), gathered again at the next
        step, and the views of the stage buffers, cut again (a copied view would be an
        array of its own). A copy steps on exactly as the world would."""
        return {**self.__dict__, "_step_state": None, "_stage_views": None, "_entry": None}

    def step(self, dt: float) -> None:
        """Advance the tables by ``dt`` seconds (checked): the library's own stages as one
        compiled call, or any others stage by stage. A step cut short by an exception is
        undone, and a ``KeyboardInterrupt`` that comes out of numba as another error is
        raised as the interrupt it was."""
        # Until the step saves the state it starts from, nothing of it is saved.
        self._snapshot.forget()
        self._saved_joint_impulses = _NONE_SAVED
        rows_before = (self._contacts.rows_set, self._sensor_contacts.rows_set)
        steps_before = self._log.record.step_count
        try:
            if self.compiled and self._own_stages and not self._log.hooks.pre_solving:
                # The library's own stages: the same stages, as one compiled call.
                self.run_compiled(dt)
            else:
                self.run_staged(dt)
        except BaseException as error:
            # A step ends by counting itself (conclude), and an interrupt can land as that
            # returns: counted, the step is done, and the world stays after it.
            if self._log.record.step_count == steps_before:
                self.undo(rows_before)
            interrupt = interrupt_behind(error)
            if interrupt is None:
                raise
            raise interrupt from None

    def run_staged(self, dt: float) -> None:
        """The stages of a step (:data:`~physbook.stages.STEP_STAGES`), one by one, each
        handed the columns it works on: a broad phase or a solver the world was given runs
        here, between the kernels the compiled step calls."""
        bodies, shapes, joints = self._bodies.arrays, self._shapes.arrays, self._joints.arrays
        count = len(bodies.kinds)
        islands, marks = self._sleep.labels[:count], self._sleep.marks[:count]
        if check_state(bodies) >= 0:
            self._check_state(bodies)  # raises, naming the body and the quantity
        saved = self._snapshot.buffers(count)
        save_step_start(bodies, islands, saved)
        self._save_joint_impulses(joints)
        # Islands (chapter 11): a sleeping body given a push, or moved, wakes with its
        # island. With nothing awake nothing moves, and the contacts stay as they are.
        if wake_before_step(bodies, islands, marks, self._sleep.enabled) == 0:
            self.end_quiet_step(dt)
            return
        save_motion(bodies, saved)
        boxes, filters, margins = self.stage_buffers(len(shapes.ids))
        # How close shapes must come to get a contact: touching, or, for a solver that takes
        # speculative contacts, as close as they may come within the step.
        reaches = shape_reaches(shapes, bodies.local_centers)
        drifts = np.empty((count, 2))
        step_margins(shapes.body, reaches.shapes, bodies,
                     getattr(self._solver, "speculative_distance", 0.0), dt, margins, drifts)
        # Broad phase: the shape pairs whose boxes overlap and whose filters allow a contact.
        pairs = self.find_pairs(shapes, bodies, boxes, filters, margins, drifts)
        # Sensors only report overlaps: their pairs get no contact, only an overlap test.
        narrow, sensors = narrow_scratch(shapes, count), self._sensor_contacts
        surfaces = self._shapes.surfaces
        rules = self._log.hooks.rules(self._shapes.filters.category)
        if self._shapes.sensor_count:
            pairs, sensed = split_sensor_pairs(pairs, self._shapes.filters.sensor)
            current, old_count, spare = sensors.sets(len(sensed))
            sensors.accept(update_contacts(
                sensed, shapes, surfaces, rules, bodies.origins, bodies.angles,
                self._zero_margins[:len(margins)], drifts[:0], (drifts[:0], drifts[:0]),
                bodies.awake, current, old_count, spare,
                narrow))
        elif sensors.count:
            sensors.clear()
        # Narrow phase: the touching pairs' manifolds; a point seen last step keeps its
        # impulses (same shape ids, same feature id). A pair asleep keeps its row as it was.
        # Each row's surface comes from its shapes' and the world's rules (chapter 16).
        current, old_count, spare = self._contacts.sets(len(pairs))
        self._contacts.accept(update_contacts(
            pairs, shapes, surfaces, rules, bodies.origins, bodies.angles, margins, drifts,
            (boxes.lower, boxes.upper), bodies.awake, current, old_count, spare, narrow))
        contacts = self._contacts.arrays
        if self._log.hooks.pre_solving:  # the game's say on each contact, before the solver
            self._log.hooks.run_pre_solve(contacts, self._shapes.filters.category, shapes.ids,
                                          shapes.body, self._bodies.handle)
        if self._sleep.enabled:  # a sleeping island an awake body now touches wakes
            wake_touched(contacts.bodies, joints.bodies, bodies.kinds, bodies.awake,
                         bodies.sleep_times, islands, marks)
        # Solver: it moves the awake bodies through the step, v += dt·(g·gravity_scale +
        # F/m), joint and contact impulses, c += dt·v and θ += dt·ω (in substeps if it works
        # in substeps). A world whose every body sleeps has nothing to solve.
        if bodies.awake.any():
            if len(joints.kinds):
                self._solver.step(contacts, bodies, self.gravity, dt, joints)
            else:
                self._solver.step(contacts, bodies, self.gravity, dt)
        # Events (chapter 12): which pairs touch and which hit, from the motion saved before
        # the step.
        found = EventCounts(*contact_events_into(
            contacts, saved, dt, self._log.hit_speed,
            self.event_buffers(len(contacts.point_counts)), self._log.record.touching))
        if check_state(bodies) >= 0:
            self._refuse_non_finite(bodies, dt)  # raises; the step is undone
        # Continuous collision (chapter 13): a fast body is put back at its time of impact.
        # Then islands at rest long enough fall asleep, and the forces, which act for one
        # step only, are cleared.
        self.finish(bodies, contacts, joints, dt)
        self.conclude(dt, found)

    def finish(self, bodies: BodyArrays, contacts, joints, dt: float) -> None:
        """The stages after the solver, over a step of ``dt`` seconds: continuous collision,
        sleep, forces cleared."""
        if self.continuous:
            shapes = self._shapes
            reaches = shape_reaches(shapes.arrays, bodies.local_centers)
            start_centers = self._snapshot.column("centers")
            start_angles = self._snapshot.column("angles")
            if may_stop_fast(bodies, start_centers, start_angles, reaches.bodies,
                             shapes.arrays.body) and stop_fast_bodies(
                    bodies, shapes, self._joints.joined_pairs(), start_centers, start_angles,
                    self._queries.continuous_tree,
                    fast_bodies(bodies, start_centers, start_angles, reaches.bodies), reaches):
                update_origins(bodies)
        count = len(bodies.kinds)
        if self._sleep.enabled:  # islands at rest long enough fall asleep
            update_islands(bodies, contacts.bodies, joints.bodies, dt,
                           self._sleep.linear_speed, self._sleep.angular_speed,
                           self._sleep.time_to_sleep, self._sleep.labels[:count],
                           self._sleep.parents[:count], self._sleep.slowest[:count])
        clear_forces(bodies)

    def run_compiled(self, dt: float) -> None:
        """:meth:`step` as one compiled call (:func:`~physbook.compiled_step.compiled_step`):
        the same stages over the same arrays, giving the same states bit for bit."""
        bodies, joints = self._bodies.arrays, self._joints.arrays
        tree, contacts, sensors = self._broad_phase, self._contacts, self._sensor_contacts
        sensing = self._shapes.sensor_count > 0
        self._save_joint_impulses(joints)
        synced = False
        # The solver's settings, and its softnesses for this dt (a state holds only the
        # settings: a game may step by the frame time it measured, a new dt each step).
        settings = self._solver.compiled_settings(dt)
        while True:
            current, old_count, spare = contacts.sets(0)
            if sensing:
                sensed, sensed_count, sensed_spare = sensors.sets(0)
                state = self.compiled_state(settings, (current, spare), (sensed, sensed_spare))
                sensed_first = sensed is state.sensor_sets[0]
            else:  # the sensor sets are not read: whichever the state holds will do
                state = self.compiled_state(settings, (current, spare), None)
                sensed_first, sensed_count = True, 0
            if state.colouring is not None and self._solver.parallel:
                share_out(state.colouring)  # numba's thread count may have changed
            known, keys = tree.candidates()
            arguments = (state.handle, current is state.contact_sets[0], old_count, sensing,
                         sensed_first, sensed_count, keys, known, synced,
                         self._sleep.enabled, self.continuous, self._log.record.touching,
                         self.gravity, dt, settings.springs_table, self._log.hit_speed)
            # The fields of a StepResult, flat (a compiled call hands Python plain tuples).
            (status, _, new_keys, moved, contact_rows, sensor_rows, touch_count, hit_count,
             changed) = self._compiled_call(state)(*arguments)
            if self._entry is None:
                self._entry = (state.handle, step_from_state,
                               compiled_entry(step_from_state, arguments))
            if status == BAD_STATE:
                self._check_state(bodies)  # raises, naming the body and the quantity
            if status == QUIET:
                self.end_quiet_step(dt)
                return
            if not synced:  # new keys come back, the ones the tree holds as None
                tree.accept(state.shape_count, keys if new_keys is None else new_keys, moved)
            if status != NEED_ROOM:
                break
            # More pairs than contact (or sensor) rows: grow them and step again, from the
            # tree as this call left it.
            contacts.sets(contact_rows)
            sensors.sets(sensor_rows)
            synced = True
        contacts.accept(contact_rows)
        if sensing:
            sensors.accept(sensor_rows)
        elif sensors.count:  # the last sensor was removed since the last step
            sensors.clear()
        if status == NOT_FINITE:
            self._refuse_non_finite(bodies, dt)
        elif status == FAST:
            self.finish(bodies, contacts.arrays, joints, dt)
        # self.conclude, a call less, with the counts in a plain tuple, built faster than
        # an EventCounts.
        self._log.conclude(dt, sensors, (touch_count, hit_count, changed), self._events)

    def _compiled_call(self, state: CompiledState):
        """What runs the compiled step from ``state``: the compiled function itself (see
        :func:`compiled_entry`) once a step from this state has gone through numba's
        dispatcher, which first loads it (or compiles it). A new state, or a
        ``step_from_state`` replaced in this module (as a test does), goes through the
        dispatcher again, and :meth:`run_compiled` then finds the entry again."""
        entry = self._entry
        if entry is not None and entry[0] is state.handle and entry[1] is step_from_state:
            return entry[2]
        self._entry = None
        return step_from_state

    def end_quiet_step(self, dt: float) -> None:
        """End a step of ``dt`` s in which nothing was awake: nothing moved, no contact
        changed, and the pairs that touched still touch (a sleeping pair's contact stays as
        it fell asleep, touching or not)."""
        if not self._shapes.sensor_count and self._sensor_contacts.count:
            self._sensor_contacts.clear()  # the last sensor was removed since the last step
        self.conclude(dt, EventCounts(0, 0, False))

    def undo(self, rows_before: tuple) -> None:
        """Put back what a step cut short had written: the body columns and island labels
        it saved before anything moved, the contact rows it replaced (``rows_before``: the
        sets of contact rows and sensor rows in use before it), the joint impulses. The
        tree is emptied, to be built again at the next step: a step cut short may have
        synced its leaves without keeping the pairs it found, and the pairs a tree reports
        are exact whatever its leaves hold, so the states go on as if nothing happened."""
        self._snapshot.restore(self._bodies.arrays, self._sleep.labels)
        for table, before in zip((self._contacts, self._sensor_contacts), rows_before,
                                 strict=True):
            if table.rows_set is not before:
                table.revert()
        for name, saved in self._saved_joint_impulses.items():
            getattr(self._joints.arrays, name)[...] = saved
        if isinstance(self._broad_phase, DynamicTree):
            self._broad_phase.clear()
        self._step_state = None
        self._queries.forget()

    def compiled_state(self, settings: CompiledSettings, contact_sets: tuple,
                       sensor_sets: tuple | None) -> CompiledState:
        """The columns and buffers the compiled step works on, gathered in a
        :class:`~physbook.compiled_step.StepState`, with ``contact_sets`` and
        ``sensor_sets`` the (current, spare) sets of the contact and sensor tables (None in
        a world without sensors, which reads none) and ``settings`` the solver's
        ``compiled_settings`` (its softnesses unused); gathered
        anew only when one was replaced (a body, shape or joint added or removed, a buffer
        grown, a setting changed). Everything it holds derives from the objects and values
        :meth:`_still_gathered` compares; nothing depends on ``dt``."""
        cached = self._step_state
        if cached is not None and self._still_gathered(cached, settings, contact_sets,
                                                       sensor_sets):
            return cached
        bodies, shapes, joints = self._bodies.arrays, self._shapes.arrays, self._joints.arrays
        solver, tree = self._solver, self._broad_phase
        rules = self._log.hooks.rules(self._shapes.filters.category)
        sources, values = self._gathered_from(), self._gathered_with()
        current, spare = contact_sets
        if sensor_sets is None:  # a world without sensors: the table's sets, never read
            sensed, _, sensed_spare = self._sensor_contacts.sets(0)
            sensor_sets = (sensed, sensed_spare)
        count, shape_count = len(bodies.kinds), len(shapes.ids)
        has_joints = len(joints.kinds) > 0
        boxes, filters, margins = self.stage_buffers(shape_count)
        capacity = max(len(current.point_counts), len(spare.point_counts))
        work, motion, joint_work = solver.work_views(
            capacity, count, len(joints.kinds) if has_joints else None)
        colouring = solver.colouring(capacity, count)
        sleep = self._sleep
        islands = IslandWork(sleep.labels[:count], sleep.marks[:count], sleep.parents[:count],
                             sleep.slowest[:count], sleep.linear_speed, sleep.angular_speed,
                             sleep.time_to_sleep)
        args = StepArgs(
            bodies, shapes, self._shapes.filters, boxes, filters, margins, np.zeros((count, 2)),
            solver.speculative_distance, tree.stage_arrays(shape_count),
            joints if has_joints else None, joints.bodies, self._joints.joined_pairs(),
            (current, spare), narrow_scratch(shapes, count), self._snapshot.buffers(count),
            islands, shape_reaches(shapes, bodies.local_centers),
            SolverWork(settings.soft, settings.impulse, work, motion, joint_work, colouring,
                       None if colouring is None else solver.threads(colouring),
                       solver.awake_rows(capacity)),
            self.event_buffers(capacity), self._shapes.surfaces, rules)
        sensors = SensorSets(*sensor_sets, self._zero_margins[:shape_count])
        handle = gathered_state(args, sensors)
        self._step_state = CompiledState(handle, sources, values, settings, (current, spare),
                                          tuple(sensor_sets), shape_count, colouring)
        return self._step_state

    def _gathered_from(self) -> tuple:
        """The objects a state is gathered from, compared by identity: a table that
        changes a column makes a new one (the body, shape and joint columns, the filters,
        the surfaces, the contact rules' category pairs)."""
        shapes = self._shapes
        return (self._bodies.arrays, shapes.arrays, shapes.filters, self._joints.arrays,
                shapes.surfaces, self._log.hooks.masks)

    def _gathered_with(self) -> tuple:
        """The values a state is gathered with, besides the solver's settings: the sleep
        thresholds and the tree's margin and prediction."""
        tree = self._broad_phase
        return self._sleep.thresholds, tree.margin, tree.prediction

    def _still_gathered(self, cached: CompiledState, settings: CompiledSettings,
                        contact_sets: tuple, sensor_sets: tuple | None) -> bool:
        """Whether ``cached`` holds what :meth:`compiled_state` would gather now: the same
        objects (:meth:`_gathered_from`), the same values (:meth:`_gathered_with`) and
        solver settings, and the same two contact sets and sensor sets, in either order (a
        table's two sets swap at each step). This runs at every step: the solver's settings
        are compared only when it made new ones (a new ``dt``, a changed setting)."""
        if not (all(map(operator.is_, cached.sources, self._gathered_from()))
                and cached.values == self._gathered_with()):
            return False
        held_settings = cached.settings
        if held_settings is not settings and (held_settings.soft != settings.soft
                                              or held_settings.impulse != settings.impulse):
            return False
        current, spare = contact_sets
        held = cached.contact_sets
        if not ((current is held[0] and spare is held[1])
                or (current is held[1] and spare is held[0])):
            return False
        if sensor_sets is None:
            return True
        sensed = cached.sensor_sets
        return ((sensor_sets[0] is sensed[0] and sensor_sets[1] is sensed[1])
                or (sensor_sets[0] is sensed[1] and sensor_sets[1] is sensed[0]))

    def _save_joint_impulses(self, joints) -> None:
        if len(joints.kinds):
            self._saved_joint_impulses = {name: getattr(joints, name).copy()
                                          for name in IMPULSE_COLUMNS}

    def _check_state(self, bodies: BodyArrays) -> None:
        """Refuse to step from a state that is not finite (written through the arrays)."""
        bad = check_finite(bodies)
        if bad is not None:
            row, quantity = bad
            raise ValueError(
                f"{quantity} of body {int(bodies.ids[row])} (row {row}) must be finite: a NaN "
                "or inf was written into the world's arrays; the world did not step"
            )

    def _refuse_non_finite(self, bodies: BodyArrays, dt: float) -> None:
        """Raise ``FloatingPointError`` if the step made a state non-finite (the step then
        undoes itself)."""
        bad = check_finite(bodies)
        if bad is None:
            return
        row, quantity = bad
        broken = [int(body_id) for body_id in bodies.ids[~np.all(np.isfinite(np.column_stack(
            [bodies.centers, bodies.angles, bodies.velocities, bodies.angular_velocities])),
            axis=1)]]
        raise FloatingPointError(
            f"{quantity} of body {int(bodies.ids[row])} (row {row}) became NaN or infinite "
            f"in this step of dt = {dt:g} s (bodies {broken[:8]} in all); the world was put "
            "back as it was before the step. Look for a force, speed, mass ratio or gravity "
            "too large for the step"
        )

    def find_pairs(self, shapes, bodies, boxes, filters, margins, drifts) -> np.ndarray:
        """The broad phase stage: fill the boxes (grown by the margins, swept along the
        drifts) and filters of every shape, ask for pairs."""
        boxes_and_filters(shapes, bodies, self._shapes.filters, margins, drifts, boxes.lower,
                          boxes.upper, filters)
        if self._trusted_pairs:
            pairs = self._broad_phase.pairs(boxes, filters)
        else:
            pairs = self._broad_phase(boxes, filters)
            pairs = canonical_pairs(pairs, "the pairs broad_phase returns")
            if len(pairs) and (pairs[0, 0] < 0 or pairs[:, 1].max() >= len(shapes.ids)):
                raise ValueError(f"broad_phase must return rows of shapes 0 .. "
                                 f"{len(shapes.ids) - 1}")
        if self._joints.count and len(pairs):
            # Bodies held by a joint do not collide unless the joint says they may.
            joined = self._joints.joined_pairs()
            if len(joined):
                pairs = drop_joined(pairs, shapes.body, joined)
        return pairs

    def event_buffers(self, rows: int) -> EventBuffers:
        """Room for the events of ``rows`` contact rows, kept between steps."""
        if len(self._events.keys) < rows:  # too few
            self._events = event_buffers(rows)
            self._step_state = None  # it holds the buffers these replace
        return self._events

    def stage_buffers(self, count: int) -> tuple[ShapeBoxes, ShapeFilters, np.ndarray]:
        """Per shape, kept between steps and cut to ``count`` shapes: the broad phase's
        boxes and filters, and the speculative margins (zero unless the solver sets them)."""
        if self._stage_views is None or len(self._stage_views[2]) != count:
            if len(self._margins) < count:
                self._boxes = ShapeBoxes(*(grown(column, count) for column in self._boxes))
                self._filters = ShapeFilters(*(grown(column, count)
                                               for column in self._filters))
                self._margins = grown(self._margins, count)
                self._zero_margins = np.zeros(len(self._margins))
            self._stage_views = (ShapeBoxes(*(column[:count] for column in self._boxes)),
                                 ShapeFilters(*(column[:count] for column in self._filters)),
                                 self._margins[:count])
        return self._stage_views

    def _fill_filters(self, filters: ShapeFilters) -> None:
        columns = self._shapes.filters
        shape_filters(self._shapes.arrays.body, columns.category, columns.mask, columns.group,
                      self._bodies.arrays.kinds, filters)

    def conclude(self, dt: float, found: EventCounts) -> None:
        """The step is done: the log counts it and records its events (``found``: what the
        events stage wrote into the event buffers)."""
        self._log.conclude(dt, self._sensor_contacts, found, self._events)
