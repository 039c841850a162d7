"""Chapter 11: a world's sleep: when islands at rest fall asleep, and the island labels and
scratch the passes of :mod:`physbook.dynamics.islands` work in.

:class:`Sleep` is what ``World.sleep`` returns: the switch and the thresholds a game sets,
how many bodies are awake, and the labels each step's island pass leaves (one per body row,
grown with the rows).
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook._buffers import grown
from physbook.constants import SLEEP_ANGULAR_SPEED, SLEEP_LINEAR_SPEED, TIME_TO_SLEEP
from physbook.dynamics.islands import wake_around
from physbook.kinds import DYNAMIC


class Sleep:
    """Whether and when the islands of a world fall asleep.

    An island falls asleep once every body of it has moved slower than
    :attr:`linear_speed` and turned slower than :attr:`angular_speed` for
    :attr:`time_to_sleep` (Box2D's thresholds by default); it then costs almost nothing
    until something wakes it.

    Parameters
    ----------
    bodies
        The world's :class:`~physbook.dynamics.body_table.BodyTable`.
    enabled
        Whether islands at rest fall asleep.
    """

    def __init__(self, bodies, enabled: bool = True) -> None:
        self._bodies = bodies
        self._enabled = _check.flag(enabled, "sleeping")
        self._linear_speed = SLEEP_LINEAR_SPEED
        self._angular_speed = SLEEP_ANGULAR_SPEED
        self._time_to_sleep = TIME_TO_SLEEP
        rows = bodies.capacity
        # Each body's island label, and scratch for the island passes.
        self.labels = np.zeros(rows, np.int64)
        self.marks = np.zeros(rows, np.bool_)
        self.parents = np.zeros(rows, np.int64)
        self.slowest = np.zeros(rows)

    @property
    def enabled(self) -> bool:
        """Whether islands at rest fall asleep; turning it off wakes every body."""
        return self._enabled

    @enabled.setter
    def enabled(self, value) -> None:
        self._enabled = _check.flag(value, "enabled")
        if not self._enabled:
            bodies = self._bodies.arrays
            asleep = (bodies.kinds == DYNAMIC) & ~bodies.awake
            bodies.awake[asleep] = True
            bodies.sleep_times[asleep] = 0.0

    @property
    def linear_speed(self) -> float:
        """The speed (m/s; 0.05 by default) below which a body counts as at rest: an island
        sleeps once every body in it has been below this and :attr:`angular_speed` for
        :attr:`time_to_sleep`."""
        return self._linear_speed

    @linear_speed.setter
    def linear_speed(self, value) -> None:
        self._linear_speed = _check.non_negative_scalar(value, "linear_speed")

    @property
    def angular_speed(self) -> float:
        """The turning speed (rad/s; 2°/s by default) below which a body counts as at rest,
        with :attr:`linear_speed`."""
        return self._angular_speed

    @angular_speed.setter
    def angular_speed(self, value) -> None:
        self._angular_speed = _check.non_negative_scalar(value, "angular_speed")

    @property
    def time_to_sleep(self) -> float:
        """How long (s; 0.5 by default) every body of an island must have been at rest (see
        :attr:`linear_speed`) before the island falls asleep."""
        return self._time_to_sleep

    @time_to_sleep.setter
    def time_to_sleep(self, value) -> None:
        self._time_to_sleep = _check.non_negative_scalar(value, "time_to_sleep")

    @property
    def thresholds(self) -> tuple[float, float, float]:
        """(linear speed, angular speed, time to sleep), as the island pass takes them."""
        return self._linear_speed, self._angular_speed, self._time_to_sleep

    @property
    def awake_count(self) -> int:
        """Number of dynamic bodies awake."""
        bodies = self._bodies.arrays
        return int(np.count_nonzero(bodies.awake & (bodies.kinds == DYNAMIC)))

    def scratch(self, count: int) -> tuple[np.ndarray, ...]:
        """The labels and scratch of the first ``count`` rows: (labels, marks, parents,
        slowest)."""
        return (self.labels[:count], self.marks[:count], self.parents[:count],
                self.slowest[:count])

    def grow(self, rows: int) -> None:
        """Make room for ``rows`` body rows (the arrays double as they grow)."""
        self.labels = grown(self.labels, rows)
        self.marks = grown(self.marks, rows)
        self.parents = grown(self.parents, rows)
        self.slowest = grown(self.slowest, rows)

    def put_island_to_sleep(self, row: int) -> None:
        """Put the island of the dynamic body at ``row`` to sleep now (Body.awake = False)."""
        bodies = self._bodies.arrays
        labels = self.labels[: len(bodies.kinds)]
        island = np.flatnonzero((labels == labels[row]) & (bodies.kinds == DYNAMIC))
        bodies.awake[island] = False
        bodies.velocities[island] = 0.0
        bodies.angular_velocities[island] = 0.0
        bodies.sleep_times[island] = np.maximum(bodies.sleep_times[island], self._time_to_sleep)
        bodies.sleep_centers[island] = bodies.centers[island]
        bodies.sleep_angles[island] = bodies.angles[island]

    def wake_around(self, rows, contact_bodies: np.ndarray, joint_bodies: np.ndarray) -> None:
        """Wake the body at ``rows`` (a row or rows) and whatever touches it
        (``contact_bodies``) or is jointed to it (``joint_bodies``), with their islands
        (:func:`~physbook.dynamics.islands.wake_around`)."""
        bodies = self._bodies.arrays
        wake_around(rows, contact_bodies, joint_bodies, bodies.kinds, bodies.awake,
                    bodies.sleep_times)
