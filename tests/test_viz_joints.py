"""Drawing joints (chapter 11, ``pb.viz.draw_joints`` and ``pb.viz.joint_anchor_pairs``):
what is drawn is where the bodies carry their anchors, checked against anchors computed
another way — the exact free flight of the bodies, the joint's own readouts, or a fixed pin.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import physbook as pb  # noqa: E402

DT = 1.0 / 60.0


def rotated(vector, angle: float) -> np.ndarray:
    cosine, sine = math.cos(angle), math.sin(angle)
    return np.array([cosine * vector[0] - sine * vector[1], sine * vector[0] + cosine * vector[1]])


@pytest.fixture
def axes():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def test_slack_rope_is_drawn_between_anchors_carried_by_free_flight(axes):
    # Without gravity and with the rope far from taut, both bodies fly freely: symplectic
    # Euler then moves them exactly as c(t) = c0 + v t, θ(t) = θ0 + ω t, so each anchor is
    # p(t) = c(t) + R(ω t)(p0 − c0), computed from the starting state alone.
    world = pb.World(gravity=(0, 0))
    a = world.add_body(pb.Polygon.box(0.5, 0.3), position=(0.0, 0.0), angle=0.4,
                       velocity=(0.3, -0.2), angular_velocity=0.7)
    b = world.add_body(pb.Polygon.box(0.2, 0.4), position=(2.0, 1.0), angle=-0.3,
                       velocity=(-0.1, 0.25), angular_velocity=-1.1)
    start = {body: (body.center_of_mass.copy(), body.velocity.copy(), body.angular_velocity)
             for body in (a, b)}
    anchors = {a: np.array([0.3, 0.2]), b: np.array([1.8, 1.3])}
    rope = world.add_joint(pb.DistanceJoint(a, b, anchors[a], anchors[b], max_length=10.0))
    steps = 30
    recording = world.run(steps, DT)
    seconds = steps * DT
    expected = []
    for body in (a, b):
        center, velocity, omega = start[body]
        expected.append(center + velocity * seconds
                        + rotated(anchors[body] - center, omega * seconds))
    frame = recording.frame(steps)
    pb.viz.draw_joints(axes, world.joint_arrays, frame.centers, frame.angles)
    assert len(axes.lines) == 1
    # Rounding of 30 additions and of sin/cos: 1e-12 m is ~1e4 ulps of positions of order 1 m.
    np.testing.assert_allclose(axes.lines[0].get_xydata(), expected, atol=1e-12)
    assert rope.reaction_force @ rope.reaction_force == 0.0   # the rope never pulled


def test_rod_drawn_from_a_recorded_frame_matches_the_joint_readout(axes):
    # The recording's last frame and the world now hold the same poses, so the line drawn
    # from the frame joins the anchors the joint itself reports (DistanceJoint.anchors).
    scene = pb.scenes.pendulum(angle=0.6)
    rod = scene.params["rod"]
    recording = scene.world.run(45, scene.dt)
    frame = recording.frame(len(recording) - 1)
    pb.viz.draw_joints(axes, scene.world.joint_arrays, frame.centers, frame.angles)
    drawn = axes.lines[0].get_xydata()
    np.testing.assert_allclose(drawn, np.array(rod.anchors), atol=1e-12)
    assert math.dist(*drawn) == pytest.approx(rod.current_length, abs=1e-12)


def test_hinge_is_drawn_as_a_pin_where_the_hinge_holds(axes):
    # A bar hangs on a static pin at (0, 5): the pin drawn is B's copy of the anchor, which
    # the joint keeps on the static pin within its measured gap (pb.scenes.pin_gap).
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
    bar = world.add_body(pb.Polygon.box(1.0, 0.1), position=(1.0, 5.0))
    hinge = world.add_joint(pb.RevoluteJoint(pin, bar, (0, 5)))
    for _ in range(40):
        world.step(DT)
    assert abs(bar.angle) > 0.5   # the bar has swung, so its anchor has moved with it
    pb.viz.draw_joints(axes, world.joint_arrays, world.bodies.centers, world.bodies.angles)
    (line,) = axes.lines
    assert line.get_marker() == "o"
    drawn = line.get_xydata()[0]
    assert np.linalg.norm(drawn - [0.0, 5.0]) <= pb.scenes.pin_gap(hinge) + 1e-12
    np.testing.assert_array_equal(hinge.anchor, [0.0, 5.0])   # A is static: its copy is fixed


def test_every_joint_gets_one_pair_and_a_world_without_joints_none(axes):
    scene = pb.scenes.bridge(planks=6, boxes=1)
    joints = scene.world.joint_arrays
    pairs = pb.viz.joint_anchor_pairs(joints, scene.world.bodies.centers, scene.world.bodies.angles)
    assert pairs.shape == (len(scene.world.joints), 2, 2) == (7, 2, 2)
    # Hinges are made with both copies on the same world point.
    np.testing.assert_allclose(pairs[:, 0], pairs[:, 1], atol=1e-12)
    empty = pb.World()
    empty.add_body(pb.Circle(0.5))
    none = pb.viz.joint_anchor_pairs(empty.joint_arrays, empty.bodies.centers, empty.bodies.angles)
    assert none.shape == (0, 2, 2)
    pb.viz.draw_joints(axes, empty.joint_arrays, empty.bodies.centers, empty.bodies.angles)
    assert len(axes.lines) == 0
