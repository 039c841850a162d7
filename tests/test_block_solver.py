"""Box2D v2's block solver and Chipmunk's split impulses (chapter 10), against oracles: the
2×2 LCP against a non-negative least-squares solve (scipy), a block pass against the
dense complementarity problem, split impulses against the push-out they are built to give."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import nnls

import physbook as pb
from physbook.constants import SLOP_SIZE_FRACTION
from physbook.dynamics import lcp
from physbook.dynamics.block_solver import BlockSolver, solve_two_point_lcp
from physbook.dynamics.materials import Material
from physbook.geometry.shapes import Polygon

DT = 1 / 60


def lcp_by_least_squares(K, b):
    """The LCP x ≥ 0, Kx + b ≥ 0, x·(Kx + b) = 0 for a positive definite K is the minimum
    of ½xᵀKx + bᵀx over x ≥ 0, which is ½|Cᵀx + C⁻¹b|² + const with K = CCᵀ: a
    non-negative least-squares problem, which scipy's nnls solves exactly."""
    C = np.linalg.cholesky(K)
    x, _ = nnls(C.T, -np.linalg.solve(C, b))
    return x


def test_two_point_lcp_matches_least_squares_in_every_case():
    rng = np.random.default_rng(7)
    cases = set()
    for _ in range(400):
        L = rng.normal(size=(2, 2))
        K = L @ L.T + 0.1 * np.eye(2)  # condition number below ~1e3
        b = rng.normal(size=2)
        x1, x2, case = solve_two_point_lcp(K[0, 0], K[0, 1], K[1, 1], b[0], b[1])
        cases.add(case)
        expected = lcp_by_least_squares(K, b)
        # nnls and the enumeration each solve a 2×2 system: agreement to 1e-9 of the
        # solution's scale is ~1e6 ulps of headroom at these conditions.
        assert np.allclose([x1, x2], expected, atol=1e-9 * (1 + np.abs(expected).max()))
        w = K @ [x1, x2] + b
        assert min(x1, x2) >= 0 and w.min() >= -1e-12 and abs(x1 * w[0]) + abs(x2 * w[1]) < 1e-12
    assert cases == {1, 2, 3, 4}


def test_two_point_lcp_of_a_singular_matrix_picks_a_valid_case():
    # Two identical rows (the two points on the line of the centres): det K = 0.
    x1, x2, case = solve_two_point_lcp(2.0, 2.0, 2.0, -1.0, -1.0)
    assert case == 2 and (x1, x2) == (0.5, 0.0)


def box_on_ground(spin=0.0, depth=0.0, solver=None, width=0.5):
    world = pb.World(solver=solver, sleeping=False)
    rough = Material(friction=0.6, restitution=0.0)
    world.add_body(Polygon.box(3.0, 0.5), position=(0, -0.5), kind="static", material=rough)
    box = world.add_body(Polygon.box(width, 0.25), position=(0, 0.25 - depth), material=rough)
    box.angular_velocity = spin
    return world, box


def test_one_block_pass_solves_a_two_point_contact_where_one_point_pass_does_not():
    # A box landing flat while turning: the two points approach at different speeds. The
    # LCP of its two normal rows, built densely (lcp.contact_jacobian, M⁻¹), is the oracle.
    for block, tolerance in ((True, 1e-12), (False, None)):
        world, box = box_on_ground(spin=0.8, solver=BlockSolver(1, block=block,
                                                                 position_correction="none"))
        box.velocity = (0.0, -1.0)
        centers = world.bodies.centers.copy()
        velocities = np.column_stack([world.bodies.velocities,
                                      world.bodies.angular_velocities]).ravel()
        free = velocities + DT * np.tile([0.0, -10.0, 0.0], world.count) * (
            np.repeat(world.bodies.kinds == pb.DYNAMIC, 3))
        world.step(DT)
        contacts = world.contacts
        J, rows = lcp.contact_jacobian(contacts, centers)
        normal = rows[:, 2] == 0
        A = J[normal] @ lcp.inverse_mass_matrix(world.bodies.arrays.inverse_masses,
                                                world.bodies.arrays.inverse_inertias) @ J[normal].T
        b = J[normal] @ free
        solved = contacts.normal_impulses[rows[normal, 0], rows[normal, 1]]
        expected = lcp_by_least_squares(A, b)
        assert len(solved) == 2 and expected.min() > 0.0  # both points push
        if tolerance is not None:
            assert np.allclose(solved, expected, rtol=1e-12, atol=0)
        else:
            assert np.abs(solved - expected).max() > 0.01 * np.abs(expected).max()


def test_split_impulses_push_out_without_leaving_speed():
    # A box sunk d into the ground: the split rows aim at β/Δt·(d − slop), which moves it
    # up by β(d − slop) in the step, and drop that speed afterwards; Baumgarte's bias moves
    # it as far and keeps the speed.
    depth, beta = 0.1, 0.2
    box_size = 2 * (1.0 * 0.5) / 3.0  # 2·area/perimeter of the 1 m × 0.5 m box
    slop = min(pb.constants.LINEAR_SLOP, SLOP_SIZE_FRACTION * box_size)
    results = {}
    for correction in ("split", "baumgarte"):
        world, box = box_on_ground(depth=depth, solver=BlockSolver(
            50, position_correction=correction, correction=beta))
        start = box.position[1]
        world.step(DT)
        results[correction] = (box.position[1] - start, box.velocity[1])
    push = beta * (depth - slop)
    rise, speed = results["split"]
    assert abs(rise - push) < 1e-9 and abs(speed) < 1e-9
    rise, speed = results["baumgarte"]
    assert abs(rise - push) < 1e-9 and abs(speed - push / DT) < 1e-7


def test_block_solver_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="position_correction"):
        BlockSolver(position_correction="springs")
    with pytest.raises(TypeError, match="accumulate"):
        BlockSolver(accumulate=False)
    with pytest.raises(TypeError, match="block"):
        BlockSolver(block="yes")
    world = pb.World(solver=BlockSolver())
    a = world.add_body(Polygon.box(0.5, 0.5), position=(0, 0))
    b = world.add_body(Polygon.box(0.5, 0.5), position=(2, 0))
    world.add_joint(pb.DistanceJoint(a, b, (0, 0), (2, 0)))
    with pytest.raises(ValueError, match="joints"):
        world.step(DT)
