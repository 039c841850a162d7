"""A pair's speculative margin (chapter 13 §13.5): each shape's own margin (the speculative
distance and its turn), plus the drift of one body relative to the other; and the broad
phase's boxes, swept along each body's drift.

The bound the margin rests on: under constant velocities the gap between two rigid shapes
closes over a step by at most (|v_a − v_b| + |ω_a|·R_a + |ω_b|·R_b)·Δt. It is checked here
against shapely's distance between the two shapes moved finely through the step; the swept
box is checked to hold the shape all through the step; and the world is checked to give a
contact to a pair that approaches and none to a pair that moves together.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import Polygon as ShapelyPolygon

import physbook as pb
from physbook.continuous import shape_reaches
from physbook.dynamics.motion import pair_margin, speculative_margins, sweep_boxes
from physbook.geometry.shape_table import shape_aabbs

DT = 1 / 60
DISTANCE = 0.02  # m, the soft step's speculative distance
#: Sub-times at which the sweep measures the gap; the minimum found can only be above the
#: true one, so the check errs on the bound's side.
SAMPLES = 241


def two_boxes(poses, velocities, spins, halves):
    """A world of two free boxes with the given centres and angles, velocities, angular
    velocities and half sizes, and each box's outline in body coordinates."""
    world = pb.World(gravity=(0.0, 0.0))
    outlines = []
    for (x, y, angle), velocity, spin, (hx, hy) in zip(poses, velocities, spins, halves,
                                                        strict=True):
        world.add_body(pb.Polygon.box(hx, hy), position=(x, y), angle=angle,
                       velocity=velocity, angular_velocity=spin)
        outlines.append(ShapelyPolygon([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)]))
    return world, outlines


def margins_of(world):
    """Each shape's own margin, each body's drift, each shape's body and reach."""
    shapes, bodies = world.shapes.arrays, world.bodies.arrays
    margins = np.zeros(len(shapes.ids))
    drifts = np.zeros((len(bodies.kinds), 2))
    reaches = shape_reaches(shapes, bodies.local_centers)[0]
    speculative_margins(shapes.body, reaches, bodies, DISTANCE, DT, margins, drifts)
    return margins, drifts, shapes.body, reaches


def at_time(outlines, poses, velocities, spins, t):
    """The boxes' outlines in the world at time t of the step, moved at constant velocity
    (a box's centre is its centre of mass)."""
    return [placed(outline, x + vx * t, y + vy * t, angle + w * t)
            for outline, (x, y, angle), (vx, vy), w in zip(outlines, poses, velocities, spins,
                                                           strict=True)]


def placed(outline, x, y, angle):
    return affinity.translate(affinity.rotate(outline, angle, origin=(0, 0), use_radians=True),
                              x, y)


finite = st.floats(-30.0, 30.0)
spin = st.floats(-20.0, 20.0)
half = st.floats(0.1, 1.0)
pose = st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0), st.floats(-math.pi, math.pi))


@given(poses=st.tuples(pose, pose), velocities=st.tuples(st.tuples(finite, finite),
                                                         st.tuples(finite, finite)),
       spins=st.tuples(spin, spin), halves=st.tuples(st.tuples(half, half),
                                                     st.tuples(half, half)))
def test_the_gap_closes_by_no_more_than_the_pair_margin_allows(poses, velocities, spins,
                                                               halves):
    world, outlines = two_boxes(poses, velocities, spins, halves)
    margins, drifts, body, reaches = margins_of(world)
    margin = pair_margin(margins, drifts, body, 0, 1)
    # Never more than the sum of each body's own travel (the triangle inequality).
    travel = [math.hypot(*v) + abs(w) * r for v, w, r in zip(velocities, spins, reaches,
                                                              strict=True)]
    assert margin <= 2 * DISTANCE + DT * sum(travel) + 1e-12
    gaps = [a.distance(b) for a, b in (at_time(outlines, poses, velocities, spins, t)
                                       for t in np.linspace(0.0, DT, SAMPLES))]
    closing = gaps[0] - min(gaps)
    # The bound holds for the motion swept, up to shapely's rounding of the distance.
    assert closing <= margin - 2 * DISTANCE + 1e-9


@given(poses=st.tuples(pose, pose), velocities=st.tuples(st.tuples(finite, finite),
                                                         st.tuples(finite, finite)),
       spins=st.tuples(spin, spin), halves=st.tuples(st.tuples(half, half),
                                                     st.tuples(half, half)))
def test_a_swept_box_holds_its_shape_all_through_the_step(poses, velocities, spins, halves):
    world, outlines = two_boxes(poses, velocities, spins, halves)
    margins, drifts, body, _ = margins_of(world)
    shapes, bodies = world.shapes.arrays, world.bodies.arrays
    lower, upper = np.zeros((2, 2)), np.zeros((2, 2))
    shape_aabbs(shapes, bodies.origins, bodies.angles, margins, lower, upper)
    sweep_boxes(body, drifts, lower, upper)
    for t in np.linspace(0.0, DT, 61):
        for row, shape in enumerate(at_time(outlines, poses, velocities, spins, t)):
            x0, y0, x1, y1 = shape.bounds
            assert lower[row, 0] <= x0 + 1e-9 and lower[row, 1] <= y0 + 1e-9
            assert x1 <= upper[row, 0] + 1e-9 and y1 <= upper[row, 1] + 1e-9


def test_boxes_carried_together_get_no_contact_and_boxes_closing_in_get_one():
    """Two boxes 0.1 m apart, both at 20 m/s along the gap's direction, drift 0.33 m in a
    step and keep their gap: no contact (with each body's own drift counted, 0.71 m
    of margin, they would get one). The same boxes with only one moving get a speculative
    contact at once."""
    for speeds, touching in (((20.0, 20.0), False), ((20.0, 0.0), True)):
        world = pb.World(gravity=(0.0, 0.0))
        world.continuous = False
        for x, speed in zip((0.0, 0.5), speeds, strict=True):
            world.add_body(pb.Polygon.box(0.2, 0.2), position=(x, 0.0), velocity=(speed, 0.0))
        margins, drifts, body, _ = margins_of(world)
        np.testing.assert_array_equal(margins, DISTANCE)
        assert math.isclose(pair_margin(margins, drifts, body, 0, 1),
                            2 * DISTANCE + DT * abs(speeds[0] - speeds[1]))
        world.step(DT)
        assert (len(world.contacts) == 1) is touching
