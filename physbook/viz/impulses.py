"""Drawing contacts and impulses (chapter 9): contact points, normals, impulse arrows, and
the bounce plot of a dropped ball against its analytic apexes."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from matplotlib.axes import Axes

from physbook import _check
from physbook.dynamics.contact_table import ContactTable
from physbook.viz import _arguments

#: Colours of contact drawings.
POINT_COLOUR = "#c44e52"
NORMAL_COLOUR = "#2f2f2f"
IMPULSE_COLOUR = "#dd8452"


class _ContactColumns(NamedTuple):
    point_counts: np.ndarray
    normals: np.ndarray
    points: np.ndarray
    depths: np.ndarray
    normal_impulses: np.ndarray
    tangent_impulses: np.ndarray


def _checked_columns(columns, prefix: str = "") -> tuple[np.ndarray, ...]:
    """The columns of P contact pairs as finite arrays of the shapes a snapshot holds.

    ``point_counts`` (P,) whole numbers 0 to 2; ``normals`` (P, 2); ``points`` (P, 2, 2) m;
    ``depths``, ``normal_impulses``, ``tangent_impulses`` (P, 2). ``prefix`` goes in front
    of each column's name in an error message.
    """
    counts = _arguments.whole_numbers(columns[0], prefix + "point_counts", (-1,), 0, 2)
    pairs = len(counts)
    shapes = {"normals": (pairs, 2), "points": (pairs, 2, 2), "depths": (pairs, 2),
              "normal_impulses": (pairs, 2), "tangent_impulses": (pairs, 2)}
    rest = [_arguments.rows(value, prefix + name, shape, f"entry of {prefix}point_counts")
            for value, (name, shape) in zip(columns[1:], shapes.items(), strict=True)]
    return (counts, *rest)


class ContactSnapshot(_ContactColumns):
    """A copy of a world's contacts at one instant, for drawing frames of a recording.

    For P touching pairs: ``point_counts`` (P,) points per pair, 0 to 2; ``normals`` (P, 2)
    unit, from A to B; ``points`` (P, 2, 2) m; ``depths`` (P, 2) m; ``normal_impulses`` and
    ``tangent_impulses`` (P, 2) N·s. The arrays are checked and copied when it is made.
    """

    __slots__ = ()

    def __new__(cls, point_counts, normals, points, depths, normal_impulses,
                tangent_impulses):
        columns = (point_counts, normals, points, depths, normal_impulses, tangent_impulses)
        return super().__new__(cls, *_checked_columns(columns))


def contact_snapshot(contacts: ContactTable) -> ContactSnapshot:
    """Copy the arrays of a :class:`~physbook.dynamics.contact_table.ContactTable` that
    drawing needs."""
    contacts = _check.instance(contacts, "contacts", ContactTable, "a ContactTable")
    return ContactSnapshot(contacts.point_counts, contacts.normals, contacts.points,
                           contacts.depths, contacts.normal_impulses,
                           contacts.tangent_impulses)


def _used_points(contacts):
    """Points, their pair's normal, and impulses of the used point slots, flattened."""
    counts, normals, points, _, normal_impulses, tangent_impulses = contacts
    used = np.arange(2)[None, :] < counts[:, None]
    normals = np.repeat(normals[:, None, :], 2, axis=1)
    return points[used], normals[used], normal_impulses[used], tangent_impulses[used]


def draw_contacts(ax: Axes, contacts, *, normals: bool = True, impulses: bool = False,
                  normal_length: float = 0.3, impulse_scale: float = 1.0,
                  markersize: float = 4.0) -> Axes:
    """Draw contact points (dots), their normals and optionally their impulses.

    ``contacts`` is a :class:`~physbook.dynamics.contact_table.ContactTable` or a
    :class:`ContactSnapshot`. Normals are drawn ``normal_length`` m long from each point,
    from shape A towards shape B. With ``impulses`` each point also gets an arrow of the
    impulse it gave body B, j·n + j_t·t with t = (−n_y, n_x), ``impulse_scale`` metres per
    N·s. ``markersize`` is the dots' size in points.
    """
    ax = _arguments.axes(ax)
    contacts = _contact_columns(contacts)
    normals = _check.flag(normals, "normals")
    impulses = _check.flag(impulses, "impulses")
    normal_length = _check.non_negative_scalar(normal_length, "normal_length")
    impulse_scale = _check.non_negative_scalar(impulse_scale, "impulse_scale")
    markersize = _check.non_negative_scalar(markersize, "markersize")
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
        arrows = _arguments.finite(
            lambda: impulse_scale * (normal_impulses[:, None] * point_normals
                                     + tangent_impulses[:, None] * tangents),
            "impulse_scale × the impulses")
        ax.quiver(points[:, 0], points[:, 1], arrows[:, 0], arrows[:, 1],
                  color=IMPULSE_COLOUR, angles="xy", scale_units="xy", scale=1.0,
                  width=0.006, zorder=7)
    return ax


def _contact_columns(contacts) -> tuple[np.ndarray, ...]:
    """The checked columns of a ContactTable or a ContactSnapshot (which ``_replace`` may
    have given new, unchecked arrays)."""
    if isinstance(contacts, ContactTable):
        return contact_snapshot(contacts)
    contacts = _check.instance(contacts, "contacts", ContactSnapshot,
                               "a ContactTable or a ContactSnapshot")
    return _checked_columns(contacts, prefix="contacts.")


def plot_bounces(ax: Axes, times, heights, apex_times, apex_heights, analytic_apexes, *,
                 radius: float, label: str = "simulated") -> Axes:
    """Height of a dropped ball over time, its measured apexes, and the analytic ones.

    ``analytic_apexes`` are drawn as horizontal marks at the measured apex times; the
    resting height ``radius`` as a dotted line. ``times`` and ``heights`` (F,) are the run
    (s, m); ``apex_times`` and ``apex_heights`` (K,) its apexes.
    """
    ax = _arguments.axes(ax)
    times = _arguments.rows(times, "times", (-1,))
    heights = _arguments.rows(heights, "heights", (len(times),), "entry of times")
    apex_times = _arguments.rows(apex_times, "apex_times", (-1,))
    apex_heights = _arguments.rows(apex_heights, "apex_heights", (len(apex_times),),
                                   "entry of apex_times")
    analytic_apexes = _arguments.rows(analytic_apexes, "analytic_apexes", (-1,))
    radius = _check.positive_scalar(radius, "radius")
    label = _arguments.text(label, "label")
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
