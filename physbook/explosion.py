"""Chapter 16: explosions — an impulse on every dynamic shape a blast reaches.

A blast at ``center`` pushes each shape of a dynamic body within ``radius + falloff`` of it
(Box2D's ``b2World_Explode`` rule):

- *where and which way*: at the shape's point nearest the centre, p, away from the centre,
  u = (p − c)/|p − c|. A shape the centre lies inside is pushed at its centroid instead (no
  nearest point on a surface means anything there; the centroid is away from the centre
  unless the blast is at its middle, when u = (1, 0) is taken);
- *how hard*: ``impulse`` (N·s) per metre of the shape's outline facing the blast. Seen
  from far along u, the shape hides a stretch of the line across u as long as its width
  across u, w = max_k q_k·u⊥ − min_k q_k·u⊥ + 2r over its core points q_k grown by its
  radius r (2r for a circle, the shadow of a box); that width is what the blast meets, so
  |J| = impulse · w · s;
- *how far*: s = 1 within ``radius`` of the centre (distance to the nearest point), falling
  linearly to 0 over the next ``falloff`` metres: s = clamp((radius + falloff − d)/falloff,
  0, 1).

The impulse J = |J|·u is applied at p: Δv = J/m, Δω = (p − c_m) × J / I, and the body is
woken. A shape nearer than ``radius + falloff`` but out of reach of the falloff (s = 0)
still wakes. Sensors are never pushed, and a ``filter`` keeps only the shapes it would
collide with. The tree gives the shapes whose boxes meet the blast's box; the exact
distance is the point-to-core distance less the radius.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.collision.core_distance import nearest_on_segment
from physbook.geometry.shape_table import core_count
from physbook.kinds import CHAIN_SEGMENT, DYNAMIC
from physbook.queries import query_filter
from physbook.shape_cast import candidate_rows


class BlastHit(NamedTuple):
    """What a blast did to one shape: the shape (``body``, ``shape``, ``shape_id``), the
    world ``point`` (m) the ``impulse`` (N·s, a 2-vector) was applied at, and the shape's
    ``distance`` (m) from the centre."""

    body: object
    shape: object
    shape_id: int
    point: np.ndarray
    impulse: np.ndarray
    distance: float


@njit
def blast_rows(shapes, origins, angles, rows, cx, cy):
    """For each shape of ``rows``: (distance from (cx, cy) to the shape (m, 0 inside),
    the point pushed (nearest point, or centroid inside), the unit direction away from the
    centre, the shape's width across that direction (m)), as arrays."""
    _, kind, body, radii, vertex_start, vertex_count, vertices, normals = shapes
    n = rows.shape[0]
    distances = np.zeros(n)
    points = np.zeros((n, 2))
    directions = np.zeros((n, 2))
    widths = np.zeros(n)
    for k in range(n):
        s = rows[k]
        b = body[s]
        start = vertex_start[s]
        count = core_count(kind[s], vertex_count[s])
        cosine = math.cos(angles[b])
        sine = math.sin(angles[b])
        world = np.empty((count, 2))
        for j in range(count):
            x = vertices[start + j, 0]
            y = vertices[start + j, 1]
            world[j, 0] = origins[b, 0] + cosine * x - sine * y
            world[j, 1] = origins[b, 1] + sine * x + cosine * y
        # The nearest point of the core: a point, a segment, or a polygon (0 inside).
        inside = count >= 3
        best = math.inf
        qx = world[0, 0]
        qy = world[0, 1]
        if count == 1:
            best = math.hypot(cx - qx, cy - qy)
        edges = 1 if count == 2 else (count if count >= 3 else 0)
        for i in range(edges):
            j = i + 1 if i + 1 < count else 0
            if count >= 3:
                nx = cosine * normals[start + i, 0] - sine * normals[start + i, 1]
                ny = sine * normals[start + i, 0] + cosine * normals[start + i, 1]
                if nx * (cx - world[i, 0]) + ny * (cy - world[i, 1]) > 0.0:
                    inside = False
            gap, u = nearest_on_segment(cx, cy, world[i, 0], world[i, 1], world[j, 0],
                                        world[j, 1])
            if gap < best:
                best = gap
                qx = world[i, 0] + u * (world[j, 0] - world[i, 0])
                qy = world[i, 1] + u * (world[j, 1] - world[i, 1])
        r = radii[s]
        if not inside and best > r:
            distances[k] = best - r
            # Out from the core towards the centre by r: the surface point nearest it.
            px = qx + r * (cx - qx) / best
            py = qy + r * (cy - qy) / best
        else:
            # The centre is inside: push at the centroid (a polygon's area centroid,
            # Σ (p_i + p_{i+1})(p_i × p_{i+1}) / (6·area); the middle of a capsule's,
            # segment's or circle's core).
            px = 0.0
            py = 0.0
            if count >= 3:
                twice_area = 0.0
                for i in range(count):
                    j = i + 1 if i + 1 < count else 0
                    cross = world[i, 0] * world[j, 1] - world[j, 0] * world[i, 1]
                    twice_area += cross
                    px += (world[i, 0] + world[j, 0]) * cross
                    py += (world[i, 1] + world[j, 1]) * cross
                px /= 3.0 * twice_area
                py /= 3.0 * twice_area
            else:
                for j in range(count):
                    px += world[j, 0] / count
                    py += world[j, 1] / count
        points[k, 0] = px
        points[k, 1] = py
        dx = px - cx
        dy = py - cy
        length = math.hypot(dx, dy)
        if length > 1e-12 * max(1.0, abs(cx), abs(cy)):
            dx /= length
            dy /= length
        else:
            dx = 1.0
            dy = 0.0
        directions[k, 0] = dx
        directions[k, 1] = dy
        # The width across u: the spread of the core along u⊥ = (−u_y, u_x), plus 2r.
        low = math.inf
        high = -math.inf
        for j in range(count):
            along = -dy * world[j, 0] + dx * world[j, 1]
            low = min(low, along)
            high = max(high, along)
        widths[k] = high - low + 2.0 * r
    return distances, points, directions, widths


def explode(world, center, radius: float, impulse: float, falloff: float = 0.0,
            filter=None) -> list[BlastHit]:  # noqa: A002 (the queries' name for it)
    """Push every dynamic shape within ``radius + falloff`` of ``center`` away from it.

    Parameters
    ----------
    world
        The :class:`~physbook.world.World`.
    center
        Where the blast is (m).
    radius
        Distance (m, ≥ 0) within which the blast is at full strength.
    impulse
        Impulse (N·s) per metre of a shape's width facing the blast (see the module
        docstring); negative pulls inwards (an implosion).
    falloff
        Distance (m, ≥ 0) beyond ``radius`` over which the strength falls linearly to 0.
    filter
        Only shapes this :class:`~physbook.geometry.shape_filter.Filter` would collide with
        (None: all); sensors never.

    Returns
    -------
    list of BlastHit
        One per shape pushed (by shape id), with the impulse it received; shapes out of
        reach of the falloff are left out, though they are woken.
    """
    center = _check.vector(center, "center")
    radius = _check.non_negative_scalar(radius, "radius")
    impulse = _check.finite_scalar(impulse, "impulse")
    falloff = _check.non_negative_scalar(falloff, "falloff")
    shape_filter = query_filter(filter)
    queries = world._queries  # the tree the world's queries walk
    bodies, shapes = queries._bodies, queries._shapes
    reach = radius + falloff
    rows, origins = candidate_rows(queries, center - reach, center + reach, shape_filter)
    arrays = shapes.arrays
    rows = np.sort(rows[bodies.arrays.kinds[arrays.body[rows]] == DYNAMIC])
    rows = rows[arrays.kind[rows] != CHAIN_SEGMENT]
    if not len(rows):
        return []
    distances, points, directions, widths = blast_rows(arrays, origins, bodies.arrays.angles,
                                                       rows, float(center[0]),
                                                       float(center[1]))
    hits = []
    for k in np.flatnonzero(distances <= reach):
        row = int(rows[k])
        ref = queries._shape_ref(row)
        scale = 1.0
        if distances[k] > radius:  # only with falloff > 0: d ≤ radius + falloff
            scale = min(max((reach - distances[k]) / falloff, 0.0), 1.0)
        push = impulse * widths[k] * scale * directions[k]
        ref.body.apply_impulse(push, points[k])  # wakes the body
        if scale > 0.0:
            hits.append(BlastHit(ref.body, ref.shape, ref.shape_id, points[k].copy(), push,
                                 float(distances[k])))
    return hits
