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

from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.collision.blast import blast_rows
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
