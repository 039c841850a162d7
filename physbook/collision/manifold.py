"""Chapters 6–7: the contact manifold, and the narrow phase that computes it.

Given two shapes in two poses, the narrow phase answers: do they touch, along which normal,
how deep, and at which points. A :class:`Manifold` holds the answer for one pair and
:class:`ContactArrays` for many. There is one implementation: :func:`collide_pairs` runs a
compiled kernel over rows of a :class:`~physbook.geometry.shape_table.ShapeTable`, and
:func:`collide` packs its two shapes into a two-row table and calls the same kernel. The
world's contact table calls :func:`collide_rows`, the kernel's body, pair by pair. The
compiled routines (:func:`circle_contact`, :func:`polygon_circle_contact`,
:func:`collide_rows`) check nothing, for speed; :func:`collide` and :func:`collide_pairs`
check their input and are the way in.

Conventions
-----------
- ``normal`` is a unit vector from shape A to shape B: moving B by ``depth·normal``
  (or A by the opposite) ends the overlap.
- ``depths`` are positive when the shapes overlap, zero when they just touch.
- Each contact point lies midway between the two surfaces. Swapping A and B gives the
  exact mirror image: the normal negated, the same points and depths in the same order, and
  each feature id with its two numbers exchanged. A pair is always worked with its shapes
  in one order, whichever way round it was asked for (see :func:`collide_rows`), so the two
  orders run the same arithmetic and even a near tie between reference faces is decided
  the same way.
- Feature ids (see :mod:`~physbook.collision.features`) pack a feature number on A and one
  on B: polygon vertex ``i`` is ``2·i``, polygon edge ``i`` is ``2·i + 1``, a circle is
  ``0``. Polygon–polygon points pair a vertex of the reference edge with the neighbouring
  vertex of the incident edge; a circle against a polygon names the polygon's edge (the
  circle touches the face) or vertex (it touches the corner). A capsule, segment or chain
  segment numbers its core the same way: end 1 is ``0``, end 2 is ``2``, its side with
  normal +n is ``1`` and the other side ``3`` (a chain segment has only its front, ``1``).
- Shapes with a radius (chapter 15) collide by their cores: the routines of
  :mod:`~physbook.collision.round_manifold` and :mod:`~physbook.collision.chain_manifold`,
  compiled on their own rather than inlined into :func:`collide_rows`, so that the
  compiled step does not grow with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.collision.chain_manifold import chain_circle_contact, chain_polygon_contact
from physbook.collision.features import make_feature_unchecked, swap_feature_unchecked
from physbook.collision.round_manifold import capsule_circle_contact, capsule_contact
from physbook.collision.sat import b_goes_first, check_shape_pair, polygon_contact
from physbook.constants import COINCIDENT_FRACTION, COINCIDENT_NORMAL
from physbook.geometry.shape_table import ShapeTable, body_poses, centred_circle, core_count
from physbook.kinds import CAPSULE, CHAIN_SEGMENT, CIRCLE, POLYGON, SEGMENT, SHAPE_KINDS
from physbook.vecmath.kernels import rotate, rotate_inverse
from physbook.vecmath.vec import Transform

# The dispatch table. ROUTE[kind_a, kind_b] names the pair routine; SWAPPED[kind_a, kind_b]
# is 1 when that routine wants the shapes the other way round, in which case the kernel
# swaps them, and flips the normal and the feature ids of the answer.
CIRCLE_CIRCLE = 0
POLYGON_CIRCLE = 1
POLYGON_POLYGON = 2
CAPSULE_CIRCLE = 3
CAPSULE_CAPSULE = 4
CHAIN_CIRCLE = 5
CHAIN_POLYGON = 6

#: Which kind of a pair is the routine's first shape (A), highest first: a chain segment,
#: then a segment, a polygon, a capsule, a circle.
SHAPE_PRIORITY = (CHAIN_SEGMENT, SEGMENT, POLYGON, CAPSULE, CIRCLE)

# The routine of each (first kind, second kind), the first of higher priority. A capsule or
# segment is a polygon of two vertices to the polygon routine, and any shape but a circle
# is a polygon core to the chain routine (another chain segment without its ghosts).
_ROUTES = {
    (CIRCLE, CIRCLE): CIRCLE_CIRCLE,
    (CAPSULE, CIRCLE): CAPSULE_CIRCLE, (CAPSULE, CAPSULE): CAPSULE_CAPSULE,
    (POLYGON, CIRCLE): POLYGON_CIRCLE, (POLYGON, CAPSULE): POLYGON_POLYGON,
    (POLYGON, POLYGON): POLYGON_POLYGON,
    (SEGMENT, CIRCLE): CAPSULE_CIRCLE, (SEGMENT, CAPSULE): CAPSULE_CAPSULE,
    (SEGMENT, POLYGON): POLYGON_POLYGON, (SEGMENT, SEGMENT): CAPSULE_CAPSULE,
    (CHAIN_SEGMENT, CIRCLE): CHAIN_CIRCLE, (CHAIN_SEGMENT, CAPSULE): CHAIN_POLYGON,
    (CHAIN_SEGMENT, POLYGON): CHAIN_POLYGON, (CHAIN_SEGMENT, SEGMENT): CHAIN_POLYGON,
    (CHAIN_SEGMENT, CHAIN_SEGMENT): CHAIN_POLYGON,
}


def _dispatch_tables() -> tuple[np.ndarray, np.ndarray]:
    """ROUTE and SWAPPED, indexed by kind codes, built from :data:`SHAPE_PRIORITY`."""
    kinds = len(SHAPE_KINDS)
    rank = {kind: position for position, kind in enumerate(SHAPE_PRIORITY)}
    route = np.zeros((kinds, kinds), np.int64)
    swapped = np.zeros((kinds, kinds), np.int64)
    for kind_a in range(kinds):
        for kind_b in range(kinds):
            b_first = rank[kind_b] < rank[kind_a]
            first, second = (kind_b, kind_a) if b_first else (kind_a, kind_b)
            route[kind_a, kind_b] = _ROUTES[first, second]
            swapped[kind_a, kind_b] = int(b_first)
    return route, swapped


ROUTE, SWAPPED = _dispatch_tables()
assert sorted(SHAPE_PRIORITY) == list(range(len(SHAPE_KINDS)))  # every kind has a place


@dataclass(frozen=True, eq=False)
class Manifold:
    """The contact between two shapes: ``normal`` (2,) unit from A to B, ``points`` (k, 2)
    world-space contact points (m), ``depths`` (k,) penetration at each point (m, positive
    when overlapping), ``features`` (k,) int64 ids, stable while the same features touch;
    k is 1 or 2."""

    normal: np.ndarray
    points: np.ndarray
    depths: np.ndarray
    features: np.ndarray

    @property
    def depth(self) -> float:
        """The deepest point's depth (m)."""
        return float(np.max(self.depths))

    def __len__(self) -> int:
        return len(self.depths)

    def __repr__(self) -> str:
        return (f"Manifold(normal={_rounded(self.normal)}, points={_rounded(self.points)}, "
                f"depths={_rounded(self.depths)}, features={self.features.tolist()})")


