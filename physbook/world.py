"""Chapters 4, 9 and 11: the World, which owns the tables and runs the stages of a step.

A world keeps its bodies in a :class:`~physbook.dynamics.body_table.BodyTable`, their shapes
in a :class:`~physbook.geometry.shape_table.ShapeTable` and the touching pairs in a
:class:`~physbook.dynamics.contact_table.ContactTable`. :meth:`World.step` hands the stages
of a step (integrators, broad phase, narrow phase, solver) the columns they work on, never
the world itself; the broad phase and the solver are chosen by name or given as objects.
Each other concern is an object the world holds: its bodies' handles and columns
(:class:`~physbook.dynamics.bodies.Bodies`), sleep (:class:`~physbook.dynamics.sleep.Sleep`),
the events and callbacks (:class:`~physbook.event_log.EventLog`) and the queries
(:class:`~physbook.queries.QueryIndex`).
"""

from __future__ import annotations

import copy
import math
import operator
from collections.abc import Callable, Iterable
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._buffers import carry_out, grown
from physbook.broadphase import DEFAULT_BROAD_PHASE
from physbook.broadphase import broad_phase as resolve_broad_phase
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
from physbook.constants import DEFAULT_GRAVITY
from physbook.continuous import fast_bodies, may_stop_fast, shape_reaches, stop_fast_bodies
from physbook.dynamics.bodies import Bodies
from physbook.dynamics.body import Body
from physbook.dynamics.body_table import BodyArrays, BodyRemoval, BodyTable
from physbook.dynamics.colouring import Colouring, share_out
from physbook.dynamics.contact_table import ContactTable, update_contacts
from physbook.dynamics.islands import (
    IslandWork,
    islands_after_removals,
    update_islands,
    wake_before_step,
    wake_touched,
)
from physbook.dynamics.joint_table import (
    IMPULSE_COLUMNS,
    JointRemoval,
    JointTable,
    drop_joined,
)
from physbook.dynamics.joints import Joint
from physbook.dynamics.materials import DEFAULT_MATERIAL, Material
from physbook.dynamics.motion import update_origins
from physbook.dynamics.new_body import new_body_values
from physbook.dynamics.sleep import Sleep
from physbook.dynamics.snapshot import StepSnapshot, check_finite, save_motion, save_step_start
from physbook.dynamics.solver_steps import CompiledSettings, SolverWork
from physbook.dynamics.solvers import (
    COMPILED_SOLVERS,
    DEFAULT_SOLVER,
    SoftStepSolver,
    contact_solver,
)
from physbook.event_log import EventLog
from physbook.events import EventBuffers, EventCounts, event_buffers, split_sensor_pairs
from physbook.geometry.mass import combine_mass
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shape_table import ShapeRemoval, ShapeTable, shape_aabbs
from physbook.kinds import DYNAMIC, KINEMATIC, STATIC
from physbook.queries import (
    QueryIndex,
    RayHit,
    ShapeRef,
)
from physbook.recording import Recording, recorded_run
from physbook.stages import (
    boxes_and_filters,
    check_state,
    clear_forces,
    contact_events_into,
    step_margins,
)

#: What a step has saved of the joints' impulses before it saves them: nothing.
_NONE_SAVED: dict = {}


def _interrupt_behind(error: BaseException) -> KeyboardInterrupt | None:
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


class _CompiledState(NamedTuple):
    """What :meth:`World._compiled_state` gathered: the ``handle`` (a
    :class:`~physbook.compiled_step.StepState`), the objects and values it was gathered
    from, the two contact sets and the two sensor sets in the order the handle holds them,
    the shape count, and the solver's colouring work arrays (None unless it solves in
    colours)."""

    handle: object
    sources: tuple
    values: tuple
    contact_sets: tuple
    sensor_sets: tuple
    shape_count: int
    colouring: Colouring | None


