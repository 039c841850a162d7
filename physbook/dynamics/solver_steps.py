"""Chapters 9–11: the compiled step of each solver, the stages in the order they run.

:func:`impulse_step` is the step of the rigid impulse solvers (chapter 9's, and chapter 10's
sequential impulses), :func:`soft_step` the soft step's (chapter 10), in row order or, through
:func:`coloured_soft_step`, in colours (:mod:`physbook.dynamics.colouring`). Both solve
the joints of chapter 11 (:mod:`physbook.dynamics.joint_solver`) in the same passes as the
contacts (:mod:`physbook.dynamics.contact_solver`), joints first, as Box2D does: a joint
holds bodies together whatever touches them, so the contacts see its result. A world without
joints passes ``joints=None`` (and ``joint_work=None``): numba compiles that case
separately and leaves the joint stages out of it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._jit import njit
from physbook.dynamics.colouring import (
    colour_contacts,
    gather_contacts,
    make_groups,
    scatter_impulses,
    solve_soft_coloured,
    warm_start_coloured,
)
from physbook.dynamics.contact_solver import (
    BAUMGARTE,
    NONLINEAR,
    PROJECTION,
    ContactWork,
    Softness,
    count_overlaps,
    every_row,
    land_early_bounces,
    land_late_bounces,
    prepare_contacts,
    prepare_rows,
    project_positions,
    set_targets,
    solve_positions,
    solve_soft,
    solve_velocities,
    start_motion,
    store_impulses,
    update_motion,
    warm_start,
)
from physbook.dynamics.contact_surface import CONTACT_DISABLED
from physbook.dynamics.contact_table import (
    ContactColumns,
    contact_columns,
    contact_rows,
    copy_contact_row,
)
from physbook.dynamics.joint_solver import (
    prepare_joints,
    solve_joints,
    store_joint_impulses,
    warm_start_joints,
)
from physbook.dynamics.motion import (
    advance_positions,
    integrate_and_repeat,
    integrate_free,
    integrate_positions,
    integrate_velocities,
    update_origins,
)
from physbook.dynamics.wide_pass import (
    BY_ROWS,
    FIRST,
    POINTS,
    ROWS,
    pack_lanes,
    solve_groups,
    store_groups,
    warm_start_groups,
)


class SoftSettings(NamedTuple):
    """The soft step's settings, as its compiled step takes them (see
    :class:`~physbook.dynamics.solvers.SoftStepSolver`)."""

    substeps: int
    relax_iterations: int
    push_out_speed: float
    restitution_threshold: float
    warm_starting: bool


class ImpulseSettings(NamedTuple):
    """The impulse solvers' settings, as their compiled step takes them (see
    :class:`~physbook.dynamics.solvers.SequentialImpulseSolver`); ``position_correction``
    is the index of its name in
    :data:`~physbook.dynamics.solvers.POSITION_CORRECTIONS`."""

    restitution_threshold: float
    warm_starting: bool
    iterations: int
    accumulate: bool
    position_correction: int
    correction: float
    slop: float
    position_iterations: int
    max_correction: float


class Springs(NamedTuple):
    """The softnesses of a step (they depend on ``dt``): of ``contacts``, of contacts with
    a static body (``static_contacts``) and of ``joints``
    (:class:`~physbook.dynamics.contact_solver.Softness` each)."""

    contacts: tuple
    static_contacts: tuple
    joints: tuple


def springs_table(springs: Springs) -> np.ndarray:
    """``springs`` as a (3, 3) table: a row per field of :class:`Springs` and a column per
    field of :class:`~physbook.dynamics.contact_solver.Softness`, in their order. A
    compiled call is handed the table, which numba types at once, rather than the record,
    which it types by calling Python (3 µs a call, a sixth of a small world's step)."""
    return np.array(springs, dtype=np.float64)


@njit
def _softness_in(table, row):
    # The columns are Softness's fields in order (springs_table).
    return Softness(table[row, 0], table[row, 1], table[row, 2])


@njit
def springs_from_table(table) -> Springs:
    """The :class:`Springs` a :func:`springs_table` holds."""
    return Springs(_softness_in(table, 0), _softness_in(table, 1), _softness_in(table, 2))


class CompiledSettings(NamedTuple):
    """A solver's ``compiled_settings(dt)``: its settings (``soft`` for the soft step,
    ``impulse`` for the impulse solvers; the other is None), the :class:`Springs` and the
    same as a :func:`springs_table` (``springs_table``), what a compiled step is handed."""

    soft: SoftSettings | None
    impulse: ImpulseSettings | None
    springs: Springs
    springs_table: np.ndarray

    @classmethod
    def of(cls, soft: SoftSettings | None, impulse: ImpulseSettings | None,
           springs: Springs) -> CompiledSettings:
        """The settings with ``springs`` and their table."""
        return cls(soft, impulse, springs, springs_table(springs))


class AwakeRows(NamedTuple):
    """Room for the contact rows a step solves when some rows have no body awake: their
    ``rows`` in the contact table and a copy of them (``contacts``, a
    :class:`~physbook.dynamics.contact_table.ContactColumns`)."""

    rows: np.ndarray
    contacts: ContactColumns


def awake_rows_arrays(capacity: int) -> AwakeRows:
    """:class:`AwakeRows` with room for ``capacity`` contact rows."""
    return AwakeRows(np.zeros(capacity, np.int64), contact_columns(capacity))


class SolverWork(NamedTuple):
    """What the solve stage of a compiled step holds between steps: the solver's settings
    (one of ``soft_settings`` and ``impulse_settings`` is None), its per-contact, per-body
    and per-joint work arrays (``work``, ``motion``, ``joint_work``, None without joints),
    the soft step's ``colouring`` work arrays when it solves in colours (else None), their
    ``threads`` chunks when it solves on several threads (else None) and the
    :class:`AwakeRows` it gathers the rows it solves into."""

    soft_settings: SoftSettings | None
    impulse_settings: ImpulseSettings | None
    work: tuple
    motion: tuple
    joint_work: tuple | None
    colouring: tuple | None
    threads: np.ndarray | None
    awake_rows: AwakeRows


#: The ``colour_count`` that has :func:`soft_step` solve a colouring's rows in order, as
#: without a colouring: 0 as an int64, since numba compiles a kernel passed the literal 0
#: once more, apart from the colour counts.
NO_COLOUR = np.int64(0)


@njit(refcounted=False)
def impulse_step(contacts, bodies, work, motion, joints, joint_work, joint_soft, gravity, dt,
                 iterations, accumulate, warm_starting, restitution_threshold,
                 position_correction, correction, slop, position_iterations, max_correction):
    """A step of the rigid impulse solvers (chapters 9 and 10); returns the count of bodies
    whose state is no longer finite.

    ``correction`` is the projection's fraction or Baumgarte's β or the position pass's β,
    as ``position_correction`` (a code of :data:`POSITION_CORRECTIONS`) says. Joints
    (chapter 11) are solved before the contacts in each pass; their position error is
    removed by ``joint_soft``, a soft constraint over the step.
    """
    # The approach speeds are measured before gravity acts: a touching point bounces from
    # the speed it hit with (see set_targets).
    prepare_contacts(contacts, bodies, work, motion, 1.0 if warm_starting else 0.0)
    integrate_velocities(bodies, gravity, dt)
    if joints is not None:
        prepare_joints(joints, bodies, joint_work, 1.0 if warm_starting else 0.0)
    set_targets(contacts, work, bodies, restitution_threshold,
                correction if position_correction == BAUMGARTE else 0.0, slop, 1.0 / dt)
    if warm_starting:
        if joints is not None:
            warm_start_joints(joints, bodies, joint_work, motion)
        warm_start(contacts, bodies, work, every_row(contacts))
    for _ in range(iterations):
        if joints is not None:
            solve_joints(joints, bodies, joint_work, motion, dt, True, joint_soft)
        solve_velocities(contacts, bodies, work, accumulate)
    if position_correction == PROJECTION and correction > 0.0:
        project_positions(contacts, bodies, work, correction, slop)
    bad = integrate_positions(bodies, dt)
    # Touching points that bounced from their depth: the pair moves apart by what keeps
    # e² of the step's energy (chapter 9).
    late = land_late_bounces(contacts, bodies, work, gravity, restitution_threshold, dt)
    if position_correction == NONLINEAR or joints is not None:
        update_motion(bodies.centers, bodies.angles, motion)
    if position_correction == NONLINEAR:
        for _ in range(position_iterations):
            solve_positions(contacts, bodies, work, motion, correction, slop, max_correction)
        update_origins(bodies)
    # Speculative points that bounced from their gap: their bodies are put where a bounce
    # from the surface would have left them (chapter 13).
    if land_early_bounces(contacts, bodies, work) or late:
        update_origins(bodies)
    store_impulses(contacts, bodies, work, 1.0)
    if joints is not None:
        store_joint_impulses(joints, bodies, joint_work, motion, 1.0, 1.0 / dt)
    return bad


@njit(refcounted=False, inline=True)
def _warm_start(contacts, bodies, work, colouring, colour_count, threads):
    """:func:`~physbook.dynamics.contact_solver.warm_start`, in row order (with no
    colouring, or none of its colours) or colour by colour, on numba's threads when
    ``threads`` is not None."""
    if colouring is None or colour_count == 0:
        # Every row as a span, as a group of rows is passed: one compilation serves both.
        warm_start(contacts, bodies, work, every_row(contacts))
    elif threads is None:
        # The colours one after the other are the groups in order.
        warm_start_groups((0, colouring.group_starts[colour_count]), colouring.groups,
                          colouring.lane_bodies, colouring.lanes, contacts, bodies, work)
    else:
        warm_start_coloured(colouring, colour_count, contacts, bodies, work)


@njit(refcounted=False, inline=True)
def _solve_soft(contacts, bodies, work, motion, gravity, inverse_h, use_bias, soft,
                static_soft, push_out_speed, restitution_threshold, colouring, colour_count,
                threads, moved_since):
    """A pass of :func:`~physbook.dynamics.contact_solver.solve_soft`, in row order (with
    no colouring, or none of its colours) or colour by colour, on numba's threads when
    ``threads`` is not None; ``moved_since`` as
    :func:`~physbook.dynamics.wide_pass.solve_groups` takes it."""
    if colouring is None or colour_count == 0:
        solve_soft(contacts, bodies, work, motion, gravity, inverse_h, use_bias, soft,
                   static_soft, push_out_speed, restitution_threshold,
                   every_row(contacts))
    elif threads is None:
        solve_groups((0, colouring.group_starts[colour_count]), colouring.groups,
                     colouring.lane_bodies, colouring.lanes, contacts, bodies, work, motion,
                     gravity, inverse_h, use_bias, soft, static_soft, push_out_speed,
                     restitution_threshold, moved_since)
    else:
        solve_soft_coloured(colouring, colour_count, contacts, bodies, work, motion, gravity,
                            inverse_h, use_bias, soft, static_soft, push_out_speed,
                            restitution_threshold, moved_since)


@njit(refcounted=False)
def soft_step(contacts, bodies, work, motion, joints, joint_work, joint_soft, gravity, dt,
              substeps, relax_iterations, soft, static_soft, push_out_speed,
              restitution_threshold, warm_starting, colouring=None, colour_count=0,
              threads=None):
    """A step of the soft step solver (Box2D v3's scheme); returns the count of bodies whose
    state is no longer finite.

    Each of the ``substeps`` substeps of h = dt/substeps integrates velocities, warm starts,
    solves the joints and the soft contacts (a point bounces in the pass where it first
    collides: see :func:`~physbook.dynamics.contact_solver.solve_soft`), integrates
    positions and relaxes both. Box2D bounces once, after the last substep; bouncing in
    the substep of the collision lets the body move away for the rest of the step, as it
    would have. ``joint_soft`` is the joints' softness for one substep. Given a
    ``colouring`` of the contacts into ``colour_count`` colours, cut into groups (see
    :func:`coloured_soft_step`; a ``colour_count`` of :data:`NO_COLOUR` solves the rows
    in order, as without one), the contacts are prepared, solved and stored colour by
    colour, group by group, up to 32 contacts at a time in vector lanes
    (:mod:`physbook.dynamics.wide_pass`), which carry their impulses through the step;
    ``threads``, the colouring's ``chunks`` or None, says whether each colour is shared out
    among numba's threads (a separate compilation: a kernel that may start threads costs
    microseconds to call, even with nothing to share). With no contact and no joint the
    substeps only integrate, and :func:`~physbook.dynamics.motion.integrate_free` runs them
    body by body.
    """
    h = dt / substeps
    warm_scale = 1.0 / substeps if warm_starting else 0.0
    if contacts.bodies.shape[0] == 0 and joints is None:
        # Bodies in free flight: the substeps below would only integrate, body by body.
        return integrate_free(bodies, gravity, h, substeps)
    if joints is not None:
        prepare_joints(joints, bodies, joint_work, warm_scale)
    # The rows in order and the colours are one compilation, told apart by colour_count:
    # a second (colouring None) would add 15 to 20 s to a world's first step. (The test
    # is written out at each use: numba drops a branch only on a test naming the argument.)
    if colouring is None or colour_count == 0:
        prepare_contacts(contacts, bodies, work, motion, warm_scale)
        rows = contacts
    else:
        # The rows solved row by row, in colour order; the lanes keep theirs in blocks.
        order, groups = colouring.order, colouring.groups
        group_count = colouring.group_starts[colour_count]
        rows = contact_rows(colouring.contacts, contacts.bodies.shape[0])
        start_motion(bodies, motion)
        count_overlaps(contacts, bodies, motion)
        for g in range(group_count):
            if groups[g, POINTS] == BY_ROWS:
                prepare_rows(rows, bodies, work, warm_scale,
                             (groups[g, FIRST], groups[g, FIRST] + groups[g, ROWS]))
        pack_lanes(group_count, groups, colouring.lane_bodies, colouring.lanes, order,
                   contacts, bodies, motion, warm_scale, soft, static_soft, push_out_speed)
    bad = _substeps(rows, bodies, work, motion, joints, joint_work, joint_soft, gravity, h,
                    substeps, relax_iterations, soft, static_soft, push_out_speed,
                    restitution_threshold, colouring, colour_count, threads)
    if colouring is None or colour_count == 0:
        store_impulses(contacts, bodies, work, float(substeps))
    else:
        store_groups(colouring.group_starts[colour_count], colouring.groups, colouring.lanes,
                     colouring.order, contacts, bodies, work, float(substeps))
    if joints is not None:
        store_joint_impulses(joints, bodies, joint_work, motion, float(substeps), 1.0 / dt)
    return bad


@njit(refcounted=False, inline=True)
def _substeps(contacts, bodies, work, motion, joints, joint_work, joint_soft, gravity, h,
              substeps, relax_iterations, soft, static_soft, push_out_speed,
              restitution_threshold, colouring, colour_count, threads):
    """The substeps of :func:`soft_step` after the contacts are prepared; returns the count
    of bodies whose state is no longer finite."""
    # The passes' flags as bools numba cannot fold: given the constants True and False, it
    # would compile each pass it calls twice over, once for each.
    solving, relaxing = np.bool_(True), np.bool_(False)
    bad = 0
    for substep in range(substeps):
        if joints is None:
            # From the second substep on, the warm start is the change the last substep's
            # passes made to each body's velocity, applied again (see integrate_and_repeat):
            # a pass over the bodies, not over the contacts.
            integrate_and_repeat(bodies, gravity, h, motion.free_velocities,
                                 motion.free_spins, substep > 0)
            if substep == 0:
                _warm_start(contacts, bodies, work, colouring, colour_count, threads)
        else:
            # A joint's arms turn with its bodies, so its Jacobian changes from substep to
            # substep, and its warm start must be applied anew.
            integrate_velocities(bodies, gravity, h)
            warm_start_joints(joints, bodies, joint_work, motion)
            _warm_start(contacts, bodies, work, colouring, colour_count, threads)
        if joints is not None:
            solve_joints(joints, bodies, joint_work, motion, h, solving, joint_soft)
        # The lanes hold the motion the last relaxing pass read, or none at the start:
        # only velocities changed since.
        _solve_soft(contacts, bodies, work, motion, gravity, 1.0 / h, solving, soft,
                    static_soft, push_out_speed, restitution_threshold, colouring, colour_count,
                    threads, relax_iterations == 0 and substep > 0)
        if substep < substeps - 1:
            advance_positions(bodies, h)
        else:
            bad = integrate_positions(bodies, h)  # placed and checked once, at the end
        update_motion(bodies.centers, bodies.angles, motion)
        for relax in range(relax_iterations):
            if joints is not None:
                solve_joints(joints, bodies, joint_work, motion, h, relaxing, joint_soft)
            _solve_soft(contacts, bodies, work, motion, gravity, 1.0 / h, relaxing, soft,
                        static_soft, push_out_speed, restitution_threshold, colouring,
                        colour_count, threads, relax == 0)
    return bad


# Copied into solver_step (inline): numba hands a compiled callee every array of its tuples
# as separate words, some 700 for the solver's, so each level of calls between the step and
# soft_step copies them all again (about half a microsecond of a one-ball step).
@njit(refcounted=False, inline=True)
def coloured_soft_step(contacts, bodies, work, motion, joints, joint_work, joint_soft, gravity,
                       dt, substeps, relax_iterations, soft, static_soft, push_out_speed,
                       restitution_threshold, warm_starting, colouring, threads=None):
    """:func:`soft_step` in colours (:mod:`physbook.dynamics.colouring`): the contacts
    coloured, sorted by colour and kind and cut into groups, then solved colour by colour,
    on numba's threads when ``threads`` (the colouring's ``chunks``) is given."""
    # One call of soft_step, whichever rows it solves: this is copied into solver_step, and
    # each call there is some 700 words of arguments for numba and LLVM to compile.
    count = contacts.bodies.shape[0]
    solved, colours, gathered = contacts, NO_COLOUR, False
    if count >= 2:  # one contact is in colour order already: solved as rows (no colour)
        colour_count = colour_contacts(contacts.bodies, contacts.point_counts,
                                       contacts.restitutions, bodies.inverse_masses,
                                       bodies.inverse_inertias, bodies.awake, colouring)
        _, in_lanes = make_groups(colouring, colour_count)
        # The rows solved row by row, copied in colour order: all of them when no group is
        # in lanes (make_groups then marked every row so).
        gather_contacts(contacts, colouring.order, colouring.contacts, colouring.kinds)
        if in_lanes == 0 and threads is None:
            # No group in lanes, one thread: the groups one after the other are the rows in
            # colour order, solved at once (a few contacts, or all of them bouncy).
            solved, gathered = contact_rows(colouring.contacts, count), True
        else:
            colours = colour_count
    bad = soft_step(solved, bodies, work, motion, joints, joint_work, joint_soft, gravity, dt,
                    substeps, relax_iterations, soft, static_soft, push_out_speed,
                    restitution_threshold, warm_starting, colouring, colours, threads)
    if gathered:
        scatter_impulses(colouring.contacts, colouring.order, contacts)
    return bad


@njit(inline=True)
def work_rows(work, count):
    """The first ``count`` rows of the solver's contact work arrays (a ContactWork)."""
    return ContactWork(work.anchors_a[:count], work.anchors_b[:count],
                       work.normal_masses[:count], work.tangent_masses[:count],
                       work.base_separations[:count], work.relative_velocities[:count],
                       work.targets[:count], work.normal_impulses[:count],
                       work.tangent_impulses[:count], work.total_normal_impulses[:count])


@njit(refcounted=False)
def gather_awake_rows(contacts, awake, held):
    """The rows of ``contacts`` with a body ``awake`` that are not off this step (a
    contact a one-way shape lets through, or a rule turned off: chapter 16), in order,
    into ``held`` (:class:`AwakeRows`): their rows always, copies of them only when some
    row is left out; returns how many there are. A row that is off carries no impulse
    into the step it is next on."""
    pairs, flags = contacts.bodies, contacts.flags
    count = 0
    for m in range(pairs.shape[0]):
        if flags[m] & CONTACT_DISABLED:
            for k in range(2):
                contacts.normal_impulses[m, k] = 0.0
                contacts.tangent_impulses[m, k] = 0.0
        elif awake[pairs[m, 0]] or awake[pairs[m, 1]]:
            held.rows[count] = m
            count += 1
    if count < pairs.shape[0]:
        for i in range(count):
            copy_contact_row(contacts, held.rows[i], held.contacts, i)
    return count


@njit(refcounted=False)
def scatter_awake_impulses(held, count, contacts):
    """The impulses of the first ``count`` rows ``held`` (:class:`AwakeRows`) gathered
    back into their rows of ``contacts``: all the solver writes to a contact."""
    for i in range(count):
        m = held.rows[i]
        for k in range(2):
            contacts.normal_impulses[m, k] = held.contacts.normal_impulses[i, k]
            contacts.tangent_impulses[m, k] = held.contacts.tangent_impulses[i, k]


@njit(refcounted=False)
def solver_step(soft_settings, impulse_settings, contacts, bodies, work, motion, joints,
                joint_work, gravity, dt, soft, static_soft, joint_soft, colouring, threads,
                awake_rows):
    """The step of a world's solver, as both drivers call it; returns the count of bodies
    whose state is no longer finite.

    One of ``soft_settings`` (the soft step's) and ``impulse_settings`` (the impulse
    solvers') is None, and ``joints`` and ``joint_work`` are None when the world has no
    joints: numba compiles each combination apart and leaves out the steps it does not
    take. The settings (:class:`SoftSettings`, :class:`ImpulseSettings`) and softnesses
    are a solver's ``compiled_settings(dt)`` (:class:`CompiledSettings`);
    ``colouring`` is the soft step's work arrays for solving in colours, or None for
    solving the rows in order; ``threads`` is its ``chunks`` when it solves on several
    threads, else None. ``work`` has room for every row of ``contacts``.

    A row with no body awake is read by no stage of either solver (a sleeping island's, or
    one asleep against the ground): when there are such rows, the others are gathered into
    ``awake_rows`` (:class:`AwakeRows`), solved there and their impulses put back, so that
    a step costs what its awake rows cost, not the sleeping pile's. The rows keep their
    order, and the states are those of solving every row.
    """
    count = contacts.bodies.shape[0]
    solved = gather_awake_rows(contacts, bodies.awake, awake_rows)
    if solved == count:
        return _solve(soft_settings, impulse_settings, contacts, bodies,
                      work_rows(work, count), motion, joints, joint_work, gravity, dt, soft,
                      static_soft, joint_soft, colouring, threads)
    bad = _solve(soft_settings, impulse_settings, contact_rows(awake_rows.contacts, solved),
                 bodies, work_rows(work, solved), motion, joints, joint_work, gravity, dt,
                 soft, static_soft, joint_soft, colouring, threads)
    scatter_awake_impulses(awake_rows, solved, contacts)
    return bad


@njit(refcounted=False, inline=True)
def _solve(soft_settings, impulse_settings, contacts, bodies, work, motion, joints,
           joint_work, gravity, dt, soft, static_soft, joint_soft, colouring, threads):
    """:func:`solver_step` over the rows ``contacts``."""
    # numba settles a test of a None-typed argument against None when it compiles, and
    # drops the branch not taken; each step below sits behind such a test of the other
    # solver's settings, so only the world's own solver is compiled.
    if impulse_settings is not None:
        if soft_settings is None:
            settings = impulse_settings
            return impulse_step(contacts, bodies, work, motion, joints, joint_work,
                                joint_soft, gravity, dt, settings.iterations,
                                settings.accumulate, settings.warm_starting,
                                settings.restitution_threshold, settings.position_correction,
                                settings.correction, settings.slop,
                                settings.position_iterations, settings.max_correction)
    if soft_settings is not None:
        if impulse_settings is None:
            substeps, relax_iterations = soft_settings.substeps, soft_settings.relax_iterations
            push_out_speed = soft_settings.push_out_speed
            restitution_threshold = soft_settings.restitution_threshold
            warm_starting = soft_settings.warm_starting
            if colouring is None:
                # A test of an argument that is not None is not settled when numba
                # compiles, so this call is compiled even in a world with a colouring.
                # Passed as it is, the colouring makes it the very call that
                # coloured_soft_step makes, not a second compilation of the soft step.
                return soft_step(contacts, bodies, work, motion, joints, joint_work,
                                 joint_soft, gravity, dt, substeps, relax_iterations, soft,
                                 static_soft, push_out_speed, restitution_threshold,
                                 warm_starting, colouring, NO_COLOUR, threads)
            return coloured_soft_step(contacts, bodies, work, motion, joints, joint_work,
                                      joint_soft, gravity, dt, substeps, relax_iterations,
                                      soft, static_soft, push_out_speed,
                                      restitution_threshold, warm_starting, colouring,
                                      threads)
    return 0  # not reached: exactly one of the settings is None
