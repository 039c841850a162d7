"""Chapter 12: drawing what a broad phase sees: boxes, pairs, grid cells and tree levels."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PolyCollection

from physbook import _check
from physbook.broadphase.tree import DynamicTree
from physbook.viz import _arguments


def _corners(lower, upper) -> tuple[np.ndarray, np.ndarray]:
    lower = _arguments.rows(lower, "lower", (-1, 2), "box")
    upper = _arguments.rows(upper, "upper", (len(lower), 2), "box")
    if np.any(lower > upper):
        raise ValueError("lower must not exceed upper")
    return lower, upper


def box_outlines(lower, upper) -> np.ndarray:
    """(B, 4, 2) the corners of each box, counter-clockwise from ``lower``."""
    lower, upper = _corners(lower, upper)
    return np.stack([lower, np.column_stack([upper[:, 0], lower[:, 1]]), upper,
                     np.column_stack([lower[:, 0], upper[:, 1]])], axis=1)


def draw_boxes(ax: Axes, lower, upper, *, color="C0", fill: bool = True,
               linewidth: float = 1.0, linestyle: str = "-") -> Axes:
    """Draw boxes from their corners ``lower`` and ``upper`` (B, 2); ``color`` is one
    colour or one per box."""
    ax = _arguments.axes(ax)
    outlines = box_outlines(lower, upper)
    linewidth = _check.positive_scalar(linewidth, "linewidth")
    colors = [color] * len(outlines) if isinstance(color, str) else list(color)
    if len(colors) != len(outlines):
        raise ValueError(f"color must be one colour or one per box ({len(outlines)})")
    ax.add_collection(PolyCollection(outlines, facecolors=colors if fill else "none",
                                     edgecolors=colors, alpha=0.35 if fill else 1.0,
                                     linewidths=linewidth, linestyles=linestyle))
    ax.autoscale_view()
    return ax


def draw_pairs(ax: Axes, lower, upper, pairs, *, color: str = "C3") -> Axes:
    """Join the centres of the boxes of each pair (P, 2) by a line."""
    ax = _arguments.axes(ax)
    lower, upper = _corners(lower, upper)
    pairs = np.asarray(pairs, np.int64).reshape(-1, 2)
    if len(pairs) and (pairs.min() < 0 or pairs.max() >= len(lower)):
        raise ValueError(f"pairs must name boxes 0 .. {len(lower) - 1}")
    centers = (lower + upper) / 2
    ax.add_collection(LineCollection(centers[pairs], colors=color, linewidths=1.2))
    return ax


def draw_grid(ax: Axes, origin, cell_size: float, bounds, *, color: str = "0.7") -> Axes:
    """Grid lines of cells ``cell_size`` wide from ``origin``, across ``bounds``
    (x_min, x_max, y_min, y_max)."""
    ax = _arguments.axes(ax)
    origin = _check.vector(origin, "origin")
    cell_size = _check.positive_scalar(cell_size, "cell_size")
    x0, x1, y0, y1 = _arguments.limits(bounds, "bounds")
    if (x1 - x0) / cell_size > 400 or (y1 - y0) / cell_size > 400:
        raise ValueError("cell_size must leave at most 400 cells across bounds")
    xs = origin[0] + cell_size * np.arange(np.floor((x0 - origin[0]) / cell_size),
                                           np.ceil((x1 - origin[0]) / cell_size) + 1)
    ys = origin[1] + cell_size * np.arange(np.floor((y0 - origin[1]) / cell_size),
                                           np.ceil((y1 - origin[1]) / cell_size) + 1)
    segments = [[(x, y0), (x, y1)] for x in xs] + [[(x0, y), (x1, y)] for y in ys]
    ax.add_collection(LineCollection(segments, colors=color, linewidths=0.6, zorder=0))
    return ax


def draw_tree(ax: Axes, tree: DynamicTree, *, cmap: str = "viridis",
              leaves: bool = True) -> Axes:
    """Draw the boxes of a :class:`~physbook.broadphase.tree.DynamicTree`, internal nodes
    as outlines coloured by height (the root the lightest), leaves (fat boxes) filled."""
    import matplotlib

    ax = _arguments.axes(ax)
    _check.instance(tree, "tree", DynamicTree, "a DynamicTree")
    nodes = tree.nodes
    used = nodes.height >= 0
    internal = np.flatnonzero(used & (nodes.height > 0))
    colors = matplotlib.colormaps[cmap]
    top = max(tree.height, 1)
    for node in internal:
        ax.add_patch(matplotlib.patches.Rectangle(
            nodes.lower[node], *(nodes.upper[node] - nodes.lower[node]), fill=False,
            edgecolor=colors(nodes.height[node] / top), linewidth=0.8 + nodes.height[node] / top))
    if leaves:
        leaf = np.flatnonzero(used & (nodes.height == 0))
        if len(leaf):
            draw_boxes(ax, nodes.lower[leaf], nodes.upper[leaf], color="0.5")
    ax.autoscale_view()
    return ax
