"""The preface's picture of a step, drawn from physbook.stages.STEP_STAGES."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import physbook as pb  # noqa: E402
from physbook.stages import STEP_STAGES  # noqa: E402


def _drawn_stages(ax) -> list[tuple[str, str]]:
    """(name, chapter) of each box that reads "<name>\\n(ch <chapter>)", in drawing order."""
    found = []
    for text in ax.texts:
        lines = text.get_text().split("\n")
        if len(lines) > 1 and lines[-1].startswith("(ch ") and lines[-1].endswith(")"):
            found.append((" ".join(lines[:-1]), lines[-1][4:-1]))
    return found


def test_the_picture_shows_every_stage_in_the_order_a_step_runs_them():
    ax = pb.viz.pipeline_diagram()
    assert _drawn_stages(ax) == [(stage.name, str(stage.chapter)) for stage in STEP_STAGES]
    # One arrow from each stage to the next, and one from the last back to the first.
    assert sum(1 for text in ax.texts if text.get_text() == "") == len(STEP_STAGES)
    plt.close("all")


def test_the_picture_follows_a_changed_list(monkeypatch):
    # Drawn from the list, not a copy of it: a stage more is a box more.
    from physbook.viz import pipeline

    extra = STEP_STAGES[:3] + (STEP_STAGES[0]._replace(name="extra stage", chapter=7),)
    monkeypatch.setattr(pipeline, "STEP_STAGES", extra)
    ax = pb.viz.pipeline_diagram()
    assert _drawn_stages(ax)[-1] == ("extra stage", "7")
    assert len(_drawn_stages(ax)) == 4
    plt.close("all")


def test_the_axes_must_be_axes():
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        pb.viz.pipeline_diagram("not axes")
