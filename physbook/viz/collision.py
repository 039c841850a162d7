"""Drawing the narrow phase (chapters 6–8): manifolds, SAT projections, clipping, GJK, EPA.

Each ``draw_*`` function draws on a matplotlib ``Axes`` it is given; each ``plot_*``
function makes its own small figure and returns it. Positions are in metres, y up.
Shapes are drawn from their support functions, so any convex shape with a
``support(direction)`` method (a circle, a polygon, an ellipse) can be drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Polygon as PolygonPatch

from physbook import _check
from physbook.collision.gjk import EpaStep, GjkStep, minkowski_support, support_point
from physbook.collision.manifold import Manifold
from physbook.collision.sat import SatResult, clipping_steps, sat_axes, sat_query
from physbook.geometry import hull
from physbook.geometry.round_shapes import Capsule, ChainSegment, Segment
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.vec import Transform
from physbook.viz import _arguments
from physbook.viz.vectors import draw_vector, plane

#: Colours of shape A, shape B, and the contact (normal, points, depth).
COLOR_A = "C0"
COLOR_B = "C1"
COLOR_CONTACT = "C3"
#: The largest angle (rad) one straight piece of a drawn arc turns through.
ARC_STEP = np.pi / 16


def convex_hull(points) -> np.ndarray:
    """Counter-clockwise convex hull of (N, 2) points, for drawing (chapter 14's
    :func:`~physbook.geometry.hull.convex_hull`).

    Returns the hull's corners, a subset of the distinct ``points``; fewer than three
    distinct points are returned as they are, and points all on one line as its two ends.
    """
    points = np.unique(_check.points(points, "points").reshape(-1, 2), axis=0)
    if len(points) < 3:
        return points
    try:
        return hull.convex_hull(points)
    except ValueError:  # all on one line: sorted, its ends are the first and last
        return points[[0, -1]]


def _round_outline(points, radius: float) -> np.ndarray:
    """The outline (k, 2) of a convex core grown by ``radius`` (m): ``points`` (n, 2) the
    core, counter-clockwise (two points: a capsule's segment). Each edge i → i + 1 is pushed
    out by r along its normal n_i, the right perpendicular of the edge; at each vertex an
    arc of radius r turns from the normal of the edge before to the normal of the edge after,
    through the exterior angle (π at either end of a segment), in pieces of at most
    :data:`ARC_STEP`."""
    points = np.asarray(points, dtype=float)
    count = len(points)
    edges = np.roll(points, -1, axis=0) - points
    normals = np.column_stack([edges[:, 1], -edges[:, 0]])
    normals /= np.hypot(normals[:, 0], normals[:, 1])[:, None]
    pieces = []
    for k in range(count):
        before, after = normals[k - 1], normals[k]
        turn = np.pi if count == 2 else float(np.arctan2(before[0] * after[1]
                                                          - before[1] * after[0],
                                                          before @ after))
        start = float(np.arctan2(before[1], before[0]))
        angles = start + np.linspace(0.0, turn, int(np.ceil(turn / ARC_STEP)) + 1)
        pieces.append(points[k] + radius * np.column_stack([np.cos(angles), np.sin(angles)]))
    return np.vstack(pieces)


def outline(shape, transform: Transform | None = None, samples: int = 180) -> np.ndarray:
    """World points around a convex shape: a polygon's vertices; a rounded polygon's or a
    capsule's outline (its core's edges pushed out by r, joined by arcs); a segment's two
    ends; else support points.

    A shape known only by its support function is traced by its support points in
    ``samples`` directions around the circle (3 to 3600).
    """
    shape = _arguments.convex(shape, "shape")
    transform = _arguments.transform(transform, "transform")
    samples = _arguments.samples(samples)
    if isinstance(shape, Polygon) and shape.radius == 0.0:
        return transform.to_world(shape.vertices)
    if isinstance(shape, (Polygon, Capsule)):
        points, radius = shape.core()
        return transform.to_world(_round_outline(points, radius))
    if isinstance(shape, (Segment, ChainSegment)):
        return transform.to_world(np.array([shape.point1, shape.point2]))
    angles = np.linspace(0.0, 2.0 * np.pi, samples, endpoint=False)
    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    return np.array([support_point(shape, transform, d) for d in directions])


def minkowski_difference(shape_a, xf_a: Transform, shape_b, xf_b: Transform,
                         samples: int = 180) -> np.ndarray:
    """Counter-clockwise outline of A ⊖ B = {a − b}.

    For two polygons it is exact: the hull of every difference of vertices. Otherwise it is
    traced by support points s_A(d) − s_B(−d) in ``samples`` directions (a rounded polygon
    too: its outline has arcs).
    """
    _pair(shape_a, xf_a, shape_b, xf_b)
    samples = _arguments.samples(samples)
    if (isinstance(shape_a, Polygon) and isinstance(shape_b, Polygon)
            and shape_a.radius == 0.0 and shape_b.radius == 0.0):
        a = xf_a.to_world(shape_a.vertices)
        b = xf_b.to_world(shape_b.vertices)
        differences = _arguments.finite(lambda: (a[:, None, :] - b[None, :, :]).reshape(-1, 2),
                                        "A ⊖ B, the shapes posed by xf_a and xf_b,")
        return convex_hull(differences)
    angles = np.linspace(0.0, 2.0 * np.pi, samples, endpoint=False)
    return np.array([minkowski_support(shape_a, xf_a, shape_b, xf_b,
                                       (np.cos(t), np.sin(t))) for t in angles])


def draw_convex(ax: Axes, shape, transform: Transform | None = None, *, color: str = COLOR_A,
                label: str | None = None, alpha: float = 0.25, samples: int = 180):
    """Fill and outline a convex shape in its pose; a circle also shows its centre."""
    ax = _arguments.axes(ax)
    color = _arguments.colour(color, "color")
    label = _arguments.text(label, "label")
    alpha = _arguments.fraction(alpha, "alpha")
    points = outline(shape, transform, samples)
    patch = PolygonPatch(points, closed=True, facecolor=color, edgecolor=color, alpha=alpha,
                         lw=0)
    ax.add_patch(patch)
    closed = np.vstack([points, points[:1]])
    ax.plot(closed[:, 0], closed[:, 1], color=color, lw=1.5, label=label)
    if isinstance(shape, Circle):
        centre = (Transform() if transform is None else transform).to_world(shape.center)
        ax.plot(*centre, "+", color=color)
    ax.update_datalim(points)
    ax.autoscale_view()
    return patch


def draw_manifold(ax: Axes, manifold: Manifold | None, *, color: str = COLOR_CONTACT,
                  arrow: float = 0.5) -> None:
    """Draw a manifold: its points, the depth at each point, and the normal.

    Each point is midway between the two surfaces, so a bar of length ``depth`` along the
    normal, centred on it, runs from one surface to the other. The normal (A to B) is an
    arrow of length ``arrow`` (m) from the middle of the points.
    """
    ax = _arguments.axes(ax)
    color = _arguments.colour(color, "color")
    arrow = _check.non_negative_scalar(arrow, "arrow")
    if manifold is None:
        return
    _manifold(manifold, "manifold")
    for point, depth in zip(manifold.points, manifold.depths, strict=True):
        half = 0.5 * depth * manifold.normal
        ax.plot([point[0] - half[0], point[0] + half[0]],
                [point[1] - half[1], point[1] + half[1]], color=color, lw=3, alpha=0.6,
                solid_capstyle="butt")
        ax.plot(*point, "o", color=color, markersize=5)
    start = manifold.points.mean(axis=0)
    draw_vector(ax, arrow * manifold.normal, start, color=color, label="n")


def draw_pair(ax: Axes, shape_a, xf_a: Transform, shape_b, xf_b: Transform,
              manifold: Manifold | None = None, *, limits: Sequence[float] | None = None,
              title: str | None = None) -> Axes:
    """Draw shapes A (blue) and B (orange) and, if given, their manifold."""
    ax = _arguments.axes(ax)
    _pair(shape_a, xf_a, shape_b, xf_b)
    _manifold(manifold, "manifold", optional=True)
    title = _arguments.text(title, "title")
    plane(ax, limits)
    draw_convex(ax, shape_a, xf_a, color=COLOR_A, label="A")
    draw_convex(ax, shape_b, xf_b, color=COLOR_B, label="B")
    draw_manifold(ax, manifold)
    if limits is not None:
        plane(ax, limits)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


# ----------------------------------------------------------------------------------------
# Chapter 7: SAT projections and clipping


def plot_sat(shape_a, xf_a: Transform, shape_b, xf_b: Transform, *,
             limits: Sequence[float] | None = None, figsize=(10.0, 4.2)):
    """Two panels: the shapes with every SAT axis, and both projections on each axis.

    Left: the axes as arrows from the middle of the scene, the least-overlap axis thick.
    Right: one row per axis with A's interval (blue) and B's (orange) along it, and the
    overlap (negative: a gap, and the axis separates the shapes).
    """
    import matplotlib.pyplot as plt

    table = sat_axes(shape_a, xf_a, shape_b, xf_b)
    best = sat_query(shape_a, xf_a, shape_b, xf_b)
    if limits is not None:
        limits = _arguments.limits(limits)
    figsize = _arguments.figsize(figsize)
    fig, (left, right) = plt.subplots(1, 2, figsize=figsize,
                                      gridspec_kw={"width_ratios": [1.0, 1.2]})
    with _closed_on_error(fig):
        _draw_sat_panels(left, right, table, best, (shape_a, xf_a, shape_b, xf_b), limits)
        fig.tight_layout()
    return fig


@contextmanager
def _closed_on_error(fig):
    """Close ``fig`` if drawing it fails, so that no half-drawn figure stays open."""
    import matplotlib.pyplot as plt

    try:
        yield fig
    except BaseException:
        plt.close(fig)
        raise


def _draw_sat_panels(left: Axes, right: Axes, table, best: SatResult, pair: tuple,
                     limits) -> None:
    """The two panels of :func:`plot_sat`: the axes on the shapes, the intervals on them."""
    shape_a, xf_a, shape_b, xf_b = pair
    k_best = int(np.argmin(table.overlaps))
    draw_pair(left, shape_a, xf_a, shape_b, xf_b, limits=limits)
    middle = 0.5 * (outline(shape_a, xf_a).mean(axis=0) + outline(shape_b, xf_b).mean(axis=0))
    for k, axis in enumerate(table.axes):
        separating = table.overlaps[k] < 0.0
        color = "C2" if separating else "0.45"
        draw_vector(left, 0.6 * axis, middle, color=color, width=3.0 if k == k_best else 1.0)
    left.set_title("edge normals: the candidate axes", fontsize=10)

    names = {0: "A", 1: "B", 2: "circle"}
    rows = np.arange(len(table.axes))[::-1]
    for row, k in zip(rows, range(len(table.axes)), strict=True):
        (a_low, a_high), (b_low, b_high) = table.intervals_a[k], table.intervals_b[k]
        right.plot([a_low, a_high], [row + 0.12] * 2, color=COLOR_A, lw=6,
                   solid_capstyle="butt")
        right.plot([b_low, b_high], [row - 0.12] * 2, color=COLOR_B, lw=6,
                   solid_capstyle="butt")
        owner = names[int(table.owners[k])]
        edge = "" if table.edges[k] < 0 else f" edge {table.edges[k]}"
        text = f"{owner}{edge}: overlap {table.overlaps[k]:+.3f}"
        right.annotate(text, (max(a_high, b_high), row), xytext=(6, 0),
                       textcoords="offset points", va="center", fontsize=8,
                       fontweight="bold" if k == k_best else "normal")
    right.set_yticks([])
    right.set_xlabel("projection on the axis (m)")
    right.margins(x=0.35)
    verdict = (f"overlap: least depth {best.depth:.3f} m" if best.depth > 0.0
               else "separated: an axis with a gap exists")
    right.set_title(verdict, fontsize=10)


def draw_sat_axis(ax: Axes, shape_a, xf_a: Transform, shape_b, xf_b: Transform, *,
                  limits: Sequence[float] | None = None, clearance: float = 0.3) -> SatResult:
    """Draw both shapes and their shadows on the SAT axis of least overlap, on one axes.

    The axis is the row of :func:`physbook.sat_axes` with the smallest overlap: the axis of
    largest gap when the shapes are apart, else the axis of least penetration. It is drawn
    as a line beside the shapes, ``clearance`` (m) from them on the side nearer the middle
    of the view, with A's interval (blue) and B's (orange) on it, joined by dotted lines to
    the points that cast their ends. Beside them, the part of the axis between the
    intervals: green when it is a gap (the axis separates the shapes), red when it is an
    overlap (its length is the depth). Returns the :func:`physbook.sat_query` result.
    """
    ax = _arguments.axes(ax)
    clearance = _check.positive_scalar(clearance, "clearance")
    table = sat_axes(shape_a, xf_a, shape_b, xf_b)
    best = sat_query(shape_a, xf_a, shape_b, xf_b)
    k = int(np.argmin(table.overlaps))  # the row sat_query chose
    axis = table.axes[k]
    across = np.array([-axis[1], axis[0]])
    draw_pair(ax, shape_a, xf_a, shape_b, xf_b, limits=limits)
    points_a, points_b = outline(shape_a, xf_a), outline(shape_b, xf_b)
    # The drawn axis is the line across·p = level, just clear of both shapes; the value s
    # on the axis sits at s·axis + level·across, the foot of every point with axis·p = s.
    heights = np.vstack([points_a, points_b]) @ across
    middle = np.array([np.mean(ax.get_xlim()), np.mean(ax.get_ylim())]) @ across
    below, above = heights.min() - clearance, heights.max() + clearance
    lane = 0.08  # m between the lanes of A, B and the gap or overlap
    if abs(above - middle) < abs(below - middle):
        level, lane = float(above), -lane  # lanes step away from the shapes either way
    else:
        level = float(below)

    def on_axis(value: float, shift: float = 0.0) -> np.ndarray:
        return value * axis + (level + shift) * across

    intervals = np.vstack([table.intervals_a[k], table.intervals_b[k]])
    ends = np.array([on_axis(intervals.min() - 0.3), on_axis(intervals.max() + 0.3)])
    ax.plot(ends[:, 0], ends[:, 1], color="0.5", lw=0.8)
    for points, (low, high), color, shift in ((points_a, intervals[0], COLOR_A, lane),
                                              (points_b, intervals[1], COLOR_B, 0.0)):
        bar = np.array([on_axis(low, shift), on_axis(high, shift)])
        ax.plot(bar[:, 0], bar[:, 1], color=color, lw=4, solid_capstyle="butt")
        shadows = points @ axis
        for value, extreme in ((low, points[np.argmin(shadows)]),
                               (high, points[np.argmax(shadows)])):
            foot = on_axis(value, shift)
            ax.plot([extreme[0], foot[0]], [extreme[1], foot[1]], ":", color=color, lw=1)
    # Between the two intervals: the overlap runs from the larger low end to the smaller
    # high end; when those are the wrong way round, the same two values bound the gap.
    inner = np.array([on_axis(max(intervals[:, 0]), -lane),
                      on_axis(min(intervals[:, 1]), -lane)])
    separated = table.overlaps[k] < 0.0
    ax.plot(inner[:, 0], inner[:, 1], color="C2" if separated else COLOR_CONTACT, lw=4,
            solid_capstyle="butt")
    if limits is not None:
        plane(ax, limits)
    return best


def plot_clipping(polygon_a: Polygon, xf_a: Transform, polygon_b: Polygon, xf_b: Transform,
                  manifold: Manifold | None, *, limits: Sequence[float] | None = None,
                  figsize=(11.0, 3.8)):
    """Three panels: reference and incident faces; clipping to the side planes; the points.

    ``manifold`` is what :func:`physbook.collide` returned for the same pair; its points
    are the clipped points moved halfway to the reference face.
    """
    import matplotlib.pyplot as plt

    _check.instance(polygon_a, "polygon_a", Polygon, "a Polygon")
    _check.instance(polygon_b, "polygon_b", Polygon, "a Polygon")
    steps = clipping_steps(polygon_a, xf_a, polygon_b, xf_b)
    _manifold(manifold, "manifold", optional=True)
    if limits is not None:
        limits = _arguments.limits(limits)
    figsize = _arguments.figsize(figsize)
    fig, panels = plt.subplots(1, 3, figsize=figsize, sharex=True, sharey=True)
    with _closed_on_error(fig):
        _draw_clipping_panels(panels, steps, (polygon_a, xf_a, polygon_b, xf_b), manifold,
                              limits)
        fig.tight_layout()
    return fig


def _draw_clipping_panels(panels, steps, pair: tuple, manifold: Manifold | None,
                          limits) -> None:
    """The three panels of :func:`plot_clipping`, one per stage of the clipping."""
    polygon_a, xf_a, polygon_b, xf_b = pair
    reference_color = COLOR_A if steps.reference == 0 else COLOR_B
    incident_color = COLOR_B if steps.reference == 0 else COLOR_A
    titles = ("1. reference face (thick) and incident face",
              "2. clip the incident face to the side planes", "3. keep points behind, halfway")
    face = steps.reference_face
    for step, ax in enumerate(panels):
        draw_pair(ax, polygon_a, xf_a, polygon_b, xf_b, limits=limits, title=titles[step])
        ax.plot(*face.T, color=reference_color, lw=4)
        ax.plot(*steps.incident_face.T, color=incident_color, lw=4, alpha=0.5 if step else 1)
        if step == 0:
            draw_vector(ax, 0.5 * steps.normal, face.mean(axis=0), color=reference_color,
                        label="n_ref")
        if step >= 1:
            # The side planes: lines through the face's ends, across it (normal ±tangent).
            reach = 3.0 * np.hypot(*(face[1] - face[0])) + 1.0
            for end in face:
                line = np.array([end - reach * steps.normal, end + reach * steps.normal])
                ax.plot(*line.T, color="0.4", ls="--", lw=1)
            if steps.clipped is not None:
                ax.plot(*steps.clipped.T, color=COLOR_CONTACT, lw=2.5)
                ax.plot(*steps.clipped.T, "s", color=COLOR_CONTACT, markersize=5)
        if step == 2:
            draw_manifold(ax, manifold)
        ax.set_xlim(*panels[0].get_xlim())
        ax.set_ylim(*panels[0].get_ylim())


# ----------------------------------------------------------------------------------------
# Chapter 8: the Minkowski difference, GJK and EPA


def draw_minkowski(ax: Axes, shape_a, xf_a: Transform, shape_b, xf_b: Transform, *,
                   color: str = "C4", samples: int = 180) -> np.ndarray:
    """Fill A ⊖ B and mark the origin; returns the outline's points."""
    ax = _arguments.axes(ax)
    color = _arguments.colour(color, "color")
    points = minkowski_difference(shape_a, xf_a, shape_b, xf_b, samples)
    ax.add_patch(PolygonPatch(points, closed=True, facecolor=color, alpha=0.18,
                              edgecolor=color, lw=1.5, label="A ⊖ B"))
    ax.plot(0.0, 0.0, "k+", markersize=12, mew=2)
    ax.annotate("origin", (0.0, 0.0), xytext=(6, -12), textcoords="offset points",
                fontsize=8)
    ax.update_datalim(np.vstack([points, [[0.0, 0.0]]]))
    ax.autoscale_view()
    return points


