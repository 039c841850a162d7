"""physbook.viz refuses bad arguments with an error that names them, before it draws.

Each drawing helper checks its axes, the engine objects it draws (worlds, recordings,
steps, contacts), its numbers, colours and labels; the results of the few helpers that
compute something are checked against independent oracles, including inputs where a
naive computation would overflow.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest
from viz_scenes import BOX, verlet_world, world

import physbook as pb
from physbook.vecmath.vec import Line
from physbook.viz import _arguments
from physbook.viz.verlet import _extent
from physbook.viz.world import BODY_COLOURS, KINEMATIC_COLOUR, STATIC_COLOUR

NEAR = pb.Transform((0.6, 0.3), 0.2)


@pytest.fixture
def ax():
    fig, axes = plt.subplots(figsize=(2.0, 2.0))
    yield axes
    plt.close(fig)


@pytest.fixture(autouse=True)
def no_figures_open():
    plt.close("all")  # so that a test can tell the figures it left open
    yield
    plt.close("all")


# --- the axes ------------------------------------------------------------------------------


DRAWERS_ON_AXES = [
    lambda ax: pb.viz.draw_world(ax, world()),
    lambda ax: pb.viz.draw_shape(ax, BOX),
    lambda ax: pb.viz.draw_bodies(ax, [(BOX,)], [0], [0], [[0.0, 0.0]], [0.0]),
    lambda ax: pb.viz.draw_snapshot(ax, world().run(1, 0.01).frame(0)),
    lambda ax: pb.viz.plane(ax),
    lambda ax: pb.viz.draw_vector(ax, (1.0, 0.0)),
    lambda ax: pb.viz.draw_frame(ax, pb.Transform()),
    lambda ax: pb.viz.draw_outline(ax, [[0, 0], [1, 0], [0, 1]]),
    lambda ax: pb.viz.draw_line(ax, Line((1.0, 0.0), 0.0)),
    lambda ax: pb.viz.pipeline_diagram(ax),
    lambda ax: pb.viz.draw_convex(ax, BOX),
    lambda ax: pb.viz.draw_pair(ax, BOX, pb.Transform(), BOX, NEAR),
    lambda ax: pb.viz.draw_manifold(ax, None),
    lambda ax: pb.viz.draw_minkowski(ax, BOX, pb.Transform(), BOX, NEAR),
    lambda ax: pb.viz.draw_sat_axis(ax, BOX, pb.Transform(), BOX, NEAR),
    lambda ax: pb.viz.draw_contacts(ax, world().contacts),
    lambda ax: pb.viz.plot_bounces(ax, [0.0], [1.0], [0.0], [1.0], [1.0], radius=0.5),
    lambda ax: pb.viz.plot_convergence(ax, [0.1, 0.05], {"rk4": [0.4, 0.1]}),
    lambda ax: pb.viz.draw_orbits(ax, {"rk4": np.zeros((2, 2))}),
    lambda ax: pb.viz.plot_frame_timeline(ax, [0.1], [1]),
    lambda ax: pb.viz.verlet_axes(ax, (0, 0, 1, 1)),
    lambda ax: pb.viz.draw_verlet(ax, verlet_world()),
]


@pytest.mark.parametrize("draw", DRAWERS_ON_AXES)
@pytest.mark.parametrize("bad", [None, "ax", plt])
def test_every_drawing_helper_wants_a_matplotlib_axes(draw, bad):
    if bad is None and draw is DRAWERS_ON_AXES[9]:
        return  # pipeline_diagram(None) makes its own figure
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        draw(bad)


@pytest.mark.parametrize("draw", DRAWERS_ON_AXES)
def test_every_drawing_helper_draws_on_a_real_axes(draw, ax):
    draw(ax)
    assert ax.get_children()


# --- engine objects ------------------------------------------------------------------------


@pytest.mark.parametrize("call, message", [
    (lambda ax: pb.viz.draw_world(ax, "world"), "world must be a physbook World"),
    (lambda ax: pb.viz.draw_snapshot(ax, "frame"), "frame must be a Frame"),
    (lambda ax: pb.viz.draw_frame(ax, "x"), "transform must be a Transform"),
    (lambda ax: pb.viz.draw_line(ax, "x"), "line must be a Line"),
    (lambda ax: pb.viz.draw_gjk_step(ax, "x"), "step must be a GjkStep"),
    (lambda ax: pb.viz.draw_epa_step(ax, "x"), "step must be an EpaStep"),
    (lambda ax: pb.viz.draw_contacts(ax, None), "contacts must be a ContactTable or"),
    (lambda ax: pb.viz.draw_verlet(ax, "x"), "frame must be a VerletSnapshot or"),
    (lambda ax: pb.viz.draw_contact(ax, "x", "y"), "world must be a VerletSnapshot or"),
    (lambda ax: pb.viz.draw_contact(ax, verlet_world(), "y"), "contact must be a Verlet"),
    (lambda ax: pb.viz.draw_shape(ax, "circle"),
     "shape must be a Circle, Polygon, Capsule, Segment, ChainSegment or Chain"),
    (lambda ax: pb.viz.draw_convex(ax, 5), "shape must be a convex shape"),
    (lambda ax: pb.viz.draw_pair(ax, BOX, "pose", BOX, NEAR), "xf_a must be a Transform"),
    (lambda ax: pb.viz.draw_pair(ax, BOX, NEAR, BOX, NEAR, manifold=3), "manifold must be"),
    (lambda ax: pb.viz.draw_bodies(ax, [(BOX, "circle")], [0], [0], [[0, 0]], [0]),
     r"shapes\[0\] must be a list of shapes, each a Circle, Polygon, Capsule, Segment or "
     "ChainSegment"),
    (lambda ax: pb.viz.clip_to_halfspace([[0, 0]], "line"), "line must be a Line"),
])
def test_engine_objects_are_checked_by_type(call, message, ax):
    with pytest.raises(TypeError, match=message):
        call(ax)


@pytest.mark.parametrize("call, message", [
    (pb.viz.contact_snapshot, "contacts must be a ContactTable"),
    (pb.viz.recording_limits, "recording must be a Recording"),
    (pb.viz.play, "recording must be a Recording"),
    (lambda bad: pb.viz.animate_verlet([bad]), r"frames\[0\] must be a VerletSnapshot"),
    (lambda bad: pb.viz.plot_clipping(pb.Circle(1.0), pb.Transform(), BOX, NEAR, None),
     "polygon_a must be a Polygon"),
    (lambda bad: pb.viz.outline(bad), "shape must be a convex shape"),
])
def test_figure_free_helpers_check_their_objects(call, message):
    with pytest.raises(TypeError, match=message):
        call(5)
    assert plt.get_fignums() == []


def test_a_gjk_or_epa_step_must_hold_a_drawable_simplex(ax):
    step = pb.penetration(BOX, pb.Transform(), BOX, NEAR, trace=True).trace[0]
    pb.viz.draw_epa_step(ax, step)
    with pytest.raises(ValueError, match="step.edge must be at most"):
        pb.viz.draw_epa_step(ax, step._replace(edge=len(step.polytope)))
    with pytest.raises(ValueError, match="step.polytope must be finite"):
        pb.viz.draw_epa_step(ax, step._replace(polytope=np.full((3, 2), np.nan)))
    gjk_step = pb.distance(BOX, pb.Transform(), BOX, pb.Transform((3.0, 0.0)),
                           trace=True).trace[0]
    with pytest.raises(ValueError, match="step.simplex must hold 1 to 3 points"):
        pb.viz.draw_gjk_step(ax, gjk_step._replace(simplex=np.zeros((4, 2))))


def test_a_manifold_without_points_is_refused(ax):
    empty = pb.Manifold(np.array([0.0, 1.0]), np.zeros((0, 2)), np.zeros(0),
                        np.zeros(0, np.int64))
    with pytest.raises(ValueError, match="manifold must have 1 or 2 points"):
        pb.viz.draw_manifold(ax, empty)


def test_a_verlet_contact_must_belong_to_the_world_drawn(ax):
    lone = pb.verlet.VerletContact(depth=0.1, normal=(0.0, 1.0), edge=99, vertex=0,
                                   edge_body=0, vertex_body=1)
    with pytest.raises(ValueError, match="contact must name an edge and a particle of world"):
        pb.viz.draw_contact(ax, verlet_world(), lone)


# --- contacts ------------------------------------------------------------------------------


def test_a_contact_snapshot_copies_and_checks_the_table():
    table = world().contacts
    snapshot = pb.viz.contact_snapshot(table)
    assert len(snapshot.point_counts) == table.count > 0
    np.testing.assert_array_equal(snapshot.points, table.points)
    assert snapshot.points is not table.points
    with pytest.raises(ValueError, match="points must be finite"):
        pb.viz.ContactSnapshot(*snapshot._replace(points=np.full_like(snapshot.points, np.nan)))
    with pytest.raises(ValueError, match="point_counts must hold whole numbers from 0 to 2"):
        pb.viz.ContactSnapshot(*snapshot._replace(point_counts=snapshot.point_counts + 5))
    with pytest.raises(ValueError, match="one row per entry of point_counts"):
        pb.viz.ContactSnapshot(*snapshot._replace(normals=np.zeros((7, 2))))


def test_draw_contacts_checks_a_snapshot_changed_by_replace(ax):
    # A chapter shifts a snapshot with _replace, which makes no new check: drawing does.
    snapshot = pb.viz.contact_snapshot(world().contacts)
    pb.viz.draw_contacts(ax, snapshot._replace(points=snapshot.points + [1.0, 0.0]))
    with pytest.raises(ValueError, match="contacts.points must be finite"):
        pb.viz.draw_contacts(ax, snapshot._replace(points=snapshot.points * np.nan))
    with pytest.raises(FloatingPointError, match="impulse_scale"):
        pb.viz.draw_contacts(ax, snapshot._replace(normal_impulses=snapshot.normal_impulses
                                                   + 1e300), impulses=True,
                             impulse_scale=1e10)


# --- animations ----------------------------------------------------------------------------


def blank(ax, frame):
    pass


@pytest.mark.parametrize("kwargs, error, message", [
    ({"frames": 5}, TypeError, "frames must be a sequence"),
    ({"frames": "ab"}, TypeError, "frames must be a sequence"),
    ({"draw": None}, TypeError, "draw must be callable"),
    ({"fps": "fast"}, TypeError, "fps must be a real number"),
    ({"fps": 1e-320}, ValueError, "fps must be between"),
    ({"fps": 1e6}, ValueError, "fps must be between"),
    ({"max_frames": 2.5}, TypeError, "max_frames must be an integer"),
    ({"max_frames": "10"}, TypeError, "max_frames must be an integer"),
    ({"max_frames": 10**400}, ValueError, "max_frames must be at most"),
    ({"figsize": (1e308, 1.0)}, ValueError, "figsize must be between"),
    ({"figsize": 5.0}, ValueError, "figsize must be"),
    ({"setup": 5}, TypeError, "setup must be callable"),
])
def test_animate_checks_every_argument_before_opening_a_figure(kwargs, error, message):
    arguments = {"frames": [1, 2], "draw": blank, **kwargs}
    with pytest.raises(error, match=message):
        pb.viz.animate(arguments.pop("frames"), arguments.pop("draw"), **arguments)
    assert plt.get_fignums() == []


def test_play_checks_its_view_and_flags():
    recording = world().run(2, 1 / 60)
    with pytest.raises(ValueError, match="limits must be four numbers"):
        pb.viz.play(recording, limits=(1, 2))
    with pytest.raises(ValueError, match="limits must have x_min < x_max"):
        pb.viz.play(recording, limits=(1, 0, 0, 1))
    with pytest.raises(TypeError, match="aabbs must be True or False"):
        pb.viz.play(recording, aabbs=1)
    html = pb.viz.play(recording, limits=(-2, 2, -1, 2), max_frames=2, figsize=(1.0, 1.0))
    assert "<script" in html.data
    assert plt.get_fignums() == []


def test_animate_verlet_checks_frames_bounds_and_drawing_options():
    frames = [verlet_world().snapshot()]
    with pytest.raises(TypeError, match="frames must be a sequence"):
        pb.viz.animate_verlet(frames[0])
    with pytest.raises(ValueError, match="frames must hold at least one frame"):
        pb.viz.animate_verlet([])
    with pytest.raises(TypeError, match=r"draw_options has unknown options \['colour'\]"):
        pb.viz.animate_verlet(frames, colour="C1")
    with pytest.raises(TypeError, match="particles must be True or False"):
        pb.viz.animate_verlet(frames, particles="no")
    with pytest.raises(ValueError, match="bounds must have x_min < x_max"):
        pb.viz.animate_verlet(frames, bounds=(1, 0, 0, 1))
    assert plt.get_fignums() == []


def test_the_default_verlet_view_always_has_a_width():
    world = pb.verlet.VerletWorld()
    world.add_particle((3.0, -2.0))
    x0, y0, x1, y1 = _extent([world.snapshot()])
    assert x0 < 3.0 < x1 and y0 < -2.0 < y1
    assert (x1 - x0, y1 - y0) == pytest.approx((2.0, 2.0))
    assert _extent([pb.verlet.VerletWorld().snapshot()]) == (-1.0, -1.0, 1.0, 1.0)
    row = pb.verlet.VerletWorld()
    for x in (0.0, 1e7):  # a row 10 000 km long and no height
        row.add_particle((x, 5.0))
    x0, y0, x1, y1 = _extent([row.snapshot()])
    assert (x0, x1) == (0.0, 1e7) and (y0, y1) == pytest.approx((5.0 - 5e3, 5.0 + 5e3))
    pb.viz.animate_verlet([row], max_frames=2, figsize=(1.0, 1.0))
    html = pb.viz.animate_verlet([world, world], max_frames=2, figsize=(1.0, 1.0))
    assert "<script" in html.data


# --- views ---------------------------------------------------------------------------------


def test_views_need_four_finite_numbers_in_order(ax):
    with pytest.raises(ValueError, match="limits must be four numbers"):
        pb.viz.plane(ax, (0, 1))
    with pytest.raises(ValueError, match="limits must have y_min < y_max"):
        pb.viz.plane(ax, (0, 1, 1, 1))
    with pytest.raises(ValueError, match="limits must lie within"):
        pb.viz.plane(ax, (-1e308, 1e308, -1e308, 1e308))  # matplotlib's ticks would overflow
    with pytest.raises(ValueError, match="limits must be at most 1e\\+06 times wider"):
        pb.viz.plane(ax, (0.0, 1.8e22, -1e6, 0.0))  # an axes box thinner than a pixel
    with pytest.raises(ValueError, match="limits is too narrow for its distance"):
        pb.viz.plane(ax, (1e10, 1e10 + 1e-5, 0.0, 1e-5))  # matplotlib would widen it
    with pytest.raises(ValueError, match="bounds widened by margin is too narrow"):
        pb.viz.verlet_axes(ax, (0.0, 0.0, 1e-300, 1e-300), margin=0.0)
    with pytest.raises(TypeError, match="bounds must be numeric"):
        pb.viz.verlet_axes(ax, None)
    with pytest.raises(ValueError, match="bounds widened by margin must lie within"):
        pb.viz.verlet_axes(ax, (-1, 0, 1, 1), margin=1e308)
    with pytest.raises(FloatingPointError, match="bounds widened by margin overflows"):
        pb.viz.verlet_axes(ax, (-1e300, -1e300, 1, 1), margin=np.finfo(float).max)
    pb.viz.plane(ax, (-1, 5, -2, 4))
    assert ax.get_xlim() == (-1.0, 5.0) and ax.get_ylim() == (-2.0, 4.0)


def test_recording_limits_hold_every_body_and_refuse_an_overflowing_margin():
    recording = world().run(3, 1 / 60)
    xmin, xmax, ymin, ymax = pb.viz.recording_limits(recording, margin=0.0)
    # The static floor, 6 m wide and 1 m high (half-extents 3 and 0.5), centred at
    # (0, -0.5), bounds the view below and on both sides.
    assert (xmin, xmax, ymin) == pytest.approx((-3.0, 3.0, -1.0))
    assert ymax > 0.9  # the box on it, 1 m high
    with pytest.raises(ValueError, match="margin must be non-negative"):
        pb.viz.recording_limits(recording, margin=-1.0)
    with pytest.raises(FloatingPointError, match="widened by margin"):
        pb.viz.recording_limits(recording, margin=1e308)


# --- colours, labels and numbers -----------------------------------------------------------


def test_body_color_checks_the_kind_and_the_id():
    assert pb.viz.body_color(pb.kinds.STATIC, 5) == STATIC_COLOUR
    assert pb.viz.body_color(pb.kinds.KINEMATIC, 5) == KINEMATIC_COLOUR
    assert [pb.viz.body_color(pb.kinds.DYNAMIC, i) for i in range(10)] == \
        [BODY_COLOURS[i % len(BODY_COLOURS)] for i in range(10)]
    with pytest.raises(TypeError, match="body_id must be an integer"):
        pb.viz.body_color(0, "a")
    with pytest.raises(TypeError, match="kind must be an integer"):
        pb.viz.body_color("x", 1)
    with pytest.raises(ValueError, match="kind must be at most 2"):
        pb.viz.body_color(7, 1)
    with pytest.raises(ValueError, match="body_id must be at least 0"):
        pb.viz.body_color(0, -1)


@pytest.mark.parametrize("call, error, message", [
    (lambda ax: pb.viz.draw_shape(ax, BOX, color="not a colour"), ValueError, "color must be"),
    (lambda ax: pb.viz.draw_shape(ax, BOX, edgecolor=(np.nan, 0, 0)), ValueError, "edgecolor"),
    (lambda ax: pb.viz.draw_shape(ax, BOX, alpha=2.0), ValueError, "alpha must be between"),
    (lambda ax: pb.viz.draw_outline(ax, [[0, 0]], fill_alpha=np.nan), ValueError,
     "fill_alpha must be finite"),
    (lambda ax: pb.viz.draw_outline(ax, np.zeros((0, 2))), ValueError,
     "vertices must hold at least one point"),
    (lambda ax: pb.viz.draw_vector(ax, (1, 0), label=5), TypeError, "label must be a string"),
    (lambda ax: pb.viz.draw_vector(ax, (1, 0), width=-1), ValueError, "width must be"),
    (lambda ax: pb.viz.draw_vector(ax, (1e308, 0), (1e308, 0)), FloatingPointError,
     "tail \\+ vector"),
    (lambda ax: pb.viz.draw_vector(ax, (1, 0), sparkle=True), TypeError, "style: .*sparkle"),
    (lambda ax: pb.viz.draw_vector(ax, (1, 0), linestyle="wavy"), ValueError, "style"),
    (lambda ax: pb.viz.draw_outline(ax, [[0, 0], [1, 1]], linewidth=10**400), ValueError,
     "style"),
    (lambda ax: pb.viz.draw_frame(ax, pb.Transform((1e308, 0.0)), 1e308), FloatingPointError,
     "size"),
    (lambda ax: pb.viz.draw_line(ax, Line((1, 0), 0), shade="up"), ValueError, "shade must"),
    (lambda ax: pb.viz.plane(ax, unit=3), TypeError, "unit must be a string"),
    (lambda ax: pb.viz.draw_pair(ax, BOX, NEAR, BOX, NEAR, title=1), TypeError, "title"),
    (lambda ax: pb.viz.draw_manifold(ax, None, arrow=np.inf), ValueError, "arrow"),
    (lambda ax: pb.viz.draw_verlet(ax, verlet_world(), line_width="thin"), TypeError,
     "line_width"),
    (lambda ax: pb.viz.draw_world(ax, world(), impulse_scale=-1), ValueError,
     "impulse_scale"),
    (lambda ax: pb.viz.draw_world(ax, world(), contacts=1), TypeError, "contacts must be True"),
])
def test_styles_and_numbers_are_checked(call, error, message, ax):
    with pytest.raises(error, match=message):
        call(ax)


@pytest.mark.parametrize("bad, message", [
    ({"kinds": [0, 0]}, r"kinds must have shape \(1,\), one row per body of shapes"),
    ({"kinds": [5]}, "kinds must hold whole numbers from 0 to 2"),
    ({"body_ids": [0.5]}, "body_ids must hold whole numbers"),
    ({"origins": [[0.0, np.nan]]}, "origins must be finite"),
    ({"angles": [[0.0]]}, r"angles must have shape \(1,\)"),
    ({"centers": np.zeros((2, 2))}, "centers must have shape"),
    ({"shapes": "box"}, "shapes must be a list or tuple"),
])
def test_draw_bodies_checks_that_its_arrays_agree(bad, message, ax):
    arguments = {"shapes": [(BOX,)], "kinds": [0], "body_ids": [0], "origins": [[0.0, 0.0]],
                 "angles": [0.0], **bad}
    with pytest.raises((TypeError, ValueError), match=message):
        pb.viz.draw_bodies(ax, **arguments)


def test_draw_bodies_refuses_shapes_placed_beyond_the_float_range(ax):
    with pytest.raises(FloatingPointError, match="origins: body 0"):
        pb.viz.draw_bodies(ax, [(pb.Circle(0.5, (1e308, 0.0)),)], [0], [0], [[1e308, 0.0]],
                           [0.0])


# --- computations --------------------------------------------------------------------------


def test_fitted_slope_recovers_a_power_law_and_refuses_a_degenerate_fit():
    dts = np.array([0.1, 0.05, 0.025])
    assert pb.viz.fitted_slope(dts, 3.0 * dts**2) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="dts must hold at least two different time steps"):
        pb.viz.fitted_slope([1, 1], [1, 2])
    with pytest.raises(ValueError, match="errors must have shape .*one row per entry of dts"):
        pb.viz.fitted_slope([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="errors must be positive"):
        pb.viz.fitted_slope([1, 2], [1, 0])


def test_plot_convergence_names_the_method_with_bad_errors(ax):
    with pytest.raises(ValueError, match=r"errors_by_method\['rk4'\] must be finite"):
        pb.viz.plot_convergence(ax, [0.1, 0.05], {"euler": [0.1, 0.05], "rk4": [np.nan, 1]})
    with pytest.raises(ValueError, match="errors_by_method must hold at least one method"):
        pb.viz.plot_convergence(ax, [0.1, 0.05], {})
    assert ax.get_lines() == []  # nothing drawn before the check failed


def test_draw_orbits_and_the_frame_timeline_check_their_series(ax):
    with pytest.raises(ValueError, match=r"trails\['rk4'\] must hold at least one point"):
        pb.viz.draw_orbits(ax, {"rk4": np.zeros((0, 2))})
    with pytest.raises(FloatingPointError, match="center ± extent"):
        pb.viz.draw_orbits(ax, {"rk4": np.zeros((1, 2))}, center=(1e308, 0), extent=1e308)
    with pytest.raises(ValueError, match="frame_times must be durations"):
        pb.viz.plot_frame_timeline(ax, [0.1, -0.1], [1, 1])
    with pytest.raises(ValueError, match="steps must have shape .*entry of frame_times"):
        pb.viz.plot_frame_timeline(ax, [0.1, 0.1], [1])
    with pytest.raises(ValueError, match="heights must have shape .*entry of times"):
        pb.viz.plot_bounces(ax, [0, 1], [1], [], [], [], radius=0.5)


def test_convex_hull_of_a_square_with_inner_points():
    corners = np.array([[0, 0], [2, 0], [2, 2], [0, 2]], float)
    inner = np.array([[1, 1], [0.5, 1.5], [1, 0], [2, 1]], float)  # two on edges
    hull = pb.viz.convex_hull(np.vstack([inner, corners, corners]))
    # Counter-clockwise from the lowest-leftmost corner: exactly the four corners.
    np.testing.assert_array_equal(hull, corners)


def test_convex_hull_is_unchanged_by_scale_even_near_the_float_limit():
    rng = np.random.default_rng(7)
    points = rng.uniform(-1.0, 1.0, (40, 2))
    hull = pb.viz.convex_hull(points)
    for scale in (2.0**1000, 2.0**-1060):  # huge, and into the subnormals
        np.testing.assert_array_equal(pb.viz.convex_hull(points * scale), hull * scale)


def test_convex_hull_refuses_a_nan_point():
    with pytest.raises(ValueError, match="points must be finite"):
        pb.viz.convex_hull([[np.nan, 0], [1, 1], [2, 0], [1, -1]])


def test_outline_traces_a_circle_with_the_samples_asked_for():
    circle = pb.Circle(0.5, (1.0, 0.0))
    points = pb.viz.outline(circle, pb.Transform((0.0, 2.0), 0.0), samples=12)
    assert points.shape == (12, 2)
    np.testing.assert_allclose(np.hypot(*(points - [1.0, 2.0]).T), 0.5)
    with pytest.raises(ValueError, match="samples must be at least 3"):
        pb.viz.outline(circle, samples=0)
    with pytest.raises(ValueError, match=f"samples must be at most {_arguments.MAX_SAMPLES}"):
        pb.viz.outline(circle, samples=2**40)
    with pytest.raises(TypeError, match="transform must be a Transform or None"):
        pb.viz.outline(circle, transform=(0, 0))


def test_minkowski_difference_refuses_poses_beyond_the_float_range():
    far = pb.Transform((1e308, 0.0))
    with pytest.raises(FloatingPointError, match="xf_a and xf_b"):
        pb.viz.minkowski_difference(BOX, far, BOX, pb.Transform((-1e308, 0.0)))


def test_figures_made_by_plot_helpers_check_first_and_close_on_failure():
    with pytest.raises(ValueError, match="figsize must be between"):
        pb.viz.plot_sat(BOX, pb.Transform(), BOX, NEAR, figsize=(0.0, 1.0))
    with pytest.raises(ValueError, match="limits must have x_min < x_max"):
        pb.viz.plot_clipping(BOX, pb.Transform(), BOX, NEAR, None, limits=(1, 0, 0, 1))
    assert plt.get_fignums() == []


# --- widgets and source --------------------------------------------------------------------


def widget(x=0.5, n=1):
    return x * n


@pytest.mark.parametrize("sliders, error, message", [
    ({"x": (5, 1)}, ValueError, "x is an empty range: min 5 is above max 1"),
    ({"x": (0.0, 1.0, 0.0)}, ValueError, "x must have a positive step"),
    ({"x": (0.0, np.nan)}, ValueError, "x must be finite"),
    ({"x": []}, ValueError, "x must offer at least one option"),
    ({"x": None}, TypeError, "x must be a .*range"),
    ({"x": ("a", "b")}, TypeError, "x must be a .*range"),
    ({"x": 1e308}, ValueError, "x is too large for a slider"),
    ({"y": (0, 1)}, TypeError, "y is not an argument of function"),
])
def test_check_widget_and_interact_refuse_sliders_that_make_no_control(sliders, error,
                                                                        message, monkeypatch):
    import ipywidgets

    monkeypatch.setattr(ipywidgets, "interact", lambda function, **widgets: None)
    with pytest.raises(error, match=message):
        pb.viz.check_widget(widget, **sliders)
    with pytest.raises(error, match=message):
        pb.viz.interact(widget, **sliders)


@pytest.mark.parametrize("function, error, message", [
    (5, TypeError, "function must be callable"),
    (int, TypeError, "function must be a Python function"),
])
def test_check_widget_and_interact_want_a_function(function, error, message):
    with pytest.raises(error, match=message):
        pb.viz.check_widget(function, x=(0, 1))
    with pytest.raises(error, match=message):
        pb.viz.interact(function, x=(0, 1))


def test_check_widget_samples_a_huge_integer_range_without_listing_it():
    calls = []
    pb.viz.check_widget(lambda n: calls.append(n), n=(0, 2 * 10**9, 2))
    assert calls == [0, 10**9, 2 * 10**9]
    calls.clear()
    pb.viz.check_widget(lambda x: calls.append(x), x=(-1e308, 1e308))
    assert calls == [-1e308, 0.0, 1e308]  # the middle of the ends, without overflow


def test_show_source_names_obj_when_there_is_no_source():
    with pytest.raises(TypeError, match="obj must be a function, class or method"):
        pb.viz.show_source(5)
    with pytest.raises(TypeError, match="obj must be a function, class or method"):
        pb.viz.show_source(math.sqrt)
