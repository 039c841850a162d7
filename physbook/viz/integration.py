"""Plots for the integration and timestepping chapters: convergence, orbits, frame timelines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from physbook import _check
from physbook.viz import _arguments

#: One colour per integration method, the same in every figure of the book.
METHOD_COLORS = {
    "explicit_euler": "tab:red",
    "symplectic_euler": "tab:blue",
    "position_verlet": "tab:olive",
    "velocity_verlet": "tab:green",
    "rk4": "tab:purple",
}


def _positive_series(values, name: str, length: int = -1) -> np.ndarray:
    """A 1-D array of finite, positive values (``length`` of them, one per time step in
    ``dts``, unless it is -1)."""
    values = _arguments.rows(values, name, (length,), "entry of dts" if length >= 0 else "")
    if np.any(values <= 0.0):
        raise ValueError(f"{name} must be positive for a log-log fit, got {values.min()}")
    return values


def _slope(dts: np.ndarray, errors, errors_name: str) -> float:
    """:func:`fitted_slope` of checked ``dts`` (s), naming ``errors`` as ``errors_name``."""
    errors = _positive_series(errors, errors_name, len(dts))
    slope, _ = np.polyfit(np.log(dts), np.log(errors), 1)
    return float(slope)


def _time_steps(dts) -> np.ndarray:
    """``dts`` (s), checked: at least two different positive values, so a line fits."""
    dts = _positive_series(dts, "dts")
    logs = np.log(dts)
    if len(dts) < 2 or logs.min() == logs.max():
        raise ValueError("dts must hold at least two different time steps for a fitted slope")
    return dts


def fitted_slope(dts, errors) -> float:
    """Least-squares slope of log(error) against log(dt): the measured order of accuracy.

    ``dts`` (s) and ``errors`` are equal-length sequences of positive numbers; ``dts`` must
    hold at least two different steps.
    """
    return _slope(_time_steps(dts), errors, "errors")


def plot_convergence(ax, dts, errors_by_method: Mapping[str, Sequence[float]]) -> dict:
    """Log-log plot of error against time step, one line per method, slopes in the legend.

    ``errors_by_method`` maps each method's name to its errors, one per time step in
    ``dts`` (s). Returns the fitted slope of each method.
    """
    ax = _arguments.axes(ax)
    dts = _time_steps(dts)
    errors_by_method = _methods(errors_by_method, "errors_by_method")
    slopes = {name: _slope(dts, errors, f"errors_by_method[{name!r}]")
              for name, errors in errors_by_method.items()}
    for name, errors in errors_by_method.items():
        label = f"{name}: slope {slopes[name]:.2f}"
        ax.loglog(dts, errors, "o-", color=METHOD_COLORS.get(name), label=label)
    ax.set_xlabel("time step dt (s)")
    ax.set_ylabel("largest position error (m)")
    ax.legend(fontsize="small")
    return slopes


def _methods(value, name: str) -> Mapping:
    """A non-empty mapping from method names (strings) to what each method drew."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping from method names to values, "
                        f"got {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} must hold at least one method")
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"{name} must have method names (strings) as keys, got {key!r}")
    return value


def draw_orbits(ax, trails: Mapping[str, np.ndarray], *, center=(0.0, 0.0), extent=2.5) -> None:
    """Draw orbit trails (each (n, 2), metres), a dot at each trail's end and the attractor.

    The view is the square of half-side ``extent`` (m) about ``center``.
    """
    ax = _arguments.axes(ax)
    trails = {name: _arguments.rows(trail, f"trails[{name!r}]", (-1, 2))
              for name, trail in _methods(trails, "trails").items()}
    for name, trail in trails.items():
        if len(trail) == 0:
            raise ValueError(f"trails[{name!r}] must hold at least one point")
    center = _check.vector(center, "center")
    extent = _check.positive_scalar(extent, "extent")
    _arguments.finite(lambda: np.array([center - extent, center + extent]),
                      "the view center ± extent")
    ax.plot(*center, marker="*", color="goldenrod", markersize=12)
    for name, trail in trails.items():
        color = METHOD_COLORS.get(name)
        ax.plot(trail[:, 0], trail[:, 1], color=color, lw=1.2, label=name)
        ax.plot(trail[-1, 0], trail[-1, 1], "o", color=color)
    ax.set_xlim(center[0] - extent, center[0] + extent)
    ax.set_ylim(center[1] - extent, center[1] + extent)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(loc="upper right", fontsize="small")


def plot_frame_timeline(ax, frame_times, steps, *, label=None, color=None) -> None:
    """Steps run by each frame against the wall-clock time at which the frame ends (s).

    ``frame_times`` (F,) are the frames' durations (s) and ``steps`` (F,) the physics steps
    each ran.
    """
    ax = _arguments.axes(ax)
    frame_times = _arguments.rows(frame_times, "frame_times", (-1,))
    if np.any(frame_times < 0.0):
        raise ValueError("frame_times must be durations, 0 or more")
    steps = _arguments.rows(steps, "steps", (len(frame_times),), "entry of frame_times")
    label = _arguments.text(label, "label")
    color = _arguments.colour(color, "color", optional=True)
    ends = _arguments.finite(lambda: np.cumsum(frame_times), "the sum of frame_times")
    ax.step(ends, steps, where="post", label=label, color=color)
    ax.set_xlabel("wall-clock time (s)")
    ax.set_ylabel("physics steps in the frame")
