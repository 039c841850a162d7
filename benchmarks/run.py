"""physbook beside Box2D v3 and pymunk on every standard scene and on Box2D v3's own
benchmark scenes, in one run: the benchmark of record.

    python benchmarks/run.py [--runs 5] [--scenes bounce pyramid-20 b2-tumbler ...]
                             [--engines physbook box2d3 pymunk physbook-4] [--cold-start]
                             [--max-steps 250] [--record]
                             [--json build/benchmarks/results.json]
                             [--png build/benchmarks/ratios.png]

Every measurement is a fresh Python process that builds one scene in one engine, steps it
untimed for ``first`` steps (numba compiles or loads its cache, piles start forming) and
then times the rest with one clock reading around the loop: milliseconds per step. The
engines and scenes are interleaved (run 1 of every scene in every engine, then run 2, …), so
a machine that slows down for a while slows all of them alike. The table gives each
engine's median, each engine's time divided by Box2D v3's, and physbook's (at 8 and 4
substeps) divided by pymunk's, with the range of the per-run ratios (run i beside run i).
Only those ratios carry over between machines.

The engines: ``physbook`` at its defaults; ``box2d3``, Box2D v3.1 through its Python
binding ``pyb2d3`` at its default 4 substeps on one thread; ``pymunk`` at its defaults;
``physbook-4``, physbook's soft step at Box2D v3's 4 substeps instead of its own 8, the
same work per step as Box2D v3, which shows what physbook's quality costs. ``box2d``
(Box2D 2.3, ``pip install box2d``) can be asked for. An engine that is not installed is
left out, with one line saying so (``pip install physbook[bench]`` installs the two
references). Sleep is off everywhere in the standard scenes (pymunk's default), except in
``large-pyramid-asleep``, where each engine first steps the 5 050-box pyramid with its own
sleep until the pile sleeps, then times it asleep.

The scenes named ``b2-…`` are Box2D v3's own benchmark scenes (:mod:`box2d_benchmarks`:
large pyramid, many pyramids, joint grid, tumbler, washer, smash, spinner and rain of
ragdolls) with the sizes, speeds, step counts and sleep of Box2D's file, built in every
engine from one description (:mod:`benchmark_engines`); only the joint grid is smaller,
40 × 40 instead of 100 × 100, because pymunk's grid comes apart at either size (at its
default 10 iterations) and its step then slows to 2 s at 100 × 100. At the end of the
timed run each is judged the same way in every engine (top drop of the pyramids, stretch
of the joints, bodies out of the container, sink into the heavy body), as are the
standard pyramids (top drop), and the table prints those numbers beside the times. A sink
and a stretch are also watched every :data:`WATCH_EVERY` timed steps, off the clock: the
table gives the deepest sink, and the largest and the mean stretch, over the run.

``--max-steps N`` runs each of Box2D's scenes for at most N steps, its untimed ones
included, for a shorter run; but the smash at least 150 (its hammer reaches the block at
step 69) and the rain of ragdolls at least 320 (its ragdolls land from step 170 and its
40 columns are full at 312). Its times are of those first steps, and its quality numbers
of the state after them.

``--cold-start`` adds what a user waits for once: ``import physbook``, and its first step
of the bounce scene with numba's cache empty and then filled. The engines
``physbook-parallel-1`` and ``physbook-parallel-2`` are physbook with the soft step solving
in parallel (``SoftStepSolver(parallel=True)``) on numba's threads, one or two; they are
not in the default run, whose table is the record.

The results are written as JSON (every run, the medians and the machine), and as a bar
chart of each engine's time divided by Box2D v3's (PNG), into ``build/benchmarks/`` (which
git ignores): a run of a few scenes, or while editing, leaves the benchmark of record as it
is. ``--record`` writes them over the record itself, ``benchmarks/results.json`` and
``benchmarks/ratios.png``, which the README shows; ``--json`` and ``--png`` name other
files.
"""

from __future__ import annotations

