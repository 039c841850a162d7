"""Chapter 14: cutting a simple polygon into convex pieces the engine can use.

- :func:`triangulate`: ear clipping. A corner whose triangle with its two neighbours turns
  left and holds no other corner is an *ear*; cutting it off leaves a simple polygon with
  one corner fewer, and every simple polygon with more than three corners has two ears
  (Meisters), so n − 2 cuts make n − 2 triangles.
- :func:`decompose` with ``"hertel_mehlhorn"``: triangulate, then remove each diagonal
  whose two sides merge into a convex piece. No piece can then be merged with a neighbour,
  which bounds the count at four times the fewest convex pieces possible.
- :func:`decompose` with ``"bayazit"``: cut at a reflex corner to a corner it can see
  between where its two edges, extended, meet the outline (or to the middle of those two
  points), preferring a reflex corner that the cut fixes too, then any reflex corner, then
  the nearest; repeat on both halves. Each cut fixes at least one reflex corner and makes
  none, so r reflex corners give at most r + 1 pieces (twice the fewest possible); the cuts
  may add corners.

Outlines may run either way round; they are made counter-clockwise first, and corners on a
straight run are dropped (the same weld tolerance as :mod:`~physbook.geometry.hull`).
Self-intersecting and degenerate outlines raise ``ValueError``.
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.geometry.hull import is_simple, outline_of
from physbook.geometry.round_shapes import Chain
from physbook.geometry.shapes import (
    Polygon,
    require_not_collinear,
    scale_exponent,
    twice_signed_area,
    without_collinear,
)
from physbook.vecmath.kernels import cross

#: The decomposition methods by name.
DECOMPOSITION_METHODS = ("hertel_mehlhorn", "bayazit")


def _counter_clockwise(outline) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(points as given, their scaled copy, the corner indices counter-clockwise without
    straight runs, the weld tolerance) of a checked simple outline."""
    points, local, weld = outline_of(outline, "outline")
    require_not_collinear(local, weld, "outline")
    if not is_simple(points):
        raise ValueError("outline must be a simple polygon: its edges cross or touch, or "
                         "two corners coincide")
    order = np.arange(len(points))
    if twice_signed_area(local) < 0.0:
        order = order[::-1].copy()
    try:
        order = without_collinear(local, order, weld)
    except ValueError:
        raise ValueError("outline must enclose a non-zero area (all points on a line)") from None
    return points, local, order, weld


@njit
def _inside_triangle(points, a, b, c, p, weld):
    """Whether p lies in the counter-clockwise triangle abc or within ``weld`` of it."""
    for u, v in ((a, b), (b, c), (c, a)):
        dx = points[v, 0] - points[u, 0]
        dy = points[v, 1] - points[u, 1]
        if cross(dx, dy, points[p, 0] - points[u, 0], points[p, 1] - points[u, 1]) < \
                -weld * np.hypot(dx, dy):
            return False
    return True


@njit
def ear_clipping(points, order, weld, trace):
    """Triangles (n − 2, 3) of the counter-clockwise simple outline ``points[order]``, by
    clipping ears; ``trace`` (k,) records the first k ears' middle corners. Returns the
    triangles found and how many (fewer than n − 2 only if no ear was found, which a simple
    outline rules out; the caller reports it)."""
    n = order.shape[0]
    previous = np.empty(n, np.int64)
    following = np.empty(n, np.int64)
    for k in range(n):
        previous[k] = (k - 1) % n
        following[k] = (k + 1) % n
    triangles = np.empty((max(n - 2, 0), 3), np.int64)
    count = 0
    remaining = n
    k = 0
    misses = 0
    while remaining > 3 and misses <= remaining:
        a, b, c = order[previous[k]], order[k], order[following[k]]
        ear = cross(points[b, 0] - points[a, 0], points[b, 1] - points[a, 1],
                    points[c, 0] - points[b, 0], points[c, 1] - points[b, 1]) > 0.0
        if ear:
            # No other remaining corner may lie in (or on) the triangle.
            j = following[following[k]]
            while j != previous[k]:
                p = order[j]
                if p != a and p != b and p != c and _inside_triangle(points, a, b, c, p, weld):
                    ear = False
                    break
                j = following[j]
        if ear:
            triangles[count, 0] = a
            triangles[count, 1] = b
            triangles[count, 2] = c
            if count < trace.shape[0]:
                trace[count] = b
            count += 1
            following[previous[k]] = following[k]
            previous[following[k]] = previous[k]
            remaining -= 1
            k = previous[k]
            misses = 0
        else:
            k = following[k]
            misses += 1
    if remaining == 3:
        triangles[count, 0] = order[previous[k]]
        triangles[count, 1] = order[k]
        triangles[count, 2] = order[following[k]]
        count += 1
    return triangles, count


