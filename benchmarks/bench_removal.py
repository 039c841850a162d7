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

Both ways leave the same world (checked here on the ids).

    python benchmarks/bench_removal.py --engines [--sizes 1000,10000,50000] [--singles 200]

compares the engines instead: for each size, a grid of that many bodies as above (rows of
200, or fewer) in physbook, pymunk (``space.remove``) and Box2D v3 (``pyb2d3``,
``body.destroy``), each in a process of its own, settled by 10 steps; then ``singles``
bodies picked at random (seeded) are removed one at a time, a step after every 50, and the
median µs of one removal is reported. Only ratios measured side by side carry over between
machines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

import physbook as pb

DT = 1.0 / 60.0
ENGINES = ("physbook", "pymunk", "box2d-v3")


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


def grid_places(count: int) -> tuple[float, list]:
    """The grid of ``count`` bodies (rows of up to 200, 0.5 m apart, resting on a floor):
    the floor's half width and each body's (x, y, is a circle)."""
    columns = min(count, 200)
    left = -0.25 * (columns - 1)
    places = [(left + 0.5 * (k % columns), 0.25 + 0.5 * (k // columns),
               bool((k % columns + k // columns) % 2)) for k in range(count)]
    return 0.25 * columns + 2.0, places


def physbook_grid(count: int):
    """``count`` bodies on a floor in physbook: (bodies, remove, step)."""
    half_width, places = grid_places(count)
    world = pb.World(capacity=count + 1)
    world.add_body(pb.Polygon.box(half_width, 0.5), position=(0.0, -0.5), kind="static")
    circle, box = pb.Circle(0.25), pb.Polygon.box(0.25, 0.25)
    bodies = [world.add_body(circle if round_ else box, position=(x, y))
              for x, y, round_ in places]
    return bodies, world.remove_body, lambda: world.step(DT)


def pymunk_grid(count: int):
    """The same grid in pymunk (10 iterations, as the other scripts)."""
    import pymunk

    half_width, places = grid_places(count)
    space = pymunk.Space()
    space.gravity, space.iterations = (0.0, -10.0), 10
    space.add(pymunk.Poly(space.static_body, [(-half_width, -1.0), (half_width, -1.0),
                                              (half_width, 0.0), (-half_width, 0.0)]))
    bodies = []
    for x, y, round_ in places:
        body = pymunk.Body()
        body.position = (x, y)
        shape = pymunk.Circle(body, 0.25) if round_ else pymunk.Poly.create_box(body,
                                                                                (0.5, 0.5))
        shape.density, shape.friction = 1.0, 0.6
        space.add(body, shape)
        bodies.append((body, shape))
    return bodies, lambda handle: space.remove(*handle), lambda: space.step(DT)


def box2d_grid(count: int):
    """The same grid in Box2D v3 (4 substeps)."""
    import pyb2d3 as b2

    half_width, places = grid_places(count)
    world = b2.World(gravity=(0.0, -10.0))
    floor = world.create_static_body(position=(0.0, 0.0))
    floor.create_polygon_shape(b2.shape_def(), b2.box(half_width, 0.5, center=(0.0, -0.5)))
    shape_def = b2.shape_def(density=1.0, material=b2.surface_material(friction=0.6))
    box, circle = b2.box(0.25, 0.25), b2.circle(radius=0.25)
    bodies = []
    for x, y, round_ in places:
        body = world.create_dynamic_body(position=(x, y))
        if round_:
            body.create_circle_shape(shape_def, circle)
        else:
            body.create_polygon_shape(shape_def, box)
        bodies.append(body)
    return bodies, lambda body: body.destroy(), lambda: world.step(DT, 4)


GRIDS = {"physbook": physbook_grid, "pymunk": pymunk_grid, "box2d-v3": box2d_grid}


def removal_cost(engine: str, count: int, singles: int, seed: int) -> float:
    """Median µs of one removal from ``engine``'s settled grid of ``count`` bodies."""
    bodies, remove, step = GRIDS[engine](count)
    for _ in range(10):
        step()
    rng = np.random.default_rng(seed)
    times = []
    for k, index in enumerate(rng.choice(count, size=singles, replace=False).tolist()):
        if k and k % 50 == 0:
            step()
        start = time.perf_counter()
        remove(bodies[index])
        times.append(time.perf_counter() - start)
    return 1e6 * statistics.median(times)


def compare_engines(sizes: list[int], singles: int, seed: int) -> None:
    """The table of one removal's cost by engine and size, each run in its own process."""
    print(f"median µs of one removal ({singles} random bodies of a settled grid)")
    print(f"{'bodies':>7} | " + " | ".join(f"{engine:>9}" for engine in ENGINES)
          + " | physbook ÷ pymunk | physbook ÷ box2d-v3")
    for count in sizes:
        costs = []
        for engine in ENGINES:
            result = subprocess.run(
                [sys.executable, __file__, "--child", engine, "--sizes", str(count),
                 "--singles", str(singles), "--seed", str(seed)],
                capture_output=True, text=True, check=False)
            if result.returncode != 0 and "ModuleNotFoundError" not in result.stderr:
                raise RuntimeError(result.stderr)
            costs.append(json.loads(result.stdout) if result.returncode == 0 else
                         float("nan"))
        print(f"{count:>7} | " + " | ".join(f"{cost:>9.1f}" for cost in costs)
              + f" | {costs[0] / costs[1]:>17.1f} | {costs[0] / costs[2]:>19.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=250)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--removals", type=int, default=5000)
    parser.add_argument("--singles", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engines", action="store_true",
                        help="compare one removal's cost in physbook, pymunk and Box2D v3")
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.child == "physbook":  # numba compiles (or loads) its kernels first
            removal_cost("physbook", 20, 5, args.seed)
        print(json.dumps(removal_cost(args.child, int(args.sizes), args.singles, args.seed)))
        return
    if args.engines:
        compare_engines([int(size) for size in args.sizes.split(",")], args.singles,
                        args.seed)
        return

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
