"""physbook beside pymunk and Box2D on every standard scene, in one run: the benchmark of
record.

    python benchmarks/run.py [--runs 5] [--scenes bounce pyramid-20 ...]
                             [--engines physbook pymunk box2d] [--cold-start]
                             [--json benchmarks/results.json] [--png benchmarks/ratios.png]

Every measurement is a fresh Python process that builds one scene in one engine, steps it
untimed for ``first`` steps (numba compiles or loads its cache, piles start forming) and
then times the rest with one clock reading around the loop: milliseconds per step. The
engines and scenes are interleaved (run 1 of every scene in every engine, then run 2, …), so
a machine that slows down for a while slows all of them alike. The table gives each
engine's median, and physbook's and Box2D's time divided by pymunk's, with the range of
the per-run ratios. Only those ratios carry over between machines.

Box2D is measured when its Python binding (``pip install box2d``, Box2D 2.3) is installed,
and left out otherwise. Sleep is off everywhere (pymunk's default), except in
``large-pyramid-asleep``, where each engine first steps the 5 050-box pyramid with its own
sleep until the pile sleeps, then times it asleep. ``--cold-start`` adds what a user waits
for once: ``import physbook``, and its first step of the bounce scene with numba's cache
empty and then filled.

The engines ``physbook-parallel-1`` and ``physbook-parallel-2`` are physbook with the soft
step solving in parallel (``SoftStepSolver(parallel=True)``) on numba's threads, one or
two: ``--engines physbook physbook-parallel-1 physbook-parallel-2 pymunk`` measures what the
threads buy on a machine. They are not in the default run, whose table is the record.

The results are written as JSON (every run, the medians and the machine), and as a bar
chart of the ratios (PNG).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENGINES = ("physbook", "pymunk", "box2d", "physbook-parallel-1", "physbook-parallel-2")
DEFAULT_ENGINES = ENGINES[:3]
MAX_SETTLE_STEPS = 3000  # 50 s at 60 Hz: a pile still awake then is timed awake, and said so


@dataclass(frozen=True)
class SceneSpec:
    """A scene of the run: its builder's name in ``physbook.scenes``, ``pymunk_scenes``
    and ``box2d_scenes`` with its arguments (None for the two scenes built here), and how
    many steps go untimed."""

    name: str
    builder: str | None
    arguments: dict = field(default_factory=dict)
    first: int = 60


SCENES = {spec.name: spec for spec in (
    SceneSpec("bounce", "bounce"),
    SceneSpec("ramp", "ramp"),
    SceneSpec("pyramid-20", "pyramid", {"base": 20}),
    SceneSpec("rain-1000", "rain", {"n": 1000}),
    SceneSpec("boxes-1000", "boxes", {"n": 1000}),
    SceneSpec("vertical-stack", "vertical_stack"),
    SceneSpec("large-pyramid", "pyramid", {"base": 100}),
    SceneSpec("free-10000", None, first=20),
    SceneSpec("large-pyramid-asleep", None, first=0),
)}


# --- the children: one engine, one scene, one number --------------------------------------

def build(engine: str, scene: str):
    """(step function of dt, dt, total steps, body count, notes) of ``scene`` in
    ``engine``; the notes are a dict of what else the scene reports."""
    sys.path.insert(0, str(HERE))
    if scene == "free-10000":
        import bench_free_bodies as free

        if engine.startswith("physbook"):
            world = free.build_world(10_000, sleeping=False, solver=physbook_solver(engine))
            return world.step, free.DT, 120, 10_000, {}
        if engine == "pymunk":
            step = free.build_pymunk(10_000)
            return (lambda dt: step()), free.DT, 120, 10_000, {}
        import box2d_scenes

        built = box2d_scenes.free_bodies(*free.grid(10_000))
        return built.step, built.dt, built.steps, 10_000, {}
    if scene == "large-pyramid-asleep":
        return settled_pyramid(engine)
    spec = SCENES[scene]
    if engine.startswith("physbook"):
        import physbook as pb

        built = getattr(pb.scenes, spec.builder)(
            world=pb.World(sleeping=False, solver=physbook_solver(engine)), **spec.arguments)
        return built.world.step, built.dt, built.steps, built.world.count, {}
    if engine == "pymunk":
        import pymunk_scenes

        built = getattr(pymunk_scenes, spec.builder)(**spec.arguments)
        return built.space.step, built.dt, built.steps, len(built.space.bodies), {}
    import box2d_scenes

    built = getattr(box2d_scenes, spec.builder)(**spec.arguments)
    return built.step, built.dt, built.steps, built.world.bodyCount, {}


def physbook_solver(engine: str):
    """The soft step solver of a physbook engine: in parallel for ``physbook-parallel-N``
    (its child runs with N numba threads)."""
    import physbook as pb

    return pb.SoftStepSolver(parallel=engine != "physbook")


def threads_of(engine: str) -> dict:
    """The environment a child of ``engine`` runs in: numba's thread count for a parallel
    physbook, none otherwise."""
    if engine.startswith("physbook-parallel-"):
        return {"NUMBA_NUM_THREADS": engine.rsplit("-", 1)[1]}
    return {}


def settled_pyramid(engine: str):
    """The 5 050-box pyramid stepped with the engine's own sleep until every box still on
    the ground sleeps (or :data:`MAX_SETTLE_STEPS`), then 60 steps to time."""
    import bench_sleep

    dt = 1.0 / 60.0
    if engine.startswith("physbook"):
        import physbook as pb

        scene = pb.scenes.pyramid(100, world=pb.World(solver=physbook_solver(engine)))
        world, boxes = scene.world, scene.bodies["boxes"]
        step = world.step
        state = lambda: ([box.position[1] for box in boxes],  # noqa: E731
                         [not box.awake for box in boxes])
    elif engine == "pymunk":
        import pymunk_scenes

        scene = pymunk_scenes.pyramid(100)
        scene.space.sleep_time_threshold = 0.5
        boxes, step = scene.bodies["boxes"], scene.space.step
        state = lambda: ([body.position.y for body in boxes],  # noqa: E731
                         [body.is_sleeping for body in boxes])
    else:
        import box2d_scenes

        scene = box2d_scenes.pyramid(100, sleeping=True)
        boxes = [body for body in scene.world.bodies if body.type == 2]  # b2_dynamicBody
        step = scene.step
        state = lambda: ([body.position[1] for body in boxes],  # noqa: E731
                         [not body.awake for body in boxes])
    asleep_after = None
    for k in range(1, MAX_SETTLE_STEPS + 1):
        step(dt)
        if k % 30 == 0 and bench_sleep.pile_asleep(*state())[0]:
            asleep_after = k * dt
            break
    return step, dt, 60, len(boxes), {"asleep_after_s": asleep_after}


def child(engine: str, scene: str) -> dict:
    """Build and time one scene in one engine (in this process)."""
    first = SCENES[scene].first
    start = time.perf_counter()
    step, dt, steps, bodies, notes = build(engine, scene)
    if engine.startswith("physbook-parallel-"):
        import numba

        notes = {**notes, "threads": numba.get_num_threads()}
    built = time.perf_counter() - start
    from timing import mean_step_ms

    ms = mean_step_ms(step, dt, steps, first)
    return {"engine": engine, "scene": scene, "ms_per_step": ms, "bodies": bodies,
            "timed_steps": steps - first, "build_s": built, **notes}


def cold_start_child() -> dict:
    """Seconds to ``import physbook``, and to build the bounce scene and take its first
    step, in this process, with whatever numba cache ``NUMBA_CACHE_DIR`` names."""
    start = time.perf_counter()
    import physbook as pb

    imported = time.perf_counter()
    scene = pb.scenes.bounce()
    scene.world.step(scene.dt)
    return {"import_s": imported - start, "first_step_s": time.perf_counter() - imported}


# --- the parent: many children, one table --------------------------------------------------

def run_child(arguments: list[str], environment: dict | None = None) -> dict:
    """Run this script as a child with ``arguments``; its JSON answer."""
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), *arguments],
                          capture_output=True, text=True, timeout=1800,
                          env={**os.environ, **(environment or {})})
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def box2d_installed() -> bool:
    try:
        import Box2D  # noqa: F401
    except ImportError:
        return False
    return True


class Progress:
    """A one-line progress bar on standard error: done of total, and what runs now."""

    def __init__(self, total: int, width: int = 30):
        self.total, self.done, self.width, self.started = total, 0, width, time.monotonic()

    def show(self, what: str) -> None:
        filled = round(self.width * self.done / self.total)
        elapsed = time.monotonic() - self.started
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] "
                         f"{self.done}/{self.total} {elapsed:5.0f} s  {what:<40}")
        sys.stderr.flush()

    def advance(self) -> None:
        self.done += 1

    def close(self) -> None:
        self.show("done")
        sys.stderr.write("\n")


def summarise(runs: list[dict], scenes: list[str], engines: list[str]) -> list[dict]:
    """Per scene: each engine's median ms per step, and the ratios to pymunk's (the ratio
    of medians and the range of the per-run ratios, run i beside run i)."""
    rows = []
    for scene in scenes:
        times = {engine: [run["ms_per_step"] for run in runs
                          if run["scene"] == scene and run["engine"] == engine]
                 for engine in engines}
        row = {"scene": scene, "bodies": next(run["bodies"] for run in runs
                                              if run["scene"] == scene)}
        for engine, values in times.items():
            row[f"{engine}_ms"] = statistics.median(values)
        if "pymunk" in engines:
            for engine in engines:
                if engine == "pymunk":
                    continue
                per_run = [mine / theirs
                           for mine, theirs in zip(times[engine], times["pymunk"], strict=True)]
                row[f"{engine}_ratio"] = row[f"{engine}_ms"] / row["pymunk_ms"]
                row[f"{engine}_ratio_range"] = (min(per_run), max(per_run))
        rows.append(row)
    return rows


def table(rows: list[dict], engines: list[str]) -> str:
    """The summary as a Markdown table."""
    others = [engine for engine in engines if engine != "pymunk"] if "pymunk" in engines else []
    header = ["scene", "bodies"] + [f"{engine} ms" for engine in engines] + [
        f"{engine} ÷ pymunk" for engine in others]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [row["scene"], str(row["bodies"])]
        cells += [f"{row[f'{engine}_ms']:.4f}" for engine in engines]
        for engine in others:
            low, high = row[f"{engine}_ratio_range"]
            cells.append(f"**{row[f'{engine}_ratio']:.2f}** ({low:.2f}–{high:.2f})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bar_chart(rows: list[dict], engines: list[str], path: Path) -> None:
    """Bars of each engine's time ÷ pymunk's per scene, drawn from pymunk's 1 on a log scale:
    a bar to the right is slower than pymunk by its factor, one to the left faster."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    others = [engine for engine in engines if engine != "pymunk"]
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(rows) * len(others) + 1.2), dpi=100)
    height = 0.8 / len(others)
    for k, engine in enumerate(others):
        positions = [i + k * height for i in range(len(rows))]
        ratios = [row[f"{engine}_ratio"] for row in rows]
        bars = ax.barh(positions, [ratio - 1.0 for ratio in ratios], left=1.0, height=height,
                       label=f"{engine} ÷ pymunk")
        ax.bar_label(bars, labels=[f"{ratio:.2f}" for ratio in ratios], padding=3, fontsize=8)
    ax.set_xscale("log")
    ax.axvline(1.0, color="0.3", linewidth=1.0)
    ax.set_yticks([i + 0.4 - height / 2 for i in range(len(rows))],
                  [row["scene"] for row in rows])
    ax.invert_yaxis()
    ax.set_xlabel("time per step ÷ pymunk's (log scale; pymunk = 1, left is faster)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(others), fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def cold_start(runs: int, progress: Progress) -> dict:
    """Median import and first-step seconds with an empty numba cache and a filled one."""
    results = {"empty_cache": [], "filled_cache": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            for kind in results:      # the empty run fills the cache the second one reads
                progress.show(f"cold start, {kind.replace('_', ' ')}")
                results[kind].append(run_child(["--cold-start-child"],
                                               {"NUMBA_CACHE_DIR": cache}))
                progress.advance()
    return {kind: {key: statistics.median(run[key] for run in values)
                   for key in ("import_s", "first_step_s")}
            for kind, values in results.items()}


def machine() -> dict:
    versions = {}
    for package in ("physbook", "pymunk", "Box2D", "numba", "numpy"):
        try:
            versions[package] = getattr(__import__(package), "__version__", "?")
        except ImportError:
            versions[package] = None
    return {"python": platform.python_version(), "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(), "versions": versions}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per scene and "
                        "engine (default 5)")
    parser.add_argument("--scenes", nargs="+", choices=list(SCENES),
                        default=list(SCENES))
    parser.add_argument("--engines", nargs="+", choices=ENGINES,
                        default=list(DEFAULT_ENGINES))
    parser.add_argument("--cold-start", action="store_true",
                        help="also time import and first step, numba cache empty and filled")
    parser.add_argument("--json", type=Path, default=HERE / "results.json")
    parser.add_argument("--png", type=Path, default=HERE / "ratios.png")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "SCENE"), help=argparse.SUPPRESS)
    parser.add_argument("--cold-start-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    sys.path.insert(0, str(HERE))
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    if args.cold_start_child:
        print(json.dumps(cold_start_child()))
        return 0

    engines = [engine for engine in args.engines if engine != "box2d" or box2d_installed()]
    if len(engines) < len(args.engines):
        print("Box2D is not installed (pip install box2d): measuring without it",
              file=sys.stderr)
    progress = Progress(args.runs * len(args.scenes) * len(engines)
                        + (2 * args.runs if args.cold_start else 0))
    runs = []
    for run in range(args.runs):
        for scene in args.scenes:
            for engine in engines:
                progress.show(f"run {run + 1}: {scene}, {engine}")
                runs.append({"run": run, **run_child(["--child", engine, scene],
                                                     threads_of(engine))})
                progress.advance()
    starts = cold_start(args.runs, progress) if args.cold_start else None
    progress.close()

    rows = summarise(runs, args.scenes, engines)
    print(table(rows, engines))
    for engine in engines:
        settled = [run.get("asleep_after_s") for run in runs
                   if run["engine"] == engine and run["scene"] == "large-pyramid-asleep"]
        if settled:
            said = ", ".join("never (timed awake)" if s is None else f"{s:.1f} s" for s in settled)
            print(f"large-pyramid-asleep, {engine}: asleep after {said}")
    if starts:
        print("\n| numba cache | import physbook (s) | first step of bounce (s) |\n|---|---|---|")
        for kind, values in starts.items():
            print(f"| {kind.replace('_', ' ')} | {values['import_s']:.2f} | "
                  f"{values['first_step_s']:.2f} |")
    args.json.write_text(json.dumps({"machine": machine(), "runs": runs, "summary": rows,
                                     "cold_start": starts}, indent=1) + "\n")
    if "pymunk" in engines and len(engines) > 1:
        bar_chart(rows, engines, args.png)
    print(f"\nwrote {args.json}" + (f" and {args.png}" if "pymunk" in engines else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