def triangulate(outline) -> np.ndarray:
    """The triangles of a simple polygon by ear clipping: (n − 2, 3) indices into
    ``outline`` ((n, 2) points, either winding), each triangle counter-clockwise. Corners
    on a straight run join no triangle of their own."""
    _, local, order, weld = _counter_clockwise(outline)
    return _triangles(local, order, weld)


def _triangles(local, order, weld) -> np.ndarray:
    """Ear clipping's triangles of a prepared outline, or ``ValueError`` if it got stuck."""
    triangles, count = ear_clipping(local, order, weld, np.empty(0, np.int64))
    if count != len(order) - 2:
        raise ValueError("outline could not be triangulated: no ear was found, so it is not "
                         "a simple polygon within the weld tolerance")
    return triangles


def _turns_left(local, a, b, c, weld) -> bool:
    """Whether a → b → c turns left or runs straight (within ``weld``): b stays convex."""
    d = local[b] - local[a]
    e = local[c] - local[b]
    return float(d[0] * e[1] - d[1] * e[0]) >= -weld * float(np.hypot(*e))


def hertel_mehlhorn(local, triangles, weld, max_vertices=None, trace=None) -> list[list[int]]:
    """Merge the triangles across each diagonal whose removal leaves both its ends convex
    (and, if ``max_vertices`` is given, the piece no larger): the pieces as lists of
    corner indices, counter-clockwise. ``trace``, if a list, receives each diagonal tried
    and whether it was removed."""
    pieces = {k: [int(i) for i in triangle] for k, triangle in enumerate(triangles)}
    owner = {}
    for k, piece in pieces.items():
        for j in range(3):
            owner[(piece[j], piece[(j + 1) % 3])] = k
    diagonals = [(u, v) for (u, v) in owner if (v, u) in owner and u < v]
    for u, v in diagonals:
        first, second = owner[(u, v)], owner[(v, u)]
        a, b = pieces[first], pieces[second]
        # a runs … u → v …, b runs … v → u …: merged, a from v round to u, then b's corners
        # strictly between u and v.
        i, j = a.index(v), b.index(u)
        merged = a[i:] + a[:i]                      # v … u
        rest = b[j:] + b[:j]                        # u … v
        merged = merged + rest[1:-1]
        m = len(merged)
        ok = max_vertices is None or m <= max_vertices
        if ok:
            at_v, at_u = 0, merged.index(u)
            ok = (_turns_left(local, merged[at_v - 1], merged[at_v], merged[(at_v + 1) % m], weld)
                  and _turns_left(local, merged[at_u - 1], merged[at_u],
                                  merged[(at_u + 1) % m], weld))
        if trace is not None:
            trace.append(((u, v), ok))
        if not ok:
            continue
        pieces[first] = merged
        del pieces[second]
        for q in range(m):
            owner[(merged[q], merged[(q + 1) % m])] = first
    return list(pieces.values())


