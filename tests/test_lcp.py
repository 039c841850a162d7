"""The dense complementarity view of a step's contacts (chapter 10), against the engine's
passes (a second algorithm) and against the column's analytic solution."""

from __future__ import annotations

import numpy as np

import physbook as pb
from physbook.dynamics import lcp
from physbook.dynamics.materials import Material
from physbook.geometry.shapes import Polygon

DT, G = 1 / 60, 10.0


def column_problem(count=6, iterations=10):
    """A column of ``count`` unit boxes after one step of cold sequential impulses, and its
    LCP built from the contacts that step found, at the centres it started from."""
    rough = Material(friction=0.6, restitution=0.0)
    world = pb.World(solver=pb.SequentialImpulseSolver(
        iterations, warm_starting=False, position_correction="none"))
    world.add_body(Polygon.box(1.5, 0.5), position=(0, -0.5), kind="static", material=rough)
    for i in range(count):
        world.add_body(Polygon.box(0.5, 0.5), position=(0, 0.5 + i), material=rough)
    centers = world.bodies.centers.copy()
    world.step(DT)
    contacts = world.contacts
    J, rows = lcp.contact_jacobian(contacts, centers)
    inverse_mass = lcp.inverse_mass_matrix(world.bodies.arrays.inverse_masses,
                                           world.bodies.arrays.inverse_inertias)
    free = np.zeros(3 * world.count)
    free[1::3] = -G * DT * (world.bodies.kinds == pb.DYNAMIC)
    normal_row, factor = lcp.row_bounds(rows, contacts.frictions)
    return world, J, rows, J @ inverse_mass @ J.T, J @ free, normal_row, factor


def test_inverse_mass_matrix_turns_an_impulse_into_the_velocity_change():
    # Chapter 9's Δv = P/m, Δω = (r × P)/I for one body, from M⁻¹Jᵀλ.
    inverse = lcp.inverse_mass_matrix(np.array([0.5, 0.0]), np.array([2.0, 0.0]))
    assert np.array_equal(np.diag(inverse), [0.5, 0.5, 2.0, 0.0, 0.0, 0.0])


def test_projected_gauss_seidel_is_the_engines_sequential_impulses():
    world, J, rows, A, b, normal_row, factor = column_problem()
    history = lcp.projected_gauss_seidel(A, b, normal_row, factor, 10)
    contacts = world.contacts
    engine = np.where(rows[:, 2] == 0, contacts.normal_impulses[rows[:, 0], rows[:, 1]],
                      contacts.tangent_impulses[rows[:, 0], rows[:, 1]])
    # The same operations in another order of summation: rounding only.
    assert np.abs(history[-1] - engine).max() < 1e-14 * np.abs(engine).max() * len(b)
    assert np.abs(engine).max() > 0.01


def test_the_columns_weight_solves_the_lcp_and_both_sweeps_converge_to_it():
    count = 6
    world, J, rows, A, b, normal_row, factor = column_problem(count)
    # Contact i (between body i and body i + 1, the floor being body 0) carries the boxes
    # above it, (count − i)·m·g·Δt, half at each point, and no friction.
    exact = np.where(rows[:, 2] == 0, (count - world.contacts.bodies[rows[:, 0], 0])
                     * G * DT / 2, 0.0)
    assert lcp.complementarity_error(A, b, exact, normal_row, factor).max() < 1e-14
    # Without friction the normal rows' LCP has one solution (A is positive definite), and
    # both sweeps converge to it geometrically; the counts are about three times what an
    # error of 1e-3 needs on this column.
    normal = rows[:, 2] == 0
    rows_only = np.arange(normal.sum()), -np.ones(normal.sum())
    A_n, b_n = A[np.ix_(normal, normal)], b[normal]
    for solved in (lcp.projected_gauss_seidel(A_n, b_n, *rows_only, 400)[-1],
                   lcp.projected_jacobi(A_n, b_n, *rows_only, 1200)[-1]):
        assert np.abs(solved - exact[normal]).max() < 1e-8 * exact.max()


def test_with_friction_the_column_has_more_than_one_solution():
    # Friction rows make the stack statically indeterminate: Gauss–Seidel, whose first point
    # of a contact turns the box before the second is solved, converges (slowly: about five
    # times closer per thousand sweeps here) to impulses with friction that solve the same
    # LCP as the frictionless weight above.
    world, J, rows, A, b, normal_row, factor = column_problem(6)
    history = lcp.projected_gauss_seidel(A, b, normal_row, factor, 3000)
    errors = lcp.complementarity_error(A, b, history, normal_row, factor)
    assert errors[-1].max() < 1e-5 and errors[-1].max() < errors[1000].max() / 10
    assert np.abs(history[-1][rows[:, 2] == 1]).max() > 0.1


def test_projected_jacobi_updates_every_row_from_the_sweep_before():
    # Two coupled rows: one Jacobi sweep from zero is −b/diag for each, clamped, whatever the
    # coupling; Gauss–Seidel's second row already sees the first.
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    b = np.array([-2.0, -2.0])
    bounds = np.array([0, 1]), np.array([-1.0, -1.0])
    assert np.allclose(lcp.projected_jacobi(A, b, *bounds, 1)[-1], [1.0, 1.0])
    assert np.allclose(lcp.projected_jacobi(A, b, *bounds, 1, relaxation=0.5)[-1], [0.5, 0.5])
    assert np.allclose(lcp.projected_gauss_seidel(A, b, *bounds, 1)[-1], [1.0, 0.5])
