"""What sleeping saves: a settled pyramid stepped asleep and awake, beside pymunk's sleep.

    python benchmarks/bench_sleep.py [--base 20 100] [--runs 5]

For each pyramid (``--base`` boxes in the bottom row; 100 is the 5 050-box large pyramid) it
steps physbook's default world until every box is asleep and reports when that happened,
then times steps asleep and the same settled pile with sleep off (``world.sleep.enabled =
False``): milliseconds per step and their ratio. pymunk, with ``sleep_time_threshold = 0.5``
(its sleep is off by default), gets the same treatment when it is installed: its settle
time, its asleep and awake step. A box that leaves the pile over the ground's edge falls for
ever and never sleeps (pymunk's large pyramid throws one out as it collapses), so the pile
counts as asleep once every box still above the ground's top sleeps; the table says how many
fell. Only ratios measured side by side carry over between machines.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import mean_step_ms  # noqa: E402

import physbook as pb  # noqa: E402

DT = 1.0 / 60.0
MAX_SETTLE_STEPS = 3000  # 50 s: a pile not asleep by then is reported as such
FALLEN_BELOW = -1.0  # m: a box centre this low is under the ground's top (y = 0), off the pile


def pile_asleep(heights, sleeping) -> tuple[bool, int]:
    """(whether every box still on the ground sleeps, how many boxes fell off it)."""
    fallen = [height < FALLEN_BELOW for height in heights]
    return all(asleep or off for asleep, off in zip(sleeping, fallen, strict=True)), sum(fallen)


def physbook_times(base: int, runs: int, steps: int):
    """(seconds until asleep or None, boxes fallen, ms/step asleep, ms/step awake) for a
    pyramid."""
    scene = pb.scenes.pyramid(base)
    world, boxes = scene.world, scene.bodies["boxes"]
    asleep_after, fallen = None, 0
    for k in range(1, MAX_SETTLE_STEPS + 1):
        world.step(DT)
        if world.sleep.awake_count == 0:
            asleep_after = k * DT
            break
        if k % 30 == 0:  # twice a second: reading every body back costs as much as a step
            asleep, fallen = pile_asleep([box.position[1] for box in boxes],
                                         [not box.awake for box in boxes])
            if asleep:
                asleep_after = k * DT
                break
    asleep = statistics.median(mean_step_ms(world.step, DT, steps, 0) for _ in range(runs))
    world.sleep.enabled = False
    awake = statistics.median(mean_step_ms(world.step, DT, steps, 0) for _ in range(runs))
    return asleep_after, fallen, asleep, awake


def pymunk_times(base: int, runs: int, steps: int):
    """The same for pymunk, or None when it is not installed."""
    try:
        import pymunk_scenes
    except ImportError:
        return None
    scene = pymunk_scenes.pyramid(base)
    space = scene.space
    space.sleep_time_threshold = 0.5
    boxes = scene.bodies["boxes"]
    asleep_after, fallen = None, 0
    for k in range(1, MAX_SETTLE_STEPS + 1):
        space.step(DT)
        asleep, fallen = pile_asleep([body.position.y for body in boxes],
                                     [body.is_sleeping for body in boxes])
        if asleep:
            asleep_after = k * DT
            break
    asleep = statistics.median(mean_step_ms(space.step, DT, steps, 0) for _ in range(runs))
    space.sleep_time_threshold = float("inf")
    for body in boxes:
        body.activate()
    awake = statistics.median(mean_step_ms(space.step, DT, steps, 0) for _ in range(runs))
    return asleep_after, fallen, asleep, awake


def _row(engine: str, base: int, times) -> str:
    settled, fallen, asleep, awake = times
    when = "never" if settled is None else f"{settled:.2f} s"
    return (f"| pyramid-{base} | {engine} | {when} | {fallen} | {asleep:.3f} | {awake:.3f} | "
            f"{awake / asleep:.1f} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, nargs="+", default=[20, 100])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args(argv)
    pb.scenes.pyramid(3).run(5)  # compile outside the timed runs
    print("| scene | engine | asleep after | boxes fallen off | ms/step asleep | ms/step awake "
          "| awake ÷ asleep |")
    print("|---|---|---|---|---|---|---|")
    for base in args.base:
        print(_row("physbook", base, physbook_times(base, args.runs, args.steps)), flush=True)
        reference = pymunk_times(base, args.runs, args.steps)
        if reference is not None:
            print(_row("pymunk", base, reference), flush=True)


if __name__ == "__main__":
    main()
