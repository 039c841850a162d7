"""One frame as one float32 buffer: decoding what FrameEncoder wrote gives back, call by
call, what draw_world asked a recording drawer to draw (each number rounded to float32),
for every shape kind, sensors, joints, contacts and boxes, and a game's own drawing."""

from __future__ import annotations

import numpy as np
import pytest
from tiny_game import MARKER, TinyGame

import physbook as pb
from physbook.draw import DEFAULT_STYLES, DebugDraw, Style, draw_world
from physbook.viz.frame_encoding import CODES, FrameEncoder, decode_frame, encode_game


class Recorder(DebugDraw):
    """Every call as the decoder gives it: (method, arguments..., style)."""

    def __init__(self):
        self.calls = []

    def circle(self, center, radius, angle, style):
        self.calls.append(("circle", np.array(center), radius, angle, style))

    def polygon(self, points, radius, style):
        self.calls.append(("polygon", np.array(points), radius, style))

    def capsule(self, center1, center2, radius, style):
        self.calls.append(("capsule", np.array(center1), np.array(center2), radius, style))

    def segment(self, point1, point2, style):
        self.calls.append(("segment", np.array(point1), np.array(point2), style))

    def point(self, point, size, style):
        self.calls.append(("point", np.array(point), size, style))

    def box(self, lower, upper, style):
        self.calls.append(("box", np.array(lower), np.array(upper), style))


def every_kind() -> pb.World:
    """Bodies of every shape kind and role, a sensor, two joints, touching contacts."""
    world = pb.World()
    world.add_body(pb.Chain([(6.0, 0.0), (4.0, -1.0), (0.0, -1.0), (-4.0, -1.0),
                             (-6.0, 0.0)]), kind="static")
    world.add_body(pb.Circle(0.5), position=(-3.0, -0.53), angle=2.5)
    crate = world.add_body(pb.Polygon.box(0.6, 0.4, angle=0.3), position=(0.3, 1.0),
                           angle=-0.4)
    world.add_body(pb.Polygon.box(0.5, 0.5, radius=0.2), position=(3.0, -0.2))
    pill = world.add_body(pb.Capsule((-0.6, 0.0), (0.6, 0.0), 0.25), position=(1.5, 3.0),
                          kind="kinematic", angular_velocity=1.0)
    world.add_body(pb.Segment((-1.0, 0.0), (1.0, 0.4)), position=(-2.0, 4.0), kind="static")
    world.add_body(pb.Circle(0.7), position=(-4.0, 2.0), kind="static", sensor=True)
    world.add_joint(pb.RevoluteJoint(crate, pill, anchor=(1.0, 2.0)))
    world.add_joint(pb.DistanceJoint(crate, world.bodies[1], crate.position, (-3.0, -0.53)))
    for _ in range(3):
        world.step(1 / 60)
    return world


def assert_same_calls(decoded, recorded):
    """Each decoded call is the recorded one with its numbers rounded to float32."""
    assert [call[0] for call in decoded] == [call[0] for call in recorded]
    for got, want in zip(decoded, recorded, strict=True):
        assert got[-1] == want[-1]  # the style, with its colours
        for value, expected in zip(got[1:-1], want[1:-1], strict=True):
            expected = np.asarray(expected, dtype=np.float64).astype(np.float32)
            np.testing.assert_array_equal(np.asarray(value), expected.astype(np.float64))


@pytest.mark.parametrize("flags", [{}, {"contacts": True, "aabbs": True}])
def test_a_decoded_frame_is_what_draw_world_drew(flags):
    world = every_kind()
    recorder, encoder = Recorder(), FrameEncoder()
    draw_world(world, recorder, **flags)
    draw_world(world, encoder, **flags)
    decoded = decode_frame(encoder.finish(), encoder.palette)
    assert_same_calls(decoded, recorder.calls)
    kinds = {call[0] for call in recorder.calls}
    assert {"circle", "polygon", "capsule", "segment", "point"} <= kinds
    roles = {call[-1].name for call in recorder.calls}
    assert {"static", "dynamic", "kinematic", "sensor", "joint"} <= roles
    if flags:
        assert {"contact", "normal", "aabb"} <= roles and "box" in kinds
    # Chain segments and a rounded box are among them, with their radius.
    assert any(call[0] == "polygon" and call[2] == pytest.approx(0.2, abs=1e-7)
               for call in decoded)


