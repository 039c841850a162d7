"""What a drawer is: the calls :func:`~physbook.draw.world_walk.draw_world` makes, and the
styles it passes.

Every call takes world coordinates in metres (y up) and a :class:`Style`. A drawer maps
them to its screen; the helpers here give the outline of a rounded shape, which frameworks
without rounded polygons draw as a polygon.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook import _check

Colour = tuple[int, int, int]


class Style(NamedTuple):
    """How to draw one role: ``fill`` and ``line`` colours as (r, g, b) in 0–255 (``fill``
    None: outline only), and the role's ``name`` (``"dynamic"``, ``"joint"``, ...)."""

    name: str
    fill: Colour | None
    line: Colour


#: The style of each role draw_world draws. Bodies: dynamic (awake), sleeping, static,
#: kinematic; sensor shapes (outline only); joint lines and anchors; contact points and
#: normals; bounding boxes.
DEFAULT_STYLES: dict[str, Style] = {
    "dynamic": Style("dynamic", (230, 159, 0), (120, 80, 0)),
    "sleeping": Style("sleeping", (150, 150, 150), (80, 80, 80)),
    "static": Style("static", (86, 180, 233), (20, 90, 130)),
    "kinematic": Style("kinematic", (0, 158, 115), (0, 80, 55)),
    "sensor": Style("sensor", None, (204, 121, 167)),
    "joint": Style("joint", (213, 94, 0), (213, 94, 0)),
    "contact": Style("contact", (220, 30, 30), (220, 30, 30)),
    "normal": Style("normal", None, (240, 228, 66)),
    "aabb": Style("aabb", None, (160, 60, 200)),
}


class DebugDraw:
    """The drawer protocol, with methods that draw nothing: subclass it and override what
    your framework draws (or write any class with these methods). Points are (2,) arrays
    in world coordinates (m)."""

    def circle(self, center: np.ndarray, radius: float, angle: float, style: Style) -> None:
        """A circle of ``radius`` (m) about ``center``, turned by ``angle`` (rad): draw a
        radius towards ``angle`` to show the turn."""

    def polygon(self, points: np.ndarray, radius: float, style: Style) -> None:
        """A convex polygon, ``points`` (K, 2) counter-clockwise, grown by ``radius`` (m; 0
        for a sharp polygon; :func:`rounded_outline` gives the outline)."""

    def capsule(self, center1: np.ndarray, center2: np.ndarray, radius: float,
                style: Style) -> None:
        """The segment from ``center1`` to ``center2`` grown by ``radius`` (m)."""

    def segment(self, point1: np.ndarray, point2: np.ndarray, style: Style) -> None:
        """A line from ``point1`` to ``point2``: a segment or chain shape, a joint's line, a
        contact normal."""

    def point(self, point: np.ndarray, size: float, style: Style) -> None:
        """A dot of ``size`` pixels (a screen size, whatever the zoom) at ``point``."""

    def box(self, lower: np.ndarray, upper: np.ndarray, style: Style) -> None:
        """An axis-aligned box from ``lower`` to ``upper``, outline only."""


def rounded_outline(points, radius: float, segments: int = 32) -> np.ndarray:
    """(P, 2) outline of the convex polygon ``points`` (K ≥ 1, counter-clockwise; two points
    for a capsule, one for a circle) grown by ``radius`` (m): each corner becomes an arc
    from the outward normal of the edge before it to that of the edge after, about
    ``segments`` points per full turn. With radius 0 the outline is the points."""
    points = _check.points(points, "points").reshape(-1, 2)
    if not len(points):
        raise ValueError("points must hold at least one point")
    radius = _check.non_negative_scalar(radius, "radius")
    segments = _check.integer(segments, "segments", 3, 10_000)
    if radius == 0.0:
        return points.copy()
    count = len(points)
    if count == 1:
        turn = np.linspace(0.0, 2.0 * math.pi, segments, endpoint=False)
        return points[0] + radius * np.column_stack([np.cos(turn), np.sin(turn)])
    edges = np.roll(points, -1, axis=0) - points  # edge k: point k → point k + 1
    # outward normal of a counter-clockwise edge (ex, ey): (ey, −ex), an angle per edge
    normal_angles = np.arctan2(-edges[:, 0], edges[:, 1])
    outline = []
    for k in range(count):
        start = normal_angles[k - 1]  # the edge into corner k
        sweep = (normal_angles[k] - start) % (2.0 * math.pi)
        steps = max(1, math.ceil(sweep / (2.0 * math.pi) * segments))
        turn = start + sweep * np.arange(steps + 1) / steps
        outline.append(points[k] + radius * np.column_stack([np.cos(turn), np.sin(turn)]))
    return np.concatenate(outline)
