"""Chapter 16: sweeping a shape through the world — shape casts and overlaps.

A *shape cast* is a ray cast with a body: a shape placed at ``position`` and ``angle`` moves
by ``translation`` without turning, and the question is the first fraction t ∈ [0, 1] of
that motion at which it touches a shape of the world. It is the time of impact of chapter 13
against every shape the motion may reach:

1. the tree gives the shapes whose boxes meet the *swept box*, the moving shape's box at
   the start and at the end joined (a pure translation never leaves it);
2. against each, conservative advancement (:func:`~physbook.collision.toi.advance`) finds
   the first t at which their distance d(t) falls to within ``tolerance`` of 0 (with a
   search of its own when it creeps along a grazing approach,
   :func:`~physbook.collision.cast.first_touch`). The world's
   shape stands still and the moving one does not turn, so the bound on the speed of
   approach is |translation| itself; the search for the first hit stops each shape's
   advancement at the best fraction found so far.

The distance of two convex shapes under a translation is convex in t, so the first touch is
the only time d(t) comes down to 0 from above. The hit found is never late, and the
distance there is at most 2·``tolerance`` (the advancement stops within ``tolerance``; its
fallback for a grazing approach bisects to a bracket ``tolerance`` wide and keeps the safe
end), so it is at most 2·``tolerance`` / |translation| early in fraction. At the hit the closest
features of the two cores (:func:`~physbook.collision.core_distance.core_closest`) give the
normal: the face normal of the world shape's edge (a vertex of the moving shape meets it),
minus the moving shape's own face normal (an edge of the moving shape meets a vertex), or
the direction between two vertices. The point is the world shape's surface point there.

A shape that is already within ``tolerance`` of the moving one at the start is hit at
fraction 0. If they overlap, the normal is the one that pushes the moving shape out
(the contact manifold's, :func:`~physbook.collision.manifold.collide`), as Box2D's cast
does; a character mover that wants to move out of what it overlaps skips those shapes
(:mod:`physbook.character`).

A chain segment is one-sided, as for rays and contacts: a moving shape whose middle (the
mean of its core points) starts behind it (on the left looking from point1 to point2)
passes through it. A one-way shape (its surface's ``one_way`` side d) is hit only as its
contacts act (:mod:`physbook.dynamics.contact_surface`): when the normal of the touch
leans within 60° of d; one the cast shape already overlaps is passed through.
Sensors are never hit, and a ``filter`` keeps only the shapes it would collide with.

*Overlap* asks which shapes the shape, placed once, overlaps or touches: the tree's shapes
under its box, kept when the distance of the two (``convex_distance``, exact for convex
shapes) is 0. Segments and chain segments overlap what they touch, from either side.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.collision.cast import cast_rows, contact_at, overlapping
from physbook.collision.manifold import collide
from physbook.collision.toi import OVERLAPPED_CODE, core, work_arrays
from physbook.constants import TOI_TOLERANCE_FRACTION
from physbook.dynamics.contact_surface import ONE_WAY_COSINE
from physbook.geometry.round_shapes import Capsule, Chain, ChainSegment, Segment
from physbook.geometry.shapes import Circle, Polygon
from physbook.geometry.surface import ONE_WAY_X
from physbook.queries import RayHit, allowed, query_filter
from physbook.vecmath.vec import Transform

#: The shapes that may be cast or tested for overlap.
CASTABLE = (Circle, Polygon, Capsule, Segment, ChainSegment)


#: Where a cast shape first touches a shape of the world: a ray's hit, the same fields
#: (:class:`~physbook.queries.RayHit`): that shape (``body``, ``shape``, ``shape_id``), the
#: world ``point`` (m) on its surface, its unit outward ``normal`` there (towards the cast
#: shape), and the ``fraction`` of the translation travelled (0 to 1).
CastHit = RayHit


class MovingShape(NamedTuple):
    """A shape as the cast kernels take it: its core ``points`` and edge ``normals`` in
    the world at the start (rotated and placed), its ``radius``, and the ``tolerance`` (m)
    of its time of impact."""

    points: np.ndarray
    normals: np.ndarray
    radius: float
    tolerance: float


def checked_shape(shape, name: str = "shape"):
    """A single castable shape, or TypeError (a Chain is told to give one segment)."""
    if isinstance(shape, Chain):
        raise TypeError(f"{name} must be a single shape, got a Chain: give one of its "
                        ".segments")
    return _check.instance(shape, name, CASTABLE,
                           "a Circle, Polygon, Capsule, Segment or ChainSegment")


def moving_shape(shape, position, angle: float) -> MovingShape:
    """The shape's core placed at ``position`` (m) turned by ``angle`` (rad), and the
    tolerance of its casts: :data:`~physbook.constants.TOI_TOLERANCE_FRACTION` of its size
    (the farthest point of the shape from the middle of its core), at least that of 1 m."""
    points, normals, radius = core(shape)
    cosine, sine = math.cos(angle), math.sin(angle)
    turn = np.array([[cosine, -sine], [sine, cosine]])
    placed = points @ turn.T + position
    turned = normals @ turn.T + 0.0
    middle = points.mean(axis=0)
    size = float(np.max(np.hypot(*(points - middle).T))) + radius
    return MovingShape(placed, turned, radius, TOI_TOLERANCE_FRACTION * max(size, 1.0))


# --- through a world's query index -----------------------------------------------------


def _swept_box(moving: MovingShape, translation) -> tuple[np.ndarray, np.ndarray]:
    """The box of the placed shape at the start and at the end of the translation,
    joined: its core points' extent grown by its radius."""
    lower = moving.points.min(axis=0) - moving.radius
    upper = moving.points.max(axis=0) + moving.radius
    return np.minimum(lower, lower + translation), np.maximum(upper, upper + translation)


