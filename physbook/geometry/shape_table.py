"""Many shapes packed into flat arrays (a structure of arrays), the form compiled loops read.

Row ``s`` of a :class:`ShapeTable` describes one shape: its kind (a code of
:mod:`physbook.kinds`), the row of the body that owns it, its radius, and ``vertex_count``
rows of the vertex pool starting at ``vertex_start``, in body coordinates. Every shape is a
core grown by its radius (chapter 15):

=============  ===========================  ===============================  ========
kind           vertex rows                  normal rows                      radius
=============  ===========================  ===============================  ========
circle         its centre                   unused (zero)                    r > 0
polygon        n ≥ 3 vertices, CCW          outward edge normals             r ≥ 0
capsule        center1, center2             n, −n (n right of 1 → 2)         r > 0
segment        point1, point2               n, −n                            0
chain segment  point1, point2, ghost1,      n1, −n1, n0 (ghost1 → point1),   0
               ghost2                       n2 (point2 → ghost2)
=============  ===========================  ===============================  ========

A chain segment's ghosts are its neighbours' far points, for its corner tests only:
:func:`core_count` gives the rows that are the shape's core.

Beside its geometry each shape has a filter (chapter 12) and a *surface* row
(:mod:`physbook.geometry.surface`, chapter 16): its friction, restitution, surface velocity
and one-way side, which its contacts mix with the other shape's.

Every shape also has an ``id`` that never changes and is never reused. Rows are compacted
when bodies are removed, so a row number is only good until the next removal; the id is what
persists, and contacts are keyed by it. Ids grow with the rows (a new shape gets the largest
id and the last row, and compaction keeps the order), so rows sorted by row are also sorted
by id: the contact table merges its rows with the broad phase's pairs by that order, and the
events key pairs by ids. That is why shape ids, unlike body ids, are not recycled: a
recycled id would break the order, and nothing is kept per shape id that could grow. The
pair keys hold the smaller id in 31 bits, so a world makes at most 2³¹ shapes in its life
(at a thousand a second, for 24 days).

A removal is all or nothing, as the body table's is: :meth:`ShapeTable.removal` works it out
without changing anything, and :meth:`ShapeTable.apply_removal` carries it out in one
compiled pass, each part of it once, so that a call interrupted midway is finished by
calling it again.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._buffers import CachesViews, carry_out, grown, without_rows
from physbook._jit import njit
from physbook.geometry.round_shapes import (
    Capsule,
    Chain,
    ChainSegment,
    Segment,
    Shape,
    right_normal,
)
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shapes import Circle, Polygon
from physbook.geometry.surface import SURFACE_WIDTH, surface_row
from physbook.kinds import CAPSULE, CHAIN_SEGMENT, CIRCLE, POLYGON, SEGMENT
from physbook.vecmath.kernels import rotate

#: Shapes a world can make in its life: a pair key (physbook.events.pair_keys) holds the
#: smaller id in the 31 bits above the larger one's 32.
MAX_SHAPE_IDS = 2**31


class ShapeArrays(NamedTuple):
    """The columns of a :class:`ShapeTable`, rows in use only (read-only views).

    ``ids`` (S,) stable shape ids; ``kind`` (S,) shape kind codes; ``body`` (S,) owning body
    rows; ``radius`` (S,) m; ``vertex_start``, ``vertex_count`` (S,) where each shape's
    vertices lie in ``vertices`` and ``normals`` (V, 2), body coordinates.
    """

    ids: np.ndarray
    kind: np.ndarray
    body: np.ndarray
    radius: np.ndarray
    vertex_start: np.ndarray
    vertex_count: np.ndarray
    vertices: np.ndarray
    normals: np.ndarray


class ShapeFilterArrays(NamedTuple):
    """Each shape's collision filter (:class:`~physbook.geometry.shape_filter.Filter`) and
    role, rows in use (read-only views): ``category``, ``mask``, ``group`` (S,) int64;
    ``sensor`` (S,) bool, true for a shape that reports overlaps and never collides."""

    category: np.ndarray
    mask: np.ndarray
    group: np.ndarray
    sensor: np.ndarray


#: Bytes a row of capacity allocates: nine 8-byte columns, a flag, a surface row, and room
#: for four vertices and four normals of two floats each.
_BYTES_PER_ROW = 9 * 8 + 1 + SURFACE_WIDTH * 8 + 2 * 4 * 2 * 8


class ShapeRemoval(NamedTuple):
    """A removal worked out by :meth:`ShapeTable.removal`: the body rows removed
    (``bodies``, sorted), the shape ``rows`` dropped (sorted), the shape ``count`` before it,
    the shapes ``kept``, ``vertices`` in use and ``sensors`` after it, the list of shape
    objects after it (``(start, stop)`` when the rows dropped are one run, cut out in place,
    else the new list), and ``done``, (1,) bool, set by the compiled pass."""

    bodies: np.ndarray
    rows: np.ndarray
    count: int
    kept: int
    vertices: int
    sensors: int
    shapes: tuple | list
    done: np.ndarray


@njit(refcounted=False)
def _remove_shape_rows(integers, radius, sensor, surface, vertices, normals, removed, count,
                       done):
    """Drop the shapes of the body rows ``removed`` (sorted) from the first ``count`` rows,
    in one call. The shapes behind move up in order, their vertices close up in the pool,
    and each body row is renumbered: a body behind j removed ones moves up j rows.
    ``integers`` are the columns ids, kind, body, vertex_start, vertex_count, category,
    mask and group. ``done[0]`` is set last: the pass ran, all of it."""
    ids, kind, body, vertex_start, vertex_count, category, mask, group = integers
    kept = 0
    free = 0  # the next row of the vertex pool to fill
    behind = 0  # removed bodies ahead of the owner
    for s in range(count):
        owner = body[s]
        start = vertex_start[s]
        size = vertex_count[s]
        if owner < removed[0] and kept == s:  # nothing dropped yet: the shape stays
            kept += 1
            free = start + size
            continue
        # A world's shapes lie in the order of their bodies, so the count of removed
        # bodies ahead only grows; a table in another order is searched afresh.
        if behind > 0 and removed[behind - 1] >= owner:
            behind = np.searchsorted(removed, owner)
        while behind < removed.shape[0] and removed[behind] < owner:
            behind += 1
        if behind < removed.shape[0] and removed[behind] == owner:
            continue
        ids[kept] = ids[s]
        kind[kept] = kind[s]
        category[kept] = category[s]
        mask[kept] = mask[s]
        group[kept] = group[s]
        radius[kept] = radius[s]
        sensor[kept] = sensor[s]
        for column in range(SURFACE_WIDTH):
            surface[kept, column] = surface[s, column]
        vertex_count[kept] = size
        # Vertex runs lie in row order, so a run never moves down past one still unread.
        for k in range(size):
            vertices[free + k, 0] = vertices[start + k, 0]
            vertices[free + k, 1] = vertices[start + k, 1]
            normals[free + k, 0] = normals[start + k, 0]
            normals[free + k, 1] = normals[start + k, 1]
        vertex_start[kept] = free
        body[kept] = owner - behind
        free += size
        kept += 1
    done[0] = True


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class ShapeTable(CachesViews):
    """Shapes in flat arrays, one row each (see the module docstring).

    Parameters
    ----------
    capacity
        Shape rows to allocate at first; the arrays double whenever they fill up.
    """

    _CACHED_VIEWS = {"_arrays": None, "_filters": None, "_surfaces": None}

    def __init__(self, capacity: int = 16):
        capacity = _check.positive_int(capacity, "capacity", _check.MAX_CAPACITY)
        self._count = 0
        self._vertex_total = 0
        self._next_id = 0
        self._shapes: list[Shape] = []
        try:
            (self._ids, self._kind, self._body, self._vertex_start, self._vertex_count,
             self._category, self._mask, self._group) = (
                np.zeros(capacity, np.int64) for _ in range(8))
            self._sensor = np.zeros(capacity, np.bool_)
            self._radius = np.zeros(capacity)
            self._surface = np.zeros((capacity, SURFACE_WIDTH))
            self._vertices = np.zeros((4 * capacity, 2))
            self._normals = np.zeros((4 * capacity, 2))
        except MemoryError:
            raise ValueError(f"capacity {capacity} needs {_BYTES_PER_ROW * capacity / 2**30:.3g} "
                             "GiB, more memory than is available") from None
        self._arrays: ShapeArrays | None = None
        self._filters: ShapeFilterArrays | None = None
        self._surfaces: np.ndarray | None = None
        self._sensor_count = 0

    @property
    def count(self) -> int:
        """Number of shapes (rows in use)."""
        return self._count

    def __len__(self) -> int:
        return self._count

    @property
    def vertex_total(self) -> int:
        """Rows of the vertex pool in use."""
        return self._vertex_total

    @property
    def arrays(self) -> ShapeArrays:
        """The columns of the rows in use, as read-only views (rebuilt only after a change)."""
        if self._arrays is None:
            n, v = self._count, self._vertex_total
            self._arrays = ShapeArrays(*(_read_only(column) for column in (
                self._ids[:n], self._kind[:n], self._body[:n], self._radius[:n],
                self._vertex_start[:n], self._vertex_count[:n], self._vertices[:v],
                self._normals[:v])))
        return self._arrays

    @property
    def filters(self) -> ShapeFilterArrays:
        """Each shape's filter and sensor flag, rows in use (read-only views)."""
        if self._filters is None:
            n = self._count
            self._filters = ShapeFilterArrays(*(_read_only(column[:n]) for column in (
                self._category, self._mask, self._group, self._sensor)))
        return self._filters

    @property
    def surfaces(self) -> np.ndarray:
        """Each shape's surface row (S, :data:`~physbook.geometry.surface.SURFACE_WIDTH`):
        friction, restitution, surface velocity and one-way side (a read-only view; change
        them with :meth:`set_surface`)."""
        if self._surfaces is None:
            self._surfaces = _read_only(self._surface[:self._count])
        return self._surfaces

    def set_surface(self, row: int, column: int, values) -> None:
        """Write ``values`` (checked by the caller) into the surface row of the shape at
        ``row``, from ``column`` on: the next step's contacts use them."""
        row = self._row(row)
        values = np.atleast_1d(np.asarray(values, np.float64))
        self._surface[row, column:column + len(values)] = values

    @property
    def sensor_count(self) -> int:
        """Number of sensor shapes."""
        return self._sensor_count

    def filter(self, row: int) -> Filter:
        """The :class:`~physbook.geometry.shape_filter.Filter` of the shape at ``row``."""
        row = self._row(row)
        return Filter(int(self._category[row]), int(self._mask[row]), int(self._group[row]))

    def set_filter(self, row: int, shape_filter: Filter) -> None:
        """Give the shape at ``row`` the filter ``shape_filter``."""
        row = self._row(row)
        _check.instance(shape_filter, "filter", Filter, "a Filter")
        self._category[row] = shape_filter.category
        self._mask[row] = shape_filter.mask
        self._group[row] = shape_filter.group

    def _row(self, row: int) -> int:
        row = _check.integer(row, "row", 0)
        if row >= self._count:
            raise IndexError(f"row must be below the shape count {self._count}, got {row}")
        return row

    def shape(self, row: int) -> Shape:
        """The shape object stored at ``row``."""
        return self._shapes[self._row(row)]

    def append(self, shape: Shape, body: int, shape_filter: Filter | None = None,
               sensor: bool = False, surface=None) -> int:
        """Add ``shape`` owned by body row ``body``; return the new shape's row.

        The shape gets the next id (one more than any before it), the filter
        ``shape_filter`` (``Filter()`` by default), is a sensor if ``sensor``, and has the
        ``surface`` row (:func:`~physbook.geometry.surface.surface_row`; by default
        friction 0.6, no bounce, no surface velocity, no one-way side).
        """
        shape_filter = Filter() if shape_filter is None else _check.instance(
            shape_filter, "filter", Filter, "a Filter")
        sensor = _check.flag(sensor, "sensor")
        surface = surface_row(0.6, 0.0) if surface is None else np.asarray(surface, np.float64)
        if surface.shape != (SURFACE_WIDTH,):
            raise ValueError(f"surface must be a row of {SURFACE_WIDTH} values, got shape "
                             f"{surface.shape}")
        kind, radius, vertices, normals = _shape_rows(shape)
        body = _check.non_negative_int(body, "body")
        if self._next_id >= MAX_SHAPE_IDS:
            raise OverflowError(f"this world has made {MAX_SHAPE_IDS} shapes, as many as the "
                                "pair keys of contacts and events can tell apart; make a "
                                "new world")
        row, start, end = self._count, self._vertex_total, self._vertex_total + len(vertices)
        for name in ("_ids", "_kind", "_body", "_radius", "_vertex_start", "_vertex_count",
                     "_category", "_mask", "_group", "_sensor", "_surface"):
            setattr(self, name, grown(getattr(self, name), row + 1))
        self._vertices = grown(self._vertices, end)
        self._normals = grown(self._normals, end)
        # The new row lies beyond the count, unseen until the last line takes it in.
        self._ids[row], self._kind[row], self._body[row] = self._next_id, kind, body
        self._radius[row] = radius
        self._vertex_start[row], self._vertex_count[row] = start, end - start
        self._category[row] = shape_filter.category
        self._mask[row] = shape_filter.mask
        self._group[row] = shape_filter.group
        self._sensor[row] = sensor
        self._surface[row] = surface
        self._vertices[start:end] = vertices
        self._normals[start:end] = normals
        mark = self.mark()
        try:
            self._shapes.append(shape)
            self._next_id, self._count, self._vertex_total, self._sensor_count, \
                self._arrays, self._filters, self._surfaces = (
                    self._next_id + 1, row + 1, end, self._sensor_count + sensor, None, None,
                    None)
        except BaseException:
            self.truncate(mark)
            raise
        return row

    def mark(self) -> tuple[int, int, int, int]:
        """What :meth:`truncate` goes back to: (count, vertices in use, next id, sensors)."""
        return self._count, self._vertex_total, self._next_id, self._sensor_count

    def truncate(self, mark: tuple[int, int, int, int]) -> None:
        """Forget the shapes appended since :meth:`mark` gave ``mark``, whether their
        :meth:`append` finished or not."""
        del self._shapes[mark[0]:]
        self._count, self._vertex_total, self._next_id, self._sensor_count, self._arrays, \
            self._filters, self._surfaces = (*mark, None, None, None)

    def remove_body(self, body: int) -> None:
        """Drop the shapes of body row ``body``; bodies behind it move up one row.

        The rows and vertices of the other shapes close the gaps in order, and each keeps
        its id. The work is one compiled pass, not a loop in Python.
        """
        self.remove_bodies([_check.non_negative_int(body, "body")])

    def remove_bodies(self, bodies) -> None:
        """Drop the shapes of the body rows ``bodies`` (any order) at once; a body behind
        j of them moves up j rows (see :meth:`remove_body`)."""
        carry_out(self.apply_removal, self.removal(bodies))

    def removal(self, bodies) -> ShapeRemoval:
        """Work out the removal of the shapes of the body rows ``bodies`` for
        :meth:`apply_removal`; nothing changes yet."""
        array = np.asarray(bodies)
        if array.ndim != 1 or not len(array) or array.dtype.kind not in "iu" or (
                array.min() < 0):
            raise ValueError(f"bodies must be body rows (non-negative integers), at least "
                             f"one, got {bodies!r}")
        bodies = np.unique(array.astype(np.int64))
        count = self._count
        rows = np.flatnonzero(np.isin(self._body[:count], bodies))
        if not len(rows) or rows[-1] - rows[0] + 1 == len(rows):
            shapes = (int(rows[0]), int(rows[-1]) + 1) if len(rows) else (0, 0)
        else:
            shapes = without_rows(self._shapes, rows)
        return ShapeRemoval(
            bodies, rows, count, count - len(rows),
            self._vertex_total - int(self._vertex_count[rows].sum()),
            self._sensor_count - int(np.count_nonzero(self._sensor[rows])), shapes,
            np.zeros(1, np.bool_))

    def apply_removal(self, removal: ShapeRemoval) -> None:
        """Carry out ``removal`` (from :meth:`removal`). Each part is done once, so a call
        interrupted midway is finished by calling again."""
        if not removal.done[0]:
            _remove_shape_rows((self._ids, self._kind, self._body, self._vertex_start,
                                self._vertex_count, self._category, self._mask, self._group),
                               self._radius, self._sensor, self._surface, self._vertices,
                               self._normals,
                               removal.bodies, removal.count, removal.done)
        if isinstance(removal.shapes, list):
            self._shapes = removal.shapes
        elif len(self._shapes) == removal.count:
            del self._shapes[removal.shapes[0]:removal.shapes[1]]
        self._count, self._vertex_total, self._sensor_count, self._arrays, self._filters, \
            self._surfaces = (removal.kept, removal.vertices, removal.sensors, None, None,
                              None)

    def aabbs(self, origins, angles) -> tuple[np.ndarray, np.ndarray]:
        """World AABBs of every shape (m), for bodies at ``origins`` (N, 2) and ``angles`` (N,).

        Returns the (S, 2) lower-left and upper-right corners, one row per shape.
        """
        origins, angles = body_poses(origins, angles, self)
        lower = np.empty((self._count, 2))
        upper = np.empty((self._count, 2))
        shape_aabbs(self.arrays, origins, angles, np.zeros(self._count), lower, upper)
        if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
            raise FloatingPointError(
                "the world AABBs overflow the largest float: origins put shapes beyond float "
                "range")
        return lower, upper


