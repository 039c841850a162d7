"""How long one step of a 100 × 100 Verlet cloth takes (chapter 5).

The cloth has 10 000 particles and 19 800 edges, hangs from its two top corners, and is
stepped at dt = 1/60 s. Compile time is excluded (a warm-up runs first); each step is timed
alone and the table reports the median, the 90th percentile and the share of a 60 Hz frame
(16.7 ms). The same grid is also built in pymunk in the same run (``--no-pymunk`` skips it),
as 10 000 point bodies joined by 19 800 pin joints (rigid distance constraints solved by
impulses, 10 iterations): the nearest thing pymunk has to a Verlet cloth.

Run:  python benchmarks/bench_cloth.py [--steps 300] [--no-pymunk]
"""

from __future__ import annotations

import argparse
import statistics

from timing import time_calls

from physbook.verlet import VerletWorld

DT = 1.0 / 60.0
FRAME_MS = 1000.0 / 60.0
SIZE = 100



def physbook_case(iterations: int, solver: str = "verlet", substeps: int = 1,
                  tear_ratio: float | None = None):
    """The cloth of :func:`physbook.verlet.hanging_cloth`, with a choice of solver."""
    world = VerletWorld(iterations=iterations, solver=solver, substeps=substeps)
    world.add_cloth((-5.0, 10.0), 10.0, 10.0, SIZE, SIZE, tear_ratio=tear_ratio)
    return world, lambda: world.step(DT)


def pymunk_case(iterations: int):
    import pymunk

    space = pymunk.Space()
    space.gravity = (0.0, -10.0)
    space.iterations = iterations
    spacing = 10.0 / (SIZE - 1)
    bodies = []
    for row in range(SIZE):
        for column in range(SIZE):
            pinned = row == 0 and column in (0, SIZE - 1)
            if pinned:
                body = pymunk.Body(body_type=pymunk.Body.STATIC)
            else:
                body = pymunk.Body(1.0 / (SIZE * SIZE), float("inf"))
            body.position = (-5.0 + column * spacing, 10.0 - row * spacing)
            space.add(body)
            bodies.append(body)
    for row in range(SIZE):
        for column in range(SIZE):
            here = bodies[row * SIZE + column]
            if column + 1 < SIZE:
                space.add(pymunk.PinJoint(here, bodies[row * SIZE + column + 1]))
            if row + 1 < SIZE:
                space.add(pymunk.PinJoint(here, bodies[(row + 1) * SIZE + column]))
    return space, lambda: space.step(DT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="timed steps per case")
    parser.add_argument("--warmup", type=int, default=20, help="untimed steps first")
    parser.add_argument("--no-pymunk", action="store_true", help="skip the pymunk pin-joint grid")
    args = parser.parse_args()

    cases = [
        ("physbook verlet, 10 iterations", lambda: physbook_case(10)),
        ("physbook verlet, 5 iterations", lambda: physbook_case(5)),
        ("physbook verlet, 20 iterations", lambda: physbook_case(20)),
        ("physbook xpbd, 5 substeps x 2 iterations", lambda: physbook_case(2, "xpbd", 5)),
        ("physbook verlet, 10 iterations, tearable", lambda: physbook_case(10, tear_ratio=3.0)),
    ]
    if not args.no_pymunk:
        cases.append(("pymunk pin joints, 10 iterations", lambda: pymunk_case(10)))

    print(f"cloth {SIZE} x {SIZE}: {SIZE * SIZE} particles, {2 * SIZE * (SIZE - 1)} edges, "
          f"dt = 1/60 s, {args.steps} timed steps after {args.warmup} warm-up steps")
    header = f"{'case':<44} {'median ms':>10} {'p90 ms':>8} {'of 60 Hz frame':>15}"
    print(header)
    print("-" * len(header))
    reference = None
    for name, build in cases:
        _, step = build()
        times = time_calls(step, args.steps, args.warmup)
        median = statistics.median(times)
        p90 = sorted(times)[int(0.9 * (len(times) - 1))]
        reference = reference or median
        print(f"{name:<44} {median:>10.2f} {p90:>8.2f} {100 * median / FRAME_MS:>14.0f}%")
    print(f"(ratios to the first line are what carry over between machines; first = "
          f"{reference:.2f} ms)")


if __name__ == "__main__":
    main()
