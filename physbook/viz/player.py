"""Animations as HTML players that show their picture anywhere and need no network.

:func:`animate` draws a recording frame by frame into matplotlib's JavaScript player, then
rewrites the player's HTML so that its picture is the first frame, sized, before any script
runs (JupyterLab leaves an unsized picture rendered off-screen at 0 × 0), and its buttons
are inline drawings rather than a web font from a CDN.
"""

from __future__ import annotations

import base64
import re
import struct
import warnings
from collections.abc import Callable, Sequence

from physbook import _check
from physbook.viz import _arguments

#: Animations keep at most this many frames, so a notebook stays small and fast to save.
FRAME_BUDGET = 120


def _pick_frames(count: int, budget: int) -> list[int]:
    """Indices of at most ``budget`` frames spread evenly over ``count``, last included."""
    if count <= budget:
        return list(range(count))
    step = (count - 1) / (budget - 1)
    return sorted({round(i * step) for i in range(budget)})


def animate(
    frames: Sequence,
    draw: Callable,
    *,
    fps: float = 30.0,
    max_frames: int = FRAME_BUDGET,
    figsize: tuple[float, float] = (5.0, 4.0),
    setup: Callable | None = None,
):
    """Play a recorded simulation as an HTML/JavaScript player.

    Parameters
    ----------
    frames
        The recording, one item per frame (any objects ``draw`` understands): a list,
        tuple, range or array, not empty.
    draw
        ``draw(ax, frame)`` draws one frame on a freshly cleared axis.
    fps
        Playback frames per second of the kept frames, 0.001 to 1000.
    max_frames
        The frame budget, 2 or more: longer recordings are subsampled evenly to this many
        frames.
    figsize
        ``(width, height)`` of the figure in inches, 0.1 to 40 each.
    setup
        Optional ``setup(ax)`` called after each clear (limits, aspect, labels).

    Returns
    -------
    IPython.display.HTML
        matplotlib's JavaScript player, the one ``FuncAnimation.to_jshtml`` makes, with the
        frames embedded as PNG: it works in JupyterLab and in a static HTML export with no
        ffmpeg. Its picture shows the first frame at the frame's pixel size before any script
        runs, and its buttons are drawn inline, so it needs nothing from the network. The
        figure is closed so it is not drawn twice.
    """
    import tempfile
    from pathlib import Path

    import matplotlib.pyplot as plt
    from IPython.display import HTML
    from matplotlib.animation import HTMLWriter

    frames = _arguments.sequence(frames, "frames")
    draw = _arguments.callback(draw, "draw")
    fps = _arguments.fps(fps)
    max_frames = _check.integer(max_frames, "max_frames", 2)
    figsize = _arguments.figsize(figsize)
    setup = _arguments.callback(setup, "setup", optional=True)
    kept = _pick_frames(len(frames), max_frames)
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")  # labels stay inside

    def update(index):
        ax.clear()
        if setup is not None:
            setup(ax)
        draw(ax, frames[kept[index]])

    try:
        # Lay the figure out once, on the first frame, then freeze it: a constrained layout
        # recomputed for every frame costs as much as drawing the frame.
        update(0)
        fig.canvas.draw()
        fig.set_layout_engine("none")
        # The writer behind FuncAnimation.to_jshtml, driven directly so that each frame is
        # drawn once (FuncAnimation draws every frame a second time for screen display).
        writer = HTMLWriter(fps=fps, embed_frames=True, default_mode="once")
        writer.frame_format = "png"  # whatever the rc says: the player is sized from a PNG
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "animation.html"
            with writer.saving(fig, str(path), dpi=fig.dpi):
                for index in range(len(kept)):
                    update(index)
                    writer.grab_frame()
            player = path.read_text(encoding="utf-8")
    finally:
        plt.close(fig)  # also when ``draw`` fails, so no figure is left open
    return HTML(_offline_player(player))


# --- the player's HTML, made to show its picture anywhere and to need no network -------