def limits_with_origin(points, margin: float = 0.3) -> tuple[float, float, float, float]:
    """Plot limits ``(x_min, x_max, y_min, y_max)`` (m) that hold ``points`` and the origin.

    GJK and EPA are about where the origin lies relative to A ⊖ B, so their figures must
    show it even when A ⊖ B is far from it. ``points`` is an (N, 2) array (m); ``margin``
    (m, ≥ 0) is left beyond the outermost point on every side.
    """
    points = _check.points(points, "points").reshape(-1, 2)
    margin = _check.non_negative_scalar(margin, "margin")
    every = np.vstack([points, np.zeros((1, 2))])
    low, high = every.min(axis=0) - margin, every.max(axis=0) + margin
    return float(low[0]), float(high[0]), float(low[1]), float(high[1])


#: Subscripts for the simplex labels w₁, w₂, w₃.
_SUBSCRIPTS = "₁₂₃"


def draw_gjk_step(ax: Axes, step: GjkStep, *, color: str = "C3", show_closest: bool = True,
                  show_support: bool = True, labels: bool = False) -> None:
    """One GJK iteration: the simplex, its point v nearest the origin, the new support w.

    ``show_closest`` and ``show_support`` draw v (with the dotted line from the origin)
    and w = s(−v) (when the step has one); turning them off lets an animation reveal an
    iteration stage by stage. ``labels`` writes w₁, w₂, w₃ beside the simplex points (in
    the simplex's order) and v, w beside theirs, so a figure needs no legend over it.
    """
    ax = _arguments.axes(ax)
    step = _gjk_step(step)
    color = _arguments.colour(color, "color")
    show_closest = _check.flag(show_closest, "show_closest")
    show_support = _check.flag(show_support, "show_support")
    labels = _check.flag(labels, "labels")
    simplex = step.simplex
    closed = np.vstack([simplex, simplex[:1]]) if len(simplex) > 2 else simplex
    if len(simplex) > 2:
        ax.add_patch(PolygonPatch(simplex, closed=True, facecolor=color, alpha=0.2, lw=0))
    ax.plot(closed[:, 0], closed[:, 1], "-o", color=color, markersize=5, lw=2,
            label=f"simplex ({len(simplex)} points)")
    if labels:
        middle = simplex.mean(axis=0)
        for k, point in enumerate(simplex):
            _label(ax, f"w{_SUBSCRIPTS[k]}", point, point - middle, color)
    if show_closest:
        ax.plot([0.0, step.closest[0]], [0.0, step.closest[1]], color="k", lw=1, ls=":")
        ax.plot(*step.closest, "D", color="k", markersize=5, label="v: nearest the origin")
        if labels:
            _label(ax, "v", step.closest, -step.closest, "k")
    if show_support and step.support is not None:
        ax.plot(*step.support, "*", color="C2", markersize=13, label="w = s(−v)")
        if labels:
            _label(ax, "w", step.support, step.support - simplex.mean(axis=0), "C2")


