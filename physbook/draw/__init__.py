"""Chapter 16: debug drawing for game frameworks, through one small protocol.

:func:`draw_world` reads a world's arrays once and calls a *drawer*: any object with the
methods of :class:`DebugDraw` (circle, polygon, capsule, segment, point, box), each given
world coordinates in metres and a :class:`Style` that says what is drawn (a static,
kinematic, dynamic or sleeping body, a sensor, a joint, a contact point or normal, a box).
An adapter turns the calls into a framework's drawing: :class:`~physbook.draw.pygame_draw.
PygameDraw` onto a pygame-ce surface, ``physbook.viz.MatplotlibDraw`` onto matplotlib axes.
This package imports no framework: an adapter imports its own when it is made.
"""

from physbook.draw.protocol import DEFAULT_STYLES, DebugDraw, Style, rounded_outline
from physbook.draw.world_walk import draw_world, joint_anchors

__all__ = ["DEFAULT_STYLES", "DebugDraw", "Style", "draw_world", "joint_anchors",
           "rounded_outline"]
