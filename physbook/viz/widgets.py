"""Widgets: controls that redraw a figure, with a static figure for pages with no kernel.

:func:`interact` shows controls for a function's arguments above the figure it draws;
:func:`check_widget` runs the same function over the controls' ranges, headless, so that
its errors fail the notebook instead of hiding in a widget.
"""

from __future__ import annotations

import base64
import contextlib
import html
import inspect
import io
import itertools
import math
import numbers
import traceback
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.viz import _arguments
from physbook.viz.player import png_size

#: What a page with no live kernel (a static HTML export) shows under a widget's figure.
WIDGET_NOTE = ("This figure is drawn at the controls' starting values: moving them needs a live "
               "Python kernel (run the notebook in JupyterLab).")

#: Most decimals a float slider's readout shows, however fine its step.
MAX_READOUT_DECIMALS = 6


def interact(function: Callable, **sliders) -> None:
    """Display controls for ``function``'s arguments above the figure it draws.

    Parameters
    ----------
    function
        A pure function of the control values that draws one or more matplotlib figures.
        It may call ``plt.show()``: while the widget runs it, ``plt.show`` does nothing,
        and every figure it opened is saved as PNG, shown under the controls, and closed.
        What it prints is shown as text, what it returns is not shown, and if it raises,
        its traceback is shown where the figure was. Call :func:`check_widget` on it too:
        a widget reports errors but does not stop the notebook.
    **sliders
        Argument names of ``function`` mapped to ``ipywidgets`` widgets or to the
        abbreviations ``ipywidgets.interact`` accepts: a ``(min, max[, step])`` range, a list
        or dict of options, a bool, a number or a string (see :func:`check_widget`).

    Returns
    -------
    None
        The widget is displayed, not returned, so a notebook does not echo anything more.

    Notes
    -----
    Each control starts at ``function``'s default for its argument, updates on release
    (``continuous_update=False``), shows its whole label, and a float slider reads out as
    many decimals as its step needs. The display carries the live widget and, for a page
    with no kernel, the first figure as ``image/png`` and ``text/html`` (every figure and
    :data:`WIDGET_NOTE`); a static HTML export without widget state shows those.
    """
    import ipywidgets
    from IPython.display import display

    controls, pinned = _controls(function, sliders)
    output = ipywidgets.Output()

    def values() -> dict:
        return {**pinned, **{name: control.value for name, control in controls.items()}}

    def redraw(change=None) -> None:
        # Runs in the kernel's event loop when a control changes: nothing may escape it.
        try:
            output.outputs = _output_items(_draw(function, values()))
        except Exception:
            output.outputs = (_stream_item("stderr", traceback.format_exc()),)

    first = _draw(function, values())
    output.outputs = _output_items(first)
    for control in controls.values():
        control.observe(redraw, names="value")
    view = ipywidgets.VBox([*controls.values(), output])
    display(_WidgetWithFallback(view, controls, output, first))


def _controls(function: Callable, sliders: dict) -> tuple[dict, dict]:
    """The widgets for ``sliders`` by argument name, and the values pinned with ``fixed``."""
    import ipywidgets
    from traitlets import TraitError

    parameters = _widget_parameters(function, sliders)
    controls, pinned = {}, {}
    for name, spec in sliders.items():
        _control_spec(name, spec)
        # Start each control at the function's default, as ``ipywidgets.interact`` does.
        default = parameters[name].default if name in parameters else inspect.Parameter.empty
        try:
            widget = ipywidgets.interactive.widget_from_abbrev(spec, default)
        except (TypeError, ValueError, TraitError) as error:
            raise ValueError(f"{name}: {spec!r:.60} makes no control: {error}") from None
        if isinstance(widget, ipywidgets.fixed):
            pinned[name] = widget.value
            continue
        _style_control(widget, name, made_here=widget is not spec)
        controls[name] = widget
    return controls, pinned


