"""Compile physbook's kernels ahead of time, into numba's cache.

A fresh install has no compiled kernels: a world's first step compiles the kernels it calls
(two to three minutes on a small two-core machine) and the first use of each feature after
it compiles a few more, once. Run this where you set up, and every later process (each
notebook's kernel, each game) loads them from the cache instead::

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

import numpy as np

from physbook import scenes
from physbook.broadphase import BROAD_PHASES, insertion
from physbook.character import CharacterMover
from physbook.collision import bilateral, sat, toi
from physbook.collision.manifold import collide
from physbook.collision.shape_queries import ray_cast_rows
from physbook.dynamics.block_solver import BlockSolver
from physbook.dynamics.joints import MouseJoint
from physbook.dynamics.solvers import SoftStepSolver
from physbook.geometry import decompose, hull
from physbook.geometry.round_shapes import Capsule
from physbook.geometry.shapes import Circle, Polygon
from physbook.stages import broad_phase_input
from physbook.vecmath.vec import Transform
from physbook.verlet import VerletWorld
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


def run_on(scene, pipeline: str, steps: int):
    """Run ``steps`` steps of ``scene`` on ``pipeline`` ("compiled" or "staged"); the
    scene."""
    scene.world.compiled = PIPELINES[pipeline]
    scene.run(steps)
    return scene


def play_with(world: World, dt: float, steps: int = 10) -> None:
    """What a game does beside stepping: drag a body with a mouse joint, sense it, walk a
    character along the ground, and ask the world's queries."""
    body = world.add_body(Circle(0.25), position=(0.0, 3.0))
    world.add_body(Circle(1.0), position=(0.0, 1.0), kind="static", sensor=True)
    drag = world.add_joint(MouseJoint(body, (0.5, 3.5), 1000.0 * body.mass))
    # a character standing on the ground, walking into the pile
    mover = CharacterMover(world, Capsule((0.0, -0.3), (0.0, 0.3), 0.2), (-3.0, 0.52))
    for _ in range(steps):
        mover.move((2.0, 0.0), dt)
        world.step(dt)
    world.remove_joint(drag)
    world.ray_cast((-10.0, 5.0), (20.0, -10.0))
    world.ray_cast_all((-10.0, 5.0), (20.0, -10.0))
    world.query_point((0.0, 0.5))
    world.query_aabb((-2.0, -1.0), (2.0, 2.0))
    for shape in (Circle(0.3), Polygon.box(0.3, 0.2), Capsule((-0.2, 0.0), (0.2, 0.0), 0.1)):
        world.overlap_shape(shape, (0.0, 1.0), 0.1)
        world.cast_shape(shape, (-5.0, 4.0), 0.1, (10.0, -6.0))


