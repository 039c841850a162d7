"""Chapter 6: manifolds for axis-aligned boxes, the first collisions of the book.

An :class:`~physbook.geometry.shapes.AABB` cannot turn, which makes its tests short enough
to read in one go. They are written plainly in numpy; the engine's compiled narrow phase
(:func:`physbook.collision.manifold.collide`) treats a box as a
:class:`~physbook.geometry.shapes.Polygon` and gives the same manifold: the same normal,
depths, contact points (midway between the two surfaces) and feature ids, numbering a box
as ``Polygon.box`` does. Corners 0..3 are
lower-left, lower-right, upper-right, upper-left; edges 0..3 are bottom, right, top, left.

A circle here is a :class:`~physbook.geometry.shapes.Circle` whose ``center`` is read as its world
position.
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook.collision.features import make_feature, swap_feature
from physbook.collision.manifold import Manifold
from physbook.geometry.shapes import AABB, Circle

#: Outward normals of a box's edges 0..3: bottom, right, top, left.
EDGE_NORMALS = np.array([[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])


def _corners(box: AABB) -> np.ndarray:
    (x0, y0), (x1, y1) = box.lower, box.upper
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


def _manifold(normal, points, depths, features) -> Manifold:
    """The manifold, once its depths and points are known to be finite.

    Every input is finite, so an inf can only come from a result beyond the float range:
    boxes or circles that reach across most of it.
    """
    for name, values in (("depth", depths), ("contact point", points)):
        if not np.all(np.isfinite(values)):
            raise FloatingPointError(f"the {name} of this contact overflows the float range "
                                     "(±1.8e308 m)")
    return Manifold(normal, points, depths, features)


def aabb_vs_aabb(a: AABB, b: AABB) -> Manifold | None:
    """The manifold of two axis-aligned boxes, or None when they do not touch.

    Along x, B must move ``e_A + e_B − |d_x|`` (half widths e, centre offset d = c_B − c_A)
    in the direction of d_x to stop overlapping; the same along y. That is the smaller of
    the two ways out, forwards by ``upper_A − lower_B`` or backwards by ``upper_B − lower_A``,
    which is how it is computed: without the centres, every difference stays in float range
    for boxes anywhere in it. The normal is the axis of *least* penetration, signed towards
    B (a tie picks x). The two contact points sit on B's face (the incident face) clipped to
    A's face, moved halfway to A's face.

    The narrow phase gives the same manifold for the boxes as polygons, its two points
    perhaps in the other order: the facing sides of two boxes tie as reference faces, and
    it may keep B's (see :func:`~physbook.collision.sat.b_comes_first`), which gives the
    same points, depths and feature ids.
    """
    _check.instance(a, "a", AABB, "an AABB")
    _check.instance(b, "b", AABB, "an AABB")
    # One way out may overflow for boxes spanning most of the float range; the other is
    # then the overlap, and an overlap that overflows is reported by _manifold.
    with np.errstate(over="ignore"):
        forwards = a.upper - b.lower  # per axis: B moved this far along +axis clears A
        backwards = b.upper - a.lower  # ... or this far along −axis
    overlap = np.minimum(forwards, backwards)  # = e_A + e_B − |d|
    if np.any(overlap < 0.0):
        return None
    axis = 0 if overlap[0] <= overlap[1] else 1
    positive = forwards[axis] <= backwards[axis]  # d ≥ 0: B lies on the + side
    # The reference edge of A that faces B, and the neighbouring corners named as
    # Polygon.box numbers them: edge e runs from corner e to corner e + 1.
    edge = {(0, True): 1, (1, True): 2, (0, False): 3, (1, False): 0}[axis, positive]
    normal = EDGE_NORMALS[edge].copy()
    depth = overlap[axis]

    # The reference face (A's) and the incident face (B's) lie across the normal; the
    # contact points are halfway between them, at the ends of the overlap along the face.
    across = 1 - axis
    reference_face = a.upper[axis] if positive else a.lower[axis]
    incident_face = b.lower[axis] if positive else b.upper[axis]
    ends = [max(a.lower[across], b.lower[across]), min(a.upper[across], b.upper[across])]
    # The 'lower' point is the one next to corner `edge` of A (the reference edge's start):
    # edges 0 and 1 start at the low end of the face's span, edges 2 and 3 at its high end.
    if edge >= 2:
        ends.reverse()
    points = np.empty((2, 2))
    points[:, axis] = 0.5 * reference_face + 0.5 * incident_face
    points[:, across] = ends
    # B's incident edge is the opposite edge, edge + 2; it runs from corner edge + 2 to
    # corner edge + 3, so corner edge + 3 lies next to A's corner edge.
    features = np.array([make_feature(2 * edge, 2 * ((edge + 3) % 4)),
                         make_feature(2 * ((edge + 1) % 4), 2 * ((edge + 2) % 4))], np.int64)
    return _manifold(normal, points, np.array([depth, depth]), features)


def aabb_vs_circle(box: AABB, circle: Circle) -> Manifold | None:
    """The manifold of a box (A) and a circle (B), or None when they do not touch.

    The point of the box closest to the centre c is c clamped to the box. If that point is
    not c, the centre is outside: the normal points from the closest point to c and
    depth = r − distance. If it is c, the centre is inside the box: the circle must leave
    through the nearest face, so the normal is that face's outward normal and
    depth = r + d, where d is the centre's distance to that face (the circle has to cross
    d to reach the face, and then a whole radius more).
    """
    _check.instance(box, "box", AABB, "an AABB")
    _check.instance(circle, "circle", Circle, "a Circle")
    centre, radius = circle.center, circle.radius
    closest = np.clip(centre, box.lower, box.upper)
    if np.any(closest != centre):
        with np.errstate(over="ignore"):  # a gap beyond the float range is no contact
            gap = centre - closest
        distance = float(np.hypot(*gap))
        if distance > radius:
            return None
        normal = gap / distance
        on_x = closest[0] in (box.lower[0], box.upper[0])
        on_y = closest[1] in (box.lower[1], box.upper[1])
        if on_x and on_y:  # a corner is closest: feature = that vertex
            corner = int(np.argmin(np.hypot(*(_corners(box) - closest).T)))
            feature = 2 * corner
        else:  # a face is closest: feature = that edge
            feature = 2 * int(np.argmax(EDGE_NORMALS @ normal)) + 1
        depth = radius - distance
    else:
        # Distances from the centre to the faces bottom, right, top, left; the nearest wins
        # (the first on a tie, as the polygon test does).
        with np.errstate(over="ignore"):  # a far face may overflow; the nearest cannot
            to_faces = np.array([centre[1] - box.lower[1], box.upper[0] - centre[0],
                                 box.upper[1] - centre[1], centre[0] - box.lower[0]])
        edge = int(np.argmin(to_faces))
        normal = EDGE_NORMALS[edge].copy()
        closest = centre + to_faces[edge] * normal
        depth = radius + to_faces[edge]
        feature = 2 * edge + 1
    # Midway between the box's surface point and the circle's surface point c − r·n, each
    # term halved first so that no sum leaves float range.
    point = 0.5 * closest + 0.5 * centre - (0.5 * radius) * normal
    return _manifold(normal, point[None, :], np.array([depth]),
                     np.array([make_feature(feature, 0)], np.int64))


def circle_vs_aabb(circle: Circle, box: AABB) -> Manifold | None:
    """As :func:`aabb_vs_circle` with the circle as shape A: the normal is flipped."""
    _check.instance(circle, "circle", Circle, "a Circle")
    _check.instance(box, "box", AABB, "an AABB")
    manifold = aabb_vs_circle(box, circle)
    if manifold is None:
        return None
    # Swap A and B: the normal turns round, the feature numbers trade places.
    swapped = np.array([swap_feature(int(f)) for f in manifold.features], np.int64)
    return Manifold(-manifold.normal, manifold.points, manifold.depths, swapped)
