"""The joint diagram (chapter 11, ``pb.viz.draw_joint_diagram``): the vectors it draws are
checked against the joints' own readouts (anchors, length, translation, mouse point), which
the joint classes compute from the bodies' poses independently of the drawing code."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import physbook as pb  # noqa: E402


@pytest.fixture
def axes():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def two_bodies():
    world = pb.World(gravity=(0, 0))
    a = world.add_body(pb.Polygon.box(0.6, 0.3), position=(0.2, -0.1), angle=0.25)
    b = world.add_body(pb.Polygon.box(0.4, 0.25), position=(1.3, 0.5), angle=-0.3)
    return world, a, b


def diagram(ax, world, row=0):
    return pb.viz.draw_joint_diagram(ax, world.joint_arrays, world.bodies.centers,
                                     world.bodies.angles, row)


def test_prismatic_diagram_draws_the_axis_fixed_in_a_and_the_slide(axes):
    # Slide B by s = 0.6 m along the axis: the drawn gap d then lies along u, so n·d = 0
    # and u·d = s is the joint's own translation. Turning A by 0.25 rad then turns u with
    # it: u = R(0.25)·axis, and u·d is still the joint's translation.
    world, a, b = two_bodies()
    axis = np.array([0.6, 0.8])
    slide = world.add_joint(pb.PrismaticJoint(a, b, (0.5, 0.1), axis))
    b.position = b.position + 0.6 * axis
    drawn = diagram(axes, world)
    assert drawn["u"] == pytest.approx(axis, abs=1e-12)
    assert drawn["n"] @ drawn["u"] == pytest.approx(0.0, abs=1e-15)
    assert drawn["u"] @ drawn["d"] == pytest.approx(0.6, abs=1e-12)
    assert drawn["n"] @ drawn["d"] == pytest.approx(0.0, abs=1e-12)
    assert drawn["c_A"] + drawn["r_A"] == pytest.approx(drawn["p_A"], abs=1e-12)
    assert "u·d free" in axes.get_title()
    a.angle = a.angle + 0.25
    drawn = diagram(axes, world)
    turned = np.array([math.cos(0.25) * axis[0] - math.sin(0.25) * axis[1],
                       math.sin(0.25) * axis[0] + math.cos(0.25) * axis[1]])
    assert drawn["u"] == pytest.approx(turned, abs=1e-12)
    assert drawn["u"] @ drawn["d"] == pytest.approx(slide.translation, abs=1e-12)


def test_distance_diagram_draws_the_rod_between_the_joint_anchors(axes):
    world, a, b = two_bodies()
    rod = world.add_joint(pb.DistanceJoint(a, b, (0.4, 0.0), (1.1, 0.6)))
    drawn = diagram(axes, world)
    anchor_a, anchor_b = rod.anchors
    assert drawn["p_A"] == pytest.approx(anchor_a, abs=1e-12)
    assert drawn["c_B"] + drawn["r_B"] == pytest.approx(anchor_b, abs=1e-12)
    assert np.hypot(*drawn["d"]) == pytest.approx(rod.current_length, abs=1e-12)
    assert "u" not in drawn


def test_revolute_diagram_arms_meet_at_the_pin(axes):
    world, a, b = two_bodies()
    hinge = world.add_joint(pb.RevoluteJoint(a, b, (0.7, 0.35)))
    drawn = diagram(axes, world)
    assert drawn["c_A"] + drawn["r_A"] == pytest.approx(hinge.anchor, abs=1e-12)
    assert drawn["c_B"] + drawn["r_B"] == pytest.approx(hinge.anchor, abs=1e-12)
    assert np.hypot(*drawn["d"]) < 1e-12


def test_mouse_diagram_runs_from_the_target_to_the_pulled_point(axes):
    world, _, b = two_bodies()
    mouse = world.add_joint(pb.MouseJoint(b, (1.4, 0.55), max_force=10.0))
    mouse.target = (2.2, 1.2)
    drawn = diagram(axes, world)
    assert drawn["p_A"] == pytest.approx((2.2, 1.2), abs=1e-12)
    assert drawn["p_B"] == pytest.approx(mouse.point, abs=1e-12)
    assert "c_A" not in drawn and "r_A" not in drawn


def test_bad_rows_and_lengths_are_refused(axes):
    world, a, b = two_bodies()
    world.add_joint(pb.WeldJoint(a, b, (0.7, 0.35)))
    with pytest.raises(ValueError, match="row"):
        diagram(axes, world, row=1)
    with pytest.raises((ValueError, TypeError), match="row"):
        diagram(axes, world, row=-1)
    with pytest.raises(ValueError, match="axis_length"):
        pb.viz.draw_joint_diagram(axes, world.joint_arrays, world.bodies.centers,
                                  world.bodies.angles, 0,
                                  axis_length=0.0)
    with pytest.raises(TypeError, match="joints"):
        pb.viz.draw_joint_diagram(axes, "table", world.bodies.centers, world.bodies.angles, 0)
