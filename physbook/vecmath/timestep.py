"""Chapter 3: a fixed physics step inside a variable-rate game loop.

The display draws frames at whatever rate the machine manages; the physics always advances
by the same ``dt``, which keeps it stable and deterministic. :class:`FixedTimestep` is the
accumulator between the two: each frame adds its duration, and whole steps of ``dt`` are
taken out. The loop of a game reads::

    clock = FixedTimestep(dt=1 / 60, max_frame_time=0.25)
    while running:
        for _ in range(clock.advance(frame_time)):
            previous, current = current, physics_step(current, clock.dt)
        draw(interpolate(previous, current, clock.alpha))

Floating point. Frame times such as 1/144 s and steps such as 1/60 s are not binary
fractions, so they are rounded before any sum is made: twelve frames of ``1/144`` add up to
five steps of ``1/60`` only approximately. A game that reads an integer clock can avoid this
altogether by passing ``dt``, ``max_frame_time`` and the frame times in whole ticks (exact
as floats below 2**53), so that every sum is exact. For frame times in float seconds the
accumulator takes a step when it holds at least ``dt·(1 − STEP_TOLERANCE)``; the tiny
shortfall stays in it as a negative balance, so no time is created or lost over a long run.
Simulated time is counted as an integer number of steps (``time = steps_taken·dt``), never
as a running sum of ``dt``.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.constants import STEP_TOLERANCE

__all__ = ["FixedTimestep", "MAX_STEPS_PER_FRAME", "interpolate", "step_schedule"]

#: The largest alpha, just below 1, so that ``alpha`` stays in [0, 1).
_ALPHA_MAX = math.nextafter(1.0, 0.0)

#: The most fixed steps one frame may ask for, 2**53: beyond it a float step count is no
#: longer exact, so the accumulator could not tell one step from the next.
MAX_STEPS_PER_FRAME = 2**53


class FixedTimestep:
    """The accumulator of a fixed-timestep game loop.

    Parameters
    ----------
    dt : float
        The physics step (s), positive.
    max_frame_time : float
        The longest frame the physics will catch up on (s), at least ``dt``. Longer frames
        are clamped to it, so after a stall the game runs slower for a moment instead of
        taking ever more steps per frame (the spiral of death). A frame runs at most
        ``max_frame_time / dt + 1`` steps, which must not exceed :data:`MAX_STEPS_PER_FRAME`.
    """

    def __init__(self, dt: float, max_frame_time: float = 0.25) -> None:
        self._dt = _check.positive_scalar(dt, "dt")
        self._max_frame_time = _check.positive_scalar(max_frame_time, "max_frame_time")
        if self._max_frame_time < self._dt:
            raise ValueError(
                f"max_frame_time must be at least dt ({self._dt:g} s), "
                f"got {self._max_frame_time:g} s: no frame could ever take a step"
            )
        # The accumulator holds up to dt + max_frame_time, and a frame's step count is its
        # ratio to dt: the sum must be a float and the ratio an exact count.
        if self._max_frame_time / self._dt >= MAX_STEPS_PER_FRAME:
            raise ValueError(
                f"max_frame_time / dt must be below {MAX_STEPS_PER_FRAME} steps per frame, "
                f"got {self._max_frame_time:g} s / {self._dt:g} s")
        if not math.isfinite(self._max_frame_time + self._dt):
            raise ValueError(
                f"max_frame_time + dt must be within the float range, got "
                f"{self._max_frame_time:g} s + {self._dt:g} s")
        self.reset()

    @property
    def dt(self) -> float:
        """The fixed physics step (s); set at construction, read-only."""
        return self._dt

    @property
    def max_frame_time(self) -> float:
        """The clamp on a frame's duration (s); set at construction, read-only."""
        return self._max_frame_time

    @property
    def steps_taken(self) -> int:
        """Fixed steps handed out by :meth:`advance` so far."""
        return self._steps_taken

    @property
    def dropped_time(self) -> float:
        """Total frame time (s) discarded by the clamp."""
        return self._dropped_time

    def reset(self) -> None:
        """Empty the accumulator and the counters."""
        self._accumulator = 0.0
        self._steps_taken = 0
        self._dropped_time = 0.0

    def advance(self, frame_time: float) -> int:
        """Add one frame's duration and return how many fixed steps to run now.

        Parameters
        ----------
        frame_time : float
            Wall-clock time since the previous frame (s), finite and not negative.

        Returns
        -------
        int
            The number of steps of ``dt`` the caller must run before drawing this frame.
        """
        frame_time = _check.non_negative_scalar(frame_time, "frame_time")
        if frame_time > self.max_frame_time:  # the clamp against the spiral of death
            dropped_time = self._dropped_time + (frame_time - self.max_frame_time)
            if dropped_time == math.inf:
                raise FloatingPointError(
                    f"frame_time = {frame_time:g} s: the total dropped_time overflowed the "
                    f"float range (±1.8e308)")
            self._dropped_time = dropped_time
            frame_time = self.max_frame_time
        self._accumulator += frame_time
        # Whole steps in the accumulator, counting one that is short by a rounding error.
        steps = math.floor(self._accumulator / self.dt + STEP_TOLERANCE)
        self._accumulator -= steps * self.dt
        self._steps_taken += steps
        return steps

    @property
    def accumulator(self) -> float:
        """Time (s) in the accumulator not yet simulated; in (−dt·tolerance, dt)."""
        return self._accumulator

    @property
    def alpha(self) -> float:
        """How far the display is between the last two physics states: leftover / dt.

        In [0, 1); draw ``interpolate(previous, current, alpha)``.
        """
        return min(max(self._accumulator / self.dt, 0.0), _ALPHA_MAX)

    @property
    def time(self) -> float:
        """Simulated time (s): ``steps_taken·dt``, a product, so it never drifts."""
        return self.steps_taken * self.dt

    def __repr__(self) -> str:
        return (
            f"FixedTimestep(dt={self.dt!r}, max_frame_time={self.max_frame_time!r}, "
            f"steps_taken={self.steps_taken}, alpha={self.alpha:.3f})"
        )


