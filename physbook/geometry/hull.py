"""Chapter 14: convexity, and the convex hull of a set of points by three methods.

The engine's polygons must be convex (support functions, SAT and GJK need it), so this
module answers three questions about an outline and builds the smallest convex polygon
around any set of points:

- :func:`orientation`: which way an outline runs (the sign of its area);
- :func:`is_simple`: whether its edges cross or touch anywhere but at shared corners;
- :func:`is_convex`: whether it is simple and turns the same way at every corner;
- :func:`convex_hull`: Andrew's **monotone chain** (sort, then two passes, O(n log n)),
  **quickhull** (split by the farthest point, O(n log n) expected) or **gift wrapping**
  (Jarvis' march, O(n·h) for h hull corners).

Every test of a turn works on the points moved to the first one and scaled by a power of
two to about unit size (an exact operation), with one tolerance: points closer than
``WELD_TOLERANCE`` times the set's size count as one, and a point that close to the line
through two others counts as on it. The three methods return the same hull: corners only
(collinear and duplicate points dropped), counter-clockwise, starting at the lowest of the
leftmost points.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.constants import WELD_TOLERANCE
from physbook.geometry.shapes import (
    CROSSING_SEARCH_BUDGET,
    first_crossing,
    twice_signed_area,
    without_collinear,
)
from physbook.vecmath.kernels import cross

#: The hull methods by name.
HULL_METHODS = ("monotone_chain", "quickhull", "gift_wrapping")


def _unit_points(points, name: str) -> tuple[np.ndarray, np.ndarray, float]:
    """(points as given, the same moved to point 0 and scaled to about unit size, the weld
    tolerance at that scale) for a checked (N, 2) array of at least one finite point."""
    points = _check.finite_array(points, name)
    if points.ndim != 2 or points.shape[1] != 2 or len(points) == 0:
        raise ValueError(f"{name} must have shape (n, 2) with n ≥ 1, got {points.shape}")
    with np.errstate(over="ignore"):
        size = float(np.max(np.ptp(points, axis=0)))
    if not math.isfinite(size):
        raise ValueError(f"{name} span more than the largest float on one axis")
    exponent = math.frexp(size)[1] if size > 0.0 else 0
    local = np.ldexp(points - points[0], -exponent)
    weld = WELD_TOLERANCE * math.ldexp(size, -exponent)
    return points, local, weld


# --- an outline: orientation, simplicity, convexity ------------------------------------


def outline_of(points, name: str = "points") -> tuple[np.ndarray, np.ndarray, float]:
    points, local, weld = _unit_points(points, name)
    if len(points) < 3:
        raise ValueError(f"{name} must hold at least 3 points for an outline, got {len(points)}")
    return points, local, weld


def orientation(points) -> int:
    """+1 if the closed outline ``points`` (n ≥ 3, (n, 2)) runs counter-clockwise, −1 if
    clockwise: the sign of its area (shoelace formula). Raises ``ValueError`` when the
    area is zero within the weld tolerance (all points on a line)."""
    _, local, weld = outline_of(points)
    twice_area = twice_signed_area(local)
    if abs(twice_area) <= weld * max(float(np.max(np.ptp(local, axis=0))), weld):
        raise ValueError("points must enclose a non-zero area to have an orientation")
    return 1 if twice_area > 0.0 else -1


def is_simple(points) -> bool:
    """Whether the closed outline ``points`` is simple: no two edges cross or touch except
    neighbours at their shared corner, and no two corners coincide (within the weld
    tolerance). Outlines of up to a few thousand points; longer ones raise ``ValueError``
    rather than take too long."""
    _, local, weld = outline_of(points)
    ring = np.arange(len(local))
    following = np.roll(local, -1, axis=0)
    if np.any(np.hypot(*(following - local).T) <= weld):
        return False  # a repeated corner: a zero-length edge
    first, _ = first_crossing(local, ring, weld, CROSSING_SEARCH_BUDGET)
    if first == -2:
        raise ValueError(f"points: {len(local)} points are too many to test for crossings "
                         f"within {CROSSING_SEARCH_BUDGET} edge pairs")
    if first >= 0:
        return False
    # Neighbouring edges can only meet badly by folding back along each other.
    edges = following - local
    turned = np.roll(edges, -1, axis=0)
    back = (np.abs(edges[:, 0] * turned[:, 1] - edges[:, 1] * turned[:, 0])
            <= weld * np.hypot(*turned.T)) & (np.sum(edges * turned, axis=1) < 0.0)
    return not bool(np.any(back))


def is_convex(points) -> bool:
    """Whether the closed outline ``points`` is a convex polygon: simple, of non-zero area,
    and turning the same way at every corner (corners on a straight run are allowed)."""
    _, local, weld = outline_of(points)
    edges = np.roll(local, -1, axis=0) - local
    turned = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * turned[:, 1] - edges[:, 1] * turned[:, 0]
    straight = np.abs(turns) <= weld * np.hypot(*turned.T)
    if np.all(straight):
        return False  # no area
    signs = np.sign(turns[~straight])
    if not (np.all(signs > 0) or np.all(signs < 0)):
        return False
    # Turning one way at every corner, a star turns around more than once: check the total.
    angles = np.arctan2(turns, np.sum(edges * turned, axis=1))
    return round(abs(float(np.sum(angles))) / (2.0 * np.pi)) == 1 and is_simple(points)


# --- convex hulls ------------------------------------------------------------------------


@njit
def _left_of(points, a, b, c, weld):
    """Whether c lies left of the line a → b by more than ``weld``."""
    dx = points[b, 0] - points[a, 0]
    dy = points[b, 1] - points[a, 1]
    return cross(dx, dy, points[c, 0] - points[a, 0], points[c, 1] - points[a, 1]) > \
        weld * math.hypot(dx, dy)


@njit
def monotone_chain(points, order, weld, trace):
    """Andrew's monotone chain over ``points[order]`` (sorted by x, then y): the lower hull
    left to right, then the upper hull right to left, each a stack from which the top is
    popped while it does not make a left turn towards the next point. Returns the hull's
    indices, counter-clockwise from the first sorted point. ``trace`` (k, n) records the
    stack after each of the first k pushes (−1 beyond its top)."""
    n = order.shape[0]
    hull = np.empty(2 * n, np.int64)
    top = 0
    pushes = 0
    n_lower = 0
    for s in range(2 * n - 1):
        # Left to right for the lower hull, then back (without the last point again).
        index = order[s] if s < n else order[2 * n - 2 - s]
        floor = 2 if s < n else n_lower + 1
        while top >= floor and not _left_of(points, hull[top - 2], hull[top - 1], index, weld):
            top -= 1
        hull[top] = index
        top += 1
        if s == n - 1:
            n_lower = top
        if pushes < trace.shape[0]:
            trace[pushes, :] = -1
            kept = min(top, trace.shape[1])
            trace[pushes, :kept] = hull[:kept]
        pushes += 1
    return hull[:top - 1].copy()  # the last point is the first again


@njit
def gift_wrapping(points, start, weld, trace):
    """Jarvis' march from ``start`` (a hull corner): from each corner p, the next is the
    point q with no point right of p → q, the farthest one if several lie on that line.
    Stops on returning to ``start``, or after n corners (it has then failed, and returns
    what it has). ``trace`` (k, 2) records each corner chosen and the running count of
    candidate tests (its cost)."""
    n = points.shape[0]
    hull = np.empty(n, np.int64)
    count = 0
    p = start
    tests = 0
    while count < n:
        hull[count] = p
        count += 1
        q = 1 if p == 0 else 0
        for r in range(n):
            if r == p or r == q:
                continue
            tests += 1
            if _left_of(points, p, r, q, weld):
                q = r  # r lies right of p → q: q is no corner
            elif not _left_of(points, p, q, r, weld):
                # On the line p → q (within the tolerance): the farther point is the corner.
                if ((points[r, 0] - points[p, 0]) ** 2 + (points[r, 1] - points[p, 1]) ** 2
                        > (points[q, 0] - points[p, 0]) ** 2 + (points[q, 1] - points[p, 1]) ** 2):
                    q = r
        if count - 1 < trace.shape[0]:
            trace[count - 1, 0] = p
            trace[count - 1, 1] = tests
        p = q
        if p == start:
            break
    return hull[:count].copy()


def quickhull(points, left: int, right: int, weld: float, trace: list | None = None):
    """Quickhull between the corners ``left`` and ``right``: the points right of a chord are
    split by the one farthest from it, which is a corner, and the two new chords are worked
    the same way (with an explicit stack, so that no input deepens the recursion). Returns
    the hull's indices counter-clockwise from ``left``. ``trace``, if a list, receives
    each chord (a, b) with the farthest point found beyond it (or −1)."""
    everyone = np.arange(len(points))

    def beyond(a, b, candidates):
        # The candidates right of a → b by more than the weld tolerance, and how far.
        d = points[b] - points[a]
        if not d.any():  # a and b coincide: every point is one
            return candidates[:0], np.zeros(0)
        offsets = points[candidates] - points[a]
        distance = (offsets[:, 0] * d[1] - offsets[:, 1] * d[0]) / math.hypot(*d)
        keep = distance > weld
        return candidates[keep], distance[keep]

    hull = []
    stack = [(right, left, beyond(right, left, everyone)),
             (left, right, beyond(left, right, everyone))]
    while stack:
        a, b, (candidates, distance) = stack.pop()
        if not len(candidates):
            hull.append(a)
            if trace is not None:
                trace.append((a, b, -1))
            continue
        far = int(candidates[np.argmax(distance)])
        if trace is not None:
            trace.append((a, b, far))
        stack.append((far, b, beyond(far, b, candidates)))
        stack.append((a, far, beyond(a, far, candidates)))
    return np.array(hull, np.int64)


def convex_hull(points, method: str = "monotone_chain") -> np.ndarray:
    """The convex hull of (N, 2) ``points``: its corners, (h, 2), counter-clockwise from the
    lowest of the leftmost points, by ``method`` (one of :data:`HULL_METHODS`).

    Duplicate points and points on an edge of the hull are not corners. Points closer than
    ``WELD_TOLERANCE`` times the set's size count as one. Fewer than three distinct points
    not on one line have no hull: ``ValueError``.
    """
    method = _check.choice(method, "method", HULL_METHODS)
    points, local, weld = _unit_points(points, "points")
    order = np.lexsort((local[:, 1], local[:, 0]))
    if method == "monotone_chain":
        hull = monotone_chain(local, order, weld, np.empty((0, 0), np.int64))
    elif method == "gift_wrapping":
        hull = gift_wrapping(local, int(order[0]), weld, np.empty((0, 2), np.int64))
    else:
        hull = quickhull(local, int(order[0]), int(order[-1]), weld)
    return points[_corners(local, hull, weld)]


def _corners(local, hull: np.ndarray, weld: float) -> np.ndarray:
    """The hull's indices without repeats or points on a straight run, from its first."""
    if len(hull) < 3:
        raise ValueError("points must hold at least 3 distinct points not on one line to "
                         "have a convex hull")
    try:
        corners = without_collinear(local, hull, weld)
    except ValueError:
        raise ValueError("points must hold at least 3 distinct points not on one line to "
                         "have a convex hull") from None
    first = np.lexsort((local[corners, 1], local[corners, 0]))[0]
    return np.roll(corners, -first)
