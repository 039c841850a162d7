"""Chapter 13's time of impact against brute force: the sweep sampled at 10 000 fractions,
overlap judged by shapely (polygons) or by centre distances (circles)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

import physbook as pb
from physbook.collision.toi import (
    FAILED,
    HIT,
    OVERLAPPED,
    SEPARATED,
    Sweep,
    sweep,
    time_of_impact,
)
from physbook.constants import TOI_MAX_ITERATIONS

SAMPLES = 10_000


def world_outline(shape, transforms_origin, transforms_angle):
    """The shape's outline (polygon vertices, or a circle's centre) at many poses."""
    cosine, sine = np.cos(transforms_angle), np.sin(transforms_angle)
    points = shape.vertices if isinstance(shape, pb.Polygon) else shape.center[None, :]
    x = cosine[:, None] * points[None, :, 0] - sine[:, None] * points[None, :, 1]
    y = sine[:, None] * points[None, :, 0] + cosine[:, None] * points[None, :, 1]
    return np.stack([x, y], axis=2) + transforms_origin[:, None, :]


def poses(motion: Sweep, t: np.ndarray):
    angle = (1 - t) * motion.a0 + t * motion.a1
    center = (1 - t)[:, None] * motion.c0 + t[:, None] * motion.c1
    cosine, sine = np.cos(angle), np.sin(angle)
    x, y = motion.local_center
    origin = center - np.column_stack([cosine * x - sine * y, sine * x + cosine * y])
    return origin, angle


def sampled_gaps(shape_a, sweep_a, shape_b, sweep_b, t):
    """Distance between the shapes at each fraction in ``t``, by shapely."""
    outlines = []
    for shape, motion in ((shape_a, sweep_a), (shape_b, sweep_b)):
        points = world_outline(shape, *poses(motion, t))
        geometry = shapely.polygons(points) if isinstance(shape, pb.Polygon) else \
            shapely.points(points[:, 0])
        outlines.append((geometry, shape.radius if isinstance(shape, pb.Circle) else 0.0))
    (a, radius_a), (b, radius_b) = outlines
    return shapely.distance(a, b) - radius_a - radius_b


def approach_bound(shape_a, sweep_a, shape_b, sweep_b) -> float:
    """|Δc_B − Δc_A| + |Δa_A|·r_A + |Δa_B|·r_B, the shapes' reach measured here."""
    reaches = []
    for shape, motion in ((shape_a, sweep_a), (shape_b, sweep_b)):
        if isinstance(shape, pb.Circle):
            reaches.append(np.hypot(*(shape.center - motion.local_center)) + shape.radius)
        else:
            reaches.append(np.max(np.hypot(*(shape.vertices - motion.local_center).T)))
    relative = (sweep_b.c1 - sweep_b.c0) - (sweep_a.c1 - sweep_a.c0)
    return (np.hypot(*relative) + abs(sweep_a.a1 - sweep_a.a0) * reaches[0]
            + abs(sweep_b.a1 - sweep_b.a0) * reaches[1])


def random_shape(rng):
    if rng.random() < 0.4:
        return pb.Circle(rng.uniform(0.1, 0.6), center=rng.uniform(-0.2, 0.2, 2))
    if rng.random() < 0.5:
        return pb.Polygon.box(rng.uniform(0.05, 0.8), rng.uniform(0.02, 0.6))
    return pb.Polygon.regular(int(rng.integers(3, 8)), rng.uniform(0.2, 0.7))