import argparse
import importlib
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
#: Where a run writes its JSON and chart: the benchmark of record (``--record``), which git
#: keeps and the README shows, or else the build folder, which git ignores.
RECORD = (HERE / "results.json", HERE / "ratios.png")
SCRATCH = tuple(HERE.parent / "build" / "benchmarks" / path.name for path in RECORD)
ENGINES = ("physbook", "box2d3", "pymunk", "physbook-4", "box2d", "physbook-parallel-1",
           "physbook-parallel-2")
DEFAULT_ENGINES = ENGINES[:4]
#: The engines the others are divided by, in the order of the table's ratio columns.
REFERENCES = ("box2d3", "pymunk")
#: The module each engine imports, and what installs it.
PACKAGES = {"box2d3": ("pyb2d3", "pyb2d3"), "pymunk": ("pymunk", "pymunk"),
            "box2d": ("Box2D", "box2d")}
MAX_SETTLE_STEPS = 3000  # 50 s at 60 Hz: a pile still awake then is timed awake, and said so
#: Timed steps between two looks at a Box2D scene's quality (off the clock): its deepest sink,
#: its largest and mean joint stretch over the run.
WATCH_EVERY = 10


#: The joint grid is run 40 × 40 (Box2D's file has 100 × 100): at its default 10
#: iterations pymunk's grid comes apart after about 250 steps (its joints stretch to
#: kilometres; at 40 iterations it holds), and its step then slows from 16 ms to 2 s at
#: 100 × 100, and to 35 ms at 40 × 40.
JOINT_GRID = {"n": 40}


@dataclass(frozen=True)
class SceneSpec:
    """A scene of the run: its builder's name in ``physbook.scenes``, ``pymunk_scenes``,
    ``box2d3_scenes`` and ``box2d_scenes`` with its arguments (None for the two scenes built
    here), or its name in ``box2d_benchmarks`` for Box2D v3's own scenes (with the
    arguments of its function there); how many steps go untimed; whether ``--max-steps``
    cuts it (Box2D's scenes), and the fewest steps it may cut it to."""

    name: str
    builder: str | None
    arguments: dict = field(default_factory=dict)
    first: int = 60
    benchmark: str | None = None
    least_steps: int = 0
    large: bool = False


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
    *(SceneSpec(f"b2-{name.replace('_', '-')}", None, arguments, first=20, benchmark=name,
                least_steps=least, large=True)
      for name, arguments, least in (
          ("large_pyramid", {}, 0), ("many_pyramids", {}, 0), ("joint_grid", JOINT_GRID, 0),
          ("tumbler", {}, 0), ("washer", {}, 0),
          ("smash", {}, 150),  # the hammer reaches the block at step 69
          ("spinner", {}, 0))),
    # Its first ragdolls land after about 170 steps, and its 40 columns are full at 312.
    SceneSpec("b2-rain", None, first=20, benchmark="rain", least_steps=320, large=True),
)}


# --- the children: one engine, one scene, one number --------------------------------------

def build(engine: str, scene: str):
    """(step function of dt, dt, total steps, body count, notes, judge) of ``scene`` in
    ``engine``; the notes are a dict of what else the scene reports, and ``judge()`` the
    scene's quality now (a dict of named numbers), or None for a scene without one."""
    sys.path.insert(0, str(HERE))
    spec = SCENES[scene]
    if spec.benchmark is not None:
        return benchmark_scene(engine, spec)
    if scene == "free-10000":
        import bench_free_bodies as free

        if engine.startswith("physbook"):
            world = free.build_world(10_000, sleeping=False, solver=physbook_solver(engine))
            return world.step, free.DT, 120, 10_000, {}, None
        if engine == "pymunk":
            step = free.build_pymunk(10_000)
            return (lambda dt: step()), free.DT, 120, 10_000, {}, None
        built = box2d_module(engine).free_bodies(*free.grid(10_000))
        return built.step, built.dt, built.steps, 10_000, {}, None
    if scene == "large-pyramid-asleep":
        return (*settled_pyramid(engine), None)
    if engine.startswith("physbook"):
        import physbook as pb

        built = getattr(pb.scenes, spec.builder)(
            world=pb.World(sleeping=False, solver=physbook_solver(engine)), **spec.arguments)
        top = built.bodies.get("boxes", [None])[-1]
        return (built.world.step, built.dt, built.steps, built.world.count, {},
                top_drop(spec, lambda: top.position[1]))
    if engine == "pymunk":
        import pymunk_scenes

        built = getattr(pymunk_scenes, spec.builder)(**spec.arguments)
        top = built.bodies.get("boxes", [None])[-1]
        return (built.space.step, built.dt, built.steps, len(built.space.bodies), {},
                top_drop(spec, lambda: top.position.y))
    built = getattr(box2d_module(engine), spec.builder)(**spec.arguments)
    if engine == "box2d":
        return built.step, built.dt, built.steps, built.world.bodyCount, {}, None
    count = len(built.bodies) + static_count(spec.builder)
    top = built.bodies[-1]
    return (built.step, built.dt, built.steps, count, {},
            top_drop(spec, lambda: top.position[1]))


