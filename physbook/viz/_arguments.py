"""Checks for the arguments of the drawing helpers.

The numeric checks are :mod:`physbook._check`'s; these add what only drawing needs: an
axes to draw on, colours, labels, view rectangles, figure sizes and callbacks. Each raises
``TypeError`` or ``ValueError`` naming the argument, so that a bad argument is reported as
what it is, not by an error from deep inside matplotlib or a half-drawn figure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import to_rgba

from physbook import _check
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.vec import Transform

#: Figure sides (inches) a helper accepts. A frame of an animation is a bitmap of
#: width × height × dpi² pixels, so a side much beyond this fills memory, not a screen.
FIGURE_INCHES = (0.1, 40.0)

#: Playback rates (frames per second) an animation accepts: from one frame in 1000 s to
#: one frame per millisecond, the resolution of the player's timer.
FPS_RANGE = (0.001, 1000.0)

#: Largest coordinate (m) a view may reach. matplotlib places ticks by multiplying the
#: view's span by up to ten, which must stay inside the float range.
VIEW_REACH = 1e300

#: Largest ratio of width to height (or height to width) of an equal-scale view: beyond
#: it the shorter side is far less than a pixel, and the axes cannot be laid out.
MAX_ASPECT = 1e6

#: Most directions an outline traced by support points may use: a tenth of a degree
#: apart, far finer than a drawing shows, and a bound on the time it takes.
MAX_SAMPLES = 3600


def axes(ax, name: str = "ax") -> Axes:
    """``ax`` if it is a matplotlib ``Axes`` (what ``plt.subplots()`` returns)."""
    if not isinstance(ax, Axes):
        raise TypeError(f"{name} must be a matplotlib Axes, got {type(ax).__name__}")
    return ax


def colour(value, name: str, optional: bool = False):
    """``value`` if matplotlib reads it as a colour ("C0", "k", "#4c72b0", an RGB tuple).

    With ``optional``, None (matplotlib's next colour in its cycle) is accepted too.
    """
    if value is None and optional:
        return None
    try:
        rgba = to_rgba(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a matplotlib colour such as 'C0' or '#4c72b0', "
                         f"got {value!r:.40}") from None
    if not np.all(np.isfinite(rgba)):
        raise ValueError(f"{name} must be a colour with finite components, got {value!r:.40}")
    return value


def text(value, name: str) -> str | None:
    """A label or title: a string, or None for none."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a string or None, got {type(value).__name__}")
    return value


def fraction(value, name: str) -> float:
    """An opacity or share: a finite number from 0 to 1."""
    value = _check.finite_scalar(value, name)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1, got {value}")
    return value


def _four_numbers(value, name: str, order: str) -> np.ndarray:
    array = _check.finite_array(value, name)
    if array.shape != (4,):
        raise ValueError(f"{name} must be four numbers {order}, got shape {array.shape}")
    return array


def _view(x0: float, x1: float, y0: float, y1: float, name: str) -> None:
    """Refuse an equal-scale view that is empty, beyond reach, or too thin to lay out."""
    for low, high, axis in ((x0, x1, "x"), (y0, y1, "y")):
        if not low < high:
            raise ValueError(f"{name} must have {axis}_min < {axis}_max, got {low} and {high}")
        if max(-low, high) > VIEW_REACH:
            raise ValueError(f"{name} must lie within ±{VIEW_REACH:g} m, got {axis} from "
                             f"{low} to {high}")
    aspect = (x1 - x0) / (y1 - y0)
    if not 1.0 / MAX_ASPECT <= aspect <= MAX_ASPECT:
        raise ValueError(f"{name} must be at most {MAX_ASPECT:g} times wider than high or "
                         f"high than wide, got a width / height of {aspect:g}")


def limits(value, name: str = "limits") -> tuple[float, float, float, float]:
    """An equal-scale view ``(xmin, xmax, ymin, ymax)`` in metres (see :func:`_view`)."""
    xmin, xmax, ymin, ymax = (float(v) for v in
                              _four_numbers(value, name, "(xmin, xmax, ymin, ymax)"))
    _view(xmin, xmax, ymin, ymax, name)
    return xmin, xmax, ymin, ymax


def box(value, name: str = "bounds") -> tuple[float, float, float, float]:
    """A rectangle ``(x_min, y_min, x_max, y_max)`` in metres, as the Verlet walls are given,
    to be shown at equal scale (see :func:`_view`)."""
    x0, y0, x1, y1 = (float(v) for v in
                      _four_numbers(value, name, "(x_min, y_min, x_max, y_max)"))
    _view(x0, x1, y0, y1, name)
    return x0, y0, x1, y1


