"""Chapter 11: islands of bodies that touch or are jointed, and putting them to sleep.

A body resting in a pile cannot sleep on its own: the boxes on top of it lean on it, so if
it stopped being solved they would sink into it. Bodies therefore sleep in *islands*: the
dynamic bodies linked through contacts and joints (static bodies do not link, or the
whole world would be one island through the ground). After each step:

- each awake dynamic body that moves slower than the sleep speeds (|v| and |ω|) adds the
  step to its ``sleep_time``; a faster one resets it to 0;
- union–find groups the bodies into islands; an island whose *slowest sleeper* has slept
  long enough (every body's ``sleep_time`` ≥ ``time_to_sleep``) falls asleep: its
  bodies stop (v = ω = 0) and their ``awake`` flag drops, and every stage of the next
  steps skips them;
- an island with an awake body is awake as a whole.

Before each step, a sleeping body wakes, with its island, when it is given a velocity or a
force, or when an awake body (or a moving kinematic one) touches it or is jointed to it.

The island of each body is kept as a label (the row of a body of its island) between steps,
so that waking a body can wake its island before the solver runs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._jit import njit
from physbook.dynamics.motion import origin_of
from physbook.kinds import DYNAMIC, KINEMATIC, STATIC


class IslandWork(NamedTuple):
    """What the sleep stages of a compiled step work on: each body's island ``labels`` of
    the last step, and scratch (N,) (``marks`` bool, ``parents`` int64, ``slowest``
    float), with the sleep thresholds (``linear_speed`` m/s, ``angular_speed`` rad/s,
    ``time_to_sleep`` s)."""

    labels: np.ndarray
    marks: np.ndarray
    parents: np.ndarray
    slowest: np.ndarray
    linear_speed: float
    angular_speed: float
    time_to_sleep: float


@njit(refcounted=False)
def _find(parent, i):
    """The root of i's set, halving the path on the way (union–find)."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(refcounted=False)
def _union(parent, i, j):
    root_i = _find(parent, i)
    root_j = _find(parent, j)
    if root_i != root_j:
        # The smaller row becomes the root: labels do not depend on the order of links.
        if root_i < root_j:
            parent[root_j] = root_i
        else:
            parent[root_i] = root_j


@njit(refcounted=False)
def _wake(awake, sleep_times, i):
    if not awake[i]:
        awake[i] = True
        sleep_times[i] = 0.0


@njit(refcounted=False)
def wake_before_step(bodies, islands, marks, sleeping):
    """Set ``awake`` before a step: static bodies never, kinematic ones while they move,
    dynamic ones when their island has an awake body, when a velocity or a force was given
    to them since the last step, or when their centre or angle was written (all of them
    when ``sleeping`` is off). A force or torque also restarts the body's sleep time: a
    body pushed every step never sleeps. Returns how many bodies are awake after it: none
    means that nothing can move in this step.

    A sleeping body's centre and angle stay where it fell asleep (its ``sleep_centers`` and
    ``sleep_angles``) unless something writes them through the arrays: such a body goes
    where it was put (its origin follows at once, so that this step's collisions see it
    there) and wakes. ``bodies`` are the :class:`~physbook.dynamics.body_table.BodyArrays`;
    ``islands`` (N,) the labels of the last step; ``marks`` (N,) bool scratch.
    """
    kinds, awake, sleep_times = bodies.kinds, bodies.awake, bodies.sleep_times
    velocities, angular_velocities = bodies.velocities, bodies.angular_velocities
    forces, torques = bodies.forces, bodies.torques
    centers, angles = bodies.centers, bodies.angles
    sleep_centers, sleep_angles = bodies.sleep_centers, bodies.sleep_angles
    count = kinds.shape[0]
    awake_count = 0
    for i in range(count):
        if kinds[i] == STATIC:
            awake[i] = False
            continue
        moving = (velocities[i, 0] != 0.0 or velocities[i, 1] != 0.0
                  or angular_velocities[i] != 0.0)
        if kinds[i] == KINEMATIC:
            awake[i] = moving
            awake_count += moving
            continue
        pushed = forces[i, 0] != 0.0 or forces[i, 1] != 0.0 or torques[i] != 0.0
        moved = not awake[i] and (centers[i, 0] != sleep_centers[i, 0]
                                  or centers[i, 1] != sleep_centers[i, 1]
                                  or angles[i] != sleep_angles[i])
        if moved:
            origin_of(bodies.origins, centers, angles, bodies.local_centers, i)
        if not sleeping or moving or pushed or moved:
            _wake(awake, sleep_times, i)
        if pushed:
            # A body under a force is not at rest, however slowly it moves yet.
            sleep_times[i] = 0.0
        awake_count += awake[i]
    if awake_count == 0:
        return 0  # every island sleeps on: nothing to spread
    # An awake body wakes its island: mark the islands, then wake their sleeping bodies.
    for i in range(count):
        marks[i] = False
    for i in range(count):
        if awake[i]:
            marks[islands[i]] = True
    for i in range(count):
        if kinds[i] == DYNAMIC and marks[islands[i]] and not awake[i]:
            _wake(awake, sleep_times, i)
            awake_count += 1
    return awake_count


