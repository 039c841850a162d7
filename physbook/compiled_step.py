"""The World's own stages as one compiled call: :meth:`World.step
<physbook.world.World.step>` without the Python between its stages.

Stage by stage, a world hands each stage the columns it works on, one stage after the
other, in the order of :data:`~physbook.stages.STEP_STAGES`. Each hand-over is a Python
call into compiled code, with its checks, its buffers cut to the rows in use and its
arguments unpacked. When the stages are the library's own (a solver of
:data:`~physbook.dynamics.solvers.COMPILED_SOLVERS`, the dynamic tree broad phase), the
world runs :func:`compiled_step` instead: the same kernels, called in the same order from
compiled code, over the same arrays, with the
world's buffers kept between steps (the tree's candidate keys, when a leaf moved, and its
pairs are still allocated each step). Both give the same states, bit for bit
(``tests/test_compiled_step.py`` steps every standard scene both ways).

What stays in Python: the checks at the public boundary (``dt``, what the user wrote into
the arrays), growing a buffer when a count outgrows it, continuous collision when a body
may have moved fast and something could stop it, undoing a step that made a NaN or was
cut short by an exception (from the state the kernel saved first), and recording and
dispatching the events (the kernel works out which pairs touch and hit, into
buffers kept between steps).

Handing numba the world's columns costs more than a small world's whole step: numba works
out the type of each of about a hundred arrays and wraps each one, at every call. So the
world hands them over once, gathered in a :class:`StepState` (a numba structure that holds
them), and then calls :func:`step_from_state` with the state and the few values that change
from step to step. The world gathers a new state only when one of its tables replaced a
column (a body, a shape or a joint added or removed, a buffer grown, a setting changed).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._jit import ENABLED, njit
from physbook.broadphase.tree import TreeStage, overlapping_pairs, sync_and_pair
from physbook.collision.manifold import NarrowScratch
from physbook.continuous import Reaches, may_stop_fast
from physbook.dynamics.contact_surface import ContactRules
from physbook.dynamics.contact_table import contact_rows, update_contacts
from physbook.dynamics.islands import (
    IslandWork,
    update_islands,
    wake_before_step,
    wake_touched,
)
from physbook.dynamics.joint_table import drop_joined
from physbook.dynamics.snapshot import save_motion, save_step_start
from physbook.dynamics.solver_steps import SolverWork, solver_step, springs_from_table
from physbook.events import EventBuffers, EventCounts, split_sensor_pairs
from physbook.stages import (
    boxes_and_filters,
    check_state,
    clear_forces,
    contact_events_into,
    step_margins,
)

#: What :func:`compiled_step` returns as its status.
DONE = 0  #: the step ran to its end
BAD_STATE = 1  #: a body's state was not finite before the step; nothing was changed
NEED_ROOM = 2  #: more candidate pairs than contact rows; only the tree was updated
NOT_FINITE = 3  #: the solver made a state non-finite; the step must be undone
FAST = 4  #: a body may have moved fast and hit something: the rest of the step is Python's
QUIET = 5  #: nothing is awake: nothing moved, and the contacts and events stay as they were


class StepArgs(NamedTuple):
    """The arguments of :func:`compiled_step` that stay the same from step to step, held in
    a :class:`StepState`: the world's columns and the buffers kept between steps.

    ``bodies``, ``shapes`` and ``filter_columns`` are the body and shape tables' columns;
    ``boxes``, ``filters`` and ``margins`` the broad phase's input, filled each step, with
    ``drifts`` each body's drift over the step
    (:func:`~physbook.dynamics.motion.speculative_margins`);
    ``distance`` the solver's speculative distance (m); ``tree`` the tree stage's arrays
    and settings (:class:`~physbook.broadphase.tree.TreeStage`, its ``known`` and ``keys``
    replaced each step); ``joints`` None in a world without joints (``joint_bodies`` then
    has no rows), so that numba compiles that case without the joint stages, and
    ``joined`` the body pairs a joint keeps from colliding; ``contact_sets`` the contact
    table's two sets, which swap at each step; ``narrow`` the narrow phase's scratch
    (:class:`~physbook.collision.manifold.NarrowScratch`); ``saved`` the buffers of the
    state at the start of the step (:class:`~physbook.dynamics.snapshot.SavedStep`), so
    that the world can undo it; ``islands`` chapter 11's labels, scratch and thresholds
    (:class:`~physbook.dynamics.islands.IslandWork`); ``reaches`` how far each shape and
    each body reach (:class:`~physbook.continuous.Reaches`); ``solver`` the solver's
    settings and work arrays (:class:`~physbook.dynamics.solver_steps.SolverWork`);
    ``events`` the buffers of the events stage
    (:class:`~physbook.events.EventBuffers`); ``surfaces`` the shapes' surface rows and
    ``rules`` the world's contact rules
    (:class:`~physbook.dynamics.contact_surface.ContactRules`), chapter 16's."""

    bodies: tuple
    shapes: tuple
    filter_columns: tuple
    boxes: tuple
    filters: tuple
    margins: np.ndarray
    drifts: np.ndarray
    distance: float
    tree: TreeStage
    joints: tuple | None
    joint_bodies: np.ndarray
    joined: np.ndarray
    contact_sets: tuple
    narrow: NarrowScratch
    saved: tuple
    islands: IslandWork
    reaches: Reaches
    solver: SolverWork
    events: EventBuffers
    surfaces: np.ndarray
    rules: ContactRules


