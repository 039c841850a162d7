"""Compile physbook's kernels into numba's cache once, before many processes need them.

A fresh clone has no compiled kernels: the first step of a world compiles every kernel it
calls (over a minute on two cores) and stores it in numba's cache, where every later
process finds it. When the test suite starts on such a clone, each pytest-xdist worker and
each notebook kernel that starts before the cache is filled compiles the same kernels
again, at the same moment, sharing the same cores. Run this first (CI does) and they all
load the kernels instead::

    .venv/bin/python tools/warm_kernels.py

It warms what ``python -m physbook.warm`` warms (:mod:`physbook.warm`: scenes on the
compiled step and on the staged one that between them call the kernels of every stage, and
what a game does beside stepping), and the solver on threads. The two pipelines compile in
two processes at once, one on each core. A kernel this leaves out is compiled by the first
process that calls it, as without this script.

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
from physbook.warm import PIPELINES, warm  # noqa: E402


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