def _checked_pose(shape, position, angle, name_shape: str = "shape"):
    shape = checked_shape(shape, name_shape)
    position = _check.vector(position, "position")
    angle = _check.finite_scalar(angle, "angle")
    return shape, position, angle


def candidate_rows(queries, lower, upper, shape_filter, skip_body: int = -1) -> tuple:
    """(rows of the shapes whose boxes meet the box ``lower``–``upper`` that a query with
    ``shape_filter`` may report (never sensors) and that are not of body row
    ``skip_body``, the query tree's origins)."""
    tree, origins = queries.refreshed()
    shapes = queries._shapes
    rows = allowed(shapes, tree.query(lower, upper), shape_filter)
    if skip_body >= 0:
        rows = rows[shapes.arrays.body[rows] != skip_body]
    return rows, origins


def cast_hits(queries, shape, position, angle: float, translation, shape_filter,
              first_only: bool, skip_body: int = -1, skip_rows=None) -> list[CastHit]:
    """The hits of a checked cast through a :class:`~physbook.queries.QueryIndex`,
    nearest first (only the nearest with ``first_only``); ``skip_body`` (a body row) and
    ``skip_rows`` (shape rows) are left out."""
    bodies, shapes = queries._bodies, queries._shapes
    length = float(np.hypot(*translation))
    if length <= 0.0:
        raise ValueError("translation must not be zero: a cast needs a direction and a "
                         "length (use overlap_shape for a shape standing still)")
    if not np.isfinite(length) or not np.all(np.isfinite(position + translation)):
        raise ValueError(f"translation is too long for a float: {translation}")
    moving = moving_shape(shape, position, angle)
    lower, upper = _swept_box(moving, translation)
    rows, origins = candidate_rows(queries, lower, upper, shape_filter, skip_body)
    if skip_rows is not None and len(rows):
        rows = rows[~np.isin(rows, skip_rows)]
    if not len(rows):
        return []
    arrays = shapes.arrays
    work = work_arrays(max(int(arrays.vertex_count[rows].max()), len(moving.points)))
    angles = bodies.arrays.angles
    sides = one_way_sides(shapes, angles, rows)
    hits = []
    while len(rows):
        fractions, states = cast_rows(arrays, origins, angles, rows, moving.points,
                                      moving.normals, moving.radius, float(translation[0]),
                                      float(translation[1]), moving.tolerance, first_only,
                                      work)
        hit = fractions >= 0.0
        found = [(float(fractions[k]), int(rows[k]), k) for k in np.flatnonzero(hit)]
        passed = []
        for fraction, row, k in sorted(found):
            side = sides[k]
            overlapped = states[k] == OVERLAPPED_CODE
            if side.any() and overlapped:
                passed.append(k)  # inside a one-way shape already: passing through it
                continue
            result = _hit(queries, origins, shape, position, angle, translation, moving, row,
                          fraction)
            if side.any() and result.normal @ side < ONE_WAY_COSINE:
                passed.append(k)  # met from a side it lets through
                continue
            hits.append(result)
            if first_only:
                return hits
        if not first_only or not passed:
            return hits
        # The first hits were one-way shapes passed through: look again without them.
        keep = np.ones(len(rows), bool)
        keep[passed] = False
        rows, sides = rows[keep], sides[keep]
    return hits


def one_way_sides(shapes, angles, rows) -> np.ndarray:
    """The one-way side of each shape of ``rows`` in the world (unit, or 0 for none): its
    surface's side in body coordinates turned by the body's angle."""
    local = shapes.surfaces[rows, ONE_WAY_X:ONE_WAY_X + 2]
    turn = angles[shapes.arrays.body[rows]]
    cosine, sine = np.cos(turn), np.sin(turn)
    return np.column_stack([cosine * local[:, 0] - sine * local[:, 1],
                            sine * local[:, 0] + cosine * local[:, 1]])


