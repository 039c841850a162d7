"""Appendix A: chapter 10's soft step in colours, contacts that share no moving body solved
together, in vector lanes and, when asked, on several threads
(``SoftStepSolver(order="colours")``, the default, and ``parallel=True``).

A pass of the solver is Gauss–Seidel: each contact reads its bodies' velocities as the
contacts before it left them and writes them back. Two contacts that share no body whose
velocity an impulse changes (a body of positive inverse mass or inertia) neither read nor
write what the other does, so they may be solved at once, in any order, with the same
result. A *colour* is a set of such contacts. Colouring greedily, each contact in row order
takes the lowest colour that no earlier contact with one of its moving bodies took; a
static or kinematic body is shared by every colour, since its velocity stays as it is. As
in Box2D v3, a contact with a body that does not move takes the *highest* colour free
instead, and the top :data:`~physbook.constants.STATIC_COLOURS` colours are kept for such
contacts: a pass solves them last, so that they hold best (the last contact a Gauss–Seidel
pass solves is the one it leaves satisfied), and a pile sinks less into the ground. A pair
of bodies that are both asleep (or asleep and static) is solved by no stage, and takes
colour 0 without claiming it at its bodies.

The step sorts the contact rows into colour order. Within a colour the order is free (its
contacts are independent), so its rows are sorted by how they are solved: contacts of two
points that cannot bounce, then those of one point, then the rest. Each colour is cut into
*groups* of up to :data:`~physbook.constants.LANES` rows of one kind
(:func:`make_groups`): a group of the first two kinds is solved in vector lanes, a contact
per lane, its numbers kept in a block of its own for the step; the rows of the others are
copied in colour order (:func:`gather_contacts`) and solved row by row
(:mod:`physbook.dynamics.wide_pass`). Contacts that found none of the
:data:`~physbook.constants.COLOURS` colours free (a body with that many contacts) make the
*overflow* colour, solved last, row by row in row order, since they may share bodies. The
impulses go back to the contact table's rows at the end.

With ``parallel=True`` each colour's groups are shared out among numba's threads. Whatever
the number of threads the computation is the same, Gauss–Seidel in colour order, so the
states are the same bit for bit on one thread or eight. They differ from those of the
solver that takes the rows in order (``order="rows"``): the order in which a pass meets
the contacts is part of the solution it converges to. A colour too small to share out
(fewer than :data:`~physbook.constants.PARALLEL_ROWS` rows) is solved on one thread:
starting the threads costs about a microsecond, more than such a colour takes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._jit import njit, prange, thread_count
from physbook.constants import COLOURS, LANE_MINIMUM, LANES, PARALLEL_ROWS, STATIC_COLOURS
from physbook.dynamics.contact_table import ContactColumns, contact_columns, copy_contact_row
from physbook.dynamics.wide_pass import (
    BY_ROWS,
    lane_arrays,
    solve_groups,
    warm_start_groups,
)

#: The colour of the contacts that found no colour free.
OVERFLOW = COLOURS

#: How a colour's rows are solved, in the order they are sorted within it: contacts of two
#: points in lanes, of one point in lanes, and row by row (those that may bounce, pairs
#: asleep, and the whole overflow colour).
TWO_POINTS, ONE_POINT, ROW_BY_ROW = 0, 1, 2
KINDS = 3


def group_capacity(contacts: int) -> int:
    """The most groups ``contacts`` rows can make: full ones, and a part-filled one at the
    end of each kind of rows of each colour (the overflow colour included)."""
    return contacts // LANES + KINDS * (COLOURS + 1) + 1


class Colouring(NamedTuple):
    """Work arrays of a colouring: ``colours`` (C,) each contact row's colour; ``kinds``
    (C,) how each row is solved (:data:`TWO_POINTS`, :data:`ONE_POINT`,
    :data:`ROW_BY_ROW`); ``order`` (C,) the rows sorted by colour, then kind, in row order
    within one; ``starts`` (COLOURS + 2,) where each colour begins in ``order`` (the last
    entry: the row count); ``kind_starts`` (KINDS·(COLOURS + 1) + 1,) where each colour's
    rows of each kind begin; ``used`` (N,) the colours taken at each body, one bit each;
    ``chunks`` (1,) how many parts a colour's groups are shared out in (1, or numba's
    thread count: see :func:`share_out`); ``contacts`` the contact rows in colour order
    (:func:`gather_contacts`); and the groups of :mod:`physbook.dynamics.wide_pass`:
    ``group_starts`` (COLOURS + 2,) where each colour's groups begin, ``groups`` (G, 3)
    each group's first row, rows and points (0: row by row), ``lane_bodies`` (G, 2, LANES)
    the bodies of each lane, ``lanes`` (G·FIELDS·LANES,) their blocks; and what the last
    colouring was worked out from (see :func:`colour_contacts`): ``signatures`` (C, 3) each
    row's bodies and what else of it counts, ``remembered`` (2,) the row count (−1: none
    yet) and the colour count."""

    colours: np.ndarray
    kinds: np.ndarray
    order: np.ndarray
    starts: np.ndarray
    kind_starts: np.ndarray
    used: np.ndarray
    chunks: np.ndarray
    contacts: ContactColumns
    group_starts: np.ndarray
    groups: np.ndarray
    lane_bodies: np.ndarray
    lanes: np.ndarray
    signatures: np.ndarray
    remembered: np.ndarray


def colouring_arrays(contacts: int, bodies: int) -> Colouring:
    """A :class:`Colouring` with room for ``contacts`` rows and ``bodies`` bodies, its
    colours shared out in one chunk."""
    return Colouring(np.zeros(contacts, np.int64), np.zeros(contacts, np.int64),
                     np.zeros(contacts, np.int64), np.zeros(COLOURS + 2, np.int64),
                     np.zeros(KINDS * (COLOURS + 1) + 1, np.int64),
                     np.zeros(bodies, np.int64), np.ones(1, np.int64),
                     contact_columns(contacts), np.zeros(COLOURS + 2, np.int64),
                     *lane_arrays(group_capacity(contacts)), np.zeros((contacts, 3), np.int64),
                     np.array([-1, 0], np.int64))


def share_out(colouring: Colouring) -> None:
    """Share each colour out among as many chunks as numba has threads now (the states do
    not depend on it; the time does)."""
    colouring.chunks[0] = thread_count()


@njit(refcounted=False)
def colour_contacts(pairs, point_counts, restitutions, inverse_masses, inverse_inertias,
                    awake, colouring):
    """Colour the contact rows whose bodies are ``pairs`` (C, 2) and sort them by colour
    and kind into ``colouring`` (see the module docstring); returns how many colours there
    are, the overflow colour included when a row fell into it.

    A row is solved in lanes when it is in an ordinary colour, cannot bounce (its
    ``restitutions`` is 0) and one of its bodies is ``awake``; by its ``point_counts`` it
    is then of kind :data:`TWO_POINTS` or :data:`ONE_POINT`.

    The colouring is worked out again only when something it depends on changed since the
    last call: a row's bodies, whether they are awake and whether they move, its point
    count and whether it may bounce. Otherwise the last one stands, as it is: a pile at rest
    keeps its contacts, in the same rows, step after step.
    """
    colours, kinds, order, starts, kind_starts, used = (
        colouring.colours, colouring.kinds, colouring.order, colouring.starts,
        colouring.kind_starts, colouring.used)
    count = pairs.shape[0]
    if _same_as_last(pairs, point_counts, restitutions, inverse_masses, inverse_inertias,
                     awake, colouring.signatures, colouring.remembered):
        return colouring.remembered[1]
    for m in range(count):
        used[pairs[m, 0]] = 0
        used[pairs[m, 1]] = 0
    kind_starts[:] = 0
    for m in range(count):
        a = pairs[m, 0]
        b = pairs[m, 1]
        if not (awake[a] or awake[b]):
            # Solved by no stage: any colour serves, and it claims none.
            colours[m] = 0
            kinds[m] = ROW_BY_ROW
            kind_starts[ROW_BY_ROW + 1] += 1
            continue
        moves_a = _moves(inverse_masses, inverse_inertias, a)
        moves_b = _moves(inverse_masses, inverse_inertias, b)
        taken = 0
        if moves_a:
            taken |= used[a]
        if moves_b:
            taken |= used[b]
        colour = OVERFLOW
        if moves_a and moves_b:
            for c in range(COLOURS - STATIC_COLOURS):
                if not (taken >> c) & 1:
                    colour = c
                    break
        else:
            # Against a body that does not move: the highest colour free, so that a pass
            # solves these contacts after the others and they hold best (Box2D v3's rule).
            for c in range(COLOURS - 1, -1, -1):
                if not (taken >> c) & 1:
                    colour = c
                    break
        if colour < OVERFLOW:
            if moves_a:
                used[a] |= 1 << colour
            if moves_b:
                used[b] |= 1 << colour
        kind = ROW_BY_ROW
        if colour < OVERFLOW and restitutions[m] == 0.0:
            kind = TWO_POINTS if point_counts[m] == 2 else ONE_POINT
        colours[m] = colour
        kinds[m] = kind
        kind_starts[KINDS * colour + kind + 1] += 1
    buckets = KINDS * (OVERFLOW + 1)
    for k in range(buckets):
        kind_starts[k + 1] += kind_starts[k]
    # A counting sort, stable: each row goes to the next free place of its colour and kind;
    # the starts, used as cursors, end one bucket on, and are then shifted back.
    for m in range(count):
        bucket = KINDS * colours[m] + kinds[m]
        order[kind_starts[bucket]] = m
        kind_starts[bucket] += 1
    for k in range(buckets, 0, -1):
        kind_starts[k] = kind_starts[k - 1]
    kind_starts[0] = 0
    for c in range(OVERFLOW + 2):
        starts[c] = kind_starts[KINDS * c]
    last = OVERFLOW
    while last > 0 and starts[last] == starts[last + 1]:
        last -= 1
    colouring.remembered[0] = count
    colouring.remembered[1] = last + 1 if count else 0
    return colouring.remembered[1]


@njit(refcounted=False)
def _same_as_last(pairs, point_counts, restitutions, inverse_masses, inverse_inertias, awake,
                  signatures, remembered):
    """Whether the rows would be coloured as the last call of :func:`colour_contacts`
    coloured them: the same count, and each row the same bodies (in ``signatures``, which
    this updates) with the same flags (awake, moving, point count, may bounce)."""
    count = pairs.shape[0]
    same = remembered[0] == count
    for m in range(count):
        a, b = pairs[m, 0], pairs[m, 1]
        flags = (awake[a] + 2 * awake[b]
                 + 4 * _moves(inverse_masses, inverse_inertias, a)
                 + 8 * _moves(inverse_masses, inverse_inertias, b)
                 + 16 * (point_counts[m] == 2) + 32 * (restitutions[m] == 0.0))
        same &= signatures[m, 0] == a and signatures[m, 1] == b and signatures[m, 2] == flags
        signatures[m, 0], signatures[m, 1], signatures[m, 2] = a, b, flags
    return same


@njit(refcounted=False, inline=True)
def _moves(inverse_masses, inverse_inertias, b):
    """Whether an impulse changes body b's velocity (a positive inverse mass or inertia)."""
    return inverse_masses[b] > 0.0 or inverse_inertias[b] > 0.0


