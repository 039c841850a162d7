"""How long one step of a world of 10 000 free bodies takes (chapter 4).

Half the bodies are circles (r = 0.5), half unit boxes, on a 100 × 100 grid 3 m apart, with
random velocities and spins, under gravity (0, −10), at dt = 1/60 s. They all fall alike and
drift too slowly to meet, so no pair ever touches: the step is integration plus whatever
the contact stages cost when there is nothing to resolve. Compile time is excluded (a
warm-up runs first); each step is timed alone and the table reports the median and the
90th percentile in milliseconds.

Three rows:

- *integration*: the three motion stages of ``World.step`` (integrate velocities,
  integrate positions, clear forces), which chapter 4 builds; a second row moves every
  shape 0.2 m off its body origin, so that each origin must be found by rotating the
  centre of mass's offset (a cos and a sin per body);
- *step, no collision detection*: the whole ``World.step`` with a broad phase that
  reports no pairs;
- *step, default pipeline*: the whole ``World.step`` as a game would call it.

The same bodies are also stepped in pymunk in the same run (``--no-pymunk`` skips it),
and the ratio of the whole steps is printed.

Run:  python benchmarks/bench_free_bodies.py [--bodies 10000] [--steps 300] [--no-pymunk]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
from timing import time_calls

import physbook as pb
from physbook.dynamics.motion import integrate_positions, integrate_velocities

DT = 1.0 / 60.0



def grid(count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions on a square grid 3 m apart, and seeded random velocities and spins."""
    side = int(np.ceil(np.sqrt(count)))
    index = np.arange(count)
    positions = 3.0 * np.column_stack([index % side, index // side]).astype(float)
    rng = np.random.default_rng(4)
    return positions, rng.normal(0.0, 0.05, (count, 2)), rng.normal(0.0, 1.0, count)


def build_world(count: int, offset: float = 0.0, **options) -> pb.World:
    """The bodies in a physbook world; ``offset`` moves the shapes off the body origins."""
    world = pb.World(capacity=count, **options)
    circle = pb.Circle(0.5, center=(offset, 0.0))
    box = pb.Polygon.box(0.5, 0.5, center=(offset, 0.0))
    positions, velocities, spins = grid(count)
    for i in range(count):
        world.add_body(circle if i % 2 else box, position=positions[i],
                       velocity=velocities[i], angular_velocity=spins[i])
    return world


def no_pairs(boxes, filters) -> np.ndarray:
    """A broad phase that finds nothing: collision detection switched off."""
    return np.empty((0, 2), dtype=np.int64)


def integration_only(world: pb.World):
    """The motion stages of ``World.step``, run on the world's own columns."""
    bodies, gravity = world.bodies.arrays, world.gravity

    def call():
        integrate_velocities(bodies, gravity, DT)
        integrate_positions(bodies, DT)
        bodies.forces[:] = 0.0
        bodies.torques[:] = 0.0

    return call


def build_pymunk(count: int):
    import pymunk

    space = pymunk.Space()
    space.gravity = (0.0, -10.0)
    positions, velocities, spins = grid(count)
    for i in range(count):
        if i % 2:
            mass, moment = np.pi * 0.25, 0.5 * np.pi * 0.25 * 0.25
        else:
            mass, moment = 1.0, 1.0 / 6.0
        body = pymunk.Body(mass, moment)
        body.position = tuple(positions[i])
        body.velocity = tuple(velocities[i])
        body.angular_velocity = float(spins[i])
        shape = pymunk.Circle(body, 0.5) if i % 2 else pymunk.Poly.create_box(body, (1.0, 1.0))
        space.add(body, shape)
    return lambda: space.step(DT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bodies", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--no-pymunk", action="store_true", help="skip the pymunk row")
    args = parser.parse_args()

    undetected = build_world(args.bodies, broad_phase=no_pairs)
    default = build_world(args.bodies)
    rows = [
        ("integration", integration_only(build_world(args.bodies))),
        ("integration, off-centre shapes", integration_only(build_world(args.bodies, 0.2))),
        ("step, no collision detection", lambda: undetected.step(DT)),
        ("step, default pipeline", lambda: default.step(DT)),
    ]
    if not args.no_pymunk:
        rows.append(("pymunk step", build_pymunk(args.bodies)))

    print(f"{args.bodies} free bodies, {args.steps} steps after {args.warmup} warm-up steps")
    print(f"{'what':<32}{'median ms':>10}{'p90 ms':>10}")
    medians = {}
    for name, call in rows:
        times = time_calls(call, args.steps, args.warmup)
        p90 = statistics.quantiles(times, n=10)[-1]
        medians[name] = statistics.median(times)
        print(f"{name:<32}{medians[name]:>10.3f}{p90:>10.3f}")
    if "pymunk step" in medians:
        ratio = medians["step, default pipeline"] / medians["pymunk step"]
        print(f"default step ÷ pymunk step: {ratio:.2f}")


if __name__ == "__main__":
    main()