def interpolate(previous, current, alpha: float):
    """The state drawn between two physics states: previous·(1 − alpha) + current·alpha.

    alpha = 0 gives ``previous``, alpha = 1 gives ``current``. The display is thus up to one
    step behind the physics, but every drawn state lies on the path the physics computed.

    Parameters
    ----------
    previous, current : float or array_like
        Two consecutive physics states of one shape (positions, angles, …).
    alpha : float
        Fraction of a step, in [0, 1] (usually :attr:`FixedTimestep.alpha`).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar input, otherwise an array shaped like the input.
    """
    alpha = _check.finite_scalar(alpha, "alpha")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    previous = _check.finite_array(previous, "previous")
    current = _check.finite_array(current, "current")
    if previous.shape != current.shape:
        raise ValueError(
            f"previous and current must have the same shape, "
            f"got {previous.shape} and {current.shape}"
        )
    # A weighted mean, never larger than the larger input, so it cannot overflow (as
    # previous + (current − previous)·alpha could for states of opposite sign).
    blended = previous * (1.0 - alpha) + current * alpha
    return float(blended) if blended.ndim == 0 else blended


def step_schedule(
    frame_times, dt: float, max_frame_time: float = 0.25
) -> tuple[np.ndarray, np.ndarray]:
    """Run a :class:`FixedTimestep` over a sequence of frame times.

    Returns
    -------
    steps, alpha : numpy.ndarray
        For each frame, the number of fixed steps it runs (int64) and the alpha it draws
        with. ``np.cumsum(steps)`` is the index of the current physics state at each frame.
    """
    frame_times = _check.finite_array(frame_times, "frame_times")
    if frame_times.ndim != 1:
        raise ValueError(f"frame_times must be one-dimensional, got shape {frame_times.shape}")
    if np.any(frame_times < 0.0):
        raise ValueError("frame_times must be non-negative (each frame_time is a duration)")
    clock = FixedTimestep(dt, max_frame_time)
    steps = np.empty(frame_times.size, dtype=np.int64)
    alpha = np.empty(frame_times.size)
    for frame, frame_time in enumerate(frame_times):
        try:
            steps[frame] = clock.advance(float(frame_time))
        except FloatingPointError as error:
            raise FloatingPointError(f"frame_times[{frame}]: {error}") from None
        alpha[frame] = clock.alpha
    return steps, alpha
