"""Drawing for chapter 5: Verlet worlds, their contacts, and animations of recordings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.patches import Polygon as PolygonPatch

from physbook import _check
from physbook.verlet.handles import VerletContact, VerletSnapshot
from physbook.verlet.world import VerletWorld
from physbook.viz import _arguments
from physbook.viz.player import FRAME_BUDGET, animate

#: What :func:`draw_verlet` draws: a snapshot, or a world as it is now.
_DRAWABLE = (VerletSnapshot, VerletWorld)


def _as_frame(frame, name: str = "frame") -> VerletSnapshot:
    """A VerletWorld draws as its snapshot; a VerletSnapshot draws as itself."""
    _check.instance(frame, name, _DRAWABLE, "a VerletSnapshot or a VerletWorld")
    return frame.snapshot() if isinstance(frame, VerletWorld) else frame


def verlet_axes(ax: Axes, bounds, margin: float = 0.3, title: str | None = None) -> None:
    """Equal-aspect axes showing ``bounds`` (x_min, y_min, x_max, y_max) in m, plus
    ``margin`` m on every side."""
    ax = _arguments.axes(ax)
    x0, y0, x1, y1 = _arguments.box(bounds, "bounds")
    margin = _check.non_negative_scalar(margin, "margin")
    title = _arguments.text(title, "title")
    view = _arguments.finite(lambda: np.array([x0 - margin, x1 + margin, y0 - margin,
                                               y1 + margin]), "bounds widened by margin")
    view = _arguments.limits(view, "bounds widened by margin")
    _arguments.set_view(ax, view, "bounds widened by margin")
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    if title:
        ax.set_title(title)


#: The keyword options of :func:`draw_verlet` and their defaults.
DRAW_OPTIONS = {"particles": True, "braces": True, "fill": True, "color": "C0",
                "line_width": 1.2, "particle_size": 8.0}


def _draw_options(options: dict, name: str = "draw_options") -> dict:
    """:data:`DRAW_OPTIONS` updated by ``options``, each checked."""
    unknown = sorted(set(options) - set(DRAW_OPTIONS))
    if unknown:
        raise TypeError(f"{name} has unknown options {unknown}; draw_verlet takes "
                        f"{sorted(DRAW_OPTIONS)}")
    options = {**DRAW_OPTIONS, **options}
    for flag in ("particles", "braces", "fill"):
        _check.flag(options[flag], flag)
    _arguments.colour(options["color"], "color")
    for size in ("line_width", "particle_size"):
        options[size] = _check.non_negative_scalar(options[size], size)
    return options


def draw_verlet(ax: Axes, frame, *, particles: bool = True, braces: bool = True,
                fill: bool = True, color: str = "C0", line_width: float = 1.2,
                particle_size: float = 8.0) -> None:
    """Draw a :class:`~physbook.verlet.VerletSnapshot` (or a world, as it is now) on ``ax``.

    Bodies are filled, boundary edges drawn solid and braces faint; pinned particles are
    black squares. The walls of a bounded world are drawn as a grey frame. ``line_width``
    is in points and ``particle_size`` in points².
    """
    ax = _arguments.axes(ax)
    frame = _as_frame(frame)
    options = _draw_options({"particles": particles, "braces": braces, "fill": fill,
                             "color": color, "line_width": line_width,
                             "particle_size": particle_size})
    _draw_snapshot(ax, frame, **options)


def _draw_snapshot(ax: Axes, frame: VerletSnapshot, *, particles: bool, braces: bool,
                   fill: bool, color: str, line_width: float, particle_size: float) -> None:
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


def draw_contact(ax: Axes, world, contact: VerletContact, *, color: str = "C3") -> None:
    """Mark a :class:`~physbook.verlet.VerletContact`: the collision edge, the collision
    vertex and the push ``depth · normal`` the response shares between them.

    ``world`` is the :class:`~physbook.verlet.VerletWorld` (or a snapshot of it) the
    contact was found in: its particles and edges are the ones the contact names.
    """
    ax = _arguments.axes(ax)
    world = _as_frame(world, "world")
    contact = _check.instance(contact, "contact", VerletContact, "a VerletContact")
    color = _arguments.colour(color, "color")
    positions = world.positions
    if contact.edge >= len(world.edges) or contact.vertex >= len(positions):
        raise ValueError(f"contact must name an edge and a particle of world, which has "
                         f"{len(world.edges)} edges and {len(positions)} particles; got "
                         f"edge {contact.edge} and vertex {contact.vertex}")
    i, j = world.edges[contact.edge]
    ax.plot(*positions[[i, j]].T, color=color, lw=3, label="collision edge")
    vertex = positions[contact.vertex]
    ax.scatter(*vertex, s=60, color=color, marker="o", zorder=5, label="collision vertex")
    tip = _arguments.finite(lambda: vertex + contact.normal * contact.depth,
                            "the push contact.depth · contact.normal from the vertex")
    ax.annotate("", xy=tip, xytext=vertex,
                arrowprops={"arrowstyle": "->", "color": color, "lw": 1.5})


def _verlet_frames(frames) -> list[VerletSnapshot]:
    """``frames`` as snapshots: each item a VerletSnapshot, or a VerletWorld drawn as is."""
    frames = _arguments.sequence(frames, "frames")
    for k, frame in enumerate(frames):
        _check.instance(frame, f"frames[{k}]", _DRAWABLE, "a VerletSnapshot or a VerletWorld")
    return [_as_frame(frame) for frame in frames]


def _extent(frames: Sequence[VerletSnapshot]) -> tuple[float, float, float, float]:
    """``(x_min, y_min, x_max, y_max)`` around every particle of every frame, never empty."""
    every = np.concatenate([frame.positions for frame in frames])
    if len(every) == 0:
        return (-1.0, -1.0, 1.0, 1.0)
    low, high = every.min(axis=0), every.max(axis=0)
    # An equal-scale view needs both a width and a height: a row of particles spans only
    # one, a lone particle neither. Widen each side to a thousandth of the longer one (two
    # metres about a lone particle), and keep it clear of the rounding of its position.
    longest = float(np.max(high - low))
    least = max(1e-3 * longest if longest > 0.0 else 2.0, 1e-9 * float(np.max(np.abs(every))))
    pad = 0.5 * np.maximum(least - (high - low), 0.0)
    low, high = low - pad, high + pad
    return (float(low[0]), float(low[1]), float(high[0]), float(high[1]))


def animate_verlet(frames, *, bounds=None, fps: float = 30.0, figsize=(4.5, 3.4),
                   title: str | None = None, max_frames: int = FRAME_BUDGET, **draw_options):
    """Play a list of snapshots (from ``VerletWorld.record``) as an HTML player.

    ``bounds`` (x_min, y_min, x_max, y_max) in m sets the view (default: the walls of the
    first frame, or the extent of all frames). ``draw_options`` are :func:`draw_verlet`'s
    keyword options (``particles=False``, ``color="C1"``, ...).
    """
    frames = _verlet_frames(frames)
    if bounds is None:
        bounds = frames[0].bounds
    bounds = _extent(frames) if bounds is None else _arguments.box(bounds, "bounds")
    title = _arguments.text(title, "title")
    options = _draw_options(draw_options)

    def setup(ax):
        verlet_axes(ax, bounds, title=title)

    def draw(ax, frame):
        _draw_snapshot(ax, frame, **options)

    return animate(frames, draw, fps=fps, max_frames=max_frames, figsize=figsize, setup=setup)