def decompose(outline, method: str = "hertel_mehlhorn", max_vertices: int | None = None, *,
              chain: bool = False) -> list[Polygon] | list[Chain]:
    """Convex pieces of a simple polygon ((n, 2) points, either winding), each a valid
    :class:`~physbook.geometry.shapes.Polygon`, whose union is the outline: for
    ``world.add_body(pb.decompose(outline), ...)``. ``method`` is one of
    :data:`DECOMPOSITION_METHODS`; ``max_vertices`` (≥ 3) caps the corners of a piece.

    With ``chain`` the outline is not cut at all: the answer is one closed
    :class:`~physbook.geometry.round_shapes.Chain` through its corners counter-clockwise
    (straight runs dropped), for a static body's surface with no seams to catch on. Bodies
    collide with it from outside; its ``reversed()`` holds them inside (a cave)."""
    method = _check.choice(method, "method", DECOMPOSITION_METHODS)
    chain = _check.flag(chain, "chain")
    if max_vertices is not None:
        if chain:
            raise ValueError("max_vertices must be None with chain=True: a chain is one "
                             "outline, with no pieces to cap")
        max_vertices = _check.integer(max_vertices, "max_vertices", 3)
    points, local, order, weld = _counter_clockwise(outline)
    if chain:
        try:
            return [Chain(points[order], loop=True)]
        except ValueError as error:
            raise ValueError(f"outline cannot make a chain: {error}") from None
    if method == "hertel_mehlhorn":
        triangles = _triangles(local, order, weld)
        return [Polygon(points[piece]) for piece in hertel_mehlhorn(local, triangles, weld,
                                                                    max_vertices)]
    # Bayazit works on coordinates (its cuts may add corners): the outline's own corners go
    # back to their given coordinates, new ones from the scaled copy.
    given = {tuple(local[k]): points[k] for k in order}
    scale = np.ldexp(1.0, scale_exponent(points))
    pieces = [split for piece in bayazit(local[order], weld)
              for split in _at_most(piece, max_vertices)]
    return [Polygon(np.array([given.get(tuple(p), p * scale + points[0]) for p in piece]))
            for piece in pieces]


def _at_most(piece: np.ndarray, max_vertices: int | None) -> list[np.ndarray]:
    """A convex piece cut into fans of at most ``max_vertices`` corners."""
    if max_vertices is None or len(piece) <= max_vertices:
        return [piece]
    pieces = []
    while len(piece) > max_vertices:
        pieces.append(piece[:max_vertices])
        piece = np.vstack([piece[:1], piece[max_vertices - 1:]])
    return pieces + [piece]


# --- Bayazit: split at reflex corners ---------------------------------------------------


def _area(a, b, c) -> float:
    """Twice the signed area of abc: > 0 when c lies left of a → b."""
    return float((b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]))


def _segment_hit(p1, p2, q1, q2):
    """Where the line through p1, p2 meets the line through q1, q2 (None if parallel)."""
    a1, b1 = p2[1] - p1[1], p1[0] - p2[0]
    a2, b2 = q2[1] - q1[1], q1[0] - q2[0]
    determinant = a1 * b2 - a2 * b1
    if determinant == 0.0:
        return None
    c1, c2 = a1 * p1[0] + b1 * p1[1], a2 * q1[0] + b2 * q1[1]
    return np.array([(b2 * c1 - b1 * c2) / determinant, (a1 * c2 - a2 * c1) / determinant])


def _crosses(a, b, c, d, weld) -> bool:
    """Whether segments ab and cd cross at a point inside both (touching ends excluded)."""
    d1, d2 = _area(a, b, c), _area(a, b, d)
    d3, d4 = _area(c, d, a), _area(c, d, b)
    scale = weld * max(float(np.hypot(*(b - a))), float(np.hypot(*(d - c))))
    return ((d1 > scale and d2 < -scale) or (d1 < -scale and d2 > scale)) and \
        ((d3 > scale and d4 < -scale) or (d3 < -scale and d4 > scale))


