"""Chapter 14's triangulation and convex decomposition, against shapely, and the mass of a
body made from a concave outline against the outline's own formulas."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

import physbook as pb
from physbook.geometry import decompose


def star_outline(n, rng):
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = rng.uniform(0.3, 1.0, n)
    return np.column_stack([radii * np.cos(angles), radii * np.sin(angles)])


def untangled_outline(n, rng):
    """Random points joined in a random order, then untangled by 2-opt (reversing the run
    between two crossing edges shortens the outline, so it ends): a simple polygon that is
    seldom star-shaped."""
    points = rng.uniform(0.0, 1.0, (n, 2))
    order = list(range(n))

    def side(a, b, c):
        return np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

    for _ in range(10 * n):
        changed = False
        for i in range(n):
            for j in range(i + 2, n):
                if i == 0 and j == n - 1:
                    continue
                a, b = points[order[i]], points[order[i + 1]]
                c, d = points[order[j]], points[order[(j + 1) % n]]
                if side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0:
                    order[i + 1:j + 1] = order[i + 1:j + 1][::-1]
                    changed = True
        if not changed:
            break
    return points[order]


def outlines(count, seed):
    """``count`` random simple outlines of 3 to 60 corners, half each kind, both windings."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        n = int(rng.integers(3, 61))
        points = star_outline(n, rng) if len(found) % 2 else untangled_outline(n, rng)
        points = points[::-1] if rng.random() < 0.5 else points
        if shapely.Polygon(points).is_valid:
            found.append(points)
    return found


OUTLINES = outlines(500, 14)


def reflex_count(points) -> int:
    ring = shapely.Polygon(points)
    ccw = points if ring.exterior.is_ccw else points[::-1]
    edges = np.roll(ccw, -1, axis=0) - ccw
    following = np.roll(edges, -1, axis=0)
    return int(np.sum(edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0] < 0))


def clipped(subject, clipper):
    """The part of convex polygon ``subject`` inside convex counter-clockwise ``clipper``
    (Sutherland–Hodgman): each clipper edge keeps what lies on its left."""
    kept = [np.asarray(p, float) for p in subject]
    for k in range(len(clipper)):
        a, b = clipper[k], clipper[(k + 1) % len(clipper)]
        if not kept:
            break

        def left(p, a=a, b=b):
            return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])

        points, kept = kept, []
        for j in range(len(points)):
            p, q = points[j - 1], points[j]
            if (left(p) >= 0) != (left(q) >= 0):  # the edge crosses: keep the crossing
                t = left(p) / (left(p) - left(q))
                kept.append(p + t * (q - p))
            if left(q) >= 0:
                kept.append(q)
    return np.array(kept)


