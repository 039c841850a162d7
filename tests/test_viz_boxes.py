"""Drawing what a broad phase sees (chapter 12), and the box fields it is measured on."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import physbook as pb  # noqa: E402
from physbook.broadphase.pairs import ShapeBoxes  # noqa: E402


def test_box_outlines_are_the_four_corners_counter_clockwise():
    outline = pb.viz.box_outlines([[0.0, 1.0]], [[2.0, 4.0]])[0]
    np.testing.assert_array_equal(outline, [[0, 1], [2, 1], [2, 4], [0, 4]])
    # Counter-clockwise: the shoelace area is positive and equals width × height.
    x, y = outline.T
    assert 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) == 6.0


def test_pairs_join_box_centres_and_the_tree_draws_every_node():
    boxes = pb.scenes.box_field("uniform", 30, seed=1)
    pairs = pb.broadphase.naive_pairs(boxes, pb.scenes.free_filters(30))
    fig, ax = plt.subplots()
    pb.viz.draw_boxes(ax, *boxes)
    pb.viz.draw_pairs(ax, *boxes, pairs)
    segments = ax.collections[-1].get_segments()
    centres = (boxes.lower + boxes.upper) / 2
    np.testing.assert_allclose(np.array(segments), centres[pairs])
    tree = pb.DynamicTree()
    tree.update(boxes)
    fig, ax = plt.subplots()
    pb.viz.draw_tree(ax, tree)
    # 29 internal outlines, and the 30 leaves' fat boxes in one collection.
    assert len(ax.patches) == 29 and len(ax.collections[0].get_paths()) == 30
    plt.close("all")


def test_grid_lines_fall_on_cell_boundaries():
    fig, ax = plt.subplots()
    pb.viz.draw_grid(ax, (0.5, 0.0), 2.0, (0.0, 6.0, 0.0, 4.0))
    xs = sorted({segment[0][0] for segment in ax.collections[0].get_segments()
                 if segment[0][0] == segment[1][0]})
    np.testing.assert_allclose(xs, [-1.5, 0.5, 2.5, 4.5, 6.5])
    plt.close("all")


@pytest.mark.parametrize("call, message", [
    (lambda ax: pb.viz.draw_boxes(ax, [[1.0, 1.0]], [[0.0, 2.0]]), "lower must not exceed"),
    (lambda ax: pb.viz.draw_boxes(ax, [[0.0, 0.0]], [[1.0, 1.0]], color=["C0", "C1"]),
     "one per box"),
    (lambda ax: pb.viz.draw_pairs(ax, [[0.0, 0.0]], [[1.0, 1.0]], [[0, 1]]), "pairs must name"),
    (lambda ax: pb.viz.draw_grid(ax, (0, 0), 0.001, (0, 10, 0, 10)), "at most 400 cells"),
    (lambda ax: pb.viz.draw_tree(ax, "tree"), "tree must be a DynamicTree"),
])
def test_bad_drawing_input_is_refused_naming_it(call, message):
    fig, ax = plt.subplots()
    with pytest.raises((ValueError, TypeError), match=message):
        call(ax)
    plt.close("all")


@pytest.mark.parametrize("distribution", pb.scenes.DISTRIBUTIONS)
def test_box_fields_are_reproducible_and_shaped_as_described(distribution):
    boxes = pb.scenes.box_field(distribution, 2000, seed=3)
    again = pb.scenes.box_field(distribution, 2000, seed=3)
    np.testing.assert_array_equal(boxes.lower, again.lower)
    assert boxes.lower.shape == (2000, 2) and np.all(boxes.lower < boxes.upper)
    sides = boxes.upper - boxes.lower
    centres = (boxes.lower + boxes.upper) / 2
    if distribution == "columns":
        assert len(np.unique(centres[:, 0])) == 4
    if distribution == "sizes":  # 5 mm to 5 m: three orders of magnitude
        assert sides.min() >= 0.005 and sides.max() <= 5.0
        assert sides.max() / sides.min() > 500
    else:
        assert sides.min() >= 0.4 and sides.max() <= 1.2
    frames = pb.scenes.moving_boxes(boxes, 5, fraction=0.1, seed=1)
    moved = np.any(frames[0].lower != boxes.lower, axis=1)
    assert 0.05 < moved.mean() < 0.15  # about 10 % move each step
    np.testing.assert_allclose(frames[0].upper - frames[0].lower, sides)  # sizes kept
    assert isinstance(frames[0], ShapeBoxes)
