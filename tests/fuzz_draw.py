"""Fuzz cases for chapter 16's debug drawing (the protocol, its pygame and matplotlib
adapters) and snapshots."""

from __future__ import annotations

import os

import matplotlib.pyplot as plt
from fuzz_support import Case

import physbook as pb
from physbook.draw import DebugDraw, draw_world, rounded_outline
from physbook.snapshots import restore, snapshot
from physbook.world_files import save

_FLAGS = ("shapes", "joints", "contacts", "aabbs", "sensors")


def _world() -> pb.World:
    world = pb.World()
    world.add_body(pb.Polygon.box(2.0, 0.5), kind="static")
    ball = world.add_body(pb.Circle(0.5), position=(0.0, 1.0))
    world.add_joint(pb.MotorJoint(world.bodies[0], ball))
    world.step(1 / 60)
    return world


def _draw_world(argument: str):
    def call(bad):
        arguments = {"world": _world(), "drawer": DebugDraw(), argument: bad}
        draw_world(arguments.pop("world"), arguments.pop("drawer"), **arguments)
    return call


def _outline(argument: str):
    def call(bad):
        arguments = {"points": [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)], "radius": 0.1,
                     "segments": 8, argument: bad}
        return rounded_outline(**arguments)
    return call


def _pygame(argument: str):
    def call(bad):
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        import pygame

        from physbook.draw.pygame_draw import PygameDraw

        arguments = {"surface": pygame.Surface((20, 20)), "pixels_per_metre": 10.0,
                     "offset": (0.0, 0.0), "line_width": 1, argument: bad}
        draw_world(_world(), PygameDraw(**arguments))
    return call


def _matplotlib(function, argument: str):
    def call(bad):
        figure, ax = plt.subplots(figsize=(1.0, 1.0))
        try:
            if function == "MatplotlibDraw":
                arguments = {"ax": ax, "alpha": 0.5, "line_width": 1.0, argument: bad}
                draw_world(_world(), pb.viz.MatplotlibDraw(**arguments))
            else:
                arguments = {"ax": ax, "world": _world(), argument: bad}
                pb.viz.draw_debug(arguments.pop("ax"), arguments.pop("world"), **arguments)
        finally:
            plt.close(figure)
    return call


def _restore(argument: str):
    def call(bad):
        world = _world()
        arguments = {"world": world, "snapshot": snapshot(world), argument: bad}
        restore(**arguments)
    return call


CASES: list[Case] = [
    *(Case("draw_world", argument, _draw_world(argument))
      for argument in ("world", "drawer", *_FLAGS, "styles", "normal_length", "point_size",
                       "poses")),
    *(Case("rounded_outline", argument, _outline(argument))
      for argument in ("points", "radius", "segments")),
    *(Case("PygameDraw", argument, _pygame(argument))
      for argument in ("surface", "pixels_per_metre", "offset", "line_width")),
    *(Case("MatplotlibDraw", argument, _matplotlib("MatplotlibDraw", argument))
      for argument in ("ax", "alpha", "line_width")),
    *(Case("draw_debug", argument, _matplotlib("draw_debug", argument))
      for argument in ("ax", "world", *_FLAGS, "styles", "alpha")),
    Case("snapshot", "world", snapshot),
    Case("save", "world", lambda bad: save(bad, os.devnull)),
    *(Case("restore", argument, _restore(argument)) for argument in ("world", "snapshot")),
]