def use_the_tools(pipeline: str) -> None:
    """What the chapters do beside a game's world: remove and re-add bodies, collide
    shapes by hand (and clip their faces), validate, hull and decompose outlines, find pairs
    with each broad phase (in a world and by hand), build trees each way, step the other
    solvers (block, and the soft step in row order, with joints), cast rays by hand, sweep
    to a time of impact, explode, and step chapter 5's Verlet cloth."""
    # bodies removed and added (row moves, stale handles, contacts carried over)
    world = World(capacity=4, solver="impulse")
    world.add_body(Polygon.box(3.0, 0.5), position=(0.0, -0.5), kind="static")
    bodies = [world.add_body(Polygon.box(0.2, 0.2), position=(x, 0.2)) for x in (-1.0, 0.0, 1.0)]
    world.compiled = PIPELINES[pipeline]
    world.run(5, scenes.DT)
    world.remove_body(bodies[0])
    world.add_body(Circle(0.2), position=(3.0, 1.0))
    world.run(5, scenes.DT)
    # shapes collided and outlines checked, hulled and decomposed by hand
    collide(Circle(1.0), Transform((0.0, 0.0)), Circle(0.5), Transform((1.0, 0.2)))
    collide(Polygon.box(1.0, 1.0), Transform((0.0, 0.0)), Polygon.regular(5, 1.0),
            Transform((1.5, 0.3), 0.2))
    for outline in ([(0, 0), (2, 2), (2, 0), (0, 2)], [(0, 0), (2, 0), (1, 0.5), (2, 2), (0, 2)]):
        try:
            Polygon(outline)
        except ValueError:
            pass
    box, pentagon = Polygon.box(1.0, 1.0), Polygon.regular(5, 1.0)
    sat.max_separation(box.vertices, box.normals, pentagon.vertices + 1.5)
    sat.clipping_steps(box, Transform((0.0, 0.0)), pentagon, Transform((1.5, 0.3), 0.2))
    points = np.random.default_rng(0).uniform(-1.0, 1.0, (40, 2))
    for method in hull.HULL_METHODS:
        hull.convex_hull(points, method)
    notched = [(0.0, 0.0), (4.0, 0.0), (4.0, 3.0), (2.0, 1.0), (0.0, 3.0)]
    for method in decompose.DECOMPOSITION_METHODS:
        decompose.decompose(notched, method)
    # every broad phase, and trees built by each insertion
    for broad_phase in BROAD_PHASES:
        world = run_on(scenes.pyramid(4, world=World(broad_phase=broad_phase)), pipeline, 5).world
    shape_boxes, shape_filters = broad_phase_input(world)
    for find_pairs in BROAD_PHASES.values():
        find_pairs(shape_boxes, shape_filters)
    boxes = scenes.box_field("uniform", 50, seed=1)
    for method in insertion.INSERTION_METHODS:
        insertion.inserted_tree(boxes.lower, boxes.upper, method)
    # the other solvers, and the soft step in row order with joints
    for solver, joints in ((BlockSolver(block=True), False), (BlockSolver(block=False), False),
                           ("soft_step", True), (SoftStepSolver(order="rows"), True)):
        made = [scenes.pyramid(4, World(solver=solver, sleeping=False))]
        if joints:  # the block solver solves contacts only
            made.append(scenes.cradle(World(solver=solver, sleeping=False)))
        for scene in made:
            run_on(scene, pipeline, 5)
    # rays by hand, an explosion, a time of impact
    world = scenes.pyramid(3).world
    ray_cast_rows(world.shapes.arrays, world.bodies.origins, world.bodies.angles,
                  np.arange(world.shapes.count), *np.array([-5.0, 1.0]), *np.array([10.0, 0.0]))
    world.explode((0.0, 0.5), radius=1.5, impulse=2.0, falloff=2.0)
    rod = Polygon.box(1.0, 0.1)
    ground = Polygon.box(5.0, 0.5)
    falling, still = toi.sweep((0.0, 3.0), (0.0, -3.0), 0.0, 2.0), toi.sweep((0, 0), (0, 0))
    toi.time_of_impact(rod, falling, ground, still)
    bilateral.time_of_impact(rod, falling, ground, still)
    # chapter 5's engine: a particle and a cloth that tears
    verlet_world = VerletWorld(iterations=4, damping=0.01)
    verlet_world.add_particle((0.0, 0.0))
    verlet_world.add_cloth((-1.0, 2.0), 2.0, 1.0, 6, 4, tear_ratio=1.5)
    verlet_world.record(5, scenes.DT)


def warm(pipeline: str, report: Callable[[str], None] = print) -> float:
    """Step every scene of :data:`SCENES` on ``pipeline`` ("compiled" or "staged"), and on
    the compiled one those of :data:`IMPULSE_SCENES`, then play with a small pile
    (:func:`play_with`); ``report`` is given a line per scene. The seconds it took."""
    if pipeline not in PIPELINES:
        raise ValueError(f"pipeline must be one of {sorted(PIPELINES)}, got {pipeline!r}")
    start = time.perf_counter()
    for name, make, steps in SCENES + (IMPULSE_SCENES if pipeline == "compiled" else ()):
        began = time.perf_counter()
        run_on(make(), pipeline, steps)
        report(f"{pipeline} step: {name} ready ({time.perf_counter() - began:.1f} s)")
    began = time.perf_counter()
    scene = scenes.pyramid(4)
    scene.world.compiled = PIPELINES[pipeline]
    play_with(scene.world, scene.dt)
    report(f"{pipeline} step: mouse joint, sensor, character and queries ready "
           f"({time.perf_counter() - began:.1f} s)")
    began = time.perf_counter()
    use_the_tools(pipeline)
    report(f"{pipeline} step: removal, outlines, broad phases, solvers, sweeps, explosions "
           f"and Verlet ready ({time.perf_counter() - began:.1f} s)")
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
