"""Chapter 10's soft step on several threads: contacts in colours, each colour solved in
parallel (``SoftStepSolver(parallel=True)``).

A pass of the solver is Gauss–Seidel: each contact reads its bodies' velocities as the
contacts before it left them and writes them back. Two contacts that share no body whose
velocity an impulse changes (a body of positive inverse mass or inertia) neither read nor
write what the other does, so they may be solved at once, in any order, with the same
result. A *colour* is a set of such contacts. Colouring greedily, each contact in row order
takes the lowest colour that no earlier contact with one of its moving bodies took; a
static or kinematic body is shared by every colour, since its velocity stays as it is.

The step copies the contact rows into colour order (:func:`gather_contacts`), so that a
colour's rows lie side by side in memory, and each pass then solves colour after colour,
eight rows at a time in vector lanes (:mod:`physbook.dynamics.wide_pass`), splitting each
colour's groups of rows among the threads; contacts that found none of the
:data:`~physbook.constants.COLOURS` colours free (a body with that many contacts) are
solved last, on one thread. The impulses go back to the contact table's rows at the end
(:func:`scatter_impulses`). Whatever the number of threads the computation is the same,
Gauss–Seidel in colour order, so the states are the same bit for bit on one thread or
eight. They differ from the serial solver's, whose order is the rows': the order in which
a pass meets the contacts is part of the solution it converges to.

A colour too small to share out (fewer than :data:`~physbook.constants.PARALLEL_ROWS` rows)
is solved on one thread: starting the threads costs about a microsecond, more than such a
colour takes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._jit import njit, prange, thread_count
from physbook.constants import COLOURS, LANES, PARALLEL_ROWS
from physbook.dynamics.contact_solver import warm_start
from physbook.dynamics.contact_table import ContactColumns, contact_columns
from physbook.dynamics.wide_pass import FIELDS, group_capacity, solve_groups

#: The colour of the contacts that found no colour free.
OVERFLOW = COLOURS


class Colouring(NamedTuple):
    """Work arrays of a colouring: ``colours`` (C,) each contact row's colour; ``order``
    (C,) the rows sorted by colour, in row order within one; ``starts`` (COLOURS + 2,) where
    each colour begins in ``order`` (the last entry: the row count); ``used`` (N,) the
    colours taken at each body, one bit each; ``chunks`` (1,) how many parts a colour's
    rows are shared out in (numba's thread count: see :func:`share_out`); ``contacts`` the
    contact rows in colour order (:func:`gather_contacts`); and the groups of
    :mod:`physbook.dynamics.wide_pass`: ``group_starts`` (COLOURS + 2,) where each colour's
    groups begin, ``lane_rows`` (G, LANES) each group's rows, ``by_rows`` (G,) whether a
    group is solved row by row, ``lanes`` (G·FIELDS·LANES,) their blocks."""

    colours: np.ndarray
    order: np.ndarray
    starts: np.ndarray
    used: np.ndarray
    chunks: np.ndarray
    contacts: ContactColumns
    group_starts: np.ndarray
    lane_rows: np.ndarray
    by_rows: np.ndarray
    lanes: np.ndarray


def colouring_arrays(contacts: int, bodies: int) -> Colouring:
    """A :class:`Colouring` with room for ``contacts`` rows and ``bodies`` bodies."""
    groups = group_capacity(contacts)
    return Colouring(np.zeros(contacts, np.int64), np.zeros(contacts, np.int64),
                     np.zeros(COLOURS + 2, np.int64), np.zeros(bodies, np.int64),
                     np.ones(1, np.int64), contact_columns(contacts),
                     np.zeros(COLOURS + 2, np.int64), np.zeros((groups, LANES), np.int64),
                     np.zeros(groups, np.bool_), np.zeros(groups * FIELDS * LANES))


def share_out(colouring: Colouring) -> None:
    """Share each colour out among as many chunks as numba has threads now (the states
    do not depend on it; the time does)."""
    colouring.chunks[0] = thread_count()


@njit(refcounted=False)
def colour_contacts(pairs, inverse_masses, inverse_inertias, colouring):
    """Colour the contact rows whose bodies are ``pairs`` (C, 2) (see the module
    docstring) into ``colouring``; returns how many colours there are, the overflow
    colour included when a row fell into it."""
    colours, order, starts, used = colouring.colours, colouring.order, colouring.starts, \
        colouring.used
    count = pairs.shape[0]
    for m in range(count):
        used[pairs[m, 0]] = 0
        used[pairs[m, 1]] = 0
    starts[:] = 0
    for m in range(count):
        a = pairs[m, 0]
        b = pairs[m, 1]
        moves_a = inverse_masses[a] > 0.0 or inverse_inertias[a] > 0.0
        moves_b = inverse_masses[b] > 0.0 or inverse_inertias[b] > 0.0
        taken = 0
        if moves_a:
            taken |= used[a]
        if moves_b:
            taken |= used[b]
        colour = OVERFLOW
        for c in range(COLOURS):
            if not (taken >> c) & 1:
                colour = c
                break
        if colour < OVERFLOW:
            if moves_a:
                used[a] |= 1 << colour
            if moves_b:
                used[b] |= 1 << colour
        colours[m] = colour
        starts[colour + 1] += 1
    for c in range(OVERFLOW + 1):
        starts[c + 1] += starts[c]
    # A counting sort, stable: each row goes to the next free place of its colour; the
    # starts, used as cursors, end one colour on, and are then shifted back.
    for m in range(count):
        order[starts[colours[m]]] = m
        starts[colours[m]] += 1
    for c in range(OVERFLOW + 1, 0, -1):
        starts[c] = starts[c - 1]
    starts[0] = 0
    last = OVERFLOW
    while last > 0 and starts[last] == starts[last + 1]:
        last -= 1
    return last + 1 if count else 0


@njit(refcounted=False)
def gather_contacts(contacts, order, gathered):
    """Copy contact row ``order[i]`` of ``contacts`` into row i of ``gathered``, for every
    row: the rows in colour order."""
    for i in range(contacts.bodies.shape[0]):
        m = order[i]
        gathered.point_counts[i] = contacts.point_counts[m]
        gathered.restitutions[i] = contacts.restitutions[m]
        gathered.frictions[i] = contacts.frictions[m]
        for k in range(2):
            gathered.shape_ids[i, k] = contacts.shape_ids[m, k]
            gathered.bodies[i, k] = contacts.bodies[m, k]
            gathered.normals[i, k] = contacts.normals[m, k]
            gathered.depths[i, k] = contacts.depths[m, k]
            gathered.features[i, k] = contacts.features[m, k]
            gathered.normal_impulses[i, k] = contacts.normal_impulses[m, k]
            gathered.tangent_impulses[i, k] = contacts.tangent_impulses[m, k]
            gathered.points[i, k, 0] = contacts.points[m, k, 0]
            gathered.points[i, k, 1] = contacts.points[m, k, 1]


@njit(refcounted=False)
def scatter_impulses(gathered, order, contacts):
    """The impulses of ``gathered`` row i back into row ``order[i]`` of ``contacts``."""
    for i in range(contacts.bodies.shape[0]):
        m = order[i]
        for k in range(2):
            contacts.normal_impulses[m, k] = gathered.normal_impulses[i, k]
            contacts.tangent_impulses[m, k] = gathered.tangent_impulses[i, k]


@njit(refcounted=False)
def _colour_rows(colouring, c):
    """(first row, end, whether one thread solves it) of colour c of gathered rows: the
    overflow colour, a colour too small to share out, or any colour on one thread."""
    start = colouring.starts[c]
    end = colouring.starts[c + 1]
    return (start, end,
            c == OVERFLOW or colouring.chunks[0] == 1 or end - start < PARALLEL_ROWS)


@njit(refcounted=False)
def _chunk(start, end, chunks, k):
    """Chunk k of ``chunks`` of the rows start .. end − 1 of a colour."""
    size = (end - start + chunks - 1) // chunks
    return min(end, start + k * size), min(end, start + (k + 1) * size)


@njit(parallel=True)
def warm_start_coloured(colouring, colour_count, contacts, bodies, work):
    """:func:`~physbook.dynamics.contact_solver.warm_start` of gathered contact rows,
    colour by colour."""
    chunks = colouring.chunks[0]
    for c in range(colour_count):
        start, end, alone = _colour_rows(colouring, c)
        if alone:
            warm_start(contacts, bodies, work, (start, end))
        else:
            for k in prange(chunks):
                warm_start(contacts, bodies, work, _chunk(start, end, chunks, k))


@njit(parallel=True)
def solve_soft_coloured(colouring, colour_count, contacts, bodies, work, motion, gravity,
                        inverse_h, use_bias, soft, static_soft, push_out_speed,
                        restitution_threshold):
    """:func:`~physbook.dynamics.contact_solver.solve_soft` of gathered contact rows,
    colour by colour, each colour group by group (:mod:`physbook.dynamics.wide_pass`)."""
    chunks = colouring.chunks[0]
    # The group arrays are handed on one by one: the threads' kernel cannot take the
    # colouring, a tuple holding a tuple.
    lane_rows, by_rows, lanes = colouring.lane_rows, colouring.by_rows, colouring.lanes
    for c in range(colour_count):
        _, _, alone = _colour_rows(colouring, c)
        first, end = colouring.group_starts[c], colouring.group_starts[c + 1]
        if alone:
            solve_groups((first, end), lane_rows, by_rows, lanes, contacts, bodies, work,
                          motion, gravity, inverse_h, use_bias, soft, static_soft,
                          push_out_speed, restitution_threshold)
        else:
            for k in prange(chunks):
                solve_groups(_chunk(first, end, chunks, k), lane_rows, by_rows, lanes,
                              contacts, bodies, work, motion, gravity, inverse_h, use_bias,
                              soft, static_soft, push_out_speed, restitution_threshold)
