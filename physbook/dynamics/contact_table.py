"""Contacts that persist from step to step: the contact table.

After the broad phase, the world asks the narrow phase about every candidate pair and keeps
the touching ones in a :class:`ContactTable`: a structure of arrays with one row per touching
shape pair and up to two points per row (box2d-lite calls such a row an *arbiter*). A row is
keyed by the stable ids of its two shapes, so adding or removing other bodies leaves it in
place. A point is the same point in the next step when its shape pair and its feature id are
the same: then it keeps the impulses it received, so that a solver can start from them
(warm starting, chapter 10).

The table holds two sets of arrays and swaps them each step: the update reads last step's
rows from one and writes this step's into the other, so a step in steady state allocates
nothing.

Removing bodies costs the table nothing at once. An update reads of last step's rows only
what it matches by shape ids (the impulses, and a sleeping pair's manifold), never their
body rows, and a row whose shape is gone matches no pair; so the table only notes that
shapes were removed (:meth:`ContactTable.drop_removed`), and drops their rows, renumbering
the body rows of the rest, when its rows are next read (and not at all if the next update
comes first).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._buffers import CachesViews, ColumnView, zeroed_columns
from physbook._jit import njit
from physbook.collision.manifold import collide_rows, narrow_scratch, pair_rotations
from physbook.dynamics.contact_surface import (
    CONTACT_PASSING,
    ContactRules,
    apply_rules,
    contact_surface,
    no_rules,
)
from physbook.dynamics.motion import pair_margin
from physbook.geometry.shape_table import ShapeArrays, ShapeTable
from physbook.geometry.surface import FRICTION, RESTITUTION, SURFACE_WIDTH, surface_row


class ContactColumns(NamedTuple):
    """The columns of a contact table (M rows; point slots beyond ``point_counts`` unused).

    ``shape_ids`` (M, 2) int64 stable ids of shapes A and B, ``id_a < id_b``, rows sorted;
    ``bodies`` (M, 2) int64 body rows of A and B; ``point_counts`` (M,) 1 or 2; ``normals``
    (M, 2) unit, from A to B; ``points`` (M, 2, 2) world points (m); ``depths`` (M, 2)
    penetration (m, positive when overlapping); ``features`` (M, 2) int64 feature ids (−1
    in an unused slot); ``normal_impulses``, ``tangent_impulses`` (M, 2) impulse per point
    along the normal and along the tangent ``(−n_y, n_x)`` (N·s); ``restitutions``,
    ``frictions`` (M,) the restitution and friction of the contact, mixed from its two
    bodies' values.
    """

    shape_ids: np.ndarray
    bodies: np.ndarray
    point_counts: np.ndarray
    normals: np.ndarray
    points: np.ndarray
    depths: np.ndarray
    features: np.ndarray
    normal_impulses: np.ndarray
    tangent_impulses: np.ndarray
    restitutions: np.ndarray
    frictions: np.ndarray
    tangent_speeds: np.ndarray
    flags: np.ndarray


def contact_columns(capacity: int) -> ContactColumns:
    """Zeroed :class:`ContactColumns` with room for ``capacity`` rows."""
    m = capacity
    return ContactColumns(*zeroed_columns([
        ((m, 2), np.int64), ((m, 2), np.int64), ((m,), np.int64), ((m, 2), np.float64),
        ((m, 2, 2), np.float64), ((m, 2), np.float64), ((m, 2), np.int64),
        ((m, 2), np.float64), ((m, 2), np.float64), ((m,), np.float64), ((m,), np.float64),
        ((m,), np.float64), ((m,), np.int64)]))


@njit(inline=True)
def contact_rows(columns, count):
    """The first ``count`` rows of contact columns (views)."""
    return ContactColumns(columns.shape_ids[:count], columns.bodies[:count],
                          columns.point_counts[:count], columns.normals[:count],
                          columns.points[:count], columns.depths[:count],
                          columns.features[:count], columns.normal_impulses[:count],
                          columns.tangent_impulses[:count], columns.restitutions[:count],
                          columns.frictions[:count], columns.tangent_speeds[:count],
                          columns.flags[:count])


@njit(refcounted=False)
def update_contacts(pairs, shapes, surfaces, rules, origins, angles, margins, drifts, boxes,
                    awake, old, old_count, new, scratch):
    """The narrow phase over candidate ``pairs``, into the rows of ``new``; returns their count.

    Each pair that touches, or whose gap is at most its margin (m; a *speculative* contact,
    with negative depth), gets a row. The margin is the sum of its shapes' ``margins`` (S,),
    plus the drift of one body relative to the other when ``drifts`` (B, 2) has rows
    (:func:`~physbook.dynamics.motion.pair_margin`). When ``boxes`` (lower and upper
    corners, (S, 2) each) hold the shapes' boxes grown by their margins and swept along
    their drifts (the broad phase's), a pair whose boxes are apart by more than that
    relative drift is passed over before its manifold is worked out: each shape lies in its
    box, so the two are farther apart than their margin. A row holds its manifold, its
    surface from its shapes' ``surfaces`` (S, 6) (friction, restitution, tangent speed, and
    whether it acts: :func:`~physbook.dynamics.contact_surface.contact_surface`), changed by
    the world's ``rules`` (:class:`~physbook.dynamics.contact_surface.ContactRules`), and,
    for each point whose feature id it had in ``old`` (rows 0 .. old_count − 1), the
    impulses that point received there (0 for a new point). ``pairs`` are shape rows sorted
    by row; ``old`` is sorted by shape id, and ids grow with rows, so one merge walk finds
    every match.

    A pair whose bodies are both not ``awake`` (asleep, or asleep and static; chapter 11)
    has not moved: its old row is copied as it was, impulses included, and no manifold is
    computed. Such a pair with no old row gets none. ``scratch`` is the
    :class:`~physbook.collision.manifold.NarrowScratch` of the shapes and bodies.
    """
    ids, kind, body, radius, vertex_start, vertex_count, vertices, normals = shapes
    lower, upper = boxes
    scratch_vertices, scratch_normals = scratch.vertices, scratch.normals
    cosines, sines, done, unturned = scratch.cosines, scratch.sines, scratch.done, scratch.unturned
    pair_rotations(pairs, body, angles, cosines, sines, done, awake, unturned)
    (shape_ids, bodies, point_counts, contact_normals, points, depths, features,
     normal_impulses, tangent_impulses, restitutions, frictions, tangent_speeds, flags) = new
    old_ids, old_counts, old_features = old.shape_ids, old.point_counts, old.features
    old_normal, old_tangent = old.normal_impulses, old.tangent_impulses
    old_normals, old_depths, old_points = old.normals, old.depths, old.points
    # int64 from the start: a literal 0 would have numba compile apply_rules once more.
    row = np.int64(0)
    old_row = 0
    for p in range(pairs.shape[0]):
        a = pairs[p, 0]
        b = pairs[p, 1]
        id_a = ids[a]
        id_b = ids[b]
        # Both lists are sorted by (id_a, id_b): advance the old cursor to this pair.
        while old_row < old_count and (
                old_ids[old_row, 0] < id_a
                or (old_ids[old_row, 0] == id_a and old_ids[old_row, 1] < id_b)):
            old_row += 1
        matched = (old_row < old_count and old_ids[old_row, 0] == id_a
                   and old_ids[old_row, 1] == id_b)
        if not (awake[body[a]] or awake[body[b]]):
            if matched:
                for k in range(2):
                    contact_normals[row, k] = old_normals[old_row, k]
                    depths[row, k] = old_depths[old_row, k]
                    normal_impulses[row, k] = old_normal[old_row, k]
                    tangent_impulses[row, k] = old_tangent[old_row, k]
                    points[row, k, 0] = old_points[old_row, k, 0]
                    points[row, k, 1] = old_points[old_row, k, 1]
                shape_ids[row, 0] = id_a
                shape_ids[row, 1] = id_b
                bodies[row, 0] = body[a]
                bodies[row, 1] = body[b]
                point_counts[row] = old_counts[old_row]
                features[row, 0] = old_features[old_row, 0]
                features[row, 1] = old_features[old_row, 1]
                restitutions[row] = old.restitutions[old_row]
                frictions[row] = old.frictions[old_row]
                tangent_speeds[row] = old.tangent_speeds[old_row]
                flags[row] = old.flags[old_row]
                row += 1
            continue
        margin = pair_margin(margins, drifts, body, a, b)
        # The boxes, grown by both margins, are apart by at most the gap less the margins.
        if lower.shape[0] and box_gap(lower, upper, a, b) > margin - margins[a] - margins[b]:
            continue
        count = collide_rows(a, b, kind, body, radius, vertex_start, vertex_count, vertices,
                             normals, origins, cosines, sines, margin,
                             scratch_vertices, scratch_normals, contact_normals[row],
                             points[row], depths[row], features[row])
        if count == 0:
            continue
        shape_ids[row, 0] = id_a
        shape_ids[row, 1] = id_b
        bodies[row, 0] = body[a]
        bodies[row, 1] = body[b]
        point_counts[row] = count
        # Mixed here, per contact, from the two shapes' own values: nothing is kept per
        # pair of materials, so a world of M distinct materials holds O(M), not O(M²).
        overlapping = depths[row, 0] > 0.0 or (count == 2 and depths[row, 1] > 0.0)
        passing = matched and (old.flags[old_row] & CONTACT_PASSING) != 0
        frictions[row], restitutions[row], tangent_speeds[row], flags[row] = contact_surface(
            surfaces, a, b, angles[body[a]], angles[body[b]], contact_normals[row, 0],
            contact_normals[row, 1], overlapping, passing)
        if rules.masks.shape[0]:
            apply_rules(rules, a, b, frictions, restitutions, tangent_speeds, flags, row)
        for k in range(2):
            normal_impulses[row, k] = 0.0
            tangent_impulses[row, k] = 0.0
        for k in range(count, 2):
            points[row, k, 0] = 0.0
            points[row, k, 1] = 0.0
            depths[row, k] = 0.0
            features[row, k] = -1
        if matched:
            for k in range(count):
                for q in range(old_counts[old_row]):
                    if old_features[old_row, q] == features[row, k]:
                        normal_impulses[row, k] = old_normal[old_row, q]
                        tangent_impulses[row, k] = old_tangent[old_row, q]
                        break
        row += 1
    return row


@njit(refcounted=False, inline=True)
def box_gap(lower, upper, a, b):
    """How far apart the boxes of rows ``a`` and ``b`` of ``lower`` and ``upper`` (S, 2)
    are along the axis that parts them most (m; negative when they overlap)."""
    return max(lower[b, 0] - upper[a, 0], lower[a, 0] - upper[b, 0],
               lower[b, 1] - upper[a, 1], lower[a, 1] - upper[b, 1])


@njit(refcounted=False)
def copy_contact_row(source, m, target, i):
    """Copy row ``m`` of the contact columns ``source`` into row ``i`` of ``target``."""
    target.point_counts[i] = source.point_counts[m]
    target.restitutions[i] = source.restitutions[m]
    target.frictions[i] = source.frictions[m]
    target.tangent_speeds[i] = source.tangent_speeds[m]
    target.flags[i] = source.flags[m]
    for k in range(2):
        target.shape_ids[i, k] = source.shape_ids[m, k]
        target.bodies[i, k] = source.bodies[m, k]
        target.normals[i, k] = source.normals[m, k]
        target.depths[i, k] = source.depths[m, k]
        target.features[i, k] = source.features[m, k]
        target.normal_impulses[i, k] = source.normal_impulses[m, k]
        target.tangent_impulses[i, k] = source.tangent_impulses[m, k]
        target.points[i, k, 0] = source.points[m, k, 0]
        target.points[i, k, 1] = source.points[m, k, 1]


@njit(refcounted=False)
def _live_rows_into(old, count, new, ids, body):
    """Copy the rows 0 .. count − 1 of ``old`` whose two shapes are still in the shape
    table (``ids``, sorted; ``body``, each shape's body row) into ``new``, in order, with
    the body rows they have now; returns how many."""
    kept = 0
    for m in range(count):
        a = np.searchsorted(ids, old.shape_ids[m, 0])
        b = np.searchsorted(ids, old.shape_ids[m, 1])
        if (a == ids.shape[0] or ids[a] != old.shape_ids[m, 0] or b == ids.shape[0]
                or ids[b] != old.shape_ids[m, 1]):
            continue
        copy_contact_row(old, m, new, kept)
        new.bodies[kept, 0] = body[a]
        new.bodies[kept, 1] = body[b]
        kept += 1
    return kept


@njit(refcounted=False)
def mark_pairs_of(keys, ids, marked):
    """Set ``marked[k]`` for each pair key id_a·2³² + id_b of ``keys`` (sorted by id_a)
    with a shape among ``ids`` (sorted): the pairs of shapes being removed."""
    for k in range(keys.shape[0]):
        a = keys[k] >> 32
        b = keys[k] & 0xFFFFFFFF
        if b < ids[0]:  # then a < b is too
            continue
        i = np.searchsorted(ids, a)
        j = np.searchsorted(ids, b)
        marked[k] = (i < ids.shape[0] and ids[i] == a) or (j < ids.shape[0] and ids[j] == b)


#: No drifts: a pair's margin is the sum of its shapes' margins, as given.
_NO_DRIFTS = np.zeros((0, 2))
#: No boxes: every pair's manifold is worked out.
_NO_BOXES = (np.zeros((0, 2)), np.zeros((0, 2)))


def _column(value, name: str, shape: tuple, dtype) -> None:
    """``value`` must be an array of ``dtype`` and ``shape`` (−1: any length) that the
    compiled narrow phase can read without leaving its bounds."""
    if not isinstance(value, np.ndarray) or value.dtype != dtype:
        raise TypeError(f"{name} must be a numpy array of {np.dtype(dtype).name}, got "
                        f"{getattr(value, 'dtype', type(value).__name__)}")
    if value.ndim != len(shape) or any(want not in (-1, got)
                                       for want, got in zip(shape, value.shape, strict=True)):
        raise ValueError(f"{name} must have shape {shape} (-1: any), got {value.shape}")


def _check_update(pairs, shapes, origins, angles, surfaces, margins):
    """Raise TypeError or ValueError unless the arguments of :meth:`ContactTable.update`
    fit each other: every index in range, every array of the kernel's dtype and shape,
    every surface one a shape can hold."""
    shape_count = len(shapes.ids)
    _column(pairs, "pairs", (-1, 2), np.int64)
    _column(origins, "origins", (-1, 2), np.float64)
    body_count = len(origins)
    if shape_count and shapes.body.max() >= body_count:
        raise ValueError(f"origins must have a row for each of the {shapes.body.max() + 1} "
                         f"bodies the shapes belong to, got {body_count}")
    _column(angles, "angles", (body_count,), np.float64)
    _column(surfaces, "surfaces", (shape_count, SURFACE_WIDTH), np.float64)
    restitutions, frictions = surfaces[:, RESTITUTION], surfaces[:, FRICTION]
    if not np.all((restitutions >= 0.0) & (restitutions <= 1.0)):
        raise ValueError("surfaces' restitutions must be in [0, 1]")
    if not np.all((frictions >= 0.0) & (frictions < np.inf)):
        raise ValueError("surfaces' frictions must be finite and non-negative")
    if not np.all(np.isfinite(surfaces)):
        raise ValueError("surfaces must be finite")
    _column(margins, "margins", (shape_count,), np.float64)
    if len(pairs) and (pairs.min() < 0 or pairs.max() >= shape_count):
        raise ValueError(f"pairs must hold shape rows 0 .. {shape_count - 1}")
    # The walk that carries impulses over assumes canonical pairs: a < b, rows sorted.
    if np.any(pairs[:, 0] >= pairs[:, 1]) or np.any(
            np.diff(pairs[:, 0] * shape_count + pairs[:, 1]) <= 0):
        raise ValueError("pairs must be canonical: each row (a, b) with a < b, rows sorted "
                         "and distinct (as broadphase.canonical_pairs returns them)")


class ContactTable(CachesViews):
    """The touching shape pairs of a world, one row each (see the module docstring).

    The columns (:class:`ContactColumns`) are properties of the table, views of the rows in
    use: ``table.normals``, ``table.normal_impulses``, ...; ``table.arrays`` holds them all.
    After :meth:`update` the impulses are what each point received in the previous step
    (0 for a new point); after the solver, what it received in this step.
    """

    shape_ids = ColumnView("(M, 2) stable ids of shapes A and B, A's the smaller.")
    bodies = ColumnView("(M, 2) body rows of shapes A and B.")
    point_counts = ColumnView("(M,) points per row, 1 or 2.")
    normals = ColumnView("(M, 2) unit normals from A to B.")
    points = ColumnView("(M, 2, 2) contact points in the world (m).")
    depths = ColumnView("(M, 2) penetration per point (m), positive when overlapping.")
    features = ColumnView("(M, 2) feature id per point; with the pair it names the point.")
    normal_impulses = ColumnView("(M, 2) impulse per point along the normal (N·s).",
                                 writable=True)
    tangent_impulses = ColumnView("(M, 2) impulse per point along (−n_y, n_x) (N·s).",
                                  writable=True)
    restitutions = ColumnView("(M,) the pair's mixed restitution.")
    frictions = ColumnView("(M,) the pair's mixed friction coefficient.")
    tangent_speeds = ColumnView("(M,) relative tangential speed friction drives to (m/s).")
    flags = ColumnView("(M,) bits: off this step (1), passing a one-way shape (2).")

    _CACHED_VIEWS = {"_arrays": None, "_views": {}}

    def __init__(self, capacity: int = 16):
        capacity = _check.positive_int(capacity, "capacity", _check.MAX_CAPACITY)
        self._current = contact_columns(capacity)
        self._spare = contact_columns(capacity)
        self._count = 0
        self._previous_count = 0
        self._arrays: ContactColumns | None = None
        # Whether the current and the spare set may hold rows of removed shapes, and the
        # shape table that says which (see drop_removed).
        self._stale = self._stale_spare = False
        self._shape_table: ShapeTable | None = None
        # Views of the rows in use, for each of the two sets and the count they were cut at:
        # in steady state the count does not change, and neither do the views.
        self._views: dict[int, tuple[int, ContactColumns]] = {}

    @property
    def count(self) -> int:
        """Number of touching shape pairs."""
        if self._stale:
            self._drop_stale_rows()
        return self._count

    def __len__(self) -> int:
        return self.count

    @property
    def point_total(self) -> int:
        """Number of contact points over all pairs."""
        return int(self.arrays.point_counts.sum())

    @property
    def arrays(self) -> ContactColumns:
        """Writable views of every column, rows in use (what a solver stage receives)."""
        if self._arrays is None:
            if self._stale:
                self._drop_stale_rows()
            count, views = self._views.get(id(self._current), (-1, None))
            if count != self._count:
                views = ContactColumns(*(column[: self._count] for column in self._current))
                self._views[id(self._current)] = (self._count, views)
            self._arrays = views
        return self._arrays

    @property
    def rows_set(self) -> ContactColumns:
        """The set of columns that holds the rows in use (its length is the capacity): an
        update writes the new rows into the other set, and :meth:`revert` swaps back, so a
        world that sees another set here after a failed step reverts it."""
        return self._current

    def clear(self) -> None:
        """Forget every contact (and the impulses they carried)."""
        self._count, self._stale, self._arrays = 0, False, None

    def update(self, pairs, shapes, origins, angles, surfaces=None, margins=None, awake=None,
               rules: ContactRules | None = None, *, check: bool = True) -> None:
        """Replace the rows with this step's touching pairs, carrying matched impulses.

        Parameters
        ----------
        pairs
            (P, 2) candidate shape rows in canonical order (as a broad phase returns them).
        shapes
            The :class:`~physbook.geometry.shape_table.ShapeArrays` of the world.
        origins, angles
            Body poses (m, rad).
        surfaces
            (S, 6) each shape's surface row (:mod:`physbook.geometry.surface`): a row gets
            :func:`~physbook.dynamics.materials.mix_restitution` and
            :func:`~physbook.dynamics.materials.mix_friction` of its two shapes' values,
            and the tangent speed and one-way state of
            :func:`~physbook.dynamics.contact_surface.contact_surface`. None: every shape
            with the default material's friction and restitution.
        margins
            (S,) per shape (m): a pair apart by up to the sum of its shapes' margins gets a
            row too, with negative depths (a speculative contact). None: touching only.
        awake
            (N,) bool per body: a pair of bodies that are both not awake keeps its row
            from the last update unchanged (chapter 11's sleeping). None: all awake.
        rules
            The world's :class:`~physbook.dynamics.contact_surface.ContactRules`, or None.
        check
            Check the arguments first, so that the compiled narrow phase cannot read out of
            bounds. The world, which builds them itself each step, passes False.
        """
        if check:
            _check.instance(shapes, "shapes", ShapeArrays, "the ShapeArrays of a shape table")
        if margins is None:
            margins = np.zeros(len(shapes.ids))
        if surfaces is None:
            surfaces = np.tile(surface_row(0.6, 0.0), (len(shapes.ids), 1))
        if rules is None:
            rules = no_rules(np.ones(len(shapes.ids), np.int64))
        if awake is None:
            awake = np.ones(len(origins) if isinstance(origins, np.ndarray) else 0, np.bool_)
        if check:
            _check_update(pairs, shapes, origins, angles, surfaces, margins)
            _column(awake, "awake", (len(origins),), np.bool_)
        current, count, spare = self.sets(len(pairs))
        self.accept(update_contacts(pairs, shapes, surfaces, rules, origins, angles, margins,
                                    _NO_DRIFTS, _NO_BOXES, awake, current, count, spare,
                                    narrow_scratch(shapes, len(origins))))

    def sets(self, rows: int) -> tuple[ContactColumns, int, ContactColumns]:
        """For a compiled step that runs the narrow phase itself: the current columns, their
        row count, and the spare set (room for at least ``rows`` rows) to write the new rows
        into; :meth:`accept` then makes them current."""
        if len(self._spare.point_counts) < rows:
            self._views.pop(id(self._spare), None)
            self._spare = contact_columns(max(rows, 2 * len(self._spare.point_counts)))
        return self._current, self._count, self._spare

    def accept(self, count: int) -> None:
        """The first ``count`` rows of the spare set are this step's (see :meth:`sets`)."""
        # One statement, as in revert: an interrupt finds the table before or after it.
        (self._previous_count, self._count, self._current, self._spare, self._stale,
         self._stale_spare, self._arrays) = (self._count, count, self._spare, self._current,
                                             False, self._stale, None)

    def revert(self) -> None:
        """Go back to the rows before the last :meth:`update`, impulses included (the
        update wrote into the spare set, so the old rows are still there)."""
        (self._current, self._spare, self._stale, self._stale_spare, self._count,
         self._arrays) = (self._spare, self._current, self._stale_spare, self._stale,
                          self._previous_count, None)

    def drop_removed(self, shape_table: ShapeTable) -> None:
        """Shapes were removed from ``shape_table`` (the one the rows were made from):
        the rows of pairs with a removed shape go, and the others get their shapes' body
        rows now, when the rows are next read; an :meth:`update` that comes first reads
        none of them. Calling it again changes nothing more."""
        self._shape_table, self._stale, self._arrays = shape_table, True, None

    def partners_of(self, shape_ids: np.ndarray, shapes: ShapeArrays) -> np.ndarray:
        """The body rows, in ``shapes`` now, of every shape that shares a row with one of
        ``shape_ids``, stale rows read but not dropped (a removal asks this of each body
        removed; dropping the stale rows each time would copy every row each time)."""
        pairs = self._current.shape_ids[:self._count]
        hit = np.isin(pairs, shape_ids)
        partners = np.concatenate([pairs[hit[:, 0], 1], pairs[hit[:, 1], 0]])
        if not len(partners):
            return np.zeros(0, np.int64)
        at = np.minimum(np.searchsorted(shapes.ids, partners), len(shapes.ids) - 1)
        return shapes.body[at[shapes.ids[at] == partners]]  # those still in the table

    def _drop_stale_rows(self) -> None:
        """Carry out :meth:`drop_removed`: the live rows are copied into the spare set,
        which then becomes current (so that an interrupted copy changes nothing)."""
        shapes = self._shape_table.arrays
        current, count, spare = self.sets(self._count)
        kept = _live_rows_into(current, count, spare, shapes.ids, shapes.body)
        self._current, self._spare, self._count, self._stale, self._stale_spare, \
            self._arrays = spare, current, kept, False, False, None
