"""Fuzz cases for shape casts and overlaps, explosions and the character mover."""

from __future__ import annotations

from fuzz_support import Case

import physbook as pb
from physbook.character import CharacterMover
from physbook.explosion import explode
from physbook.shape_cast import cast_shape, cast_shape_all, overlap_shape

CAPSULE = pb.Capsule((0.0, -0.5), (0.0, 0.5), 0.3)


def _world():
    """A floor and a box on it."""
    world = pb.World()
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    world.add_body(pb.Polygon.box(0.5, 0.5), position=(0.0, 0.5))
    return world


def _cast(function, argument: str):
    def call(bad):
        arguments = {"shape": pb.Circle(0.3), "position": (0.0, 3.0), "angle": 0.0,
                     "translation": (0.0, -5.0), "filter": None, argument: bad}
        return function(_world(), **arguments)
    return call


def _overlap(argument: str):
    def call(bad):
        arguments = {"shape": pb.Circle(0.3), "position": (0.0, 1.0), "angle": 0.0,
                     "filter": None, argument: bad}
        return overlap_shape(_world(), **arguments)
    return call


def _explode(argument: str):
    def call(bad):
        arguments = {"center": (0.0, 2.0), "radius": 2.0, "impulse": 1.0, "falloff": 1.0,
                     "filter": None, argument: bad}
        return explode(_world(), **arguments)
    return call


def _mover(argument: str):
    def call(bad):
        arguments = {"capsule": CAPSULE, "position": (2.0, 0.8), "max_slope": 0.8,
                     "step_height": 0.2, "snap_distance": 0.2, "filter": None, argument: bad}
        return CharacterMover(_world(), **arguments)
    return call


def _move(argument: str):
    def call(bad):
        arguments = {"velocity": (1.0, 0.0), "dt": 1 / 60, argument: bad}
        return CharacterMover(_world(), CAPSULE, (2.0, 0.8)).move(**arguments)
    return call


CASES = [
    *(Case(f"{function.__name__}", name, _cast(function, name))
      for function in (cast_shape, cast_shape_all)
      for name in ("shape", "position", "angle", "translation", "filter")),
    *(Case("overlap_shape", name, _overlap(name))
      for name in ("shape", "position", "angle", "filter")),
    *(Case("explode", name, _explode(name))
      for name in ("center", "radius", "impulse", "falloff", "filter")),
    *(Case("CharacterMover", name, _mover(name))
      for name in ("capsule", "position", "max_slope", "step_height", "snap_distance",
                   "filter")),
    *(Case("CharacterMover.move", name, _move(name)) for name in ("velocity", "dt")),
]
