"""Continuous collision with capsules, rounded polygons, segments and chains.

The oracle is geometry, as for chapter 13's tests: where the segment or chain lies and
which side of it the body started on. A shot with both defences off shows the body does
tunnel (v·dt is larger than its thickness), so each test can fail. A body sliding fast
along a chain must never be stopped by continuous collision: its run is then identical, bit
for bit, to the same run with continuous collision off.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

import physbook as pb
from physbook.collision.toi import (
    FAILED_CODE,
    HIT_CODE,
    OVERLAPPED_CODE,
    SEPARATED_CODE,
    advance,
    sweep,
    work_arrays,
)
from physbook.constants import (
    CONTINUOUS_CORE_FRACTION,
    SPECULATIVE_DISTANCE,
    TOI_MAX_ITERATIONS,
    TOI_TOLERANCE_FRACTION,
)
from physbook.continuous import chain_skips, reach_arrays, shape_core
from physbook.dynamics.solvers import SOLVERS
from physbook.geometry.shape_table import ShapeArrays
from physbook.kinds import CAPSULE, CHAIN_SEGMENT, POLYGON

DT = 1.0 / 60.0
RADIUS = 0.1  # the capsule's
HALF_LENGTH = 0.2  # half its core's length


def solver_named(name: str, speculative: bool):
    solver = SOLVERS[name]()
    solver.speculative_distance = SPECULATIVE_DISTANCE if speculative else 0.0
    return solver


DEFENCES = pytest.mark.parametrize("solver, speculative, continuous", [
    (name, speculative, continuous) for name in sorted(SOLVERS)
    for speculative, continuous in ((True, True), (False, True), (True, False))])


# --- the kernels ---------------------------------------------------------------------------


def test_chain_skips_a_segment_started_behind_or_slid_along():
    point, normal = np.array([0.0, 0.0]), np.array([0.0, 1.0])  # the line y = 0, front up
    core = 0.05

    def skips(start_y, end_y, start_x=0.0, end_x=0.0):
        return chain_skips(point, normal, np.array([start_x, start_y]),
                           np.array([end_x, end_y]), core)

    assert skips(-0.5, 0.5)  # started behind: one-sided, whatever it does
    assert skips(-0.001, -3.0)
    assert skips(0.3, 0.3, 0.0, 5.0)  # along the surface, ending in front
    assert skips(0.3, 0.3 - 0.9 * core, 0.0, 5.0)  # sinking by less than its core
    assert not skips(0.3, 0.3 - 1.1 * core)  # coming down by more than its core
    assert not skips(0.3, -0.5)  # through the line
    assert not skips(0.3, 0.9 * core)  # ending within its core of the line


def test_shape_cores_of_capsules_and_rounded_polygons():
    # A capsule's core circle: the middle of its segment, a quarter of its radius.
    centroid, _, radius = shape_core(CAPSULE, 0.3, np.array([[1.0, 2.0], [3.0, 2.0]]),
                                     np.array([[0.0, -1.0], [0.0, 1.0]]))
    assert centroid.tolist() == [[2.0, 2.0]] and radius == CONTINUOUS_CORE_FRACTION * 0.3
    # A rounded box of core half extents 2 × 1 and radius 0.5: inner radius 1 + 0.5.
    box = pb.Polygon.box(2.0, 1.0, center=(1.0, -1.0))
    centroid, _, radius = shape_core(POLYGON, 0.5, box.vertices, box.normals)
    np.testing.assert_allclose(centroid, [[1.0, -1.0]], atol=1e-15)
    assert radius == pytest.approx(CONTINUOUS_CORE_FRACTION * 1.5, abs=1e-15)


def test_reaches_count_a_chain_segment_s_core_and_not_its_ghosts():
    # A chain segment (1, 0) → (−1, 0) with far ghosts, and a capsule on the same body.
    vertices = np.array([[1.0, 0.0], [-1.0, 0.0], [9.0, 0.0], [-9.0, 5.0],
                         [0.0, 1.0], [0.0, 3.0]])
    normals = np.array([[0.0, 1.0], [0.0, -1.0], [0.0, 1.0], [0.0, 1.0],
                        [1.0, 0.0], [-1.0, 0.0]])
    shapes = ShapeArrays(np.arange(2), np.array([CHAIN_SEGMENT, CAPSULE]), np.zeros(2, int),
                         np.array([0.0, 0.5]), np.array([0, 4]), np.array([4, 2]), vertices,
                         normals)
    per_shape, per_body = reach_arrays(shapes, np.zeros((1, 2)))
    assert per_shape.tolist() == [1.0, 3.5] and per_body.tolist() == [3.5]


# --- worlds ----------------------------------------------------------------------------------


def capsule(angle=0.0) -> pb.Capsule:
    along = HALF_LENGTH * np.array([math.cos(angle), math.sin(angle)])
    return pb.Capsule(-along, along, RADIUS)


def wall(kind: str, front: str = "left"):
    """A vertical line at x = 2 from y = −1 to 1: a segment, or a chain whose front faces
    ``front`` (its points listed downwards face left: the right side of (0, −1) is −x)."""
    if kind == "segment":
        return pb.Segment((2.0, -1.0), (2.0, 1.0))
    ys = np.array([2.0, 1.0, 0.5, 0.0, -0.5, -1.0, -2.0])
    points = np.column_stack([np.full(len(ys), 2.0), ys])
    return pb.Chain(points if front == "left" else points[::-1])


def crossed(world, body, steps: int = 40) -> bool:
    """Whether the body, started left of the wall, ever ends a step with its centre right
    of the wall's line x = 2 while level with the wall (|y| < 1). (Its ends may sink past
    the line: a body already touching is stopped by its core, a small circle about its
    centroid, and the contacts push the rest back out.)"""
    for _ in range(steps):
        world.step(DT)
        x, y = body.position
        if x > 2.0 and abs(y) < 1.0:
            return True
    return False


@DEFENCES
@pytest.mark.parametrize("target", ["segment", "chain"])
def test_a_capsule_at_100_m_s_never_ends_a_step_behind_a_segment_or_a_chain(
        solver, speculative, continuous, target):
    rng = np.random.default_rng(7)
    for _ in range(6):
        world = pb.World(gravity=(0.0, 0.0), solver=solver_named(solver, speculative))
        world.continuous = continuous
        world.add_body(wall(target), kind="static")
        y = rng.uniform(-0.5, 0.5)
        shot = world.add_body(capsule(rng.uniform(-np.pi, np.pi)), position=(0.0, y),
                              velocity=(100.0, rng.uniform(-5.0, 5.0)),
                              angular_velocity=rng.uniform(-20.0, 20.0))
        assert not crossed(world, shot)


@pytest.mark.parametrize("target", ["segment", "chain"])
def test_without_either_defence_the_capsule_passes(target):
    world = pb.World(gravity=(0.0, 0.0), solver=solver_named("soft_step", False))
    world.continuous = False
    world.add_body(wall(target), kind="static")
    shot = world.add_body(capsule(), position=(0.0, 0.3), velocity=(100.0, 0.0))
    assert crossed(world, shot)


def test_a_capsule_fired_at_a_chain_from_behind_passes_through():
    world = pb.World(gravity=(0.0, 0.0), solver=solver_named("soft_step", True))
    world.add_body(wall("chain", front="right"), kind="static")  # its front faces +x
    shot = world.add_body(capsule(0.4), position=(0.0, 0.3), velocity=(100.0, 0.0))
    world.run(20, DT)
    assert shot.position[0] == pytest.approx(100.0 * 20 * DT)
    assert shot.velocity.tolist() == [100.0, 0.0]


def sliding_run(continuous: bool, steps: int = 90):
    """A capsule (r 0.1, core 0.4 m) resting on a flat chain of 0.25 m segments, sent along
    it at 20 m/s, without friction: its path over ``steps`` steps."""
    world = pb.World(solver=solver_named("soft_step", True))
    world.continuous = continuous
    xs = np.arange(60.0, -2.25, -0.25)  # right to left: the front faces up
    world.add_body(pb.Chain(np.column_stack([xs, np.zeros(len(xs))])), kind="static",
                   material=pb.Material(friction=0.0))
    body = world.add_body(capsule(), position=(0.0, RADIUS), velocity=(20.0, 0.0),
                          material=pb.Material(friction=0.0))
    path = []
    for _ in range(steps):
        world.step(DT)
        path.append([*body.position, body.angle, *body.velocity])
    return np.array(path)


def test_a_capsule_sliding_at_20_m_s_along_a_chain_is_never_stopped():
    with_continuous = sliding_run(True)
    # Fast: it moves a third of a metre a step, more than half its thickness.
    assert 20.0 * DT > 0.5 * RADIUS
    # It slides on the chain (it neither falls through nor hops off)...
    assert np.all(np.abs(with_continuous[:, 1] - RADIUS) < 0.02)
    assert with_continuous[-1, 0] == pytest.approx(20.0 * 90 * DT, rel=1e-3)
    # ...and continuous collision never stopped it: the run is the run without it.
    np.testing.assert_array_equal(with_continuous, sliding_run(False))


# --- time of impact of cores with a radius ---------------------------------------------------

SAMPLES = 10_000


def table_core(shape):
    """(core points, right-perpendicular edge normals, radius), as the shape table keeps
    them: a two-point core's edges run there and back, normals n and −n."""
    points, radius = shape.core()
    points = np.asarray(points, float).reshape(-1, 2)
    edges = np.roll(points, -1, axis=0) - points
    normals = np.column_stack([edges[:, 1], -edges[:, 0]])
    lengths = np.hypot(normals[:, 0], normals[:, 1])
    normals = np.divide(normals, lengths[:, None], out=np.zeros_like(normals),
                        where=lengths[:, None] > 0)
    return points, normals, float(radius)


