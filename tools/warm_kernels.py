"""Compile physbook's kernels into numba's cache once, before many processes need them.

A fresh clone has no compiled kernels: the first step of a world compiles every kernel it
calls (over a minute on two cores) and stores it in numba's cache, where every later
process finds it. When the test suite starts on such a clone, each pytest-xdist worker and
each notebook kernel that starts before the cache is filled compiles the same kernels
again, at the same moment, sharing the same cores. Run this first (CI does) and they all
load the kernels instead::

    .venv/bin/python tools/warm_kernels.py

It steps a few of the standard scenes, on the compiled step and on the staged one, which
between them call the kernels of every stage: contacts between circles, boxes and polygons,
stacks, joints, fast bodies with continuous collision, and sleep. The two pipelines compile
in two processes at once, one on each core. A kernel this leaves out is compiled by the
first process that calls it, as without this script.

Compiling from an empty cache is also what the check of the kernels compiled without
reference counts needs (tools/unrefcounted_audit.py): each process steps every standard
scene a few steps more on its pipeline and checks the kernels it has, and when every kernel
one process loaded from the cache the other had compiled (as on a fresh clone), their
findings are kept for tests/test_jit.py, which would otherwise compile everything again.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import unrefcounted_audit  # noqa: E402  (the sibling script, found through the line above)

import physbook as pb  # noqa: E402

#: The scenes stepped, each as ``(name, make the scene, steps)``: enough steps for bodies to
#: touch, for joints to pull and for a fast body to hit a wall.
SCENES = (
    ("bounce", lambda: pb.scenes.bounce(), 30),
    ("pyramid", lambda: pb.scenes.pyramid(6), 30),
    ("card house", lambda: pb.scenes.card_house(2), 30),
    ("ragdoll", lambda: pb.scenes.ragdoll(), 30),
    ("car", lambda: pb.scenes.car(), 30),
    ("bridge", lambda: pb.scenes.bridge(planks=6, boxes=2), 30),
    ("bullets", lambda: pb.scenes.bullets(10), 30),
    ("spinning rod", lambda: pb.scenes.spinning_rod(), 30),
    ("tumbler", lambda: pb.scenes.tumbler(10), 30),
)

#: Scenes of the impulse solvers, with and without joints, which chapters 4 and 9 to 11
#: step: warmed on the compiled pipeline only, in the process that finishes first (the
#: staged one takes longer, and both share the solver's kernels).
IMPULSE_SCENES = (
    ("pyramid, sequential impulses",
     lambda: pb.scenes.pyramid(6, world=pb.World(solver="sequential_impulses")), 30),
    ("pyramid, impulses", lambda: pb.scenes.pyramid(6, world=pb.World(solver="impulse")), 30),
    ("ragdoll, sequential impulses",
     lambda: pb.scenes.ragdoll(world=pb.World(solver="sequential_impulses")), 30),
)


PIPELINES = {"compiled": True, "staged": False}


def warm(pipeline: str) -> float:
    """Step every scene of :data:`SCENES` on ``pipeline`` ("compiled" or "staged"), and
    on the compiled one those of :data:`IMPULSE_SCENES`; the seconds it took."""
    start = time.perf_counter()
    for _, make, steps in SCENES + (IMPULSE_SCENES if pipeline == "compiled" else ()):
        scene = make()
        scene.world.compiled = PIPELINES[pipeline]
        scene.run(steps)
    return time.perf_counter() - start


def warm_parallel() -> float:
    """Step the bounce scene with the soft step solving on threads, as the benchmarks'
    ``physbook-parallel`` engines do (its coloured step with thread chunks is compiled apart);
    the seconds it took."""
    start = time.perf_counter()
    scene = pb.scenes.bounce(world=pb.World(sleeping=False,
                                            solver=pb.SoftStepSolver(parallel=True)))
    scene.run(30)
    return time.perf_counter() - start


def warm_and_audit(pipeline: str) -> dict:
    """Warm ``pipeline``, step every standard scene on it for the audit, and report what
    :func:`unrefcounted_audit.this_process` finds. The staged pipeline, the quicker to
    compile, also warms the solver on threads (:func:`warm_parallel`)."""
    seconds = warm(pipeline)
    if pipeline == "staged":
        seconds += warm_parallel()
    unrefcounted_audit.compile_standard_scenes([pipeline])
    print(f"{pipeline} step: kernels ready in {seconds:.0f} s")
    return unrefcounted_audit.this_process()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", choices=sorted(PIPELINES),
                        help="warm one pipeline only (default: both, in two processes)")
    parser.add_argument("--report", type=Path,
                        help="write the audit of the pipeline's kernels there, as JSON")
    args = parser.parse_args(argv)
    if args.pipeline:
        report = warm_and_audit(args.pipeline)
        if args.report:
            args.report.write_text(json.dumps(report))
        return 0
    with tempfile.TemporaryDirectory() as folder:
        staged_report = Path(folder) / "staged.json"
        staged = subprocess.Popen([sys.executable, __file__, "--pipeline", "staged",
                                   "--report", str(staged_report)])
        compiled_report = warm_and_audit("compiled")
        if staged.wait() != 0:
            return staged.returncode
        findings = unrefcounted_audit.merge([compiled_report,
                                             json.loads(staged_report.read_text())])
    if findings is None:
        print("kernels compiled before this run: the audit of the kernels without reference "
              "counts is left to its test")
    else:
        unrefcounted_audit.write_record(findings)
        print(f"kernels without reference counts: {len(findings['wrong'])} wrong, kept in "
              f"{unrefcounted_audit.RECORD.relative_to(unrefcounted_audit.ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
