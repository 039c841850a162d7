"""The World's own stages as one compiled call: :meth:`World.step
<physbook.world.World.step>` without the Python between its stages.

:meth:`World.step` reads as the algorithm: it hands each stage the columns it works on, one
stage after the other. Each hand-over is a Python call into compiled code, with its checks,
its buffers cut to the rows in use and its arguments unpacked. When the stages are the
library's own (a solver of :data:`~physbook.dynamics.solvers.COMPILED_SOLVERS`, the dynamic
tree broad phase, no sensors), the world runs :func:`compiled_step` instead: the same
kernels, called in the same order from compiled code, over the same arrays, with the
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

import math

from physbook._jit import ENABLED, njit
from physbook.broadphase.filters import shape_filters
from physbook.broadphase.tree import overlapping_pairs, sync_and_pair
from physbook.constants import FAST_FRACTION
from physbook.dynamics.contact_solver import ContactWork
from physbook.dynamics.contact_table import contact_rows, update_contacts
from physbook.dynamics.islands import update_islands, wake_before_step, wake_touched
from physbook.dynamics.joint_table import drop_joined
from physbook.dynamics.motion import speculative_margins
from physbook.dynamics.snapshot import first_non_finite, save_step_start
from physbook.dynamics.solver_steps import solver_step
from physbook.events import contact_states_into
from physbook.geometry.shape_table import shape_aabbs
from physbook.kinds import DYNAMIC, STATIC

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


@njit(refcounted=False)
def _may_be_fast(bodies, reaches, saved, shape_bodies):
    """Whether continuous collision may stop a body this step: an awake dynamic body may
    count as fast (:func:`~physbook.continuous.fast_bodies`), and it is a bullet or some
    shape is static (an ordinary fast body is stopped only by a static shape). The fast
    test is made here at half its threshold, so that a body found there is always found
    here, whatever the last bit of the arithmetic. ``reaches`` (N,) is the second of
    :func:`~physbook.continuous.shape_reaches`; ``shape_bodies`` (S,) each shape's body."""
    kinds, awake, centers, angles = bodies.kinds, bodies.awake, bodies.centers, bodies.angles
    start_centers, start_angles = saved.centers, saved.angles
    ordinary = False
    for b in range(kinds.shape[0]):
        if kinds[b] != DYNAMIC or not awake[b]:
            continue
        motion = (math.hypot(centers[b, 0] - start_centers[b, 0],
                             centers[b, 1] - start_centers[b, 1])
                  + abs(angles[b] - start_angles[b]) * reaches[b])
        if motion > 0.5 * FAST_FRACTION * bodies.sizes[b]:
            if bodies.bullets[b]:
                return True
            ordinary = True
    if not ordinary:
        return False
    for s in range(shape_bodies.shape[0]):
        if kinds[shape_bodies[s]] == STATIC:
            return True
    return False


@njit(refcounted=False)
def _contact_states(contacts, saved, dt, hit_speed, events, touching):
    """:func:`~physbook.events.contact_states` of contact rows, with the centres and
    velocities ``saved`` before the step, written into ``events`` (the buffers of
    :func:`~physbook.events.contact_states_into`); returns (touching pairs, hits, whether
    the touching keys differ from ``touching``, last step's)."""
    keys, hit_ids, hit_points, hit_normals, hit_speeds = events
    touch_count, hit_count = contact_states_into(
        contacts.shape_ids, contacts.bodies, contacts.point_counts, contacts.normals,
        contacts.points, contacts.depths, saved.centers, saved.velocities,
        saved.angular_velocities, dt,
        hit_speed, keys, hit_ids, hit_points, hit_normals, hit_speeds)
    if touch_count != touching.shape[0]:
        return touch_count, hit_count, True
    for k in range(touch_count):
        if keys[k] != touching[k]:
            return touch_count, hit_count, True
    return touch_count, hit_count, False


