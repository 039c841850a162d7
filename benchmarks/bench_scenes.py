"""physbook's contact solvers beside pymunk on the standard scenes, in one run.

    python benchmarks/bench_scenes.py [--runs 7] [--scenes bounce ramp pyramid-20 ...]
                                      [--solvers impulse sequential_impulses soft_step]

For every scene it prints the milliseconds per step of pymunk and of physbook with each
solver (the median over ``--runs`` fresh runs of the mean time of steps 60 to the scene's
last step), physbook's time divided by pymunk's, and the quality numbers of the
standard-scenes table, measured on a separate recorded run with the same code for every
engine. Absolute times move from machine to machine and run to run; the ratio measured side
by side is the number to compare. Sleep is off in both engines (pymunk's default), so a
settled pile costs what it costs awake; ``bench_sleep.py`` measures what sleeping saves.
``large-pyramid`` (5 050 boxes) is left out unless asked for: it takes about a minute per
solver.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pymunk_scenes  # noqa: E402  (the sibling module, found through the line above)
from timing import mean_step_ms  # noqa: E402

import physbook as pb  # noqa: E402
from physbook import scenes  # noqa: E402

TIMING_START = 60  # steps before the timed window (numba compiled, pile forming)

SCENE_BUILDERS = {
    "bounce": (scenes.bounce, pymunk_scenes.bounce, {}, {}),
    "ramp": (scenes.ramp, pymunk_scenes.ramp, {}, {}),
    "pyramid-20": (scenes.pyramid, pymunk_scenes.pyramid, {"base": 20}, {"base": 20}),
    "rain-1000": (scenes.rain, pymunk_scenes.rain, {"n": 1000}, {"n": 1000}),
    "boxes-1000": (scenes.boxes, pymunk_scenes.boxes, {"n": 1000}, {"n": 1000}),
    "vertical-stack": (scenes.vertical_stack, pymunk_scenes.vertical_stack, {}, {}),
    "large-pyramid": (scenes.large_pyramid, pymunk_scenes.pyramid, {}, {"base": 100}),
}


def time_physbook(build, kwargs, solver: str) -> float:
    scene = build(world=pb.World(solver=solver, sleeping=False), **kwargs)
    return mean_step_ms(scene.world.step, scene.dt, scene.steps, TIMING_START)


def time_pymunk(build, kwargs) -> float:
    scene = build(**kwargs)
    return mean_step_ms(scene.space.step, scene.dt, scene.steps, TIMING_START)


# --- recorded runs for the quality numbers --------------------------------------------


def physbook_record(build, kwargs, key, solver: str):
    """(F, B, 2) centres and (F, B) angles of the bodies ``scene.bodies[key]``."""
    scene = build(world=pb.World(solver=solver, sleeping=False), **kwargs)
    bodies = scene.bodies[key]
    bodies = bodies if isinstance(bodies, list) else [bodies]
    rows = [body.row for body in bodies]
    recording = scene.run()
    return scene, recording.centers[:, rows], recording.angles[:, rows]


def pymunk_record(build, kwargs, key):
    scene = build(**kwargs)
    bodies = scene.bodies[key]
    bodies = bodies if isinstance(bodies, list) else [bodies]
    centers = [pymunk_scenes.centers(bodies)]
    angles = [pymunk_scenes.angles(bodies)]
    for _ in range(scene.steps):
        scene.space.step(scene.dt)
        centers.append(pymunk_scenes.centers(bodies))
        angles.append(pymunk_scenes.angles(bodies))
    return scene, np.array(centers), np.array(angles)


def quality_bounce(scene, centers, angles) -> str:
    p = scene.params
    analytic = scenes.bounce_apexes(p["height"], p["radius"], p["restitution"], 4)
    apexes = scenes.apex_heights(centers[:, 0, 1], 4)
    analytic = analytic[: len(apexes)]
    apex_error = apexes / analytic - 1.0
    rise_error = (apexes - p["radius"]) / (analytic - p["radius"]) - 1.0
    return ("apexes " + " ".join(f"{a:.3f}" for a in apexes)
            + " (analytic " + " ".join(f"{a:.3f}" for a in analytic) + "); apex error "
            + " ".join(f"{100 * e:+.1f}%" for e in apex_error)
            + "; rise above r " + " ".join(f"{100 * r:+.0f}%" for r in rise_error))


def quality_ramp(scene, centers, angles) -> str:
    p = scene.params
    along = centers @ p["direction"]
    slides, accelerations = scenes.ramp_motion(along, scene.dt, slide_threshold=0.5)
    analytic = scenes.ramp_accelerations(p["angle"], p["frictions"])
    parts = []
    for mu, slide, a, a_exact, moved in zip(p["frictions"], slides, accelerations, analytic,
                                            along[0] - along[-1], strict=True):
        if slide:
            parts.append(f"μ={mu:g} slides a={a:.3f} (exact {a_exact:.3f})")
        else:
            parts.append(f"μ={mu:g} sticks (creep {100 * moved:.1f} cm)")
    return "; ".join(parts)


def quality_pyramid(scene, centers, angles) -> str:
    q = scenes.pyramid_quality(centers[0], centers[-1], angles[-1])
    return (f"top box moves {q['top_displacement']:.3f} m; largest displacement "
            f"{q['largest_displacement']:.2f} m, slide {q['largest_slide']:.2f} m, tilt "
            f"{q['largest_tilt']:.2f} rad; standing: {q['standing']}")


def quality_container(scene, centers, angles) -> str:
    radius = scene.params.get("radius", scene.params.get("half_extent"))
    q = scenes.container_quality(centers[-1], radius)
    return (f"escaped {q['escaped']}; deepest floor penetration "
            f"{q['deepest_penetration']:.3f} m; pile height {q['pile_height']:.2f} m")


QUALITY = {
    "bounce": ("ball", quality_bounce),
    "ramp": ("boxes", quality_ramp),
    "pyramid-20": ("boxes", quality_pyramid),
    "rain-1000": ("circles", quality_container),
    "boxes-1000": ("boxes", quality_container),
    "vertical-stack": ("boxes", quality_pyramid),
    "large-pyramid": ("boxes", quality_pyramid),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per scene and engine")
    parser.add_argument("--scenes", nargs="+",
                        default=[name for name in SCENE_BUILDERS if name != "large-pyramid"],
                        choices=sorted(SCENE_BUILDERS))
    parser.add_argument("--solvers", nargs="+", default=sorted(pb.SOLVERS),
                        choices=sorted(pb.SOLVERS))
    args = parser.parse_args(argv)

    # Compile every kernel once (numba caches them on disk too), outside any timing.
    for solver in args.solvers:
        scenes.pyramid(3, world=pb.World(solver=solver)).run(5)
        scenes.rain(40, world=pb.World(solver=solver)).run(5)

    rows = []
    for name in args.scenes:
        physbook_build, pymunk_build, ours_kwargs, theirs_kwargs = SCENE_BUILDERS[name]
        theirs = statistics.median(time_pymunk(pymunk_build, theirs_kwargs)
                                   for _ in range(args.runs))
        ours = [statistics.median(time_physbook(physbook_build, ours_kwargs, solver)
                                  for _ in range(args.runs)) for solver in args.solvers]
        rows.append((name, theirs, ours))
        print(f"{name:15s} pymunk {theirs:8.3f} ms/step   "
              + "   ".join(f"{solver} {t:8.3f} ({t / theirs:.2f})"
                           for solver, t in zip(args.solvers, ours, strict=True)), flush=True)

    print("\n| scene | pymunk ms/step | " + " | ".join(
        f"{solver} ms/step (÷ pymunk)" for solver in args.solvers) + " |")
    print("|---|---|" + "---|" * len(args.solvers))
    for name, theirs, ours in rows:
        print(f"| {name} | {theirs:.3f} | "
              + " | ".join(f"{t:.3f} ({t / theirs:.2f})" for t in ours) + " |")

    print("\n| scene | engine | quality |")
    print("|---|---|---|")
    for name in args.scenes:
        physbook_build, pymunk_build, ours_kwargs, theirs_kwargs = SCENE_BUILDERS[name]
        key, measure = QUALITY[name]
        runs = [(f"physbook {solver}", physbook_record,
                 (physbook_build, ours_kwargs, key, solver)) for solver in args.solvers]
        runs.append(("pymunk", pymunk_record, (pymunk_build, theirs_kwargs, key)))
        for engine, record, record_args in runs:
            scene, centers, angles = record(*record_args)
            if not (np.isfinite(centers).all() and np.isfinite(angles).all()):
                print(f"| {name} | {engine} | non-finite state |")
                continue
            print(f"| {name} | {engine} | {measure(scene, centers, angles)} |")
    print(f"\n{args.runs} runs per scene; tan(0.25) = {math.tan(0.25):.4f}")


if __name__ == "__main__":
    main()