def _style_control(widget, name: str, made_here: bool) -> None:
    """Label ``widget`` in full, update it on release, and give a float slider made here
    (not one the caller built and formatted) a readout that shows its step exactly."""
    import ipywidgets

    if hasattr(widget, "continuous_update"):
        widget.continuous_update = False
    widget.description = name
    widget.style.description_width = "initial"  # the whole name, not "angle_de…"
    if made_here and isinstance(widget, ipywidgets.FloatSlider) and widget.step:
        widget.readout_format = _readout_format(widget.min, widget.step)


def _readout_format(low: float, step: float) -> str:
    """A format that shows each slider value ``low + k * step`` exactly: its decimals are
    the most that ``low`` or ``step`` need, from 1 up to :data:`MAX_READOUT_DECIMALS`."""
    for decimals in range(1, MAX_READOUT_DECIMALS + 1):
        if _has_decimals(low, decimals) and _has_decimals(step, decimals):
            return f".{decimals}f"
    return f".{MAX_READOUT_DECIMALS}f"


def _has_decimals(value: float, decimals: int) -> bool:
    """Whether ``value`` is written exactly with ``decimals`` decimals (0.1 is, to rounding)."""
    scaled = value * 10**decimals
    return abs(scaled - round(scaled)) <= 1e-9 * max(1.0, abs(scaled))


class _Drawing(NamedTuple):
    """What one run of a widget function left: its figures, its printed text, its error."""

    pngs: tuple[bytes, ...]
    printed: str
    error: str


def _draw(function: Callable, values: dict) -> _Drawing:
    """Run ``function(**values)`` with ``plt.show`` doing nothing and its output captured.

    The figures it opened are saved as PNG and closed, also when it raises; its return value
    is dropped; an exception becomes the ``error`` text (its traceback), not a raise.
    """
    import matplotlib.pyplot as plt

    before = set(plt.get_fignums())
    printed = io.StringIO()
    show = plt.show
    plt.show = _show_nothing
    error = ""
    try:
        with contextlib.redirect_stdout(printed):
            function(**values)
    except Exception as raised:
        # Start the traceback at ``function``: this frame is no news to the reader.
        error = "".join(traceback.format_exception(type(raised), raised,
                                                   raised.__traceback__.tb_next))
    finally:
        plt.show = show
    opened = sorted(set(plt.get_fignums()) - before)
    try:
        pngs = tuple(_figure_png(plt.figure(number)) for number in opened)
    finally:
        for number in opened:
            plt.close(number)
    return _Drawing(pngs, printed.getvalue(), error)


