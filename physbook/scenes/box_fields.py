"""Chapter 12's workloads for broad phases: fields of boxes in four distributions, and their
motion step by step, shared by the book, the tests' benchmarks and ``bench_broadphase.py``.

- ``"uniform"``: centres spread evenly over a square that gives every box about 4 m²;
- ``"clustered"``: the same boxes gathered in tight clumps of about fifty;
- ``"columns"``: four tall columns, every box overlapping all others along x;
- ``"sizes"``: uniform centres, sizes spread over three orders of magnitude (5 mm to 5 m).
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook.broadphase.filters import ShapeFilters
from physbook.broadphase.pairs import ShapeBoxes

#: The distributions :func:`box_field` makes.
DISTRIBUTIONS = ("uniform", "clustered", "columns", "sizes")


def box_field(distribution: str, count: int, seed: int = 0) -> ShapeBoxes:
    """``count`` boxes of a distribution (see the module docstring), reproducible by seed."""
    distribution = _check.choice(distribution, "distribution", DISTRIBUTIONS)
    count = _check.non_negative_int(count, "count", 10**7)
    rng = np.random.default_rng(_check.non_negative_int(seed, "seed"))
    side = 2.0 * np.sqrt(max(count, 1))
    if distribution == "clustered":
        hubs = rng.uniform(0, side, (max(1, count // 50), 2))
        centers = hubs[rng.integers(0, len(hubs), count)] + rng.normal(0, 1.0, (count, 2))
    elif distribution == "columns":
        centers = np.column_stack([rng.integers(0, 4, count) * 3.0,
                                   rng.uniform(0, side * side / 12.0, count)])
    else:
        centers = rng.uniform(0, side, (count, 2))
    if distribution == "sizes":
        half = np.exp(rng.uniform(np.log(0.0025), np.log(2.5), (count, 1))) * np.ones((1, 2))
    else:
        half = rng.uniform(0.2, 0.6, (count, 2))
    return ShapeBoxes(centers - half, centers + half)


def moving_boxes(boxes: ShapeBoxes, steps: int, fraction: float = 0.1, speed: float = 3.0,
                 dt: float = 1 / 60, seed: int = 0) -> list[ShapeBoxes]:
    """``steps`` frames of ``boxes`` in motion: each step a random ``fraction`` of them
    moves, each at its own velocity of about ``speed`` (m/s) for ``dt`` (s). The frames
    hold at most 10⁸ boxes in all."""
    _check.instance(boxes, "boxes", ShapeBoxes, "a ShapeBoxes")
    count = len(boxes.lower)
    steps = _check.non_negative_int(steps, "steps", 10**8 // max(count, 1))
    fraction = _check.non_negative_scalar(fraction, "fraction")
    speed = _check.non_negative_scalar(speed, "speed")
    dt = _check.positive_scalar(dt, "dt")
    rng = np.random.default_rng(_check.non_negative_int(seed, "seed"))
    velocities = speed * rng.normal(0.0, 1.0, (count, 2))
    lower, upper = boxes.lower.copy(), boxes.upper.copy()
    frames = []
    for _ in range(steps):
        moving = rng.random(count) < fraction
        shift = velocities * dt * moving[:, None]
        lower, upper = lower + shift, upper + shift
        frames.append(ShapeBoxes(lower, upper))
    return frames


def free_filters(count: int) -> ShapeFilters:
    """Filters of ``count`` dynamic shapes on separate bodies that all may collide."""
    count = _check.non_negative_int(count, "count", 10**7)
    ones = np.ones(count, np.int64)
    return ShapeFilters(np.arange(count), ones, ones, np.zeros(count, np.int64),
                        np.ones(count, np.bool_))
