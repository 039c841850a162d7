"""Recordings of a world's run: the states to draw, animate and measure afterwards.

``World.run`` steps a world and returns a :class:`Recording`; ``pb.viz.play`` animates one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.geometry.shapes import Shape


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
