"""Broad phases on moving fields of boxes, beside pymunk's spatial index, in one run.

    python benchmarks/bench_broadphase.py [--counts 1000 10000 100000] [--steps 10]

For each count and each distribution of :mod:`physbook.scenes.box_fields` (uniform,
clustered, columns, sizes over three orders of magnitude), 10 % of the boxes move each step
and every method updates: milliseconds per update (the stage as a world calls it, input
already checked), and the pairs it found. The naive method runs up to 10 000 boxes.

pymunk's column is its bounding-box tree, the default index of a ``pymunk.Space``, over the
same boxes: kinematic bodies with box shapes of one collision group, so that the index
finds the candidate pairs and the group filter drops each before any narrow phase; the same
10 % move each step (``body.position`` set) and ``space.step`` runs. Its time includes the
space's own per-step work besides the index. Only ratios measured side by side carry over
between machines.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import physbook as pb  # noqa: E402
from physbook.broadphase import STAGES  # noqa: E402

DT = 1.0 / 60.0


def physbook_ms(name: str, frames, filters) -> tuple[float, int]:
    """Median ms per update over the frames after the first (which builds the state)."""
    stage = STAGES[name]()
    stage.pairs(frames[0], filters)
    times = []
    for boxes in frames[1:]:
        start = time.perf_counter()
        pairs = stage.pairs(boxes, filters)
        times.append(1e3 * (time.perf_counter() - start))
    return statistics.median(times), len(pairs)


def pymunk_ms(frames) -> float | None:
    try:
        import pymunk
    except ImportError:
        return None
    space = pymunk.Space()
    grouped = pymunk.ShapeFilter(group=1)
    bodies = []
    first = frames[0]
    for lower, upper in zip(first.lower, first.upper, strict=True):
        body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        body.position = tuple((lower + upper) / 2)
        shape = pymunk.Poly.create_box(body, tuple(upper - lower))
        shape.filter = grouped
        space.add(body, shape)
        bodies.append(body)
    space.step(DT)
    times = []
    previous = first.lower
    for boxes in frames[1:]:
        moved = np.flatnonzero(np.any(boxes.lower != previous, axis=1))
        centers = ((boxes.lower + boxes.upper) / 2)[moved]
        start = time.perf_counter()
        for row, center in zip(moved.tolist(), centers.tolist(), strict=True):
            bodies[row].position = center
        space.step(DT)
        times.append(1e3 * (time.perf_counter() - start))
        previous = boxes.lower
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--steps", type=int, default=10)
    arguments = parser.parse_args()
    methods = [name for name in STAGES]
    print(f"{'boxes':>7} {'distribution':<10} " + " ".join(f"{m:>8}" for m in methods)
          + f" {'pymunk':>8} {'tree/pymunk':>11} {'pairs':>7}   (ms per update)")
    for count in arguments.counts:
        uniform_tree = None
        for distribution in pb.scenes.DISTRIBUTIONS:
            frames = pb.scenes.moving_boxes(pb.scenes.box_field(distribution, count),
                                            arguments.steps + 1)
            filters = pb.scenes.free_filters(count)
            row, pairs = [], 0
            for name in methods:
                if name == "naive" and count > 10000:
                    row.append("       -")
                    continue
                ms, pairs = physbook_ms(name, frames, filters)
                row.append(f"{ms:8.3f}")
                if name == "tree":
                    tree = ms
            uniform_tree = uniform_tree or tree
            reference = pymunk_ms(frames)
            ratio = f"{tree / reference:11.2f}" if reference else "          -"
            print(f"{count:7d} {distribution:<10} " + " ".join(row)
                  + (f" {reference:8.3f}" if reference else "        -") + ratio
                  + f" {pairs:7d}   tree {tree / uniform_tree:.2f}× uniform")


if __name__ == "__main__":
    main()
