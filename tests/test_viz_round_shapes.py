"""Drawing capsules, rounded polygons, segments and chains (chapter 15).

The outline of a rounded shape is checked against its core with shapely: every drawn point
lies exactly r from the core, and the outline's area is the rounded shape's area (Steiner:
A + r·P + πr²) less the exact area the straight pieces of the arcs cut off. Segments and
chain segments are checked by where their lines and front ticks are drawn.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
import shapely
from matplotlib.collections import LineCollection, PatchCollection
from shapely.geometry import LineString
from shapely.geometry import Polygon as ShapelyPolygon

import physbook as pb
from physbook.viz.collision import ARC_STEP
from physbook.viz.world import FRONT_TICK, STATIC_COLOUR

DT = 1.0 / 60.0


@pytest.fixture
def ax():
    fig, axes = plt.subplots()
    yield axes
    plt.close(fig)


def arc_deficit(turns, radius) -> float:
    """The area the polygonal arcs leave out: an arc turning θ in m = ⌈θ/step⌉ equal chords
    misses r²/2·(θ − m·sin(θ/m))."""
    total = 0.0
    for turn in turns:
        pieces = math.ceil(turn / ARC_STEP)
        total += 0.5 * radius**2 * (turn - pieces * math.sin(turn / pieces))
    return total


def exterior_angles(points) -> list[float]:
    edges = np.roll(points, -1, axis=0) - points
    headings = np.arctan2(edges[:, 1], edges[:, 0])
    return [float((headings[k] - headings[k - 1]) % (2 * np.pi)) for k in range(len(points))]


@pytest.mark.parametrize("shape", [
    pb.Capsule((-0.4, 0.1), (0.5, -0.2), 0.15),
    pb.Polygon.box(0.5, 0.25, radius=0.1),
    pb.Polygon.regular(7, 0.6).rounded(0.03),
    pb.Polygon([(0.0, 0.0), (1.0, 0.0), (0.2, 0.4)], radius=0.3),
], ids=["capsule", "rounded box", "rounded heptagon", "rounded triangle"])
def test_a_round_outline_lies_r_from_the_core_and_holds_its_area(shape):
    points, radius = shape.core()
    outline = pb.viz.outline(shape)
    core = LineString(points) if len(points) == 2 else ShapelyPolygon(points)
    gaps = shapely.distance(core, shapely.points(outline))
    np.testing.assert_allclose(gaps, radius, rtol=0, atol=1e-12)
    drawn = ShapelyPolygon(outline)
    assert drawn.is_valid and drawn.exterior.is_ccw
    turns = [np.pi, np.pi] if len(points) == 2 else exterior_angles(points)
    length = 2 * np.hypot(*(points[1] - points[0])) if len(points) == 2 else core.length
    steiner = core.area + radius * length + np.pi * radius**2
    assert drawn.area == pytest.approx(steiner - arc_deficit(turns, radius), rel=1e-12)
    # The drawing helpers trace the same outline, placed by a pose.
    pose = pb.Transform((1.0, -2.0), 0.6)
    np.testing.assert_allclose(pb.viz.outline(shape, pose), pose.to_world(outline),
                               atol=1e-12)


def test_draw_world_fills_round_shapes_and_draws_segments_and_chain_fronts(ax):
    world = pb.World()
    chain = pb.Chain([(3.0, 1.0), (2.0, 0.0), (0.0, 0.0), (-1.0, 0.2), (-3.0, 1.0)])
    world.add_body(chain, kind="static")
    world.add_body(pb.Segment((-3.0, 2.0), (3.0, 2.5)), kind="static")
    capsule = world.add_body(pb.Capsule((-0.3, 0.0), (0.3, 0.0), 0.2), position=(0.5, 0.6),
                             angle=0.3)
    rounded = world.add_body(pb.Polygon.box(0.2, 0.1, radius=0.05), position=(-1.0, 1.0))
    pb.viz.draw_world(ax, world)
    (patches,) = [c for c in ax.collections if isinstance(c, PatchCollection)]
    strokes, marks = [c for c in ax.collections if isinstance(c, LineCollection)]
    # Two filled shapes: the capsule's and the rounded box's outlines, posed.
    paths = patches.get_paths()
    assert len(paths) == 2
    for path, body in zip(paths, (capsule, rounded), strict=True):
        expected = pb.viz.outline(body.shapes[0], body.transform)
        np.testing.assert_allclose(path.vertices[:len(expected)], expected, atol=1e-12)
    # The chain's two segments and the segment, in the static bodies' colour.
    lines = strokes.get_segments()
    assert len(lines) == len(chain.segments) + 1 == 3
    for line, segment in zip(lines, chain.segments, strict=False):
        np.testing.assert_allclose(line, [segment.point1, segment.point2])
    np.testing.assert_allclose(lines[2], [(-3.0, 2.0), (3.0, 2.5)])
    assert all(np.allclose(colour, plt.matplotlib.colors.to_rgba(STATIC_COLOUR))
               for colour in strokes.get_colors())
    # Marks: a tick on each chain segment's front (its right side), then the capsule core.
    ticks = marks.get_segments()
    assert len(ticks) == len(chain.segments) + 1
    for tick, segment in zip(ticks, chain.segments, strict=False):
        edge = segment.point2 - segment.point1
        front = np.array([edge[1], -edge[0]]) / np.hypot(*edge)
        np.testing.assert_allclose(tick[0], (segment.point1 + segment.point2) / 2)
        length = min(FRONT_TICK, 0.2 * np.hypot(*edge))
        np.testing.assert_allclose(tick[1] - tick[0], length * front, atol=1e-15)
    np.testing.assert_allclose(ticks[-1], capsule.transform.to_world(
        [capsule.shapes[0].center1, capsule.shapes[0].center2]))


def test_draw_shape_draws_a_chain_segment_by_segment(ax):
    chain = pb.Chain([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)], loop=True)
    drawn = pb.viz.draw_shape(ax, chain, color="C2")
    assert len(drawn) == 4 and all(len(pair) == 2 for pair in drawn)
    for (line, tick), segment in zip(drawn, chain.segments, strict=True):
        np.testing.assert_allclose(np.column_stack(line.get_data()),
                                   [segment.point1, segment.point2])
        # A counter-clockwise loop's fronts face out of the square.
        end = np.column_stack(tick.get_data())[1]
        assert not ShapelyPolygon(chain.points).covers(shapely.Point(end))
    segment = pb.viz.draw_shape(ax, pb.Segment((0, 0), (1, 1)))
    np.testing.assert_allclose(np.column_stack(segment.get_data()), [(0, 0), (1, 1)])
    patch, core = pb.viz.draw_shape(ax, pb.Capsule((0, 0), (1, 0), 0.5))
    np.testing.assert_allclose(np.column_stack(core.get_data()), [(0, 0), (1, 0)])


def test_recording_limits_hold_turning_round_shapes_in_every_frame():
    world = pb.World(gravity=(0.0, -10.0))
    world.add_body(pb.Segment((-5.0, -5.0), (5.0, -5.0)), kind="static")
    world.add_body([pb.Capsule((0.2, 0.0), (1.2, 0.3), 0.25),
                    pb.Polygon.box(0.3, 0.1, center=(-0.5, 0.2), radius=0.2)],
                   position=(-2.0, 3.0), velocity=(2.0, 4.0), angular_velocity=3.0)
    recording = world.run(60, DT)
    xmin, xmax, ymin, ymax = pb.viz.recording_limits(recording, margin=0.0)
    for k in range(len(recording)):
        for i, shapes in enumerate(recording.shapes):
            transform = pb.Transform(recording.origins[k, i], recording.angles[k, i])
            for shape in shapes:
                points, radius = shape.core()
                world_points = transform.to_world(np.asarray(points).reshape(-1, 2))
                assert xmin <= world_points[:, 0].min() - radius + 1e-12
                assert world_points[:, 0].max() + radius <= xmax + 1e-12
                assert ymin <= world_points[:, 1].min() - radius + 1e-12
                assert world_points[:, 1].max() + radius <= ymax + 1e-12
    # Tight: a turning body is bounded by the circle about its centre of mass through its
    # farthest point, a core point's distance plus r, so the top of the limits touches it.
    body = world.bodies[1]
    reach = max(float(np.max(np.hypot(*(np.asarray(shape.core()[0]) - body.local_center).T)))
                + shape.core()[1] for shape in body.shapes)
    assert ymax == pytest.approx(float(recording.centers[:, 1, 1].max()) + reach, abs=1e-12)


def test_a_pair_of_round_shapes_and_their_manifold_are_drawn(ax):
    chain_segment = pb.Chain([(2.0, 0.5), (1.0, 0.0), (-1.0, 0.0), (-2.0, 0.5)]).segments[0]
    capsule, pose = pb.Capsule((-0.5, 0.0), (0.5, 0.0), 0.25), pb.Transform((0.2, 0.24), 0.1)
    manifold = pb.collide(chain_segment, pb.Transform(), capsule, pose)
    assert manifold is not None  # the low end of the tilted capsule sinks 6 cm in
    pb.viz.draw_pair(ax, chain_segment, pb.Transform(), capsule, pose, manifold)
    patches = ax.patches
    # The segment's "outline" is its two ends; the capsule's its rounded outline.
    np.testing.assert_allclose(patches[0].get_xy()[:2], [(1.0, 0.0), (-1.0, 0.0)])
    np.testing.assert_allclose(patches[1].get_xy()[:-1], pb.viz.outline(capsule, pose),
                               atol=1e-12)
    # Rounded shapes' Minkowski difference is traced by support points, on its outline:
    # every point lies r_A + r_B from the difference of the cores.
    rounded = pb.Polygon.box(0.3, 0.2, radius=0.1)
    difference = pb.viz.minkowski_difference(rounded, pb.Transform(), capsule, pose,
                                             samples=90)
    core_a = pb.Transform().to_world(rounded.core()[0])
    core_b = pose.to_world(capsule.core()[0])
    cores = shapely.MultiPoint((core_a[:, None, :] - core_b[None, :, :]).reshape(-1, 2))
    gaps = shapely.distance(cores.convex_hull.exterior, shapely.points(difference))
    np.testing.assert_allclose(gaps, 0.1 + 0.25, atol=1e-9)
