"""Chapter 11: drawing joints, from a world now or from a recording's frames.

A joint is drawn as the segment between its two anchors, each carried by its body:
p = c + R(θ)·r with r the anchor relative to the centre of mass in body axes, as the
world's joint table keeps it. A recording keeps the bodies' centres and angles, not the
joints; with the joint table of the world that was recorded (joints added before the run
and kept through it) every frame's joints follow.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes

from physbook import _check
from physbook.draw.world_walk import joint_anchors
from physbook.dynamics.joint_table import JointColumns
from physbook.kinds import DISTANCE, MOUSE
from physbook.viz import _arguments


def joint_anchor_pairs(joints: JointColumns, centers, angles) -> np.ndarray:
    """(J, 2, 2) the world anchors of every joint on bodies at ``centers`` (N, 2) and
    ``angles`` (N,): row j holds A's anchor then B's (a mouse joint: its target, then the
    body's point)."""
    _check.instance(joints, "joints", JointColumns, "the joint_arrays of a world")
    count = len(joints.kinds)
    centers = _arguments.rows(centers, "centers", (-1, 2), "body")
    if count and joints.bodies.max() >= len(centers):
        raise ValueError(f"centers must have a row for each of the "
                         f"{joints.bodies.max() + 1} bodies the joints hold")
    angles = _arguments.rows(angles, "angles", (len(centers),), "body")
    return joint_anchors(joints, centers, angles)


def draw_joints(ax: Axes, joints: JointColumns, centers, angles, *, color: str = "k",
                linewidth: float = 1.2) -> Axes:
    """Draw every joint on bodies at ``centers`` and ``angles``: distance joints as rods
    between their anchors, mouse joints as dashed lines to their targets, the other
    joints as pins at their anchors."""
    ax = _arguments.axes(ax)
    color = _arguments.colour(color, "color")
    linewidth = _check.positive_scalar(linewidth, "linewidth")
    if linewidth > 100.0:
        raise ValueError(f"linewidth must be at most 100 points, got {linewidth:g}")
    pairs = joint_anchor_pairs(joints, centers, angles)
    for kind, (a, b) in zip(joints.kinds, pairs, strict=True):
        if kind == DISTANCE:
            ax.plot(*np.transpose([a, b]), color=color, lw=linewidth)
        elif kind == MOUSE:
            ax.plot(*np.transpose([a, b]), color="C3", lw=linewidth, ls="--")
            ax.plot(*a, marker="x", color="C3")
        else:
            ax.plot(*b, marker="o", markersize=3, color=color)
    return ax