class SensorSets(NamedTuple):
    """The sensor table's two sets of rows (``first``, ``second``), which swap at each
    step, and zero margins for each shape: a sensor's pairs overlap or not, never
    speculatively."""

    first: tuple
    second: tuple
    zero_margins: np.ndarray


class SensorSource(NamedTuple):
    """Where :func:`compiled_step` finds the sensor rows: the ``state`` holding the
    :class:`SensorSets`, whether its first set holds the last step's rows
    (``old_is_first``) and their count (``old_count``)."""

    state: object
    old_is_first: bool
    old_count: int


class StepResult(NamedTuple):
    """What :func:`compiled_step` returns: the ``status`` (:data:`DONE` ...), its ``value``
    (the code of :func:`~physbook.dynamics.snapshot.first_non_finite` for
    :data:`BAD_STATE`), the tree's candidate ``keys`` and the leaves it inserted or renewed
    (``moved``), the contact rows and sensor rows written (after :data:`NEED_ROOM`: those
    needed), and the :class:`~physbook.events.EventCounts` (all zero when the step stopped
    before its events stage)."""

    status: int
    value: int
    keys: np.ndarray
    moved: int
    contact_rows: int
    sensor_rows: int
    counts: EventCounts


@njit(inline=True)
def compiled_step(args, tree, synced, old_contacts, old_count, new_contacts, sensing,
                  sensors, sleeping, continuous, springs, touching, gravity, dt, hit_speed):
    """One step of a world whose stages are the library's own, in the order of
    :data:`~physbook.stages.STEP_STAGES`; returns a :class:`StepResult`.

    ``args`` are the world's columns and buffers (the fields of a :class:`StepArgs`, read
    from the :class:`StepState` that holds them); ``tree`` the tree
    stage (:class:`~physbook.broadphase.tree.TreeStage`) with this step's known rows and
    candidate keys; ``synced`` says this step already updated the tree and its keys are
    this step's (a second call after :data:`NEED_ROOM`). ``old_contacts`` hold the last
    step's ``old_count`` rows, and the new rows go into ``new_contacts``. ``sensing`` says
    some shape is a sensor; ``sensors`` then says where the sensor rows are
    (:class:`SensorSource`): a sensor's pair gets an overlap test instead of a contact
    (:func:`~physbook.events.split_sensor_pairs`). ``sleeping`` and ``continuous`` are the
    world's switches, ``springs`` the solver's softnesses for ``dt``
    (:class:`~physbook.dynamics.solver_steps.Springs`), ``touching`` last step's touching
    keys, ``hit_speed`` (m/s) the speed of a hit.

    The status is one of :data:`DONE`, :data:`QUIET`, :data:`BAD_STATE`,
    :data:`NEED_ROOM` (the rows are then those the contact pairs and the sensor pairs
    need), :data:`NOT_FINITE` or :data:`FAST`. The events are those of
    :func:`~physbook.events.contact_states` for the new rows, the bodies' motion before
    the step, ``dt`` and ``hit_speed``, written into ``args.events``.
    """
    # Each field is read once: numba counts a reference to every array of a record each
    # time a field is read from it (and releases it after), hundreds for the solver's.
    bodies, shapes, saved, islands = args.bodies, args.shapes, args.saved, args.islands
    margins, reaches, filter_columns = args.margins, args.reaches, args.filter_columns
    joint_bodies, joined, narrow = args.joint_bodies, args.joined, args.narrow
    surfaces, rules = args.surfaces, args.rules
    labels, marks = islands.labels, islands.marks
    keys, nothing = tree.keys, EventCounts(0, 0, False)
    # The stages of physbook.stages.STEP_STAGES, in its order.
    # Check: a state the user wrote must be finite before anything moves.
    code = check_state(bodies)
    if code >= 0:
        return StepResult(BAD_STATE, code, keys, 0, 0, 0, nothing)
    if not synced:  # a second call after NEED_ROOM continues the step the first began
        # Save what waking writes, to undo the step (a state that overflows, an interrupt).
        save_step_start(bodies, labels, saved)
        # Wake: a sleeping body given a push, or moved, wakes with its island. With nothing
        # awake, nothing moves: the contacts and what touches stay as they are.
        if wake_before_step(bodies, labels, marks, sleeping) == 0:
            return StepResult(QUIET, 0, keys, 0, old_count, 0, nothing)
        save_motion(bodies, saved)
    drifts = args.drifts
    step_margins(shapes.body, reaches.shapes, bodies, args.distance, dt, margins, drifts)
    # Broad phase: the library's tree.
    boxes, filters = args.boxes, args.filters
    boxes_and_filters(shapes, bodies, filter_columns, margins, drifts, boxes.lower,
                      boxes.upper, filters)
    if synced:
        # Synced again, the tree would see no displacement and might refit fat boxes the
        # staged step keeps; its keys are already this step's.
        inserted, pairs = 0, overlapping_pairs(keys, boxes.lower, boxes.upper, filters)
    else:
        inserted, keys, pairs = sync_and_pair(
            tree.nodes, tree.state, tree.leaf_of_row, tree.centers, tree.moved, boxes.lower,
            boxes.upper, tree.known, tree.margin, tree.prediction, tree.shrink, keys,
            filters)
    if joined.shape[0] and pairs.shape[0]:
        pairs = drop_joined(pairs, shapes.body, joined)
    # Sensors only report overlaps: their pairs get no contact, only an overlap test.
    sensor_count = 0
    if sensing:
        pairs, sensed = split_sensor_pairs(pairs, filter_columns.sensor)
        # The sensor rows are read only here: a world without sensors takes no reference
        # to their columns (see physbook._jit).
        held = sensors.state.sensors
        sensor_old, sensor_new = ((held.first, held.second) if sensors.old_is_first
                                  else (held.second, held.first))
        if (pairs.shape[0] > new_contacts.point_counts.shape[0]
                or sensed.shape[0] > sensor_new.point_counts.shape[0]):
            return StepResult(NEED_ROOM, 0, keys, inserted, pairs.shape[0], sensed.shape[0],
                              nothing)
        sensor_count = update_contacts(sensed, shapes, surfaces, rules, bodies.origins,
                                       bodies.angles, held.zero_margins, drifts[:0],
                                       (drifts[:0], drifts[:0]), bodies.awake,
                                       sensor_old, sensors.old_count, sensor_new, narrow)
    elif pairs.shape[0] > new_contacts.point_counts.shape[0]:
        return StepResult(NEED_ROOM, 0, keys, inserted, pairs.shape[0], 0, nothing)
    # Narrow phase, impulses carried over by shape ids and feature ids.
    contact_count = update_contacts(pairs, shapes, surfaces, rules, bodies.origins,
                                    bodies.angles, margins, drifts, (boxes.lower, boxes.upper),
                                    bodies.awake, old_contacts, old_count, new_contacts,
                                    narrow)
    contacts = contact_rows(new_contacts, contact_count)
    if sleeping:
        wake_touched(contacts.bodies, joint_bodies, bodies.kinds, bodies.awake,
                     bodies.sleep_times, labels, marks)
    if bodies.awake.any():
        solver = args.solver
        solver_step(solver.soft_settings, solver.impulse_settings, contacts, bodies,
                    solver.work, solver.motion, args.joints, solver.joint_work, gravity, dt,
                    springs.contacts, springs.static_contacts, springs.joints,
                    solver.colouring, solver.threads, solver.awake_rows)
    # Events: which pairs touch and which hit, from the motion saved before the step.
    counts = EventCounts(*contact_events_into(contacts, saved, dt, hit_speed, args.events,
                                              touching))
    if check_state(bodies) >= 0:
        return StepResult(NOT_FINITE, 0, keys, inserted, contact_count, sensor_count, counts)
    if continuous and may_stop_fast(bodies, saved.centers, saved.angles, reaches.bodies,
                                    shapes.body):
        # Continuous collision: the rest of the step is Python's.
        return StepResult(FAST, 0, keys, inserted, contact_count, sensor_count, counts)
    if sleeping:
        update_islands(bodies, contacts.bodies, joint_bodies, dt, islands.linear_speed,
                       islands.angular_speed, islands.time_to_sleep, labels, islands.parents,
                       islands.slowest)
    clear_forces(bodies)
    return StepResult(DONE, 0, keys, inserted, contact_count, sensor_count, counts)

