"""Quality measures of the scenes: pure functions of recorded positions and velocities.

They take numbers, not worlds, so that the benchmark judges physbook and other engines
(pymunk, Box2D) with the same code.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check


def bounce_apexes(height: float, radius: float, restitution: float, count: int = 4):
    """Analytic apex heights of the centre after bounce 1..count: r + (h0 − r)·e^(2n) (m)."""
    n = np.arange(1, _check.positive_int(count, "count") + 1)
    return radius + (height - radius) * restitution ** (2 * n)


def apex_heights(heights, count: int = 4) -> np.ndarray:
    """The first ``count`` apexes of a bouncing height series (m), after its first fall.

    An apex is a sample higher than the one before it and not lower than the one after;
    the start (a release from rest) is not one. Fewer are returned if the series has fewer.
    """
    heights = _check.finite_array(heights, "heights")
    count = _check.positive_int(count, "count")
    inner = heights[1:-1]
    peaks = np.nonzero((inner > heights[:-2]) & (inner >= heights[2:]))[0] + 1
    return heights[peaks[:count]]


def ramp_motion(distances, dt: float, slide_threshold: float = 0.1):
    """Which ramp boxes slide, and their acceleration down the slope.

    Parameters
    ----------
    distances
        (F, B) each box's position along the slope over F frames (m, up positive).
    dt
        Time between frames (s).
    slide_threshold
        A box slides if it moved farther than this down the slope (m).

    Returns
    -------
    slides : (B,) bool
    accelerations : (B,) m/s², from a least-squares fit s(t) = s0 + v0·t − a·t²/2 over
        the frames (positive down the slope).
    """
    distances = _check.finite_array(distances, "distances")
    if distances.ndim != 2 or len(distances) < 3:
        raise ValueError(f"distances must have shape (F, B) with F >= 3 frames to fit a "
                         f"parabola, got shape {distances.shape}")
    dt = _check.positive_scalar(dt, "dt")
    times = dt * np.arange(len(distances))
    moved = distances[0] - distances.min(axis=0)
    design = np.column_stack([np.ones_like(times), times, -0.5 * times**2])
    coefficients, *_ = np.linalg.lstsq(design, distances, rcond=None)
    return moved > slide_threshold, coefficients[2]


def ramp_accelerations(angle: float, frictions, gravity: float = 10.0) -> np.ndarray:
    """g·(sin θ − μ cos θ) where the box slides (μ < tan θ), else 0 (m/s²).

    ``angle`` is the slope (rad), ``frictions`` the pair coefficients μ, ``gravity`` g (m/s²).
    """
    angle = _check.finite_scalar(angle, "angle")
    frictions = _check.finite_array(frictions, "frictions")
    gravity = _check.positive_scalar(gravity, "gravity")
    slide = gravity * (math.sin(angle) - frictions * math.cos(angle))
    return np.where(frictions < math.tan(angle), slide, 0.0)


def _wrap_quarter_turn(angles: np.ndarray) -> np.ndarray:
    # A square looks the same after a quarter turn: tilt is the distance to the nearest one.
    return (angles + 0.25 * np.pi) % (0.5 * np.pi) - 0.25 * np.pi


def pyramid_quality(start_centers, end_centers, end_angles, top: int = -1) -> dict:
    """Displacements of the pyramid's boxes between two states (boxes only, in order).

    Returns ``top_displacement`` (m, of box ``top``, the last by default),
    ``largest_displacement``, ``largest_slide`` (|Δx|, m), ``largest_tilt`` (rad, modulo a
    quarter turn) and ``standing``: no box slid over 0.5 m or tilted over 0.2 rad.
    """
    start = _check.finite_array(start_centers, "start_centers")
    end = _check.finite_array(end_centers, "end_centers")
    angles = _check.finite_array(end_angles, "end_angles")
    displacement = np.hypot(*(end - start).T)
    slide = np.abs(end[:, 0] - start[:, 0])
    tilt = np.abs(_wrap_quarter_turn(angles))
    return {
        "top_displacement": float(displacement[top]),
        "largest_displacement": float(displacement.max()),
        "largest_slide": float(slide.max()),
        "largest_tilt": float(tilt.max()),
        "standing": bool(slide.max() <= 0.5 and tilt.max() <= 0.2),
    }


def container_quality(centers, radius: float, half_width: float = 20.0) -> dict:
    """How well a container held its circles: ``escaped`` (centres outside the inner box
    |x| ≤ half_width, y ≥ 0), ``deepest_penetration`` into the floor (m, 0 if none) and
    ``pile_height`` (top of the highest circle inside, m)."""
    centers = _check.finite_array(centers, "centers")
    radius = _check.positive_scalar(radius, "radius")
    inside = (np.abs(centers[:, 0]) <= half_width) & (centers[:, 1] >= 0.0)
    held = centers[inside]
    deepest = float(max(0.0, radius - held[:, 1].min())) if len(held) else 0.0
    pile = float(held[:, 1].max() + radius) if len(held) else 0.0
    return {"escaped": int(np.count_nonzero(~inside)), "deepest_penetration": deepest,
            "pile_height": pile}


def structure_quality(start_centers, end_centers, start_angles, end_angles, *, top: int = -1,
                      max_displacement: float = 0.5, max_turn: float = 0.2) -> dict:
    """How far the pieces of a structure (a stack, a card house, an arch) moved.

    Returns ``top_displacement`` (m, of piece ``top``), ``top_drop`` (m, how far it sank),
    ``largest_displacement`` (m), ``largest_turn`` (rad, the largest change of angle) and
    ``standing``: no piece moved more than ``max_displacement`` or turned more than
    ``max_turn``.
    """
    start = _check.finite_array(start_centers, "start_centers")
    end = _check.finite_array(end_centers, "end_centers")
    turns = (_check.finite_array(end_angles, "end_angles")
             - _check.finite_array(start_angles, "start_angles"))
    max_displacement = _check.positive_scalar(max_displacement, "max_displacement")
    max_turn = _check.positive_scalar(max_turn, "max_turn")
    displacement = np.hypot(*(end - start).T)
    turn = np.abs((turns + np.pi) % (2.0 * np.pi) - np.pi)
    return {
        "top_displacement": float(displacement[top]),
        "top_drop": float(start[top, 1] - end[top, 1]),
        "largest_displacement": float(displacement.max()),
        "largest_turn": float(turn.max()),
        "standing": bool(displacement.max() <= max_displacement and turn.max() <= max_turn),
    }


def recovery_quality(deepest, fastest, dt: float, tolerance: float = 0.01) -> dict:
    """How a scene that starts overlapping came apart, from a run recorded step by step.

    ``deepest`` (F,) is the deepest contact of each step (m) and ``fastest`` (F,) the speed
    of the fastest body (m/s). Returns ``separated_after`` (s, the first time no contact is
    deeper than ``tolerance``, or None if that never happens) and ``fastest`` (m/s, over
    the whole run).
    """
    deepest = _check.finite_array(deepest, "deepest")
    fastest = _check.finite_array(fastest, "fastest")
    if deepest.shape != fastest.shape or deepest.ndim != 1 or len(deepest) == 0:
        raise ValueError(f"deepest and fastest must be equal (F,) series, got shapes "
                         f"{deepest.shape} and {fastest.shape}")
    dt = _check.positive_scalar(dt, "dt")
    tolerance = _check.non_negative_scalar(tolerance, "tolerance")
    apart = np.flatnonzero(deepest <= tolerance)
    return {"separated_after": float((apart[0] + 1) * dt) if len(apart) else None,
            "fastest": float(fastest.max())}