@njit(refcounted=False)
def make_groups(colouring, colour_count):
    """Cut each colour's rows of each kind into groups of up to ``LANES`` rows, into
    ``colouring.groups`` and ``group_starts``; returns the number of groups, and of those
    solved in lanes."""
    kinds, order, kind_starts, group_starts, groups = (
        colouring.kinds, colouring.order, colouring.kind_starts, colouring.group_starts,
        colouring.groups)
    group = 0
    in_lanes = 0
    for c in range(colour_count):
        group_starts[c] = group
        for kind in range(KINDS):
            end = kind_starts[KINDS * c + kind + 1]
            points = 2 if kind == TWO_POINTS else (1 if kind == ONE_POINT else BY_ROWS)
            for first in range(kind_starts[KINDS * c + kind], end, LANES):
                rows = min(LANES, end - first)
                groups[group, 0] = first
                groups[group, 1] = rows
                if points != BY_ROWS and rows < LANE_MINIMUM:
                    # Too few to pay for gathering and scattering lanes: by rows, copied.
                    for i in range(first, first + rows):
                        kinds[order[i]] = ROW_BY_ROW
                    groups[group, 2] = BY_ROWS
                else:
                    groups[group, 2] = points
                    in_lanes += points != BY_ROWS
                group += 1
    group_starts[colour_count] = group
    return group, in_lanes


