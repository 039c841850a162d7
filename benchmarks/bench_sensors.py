"""What one sensor costs a step: standard scenes with and without a static sensor box.

    python benchmarks/bench_sensors.py [--steps 600] [--first 100] [--runs 3]

Each scene is built as the benchmark of record builds it (sleep off), once as it is and once
with a static sensor box added where the bodies pass or rest, and stepped ``first`` steps
untimed, then ``steps − first`` timed: milliseconds per step, the median of ``runs``
measurements, each in the same process (numba's cache is loaded once, before the first).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import mean_step_ms  # noqa: E402

import physbook as pb  # noqa: E402
from physbook import scenes  # noqa: E402

#: (name, builder, its arguments, the sensor box: half extents and centre, m)
SCENES = (
    ("bounce", "bounce", {}, (1.0, 1.0, (0.0, 1.0))),
    ("pyramid-20", "pyramid", {"base": 20}, (2.0, 2.0, (0.0, 2.0))),
    ("vertical-stack", "vertical_stack", {}, (1.0, 2.0, (0.0, 2.0))),
)


def _world(builder: str, arguments: dict, sensor) -> pb.World:
    world = scenes.SCENES[builder](**arguments).world
    world.sleep.enabled = False
    if sensor is not None:
        half_width, half_height, center = sensor
        world.add_body(pb.Polygon.box(half_width, half_height), position=center,
                       kind="static", sensor=True)
    return world


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--first", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    _world("bounce", {}, SCENES[0][3]).step(scenes.DT)  # load or compile the kernels
    print(f"{'scene':16s} {'no sensor (ms)':>15s} {'one sensor (ms)':>16s}")
    for name, builder, arguments, sensor in SCENES:
        medians = []
        for box in (None, sensor):
            times = [mean_step_ms(_world(builder, arguments, box).step, scenes.DT,
                                  options.steps, options.first) for _ in range(options.runs)]
            medians.append(statistics.median(times))
        print(f"{name:16s} {medians[0]:15.4f} {medians[1]:16.4f}")


if __name__ == "__main__":
    main()
