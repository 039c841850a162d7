"""A step that cannot be trusted is undone: the state saved before it, checked after.

A NaN or an infinity spreads through every contact it touches, so a world must stop at the
step that makes one, and must be left as it was before that step, so that the program can
catch the error, look at the bodies and go on. The same holds for a step cut short by an
exception from outside, a ``KeyboardInterrupt`` above all (Ctrl-C, or a notebook's stop
button): whatever the step had written must go. Before each step :func:`save_step_start`
copies what waking writes and the island labels, and, once something is awake,
:func:`save_motion` the rest of the body columns a step writes (a step in which everything
sleeps writes nothing else); after it :func:`first_non_finite` finds the first body whose
state overflowed, and :meth:`StepSnapshot.restore` puts the saved columns back.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook._buffers import grown
from physbook._jit import njit

#: The quantities checked, by the code :func:`first_non_finite` returns (code % 8).
QUANTITIES = ("centers", "angles", "velocities", "angular_velocities", "forces", "torques",
              "gravity_scales", "origins")


@njit(refcounted=False)
def first_non_finite(centers, angles, velocities, angular_velocities, forces, torques,
                     gravity_scales, origins):
    """The first body row with a quantity that is NaN or infinite, as ``8·row + q`` with q
    the quantity's index in :data:`QUANTITIES`; −1 when every value is finite."""
    for i in range(angles.shape[0]):
        if not (math.isfinite(centers[i, 0]) and math.isfinite(centers[i, 1])):
            return 8 * i
        if not math.isfinite(angles[i]):
            return 8 * i + 1
        if not (math.isfinite(velocities[i, 0]) and math.isfinite(velocities[i, 1])):
            return 8 * i + 2
        if not math.isfinite(angular_velocities[i]):
            return 8 * i + 3
        if not (math.isfinite(forces[i, 0]) and math.isfinite(forces[i, 1])):
            return 8 * i + 4
        if not math.isfinite(torques[i]):
            return 8 * i + 5
        if not math.isfinite(gravity_scales[i]):
            return 8 * i + 6
        if not (math.isfinite(origins[i, 0]) and math.isfinite(origins[i, 1])):
            return 8 * i + 7
    return -1


#: The exponent bits of a float64: all set in an infinity or a NaN, and only there.
_EXPONENT_BITS = np.int64(0x7FF0000000000000)


@njit(refcounted=False, inline=True)
def _non_finite_count(column):
    """How many values of ``column`` (a contiguous float64 array) are NaN or infinite: those
    whose exponent bits are all set. A branch-free count over the bits, which the compiler
    turns into vector instructions; testing each value and returning at the first costs
    about three times as much."""
    bits = column.reshape(-1).view(np.int64)
    found = 0
    for k in range(bits.shape[0]):
        found += (bits[k] & _EXPONENT_BITS) == _EXPONENT_BITS
    return found


@njit(refcounted=False)
def first_non_finite_fast(centers, angles, velocities, angular_velocities, forces, torques,
                          gravity_scales, origins):
    """:func:`first_non_finite`, counting first: a step checks every body twice, and
    nearly always finds nothing."""
    if (_non_finite_count(centers) + _non_finite_count(angles)
            + _non_finite_count(velocities) + _non_finite_count(angular_velocities)
            + _non_finite_count(forces) + _non_finite_count(torques)
            + _non_finite_count(gravity_scales) + _non_finite_count(origins)) == 0:
        return -1
    return first_non_finite(centers, angles, velocities, angular_velocities, forces,
                            torques, gravity_scales, origins)