def _rounded(values: np.ndarray) -> list:
    """``values`` to 6 decimals, for printing; numbers too large to scale by 10⁶ as they are."""
    with np.errstate(over="ignore"):
        rounded = np.round(values, 6)
    return np.where(np.isfinite(rounded), rounded, values).tolist()


class ContactArrays(NamedTuple):
    """Manifolds of P pairs as arrays, one row per pair (what :func:`collide_pairs` returns).

    ``point_counts`` (P,) 0 when the pair does not touch, else 1 or 2; ``normals`` (P, 2)
    unit, from A to B; ``points`` (P, 2, 2) world points; ``depths`` (P, 2) positive when
    overlapping; ``features`` (P, 2) int64. Rows past a pair's point count are unused (zero).
    """

    point_counts: np.ndarray
    normals: np.ndarray
    points: np.ndarray
    depths: np.ndarray
    features: np.ndarray

    def manifold(self, row: int) -> Manifold | None:
        """Row ``row`` as a :class:`Manifold`, or None when that pair does not touch."""
        row = _check.non_negative_int(row, "row")
        if row >= len(self.point_counts):
            raise IndexError(f"row must be below the number of pairs, "
                             f"{len(self.point_counts)}, got {row}")
        return self._manifold(row)

    def _manifold(self, row: int) -> Manifold | None:
        count = int(self.point_counts[row])
        if count == 0:
            return None
        return Manifold(self.normals[row].copy(), self.points[row, :count].copy(),
                        self.depths[row, :count].copy(), self.features[row, :count].copy())


