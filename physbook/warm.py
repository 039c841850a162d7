"""Compile physbook's kernels ahead of time, into numba's cache.

A fresh install has no compiled kernels: a world's first step compiles the kernels it calls
(about a minute on a small machine) and the first use of each feature after it compiles a
few more, once. Run this where you set up, and every later process (each notebook's kernel,
each game) loads them from the cache instead::

    python -m physbook.warm

It steps scenes that between them call every stage of both pipelines (the compiled step and
the staged one): circles, boxes, polygons, capsules, segments and chains; stacks, joints of
every kind a scene uses and a mouse joint; fast bodies with continuous collision; sensors;
sleep; the character mover; each of the four solvers; and the world's queries (rays,
points, boxes, shape overlaps and casts). The two pipelines compile in two processes at
once, one on each core of a two-core machine. A kernel this leaves out is compiled by the
first process that calls it, announced on screen (:mod:`physbook.compile_notice`).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable

from physbook import scenes
from physbook.character import CharacterMover
from physbook.dynamics.joints import MouseJoint
from physbook.geometry.round_shapes import Capsule
from physbook.geometry.shapes import Circle, Polygon
from physbook.world import World

#: The scenes stepped on both pipelines, each as ``(name, make the scene, steps)``: enough
#: steps for bodies to touch, for joints to pull and for a fast body to hit a wall.
SCENES: tuple[tuple[str, Callable, int], ...] = (
    ("bounce", lambda: scenes.bounce(), 30),
    ("pyramid", lambda: scenes.pyramid(6), 30),
    ("card house", lambda: scenes.card_house(2), 30),
    ("ragdoll", lambda: scenes.ragdoll(), 30),
    ("car", lambda: scenes.car(), 30),
    ("bridge", lambda: scenes.bridge(planks=6, boxes=2), 30),
    ("bullets", lambda: scenes.bullets(10), 30),
    ("spinning rod", lambda: scenes.spinning_rod(), 30),
    ("tumbler", lambda: scenes.tumbler(10), 30),
    ("capsules on a chain", lambda: scenes.chain_slope(), 30),
    ("marble run", lambda: scenes.marble_run(4), 30),
    ("platformer", lambda: scenes.platformer_scene(), 30),
)

#: Scenes of the impulse solvers, with and without joints, which chapters 4 and 9 to 11
#: step: warmed on the compiled pipeline only (the staged one shares the solvers' kernels).
IMPULSE_SCENES: tuple[tuple[str, Callable, int], ...] = (
    ("pyramid, sequential impulses",
     lambda: scenes.pyramid(6, world=World(solver="sequential_impulses")), 30),
    ("pyramid, impulses", lambda: scenes.pyramid(6, world=World(solver="impulse")), 30),
    ("ragdoll, sequential impulses",
     lambda: scenes.ragdoll(world=World(solver="sequential_impulses")), 30),
)

#: How a pipeline is chosen: ``world.compiled``.
PIPELINES = {"compiled": True, "staged": False}


def play_with(world: World, dt: float, steps: int = 10) -> None:
    """What a game does beside stepping: drag a body with a mouse joint, sense it, move a
    character through the world, and ask the world's queries."""
    body = world.add_body(Circle(0.25), position=(0.0, 3.0))
    world.add_body(Circle(1.0), position=(0.0, 1.0), kind="static", sensor=True)
    drag = world.add_joint(MouseJoint(body, (0.5, 3.5), 1000.0 * body.mass))
    mover = CharacterMover(world, Capsule((0.0, -0.3), (0.0, 0.3), 0.2), (-3.0, 4.0))
    for _ in range(steps):
        mover.move((1.0, -1.0), dt)
        world.step(dt)
    world.remove_joint(drag)
    world.ray_cast((-10.0, 5.0), (20.0, -10.0))
    world.ray_cast_all((-10.0, 5.0), (20.0, -10.0))
    world.query_point((0.0, 0.5))
    world.query_aabb((-2.0, -1.0), (2.0, 2.0))
    for shape in (Circle(0.3), Polygon.box(0.3, 0.2), Capsule((-0.2, 0.0), (0.2, 0.0), 0.1)):
        world.overlap_shape(shape, (0.0, 1.0), 0.1)
        world.cast_shape(shape, (-5.0, 4.0), 0.1, (10.0, -6.0))


def warm(pipeline: str, report: Callable[[str], None] = print) -> float:
    """Step every scene of :data:`SCENES` on ``pipeline`` ("compiled" or "staged"), and on
    the compiled one those of :data:`IMPULSE_SCENES`, then play with a small pile
    (:func:`play_with`); ``report`` is given a line per scene. The seconds it took."""
    if pipeline not in PIPELINES:
        raise ValueError(f"pipeline must be one of {sorted(PIPELINES)}, got {pipeline!r}")
    start = time.perf_counter()
    for name, make, steps in SCENES + (IMPULSE_SCENES if pipeline == "compiled" else ()):
        began = time.perf_counter()
        scene = make()
        scene.world.compiled = PIPELINES[pipeline]
        scene.run(steps)
        report(f"{pipeline} step: {name} ready ({time.perf_counter() - began:.1f} s)")
    began = time.perf_counter()
    scene = scenes.pyramid(4)
    scene.world.compiled = PIPELINES[pipeline]
    play_with(scene.world, scene.dt)
    report(f"{pipeline} step: mouse joint, sensor, character and queries ready "
           f"({time.perf_counter() - began:.1f} s)")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", choices=sorted(PIPELINES),
                        help="warm one pipeline only (default: both, in two processes)")
    args = parser.parse_args(argv)
    if args.pipeline:
        print(f"{args.pipeline} step: kernels ready in {warm(args.pipeline):.0f} s")
        return 0
    staged = subprocess.Popen([sys.executable, "-m", "physbook.warm", "--pipeline", "staged"])
    print(f"compiled step: kernels ready in {warm('compiled'):.0f} s")
    return staged.wait()


if __name__ == "__main__":
    raise SystemExit(main())
