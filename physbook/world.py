"""Chapters 4, 9 and 11: the World, which owns the tables and runs the stages of a step.

A world keeps its bodies in a :class:`~physbook.dynamics.body_table.BodyTable`, their shapes
in a :class:`~physbook.geometry.shape_table.ShapeTable` and the touching pairs in a
:class:`~physbook.dynamics.contact_table.ContactTable`. :meth:`World.step` hands the stages
of a step (integrators, broad phase, narrow phase, solver) the columns they work on, never
the world itself; the broad phase and the solver are chosen by name or given as objects.
"""

from __future__ import annotations

import copy
import math
import operator
import sys
from collections.abc import Callable, Iterable
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._buffers import ColumnView, carry_out, grown
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
    new_step_state,
    step_from_state,
)
from physbook.constants import (
    DEFAULT_GRAVITY,
    HIT_SPEED,
    SLEEP_ANGULAR_SPEED,
    SLEEP_LINEAR_SPEED,
    TIME_TO_SLEEP,
)
from physbook.continuous import shape_reaches, stop_fast_bodies
from physbook.dynamics.body import Body, rotated
from physbook.dynamics.body_table import BodyArrays, BodyRemoval, BodyTable
from physbook.dynamics.colouring import Colouring, share_out
from physbook.dynamics.contact_table import ContactTable, mark_pairs_of
from physbook.dynamics.islands import (
    islands_after_removals,
    update_islands,
    wake_around,
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
from physbook.dynamics.motion import speculative_margins, update_origins
from physbook.dynamics.snapshot import StepSnapshot, check_finite
from physbook.dynamics.solvers import (
    COMPILED_SOLVERS,
    DEFAULT_SOLVER,
    SoftStepSolver,
    contact_solver,
)
from physbook.events import (
    Contact,
    ContactEvents,
    ContactHandler,
    HitEvents,
    SensorEvents,
    difference,
    key_pairs,
    pair_keys,
    touches_and_hits,
    touching_rows,
)
from physbook.geometry.mass import combine_mass
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shape_table import ShapeRemoval, ShapeTable, shape_aabbs
from physbook.geometry.shapes import Circle, Polygon, Shape
from physbook.kinds import BODY_KINDS, DYNAMIC, KINEMATIC, STATIC
from physbook.queries import (
    RayHit,
    ShapeRef,
    box_query,
    point_query,
    query_filter,
    ray_query,
)
from physbook.recording import Recording


def _as_shapes(value) -> tuple[Shape, ...]:
    if isinstance(value, (Circle, Polygon)):
        return (value,)
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(
            "shape_or_shapes must be a Circle, a Polygon or a sequence of them, "
            f"got {type(value).__name__}"
        )
    shapes = tuple(value)
    if not shapes:
        raise ValueError("shape_or_shapes must hold at least one shape")
    for i, shape in enumerate(shapes):
        _check.instance(shape, f"shape_or_shapes[{i}]", (Circle, Polygon),
                        "a Circle or a Polygon")
    return shapes


def _per_shape(value, name: str, count: int, check) -> list:
    """``value`` for each of ``count`` shapes: one value for all, or a list or tuple of
    ``count`` values; ``check(item, name)`` checks each."""
    if isinstance(value, (list, tuple)):
        if len(value) != count:
            raise ValueError(f"{name} must be one value or one per shape ({count}), got "
                             f"{len(value)}")
        return [check(item, f"{name}[{i}]") for i, item in enumerate(value)]
    return [check(value, name)] * count


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


def _size(shape: Shape) -> float:
    """A shape's thickness scale, 2·area/perimeter (m): a circle's radius, half a square's
    side, a long plate's thickness. Solvers scale their length tolerances by it."""
    if isinstance(shape, Circle):
        return shape.radius
    edges = np.roll(shape.vertices, -1, axis=0) - shape.vertices
    return 2.0 * shape.area() / float(np.hypot(*edges.T).sum())


class _CompiledState(NamedTuple):
    """What :meth:`World._compiled_state` gathered: the ``handle`` (a
    :class:`~physbook.compiled_step.StepState`), the objects and values it was gathered
    from, the two contact sets in the order the handle holds them, the shape count, and the
    solver's colouring work arrays (None unless it solves in colours)."""

    handle: object
    sources: tuple
    values: tuple
    contact_sets: tuple
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
        almost nothing until something wakes them. The thresholds are the attributes
        ``sleep_linear_speed``, ``sleep_angular_speed`` and ``time_to_sleep``.

    Notes
    -----
    Joints (chapter 11) are added with :meth:`add_joint`; the solver solves them beside the
    contacts. Queries (:meth:`query_aabb`, :meth:`query_point`, :meth:`ray_cast`) ask where
    the shapes are; after each step :attr:`contact_events` and :attr:`sensor_events` say
    which contacts began, ended or hit, and :meth:`on_contact` calls a game's functions for
    them (chapter 12). After each step :attr:`contacts` holds the touching shape pairs, their points
    and the impulses the solver gave them, and islands of bodies at rest may have fallen
    asleep (``awake`` false): they skip every stage until something wakes them.

    The body columns below are views of the rows in use, ``0 .. count − 1``; the ones
    marked writable may be written through the view (the origins follow written centres
    and angles at the next step, or at once with :meth:`update_origins`). The others are
    derived, and read-only. A view shows the rows in use when it was taken: adding or
    removing a body makes new views, so read the property again after either (a view kept
    from before writes to rows no longer used).
    """

    # The body columns; "writable" ones may be written through the view.
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
    restitutions = ColumnView("(N,) restitution of each body's material.")
    frictions = ColumnView("(N,) friction coefficient of each body's material.")
    ids = ColumnView("(N,) body ids, by row (a removed body's id goes to a later body).")
    awake = ColumnView("(N,) bool: the body moves in the next step (false when asleep and "
                       "for static bodies; set Body.awake to change it).")
    sleep_times = ColumnView("(N,) how long each body has been slow enough to sleep (s).")
    bullets = ColumnView("(N,) bool: continuous against dynamic bodies too (Body.bullet).")

    def __init__(self, gravity=DEFAULT_GRAVITY, capacity: int = 16, solver=None,
                 broad_phase=DEFAULT_BROAD_PHASE, sleeping: bool = True):
        self._gravity = _check.vector(gravity, "gravity")
        capacity = _check.positive_int(capacity, "capacity", _check.MAX_CAPACITY)
        self._bodies = BodyTable(capacity)
        self._shapes = ShapeTable(capacity)
        self._contacts = ContactTable(capacity)
        self._joints = JointTable()
        self._saved_joint_impulses: dict = {}
        self._sleeping = _check.flag(sleeping, "sleeping")
        self._continuous = True
        self._sleep_linear_speed = SLEEP_LINEAR_SPEED
        self._sleep_angular_speed = SLEEP_ANGULAR_SPEED
        self._time_to_sleep = TIME_TO_SLEEP
        # Each body's island label, and scratch for the island passes (chapter 11).
        self._islands = np.zeros(capacity, np.int64)
        self._island_marks = np.zeros(capacity, np.bool_)
        self._island_parents = np.zeros(capacity, np.int64)
        self._island_slowest = np.zeros(capacity)
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
        self._query_tree = None
        self._query_seen = None  # (tree, step count, centres, angles) at the last refresh
        self._query_origins = np.zeros((capacity, 2))  # the origins the queries saw
        self._static_seen = None  # (tree of static shapes, their (ids, centres, angles))
        self._touching = self._previous_touching = np.empty(0, np.int64)
        self._sensing = self._previous_sensing = np.empty(0, np.int64)
        self._ended_by_removal: list[int] = []
        self._sensing_ended_by_removal: list[int] = []
        self._step_ended: tuple = ([], [])
        self._hits = HitEvents(np.empty((0, 2), np.int64), np.empty((0, 2)), np.empty((0, 2)),
                               np.empty(0))
        self._hit_speed = HIT_SPEED
        self._events = (np.empty(0, np.int64),)
        self._handlers: list[ContactHandler] = []
        self._dispatching = False  # the contact callbacks are running (see _in_callback)
        self._pending_removals: list[Body] = []
        self._removed_shapes: dict[int, tuple[int, bool, Body]] = {}
        self._removed_at_step: dict[int, tuple[int, bool, Body]] = {}
        # Simulated time is counted in whole steps: time = elapsed + steps·dt (chapter 3).
        self._elapsed = 0.0
        self._steps_at_dt = 0
        self._dt = 0.0
        self._step_count = 0

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
        done, the contact callbacks (:meth:`on_contact`) run.
        """
        if not (dt.__class__ is float and 0.0 < dt < math.inf):  # the common case, at once
            dt = _check.positive_scalar(dt, "dt")
        if self._dispatching and self._in_callback():
            raise RuntimeError("step() was called from a contact callback; step the world "
                               "after the callbacks return")
        # Until the step saves the state it starts from, nothing of it is saved.
        self._snapshot.forget()
        self._saved_joint_impulses = _NONE_SAVED
        rows_before = (self._contacts.rows_set, self._sensor_contacts.rows_set)
        steps_before = self._step_count
        try:
            if self._compiled and self._own_stages and not self._shapes.sensor_count:
                # The library's own stages: the same stages, as one compiled call.
                self._step_compiled(dt)
            else:
                self._step_staged(dt)
        except BaseException as error:
            # A step ends by counting itself (_conclude_step), and an interrupt can land
            # as that returns: counted, the step is done, and the world stays after it.
            if self._step_count == steps_before:
                self._undo_step(rows_before)
            interrupt = _interrupt_behind(error)
            if interrupt is None:
                raise
            raise interrupt from None
        if self._handlers:
            self._dispatch()

    def _step_staged(self, dt: float) -> None:
        """The stages of a step, one by one, each handed the columns it works on."""
        bodies, shapes, joints = self._bodies.arrays, self._shapes.arrays, self._joints.arrays
        self._check_state(bodies)
        self._save_state(bodies, joints)
        # Islands (chapter 11): a sleeping body given a push, or moved, wakes with its
        # island.
        count = len(bodies.kinds)
        islands, marks = self._islands[:count], self._island_marks[:count]
        wake_before_step(bodies, islands, marks, self._sleeping)
        boxes, filters, margins = self._stage_buffers(len(shapes.ids))
        # How close shapes must come to get a contact: touching, or, for a solver that takes
        # speculative contacts, as close as they may come within the step.
        distance = getattr(self._solver, "speculative_distance", 0.0)
        if distance > 0.0:
            speculative_margins(shapes.body, shape_reaches(shapes, bodies.local_centers)[0],
                                bodies, distance, dt, margins)
        else:
            margins[:] = 0.0
        # Broad phase: the shape pairs whose boxes overlap and whose filters allow a contact.
        pairs = self._find_pairs(shapes, bodies, boxes, filters, margins)
        # Sensors only report overlaps: their pairs get no contact, only an overlap test.
        if self._shapes.sensor_count:
            sensor = self._shapes.filters.sensor
            is_sensed = sensor[pairs[:, 0]] | sensor[pairs[:, 1]]
            sensed = pairs[is_sensed & ~(sensor[pairs[:, 0]] & sensor[pairs[:, 1]])]
            pairs = pairs[~is_sensed]
            self._sensor_contacts.update(sensed, shapes, bodies.origins, bodies.angles,
                                         bodies.restitutions, bodies.frictions,
                                         self._zero_margins[:len(margins)], bodies.awake,
                                         check=False)
        elif self._sensor_contacts.count:
            self._sensor_contacts.clear()
        # Narrow phase: the touching pairs' manifolds; a point seen last step keeps its
        # impulses (same shape ids, same feature id). A pair asleep keeps its row as it was.
        self._contacts.update(pairs, shapes, bodies.origins, bodies.angles,
                              bodies.restitutions, bodies.frictions, margins, bodies.awake,
                              check=False)
        contacts = self._contacts.arrays
        if self._sleeping:  # a sleeping island an awake body now touches wakes
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
        self._refuse_non_finite(bodies, dt)
        # Continuous collision (chapter 13): a fast body is put back at its time of impact.
        # Then islands at rest long enough fall asleep, and the forces, which act for one
        # step only, are cleared.
        self._finish_step(bodies, contacts, joints, dt)
        self._conclude_step(dt)

    def _finish_step(self, bodies: BodyArrays, contacts, joints, dt: float) -> None:
        """The stages after the solver: continuous collision, sleep, forces cleared."""
        if self._continuous and stop_fast_bodies(
                bodies, self._shapes, self._joints.joined_pairs(),
                self._snapshot.column("centers"), self._snapshot.column("angles"),
                self._continuous_tree):
            update_origins(bodies)
        count = len(bodies.kinds)
        if self._sleeping:  # islands at rest long enough fall asleep
            update_islands(bodies, contacts.bodies, joints.bodies, dt,
                           self._sleep_linear_speed, self._sleep_angular_speed,
                           self._time_to_sleep, self._islands[:count],
                           self._island_parents[:count], self._island_slowest[:count])
        bodies.forces[:] = 0.0
        bodies.torques[:] = 0.0

    def _step_compiled(self, dt: float) -> None:
        """:meth:`step` as one compiled call (:func:`~physbook.compiled_step.compiled_step`):
        the same stages over the same arrays, giving the same states bit for bit."""
        bodies, joints = self._bodies.arrays, self._joints.arrays
        tree, contacts = self._broad_phase, self._contacts
        self._save_joint_impulses(joints)
        synced = False
        # The solver's settings, and its softnesses for this dt (a state holds only the
        # settings: a game may step by the frame time it measured, a new dt each step).
        settings = self._solver.compiled_settings(dt)
        springs = settings[2:]
        while True:
            current, old_count, spare = contacts.sets(0)
            state = self._compiled_state(settings[:2], current, spare)
            if state.colouring is not None and self._solver.parallel:
                share_out(state.colouring)  # numba's thread count may have changed
            known, keys = tree.candidates()
            status, value, keys, moved, contact_count, found = step_from_state(
                state.handle, current is state.contact_sets[0], old_count, keys, known,
                synced, self._sleeping, self._continuous, self._touching, self._gravity, dt,
                springs, self._hit_speed)
            if status == BAD_STATE:
                self._check_state(bodies)  # raises, naming the body and the quantity
            if not synced:
                tree.accept(state.shape_count, keys, moved)
            if status != NEED_ROOM:
                break
            # More pairs than contact rows: grow them and step again, from the tree as this
            # call left it.
            contacts.sets(value)
            synced = True
        contacts.accept(contact_count)
        if self._sensor_contacts.count:  # the last sensor was removed since the last step
            self._sensor_contacts.clear()
        if status == NOT_FINITE:
            self._refuse_non_finite(bodies, dt)
        elif status == FAST:
            self._finish_step(bodies, contacts.arrays, joints, dt)
        self._conclude_step(dt, found)

    def _undo_step(self, rows_before: tuple) -> None:
        """Put back what a step cut short had written: the body columns and island labels
        it saved before anything moved, the contact rows it replaced (``rows_before``: the
        sets of contact rows and sensor rows in use before it), the joint impulses. The
        tree is emptied, to be built again at the next step: a step cut short may have
        synced its leaves without keeping the pairs it found, and the pairs a tree reports
        are exact whatever its leaves hold, so the states go on as if nothing happened."""
        self._snapshot.restore(self._bodies.arrays, self._islands)
        for table, before in zip((self._contacts, self._sensor_contacts), rows_before,
                                 strict=True):
            if table.rows_set is not before:
                table.revert()
        for name, saved in self._saved_joint_impulses.items():
            getattr(self._joints.arrays, name)[...] = saved
        if isinstance(self._broad_phase, DynamicTree):
            self._broad_phase.clear()
        self._step_state = None
        self._query_seen = None

    def _compiled_state(self, settings: tuple, current, spare) -> _CompiledState:
        """The columns and buffers the compiled step works on, gathered in a
        :class:`~physbook.compiled_step.StepState`, with ``current`` and ``spare`` the
        contact sets and ``settings`` the solver's (the first two of its
        ``compiled_settings``); gathered anew only when one was replaced (a body, shape or
        joint added or removed, a buffer grown, a setting changed). Everything it holds
        derives from the objects and values compared here; nothing depends on ``dt``."""
        bodies, shapes, joints = self._bodies.arrays, self._shapes.arrays, self._joints.arrays
        solver, tree = self._solver, self._broad_phase
        soft_settings, impulse_settings = settings
        sources = (bodies, shapes, self._shapes.filters, joints)
        values = (self._sleep_linear_speed, self._sleep_angular_speed, self._time_to_sleep,
                  tree.margin, tree.prediction, soft_settings, impulse_settings)
        cached = self._step_state
        if cached is not None and cached.values == values and all(
                map(operator.is_, cached.sources, sources)):
            first, second = cached.contact_sets
            if (current is first and spare is second) or (current is second
                                                          and spare is first):
                return cached
        count, shape_count = len(bodies.kinds), len(shapes.ids)
        has_joints = len(joints.kinds) > 0
        boxes, filters, margins = self._stage_buffers(shape_count)
        capacity = max(len(current.point_counts), len(spare.point_counts))
        work, motion, joint_work = solver._scratch.views(
            capacity, count, len(joints.kinds) if has_joints else None)
        (nodes, tree_state, leaf_of_row, tree_centers, tree_moved, _, tree_margin,
         prediction, shrink, _) = tree.stage_arrays(shape_count)
        colouring = (solver.colouring(capacity, count) if isinstance(solver, SoftStepSolver)
                     else None)
        islands = (self._islands[:count], self._island_marks[:count],
                   self._island_parents[:count], self._island_slowest[:count],
                   self._sleep_linear_speed, self._sleep_angular_speed, self._time_to_sleep)
        handle = new_step_state((
            bodies, shapes, self._shapes.filters, boxes, filters, margins,
            solver.speculative_distance,
            (nodes, tree_state, leaf_of_row, tree_centers, tree_moved),
            (tree_margin, prediction, shrink),
            joints if has_joints else None, joints.bodies, self._joints.joined_pairs(),
            (current, spare), narrow_scratch(shapes, count), self._snapshot.buffers(count),
            islands, shape_reaches(shapes, bodies.local_centers),
            (soft_settings, impulse_settings, work, motion, joint_work, colouring,
             None if colouring is None else solver.threads(colouring)),
            self._event_buffers(capacity)))
        self._step_state = _CompiledState(handle, sources, values, (current, spare),
                                          shape_count, colouring)
        return self._step_state

    def _save_state(self, bodies: BodyArrays, joints) -> None:
        """Keep what a step writes (body columns, island labels, joint impulses), to undo
        the step if it fails."""
        self._snapshot.save(bodies, self._islands)
        self._save_joint_impulses(joints)

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
        shape_aabbs(shapes, bodies.origins, bodies.angles, margins, boxes.lower, boxes.upper)
        self._fill_filters(filters)
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

    def _event_buffers(self, rows: int) -> tuple[np.ndarray, ...]:
        """Room for the events of ``rows`` contact rows, kept between steps: the buffers of
        :func:`~physbook.events.contact_states_into`."""
        if len(self._events[0]) < rows:
            self._events = (np.empty(rows, np.int64), np.empty((rows, 2), np.int64),
                            np.empty((rows, 2)), np.empty((rows, 2)), np.empty(rows))
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

    def update_origins(self) -> None:
        """Recompute every origin from its centre and angle: origin = c − R(θ)·local_c.

        Only needed after writing ``centers`` or ``angles`` directly, to read ``origins``
        before the next step, which does this too.
        """
        update_origins(self._bodies.arrays)

    # --- sizes, settings and tables ----------------------------------------------------

    @property
    def arrays(self) -> BodyArrays:
        """Every body column as the stages receive it: writable views, rows in use.

        For compiled code written against the engine, such as a force field applied to all
        bodies. Unlike the column properties above, the derived columns here are writable
        too; write a mass or an origin only if you keep what it is derived from in step.
        """
        return self._bodies.arrays

    @property
    def count(self) -> int:
        """Number of bodies (rows in use)."""
        return self._bodies.count

    def __len__(self) -> int:
        return self._bodies.count

    @property
    def capacity(self) -> int:
        """Body rows allocated; grows by doubling."""
        return self._bodies.capacity

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
        return self._elapsed + self._steps_at_dt * self._dt

    @property
    def step_count(self) -> int:
        """Steps taken since the world was made."""
        return self._step_count

    @property
    def bodies(self) -> list[Body]:
        """Handles of all bodies, in row order."""
        return self._bodies.handles

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
        the library's own and no shape is a sensor (on by default). The states are the same
        bit for bit either way; off, every step runs the stages one by one, as
        :meth:`step` lists them."""
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

    # --- sleep (chapter 11) ------------------------------------------------------------

    @property
    def sleeping(self) -> bool:
        """Whether islands at rest fall asleep; turning it off wakes every body."""
        return self._sleeping

    @sleeping.setter
    def sleeping(self, value) -> None:
        self._sleeping = _check.flag(value, "sleeping")
        if not self._sleeping:
            bodies = self._bodies.arrays
            asleep = (bodies.kinds == DYNAMIC) & ~bodies.awake
            bodies.awake[asleep] = True
            bodies.sleep_times[asleep] = 0.0

    @property
    def sleep_linear_speed(self) -> float:
        """A body slower than this (m/s) ... (Box2D's 0.05 m/s by default)."""
        return self._sleep_linear_speed

    @sleep_linear_speed.setter
    def sleep_linear_speed(self, value) -> None:
        self._sleep_linear_speed = _check.non_negative_scalar(value, "sleep_linear_speed")

    @property
    def sleep_angular_speed(self) -> float:
        """... and turning slower than this (rad/s; 2°/s by default) ..."""
        return self._sleep_angular_speed

    @sleep_angular_speed.setter
    def sleep_angular_speed(self, value) -> None:
        self._sleep_angular_speed = _check.non_negative_scalar(value, "sleep_angular_speed")

    @property
    def time_to_sleep(self) -> float:
        """... for this long (s, 0.5 by default), with every body of its island, sleeps."""
        return self._time_to_sleep

    @time_to_sleep.setter
    def time_to_sleep(self, value) -> None:
        self._time_to_sleep = _check.non_negative_scalar(value, "time_to_sleep")

    @property
    def awake_count(self) -> int:
        """Number of dynamic bodies awake."""
        bodies = self._bodies.arrays
        return int(np.count_nonzero(bodies.awake & (bodies.kinds == DYNAMIC)))

    def _put_to_sleep(self, row: int) -> None:
        """Put the island of the dynamic body at ``row`` to sleep now (Body.awake = False)."""
        bodies = self._bodies.arrays
        labels = self._islands[: len(bodies.kinds)]
        island = np.flatnonzero((labels == labels[row]) & (bodies.kinds == DYNAMIC))
        bodies.awake[island] = False
        bodies.velocities[island] = 0.0
        bodies.angular_velocities[island] = 0.0
        bodies.sleep_times[island] = np.maximum(bodies.sleep_times[island], self._time_to_sleep)
        bodies.sleep_centers[island] = bodies.centers[island]
        bodies.sleep_angles[island] = bodies.angles[island]

    def _wake_around(self, rows) -> None:
        """Wake the body at ``rows`` (a row or rows) and whatever touches it or is jointed to
        it, with their islands (:func:`~physbook.dynamics.islands.wake_around`)."""
        bodies = self._bodies.arrays
        wake_around(rows, self._contacts.arrays.bodies, self._joints.arrays.bodies,
                    bodies.kinds, bodies.awake, bodies.sleep_times)

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
        self._islands[row] = row  # an island of its own until the next step links it

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
            (:attr:`sensor_events`) and never collide.
        """
        shapes = _as_shapes(shape_or_shapes)
        position = _check.vector(position, "position")
        angle = _check.finite_scalar(angle, "angle")
        velocity = _check.vector(velocity, "velocity")
        angular_velocity = _check.finite_scalar(angular_velocity, "angular_velocity")
        _check.instance(material, "material", Material, "a Material")
        kind_code = BODY_KINDS.index(_check.choice(kind, "kind", BODY_KINDS))
        gravity_scale = _check.finite_scalar(gravity_scale, "gravity_scale")
        if filter is not None and layers is not None:
            raise ValueError("give layers or filter, not both: layers is shorthand for "
                             "Filter(category=layers, mask=layers)")
        if filter is None:
            filters = [Filter.layers(1 if layers is None else layers)] * len(shapes)
        else:
            filters = _per_shape(filter, "filter", len(shapes), lambda value, name:
                                 _check.instance(value, name, Filter, "a Filter"))
        sensors = _per_shape(sensor, "sensor", len(shapes), _check.flag)
        if kind_code == STATIC and (velocity.any() or angular_velocity != 0.0):
            raise ValueError(
                "a static body cannot move: velocity and angular_velocity must be zero "
                "(use kind='kinematic' for a body that moves at a set velocity)"
            )

        # Raises ValueError, naming the density, if a mass or an inertia leaves float range.
        mass, inertia, local_center = combine_mass(shapes, material.density)
        if kind_code != DYNAMIC:
            # Infinite mass: stored as mass 0 and inverse 0, as Box2D does. The centre of
            # mass stays the shapes' centroid, so a kinematic body spins about it.
            mass = inertia = 0.0
        values = {
            "origins": position, "centers": position + rotated(local_center, angle),
            "angles": angle, "local_centers": local_center, "velocities": velocity,
            "angular_velocities": angular_velocity, "masses": mass, "inertias": inertia,
            "inverse_masses": 1.0 / mass if mass > 0.0 else 0.0,
            "inverse_inertias": 1.0 / inertia if inertia > 0.0 else 0.0,
            "gravity_scales": gravity_scale, "kinds": kind_code,
            "restitutions": material.restitution, "frictions": material.friction,
            "sizes": min(_size(shape) for shape in shapes),
            "awake": kind_code == DYNAMIC or (kind_code == KINEMATIC and (
                velocity.any() or angular_velocity != 0.0)),
        }
        # Room first (growing a table changes none of its rows), then the body and its
        # shapes; if anything stops them, the tables go back to their marks.
        row = self._bodies.count
        self._islands = grown(self._islands, row + 1)
        self._island_marks = grown(self._island_marks, row + 1)
        self._island_parents = grown(self._island_parents, row + 1)
        self._island_slowest = grown(self._island_slowest, row + 1)
        body_mark, shape_mark = self._bodies.mark(), self._shapes.mark()
        try:
            self._bodies.add(values, shapes, material,
                             lambda body_id: Body(self, self._bodies, body_id))
            for shape, shape_filter, is_sensor in zip(shapes, filters, sensors, strict=True):
                self._shapes.append(shape, row, shape_filter, is_sensor)
            self._islands[row] = row  # a new body is an island of its own, labelled by its row
            self._query_seen = None
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
        if self._dispatching and self._in_callback():
            pending = {body.id for body in self._pending_removals}
            self._pending_removals = self._pending_removals + [
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
        events = self._end_events_of(shapes.rows, owners)
        stages = []
        for stage in (self._broad_phase, self._query_tree):
            if isinstance(stage, DynamicTree):
                stages.append((stage, stage.removal(shapes.rows)))
            elif getattr(stage, "remove_rows", None) is not None:
                # Another stage that keeps rows: it removes them on a copy of itself,
                # whose attributes it takes in at once.
                staged = copy.copy(stage)
                staged.remove_rows(shapes.rows)
                stages.append((stage, staged))
        # Islands: each holding a removed body wakes, with the joints' other bodies.
        labels, woken = islands_after_removals(self._islands, table.kinds, table.awake,
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
        remembered, ((touching, ended, ended_from), (sensing, sensed, sensed_from)) = \
            removal.events
        self._removed_shapes.update(remembered)
        if len(self._ended_by_removal) == ended_from:
            self._ended_by_removal.extend(ended)
        if len(self._sensing_ended_by_removal) == sensed_from:
            self._sensing_ended_by_removal.extend(sensed)
        self._touching, self._sensing = touching, sensing
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
        self._islands[:len(removal.islands)] = removal.islands
        self._query_seen = None

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
        lower = _check.vector(lower, "lower")
        upper = _check.vector(upper, "upper")
        if np.any(lower > upper):
            raise ValueError(f"lower must not exceed upper, got {lower} and {upper}")
        shape_filter = query_filter(filter)
        (tree, origins), bodies = self._queried(), self._bodies.arrays
        rows = box_query(tree, self._shapes, origins, bodies.angles, lower,
                         upper, shape_filter)
        return [self._shape_ref(row) for row in rows.tolist()]

    def query_point(self, point, filter: Filter | None = None  # noqa: A002
                    ) -> list[ShapeRef]:
        """The shapes containing ``point`` (m; their boundary counts), by shape id."""
        point = _check.vector(point, "point")
        shape_filter = query_filter(filter)
        (tree, origins), bodies = self._queried(), self._bodies.arrays
        rows = point_query(tree, self._shapes, origins, bodies.angles, point,
                           shape_filter)
        return [self._shape_ref(row) for row in rows.tolist()]

    def ray_cast(self, origin, translation, filter: Filter | None = None  # noqa: A002
                 ) -> RayHit | None:
        """The first shape the ray from ``origin`` along ``translation`` (m) hits, or None.

        The ray covers origin + t·translation for t from 0 to 1; a shape the ray starts
        inside is not hit. Sensors are never hit.
        """
        hits = self.ray_cast_all(origin, translation, filter)
        return hits[0] if hits else None

    def ray_cast_all(self, origin, translation, filter: Filter | None = None  # noqa: A002
                     ) -> list[RayHit]:
        """Every shape the ray hits (see :meth:`ray_cast`), nearest first."""
        origin = _check.vector(origin, "origin")
        translation = _check.vector(translation, "translation")
        shape_filter = query_filter(filter)
        (tree, origins), bodies = self._queried(), self._bodies.arrays
        rows, fractions, normals = ray_query(tree, self._shapes, origins,
                                             bodies.angles, origin, translation,
                                             shape_filter)
        return [RayHit(*self._shape_ref(row), origin + fraction * translation, normal,
                       float(fraction))
                for row, fraction, normal in zip(rows.tolist(), fractions, normals, strict=True)]

    def query_tree(self) -> DynamicTree:
        """The tree the queries walk, its leaves brought up to date with the shapes now:
        the broad phase's own when it is a tree, else one the world keeps for queries.
        Its rows are the rows of :attr:`shapes`.

        The shapes' boxes are recomputed only when something moved since the last query
        (a step, a written centre or angle, a body added or removed), so many queries
        between two steps cost one update.
        """
        return self._queried()[0]

    def _queried(self) -> tuple[DynamicTree, np.ndarray]:
        """:meth:`query_tree`, and the (N, 2) origins its boxes were placed at.

        The queries see where the bodies are now, centres or angles written since the step
        included, but they work those origins out apart from the world's own: a query
        changes nothing a step reads, so a program that queries steps exactly as one that
        does not (the world's origins follow written centres at the next step).
        """
        if isinstance(self._broad_phase, DynamicTree):
            tree = self._broad_phase
        else:
            if self._query_tree is None:
                self._query_tree = DynamicTree()
            tree = self._query_tree
        bodies = self._bodies.arrays
        count = len(bodies.kinds)
        seen = self._query_seen
        if (seen is not None and seen[0] is tree and seen[1] == self._step_count
                and np.array_equal(seen[2], bodies.centers)
                and np.array_equal(seen[3], bodies.angles)):
            return tree, self._query_origins[:count]
        self._query_origins = grown(self._query_origins, count)
        origins = self._query_origins[:count]
        update_origins(bodies._replace(origins=origins))
        shape_count = self._shapes.count
        boxes, _, _ = self._stage_buffers(shape_count)
        shape_aabbs(self._shapes.arrays, origins, bodies.angles,
                    self._zero_margins[:shape_count], boxes.lower, boxes.upper)
        tree.update(boxes)
        self._query_seen = (tree, self._step_count, bodies.centers.copy(),
                            bodies.angles.copy())
        return tree, origins

    def _continuous_tree(self, moving: bool) -> tuple[DynamicTree, np.ndarray | None]:
        """A tree for continuous collision and the shape rows of its leaves (None: its rows
        are the shape rows). With ``moving`` it is the query tree brought up to date; else a
        tree of the static shapes alone, rebuilt only when they change, so that the walk of
        a fast body's swept box does not visit the moving bodies around it."""
        if moving:
            return self.query_tree(), None
        bodies, shapes = self._bodies.arrays, self._shapes.arrays
        rows = np.flatnonzero(bodies.kinds[shapes.body] == STATIC)
        owners = shapes.body[rows]
        key = (shapes.ids[rows], bodies.centers[owners], bodies.angles[owners])
        seen = self._static_seen
        if seen is None or not all(np.array_equal(a, b) for a, b in zip(seen[1], key,
                                                                         strict=True)):
            boxes = ShapeBoxes(np.empty((len(shapes.ids), 2)), np.empty((len(shapes.ids), 2)))
            shape_aabbs(shapes, bodies.origins, bodies.angles,
                        self._zero_margins[:len(shapes.ids)], boxes.lower, boxes.upper)
            tree = DynamicTree()
            tree.update(ShapeBoxes(boxes.lower[rows], boxes.upper[rows]))
            self._static_seen = (tree, tuple(column.copy() for column in key))
        # The tree's row k is the k-th static shape, whichever row it has moved to.
        return self._static_seen[0], rows

    def _shape_ref(self, row: int) -> ShapeRef:
        shapes = self._shapes.arrays
        return ShapeRef(self._bodies.handle(int(shapes.body[row])), self._shapes.shape(row),
                        int(shapes.ids[row]))

    # --- events (chapter 12) ----------------------------------------------------------

    @property
    def hit_speed(self) -> float:
        """Contact points approaching faster than this (m/s, 1 by default) and closing
        within the step are hits (:attr:`contact_events`)."""
        return self._hit_speed

    @hit_speed.setter
    def hit_speed(self, value) -> None:
        self._hit_speed = _check.non_negative_scalar(value, "hit_speed")

    @property
    def contact_events(self) -> ContactEvents:
        """The contacts that began touching in the last step, ended (or lost a body since
        the step before), and hit (see :mod:`physbook.events`)."""
        began = difference(self._touching, self._previous_touching)
        ended = np.union1d(difference(self._previous_touching, self._touching),
                           np.array(self._step_ended[0], np.int64))
        return ContactEvents(key_pairs(began), key_pairs(ended), self._hits)

    @property
    def sensor_events(self) -> SensorEvents:
        """The shapes that began and ended overlapping a sensor in the last step, as
        (sensor id, visitor id) pairs."""
        began = difference(self._sensing, self._previous_sensing)
        ended = np.union1d(difference(self._previous_sensing, self._sensing),
                           np.array(self._step_ended[1], np.int64))
        return SensorEvents(self._sensor_first(key_pairs(began)),
                            self._sensor_first(key_pairs(ended)))

    def on_contact(self, category_a: int, category_b: int, begin: Callable | None = None,
                   end: Callable | None = None) -> ContactHandler:
        """Call ``begin(contact)`` / ``end(contact)`` after each step for every contact or
        sensor overlap that began / ended between a shape of ``category_a`` and one of
        ``category_b`` (bitmasks, matched against the shapes' filter categories).

        The :class:`~physbook.events.Contact` passed has the shapes in that order. The
        callbacks run after the step; bodies they remove are removed once the last one has
        returned, and :meth:`step` may not be called from them. If one raises, the others
        still get their events, and :meth:`step` raises the first exception once they
        have (the step itself is done). Returns the registration, for
        :meth:`remove_contact_handler`.
        """
        category_a = _check.bitmask(category_a, "category_a")
        category_b = _check.bitmask(category_b, "category_b")
        for name, function in (("begin", begin), ("end", end)):
            if function is not None and not callable(function):
                raise TypeError(f"{name} must be callable or None")
        if begin is None and end is None:
            raise ValueError("give begin, end or both: a handler with neither does nothing")
        handler = ContactHandler(category_a, category_b, begin, end)
        self._handlers.append(handler)
        return handler

    def remove_contact_handler(self, handler: ContactHandler) -> None:
        """Stop calling the functions ``handler`` (from :meth:`on_contact`) registered."""
        for i, registered in enumerate(self._handlers):
            if registered is handler:
                del self._handlers[i]
                return
        raise ValueError("handler is not registered with this world")

    def _conclude_step(self, dt: float, found: tuple | None = None) -> None:
        """The step is done: count it (simulated time is counted in whole steps, time =
        elapsed + steps·dt, chapter 3), and record which pairs touch, which sensors see
        whom and the hits (``found``: if the compiled step worked them out already, what it
        wrote into the event buffers, as the counts of
        :func:`~physbook.compiled_step.compiled_step`).

        Everything is worked out first and written in one statement at the end, so that an
        exception (an interrupt) leaves either none of it or all of it.
        """
        done = {"_step_count": self._step_count + 1, "_steps_at_dt": self._steps_at_dt + 1}
        if dt != self._dt:
            done.update(_elapsed=self._elapsed + self._steps_at_dt * self._dt,
                        _steps_at_dt=1, _dt=dt)
        done["_previous_touching"] = self._touching
        if found is None:
            snapshot = self._snapshot
            done["_touching"], done["_hits"] = touches_and_hits(
                self._contacts.arrays, snapshot.column("centers"),
                snapshot.column("velocities"), snapshot.column("angular_velocities"), dt,
                self._hit_speed)
        else:
            touch_count, hit_count, changed = found
            keys, *hits = self._events
            if changed:  # else the keys are last step's, and the array stays
                done["_touching"] = keys[:touch_count].copy()
            if hit_count or len(self._hits.speeds):
                done["_hits"] = HitEvents(*(column[:hit_count].copy() for column in hits))
        # Contact rows are sorted by shape ids, so the keys are sorted too.
        done["_previous_sensing"] = self._sensing
        if self._sensor_contacts.count or len(self._sensing):
            sensed = self._sensor_contacts.arrays
            done["_sensing"] = pair_keys(sensed.shape_ids[touching_rows(sensed.point_counts,
                                                                        sensed.depths)])
        if self._ended_by_removal or self._sensing_ended_by_removal or self._step_ended[0] \
                or self._step_ended[1]:
            done.update(_step_ended=(self._ended_by_removal, self._sensing_ended_by_removal),
                        _ended_by_removal=[], _sensing_ended_by_removal=[])
        if self._removed_shapes or self._removed_at_step:
            done.update(_removed_at_step=self._removed_shapes, _removed_shapes={})
        self.__dict__.update(done)

    def _end_events_of(self, shape_rows: np.ndarray, owners: dict) -> tuple:
        """Bodies are being removed, ``owners`` mapping their rows to their handles: what
        becomes of the events of their shapes at ``shape_rows``, changing nothing yet. The
        shapes are remembered for the events of the next step (a dict of (category,
        sensor, body) by shape id); their touching pairs, then their sensor overlaps, end:
        for each, (the keys left, the keys ended, the length of the list of ended keys
        they join)."""
        shapes, filters = self._shapes.arrays, self._shapes.filters
        ids = shapes.ids[shape_rows]
        remembered = {shape_id: (category, sensor, owners[row]) for shape_id, category, sensor,
                      row in zip(ids.tolist(), filters.category[shape_rows].tolist(),
                                 filters.sensor[shape_rows].tolist(),
                                 shapes.body[shape_rows].tolist(), strict=True)}
        ended = []
        for keys, ended_before in ((self._touching, self._ended_by_removal),
                                   (self._sensing, self._sensing_ended_by_removal)):
            gone = np.zeros(len(keys), np.bool_)
            if len(ids):
                mark_pairs_of(keys, ids, gone)
            ended.append((keys[~gone], keys[gone].tolist(), len(ended_before)))
        return remembered, tuple(ended)

    def _shape_info(self, shape_id: int) -> tuple[int, bool, Body]:
        """(category, sensor, body) of a shape, live or removed since the last step."""
        for removed in (self._removed_shapes, self._removed_at_step):
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

    def _dispatch(self) -> None:
        """Call the contact handlers for the last step's begin and end events.

        A handler that raises does not cost the others their events: every event is
        delivered, the bodies the handlers removed are removed, and then the first
        exception is raised (an interrupt stops the delivery at once)."""
        contact_events, sensor_events = self.contact_events, self.sensor_events
        failure = None
        try:
            self._dispatching = True
            failure = self._call_handlers(contact_events, sensor_events)
        finally:
            self._dispatching = False
            pending, self._pending_removals = self._pending_removals, []
            alive = [body for body in pending if body.alive]
            if alive:
                self.remove_bodies(alive)
        if failure is not None:
            raise failure

    def _in_callback(self) -> bool:
        """Whether this world's contact callbacks are running: :meth:`_dispatch` of this
        world is on the call stack. ``_dispatching`` says so at once, but an interrupt
        that lands as it is being cleared could leave it set; the stack cannot lie, and
        is walked only when the flag is set."""
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code is World._dispatch.__code__ and frame.f_locals.get("self") is self:
                return True
            frame = frame.f_back
        self._dispatching = False
        return False

    def _call_handlers(self, contact_events: ContactEvents,
                       sensor_events: SensorEvents) -> Exception | None:
        """Call every handler for the events (see :meth:`_dispatch`); the first exception
        one of them raised, or None."""
        failure = None
        for kind in ("begin", "end"):
            for pairs, sensor in ((getattr(contact_events, kind), False),
                                  (getattr(sensor_events, kind), True)):
                for a, b in pairs.tolist():
                    category_a, _, body_a = self._shape_info(a)
                    category_b, _, body_b = self._shape_info(b)
                    for handler in list(self._handlers):
                        function = getattr(handler, kind)
                        if function is None:
                            continue
                        if category_a & handler.category_a and \
                                category_b & handler.category_b:
                            contact = Contact(a, b, body_a, body_b, sensor)
                        elif category_b & handler.category_a and \
                                category_a & handler.category_b:
                            contact = Contact(b, a, body_b, body_a, sensor)
                        else:
                            continue
                        try:
                            function(contact)
                        except Exception as error:  # the game's: raised once all ran
                            failure = failure or error
        return failure

    # --- running and recording -------------------------------------------------------

    def run(self, steps: int, dt: float,
            before_step: Callable[[World], None] | None = None) -> Recording:
        """Step ``steps`` times and return a :class:`~physbook.recording.Recording` of
        steps + 1 states.

        ``before_step(world)``, if given, runs before each step: the place to apply forces,
        which every step clears. Bodies may not be added or removed during a run, neither
        there nor by contact callbacks (``RuntimeError``).
        """
        steps = _check.non_negative_int(steps, "steps")
        dt = _check.positive_scalar(dt, "dt")
        if before_step is not None and not callable(before_step):
            raise TypeError("before_step must be callable or None")
        n = self.count
        ids = self.ids.copy()
        try:
            times = np.empty(steps + 1)
            origins = np.empty((steps + 1, n, 2))
            angles = np.empty((steps + 1, n))
            centers = np.empty((steps + 1, n, 2))
            velocities = np.empty((steps + 1, n, 2))
            angular_velocities = np.empty((steps + 1, n))
        except MemoryError:
            size = (steps + 1) * (8 * n + 1) * 8 / 2**30
            raise ValueError(f"steps={steps} would record {size:.3g} GiB, more memory than is "
                             "available; step the world in parts") from None

        def record(k: int) -> None:
            bodies = self._bodies.arrays
            times[k] = self.time
            origins[k] = bodies.origins
            angles[k] = bodies.angles
            centers[k] = bodies.centers
            velocities[k] = bodies.velocities
            angular_velocities[k] = bodies.angular_velocities

        record(0)
        for k in range(1, steps + 1):
            if before_step is not None:
                before_step(self)
                if self.count != n or not np.array_equal(self.ids, ids):
                    raise RuntimeError("bodies were added or removed during run(); "
                                       "step the world yourself when the bodies change")
            self.step(dt)
            if self.count != n:
                raise RuntimeError("bodies were added or removed during run() (by a contact "
                                   "callback?); step the world yourself when the bodies "
                                   "change")
            record(k)
        return Recording(times, origins, angles, centers, velocities, angular_velocities,
                         self._bodies.all_shapes, self.kinds.copy(), ids)
