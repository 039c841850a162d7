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
from physbook.continuous import fast_bodies
from physbook.dynamics.contact_solver import ContactWork
from physbook.dynamics.contact_table import contact_rows, update_contacts
from physbook.dynamics.islands import update_islands, wake_before_step, wake_touched
from physbook.dynamics.joint_table import drop_joined
from physbook.dynamics.snapshot import save_step_start
from physbook.dynamics.solver_steps import solver_step
from physbook.events import split_sensor_pairs
from physbook.kinds import STATIC
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


class IslandColumns(NamedTuple):
    """The islands of chapter 11 as the compiled step works on them: each body's island
    ``labels`` and the scratch of the island passes (``marks``, ``parents``, ``slowest``),
    with the sleep thresholds (m/s, rad/s, s)."""

    labels: np.ndarray
    marks: np.ndarray
    parents: np.ndarray
    slowest: np.ndarray
    linear_speed: float
    angular_speed: float
    time_to_sleep: float


class SolverStage(NamedTuple):
    """A library solver as the compiled step runs it
    (:func:`~physbook.dynamics.solver_steps.solver_step`): its soft step and impulse
    settings (one of them None), its work arrays (:meth:`work_arrays`), the soft step's
    colouring work arrays when it solves in colours (else None) and their ``chunks`` when
    it solves on several threads (else None)."""

    soft_settings: tuple | None
    impulse_settings: tuple | None
    work: object
    motion: object
    joint_work: object
    colouring: object
    threads: np.ndarray | None


class StepColumns(NamedTuple):
    """What :func:`compiled_step` works on that stays the same from step to step, as
    :meth:`World._compiled_state <physbook.world.World._compiled_state>` gathers it:

    - the body, shape and shape filter columns; the broad phase's ``boxes`` and
      ``filters`` and the shapes' speculative ``margins`` (buffers the step fills), and
      the solver's speculative ``distance`` (m);
    - ``tree``, the broad phase (:class:`~physbook.broadphase.tree.TreeStage`);
    - ``joints`` (None in a world without joints, so that numba compiles that case
      without the joint stages, as the staged pipeline does; ``joint_bodies`` then has no
      rows) and the ``joined`` pairs that do not collide;
    - the two sets of contact rows and the two of sensor rows (the last step's and the
      one this step writes, in either order), and ``zero_margins`` for the sensors' test;
    - ``narrow``, the narrow phase's scratch
      (:func:`~physbook.collision.manifold.narrow_scratch`; both narrow phases share it:
      each works out the rotations of the bodies it needs);
    - ``saved``, the buffers of the state at the start of the step
      (:class:`~physbook.dynamics.snapshot.SavedStep`), filled before anything moves, so
      that the world can undo the step;
    - ``islands`` (:class:`IslandColumns`); ``reaches``, how far each shape, and each
      body's shapes, reach from its centre of mass
      (:func:`~physbook.continuous.shape_reaches`: per shape, per body);
    - ``solver`` (:class:`SolverStage`) and the ``events`` buffers
      (:func:`~physbook.stages.contact_events_into`).
    """

    bodies: object
    shapes: object
    filter_columns: object
    boxes: object
    filters: object
    margins: np.ndarray
    distance: float
    tree: TreeStage
    joints: object
    joint_bodies: np.ndarray
    joined: np.ndarray
    contact_sets: tuple
    sensor_sets: tuple
    zero_margins: np.ndarray
    narrow: tuple
    saved: object
    islands: IslandColumns
    reaches: tuple
    solver: SolverStage
    events: tuple


@njit(inline=True)
def _work_rows(work, count):
    """The first ``count`` rows of the solver's contact work arrays."""
    return ContactWork(work.anchors_a[:count], work.anchors_b[:count],
                       work.normal_masses[:count], work.tangent_masses[:count],
                       work.base_separations[:count], work.relative_velocities[:count],
                       work.targets[:count], work.normal_impulses[:count],
                       work.tangent_impulses[:count], work.total_normal_impulses[:count])


@njit(refcounted=False)
def _may_be_stopped(bodies, fast, shape_bodies):
    """Whether continuous collision may stop one of the ``fast`` bodies (rows, from
    :func:`~physbook.continuous.fast_bodies`): one is a bullet, or some shape is static
    (an ordinary fast body is stopped only by a static shape); ``shape_bodies`` (S,) is
    each shape's body."""
    if fast.shape[0] == 0:
        return False
    for b in fast:
        if bodies.bullets[b]:
            return True
    for s in range(shape_bodies.shape[0]):
        if bodies.kinds[shape_bodies[s]] == STATIC:
            return True
    return False