def top_drop(spec: SceneSpec, height):
    """The quality of a pyramid: how far its top box dropped (m), from ``height()`` of
    its centre now; None for another scene."""
    if spec.builder != "pyramid":
        return None
    start = 0.5 + spec.arguments["base"] - 1.0  # the top row's centre

    return lambda: {"top_drop_m": start - float(height())}


def static_count(builder: str) -> int:
    """Static bodies of a standard scene (Box2D v3's binding does not count bodies): a
    floor, and two walls for the piles in a container."""
    return 3 if builder in ("rain", "boxes") else 1


def box2d_module(engine: str):
    """The module building the standard scenes in Box2D v3 (``box2d3``) or 2.3."""
    if engine == "box2d3":
        import box2d3_scenes

        return box2d3_scenes
    import box2d_scenes

    return box2d_scenes


def benchmark_scene(engine: str, spec: SceneSpec):
    """One of Box2D v3's own scenes (:mod:`box2d_benchmarks`) built in ``engine``; its
    body count is that of the bodies that move (dynamic and kinematic)."""
    import benchmark_engines
    import box2d_benchmarks

    scene = box2d_benchmarks.SCENES[spec.benchmark](**spec.arguments)
    if engine.startswith("physbook"):
        built = benchmark_engines.build_physbook(scene, solver=physbook_solver(engine))
    else:
        built = benchmark_engines.BUILDERS[engine](scene)
    moving = sum(body.kind != "static" for body in scene.bodies)
    if scene.schedule is not None:  # and the bodies it makes, when every place is filled
        places = set().union(*(scene.schedule(k) for k in range(scene.steps)))
        moving += len(places) * len(scene.group(0)[0])
    return built.step, scene.dt, scene.steps, moving, {}, Judge(scene, built)


class Judge:
    """A Box2D benchmark scene's quality: ``judge()`` gives it at the end of the run and,
    for a sink or a joint stretch, also the worst of those seen whenever :meth:`watch` was
    called during the run (every :data:`WATCH_EVERY` timed steps), and for a stretch their
    mean. One look at the end says little about a scene that never settles: bodies driven
    into a heavy one sink most at the impact and are pushed out after, at a pace that
    differs by engine, and the ragdolls that rain on a pile stretch their joints most as
    they land, which at the last step some may be doing and others not."""

    #: The watched quantities, and the names of their worst and mean over the run.
    WATCHED = {"sink_m": ("deepest_sink_m", None),
               "stretch_m": ("largest_stretch_m", "mean_stretch_m")}

    def __init__(self, scene, built):
        self._scene, self._built = scene, built
        self._seen: dict[str, list[float]] = {}

    def watch(self) -> None:
        quality = self._scene.quality(*self._built.state())
        for name in self.WATCHED:
            if name in quality:
                self._seen.setdefault(name, []).append(quality[name])

    def __call__(self) -> dict:
        quality = self._scene.quality(*self._built.state())
        for name, seen in self._seen.items():
            worst, mean = self.WATCHED[name]
            quality[worst] = max(*seen, quality[name])
            if mean is not None:
                quality[mean] = statistics.fmean([*seen, quality[name]])
        return quality


