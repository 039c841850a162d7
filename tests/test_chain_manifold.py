"""One-sided chain segments: the union oracle on loops, one-sidedness, the Gauss map, and
the ghost-collision sweep.

A single chain segment deliberately does not answer as a two-sided segment would (a normal
leaning over a flat vertex is snapped to the face, one owned by a neighbour is skipped), so
its separation is checked on the solid a chain bounds: for a counter-clockwise loop, the
least separation over all its segments' manifolds equals the exact distance from the loop's
polygon to the other shape's core less its radius (shapely), or the brute-force overlap
depth for a shallow overlap. Within the face-switch band the allowed error is the band's
width, computed from the same geometry.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from geometry import (
    contact_rows,
    random_capsule,
    random_chain_segment,
    random_polygon,
    random_pose,
    world_core,
)

import physbook as pb
from physbook.constants import CHAIN_NORMAL_SINE, FACE_SWITCH_TOLERANCE, LINEAR_SLOP
from physbook.geometry.shape_table import ShapeTable
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.vec import Transform

IDENTITY = Transform()
MARGIN = 0.1


def random_circle(rng: np.random.Generator) -> Circle:
    return Circle(rng.uniform(0.05, 0.4), rng.uniform(-0.2, 0.2, 2))


def small_polygon(rng: np.random.Generator) -> Polygon:
    return random_polygon(rng, 0.4)


def small_rounded(rng: np.random.Generator) -> Polygon:
    return random_polygon(rng, 0.4).rounded(rng.uniform(0.02, 0.15))


def small_capsule(rng: np.random.Generator):
    capsule = random_capsule(rng)
    return pb.Capsule(0.4 * capsule.center1, 0.4 * capsule.center2, 0.4 * capsule.radius)


MAKERS = {"circle": random_circle, "capsule": small_capsule, "polygon": small_polygon,
          "rounded": small_rounded}


def random_loop(rng: np.random.Generator):
    """A random convex polygon and the counter-clockwise loop chain around it (edges at
    least a chain's shortest long)."""
    while True:
        loop = random_polygon(rng)
        try:
            return loop, pb.Chain(loop.vertices, loop=True)
        except ValueError:
            continue


def core_size(shape) -> float:
    points = shape.core()[0]
    return float(np.hypot(*(points - points[0]).T).max()) if len(points) > 1 else 0.0


def loop_overlap(loop: np.ndarray, loop_normals: np.ndarray, shape, transform) -> float:
    """The overlap depth of a convex loop's polygon and a shape's core, by brute force over
    the loop's normals and the core's axes."""
    from geometry import core_axes
    axes = np.vstack([loop_normals, core_axes(shape, transform)])
    pa = loop @ axes.T
    pb_ = transform.to_world(shape.core()[0]) @ axes.T
    return float(np.min(np.minimum(pa.max(axis=0) - pb_.min(axis=0),
                                   pb_.max(axis=0) - pa.min(axis=0))))


@pytest.mark.parametrize("kind", list(MAKERS))
def test_union_oracle_on_convex_loops(kind):
    rng = np.random.default_rng(sum(map(ord, kind)) + 1)
    cases = 2500
    table = ShapeTable()
    origins, angles, pairs, cases_rows = [], [], [], []
    shapes, poses, loops = [], [], []
    for _ in range(cases):
        loop, chain = random_loop(rng)
        shape = MAKERS[kind](rng)
        # Near the loop's boundary: a point of it, pushed out from the loop's centre by
        # about the shape's reach, and a random turn.
        boundary = np.array(shapely.LinearRing(loop.vertices).interpolate(
            rng.uniform(0.0, 1.0), normalized=True).coords[0])
        outward = boundary - loop.vertices.mean(axis=0)
        points, radius = shape.core()
        reach = float(np.max(np.hypot(*points.T))) + radius
        pose = Transform(boundary + outward / np.hypot(*outward) * reach * rng.uniform(
            0.3, 1.2) + rng.uniform(-0.05, 0.05, 2), rng.uniform(-np.pi, np.pi))
        loop_body = len(origins)
        origins.append((0.0, 0.0))
        angles.append(0.0)
        shape_body = len(origins)
        origins.append(pose.position)
        angles.append(pose.angle)
        table.append(shape, shape_body)
        shape_row = table.count - 1
        rows = []
        for segment in chain.segments:
            table.append(segment, loop_body)
            rows.append(len(pairs))
            pairs.append((table.count - 1, shape_row))
        cases_rows.append(rows)
        shapes.append(shape)
        poses.append(pose)
        loops.append(loop)
    contacts = pb.collide_pairs(np.array(pairs), table, np.array(origins), np.array(angles),
                                margin=MARGIN)
    counts = {"apart": 0, "overlapping": 0, "band": 0}
    for loop, shape, pose, rows in zip(loops, shapes, poses, cases_rows, strict=True):
        core, radius = world_core(shape, pose)
        solid = shapely.Polygon(loop.vertices)
        centroid = core.centroid if core.geom_type != "Point" else core
        if solid.contains(centroid):
            continue  # inside a one-sided loop: nothing to answer
        gap = solid.distance(core)
        if gap > 0.0:
            true = gap - radius
        else:
            depth = loop_overlap(loop.vertices, loop.normals, shape, pose)
            if depth > LINEAR_SLOP:
                continue  # deeper than a step's slop: a one-sided chain need not see it
            true = -depth - radius
        answered = [r for r in rows if contacts.point_counts[r] > 0]
        if true > MARGIN + 1e-9:
            assert not answered
            continue
        assert answered, (true, gap, loop.vertices.tolist(), shape, pose)
        separations = [-float(contacts.depths[r, :contacts.point_counts[r]].max())
                       for r in answered]
        best = answered[int(np.argmin(separations))]
        separation = min(separations)
        counts["apart" if gap > 0.0 else "overlapping"] += 1
        band = FACE_SWITCH_TOLERANCE * max(core_size(shape), 1e-300)
        if abs(separation - true) > 1e-9:
            counts["band"] += 1
            assert abs(separation - true) <= band, (separation, true, loop.vertices.tolist(),
                                                    shape, pose)
            continue
        if gap > 1e-6:
            line = shapely.shortest_line(solid.exterior, core)
            a, b = np.array(line.coords)
            direction = (b - a) / gap
            normal = contacts.normals[best]
            angle = abs(math.atan2(direction[0] * normal[1] - direction[1] * normal[0],
                                   direction @ normal))
            # Several segments may answer one corner with the same normal; the least
            # separation's is exact where the closest point is unique.
            assert angle <= 1e-9, (angle,)
    # A circle's core is a point: it overlaps the loop only with its centre inside.
    assert counts["apart"] > 600 and (kind == "circle" or counts["overlapping"] > 30), counts
    assert counts["band"] < 0.02 * (counts["apart"] + counts["overlapping"]), counts


def test_one_sided_and_on_the_gauss_map():
    """No manifold for a shape whose centroid is behind the segment and behind its convex
    neighbours' planes (a circle: its centre behind the segment's line); every normal
    lies on the segment's part of the chain's Gauss map: its face normal n1, or the arc
    from n0 to n1 at a convex point1, or from n1 to n2 at a convex point2 (each arc may be
    overshot by the skip tolerance, CHAIN_NORMAL_SINE)."""
    rng = np.random.default_rng(12)
    makers = list(MAKERS.values())
    seen = {"behind": 0, "face": 0, "arc": 0}
    slack = math.asin(CHAIN_NORMAL_SINE) + 1e-12
    for _ in range(6000):
        segment = random_chain_segment(rng)
        shape = makers[int(rng.integers(len(makers)))](rng)
        pose = random_pose(rng, 0.8)
        m = pb.collide(segment, IDENTITY, shape, pose, margin=MARGIN)
        p1, p2, g1, g2 = segment.point1, segment.point2, segment.ghost1, segment.ghost2
        n1 = _right(p2 - p1)
        n0, n2 = _right(p1 - g1), _right(g2 - p2)
        e0, e1, e2 = (p1 - g1), (p2 - p1), (g2 - p2)
        convex1, convex2 = _convex(e0, e1), _convex(e1, e2)
        core, _ = world_core(shape, pose)
        centroid = np.array((core.centroid if core.geom_type != "Point" else core).coords[0])
        behind = n1 @ (centroid - p1) < 0.0
        if not isinstance(shape, Circle):
            behind = behind and (not convex1 or n0 @ (centroid - p1) < 0.0) and (
                not convex2 or n2 @ (centroid - p2) < 0.0)
        if behind:
            seen["behind"] += 1
            assert m is None
            continue
        if m is None:
            continue
        angle = _angle(n1, m.normal)
        if angle <= 1e-12:
            seen["face"] += 1
            continue
        seen["arc"] += 1
        # Turning from n1 towards n0 is clockwise (negative) at a convex point1.
        on_arc_1 = convex1 and -_angle(n1, n0) - slack <= angle <= slack
        on_arc_2 = convex2 and -slack <= angle <= _angle(n1, n2) + slack
        assert on_arc_1 or on_arc_2, (angle, convex1, convex2)
    assert seen["behind"] > 500 and seen["face"] > 500 and seen["arc"] > 40, seen


def _convex(before, after) -> bool:
    """A left turn by at least the convexity sine, 0.01, or by more than a right angle."""
    before, after = before / np.hypot(*before), after / np.hypot(*after)
    return _cross(before, after) >= 0.01 or (_cross(before, after) > 0.0
                                             and before @ after < 0.0)


def _right(edge):
    return np.array([edge[1], -edge[0]]) / np.hypot(*edge)


def _cross(u, v) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _angle(u, v) -> float:
    """The signed angle from u to v (rad, counter-clockwise positive)."""
    return math.atan2(_cross(u, v), float(u @ v))


def test_an_upright_capsule_stands_on_a_chain():
    """A capsule standing on its end (vertical core, radius 0.3) 1 cm deep in a flat chain:
    its incident edge is square to the chain's face, so clipping has no span to cut; the
    contact is its lower end, one point, normal up, depth 0.01."""
    chain = pb.Chain([(6.0, 0.0), (3.0, 0.0), (-8.0, 0.0), (-10.0, 0.0)])
    capsule = pb.Capsule((0.0, -0.5), (0.0, 0.5), 0.3)
    m = pb.collide(chain.segments[0], IDENTITY, capsule, Transform((0.5, 0.79)))
    assert len(m) == 1
    np.testing.assert_array_equal(m.normal, [0.0, 1.0])
    assert math.isclose(m.depth, 0.01, abs_tol=1e-15)
    np.testing.assert_allclose(m.points[0], [0.5, -0.005], atol=1e-15)


# ---------------------------------------------------------------------------------------
# Ghost collisions


def _sweep(floor_shapes, floor_poses, body, height):
    """Slide ``body`` along x from 0.0003 to 3.0003 m in 1 mm steps at ``height``; every
    manifold against the floor's shapes, as (x, normal) rows."""
    xs = 0.0003 + 0.001 * np.arange(3001)
    table = ShapeTable()
    origins, angles, pairs = [], [], []
    floor_rows = []
    for shape, pose in zip(floor_shapes, floor_poses, strict=True):
        table.append(shape, len(origins))
        floor_rows.append(table.count - 1)
        origins.append(pose.position)
        angles.append(pose.angle)
    for x in xs:
        table.append(body, len(origins))
        origins.append((x, height))
        angles.append(0.0)
        pairs.extend((row, table.count - 1) for row in floor_rows)
    contacts = pb.collide_pairs(np.array(pairs), table, np.array(origins), np.array(angles))
    per_position = contacts.point_counts.reshape(len(xs), len(floor_rows))
    return xs, per_position, contacts.normals.reshape(len(xs), len(floor_rows), 2)


@pytest.mark.parametrize("radius", [0.0, 0.05])
def test_a_box_sliding_on_a_flat_chain_only_ever_sees_the_floor_normal(radius):
    """A box (core half extents 0.25, optionally rounded) 1 mm deep in a flat chain of
    1 m segments, swept in 1 mm steps across three seams: every manifold's normal is
    exactly (0, 1). On a floor of unit box tiles the same sweep of the sharp box meets the
    tiles' side faces at the seams: horizontal normals, the ghost collisions a chain
    removes. (The rounded box, sunk less than its radius, reaches a tile's corner only
    within the vertex-switch band, where its manifold keeps the floor's normal.)"""
    box = Polygon.box(0.25, 0.25, radius=radius)
    height = 0.25 + radius - 0.001
    chain = pb.Chain([(5.0 - k, 0.0) for k in range(8)])  # right to left: solid below
    xs, counts, normals = _sweep(chain.segments, [IDENTITY] * len(chain.segments), box,
                                 height)
    assert np.all(counts.sum(axis=1) > 0)
    touching = counts > 0
    np.testing.assert_array_equal(normals[touching], np.tile([0.0, 1.0], (touching.sum(), 1)))
    if radius > 0.0:
        return

    tiles = [Polygon.box(0.5, 0.5)] * 6
    poses = [Transform((k - 1.5, -0.5)) for k in range(6)]
    xs, counts, normals = _sweep(tiles, poses, box, height)
    touching = counts > 0
    ghost = touching & (normals[:, :, 1] < 1.0)
    assert ghost.any()
    np.testing.assert_array_equal(np.abs(normals[ghost]), np.tile([1.0, 0.0], (ghost.sum(), 1)))
    # Only where a corner of the box has just crossed a seam, by less than the 1 mm it is
    # sunk (the tile's side face then separates less than its top).
    for x in xs[ghost.any(axis=1)]:
        corners = np.array([x - 0.25, x + 0.25])
        assert np.min(np.abs(corners - np.round(corners))) < 0.001 + 1e-9


# ---------------------------------------------------------------------------------------
# Feature ids of a body resting on a chain


@pytest.mark.parametrize("x", [1.0, 2.0])
def test_rounded_box_resting_on_a_chain_keeps_its_feature_ids(x):
    """A rounded box (core half extents 0.5 × 0.25, radius 0.05) resting on a flat chain of
    2 m segments, in the middle of one (x = 1) and straddling a vertex (x = 2): from step
    60 to 660 its contact rows keep two points each and their feature ids, and it neither
    sinks nor drifts."""
    world = pb.World(gravity=(0.0, -9.81))
    world.add_body(pb.Chain([(8.0 - 2.0 * k, 0.0) for k in range(8)]), kind="static")
    box = world.add_body(Polygon.box(0.5, 0.25, radius=0.05), position=(x, 0.3))
    for _ in range(60):
        world.step(1.0 / 60.0)
    first = contact_rows(world)
    assert first and all(count == 2 for count, _ in first.values())
    assert len(first) == (1 if x == 1.0 else 2)
    for step in range(60, 660):
        world.step(1.0 / 60.0)
        assert contact_rows(world) == first, step
    assert abs(box.position[1] - 0.3) < 0.01 and abs(box.position[0] - x) < 1e-3
