"""physbook.viz.notebook: animations keep their frame budget and close their figures,
check_widget samples slider ranges and surfaces errors, show_source shows the real code,
version_problems reports what is missing or too old."""

from __future__ import annotations

import re
from importlib import metadata

import ipywidgets
import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook import _jit
from physbook.vecmath import vec
from physbook.viz import notebook

FRAME = re.compile(r"frames\[(\d+)\] = \"data:image")


def frame_count(html) -> int:
    return len(set(FRAME.findall(html.data)))


def draw_marker(ax, frame):
    ax.plot([frame], [0.0], "o")


# --- animate ---------------------------------------------------------------------------


def test_animate_returns_an_html_player_with_every_short_recording_frame():
    html = pb.viz.animate([0.0, 1.0, 2.0], draw_marker, figsize=(1.0, 1.0))
    assert "<script" in html.data and "animation" in html.data.lower()
    assert frame_count(html) == 3


def test_animate_subsamples_to_the_frame_budget_keeping_first_and_last():
    drawn = []

    def draw(ax, frame):
        drawn.append(frame)
        draw_marker(ax, frame)

    html = pb.viz.animate(list(range(50)), draw, max_frames=6, figsize=(1.0, 1.0))
    assert frame_count(html) == 6
    assert {0, 49} <= set(drawn) and set(drawn) <= set(range(50))
    assert len(set(drawn)) == 6


def test_animate_default_budget_is_frame_budget():
    assert pb.viz.FRAME_BUDGET == 120
    kept = notebook._pick_frames(1000, pb.viz.FRAME_BUDGET)
    assert len(kept) == 120


@settings(max_examples=100)
@given(st.integers(1, 2000), st.integers(2, 200))
def test_pick_frames_is_even_and_within_budget(count, budget):
    kept = notebook._pick_frames(count, budget)
    assert len(kept) == min(count, budget)
    assert kept == sorted(set(kept))
    assert kept[0] == 0 and kept[-1] == count - 1
    gaps = np.diff(kept)
    if len(gaps):
        assert gaps.max() - gaps.min() <= 1  # evenly spread


def test_animate_closes_its_figure_even_when_drawing_fails():
    plt.close("all")
    pb.viz.animate([1, 2], draw_marker, figsize=(1.0, 1.0))
    assert plt.get_fignums() == []

    def broken(ax, frame):
        raise RuntimeError("cannot draw")

    with pytest.raises(RuntimeError, match="cannot draw"):
        pb.viz.animate([1, 2], broken, figsize=(1.0, 1.0))
    assert plt.get_fignums() == []


def test_animate_calls_setup_before_every_frame():
    limits = []

    def setup(ax):
        ax.set_xlim(-1.0, 5.0)

    def draw(ax, frame):
        limits.append(ax.get_xlim())
        draw_marker(ax, frame)

    pb.viz.animate([1, 2, 3], draw, setup=setup, figsize=(1.0, 1.0))
    assert limits and all(limit == (-1.0, 5.0) for limit in limits)


def test_animate_rejects_bad_arguments():
    with pytest.raises(ValueError, match="at least one frame"):
        pb.viz.animate([], draw_marker)
    with pytest.raises(ValueError, match="max_frames"):
        pb.viz.animate([1, 2], draw_marker, max_frames=1)
    with pytest.raises(ValueError, match="fps"):
        pb.viz.animate([1, 2], draw_marker, fps=0.0)
    assert plt.get_fignums() == []


# --- check_widget and interact ---------------------------------------------------------


def test_check_widget_samples_ends_and_middle_of_each_range():
    calls = []

    def widget(angle, count, mode):
        calls.append((angle, count, mode))
        return angle * count

    results = pb.viz.check_widget(
        widget, angle=(0.0, 2.0, 0.1), count=(1, 9, 2), mode=["a", "b"]
    )
    assert sorted({c[0] for c in calls}) == [0.0, 1.0, 2.0]
    assert sorted({c[1] for c in calls}) == [1, 5, 9]
    assert sorted({c[2] for c in calls}) == ["a", "b"]
    assert len(calls) == 3 * 3 * 2  # every combination
    assert results == [a * n for a, n, _ in calls]


def test_check_widget_understands_other_interact_abbreviations():
    calls = []

    def widget(**kwargs):
        calls.append(kwargs)

    pb.viz.check_widget(
        widget,
        slider=ipywidgets.FloatSlider(min=-1.0, max=3.0),
        dropdown=ipywidgets.Dropdown(options=[("left", -1), ("right", 1)]),
        pinned=ipywidgets.fixed(42),
        flag=True,
        choice={"one": 1, "two": 2},
    )
    assert sorted({c["slider"] for c in calls}) == [-1.0, 1.0, 3.0]
    assert sorted({c["dropdown"] for c in calls}) == [-1, 1]
    assert {c["pinned"] for c in calls} == {42}
    assert sorted({c["flag"] for c in calls}) == [False, True]
    assert sorted({c["choice"] for c in calls}) == [1, 2]


@pytest.mark.parametrize(
    "bad",
    [np.nan, np.inf, [1.0, np.nan], (2.0, np.array([0.0, np.nan])), {"d": np.nan},
     {"point": (1.0, [np.inf, 0.0])}],
)
def test_check_widget_raises_on_non_finite_results(bad):
    with pytest.raises(ValueError, match="non-finite"):
        pb.viz.check_widget(lambda x: bad if x > 0.5 else 0.0, x=(0.0, 1.0))