def check_finite(bodies) -> tuple[int, str] | None:
    """(row, quantity) of the first body state in ``bodies`` that is not finite, or None."""
    code = first_non_finite(bodies.centers, bodies.angles, bodies.velocities,
                            bodies.angular_velocities, bodies.forces, bodies.torques,
                            bodies.gravity_scales, bodies.origins)
    return None if code < 0 else (code // 8, QUANTITIES[code % 8])


class SavedStep(NamedTuple):
    """Buffers of the state at the start of a step, one row per body: the body columns a
    step writes (motion, sleep, the forces it clears), the island labels of chapter 11, and
    ``saved`` (1,): 0 while they hold nothing of the step under way, 1 once the step saved
    what waking writes (:func:`save_step_start`), 2 once it saved the motion too
    (:func:`save_motion`)."""

    origins: np.ndarray
    centers: np.ndarray
    angles: np.ndarray
    velocities: np.ndarray
    angular_velocities: np.ndarray
    awake: np.ndarray
    sleep_times: np.ndarray
    forces: np.ndarray
    torques: np.ndarray
    islands: np.ndarray
    saved: np.ndarray


@njit(refcounted=False, inline=True)
def _copy(source, target):
    """``target[:] = source`` for two contiguous arrays of one shape, as one flat loop (a
    copy the compiler vectorizes; numba's slice assignment is about three times slower)."""
    flat_source = source.reshape(-1)
    flat_target = target.reshape(-1)
    for k in range(flat_source.shape[0]):
        flat_target[k] = flat_source[k]


@njit(refcounted=False)
def save_step_start(bodies, islands, saved):
    """The save stage, first part: copy what waking writes (``awake``, sleep times,
    ``origins``) and what the last stage clears (forces, torques) of ``bodies``, and the
    labels ``islands`` (N,), into ``saved`` (a :class:`SavedStep` cut to N rows), and mark
    them saved (1). A step in which nothing is awake writes nothing else."""
    _copy(bodies.origins, saved.origins)
    _copy(bodies.awake, saved.awake)
    _copy(bodies.sleep_times, saved.sleep_times)
    _copy(bodies.forces, saved.forces)
    _copy(bodies.torques, saved.torques)
    _copy(islands, saved.islands)
    saved.saved[0] = 1


@njit(refcounted=False)
def save_motion(bodies, saved):
    """The save stage, second part, once something is awake: copy the centres, angles and
    velocities of ``bodies`` into ``saved``, and mark the whole state saved (2). Waking
    writes none of them, so they are still the step's start."""
    _copy(bodies.centers, saved.centers)
    _copy(bodies.angles, saved.angles)
    _copy(bodies.velocities, saved.velocities)
    _copy(bodies.angular_velocities, saved.angular_velocities)
    saved.saved[0] = 2


#: The body columns :func:`save_step_start` keeps, and those :func:`save_motion` adds.
FIRST_COLUMNS = ("origins", "awake", "sleep_times", "forces", "torques")
MOTION_COLUMNS = ("centers", "angles", "velocities", "angular_velocities")


class StepSnapshot:
    """The state at the start of the step under way (a :class:`SavedStep`), in buffers kept
    between steps, to put back if the step fails."""

    def __init__(self):
        self._saved = SavedStep(np.zeros((16, 2)), np.zeros((16, 2)), np.zeros(16),
                                np.zeros((16, 2)), np.zeros(16), np.zeros(16, np.bool_),
                                np.zeros(16), np.zeros((16, 2)), np.zeros(16),
                                np.zeros(16, np.int64), np.zeros(1, np.int64))
        self._count = 0

    def buffers(self, count: int) -> SavedStep:
        """The buffers cut to ``count`` rows, for a compiled step to save into."""
        if len(self._saved.angles) < count:
            self._saved = SavedStep(*(grown(column, count) for column in self._saved[:-1]),
                                    self._saved.saved)
        self._count = count
        return SavedStep(*(column[:count] for column in self._saved[:-1]), self._saved.saved)

    def forget(self) -> None:
        """A step begins: the buffers hold nothing of it until it saves."""
        self._saved.saved[0] = 0

    def column(self, name: str) -> np.ndarray:
        """The saved column ``name`` (a view of the rows saved last)."""
        return getattr(self._saved, name)[: self._count]

    def restore(self, bodies, islands: np.ndarray) -> bool:
        """Write the saved columns back into ``bodies`` and ``islands`` (the same rows as
        when saved), those the step under way saved; returns whether it had saved any."""
        level = self._saved.saved[0]
        if not level:
            return False
        for name in FIRST_COLUMNS + (MOTION_COLUMNS if level == 2 else ()):
            getattr(bodies, name)[:] = self.column(name)
        islands[: self._count] = self.column("islands")
        return True