# ----------------------------------------------------------------------------------------
# Pair routines. Each writes one manifold into (normal, points, depths, features) and
# returns its point count.


@njit(refcounted=False)
def circle_contact(ax, ay, radius_a, bx, by, radius_b, margin, normal, points, depths,
                   features):
    """Two circles with centres a and b: n = (b − a)/|b − a|, depth = r_A + r_B − |b − a|.

    The point is midway between the surface points a + r_A·n and b − r_B·n.
    Coincident centres get the fixed :data:`~physbook.constants.COINCIDENT_NORMAL`.
    """
    dx, dy = bx - ax, by - ay
    distance = np.sqrt(dx * dx + dy * dy)
    reach = radius_a + radius_b
    if distance > reach + margin:
        return 0
    if distance <= COINCIDENT_FRACTION * reach:
        nx, ny = COINCIDENT_NORMAL[0], COINCIDENT_NORMAL[1]
    else:
        nx, ny = dx / distance, dy / distance
    normal[0], normal[1] = nx, ny
    points[0, 0] = 0.5 * ((ax + radius_a * nx) + (bx - radius_b * nx))
    points[0, 1] = 0.5 * ((ay + radius_a * ny) + (by - radius_b * ny))
    depths[0] = reach - distance
    features[0] = 0
    return 1


@njit(refcounted=False)
def polygon_circle_contact(vertices, normals, polygon_radius, cx, cy, radius, margin, normal,
                           points, depths, features):
    """A polygon (A, its core grown by ``polygon_radius``, 0 when sharp) and a circle (B) of
    centre c, all in the polygon's frame.

    The edge i of greatest separation s = n_i·(c − v_i) decides. s ≤ 0: the centre is
    inside, the normal is n_i and depth = R − s with R = r_A + r (the centre must cross the
    face and then both radii more). Otherwise the closest point of edge i to c is its start
    vertex, its end vertex, or a point of the face, by the signs of (c − v1)·(v2 − v1) and
    (c − v2)·(v1 − v2); the normal points from that closest point to c and
    depth = R − distance. The contact point is midway between the polygon's surface point,
    the closest core point + r_A·n, and the circle's surface point c − r·n.
    """
    count = vertices.shape[0]
    separation = -np.inf
    edge = 0
    for i in range(count):
        s = normals[i, 0] * (cx - vertices[i, 0]) + normals[i, 1] * (cy - vertices[i, 1])
        if s > separation:
            separation = s
            edge = i
    reach = polygon_radius + radius
    if separation > reach + margin:
        return 0
    nx, ny = normals[edge, 0], normals[edge, 1]
    next_vertex = edge + 1 if edge + 1 < count else 0
    v1x, v1y = vertices[edge, 0], vertices[edge, 1]
    v2x, v2y = vertices[next_vertex, 0], vertices[next_vertex, 1]
    polygon_feature = 2 * edge + 1
    distance = separation
    closest_x, closest_y = cx - separation * nx, cy - separation * ny
    if separation > 0.0:
        u1 = (cx - v1x) * (v2x - v1x) + (cy - v1y) * (v2y - v1y)
        u2 = (cx - v2x) * (v1x - v2x) + (cy - v2y) * (v1y - v2y)
        corner = -1
        if u1 <= 0.0:
            corner = edge
        elif u2 <= 0.0:
            corner = next_vertex
        if corner >= 0:
            closest_x, closest_y = vertices[corner, 0], vertices[corner, 1]
            dx, dy = cx - closest_x, cy - closest_y
            distance = np.sqrt(dx * dx + dy * dy)
            if distance > reach + margin:
                return 0
            # distance ≥ separation > 0, so the division is safe.
            nx, ny = dx / distance, dy / distance
            polygon_feature = 2 * corner
    normal[0], normal[1] = nx, ny
    # (closest + r_A·n) + c − r·n, summed in this order so that r_A = 0 adds an exact 0.
    points[0, 0] = 0.5 * (closest_x + polygon_radius * nx + cx - radius * nx)
    points[0, 1] = 0.5 * (closest_y + polygon_radius * ny + cy - radius * ny)
    depths[0] = reach - distance
    features[0] = make_feature_unchecked(polygon_feature, 0)
    return 1