#: matplotlib's player loads Font Awesome from a CDN for its button icons.
_FONT_AWESOME = re.compile(r'<link rel="stylesheet"\s+href="https?://[^"]*font-awesome[^"]*">\s*')
#: A button icon of the player: ``<i class="fa fa-play"></i>`` and the like.
_ICON = re.compile(r'<i class="fa ([a-z -]+)"></i>')
#: The player's picture, which its script fills in once it runs.
_PLAYER_IMG = re.compile(r'<img id="(_anim_img[0-9a-f]+)">')
#: The first frame, a data URI that HTMLWriter splits over lines ending in a backslash.
_FIRST_FRAME = re.compile(r'frames\[0\] = "(data:image/png;base64,[^"]*)"')

#: Inline SVG shapes (on a 16 × 16 grid) for the player's buttons, by Font Awesome class.
_ICON_SHAPES = {
    "fa-minus": '<rect x="2" y="7" width="12" height="2"/>',
    "fa-plus": '<rect x="2" y="7" width="12" height="2"/><rect x="7" y="2" width="2" height="12"/>',
    "fa-play": '<polygon points="4,2 14,8 4,14"/>',
    "fa-play fa-flip-horizontal": '<polygon points="12,2 2,8 12,14"/>',
    "fa-pause": '<rect x="3" y="2" width="3.5" height="12"/>'
                '<rect x="9.5" y="2" width="3.5" height="12"/>',
    "fa-step-forward": '<polygon points="3,2 11,8 3,14"/>'
                       '<rect x="11" y="2" width="2" height="12"/>',
    "fa-step-backward": '<rect x="3" y="2" width="2" height="12"/>'
                        '<polygon points="13,2 5,8 13,14"/>',
    "fa-fast-forward": '<polygon points="1,2 7,8 1,14"/><polygon points="7,2 13,8 7,14"/>'
                       '<rect x="13" y="2" width="2" height="12"/>',
    "fa-fast-backward": '<rect x="1" y="2" width="2" height="12"/><polygon points="9,2 3,8 9,14"/>'
                        '<polygon points="15,2 9,8 15,14"/>',
}


def png_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` in pixels of a PNG image, read from its header."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("data is not a PNG image")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _icon_svg(match: re.Match) -> str:
    """The inline SVG for one ``<i class="fa …">`` icon; an unknown icon is kept."""
    shapes = _ICON_SHAPES.get(match.group(1))
    if shapes is None:
        return match.group(0)
    return ('<svg width="14" height="14" viewBox="0 0 16 16" fill="currentColor" '
            f'aria-hidden="true" style="vertical-align: middle">{shapes}</svg>')


def _sized_img(player: str) -> str:
    """``player`` whose ``<img>`` shows the first frame, at its pixel size, before any
    script runs: an unsized img rendered off-screen by JupyterLab stays 0 × 0 until clicked."""
    first = _FIRST_FRAME.search(player)
    if first is None:
        return player
    uri = first.group(1).replace("\\\n", "")  # join the lines HTMLWriter continued
    width, height = png_size(base64.b64decode(uri.partition(",")[2]))

    def tag(match: re.Match) -> str:
        return (f'<img id="{match.group(1)}" src="{uri}" width="{width}" height="{height}" '
                'alt="animation frame">')

    return _PLAYER_IMG.sub(tag, player, count=1)


def _offline_player(player: str) -> str:
    """Make matplotlib's HTML player show its first frame at once and need no network.

    Parameters
    ----------
    player
        The HTML that ``matplotlib.animation.HTMLWriter`` wrote, with embedded PNG frames.

    Returns
    -------
    str
        The same player whose ``<img>`` has the first frame as ``src`` and the frame's pixel
        size as ``width`` and ``height``, without the Font Awesome stylesheet link, and with
        an inline SVG in place of each button's icon (the ``title`` tooltips stay). A part of
        the template that is not recognised is left as it is, with a warning; the tests
        check the template of the installed matplotlib.
    """
    player, links = _FONT_AWESOME.subn("", player)
    player = _ICON.sub(_icon_svg, player)
    player = _sized_img(player)
    if links != 1 or "fa fa-" in player or _PLAYER_IMG.search(player):
        warnings.warn("matplotlib's animation player has HTML that physbook does not know: "
                      "its picture or buttons may not show offline", RuntimeWarning,
                      stacklevel=3)
    return player
