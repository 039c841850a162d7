"""What debug drawing costs: a world of 1 000 bodies (the boxes scene) walked by
physbook.draw.draw_world into a drawer that draws nothing (the walk alone), and into a
pygame-ce surface, headless.

Run: ``python benchmarks/bench_debug_draw.py``; prints milliseconds per frame (median).
"""

from __future__ import annotations

import os
import statistics
import time

from physbook import scenes
from physbook.draw import DebugDraw, draw_world


def _median_ms(call, repeats: int = 30) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def main() -> None:
    scene = scenes.boxes(n=1000)
    world = scene.world
    for _ in range(60):
        world.step(scene.dt)
    print(f"bodies {world.count}, shapes {len(world.shapes.arrays.ids)}")
    idle = DebugDraw()
    print(f"walk only            {_median_ms(lambda: draw_world(world, idle)):7.2f} ms")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from physbook.draw.pygame_draw import PygameDraw

    surface = pygame.Surface((1280, 720))
    drawer = PygameDraw(surface, pixels_per_metre=12.0, offset=(-50.0, -5.0))

    def frame() -> None:
        surface.fill((0, 0, 0))
        draw_world(world, drawer)

    print(f"pygame frame         {_median_ms(frame):7.2f} ms")
    with_contacts = _median_ms(lambda: draw_world(world, drawer, contacts=True))
    print(f"pygame with contacts {with_contacts:7.2f} ms")


if __name__ == "__main__":
    main()
