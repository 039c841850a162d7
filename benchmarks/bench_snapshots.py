"""What a snapshot and a restore cost: a world of 1 000 bodies (the boxes scene, its
contacts settled), snapshot taken and restored many times; also a rollback frame (restore,
then re-simulate 8 steps with a snapshot each) and a save to bytes.

Run: ``python benchmarks/bench_snapshots.py``; prints microseconds per call (median of repeats).
"""

from __future__ import annotations

import statistics
import time

import physbook as pb
from physbook import scenes
from physbook.snapshots import restore, snapshot
from physbook.world_files import world_bytes


def _median_us(call, repeats: int = 200) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return 1e6 * statistics.median(times)


def main() -> None:
    scene = scenes.boxes(n=1000)
    world, dt = scene.world, scene.dt
    for _ in range(120):
        world.step(dt)
    shot = snapshot(world)
    step_us = _median_us(lambda: world.step(dt), 50)
    restore(world, shot)
    print(f"bodies {world.count}, contacts {world.contacts.count}, "
          f"snapshot holds {shot.nbytes / 1e6:.2f} MB in {len(shot._arrays)} arrays, "
          f"{len(shot._objects)} objects")
    print(f"step                 {step_us:9.1f} us")
    print(f"snapshot             {_median_us(lambda: snapshot(world)):9.1f} us")
    print(f"restore (in place)   {_median_us(lambda: restore(world, shot)):9.1f} us")

    def after_changes() -> None:
        restore(world, shot)
        for i in range(10):
            world.add_body(pb.Circle(0.1), position=(0.3 * i, 60.0))
        world.remove_body(world.bodies[5])
        restore(world, shot)

    # the adds and the removal are timed too: see the line above them for what they cost
    print(f"add 10, remove 1, restore {_median_us(after_changes, 20):9.1f} us")

    def rollback() -> None:
        restore(world, shot)
        for _ in range(8):
            snapshot(world)
            world.step(dt)

    print(f"rollback of 8 frames {_median_us(rollback, 20):9.1f} us")
    print(f"save to bytes        {_median_us(lambda: world_bytes(world), 20):9.1f} us")


if __name__ == "__main__":
    main()