@njit(inline=True)
def compiled_step(columns, old_contacts, old_count, new_contacts, sensing, old_sensed,
                  old_sensed_count, new_sensed, known, keys, synced, sleeping, continuous,
                  touching, gravity, dt, springs, hit_speed):
    """One step of a world whose stages are the library's own, in the order of
    :data:`~physbook.stages.STEP_STAGES`; returns (status, value, tree keys, leaves moved,
    (contact rows, sensor rows), event counts).

    The status is one of :data:`DONE`, :data:`BAD_STATE` (value: the code of
    :func:`~physbook.dynamics.snapshot.first_non_finite`), :data:`NEED_ROOM` (the rows are
    then those the contact pairs and the sensor pairs need), :data:`NOT_FINITE` or
    :data:`FAST`. ``columns`` are the world's columns and buffers (:class:`StepColumns`);
    the other arguments may change from step to step:

    - the last step's contact rows (``old_contacts``, ``old_count`` of them) and the set
      this step writes (``new_contacts``); ``sensing`` says some shape is a sensor, whose
      pairs get an overlap test instead of a contact
      (:func:`~physbook.events.split_sensor_pairs`), written from ``old_sensed`` into
      ``new_sensed`` likewise;
    - the tree's candidate keys and the rows its leaves hold (``known``); ``synced`` says
      this step already updated it and its keys are this step's (a second call after
      :data:`NEED_ROOM`);
    - the ``sleeping`` and ``continuous`` switches, last step's ``touching`` keys, gravity,
      ``dt``, ``springs`` (the softnesses of contacts, static contacts and joints, which
      depend on ``dt``) and the speed of a hit.

    The events are those of :func:`~physbook.events.contact_states` for the new rows, the
    bodies' motion before the step, ``dt`` and ``hit_speed``, written into the buffers
    ``columns.events`` (see :func:`~physbook.stages.contact_events_into`); the event counts
    are (touching pairs, hits, whether the touching keys differ from ``touching``, last
    step's), all zero when the step stopped before its narrow phase.
    """
    bodies, shapes, filter_columns = columns.bodies, columns.shapes, columns.filter_columns
    margins, filters, tree, saved = columns.margins, columns.filters, columns.tree, columns.saved
    islands, solver, reaches = columns.islands, columns.solver, columns.reaches
    labels, marks = islands.labels, islands.marks
    soft, static_soft, joint_soft = springs
    lower, upper = columns.boxes
    # The stages of physbook.stages.STEP_STAGES, in its order.
    # Check: a state the user wrote must be finite before anything moves.
    code = check_state(bodies)
    if code >= 0:
        return BAD_STATE, code, keys, 0, (0, 0), (0, 0, False)
    if not synced:  # a second call after NEED_ROOM continues the step the first began
        # Save what the step writes, to undo it (a state that overflows, an interrupt).
        save_step_start(bodies, labels, saved)
        # Wake: a sleeping body given a push, or moved, wakes with its island.
        wake_before_step(bodies, labels, marks, sleeping)
    step_margins(shapes.body, reaches[0], bodies, columns.distance, dt, margins)
    # Broad phase: the library's tree.
    boxes_and_filters(shapes, bodies, filter_columns, margins, lower, upper, filters)
    if synced:
        # Synced again, the tree would see no displacement and might refit fat boxes the
        # staged step keeps; its keys are already this step's.
        inserted, pairs = 0, overlapping_pairs(keys, lower, upper, filters)
    else:
        inserted, keys, pairs = sync_and_pair(tree.nodes, tree.state, tree.leaf_of_row,
                                               tree.centers, tree.moved, lower, upper, known,
                                               tree.margin, tree.prediction, tree.shrink,
                                               keys, filters)
    if columns.joined.shape[0] and pairs.shape[0]:
        pairs = drop_joined(pairs, shapes.body, columns.joined)
    # Sensors only report overlaps: their pairs get no contact, only an overlap test.
    if sensing:
        pairs, sensed = split_sensor_pairs(pairs, filter_columns.sensor)
    else:
        sensed = np.empty((0, 2), np.int64)
    if (pairs.shape[0] > new_contacts.point_counts.shape[0]
            or sensed.shape[0] > new_sensed.point_counts.shape[0]):
        return (NEED_ROOM, 0, keys, inserted, (pairs.shape[0], sensed.shape[0]),
                (0, 0, False))
    sensor_count = 0
    if sensing:
        sensor_count = update_contacts(sensed, shapes, bodies.origins, bodies.angles,
                                       columns.zero_margins, bodies.restitutions,
                                       bodies.frictions, bodies.awake, old_sensed,
                                       old_sensed_count, new_sensed, columns.narrow)
    # Narrow phase, impulses carried over by shape ids and feature ids.
    contact_count = update_contacts(pairs, shapes, bodies.origins, bodies.angles, margins,
                                    bodies.restitutions, bodies.frictions, bodies.awake,
                                    old_contacts, old_count, new_contacts, columns.narrow)
    contacts = contact_rows(new_contacts, contact_count)
    if sleeping:
        wake_touched(contacts.bodies, columns.joint_bodies, bodies.kinds, bodies.awake,
                     bodies.sleep_times, labels, marks)
    if bodies.awake.any():
        solver_step(solver.soft_settings, solver.impulse_settings, contacts, bodies,
                    _work_rows(solver.work, contact_count), solver.motion, columns.joints,
                    solver.joint_work, gravity, dt, soft, static_soft, joint_soft,
                    solver.colouring, solver.threads)
    # Events: which pairs touch and which hit, from the motion saved before the step.
    states = contact_events_into(contacts, saved, dt, hit_speed, columns.events, touching)
    if check_state(bodies) >= 0:
        return NOT_FINITE, 0, keys, inserted, (contact_count, sensor_count), states
    if continuous and _may_be_stopped(
            bodies, fast_bodies(bodies, saved.centers, saved.angles, reaches[1]), shapes.body):
        # Continuous collision: the rest of the step is Python's.
        return FAST, 0, keys, inserted, (contact_count, sensor_count), states
    if sleeping:
        update_islands(bodies, contacts.bodies, columns.joint_bodies, dt,
                       islands.linear_speed, islands.angular_speed, islands.time_to_sleep,
                       labels, islands.parents, islands.slowest)
    clear_forces(bodies)
    return DONE, 0, keys, inserted, (contact_count, sensor_count), states

