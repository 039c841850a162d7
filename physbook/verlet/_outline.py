"""A Verlet body's outline: the loop its boundary edges close, and the rules it must keep.

The separating-axis test between Verlet bodies takes its axes from the boundary edges and
projects every particle of each body, which is exact only when the boundary edges close one
convex loop and every other particle of the body lies on or inside it.
"""

from __future__ import annotations

import math

import numpy as np

from physbook.constants import WELD_TOLERANCE


def outline_order(ends: np.ndarray) -> np.ndarray:
    """The particles of a body's boundary edges ``ends`` (k, 2), in order around its outline.

    The edges must close exactly one loop: k particles, each on two of the k edges.
    """
    nodes, degree = np.unique(ends, return_counts=True)
    if len(ends) < 3 or len(nodes) != len(ends) or np.any(degree != 2):
        raise ValueError("edges: a body's boundary edges must close one outline, each of its "
                         "particles on exactly two of them")
    neighbours: dict[int, list[int]] = {int(node): [] for node in nodes}
    for i, j in ends.tolist():
        neighbours[i].append(j)
        neighbours[j].append(i)
    order = [int(ends[0, 0]), int(ends[0, 1])]
    while len(order) < len(ends):
        a, b = neighbours[order[-1]]
        order.append(b if a == order[-2] else a)
    if len(set(order)) != len(order):
        raise ValueError("edges: a body's boundary edges must close one outline, not several "
                         "loops")
    return np.array(order, dtype=np.int64)


def convex_orientation(points: np.ndarray, order: np.ndarray) -> float:
    """+1 for a counter-clockwise, −1 for a clockwise convex outline; else ``ValueError``.

    Convex and simple means: every turn is strictly to the same side, and the turns add up
    to exactly one full turn (a pentagram turns the same way everywhere but goes round twice).
    """
    sides = np.roll(points, -1, axis=0) - points
    following = np.roll(sides, -1, axis=0)
    cross = sides[:, 0] * following[:, 1] - sides[:, 1] * following[:, 0]
    turns = np.arctan2(cross, np.sum(sides * following, axis=1))
    windings = turns.sum() / (2.0 * math.pi)
    orientation = 1.0 if windings > 0.0 else -1.0
    bent = np.flatnonzero(orientation * cross <= 0.0)
    if len(bent):
        corner = order[(bent[0] + 1) % len(order)]  # turn k is at the end of side k
        raise ValueError(f"edges: a body's outline must be convex, turning the same way at "
                         f"every particle; it does not at particle {corner}")
    if round(abs(windings)) != 1:
        raise ValueError(f"edges: a body's outline must go round once, but it goes round "
                         f"{round(abs(windings))} times (it crosses itself)")
    return orientation


def points_outside(outline: np.ndarray, orientation: float, points: np.ndarray) -> np.ndarray:
    """Indices of the ``points`` (k, 2) (m) outside a convex ``outline`` of ``orientation`` ±1.

    A point counts as on the outline within ``WELD_TOLERANCE`` of the outline's size.
    """
    if len(points) == 0:
        return np.zeros(0, dtype=np.int64)
    sides = np.roll(outline, -1, axis=0) - outline
    offsets = points[:, None, :] - outline[None, :, :]
    inside = orientation * (sides[:, 0] * offsets[..., 1] - sides[:, 1] * offsets[..., 0])
    size = np.ptp(outline, axis=0).max()
    tolerance = WELD_TOLERANCE * size * np.hypot(sides[:, 0], sides[:, 1])
    return np.flatnonzero(np.any(inside < -tolerance, axis=1))