def body_poses(origins, angles, shapes: ShapeTable) -> tuple[np.ndarray, np.ndarray]:
    """Check body ``origins`` (N, 2) and ``angles`` (N,) for the bodies of ``shapes``."""
    _check.instance(shapes, "shapes", ShapeTable, "a ShapeTable")
    origins = _check.finite_array(origins, "origins")
    angles = _check.finite_array(angles, "angles")
    if origins.ndim != 2 or origins.shape[1] != 2:
        raise ValueError(f"origins must have shape (N, 2), got {origins.shape}")
    if shapes.count and shapes.arrays.body.max() >= len(origins):
        raise ValueError("origins must have a row for every body that owns a shape")
    if angles.shape != (len(origins),):
        raise ValueError(f"angles must have shape ({len(origins)},), one per row of origins, "
                         f"got {angles.shape}")
    return origins, angles


@njit(refcounted=False)
def _check_rows(body, vertex_start, vertex_count, vertices, origins, angles, margins, lower,
                upper):
    """Refuse rows that would read or write outside the arrays: compiled code does not
    check indices, and would otherwise touch memory that is not theirs."""
    count = body.shape[0]
    if (min(lower.shape[0], upper.shape[0], margins.shape[0]) < count
            or min(lower.shape[1], upper.shape[1], origins.shape[1], vertices.shape[1]) < 2):
        raise ValueError("lower and upper must have shape (S, 2) and margins (S,), one row "
                         "per shape; origins and vertices two columns")
    for s in range(count):
        if not (0 <= body[s] < min(origins.shape[0], angles.shape[0])
                and 0 <= vertex_start[s] <= vertex_start[s] + vertex_count[s]
                <= vertices.shape[0]):
            raise ValueError("shapes must refer to rows of origins, angles and vertices")


