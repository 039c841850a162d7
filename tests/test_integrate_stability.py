"""Stability of the chapter 2 integrators and the implicit spring step.

Oracles: the closed-form eigenvalues of each method's step matrix for x'' = −ω²x, the
exact energy factor of backward Euler, a general linear solve (numpy) of the backward Euler
equations, the exact solution of a critically damped spring, and chapter 10's soft
constraint (the same implicit step written as bias rate and mass scale).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from physbook.dynamics.contact_solver import softness
from physbook.vecmath import integrate

H = 1.0 / 60.0


def _step_matrix(method: str, omega: float, h: float) -> np.ndarray:
    """The 2×2 matrix of one library step of x'' = −ω²x, column by column."""
    def spring(x, v, t):
        return -omega**2 * x

    columns = []
    for state in (np.array([1.0, 0.0]), np.array([0.0, 1.0])):
        _, x, v = integrate.simulate(method, state[:1], state[1:], spring, h, 1)
        columns.append([x[1, 0], v[1, 0]])
    return np.array(columns).T


@pytest.mark.parametrize("method", ["symplectic_euler", "velocity_verlet"])
@pytest.mark.parametrize("omega_h", [0.3, 1.0, 1.9, 1.999])
def test_symplectic_methods_have_unit_eigenvalues_below_the_limit(method, omega_h):
    moduli = np.abs(np.linalg.eigvals(_step_matrix(method, omega_h / H, H)))
    assert np.allclose(moduli, 1.0, rtol=0, atol=1e-7)


@pytest.mark.parametrize("method", ["symplectic_euler", "velocity_verlet"])
@pytest.mark.parametrize("omega_h", [2.001, 2.5, 4.0])
def test_symplectic_methods_blow_up_beyond_the_limit(method, omega_h):
    moduli = np.abs(np.linalg.eigvals(_step_matrix(method, omega_h / H, H)))
    # Roots of λ² − (2 − ω²h²)λ + 1 = 0: real, product 1, the larger of modulus
    # (ω²h² − 2 + sqrt((ω²h² − 2)² − 4)) / 2.
    b = omega_h**2 - 2.0
    expected = (b + math.sqrt(b * b - 4.0)) / 2.0
    assert np.isclose(moduli.max(), expected, rtol=1e-8)
    assert np.isclose(moduli.min() * moduli.max(), 1.0, rtol=1e-8)


def test_position_verlet_amplitude_follows_the_eigenvalue_beyond_the_limit():
    omega_h, steps = 2.5, 40
    omega = omega_h / H
    _, x, _ = integrate.simulate("position_verlet", [1.0], [0.0],
                                 lambda x, v, t: -omega**2 * x, H, steps)
    b = omega_h**2 - 2.0
    largest = (b + math.sqrt(b * b - 4.0)) / 2.0          # 4 for ωh = 2.5
    growth = abs(x[steps, 0] / x[steps - 1, 0])
    assert np.isclose(growth, largest, rtol=1e-9)


@pytest.mark.parametrize("omega_h", [0.1, 1.0, 2.0, 10.0])
def test_explicit_euler_modulus_exceeds_one_for_every_step(omega_h):
    moduli = np.abs(np.linalg.eigvals(_step_matrix("explicit_euler", omega_h / H, H)))
    assert np.allclose(moduli, math.sqrt(1.0 + omega_h**2), rtol=1e-12)


@pytest.mark.parametrize("omega_h", [0.1, 1.9, 2.5, 100.0])
def test_implicit_step_shrinks_energy_by_the_exact_factor(omega_h):
    mass, omega = 2.0, omega_h / H
    stiffness = mass * omega**2
    x, v = np.array([0.3, -1.2]), np.array([0.7, 0.4])
    x1, v1 = integrate.implicit_spring_step(x, v, stiffness, 0.0, mass, H)
    energy = 0.5 * mass * v**2 + 0.5 * stiffness * x**2
    energy1 = 0.5 * mass * v1**2 + 0.5 * stiffness * x1**2
    assert np.allclose(energy1, energy / (1.0 + omega_h**2), rtol=1e-12)


@pytest.mark.parametrize("stiffness, damping, mass, force",
                         [(400.0, 0.0, 1.0, 0.0), (1e6, 50.0, 0.1, -0.98), (0.0, 3.0, 2.0, 5.0),
                          (30.0, 1e4, 7.0, 0.0)])
def test_implicit_step_solves_the_backward_euler_equations(stiffness, damping, mass, force):
    x0, v0, h = 0.25, -1.5, 0.01
    # Unknowns (x1, v1): x1 − h·v1 = x0 and h·k/m·x1 + (1 + h·c/m)·v1 = v0 + h·F/m.
    matrix = np.array([[1.0, -h], [h * stiffness / mass, 1.0 + h * damping / mass]])
    expected = np.linalg.solve(matrix, [x0, v0 + h * force / mass])
    x1, v1 = integrate.implicit_spring_step([x0], [v0], stiffness, damping, mass, h,
                                            force=force)
    assert np.allclose([x1[0], v1[0]], expected, rtol=1e-12, atol=1e-15)


def test_implicit_step_rests_at_the_exact_equilibrium():
    stiffness, mass, force = 5e4, 0.5, -0.5 * 9.81
    x, v = np.array([0.0]), np.array([0.0])
    for _ in range(2000):
        x, v = integrate.implicit_spring_step(x, v, stiffness, 2 * math.sqrt(stiffness * mass),
                                              mass, H, force=force)
    assert np.isclose(x[0], force / stiffness, rtol=1e-12)
    assert abs(v[0]) < 1e-12


def test_implicit_step_converges_to_the_damped_solution_at_first_order():
    # Critically damped from x = 1, v = 0: x(t) = (1 + ωt)·exp(−ωt).
    omega, mass, duration = 10.0, 1.0, 1.0
    errors = []
    for steps in (1000, 2000):
        h = duration / steps
        x, v = np.array([1.0]), np.array([0.0])
        for _ in range(steps):
            x, v = integrate.implicit_spring_step(x, v, mass * omega**2, 2 * mass * omega,
                                                  mass, h)
        errors.append(abs(x[0] - (1 + omega * duration) * math.exp(-omega * duration)))
    assert np.isclose(errors[0] / errors[1], 2.0, rtol=0.02)


def test_implicit_step_is_chapter_10s_soft_constraint():
    hertz, zeta, h, mass = 30.0, 0.7, 1 / 240, 3.0
    omega = 2 * math.pi * hertz
    s, v = -0.01, -0.5
    soft = softness(hertz, zeta, h)
    # With no impulse yet (λ = 0): Δv = −(mass_scale·v + bias_rate·mass_scale·s).
    soft_dv = -(soft.mass_scale * v + soft.bias_rate * soft.mass_scale * s)
    _, v1 = integrate.implicit_spring_step([s], [v], mass * omega**2, 2 * zeta * mass * omega,
                                           mass, h)
    assert np.isclose(v1[0] - v, soft_dv, rtol=1e-12)


def test_implicit_step_keeps_shapes_and_broadcasts_force():
    x, v = np.zeros((3, 2)), np.ones((3, 2))
    force = np.full((3, 2), 2.0)
    x1, v1 = integrate.implicit_spring_step(x, v, 10.0, 1.0, 1.0, 0.1, force=force)
    assert x1.shape == v1.shape == (3, 2)
    x2, v2 = integrate.implicit_spring_step(x, v, 10.0, 1.0, 1.0, 0.1, force=2.0)
    assert np.array_equal(x1, x2) and np.array_equal(v1, v2)


@pytest.mark.parametrize("changes, error, words", [
    ({"stiffness": -1.0}, ValueError, "stiffness must be non-negative"),
    ({"damping": -0.1}, ValueError, "damping must be non-negative"),
    ({"mass": 0.0}, ValueError, "mass must be positive"),
    ({"dt": 0.0}, ValueError, "dt must be positive"),
    ({"x": [1.0, 2.0]}, ValueError, "same shape"),
    ({"force": [1.0, 2.0]}, ValueError, "force must be a number or an array shaped like x"),
    ({"v": [float("nan")]}, ValueError, "v must be finite"),
    ({"stiffness": "stiff"}, TypeError, "stiffness must be a real number"),
])
def test_implicit_step_rejects_bad_input(changes, error, words):
    arguments = dict(x=[1.0], v=[0.0], stiffness=1.0, damping=0.0, mass=1.0, dt=0.1)
    with pytest.raises(error, match=words):
        integrate.implicit_spring_step(**{**arguments, **changes})
