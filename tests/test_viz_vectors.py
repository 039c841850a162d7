"""physbook.viz.vectors: halfspace clipping against an exact oracle, and the drawing helpers
draw what they say without leaving figures open."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook.vecmath import vec


def shoelace_area(vertices: np.ndarray) -> float:
    x, y = vertices[:, 0], vertices[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def test_clip_square_in_half():
    square = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]])
    line = vec.Line((1.0, 0.0), 0.5)  # x = 0.5, front is x > 0.5
    back = pb.viz.clip_to_halfspace(square, line, keep="back")
    front = pb.viz.clip_to_halfspace(square, line, keep="front")
    assert shoelace_area(back) == pytest.approx(1.0)
    assert shoelace_area(front) == pytest.approx(3.0)
    assert np.all(back[:, 0] <= 0.5 + 1e-12) and np.all(front[:, 0] >= 0.5 - 1e-12)


@settings(max_examples=60)
@given(st.floats(-np.pi, np.pi), st.floats(-2.0, 2.0))
def test_clipped_areas_add_up_and_match_sampling(angle, offset):
    # A regular hexagon of radius 1, cut by a random line.
    hexagon = np.column_stack([np.cos(np.arange(6) * np.pi / 3), np.sin(np.arange(6) * np.pi / 3)])
    line = vec.Line((np.cos(angle), np.sin(angle)), offset)
    back = pb.viz.clip_to_halfspace(hexagon, line, "back")
    front = pb.viz.clip_to_halfspace(hexagon, line, "front")
    back_area = shoelace_area(back) if len(back) >= 3 else 0.0
    front_area = shoelace_area(front) if len(front) >= 3 else 0.0
    assert back_area + front_area == pytest.approx(shoelace_area(hexagon), abs=1e-9)
    # Monte Carlo oracle on a fixed grid: the share of hexagon cells behind the line.
    grid = np.stack(np.meshgrid(np.linspace(-1, 1, 201), np.linspace(-1, 1, 201)), -1)
    grid = grid.reshape(-1, 2)
    inside = np.all(
        [vec.Line.through(hexagon[i], hexagon[(i + 1) % 6]).signed_distance(grid) <= 0
         for i in range(6)], axis=0,
    )
    behind = line.signed_distance(grid) <= 0
    cell = (2 / 200) ** 2
    assert back_area == pytest.approx(np.sum(inside & behind) * cell, abs=0.05)


def test_clip_rejects_bad_side():
    with pytest.raises(ValueError, match="keep"):
        pb.viz.clip_to_halfspace(np.eye(2), vec.Line((1.0, 0.0), 0.0), keep="left")


def test_drawing_helpers_draw_and_keep_limits():
    fig, ax = plt.subplots()
    pb.viz.plane(ax, (-1, 5, -2, 4))
    assert ax.get_xlabel() == "x (m)" and ax.get_ylabel() == "y (m)"
    arrow = pb.viz.draw_vector(ax, (3.0, 1.0), (1.0, 1.0), label="a")
    start, end = arrow._posA_posB
    np.testing.assert_allclose([start, end], [[1.0, 1.0], [4.0, 2.0]])
    pb.viz.draw_line(ax, vec.Line.through((0, 0), (1, 1)), shade="back")
    assert ax.get_xlim() == (-1.0, 5.0) and ax.get_ylim() == (-2.0, 4.0)
    pb.viz.draw_frame(ax, pb.Transform((2.0, 1.0), 0.3), 0.5, label="body")
    pb.viz.draw_outline(ax, [[0, 0], [1, 0], [0, 1]])
    assert any(text.get_text() == "a" for text in ax.texts)
    plt.close(fig)
