"""A drawer onto a pygame-ce surface (``pip install "physbook[pygame]"``).

The world's y axis points up, the screen's down: a world point p is drawn at
``((p_x − offset_x)·s, height − (p_y − offset_y)·s)`` pixels, with s the pixels per metre and
``offset`` the world point at the surface's lower-left corner. pygame is imported when a
:class:`PygameDraw` is made, not when this module is.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.draw.protocol import DebugDraw, Style, rounded_outline


class PygameDraw(DebugDraw):
    """Draws :func:`~physbook.draw.world_walk.draw_world`'s calls onto ``surface``.

    Parameters
    ----------
    surface
        A ``pygame.Surface`` (the display's, or one of your own).
    pixels_per_metre
        The scale s (> 0).
    offset
        The world point (m) at the surface's lower-left corner.
    line_width
        Outline width (pixels, ≥ 1).
    """

    def __init__(self, surface, pixels_per_metre: float = 30.0, offset=(0.0, 0.0),
                 line_width: int = 1):
        import pygame

        self._pygame = pygame
        _check.instance(surface, "surface", pygame.Surface, "a pygame.Surface")
        self.surface = surface
        self.pixels_per_metre = _check.positive_scalar(pixels_per_metre, "pixels_per_metre")
        self.offset = _check.vector(offset, "offset")
        self.line_width = _check.positive_int(line_width, "line_width", 1000)

    def to_screen(self, point) -> tuple[float, float]:
        """The pixel (x, y) of world ``point`` (m)."""
        scale = self.pixels_per_metre
        return ((float(point[0]) - self.offset[0]) * scale,
                self.surface.get_height() - (float(point[1]) - self.offset[1]) * scale)

    def _screen_points(self, points: np.ndarray) -> list[tuple[float, float]]:
        # a few points per shape: a Python loop costs less than numpy's calls
        scale, height = self.pixels_per_metre, self.surface.get_height()
        left, bottom = float(self.offset[0]), float(self.offset[1])
        return [((x - left) * scale, height - (y - bottom) * scale)
                for x, y in points.tolist()]

    def _outline(self, points: np.ndarray, style: Style) -> None:
        screen = self._screen_points(points)
        draw = self._pygame.draw
        if style.fill is not None:
            draw.polygon(self.surface, style.fill, screen)
        draw.polygon(self.surface, style.line, screen, self.line_width)

    def circle(self, center, radius, angle, style) -> None:
        draw = self._pygame.draw
        middle = self.to_screen(center)
        pixels = radius * self.pixels_per_metre
        if style.fill is not None:
            draw.circle(self.surface, style.fill, middle, pixels)
        draw.circle(self.surface, style.line, middle, pixels, self.line_width)
        rim = (center[0] + radius * math.cos(angle), center[1] + radius * math.sin(angle))
        draw.line(self.surface, style.line, middle, self.to_screen(rim), self.line_width)

    def polygon(self, points, radius, style) -> None:
        self._outline(points if radius == 0.0 else rounded_outline(points, radius), style)

    def capsule(self, center1, center2, radius, style) -> None:
        self._outline(rounded_outline(np.array([center1, center2]), radius), style)

    def segment(self, point1, point2, style) -> None:
        self._pygame.draw.line(self.surface, style.line, self.to_screen(point1),
                               self.to_screen(point2), self.line_width)

    def point(self, point, size, style) -> None:
        colour = style.fill if style.fill is not None else style.line
        self._pygame.draw.circle(self.surface, colour, self.to_screen(point), size / 2.0)

    def box(self, lower, upper, style) -> None:
        left, top = self.to_screen((lower[0], upper[1]))
        right, bottom = self.to_screen((upper[0], lower[1]))
        self._pygame.draw.rect(self.surface, style.line,
                               self._pygame.Rect(left, top, right - left, bottom - top),
                               self.line_width)
