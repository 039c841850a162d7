"""Chapter 12: what happened in a step, for a game to react to: contacts that began, ended
or hit hard, and shapes entering and leaving sensors.

Two shapes *touch* in a step when a point of their contact, as the narrow phase found it at
the start of the step, overlaps or touches (depth ≥ 0), or is still apart but closes its
gap within the step at the speed it approaches (gap ≤ speed·dt): a solver that takes
speculative contacts (the soft step) meets such a point as a contact, and a ball that
bounces off it within the step did touch the floor, though no step starts with the two
overlapping. A pair *begins* touching in a
step if it touches in that step and did not in the previous one, and *ends* if the
reverse, or if one of its bodies was removed. A *hit* is a touching point whose approach
speed exceeds a threshold: the moment of an impact. A sensor and a shape overlap when their
geometry does (depth ≥ 0) at the start of the step.

Events are arrays of stable shape ids, pairs ordered ``(smaller id, larger id)``; a sensor
event is ordered ``(sensor, visitor)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._jit import njit
from physbook.dynamics.contact_surface import CONTACT_DISABLED


class HitEvents(NamedTuple):
    """Impacts of one step: ``shape_ids`` (H, 2), the contact ``points`` (H, 2) (m) and
    ``normals`` (H, 2) from the first shape to the second, and the approach ``speeds``
    (H,) (m/s), the fastest point of each pair."""

    shape_ids: np.ndarray
    points: np.ndarray
    normals: np.ndarray
    speeds: np.ndarray


class ContactEvents(NamedTuple):
    """Contact events of one step: ``begin`` and ``end`` (K, 2) shape id pairs, ``hits``."""

    begin: np.ndarray
    end: np.ndarray
    hits: HitEvents


class SensorEvents(NamedTuple):
    """Sensor events of one step: ``begin`` and ``end`` (K, 2) pairs (sensor id, visitor id)."""

    begin: np.ndarray
    end: np.ndarray


class EventBuffers(NamedTuple):
    """What an events stage writes into, kept between steps, at least one row per contact
    row: the touching pairs' ``keys``, and the hits' shape ids ``hit_ids`` (H, 2), points
    ``hit_points`` (H, 2) (m), normals ``hit_normals`` (H, 2) and speeds ``hit_speeds``
    (H,) (m/s), in the first rows (see :func:`contact_states_into`)."""

    keys: np.ndarray
    hit_ids: np.ndarray
    hit_points: np.ndarray
    hit_normals: np.ndarray
    hit_speeds: np.ndarray


class EventCounts(NamedTuple):
    """What an events stage found: how many pairs touch (``touching``) and hit
    (``hits``), the rows of :class:`EventBuffers` it filled, and whether the touching keys
    differ from the last step's (``changed``)."""

    touching: int
    hits: int
    changed: bool


def event_buffers(rows: int) -> EventBuffers:
    """Empty :class:`EventBuffers` for ``rows`` contact rows."""
    return EventBuffers(np.empty(rows, np.int64), np.empty((rows, 2), np.int64),
                        np.empty((rows, 2)), np.empty((rows, 2)), np.empty(rows))


def pair_keys(shape_ids: np.ndarray) -> np.ndarray:
    """One int64 per pair of shape ids (a, b), a < b: a·2³² + b, ordered as the pairs."""
    return (shape_ids[:, 0].astype(np.int64) << 32) + shape_ids[:, 1]


def key_pairs(keys: np.ndarray) -> np.ndarray:
    """The (K, 2) shape id pairs of ``keys``."""
    return np.column_stack([keys >> 32, keys & 0xFFFFFFFF]).astype(np.int64).reshape(-1, 2)


@njit
def split_sensor_pairs(pairs, sensor):
    """The sensor stage's split of the broad phase's ``pairs`` ((P, 2) shape rows), given
    each shape's ``sensor`` flag (S,): (the pairs of two ordinary shapes, which get
    contacts; the pairs of a sensor and an ordinary shape, which get only an overlap test),
    each in the order of ``pairs``. Two sensors do not sense each other: their pair is in
    neither."""
    contact_count = sensed_count = 0
    for p in range(pairs.shape[0]):
        first, second = sensor[pairs[p, 0]], sensor[pairs[p, 1]]
        if not (first or second):
            contact_count += 1
        elif first != second:
            sensed_count += 1
    kept = np.empty((contact_count, 2), np.int64)
    sensed = np.empty((sensed_count, 2), np.int64)
    contact_count = sensed_count = 0
    # Copied value by value: a row assigned whole has numba compile its message for rows
    # of unequal shapes too, about 2 s of a world's first step.
    for p in range(pairs.shape[0]):
        first, second = sensor[pairs[p, 0]], sensor[pairs[p, 1]]
        if not (first or second):
            kept[contact_count, 0], kept[contact_count, 1] = pairs[p, 0], pairs[p, 1]
            contact_count += 1
        elif first != second:
            sensed[sensed_count, 0], sensed[sensed_count, 1] = pairs[p, 0], pairs[p, 1]
            sensed_count += 1
    return kept, sensed


@njit
def touching_rows(point_counts, depths):
    """Rows of a contact table with a point at depth ≥ 0 (overlapping or touching)."""
    out = np.empty(point_counts.shape[0], np.int64)
    found = 0
    for row in range(point_counts.shape[0]):
        for k in range(point_counts[row]):
            if depths[row, k] >= 0.0:
                out[found] = row
                found += 1
                break
    return out[:found]


