"""The debug-draw protocol: draw_world's calls against the world's own arrays (a recording
drawer), the pygame adapter's pixels at points known to lie inside each shape or outside
every shape, and the matplotlib adapter's artists against the shapes' geometry."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

import physbook as pb
from physbook.draw import DEFAULT_STYLES, DebugDraw, Style, draw_world, rounded_outline

BACKGROUND = (0, 0, 0)


class Recorder(DebugDraw):
    """Keeps every call, as (method, arguments, style name)."""

    def __init__(self):
        self.calls = []

    def circle(self, center, radius, angle, style):
        self.calls.append(("circle", (np.array(center), radius, angle), style.name))

    def polygon(self, points, radius, style):
        self.calls.append(("polygon", (np.array(points), radius), style.name))

    def capsule(self, center1, center2, radius, style):
        self.calls.append(("capsule", (np.array(center1), np.array(center2), radius),
                           style.name))

    def segment(self, point1, point2, style):
        self.calls.append(("segment", (np.array(point1), np.array(point2)), style.name))

    def point(self, point, size, style):
        self.calls.append(("point", (np.array(point), size), style.name))

    def box(self, lower, upper, style):
        self.calls.append(("box", (np.array(lower), np.array(upper)), style.name))

    def of(self, method, style=None):
        return [args for name, args, role in self.calls
                if name == method and (style is None or role == style)]


def scene() -> tuple[pb.World, dict]:
    """Still bodies (no gravity) of every kind and role, and a jointed pair."""
    world = pb.World(gravity=(0.0, 0.0))
    bodies = {
        "ground": world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -2.0),
                                 kind="static"),
        "ball": world.add_body(pb.Circle(1.0), position=(-3.0, 1.0), angle=0.5),
        "crate": world.add_body(pb.Polygon.box(0.8, 0.6, angle=0.3), position=(0.5, 1.0),
                                angle=0.2),
        "pill": world.add_body(pb.Capsule((-0.8, 0.0), (0.8, 0.0), 0.4),
                               position=(3.5, 2.5), kind="kinematic"),
        "sleeper": world.add_body(pb.Polygon.box(0.5, 0.5, radius=0.2), position=(3.5, 0.0)),
        "sensor": world.add_body(pb.Circle(0.7), position=(-3.0, -0.2), kind="static",
                                 sensor=True),
        "wire": world.add_body(pb.Segment((-1.0, 0.0), (1.0, 0.5)), position=(0.0, 3.5),
                               kind="static"),
    }
    bodies["sleeper"].awake = False
    world.add_joint(pb.RevoluteJoint(bodies["ball"], bodies["crate"], anchor=(-1.0, 1.0)))
    return world, bodies


def test_draw_world_calls_the_drawer_with_each_shape_in_the_world():
    world, bodies = scene()
    drawer = Recorder()
    draw_world(world, drawer, aabbs=True)
    (center, radius, angle), = [c for c in drawer.of("circle", "dynamic")]
    np.testing.assert_allclose(center, bodies["ball"].position)
    assert radius == 1.0 and angle == 0.5
    crate = bodies["crate"]
    (points, radius), = drawer.of("polygon", "dynamic")
    cosine, sine = math.cos(0.2), math.sin(0.2)
    local = pb.Polygon.box(0.8, 0.6, angle=0.3).vertices
    np.testing.assert_allclose(points, crate.position + local @ np.array([[cosine, sine],
                                                                          [-sine, cosine]]))
    (points, radius), = drawer.of("polygon", "sleeping")
    assert radius == 0.2
    (c1, c2, radius), = drawer.of("capsule", "kinematic")
    np.testing.assert_allclose([c1, c2], [(2.7, 2.5), (4.3, 2.5)])
    assert len(drawer.of("polygon", "static")) == 1
    (p1, p2), = drawer.of("segment", "static")
    np.testing.assert_allclose([p1, p2], [(-1.0, 3.5), (1.0, 4.0)])
    (center, radius, _), = drawer.of("circle", "sensor")
    np.testing.assert_allclose(center, (-3.0, -0.2))
    # the joint: a line between its anchors, which start at one point
    (a, b), = drawer.of("segment", "joint")
    np.testing.assert_allclose([a, b], [(-1.0, 1.0), (-1.0, 1.0)], atol=1e-12)
    # one box per shape, each holding the shape's points
    boxes = drawer.of("box", "aabb")
    assert len(boxes) == len(world.shapes.arrays.ids) == 7
    lower, upper = boxes[1]  # the ball
    np.testing.assert_allclose([lower, upper], [(-4.0, 0.0), (-2.0, 2.0)])
    drawer = Recorder()
    draw_world(world, drawer, shapes=False, joints=False, sensors=False)
    assert drawer.calls == []


def test_contacts_are_drawn_as_the_contact_table_holds_them():
    world = pb.World()
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    world.add_body(pb.Polygon.box(0.5, 0.5), position=(0.0, 0.5))
    world.add_body(pb.Circle(0.5), position=(2.0, 0.5))
    for _ in range(5):
        world.step(1 / 60)
    drawer = Recorder()
    draw_world(world, drawer, shapes=False, joints=False, contacts=True, normal_length=0.5)
    rows = world.contacts.arrays
    expected = [rows.points[r, k] for r in range(len(rows.point_counts))
                for k in range(rows.point_counts[r])]
    assert len(expected) == 3
    np.testing.assert_array_equal([p for p, _ in drawer.of("point", "contact")], expected)
    normals = [rows.normals[r] for r in range(len(rows.point_counts))
               for _ in range(rows.point_counts[r])]
    for (start, end), point, normal in zip(drawer.of("segment", "normal"), expected, normals,
                                           strict=True):
        np.testing.assert_array_equal(start, point)
        np.testing.assert_allclose(end, point + 0.5 * normal)


def test_a_rounded_outline_lies_at_the_radius_from_its_core():
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    outline = rounded_outline(square, 0.25, segments=64)
    # every outline point is exactly r from the core square (distance to a convex polygon)
    nearest = np.clip(outline, 0.0, 1.0)
    np.testing.assert_allclose(np.hypot(*(outline - nearest).T), 0.25)
    # and it goes all the way round: every direction has an outline point 0.25 beyond
    capsule = rounded_outline(np.array([[0.0, 0.0], [2.0, 0.0]]), 0.5, segments=64)
    assert capsule[:, 0].max() == pytest.approx(2.5) and capsule[:, 0].min() == \
        pytest.approx(-0.5)
    assert capsule[:, 1].max() == pytest.approx(0.5) and capsule[:, 1].min() == \
        pytest.approx(-0.5)


def test_bad_styles_and_flags_are_refused_by_name():
    world, _ = scene()
    with pytest.raises(ValueError, match="unknown role 'ghost'"):
        draw_world(world, Recorder(), styles={"ghost": DEFAULT_STYLES["static"]})
    with pytest.raises(TypeError, match="styles"):
        draw_world(world, Recorder(), styles={"static": (1, 2, 3)})
    with pytest.raises((TypeError, ValueError), match="contacts"):
        draw_world(world, Recorder(), contacts="yes")


@pytest.fixture
def pygame():
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    return pytest.importorskip("pygame")


def test_the_pygame_drawer_paints_each_shape_in_its_style(pygame):
    from physbook.draw.pygame_draw import PygameDraw

    world, bodies = scene()
    surface = pygame.Surface((420, 300))
    surface.fill(BACKGROUND)
    scale, offset = 30.0, np.array([-7.0, -3.0])
    drawer = PygameDraw(surface, pixels_per_metre=scale, offset=offset)
    draw_world(world, drawer)

    def colour_at(point):
        x, y = drawer.to_screen(point)
        # the pixel whose square holds the point: away from the edges, it is inside
        return tuple(surface.get_at((int(math.floor(x)), int(math.floor(y)))))[:3]

    assert drawer.to_screen(offset) == (0.0, 300.0)  # the lower-left corner, y up
    fills = {name: style.fill for name, style in DEFAULT_STYLES.items()}
    # inside each shape, half way from its centre to its edge (and off the ball's radius
    # line, which points at 0.5 rad)
    assert colour_at((-3.4, 0.8)) == fills["dynamic"]  # the ball, below its radius line
    assert colour_at(bodies["crate"].position + (0.1, -0.3)) == fills["dynamic"]
    assert colour_at((0.0, -2.0)) == fills["static"]
    assert colour_at((3.5, 2.5)) == fills["kinematic"]
    assert colour_at((4.2, 2.6)) == fills["kinematic"]  # in the capsule's round end
    assert colour_at((3.5, 0.0)) == fills["sleeping"]
    assert colour_at((3.5, 0.6)) == fills["sleeping"]  # in the rounded box's radius
    # the sensor is an outline: its inside shows what is behind it
    assert colour_at((-3.0, -0.5)) == BACKGROUND  # below the ball, inside the sensor
    assert colour_at((-2.65, -0.2)) == DEFAULT_STYLES["sensor"].line  # its radius line
    # outside every shape: the background
    for point in [(-6.0, 2.5), (0.0, 2.2), (5.5, 1.2), (3.5, 1.2), (-5.0, -0.5)]:
        assert colour_at(point) == BACKGROUND, point


def test_the_pygame_drawer_draws_joint_lines_and_boxes(pygame):
    from physbook.draw.pygame_draw import PygameDraw

    world = pb.World(gravity=(0.0, 0.0))
    a = world.add_body(pb.Circle(0.3), position=(1.0, 1.0))
    b = world.add_body(pb.Circle(0.3), position=(5.0, 1.0))
    world.add_joint(pb.DistanceJoint(a, b, (1.0, 1.0), (5.0, 1.0)))
    surface = pygame.Surface((200, 100))
    surface.fill(BACKGROUND)
    drawer = PygameDraw(surface, pixels_per_metre=30.0, line_width=3)
    draw_world(world, drawer, aabbs=True)
    line = DEFAULT_STYLES["joint"].line
    x, y = drawer.to_screen((3.0, 1.0))  # half way along the joint's line
    assert tuple(surface.get_at((int(x), int(y))))[:3] == line
    x, y = drawer.to_screen((1.0, 1.3))  # the top of the first ball's box
    assert tuple(surface.get_at((int(x), int(y))))[:3] == DEFAULT_STYLES["aabb"].line
    with pytest.raises(TypeError, match="surface"):
        PygameDraw("screen")
    with pytest.raises(ValueError, match="pixels_per_metre"):
        PygameDraw(surface, pixels_per_metre=0.0)


def test_the_matplotlib_drawer_makes_artists_of_the_shapes_geometry():
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Polygon, Rectangle

    world, bodies = scene()
    figure, ax = plt.subplots()
    try:
        drawer = pb.viz.draw_debug(ax, world, aabbs=True)
        circles = [a for a in drawer.artists if isinstance(a, Circle)]
        assert [(tuple(c.center), c.radius) for c in circles] == [
            ((-3.0, 1.0), 1.0), ((-3.0, -0.2), 0.7)]
        ball, sensor = circles
        assert ball.get_facecolor()[:3] == pytest.approx(
            [c / 255 for c in DEFAULT_STYLES["dynamic"].fill])
        assert sensor.get_facecolor()[3] == 0.0  # the sensor is an outline
        polygons = [a for a in drawer.artists if isinstance(a, Polygon)]
        recorder = Recorder()
        draw_world(world, recorder)
        cores = [(args[0], args[1]) if name == "polygon" else (np.array(args[:2]), args[2])
                 for name, args, _ in recorder.calls if name in ("polygon", "capsule")]
        # each polygon patch is the outline of a core drawn, grown by its radius, in order
        assert len(polygons) == len(cores) == 4
        for patch, (core, radius) in zip(polygons, cores, strict=True):
            xy = patch.get_xy()[:-1]  # matplotlib closes the path with the first point
            np.testing.assert_allclose(xy, rounded_outline(core, radius))
        boxes = [a for a in drawer.artists if isinstance(a, Rectangle)]
        assert len(boxes) == 7
        assert (boxes[1].get_x(), boxes[1].get_y(), boxes[1].get_width(),
                boxes[1].get_height()) == pytest.approx((-4.0, 0.0, 2.0, 2.0))
        assert ax.get_aspect() == 1.0
    finally:
        plt.close(figure)


def test_a_style_is_a_plain_value():
    style = Style("dynamic", (1, 2, 3), (4, 5, 6))
    assert style.fill == (1, 2, 3) and style._replace(fill=None).fill is None
