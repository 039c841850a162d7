"""What one frame of the live game view costs in the kernel: a world of 100 and of 300
bodies (boxes, rounded boxes, circles and capsules on a floor) drawn into the frame encoder
at the world's poses and at poses interpolated between two steps, and the bytes of the one
binary message a frame is.

Run: ``python benchmarks/bench_game_frame.py``; prints milliseconds per frame (median).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

import physbook as pb
from physbook.draw.poses import body_poses, interpolate_poses
from physbook.viz.frame_encoding import FrameEncoder

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import time_calls  # noqa: E402


def _median_ms(call, repeats: int = 200) -> float:
    return statistics.median(time_calls(call, repeats, 0))


def world_of(count: int) -> pb.World:
    """``count`` bodies of four shapes at random poses over a static floor (not stepped:
    drawing does not care how they got there)."""
    random = np.random.default_rng(1)
    world = pb.World()
    world.add_body(pb.Polygon.box(40.0, 0.5), position=(0.0, -0.5), kind="static")
    shapes = [pb.Polygon.box(0.3, 0.2), pb.Polygon.box(0.25, 0.25, radius=0.05),
              pb.Circle(0.25), pb.Capsule((-0.25, 0.0), (0.25, 0.0), 0.1)]
    for k in range(count - 1):
        world.add_body(shapes[k % 4], position=(random.uniform(-20, 20),
                                                random.uniform(0.5, 20)),
                       angle=random.uniform(-3, 3))
    return world


def measure(count: int) -> str:
    """One line: the frame costs and size for a world of ``count`` bodies."""
    world = world_of(count)
    encoder = FrameEncoder()
    previous = body_poses(world)
    current = previous._replace(centers=previous.centers + 0.01,
                                origins=previous.origins + 0.01,
                                angles=previous.angles + 0.02)

    def at_own_poses():
        pb.draw.draw_world(world, encoder)
        return encoder.finish()

    def interpolated():
        poses = interpolate_poses(previous, current, 0.5, world.bodies.local_centers)
        pb.draw.draw_world(world, encoder, poses=tuple(poses))
        return encoder.finish()

    frame = at_own_poses()
    return (f"{count} bodies: encode {_median_ms(at_own_poses):5.2f} ms, "
            f"interpolated {_median_ms(interpolated):5.2f} ms, "
            f"message {frame.nbytes} bytes ({len(frame)} float32)")


def main() -> None:
    for count in (100, 300):
        print(measure(count))


if __name__ == "__main__":
    main()