@njit(refcounted=False)
def wake_touched(contact_bodies, joint_bodies, kinds, awake, sleep_times, islands, marks):
    """After the narrow phase: every sleeping dynamic body that an awake body touches or is
    jointed to wakes, with its island. Returns the number of bodies woken."""
    found = False
    for i in range(kinds.shape[0]):
        marks[i] = False
    for links in (contact_bodies, joint_bodies):
        for m in range(links.shape[0]):
            a = links[m, 0]
            b = links[m, 1]
            if awake[a] == awake[b]:
                continue
            sleeper = b if awake[a] else a
            if kinds[sleeper] == DYNAMIC:
                marks[islands[sleeper]] = True
                found = True
    woken = 0
    if found:
        for i in range(kinds.shape[0]):
            if kinds[i] == DYNAMIC and not awake[i] and marks[islands[i]]:
                _wake(awake, sleep_times, i)
                woken += 1
    return woken


@njit(refcounted=False)
def update_islands(bodies, contact_bodies, joint_bodies, dt, linear_speed, angular_speed,
                   time_to_sleep, islands, parent, slowest):
    """After a step: count sleep time, group the islands, and put to sleep every island
    whose bodies have all been slow for ``time_to_sleep`` (see the module docstring).

    ``bodies`` are the :class:`~physbook.dynamics.body_table.BodyArrays`, ``contact_bodies``
    and ``joint_bodies`` (M, 2) the body rows each contact and joint links. ``islands``
    (N,) receives each body's label; ``parent`` (N,) int64 and ``slowest`` (N,) float
    scratch. A body that falls asleep keeps where it is in its ``sleep_centers`` and
    ``sleep_angles``. Returns the number of dynamic bodies awake after the step.
    """
    kinds, awake, sleep_times = bodies.kinds, bodies.awake, bodies.sleep_times
    velocities, angular_velocities = bodies.velocities, bodies.angular_velocities
    count = kinds.shape[0]
    linear_squared = linear_speed * linear_speed
    angular_squared = angular_speed * angular_speed
    for i in range(count):
        parent[i] = i
        slowest[i] = np.inf
        if kinds[i] == DYNAMIC and awake[i]:
            speed_squared = velocities[i, 0] ** 2 + velocities[i, 1] ** 2
            if (speed_squared > linear_squared
                    or angular_velocities[i] ** 2 > angular_squared):
                sleep_times[i] = 0.0
            else:
                sleep_times[i] += dt
    for links in (contact_bodies, joint_bodies):
        for m in range(links.shape[0]):
            a = links[m, 0]
            b = links[m, 1]
            if kinds[a] == DYNAMIC and kinds[b] == DYNAMIC:
                _union(parent, a, b)
    for i in range(count):
        if kinds[i] == DYNAMIC:
            root = _find(parent, i)
            slowest[root] = min(slowest[root], sleep_times[i])
    # A moving kinematic body keeps awake whatever it touches or holds.
    for links in (contact_bodies, joint_bodies):
        for m in range(links.shape[0]):
            a = links[m, 0]
            b = links[m, 1]
            if kinds[a] == KINEMATIC and awake[a] and kinds[b] == DYNAMIC:
                slowest[_find(parent, b)] = 0.0
            elif kinds[b] == KINEMATIC and awake[b] and kinds[a] == DYNAMIC:
                slowest[_find(parent, a)] = 0.0
    awake_count = 0
    for i in range(count):
        if kinds[i] != DYNAMIC:
            islands[i] = i
            continue
        root = _find(parent, i)
        islands[i] = root
        if slowest[root] >= time_to_sleep:
            if awake[i]:
                fall_asleep(bodies, i)
        else:
            _wake(awake, sleep_times, i)
            awake_count += 1
    return awake_count


