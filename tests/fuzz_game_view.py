"""Fuzz cases for chapter 17's live view, its frame encoding, poses between steps and the
replay player."""

from __future__ import annotations

import numpy as np
from fuzz_support import Case
from tiny_game import TinyGame

from physbook.draw import DEFAULT_STYLES
from physbook.draw.poses import body_poses, interpolate_poses
from physbook.viz import GameView, replay_player
from physbook.viz.frame_encoding import FrameEncoder, decode_frame


def _view(argument: str):
    def call(bad):
        arguments = {"game": TinyGame(), "width": 64, "height": 48, "fps": 30.0,
                     "clock": lambda: 0.0, argument: bad}
        view = GameView(arguments.pop("game"), **arguments)
        view.close()
    return call


def _replay(argument: str):
    def call(bad):
        arguments = {"game": TinyGame(), "steps": 4, "every": 2, "fps": 30.0, "width": 64,
                     "height": 48, argument: bad}
        replay_player(arguments.pop("game"), arguments.pop("steps"), **arguments)
    return call


def _decode(argument: str):
    def call(bad):
        encoder = FrameEncoder()
        encoder.circle(np.zeros(2), 1.0, 0.0, DEFAULT_STYLES["dynamic"])
        arguments = {"frame": encoder.finish(), "palette": encoder.palette, argument: bad}
        return decode_frame(**arguments)
    return call


def _interpolate(argument: str):
    def call(bad):
        world = TinyGame().world
        poses = body_poses(world)
        arguments = {"previous": poses, "current": poses, "alpha": 0.5,
                     "local_centers": world.bodies.local_centers, argument: bad}
        return interpolate_poses(**arguments)
    return call


CASES: list[Case] = [
    *(Case("GameView", argument, _view(argument))
      for argument in ("game", "width", "height", "fps", "clock")),
    *(Case("replay_player", argument, _replay(argument))
      for argument in ("game", "steps", "every", "fps", "width", "height")),
    *(Case("decode_frame", argument, _decode(argument)) for argument in ("frame", "palette")),
    *(Case("interpolate_poses", argument, _interpolate(argument))
      for argument in ("previous", "current", "alpha", "local_centers")),
]