if ENABLED:
    from numba.core import types
    from numba.experimental import structref

    @structref.register
    class _StepStateType(types.StructRef):
        """numba's type of a :class:`StepState`."""

        def preprocess_fields(self, fields):
            return tuple((name, types.unliteral(field)) for name, field in fields)

    class StepState(structref.StructRefProxy):
        """The columns of :func:`compiled_step` that stay the same from step to step
        (``args``, a :class:`StepColumns`), held on numba's side: a call that passes it
        hands numba one object instead of every column."""

    structref.define_proxy(StepState, _StepStateType, ["args"])
else:
    class StepState:  # the plain-Python stand-in: the same attribute
        """The arguments of :func:`compiled_step` that stay the same from step to step."""

        def __init__(self, args):
            self.args = args


@njit
def new_step_state(columns) -> StepState:
    """A :class:`StepState` holding ``columns`` (a :class:`StepColumns`)."""
    return StepState(columns)


@njit
def step_from_state(state, old_is_first, old_count, sensing, sensor_old_is_first,
                    sensor_old_count, keys, known, synced, sleeping, continuous, touching,
                    gravity, dt, springs, hit_speed):
    """:func:`compiled_step` with the columns held in ``state`` (a :class:`StepState`)
    and what may change from step to step: which contact set holds the last step's rows
    (``old_is_first``: the first) and their count, whether a shape is a sensor and the same
    two for the sensor sets, the tree's candidate keys, the rows its leaves hold and
    whether this step synced it already, the sleep and continuous switches, last step's
    touching keys, gravity, ``dt`` with the solver's softnesses for it (``springs``, as
    :func:`compiled_step` takes them) and the speed of a hit. A game that steps by the
    frame time it measured changes ``dt`` every step, so nothing that depends on it is held
    in the state."""
    columns = state.args
    first, second = columns.contact_sets
    old, new = (first, second) if old_is_first else (second, first)
    first, second = columns.sensor_sets
    old_sensed, new_sensed = (first, second) if sensor_old_is_first else (second, first)
    return compiled_step(columns, old, old_count, new, sensing, old_sensed, sensor_old_count,
                         new_sensed, known, keys, synced, sleeping, continuous, touching,
                         gravity, dt, springs, hit_speed)