def physbook_solver(engine: str):
    """The soft step solver of a physbook engine: at its defaults for ``physbook``, at 4
    substeps for ``physbook-4``, in parallel for ``physbook-parallel-N`` (its child runs
    with N numba threads)."""
    import physbook as pb

    if engine == "physbook-4":
        return pb.SoftStepSolver(substeps=4)
    return pb.SoftStepSolver(parallel=engine.startswith("physbook-parallel-"))


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
    elif engine == "box2d3":
        scene = box2d_module(engine).pyramid(100, sleeping=True)
        boxes, step = scene.bodies, scene.step
        state = lambda: ([body.position[1] for body in boxes],  # noqa: E731
                         [not body.awake for body in boxes])
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


def child(engine: str, scene: str, max_steps: int | None = None) -> dict:
    """Build and time one scene in one engine (in this process), for its steps or at most
    ``max_steps`` of them; judge it after."""
    first = SCENES[scene].first
    start = time.perf_counter()
    step, dt, steps, bodies, notes, judge = build(engine, scene)
    if max_steps is not None and SCENES[scene].large:
        steps = min(steps, max(max_steps, first + 1, SCENES[scene].least_steps))
    if engine.startswith("physbook-parallel-"):
        import numba

        notes = {**notes, "threads": numba.get_num_threads()}
    built = time.perf_counter() - start
    from timing import mean_step_ms

    ms = mean_step_ms(step, dt, steps, first, watch=getattr(judge, "watch", None),
                      every=WATCH_EVERY)
    if judge is not None:
        notes = {**notes, "quality": judge()}
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


def installed(engine: str) -> bool:
    """Whether ``engine``'s Python package imports (physbook's always does)."""
    if engine not in PACKAGES:
        return True
    try:
        importlib.import_module(PACKAGES[engine][0])
    except ImportError:
        return False
    return True


def available(engines: list[str]) -> list[str]:
    """The engines that are installed; one line on standard error for each that is not."""
    kept = []
    for engine in engines:
        if installed(engine):
            kept.append(engine)
        else:
            print(f"{engine} is not installed (pip install {PACKAGES[engine][1]}): "
                  "measuring without it", file=sys.stderr)
    return kept


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


def ratio_pairs(engines: list[str]) -> list[tuple[str, str]]:
    """(engine, reference) of every ratio the table gives: each engine divided by Box2D
    v3's time, and by pymunk's those not already divided by Box2D v3 (but Box2D v3)."""
    pairs = []
    for index, reference in enumerate(ref for ref in REFERENCES if ref in engines):
        earlier = [ref for ref in REFERENCES if ref in engines][:index + 1]
        pairs += [(engine, reference) for engine in engines
                  if engine not in earlier and (index == 0 or engine not in REFERENCES)]
    return pairs


def summarise(runs: list[dict], scenes: list[str], engines: list[str]) -> list[dict]:
    """Per scene: each engine's median ms per step, each ratio of :func:`ratio_pairs` (the
    ratio of medians and the range of the per-run ratios, run i beside run i), and each
    engine's median quality numbers where the scene is judged."""
    rows = []
    for scene in scenes:
        mine = [run for run in runs if run["scene"] == scene]
        times = {engine: [run["ms_per_step"] for run in mine if run["engine"] == engine]
                 for engine in engines}
        row = {"scene": scene, "bodies": next(run["bodies"] for run in mine)}
        for engine, values in times.items():
            row[f"{engine}_ms"] = statistics.median(values)
            judged = [run["quality"] for run in mine
                      if run["engine"] == engine and "quality" in run]
            if judged:
                row[f"{engine}_quality"] = {key: statistics.median(q[key] for q in judged)
                                            for key in judged[0]}
        for engine, reference in ratio_pairs(engines):
            per_run = [a / b for a, b in zip(times[engine], times[reference], strict=True)]
            row[f"{engine}_per_{reference}"] = row[f"{engine}_ms"] / row[f"{reference}_ms"]
            row[f"{engine}_per_{reference}_range"] = (min(per_run), max(per_run))
        rows.append(row)
    return rows


