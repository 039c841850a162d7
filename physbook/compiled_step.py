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

from physbook._jit import ENABLED, njit
from physbook.broadphase.tree import overlapping_pairs, sync_and_pair
from physbook.continuous import may_stop_fast
from physbook.dynamics.contact_solver import ContactWork
from physbook.dynamics.contact_table import contact_rows, update_contacts
from physbook.dynamics.islands import update_islands, wake_before_step, wake_touched
from physbook.dynamics.joint_table import drop_joined
from physbook.dynamics.snapshot import save_step_start
from physbook.dynamics.solver_steps import solver_step
from physbook.events import split_sensor_pairs
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


@njit(inline=True)
def _work_rows(work, count):
    """The first ``count`` rows of the solver's contact work arrays."""
    return ContactWork(work.anchors_a[:count], work.anchors_b[:count],
                       work.normal_masses[:count], work.tangent_masses[:count],
                       work.base_separations[:count], work.relative_velocities[:count],
                       work.targets[:count], work.normal_impulses[:count],
                       work.tangent_impulses[:count], work.total_normal_impulses[:count])


@njit(inline=True)
def compiled_step(bodies, shapes, filter_columns, boxes, filters, margins, distance, tree,
                  synced, joints, joint_bodies, joined, old_contacts, old_count, new_contacts,
                  sensing, sensor_contacts, narrow, saved, islands, sleeping, continuous,
                  reaches, solver, springs, events, touching, gravity, dt, hit_speed):
    """One step of a world whose stages are the library's own, in the order of
    :meth:`World.step <physbook.world.World.step>`; returns (status, value, tree keys,
    leaves moved, (contact rows, sensor rows), event counts).

    The status is one of :data:`DONE`, :data:`BAD_STATE` (value: the code of
    :func:`~physbook.dynamics.snapshot.first_non_finite`), :data:`NEED_ROOM` (the rows are
    then those the contact pairs and the sensor pairs need), :data:`NOT_FINITE` or
    :data:`FAST`. The arguments are the world's columns and buffers, grouped as
    :meth:`StepDriver.compiled_state <physbook.step_driver.StepDriver.compiled_state>`
    gathers them:

    - ``tree`` holds the tree's arrays and settings; ``synced`` says this step already
      updated it and its keys are this step's (a second call after :data:`NEED_ROOM`);
    - ``sensing`` says some shape is a sensor; ``sensor_contacts`` then gives the overlap
      rows of sensors as ``(the StepState, whether its first sensor set holds the last
      step's rows, their count)``: a sensor's pair gets an overlap test instead of a
      contact (:func:`~physbook.events.split_sensor_pairs`);
    - ``narrow`` is the narrow phase's scratch (both narrow phases share it: each works
      out the rotations of the bodies it needs)
      (:func:`~physbook.collision.manifold.narrow_scratch`);
    - ``saved`` holds the buffers of the state at the start of the step
      (:class:`~physbook.dynamics.snapshot.SavedStep`), filled before anything moves, so
      that the world can undo the step;
    - ``islands`` holds the labels and scratch of chapter 11 with the sleep thresholds;
    - ``reaches`` says how far each shape, and each body's shapes, reach from its centre
      of mass (:func:`~physbook.continuous.shape_reaches`: per shape, per body);
    - ``solver`` holds the solver's settings and work arrays, the soft step's colouring
      work arrays when it solves in colours (else None), and their ``chunks`` when it
      solves on several threads (else None); ``springs`` the softnesses of contacts, static
      contacts and joints, which depend on ``dt``;
    - ``joints`` and the joint work are None in a world without joints (``joint_bodies``
      then has no rows), so that numba compiles that case without the joint stages, as
      the staged pipeline does.

    The events are those of :func:`~physbook.events.contact_states` for the new rows, the
    bodies' motion before the step, ``dt`` and ``hit_speed``, written into the buffers
    ``events`` (see :func:`~physbook.stages.contact_events_into`); the event counts are
    (touching pairs, hits, whether the touching keys differ from ``touching``, last
    step's), all zero when the step stopped before its narrow phase.
    """
    (nodes, tree_state, leaf_of_row, tree_centers, tree_moved, known, tree_margin,
     prediction, shrink, keys) = tree
    labels, marks, parents, slowest, linear_speed, angular_speed, time_to_sleep = islands
    soft_settings, impulse_settings, work, motion, joint_work, colouring, threads = solver
    soft, static_soft, joint_soft = springs
    lower, upper = boxes
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
    step_margins(shapes.body, reaches[0], bodies, distance, dt, margins)
    # Broad phase: the library's tree.
    boxes_and_filters(shapes, bodies, filter_columns, margins, lower, upper, filters)
    if synced:
        # Synced again, the tree would see no displacement and might refit fat boxes the
        # staged step keeps; its keys are already this step's.
        inserted, pairs = 0, overlapping_pairs(keys, lower, upper, filters)
    else:
        inserted, keys, pairs = sync_and_pair(nodes, tree_state, leaf_of_row, tree_centers,
                                               tree_moved, lower, upper, known, tree_margin,
                                               prediction, shrink, keys, filters)
    if joined.shape[0] and pairs.shape[0]:
        pairs = drop_joined(pairs, shapes.body, joined)
    # Sensors only report overlaps: their pairs get no contact, only an overlap test.
    sensor_count = 0
    if sensing:
        pairs, sensed = split_sensor_pairs(pairs, filter_columns.sensor)
        # The sensor rows are read only here: a world without sensors takes no reference
        # to their columns (see physbook._jit).
        holder, sensor_old_is_first, sensor_old_count = sensor_contacts
        first, second, zero_margins = holder.sensors
        sensor_old, sensor_new = (first, second) if sensor_old_is_first else (second, first)
        if (pairs.shape[0] > new_contacts.point_counts.shape[0]
                or sensed.shape[0] > sensor_new.point_counts.shape[0]):
            return (NEED_ROOM, 0, keys, inserted, (pairs.shape[0], sensed.shape[0]),
                    (0, 0, False))
        sensor_count = update_contacts(sensed, shapes, bodies.origins, bodies.angles,
                                       zero_margins, bodies.restitutions, bodies.frictions,
                                       bodies.awake, sensor_old, sensor_old_count, sensor_new,
                                       narrow)
    elif pairs.shape[0] > new_contacts.point_counts.shape[0]:
        return NEED_ROOM, 0, keys, inserted, (pairs.shape[0], 0), (0, 0, False)
    # Narrow phase, impulses carried over by shape ids and feature ids.
    contact_count = update_contacts(pairs, shapes, bodies.origins, bodies.angles, margins,
                                    bodies.restitutions, bodies.frictions, bodies.awake,
                                    old_contacts, old_count, new_contacts, narrow)
    contacts = contact_rows(new_contacts, contact_count)
    if sleeping:
        wake_touched(contacts.bodies, joint_bodies, bodies.kinds, bodies.awake,
                     bodies.sleep_times, labels, marks)
    if bodies.awake.any():
        solver_step(soft_settings, impulse_settings, contacts, bodies,
                    _work_rows(work, contact_count), motion, joints, joint_work, gravity, dt,
                    soft, static_soft, joint_soft, colouring, threads)
    # Events: which pairs touch and which hit, from the motion saved before the step.
    states = contact_events_into(contacts, saved, dt, hit_speed, events, touching)
    if check_state(bodies) >= 0:
        return NOT_FINITE, 0, keys, inserted, (contact_count, sensor_count), states
    if continuous and may_stop_fast(bodies, saved.centers, saved.angles, reaches[1],
                                    shapes.body):
        # Continuous collision: the rest of the step is Python's.
        return FAST, 0, keys, inserted, (contact_count, sensor_count), states
    if sleeping:
        update_islands(bodies, contacts.bodies, joint_bodies, dt, linear_speed,
                       angular_speed, time_to_sleep, labels, parents, slowest)
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
        """The arguments of :func:`compiled_step` that stay the same from step to step
        (``args``, as :func:`step_from_state` unpacks them), held on numba's side: a call
        that passes it hands numba one object instead of every column."""

    structref.define_proxy(StepState, _StepStateType, ["args", "sensors"])
