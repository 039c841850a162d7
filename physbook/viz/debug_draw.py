"""Chapter 16: the debug-draw protocol's matplotlib adapter, the one the book draws with.

:class:`MatplotlibDraw` turns :func:`physbook.draw.draw_world`'s calls into matplotlib
artists (kept in :attr:`MatplotlibDraw.artists`, in the order drawn), as
:class:`~physbook.draw.pygame_draw.PygameDraw` turns them into pixels: a game's pygame
window and the book's figures show one world through the same calls.
:func:`draw_debug` draws a world on axes that way.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Circle as CirclePatch
from matplotlib.patches import Polygon as PolygonPatch
from matplotlib.patches import Rectangle

from physbook import _check
from physbook.draw import DebugDraw, Style, draw_world, rounded_outline
from physbook.viz import _arguments
from physbook.world import World


def _rgb(colour) -> tuple[float, float, float] | str:
    return "none" if colour is None else tuple(channel / 255.0 for channel in colour)


class MatplotlibDraw(DebugDraw):
    """Draws the debug-draw calls on ``ax`` (world coordinates are the axes' data
    coordinates); ``alpha`` is the opacity of fills, ``line_width`` that of lines
    (points)."""

    def __init__(self, ax: Axes, alpha: float = 0.8, line_width: float = 1.0):
        self.ax = _arguments.axes(ax)
        self.alpha = _check.finite_scalar(alpha, "alpha")
        if not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha must lie in [0, 1], got {self.alpha:g}")
        self.line_width = _check.positive_scalar(line_width, "line_width")
        self.artists: list = []

    def _add_patch(self, patch):
        self.ax.add_patch(patch)
        self.artists.append(patch)

    def _add_line(self, xs, ys, style: Style, **options):
        line = Line2D(xs, ys, color=_rgb(style.line), linewidth=self.line_width, **options)
        self.ax.add_line(line)
        self.artists.append(line)

    def _filled(self, points: np.ndarray, style: Style) -> None:
        self._add_patch(PolygonPatch(points, closed=True, facecolor=_rgb(style.fill),
                                     edgecolor=_rgb(style.line), linewidth=self.line_width,
                                     alpha=None if style.fill is None else self.alpha))

    def circle(self, center, radius, angle, style) -> None:
        self._add_patch(CirclePatch(tuple(center), radius, facecolor=_rgb(style.fill),
                                    edgecolor=_rgb(style.line), linewidth=self.line_width,
                                    alpha=None if style.fill is None else self.alpha))
        self._add_line([center[0], center[0] + radius * math.cos(angle)],
                       [center[1], center[1] + radius * math.sin(angle)], style)

    def polygon(self, points, radius, style) -> None:
        self._filled(points if radius == 0.0 else rounded_outline(points, radius), style)

    def capsule(self, center1, center2, radius, style) -> None:
        self._filled(rounded_outline(np.array([center1, center2]), radius), style)

    def segment(self, point1, point2, style) -> None:
        self._add_line([point1[0], point2[0]], [point1[1], point2[1]], style)

    def point(self, point, size, style) -> None:
        colour = style.fill if style.fill is not None else style.line
        self._add_line([point[0]], [point[1]], Style(style.name, None, colour), marker="o",
                       markersize=size, linestyle="none")

    def box(self, lower, upper, style) -> None:
        self._add_patch(Rectangle(tuple(lower), upper[0] - lower[0], upper[1] - lower[1],
                                  fill=False, edgecolor=_rgb(style.line),
                                  linewidth=self.line_width))


def draw_debug(ax: Axes, world: World, *, shapes: bool = True, joints: bool = True,
               contacts: bool = False, aabbs: bool = False, sensors: bool = True,
               styles=None, alpha: float = 0.8) -> MatplotlibDraw:
    """Draw ``world`` on ``ax`` through the debug-draw protocol
    (:func:`physbook.draw.draw_world`, whose options these are), with equal axes scaled to
    what was drawn; returns the :class:`MatplotlibDraw`, whose ``artists`` are what it
    drew."""
    world = _check.instance(world, "world", World, "a physbook World")
    drawer = MatplotlibDraw(ax, alpha=alpha)
    draw_world(world, drawer, shapes=shapes, joints=joints, contacts=contacts, aabbs=aabbs,
               sensors=sensors, styles=styles)
    drawer.ax.set_aspect("equal")
    drawer.ax.autoscale_view()
    return drawer
