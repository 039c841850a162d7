"""Notebook plumbing: set-up, showing library source, animations and widgets.

Only ``physbook.viz`` imports matplotlib and ipywidgets; the engine never does.
"""

from __future__ import annotations

import inspect
import itertools
import math
import numbers
from collections.abc import Callable, Sequence
from importlib import metadata

import matplotlib
import numpy as np

from physbook import _check
from physbook.viz import _arguments

#: Oldest versions the book is tested with; older ones get an actionable message.
MINIMUM_VERSIONS = {
    "numpy": "1.24",
    "matplotlib": "3.7",
    "ipywidgets": "8.0",
    "numba": "0.58",
}

#: Animations keep at most this many frames, so a notebook stays small and fast to save.
FRAME_BUDGET = 120


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(itertools.takewhile(str.isdigit, piece))
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def version_problems() -> list[str]:
    """One line per dependency that is missing or older than :data:`MINIMUM_VERSIONS`."""
    problems = []
    for package, minimum in MINIMUM_VERSIONS.items():
        try:
            found = metadata.version(package)
        except metadata.PackageNotFoundError:
            problems.append(f"{package} is not installed (need >= {minimum})")
            continue
        if _version_tuple(found) < _version_tuple(minimum):
            problems.append(f"{package} {found} is older than the {minimum} the book needs")
    return problems


def setup_notebook() -> None:
    """Style matplotlib for the book and check the installed versions.

    Call it once, in the first code cell of a chapter. If a dependency is missing or too
    old it prints what to run to fix it (the book still tries to run).
    """
    matplotlib.rcParams.update(
        {
            "figure.figsize": (6.4, 4.0),
            "figure.dpi": 90,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "animation.embed_limit": 40.0,  # MB; our budgeted animations stay far below
        }
    )
    problems = version_problems()
    if problems:
        print("physbook: the environment does not match what the book needs:")
        for line in problems:
            print("  -", line)
        print('Fix: from the repository root run  pip install -e ".[book]"  and restart.')


def show_source(obj) -> object:
    """Display the source code of a library object (function, class or method), highlighted.

    The chapters use it to show the very code that runs, instead of a copy. Compiled
    functions are unwrapped to the Python source numba compiled.
    """
    from IPython.display import HTML
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    target = getattr(obj, "py_func", obj)  # numba dispatchers keep the Python function here
    try:
        source = inspect.getsource(target)
    except TypeError:
        raise TypeError(f"obj must be a function, class or method written in Python, got "
                        f"{type(obj).__name__}") from None
    except OSError as error:  # e.g. a function typed into an interactive session
        raise ValueError(f"obj has no source file to show: {error}") from None
    module = inspect.getmodule(target)
    where = f"{module.__name__}" if module else ""
    formatter = HtmlFormatter(noclasses=True, style="friendly")
    body = highlight(source, PythonLexer(), formatter)
    return HTML(f"<div style='font-size:85%'><b>{where}.{target.__qualname__}</b>{body}</div>")


def _pick_frames(count: int, budget: int) -> list[int]:
    """Indices of at most ``budget`` frames spread evenly over ``count``, last included."""
    if count <= budget:
        return list(range(count))
    step = (count - 1) / (budget - 1)
    return sorted({round(i * step) for i in range(budget)})


def animate(
    frames: Sequence,
    draw: Callable,
    *,
    fps: float = 30.0,
    max_frames: int = FRAME_BUDGET,
    figsize: tuple[float, float] = (5.0, 4.0),
    setup: Callable | None = None,
):
    """Play a recorded simulation as an HTML/JavaScript player.

    Parameters
    ----------
    frames
        The recording, one item per frame (any objects ``draw`` understands): a list,
        tuple, range or array, not empty.
    draw
        ``draw(ax, frame)`` draws one frame on a freshly cleared axis.
    fps
        Playback frames per second of the kept frames, 0.001 to 1000.
    max_frames
        The frame budget, 2 or more: longer recordings are subsampled evenly to this many
        frames.
    figsize
        ``(width, height)`` of the figure in inches, 0.1 to 40 each.
    setup
        Optional ``setup(ax)`` called after each clear (limits, aspect, labels).

    Returns
    -------
    IPython.display.HTML
        matplotlib's JavaScript player, the one ``FuncAnimation.to_jshtml`` makes, with the
        frames embedded as PNG: it works in JupyterLab and in a static HTML export with no
        ffmpeg. The figure is closed so it is not drawn twice.
    """
    import tempfile
    from pathlib import Path

    import matplotlib.pyplot as plt
    from IPython.display import HTML
    from matplotlib.animation import HTMLWriter

    frames = _arguments.sequence(frames, "frames")
    draw = _arguments.callback(draw, "draw")
    fps = _arguments.fps(fps)
    max_frames = _check.integer(max_frames, "max_frames", 2)
    figsize = _arguments.figsize(figsize)
    setup = _arguments.callback(setup, "setup", optional=True)
    kept = _pick_frames(len(frames), max_frames)
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")  # labels stay inside

    def update(index):
        ax.clear()
        if setup is not None:
            setup(ax)
        draw(ax, frames[kept[index]])

    try:
        # Lay the figure out once, on the first frame, then freeze it: a constrained layout
        # recomputed for every frame costs as much as drawing the frame.
        update(0)
        fig.canvas.draw()
        fig.set_layout_engine("none")
        # The writer behind FuncAnimation.to_jshtml, driven directly so that each frame is
        # drawn once (FuncAnimation draws every frame a second time for screen display).
        writer = HTMLWriter(fps=fps, embed_frames=True, default_mode="once")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "animation.html"
            with writer.saving(fig, str(path), dpi=fig.dpi):
                for index in range(len(kept)):
                    update(index)
                    writer.grab_frame()
            html = path.read_text(encoding="utf-8")
    finally:
        plt.close(fig)  # also when ``draw`` fails, so no figure is left open
    return HTML(html)


def interact(function: Callable, **sliders) -> None:
    """Display ``ipywidgets.interact`` with ``continuous_update=False`` on every slider.

    ``sliders`` maps argument names of ``function`` to widgets or to ``(min, max[, step])``
    tuples / lists of options, as ``ipywidgets.interact`` accepts (see
    :func:`check_widget`). ``function`` should be a pure function of the slider values
    that draws a figure; call :func:`check_widget` on it over the slider ranges so that its
    errors are not swallowed. Returns None (``ipywidgets.interact`` returns ``function``,
    which a notebook would echo as ``<function …>`` under the widget).
    """
    import ipywidgets
    from traitlets import TraitError

    parameters = _widget_parameters(function, sliders)
    widgets = {}
    for name, spec in sliders.items():
        _control_spec(name, spec)
        # Start each control at the function's default, as ``ipywidgets.interact`` does.
        default = parameters[name].default if name in parameters else inspect.Parameter.empty
        try:
            widget = ipywidgets.interactive.widget_from_abbrev(spec, default)
        except (TypeError, ValueError, TraitError) as error:
            raise ValueError(f"{name}: {spec!r:.60} makes no control: {error}") from None
        if hasattr(widget, "continuous_update"):
            widget.continuous_update = False
        widget.description = name
        widgets[name] = widget
    ipywidgets.interact(function, **widgets)


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
    """Stands in for ``plt.show`` while :func:`check_widget` runs a widget function."""


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
