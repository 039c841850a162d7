"""physbook.viz.notebook, .player and .widgets: animations keep their frame budget, close
their figures, show their first frame at its size and need no network; interact displays
its figure as widget state and as static fallbacks and redraws on a change; check_widget
samples slider ranges and surfaces errors; show_source shows the real code;
version_problems reports what is missing or too old."""

from __future__ import annotations

import base64
import io
import re
from decimal import Decimal
from html.parser import HTMLParser
from importlib import metadata

import IPython.display
import ipywidgets
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib import _animation_data
from matplotlib.patches import Rectangle
from PIL import Image

import physbook as pb
from physbook import _jit
from physbook.vecmath import vec
from physbook.viz import notebook, widgets
from physbook.viz import player as player_module

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
    kept = player_module._pick_frames(1000, pb.viz.FRAME_BUDGET)
    assert len(kept) == 120


@settings(max_examples=100)
@given(st.integers(1, 2000), st.integers(2, 200))
def test_pick_frames_is_even_and_within_budget(count, budget):
    kept = player_module._pick_frames(count, budget)
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


# --- the player's HTML: sized, labelled, offline ----------------------------------------


class _PlayerParts(HTMLParser):
    """The player's img attributes and, per button, its title and what it shows."""

    def __init__(self):
        super().__init__()
        self.images, self.buttons, self._button = [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs)
        elif tag == "button":
            self._button = {"title": attrs.get("title", ""), "shapes": 0, "text": ""}
        elif self._button is not None and tag in ("rect", "polygon", "path", "circle"):
            self._button["shapes"] += 1

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        if self._button is not None:
            self._button["text"] += data.strip()

    def handle_endtag(self, tag):
        if tag == "button":
            self.buttons.append(self._button)
            self._button = None


def player_parts(html: str) -> _PlayerParts:
    parts = _PlayerParts()
    parts.feed(html)
    return parts


def first_frame_uri(html: str) -> str:
    # The frame list of the player's script; HTMLWriter continues long strings with "\".
    found = re.search(r'frames\[0\] = "([^"]+)"', html)
    return found.group(1).replace("\\\n", "")


def decoded_png(uri: str) -> Image.Image:
    header, _, payload = uri.partition(",")
    assert header == "data:image/png;base64"
    image = Image.open(io.BytesIO(base64.b64decode(payload)))
    assert image.format == "PNG"
    return image


@pytest.fixture
def player():
    """A three-frame player on a 1.5 × 1 inch figure at 80 dpi: 120 × 80 pixel frames."""
    with matplotlib.rc_context({"figure.dpi": 80}):
        return pb.viz.animate([0.0, 1.0, 2.0], draw_marker, figsize=(1.5, 1.0)).data


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_animate_player_needs_nothing_from_the_network(player):
    assert "http" not in player
    assert "font-awesome" not in player and 'class="fa' not in player


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_animate_player_img_shows_the_first_frame_at_its_pixel_size(player):
    (img,) = player_parts(player).images
    uri = first_frame_uri(player)
    frame = decoded_png(uri)
    assert frame.size == (120, 80)  # 1.5 × 1 inch at 80 dpi
    assert (int(img["width"]), int(img["height"])) == frame.size
    assert img["src"] == uri
    assert img["id"].startswith("_anim_img") and img["alt"]


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_animate_player_buttons_each_show_a_label_and_keep_their_tooltip(player):
    buttons = player_parts(player).buttons
    assert [button["title"] for button in buttons] == [
        "Decrease speed", "First frame", "Previous frame", "Play backwards", "Pause", "Play",
        "Next frame", "Last frame", "Increase speed"]
    assert all(button["shapes"] > 0 or button["text"] for button in buttons)
    # Each button draws its own picture: no two labels are alike.
    labels = re.findall(r"<button[^>]*>(.*?)</button>", player, re.S)
    assert len(set(label.strip() for label in labels)) == len(buttons)


def test_matplotlib_player_template_is_the_one_physbook_rewrites():
    # If matplotlib changes its player, this fails before a reader meets a blank player.
    script, links = player_module._FONT_AWESOME.subn("", _animation_data.JS_INCLUDE)
    assert links == 1 and "http" not in script and "<link" not in script
    assert '<img id="_anim_img{id}">' in _animation_data.DISPLAY_TEMPLATE
    icons = re.findall(r'<i class="fa ([^"]+)"></i>', _animation_data.DISPLAY_TEMPLATE)
    assert len(icons) == 9 and set(icons) <= set(player_module._ICON_SHAPES)
    assert "http" not in _animation_data.DISPLAY_TEMPLATE + _animation_data.STYLE_INCLUDE