def test_check_widget_accepts_finite_and_non_numeric_results():
    results = pb.viz.check_widget(lambda x: ("label", x, None), x=(0.0, 1.0))
    assert [r[1] for r in results] == [0.0, 0.5, 1.0]


def test_check_widget_propagates_errors_and_closes_figures():
    class WidgetError(Exception):
        pass

    def widget(x):
        plt.subplots()
        if x == 1.0:
            raise WidgetError(f"bad x {x}")
        return x

    plt.close("all")
    with pytest.raises(WidgetError, match="bad x 1.0"):
        pb.viz.check_widget(widget, x=(0.0, 1.0))
    assert plt.get_fignums() == []
    pb.viz.check_widget(widget, x=(0.0, 0.5))
    assert plt.get_fignums() == []


def test_check_widget_does_not_show_figures(monkeypatch):
    shown = []
    monkeypatch.setattr(plt, "show", lambda *args, **kwargs: shown.append(1))

    def widget(x):
        plt.subplots()
        plt.show()
        return x

    pb.viz.check_widget(widget, x=(0.0, 1.0))
    assert shown == []
    plt.show()  # restored afterwards
    assert shown == [1]


def test_interact_turns_off_continuous_update_and_returns_nothing(monkeypatch):
    seen = {}

    def fake_interact(function, **widgets):
        seen.update(widgets)
        return function

    monkeypatch.setattr(ipywidgets, "interact", fake_interact)
    result = pb.viz.interact(lambda a, b, c: None, a=(0.0, 1.0), b=(1, 5), c=["x", "y"])
    assert result is None
    assert isinstance(seen["a"], ipywidgets.FloatSlider)
    assert isinstance(seen["b"], ipywidgets.IntSlider)
    assert isinstance(seen["c"], ipywidgets.Dropdown)
    assert seen["a"].continuous_update is False and seen["b"].continuous_update is False
    assert [seen[name].description for name in "abc"] == ["a", "b", "c"]


def test_interact_starts_each_control_at_the_functions_default(monkeypatch):
    seen = {}
    monkeypatch.setattr(ipywidgets, "interact", lambda function, **widgets: seen.update(widgets))
    pb.viz.interact(lambda a=0.25, b=4, c="y": None, a=(0.0, 1.0), b=(1, 5), c=["x", "y"])
    assert (seen["a"].value, seen["b"].value, seen["c"].value) == (0.25, 4, "y")


# --- show_source -----------------------------------------------------------------------


def test_show_source_shows_the_name_and_the_code():
    html = pb.viz.show_source(vec.perp).data
    assert "perp" in html and "physbook.vecmath.vec" in html
    # The highlighted code, with markup removed, holds the function's statements.
    text = re.sub(r"<[^>]+>", "", html).replace("&quot;", '"').replace("&#39;", "'")
    assert 'v = _check.points(v, "v")' in text
    assert "def" in text


def test_show_source_of_a_class():
    text = re.sub(r"<[^>]+>", "", pb.viz.show_source(pb.Transform).data)
    assert "class" in text and "Transform" in text and "def to_world" in text


def kernel_to_show(values):
    total = 0.0
    for value in values:
        total += value * 2.0  # a distinctive line
    return total


def test_show_source_of_a_compiled_function_shows_its_python_source():
    compiled = _jit.njit(kernel_to_show)
    assert compiled(np.array([1.0, 2.0])) == 6.0
    text = re.sub(r"<[^>]+>", "", pb.viz.show_source(compiled).data)
    assert "kernel_to_show" in text and "a distinctive line" in text


# --- versions and setup ----------------------------------------------------------------


def fake_versions(versions):
    def version(package):
        if versions.get(package) is None:
            raise metadata.PackageNotFoundError(package)
        return versions[package]

    return version


def test_version_problems_reports_old_and_missing_packages(monkeypatch):
    versions = {"numpy": "1.23.5", "matplotlib": "3.7.0", "ipywidgets": None, "numba": "0.60.0rc1"}
    monkeypatch.setattr(notebook.metadata, "version", fake_versions(versions))
    problems = pb.viz.version_problems()
    assert len(problems) == 2
    assert any("numpy 1.23.5 is older than the 1.24" in line for line in problems)
    assert any("ipywidgets is not installed" in line for line in problems)


def test_version_problems_accepts_the_minimum_and_newer(monkeypatch):
    versions = {"numpy": "1.24", "matplotlib": "10.0.1", "ipywidgets": "8.0.0", "numba": "0.58.1"}
    monkeypatch.setattr(notebook.metadata, "version", fake_versions(versions))
    assert pb.viz.version_problems() == []


def test_setup_notebook_prints_an_actionable_fix(monkeypatch, capsys):
    monkeypatch.setattr(notebook.metadata, "version", fake_versions({"numpy": "1.0"}))
    pb.viz.setup_notebook()
    out = capsys.readouterr().out
    assert "numpy 1.0 is older" in out and 'pip install -e ".[book]"' in out


def test_version_tuple():
    assert notebook._version_tuple("1.24.0rc1") == (1, 24, 0)
    assert notebook._version_tuple("0.58") < notebook._version_tuple("0.58.1")
    assert notebook._version_tuple("2.0.dev0") == (2, 0, 0)