#: The fields of a :class:`StepState`: those of a :class:`StepArgs`, then the sensor sets.
STATE_FIELDS = (*StepArgs._fields, "sensors")

if ENABLED:
    from numba.core import types
    from numba.experimental import structref

    @structref.register
    class _StepStateType(types.StructRef):
        """numba's type of a :class:`StepState`."""

        def preprocess_fields(self, fields):
            return tuple((name, types.unliteral(field)) for name, field in fields)

    class StepState(structref.StructRefProxy):
        """The arguments of :func:`compiled_step` that stay the same from step to step, held
        on numba's side: the fields of a :class:`StepArgs` and the :class:`SensorSets`
        (``sensors``). A call that passes it hands numba one object instead of every
        column, and a stage that reads a field takes a reference to its arrays alone (a
        whole :class:`StepArgs` read at once takes one to each of its hundreds)."""

        def __new__(cls, *fields):
            # Built by a cached kernel: numba's own constructor of a proxy is compiled
            # anew in every process (seconds at a world's first step).
            return _new_step_state(*fields)

    structref.define_proxy(StepState, _StepStateType, list(STATE_FIELDS))

    @njit
    def _new_step_state(*fields):
        return StepState(*fields)
else:
    class StepState:  # the plain-Python stand-in: the same attributes
        """The arguments of :func:`compiled_step` that stay the same from step to step."""

        def __init__(self, *fields):
            for name, value in zip(STATE_FIELDS, fields, strict=True):
                setattr(self, name, value)