def _shape_rows(shape: Shape) -> tuple[int, float, np.ndarray, np.ndarray]:
    """A shape's kind code, radius, vertex rows and normal rows, as the table stores them.

    A circle: its centre (normal unused). A polygon: its vertices and edge normals, and its
    radius (0 unless rounded). A capsule or a segment: its two points with normals n and −n,
    n on the right of point 1 → point 2, so that compiled code may read it as a polygon of
    two edges. A chain segment: point1, point2, then its ghosts, with normals n1, −n1 and the
    ghost edges' n0 (ghost1 → point1) and n2 (point2 → ghost2).
    """
    if isinstance(shape, Circle):
        return CIRCLE, shape.radius, shape.center[None, :], np.zeros((1, 2))
    if isinstance(shape, Polygon):
        return POLYGON, shape.radius, shape.vertices, shape.normals
    if isinstance(shape, Capsule | Segment):
        points, radius = shape.core()
        normal = right_normal(points[0], points[1])
        return (CAPSULE if isinstance(shape, Capsule) else SEGMENT), radius, points, \
            np.array([normal, -normal]) + 0.0  # + 0.0: no −0.0 in the table
    if isinstance(shape, ChainSegment):
        points = np.array([shape.point1, shape.point2, shape.ghost1, shape.ghost2])
        front = right_normal(shape.point1, shape.point2)
        normals = np.array([front, -front, right_normal(shape.ghost1, shape.point1),
                            right_normal(shape.point2, shape.ghost2)]) + 0.0
        return CHAIN_SEGMENT, 0.0, points, normals
    if isinstance(shape, Chain):
        raise TypeError("shape must be a single shape: append each of a Chain's .segments, "
                        "or give the Chain to World.add_body, which does so")
    raise TypeError("shape must be a Circle, Polygon, Capsule, Segment or ChainSegment, got "
                    f"{type(shape).__name__}")


