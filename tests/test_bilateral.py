"""Chapter 13's time of impact by root finding (bilateral advancement) against brute force:
the sweep sampled at 10 000 fractions, the distance measured by shapely, as in test_toi;
and beside conservative advancement, which it must agree with where its premise holds (no
body turns more than a quarter turn in the step)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_toi import SAMPLES, approach_bound, random_shape, sampled_gaps

import physbook as pb
from physbook.collision import bilateral, toi
from physbook.collision.toi import HIT, OVERLAPPED, SEPARATED, sweep

QUARTER_TURN = math.pi / 4
STILL = sweep((0.0, 0.0), (0.0, 0.0))


def first_within(gaps, t, target):
    """The first sampled fraction at which the shapes are within ``target``, or None."""
    within = np.flatnonzero(gaps <= target)
    return t[within[0]] if len(within) else None


def random_pair(rng, turn):
    """Two random shapes on random sweeps over a step, each turning at most ``turn`` rad."""
    shape_a, shape_b = random_shape(rng), random_shape(rng)
    sweep_a = sweep(rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2), 0.0,
                    rng.uniform(-turn, turn), rng.uniform(-0.1, 0.1, 2))
    a0 = rng.uniform(-3, 3)
    sweep_b = sweep(rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2), a0,
                    a0 + rng.uniform(-turn, turn), (0.0, 0.0))
    return shape_a, sweep_a, shape_b, sweep_b


def check_against_samples(rng, turn, cases=100, target=1e-3):
    """Compare with 10 000 samples on random pairs; returns (contacts seen by the samples,
    contacts root finding reported separated). A hit it reports must be right: the first
    contact, where the distance is the target within the tolerance."""
    t = np.linspace(0.0, 1.0, SAMPLES + 1)
    contacts = missed = 0
    for _ in range(cases):
        shape_a, sweep_a, shape_b, sweep_b = random_pair(rng, turn)
        gaps = sampled_gaps(shape_a, sweep_a, shape_b, sweep_b, t)
        result = bilateral.time_of_impact(shape_a, sweep_a, shape_b, sweep_b, target=target)
        if gaps[0] <= target:
            assert result.state in (OVERLAPPED, HIT) and result.fraction == 0.0
            continue
        first = first_within(gaps, t, target)
        if first is None:
            # No sample within the target: a contact, if any, lasts less than a sample.
            bound = approach_bound(shape_a, sweep_a, shape_b, sweep_b)
            assert result.state == SEPARATED or (
                result.state == HIT and np.min(gaps) < target + bound / SAMPLES), result
            continue
        contacts += 1
        if result.state == SEPARATED:
            missed += 1
            continue
        assert result.state == HIT, result
        # The root is found to within the tolerance, a millionth of the larger shape's
        # reach (under 1 m here), of the target: the distance there is target ± 1e-6.
        distance = sampled_gaps(shape_a, sweep_a, shape_b, sweep_b, np.array([result.fraction]))
        assert abs(distance[0] - target) <= 1e-6 + 1e-12
        # So the first sample within the target is the one at or after it.
        assert t[np.searchsorted(t, first) - 1] - 1e-12 <= result.fraction <= first + 1e-12
    return contacts, missed


@pytest.mark.parametrize("block", range(3))
def test_without_turning_it_finds_every_contact_the_samples_see(block):
    """Without rotation each separation function is linear in t, so a pair apart along the
    axis at the end of the step was apart all along: root finding misses nothing."""
    contacts, missed = check_against_samples(np.random.default_rng(100 + block), 0.0)
    assert contacts > 15 and missed == 0


@pytest.mark.parametrize("block", range(3))
def test_turning_a_quarter_turn_its_hits_are_right(block):
    """With rotation a separation function need not be monotone: a contact can be missed
    (the next test shows one), but every hit reported is the first contact."""
    contacts, missed = check_against_samples(np.random.default_rng(200 + block), QUARTER_TURN)
    assert contacts > 15 and missed < contacts


def test_it_finds_what_conservative_advancement_finds_in_fewer_evaluations():
    """A rod turning a quarter turn as it falls onto the ground, at 20 starting angles."""
    rod, ground = pb.Polygon.box(1.0, 0.02), pb.Polygon.box(5.0, 0.02)
    fewer = 0
    for a0 in np.linspace(0.0, math.pi, 20, endpoint=False):
        rod_sweep = sweep((0.0, 1.2), (0.0, 0.9), a0, a0 + QUARTER_TURN)
        by_roots = bilateral.time_of_impact(rod, rod_sweep, ground, STILL)
        by_advancement = toi.time_of_impact(rod, rod_sweep, ground, STILL)
        assert by_roots.state == by_advancement.state
        if by_roots.state == HIT:
            # Both stop within the tolerance (a millionth of the larger reach, the ground's
            # 5.00004 m) of touching; how far apart in t that is depends on how fast the tip
            # approaches.
            gaps = sampled_gaps(rod, rod_sweep, ground, STILL,
                                np.array([by_roots.fraction, by_advancement.fraction]))
            assert np.all(gaps <= 5.00004e-6 + 1e-12)
            assert by_roots.fraction == pytest.approx(by_advancement.fraction, abs=1e-4)
        # Advancement poses the shapes once a jump, and once at the start.
        fewer += by_roots.iterations < by_advancement.iterations + 1
    assert fewer >= 15


def test_a_spin_of_more_than_a_quarter_turn_can_be_missed():
    """A rod turning 4 rad in the step passes through the ground and is apart again at the
    end along the axis root finding started from; conservative advancement stops it."""
    rod, ground = pb.Polygon.box(1.0, 0.02), pb.Polygon.box(5.0, 0.02)
    rod_sweep = sweep((0.0, 1.1), (0.0, 0.9), 1.4, 1.4 + 4.0)
    t = np.linspace(0.0, 1.0, SAMPLES + 1)
    first = first_within(sampled_gaps(rod, rod_sweep, ground, STILL, t), t, 0.0)
    assert first is not None and 0.0 < first < 1.0
    assert bilateral.time_of_impact(rod, rod_sweep, ground, STILL).state == SEPARATED
    by_advancement = toi.time_of_impact(rod, rod_sweep, ground, STILL)
    assert by_advancement.state == HIT and first - 1e-4 <= by_advancement.fraction <= first


def test_closest_features_name_the_vertex_and_the_face():
    from physbook.collision.bilateral import FACE_A, FACE_B, POINTS, closest_features

    square = pb.Polygon.box(0.5, 0.5).vertices          # (−½,−½), (½,−½), (½,½), (−½,½)
    above = np.array([[0.1, 1.0], [0.6, 1.8], [-0.4, 1.8]])   # a corner over the top face
    kind, on_a, on_b = closest_features(above, square)
    assert (kind, on_a, on_b) == (FACE_B, 0, 2)          # the edge from (½,½) to (−½,½)
    kind, on_a, on_b = closest_features(square, above)
    assert (kind, on_a, on_b) == (FACE_A, 2, 0)
    corner = square + [1.5, 1.5]                         # corner to corner
    kind, on_a, on_b = closest_features(square, corner)
    assert (kind, on_a, on_b) == (POINTS, 2, 0)
    one_point = np.array([[0.0, 2.0]])                   # a circle's centre over the top face
    assert closest_features(one_point, square)[0] == FACE_B
    assert closest_features(one_point, one_point + 1.0) == (POINTS, 0, 0)


def test_circles_meet_where_the_quadratic_says():
    # |p + t·v| = r_A + r_B: centres 3 m apart closing at 4 m per step, radii 0.5 and 0.25.
    result = bilateral.time_of_impact(pb.Circle(0.5), sweep((0, 0), (2, 0)), pb.Circle(0.25),
                                      sweep((3, 0), (1, 0)))
    assert result.state == HIT and result.fraction == pytest.approx(2.25 / 4, abs=1e-6)


def test_the_trace_starts_at_zero_and_ends_at_the_hit():
    rod, ground = pb.Polygon.box(1.0, 0.02), pb.Polygon.box(5.0, 0.02)
    result = bilateral.time_of_impact(rod, sweep((0.0, 1.2), (0.0, 0.6), 0.3, 0.9), ground,
                                      STILL, trace=True)
    assert result.state == HIT
    assert result.fractions[0] == 0.0 and result.fractions[-1] == result.fraction
    assert np.all(np.diff(result.fractions) > 0.0)


@pytest.mark.parametrize("call, error, message", [
    (lambda: bilateral.time_of_impact(pb.Circle(1), (0, 0), pb.Circle(1), STILL),
     TypeError, "sweep_a must be a Sweep"),
    (lambda: bilateral.time_of_impact(pb.Circle(1), STILL, pb.Circle(1), STILL, t_max=2.0),
     ValueError, "t_max must be at most 1"),
    (lambda: bilateral.time_of_impact(pb.Circle(1), STILL, pb.Circle(1), STILL, target=-1.0),
     ValueError, "target"),
    (lambda: bilateral.time_of_impact("rod", STILL, pb.Circle(1), STILL), TypeError,
     "shape_a"),
])
def test_bad_input_is_refused_naming_the_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()
