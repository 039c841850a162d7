"""Chapter 17: a recorded game as a player that needs no kernel.

:func:`replay_player` steps a game (which plays its own recorded input), keeps every
``every``-th step's frame, encoded as the live view encodes it
(:mod:`physbook.viz.frame_encoding`), and returns one HTML output: the frames in base64, and
the live view's own drawing code (``game_view.js``) inlined in a script, with a play button
and a slider to scrub. It plays wherever HTML outputs run their scripts: a trusted notebook
in JupyterLab or VS Code, and the static site, offline.

Testing hooks: the root element has class ``physbook-replay`` and ``data-frame`` (the frame
shown, from 0); the play button has title ``"Play"`` (``"Pause"`` while playing); the
slider has class ``physbook-replay-slider``.
"""

from __future__ import annotations

import base64
import json
import uuid
from pathlib import Path

import numpy as np

from physbook import _check
from physbook.viz import _arguments
from physbook.viz.frame_encoding import FrameEncoder, encode_game, palette_entry
from physbook.viz.game_view import check_game, game_view_rectangle

__all__ = ["MAX_REPLAY_STEPS", "replay_player", "replay_script"]

#: The most steps a replay may run: ten minutes at 60 steps a second.
MAX_REPLAY_STEPS = 36_000

#: The line that ends game_view.js, an ES module's export, which a plain script cannot hold.
_EXPORT = "export default { render };"


def replay_script() -> str:
    """game_view.js without its export line: the drawing code, for a plain ``<script>``."""
    source = Path(__file__).with_name("game_view.js").read_text(encoding="utf-8")
    body, export, rest = source.rpartition(_EXPORT)
    if not export or rest.strip():
        raise RuntimeError(f"game_view.js must end with {_EXPORT!r}")
    if "</script" in body.lower():
        raise RuntimeError("game_view.js must not hold '</script', which would end the "
                           "script it is inlined in")
    return body


def replay_player(game, steps: int, *, every: int = 2, fps: float = 30.0, width: int = 720,
                  height: int = 405):
    """Play ``game`` for ``steps`` steps and return a player of what it drew.

    Parameters
    ----------
    game
        A game, as :class:`~physbook.viz.GameView` takes, in the state to start from; it is
        stepped ``steps`` times (a game built to replay a recording plays it).
    steps
        Steps to run, 1 to :data:`MAX_REPLAY_STEPS`.
    every
        Keep one frame every this many steps, 1 to ``steps``: the start, then steps
        ``every``, ``2·every``, ... so the player holds ``1 + steps // every`` frames.
    fps
        Frames per second the player shows (``60 / every`` plays a 60 Hz game in real time).
    width, height
        The canvas in CSS pixels, 16 to 8192 each.

    Returns
    -------
    IPython.display.HTML
        A canvas, a Play button, a slider over the frames, the step number and the game's
        status line of the frame shown. No network, no kernel: everything is in the output.
    """
    from IPython.display import HTML

    game = check_game(game)
    steps = _check.integer(steps, "steps", 1, MAX_REPLAY_STEPS)
    every = _check.integer(every, "every", 1, steps)
    fps = _arguments.fps(fps)
    width = _check.integer(width, "width", 16, 8192)
    height = _check.integer(height, "height", 16, 8192)
    encoder = FrameEncoder()
    frames, views, steps_shown, status_index, statuses = [], [], [], [], {}

    def keep(step: int) -> None:
        frames.append(encode_game(game, encoder))
        views.append(game_view_rectangle(game))
        status = str(game.status())
        status_index.append(statuses.setdefault(status, len(statuses)))
        steps_shown.append(step)

    keep(0)
    for step in range(1, steps + 1):
        game.step()
        if step % every == 0:
            keep(step)
    offsets = np.concatenate([[0], np.cumsum([len(frame) for frame in frames])])
    data = {"width": width, "height": height, "fps": fps,
            "palette": [palette_entry(style) for style in encoder.palette],
            "frames": base64.b64encode(np.concatenate(frames).astype("<f4").tobytes())
            .decode("ascii"),
            "offsets": offsets.tolist(), "views": views, "steps": steps_shown,
            "statuses": list(statuses), "status_index": status_index}
    name = f"physbook-replay-{uuid.uuid4().hex}"
    # "</" inside a script would end it early: JSON may write it as "<\/".
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    html = (f'<div class="physbook-replay" id="{name}" data-frame="0" '
            f'data-frames="{len(frames)}"></div>\n'
            f'<script type="application/json" id="{name}-data">{payload}</script>\n'
            f'<script>(function () {{\n{replay_script()}\n'
            f'physbookReplay(document.getElementById("{name}"), '
            f'JSON.parse(document.getElementById("{name}-data").textContent));\n'
            f'}})();</script>')
    return HTML(html)