# ----------------------------------------------------------------------------------------
# The kernel: one pair, then all pairs.


@njit(refcounted=False)
def _to_frame(vertices, normals, start, count, cos_rel, sin_rel, tx, ty, out_vertices,
              out_normals):
    """Rotate by the relative angle and move by t: p' = R·p + t, n' = R·n."""
    for k in range(count):
        x, y = rotate(cos_rel, sin_rel, vertices[start + k, 0], vertices[start + k, 1])
        out_vertices[k, 0] = x + tx
        out_vertices[k, 1] = y + ty
        out_normals[k, 0], out_normals[k, 1] = rotate(cos_rel, sin_rel, normals[start + k, 0],
                                                      normals[start + k, 1])


@njit
def vertex_scratch(shapes):
    """Room for the largest polygon of ``shapes`` in another frame: (vertices, normals)."""
    largest = 1
    for s in range(shapes.vertex_count.shape[0]):
        largest = max(largest, shapes.vertex_count[s])
    return np.empty((largest, 2)), np.empty((largest, 2))


@njit(refcounted=False)
def _worked_swapped(kind, shape_a, shape_b):
    """True when the pair (``shape_a``, ``shape_b``) is worked as (B, A) and its answer
    mirrored: a pair routine takes its shapes in the order of :data:`SHAPE_PRIORITY`
    (:data:`SWAPPED`: a polygon before a circle, say), and two shapes of one kind are taken
    in row order, the lower row as A.

    The order depends on the rows, not on which way round the pair was asked for, so (a, b)
    and (b, a) run the same arithmetic and give exact mirror images. Rows are stable over
    a world's life, so a near tie between two reference faces is decided the same way step
    after step.
    """
    if kind[shape_a] != kind[shape_b]:
        return SWAPPED[kind[shape_a], kind[shape_b]] == 1
    return shape_a > shape_b


class NarrowScratch(NamedTuple):
    """A narrow phase's scratch: room for the largest polygon in another frame
    (``vertices``, ``normals``; :func:`vertex_scratch`), each body's rotation (``cosines``,
    ``sines``, and whether it is worked out yet, ``done``), and which shapes need no
    rotation (``unturned``; see :func:`pair_rotations`)."""

    vertices: np.ndarray
    normals: np.ndarray
    cosines: np.ndarray
    sines: np.ndarray
    done: np.ndarray
    unturned: np.ndarray


def narrow_scratch(shapes, body_count: int) -> NarrowScratch:
    """A :class:`NarrowScratch` for a narrow phase over ``shapes`` and ``body_count``
    bodies (the rotations at first those of 0)."""
    return NarrowScratch(*narrow_scratch_arrays(shapes, body_count))


@njit
def narrow_scratch_arrays(shapes, body_count):
    """:func:`narrow_scratch` as a plain tuple, for Python (see
    :func:`~physbook.continuous.reach_arrays`) and for compiled callers."""
    scratch_vertices, scratch_normals = vertex_scratch(shapes)
    unturned = np.zeros(shapes.kind.shape[0], np.bool_)
    for s in range(unturned.shape[0]):
        unturned[s] = centred_circle(shapes.kind, shapes.vertex_count, shapes.vertices,
                                     shapes.vertex_start[s], s)
    return (scratch_vertices, scratch_normals, np.ones(body_count), np.zeros(body_count),
            np.zeros(body_count, np.bool_), unturned)


@njit(refcounted=False)
def pair_rotations(pairs, body, angles, cosines, sines, done, awake=None, unturned=None):
    """Fill ``cosines`` and ``sines`` (N,) with cos θ and sin θ of the bodies of the shapes
    in ``pairs`` ((P, 2) shape rows; ``body`` the shapes' body rows); the other bodies'
    entries are left as they were. A body's rotation is worked out once, not once for each
    pair it is in: ``done`` (N,) marks it, and is all False again on return. Given
    ``awake`` (N,), a pair whose bodies are both not awake is skipped: the narrow phase
    computes no manifold for it (a sleeping pile's pairs take no cosine). Given
    ``unturned`` (S,), a shape it marks (a circle on its body's origin) takes no rotation:
    it is placed by R(θ)·0 = 0 whatever finite cosine and sine its body's entries hold."""
    for p in range(pairs.shape[0]):
        if awake is not None and not (awake[body[pairs[p, 0]]] or awake[body[pairs[p, 1]]]):
            continue
        for k in range(2):
            if unturned is not None and unturned[pairs[p, k]]:
                continue
            b = body[pairs[p, k]]
            if not done[b]:
                cosines[b] = np.cos(angles[b])
                sines[b] = np.sin(angles[b])
                done[b] = True
    for p in range(pairs.shape[0]):  # cleared pair by pair: no pass over every body
        for k in range(2):
            done[body[pairs[p, k]]] = False


