"""Chapter 7: the separating axis theorem for convex polygons, and contact points by clipping.

Two convex polygons are apart exactly when some line separates them, and it is enough to try
the lines parallel to their edges: the axes to test are the polygons' edge normals. Along
the axis of least penetration the polygon that owns it gives the *reference face*; the
other polygon's edge most opposed to it is the *incident face*. Clipping the incident face
to the strip beside the reference face (its two *side planes*) gives up to two contact
points.

The compiled pieces (:func:`max_separation`, :func:`incident_edge`,
:func:`clip_incident_edge`, :func:`polygon_contact`) work on plain (n, 2) arrays of
vertices and unit normals that are already in one common frame; the narrow phase in
:mod:`physbook.collision.manifold` puts both polygons in the frame of its first shape and
calls them. Like every compiled kernel of the engine they check nothing, for speed: their
arrays must have the lengths they expect. :func:`~physbook.collision.manifold.collide` is
the checked way in.
:func:`sat_axes` and :func:`sat_query` are the same theorem written for the book: every axis
with both projection intervals, so a chapter can draw them.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.collision.features import make_feature_unchecked
from physbook.collision.round_manifold import rounded_vertex_contact, write_round_point
from physbook.constants import FACE_SWITCH_TOLERANCE, ROUND_CORE_GAP
from physbook.geometry.round_shapes import Capsule, Chain, ChainSegment, Segment
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.vec import Transform


@njit(refcounted=False)
def max_separation(vertices_1, normals_1, vertices_2):
    """The edge of polygon 1 whose outward normal separates polygon 2 the most.

    For edge i with vertex v_i and normal n_i, the separation of polygon 2 is
    s_i = min_j n_i·(w_j − v_i): how far polygon 2's deepest vertex lies in front of the
    edge (negative: behind it, penetrating). Returns (max_i s_i, i), the first i on ties.
    Positive means n_i is a separating axis. Both polygons must be in one frame.
    """
    best_separation = -np.inf
    best_edge = 0
    for i in range(vertices_1.shape[0]):
        nx, ny = normals_1[i, 0], normals_1[i, 1]
        vx, vy = vertices_1[i, 0], vertices_1[i, 1]
        deepest = np.inf
        for j in range(vertices_2.shape[0]):
            s = nx * (vertices_2[j, 0] - vx) + ny * (vertices_2[j, 1] - vy)
            if s < deepest:
                deepest = s
                if deepest <= best_separation:
                    break  # s_i can only fall further: edge i is not the best
        if deepest > best_separation:
            best_separation = deepest
            best_edge = i
    return best_separation, best_edge


@njit(refcounted=False)
def incident_edge(normal_x, normal_y, normals_2):
    """The edge of polygon 2 whose normal is most opposed to the reference normal n.

    It minimises n·m_j. Its normal is within 90° of −n (a convex polygon's normals leave no
    gap of 180° or more), so this edge holds polygon 2's deepest vertex along −n.
    """
    best = np.inf
    index = 0
    for j in range(normals_2.shape[0]):
        d = normal_x * normals_2[j, 0] + normal_y * normals_2[j, 1]
        if d < best:
            best = d
            index = j
    return index


@njit(refcounted=False)
def _side_plane_parameter(coordinate, start, end):
    """Where, as a fraction of the way from ``start`` to ``end``, ``coordinate`` is reached."""
    span = end - start
    t = (coordinate - start) / span
    # The incident edge runs against the tangent, so the span is not zero; the clamp keeps
    # a rounding-sized span from pushing a point past the edge's ends.
    return min(max(t, 0.0), 1.0)


@njit(refcounted=False)
def clip_incident_edge(v11x, v11y, v12x, v12y, v21x, v21y, v22x, v22y):
    """Clip the incident edge v21→v22 to the side planes of the reference edge v11→v12.

    Along the reference tangent t = (v12 − v11)/|v12 − v11| the side planes keep
    0 ≤ t·(p − v11) ≤ |v12 − v11|. The incident edge runs against t (from its upper end v21
    to its lower end v22), so each end is moved in along the edge to the plane it is
    outside of: p = v22 + λ·(v21 − v22), λ from the tangent coordinates.

    Returns (ok, lower_x, lower_y, upper_x, upper_y): the clipped ends, the *lower* one next
    to v11, the *upper* one next to v12. ``ok`` is False when the edge misses the strip.
    """
    edge_x, edge_y = v12x - v11x, v12y - v11y
    length = np.sqrt(edge_x * edge_x + edge_y * edge_y)
    tx, ty = edge_x / length, edge_y / length
    upper_1 = length  # the strip is 0 ≤ u ≤ upper_1 in the tangent coordinate u
    upper_2 = tx * (v21x - v11x) + ty * (v21y - v11y)
    lower_2 = tx * (v22x - v11x) + ty * (v22y - v11y)
    if upper_2 < 0.0 or lower_2 > upper_1 or not upper_2 > lower_2:
        return False, v22x, v22y, v21x, v21y
    lower_x, lower_y = v22x, v22y
    if lower_2 < 0.0:
        lam = _side_plane_parameter(0.0, lower_2, upper_2)
        lower_x, lower_y = v22x + lam * (v21x - v22x), v22y + lam * (v21y - v22y)
    upper_x, upper_y = v21x, v21y
    if upper_2 > upper_1:
        lam = _side_plane_parameter(upper_1, lower_2, upper_2)
        upper_x, upper_y = v22x + lam * (v21x - v22x), v22y + lam * (v21y - v22y)
    return True, lower_x, lower_y, upper_x, upper_y


@njit(refcounted=False)
def polygon_size(vertices):
    """A length scale of the polygon (m): its farthest vertex from vertex 0.

    It does not change when the polygon turns or moves, so both orders of a pair, each
    worked in its own frame, compare their separations with the same tolerance.
    """
    largest = 0.0
    for i in range(1, vertices.shape[0]):
        dx, dy = vertices[i, 0] - vertices[0, 0], vertices[i, 1] - vertices[0, 1]
        largest = max(largest, dx * dx + dy * dy)
    return np.sqrt(largest)


@njit(refcounted=False)
def _reference_is_b(separation_a, separation_b, vertices_a, vertices_b):
    """True when polygon B should give the reference face: its best axis separates more
    than A's by :data:`~physbook.constants.FACE_SWITCH_TOLERANCE` of the smaller size (A,
    the first shape of the pair, is preferred)."""
    if not separation_b > separation_a:
        return False  # the tolerance is not negative: no need for the sizes
    return separation_b > separation_a + FACE_SWITCH_TOLERANCE * min(
        polygon_size(vertices_a), polygon_size(vertices_b))


@njit(refcounted=False, inline=True)
def polygon_contact(vertices_a, normals_a, radius_a, vertices_b, normals_b, radius_b, margin,
                    normal, points, depths, features):
    """Contact manifold of two convex polygons given in one frame, by SAT and clipping
    (inlined into the narrow phase, which calls it for every pair of polygons).

    Parameters
    ----------
    vertices_a, normals_a, vertices_b, normals_b
        (n, 2) counter-clockwise vertices and outward unit edge normals, one frame: the
        cores. A capsule or segment is a core of two vertices with normals ``[n, −n]``.
    radius_a, radius_b
        The radii that grow the cores (m, ≥ 0; 0 for sharp polygons). The SAT and clipping
        run on the cores, the radii R = r_A + r_B shift each point's depth by R and its
        position to the midpoint of the surfaces; when R > 0 and the cores are apart, the
        cores' closest features may turn the manifold into one point between two corners
        (:func:`~physbook.collision.round_manifold.rounded_vertex_contact`).
    margin
        Report points whose depth is at least −margin (m); 0 reports touching and
        overlapping points only.
    normal, points, depths, features
        Output: (2,), (2, 2), (2,), (2,) int64; written in the same frame.

    Returns
    -------
    int
        The number of contact points, 0, 1 or 2. ``normal`` points from A to B; each point
        lies midway between the incident face and the reference face, and its depth is
        how far the incident point is behind the reference face. Feature ids pair the
        reference edge's vertex with the incident edge's vertex next to it (see
        :mod:`~physbook.collision.features`), so a point keeps its id whether or not it was
        clipped.
    """
    reach = radius_a + radius_b
    separation_a, edge_a = max_separation(vertices_a, normals_a, vertices_b)
    if separation_a > margin + reach:
        return 0
    separation_b, edge_b = max_separation(vertices_b, normals_b, vertices_a)
    if separation_b > margin + reach:
        return 0

    flip = _reference_is_b(separation_a, separation_b, vertices_a, vertices_b)
    if flip:
        ref_vertices, ref_normals, ref_edge, separation = vertices_b, normals_b, edge_b, \
            separation_b
        inc_vertices, inc_normals = vertices_a, normals_a
        radius_ref, radius_inc = radius_b, radius_a
    else:
        ref_vertices, ref_normals, ref_edge, separation = vertices_a, normals_a, edge_a, \
            separation_a
        inc_vertices, inc_normals = vertices_b, normals_b
        radius_ref, radius_inc = radius_a, radius_b

    ref_count = ref_vertices.shape[0]
    inc_count = inc_vertices.shape[0]
    i11 = ref_edge
    i12 = i11 + 1 if i11 + 1 < ref_count else 0
    nx, ny = ref_normals[i11, 0], ref_normals[i11, 1]
    i21 = incident_edge(nx, ny, inc_normals)
    i22 = i21 + 1 if i21 + 1 < inc_count else 0
    v11x, v11y = ref_vertices[i11, 0], ref_vertices[i11, 1]

    ok, lower_x, lower_y, upper_x, upper_y = clip_incident_edge(
        v11x, v11y, ref_vertices[i12, 0], ref_vertices[i12, 1],
        inc_vertices[i21, 0], inc_vertices[i21, 1], inc_vertices[i22, 0], inc_vertices[i22, 1])

    # Feature numbers 2·i of the vertices on each side, in (A, B) order.
    if flip:
        lower_feature = make_feature_unchecked(2 * i22, 2 * i11)
        upper_feature = make_feature_unchecked(2 * i21, 2 * i12)
        normal[0], normal[1] = -nx, -ny
    else:
        lower_feature = make_feature_unchecked(2 * i11, 2 * i22)
        upper_feature = make_feature_unchecked(2 * i12, 2 * i21)
        normal[0], normal[1] = nx, ny

    count = 0
    if ok:
        # s = n·(p − v11): negative behind the reference face, i.e. penetrating.
        lower_separation = nx * (lower_x - v11x) + ny * (lower_y - v11y)
        upper_separation = nx * (upper_x - v11x) + ny * (upper_y - v11y)
        if lower_separation <= margin + reach:
            write_round_point(lower_x, lower_y, nx, ny, lower_separation, radius_ref,
                              radius_inc, lower_feature, count, points, depths, features)
            count += 1
        if upper_separation <= margin + reach:
            write_round_point(upper_x, upper_y, nx, ny, upper_separation, radius_ref,
                              radius_inc, upper_feature, count, points, depths, features)
            count += 1
    if count == 0:
        # The strip beside the reference face missed the incident edge, or cut off its deep
        # end. For overlapping polygons this was not seen in tests over many thousand random
        # pairs; it can happen for polygons apart by less than the margin, and on rounding.
        # The axis still says they touch, so report the incident polygon's deepest vertex
        # (an end of the incident edge) at the axis's separation.
        deepest = i21
        if nx * inc_vertices[i22, 0] + ny * inc_vertices[i22, 1] < (
                nx * inc_vertices[i21, 0] + ny * inc_vertices[i21, 1]):
            deepest = i22
        feature = make_feature_unchecked(2 * deepest, 2 * i11) if flip else make_feature_unchecked(
            2 * i11, 2 * deepest)
        write_round_point(inc_vertices[deepest, 0], inc_vertices[deepest, 1], nx, ny,
                          separation, radius_ref, radius_inc, feature, 0, points, depths,
                          features)
        count = 1
    if (reach > 0.0 or vertices_a.shape[0] == 2 or vertices_b.shape[0] == 2) and max(
            separation_a, separation_b) > ROUND_CORE_GAP:
        # Rounded cores (or a segment) apart: a gap that is really corner to corner becomes
        # one point. Two sharp polygons keep chapter 7's manifold.
        count = rounded_vertex_contact(vertices_a, vertices_b, radius_a, radius_b, margin,
                                       count, normal, points, depths, features)
    return count


# ----------------------------------------------------------------------------------------
# The theorem for the book: every axis, both projection intervals.


class SatAxes(NamedTuple):
    """Every candidate axis of a SAT test, one row each.

    ``axes`` (K, 2) unit axes in world space; ``owners`` (K,) 0 when the axis is an edge
    normal of shape A, 1 of shape B, 2 for a circle's axis (from its centre to the other
    shape's nearest vertex or centre); ``edges`` (K,) the edge index (−1 for a circle's
    axis); ``intervals_a``, ``intervals_b`` (K, 2) the projections [min, max] of each shape
    on the axis (m); ``overlaps`` (K,) how far B must move along the axis, one way or the
    other, to end the overlap: min(max_A − min_B, max_B − min_A); negative is a gap.
    """

    axes: np.ndarray
    owners: np.ndarray
    edges: np.ndarray
    intervals_a: np.ndarray
    intervals_b: np.ndarray
    overlaps: np.ndarray


class SatResult(NamedTuple):
    """The axis of least overlap. ``depth`` > 0 overlapping (the minimum translation
    distance), ≤ 0 apart (its size is then a lower bound on the gap, not the distance);
    ``normal`` the unit direction to move B by ``depth`` (from A to B); ``owner`` and
    ``edge`` name the axis as in :class:`SatAxes`."""

    depth: float
    normal: np.ndarray
    owner: int
    edge: int


def _world_polygon(shape: Polygon, transform: Transform) -> tuple[np.ndarray, np.ndarray]:
    return transform.to_world(shape.vertices), transform.rotate_to_world(shape.normals)


def _intervals(shape, transform: Transform, axes: np.ndarray) -> np.ndarray:
    """(K, 2) projections [min, max] of a shape on each axis: a circle's is its centre's ± r."""
    if isinstance(shape, Circle):
        points, radius = transform.to_world(shape.center)[None, :], shape.radius
    else:
        points, radius = transform.to_world(shape.vertices), 0.0
    projections = points @ axes.T  # (points, K)
    return np.column_stack([projections.min(axis=0) - radius,
                            projections.max(axis=0) + radius])


def _circle_axis(circle: Circle, transform: Transform, other, other_transform: Transform):
    """The extra axis a circle needs: from its centre to the nearest vertex (or centre)."""
    centre = transform.to_world(circle.center)
    if isinstance(other, Circle):
        targets = other_transform.to_world(other.center)[None, :]
    else:
        targets = other_transform.to_world(other.vertices)
    gaps = targets - centre
    nearest = gaps[int(np.argmin(np.hypot(gaps[:, 0], gaps[:, 1])))]
    size = float(np.hypot(*nearest))
    return np.array([1.0, 0.0]) if size == 0.0 else nearest / size


#: The shape classes the narrow phase takes.
SHAPE_CLASSES = (Circle, Polygon, Capsule, Segment, ChainSegment)
_SHAPE_NAMES = "a Circle, Polygon, Capsule, Segment or ChainSegment"


def check_shape(shape, name: str) -> None:
    """Raise TypeError unless ``shape`` is one of :data:`SHAPE_CLASSES` (a Chain is told to
    give one of its segments)."""
    if isinstance(shape, Chain):
        raise TypeError(f"{name} must be a single shape, got a Chain: collide one of its "
                        ".segments")
    _check.instance(shape, name, SHAPE_CLASSES, _SHAPE_NAMES)


def check_shape_pair(shape_a, xf_a, shape_b, xf_b) -> None:
    """Raise TypeError unless both shapes are shapes the narrow phase takes (a Circle,
    Polygon, Capsule, Segment or ChainSegment) and both poses Transforms."""
    check_shape(shape_a, "shape_a")
    check_shape(shape_b, "shape_b")
    _check.instance(xf_a, "xf_a", Transform, "a Transform")
    _check.instance(xf_b, "xf_b", Transform, "a Transform")


def _check_sharp_pair(shape_a, xf_a, shape_b, xf_b) -> None:
    """:func:`check_shape_pair` for chapter 7's tools, which draw circles and sharp polygons
    only: a shape with a rounded or thin core raises TypeError."""
    for name, shape in (("shape_a", shape_a), ("shape_b", shape_b)):
        if isinstance(shape, Polygon) and shape.radius > 0.0:
            raise TypeError(f"{name} must be a Circle or a Polygon without a radius: the "
                            "separating axis steps of chapter 7 do not round corners")
        _check.instance(shape, name, (Circle, Polygon), "a Circle or a Polygon")
    _check.instance(xf_a, "xf_a", Transform, "a Transform")
    _check.instance(xf_b, "xf_b", Transform, "a Transform")


def _order_key(shape, transform: Transform) -> tuple:
    """Numbers that put shapes in the order the narrow phase takes them (see
    :func:`b_comes_first`): the larger area first, then the kind, then the geometry's own
    numbers (radius included); for two copies of one shape the lower pose first (smaller
    y, then x, then angle)."""
    if isinstance(shape, Circle):
        geometry = [shape.radius, *shape.center.tolist()]
        area = math.pi * shape.radius * shape.radius
        kind = 0
    elif isinstance(shape, Polygon) and shape.radius == 0.0:
        geometry = shape.vertices.ravel().tolist()
        xs, ys = geometry[0::2], geometry[1::2]
        # The shoelace sum over the few vertices, in plain floats: cheaper than numpy here,
        # and only ever compared with another polygon's.
        area = 0.5 * sum(xs[i - 1] * ys[i] - xs[i] * ys[i - 1] for i in range(len(xs)))
        kind = 1
    else:
        points, radius = shape.core()
        geometry = [radius, *points.ravel().tolist()]
        if isinstance(shape, ChainSegment):
            geometry += [*shape.ghost1.tolist(), *shape.ghost2.tolist()]
        area = shape.area()
        kind = 1 + SHAPE_CLASSES.index(type(shape))
    x, y = transform.position.tolist()
    return (-area, kind, *geometry, y, x, transform.angle)


def b_goes_first(shape_a, xf_a: Transform, shape_b, xf_b: Transform) -> bool:
    """:func:`b_comes_first` on arguments already checked."""
    return _order_key(shape_b, xf_b) < _order_key(shape_a, xf_a)


def b_comes_first(shape_a, xf_a: Transform, shape_b, xf_b: Transform) -> bool:
    """Whether the narrow phase takes B as the first shape of the pair.

    When two reference faces are nearly as good, the first shape's face is kept. Taking the
    first by a fixed order of the shapes (the larger one, then for equal shapes the lower
    one: the floor under a box, the box under the next in a stack), not by the order of
    the arguments, makes ``collide(b, a)`` the exact mirror of ``collide(a, b)``, and
    keeps the choice steady while two different shapes move. Only the same shape in the
    same pose ties, and then the two calls are the same call.
    """
    check_shape_pair(shape_a, xf_a, shape_b, xf_b)
    return b_goes_first(shape_a, xf_a, shape_b, xf_b)


def sat_axes(shape_a, xf_a: Transform, shape_b, xf_b: Transform) -> SatAxes:
    """Project both shapes on every axis the separating axis theorem needs.

    The axes are the edge normals of each polygon and, for each circle, the axis from its
    centre to the other shape's nearest vertex (or centre). The shapes are apart exactly
    when some row of ``overlaps`` is negative. Circles and sharp polygons only (a shape
    with a radius or a thin core raises TypeError).
    """
    _check_sharp_pair(shape_a, xf_a, shape_b, xf_b)
    axes, owners, edges = [], [], []
    for owner, (shape, transform, other, other_transform) in enumerate(
            ((shape_a, xf_a, shape_b, xf_b), (shape_b, xf_b, shape_a, xf_a))):
        if isinstance(shape, Polygon):
            normals = transform.rotate_to_world(shape.normals)
            axes.extend(normals)
            owners.extend([owner] * len(normals))
            edges.extend(range(len(normals)))
        elif owner == 0 or not isinstance(other, Circle):  # two circles share one axis
            axes.append(_circle_axis(shape, transform, other, other_transform))
            owners.append(2)
            edges.append(-1)
    axes = np.array(axes)
    intervals_a = _intervals(shape_a, xf_a, axes)
    intervals_b = _intervals(shape_b, xf_b, axes)
    overlaps = np.minimum(intervals_a[:, 1] - intervals_b[:, 0],
                          intervals_b[:, 1] - intervals_a[:, 0])
    return SatAxes(axes, np.array(owners, np.int64), np.array(edges, np.int64),
                   intervals_a, intervals_b, overlaps)


def sat_query(shape_a, xf_a: Transform, shape_b, xf_b: Transform) -> SatResult:
    """The axis of least overlap over :func:`sat_axes`: the minimum translation vector.

    Moving B by ``depth·normal`` just ends the overlap. The first axis wins a tie.
    """
    table = sat_axes(shape_a, xf_a, shape_b, xf_b)
    k = int(np.argmin(table.overlaps))
    axis = table.axes[k]
    a_low, a_high = table.intervals_a[k]
    b_low, b_high = table.intervals_b[k]
    # Push B the shorter way: along +axis costs a_high − b_low, along −axis b_high − a_low.
    normal = axis if a_high - b_low <= b_high - a_low else -axis
    return SatResult(float(table.overlaps[k]), normal.copy(), int(table.owners[k]),
                     int(table.edges[k]))


class Clipping(NamedTuple):
    """The steps of :func:`polygon_contact` for two polygons, in world space, for drawing.

    ``separations`` (2,): the best face separation of A against B and of B against A (m);
    ``reference`` 0 when A holds the reference face, 1 when B does; ``reference_edge`` and
    ``incident_edge`` the edge indices on their polygons; ``reference_face`` and
    ``incident_face`` (2, 2) their end points (from vertex i to i + 1); ``normal`` the
    reference face's outward normal; ``clipped`` (2, 2) the incident face clipped to the
    side planes, lower end first, or None if it misses them.
    """

    separations: np.ndarray
    reference: int
    reference_edge: int
    incident_edge: int
    reference_face: np.ndarray
    incident_face: np.ndarray
    normal: np.ndarray
    clipped: np.ndarray | None


def clipping_steps(polygon_a: Polygon, xf_a: Transform, polygon_b: Polygon,
                   xf_b: Transform) -> Clipping:
    """Run the SAT-and-clipping steps of the narrow phase one at a time, in world space.

    It calls the same compiled pieces as :func:`polygon_contact` (which works in the frame
    of the pair's first shape instead) and keeps the same face on a near tie, so a chapter
    can draw each step of the manifold it gets.
    """
    _check.instance(polygon_a, "polygon_a", Polygon, "a Polygon")
    _check.instance(polygon_b, "polygon_b", Polygon, "a Polygon")
    for name, polygon in (("polygon_a", polygon_a), ("polygon_b", polygon_b)):
        if polygon.radius > 0.0:
            raise TypeError(f"{name} must be a Polygon without a radius: the clipping steps "
                            "of chapter 7 do not round corners")
    _check.instance(xf_a, "xf_a", Transform, "a Transform")
    _check.instance(xf_b, "xf_b", Transform, "a Transform")
    vertices_a, normals_a = _world_polygon(polygon_a, xf_a)
    vertices_b, normals_b = _world_polygon(polygon_b, xf_b)
    separation_a, edge_a = max_separation(vertices_a, normals_a, vertices_b)
    separation_b, edge_b = max_separation(vertices_b, normals_b, vertices_a)
    # The preferred face is the first shape's, in the order the narrow phase takes them.
    if b_goes_first(polygon_a, xf_a, polygon_b, xf_b):
        flip = not _reference_is_b(separation_b, separation_a, vertices_b, vertices_a)
    else:
        flip = bool(_reference_is_b(separation_a, separation_b, vertices_a, vertices_b))
    if flip:
        ref_vertices, ref_normals, ref_edge = vertices_b, normals_b, edge_b
        inc_vertices, inc_normals = vertices_a, normals_a
    else:
        ref_vertices, ref_normals, ref_edge = vertices_a, normals_a, edge_a
        inc_vertices, inc_normals = vertices_b, normals_b
    normal = ref_normals[ref_edge]
    inc_edge = int(incident_edge(normal[0], normal[1], inc_normals))
    reference_face = ref_vertices[[ref_edge, (ref_edge + 1) % len(ref_vertices)]]
    incident_face = inc_vertices[[inc_edge, (inc_edge + 1) % len(inc_vertices)]]
    ok, lower_x, lower_y, upper_x, upper_y = clip_incident_edge(
        *reference_face[0], *reference_face[1], *incident_face[0], *incident_face[1])
    clipped = np.array([[lower_x, lower_y], [upper_x, upper_y]]) if ok else None
    return Clipping(np.array([separation_a, separation_b]), int(flip), int(ref_edge),
                    inc_edge, reference_face, incident_face, normal.copy(), clipped)