def _clear(ring, i, point, edge, weld) -> bool:
    """Whether the segment from corner i to ``point`` (on edge ``edge`` → ``edge`` + 1)
    crosses no other edge of ``ring``."""
    n = len(ring)
    for k in range(n):
        if k in (edge, i, (i - 1) % n):
            continue
        if _crosses(ring[i], point, ring[k], ring[(k + 1) % n], weld):
            return False
    return True


def _sees(ring, i, j, weld) -> bool:
    """Whether corner j of the counter-clockwise ``ring`` can be joined to corner i by a
    diagonal inside the polygon: it starts into the interior at i and crosses no edge."""
    n = len(ring)
    at = ring
    # Into the interior at the reflex corner i: not right of both edges that meet there.
    if _area(at[(i - 1) % n], at[i], at[j]) < 0.0 and _area(at[i], at[(i + 1) % n], at[j]) < 0.0:
        return False
    for k in range(n):
        if k in (i, j) or (k + 1) % n in (i, j):
            continue
        if _crosses(at[i], at[j], at[k], at[(k + 1) % n], weld):
            return False
    return True


def bayazit(ring: np.ndarray, weld: float, trace: list | None = None,
            max_pieces: int | None = None, prefer_reflex: bool = True) -> list[np.ndarray]:
    """Mark Bayazit's decomposition of the counter-clockwise simple polygon ``ring``
    ((n, 2) points): find a reflex corner, cut from it to the best corner it can see
    between where its two edges, extended, meet the outline, or, if none lies there, to the
    midpoint of the two meeting points (a new corner); repeat on both sides. A polygon with
    no reflex corner is a piece. Returns the pieces as (m, 2) arrays; ``trace``, if a list,
    receives each cut (corner, point reached).

    The best corner is Bayazit's: a reflex corner whose own reflex angle the cut also
    splits below π, else a reflex corner, else a convex one, the nearest of its kind
    (his score 1/(d² + 1) + 3, 2 or 1, whose distance term stays below 1). With
    ``prefer_reflex=False``, simply the nearest."""
    pieces = []
    stack = [np.asarray(ring, float)]
    limit = max_pieces if max_pieces is not None else 4 * len(ring) + 4
    while stack:
        if len(pieces) + len(stack) > limit:
            raise ValueError("outline could not be decomposed: the cuts did not converge "
                             "(a piece kept splitting)")
        poly = stack.pop()
        n = len(poly)
        cut = None
        for i in range(n):
            before, here, after = poly[i - 1], poly[i], poly[(i + 1) % n]
            if _area(before, here, after) >= -weld * float(np.hypot(*(after - here))):
                continue  # convex or straight: not reflex
            cut = _bayazit_cut(poly, i, weld, prefer_reflex)
            break
        if cut is None:
            pieces.append(poly)
            continue
        corner, (lower, upper), reached = cut
        if trace is not None:
            trace.append((poly[corner].copy(), reached))
        stack.extend(sorted((lower, upper), key=len, reverse=True))  # the smaller first
    return pieces