@pytest.mark.parametrize("block", range(10))
def test_time_of_impact_agrees_with_ten_thousand_samples(block):
    rng = np.random.default_rng(block)
    t = np.linspace(0.0, 1.0, SAMPLES + 1)
    hits = 0
    for _ in range(100):
        shape_a, shape_b = random_shape(rng), random_shape(rng)
        spin = rng.random() < 0.5
        sweep_a = sweep(rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2),
                        0.0, rng.uniform(-20, 20) if spin else 0.0, rng.uniform(-0.1, 0.1, 2))
        sweep_b = sweep(rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2),
                        rng.uniform(-3, 3), rng.uniform(-3, 3), (0.0, 0.0))
        gaps = sampled_gaps(shape_a, sweep_a, shape_b, sweep_b, t)
        result = time_of_impact(shape_a, sweep_a, shape_b, sweep_b)
        touching = np.flatnonzero(gaps <= 0.0)
        if gaps[0] <= 0.0:
            assert result.state in (OVERLAPPED, HIT) and result.fraction == 0.0
            continue
        # Conservative advancement jumps at least (gap)/bound a time: if it runs out of
        # jumps, the shapes came within bound/TOI_MAX_ITERATIONS of each other somewhere,
        # and "failed" is then an honest answer (Box2D's too).
        bound = approach_bound(shape_a, sweep_a, shape_b, sweep_b)
        if result.state == FAILED:
            assert np.min(gaps) <= bound / TOI_MAX_ITERATIONS + 1e-9, result
            continue
        if not len(touching):
            # No sample overlaps: a contact, if any, lasts less than one sub-step.
            assert result.state == SEPARATED or (
                result.state == HIT and np.min(gaps) < bound / SAMPLES), result
            continue
        hits += 1
        first = t[touching[0]]
        assert result.state == HIT
        # Never late, and at most one sub-step early (the shapes are within the
        # tolerance, a millionth of their size, of touching there).
        assert first - 1.0 / SAMPLES <= result.fraction <= first + 1e-12
    assert hits > 20


def test_a_fast_ball_meets_a_thin_wall_where_geometry_says():
    ball, wall = pb.Circle(0.1), pb.Polygon.box(0.01, 1.0)
    for speed in (20.0, 100.0, 500.0):
        step = speed / 60.0
        wall_x = 0.3 * step + 0.11  # the surfaces meet 30 % into the step
        result = time_of_impact(ball, sweep((0.0, 0.0), (step, 0.0)), wall,
                                sweep((wall_x, 0.0), (wall_x, 0.0)))
        assert result.state == HIT
        assert result.fraction == pytest.approx(0.3, abs=1e-6)


def test_a_spinning_rod_is_caught_before_it_crosses_the_ground():
    rod, ground = pb.Polygon.box(1.0, 0.01), pb.Polygon.box(5.0, 0.01)
    # It falls 0.2 m and turns 50/60 rad: the tip sweeps down through the ground mid-step.
    rod_sweep = sweep((0.0, 0.3), (0.0, 0.1), 0.0, 50.0 / 60.0)
    result = time_of_impact(rod, rod_sweep, ground, sweep((0.0, 0.0), (0.0, 0.0)))
    t = np.linspace(0, 1, SAMPLES + 1)
    gaps = sampled_gaps(rod, rod_sweep, ground, sweep((0.0, 0.0), (0.0, 0.0)), t)
    first = t[np.flatnonzero(gaps <= 0)[0]]
    assert result.state == HIT and first - 1e-4 <= result.fraction <= first


def test_the_target_separation_stops_short_by_target_over_speed():
    ball, wall = pb.Circle(0.1), pb.Polygon.box(0.01, 1.0)
    result = time_of_impact(ball, sweep((0.0, 0.0), (2.0, 0.0)), wall,
                            sweep((1.0, 0.0), (1.0, 0.0)), target=0.01)
    assert result.fraction == pytest.approx((0.89 - 0.01) / 2.0, abs=1e-6)


def test_overlapping_and_parallel_sweeps():
    box = pb.Polygon.box(0.5, 0.5)
    assert time_of_impact(box, sweep((0, 0), (1, 0)), box,
                          sweep((0.5, 0), (1.5, 0))).state == OVERLAPPED
    # Moving together, apart: the bound on approach is zero, no contact ever.
    result = time_of_impact(box, sweep((0, 0), (5, 0)), box, sweep((3, 0), (8, 0)))
    assert result[:3] == (SEPARATED, 1.0, 1)
    assert time_of_impact(box, sweep((0, 0), (5, 0)), box, sweep((3, 0), (8, 0)),
                          t_max=0.5).fraction == 0.5