def _hit(queries, origins, shape, position, angle, translation, moving: MovingShape,
         row: int, fraction: float) -> CastHit:
    """The :class:`CastHit` of shape ``row`` at ``fraction``: normal and point from the
    closest features, or from the contact manifold when the shapes overlap there."""
    bodies, shapes = queries._bodies, queries._shapes
    offset = fraction * translation
    nx, ny, px, py, _, _, found = contact_at(shapes.arrays, origins, bodies.arrays.angles,
                                             row, moving.points, moving.normals,
                                             moving.radius, float(offset[0]),
                                             float(offset[1]))
    if found:
        normal, point = np.array([nx, ny]), np.array([px, py])
    else:
        # The cores overlap: the manifold's normal (from the cast shape to the world's)
        # reversed pushes the cast shape out; its deepest point is the point.
        body = int(shapes.arrays.body[row])
        other = shapes.shape(row)
        manifold = collide(shape, Transform(position + offset, angle), other,
                           Transform(origins[body].copy(), float(bodies.arrays.angles[body])))
        if manifold is None:  # touching within rounding: face the way it came from
            normal = -translation / np.hypot(*translation)
            point = position + offset
        else:
            normal = -manifold.normal
            point = manifold.points[int(np.argmax(manifold.depths))]
    ref = queries._shape_ref(row)
    return CastHit(ref.body, ref.shape, ref.shape_id, point, normal + 0.0, fraction)


def overlap_rows(queries, shape, position, angle: float, shape_filter,
                 skip_body: int = -1) -> np.ndarray:
    """Rows (sorted) of the shapes a checked shape, placed at ``position`` and ``angle``,
    overlaps or touches; body row ``skip_body`` is left out."""
    bodies, shapes = queries._bodies, queries._shapes
    placed = moving_shape(shape, position, angle)
    rows, origins = candidate_rows(queries, placed.points.min(axis=0) - placed.radius,
                                   placed.points.max(axis=0) + placed.radius, shape_filter,
                                   skip_body)
    if not len(rows):
        return rows
    rows = np.sort(rows)
    keep = overlapping(shapes.arrays, origins, bodies.arrays.angles, rows, placed.points,
                       placed.normals, placed.radius)
    return rows[keep]


# --- the public functions --------------------------------------------------------------


def _queries(world):
    # The world's QueryIndex: the tree its other queries walk, kept up to date.
    return world._queries


def cast_shape(world, shape, position, angle: float, translation,
               filter=None) -> CastHit | None:  # noqa: A002 (the queries' name for it)
    """The first shape of ``world`` that ``shape`` touches when moved by ``translation``.

    Parameters
    ----------
    world
        The :class:`~physbook.world.World` to cast through.
    shape
        A Circle, Polygon (sharp or rounded), Capsule, Segment or ChainSegment, in its own
        body coordinates.
    position, angle
        The pose of those body coordinates at the start (m, rad); the shape does not turn.
    translation
        Its motion (m), not zero.
    filter
        Only shapes this :class:`~physbook.geometry.shape_filter.Filter` would collide with
        are hit (None: all). Sensors never are.

    Returns
    -------
    CastHit or None
        The shape hit first, the point and normal of the touch and the fraction of the
        translation travelled: never late, and the shapes are then at most 2·tol apart,
        tol = ``TOI_TOLERANCE_FRACTION`` × max(the shape's size, 1 m). A shape touched or
        overlapped at the start is hit at fraction 0 (see the module docstring). None if
        nothing is in the way.
    """
    shape, position, angle = _checked_pose(shape, position, angle)
    translation = _check.vector(translation, "translation")
    hits = cast_hits(_queries(world), shape, position, angle, translation,
                     query_filter(filter), first_only=True)
    return hits[0] if hits else None


def cast_shape_all(world, shape, position, angle: float, translation,
                   filter=None) -> list[CastHit]:  # noqa: A002
    """Every shape of ``world`` that ``shape`` touches along ``translation``, nearest
    first, each at its own first touch (see :func:`cast_shape`)."""
    shape, position, angle = _checked_pose(shape, position, angle)
    translation = _check.vector(translation, "translation")
    return cast_hits(_queries(world), shape, position, angle, translation,
                     query_filter(filter), first_only=False)


def overlap_shape(world, shape, position, angle: float = 0.0,
                  filter=None) -> list:  # noqa: A002
    """The shapes of ``world`` that ``shape``, placed at ``position`` and ``angle`` (m,
    rad), overlaps or touches, as :class:`~physbook.queries.ShapeRef` s ordered by shape
    id. ``filter``: only shapes it would collide with; sensors never."""
    shape, position, angle = _checked_pose(shape, position, angle)
    queries = _queries(world)
    rows = overlap_rows(queries, shape, position, angle, query_filter(filter))
    return [queries._shape_ref(int(row)) for row in rows]