@njit(refcounted=False)
def vertex_extent(vertices, start, count, cosine, sine, origin_x, origin_y):
    """The world box (low_x, low_y, high_x, high_y) of ``count`` vertices from ``start``,
    in body coordinates, of a body at (origin_x, origin_y) turned by (cos θ, sin θ)."""
    low_x = np.inf
    low_y = np.inf
    high_x = -np.inf
    high_y = -np.inf
    for k in range(start, start + count):
        x, y = rotate(cosine, sine, vertices[k, 0], vertices[k, 1])
        x += origin_x
        y += origin_y
        low_x = min(low_x, x)
        low_y = min(low_y, y)
        high_x = max(high_x, x)
        high_y = max(high_y, y)
    return low_x, low_y, high_x, high_y


@njit(refcounted=False, inline=True)
def centred_circle(kind, vertex_count, vertices, start, s):
    """Whether shape row ``s`` is a circle on its body's origin (most circles are): its
    place does not depend on the body's angle, R(θ)·0 = 0."""
    return (kind[s] == CIRCLE and vertex_count[s] == 1 and vertices[start, 0] == 0.0
            and vertices[start, 1] == 0.0)


@njit(refcounted=False)
def core_count(kind_s, vertex_count_s):
    """How many of a shape's vertex rows are its core, the points its radius grows: all
    of them, except a chain segment's, whose rows ``[point1, point2, ghost1, ghost2]`` end
    with its neighbours' far points (kept for its corner tests, never part of its body)."""
    return 2 if kind_s == CHAIN_SEGMENT else vertex_count_s


