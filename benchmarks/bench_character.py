"""What the character queries cost: a shape cast, an overlap, an explosion and a mover step.

    python benchmarks/bench_character.py [--calls 2000] [--runs 3]

A level of ``count`` static shapes (boxes, circles, capsules and a chain of segments, on a
grid 2 m apart) with a capsule cast 5 m in a random direction from random places, an
overlap of the capsule, and an explosion of radius 2 m among 200 dynamic boxes; and a
capsule character walking back and forth on a chain terrain with a step and a moving
platform, whose ``move`` and the world's step are timed apart. Microseconds per call, the
median of ``runs`` measurements after the warm-up (the numba cache loaded first).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import time_calls  # noqa: E402

import physbook as pb  # noqa: E402
from physbook.character import CharacterMover  # noqa: E402
from physbook.explosion import explode  # noqa: E402
from physbook.shape_cast import cast_shape, overlap_shape  # noqa: E402

CAPSULE = pb.Capsule((0.0, -0.5), (0.0, 0.5), 0.3)


def level(count: int) -> pb.World:
    world = pb.World()
    side = int(math.ceil(math.sqrt(count)))
    shapes = (pb.Polygon.box(0.4, 0.3), pb.Circle(0.4), pb.Capsule((-0.3, 0), (0.3, 0), 0.2))
    for k in range(count - 1):
        x, y = 2.0 * (k % side), 2.0 * (k // side)
        world.add_body(shapes[k % 3], position=(x, y), angle=0.3 * k, kind="static")
    xs = np.linspace(-2.0, 2.0 * side, 40)[::-1]
    world.add_body(pb.Chain(np.column_stack([xs, -1.5 + 0.2 * np.sin(xs)])), kind="static")
    return world


def casts(count: int, calls: int, runs: int) -> tuple[float, float]:
    world = level(count)
    rng = np.random.default_rng(0)
    side = 2.0 * math.ceil(math.sqrt(count))
    starts = rng.uniform(0.0, side, (calls, 2))
    angles = rng.uniform(0.0, 2 * math.pi, calls)
    moves = 5.0 * np.column_stack([np.cos(angles), np.sin(angles)])
    state = {"k": 0}

    def one_cast():
        k = state["k"] = (state["k"] + 1) % calls
        cast_shape(world, CAPSULE, starts[k], 0.0, moves[k])

    def one_overlap():
        k = state["k"] = (state["k"] + 1) % calls
        overlap_shape(world, CAPSULE, starts[k])

    cast_us = statistics.median(1e3 * statistics.mean(time_calls(one_cast, calls, 50))
                                for _ in range(runs))
    overlap_us = statistics.median(1e3 * statistics.mean(time_calls(one_overlap, calls, 50))
                                   for _ in range(runs))
    return cast_us, overlap_us


def explosions(calls: int, runs: int) -> float:
    world = pb.World(gravity=(0.0, 0.0))
    for k in range(200):
        world.add_body(pb.Polygon.box(0.2, 0.2), position=(0.6 * (k % 20), 0.6 * (k // 20)))
    rng = np.random.default_rng(1)
    centers = rng.uniform(0.0, 12.0, (calls, 2))
    state = {"k": 0}

    def one():
        k = state["k"] = (state["k"] + 1) % calls
        explode(world, centers[k], 2.0, 0.01)

    return statistics.median(1e3 * statistics.mean(time_calls(one, calls, 20))
                             for _ in range(runs))


def mover(steps: int, runs: int) -> tuple[float, float]:
    world = pb.World()
    slope = math.tan(math.radians(25.0))
    world.add_body(pb.Chain([(45.0, 10 * slope), (40.0, 10 * slope), (30.0, 0.0),
                             (-30.0, 0.0), (-35.0, 0.0)]), kind="static")
    world.add_body(pb.Polygon.box(1.0, 0.1, center=(10.0, 0.1)), kind="static")
    platform = world.add_body(pb.Polygon.box(2.0, 0.1), position=(-10.0, 0.2),
                              kind="kinematic")
    character = CharacterMover(world, CAPSULE, (0.0, 0.801))
    h = 1.0 / 60.0
    state = {"k": 0}

    def move():
        k = state["k"] = state["k"] + 1
        platform.velocity = (0.0, 0.5 * math.sin(0.5 * k * h))
        character.move((4.0 * math.copysign(1.0, math.sin(0.2 * k * h)), 0.0), h)

    def step():
        world.step(h)

    move_us, step_us = [], []
    for _ in range(runs):
        moves, stepped = [], []
        for _ in range(steps):
            moves += time_calls(move, 1, 0)
            stepped += time_calls(step, 1, 0)
        move_us.append(1e3 * statistics.mean(moves[60:]))
        step_us.append(1e3 * statistics.mean(stepped[60:]))
    return statistics.median(move_us), statistics.median(step_us)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for count in (100, 1000):
        cast_us, overlap_us = casts(count, args.calls, args.runs)
        print(f"{count:5d} shapes: cast_shape {cast_us:7.1f} µs, overlap_shape "
              f"{overlap_us:7.1f} µs")
    print(f"explode among 200 boxes (r = 2 m): {explosions(args.calls // 4, args.runs):7.1f} µs")
    move_us, step_us = mover(600, args.runs)
    print(f"character: move {move_us:7.1f} µs, world.step {step_us:7.1f} µs")


if __name__ == "__main__":
    main()
