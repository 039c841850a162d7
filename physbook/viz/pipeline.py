"""The stages of one step drawn as a loop (preface), from the list the engine runs:
:data:`physbook.stages.STEP_STAGES`."""

from __future__ import annotations

import textwrap

import numpy as np
from matplotlib.axes import Axes

from physbook.stages import STEP_STAGES
from physbook.viz import _arguments

#: The colour of a stage's box, by the chapter that builds it.
_CHAPTER_COLOURS = {
    4: "#eeeeee",   # bodies and the world: bookkeeping
    6: "#fce5cd",   # collision detection
    10: "#d9ead3",  # solving
    11: "#e4dcf0",  # islands and sleep
    12: "#fce5cd",  # broad phase, sensors, events
    13: "#f4cccc",  # continuous collision
}


def stage_label(name: str) -> str:
    """A stage's name as its box shows it: words broken onto lines of at most 10 letters."""
    return "\n".join(textwrap.wrap(name, 10))


def pipeline_diagram(ax: Axes | None = None) -> Axes:
    """Draw the stages of :meth:`World.step <physbook.world.World.step>`, each with the
    chapter that builds it, as a loop in the order of
    :data:`~physbook.stages.STEP_STAGES`: the picture is drawn from the list the engine's
    both ways of stepping follow."""
    import matplotlib.pyplot as plt

    ax = plt.subplots(figsize=(9.0, 6.0))[1] if ax is None else _arguments.axes(ax)
    count = len(STEP_STAGES)
    # Boxes sit on an ellipse, clockwise from the top, so the loop reads like a clock.
    angles = np.pi / 2 - 2.0 * np.pi * np.arange(count) / count
    centres = np.column_stack([4.3 * np.cos(angles), 2.7 * np.sin(angles)])
    boxes = []
    for stage, (x, y) in zip(STEP_STAGES, centres, strict=True):
        boxes.append(ax.text(
            x, y, f"{stage_label(stage.name)}\n(ch {stage.chapter})", ha="center",
            va="center", fontsize=8.0,
            bbox={"boxstyle": "round,pad=0.35",
                  "facecolor": _CHAPTER_COLOURS.get(stage.chapter, "#ffffff"),
                  "edgecolor": "#555555"}))
    for i in range(count):
        j = (i + 1) % count
        last = j == 0  # the arrow back to the start is the next step
        ax.annotate(
            "", xy=tuple(centres[j]), xytext=tuple(centres[i]),
            arrowprops={
                "arrowstyle": "-|>", "color": "#777777" if last else "#333333",
                "linestyle": "--" if last else "-", "connectionstyle": "arc3,rad=-0.1",
                "patchA": boxes[i].get_bbox_patch(), "patchB": boxes[j].get_bbox_patch(),
                "shrinkA": 3, "shrinkB": 3,
            },
        )
    ax.text(0.0, 0.35, "World.step(dt)", ha="center", va="center", fontsize=12,
            weight="bold")
    ax.text(0.0, -0.45,
            "compiled in one call, or stage by stage\nwith a broad phase or solver of "
            "your own:\nthe same stages in the same order",
            ha="center", va="center", fontsize=8.5, color="#444444")
    ax.set_xlim(-5.4, 5.4)
    ax.set_ylim(-3.4, 3.4)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax
