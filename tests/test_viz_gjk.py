"""physbook.viz.collision's GJK drawing: the view always holds the origin, labels sit beside
their points, stages can be hidden, and the fixed legend lies outside the axes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook.collision.gjk import GjkStep
from physbook.viz.collision import draw_gjk_step, gjk_legend, limits_with_origin

coordinates = st.floats(-1e3, 1e3, allow_nan=False)


@settings(max_examples=60)
@given(st.lists(st.tuples(coordinates, coordinates), min_size=1, max_size=8),
       st.floats(0.0, 5.0))
def test_limits_hold_the_points_and_the_origin(points, margin):
    points = np.array(points)
    x_min, x_max, y_min, y_max = limits_with_origin(points, margin)
    for x, y in np.vstack([points, [[0.0, 0.0]]]):
        # Every point, the origin included, is at least `margin` inside the limits.
        assert x_min + margin <= x + 1e-9 and x <= x_max - margin + 1e-9
        assert y_min + margin <= y + 1e-9 and y <= y_max - margin + 1e-9
    # Tight: the limits are the brute-force extremes plus the margin, nothing more.
    every = np.vstack([points, [[0.0, 0.0]]])
    assert x_min == pytest.approx(every[:, 0].min() - margin)
    assert y_max == pytest.approx(every[:, 1].max() + margin)


def test_limits_of_far_points_still_reach_the_origin():
    assert limits_with_origin([[5.0, 6.0], [7.0, 9.0]], 0.5) == (-0.5, 7.5, -0.5, 9.5)


@pytest.mark.parametrize(("arguments", "message"), [
    (([[1.0, np.nan]],), "points"),
    (([[1.0, 2.0]], -0.1), "margin"),
])
def test_limits_reject_bad_input(arguments, message):
    with pytest.raises(ValueError, match=message):
        limits_with_origin(*arguments)


def _step(points=3, support=True) -> GjkStep:
    triangle = np.array([[1.0, 0.5], [2.0, 1.5], [1.0, 2.0]])[:points]
    closest = triangle[0]  # any point will do for drawing
    return GjkStep(triangle, closest, np.array([0.2, 0.1]) if support else None)


def _texts(ax) -> list[str]:
    return [child.get_text() for child in ax.texts]


def test_labels_name_each_simplex_point_beside_it():
    fig, ax = plt.subplots()
    try:
        step = _step()
        draw_gjk_step(ax, step, labels=True)
        assert _texts(ax) == ["w₁", "w₂", "w₃", "v", "w"]
        for text, point in zip(ax.texts[:3], step.simplex, strict=True):
            assert np.allclose(text.xy, point)                     # anchored at its point
            middle = step.simplex.mean(axis=0)
            # ...and pushed away from the simplex's middle, so it does not cover the edges.
            assert np.dot(np.array(text.get_position()), point - middle) > 0
    finally:
        plt.close(fig)


def test_stages_can_be_hidden():
    fig, ax = plt.subplots()
    try:
        draw_gjk_step(ax, _step(), show_closest=False, show_support=False, labels=True)
        assert _texts(ax) == ["w₁", "w₂", "w₃"]
        assert [line.get_label() for line in ax.lines] == ["simplex (3 points)"]
    finally:
        plt.close(fig)


def test_last_step_has_no_support_to_draw():
    fig, ax = plt.subplots()
    try:
        draw_gjk_step(ax, _step(points=1, support=False), labels=True)
        assert _texts(ax) == ["w₁", "v"]
        assert "w = s(−v)" not in [line.get_label() for line in ax.lines]
    finally:
        plt.close(fig)


def test_flags_must_be_booleans():
    fig, ax = plt.subplots()
    try:
        with pytest.raises(TypeError, match="labels"):
            draw_gjk_step(ax, _step(), labels="yes")
    finally:
        plt.close(fig)


def test_legend_is_outside_the_axes_and_lists_every_element():
    pentagon, hexagon = pb.Polygon.regular(5, 1.0), pb.Polygon.regular(6, 0.6)
    run = pb.distance(pentagon, pb.Transform(), hexagon, pb.Transform((0.0, -2.5)), trace=True)
    fig, ax = plt.subplots()
    try:
        pb.viz.draw_minkowski(ax, pentagon, pb.Transform(), hexagon, pb.Transform((0.0, -2.5)))
        draw_gjk_step(ax, run.trace[0], labels=True)
        legend = gjk_legend(ax)
        assert [text.get_text().split("\n")[0] for text in legend.get_texts()] == [
            "A ⊖ B", "origin", "simplex", "v: simplex point", "w = s(−v): new"]
        fig.canvas.draw()
        box = legend.get_window_extent()
        assert box.x0 > ax.get_window_extent().x1                  # right of the axes
    finally:
        plt.close(fig)
