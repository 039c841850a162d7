"""Drawing shapes, bodies and worlds (chapter 4), and playing a recorded run.

Polygons are filled; circles are filled too and carry a radius line, so that their
rotation shows. A shape with a radius (a capsule, a rounded polygon) is filled to its
outline, the core's edges pushed out by r and joined by arcs; a capsule also shows its core
segment, as a circle its radius line. Segments are thick lines in the body's colour; a chain
segment also carries a short tick on its front side, the side it collides on. A small cross
marks each centre of mass. Colours follow the body id, so a body keeps its colour when
others are removed; static bodies are grey and kinematic bodies green.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.patches import Circle as CirclePatch
from matplotlib.patches import Polygon as PolygonPatch
from matplotlib.patches import Rectangle

from physbook import _check
from physbook.geometry.round_shapes import Capsule, Chain, ChainSegment, Segment
from physbook.geometry.shapes import Circle, Polygon
from physbook.kinds import BODY_KINDS, KINEMATIC, STATIC
from physbook.recording import Frame, Recording
from physbook.vecmath.vec import Transform
from physbook.viz import _arguments
from physbook.viz.collision import outline
from physbook.viz.impulses import draw_contacts
from physbook.viz.player import FRAME_BUDGET, animate
from physbook.viz.vectors import plane
from physbook.world import World

#: Face colours of dynamic bodies, cycled by body id (grey and green are kept for the
#: static and kinematic kinds).
BODY_COLOURS = ("#4c72b0", "#dd8452", "#c44e52", "#8172b3", "#937860", "#da8bc3",
                "#ccb974", "#64b5cd")
STATIC_COLOUR = "#9a9a9a"
KINEMATIC_COLOUR = "#55a868"

#: The shape classes a body can hold.
SHAPE_CLASSES = (Circle, Polygon, Capsule, Segment, ChainSegment)
_SHAPE_NAMES = "a Circle, Polygon, Capsule, Segment or ChainSegment"
#: The longest front tick of a chain segment (m); a short segment's is a fifth of it.
FRONT_TICK = 0.1


def body_color(kind: int, body_id: int) -> str:
    """The face colour of a body of ``kind`` (a code of :data:`physbook.kinds.BODY_KINDS`)
    and ``body_id`` (a body's id, 0 or more)."""
    kind = _check.integer(kind, "kind", 0, len(BODY_KINDS) - 1)
    body_id = _check.non_negative_int(body_id, "body_id")
    return _face_colour(kind, body_id)


def _face_colour(kind: int, body_id: int) -> str:
    if kind == STATIC:
        return STATIC_COLOUR
    if kind == KINEMATIC:
        return KINEMATIC_COLOUR
    return BODY_COLOURS[body_id % len(BODY_COLOURS)]


def _shape_artists(shape, transform: Transform):
    """What draws ``shape`` at ``transform``: a matplotlib patch (None for a segment), thin
    black marks (a circle's radius line, a capsule's core, a chain segment's front tick) and
    strokes drawn in the body's colour (a segment itself), each a (k, 2) array of points."""
    if isinstance(shape, Circle):
        center = transform.to_world(shape.center)
        # The radius line points along the body's x axis, so it turns with the body.
        rim = center + transform.rotate_to_world(np.array([shape.radius, 0.0]))
        return CirclePatch(center, shape.radius), [np.array([center, rim])], []
    if isinstance(shape, Polygon) and shape.radius == 0.0:
        return PolygonPatch(transform.to_world(shape.vertices), closed=True), [], []
    if isinstance(shape, (Polygon, Capsule)):
        patch = PolygonPatch(outline(shape, transform), closed=True)
        marks = [transform.to_world(shape.core()[0])] if isinstance(shape, Capsule) else []
        return patch, marks, []
    if isinstance(shape, (Segment, ChainSegment)):
        ends = transform.to_world(np.array([shape.point1, shape.point2]))
        marks = []
        if isinstance(shape, ChainSegment):
            edge = ends[1] - ends[0]
            length = float(np.hypot(*edge))
            middle = 0.5 * (ends[0] + ends[1])
            # The front is the right side looking from point1 to point2: (dy, −dx)/L.
            tick = min(FRONT_TICK, 0.2 * length) * np.array([edge[1], -edge[0]]) / length
            marks.append(np.array([middle, middle + tick]))
        return None, marks, [ends]
    raise TypeError(f"shape must be {_SHAPE_NAMES}, got {type(shape).__name__}")


def draw_shape(ax: Axes, shape, transform: Transform | None = None, *, color: str = "C0",
               alpha: float = 0.6, edgecolor: str = "k", linewidth: float = 1.0):
    """Draw one shape, in body coordinates placed by ``transform`` (default: identity).

    Returns the patch that was added; with a circle also its radius line, with a capsule
    its core line (a tuple). A segment is a line of ``color`` (returned alone), a chain
    segment that line and its front tick (a tuple); a :class:`~physbook.Chain` draws each
    of its segments and returns their artists in a list.
    """
    ax = _arguments.axes(ax)
    shape = _check.instance(shape, "shape", (*SHAPE_CLASSES, Chain),
                            "a Circle, Polygon, Capsule, Segment, ChainSegment or Chain")
    transform = _arguments.transform(transform, "transform")
    color = _arguments.colour(color, "color")
    alpha = _arguments.fraction(alpha, "alpha")
    edgecolor = _arguments.colour(edgecolor, "edgecolor")
    linewidth = _check.non_negative_scalar(linewidth, "linewidth")
    if isinstance(shape, Chain):
        return [_draw_one(ax, segment, transform, color, alpha, edgecolor, linewidth)
                for segment in shape.segments]
    return _draw_one(ax, shape, transform, color, alpha, edgecolor, linewidth)


def _draw_one(ax: Axes, shape, transform: Transform, color: str, alpha: float,
              edgecolor: str, linewidth: float):
    patch, marks, strokes = _shape_artists(shape, transform)
    artists = []
    if patch is not None:
        patch.set(facecolor=color, alpha=alpha, edgecolor=edgecolor, linewidth=linewidth)
        ax.add_patch(patch)
        artists.append(patch)
    for stroke in strokes:
        (line,) = ax.plot(stroke[:, 0], stroke[:, 1], color=color,
                          linewidth=2.0 * max(linewidth, 0.5), solid_capstyle="round")
        artists.append(line)
    for mark in marks:
        (line,) = ax.plot(mark[:, 0], mark[:, 1], color=edgecolor, linewidth=linewidth)
        artists.append(line)
    return artists[0] if len(artists) == 1 else tuple(artists)


def draw_bodies(ax: Axes, shapes: Sequence[Sequence], kinds, body_ids, origins, angles,
                centers=None, *, aabbs: bool = False, alpha: float = 0.6) -> Axes:
    """Draw bodies given as arrays: the common core of :func:`draw_world` and friends.

    ``shapes[i]`` are body i's shapes in body coordinates, posed by ``origins[i]`` and
    ``angles[i]``; ``centers`` (N, 2), if given, are marked with a cross. With ``aabbs``
    each shape's world bounding box is drawn dashed. ``kinds`` are kind codes and
    ``body_ids`` the bodies' ids, which pick their colours (:func:`body_color`). Axes
    without labels get "x (m)" and "y (m)".
    """
    ax = _arguments.axes(ax)
    shapes = _body_shapes(shapes)
    count = len(shapes)
    per = "body of shapes"
    kinds = _arguments.whole_numbers(kinds, "kinds", (count,), 0, len(BODY_KINDS) - 1, per)
    body_ids = _arguments.whole_numbers(body_ids, "body_ids", (count,), 0, _check.MAX_COUNT,
                                        per)
    origins = _arguments.rows(origins, "origins", (count, 2), per)
    angles = _arguments.rows(angles, "angles", (count,), per)
    if centers is not None:
        centers = _arguments.rows(centers, "centers", (count, 2), per)
    aabbs = _check.flag(aabbs, "aabbs")
    alpha = _arguments.fraction(alpha, "alpha")
    patches, faces, radius_lines, boxes, strokes, stroke_colours = [], [], [], [], [], []
    for i, body_shapes in enumerate(shapes):
        transform = Transform(origins[i], float(angles[i]))
        try:
            with np.errstate(over="ignore", invalid="ignore"):  # reported just below
                body_patches, body_lines, body_boxes, body_strokes = _body_artists(
                    body_shapes, transform, aabbs)
        except FloatingPointError:
            raise FloatingPointError(f"origins: body {i} at {origins[i]} places its shapes "
                                     f"beyond the float range") from None
        face = _face_colour(int(kinds[i]), int(body_ids[i]))
        patches += body_patches
        faces += [face] * len(body_patches)
        radius_lines += body_lines
        boxes += body_boxes
        strokes += body_strokes
        stroke_colours += [face] * len(body_strokes)
    if patches:
        ax.add_collection(PatchCollection(patches, facecolors=faces, edgecolors="k",
                                          linewidths=0.8, alpha=alpha))
    if strokes:
        ax.add_collection(LineCollection(strokes, colors=stroke_colours, linewidths=2.0,
                                         capstyle="round"))
    if radius_lines:
        ax.add_collection(LineCollection(radius_lines, colors="k", linewidths=0.8))
    if boxes:
        ax.add_collection(PatchCollection(boxes, facecolors="none", edgecolors="C3",
                                          linestyles="--", linewidths=0.8))
    if centers is not None and len(centers):
        ax.plot(centers[:, 0], centers[:, 1], "k+", markersize=6, linestyle="none")
    ax.autoscale_view()
    _label_world_axes(ax)
    return ax


def _label_world_axes(ax: Axes) -> Axes:
    """Label the axes of a world view "x (m)" and "y (m)", keeping a label already set.

    Every world view is drawn in metres; a caller that shifts or scales its drawing (two
    runs side by side, a zoom in millimetres) sets its own labels first, before or after
    drawing the bodies, and they are kept.
    """
    ax = _arguments.axes(ax)
    if not ax.get_xlabel():
        ax.set_xlabel("x (m)")
    if not ax.get_ylabel():
        ax.set_ylabel("y (m)")
    return ax


def _body_artists(shapes, transform: Transform, aabbs: bool) -> tuple[list, list, list, list]:
    """One body's patches, thin marks (radius lines, capsule cores, front ticks), (with
    ``aabbs``) bounding boxes, and strokes (segments)."""
    patches, marks, boxes, strokes = [], [], [], []
    for shape in shapes:
        patch, shape_marks, shape_strokes = _shape_artists(shape, transform)
        if patch is not None:
            patches.append(patch)
        marks += shape_marks
        strokes += shape_strokes
        if aabbs:
            box = shape.aabb(transform)
            width, height = box.upper - box.lower
            boxes.append(Rectangle(box.lower, width, height))
    return patches, marks, boxes, strokes


def _body_shapes(shapes) -> Sequence[Sequence]:
    """``shapes``, checked: one list or tuple of shapes (:data:`SHAPE_CLASSES`) per body."""
    if not isinstance(shapes, (list, tuple)):
        raise TypeError(f"shapes must be a list or tuple with one list of shapes per body, "
                        f"got {type(shapes).__name__}")
    for i, body_shapes in enumerate(shapes):
        if not isinstance(body_shapes, (list, tuple)):
            raise TypeError(f"shapes[{i}] must be a list or tuple of shapes, got "
                            f"{type(body_shapes).__name__}")
        for shape in body_shapes:
            _check.instance(shape, f"shapes[{i}]", SHAPE_CLASSES,
                            f"a list of shapes, each {_SHAPE_NAMES}")
    return shapes


def draw_world(ax: Axes, world: World, aabbs: bool = False, *, centers: bool = True,
               alpha: float = 0.6, contacts: bool = False, impulses: bool = False,
               impulse_scale: float = 1.0) -> Axes:
    """Draw every body of ``world``: shapes, centres of mass and optionally AABBs.

    With ``contacts`` the points and normals of ``world.contacts`` (from the last step) are
    drawn too, and with ``impulses`` also the impulse each point gave (``impulse_scale``
    metres per N·s), see :func:`physbook.viz.impulses.draw_contacts`.
    """
    ax = _arguments.axes(ax)
    world = _check.instance(world, "world", World, "a physbook World")
    centers = _check.flag(centers, "centers")
    contacts = _check.flag(contacts, "contacts")
    impulses = _check.flag(impulses, "impulses")
    impulse_scale = _check.non_negative_scalar(impulse_scale, "impulse_scale")
    draw_bodies(ax, [body.shapes for body in world.bodies], world.bodies.kinds, world.bodies.ids,
                world.bodies.origins, world.bodies.angles,
                world.bodies.centers if centers else None,
                aabbs=aabbs, alpha=alpha)
    if contacts or impulses:
        draw_contacts(ax, world.contacts, impulses=impulses, impulse_scale=impulse_scale)
    return ax


def draw_snapshot(ax: Axes, frame: Frame, aabbs: bool = False, *, centers: bool = True,
                  alpha: float = 0.6) -> Axes:
    """Draw one :class:`~physbook.recording.Frame` of a recording, titled with its time."""
    ax = _arguments.axes(ax)
    frame = _check.instance(frame, "frame", Frame, "a Frame (from Recording.frame)")
    time = _check.finite_scalar(frame.time, "frame.time")
    centers = _check.flag(centers, "centers")
    draw_bodies(ax, frame.shapes, frame.kinds, frame.body_ids, frame.origins, frame.angles,
                frame.centers if centers else None, aabbs=aabbs, alpha=alpha)
    ax.set_title(f"t = {time:.2f} s")
    return ax


def _extent_about_center(shapes, transform: Transform, center: np.ndarray,
                         turns: bool) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper offsets from the centre of mass that hold the shapes (m).

    A body that turns during the run is bounded by a circle about its centre of mass
    through its farthest point; one that keeps its angle by its actual bounding boxes.
    """
    boxes = [shape.aabb(transform) for shape in shapes]
    low = np.min([box.lower for box in boxes], axis=0) - center
    high = np.max([box.upper for box in boxes], axis=0) - center
    if not turns:
        return low, high
    reach = 0.0
    for shape in shapes:
        # The farthest point of a core grown by r is a core point's distance plus r.
        points, radius = shape.core()
        gaps = transform.to_world(np.asarray(points, dtype=float).reshape(-1, 2)) - center
        reach = max(reach, float(np.max(np.hypot(gaps[:, 0], gaps[:, 1]))) + radius)
    return np.full(2, -reach), np.full(2, reach)


def recording_limits(recording: Recording, margin: float = 0.05) -> tuple[float, ...]:
    """``(xmin, xmax, ymin, ymax)`` that hold every body in every frame, plus a margin.

    ``margin`` is a share of the larger side of that rectangle, added on every side.
    """
    recording = _check.instance(recording, "recording", Recording, "a Recording")
    margin = _check.non_negative_scalar(margin, "margin")
    count = recording.centers.shape[1]
    if count == 0:
        return (-1.0, 1.0, -1.0, 1.0)
    low_offsets, high_offsets = np.empty((count, 2)), np.empty((count, 2))
    for i, shapes in enumerate(recording.shapes):
        angles = recording.angles[:, i]
        transform = Transform(recording.origins[0, i], float(angles[0]))
        low_offsets[i], high_offsets[i] = _extent_about_center(
            shapes, transform, recording.centers[0, i], bool(np.ptp(angles) > 0.0))
    low = np.min(recording.centers + low_offsets, axis=(0, 1))
    high = np.max(recording.centers + high_offsets, axis=(0, 1))
    pad = _arguments.finite(lambda: margin * max(float(np.max(high - low)), 1e-9),
                            "the view of the recording widened by margin")
    view = _arguments.finite(lambda: np.array([low[0] - pad, high[0] + pad, low[1] - pad,
                                               high[1] + pad]),
                             "the view of the recording widened by margin")
    return tuple(float(value) for value in view)


def play(recording: Recording, *, limits: Sequence[float] | None = None, aabbs: bool = False,
         fps: float = 30.0, max_frames: int = FRAME_BUDGET,
         figsize: tuple[float, float] = (5.0, 4.0)):
    """Animate a :class:`~physbook.recording.Recording` (from ``World.run``) as an HTML player.

    ``limits`` is ``(xmin, xmax, ymin, ymax)`` in metres; by default it holds every body
    in every frame. Long recordings are thinned to ``max_frames`` frames.
    """
    recording = _check.instance(recording, "recording", Recording, "a Recording")
    limits = recording_limits(recording) if limits is None else _arguments.limits(limits)
    aabbs = _check.flag(aabbs, "aabbs")

    def draw(ax: Axes, frame: Frame) -> None:
        draw_snapshot(ax, frame, aabbs=aabbs)
        plane(ax, limits)

    return animate(recording.frames, draw, fps=fps, max_frames=max_frames, figsize=figsize)
