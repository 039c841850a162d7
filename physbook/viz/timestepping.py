"""Drawing for chapter 3: what a display shows of a fixed-step simulation.

A 144 Hz display over 60 Hz physics shows each physics state on zero, one or two frames.
:func:`draw_judder_frame` draws one displayed frame as two lanes, the latest physics state
above and the interpolated state below, each with a fading trail of the frames before it,
so that uneven spacing (judder) is visible in a still picture; :func:`animate_judder`
plays the frames in slow motion.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes

from physbook import _check
from physbook.viz import _arguments
from physbook.viz.player import FRAME_BUDGET, animate

__all__ = ["animate_judder", "draw_judder_frame"]

#: Heights (in the drawing's units) of the two lanes: latest state above, interpolated below.
LANES = (1.0, 0.0)

#: Size (points) of the ball marker, and of the oldest trail marker.
BALL_SIZE, TRAIL_SIZE = 16.0, 6.0


def _positions(latest, interpolated) -> tuple[np.ndarray, np.ndarray]:
    """The two position series as float arrays of one length, at least 2."""
    latest = _check.finite_array(latest, "latest")
    interpolated = _check.finite_array(interpolated, "interpolated")
    for array, name in ((latest, "latest"), (interpolated, "interpolated")):
        if array.ndim != 1 or array.size < 2:
            raise ValueError(f"{name} must be a one-dimensional array of at least 2 "
                             f"positions (m), got shape {array.shape}")
    if latest.shape != interpolated.shape:
        raise ValueError(f"latest and interpolated must have one position per displayed "
                         f"frame each, got {latest.size} and {interpolated.size}")
    return latest, interpolated


def draw_judder_frame(
    ax: Axes,
    latest,
    interpolated,
    frame: int,
    *,
    trail: int = 6,
    physics=None,
) -> None:
    """Draw displayed frame ``frame`` of a ball moving along x, shown two ways.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on (cleared by the caller).
    latest, interpolated : array_like, shape (F,)
        The x position (m) drawn at each of the F displayed frames: from the latest physics
        state, and interpolated between the last two states.
    frame : int
        The displayed frame to draw, 0 to F − 1.
    trail : int
        How many earlier frames to show as fading markers, 0 to 1000. Markers that sit on
        top of each other are frames that repeated a position.
    physics : array_like, shape (S,), optional
        The x positions (m) of the physics states, drawn as ticks on both lanes.

    Notes
    -----
    Each lane is labelled with how far its ball moved since the previous frame (cm). The x
    range covers every position of both series, so the view does not move between frames.
    """
    ax = _arguments.axes(ax)
    latest, interpolated = _positions(latest, interpolated)
    frame = _check.integer(frame, "frame", 0, latest.size - 1)
    trail = _check.integer(trail, "trail", 0, 1000)
    everything = [latest, interpolated]
    if physics is not None:
        physics = _check.finite_array(physics, "physics").ravel()
        everything.append(physics)
    low = min(float(series.min()) for series in everything)
    high = max(float(series.max()) for series in everything)
    margin = 0.08 * max(high - low, 1e-3)       # room for the ball at either end
    labels = ("latest state", "interpolated")
    for lane, series, colour, label in zip(LANES, (latest, interpolated), ("C3", "C0"), labels,
                                               strict=True):
        ax.axhline(lane, color="0.85", lw=1, zorder=0)
        if physics is not None:
            ax.plot(physics, np.full(physics.size, lane), "|", color="0.55", ms=10, zorder=1)
        first = max(frame - trail, 0)
        for age, k in enumerate(range(frame - 1, first - 1, -1), start=1):
            fade = 1.0 - age / (trail + 1)         # older frames are fainter and smaller
            ax.plot(series[k], lane, "o", color=colour, alpha=0.15 + 0.45 * fade,
                    ms=TRAIL_SIZE + (BALL_SIZE - TRAIL_SIZE) * 0.5 * fade, mec="none", zorder=2)
        ax.plot(series[frame], lane, "o", color=colour, ms=BALL_SIZE, mec="k", zorder=3)
        move = 100.0 * (series[frame] - series[frame - 1]) if frame > 0 else 0.0
        ax.text(0.01, lane + 0.32, f"{label}: moved {move:+.2f} cm since the last frame",
                fontsize=9, color=colour, transform=ax.get_yaxis_transform())
    ax.set_xlim(low - margin, high + margin)
    ax.set_ylim(-0.6, 1.6)
    ax.set_yticks([])
    ax.set_xlabel("x (m)")
    ax.set_title(f"displayed frame {frame}", fontsize=10)


def animate_judder(
    latest,
    interpolated,
    *,
    trail: int = 6,
    physics=None,
    fps: float = 8.0,
    max_frames: int = FRAME_BUDGET,
    figsize: tuple[float, float] = (7.0, 2.8),
):
    """Play :func:`draw_judder_frame` over every displayed frame, in slow motion.

    Parameters
    ----------
    latest, interpolated, trail, physics
        As for :func:`draw_judder_frame`.
    fps : float
        Playback rate (frames per second). Below the display's own rate the motion is
        slowed down, so that single repeated frames can be seen.
    max_frames, figsize
        As for :func:`physbook.viz.animate`.

    Returns
    -------
    IPython.display.HTML
        The player; make it the last expression of a notebook cell.
    """
    latest, interpolated = _positions(latest, interpolated)
    trail = _check.integer(trail, "trail", 0, 1000)
    if physics is not None:
        physics = _check.finite_array(physics, "physics").ravel()

    def draw(ax, frame):
        draw_judder_frame(ax, latest, interpolated, frame, trail=trail, physics=physics)

    return animate(range(latest.size), draw, fps=fps, max_frames=max_frames, figsize=figsize)