def test_the_buffer_layout_is_the_documented_one():
    encoder = FrameEncoder()
    style = Style("probe", (1, 2, 3), (4, 5, 6))
    encoder.circle(np.array([1.0, 2.0]), 0.5, 0.25, style)
    encoder.polygon(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), 0.125, style)
    encoder.point(np.array([3.0, 4.0]), 6.0, DEFAULT_STYLES["joint"])
    frame = encoder.finish()
    assert frame.dtype == np.float32
    np.testing.assert_array_equal(frame, [
        CODES["circle"], 0, 1, 2, 0.5, 0.25,
        CODES["polygon"], 0, 0.125, 3, 0, 0, 1, 0, 0, 1,
        CODES["point"], 1, 3, 4, 6])
    assert encoder.palette == [style, DEFAULT_STYLES["joint"]]
    assert encoder.new_styles() == [(0, style), (1, DEFAULT_STYLES["joint"])]
    assert encoder.new_styles() == []  # sent once
    assert len(encoder.finish()) == 0  # finish starts the next frame
    encoder.resend_palette()
    assert [index for index, _ in encoder.new_styles()] == [0, 1]


def test_an_equal_style_made_again_keeps_its_index():
    encoder = FrameEncoder()
    first = encoder.style_index(Style("a", None, (1, 1, 1)))
    assert encoder.style_index(Style("b", None, (1, 1, 1))) == first + 1
    assert encoder.style_index(Style("a", None, (1, 1, 1))) == first
    assert len(encoder.palette) == 2


def test_a_game_frame_is_its_world_then_its_own_drawing():
    game = TinyGame()
    game.pressed = (1.0, 2.0)
    recorder, encoder = Recorder(), FrameEncoder()
    draw_world(game.world, recorder)
    game.draw(recorder)
    decoded = decode_frame(encode_game(game, encoder), encoder.palette)
    assert_same_calls(decoded, recorder.calls)
    assert decoded[-1][0] == "point" and decoded[-1][-1] == MARKER


def test_bad_drawing_and_bad_buffers_raise():
    encoder = FrameEncoder()
    with pytest.raises(TypeError, match="style"):
        encoder.circle((0.0, 0.0), 1.0, 0.0, "red")
    with pytest.raises(ValueError, match="points"):
        encoder.polygon(np.zeros((0, 2)), 0.0, DEFAULT_STYLES["dynamic"])
    encoder.circle((0.0, float("nan")), 1.0, 0.0, DEFAULT_STYLES["dynamic"])
    with pytest.raises(ValueError, match="not finite"):
        encoder.finish()
    encoder.segment((0.0, 0.0), (1e39, 0.0), DEFAULT_STYLES["dynamic"])  # beyond float32
    with pytest.raises(ValueError, match="float32"):
        encoder.finish()
    encoder.circle((0.0, 0.0), 1.0, 0.0, DEFAULT_STYLES["dynamic"])
    frame = encoder.finish()
    assert len(frame) == 6  # the failed frames were dropped
    with pytest.raises(TypeError, match="float32"):
        decode_frame(frame.astype(np.float64), encoder.palette)
    with pytest.raises(ValueError, match="ends inside a circle"):
        decode_frame(frame[:-1], encoder.palette)
    with pytest.raises(ValueError, match="palette"):
        decode_frame(frame, [])
    with pytest.raises(ValueError, match="unknown primitive code"):
        decode_frame(np.array([9, 0, 0, 0], dtype=np.float32), encoder.palette)
    with pytest.raises(TypeError, match="palette"):
        decode_frame(frame, ["red"])