def _bayazit_cut(poly, i, weld, prefer_reflex=True):
    """The two polygons on either side of the cut from reflex corner i (see :func:`bayazit`),
    with the point the cut reaches."""
    n = len(poly)

    def at(k):
        return poly[k % n]

    def rank(k):
        # Bayazit's score as (kind, −distance²), compared in that order: kind 3 for a
        # reflex corner k whose wedge holds corner i (the cut splits k's angle below π
        # on both sides, fixing two reflex corners at once), 2 for another reflex
        # corner, 1 for a convex one; with prefer_reflex False, distance only.
        distance = float(np.sum((at(i) - at(k)) ** 2))
        if not prefer_reflex:
            return (0, -distance)
        kind = 1
        if _area(at(k - 1), at(k), at(k + 1)) < -weld * float(np.hypot(*(at(k + 1) - at(k)))):
            kind = 2
            if _area(at(k - 1), at(k), at(i)) >= 0.0 and _area(at(k + 1), at(k), at(i)) <= 0.0:
                kind = 3
        return (kind, -distance)

    lower_distance = upper_distance = np.inf
    lower_point = upper_point = None
    lower_index = upper_index = 0
    for j in range(n):
        # The edge i−1 → i extended forward meets edge j−1 → j.
        if _area(at(i - 1), at(i), at(j)) > 0.0 and _area(at(i - 1), at(i), at(j - 1)) <= 0.0:
            point = _segment_hit(at(i - 1), at(i), at(j), at(j - 1))
            if point is not None and _area(at(i + 1), at(i), point) < 0.0:
                distance = float(np.sum((at(i) - point) ** 2))
                if distance < lower_distance:
                    lower_distance, lower_point, lower_index = distance, point, j
        # The edge i + 1 → i extended backward meets edge j → j + 1.
        if _area(at(i + 1), at(i), at(j + 1)) > 0.0 and _area(at(i + 1), at(i), at(j)) <= 0.0:
            point = _segment_hit(at(i + 1), at(i), at(j), at(j + 1))
            if point is not None and _area(at(i - 1), at(i), point) > 0.0:
                distance = float(np.sum((at(i) - point) ** 2))
                if distance < upper_distance:
                    upper_distance, upper_point, upper_index = distance, point, j
    if lower_point is None or upper_point is None:
        raise ValueError("outline could not be decomposed: a reflex corner's edges, "
                         "extended, do not meet the outline (not a simple polygon?)")
    point = 0.5 * (lower_point + upper_point)
    if lower_index == (upper_index + 1) % n and _clear(poly, i, point, upper_index, weld):
        # No corner between the two meeting points, which lie on one edge: cut to their
        # midpoint, a new corner (if nothing stands between it and corner i).
        if i < upper_index:
            lower = [poly[k] for k in range(i, upper_index + 1)] + [point]
            upper = [point] + ([poly[k] for k in range(lower_index, n)] if lower_index != 0
                               else []) + [poly[k] for k in range(0, i + 1)]
        else:
            lower = ([poly[k] for k in range(i, n)] if i != 0 else []) + \
                [poly[k] for k in range(0, upper_index + 1)] + [point]
            upper = [point] + [poly[k] for k in range(lower_index, i + 1)]
        return i, (np.array(lower), np.array(upper)), point
    # Else the nearest corner it can see between them.
    if lower_index == (upper_index + 1) % n:
        lower_index, upper_index = 0, n - 1  # the midpoint was blocked: look everywhere
    stop = upper_index + n if lower_index > upper_index else upper_index
    best, best_rank = -1, None
    for j in range(lower_index, stop + 1):
        k = j % n
        if k == i or k == (i - 1) % n or k == (i + 1) % n:
            continue
        if (_area(at(i - 1), at(i), at(k)) >= 0.0 and _area(at(i + 1), at(i), at(k)) <= 0.0
                and _sees(poly, i, k, weld)):
            score = rank(k)
            if best_rank is None or score > best_rank:
                best, best_rank = k, score
    best_distance = np.inf
    if best < 0:
        # None in that range is visible: any visible corner will do.
        for k in range(n):
            if k not in (i, (i - 1) % n, (i + 1) % n) and _sees(poly, i, k, weld):
                distance = float(np.sum((at(i) - at(k)) ** 2))
                if distance < best_distance:
                    best, best_distance = k, distance
    if best < 0:
        raise ValueError("outline could not be decomposed: a reflex corner sees no corner")
    if i < best:
        lower = poly[i:best + 1]
        upper = np.vstack([poly[best:], poly[:i + 1]])
    else:
        lower = np.vstack([poly[i:], poly[:best + 1]])
        upper = poly[best:i + 1]
    return i, (lower, upper), poly[best].copy()