@njit(refcounted=False, inline=True)
def collide_rows(shape_a, shape_b, kind, body, radius, vertex_start, vertex_count, vertices,
                 normals, origins, cosines, sines, margin, scratch_vertices, scratch_normals,
                 normal, points, depths, features):
    """Manifold of shape rows ``shape_a`` and ``shape_b``, in world space; the point count.

    An unchecked compiled kernel (the world's contact table calls it pair by pair): the
    rows and arrays must be valid, as :func:`collide_pairs` makes sure. It is inlined into
    its callers: a call handing over the shape columns and four output rows cost a circle
    pair a third of its time.

    ``kind`` … ``normals`` are the columns of a
    :class:`~physbook.geometry.shape_table.ShapeArrays`, passed one by one because this
    runs once per pair, and reading the fields of a tuple of arrays in a hot loop costs a
    reference count each time. ``origins`` are the body origins, ``cosines`` and ``sines``
    their rotations (:func:`pair_rotations`), the scratch arrays what
    :func:`vertex_scratch` returns. The answer is written into ``normal`` (2,),
    ``points`` (2, 2), ``depths`` (2,) and ``features`` (2,).
    """
    route = ROUTE[kind[shape_a], kind[shape_b]]
    swapped = _worked_swapped(kind, shape_a, shape_b)
    if swapped:
        shape_a, shape_b = shape_b, shape_a
    body_a, body_b = body[shape_a], body[shape_b]
    cos_a, sin_a = cosines[body_a], sines[body_a]
    cos_b, sin_b = cosines[body_b], sines[body_b]
    pax, pay = origins[body_a, 0], origins[body_a, 1]
    start_a, start_b = vertex_start[shape_a], vertex_start[shape_b]

    if route == CIRCLE_CIRCLE:
        ax, ay = rotate(cos_a, sin_a, vertices[start_a, 0], vertices[start_a, 1])
        bx, by = rotate(cos_b, sin_b, vertices[start_b, 0], vertices[start_b, 1])
        count = circle_contact(ax + pax, ay + pay, radius[shape_a], bx + origins[body_b, 0],
                               by + origins[body_b, 1], radius[shape_b], margin, normal, points,
                               depths, features)
    else:
        # Work in A's frame, where A's vertices are as stored: B is placed by the relative
        # pose R = R_Aᵀ·R_B, t = R_Aᵀ·(p_B − p_A). Small local coordinates keep precision
        # when the bodies are far from the world origin.
        cos_rel = cos_a * cos_b + sin_a * sin_b
        sin_rel = cos_a * sin_b - sin_a * cos_b
        tx, ty = rotate_inverse(cos_a, sin_a, origins[body_b, 0] - pax,
                                origins[body_b, 1] - pay)
        if not (np.isfinite(tx) and np.isfinite(ty)):
            return 0  # farther apart than a float can hold, and no shape is that large
        # A's rows as stored (a chain segment's ghosts too); B's core only.
        count_a = vertex_count[shape_a]
        count_b = core_count(kind[shape_b], vertex_count[shape_b])
        local_a = vertices[start_a:start_a + count_a]
        local_normals_a = normals[start_a:start_a + count_a]
        if route == POLYGON_CIRCLE or route == CAPSULE_CIRCLE or route == CHAIN_CIRCLE:
            cx, cy = rotate(cos_rel, sin_rel, vertices[start_b, 0], vertices[start_b, 1])
            cx += tx
            cy += ty
            if route == POLYGON_CIRCLE:
                count = polygon_circle_contact(local_a, local_normals_a, radius[shape_a], cx,
                                               cy, radius[shape_b], margin, normal, points,
                                               depths, features)
            elif route == CAPSULE_CIRCLE:
                count = capsule_circle_contact(
                    vertices[start_a, 0], vertices[start_a, 1], vertices[start_a + 1, 0],
                    vertices[start_a + 1, 1], normals[start_a, 0], normals[start_a, 1],
                    radius[shape_a], cx, cy, radius[shape_b], margin, normal, points, depths,
                    features)
            else:
                count = chain_circle_contact(local_a, local_normals_a, cx, cy,
                                             radius[shape_b], margin, normal, points, depths,
                                             features)
        else:
            _to_frame(vertices, normals, start_b, count_b, cos_rel, sin_rel, tx, ty,
                      scratch_vertices, scratch_normals)
            if route == POLYGON_POLYGON:
                count = polygon_contact(local_a, local_normals_a, radius[shape_a],
                                        scratch_vertices[:count_b], scratch_normals[:count_b],
                                        radius[shape_b], margin, normal, points, depths,
                                        features)
            elif route == CAPSULE_CAPSULE:
                count = capsule_contact(local_a, local_normals_a, radius[shape_a],
                                        scratch_vertices[:count_b], scratch_normals[:count_b],
                                        radius[shape_b], margin, normal, points, depths,
                                        features)
            else:
                count = chain_polygon_contact(local_a, local_normals_a,
                                              scratch_vertices[:count_b],
                                              scratch_normals[:count_b], radius[shape_b],
                                              margin, normal, points, depths, features)
        # Back to world space: p = R_A·p' + p_A, n = R_A·n'.
        normal[0], normal[1] = rotate(cos_a, sin_a, normal[0], normal[1])
        for k in range(count):
            x, y = rotate(cos_a, sin_a, points[k, 0], points[k, 1])
            points[k, 0] = x + pax
            points[k, 1] = y + pay

    if swapped and count > 0:
        normal[0], normal[1] = -normal[0], -normal[1]
        for k in range(count):
            features[k] = swap_feature_unchecked(features[k])
    return count


