""":func:`draw_world`: a world's shapes, joints, contacts and boxes, as calls to a drawer."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from physbook import _check
from physbook.draw.protocol import DEFAULT_STYLES, Style
from physbook.kinds import CAPSULE, CIRCLE, DYNAMIC, KINEMATIC, MOUSE, POLYGON, STATIC
from physbook.world import World


def joint_anchors(joints, centers, angles) -> np.ndarray:
    """(J, 2, 2) the world anchors of every joint in ``joints`` (a world's
    ``joint_arrays``) on bodies at ``centers`` (N, 2) and ``angles`` (N,): row j holds A's
    anchor then B's (a mouse joint: its target, then the body's point)."""
    count = len(joints.kinds)
    pairs = np.empty((count, 2, 2))
    for side in range(2):
        rows = joints.bodies[:, side]
        cosine, sine = np.cos(angles[rows]), np.sin(angles[rows])
        local = joints.local_anchors[:, side]
        pairs[:, side, 0] = centers[rows, 0] + cosine * local[:, 0] - sine * local[:, 1]
        pairs[:, side, 1] = centers[rows, 1] + sine * local[:, 0] + cosine * local[:, 1]
    mouse = joints.kinds == MOUSE
    pairs[mouse, 0] = joints.local_anchors[mouse, 0]
    return pairs


def checked_poses(poses, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``poses`` = (origins, centers, angles) as float arrays of shapes (count, 2),
    (count, 2) and (count,), finite; a ValueError or TypeError names the part that is not."""
    if not isinstance(poses, (tuple, list)) or len(poses) != 3:
        raise TypeError(f"poses must be a tuple (origins, centers, angles), got "
                        f"{type(poses).__name__}")
    checked = []
    for part, name, shape in zip(poses, ("origins", "centers", "angles"),
                                 ((count, 2), (count, 2), (count,)), strict=True):
        array = _check.finite_array(part, f"poses' {name}")
        if array.shape != shape:
            raise ValueError(f"poses' {name} must have shape {shape}, one row per body of "
                             f"the world, got shape {array.shape}")
        checked.append(array)
    return checked[0], checked[1], checked[2]


def _body_roles(kinds: np.ndarray, awake: np.ndarray) -> np.ndarray:
    """Each body's role name: static, kinematic, dynamic, or sleeping (dynamic, asleep)."""
    roles = np.full(len(kinds), "dynamic", dtype=object)
    roles[(kinds == DYNAMIC) & ~awake] = "sleeping"
    roles[kinds == STATIC] = "static"
    roles[kinds == KINEMATIC] = "kinematic"
    return roles


def _styles(styles: Mapping[str, Style] | None) -> dict[str, Style]:
    chosen = dict(DEFAULT_STYLES)
    if styles is not None:
        if not isinstance(styles, Mapping):
            raise TypeError(f"styles must map role names to Style, got "
                            f"{type(styles).__name__}")
        for role, style in styles.items():
            if role not in DEFAULT_STYLES:
                raise ValueError(f"styles has an unknown role {role!r}; the roles are "
                                 f"{sorted(DEFAULT_STYLES)}")
            _check.instance(style, f"styles[{role!r}]", Style, "a Style")
            chosen[role] = style
    return chosen


