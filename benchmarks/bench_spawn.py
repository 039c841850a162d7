"""A game that spawns: a body added every step, and a body added and one removed every step.

    python benchmarks/bench_spawn.py [--steps 20000] [--alive 500] [--every 1000]
                                     [--engines physbook,pymunk,box2d-v3]

Two runs per engine, each in a process of its own so that its memory is its own:

- ``spawn``: a bin 40 m wide; every step one body (a box or a circle, 0.2 m across, in
  turn) is dropped in at a random place (seeded) above it, for ``steps`` steps. The body
  count climbs to ``steps``; the world must grow with it, and its memory must stay in
  proportion to the bodies it holds.
- ``churn``: the same, but once ``alive`` bodies are in the bin the oldest is removed each
  step as a new one comes in: the count holds at ``alive``, and so must the memory and the
  time per step.

Every ``every`` steps each engine reports its body count, its resident memory (MB, from
``/proc/self/statm``) and its mean ms per step (the add and the remove included) since the
last report. Box2D v3 runs as ``pyb2d3`` with 4 substeps, pymunk with its defaults and 10
iterations, physbook with its defaults; each with sleeping as it comes. Only ratios
measured side by side carry over between machines.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

DT = 1.0 / 60.0
HALF_WIDTH, WALL_HEIGHT, DROP_HEIGHT = 20.0, 30.0, 28.0
SIZE = 0.1  # half extent of a box, radius of a circle (m)
ENGINES = ("physbook", "pymunk", "box2d-v3")
#: The bin: a floor and two walls, each (half width, half height, centre) in m.
WALLS = ((HALF_WIDTH + 1.0, 0.5, (0.0, -0.5)), (0.5, WALL_HEIGHT, (-HALF_WIDTH - 0.5, WALL_HEIGHT)),
         (0.5, WALL_HEIGHT, (HALF_WIDTH + 0.5, WALL_HEIGHT)))


def resident_mb() -> float:
    """This process's resident memory (MB): Linux's /proc, else the peak from resource."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def drops(steps: int, seed: int = 1) -> np.ndarray:
    """Where each step's new body appears: x in the bin, at the drop height."""
    x = np.random.default_rng(seed).uniform(-HALF_WIDTH + 1.0, HALF_WIDTH - 1.0, steps)
    return np.column_stack([x, np.full(steps, DROP_HEIGHT)])


# --- the three engines, each as add(k, position) -> handle, remove(handle), step() --------


def physbook_bin():
    import physbook as pb

    world = pb.World()
    for half_width, half_height, center in WALLS:
        world.add_body(pb.Polygon.box(half_width, half_height), position=center,
                       kind="static")
    box, circle = pb.Polygon.box(SIZE, SIZE), pb.Circle(SIZE)

    def add(k, position):
        return world.add_body(box if k % 2 else circle, position=tuple(position))

    return add, world.remove_body, lambda: world.step(DT)


def pymunk_bin():
    import pymunk

    space = pymunk.Space()
    space.gravity = (0.0, -10.0)
    space.iterations = 10
    for half_width, half_height, (x, y) in WALLS:  # boxes, as thick as the others' walls
        space.add(pymunk.Poly(space.static_body, [
            (x - half_width, y - half_height), (x + half_width, y - half_height),
            (x + half_width, y + half_height), (x - half_width, y + half_height)]))

    def add(k, position):
        body = pymunk.Body()
        body.position = tuple(position)
        if k % 2:
            shape = pymunk.Poly.create_box(body, (2 * SIZE, 2 * SIZE))
        else:
            shape = pymunk.Circle(body, SIZE)
        shape.density, shape.friction = 1.0, 0.6
        space.add(body, shape)
        return body, shape

    return add, lambda handle: space.remove(*handle), lambda: space.step(DT)


def box2d_bin():
    import pyb2d3 as b2

    world = b2.World(gravity=(0.0, -10.0))
    walls = world.create_static_body(position=(0.0, 0.0))
    for half_width, half_height, center in WALLS:
        walls.create_polygon_shape(b2.shape_def(), b2.box(half_width, half_height,
                                                          center=center))
    shape_def = b2.shape_def(density=1.0, material=b2.surface_material(friction=0.6))
    box, circle = b2.box(SIZE, SIZE), b2.circle(radius=SIZE)

    def add(k, position):
        body = world.create_dynamic_body(position=tuple(position))
        if k % 2:
            body.create_polygon_shape(shape_def, box)
        else:
            body.create_circle_shape(shape_def, circle)
        return body

    return add, lambda body: body.destroy(), lambda: world.step(DT, 4)


BINS = {"physbook": physbook_bin, "pymunk": pymunk_bin, "box2d-v3": box2d_bin}


def run(engine: str, mode: str, steps: int, alive: int, every: int) -> list[dict]:
    """One engine's run (see the module docstring): a report every ``every`` steps."""
    add, remove, step = BINS[engine]()
    positions = drops(steps)
    held, reports = [], []
    start = time.perf_counter()
    for k in range(steps):
        held.append(add(k, positions[k]))
        if mode == "churn" and len(held) > alive:
            remove(held.pop(0))
        step()
        if (k + 1) % every == 0:
            now = time.perf_counter()
            reports.append({"step": k + 1, "bodies": len(held), "mb": resident_mb(),
                            "ms": 1e3 * (now - start) / every})
            start = now
    return reports


def child(arguments: list[str]) -> list[dict] | None:
    """The run in a process of its own; None if the engine is not installed."""
    result = subprocess.run([sys.executable, __file__, "--child", *arguments],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        if "ModuleNotFoundError" in result.stderr:
            return None
        raise RuntimeError(result.stderr)
    return json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--alive", type=int, default=500)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--engine", help=argparse.SUPPRESS)
    parser.add_argument("--mode", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.engine == "physbook":  # numba compiles (or loads) its kernels first
            run("physbook", "churn", 20, 5, 10)
        print(json.dumps(run(args.engine, args.mode, args.steps, args.alive, args.every)))
        return

    engines = args.engines.split(",")
    for mode in ("spawn", "churn"):
        results = {}
        for engine in engines:
            results[engine] = child(["--engine", engine, "--mode", mode, "--steps",
                                     str(args.steps), "--alive", str(args.alive),
                                     "--every", str(args.every)])
        engines_run = [engine for engine in engines if results[engine] is not None]
        print(f"\n{mode}: " + ("a body added every step" if mode == "spawn" else
                               f"a body added and the oldest removed past {args.alive}"))
        print(f"{'step':>6} {'bodies':>6} | " + " | ".join(
            f"{engine + ' MB':>12} {'ms':>7}" for engine in engines_run)
            + "".join(f" | {'ms ÷ ' + engine:>14}" for engine in engines_run[1:]))
        first = results[engines_run[0]]
        for i, report in enumerate(first):
            row = [results[engine][i] for engine in engines_run]
            print(f"{report['step']:>6} {report['bodies']:>6} | " + " | ".join(
                f"{r['mb']:>12.1f} {r['ms']:>7.3f}" for r in row)
                + "".join(f" | {report['ms'] / r['ms']:>14.2f}" for r in row[1:]))


if __name__ == "__main__":
    main()
