"""Chapter 17: the poses a frame is drawn at, between two fixed steps.

A display draws at its own rate, physics steps at a fixed ``dt``; chapter 3's accumulator
leaves a fraction ``alpha`` of a step undone at each frame, and the frame shows the bodies
that fraction of the way from the previous step to the current one. Centres of mass move on
straight lines between steps, angles turn the short way round (from 179° to −179° is 2°, not
358°), and each origin follows its centre and angle: origin = c − R(θ)·local_c, as the
world keeps it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.vecmath.timestep import interpolate


class Poses(NamedTuple):
    """Where each body of a world is: (N, 2) ``origins`` (m), (N, 2) ``centers`` of mass (m),
    (N,) ``angles`` (rad); the order :func:`~physbook.draw.draw_world`'s ``poses`` takes."""

    origins: np.ndarray
    centers: np.ndarray
    angles: np.ndarray


def _poses(value, name: str) -> Poses:
    """``value`` as Poses: (N, 2) origins, (N, 2) centers, (N,) angles, finite."""
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        raise TypeError(f"{name} must be Poses (origins, centers, angles), got "
                        f"{type(value).__name__}")
    origins, centers, angles = (_check.finite_array(part, f"{name}.{field}")
                                for part, field in zip(value, Poses._fields, strict=True))
    count = len(angles) if angles.ndim == 1 else -1
    if count < 0 or origins.shape != (count, 2) or centers.shape != (count, 2):
        raise ValueError(f"{name} must hold (N, 2) origins, (N, 2) centers and (N,) angles "
                         f"of the same N bodies, got shapes {origins.shape}, "
                         f"{centers.shape} and {angles.shape}")
    return Poses(origins, centers, angles)


def body_poses(world) -> Poses:
    """A copy of the poses of every body of ``world`` (they change in place as it steps)."""
    bodies = world.bodies
    return Poses(bodies.origins.copy(), bodies.centers.copy(), bodies.angles.copy())


def interpolate_poses(previous: Poses, current: Poses, alpha: float,
                      local_centers) -> Poses:
    """The poses ``alpha`` of a step from ``previous`` to ``current``.

    Parameters
    ----------
    previous, current
        :class:`Poses` of the same bodies before and after one step.
    alpha
        Fraction of the step, in [0, 1]: 0 gives ``previous``, 1 gives ``current``, both
        exactly.
    local_centers
        (N, 2) each body's centre of mass in its own frame (m), ``world.bodies.local_centers``.

    Returns
    -------
    Poses
        Centres c = (1 − α)·c₀ + α·c₁; angles θ = θ₀ + α·wrap(θ₁ − θ₀), with wrap into
        [−π, π) (the short way round); origins c − R(θ)·local_c.
    """
    alpha = _check.finite_scalar(alpha, "alpha")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    previous, current = _poses(previous, "previous"), _poses(current, "current")
    count = len(current.angles)
    local_centers = _check.finite_array(local_centers, "local_centers")
    if len(previous.angles) != count:
        raise ValueError(f"previous and current must hold the poses of the same bodies, got "
                         f"{len(previous.angles)} and {count}")
    if local_centers.shape != (count, 2):
        raise ValueError(f"local_centers must have shape ({count}, 2), got "
                         f"{local_centers.shape}")
    if alpha == 0.0:
        return previous
    if alpha == 1.0:
        return current
    centers = interpolate(previous.centers, current.centers, alpha)
    turn = np.mod(current.angles - previous.angles + math.pi, 2.0 * math.pi) - math.pi
    angles = previous.angles + alpha * turn
    cosine, sine = np.cos(angles), np.sin(angles)
    origins = np.column_stack([
        centers[:, 0] - (cosine * local_centers[:, 0] - sine * local_centers[:, 1]),
        centers[:, 1] - (sine * local_centers[:, 0] + cosine * local_centers[:, 1])])
    return Poses(origins, centers, angles)