@njit(refcounted=False)
def gather_contacts(contacts, order, gathered, kinds=None):
    """Copy contact row ``order[i]`` of ``contacts`` into row i of ``gathered``: the rows in
    colour order; given the rows' ``kinds``, only those solved row by row (the lanes read
    theirs from the contact table when they are packed)."""
    for i in range(contacts.bodies.shape[0]):
        m = order[i]
        if kinds is not None and kinds[m] != ROW_BY_ROW:
            continue
        copy_contact_row(contacts, m, gathered, i)


@njit(refcounted=False)
def scatter_impulses(gathered, order, contacts):
    """The impulses of ``gathered`` row i back into row ``order[i]`` of ``contacts``."""
    for i in range(contacts.bodies.shape[0]):
        m = order[i]
        for k in range(2):
            contacts.normal_impulses[m, k] = gathered.normal_impulses[i, k]
            contacts.tangent_impulses[m, k] = gathered.tangent_impulses[i, k]


@njit(refcounted=False)
def _shared(colouring, c):
    """(first group, end, whether the threads share it) of colour c: not the overflow
    colour, nor a colour too small to share out, nor any colour on one thread."""
    rows = colouring.starts[c + 1] - colouring.starts[c]
    return (colouring.group_starts[c], colouring.group_starts[c + 1],
            c != OVERFLOW and colouring.chunks[0] > 1 and rows >= PARALLEL_ROWS)


