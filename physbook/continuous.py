"""Chapter 13: continuous collision in the world — fast bodies stopped at their time of
impact instead of passing through what they hit.

After the solver has moved the bodies, each *fast* dynamic body (one that may have moved
more than half its thinnest shape's size, :data:`~physbook.constants.FAST_FRACTION`) is
swept from its pose at the start of the step to its pose now. The tree gives the shapes
its swept box touches; against each static one (and, for a bullet, each dynamic one, itself
swept) :func:`~physbook.collision.toi.time_of_impact` finds when they would first touch.
The body is put back at the earliest such time, a hair short of touching, keeping its
velocity: the rest of its motion is handled by the next step, whose speculative contact
then sees the surface (Box2D does the same). A body already touching at the start of the
step is not stopped by that shape: it is resting on it, and the solver has it.
"""

from __future__ import annotations

import math

import numpy as np

from physbook._jit import njit
from physbook.broadphase.filters import categories_match
from physbook.collision.toi import FAILED, HIT, sweep, time_of_impact
from physbook.constants import CONTINUOUS_TARGET, FAST_FRACTION
from physbook.kinds import CIRCLE, DYNAMIC, STATIC


@njit
def body_reaches(shapes, local_centers, count):
    """The farthest any point of each body's shapes lies from its centre of mass (m)."""
    _, kind, body, radius, vertex_start, vertex_count, vertices, _ = shapes
    reaches = np.zeros(count)
    for s in range(kind.shape[0]):
        b = body[s]
        extra = radius[s] if kind[s] == CIRCLE else 0.0
        for k in range(vertex_start[s], vertex_start[s] + vertex_count[s]):
            dx = vertices[k, 0] - local_centers[b, 0]
            dy = vertices[k, 1] - local_centers[b, 1]
            reaches[b] = max(reaches[b], math.sqrt(dx * dx + dy * dy) + extra)
    return reaches


def fast_bodies(bodies, start_centers, start_angles, reaches) -> np.ndarray:
    """Rows of the awake dynamic bodies whose farthest point may have moved more than
    :data:`FAST_FRACTION` of their size: |Δc| + |Δθ|·reach > FAST_FRACTION·size."""
    motion = (np.hypot(*(bodies.centers - start_centers).T)
              + np.abs(bodies.angles - start_angles) * reaches)
    return np.flatnonzero((bodies.kinds == DYNAMIC) & bodies.awake
                          & (motion > FAST_FRACTION * bodies.sizes))


def stop_fast_bodies(world, start_centers, start_angles) -> int:
    """Put each fast body of ``world`` back at its earliest time of impact this step (see
    the module docstring); returns how many were stopped."""
    bodies, table = world.arrays, world.shapes
    shapes, filters = table.arrays, table.filters
    reaches = body_reaches(shapes, bodies.local_centers, len(bodies.kinds))
    fast = fast_bodies(bodies, start_centers, start_angles, reaches)
    if not len(fast):
        return 0
    tree = world.query_tree()
    stopped = 0
    for row in fast.tolist():
        motion = sweep(start_centers[row], bodies.centers[row], start_angles[row],
                       bodies.angles[row], bodies.local_centers[row])
        low = np.minimum(start_centers[row], bodies.centers[row]) - reaches[row]
        high = np.maximum(start_centers[row], bodies.centers[row]) + reaches[row]
        first = 1.0
        own = np.flatnonzero(shapes.body == row)
        for other in tree.query(low, high).tolist():
            other_body = int(shapes.body[other])
            if other_body == row or filters.sensor[other]:
                continue
            kind = bodies.kinds[other_body]
            if kind != STATIC and not (bodies.bullets[row] and kind == DYNAMIC):
                continue
            other_motion = sweep(start_centers[other_body], bodies.centers[other_body],
                                 start_angles[other_body], bodies.angles[other_body],
                                 bodies.local_centers[other_body])
            for mine in own.tolist():
                if filters.sensor[mine] or not categories_match(
                        filters.category[mine], filters.mask[mine], filters.group[mine],
                        filters.category[other], filters.mask[other], filters.group[other]):
                    continue
                result = time_of_impact(table.shape(mine), motion, table.shape(other),
                                        other_motion, t_max=first, target=CONTINUOUS_TARGET)
                if result.state in (HIT, FAILED) and 0.0 < result.fraction < first:
                    first = result.fraction
        if first < 1.0:
            bodies.centers[row] = motion.c0 + first * (motion.c1 - motion.c0)
            bodies.angles[row] = motion.a0 + first * (motion.a1 - motion.a0)
            stopped += 1
    return stopped