def set_view(ax: Axes, view, name: str) -> None:
    """Set ``ax`` to show ``view`` = (xmin, xmax, ymin, ymax), exactly.

    matplotlib widens a range too narrow for its magnitude (such as 1e10 to 1e10 + 1e-6)
    without a word; the caller asked for that range, so it is told instead.
    """
    xmin, xmax, ymin, ymax = view
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ymin, ymax)
    if ax.get_xlim() != (xmin, xmax) or ax.get_ylim() != (ymin, ymax):
        raise ValueError(f"{name} is too narrow for its distance from the origin to be "
                         f"shown: {tuple(view)}")


def figsize(value, name: str = "figsize") -> tuple[float, float]:
    """A figure size ``(width, height)`` in inches, each within :data:`FIGURE_INCHES`."""
    size = _check.finite_array(value, name)
    low, high = FIGURE_INCHES
    if size.shape != (2,):
        raise ValueError(f"{name} must be (width, height) in inches, got shape {size.shape}")
    if np.any(size < low) or np.any(size > high):
        raise ValueError(f"{name} must be between {low} and {high} inches each, "
                         f"got {tuple(size.tolist())}")
    return float(size[0]), float(size[1])


def fps(value, name: str = "fps") -> float:
    """A playback rate in frames per second, within :data:`FPS_RANGE`."""
    value = _check.positive_scalar(value, name)
    low, high = FPS_RANGE
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high} frames per second, "
                         f"got {value}")
    return value


def callback(value, name: str, optional: bool = False) -> Callable | None:
    """A function the helper calls back (None too, with ``optional``)."""
    if value is None and optional:
        return None
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {type(value).__name__}")
    return value


def sequence(value, name: str) -> Sequence:
    """Frames to animate: a list, tuple, range or array, at least one item long."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of frames (list, tuple, range or "
                        f"array), got {type(value).__name__}")
    if len(value) == 0:
        raise ValueError(f"{name} must hold at least one frame")
    return value


def transform(value, name: str) -> Transform:
    """A pose: a :class:`~physbook.Transform`, or None for the identity."""
    if value is None:
        return Transform()
    return _check.instance(value, name, Transform, "a Transform or None")


def convex(value, name: str):
    """A convex shape: a Circle, a Polygon, a Capsule, a Segment, a ChainSegment, or any
    object with ``support(direction)`` (all the shape classes have one)."""
    if not isinstance(value, (Circle, Polygon)) and not callable(getattr(value, "support",
                                                                         None)):
        raise TypeError(f"{name} must be a convex shape (a Circle, Polygon, Capsule, Segment, "
                        f"ChainSegment, or an object "
                        f"with a support(direction) method), got {type(value).__name__}")
    return value


def samples(value, name: str = "samples") -> int:
    """How many directions trace an outline: 3 (a triangle) to :data:`MAX_SAMPLES`."""
    return _check.integer(value, name, 3, MAX_SAMPLES)


def rows(value, name: str, shape: tuple, per: str = "") -> np.ndarray:
    """A finite float array of ``shape``; -1 in ``shape`` matches any length.

    ``per`` says what the first length counts ("body of shapes"), so that a mismatch of
    two arguments names both.
    """
    array = _check.finite_array(value, name)
    if array.ndim != len(shape) or any(want not in (-1, got)
                                       for want, got in zip(shape, array.shape, strict=True)):
        wanted = ", ".join("n" if length == -1 else str(length) for length in shape)
        wanted = f"({wanted},)" if len(shape) == 1 else f"({wanted})"
        each = f", one row per {per}," if per else ""
        raise ValueError(f"{name} must have shape {wanted}{each} got shape {array.shape}")
    return array


def whole_numbers(value, name: str, shape: tuple, low: int, high: int,
                  per: str = "") -> np.ndarray:
    """An int64 array of ``shape`` whose entries are whole numbers in ``[low, high]``."""
    array = rows(value, name, shape, per)
    if np.any(array != np.floor(array)) or np.any(array < low) or np.any(array > high):
        raise ValueError(f"{name} must hold whole numbers from {low} to {high}")
    return array.astype(np.int64)


def finite(compute: Callable, what: str):
    """``compute()``, refused if it overflowed: ``what`` says which arguments did it.

    Drawing coordinates are sums and products of the arguments, each finite on its own;
    their overflow is reported here, as an error, rather than as a numpy warning.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        values = compute()
    if not np.all(np.isfinite(values)):
        raise FloatingPointError(f"{what} overflows the float range")
    return values


def styled(make: Callable, style: dict, name: str = "style"):
    """``make(**style)``, with matplotlib's complaints about ``style`` naming it.

    Extra keyword arguments go to matplotlib as artist properties (``linestyle="--"``);
    an unknown property or a bad value of one is reported as an error in ``style``.
    """
    try:
        return make(**style)
    except AttributeError as error:  # matplotlib's word for an unknown property
        raise TypeError(f"{name}: {error}") from None
    except OverflowError as error:  # an int such as 10**400 given as a width
        raise ValueError(f"{name}: {error}") from None
    except (TypeError, ValueError) as error:
        raise type(error)(f"{name}: {error}") from None
