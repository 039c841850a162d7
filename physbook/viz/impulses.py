"""Drawing contacts and impulses (chapter 9): contact points, normals, impulse arrows, and
the bounce plot of a dropped ball against its analytic apexes."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from matplotlib.axes import Axes

#: Colours of contact drawings.
POINT_COLOUR = "#c44e52"
NORMAL_COLOUR = "#2f2f2f"
IMPULSE_COLOUR = "#dd8452"


class ContactSnapshot(NamedTuple):
    """A copy of a world's contacts at one instant, for drawing frames of a recording."""

    point_counts: np.ndarray
    normals: np.ndarray
    points: np.ndarray
    depths: np.ndarray
    normal_impulses: np.ndarray
    tangent_impulses: np.ndarray


def contact_snapshot(contacts) -> ContactSnapshot:
    """Copy the arrays of a :class:`~physbook.dynamics.contact_table.ContactTable` that
    drawing needs."""
    return ContactSnapshot(contacts.point_counts.copy(), contacts.normals.copy(),
                           contacts.points.copy(), contacts.depths.copy(),
                           contacts.normal_impulses.copy(), contacts.tangent_impulses.copy())


def _used_points(contacts):
    """Points, their pair's normal, and impulses of the used point slots, flattened."""
    counts = np.asarray(contacts.point_counts)
    used = np.arange(2)[None, :] < counts[:, None]
    normals = np.repeat(np.asarray(contacts.normals)[:, None, :], 2, axis=1)
    return (np.asarray(contacts.points)[used], normals[used],
            np.asarray(contacts.normal_impulses)[used],
            np.asarray(contacts.tangent_impulses)[used])


def draw_contacts(ax: Axes, contacts, *, normals: bool = True, impulses: bool = False,
                  normal_length: float = 0.3, impulse_scale: float = 1.0,
                  markersize: float = 4.0) -> Axes:
    """Draw contact points (dots), their normals and optionally their impulses.

    ``contacts`` is a :class:`~physbook.dynamics.contact_table.ContactTable` or a
    :class:`ContactSnapshot`. Normals are drawn ``normal_length`` m long from each point,
    from shape A towards shape B. With ``impulses`` each point also gets an arrow of the
    impulse it gave body B, j·n + j_t·t with t = (−n_y, n_x), ``impulse_scale`` metres per
    N·s.
    """
    points, point_normals, normal_impulses, tangent_impulses = _used_points(contacts)
    if len(points) == 0:
        return ax
    ax.plot(points[:, 0], points[:, 1], "o", color=POINT_COLOUR, markersize=markersize,
            linestyle="none", zorder=5)
    if normals:
        tips = normal_length * point_normals
        ax.quiver(points[:, 0], points[:, 1], tips[:, 0], tips[:, 1], color=NORMAL_COLOUR,
                  angles="xy", scale_units="xy", scale=1.0, width=0.004, zorder=6)
    if impulses:
        tangents = np.column_stack([-point_normals[:, 1], point_normals[:, 0]])
        arrows = impulse_scale * (normal_impulses[:, None] * point_normals
                                  + tangent_impulses[:, None] * tangents)
        ax.quiver(points[:, 0], points[:, 1], arrows[:, 0], arrows[:, 1],
                  color=IMPULSE_COLOUR, angles="xy", scale_units="xy", scale=1.0,
                  width=0.006, zorder=7)
    return ax


def plot_bounces(ax: Axes, times, heights, apex_times, apex_heights, analytic_apexes, *,
                 radius: float, label: str = "simulated") -> Axes:
    """Height of a dropped ball over time, its measured apexes, and the analytic ones.

    ``analytic_apexes`` are drawn as horizontal marks at the measured apex times; the
    resting height ``radius`` as a dotted line.
    """
    ax.plot(times, heights, label=label)
    ax.plot(apex_times, apex_heights, "o", color="C1", label="measured apexes")
    count = min(len(apex_times), len(analytic_apexes))
    ax.plot(apex_times[:count], analytic_apexes[:count], "_", color="k", markersize=18,
            markeredgewidth=2, label=r"analytic $r + (h_0 - r)e^{2n}$")
    ax.axhline(radius, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("height of the centre (m)")
    ax.legend(loc="upper right")
    return ax
