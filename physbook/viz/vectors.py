"""Drawing vectors, frames, lines and halfspaces (chapter 1), and the step pipeline (preface).

Each function draws on a matplotlib ``Axes`` it is given, so a chapter composes a figure
from several calls. Positions are in metres, y up.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import FancyArrowPatch, Polygon

from physbook import _check
from physbook.vecmath.vec import Line, Transform
from physbook.viz import _arguments


def plane(ax: Axes, limits: Sequence[float] | None = None, *, unit: str = "m") -> Axes:
    """Prepare ``ax`` as a piece of the plane: equal scales, labelled axes, optional limits.

    ``limits`` is ``(xmin, xmax, ymin, ymax)`` in metres; ``unit`` labels the axes (None or
    "" for none).
    """
    ax = _arguments.axes(ax)
    unit = _arguments.text(unit, "unit")
    if limits is not None:
        limits = _arguments.limits(limits)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel(f"x ({unit})" if unit else "x")
    ax.set_ylabel(f"y ({unit})" if unit else "y")
    if limits is not None:
        _arguments.set_view(ax, limits, "limits")
    return ax


def draw_vector(
    ax: Axes,
    vector,
    tail=(0.0, 0.0),
    *,
    label: str | None = None,
    color: str = "C0",
    width: float = 1.8,
    **style,
) -> FancyArrowPatch:
    """Draw ``vector`` as an arrow from ``tail`` to ``tail + vector``, labelled at its head.

    The arrow's ends are added to the data limits, so autoscaling keeps it in view.
    ``width`` is the line width in points; ``style`` holds further ``FancyArrowPatch``
    properties, such as ``linestyle="--"``.
    """
    ax = _arguments.axes(ax)
    vector = _check.vector(vector, "vector")
    tail = _check.vector(tail, "tail")
    label = _arguments.text(label, "label")
    color = _arguments.colour(color, "color")
    width = _check.non_negative_scalar(width, "width")
    head = _arguments.finite(lambda: tail + vector, "the head tail + vector")
    arrow = _arguments.styled(lambda **more: FancyArrowPatch(
        tuple(tail), tuple(head), arrowstyle="-|>", mutation_scale=14, color=color,
        linewidth=width, shrinkA=0.0, shrinkB=0.0, **more), style)
    ax.add_patch(arrow)
    ax.update_datalim(np.array([tail, head]))
    ax.autoscale_view()
    if label:
        # Put the label just beyond the head, along the arrow, so it does not cover it.
        size = float(np.hypot(*vector))
        offset = 12.0 * (vector / size) if size > 0.0 else np.zeros(2)
        ax.annotate(
            label, tuple(head), xytext=tuple(offset), textcoords="offset points",
            color=color, ha="center", va="center",
        )
    return arrow


def draw_frame(
    ax: Axes, transform: Transform, size: float = 1.0, *, label: str | None = None
) -> None:
    """Draw a frame's axes, ``size`` m long: its local x (red) and y (green) directions from
    its origin."""
    ax = _arguments.axes(ax)
    transform = _check.instance(transform, "transform", Transform, "a Transform")
    size = _check.positive_scalar(size, "size")
    label = _arguments.text(label, "label")
    origin = transform.position
    x_axis, y_axis = transform.rotate_to_world(np.array([[size, 0.0], [0.0, size]]))
    _arguments.finite(lambda: origin + np.array([x_axis, y_axis]),
                      "the frame's axis ends, transform.position + size·axis,")
    draw_vector(ax, x_axis, origin, color="#cc3333", width=1.4)
    draw_vector(ax, y_axis, origin, color="#2e8b57", width=1.4)
    ax.plot(*origin, "o", color="black", markersize=3)
    if label:
        ax.annotate(
            label, tuple(origin), xytext=(-6, -6), textcoords="offset points",
            ha="right", va="top", fontsize=9,
        )


def draw_outline(
    ax: Axes, vertices, *, closed: bool = True, color: str = "C0", fill_alpha: float = 0.15,
    **style,
) -> None:
    """Draw a polygon (or, with ``closed=False``, a polyline) through ``vertices`` (N, 2).

    ``fill_alpha`` is the opacity of a closed polygon's fill; ``style`` holds further
    ``Line2D`` properties of the outline, such as ``linewidth=2``.
    """
    ax = _arguments.axes(ax)
    vertices = _check.points(vertices, "vertices").reshape(-1, 2)
    if len(vertices) == 0:
        raise ValueError("vertices must hold at least one point")
    closed = _check.flag(closed, "closed")
    color = _arguments.colour(color, "color")
    fill_alpha = _arguments.fraction(fill_alpha, "fill_alpha")
    if closed:
        ax.add_patch(
            Polygon(vertices, closed=True, facecolor=color, alpha=fill_alpha, edgecolor="none")
        )
        vertices = np.vstack([vertices, vertices[:1]])
    _arguments.styled(lambda **more: ax.plot(vertices[:, 0], vertices[:, 1], color=color,
                                             **more), style)


def _view_box(ax: Axes) -> np.ndarray:
    """The corners of the visible data rectangle, counter-clockwise."""
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


def clip_to_halfspace(vertices, line: Line, keep: str = "back") -> np.ndarray:
    """The part of a convex polygon on one side of ``line`` (Sutherland–Hodgman, one edge).

    ``keep="back"`` keeps n·p − offset ≤ 0, ``"front"`` keeps ≥ 0. Returns (M, 2), M may be 0.
    """
    vertices = _check.points(vertices, "vertices").reshape(-1, 2)
    line = _check.instance(line, "line", Line, "a Line")
    keep = _check.choice(keep, "keep", ("back", "front"))
    sign = -1.0 if keep == "back" else 1.0
    distance = sign * line.signed_distance(vertices)  # ≥ 0 means "keep"
    kept = []
    for i in range(len(vertices)):
        j = (i + 1) % len(vertices)
        if distance[i] >= 0.0:
            kept.append(vertices[i])
        if (distance[i] >= 0.0) != (distance[j] >= 0.0):
            # The edge crosses the line: cut it where the distance is zero.
            t = distance[i] / (distance[i] - distance[j])
            kept.append(vertices[i] + t * (vertices[j] - vertices[i]))
    return np.array(kept).reshape(-1, 2)


def draw_line(
    ax: Axes,
    line: Line,
    *,
    color: str = "C3",
    shade: str | None = None,
    normal_at=None,
    label: str | None = None,
) -> None:
    """Draw the line n·p = offset across the current view, with its normal.

    Set the axis limits first (e.g. with :func:`plane`): the line is clipped to them.
    ``shade`` ("back" or "front") tints that halfspace; ``normal_at`` is where the normal
    arrow starts (default: the point of the line nearest the view's centre).
    """
    ax = _arguments.axes(ax)
    line = _check.instance(line, "line", Line, "a Line")
    color = _arguments.colour(color, "color")
    if shade is not None:
        shade = _check.choice(shade, "shade", ("back", "front"))
    if normal_at is not None:
        normal_at = _check.vector(normal_at, "normal_at")
    label = _arguments.text(label, "label")
    box = _view_box(ax)
    centre = box.mean(axis=0)
    along = np.array([-line.normal[1], line.normal[0]])
    foot = line.project(centre)
    reach = float(np.hypot(*(box[2] - box[0])))  # the view's diagonal: enough to cross it
    ends = np.array([foot - reach * along, foot + reach * along])
    if shade is not None:
        region = clip_to_halfspace(box, line, keep=shade)
        if len(region):
            ax.add_patch(Polygon(region, closed=True, facecolor=color, alpha=0.12, lw=0))
    limits = ax.get_xlim(), ax.get_ylim()
    ax.plot(ends[:, 0], ends[:, 1], color=color, label=label)
    start = foot if normal_at is None else normal_at
    scale = 0.12 * reach
    draw_vector(ax, scale * line.normal, start, color=color, label="n")
    ax.set_xlim(*limits[0])  # the long line and the arrow must not widen the view
    ax.set_ylim(*limits[1])