@njit(refcounted=False)
def reach(vertices, radius, local_center):
    """The farthest any point of a shape lies from its body's centre of mass (m): its
    ``vertices`` (a circle: its centre) in body coordinates, grown by ``radius``. No turn of
    the body moves a point of the shape faster than |ω|·reach."""
    farthest = 0.0
    for k in range(vertices.shape[0]):
        dx = vertices[k, 0] - local_center[0]
        dy = vertices[k, 1] - local_center[1]
        farthest = max(farthest, math.sqrt(dx * dx + dy * dy))
    return farthest + radius


@njit(refcounted=False)
def shape_aabbs(shapes, origins, angles, margins, lower, upper):
    """Fill ``lower``/``upper`` (S, 2) with the world AABB of every shape (m), each grown by
    its ``margins[s]`` on every side.

    A vertex v in body coordinates is at origin + R(θ)·v in the world; a shape's box spans
    its transformed core points grown by its radius (a circle: its centre ± r; a chain
    segment: its two points, not its ghosts). Two shapes closer than the
    sum of their margins have overlapping boxes.
    """
    # Columns are taken out of the tuple once: reading a field of a tuple of arrays inside
    # a loop costs a reference count increment and decrement each time.
    _, kind, body, radius, vertex_start, vertex_count, vertices, _ = shapes
    count = kind.shape[0]
    _check_rows(body, vertex_start, vertex_count, vertices, origins, angles, margins, lower,
                upper)
    for s in range(count):
        b = body[s]
        start = vertex_start[s]
        if centred_circle(kind, vertex_count, vertices, start, s):
            # A circle on its body's origin is not turned, and its cosine and sine, the
            # dearest part of a box, are not taken. Zero times the
            # angle stands in for both: a NaN or infinite angle still spoils the box.
            unturned = 0.0 * angles[b]
            low_x, low_y, high_x, high_y = vertex_extent(
                vertices, start, 1, unturned, unturned, origins[b, 0], origins[b, 1])
        else:
            low_x, low_y, high_x, high_y = vertex_extent(
                vertices, start, core_count(kind[s], vertex_count[s]), np.cos(angles[b]),
                np.sin(angles[b]), origins[b, 0], origins[b, 1])
        r = radius[s] + margins[s]  # 0 for sharp polygons, segments and chain segments
        lower[s, 0] = low_x - r
        lower[s, 1] = low_y - r
        upper[s, 0] = high_x + r
        upper[s, 1] = high_y + r
