"""Drawing for chapter 5: Verlet worlds, their contacts, and animations of recordings."""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.patches import Polygon as PolygonPatch

from physbook.viz.notebook import FRAME_BUDGET, animate


def _as_frame(frame):
    # a VerletWorld draws as its snapshot; a VerletSnapshot draws as itself
    return frame.snapshot() if hasattr(frame, "snapshot") else frame


def verlet_axes(ax, bounds, margin: float = 0.3, title: str | None = None) -> None:
    """Equal-aspect axes showing ``bounds`` (x_min, y_min, x_max, y_max) in m, walls drawn."""
    x0, y0, x1, y1 = bounds
    ax.set_xlim(x0 - margin, x1 + margin)
    ax.set_ylim(y0 - margin, y1 + margin)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    if title:
        ax.set_title(title)


def draw_verlet(ax, frame, *, particles: bool = True, braces: bool = True, fill: bool = True,
                color: str = "C0", line_width: float = 1.2, particle_size: float = 8.0) -> None:
    """Draw a :class:`~physbook.verlet.VerletSnapshot` (or a world, as it is now) on ``ax``.

    Bodies are filled, boundary edges drawn solid and braces faint; pinned particles are
    black squares. The walls of a bounded world are drawn as a grey frame.
    """
    frame = _as_frame(frame)
    positions = frame.positions
    if frame.bounds is not None:
        x0, y0, x1, y1 = frame.bounds
        ax.plot([x0, x1, x1, x0, x0], [y0, y0, y1, y1, y0], color="0.5", lw=1.5)
    if fill:
        for outline in frame.bodies:
            ax.add_patch(PolygonPatch(positions[outline], closed=True, facecolor=color,
                                      alpha=0.25, edgecolor="none"))
    segments = positions[frame.edges]
    solid = frame.boundary
    if np.any(solid):
        ax.add_collection(LineCollection(segments[solid], colors=color, linewidths=line_width))
    if braces and np.any(~solid):
        ax.add_collection(LineCollection(segments[~solid], colors=color, linewidths=0.6,
                                         alpha=0.4, linestyles="dashed"))
    if particles and len(positions):
        free = ~frame.pinned
        ax.scatter(positions[free, 0], positions[free, 1], s=particle_size, color=color,
                   zorder=3)
    if np.any(frame.pinned):
        pinned = positions[frame.pinned]
        ax.scatter(pinned[:, 0], pinned[:, 1], s=3 * particle_size, color="black",
                   marker="s", zorder=4)


def draw_contact(ax, world, contact, *, color: str = "C3") -> None:
    """Mark a :class:`~physbook.verlet.VerletContact`: the collision edge, the collision
    vertex and the push ``depth · normal`` the response shares between them."""
    positions = world.positions
    i, j = world.edges[contact.edge]
    ax.plot(*positions[[i, j]].T, color=color, lw=3, label="collision edge")
    vertex = positions[contact.vertex]
    ax.scatter(*vertex, s=60, color=color, marker="o", zorder=5, label="collision vertex")
    push = contact.normal * contact.depth
    ax.annotate("", xy=vertex + push, xytext=vertex,
                arrowprops={"arrowstyle": "->", "color": color, "lw": 1.5})


def animate_verlet(frames, *, bounds=None, fps: float = 30.0, figsize=(4.5, 3.4),
                   title: str | None = None, max_frames: int = FRAME_BUDGET, **draw_options):
    """Play a list of snapshots (from ``VerletWorld.record``) as an HTML player.

    ``bounds`` sets the view (default: the world's walls, or the extent of all frames).
    """
    if len(frames) == 0:
        raise ValueError("frames must hold at least one snapshot")
    if bounds is None:
        bounds = frames[0].bounds
    if bounds is None:
        every = np.concatenate([f.positions for f in frames])
        low, high = every.min(axis=0), every.max(axis=0)
        bounds = (low[0], low[1], high[0], high[1])

    def setup(ax):
        verlet_axes(ax, bounds, title=title)

    def draw(ax, frame):
        draw_verlet(ax, frame, **draw_options)

    return animate(frames, draw, fps=fps, max_frames=max_frames, figsize=figsize, setup=setup)
