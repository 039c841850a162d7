"""Recordings of a world's run: the states to draw, animate and measure afterwards.

``World.run`` steps a world and returns a :class:`Recording`; ``pb.viz.play`` animates one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.geometry.round_shapes import Shape


class Frame(NamedTuple):
    """One recorded instant: what it takes to draw every body."""

    time: float
    origins: np.ndarray
    angles: np.ndarray
    centers: np.ndarray
    shapes: tuple[tuple[Shape, ...], ...]
    kinds: np.ndarray
    body_ids: np.ndarray


@dataclass(frozen=True, eq=False)
class Recording:
    """The states of a world over a run: row 0 is the start, row k the state after k steps.

    Arrays have ``len(recording)`` = steps + 1 rows: ``times`` (F,) s, ``origins`` and
    ``centers`` (F, N, 2) m, ``angles`` (F, N) rad, ``velocities`` (F, N, 2) m/s,
    ``angular_velocities`` (F, N) rad/s. ``shapes`` and ``kinds`` describe the N bodies,
    ``body_ids`` their ids. ``pb.viz.play(recording)`` animates it.
    """

    times: np.ndarray
    origins: np.ndarray
    angles: np.ndarray
    centers: np.ndarray
    velocities: np.ndarray
    angular_velocities: np.ndarray
    shapes: tuple[tuple[Shape, ...], ...]
    kinds: np.ndarray
    body_ids: np.ndarray

    def __len__(self) -> int:
        return len(self.times)

    def frame(self, k: int) -> Frame:
        """The state after ``k`` steps, as a :class:`Frame` (negative ``k`` counts from the
        end, as in a list)."""
        k = _check.integer(k, "k", -len(self), len(self) - 1)
        return Frame(float(self.times[k]), self.origins[k], self.angles[k], self.centers[k],
                     self.shapes, self.kinds, self.body_ids)

    @property
    def frames(self) -> list[Frame]:
        """Every recorded state, for ``pb.viz.animate(recording.frames, draw)``."""
        return [self.frame(k) for k in range(len(self))]


def recorded_run(world, steps: int, dt: float, before_step: Callable | None = None) -> Recording:
    """Step ``world`` ``steps`` times and return a :class:`Recording` of steps + 1 states
    (``World.run``); ``before_step(world)``, if given, runs before each step."""
    steps = _check.non_negative_int(steps, "steps")
    dt = _check.positive_scalar(dt, "dt")
    if before_step is not None and not callable(before_step):
        raise TypeError("before_step must be callable or None")
    n = world.count
    ids, generations = world.bodies.ids.copy(), world.bodies.generations
    try:
        times = np.empty(steps + 1)
        origins = np.empty((steps + 1, n, 2))
        angles = np.empty((steps + 1, n))
        centers = np.empty((steps + 1, n, 2))
        velocities = np.empty((steps + 1, n, 2))
        angular_velocities = np.empty((steps + 1, n))
    except MemoryError:
        size = (steps + 1) * (8 * n + 1) * 8 / 2**30
        raise ValueError(f"steps={steps} would record {size:.3g} GiB, more memory than is "
                         "available; step the world in parts") from None

    def record(k: int) -> None:
        bodies = world.bodies.arrays
        times[k] = world.time
        origins[k] = bodies.origins
        angles[k] = bodies.angles
        centers[k] = bodies.centers
        velocities[k] = bodies.velocities
        angular_velocities[k] = bodies.angular_velocities

    record(0)
    for k in range(1, steps + 1):
        if before_step is not None:
            before_step(world)
            if world.count != n or not (np.array_equal(world.bodies.ids, ids) and np.array_equal(
                    world.bodies.generations, generations)):
                raise RuntimeError("bodies were added or removed during run(); "
                                   "step the world yourself when the bodies change")
        world.step(dt)
        if world.count != n:
            raise RuntimeError("bodies were added or removed during run() (by a contact "
                               "callback?); step the world yourself when the bodies "
                               "change")
        record(k)
    return Recording(times, origins, angles, centers, velocities, angular_velocities,
                     tuple(body.shapes for body in world.bodies), world.bodies.kinds.copy(),
                     ids)
