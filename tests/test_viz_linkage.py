"""Drawing joints (chapter 11): the anchors the drawing uses are where the bodies carry them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import physbook as pb  # noqa: E402


def test_anchor_pairs_follow_the_bodies_through_a_recording():
    scene = pb.scenes.pendulum(angle=0.6)
    recording = scene.world.run(30, scene.dt)
    joints = scene.world.joint_arrays
    frame = recording.frame(30)
    pin, ball_point = pb.viz.joint_anchor_pairs(joints, frame.centers, frame.angles)[0]
    # The rod joins the pin (fixed at (0, 10)) and the ball's centre, where it was made.
    np.testing.assert_allclose(pin, [0.0, 10.0], atol=1e-12)
    np.testing.assert_allclose(ball_point, frame.centers[scene.bodies["ball"].row],
                               atol=1e-12)


def test_mouse_joint_is_drawn_from_its_target():
    world = pb.World(gravity=(0, 0))
    box = world.add_body(pb.Polygon.box(0.5, 0.5), position=(1.0, 2.0), angle=0.3)
    mouse = world.add_joint(pb.MouseJoint(box, (1.2, 2.1), max_force=10.0))
    mouse.target = (4.0, 5.0)
    target, point = pb.viz.joint_anchor_pairs(world.joint_arrays, world.bodies.centers,
                                              world.bodies.angles)[0]
    np.testing.assert_allclose(target, [4.0, 5.0])
    np.testing.assert_allclose(point, mouse.point, atol=1e-12)
    fig, ax = plt.subplots()
    pb.viz.draw_joints(ax, world.joint_arrays, world.bodies.centers, world.bodies.angles)
    line = ax.lines[0].get_xydata()
    np.testing.assert_allclose(line, [[4.0, 5.0], point], atol=1e-12)
    plt.close(fig)


def test_bad_drawing_arguments_are_named():
    scene = pb.scenes.pendulum()
    joints = scene.world.joint_arrays
    with pytest.raises(TypeError, match="joints"):
        pb.viz.joint_anchor_pairs("rods", scene.world.bodies.centers, scene.world.bodies.angles)
    with pytest.raises(ValueError, match="centers"):
        pb.viz.joint_anchor_pairs(joints, np.zeros((1, 2)), np.zeros(1))
    with pytest.raises(ValueError, match="angles"):
        pb.viz.joint_anchor_pairs(joints, scene.world.bodies.centers, np.zeros(5))
