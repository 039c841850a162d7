"""Plots for the integration and timestepping chapters: convergence, orbits, frame timelines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from physbook import _check

#: One colour per integration method, the same in every figure of the book.
METHOD_COLORS = {
    "explicit_euler": "tab:red",
    "symplectic_euler": "tab:blue",
    "position_verlet": "tab:olive",
    "velocity_verlet": "tab:green",
    "rk4": "tab:purple",
}


def fitted_slope(dts, errors) -> float:
    """Least-squares slope of log(error) against log(dt): the measured order of accuracy."""
    dts = _check.finite_array(dts, "dts")
    errors = _check.finite_array(errors, "errors")
    if dts.shape != errors.shape or dts.size < 2:
        raise ValueError("dts and errors must be equal-length sequences of at least 2 values")
    if np.any(dts <= 0) or np.any(errors <= 0):
        raise ValueError("dts and errors must be positive for a log-log fit")
    slope, _ = np.polyfit(np.log(dts), np.log(errors), 1)
    return float(slope)


def plot_convergence(ax, dts, errors_by_method: Mapping[str, Sequence[float]]) -> dict:
    """Log-log plot of error against time step, one line per method, slopes in the legend.

    Returns the fitted slope of each method.
    """
    slopes = {}
    for name, errors in errors_by_method.items():
        slope = fitted_slope(dts, errors)
        slopes[name] = slope
        label = f"{name}: slope {slope:.2f}"
        ax.loglog(dts, errors, "o-", color=METHOD_COLORS.get(name), label=label)
    ax.set_xlabel("time step dt (s)")
    ax.set_ylabel("largest position error (m)")
    ax.legend(fontsize="small")
    return slopes


def draw_orbits(ax, trails: Mapping[str, np.ndarray], *, center=(0.0, 0.0), extent=2.5) -> None:
    """Draw orbit trails (each (n, 2), metres), a dot at each trail's end and the attractor."""
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
    """Steps run by each frame against the wall-clock time at which the frame ends (s)."""
    ends = np.cumsum(frame_times)
    ax.step(ends, steps, where="post", label=label, color=color)
    ax.set_xlabel("wall-clock time (s)")
    ax.set_ylabel("physics steps in the frame")
