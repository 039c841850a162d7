"""Swapping A and B gives the exact mirror image of a manifold.

The oracle is the manifold itself: ``collide(b, a)`` must equal ``collide(a, b)`` with the
normal negated bit for bit, the same points and depths in the same order, and each feature
id's two numbers exchanged, also where two reference faces are nearly as good and either
could be kept. The same holds for both orders of a pair in ``collide_pairs``.
"""

from __future__ import annotations

import math

import numpy as np
from geometry import random_polygon
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook.collision.features import swap_feature
from physbook.collision.sat import b_comes_first, clipping_steps, max_separation
from physbook.constants import FACE_SWITCH_TOLERANCE
from physbook.geometry.shape_table import ShapeTable


def assert_mirror(manifold, swapped):
    assert (manifold is None) == (swapped is None)
    if manifold is None:
        return
    assert np.all(swapped.normal == -manifold.normal)
    np.testing.assert_array_equal(swapped.points, manifold.points)
    np.testing.assert_array_equal(swapped.depths, manifold.depths)
    assert [swap_feature(f) for f in swapped.features] == manifold.features.tolist()


def test_the_reviewed_pair_flips_exactly():
    # Two boxes whose best faces are within the switch tolerance: the reference face used
    # to follow the argument order, and the two normals were 46° apart.
    a, xf_a = pb.Polygon.box(0.48, 0.57), pb.Transform((0.14, -0.85), -1.28)
    b, xf_b = pb.Polygon.box(0.97, 0.83), pb.Transform((-0.68, 0.49), 1.1)
    manifold = pb.collide(a, xf_a, b, xf_b)
    assert manifold is not None
    assert_mirror(manifold, pb.collide(b, xf_b, a, xf_a))
    # It is a near tie indeed: both faces separate within the tolerance.
    va, na = xf_a.to_world(a.vertices), xf_a.rotate_to_world(a.normals)
    vb, nb = xf_b.to_world(b.vertices), xf_b.rotate_to_world(b.normals)
    gap = max_separation(va, na, vb)[0] - max_separation(vb, nb, va)[0]
    assert abs(gap) <= FACE_SWITCH_TOLERANCE * 2 * min(0.48, 0.57)


def _shape(kind: int, size: float, seed: int):
    if kind == 0:
        return pb.Circle(size)
    if kind == 1:
        return pb.Polygon.box(size, 0.3 + 0.5 * size)
    return random_polygon(np.random.default_rng(seed), size)


shapes = st.builds(_shape, st.integers(0, 2), st.floats(0.1, 1.0), st.integers(0, 2**16))
poses = st.builds(pb.Transform, st.tuples(st.floats(-1.5, 1.5), st.floats(-1.5, 1.5)),
                  st.floats(-math.pi, math.pi))


@settings(max_examples=400)
@given(shapes, poses, shapes, poses)
def test_swapping_a_and_b_mirrors_the_manifold_exactly(a, xf_a, b, xf_b):
    manifold, swapped = pb.collide(a, xf_a, b, xf_b), pb.collide(b, xf_b, a, xf_a)
    if not (b_comes_first(a, xf_a, b, xf_b) or b_comes_first(b, xf_b, a, xf_a)):
        # The same shape in the same pose: the two calls are one call, and no normal can
        # be told from its opposite. They agree with each other instead.
        assert repr(manifold) == repr(swapped)
        return
    assert_mirror(manifold, swapped)


# Two equal boxes stacked almost face to face, a little turned and shifted: the faces tie
# within the switch tolerance, the case where the order used to decide.
near_stacks = st.tuples(st.floats(0.2, 1.0), st.floats(-0.3, 0.3), st.floats(-0.02, 0.02),
                        st.floats(-1e-3, 1e-3), st.floats(-0.01, 0.01))


@settings(max_examples=300)
@given(near_stacks)
def test_near_ties_between_stacked_boxes_mirror_exactly(stack):
    half, shift, sink, turn, turn_lower = stack
    box = pb.Polygon.box(half, half)
    lower, upper = pb.Transform((0.0, 0.0), turn_lower), pb.Transform((shift, 2 * half - sink),
                                                                      turn)
    assert_mirror(pb.collide(box, lower, box, upper), pb.collide(box, upper, box, lower))
    # The drawing steps pick the same reference face as the narrow phase, either way round.
    steps, swapped = clipping_steps(box, lower, box, upper), clipping_steps(box, upper, box,
                                                                           lower)
    assert steps.reference == 1 - swapped.reference


@settings(max_examples=100)
@given(st.lists(st.tuples(shapes, poses), min_size=2, max_size=6))
def test_collide_pairs_mirrors_both_orders_of_a_pair(placed):
    table = ShapeTable()
    for body, (shape, _) in enumerate(placed):
        table.append(shape, body)
    origins = np.array([pose.position for _, pose in placed])
    angles = np.array([pose.angle for _, pose in placed])
    count = len(placed)
    pairs = np.array([(a, b) for a in range(count) for b in range(count) if a != b])
    contacts = pb.collide_pairs(pairs, table, origins, angles)
    row = {tuple(pair): k for k, pair in enumerate(pairs.tolist())}
    for a, b in pairs.tolist():
        if a < b:
            assert_mirror(contacts.manifold(row[a, b]), contacts.manifold(row[b, a]))


def test_the_first_shape_is_the_larger_then_the_lower():
    ground, box = pb.Polygon.box(5.0, 0.5), pb.Polygon.box(0.5, 0.5)
    here, there = pb.Transform((0.0, 0.0)), pb.Transform((0.0, 1.0))
    assert b_comes_first(box, here, ground, there)  # the larger shape first
    assert not b_comes_first(ground, there, box, here)
    assert b_comes_first(box, there, box, here)  # equal shapes: the lower first
    assert not b_comes_first(box, here, box, there)


def test_coincident_circles_mirror_their_fixed_normal():
    big, small, pose = pb.Circle(1.0), pb.Circle(0.25), pb.Transform((3.0, 4.0))
    assert_mirror(pb.collide(big, pose, small, pose), pb.collide(small, pose, big, pose))
