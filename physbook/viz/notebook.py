"""Notebook plumbing: the set-up of a chapter and showing the library's own source.

Animations are in :mod:`physbook.viz.player`, widgets in :mod:`physbook.viz.widgets`. Only
``physbook.viz`` imports matplotlib and ipywidgets; the engine never does.
"""

from __future__ import annotations

import inspect
import itertools
from importlib import metadata

import matplotlib

#: Oldest versions the book is tested with; older ones get an actionable message.
MINIMUM_VERSIONS = {
    "numpy": "1.24",
    "matplotlib": "3.7",
    "ipywidgets": "8.0",
    "numba": "0.58",
}


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