#: How each quality number is printed: its short name and unit, and its scale.
QUALITY_LABELS = {"top_drop_m": ("drop", "mm", 1e3), "stretch_m": ("stretch", "mm", 1e3),
                  "sink_m": ("sink", "mm", 1e3), "deepest_sink_m": ("deepest", "mm", 1e3),
                  "largest_stretch_m": ("largest", "mm", 1e3),
                  "mean_stretch_m": ("mean", "mm", 1e3),
                  "out": ("out", "", 1),
                  "hammer_x_m": ("hammer x", "m", 1)}


def quality_text(quality: dict) -> str:
    """A scene's quality numbers in a table cell: ``drop 140 mm; out 0``."""
    cells = []
    for key, value in quality.items():
        name, unit, scale = QUALITY_LABELS[key]
        number = f"{value * scale:.3g}" if isinstance(value, float) else f"{value:g}"
        cells.append(f"{name} {number}{' ' + unit if unit else ''}")
    return "; ".join(cells)


def table(rows: list[dict], engines: list[str]) -> str:
    """The summary as a Markdown table: times, ratios and, when a scene is judged, each
    engine's quality at the end of its timed run."""
    pairs = ratio_pairs(engines)
    judged = any(f"{engine}_quality" in row for row in rows for engine in engines)
    header = ["scene", "bodies"] + [f"{engine} ms" for engine in engines] + [
        f"{engine} ÷ {reference}" for engine, reference in pairs]
    if judged:
        header += [f"{engine} quality" for engine in engines]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [row["scene"], str(row["bodies"])]
        cells += [f"{row[f'{engine}_ms']:.4f}" for engine in engines]
        for engine, reference in pairs:
            low, high = row[f"{engine}_per_{reference}_range"]
            cells.append(f"**{row[f'{engine}_per_{reference}']:.2f}** ({low:.2f}–{high:.2f})")
        if judged:
            cells += [quality_text(row.get(f"{engine}_quality", {})) or "–"
                      for engine in engines]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bar_chart(rows: list[dict], engines: list[str], path: Path) -> None:
    """Bars of each engine's time ÷ the first reference's (Box2D v3's, or pymunk's without
    it) per scene, drawn from 1 on a log scale: a bar to the right is slower than the
    reference by its factor, one to the left faster."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    reference = next(ref for ref in REFERENCES if ref in engines)
    others = [engine for engine, ref in ratio_pairs(engines) if ref == reference]
    fig, ax = plt.subplots(figsize=(7.5, 0.22 * len(rows) * len(others) + 1.4), dpi=100)
    height = 0.8 / len(others)
    for k, engine in enumerate(others):
        positions = [i + k * height for i in range(len(rows))]
        ratios = [row[f"{engine}_per_{reference}"] for row in rows]
        bars = ax.barh(positions, [ratio - 1.0 for ratio in ratios], left=1.0, height=height,
                       label=f"{engine} ÷ {reference}")
        ax.bar_label(bars, labels=[f"{ratio:.2f}" for ratio in ratios], padding=3, fontsize=7)
    ax.set_xscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}")
    ax.xaxis.set_major_formatter(plain)
    every = [row[f"{engine}_per_{reference}"] for row in rows for engine in others]
    if max(every + [1.0]) / min(every + [1.0]) < 30.0:  # within a decade or so: label 2, 3…
        ax.xaxis.set_minor_formatter(plain)
        ax.tick_params(axis="x", which="minor", labelsize=7)
    else:
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.axvline(1.0, color="0.3", linewidth=1.0)
    ax.set_yticks([i + 0.4 - height / 2 for i in range(len(rows))],
                  [row["scene"] for row in rows])
    ax.invert_yaxis()
    ax.set_xlabel(f"time per step ÷ {reference}'s (log scale; {reference} = 1, left is "
                  "faster)")
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


def cpu_model() -> str:
    """The processor's model name, as Linux names it (``/proc/cpuinfo``), else what
    :mod:`platform` says."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def vector_bits() -> int:
    """The width of the widest float vector registers numba compiles for on this machine
    (bits): 512 with AVX-512, 256 with AVX, else 128. physbook's solver runs its contacts
    in lanes, so its times depend on it more than the other engines' do."""
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    if features.get("avx512f"):
        return 512
    return 256 if features.get("avx") else 128