@njit
def _narrow_phase(pairs, shapes, origins, angles, margin, out):
    """Fill ``out`` (a :class:`ContactArrays` of P rows) for every pair; see collide_pairs.

    The unchecked kernel behind :func:`collide_pairs`: its input must already be valid.
    """
    _, kind, body, radius, vertex_start, vertex_count, vertices, normals = shapes
    scratch = NarrowScratch(*narrow_scratch_arrays(shapes, angles.shape[0]))
    scratch_vertices, scratch_normals = scratch.vertices, scratch.normals
    cosines, sines, done = scratch.cosines, scratch.sines, scratch.done
    point_counts, out_normals, out_points, out_depths, out_features = out
    pair_rotations(pairs, body, angles, cosines, sines, done)
    for p in range(pairs.shape[0]):
        count = collide_rows(pairs[p, 0], pairs[p, 1], kind, body, radius, vertex_start,
                             vertex_count, vertices, normals, origins, cosines, sines, margin,
                             scratch_vertices, scratch_normals, out_normals[p], out_points[p],
                             out_depths[p], out_features[p])
        point_counts[p] = count
        if count == 0:
            out_normals[p, 0] = 0.0
            out_normals[p, 1] = 0.0
        for k in range(count, 2):
            out_points[p, k, 0] = 0.0
            out_points[p, k, 1] = 0.0
            out_depths[p, k] = 0.0
            out_features[p, k] = 0


def _shape_pairs(pairs, count: int) -> np.ndarray:
    """``pairs`` as a (P, 2) int64 array of rows of two different shapes of ``count``."""
    try:
        pairs = np.asarray(pairs)
    except ValueError:  # ragged rows
        raise ValueError("pairs must be a (P, 2) array of shape rows, got ragged rows") \
            from None
    if pairs.size == 0:
        pairs = pairs.reshape(0, 2)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ValueError(f"pairs must have shape (P, 2), got {pairs.shape}")
    if pairs.dtype == np.bool_ or not np.issubdtype(pairs.dtype, np.integer):
        raise TypeError(f"pairs must hold integers, got {pairs.dtype}")
    if pairs.size and (pairs.min() < 0 or pairs.max() >= count):
        raise ValueError(f"pairs must index shapes 0 .. {count - 1}")
    pairs = np.ascontiguousarray(pairs, dtype=np.int64)
    same = np.flatnonzero(pairs[:, 0] == pairs[:, 1])
    if len(same):
        raise ValueError(f"pairs must join two different shapes: a shape cannot collide "
                         f"with itself, but row {same[0]} is {pairs[same[0]].tolist()}")
    return pairs