def draw_world(world, drawer, *, shapes: bool = True, joints: bool = True,
               contacts: bool = False, aabbs: bool = False, sensors: bool = True,
               styles: Mapping[str, Style] | None = None, normal_length: float = 0.3,
               point_size: float = 4.0, poses=None) -> None:
    """Draw ``world`` through ``drawer`` (an object with the methods of
    :class:`~physbook.draw.protocol.DebugDraw`): one call per shape, joint, contact point
    and box, in world coordinates (m).

    Parameters
    ----------
    shapes
        Every body's shapes, styled by the body's role: ``"dynamic"``, ``"sleeping"``,
        ``"static"`` or ``"kinematic"``.
    joints
        A line between each joint's two anchors and a point at each (style ``"joint"``).
    contacts
        Each touching contact point (``"contact"``) and its normal, ``normal_length`` m
        long from A to B (``"normal"``), as the last step left them.
    aabbs
        Each shape's bounding box (``"aabb"``).
    sensors
        The sensor shapes, outline only (``"sensor"``).
    styles
        Styles to use instead of :data:`~physbook.draw.protocol.DEFAULT_STYLES`, by role.
    normal_length, point_size
        Length of a contact normal (m) and size of a drawn point (pixels).
    poses
        ``(origins, centers, angles)``: (N, 2) body origins (m), (N, 2) centres of mass (m)
        and (N,) angles (rad), one row per body of the world, to draw the shapes and joint
        anchors at instead of the world's own (a frame interpolated between two steps,
        :func:`~physbook.draw.poses.interpolate_poses`). None: the world's poses.
    """
    _check.instance(world, "world", World, "a physbook World")
    for method in ("circle", "polygon", "capsule", "segment", "point", "box"):
        if not callable(getattr(drawer, method, None)):
            raise TypeError(f"drawer must have the DebugDraw methods; a "
                            f"{type(drawer).__name__} has no {method}()")
    chosen = _styles(styles)
    shapes, joints, contacts, aabbs, sensors = (
        _check.flag(shapes, "shapes"), _check.flag(joints, "joints"),
        _check.flag(contacts, "contacts"), _check.flag(aabbs, "aabbs"),
        _check.flag(sensors, "sensors"))
    normal_length = _check.non_negative_scalar(normal_length, "normal_length")
    point_size = _check.non_negative_scalar(point_size, "point_size")
    bodies = world.bodies
    if poses is None:
        origins, angles, centers = bodies.origins, bodies.angles, bodies.centers
    else:
        origins, centers, angles = checked_poses(poses, len(bodies.kinds))
    table = world.shapes.arrays
    if (shapes or sensors or aabbs) and len(table.ids):
        _draw_shapes(world, drawer, chosen, shapes, sensors, aabbs, table, origins, angles)
    if joints and len(world.joint_arrays.kinds):
        style = chosen["joint"]
        for anchor_a, anchor_b in joint_anchors(world.joint_arrays, centers, angles):
            drawer.segment(anchor_a, anchor_b, style)
            drawer.point(anchor_a, point_size, style)
            drawer.point(anchor_b, point_size, style)
    if contacts:
        rows = world.contacts.arrays
        point_style, normal_style = chosen["contact"], chosen["normal"]
        for row in range(len(rows.point_counts)):
            normal = rows.normals[row]
            for k in range(int(rows.point_counts[row])):
                point = rows.points[row, k]
                drawer.point(point, point_size, point_style)
                drawer.segment(point, point + normal_length * normal, normal_style)


def _draw_shapes(world, drawer, chosen, shapes, sensors, aabbs, table, origins,
                 angles) -> None:
    """The shapes (and their boxes): every vertex moved to the world at once, then one
    call per shape."""
    body = table.body
    counts = table.vertex_count
    owner = np.repeat(body, counts)
    firsts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    # each shape's vertex rows in the pool, one after another
    rows = np.repeat(table.vertex_start - firsts, counts) + np.arange(int(counts.sum()))
    local = table.vertices[rows]
    cosine, sine = np.cos(angles[owner]), np.sin(angles[owner])
    points = np.column_stack([origins[owner, 0] + cosine * local[:, 0] - sine * local[:, 1],
                              origins[owner, 1] + sine * local[:, 0] + cosine * local[:, 1]])
    roles = _body_roles(world.bodies.kinds, world.bodies.awake)
    flags = world.shapes.filters.sensor
    for s in range(len(table.ids)):
        first, radius, kind = int(firsts[s]), float(table.radius[s]), int(table.kind[s])
        count = int(counts[s])
        if flags[s]:
            if not sensors:
                continue
            style = chosen["sensor"]
        elif shapes:
            style = chosen[roles[body[s]]]
        else:
            style = None
        core = points[first:first + count]
        if style is not None:
            if kind == CIRCLE:
                drawer.circle(core[0], radius, float(angles[body[s]]), style)
            elif kind == POLYGON:
                drawer.polygon(core, radius, style)
            elif kind == CAPSULE:
                drawer.capsule(core[0], core[1], radius, style)
            else:  # a segment, or a chain segment (its ghosts are not its own)
                drawer.segment(core[0], core[1], style)
        if aabbs:
            shown = core[:2] if kind not in (CIRCLE, POLYGON, CAPSULE) else core
            drawer.box(shown.min(axis=0) - radius, shown.max(axis=0) + radius,
                       chosen["aabb"])