@njit(refcounted=False)
def _chunk(start, end, chunks, k):
    """Chunk k of ``chunks`` of the groups start .. end − 1 of a colour."""
    size = (end - start + chunks - 1) // chunks
    return min(end, start + k * size), min(end, start + (k + 1) * size)


@njit(parallel=True)
def warm_start_coloured(colouring, colour_count, contacts, bodies, work):
    """:func:`~physbook.dynamics.wide_pass.warm_start_groups` of every colour, each colour's
    groups shared out among the threads."""
    chunks = colouring.chunks[0]
    # The group arrays are handed on one by one: the threads' kernel cannot take the
    # colouring, a tuple holding a tuple.
    groups, lane_bodies, lanes = colouring.groups, colouring.lane_bodies, colouring.lanes
    for c in range(colour_count):
        first, end, shared = _shared(colouring, c)
        if not shared:
            warm_start_groups((first, end), groups, lane_bodies, lanes, contacts, bodies, work)
        else:
            for k in prange(chunks):
                warm_start_groups(_chunk(first, end, chunks, k), groups, lane_bodies, lanes,
                                  contacts, bodies, work)


@njit(parallel=True)
def solve_soft_coloured(colouring, colour_count, contacts, bodies, work, motion, gravity,
                        inverse_h, use_bias, soft, static_soft, push_out_speed,
                        restitution_threshold, moved_since=True):
    """:func:`~physbook.dynamics.wide_pass.solve_groups` of every colour, each colour's
    groups shared out among the threads."""
    chunks = colouring.chunks[0]
    groups, lane_bodies, lanes = colouring.groups, colouring.lane_bodies, colouring.lanes
    for c in range(colour_count):
        first, end, shared = _shared(colouring, c)
        if not shared:
            solve_groups((first, end), groups, lane_bodies, lanes, contacts, bodies, work,
                         motion, gravity, inverse_h, use_bias, soft, static_soft,
                         push_out_speed, restitution_threshold, moved_since)
        else:
            for k in prange(chunks):
                solve_groups(_chunk(first, end, chunks, k), groups, lane_bodies, lanes,
                             contacts, bodies, work, motion, gravity, inverse_h, use_bias,
                             soft, static_soft, push_out_speed, restitution_threshold,
                             moved_since)