def posed_cores(points, motion, t):
    """Shapely geometries of the core at each fraction ``t`` of the sweep."""
    angle = (1 - t) * motion.a0 + t * motion.a1
    center = (1 - t)[:, None] * motion.c0 + t[:, None] * motion.c1
    cosine, sine = np.cos(angle)[:, None], np.sin(angle)[:, None]
    x = points[None, :, 0] - motion.local_center[0]
    y = points[None, :, 1] - motion.local_center[1]
    posed = np.stack([center[:, :1] + cosine * x - sine * y,
                      center[:, 1:] + sine * x + cosine * y], axis=2)
    if len(points) == 1:
        return shapely.points(posed[:, 0])
    if len(points) == 2:
        return shapely.linestrings(posed)
    return shapely.polygons(posed)


def random_round(rng, static: bool = False):
    pick = rng.random()
    if static and pick < 0.3:
        return pb.Segment(rng.uniform(-0.8, 0.0, 2), rng.uniform(0.0, 0.8, 2))
    if pick < 0.6:
        p1, heading = rng.uniform(-0.5, 0.5, 2), rng.uniform(-np.pi, np.pi)
        p2 = p1 + rng.uniform(0.1, 0.8) * np.array([np.cos(heading), np.sin(heading)])
        return pb.Capsule(p1, p2, rng.uniform(0.02, 0.4))
    if pick < 0.8:
        return pb.Polygon.box(rng.uniform(0.05, 0.6), rng.uniform(0.02, 0.4),
                              radius=rng.uniform(0.01, 0.3))
    return pb.Polygon.regular(int(rng.integers(3, 8)), rng.uniform(0.2, 0.6)).rounded(
        rng.uniform(0.01, 0.2))