def _figure_png(figure) -> bytes:
    """``figure`` as PNG bytes, cropped to what it draws as JupyterLab's inline backend crops
    every other figure of a notebook, so that labels outside the axes stay in the picture."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def _stream_item(name: str, text: str) -> dict:
    """An ``Output`` widget item holding ``text`` printed to ``name`` (stdout or stderr)."""
    return {"output_type": "stream", "name": name, "text": text}


def _png_item(png: bytes) -> dict:
    """An ``Output`` widget item showing one PNG, sized so it never renders as 0 × 0."""
    width, height = png_size(png)
    return {
        "output_type": "display_data",
        "data": {"image/png": base64.b64encode(png).decode("ascii"),
                 "text/plain": f"<figure, {width} × {height} pixels>"},
        "metadata": {"image/png": {"width": width, "height": height}},
    }


def _output_items(drawing: _Drawing) -> tuple[dict, ...]:
    """The ``Output`` widget's contents for ``drawing``: printed text, figures, traceback.

    They replace the widget's ``outputs`` in one assignment, which is widget state (what
    ``append_stdout`` and ``append_display_data`` add to) and redraws without a blank frame.
    """
    items = []
    if drawing.printed:
        items.append(_stream_item("stdout", drawing.printed))
    items.extend(_png_item(png) for png in drawing.pngs)
    if drawing.error:
        items.append(_stream_item("stderr", drawing.error))
    return tuple(items)


def _img_tag(png: bytes, alt: str) -> str:
    """An ``<img>`` holding ``png`` as a data URI, sized so it never renders as 0 × 0."""
    width, height = png_size(png)
    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return f'<img src="{uri}" width="{width}" height="{height}" alt="{html.escape(alt)}">'


def _fallback_html(drawing: _Drawing) -> str:
    """What a page without a kernel shows for the widget: its first drawing and a note."""
    parts = []
    if drawing.printed:
        parts.append(f"<pre>{html.escape(drawing.printed)}</pre>")
    parts.extend(_img_tag(png, "figure at the controls' starting values")
                 for png in drawing.pngs)
    if drawing.error:
        parts.append(f"<pre>{html.escape(drawing.error)}</pre>")
    parts.append(f"<p><em>{html.escape(WIDGET_NOTE)}</em></p>")
    return '<div class="physbook-widget">' + "".join(parts) + "</div>"


class _WidgetWithFallback:
    """A widget to display with static stand-ins for front ends that cannot show it.

    JupyterLab prefers the widget view. A static HTML export skips a widget view whose state
    is not stored and shows ``text/html``: the first figure and :data:`WIDGET_NOTE`.
    """

    def __init__(self, view, controls: dict, output, first: _Drawing):
        self.view = view
        self.controls = controls
        self.output = output
        self.first = first

    def __repr__(self) -> str:
        return f"<physbook widget: {', '.join(self.controls) or 'no controls'}>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = dict(self.view._repr_mimebundle_())
        data["text/plain"] = repr(self)
        data["text/html"] = _fallback_html(self.first)
        metadata = {}
        if self.first.pngs:
            png = self.first.pngs[0]
            data["image/png"] = base64.b64encode(png).decode("ascii")
            width, height = png_size(png)
            metadata["image/png"] = {"width": width, "height": height}
        return data, metadata


def _widget_parameters(function, sliders: dict):
    """``function``'s parameters; every slider must name one (unless it takes ``**``)."""
    _arguments.callback(function, "function")
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a built-in without a readable signature
        raise TypeError("function must be a Python function whose arguments can be read, "
                        f"got {function!r:.60}") from None
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    for name in sliders:
        if not takes_any and name not in parameters:
            raise TypeError(f"{name} is not an argument of function {function!r:.60}")
    return parameters


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _control_spec(name: str, spec) -> None:
    """Refuse a slider abbreviation that makes no control, or an empty or non-finite one."""
    import ipywidgets

    if isinstance(spec, (ipywidgets.fixed, ipywidgets.ValueWidget, bool, str)):
        return
    if isinstance(spec, tuple) and len(spec) in (2, 3) and all(map(_is_number, spec)):
        _range_values(name, spec)  # checks it
    elif _is_number(spec):
        # interact makes a slider from -|v| to 3|v| about a lone value v: all finite.
        _slider_number(spec, name)
        if not math.isfinite(3.0 * float(spec)):
            raise ValueError(f"{name} is too large for a slider about it, got {spec}")
    elif isinstance(spec, (list, dict)):
        if len(spec) == 0:
            raise ValueError(f"{name} must offer at least one option, got {spec!r}")
    else:
        raise TypeError(
            f"{name} must be a (min, max[, step]) range, a list of options, a number, a "
            f"bool, a string or an ipywidgets widget, got {type(spec).__name__}")


def _slider_number(value, name: str):
    """A slider end, step or value: an int within ±MAX_COUNT, or a finite float."""
    if isinstance(value, numbers.Integral):
        return _check.integer(value, name, -_check.MAX_COUNT, _check.MAX_COUNT)
    return _check.finite_scalar(value, name)