def collide_pairs(pairs, shapes: ShapeTable, origins, angles, *,
                  margin: float = 0.0) -> ContactArrays:
    """Contact manifolds of many shape pairs in one compiled loop.

    Parameters
    ----------
    pairs
        (P, 2) int rows of two different shape indices (shape A, shape B) into ``shapes``.
        Either order of a pair works: (b, a) gives the exact mirror image of (a, b).
    shapes
        The :class:`~physbook.geometry.shape_table.ShapeTable`.
    origins, angles
        (N, 2) body origins (m) and (N,) angles (rad), as
        ``world.bodies.origins, world.bodies.angles``.
    margin
        Also report points up to this far apart (m, ≥ 0), with negative depth; the default
        0 reports touching and overlapping pairs only.

    Returns
    -------
    ContactArrays
        One row per pair: point count (0, 1 or 2), unit normal from A to B, world points
        midway between the two surfaces, depths (positive when overlapping), feature ids.
    """
    _check.instance(shapes, "shapes", ShapeTable, "a ShapeTable")
    pairs = _shape_pairs(pairs, shapes.count)
    origins, angles = body_poses(origins, angles, shapes)
    margin = _check.non_negative_scalar(margin, "margin")
    return _contacts(pairs, shapes, origins, angles, margin)


def _contacts(pairs, shapes: ShapeTable, origins, angles, margin: float) -> ContactArrays:
    """The compiled narrow phase on checked input, into new arrays of one row per pair."""
    count = len(pairs)
    contacts = ContactArrays(np.zeros(count, np.int64), np.zeros((count, 2)),
                             np.zeros((count, 2, 2)), np.zeros((count, 2)),
                             np.zeros((count, 2), np.int64))
    _narrow_phase(pairs, shapes.arrays, origins, angles, margin, contacts)
    return contacts


#: The pair of a two-row table, asked for either way round.
_FIRST_AS_A = np.array([[0, 1]], np.int64)
_FIRST_AS_B = np.array([[1, 0]], np.int64)


def collide(shape_a, xf_a: Transform, shape_b, xf_b: Transform, *,
            margin: float = 0.0) -> Manifold | None:
    """The contact manifold of two shapes in two poses, or None when they do not touch.

    ``shape_a``/``shape_b`` are a :class:`~physbook.geometry.shapes.Circle`,
    :class:`~physbook.geometry.shapes.Polygon` (sharp or rounded),
    :class:`~physbook.geometry.round_shapes.Capsule`,
    :class:`~physbook.geometry.round_shapes.Segment` or
    :class:`~physbook.geometry.round_shapes.ChainSegment` in body coordinates (a chain
    segment collides on its front side only, and treats a segment or another chain segment
    it meets as two-sided), ``xf_a``/``xf_b`` their
    :class:`~physbook.vecmath.vec.Transform`. Either order works: ``collide(b, xf_b, a,
    xf_a)`` is the exact mirror image of ``collide(a, xf_a, b, xf_b)`` (see the module
    docstring), unless the two are the same shape in the same pose. This packs the two
    shapes into a two-row table, in the order :func:`~physbook.collision.sat.b_comes_first`
    fixes, and runs the kernel of :func:`collide_pairs` on it, so both give the same answer
    bit for bit for a table that holds the two shapes in that order.
    """
    check_shape_pair(shape_a, xf_a, shape_b, xf_b)
    margin = _check.non_negative_scalar(margin, "margin")
    b_first = b_goes_first(shape_a, xf_a, shape_b, xf_b)
    (first, xf_first), (second, xf_second) = (
        ((shape_b, xf_b), (shape_a, xf_a)) if b_first else ((shape_a, xf_a), (shape_b, xf_b)))
    table = ShapeTable(2)
    table.append(first, 0)
    table.append(second, 1)
    origins = np.array([xf_first.position, xf_second.position])
    angles = np.array([xf_first.angle, xf_second.angle])
    pair = _FIRST_AS_B if b_first else _FIRST_AS_A
    # The table, poses and pair are made here from checked shapes and Transforms.
    return _contacts(pair, table, origins, angles, margin)._manifold(0)