@njit(inline=True)
def compiled_step(bodies, shapes, filter_columns, boxes, filters, margins, distance, tree,
                  synced, joints, joint_bodies, joined, old_contacts, old_count, new_contacts,
                  narrow, saved, islands, sleeping, continuous, reaches, solver, springs,
                  events, touching, gravity, dt, hit_speed):
    """One step of a world whose stages are the library's own, in the order of
    :meth:`World.step <physbook.world.World.step>`; returns (status, value, tree keys,
    leaves moved, contact rows, event counts).

    The status is one of :data:`DONE`, :data:`BAD_STATE` (value: the code of
    :func:`~physbook.dynamics.snapshot.first_non_finite`), :data:`NEED_ROOM` (value: the
    pairs that need contact rows), :data:`NOT_FINITE` or :data:`FAST`. The arguments are
    the world's columns and buffers, grouped as :meth:`World._compiled_state
    <physbook.world.World._compiled_state>` gathers them:

    - ``tree`` holds the tree's arrays and settings; ``synced`` says this step already
      updated it and its keys are this step's (a second call after :data:`NEED_ROOM`);
    - ``narrow`` is the narrow phase's scratch
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
    ``events`` (see :func:`_contact_states`); the event counts are (touching pairs, hits,
    whether the touching keys differ from ``touching``, last step's), all zero when the
    step stopped before its narrow phase.
    """
    (nodes, tree_state, leaf_of_row, tree_centers, tree_moved, known, tree_margin,
     prediction, shrink, keys) = tree
    labels, marks, parents, slowest, linear_speed, angular_speed, time_to_sleep = islands
    soft_settings, impulse_settings, work, motion, joint_work, colouring, threads = solver
    soft, static_soft, joint_soft = springs
    lower, upper = boxes
    # A state the user wrote must be finite before anything moves (the public boundary).
    code = first_non_finite(bodies.centers, bodies.angles, bodies.velocities,
                            bodies.angular_velocities, bodies.forces, bodies.torques,
                            bodies.gravity_scales, bodies.origins)
    if code >= 0:
        return BAD_STATE, code, keys, 0, 0, (0, 0, False)
    if not synced:  # a second call after NEED_ROOM continues the step the first began
        # What the step writes, kept to undo it (a state that overflows, an interrupt).
        save_step_start(bodies, labels, saved)
        # Islands (chapter 11): a sleeping body given a push, or moved, wakes with its
        # island.
        wake_before_step(bodies, labels, marks, sleeping)
    # Broad phase.
    if distance > 0.0:
        speculative_margins(shapes.body, reaches[0], bodies, distance, dt, margins)
    else:
        margins[:] = 0.0
    shape_aabbs(shapes, bodies.origins, bodies.angles, margins, lower, upper)
    shape_filters(shapes.body, filter_columns.category, filter_columns.mask,
                  filter_columns.group, bodies.kinds, filters)
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
    if pairs.shape[0] > new_contacts.point_counts.shape[0]:
        return NEED_ROOM, pairs.shape[0], keys, inserted, 0, (0, 0, False)
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
    # Which pairs touch and which hit (the events of chapter 12), from the motion saved
    # before the step.
    states = _contact_states(contacts, saved, dt, hit_speed, events, touching)
    if first_non_finite(bodies.centers, bodies.angles, bodies.velocities,
                        bodies.angular_velocities, bodies.forces, bodies.torques,
                        bodies.gravity_scales, bodies.origins) >= 0:
        return NOT_FINITE, 0, keys, inserted, contact_count, states
    if continuous and _may_be_fast(bodies, reaches[1], saved, shapes.body):
        return FAST, 0, keys, inserted, contact_count, states
    if sleeping:
        update_islands(bodies, contacts.bodies, joint_bodies, dt, linear_speed,
                       angular_speed, time_to_sleep, labels, parents, slowest)
    # Forces act for one step only.
    bodies.forces[:] = 0.0
    bodies.torques[:] = 0.0
    return DONE, 0, keys, inserted, contact_count, states


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

    structref.define_proxy(StepState, _StepStateType, ["args"])
else:
    class StepState:  # the plain-Python stand-in: the same attribute
        """The arguments of :func:`compiled_step` that stay the same from step to step."""

        def __init__(self, args):
            self.args = args


@njit
def new_step_state(args) -> StepState:
    """A :class:`StepState` holding ``args``: (bodies, shapes, filter columns, boxes,
    filters, margins, speculative distance, tree arrays, tree settings, joints, joint bodies,
    joined pairs, the two contact sets, narrow phase scratch, saved state,
    islands, shape and body reaches, solver, event buffers), each as
    :func:`compiled_step` takes it; the tree's arrays are its first five and its settings
    its margin, prediction and shrink margin."""
    return StepState(args)


@njit
def step_from_state(state, old_is_first, old_count, keys, known, synced, sleeping, continuous,
                    touching, gravity, dt, springs, hit_speed):
    """:func:`compiled_step` with the arguments held in ``state`` (a :class:`StepState`)
    and those that may change from step to step: which contact set holds the last step's
    rows (``old_is_first``: the first) and their count, the tree's candidate keys, the rows
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
                         synced, joints, joint_bodies, joined, old, old_count, new,
                         narrow, saved, islands, sleeping, continuous, reaches,
                         solver, springs, events, touching, gravity, dt, hit_speed)