def _label(ax: Axes, text: str, point: np.ndarray, away: np.ndarray, color: str) -> None:
    """Write ``text`` 9 points from ``point``, on the side ``away`` points to (any side
    when it is zero), so that the label sits beside its marker, not on it."""
    size = float(np.hypot(*away))
    offset = np.array([0.7, 0.7]) if size == 0.0 else away / size
    ax.annotate(text, point, xytext=tuple(9.0 * offset), textcoords="offset points",
                ha="center", va="center", fontsize=9, color=color, fontweight="bold")


def gjk_legend(ax: Axes, *, color: str = "C3", minkowski_color: str = "C4"):
    """A legend for GJK figures, outside the axes on the right, with the same entries in
    every frame: A ⊖ B, the origin, the simplex, v and w. Returns the ``Legend``."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    ax = _arguments.axes(ax)
    color = _arguments.colour(color, "color")
    minkowski_color = _arguments.colour(minkowski_color, "minkowski_color")
    handles = [
        Patch(facecolor=minkowski_color, alpha=0.35, edgecolor=minkowski_color,
              label="A ⊖ B"),
        Line2D([], [], color="k", marker="+", ls="", markersize=10, mew=2, label="origin"),
        Line2D([], [], color=color, marker="o", lw=2, markersize=5, label="simplex"),
        Line2D([], [], color="k", marker="D", ls="", markersize=5,
               label="v: simplex point\nnearest the origin"),
        Line2D([], [], color="C2", marker="*", ls="", markersize=12,
               label="w = s(−v): new\nsupport point"),
    ]
    return ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                     borderaxespad=0.0, fontsize=8, frameon=False)


def draw_epa_step(ax: Axes, step: EpaStep, *, color: str = "C3") -> None:
    """One EPA iteration: the polytope, its edge nearest the origin, the new support point."""
    ax = _arguments.axes(ax)
    step = _epa_step(step)
    color = _arguments.colour(color, "color")
    polytope = step.polytope
    closed = np.vstack([polytope, polytope[:1]])
    ax.add_patch(PolygonPatch(polytope, closed=True, facecolor=color, alpha=0.15, lw=0))
    ax.plot(closed[:, 0], closed[:, 1], "-o", color=color, markersize=4, lw=1.5,
            label=f"polytope ({len(polytope)} points)")
    edge = np.array([polytope[step.edge], polytope[(step.edge + 1) % len(polytope)]])
    ax.plot(edge[:, 0], edge[:, 1], color="k", lw=3, label="edge nearest the origin")
    ax.plot(*step.support, "*", color="C2", markersize=13, label="support along its normal")


def _pair(shape_a, xf_a, shape_b, xf_b) -> None:
    """Check two convex shapes and their poses, named as the drawing functions name them."""
    _arguments.convex(shape_a, "shape_a")
    _check.instance(xf_a, "xf_a", Transform, "a Transform")
    _arguments.convex(shape_b, "shape_b")
    _check.instance(xf_b, "xf_b", Transform, "a Transform")


def _manifold(value, name: str, optional: bool = False) -> Manifold | None:
    """A :class:`~physbook.collision.manifold.Manifold` with finite arrays of 1 or 2 points
    (None too, with ``optional``)."""
    if value is None and optional:
        return None
    _check.instance(value, name, Manifold, "a Manifold" + (" or None" if optional else ""))
    _check.vector(value.normal, f"{name}.normal")
    points = _arguments.rows(value.points, f"{name}.points", (-1, 2))
    if not 1 <= len(points) <= 2:
        raise ValueError(f"{name} must have 1 or 2 points, got {len(points)}")
    _arguments.rows(value.depths, f"{name}.depths", (len(points),))
    return value


def _gjk_step(step) -> GjkStep:
    """``step`` checked: a GjkStep of 1 to 3 finite simplex points and finite points."""
    step = _check.instance(step, "step", GjkStep, "a GjkStep (from the trace of gjk)")
    simplex = _arguments.rows(step.simplex, "step.simplex", (-1, 2))
    if not 1 <= len(simplex) <= 3:
        raise ValueError(f"step.simplex must hold 1 to 3 points, got {len(simplex)}")
    closest = _check.vector(step.closest, "step.closest")
    support = None if step.support is None else _check.vector(step.support, "step.support")
    return GjkStep(simplex, closest, support)


def _epa_step(step) -> EpaStep:
    """``step`` checked: an EpaStep whose edge is one of its polytope's, finite points."""
    step = _check.instance(step, "step", EpaStep, "an EpaStep (from the trace of epa)")
    polytope = _arguments.rows(step.polytope, "step.polytope", (-1, 2))
    if len(polytope) < 3:
        raise ValueError(f"step.polytope must hold at least 3 points, got {len(polytope)}")
    edge = _check.integer(step.edge, "step.edge", 0, len(polytope) - 1)
    return EpaStep(polytope, edge, _check.vector(step.support, "step.support"))