def new_step_state(args: StepArgs, sensors: SensorSets) -> StepState:
    """A :class:`StepState` holding the fields of ``args`` (:class:`StepArgs`) and the
    :class:`SensorSets`, which only a world with a sensor reads."""
    return StepState(*args, sensors)


@njit
def step_from_state(state, old_is_first, old_count, sensing, sensor_old_is_first,
                    sensor_old_count, keys, known, synced, sleeping, continuous, touching,
                    gravity, dt, springs_table, hit_speed):
    """:func:`compiled_step` with the arguments held in ``state`` (a :class:`StepState`)
    and those that may change from step to step: which contact set holds the last step's
    rows (``old_is_first``: the first) and their count, whether a shape is a sensor and
    the same two for the sensor sets, the tree's candidate keys, the rows its leaves hold
    and whether this step synced it already, the sleep and continuous switches, last
    step's touching keys, gravity, ``dt`` with the solver's softnesses for it (a
    :func:`~physbook.dynamics.solver_steps.springs_table`) and the speed of a hit; returns
    the fields of a :class:`StepResult`, its counts' flattened in and its keys None when
    they are the ``keys`` given. A game that steps by the frame time it measured changes
    ``dt`` every step, so nothing that depends on it is held in the state."""
    held = state.tree
    tree = TreeStage(held.nodes, held.state, held.leaf_of_row, held.centers, held.moved,
                     known, held.margin, held.prediction, held.shrink, keys)
    first, second = state.contact_sets
    old, new = (first, second) if old_is_first else (second, first)
    result = compiled_step(state, tree, synced, old, old_count, new, sensing,
                           SensorSource(state, sensor_old_is_first, sensor_old_count),
                           sleeping, continuous, springs_from_table(springs_table), touching,
                           gravity, dt, hit_speed)
    # Handed to Python as a plain tuple (see physbook.continuous.reach_arrays). Most steps
    # keep the keys they were given, which Python holds: handing them back would box an
    # array at every step (about half a microsecond).
    counts = result.counts
    kept = (result.keys.shape[0] == keys.shape[0]
            and result.keys.ctypes.data == keys.ctypes.data)
    return (result.status, result.value, None if kept else result.keys, result.moved,
            result.contact_rows, result.sensor_rows, counts.touching, counts.hits,
            counts.changed)