def machine() -> dict:
    """What a record of times was measured on: Python, the platform, the processor and
    its vector width, the number of cores, and each engine's version."""
    from importlib import metadata

    versions = {}
    for package, distribution in (("physbook", "physbook"), ("pyb2d3", "pyb2d3"),
                                  ("pymunk", "pymunk"), ("Box2D", "box2d"),
                                  ("numba", "numba"), ("numpy", "numpy")):
        try:
            module = importlib.import_module(package)
        except ImportError:
            versions[package] = None
            continue
        # The module's own version first: an editable install's metadata keeps the version
        # it was installed at. pyb2d3 and pymunk have none; their metadata has it.
        try:
            versions[package] = getattr(module, "__version__", None) or metadata.version(
                distribution)
        except metadata.PackageNotFoundError:
            versions[package] = "?"
    return {"python": platform.python_version(), "platform": platform.platform(),
            "processor": cpu_model(), "vector_bits": vector_bits(),
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
    parser.add_argument("--record", action="store_true", help="write the benchmark of "
                        "record, benchmarks/results.json and ratios.png (default: into "
                        "build/benchmarks/)")
    parser.add_argument("--json", type=Path, default=None,
                        help="where to write every run as JSON")
    parser.add_argument("--png", type=Path, default=None, help="where to draw the chart")
    parser.add_argument("--max-steps", type=int, default=None,
                        help="run each scene for at most this many steps (its first untimed "
                        "steps included), to keep a run of the largest scenes short")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "SCENE"), help=argparse.SUPPRESS)
    parser.add_argument("--cold-start-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    json_path, png_path = output_paths(args.record, args.json, args.png)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    if args.max_steps is not None and args.max_steps < 2:
        parser.error(f"--max-steps must be at least 2, not {args.max_steps}")
    sys.path.insert(0, str(HERE))
    if args.child:
        print(json.dumps(child(*args.child, max_steps=args.max_steps)))
        return 0
    if args.cold_start_child:
        print(json.dumps(cold_start_child()))
        return 0

    engines = available(args.engines)
    progress = Progress(args.runs * len(args.scenes) * len(engines)
                        + (2 * args.runs if args.cold_start else 0))
    runs = []
    for run in range(args.runs):
        for scene in args.scenes:
            for engine in engines:
                progress.show(f"run {run + 1}: {scene}, {engine}")
                limit = [] if args.max_steps is None else ["--max-steps", str(args.max_steps)]
                runs.append({"run": run, **run_child(["--child", engine, scene, *limit],
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
    measured_on = machine()
    print(f"\nmeasured on: {measured_on['processor']}, {measured_on['vector_bits']}-bit "
          f"vectors, {measured_on['cpus']} cores, Python {measured_on['python']}")
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps({"machine": measured_on, "runs": runs, "summary": rows,
                                     "cold_start": starts}, indent=1) + "\n")
    charted = bool(ratio_pairs(engines))
    if charted:
        png_path.parent.mkdir(parents=True, exist_ok=True)
        bar_chart(rows, engines, png_path)
    print(f"\nwrote {json_path}" + (f" and {png_path}" if charted else ""))
    return 0


def output_paths(record: bool, json_path: Path | None,
                 png_path: Path | None) -> tuple[Path, Path]:
    """The JSON and chart a run writes: those named, else the benchmark of record when
    ``record``, else the build folder's (a run of a few scenes leaves the record alone)."""
    default_json, default_png = RECORD if record else SCRATCH
    return (default_json if json_path is None else json_path,
            default_png if png_path is None else png_path)


if __name__ == "__main__":
    sys.exit(main())