@pytest.mark.parametrize("block", range(3))
def test_time_of_impact_of_round_shapes_agrees_with_ten_thousand_samples(block):
    rng = np.random.default_rng(100 + block)
    t = np.linspace(0.0, 1.0, SAMPLES + 1)
    hits = 0
    for _ in range(100):
        shape_a, shape_b = random_round(rng), random_round(rng, static=True)
        core_a, core_b = table_core(shape_a), table_core(shape_b)
        spin = rng.random() < 0.5
        sweep_a = sweep(rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2), 0.0,
                        rng.uniform(-20, 20) if spin else 0.0, rng.uniform(-0.1, 0.1, 2))
        sweep_b = sweep(rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 2),
                        rng.uniform(-3, 3), rng.uniform(-3, 3), (0.0, 0.0))
        gaps = (shapely.distance(posed_cores(core_a[0], sweep_a, t),
                                 posed_cores(core_b[0], sweep_b, t)) - core_a[2] - core_b[2])
        reaches = [np.max(np.hypot(*(core[0] - motion.local_center).T)) + core[2]
                   for core, motion in ((core_a, sweep_a), (core_b, sweep_b))]
        relative = (sweep_b.c1 - sweep_b.c0) - (sweep_a.c1 - sweep_a.c0)
        bound = (np.hypot(*relative) + abs(sweep_a.a1 - sweep_a.a0) * reaches[0]
                 + abs(sweep_b.a1 - sweep_b.a0) * reaches[1])
        tolerance = TOI_TOLERANCE_FRACTION * max(reaches)
        state, fraction, _ = advance(core_a, sweep_a.packed(), core_b, sweep_b.packed(), 1.0,
                                     0.0, tolerance, bound, work_arrays(8), np.zeros(0))
        touching = np.flatnonzero(gaps <= 0.0)
        if gaps[0] <= 0.0:
            assert fraction == 0.0 and state in (HIT_CODE, OVERLAPPED_CODE)
            continue
        if state == FAILED_CODE:
            assert np.min(gaps) <= bound / TOI_MAX_ITERATIONS + 1e-9
            continue
        if not len(touching):
            assert state == SEPARATED_CODE or (state == HIT_CODE
                                               and np.min(gaps) < bound / SAMPLES)
            continue
        hits += 1
        first = t[touching[0]]
        assert state == HIT_CODE
        # Never late, and at most one sub-step early.
        assert first - 1.0 / SAMPLES <= fraction <= first + 1e-12
    assert hits > 20


def test_collinear_capsules_meet_end_to_end_when_their_gap_closes():
    # Two capsules on the x axis, the moving one 1 m short of the other's end cap: the
    # separating axis test of two collinear cores has no axis along them, and measured
    # them touching from the start.
    left = table_core(pb.Capsule((-0.5, 0.0), (0.5, 0.0), 0.1))
    right = table_core(pb.Capsule((2.0, 0.0), (3.0, 0.0), 0.2))
    gap = 2.0 - 0.5 - 0.1 - 0.2  # 1.2 m between the caps
    moving = sweep((0.0, 0.0), (2.0, 0.0))
    still = sweep((0.0, 0.0), (0.0, 0.0))
    tolerance = 1e-6
    state, fraction, _ = advance(left, moving.packed(), right, still.packed(), 1.0, 0.0,
                                 tolerance, 2.0, work_arrays(4), np.zeros(0))
    assert state == HIT_CODE
    assert gap / 2.0 - tolerance / 2.0 <= fraction <= gap / 2.0
