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
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import physbook as pb

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


PIPELINES = {"compiled": True, "staged": False}


def warm(pipeline: str) -> float:
    """Step every scene of :data:`SCENES` on ``pipeline`` ("compiled" or "staged"); the
    seconds it took."""
    start = time.perf_counter()
    for _, make, steps in SCENES:
        scene = make()
        scene.world.compiled = PIPELINES[pipeline]
        scene.run(steps)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", choices=sorted(PIPELINES),
                        help="warm one pipeline only (default: both, in two processes)")
    pipeline = parser.parse_args(argv).pipeline
    if pipeline:
        print(f"{pipeline} step: kernels ready in {warm(pipeline):.0f} s")
        return 0
    staged = subprocess.Popen([sys.executable, __file__, "--pipeline", "staged"])
    print(f"compiled step: kernels ready in {warm('compiled'):.0f} s")
    return staged.wait()


if __name__ == "__main__":
    raise SystemExit(main())
