"""Chapter 11: a diagram of one joint's geometry, its centres, arms, anchors and axes.

Every joint row is built from a few vectors (chapter 11): the centres of mass c_A, c_B,
the arms r = R(θ)·r_local from each centre to its anchor, the gap d = p_B − p_A between
the anchors, and, for a prismatic or wheel joint, the axis u fixed in A and its
perpendicular n = (−u_y, u_x). :func:`draw_joint_diagram` draws those vectors for one row of
a world's joint table and names the joint's rows, so that the figure and the rows the
chapter derives use the same letters.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes

from physbook import _check
from physbook.dynamics.joint_table import JointColumns
from physbook.kinds import (
    DISTANCE,
    JOINT_KINDS,
    MOTOR,
    MOUSE,
    PRISMATIC,
    REVOLUTE,
    WELD,
    WHEEL,
)
from physbook.viz import _arguments
from physbook.viz.linkage import joint_anchor_pairs

#: The rows of each joint kind, as the chapter writes them (C = 0 for an equality row).
JOINT_ROWS = {
    DISTANCE: "|d| − L (along u = d/|d|)",
    REVOLUTE: "p_B − p_A (2 rows)\nθ_B − θ_A − θ₀ (limits, motor)",
    PRISMATIC: "n·d,  θ_B − θ_A − θ₀\nu·d free (limits, motor)",
    WELD: "p_B − p_A (2 rows)\nθ_B − θ_A − θ₀",
    WHEEL: "n·d\nspring on u·d, motor on ω_B − ω_A",
    MOUSE: "p_B − target (2 rows, soft,\n|λ| ≤ F_max·h)",
    MOTOR: "p_B − p_A − R_A·o,  θ_B − θ_A − θ₀\n(towards −β·C/h, |λ| ≤ F·h, T·h)",
}


def _arrow(ax: Axes, start, vector, color: str, label: str) -> None:
    """An arrow from ``start`` along ``vector``, labelled at its middle."""
    ax.annotate("", xy=start + vector, xytext=start,
                arrowprops=dict(arrowstyle="->", color=color, lw=1.3, shrinkA=0, shrinkB=0))
    middle = start + 0.5 * vector
    ax.text(middle[0], middle[1], f" {label}", color=color, fontsize=8, ha="left",
            va="bottom")


def draw_joint_diagram(ax: Axes, joints: JointColumns, centers, angles, row: int, *,
                       axis_length: float = 0.5) -> dict[str, np.ndarray]:
    """Draw the vectors of joint ``row`` on bodies at ``centers`` (N, 2) and ``angles``
    (N,): the centres, the arms r_A and r_B to the anchors, the gap d between the anchors,
    the axis u and its perpendicular n (prismatic and wheel joints, drawn ``axis_length``
    m long at A's anchor) and a mouse joint's target; the joint's rows as the title.

    Returns the vectors drawn (m): ``c_A``, ``c_B``, ``p_A``, ``p_B``, ``r_A``, ``r_B``,
    ``d``, and ``u``, ``n`` for a joint with an axis. A mouse joint has no body A: its
    ``p_A`` is the target and it has no ``c_A`` or ``r_A``.
    """
    ax = _arguments.axes(ax)
    _check.instance(joints, "joints", JointColumns, "the joint_arrays of a world")
    axis_length = _check.positive_scalar(axis_length, "axis_length")
    count = len(joints.kinds)
    row = _check.non_negative_int(row, "row")
    if row >= count:
        raise ValueError(f"row must name one of the {count} joints, got {row}")
    anchors = joint_anchor_pairs(joints, centers, angles)[row]
    centers = np.asarray(centers, dtype=float)
    angles = np.asarray(angles, dtype=float)
    kind = int(joints.kinds[row])
    body_a, body_b = joints.bodies[row]
    p_a, p_b = anchors
    drawn = {"p_A": p_a, "p_B": p_b, "c_B": centers[body_b], "r_B": p_b - centers[body_b],
             "d": p_b - p_a}
    if kind != MOUSE:
        drawn["c_A"] = centers[body_a]
        drawn["r_A"] = p_a - centers[body_a]
    if kind in (PRISMATIC, WHEEL):
        cosine, sine = np.cos(angles[body_a]), np.sin(angles[body_a])
        local = joints.local_axes[row]
        u = np.array([cosine * local[0] - sine * local[1], sine * local[0] + cosine * local[1]])
        drawn["u"], drawn["n"] = u, np.array([-u[1], u[0]])
        # The line B's anchor must stay on: through p_A along u.
        line = p_a + np.outer([-3.0, 3.0], u) * axis_length
        ax.plot(line[:, 0], line[:, 1], color="0.6", ls=":", lw=1)
        _arrow(ax, p_a, axis_length * drawn["u"], "C2", "u")
        _arrow(ax, p_a, axis_length * drawn["n"], "C4", "n")
    for side in ("A", "B"):
        if f"c_{side}" in drawn:
            center = drawn[f"c_{side}"]
            ax.plot(*center, marker="o", color="k", markersize=4)
            ax.text(center[0], center[1], f"c_{side} ", fontsize=8, ha="right", va="top")
            _arrow(ax, center, drawn[f"r_{side}"], "C0" if side == "A" else "C1", f"r_{side}")
    if np.hypot(*drawn["d"]) > 1e-9:
        _arrow(ax, p_a, drawn["d"], "C3", "d")
    ax.plot(*p_a, marker="x" if kind == MOUSE else "o", color="C3", markersize=5)
    ax.plot(*p_b, marker="o", color="C3", markersize=5, fillstyle="none")
    ax.set_title(f"{JOINT_KINDS[kind]}: {JOINT_ROWS[kind]}", fontsize=8)
    return drawn