else:
    class StepState:  # the plain-Python stand-in: the same attribute
        """The arguments of :func:`compiled_step` that stay the same from step to step."""

        def __init__(self, args, sensors):
            self.args = args
            self.sensors = sensors


@njit
def new_step_state(args) -> StepState:
    """A :class:`StepState` holding ``args``: (bodies, shapes, filter columns, boxes,
    filters, margins, speculative distance, tree arrays, tree settings, joints, joint bodies,
    joined pairs, the two contact sets, narrow phase scratch, saved state, islands, shape
    and body reaches, solver, event buffers, and last the two sensor sets with zero
    margins), each as :func:`compiled_step` takes it; the tree's arrays are its first five
    and its settings its margin, prediction and shrink margin. The sensor sets are held
    apart (``sensors``), read only by a world with a sensor."""
    return StepState(args[:-1], args[-1])


@njit
def step_from_state(state, old_is_first, old_count, sensing, sensor_old_is_first,
                    sensor_old_count, keys, known, synced, sleeping, continuous, touching,
                    gravity, dt, springs, hit_speed):
    """:func:`compiled_step` with the arguments held in ``state`` (a :class:`StepState`)
    and those that may change from step to step: which contact set holds the last step's
    rows (``old_is_first``: the first) and their count, whether a shape is a sensor and
    the same two for the sensor sets, the tree's candidate keys, the rows
    its leaves hold and whether this step synced it already, the sleep and continuous
    switches, last step's touching keys, gravity, ``dt`` with the solver's softnesses for
    it (``springs``, as :func:`compiled_step` takes them) and the speed of a hit. A game
    that steps by the frame time it measured changes ``dt`` every step, so nothing that
    depends on it is held in the state."""
    (bodies, shapes, filter_columns, boxes, filters, margins, distance, tree_arrays,
     tree_settings, joints, joint_bodies, joined, contact_sets, narrow, saved,
     islands, reaches, solver, events) = state.args
    nodes, tree_state, leaf_of_row, tree_centers, tree_moved = tree_arrays
    tree_margin, prediction, shrink = tree_settings
    first, second = contact_sets
    old, new = (first, second) if old_is_first else (second, first)
    return compiled_step(bodies, shapes, filter_columns, boxes, filters, margins, distance,
                         (nodes, tree_state, leaf_of_row, tree_centers, tree_moved, known,
                          tree_margin, prediction, shrink, keys),
                         synced, joints, joint_bodies, joined, old, old_count, new, sensing,
                         (state, sensor_old_is_first, sensor_old_count), narrow,
                         saved, islands, sleeping, continuous, reaches, solver, springs,
                         events, touching, gravity, dt, hit_speed)
