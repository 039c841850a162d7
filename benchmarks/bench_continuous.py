"""What continuous collision costs: scenes stepped with ``world.continuous`` on and off,
beside pymunk (which has no continuous collision) in one run.

    python benchmarks/bench_continuous.py [--runs 5]

Scenes: rain-1000 (1 000 circles falling into a box; many are fast while they fall) and
bullets-100 (100 bullets at 300 m/s at a column of boxes before a 0.02 m wall). For each:
milliseconds per step (median of ``--runs`` runs of the scene's steps), the ratio of on to
off and to pymunk, and how many bodies tunnelled: crossed the wall in one step below its top
(bullets), or left the box (rain).
Only ratios measured side by side carry over between machines.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pymunk_scenes  # noqa: E402

import physbook as pb  # noqa: E402

DT = 1.0 / 60.0


def physbook_run(name: str, continuous: bool):
    """(ms per step, bodies that tunnelled) for one run of a physbook scene."""
    world = pb.World()
    world.continuous = continuous
    if name == "rain-1000":
        scene = pb.scenes.rain(1000, world=world)
        moving = scene.bodies["circles"]
    else:
        scene = pb.scenes.bullets(100, world=world)
        moving = scene.bodies["bullets"]
    start = time.perf_counter()
    recording = scene.run()
    per_step = 1e3 * (time.perf_counter() - start) / scene.steps
    rows = [body.row for body in moving]
    return per_step, tunnelled(name, recording.centers[:, rows])


def tunnelled(name: str, centers) -> int:
    """How many bodies crossed a wall or floor in a step: (steps, B, 2) centres (m)."""
    x, y = centers[..., 0], centers[..., 1]
    if name == "rain-1000":  # out of the box, through the floor or a wall
        return int(((abs(x) > 20.0) | (y < 0.0)).any(axis=0).sum())
    # From in front of the wall's near face to behind it in one step, below its top.
    top = 0.2 + 0.3 * 99 + 1.0
    crossed = (x[:-1] <= 17.3) & (x[1:] > 17.3) & (y[1:] < top)
    return int(crossed.any(axis=0).sum())


def pymunk_bullets():
    import pymunk

    space = pymunk.Space()
    space.gravity = (0.0, -10.0)
    friction, elasticity = math.sqrt(0.5), math.sqrt(0.2)
    top = 0.2 + 0.3 * 99 + 1.0
    for center, half in (((10.0, -0.5), (30.0, 0.5)), ((17.31, 0.5 * top), (0.01, 0.5 * top))):
        body = pymunk.Body(body_type=pymunk.Body.STATIC)
        body.position = center
        shape = pymunk.Poly.create_box(body, (2 * half[0], 2 * half[1]))
        shape.friction, shape.elasticity = friction, elasticity
        space.add(body, shape)
    for k in range(int(top / 0.2)):
        body = pymunk.Body(0.04, pymunk.moment_for_box(0.04, (0.2, 0.2)))
        body.position = (12.6, 0.1 + 0.2 * k)
        shape = pymunk.Poly.create_box(body, (0.2, 0.2))
        shape.friction, shape.elasticity = friction, elasticity
        space.add(body, shape)
    shots = []
    for k in range(100):
        mass = math.pi * 0.05**2
        body = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0, 0.05))
        body.position = (0.0, 0.2 + 0.3 * k)
        body.velocity = (300.0, 0.0)
        shape = pymunk.Circle(body, 0.05)
        shape.friction, shape.elasticity = friction, elasticity
        space.add(body, shape)
        shots.append(body)
    return space, shots, 60


def pymunk_run(name: str):
    """(ms per step, bodies that tunnelled): a timed run, then a run that records."""
    import numpy as np

    def build():
        if name == "rain-1000":
            scene = pymunk_scenes.rain(1000)
            return scene.space, scene.bodies["circles"], scene.steps
        return pymunk_bullets()

    space, moving, steps = build()
    start = time.perf_counter()
    for _ in range(steps):
        space.step(DT)
    per_step = 1e3 * (time.perf_counter() - start) / steps
    space, moving, steps = build()
    centers = [[tuple(body.position) for body in moving]]
    for _ in range(steps):
        space.step(DT)
        centers.append([tuple(body.position) for body in moving])
    return per_step, tunnelled(name, np.array(centers))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    physbook_run("bullets-100", True)  # compile once before timing
    print("| scene | continuous on (ms/step) | off | on ÷ off | pymunk | on ÷ pymunk | "
          "tunnelled: on / off / pymunk |")
    print("|---|---|---|---|---|---|---|")
    for name in ("rain-1000", "bullets-100"):
        results = {"on": [], "off": [], "pymunk": []}
        for _ in range(args.runs):  # interleaved, so drifts of the machine hit all three
            results["on"].append(physbook_run(name, True))
            results["off"].append(physbook_run(name, False))
            results["pymunk"].append(pymunk_run(name))
        time_of = {key: statistics.median(t for t, _ in runs) for key, runs in results.items()}
        lost = {key: runs[-1][1] for key, runs in results.items()}
        print(f"| {name} | {time_of['on']:.2f} | {time_of['off']:.2f} | "
              f"{time_of['on'] / time_of['off']:.2f} | {time_of['pymunk']:.2f} | "
              f"{time_of['on'] / time_of['pymunk']:.2f} | "
              f"{lost['on']} / {lost['off']} / {lost['pymunk']} |")


if __name__ == "__main__":
    main()
