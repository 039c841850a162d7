"""Drawing judder (chapter 3): the markers sit where the two series say, and nowhere else."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import physbook as pb  # noqa: E402
from physbook.viz.timestepping import draw_judder_frame  # noqa: E402


def _markers(ax):
    """(x, y) of every single-point marker line on ``ax`` (balls and trail markers)."""
    return [tuple(line.get_xydata()[0]) for line in ax.lines if len(line.get_xydata()) == 1]


def _glide():
    # 3 m/s at 60 Hz physics on a 144 Hz display: the chapter's case, built by hand from
    # the exact rule "frame k shows state floor(5k/12)", independent of FixedTimestep.
    frames = np.arange(1, 49)
    index = (5 * frames) // 12
    latest = 0.05 * index
    display_time = frames / 144
    interpolated = 3.0 * (display_time - 1 / 60)      # exactly one step late
    return latest, interpolated


def test_frame_draws_ball_and_trail_at_the_given_positions():
    latest, interpolated = _glide()
    fig, ax = plt.subplots()
    draw_judder_frame(ax, latest, interpolated, 20, trail=4)
    markers = _markers(ax)
    plt.close(fig)
    expected = {(latest[k], 1.0) for k in range(16, 21)} | {(interpolated[k], 0.0)
                                                           for k in range(16, 21)}
    assert len(markers) == 10                          # a ball and 4 trail markers per lane
    assert {(round(x, 12), y) for x, y in markers} == {(round(x, 12), y) for x, y in expected}


def test_repeated_frames_overlap_in_the_latest_lane_only():
    latest, interpolated = _glide()
    fig, ax = plt.subplots()
    draw_judder_frame(ax, latest, interpolated, 12, trail=12)
    top = [x for x, y in _markers(ax) if y == 1.0]
    bottom = [x for x, y in _markers(ax) if y == 0.0]
    plt.close(fig)
    # 13 frames in 12 display periods: exactly 5 physics steps, so 6 distinct positions
    # shown (7 frames repeat one), while the interpolated ball is at 13 distinct places.
    assert len(set(np.round(top, 12))) == 6 and len(top) == 13
    assert len(set(np.round(bottom, 12))) == 13
    assert np.allclose(np.diff(sorted(bottom)), 3.0 / 144)


def test_lane_labels_state_the_move_since_the_last_frame():
    latest, interpolated = _glide()
    fig, ax = plt.subplots()
    draw_judder_frame(ax, latest, interpolated, 5, trail=0)
    labels = sorted(text.get_text() for text in ax.texts)
    plt.close(fig)
    move_top = 100 * (latest[5] - latest[4])
    assert labels == [f"interpolated: moved {100 * 3 / 144:+.2f} cm since the last frame",
                      f"latest state: moved {move_top:+.2f} cm since the last frame"]


def test_physics_ticks_and_view_cover_every_position():
    latest, interpolated = _glide()
    physics = 0.05 * np.arange(21)
    fig, ax = plt.subplots()
    draw_judder_frame(ax, latest, interpolated, 0, physics=physics)
    low, high = ax.get_xlim()
    ticks = [line for line in ax.lines if len(line.get_xydata()) == physics.size]
    plt.close(fig)
    assert len(ticks) == 2
    assert low < min(latest.min(), interpolated.min(), 0.0)
    assert high > max(latest.max(), interpolated.max(), physics.max())


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        (dict(latest=[0.0, 1.0], interpolated=[0.0, 1.0, 2.0]), ValueError, "one position"),
        (dict(latest=[0.0], interpolated=[0.0]), ValueError, "at least 2"),
        (dict(latest=[[0.0, 1.0]], interpolated=[[0.0, 1.0]]), ValueError, "one-dimensional"),
        (dict(latest=[0.0, np.nan], interpolated=[0.0, 1.0]), ValueError, "latest"),
        (dict(frame=2), ValueError, "frame"),
        (dict(frame=1.0), TypeError, "frame"),
        (dict(trail=-1), ValueError, "trail"),
        (dict(ax="axes"), TypeError, "ax"),
    ],
)
def test_bad_arguments_are_named(arguments, error, words):
    fig, ax = plt.subplots()
    call = dict(ax=ax, latest=[0.0, 1.0], interpolated=[0.0, 0.5], frame=1) | arguments
    with pytest.raises(error, match=words):
        draw_judder_frame(call.pop("ax"), call.pop("latest"), call.pop("interpolated"),
                          call.pop("frame"), **call)
    plt.close(fig)


def test_animation_keeps_one_frame_per_displayed_frame():
    latest, interpolated = _glide()
    player = pb.viz.animate_judder(latest[:6], interpolated[:6], fps=4)
    assert player.data.count("frames[5]") == 1 and "frames[6]" not in player.data
    with pytest.raises(ValueError, match="one position"):
        pb.viz.animate_judder(latest, interpolated[:-1])
