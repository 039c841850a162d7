"""What removing bodies costs in a large world: one at a time and as one batch.

    python benchmarks/bench_removal.py [--columns 250] [--rows 200] [--removals 5000]
                                       [--singles 200] [--seed 1]

The world is a grid of ``columns`` × ``rows`` bodies (half circles, half boxes, touching
their neighbours) resting on a static floor, stepped 10 times so that the contact table is
full (about two contacts a body). Three measurements, each on a world built afresh:

- ``single``: the median time of one ``remove_body`` over ``singles`` removals of bodies
  picked at random (seeded), with a step after every 50 so that the contacts stay fresh;
- ``one by one``: ``removals`` bodies picked at random, removed by ``remove_body`` in a loop;
- ``batch``: the same bodies in one ``remove_bodies`` call (when the world has it).

Both ways leave the same world (checked here on the ids). Only ratios measured side by side
carry over between machines.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import physbook as pb

DT = 1.0 / 60.0


def grid_world(columns: int, rows: int) -> pb.World:
    """``columns`` × ``rows`` bodies 0.5 m apart on a floor, circles and boxes alternating."""
    world = pb.World(capacity=columns * rows + 1)
    world.add_body(pb.Polygon.box(0.5 * columns + 2.0, 0.5), position=(0.0, -0.5),
                   kind="static")
    circle, box = pb.Circle(0.25), pb.Polygon.box(0.5, 0.5)
    left = -0.25 * (columns - 1)
    for j in range(rows):
        for i in range(columns):
            shape = circle if (i + j) % 2 else box
            world.add_body(shape, position=(left + 0.5 * i, 0.25 + 0.5 * j))
    for _ in range(10):
        world.step(DT)
    return world


def picked(world: pb.World, count: int, seed: int) -> list:
    """``count`` dynamic bodies picked at random (seeded), in the order they are removed."""
    rng = np.random.default_rng(seed)
    bodies = world.bodies[1:]  # not the floor
    return [bodies[k] for k in rng.choice(len(bodies), size=count, replace=False)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=250)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--removals", type=int, default=5000)
    parser.add_argument("--singles", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    warm = grid_world(4, 4)  # numba compiles (or loads) the removal's kernels here
    warm.remove_body(warm.bodies[1])
    if hasattr(warm, "remove_bodies"):
        warm.remove_bodies(warm.bodies[1:3])
    start = time.perf_counter()
    world = grid_world(args.columns, args.rows)
    print(f"{world.count} bodies, {world.shapes.count} shapes, {world.contacts.count} "
          f"contacts; built and settled in {time.perf_counter() - start:.1f} s")

    single = world
    times = []
    for k, body in enumerate(picked(single, args.singles, args.seed)):
        if k and k % 50 == 0:
            single.step(DT)
        start = time.perf_counter()
        single.remove_body(body)
        times.append(time.perf_counter() - start)
    print(f"single remove_body: median {1e3 * statistics.median(times):.3f} ms, "
          f"mean {1e3 * statistics.fmean(times):.3f} ms over {args.singles}")

    one_by_one = grid_world(args.columns, args.rows)
    victims = picked(one_by_one, args.removals, args.seed)
    start = time.perf_counter()
    for body in victims:
        one_by_one.remove_body(body)
    elapsed = time.perf_counter() - start
    print(f"{args.removals} remove_body calls, one by one: {elapsed:.3f} s "
          f"({1e3 * elapsed / args.removals:.3f} ms each)")

    if hasattr(world, "remove_bodies"):
        batch = grid_world(args.columns, args.rows)
        victims = picked(batch, args.removals, args.seed)
        start = time.perf_counter()
        batch.remove_bodies(victims)
        elapsed = time.perf_counter() - start
        print(f"{args.removals} bodies in one remove_bodies call: {elapsed:.3f} s")
        assert np.array_equal(batch.bodies.ids, one_by_one.bodies.ids)
        assert batch.contacts.count == one_by_one.contacts.count


if __name__ == "__main__":
    main()