@njit
def contact_states(shape_ids, bodies, point_counts, normals, points, depths, centers,
                   velocities, angular_velocities, dt, threshold):
    """Which pairs touch in the step and which hit, given the bodies' motion before it.

    The approach speed of a point is −(v_B + ω_B × r_B − v_A − ω_A × r_A)·n. A row touches
    if a point has depth ≥ 0 or closes its gap (−depth) within ``dt`` at that speed; it
    hits if such a point approaches faster than ``threshold`` (m/s). Returns the touching
    pairs' keys (sorted, as the rows are), and for the hits their shape ids, fastest point,
    normal and speed.
    """
    count = point_counts.shape[0]
    flags = np.zeros(count, np.int64)
    keys = np.empty(count, np.int64)
    hit_ids = np.empty((count, 2), np.int64)
    hit_points = np.empty((count, 2))
    hit_normals = np.empty((count, 2))
    hit_speeds = np.empty(count)
    touch_count, hit_count = contact_states_into(
        shape_ids, bodies, point_counts, normals, points, depths, flags, centers, velocities,
        angular_velocities, dt, threshold, keys, hit_ids, hit_points, hit_normals, hit_speeds)
    return (keys[:touch_count], hit_ids[:hit_count], hit_points[:hit_count],
            hit_normals[:hit_count], hit_speeds[:hit_count])


@njit(refcounted=False)
def contact_states_into(shape_ids, bodies, point_counts, normals, points, depths, flags,
                        centers, velocities, angular_velocities, dt, threshold, keys, hit_ids,
                        hit_points, hit_normals, hit_speeds):
    """:func:`contact_states` written into buffers of at least as many rows as the contact
    rows (the touching keys, then the hits' ids, points, normals and speeds); returns how
    many pairs touch and how many hit. A row whose ``flags`` say it is off this step
    (chapter 16) neither touches nor hits: the bodies pass through each other."""
    touch_count = 0
    hit_count = 0
    for row in range(point_counts.shape[0]):
        if flags[row] & CONTACT_DISABLED:
            continue
        a = bodies[row, 0]
        b = bodies[row, 1]
        touches = False
        best = threshold
        best_point = -1
        for k in range(point_counts[row]):
            px = points[row, k, 0]
            py = points[row, k, 1]
            # v + ω × r, with ω × r = ω·(−r_y, r_x).
            va_x = velocities[a, 0] - angular_velocities[a] * (py - centers[a, 1])
            va_y = velocities[a, 1] + angular_velocities[a] * (px - centers[a, 0])
            vb_x = velocities[b, 0] - angular_velocities[b] * (py - centers[b, 1])
            vb_y = velocities[b, 1] + angular_velocities[b] * (px - centers[b, 0])
            speed = -((vb_x - va_x) * normals[row, 0] + (vb_y - va_y) * normals[row, 1])
            if depths[row, k] >= 0.0 or -depths[row, k] <= speed * dt:
                touches = True
                if speed > best:
                    best = speed
                    best_point = k
        if touches:
            keys[touch_count] = (shape_ids[row, 0] << 32) + shape_ids[row, 1]
            touch_count += 1
        if best_point >= 0:
            hit_ids[hit_count, 0] = shape_ids[row, 0]
            hit_ids[hit_count, 1] = shape_ids[row, 1]
            hit_points[hit_count, 0] = points[row, best_point, 0]
            hit_points[hit_count, 1] = points[row, best_point, 1]
            hit_normals[hit_count, 0] = normals[row, 0]
            hit_normals[hit_count, 1] = normals[row, 1]
            hit_speeds[hit_count] = best
            hit_count += 1
    return touch_count, hit_count


def difference(keys: np.ndarray, others: np.ndarray) -> np.ndarray:
    """The sorted keys of ``keys`` not in ``others`` (both sorted and unique)."""
    return np.setdiff1d(keys, others, assume_unique=True)


_NO_POINTS = np.zeros((0, 2))
_NO_NORMAL = np.zeros(2)
_NO_POINTS.flags.writeable = False
_NO_NORMAL.flags.writeable = False


class Contact(NamedTuple):
    """What a contact callback receives: the two shapes' ids and bodies, in the order of
    the callback's categories, and whether the event is a sensor's (``shape_a`` is then
    the sensor or the visitor, as the categories put them). A contact that began also
    carries its ``points`` (K, 2) (m) and unit ``normal`` (from shape a to shape b) as the
    step found them, and the ``normal_impulse`` and ``tangent_impulse`` (N·s, summed over
    its points; tangent along (−n_y, n_x)) the solver gave it in the step; a contact that
    ended, or a sensor's, has no points, a zero normal and no impulse."""

    shape_a: int
    shape_b: int
    body_a: object
    body_b: object
    sensor: bool
    points: np.ndarray = _NO_POINTS
    normal: np.ndarray = _NO_NORMAL
    normal_impulse: float = 0.0
    tangent_impulse: float = 0.0


class Hit(NamedTuple):
    """What a hit callback receives: the shapes and bodies in the order of the callback's
    categories, the contact ``point`` (m), the unit ``normal`` from shape a to shape b, and
    the ``speed`` (m/s) at which the point approached."""

    shape_a: int
    shape_b: int
    body_a: object
    body_b: object
    point: np.ndarray
    normal: np.ndarray
    speed: float


class ContactHandler(NamedTuple):
    """A callback registration: categories and the functions to call."""

    category_a: int
    category_b: int
    begin: object
    end: object
    hit: object = None