class _Removal(NamedTuple):
    """What :meth:`World._removal` worked out for :meth:`World._apply_removal`: the joint
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


class World:
    """A collection of bodies that move together under gravity, forces and contacts.

    Parameters
    ----------
    gravity
        Acceleration of gravity (m/s²), (0, −10) by default.
    capacity
        Body rows to allocate at first; the arrays double whenever they fill up.
    solver
        The contact solver stage: a name from :data:`physbook.dynamics.solvers.SOLVERS`
        (``"soft_step"``, the default) or an object with
        ``step(contacts, bodies, gravity, dt)``.
    broad_phase
        The broad phase stage: a name from :data:`physbook.broadphase.BROAD_PHASES`
        (``"tree"``, the default) or a callable ``(boxes, filters) -> (P, 2)`` shape pairs.
    sleeping
        Let islands of bodies that have come to rest fall asleep (chapter 11): they cost
        almost nothing until something wakes them. The switch and the thresholds are
        :attr:`sleep`'s.

    Notes
    -----
    A world holds its parts by concern, each an object of its own:

    - :attr:`bodies`: the handles, and every body column as a numpy view
      (``world.bodies.centers``), as the stages receive them;
    - :attr:`shapes`, :attr:`contacts` and :attr:`joints`: the shape table, the touching
      pairs after the last step (points, impulses), and the joints (chapter 11), which the
      solver solves beside the contacts;
    - :attr:`sleep`: when islands at rest fall asleep (``awake`` false: they skip every
      stage until something wakes them);
    - :attr:`events`: which contacts began, ended or hit in the last step, the sensor
      overlaps, and a game's callbacks for them (chapter 12).

    Queries (:meth:`query_aabb`, :meth:`query_point`, :meth:`ray_cast`) ask where the
    shapes are (chapter 12).
    """

    def __init__(self, gravity=DEFAULT_GRAVITY, capacity: int = 16, solver=None,
                 broad_phase=DEFAULT_BROAD_PHASE, sleeping: bool = True):
        self._gravity = _check.vector(gravity, "gravity")
        capacity = _check.positive_int(capacity, "capacity", _check.MAX_CAPACITY)
        self._bodies = BodyTable(capacity)
        self._shapes = ShapeTable(capacity)
        self._contacts = ContactTable(capacity)
        self._joints = JointTable()
        self._saved_joint_impulses: dict = {}
        self._body_view = Bodies(self._bodies)
        self._sleep = Sleep(self._bodies, sleeping)
        self._continuous = True
        self._solver = contact_solver(DEFAULT_SOLVER if solver is None else solver)
        self._compiled = True
        self._snapshot = StepSnapshot()
        # The library's broad phases return canonical pairs; a user's are checked.
        self._broad_phase, self._trusted_pairs = resolve_broad_phase(broad_phase)
        # Stages the compiled step can run: a library solver (by type: a subclass may have
        # its own step) and the library's tree.
        self._own_stages = (type(self._solver) in COMPILED_SOLVERS
                            and type(self._broad_phase) is DynamicTree)
        self._stage_views = None
        self._step_state: _CompiledState | None = None
        self._boxes = ShapeBoxes(np.zeros((capacity, 2)), np.zeros((capacity, 2)))
        self._filters = ShapeFilters(*(np.zeros(capacity, np.int64) for _ in range(4)),
                                     np.zeros(capacity, np.bool_))
        self._margins = np.zeros(capacity)
        self._zero_margins = np.zeros(capacity)
        # Sensors, events and queries (chapter 12).
        self._sensor_contacts = ContactTable(capacity)
        self._events = event_buffers(0)  # the events stage's buffers
        self._log = EventLog(self._bodies, self._shapes)
        self._queries = QueryIndex(self._bodies, self._shapes, self._broad_phase, self._log)

    def __getstate__(self) -> dict:
        """What ``pickle`` and ``copy.deepcopy`` keep of a world: all of it but the compiled
        step's gathered state (numba's handles on the columns), gathered again at the next
        step, and the views of the stage buffers, cut again (a copied view would be an
        array of its own). A copy steps on exactly as the world would."""
        return {**self.__dict__, "_step_state": None, "_stage_views": None}

    # --- the step --------------------------------------------------------------------

    def step(self, dt: float) -> None:
        """Advance the world by ``dt`` seconds: the stages of one time step.

        Raises ``ValueError`` if a body's state holds a NaN or an infinity written into the
        arrays, and ``FloatingPointError`` if the step itself makes one (a force or speed
        too large for floats); in both cases the world is left as it was before the step.
        So is it when anything else cuts the step short, a ``KeyboardInterrupt`` above all
        (Ctrl-C, or a notebook's stop button), which is raised as it came. Once the step is
        done, the contact callbacks (``world.events.on_contact``) run.
        """
        if not (dt.__class__ is float and 0.0 < dt < math.inf):  # the common case, at once
            dt = _check.positive_scalar(dt, "dt")
        if self._log.in_callback():
            raise RuntimeError("step() was called from a contact callback; step the world "
                               "after the callbacks return")
        # Until the step saves the state it starts from, nothing of it is saved.
        self._snapshot.forget()
        self._saved_joint_impulses = _NONE_SAVED
        rows_before = (self._contacts.rows_set, self._sensor_contacts.rows_set)
        steps_before = self._log.record.step_count
        try:
            if self._compiled and self._own_stages:
                # The library's own stages: the same stages, as one compiled call.
                self._step_compiled(dt)
            else:
                self._step_staged(dt)
        except BaseException as error:
            # A step ends by counting itself (_conclude_step), and an interrupt can land
            # as that returns: counted, the step is done, and the world stays after it.
            if self._log.record.step_count == steps_before:
                self._undo_step(rows_before)
            interrupt = _interrupt_behind(error)
            if interrupt is None:
                raise
            raise interrupt from None
        if self._log.has_handlers:
            self._log.dispatch(self.remove_bodies)

    def _step_staged(self, dt: float) -> None:
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
            self._end_quiet_step(dt)
            return
        save_motion(bodies, saved)
        boxes, filters, margins = self._stage_buffers(len(shapes.ids))
        # How close shapes must come to get a contact: touching, or, for a solver that takes
        # speculative contacts, as close as they may come within the step.
        reaches = shape_reaches(shapes, bodies.local_centers)
        step_margins(shapes.body, reaches.shapes, bodies,
                     getattr(self._solver, "speculative_distance", 0.0), dt, margins)
        # Broad phase: the shape pairs whose boxes overlap and whose filters allow a contact.
        pairs = self._find_pairs(shapes, bodies, boxes, filters, margins)
        # Sensors only report overlaps: their pairs get no contact, only an overlap test.
        narrow, sensors = narrow_scratch(shapes, count), self._sensor_contacts
        if self._shapes.sensor_count:
            pairs, sensed = split_sensor_pairs(pairs, self._shapes.filters.sensor)
            current, old_count, spare = sensors.sets(len(sensed))
            sensors.accept(update_contacts(
                sensed, shapes, bodies.origins, bodies.angles, self._zero_margins[:len(margins)],
                bodies.restitutions, bodies.frictions, bodies.awake, current, old_count, spare,
                narrow))
        elif sensors.count:
            sensors.clear()
        # Narrow phase: the touching pairs' manifolds; a point seen last step keeps its
        # impulses (same shape ids, same feature id). A pair asleep keeps its row as it was.
        current, old_count, spare = self._contacts.sets(len(pairs))
        self._contacts.accept(update_contacts(
            pairs, shapes, bodies.origins, bodies.angles, margins, bodies.restitutions,
            bodies.frictions, bodies.awake, current, old_count, spare, narrow))
        contacts = self._contacts.arrays
        if self._sleep.enabled:  # a sleeping island an awake body now touches wakes
            wake_touched(contacts.bodies, joints.bodies, bodies.kinds, bodies.awake,
                         bodies.sleep_times, islands, marks)
        # Solver: it moves the awake bodies through the step, v += dt·(g·gravity_scale +
        # F/m), joint and contact impulses, c += dt·v and θ += dt·ω (in substeps if it works
        # in substeps). A world whose every body sleeps has nothing to solve.
        if bodies.awake.any():
            if len(joints.kinds):
                self._solver.step(contacts, bodies, self._gravity, dt, joints)
            else:
                self._solver.step(contacts, bodies, self._gravity, dt)
        # Events (chapter 12): which pairs touch and which hit, from the motion saved before
        # the step.
        found = contact_events_into(contacts, saved, dt, self._log.hit_speed,
                                    self._event_buffers(len(contacts.point_counts)),
                                    self._log.record.touching)
        if check_state(bodies) >= 0:
            self._refuse_non_finite(bodies, dt)  # raises; the step is undone
        # Continuous collision (chapter 13): a fast body is put back at its time of impact.
        # Then islands at rest long enough fall asleep, and the forces, which act for one
        # step only, are cleared.
        self._finish_step(bodies, contacts, joints, dt)
        self._conclude_step(dt, found)

    def _finish_step(self, bodies: BodyArrays, contacts, joints, dt: float) -> None:
        """The stages after the solver: continuous collision, sleep, forces cleared."""
        if self._continuous:
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

    def _step_compiled(self, dt: float) -> None:
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
            sensed, sensed_count, sensed_spare = sensors.sets(0)
            state = self._compiled_state(settings, (current, spare), (sensed, sensed_spare))
            if state.colouring is not None and self._solver.parallel:
                share_out(state.colouring)  # numba's thread count may have changed
            known, keys = tree.candidates()
            result = step_from_state(
                state.handle, current is state.contact_sets[0], old_count, sensing,
                sensed is state.sensor_sets[0], sensed_count, keys, known, synced,
                self._sleep.enabled, self._continuous, self._log.record.touching,
                self._gravity, dt, settings.springs, self._log.hit_speed)
            status = result.status
            if status == BAD_STATE:
                self._check_state(bodies)  # raises, naming the body and the quantity
            if status == QUIET:
                self._end_quiet_step(dt)
                return
            if not synced:
                tree.accept(state.shape_count, result.keys, result.moved)
            if status != NEED_ROOM:
                break
            # More pairs than contact (or sensor) rows: grow them and step again, from the
            # tree as this call left it.
            contacts.sets(result.contact_rows)
            sensors.sets(result.sensor_rows)
            synced = True
        contacts.accept(result.contact_rows)
        if sensing:
            sensors.accept(result.sensor_rows)
        elif sensors.count:  # the last sensor was removed since the last step
            sensors.clear()
        if status == NOT_FINITE:
            self._refuse_non_finite(bodies, dt)
        elif status == FAST:
            self._finish_step(bodies, contacts.arrays, joints, dt)
        self._conclude_step(dt, result.counts)

    def _end_quiet_step(self, dt: float) -> None:
        """End a step in which nothing was awake: nothing moved, no contact changed, and
        the pairs that touched still touch (a sleeping pair's contact stays as it fell
        asleep, touching or not)."""
        if not self._shapes.sensor_count and self._sensor_contacts.count:
            self._sensor_contacts.clear()  # the last sensor was removed since the last step
        self._conclude_step(dt, EventCounts(0, 0, False))

    def _undo_step(self, rows_before: tuple) -> None:
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

    def _compiled_state(self, settings: CompiledSettings, contact_sets: tuple,
                        sensor_sets: tuple) -> _CompiledState:
        """The columns and buffers the compiled step works on, gathered in a
        :class:`~physbook.compiled_step.StepState`, with ``contact_sets`` and
        ``sensor_sets`` the (current, spare) sets of the contact and sensor tables and
        ``settings`` the solver's ``compiled_settings`` (its softnesses unused); gathered
        anew only when one was replaced (a body, shape or joint added or removed, a buffer
        grown, a setting changed). Everything it holds derives from the objects and values
        compared here; nothing depends on ``dt``."""
        bodies, shapes, joints = self._bodies.arrays, self._shapes.arrays, self._joints.arrays
        solver, tree = self._solver, self._broad_phase
        sources = (bodies, shapes, self._shapes.filters, joints)
        values = (self._sleep.linear_speed, self._sleep.angular_speed, self._sleep.time_to_sleep,
                  tree.margin, tree.prediction, settings.soft, settings.impulse)
        cached = self._step_state
        current, spare = contact_sets
        if (cached is not None and cached.values == values
                and all(map(operator.is_, cached.sources, sources))):
            # The sets a table holds swap at each step: the same two, in either order.
            held, sensed = cached.contact_sets, cached.sensor_sets
            if (((current is held[0] and spare is held[1])
                 or (current is held[1] and spare is held[0]))
                    and ((sensor_sets[0] is sensed[0] and sensor_sets[1] is sensed[1])
                         or (sensor_sets[0] is sensed[1] and sensor_sets[1] is sensed[0]))):
                return cached
        count, shape_count = len(bodies.kinds), len(shapes.ids)
        has_joints = len(joints.kinds) > 0
        boxes, filters, margins = self._stage_buffers(shape_count)
        capacity = max(len(current.point_counts), len(spare.point_counts))
        work, motion, joint_work = solver.work_views(
            capacity, count, len(joints.kinds) if has_joints else None)
        colouring = (solver.colouring(capacity, count) if isinstance(solver, SoftStepSolver)
                     else None)
        sleep = self._sleep
        islands = IslandWork(sleep.labels[:count], sleep.marks[:count], sleep.parents[:count],
                             sleep.slowest[:count], sleep.linear_speed, sleep.angular_speed,
                             sleep.time_to_sleep)
        handle = new_step_state(StepArgs(
            bodies, shapes, self._shapes.filters, boxes, filters, margins,
            solver.speculative_distance, tree.stage_arrays(shape_count),
            joints if has_joints else None, joints.bodies, self._joints.joined_pairs(),
            (current, spare), narrow_scratch(shapes, count), self._snapshot.buffers(count),
            islands, shape_reaches(shapes, bodies.local_centers),
            SolverWork(settings.soft, settings.impulse, work, motion, joint_work, colouring,
                       None if colouring is None else solver.threads(colouring)),
            self._event_buffers(capacity)),
            SensorSets(*sensor_sets, self._zero_margins[:shape_count]))
        self._step_state = _CompiledState(handle, sources, values, (current, spare),
                                          tuple(sensor_sets), shape_count, colouring)
        return self._step_state

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

    def _find_pairs(self, shapes, bodies, boxes, filters, margins) -> np.ndarray:
        """The broad phase stage: fill the boxes (grown by the margins) and filters of every
        shape, ask for pairs."""
        boxes_and_filters(shapes, bodies, self._shapes.filters, margins, boxes.lower,
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

    def _event_buffers(self, rows: int) -> EventBuffers:
        """Room for the events of ``rows`` contact rows, kept between steps."""
        if len(self._events.keys) < rows:  # too few
            self._events = event_buffers(rows)
            self._step_state = None  # it holds the buffers these replace
        return self._events

    def _stage_buffers(self, count: int) -> tuple[ShapeBoxes, ShapeFilters, np.ndarray]:
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

    def broad_phase_input(self) -> tuple[ShapeBoxes, ShapeFilters]:
        """What the broad phase would see now: every shape's world box and filter (copies)."""
        boxes, filters, _ = self._stage_buffers(self._shapes.count)
        bodies, shapes = self._bodies.arrays, self._shapes.arrays
        shape_aabbs(shapes, bodies.origins, bodies.angles, np.zeros(len(shapes.ids)),
                    boxes.lower, boxes.upper)
        self._fill_filters(filters)
        return (ShapeBoxes(*(column.copy() for column in boxes)),
                ShapeFilters(*(column.copy() for column in filters)))

    def _fill_filters(self, filters: ShapeFilters) -> None:
        columns = self._shapes.filters
        shape_filters(self._shapes.arrays.body, columns.category, columns.mask, columns.group,
                      self._bodies.arrays.kinds, filters)

    # --- sizes, settings and tables ----------------------------------------------------

    @property
    def count(self) -> int:
        """Number of bodies (rows in use)."""
        return self._bodies.count

    def __len__(self) -> int:
        return self._bodies.count

    @property
    def gravity(self) -> np.ndarray:
        """Gravity (m/s²)."""
        return self._gravity.copy()

    @gravity.setter
    def gravity(self, value) -> None:
        self._gravity = _check.vector(value, "gravity")

    @property
    def time(self) -> float:
        """Simulated time (s): the steps taken times their ``dt``, never a running sum."""
        return self._log.record.time

    @property
    def step_count(self) -> int:
        """Steps taken since the world was made."""
        return self._log.record.step_count

    @property
    def bodies(self) -> Bodies:
        """The bodies: their handles in row order, and their columns as numpy views
        (``world.bodies.centers``; :class:`~physbook.dynamics.bodies.Bodies`)."""
        return self._body_view

    @property
    def shapes(self) -> ShapeTable:
        """Every body's shapes in one :class:`~physbook.geometry.shape_table.ShapeTable`."""
        return self._shapes

    @property
    def contacts(self) -> ContactTable:
        """The touching shape pairs after the last step, their points and impulses."""
        return self._contacts

    @property
    def solver(self):
        """The contact solver stage."""
        return self._solver

    @property
    def broad_phase(self) -> Callable:
        """The broad phase stage, called ``(boxes, filters) -> pairs``."""
        return self._broad_phase

    @property
    def joints(self) -> list[Joint]:
        """The joints of the world, in the order they were added (a new list)."""
        return self._joints.handles

    @property
    def joint_arrays(self):
        """Every joint column (:class:`~physbook.dynamics.joint_table.JointColumns`), as
        the solver receives them."""
        return self._joints.arrays

    @property
    def compiled(self) -> bool:
        """Whether a step runs as one compiled call when the solver and the broad phase are
        the library's own (on by default). The states are the same bit for bit either way;
        off, every step runs the stages of :data:`~physbook.stages.STEP_STAGES` one by one
        from Python."""
        return self._compiled

    @compiled.setter
    def compiled(self, value) -> None:
        self._compiled = _check.flag(value, "compiled")

    # --- continuous collision (chapter 13) ----------------------------------------------

    @property
    def continuous(self) -> bool:
        """Whether fast bodies are stopped at their time of impact against static bodies
        (and bullets against dynamic ones too); on by default."""
        return self._continuous

    @continuous.setter
    def continuous(self, value) -> None:
        self._continuous = _check.flag(value, "continuous")

    @property
    def sleep(self) -> Sleep:
        """When islands at rest fall asleep, and how many bodies are awake
        (:class:`~physbook.dynamics.sleep.Sleep`)."""
        return self._sleep

    def _wake_around(self, rows) -> None:
        """Wake the body at ``rows`` (a row or rows) and whatever touches it or is jointed to
        it, with their islands."""
        self._sleep.wake_around(rows, self._contacts.arrays.bodies, self._joints.arrays.bodies)

    def _set_kind(self, row: int, kind_code: int) -> None:
        """Make the body at ``row`` dynamic, static or kinematic (``Body.kind``): its mass
        and inertia follow (infinite unless dynamic), a static body stops, and it wakes
        with whatever rests on it."""
        bodies = self._bodies.arrays
        if kind_code == DYNAMIC:
            mass, inertia, _ = combine_mass(self._bodies.shapes(row),
                                            self._bodies.material(row).density)
        else:
            mass = inertia = 0.0
        self._wake_around(row)
        bodies.kinds[row] = kind_code
        bodies.masses[row], bodies.inertias[row] = mass, inertia
        bodies.inverse_masses[row] = 1.0 / mass if mass > 0.0 else 0.0
        bodies.inverse_inertias[row] = 1.0 / inertia if inertia > 0.0 else 0.0
        if kind_code == STATIC:
            bodies.velocities[row] = 0.0
            bodies.angular_velocities[row] = 0.0
        bodies.awake[row] = kind_code == DYNAMIC or (kind_code == KINEMATIC and (
            bodies.velocities[row].any() or bodies.angular_velocities[row] != 0.0))
        bodies.sleep_times[row] = 0.0
        self._sleep.labels[row] = row  # an island of its own until the next step links it

    # --- adding and removing ---------------------------------------------------------

    def add_body(
        self,
        shape_or_shapes,
        position=(0.0, 0.0),
        angle: float = 0.0,
        velocity=(0.0, 0.0),
        angular_velocity: float = 0.0,
        material: Material = DEFAULT_MATERIAL,
        kind: str = "dynamic",
        gravity_scale: float = 1.0,
        layers: int | None = None,
        filter: Filter | None = None,  # noqa: A002 (Box2D's and pymunk's name for it)
        sensor: bool = False,
    ) -> Body:
        """Add a body made of one shape or several (a compound) and return its handle.

        Adding is all or nothing: an exception inside it (Ctrl-C, a ``MemoryError``)
        leaves the world as it was, or with the body added.

        Parameters
        ----------
        shape_or_shapes
            A :class:`~physbook.geometry.shapes.Circle` or
            :class:`~physbook.geometry.shapes.Polygon`, or a list or tuple of them, in body
            coordinates (about the body origin).
        position, angle
            Pose of the body origin in the world (m, rad).
        velocity, angular_velocity
            Initial velocity of the centre of mass (m/s) and angular velocity (rad/s).
            Must be zero for a static body.
        material
            Density, restitution and friction (:class:`~physbook.dynamics.materials.Material`).
        kind
            ``"dynamic"``, ``"static"`` or ``"kinematic"``.
        gravity_scale
            Multiplier of the world's gravity for this body.
        layers
            Collision bitmask (an integer, 1 by default): shorthand for the filter
            ``Filter(category=layers, mask=layers)`` on every shape.
        filter
            A :class:`~physbook.geometry.shape_filter.Filter` (category, mask, group), or one
            per shape; give ``layers`` or ``filter``, not both.
        sensor
            True (or one flag per shape) for shapes that report overlaps
            (``world.events.sensors``) and never collide.
        """
        shapes, values, filters, sensors = new_body_values(
            shape_or_shapes, position, angle, velocity, angular_velocity, material, kind,
            gravity_scale, layers, filter, sensor)
        # Room first (growing a table changes none of its rows), then the body and its
        # shapes; if anything stops them, the tables go back to their marks.
        row = self._bodies.count
        self._sleep.grow(row + 1)
        body_mark, shape_mark = self._bodies.mark(), self._shapes.mark()
        try:
            self._bodies.add(values, shapes, material,
                             lambda body_id: Body(self, self._bodies, body_id))
            for shape, shape_filter, is_sensor in zip(shapes, filters, sensors, strict=True):
                self._shapes.append(shape, row, shape_filter, is_sensor)
            self._sleep.labels[row] = row  # a new body is an island of its own, labelled by its row
            self._queries.forget()
        except BaseException:
            self._shapes.truncate(shape_mark)
            self._bodies.truncate(body_mark)
            raise
        return self._bodies.handle(row)

    def remove_body(self, body: Body) -> None:
        """Remove ``body``. Rows behind it move up by one, in order; other handles stay
        valid, and the other contacts keep the impulses they carry. Its joints leave the
        world with it, and their other bodies wake, as does its island; its touching
        contacts and sensor overlaps end (events of the next step).

        Called from a contact callback, the removal waits until every callback of the step
        has run, so that each event still finds its bodies; removing the same body twice
        there removes it once. :meth:`remove_bodies` removes many bodies at once.

        A removal is all or nothing: an exception inside it (Ctrl-C, a ``MemoryError``)
        leaves the world as it was or with the body removed, never in between.
        """
        _check.instance(body, "body", Body, "a Body")
        if body.world is not self:
            raise ValueError("body belongs to another world")
        body.row  # noqa: B018 (raises LookupError if it was removed already)
        self._remove([body])

    def remove_bodies(self, bodies: Iterable[Body]) -> None:
        """Remove every body of ``bodies`` (handles, each once) at once: the same as
        :meth:`remove_body` on each in turn, in one pass over each table however many
        there are. Rows behind removed ones move up, in order (a row behind j removed ones
        moves up j rows).

        One removal moves every row behind it, so clearing many bodies one at a time
        moves the rows again for each; here they move once, and each body adds a little
        work of its own. All or nothing, as :meth:`remove_body`.
        """
        if isinstance(bodies, Body) or not isinstance(bodies, Iterable):
            raise TypeError("bodies must be an iterable of Body handles (remove_body removes "
                            f"one), got {type(bodies).__name__}")
        handles = list(bodies)
        first: dict[int, int] = {}
        for i, body in enumerate(handles):
            _check.instance(body, f"bodies[{i}]", Body, "a Body")
            if body.world is not self:
                raise ValueError(f"bodies[{i}] belongs to another world")
            body.row  # noqa: B018 (raises LookupError if it was removed already)
            if body.id in first:
                raise ValueError(f"bodies[{i}] repeats bodies[{first[body.id]}] (body "
                                 f"{body.id}): give each body once")
            first[body.id] = i
        self._remove(handles)

    def _remove(self, bodies: list[Body]) -> None:
        """Remove ``bodies`` (checked: live, distinct, of this world), or, during the
        callbacks, note them for removal when they have run."""
        if self._log.in_callback():
            pending = {body.id for body in self._log.pending_removals}
            self._log.pending_removals = self._log.pending_removals + [
                body for body in bodies if body.id not in pending]
            return
        if not bodies:
            return
        carry_out(self._apply_removal, self._removal(bodies))

    def _removal(self, bodies: list[Body]) -> _Removal:
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
        return _Removal(joints, detached, events, stages, self._bodies.removal(rows, order),
                        shapes, woken - np.searchsorted(rows, woken), labels)

    def _apply_removal(self, removal: _Removal) -> None:
        """Carry out ``removal`` (from :meth:`_removal`). Each part is done once however
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

    def add_joint(self, joint: Joint) -> Joint:
        """Add ``joint`` (made from bodies of this world) and return it. Its bodies wake.

        Raises ``ValueError`` if the joint is in a world already or one of its bodies was
        removed or belongs to another world. All or nothing, as :meth:`add_body`.
        """
        _check.instance(joint, "joint", Joint, "a joint (DistanceJoint, RevoluteJoint, ...)")
        if joint.world is not None:
            raise ValueError("joint was added to a world already; make a new joint")
        for name in ("body_a", "body_b"):
            body = getattr(joint, name)
            if not body.alive:
                raise ValueError(f"joint's {name} was removed from its world")
            if body.world is not self:
                raise ValueError(f"joint's {name} belongs to another world")
        values = joint.row_values()
        rows = [joint.body_a.row, joint.body_b.row]
        bodies = self._bodies.arrays
        awake, sleep_times = bodies.awake[rows], bodies.sleep_times[rows]
        mark = self._joints.mark()
        try:
            joint._attach(self, self._joints.add(values, joint))
            joint.wake_bodies()
        except BaseException:  # all or nothing: the joint leaves, its bodies as they were
            joint._attach(None, -1)
            self._joints.truncate(mark)
            bodies.awake[rows], bodies.sleep_times[rows] = awake, sleep_times
            raise
        return joint

    def remove_joint(self, joint: Joint) -> None:
        """Remove ``joint``; its bodies wake (and may now collide with each other). The
        joint keeps its settings and may be added again while its bodies exist. All or
        nothing, as :meth:`remove_body`.

        A joint leaves the world with either of its bodies (:meth:`remove_body`); removing
        it afterwards raises ``ValueError`` saying so."""
        _check.instance(joint, "joint", Joint, "a joint")
        if joint.world is not self:
            gone = joint._removed_with
            if gone and joint.body_a.world is self:
                bodies = " and ".join(str(body_id) for body_id in gone)
                raise ValueError(f"joint is not in this world: it left the world with its "
                                 f"{'body' if len(gone) == 1 else 'bodies'} {bodies}, "
                                 "which remove_body removed")
            raise ValueError("joint is not in this world")
        removal = self._joints.removal(joint_rows=[self._joints.row_of(joint._id)])
        settings = joint._settings(self._joints)
        carry_out(lambda plan: self._detach_joint(joint, *plan), (removal, settings))

    def _detach_joint(self, joint: Joint, removal: JointRemoval, settings: dict) -> None:
        """Carry out :meth:`remove_joint`; calling it again changes nothing more."""
        joint.wake_bodies()
        self._joints.apply_removal(removal)
        joint._leave(settings)

    # --- queries (chapter 12) ---------------------------------------------------------

    def query_aabb(self, lower, upper, filter: Filter | None = None  # noqa: A002
                   ) -> list[ShapeRef]:
        """The shapes overlapping the box from ``lower`` to ``upper`` (m; touching counts),
        ordered by shape id. ``filter``: report only shapes it would collide with."""
        return self._queries.box(lower, upper, filter)

    def query_point(self, point, filter: Filter | None = None  # noqa: A002
                    ) -> list[ShapeRef]:
        """The shapes containing ``point`` (m; their boundary counts), by shape id."""
        return self._queries.point(point, filter)

    def ray_cast(self, origin, translation, filter: Filter | None = None  # noqa: A002
                 ) -> RayHit | None:
        """The first shape the ray from ``origin`` along ``translation`` (m) hits, or None.

        The ray covers origin + t·translation for t from 0 to 1; a shape the ray starts
        inside is not hit. Sensors are never hit.
        """
        hits = self._queries.ray(origin, translation, filter)
        return hits[0] if hits else None

    def ray_cast_all(self, origin, translation, filter: Filter | None = None  # noqa: A002
                     ) -> list[RayHit]:
        """Every shape the ray hits (see :meth:`ray_cast`), nearest first."""
        return self._queries.ray(origin, translation, filter)

    # --- events (chapter 12) ----------------------------------------------------------

    @property
    def events(self) -> EventLog:
        """What the last step found (contacts that began, ended or hit, sensor overlaps)
        and the game's callbacks for them (:class:`~physbook.event_log.EventLog`)."""
        return self._log

    def _conclude_step(self, dt: float, found: tuple) -> None:
        """The step is done: the log counts it and records its events (``found``: what the
        events stage wrote into the event buffers)."""
        self._log.conclude(dt, self._sensor_contacts, found, self._events)

    # --- running and recording -------------------------------------------------------

    def run(self, steps: int, dt: float,
            before_step: Callable[[World], None] | None = None) -> Recording:
        """Step ``steps`` times and return a :class:`~physbook.recording.Recording` of
        steps + 1 states.

        ``before_step(world)``, if given, runs before each step: the place to apply forces,
        which every step clears. Bodies may not be added or removed during a run, neither
        there nor by contact callbacks (``RuntimeError``).
        """
        return recorded_run(self, steps, dt, before_step)