def shoelace(points) -> float:
    if len(points) < 3:
        return 0.0
    x, y = points[:, 0], points[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def assert_pieces_tile(points, pieces):
    """Every piece convex and counter-clockwise, and together they are the outline: no
    piece reaches outside it, no two overlap, and their areas sum to its area (so their
    union is the outline up to 1e-9 of its area).

    Overlaps are measured by clipping one convex piece by the other, not by shapely:
    GEOS's intersection and union were seen to return a whole piece as the overlap of two
    that only share a corner (and to drop 2–8 % of an outline from the union), where the
    clipping and these measures show the pieces exact. Reaching outside is measured
    against the outline grown by 1e-9 of its size, away from such coincidences."""
    outline = shapely.Polygon(points)
    tolerance = 1e-9 * outline.area
    for piece in pieces:
        assert pb.orientation(piece) == 1 and pb.is_convex(piece)
    rings = [shapely.Polygon(piece) for piece in pieces]
    assert sum(ring.area for ring in rings) == pytest.approx(outline.area, rel=1e-9)
    grown = outline.buffer(1e-9 * np.ptp(points, axis=0).max())
    assert sum(ring.difference(grown).area for ring in rings) <= tolerance
    first, second = shapely.STRtree(rings).query(rings, predicate="intersects")
    assert sum(shoelace(clipped(pieces[i], pieces[j]))
               for i, j in zip(first, second, strict=True) if i < j) <= tolerance


@pytest.mark.parametrize("method", pb.DECOMPOSITION_METHODS)
def test_five_hundred_random_outlines_are_tiled_by_convex_pieces(method):
    worst = 0.0
    for points in OUTLINES:
        pieces = pb.decompose(points, method)
        assert all(isinstance(piece, pb.Polygon) for piece in pieces)
        assert_pieces_tile(points, [piece.vertices for piece in pieces])
        # Hertel–Mehlhorn: at most 4 × the least possible, of which reflex/2 + 1 is a bound.
        worst = max(worst, len(pieces) / (reflex_count(points) // 2 + 1))
    if method == "hertel_mehlhorn":
        assert worst <= 4.0
    assert worst > 1.0


def bayazit_pieces(points, prefer_reflex=True, trace=None):
    """Bayazit's pieces of an outline, by the library's own preparation of it."""
    _, local, order, weld = decompose._counter_clockwise(points)
    return decompose.bayazit(local[order], weld, trace=trace, prefer_reflex=prefer_reflex)


@pytest.mark.parametrize("prefer_reflex", [True, False])
def test_bayazit_makes_at_most_one_piece_more_than_reflex_corners(prefer_reflex):
    # Each cut runs from a reflex corner into the wedge of its two extended edges, so it
    # fixes that corner and makes no corner reflex: r reflex corners, at most r + 1 pieces
    # (Chazelle's upper bound). Hertel–Mehlhorn keeps at most two diagonals per reflex
    # corner: 2r + 1.
    reached = 0
    for points in OUTLINES:
        reflex = reflex_count(points)
        count = len(bayazit_pieces(points, prefer_reflex))
        assert count <= reflex + 1
        assert len(pb.decompose(points, "hertel_mehlhorn")) <= 2 * reflex + 1
        reached += count == reflex + 1
    assert 0 < reached < len(OUTLINES)     # the bound is met on some, not on every, outline


# Two reflex corners facing each other, (3, 1) and (3, 5), with two convex corners nearer
# to each than the other is: one cut between the two fixes both.
FACING_NOTCHES = np.array([[0, 0], [3, 1], [6, 0], [6.3, 2.2], [6, 6], [3, 5], [0, 6],
                           [-0.3, 2.2]], float)


def test_bayazit_prefers_a_reflex_corner_the_cut_also_fixes():
    cuts = []
    scored = bayazit_pieces(FACING_NOTCHES, trace=cuts)
    _, local, order, _ = decompose._counter_clockwise(FACING_NOTCHES)
    targets = {tuple(local[k]) for k in order if tuple(FACING_NOTCHES[k]) in {(3, 1), (3, 5)}}
    assert len(cuts) == 1 and {tuple(cuts[0][0]), tuple(cuts[0][1])} == targets
    assert len(scored) == 2 == reflex_count(FACING_NOTCHES) // 2 + 1   # the least possible
    # The nearest visible corner is a convex one; cutting there fixes one corner per cut.
    assert len(bayazit_pieces(FACING_NOTCHES, prefer_reflex=False)) == 3


def test_bayazit_score_makes_fewer_pieces_than_the_nearest_corner():
    scored = sum(len(bayazit_pieces(points)) for points in OUTLINES)
    nearest = sum(len(bayazit_pieces(points, prefer_reflex=False)) for points in OUTLINES)
    assert scored < nearest


def test_ear_clipping_makes_n_minus_2_triangles_that_tile_the_outline():
    for points in OUTLINES[:200]:
        triangles = pb.triangulate(points)
        corners = len(shapely.Polygon(points).exterior.coords) - 1
        assert len(triangles) <= corners - 2
        assert_pieces_tile(points, [points[triangle] for triangle in triangles])


@pytest.mark.parametrize("method", pb.DECOMPOSITION_METHODS)
@pytest.mark.parametrize("max_vertices", [3, 4, 5])
def test_pieces_keep_to_max_vertices(method, max_vertices):
    for points in OUTLINES[:60]:
        pieces = pb.decompose(points, method, max_vertices=max_vertices)
        assert max(len(piece.vertices) for piece in pieces) <= max_vertices
        assert_pieces_tile(points, [piece.vertices for piece in pieces])


def outline_mass(points, density=1.0):
    """Mass, centroid and inertia about the centroid of a simple polygon of uniform density,
    from its own corners (Green's theorem): no decomposition involved."""
    x, y = points[:, 0], points[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    c = x * yn - xn * y
    area = c.sum() / 2
    cx = ((x + xn) * c).sum() / (6 * area)
    cy = ((y + yn) * c).sum() / (6 * area)
    polar = ((x * x + x * xn + xn * xn + y * y + y * yn + yn * yn) * c).sum() / 12
    return density * area, np.array([cx, cy]), density * (polar - area * (cx * cx + cy * cy))


L_SHAPE = np.array([[0, 0], [2, 0], [2, 0.5], [0.5, 0.5], [0.5, 2], [0, 2]], float)
LETTER_E = np.array([[0, 0], [3, 0], [3, 1], [1, 1], [1, 2], [2.5, 2], [2.5, 3], [1, 3],
                     [1, 4], [3, 4], [3, 5], [0, 5]], float)


@pytest.mark.parametrize("method", pb.DECOMPOSITION_METHODS)
def test_a_body_from_a_concave_outline_has_the_outlines_mass(method):
    for points in [L_SHAPE, LETTER_E, L_SHAPE[::-1] * 3 + 7, *OUTLINES[:40]]:
        world = pb.World()
        body = world.add_body(pb.decompose(points, method), material=pb.Material(density=2.5))
        mass, centroid, inertia = outline_mass(points if shapely.Polygon(
            points).exterior.is_ccw else points[::-1], 2.5)
        assert body.mass == pytest.approx(mass, rel=1e-9)
        np.testing.assert_allclose(body.local_center, centroid, rtol=0, atol=1e-9 * np.ptp(points))
        assert body.inertia == pytest.approx(inertia, rel=1e-9)


def test_an_l_shaped_body_comes_to_rest_on_its_foot():
    # Dropped tilted 0.2 rad, the L's centre of mass (0.68 m from its heel along the foot)
    # lies over the foot, 2 m long: it rocks back and settles flat on it.
    world = pb.World()
    world.add_body(pb.Polygon.box(20, 0.5), position=(0, -0.5), kind="static")
    body = world.add_body(pb.decompose(L_SHAPE), position=(0, 1.0), angle=0.2)
    world.run(300, 1 / 60)
    assert abs(body.angle) < 0.01 and abs(body.angular_velocity) < 0.01
    lowest = min((body.position + vertex @ np.array([[np.cos(body.angle), np.sin(body.angle)],
                                                     [-np.sin(body.angle), np.cos(body.angle)]]))[1]
                 for vertex in L_SHAPE)
    assert -0.02 < lowest < 0.01


@pytest.mark.parametrize("outline, message", [
    ([[0, 0], [1, 1], [1, 0], [0, 1]], "simple polygon"),            # a bow tie
    ([[0, 0], [1, 0], [2, 0]], "non-zero area"),
    ([[0, 0], [1, 0]], "at least 3 points"),
    ([[0, 0], [1, 0], [1, 0], [0, 1]], "simple polygon"),             # a repeated corner
    ([[0, 0], [2, 0], [2, 2], [1, 2], [1, -1], [0, 2]], "simple polygon"),
])
def test_bad_outlines_are_refused_naming_the_rule(outline, message):
    for call in (pb.triangulate, pb.decompose, lambda p: pb.decompose(p, "bayazit")):
        with pytest.raises(ValueError, match=message):
            call(outline)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="method"):
        pb.decompose(L_SHAPE, "greedy")
    with pytest.raises(ValueError, match="max_vertices must be at least 3"):
        pb.decompose(L_SHAPE, max_vertices=2)
    with pytest.raises(TypeError, match="max_vertices"):
        pb.decompose(L_SHAPE, max_vertices=4.5)


@pytest.mark.parametrize("seed", range(40))
def test_an_outline_as_a_chain_is_its_corners_counter_clockwise_facing_out(seed):
    rng = np.random.default_rng(seed)
    outline = 10.0 * untangled_outline(int(rng.integers(4, 12)), rng)  # corners cm apart
    if seed % 2:
        outline = outline[::-1]  # either winding
    # A straight run: a point put on the middle of an edge is no corner of the chain.
    with_run = np.insert(outline, 1, (outline[0] + outline[1]) / 2, axis=0)
    (chain,) = pb.decompose(with_run, chain=True)
    assert isinstance(chain, pb.Chain) and chain.loop
    solid = shapely.Polygon(outline)
    ring = shapely.LinearRing(chain.points)
    assert ring.is_ccw and len(chain.points) == len(outline)
    assert shapely.Polygon(chain.points).symmetric_difference(solid).area < 1e-12 * solid.area
    assert {tuple(p) for p in np.asarray(chain.points)} == {tuple(p) for p in outline}
    # Each segment's front (its right side) faces out of the outline.
    assert len(chain.segments) == len(outline)
    for segment in chain.segments:
        edge = segment.point2 - segment.point1
        middle = (segment.point1 + segment.point2) / 2
        step = 1e-6 * np.array([edge[1], -edge[0]]) / np.hypot(*edge)
        assert not solid.covers(shapely.Point(middle + step))
        assert solid.covers(shapely.Point(middle - step))


def test_a_chain_outline_refuses_a_cap_and_what_is_not_a_flag():
    with pytest.raises(ValueError, match="max_vertices must be None with chain=True"):
        pb.decompose(L_SHAPE, max_vertices=4, chain=True)
    with pytest.raises(TypeError, match="chain must be True or False"):
        pb.decompose(L_SHAPE, chain=1)
    with pytest.raises(ValueError, match="simple polygon"):
        pb.decompose([[0, 0], [1, 1], [1, 0], [0, 1]], chain=True)
    # Chains are not a way of cutting: the methods stay the ones that give polygons.
    assert "chain" not in pb.DECOMPOSITION_METHODS


def test_a_chain_outline_holds_balls_outside_and_reversed_inside():
    # An L-shaped level as one chain: a ball dropped on its foot rests on it; the same
    # outline reversed is a cave that keeps balls thrown about inside it.
    level = 4.0 * L_SHAPE
    world = pb.World()
    world.add_body(pb.decompose(level, chain=True), kind="static")
    ball = world.add_body(pb.Circle(0.25), position=(6.0, 4.0))
    world.run(120, 1 / 60)
    assert ball.position[1] == pytest.approx(2.0 + 0.25, abs=0.02)
    cave = pb.World(gravity=(0.0, 0.0))
    bouncy = pb.Material(restitution=1.0, friction=0.0)
    cave.add_body(pb.decompose(level, chain=True)[0].reversed(), kind="static",
                  material=bouncy)
    rng = np.random.default_rng(5)
    headings = rng.uniform(-np.pi, np.pi, 5)
    balls = [cave.add_body(pb.Circle(0.2), position=(x, 1.0),
                           velocity=6.0 * np.array([np.cos(a), np.sin(a)]),
                           material=bouncy)
             for x, a in zip((1.0, 2.5, 4.0, 5.5, 7.0), headings, strict=True)]
    solid = shapely.Polygon(level)
    touches = np.zeros(len(balls), int)
    for _ in range(240):
        cave.step(1 / 60)
        centres = shapely.points([b.position for b in balls])
        assert np.all(shapely.contains(solid, centres))
        # A ball whose centre is within 5 cm of its radius from the outline is at a wall.
        touches += shapely.distance(solid.exterior, centres) < 0.2 + 0.05
    assert touches.min() >= 3, touches  # every ball met the walls, again and again