def _range_values(name: str, spec: tuple) -> list:
    """The ends and middle of a ``(min, max[, step])`` slider range."""
    low, high = (_slider_number(value, name) for value in spec[:2])
    if low > high:
        raise ValueError(f"{name} is an empty range: min {low} is above max {high}")
    if len(spec) == 3 and not _slider_number(spec[2], name) > 0:
        raise ValueError(f"{name} must have a positive step, got {spec[2]}")
    if all(isinstance(x, numbers.Integral) for x in spec):
        # The values an integer slider stops at: low, low + step, ..., up to high.
        step = int(spec[2]) if len(spec) == 3 else 1
        last = (high - low) // step
        return sorted({low, low + step * ((last + 1) // 2), low + step * last})
    middle = 0.5 * low + 0.5 * high  # halves first: the sum of two large ends overflows
    return [low, middle, high]


def _option_values(options) -> list:
    """The values of a list of options; ``(label, value)`` pairs give their value."""
    if isinstance(options, dict):
        return list(options.values())
    return [
        option[1] if isinstance(option, tuple) and len(option) == 2 else option
        for option in options
    ]


def _widget_values(widget) -> list:
    """Values to try for a ready-made ipywidgets widget: slider ends and middle, or options."""
    if hasattr(widget, "min") and hasattr(widget, "max"):
        low, high = widget.min, widget.max
        middle = (low + high) // 2 if isinstance(low, int) else (low + high) / 2
        return sorted({low, middle, high})
    if hasattr(widget, "options"):
        return _option_values(widget.options)
    if isinstance(widget.value, bool):
        return [False, True]
    return [widget.value]


def _slider_values(name: str, spec) -> list:
    """The values :func:`check_widget` tries for the ``interact`` abbreviation of ``name``."""
    import ipywidgets

    if isinstance(spec, ipywidgets.fixed):
        return [spec.value]
    if isinstance(spec, ipywidgets.ValueWidget):
        return _widget_values(spec)
    if isinstance(spec, bool):
        return [False, True]  # interact shows a checkbox
    if isinstance(spec, tuple) and len(spec) in (2, 3) and all(map(_is_number, spec)):
        return _range_values(name, spec)
    if isinstance(spec, (list, dict)):
        return _option_values(spec)
    return [spec]


def check_widget(function: Callable, **sliders) -> list:
    """Call a widget's function over its slider ranges, headless, and return the results.

    Each ``(min, max[, step])`` range (finite, min ≤ max, step > 0) is sampled at its ends
    and middle, each list or dict of options in full, a bool at both values, a ready-made
    widget at its ends and middle or its options, a number or a string at its value; and
    every combination is run. Every slider must name an argument of ``function``.

    Figures are closed after each call and ``plt.show()`` does nothing meanwhile, so a
    notebook does not fill with the check's figures. Errors propagate (``interact`` would
    swallow them), and a result holding NaN raises.
    """
    import matplotlib.pyplot as plt

    _widget_parameters(function, sliders)
    for name, spec in sliders.items():
        _control_spec(name, spec)
    names = list(sliders)
    grids = [_slider_values(name, sliders[name]) for name in names]
    results = []
    for combination in itertools.product(*grids):
        kwargs = dict(zip(names, combination, strict=True))
        show = plt.show
        plt.show = _show_nothing
        try:
            result = function(**kwargs)
        finally:
            plt.show = show
            plt.close("all")
        for value in _flatten_numbers(result):
            if not math.isfinite(value):
                raise ValueError(f"widget function returned a non-finite number for {kwargs}")
        results.append(result)
    return results


def _show_nothing(*args, **kwargs) -> None:
    """Stands in for ``plt.show`` while :func:`check_widget` or :func:`interact` runs a
    widget function."""


def _flatten_numbers(result) -> list[float]:
    """Every real number inside ``result``: nested dicts, lists, tuples and arrays."""
    if result is None or isinstance(result, (str, bytes)):
        return []
    if isinstance(result, dict):
        result = list(result.values())
    if isinstance(result, (list, tuple)):
        # Walk item by item: a ragged mix such as (distance, point) is no array.
        return [value for item in result for value in _flatten_numbers(item)]
    try:
        array = np.asarray(result, dtype=float)
    except (TypeError, ValueError):
        return []
    return array.ravel().tolist()