@njit(refcounted=False)
def fall_asleep(bodies, i):
    """Body ``i`` falls asleep where it is: it stops, and keeps its centre and angle."""
    bodies.awake[i] = False
    bodies.velocities[i, 0] = 0.0
    bodies.velocities[i, 1] = 0.0
    bodies.angular_velocities[i] = 0.0
    bodies.sleep_centers[i, 0] = bodies.centers[i, 0]
    bodies.sleep_centers[i, 1] = bodies.centers[i, 1]
    bodies.sleep_angles[i] = bodies.angles[i]


def wake_around(rows: np.ndarray, contact_bodies: np.ndarray, joint_bodies: np.ndarray,
                kinds: np.ndarray, awake: np.ndarray, sleep_times: np.ndarray) -> None:
    """Wake the dynamic bodies among ``rows`` and every dynamic body that touches one of them
    (``contact_bodies``, (M, 2) rows) or is jointed to one (``joint_bodies``); their islands
    wake with them before the next step. A body that is removed, moved, filtered anew or
    given another kind changes what rests on it, and a sleeping island would not notice:
    static and kinematic bodies link no island, and a sleeping pair keeps its contact."""
    rows = np.asarray(rows, dtype=np.int64)
    links = np.concatenate([contact_bodies, joint_bodies])
    near = links[np.isin(links, rows).any(axis=1)].ravel()
    found = np.union1d(rows, near)
    sleepers = found[(kinds[found] == DYNAMIC) & ~awake[found]]
    awake[sleepers] = True
    sleep_times[sleepers] = 0.0


def island_after_removal(islands: np.ndarray, kinds: np.ndarray, awake: np.ndarray,
                         sleep_times: np.ndarray, row: int) -> None:
    """Before the body at ``row`` is removed: wake its island (what leaned on it must
    fall), give those bodies labels of their own, and shift every label past ``row`` down
    one, so that the labels stay rows of the bodies that remain. ``kinds``, ``awake`` and
    ``sleep_times`` are body columns of every row in use; ``islands`` has at least as
    many rows."""
    count = len(kinds)
    labels = islands[:count]
    group = np.flatnonzero(labels == labels[row])
    sleepers = group[(kinds[group] == DYNAMIC) & ~awake[group]]
    awake[sleepers] = True
    sleep_times[sleepers] = 0.0
    labels[group] = group
    labels[row:count - 1] = labels[row + 1:count].copy()
    remaining = labels[:count - 1]
    remaining[remaining > row] -= 1


def islands_after_removals(islands: np.ndarray, kinds: np.ndarray, awake: np.ndarray,
                           removed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`island_after_removal` for the bodies at the rows ``removed`` (sorted,
    distinct) at once, changing nothing: returns the labels of the bodies that remain,
    renumbered as their rows will be, and the rows (as they are now) of the sleeping dynamic
    bodies to wake. ``kinds`` and ``awake`` are body columns of every row in use; ``islands``
    has at least as many rows.

    Each island that holds a removed body wakes and its bodies get labels of their own, as
    removing the bodies one by one does: the second removal of an island finds its bodies
    labelled apart already.
    """
    count = len(kinds)
    labels = np.empty(count - len(removed), np.int64)
    woken = np.empty(count, np.int64)
    woke = _relabel_after_removals(islands, kinds, awake, removed, np.zeros(count, np.bool_),
                                   labels, woken)
    return labels, woken[:woke]


@njit(refcounted=False)
def _relabel_after_removals(islands, kinds, awake, removed, touched, labels, woken):
    """The loop of :func:`islands_after_removals`: fills ``labels`` and the first entries
    of ``woken``, returns how many; ``touched`` (N,) bool, all false, is scratch. A label
    is the row of a body of its island, never a removed one once those islands are
    relabelled, and a row behind j removed ones moves up j rows."""
    for row in removed:
        touched[islands[row]] = True
    woke = 0
    gaps = 0
    for i in range(kinds.shape[0]):
        if gaps < removed.shape[0] and removed[gaps] == i:
            gaps += 1
            continue
        label = islands[i]
        if touched[label]:
            label = i
            if kinds[i] == DYNAMIC and not awake[i]:
                woken[woke] = i
                woke += 1
        labels[i - gaps] = label - np.searchsorted(removed, label)
    return woke