def test_offline_player_warns_about_a_template_it_does_not_know():
    changed = '<img id="_anim_img0f"><button title="Play"><i class="fa fa-rocket"></i></button>'
    with pytest.warns(RuntimeWarning, match="does not know"):
        assert player_module._offline_player(changed) == changed


def test_png_size_reads_the_header_and_rejects_other_data():
    buffer = io.BytesIO()
    Image.new("RGB", (7, 3)).save(buffer, format="PNG")
    assert player_module.png_size(buffer.getvalue()) == (7, 3)
    with pytest.raises(ValueError, match="not a PNG"):
        player_module.png_size(b"GIF89a" + bytes(30))


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


# --- interact ------------------------------------------------------------------------


@pytest.fixture
def shown(monkeypatch):
    """What ``pb.viz.interact`` displays, instead of sending it to a notebook."""
    displayed = []
    monkeypatch.setattr(IPython.display, "display", lambda *objs, **kw: displayed.extend(objs))
    return displayed


def bundle_of(shown_object):
    """The display bundle a notebook would receive, made by IPython's own formatter."""
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(shown_object)
    return data


def png_in(text_or_bytes) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(text_or_bytes)))


def figures_in(output) -> list[Image.Image]:
    return [png_in(item["data"]["image/png"]) for item in output.outputs
            if item["output_type"] == "display_data"]


def stream_text(output, name: str) -> str:
    return "".join(item["text"] for item in output.outputs
                   if item["output_type"] == "stream" and item["name"] == name)


def bar(width=2.0, label="bar"):
    # A figure filled by one rectangle, so its picture, cropped to what it draws with the
    # 0.1 inch margin of savefig's tight box, is (width + 0.2) × 1.2 inches at 50 dpi.
    fig = plt.figure(figsize=(width, 1.0), dpi=50)
    fig.add_artist(Rectangle((0.0, 0.0), 1.0, 1.0, transform=fig.transFigure))
    print(f"drew {label} at {width:.2f}")
    plt.show()
    return np.float64(0.123456789)


def test_interact_displays_one_bundle_with_the_widget_and_static_fallbacks(shown):
    assert pb.viz.interact(bar, width=(1.0, 4.0, 0.5)) is None
    (widget,) = shown
    data = bundle_of(widget)
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.view.model_id
    assert data["text/plain"] == "<physbook widget: width>"
    figure = png_in(data["image/png"])
    assert figure.format == "PNG" and figure.size == (110, 60)  # 2.2 × 1.2 inch at 50 dpi
    page = data["text/html"]
    assert data["image/png"] in page and 'width="110" height="60"' in page
    assert widgets.WIDGET_NOTE in page.replace("&#x27;", "'")
    assert "drew bar at 2.00" in page


def test_interact_puts_the_figure_and_printed_text_in_the_output_widget(shown):
    pb.viz.interact(bar, width=(1.0, 4.0, 0.5))
    (widget,) = shown
    assert [figure.size for figure in figures_in(widget.output)] == [(110, 60)]
    assert stream_text(widget.output, "stdout") == "drew bar at 2.00\n"
    assert widget.view.children[-1] is widget.output
    assert plt.get_fignums() == []


def test_interact_never_shows_the_return_value(shown):
    pb.viz.interact(bar, width=(1.0, 4.0, 0.5))
    (widget,) = shown
    everything = repr(bundle_of(widget)) + repr(widget.output.outputs)
    assert "0.123456789" not in everything and "np.float64" not in everything
    assert len(shown) == 1


def test_interact_redraws_with_the_new_value_and_replaces_the_figure(shown):
    calls = []

    def recorded(width=2.0, label="a"):
        calls.append((width, label))
        return bar(width, label)

    pb.viz.interact(recorded, width=(1.0, 4.0, 0.5), label=["a", "b"])
    (widget,) = shown
    widget.controls["width"].value = 3.0
    widget.controls["label"].value = "b"
    assert calls == [(2.0, "a"), (3.0, "a"), (3.0, "b")]
    assert [figure.size for figure in figures_in(widget.output)] == [(160, 60)]
    assert stream_text(widget.output, "stdout") == "drew b at 3.00\n"
    assert plt.get_fignums() == []


