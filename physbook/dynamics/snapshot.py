"""A step that cannot be trusted is undone: the state saved before it, checked after.

A NaN or an infinity spreads through every contact it touches, so a world must stop at the
step that makes one, and must be left as it was before that step, so that the program can
catch the error, look at the bodies and go on. The same holds for a step cut short by an
exception from outside, a ``KeyboardInterrupt`` above all (Ctrl-C, or a notebook's stop
button): whatever the step had written must go. Before each step :meth:`StepSnapshot.save`
(or, inside the compiled step, :func:`save_step_start`) copies every body column a step
writes and the island labels; after it :func:`first_non_finite` finds the first body whose
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


def check_finite(bodies) -> tuple[int, str] | None:
    """(row, quantity) of the first body state in ``bodies`` that is not finite, or None."""
    code = first_non_finite(bodies.centers, bodies.angles, bodies.velocities,
                            bodies.angular_velocities, bodies.forces, bodies.torques,
                            bodies.gravity_scales, bodies.origins)
    return None if code < 0 else (code // 8, QUANTITIES[code % 8])


class SavedStep(NamedTuple):
    """Buffers of the state at the start of a step, one row per body: the body columns a
    step writes (motion, sleep, the forces it clears), the island labels of chapter 11, and
    ``saved`` (1,), set to 1 once a step has filled them (0 while they hold nothing of the
    step under way)."""

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


#: The body columns a :class:`SavedStep` keeps, by name.
BODY_COLUMNS = SavedStep._fields[:9]


@njit(refcounted=False)
def save_step_start(bodies, islands, saved):
    """Copy the body columns of ``bodies`` and the labels ``islands`` (N,) into ``saved``
    (a :class:`SavedStep` cut to N rows), and mark them saved."""
    for i in range(bodies.angles.shape[0]):
        saved.origins[i, 0] = bodies.origins[i, 0]
        saved.origins[i, 1] = bodies.origins[i, 1]
        saved.centers[i, 0] = bodies.centers[i, 0]
        saved.centers[i, 1] = bodies.centers[i, 1]
        saved.angles[i] = bodies.angles[i]
        saved.velocities[i, 0] = bodies.velocities[i, 0]
        saved.velocities[i, 1] = bodies.velocities[i, 1]
        saved.angular_velocities[i] = bodies.angular_velocities[i]
        saved.awake[i] = bodies.awake[i]
        saved.sleep_times[i] = bodies.sleep_times[i]
        saved.forces[i, 0] = bodies.forces[i, 0]
        saved.forces[i, 1] = bodies.forces[i, 1]
        saved.torques[i] = bodies.torques[i]
        saved.islands[i] = islands[i]
    saved.saved[0] = 1


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

    def save(self, bodies, islands: np.ndarray) -> None:
        """Copy the columns of ``bodies`` (a :class:`BodyArrays`) and the labels
        ``islands`` (at least as many rows)."""
        count = len(bodies.angles)
        save_step_start(bodies, islands[:count], self.buffers(count))

    def column(self, name: str) -> np.ndarray:
        """The saved column ``name`` (a view of the rows saved last)."""
        return getattr(self._saved, name)[: self._count]

    def restore(self, bodies, islands: np.ndarray) -> bool:
        """Write the saved columns back into ``bodies`` and ``islands`` (the same rows as
        when saved), if the step under way saved them; returns whether it had."""
        if not self._saved.saved[0]:
            return False
        for name in BODY_COLUMNS:
            getattr(bodies, name)[:] = self.column(name)
        islands[: self._count] = self.column("islands")
        return True