@pytest.mark.parametrize("call, error, message", [
    (lambda s: time_of_impact(pb.Circle(1), s(c0=(math.nan, 0)), pb.Circle(1), s()),
     ValueError, "sweep_a.c0 must be a finite 2-vector"),
    (lambda s: time_of_impact(pb.Circle(1), s(), pb.Circle(1), s(a1=math.inf)),
     ValueError, "sweep_b.a1 must be a finite number"),
    (lambda s: time_of_impact(pb.Circle(1), s(), pb.Circle(1), s(), t_max=0.0),
     ValueError, "t_max must be"),
    (lambda s: time_of_impact(pb.Circle(1), s(), pb.Circle(1), s(), t_max=1.5),
     ValueError, "t_max must be at most 1"),
    (lambda s: time_of_impact(pb.Circle(1), s(), pb.Circle(1), s(), t_max=math.nan),
     ValueError, "t_max"),
    (lambda s: time_of_impact(pb.Circle(1), (0, 0), pb.Circle(1), s()),
     TypeError, "sweep_a must be a Sweep"),
    (lambda s: time_of_impact("ball", s(), pb.Circle(1), s()), TypeError, "shape_a"),
    (lambda s: sweep((0, 0), (1, math.nan)), ValueError, "c1"),
])
def test_bad_sweeps_are_refused_naming_them(call, error, message):
    def make(c0=(0.0, 0.0), c1=(1.0, 0.0), a0=0.0, a1=0.0):
        return Sweep(np.array(c0, float), np.array(c1, float), a0, a1, np.zeros(2))
    with pytest.raises(error, match=message):
        call(make)


def test_the_compiled_distance_equals_gjk_and_shapely():
    """convex_distance (separating axes, then vertex–edge) against chapter 8's GJK and
    against shapely, on 500 random pairs, apart and overlapping."""
    from physbook.collision.gjk import distance
    from physbook.collision.toi import shape_distance
    from physbook.vecmath.vec import Transform

    rng = np.random.default_rng(13)
    apart = 0
    for _ in range(500):
        shape_a, shape_b = random_shape(rng), random_shape(rng)
        transform_a = Transform(rng.uniform(-1, 1, 2), rng.uniform(-3, 3))
        transform_b = Transform(rng.uniform(-1, 1, 2), rng.uniform(-3, 3))
        compiled = shape_distance(shape_a, transform_a, shape_b, transform_b)
        by_gjk = distance(shape_a, transform_a, shape_b, transform_b).distance
        t = np.zeros(1)
        by_shapely = max(sampled_gaps(
            shape_a, Sweep(transform_a.position, transform_a.position, transform_a.angle,
                           transform_a.angle, np.zeros(2)),
            shape_b, Sweep(transform_b.position, transform_b.position, transform_b.angle,
                           transform_b.angle, np.zeros(2)), t)[0], 0.0)
        assert compiled == pytest.approx(by_gjk, abs=1e-9)
        assert compiled == pytest.approx(by_shapely, abs=1e-9)
        apart += compiled > 0.0
    assert 100 < apart < 450


def test_the_trace_holds_the_advancement_and_each_jump_is_safe():
    rod, ground = pb.Polygon.box(1.0, 0.01), pb.Polygon.box(5.0, 0.01)
    rod_sweep = sweep((0.0, 0.3), (0.0, 0.1), 0.0, 50.0 / 60.0)
    still = sweep((0.0, 0.0), (0.0, 0.0))
    result = time_of_impact(rod, rod_sweep, ground, still, trace=True)
    assert result.fractions[0] == 0.0 and len(result.fractions) == result.iterations + 1
    assert np.all(np.diff(result.fractions) > 0.0) and result.fractions[-1] == result.fraction
    # Safe: apart at every fraction visited (shapely, an independent distance).
    assert np.all(sampled_gaps(rod, rod_sweep, ground, still, result.fractions) > 0.0)
    assert len(time_of_impact(rod, rod_sweep, ground, still).fractions) == 0