def test_interact_makes_plt_show_do_nothing_while_the_function_runs(shown, monkeypatch):
    shows = []
    monkeypatch.setattr(plt, "show", lambda *args, **kwargs: shows.append(1))
    pb.viz.interact(bar, width=(1.0, 4.0, 0.5))
    shown[0].controls["width"].value = 1.0
    assert shows == [] and len(figures_in(shown[0].output)) == 1
    plt.show()  # restored afterwards
    assert shows == [1]


def test_interact_shows_a_traceback_in_the_output_and_raises_nothing(shown):
    class WidgetError(Exception):
        pass

    def fragile(x=0.0):
        plt.subplots(figsize=(1.0, 1.0))
        if x > 0.5:
            raise WidgetError(f"x = {x} is too large")

    pb.viz.interact(fragile, x=(0.0, 1.0, 0.1))
    (widget,) = shown
    widget.controls["x"].value = 0.8
    error = stream_text(widget.output, "stderr")
    assert error.startswith("Traceback") and "WidgetError: x = 0.8 is too large" in error
    assert "fragile" in error and "_draw" not in error  # starts at the reader's function
    assert plt.get_fignums() == []


def test_interact_shows_a_first_run_that_raises_in_the_static_fallback(shown):
    def broken(x=1.0):
        raise ValueError("no figure today")

    pb.viz.interact(broken, x=(0.0, 2.0))
    data = bundle_of(shown[0])
    assert "image/png" not in data
    assert "ValueError: no figure today" in data["text/html"]
    assert "ValueError: no figure today" in stream_text(shown[0].output, "stderr")


def test_interact_controls_update_on_release_with_full_labels(shown):
    pb.viz.interact(lambda a, b, c, angle_degrees: None, a=(0.0, 1.0), b=(1, 5), c=["x", "y"],
                    angle_degrees=(5.0, 85.0, 5.0))
    controls = shown[0].controls
    assert isinstance(controls["a"], ipywidgets.FloatSlider)
    assert isinstance(controls["b"], ipywidgets.IntSlider)
    assert isinstance(controls["c"], ipywidgets.Dropdown)
    assert controls["a"].continuous_update is False and controls["b"].continuous_update is False
    assert [control.description for control in controls.values()] == list(controls)
    assert all(control.style.description_width == "initial" for control in controls.values())
    assert list(shown[0].view.children[:-1]) == list(controls.values())


def test_interact_starts_each_control_at_the_functions_default(shown):
    pb.viz.interact(lambda a=0.25, b=4, c="y": None, a=(0.0, 1.0), b=(1, 5), c=["x", "y"])
    controls = shown[0].controls
    assert (controls["a"].value, controls["b"].value, controls["c"].value) == (0.25, 4, "y")


def test_interact_passes_fixed_values_without_a_control(shown):
    calls = []
    pb.viz.interact(lambda a=1.0, pinned=0: calls.append((a, pinned)), a=(0.0, 2.0),
                    pinned=ipywidgets.fixed(42))
    assert list(shown[0].controls) == ["a"] and calls == [(1.0, 42)]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [((0.0, 0.05, 0.005), ".3f"), ((0.01, 0.2, 0.01), ".2f"), ((0.0, 1.0, 0.1), ".1f"),
     ((-20.0, 20.0, 1.0), ".1f"), ((0.05, 1.0, 0.1), ".2f"), ((0.0, 1.0, 0.25), ".2f"),
     ((0.0, 1.0, 1 / 3), f".{widgets.MAX_READOUT_DECIMALS}f")],
)
def test_interact_float_readout_shows_the_step_exactly(shown, spec, expected):
    pb.viz.interact(lambda x: None, x=spec)
    assert shown[0].controls["x"].readout_format == expected


def test_interact_keeps_the_readout_of_a_slider_the_caller_built(shown):
    slider = ipywidgets.FloatSlider(min=0.0, max=1.0, step=0.001, readout_format=".1%")
    pb.viz.interact(lambda x: None, x=slider)
    assert shown[0].controls["x"] is slider and slider.readout_format == ".1%"


@settings(max_examples=200)
@given(st.integers(1, 10**6), st.integers(-10**6, 10**6), st.integers(1, 6))
def test_readout_format_shows_every_slider_value_exactly(step_units, low_units, decimals):
    # A step and a start written with at most ``decimals`` decimals: their values
    # low + k·step are exact decimal numbers, which the format must print in full.
    step, low = Decimal(step_units).scaleb(-decimals), Decimal(low_units).scaleb(-decimals)
    fmt = widgets._readout_format(float(low), float(step))
    assert int(fmt[1:-1]) <= max(1, decimals)
    for k in range(3):
        exact = low + k * step
        assert Decimal(format(float(exact), fmt)) == exact


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
