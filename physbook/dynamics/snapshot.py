"""A step that cannot be trusted is undone: the motion state saved before it, checked after.

A NaN or an infinity spreads through every contact it touches, so a world must stop at the
step that makes one, and must be left as it was before that step, so that the program can
catch the error, look at the bodies and go on. Before each step :meth:`MotionSnapshot.save`
copies the columns a solver writes and reports any value a user wrote that is not finite;
after it :func:`first_non_finite` finds the first body whose state overflowed, and
:meth:`MotionSnapshot.restore` puts the saved columns back.
"""

from __future__ import annotations

import math

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


class MotionSnapshot:
    """The columns a step writes (origins, centres, angles, velocities, angular
    velocities), saved into buffers kept between steps."""

    #: Each saved column and the shape of one of its rows.
    _COLUMNS = {"origins": (2,), "centers": (2,), "angles": (), "velocities": (2,),
                "angular_velocities": ()}

    def __init__(self):
        self._saved = {name: np.zeros((16,) + row) for name, row in self._COLUMNS.items()}
        self._count = 0

    def save(self, bodies) -> None:
        """Copy the motion columns of ``bodies`` (a :class:`BodyArrays`)."""
        count = len(bodies.angles)
        for name in self._COLUMNS:
            buffer = self._saved[name] = grown(self._saved[name], count)
            buffer[:count] = getattr(bodies, name)
        self._count = count

    def buffers(self, count: int) -> tuple[np.ndarray, ...]:
        """The buffers of every column, cut to ``count`` rows, for a compiled step to save
        into (in the order origins, centres, angles, velocities, angular velocities)."""
        for name in self._COLUMNS:
            self._saved[name] = grown(self._saved[name], count)
        self._count = count
        return tuple(self._saved[name][:count] for name in self._COLUMNS)

    def column(self, name: str) -> np.ndarray:
        """The saved column ``name`` (a view of the rows saved last)."""
        return self._saved[name][: self._count]

    def restore(self, bodies) -> None:
        """Write the saved columns back into ``bodies`` (the same rows as when saved)."""
        for name in self._COLUMNS:
            getattr(bodies, name)[:] = self._saved[name][: self._count]
