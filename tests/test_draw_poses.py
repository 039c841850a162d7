"""Drawing a world at poses between two steps: draw_world's ``poses`` at alpha 0 and 1 draw
the previous and the current step bit for bit; at alpha 1/2 a body moving on a straight line
is drawn at the midpoint and an angle across ±π turns the short way."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_frame_encoding import Recorder, every_kind

import physbook as pb
from physbook.draw import draw_world
from physbook.draw.poses import Poses, body_poses, interpolate_poses


def drawn(world, poses=None, **flags):
    recorder = Recorder()
    draw_world(world, recorder, poses=poses, **flags)
    return recorder.calls


def same(calls_a, calls_b):
    assert [c[0] for c in calls_a] == [c[0] for c in calls_b]
    for a, b in zip(calls_a, calls_b, strict=True):
        for x, y in zip(a[1:], b[1:], strict=True):
            if isinstance(x, np.ndarray):
                np.testing.assert_array_equal(x, y)
            else:
                assert x == y


def test_alpha_0_and_1_draw_the_previous_and_the_current_step_bit_for_bit():
    world = every_kind()
    previous, previous_calls = body_poses(world), drawn(world, joints=True, aabbs=True)
    world.step(1 / 60)
    current, current_calls = body_poses(world), drawn(world, joints=True, aabbs=True)
    local = world.bodies.local_centers
    same(drawn(world, interpolate_poses(previous, current, 0.0, local), aabbs=True),
         previous_calls)
    same(drawn(world, interpolate_poses(previous, current, 1.0, local), aabbs=True),
         current_calls)
    # The world's own poses given as poses draw as no poses do.
    same(drawn(world, tuple(current), aabbs=True), current_calls)


def test_at_alpha_one_half_a_straight_mover_is_at_the_midpoint():
    world = pb.World(gravity=(0.0, 0.0))
    # Its centre of mass is off its origin, so the origin also follows the turn.
    world.add_body(pb.Polygon.box(0.5, 0.2, center=(0.3, 0.1)), position=(1.0, 2.0),
                   velocity=(3.0, -1.5), angular_velocity=0.6)
    previous = body_poses(world)
    world.step(0.1)
    current = body_poses(world)
    middle = interpolate_poses(previous, current, 0.5, world.bodies.local_centers)
    # analytic: no force, so the centre moves 0.1·v in the step, the angle 0.1·ω
    start = previous.centers[0]
    np.testing.assert_allclose(current.centers[0], start + 0.1 * np.array([3.0, -1.5]),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(middle.centers[0], start + 0.05 * np.array([3.0, -1.5]),
                               rtol=0, atol=1e-12)
    assert middle.angles[0] == pytest.approx(0.03, abs=1e-12)
    rotation = np.array([[math.cos(0.03), -math.sin(0.03)], [math.sin(0.03), math.cos(0.03)]])
    local = world.bodies.local_centers[0]
    np.testing.assert_allclose(middle.origins[0], middle.centers[0] - rotation @ local,
                               rtol=0, atol=1e-12)
    (points, _, _), = [call[1:] for call in drawn(world, middle) if call[0] == "polygon"]
    corners = middle.origins[0] + (rotation @ (np.array([[-0.2, -0.1], [0.8, -0.1],
                                                         [0.8, 0.3], [-0.2, 0.3]]).T)).T
    np.testing.assert_allclose(points, corners, rtol=0, atol=1e-12)


def test_an_angle_across_pi_turns_the_short_way():
    count = 3
    zeros = np.zeros((count, 2))
    before = Poses(zeros, zeros, np.array([math.pi - 0.1, -math.pi + 0.1, 0.2]))
    after = Poses(zeros, zeros, np.array([-math.pi + 0.1, math.pi - 0.1, 0.4]))
    middle = interpolate_poses(before, after, 0.5, zeros)
    # 0.2 rad apart across ±π: the midpoint is ±π, not 0.
    assert abs(abs(middle.angles[0]) - math.pi) < 1e-12
    assert abs(abs(middle.angles[1]) - math.pi) < 1e-12
    assert middle.angles[2] == pytest.approx(0.3, abs=1e-15)
    quarter = interpolate_poses(before, after, 0.25, zeros)
    assert quarter.angles[0] == pytest.approx(math.pi - 0.05, abs=1e-12)
    assert quarter.angles[1] == pytest.approx(-math.pi + 0.05, abs=1e-12)


def test_bad_poses_raise():
    world = every_kind()
    poses = body_poses(world)
    count = len(poses.angles)
    with pytest.raises(TypeError, match="poses"):
        drawn(world, poses.origins)
    with pytest.raises(ValueError, match="poses' centers must have shape"):
        drawn(world, (poses.origins, poses.centers[:-1], poses.angles))
    bad = poses.angles.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="poses' angles"):
        drawn(world, (poses.origins, poses.centers, bad))
    local = world.bodies.local_centers
    with pytest.raises(ValueError, match="alpha"):
        interpolate_poses(poses, poses, 1.5, local)
    with pytest.raises(ValueError, match="local_centers"):
        interpolate_poses(poses, poses, 0.5, np.zeros((count + 1, 2)))
    short = Poses(poses.origins[:-1], poses.centers[:-1], poses.angles[:-1])
    with pytest.raises(ValueError, match="previous"):
        interpolate_poses(short, poses, 0.5, local)
