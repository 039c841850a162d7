"""Integrators against exact solutions, closed-form recurrences and a scipy reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from physbook.vecmath import integrate
from physbook.vecmath.integrate import (
    METHODS,
    explicit_euler_step,
    position_verlet_start,
    position_verlet_step,
    rk4_step,
    simulate,
    symplectic_euler_step,
    velocity_verlet_step,
)

GRAVITY = np.array([0.0, -10.0])
OMEGA = 2.0  # rad/s, the test spring's angular frequency

EXPECTED_ORDER = {
    "explicit_euler": 1,
    "symplectic_euler": 1,
    "position_verlet": 2,
    "velocity_verlet": 2,
    "rk4": 4,
}


def gravity(x, v, t):
    return np.broadcast_to(GRAVITY, x.shape)


def spring(x, v, t):
    return -OMEGA**2 * x


def spring_exact(t, x0, v0):
    """x(t), v(t) of x'' = −ω²x."""
    x = x0 * np.cos(OMEGA * t) + v0 / OMEGA * np.sin(OMEGA * t)
    v = -x0 * OMEGA * np.sin(OMEGA * t) + v0 * np.cos(OMEGA * t)
    return x, v


def spring_energy(x, v):
    """Energy per unit mass, ½v² + ½ω²x², summed over the last axis if any."""
    return 0.5 * np.sum(v**2 + OMEGA**2 * x**2, axis=-1)


def kepler(x, v, t):
    """Inverse-square attraction to the origin with GM = 1 m³/s²."""
    r = np.linalg.norm(x, axis=-1, keepdims=True)
    return -x / r**3


def kepler_energy(x, v):
    return 0.5 * np.sum(v**2, axis=-1) - 1.0 / np.linalg.norm(x, axis=-1)


# --- exactness under constant acceleration -------------------------------------------------


def free_fall_exact(t, x0, v0):
    t = t[:, None]
    return x0 + v0 * t + 0.5 * GRAVITY * t**2, v0 + GRAVITY * t


@pytest.mark.parametrize("method", ["position_verlet", "velocity_verlet", "rk4"])
def test_second_and_higher_order_methods_are_exact_in_free_fall(method):
    x0, v0 = np.array([1.0, 20.0]), np.array([3.0, 15.0])
    t, x, v = simulate(method, x0, v0, gravity, 0.1, 50)
    x_exact, v_exact = free_fall_exact(t, x0, v0)
    np.testing.assert_allclose(x, x_exact, rtol=0, atol=1e-11)
    np.testing.assert_allclose(v, v_exact, rtol=0, atol=1e-11)


@given(
    x0=st.floats(-100, 100),
    v0=st.floats(-50, 50),
    g=st.floats(-20, 20),
    dt=st.floats(1e-3, 0.5),
    steps=st.integers(1, 40),
)
@settings(max_examples=40)
def test_euler_methods_follow_their_closed_form_recurrences(x0, v0, g, dt, steps):
    """Under constant a: explicit x_n = x0 + v0·n·dt + a·dt²·n(n−1)/2, symplectic n(n+1)/2."""
    n = np.arange(steps + 1)
    t_exp, x_exp, v_exp = simulate(
        "explicit_euler", [x0], [v0], lambda x, v, t: np.full_like(x, g), dt, steps
    )
    t_sym, x_sym, v_sym = simulate(
        "symplectic_euler", [x0], [v0], lambda x, v, t: np.full_like(x, g), dt, steps
    )
    scale = abs(x0) + abs(v0) * steps * dt + abs(g) * (steps * dt) ** 2 + 1.0
    velocity = v0 + g * n * dt
    np.testing.assert_allclose(v_exp[:, 0], velocity, atol=1e-12 * (abs(v0) + abs(g) * steps))
    np.testing.assert_allclose(v_sym[:, 0], velocity, atol=1e-12 * (abs(v0) + abs(g) * steps))
    np.testing.assert_allclose(
        x_exp[:, 0], x0 + v0 * n * dt + g * dt**2 * n * (n - 1) / 2, atol=1e-12 * scale
    )
    np.testing.assert_allclose(
        x_sym[:, 0], x0 + v0 * n * dt + g * dt**2 * n * (n + 1) / 2, atol=1e-12 * scale
    )


def test_euler_position_errors_in_free_fall_are_half_g_dt_t():
    """Explicit Euler lags the parabola by ½·g·dt·t, symplectic Euler leads it by as much."""
    x0, v0, dt = np.zeros(2), np.array([4.0, 12.0]), 0.05
    t, x_exp, _ = simulate("explicit_euler", x0, v0, gravity, dt, 60)
    _, x_sym, _ = simulate("symplectic_euler", x0, v0, gravity, dt, 60)
    x_exact, _ = free_fall_exact(t, x0, v0)
    offset = 0.5 * GRAVITY * dt * t[:, None]
    np.testing.assert_allclose(x_exp - x_exact, -offset, atol=1e-12)
    np.testing.assert_allclose(x_sym - x_exact, offset, atol=1e-12)


@given(g=st.floats(-30, 30), v0=st.floats(-10, 10), dt=st.floats(1e-3, 0.2))
@settings(max_examples=30)
def test_velocity_verlet_and_rk4_are_exact_for_any_constant_acceleration(g, v0, dt):
    steps = 20
    t = dt * np.arange(steps + 1)
    exact = 1.0 + v0 * t + 0.5 * g * t**2
    for method in ("velocity_verlet", "rk4", "position_verlet"):
        _, x, v = simulate(method, [1.0], [v0], lambda x, v, t: np.full_like(x, g), dt, steps)
        scale = 1.0 + abs(v0) * t[-1] + abs(g) * t[-1] ** 2
        np.testing.assert_allclose(x[:, 0], exact, atol=1e-12 * scale)
        np.testing.assert_allclose(v[:, 0], v0 + g * t, atol=1e-11 * (1 + abs(v0) + abs(g)))


# --- order of accuracy ---------------------------------------------------------------------


def measured_order(method, acceleration, exact, x0, v0, duration, steps):
    """log2 of the ratio of max errors over the run when dt is halved."""
    errors = []
    for count in (steps, 2 * steps):
        t, x, v = simulate(method, [x0], [v0], acceleration, duration / count, count)
        x_exact, v_exact = exact(t)
        errors.append(
            (np.max(np.abs(x[:, 0] - x_exact)), np.max(np.abs(v[:, 0] - v_exact)))
        )
    return np.log2(np.array(errors[0]) / np.array(errors[1]))


@pytest.mark.parametrize("method", METHODS)
def test_order_of_convergence_on_the_spring(method):
    x0, v0 = 1.0, 1.5
    orders = measured_order(
        method, spring, lambda t: spring_exact(t, x0, v0), x0, v0, duration=3.0, steps=200
    )
    np.testing.assert_allclose(orders, EXPECTED_ORDER[method], atol=0.1)


def damped_exact(t, damping=0.3):
    """x'' = −ω²x − c·x' from x = 1, v = 0."""
    decay = damping / 2
    omega_d = math.sqrt(OMEGA**2 - decay**2)
    envelope = np.exp(-decay * t)
    x = envelope * (np.cos(omega_d * t) + decay / omega_d * np.sin(omega_d * t))
    v = -envelope * (OMEGA**2 / omega_d) * np.sin(omega_d * t)
    return x, v


@pytest.mark.parametrize(
    "method, order",
    [
        ("explicit_euler", 1),
        ("symplectic_euler", 1),
        ("position_verlet", 1),  # documented: its velocity estimate is a backward difference
        ("velocity_verlet", 2),
        ("rk4", 4),
    ],
)
def test_order_with_velocity_dependent_damping(method, order):
    def damped(x, v, t):
        return -(OMEGA**2) * x - 0.3 * v

    orders = measured_order(method, damped, damped_exact, 1.0, 0.0, duration=3.0, steps=200)
    np.testing.assert_allclose(orders[0], order, atol=0.12)


def test_rk4_matches_scipy_on_a_pendulum_with_time_dependent_drive():
    def pendulum(x, v, t):
        return -10.0 * np.sin(x) - 0.2 * v + 0.5 * np.cos(1.3 * t)

    def reference(t):
        solution = solve_ivp(
            lambda t, y: [y[1], pendulum(np.array([y[0]]), np.array([y[1]]), t)[0]],
            (0.0, 5.0),
            [2.5, 0.0],
            t_eval=t,
            rtol=1e-12,
            atol=1e-12,
            method="DOP853",
        )
        return solution.y

    errors = []
    for steps in (500, 1000):
        t, x, v = simulate("rk4", [2.5], [0.0], pendulum, 5.0 / steps, steps)
        x_ref, v_ref = reference(t)
        errors.append(max(np.max(np.abs(x[:, 0] - x_ref)), np.max(np.abs(v[:, 0] - v_ref))))
    assert errors[0] < 1e-6
    assert 12 < errors[0] / errors[1] < 20  # 2⁴ = 16 for a fourth-order method


# --- energy --------------------------------------------------------------------------------


def test_explicit_euler_multiplies_spring_energy_by_one_plus_omega_dt_squared():
    """E_{n+1} = (1 + ω²dt²)·E_n exactly for explicit Euler on x'' = −ω²x."""
    dt, steps = 0.01, 500
    _, x, v = simulate("explicit_euler", [0.7, -0.2], [0.1, 0.4], spring, dt, steps)
    energy = spring_energy(x, v)
    growth = (1 + OMEGA**2 * dt**2) ** np.arange(steps + 1)
    np.testing.assert_allclose(energy, energy[0] * growth, rtol=1e-10)


def test_symplectic_euler_conserves_its_modified_energy_exactly():
    """v² + ω²x² − ω²·dt·x·v is invariant under symplectic Euler on the spring."""
    dt, steps = 0.05, 4000
    _, x, v = simulate("symplectic_euler", [1.0], [0.5], spring, dt, steps)
    modified = v[:, 0] ** 2 + OMEGA**2 * x[:, 0] ** 2 - OMEGA**2 * dt * x[:, 0] * v[:, 0]
    np.testing.assert_allclose(modified, modified[0], rtol=1e-12)
    energy = spring_energy(x, v)
    assert np.ptp(energy) > 1e-3  # the true energy does oscillate...
    assert np.max(np.abs(energy / energy[0] - 1)) < OMEGA * dt  # ...within a bound


@pytest.mark.parametrize("method", ["symplectic_euler", "position_verlet", "velocity_verlet"])
def test_symplectic_methods_keep_orbit_energy_bounded(method):
    x0, v0 = np.array([1.0, 0.0]), np.array([0.0, 1.2])  # an eccentric orbit, GM = 1
    _, x, v = simulate(method, x0, v0, kepler, 0.01, 6000)
    drift = kepler_energy(x, v) - kepler_energy(x0, v0)
    tenth = len(drift) // 10
    # bounded: the last tenth of the run wanders no further than the first orbit did
    assert np.max(np.abs(drift[-tenth:])) < 1.5 * np.max(np.abs(drift[: 2 * tenth]))
    assert np.max(np.abs(drift)) < 0.05


def test_explicit_euler_gains_orbit_energy_and_rk4_loses_spring_energy():
    x0, v0 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    _, x, v = simulate("explicit_euler", x0, v0, kepler, 0.01, 2000)
    energy = kepler_energy(x, v)
    assert np.all(np.diff(energy) > 0)
    assert energy[-1] - energy[0] > 0.05
    _, x, v = simulate("rk4", [1.0], [0.0], spring, 0.1, 1000)
    energy = spring_energy(x, v)
    assert np.all(np.diff(energy) < 0)  # |R(iωh)| < 1: RK4 damps an undamped oscillator


def test_position_and_velocity_verlet_agree():
    x0, v0 = np.array([1.0, 0.0]), np.array([0.0, 1.2])
    _, x_pos, v_pos = simulate("position_verlet", x0, v0, kepler, 0.01, 800)
    _, x_vel, v_vel = simulate("velocity_verlet", x0, v0, kepler, 0.01, 800)
    np.testing.assert_allclose(x_pos, x_vel, atol=1e-9)
    np.testing.assert_allclose(v_pos, v_vel, atol=1e-9)


# --- single steps --------------------------------------------------------------------------


def test_single_steps_by_hand():
    x, v, dt = np.array([2.0]), np.array([1.0]), 0.1  # a = −4x = −8
    np.testing.assert_allclose(explicit_euler_step(x, v, spring, 0.0, dt), ([2.1], [0.2]))
    np.testing.assert_allclose(symplectic_euler_step(x, v, spring, 0.0, dt), ([2.02], [0.2]))
    previous = position_verlet_start(x, v, spring, 0.0, dt)
    np.testing.assert_allclose(previous, [2.0 - 0.1 - 0.04])
    np.testing.assert_allclose(position_verlet_step(x, previous, spring, 0.0, dt), [2.06])
    # velocity Verlet: x₁ = 2.06, a₁ = −8.24, v₁ = 1 + ½(−8 − 8.24)·0.1
    np.testing.assert_allclose(velocity_verlet_step(x, v, spring, 0.0, dt), ([2.06], [0.188]))


def test_rk4_step_matches_the_taylor_series_of_the_spring():
    """For x'' = −ω²x, RK4 reproduces the exact solution's Taylor series through dt⁴."""
    x, v, dt = 1.0, 0.5, 0.01
    x1, v1 = rk4_step([x], [v], spring, 0.0, dt)
    w2 = OMEGA**2
    series_x = x + v * dt - w2 * x * dt**2 / 2 - w2 * v * dt**3 / 6 + w2**2 * x * dt**4 / 24
    series_v = v - w2 * x * dt - w2 * v * dt**2 / 2 + w2**2 * x * dt**3 / 6 + w2**2 * v * dt**4 / 24
    assert x1[0] == pytest.approx(series_x, abs=1e-13)
    assert v1[0] == pytest.approx(series_v, abs=1e-12)


@pytest.mark.parametrize("method", ["explicit_euler", "symplectic_euler", "velocity_verlet", "rk4"])
def test_simulate_is_the_step_function_repeated(method):
    step = getattr(integrate, f"{method}_step")
    x, v = np.array([0.3, 1.0]), np.array([0.0, -0.5])
    _, xs, vs = simulate(method, x, v, kepler, 0.02, 5, t0=1.0)
    for n in range(5):
        x, v = step(x, v, kepler, 1.0 + 0.02 * n, 0.02)
    np.testing.assert_array_equal(xs[-1], x)
    np.testing.assert_array_equal(vs[-1], v)


def test_acceleration_sees_the_right_times():
    seen = []

    def record(x, v, t):
        seen.append(t)
        return np.zeros_like(x)

    simulate("rk4", [0.0], [0.0], record, 0.5, 2, t0=1.0)
    assert seen[1:] == [1.0, 1.25, 1.25, 1.5, 1.5, 1.75, 1.75, 2.0]


# --- shapes --------------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("shape", [(), (1,), (2,), (5, 2)])
def test_output_shapes(method, shape):
    x0 = np.ones(shape)
    t, x, v = simulate(method, x0, np.zeros(shape), spring, 0.1, 7, t0=2.0)
    assert t.shape == (8,)
    assert x.shape == v.shape == (8,) + shape
    np.testing.assert_allclose(t, 2.0 + 0.1 * np.arange(8))
    np.testing.assert_array_equal(x[0], x0)
    np.testing.assert_array_equal(v[0], np.zeros(shape))


@pytest.mark.parametrize("method", METHODS)
def test_a_batch_moves_like_its_rows(method):
    rng = np.random.default_rng(3)
    x0 = rng.uniform(0.5, 2.0, (4, 2))
    v0 = rng.uniform(-1.0, 1.0, (4, 2))
    _, xs, vs = simulate(method, x0, v0, kepler, 0.01, 40)
    for row in range(4):
        _, x, v = simulate(method, x0[row], v0[row], kepler, 0.01, 40)
        np.testing.assert_array_equal(xs[:, row], x)
        np.testing.assert_array_equal(vs[:, row], v)


# --- bad input -----------------------------------------------------------------------------


GOOD = dict(method="rk4", x0=[1.0], v0=[0.0], acceleration=spring, dt=0.1, steps=3)


@pytest.mark.parametrize(
    "change, error, words",
    [
        (dict(x0=[np.nan]), ValueError, "x0"),
        (dict(x0=[np.inf, 0.0], v0=[0.0, 0.0]), ValueError, "x0"),
        (dict(v0=[-np.inf]), ValueError, "v0"),
        (dict(x0="a"), TypeError, "x0"),
        (dict(v0=[0.0, 1.0]), ValueError, "same shape"),
        (dict(dt=0.0), ValueError, "dt"),
        (dict(dt=-0.1), ValueError, "dt"),
        (dict(dt=np.nan), ValueError, "dt"),
        (dict(dt=np.inf), ValueError, "dt"),
        (dict(dt="0.1"), TypeError, "dt"),
        (dict(steps=0), ValueError, "steps"),
        (dict(steps=-2), ValueError, "steps"),
        (dict(steps=2.0), TypeError, "steps"),
        (dict(steps=True), TypeError, "steps"),
        (dict(steps="3"), TypeError, "steps"),
        (dict(method="leapfrog"), ValueError, "method"),
        (dict(method=None), TypeError, "method"),
        (dict(acceleration=3.0), TypeError, "acceleration"),
        (dict(acceleration=lambda x, v, t: -10.0), ValueError, "shaped like x"),
        (dict(acceleration=lambda x, v, t: np.zeros(2)), ValueError, "shaped like x"),
        (dict(acceleration=lambda x, v, t: [np.nan]), FloatingPointError,
         r"acceleration\(x, v, t\) returned a non-finite value at t=0 for a finite state"),
        (dict(acceleration=lambda x, v, t: [10**400]), FloatingPointError, "acceleration"),
        (dict(acceleration=lambda x, v, t: ["up"]), TypeError, "numeric"),
        (dict(acceleration=lambda x, v, t: None), TypeError, r"acceleration\(x, v, t\)"),
        (dict(acceleration=lambda x, v, t: 1j * x), TypeError,
         r"acceleration\(x, v, t\) must be numeric.*complex"),
        (dict(acceleration=lambda x, v, t: x > 0), TypeError, r"acceleration\(x, v, t\)"),
        (dict(steps=10**400), ValueError, "steps"),
        (dict(t0=10**400), ValueError, "t0"),
        (dict(x0=[10**400]), ValueError, "x0"),
    ],
)
def test_simulate_rejects_bad_input(change, error, words):
    with pytest.raises(error, match=words):
        simulate(**{**GOOD, **change})


@pytest.mark.parametrize("method", METHODS)
def test_acceleration_turning_non_finite_mid_run_is_reported(method):
    def blows_up(x, v, t):
        return np.full_like(x, np.inf if t > 0.25 else 1.0)

    with pytest.raises(FloatingPointError, match="non-finite value at t=0.3"):
        simulate(method, [0.0], [0.0], blows_up, 0.1, 10)


@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_explicit_euler_overflow_is_an_error_not_a_nan():
    # The spring force −1e6·x itself overflows first, at a finite x.
    with pytest.raises(FloatingPointError, match=r"explicit_euler_step from t=\d+ with dt=1: "
                                                 r"acceleration\(x, v, t\) returned a non-finite"):
        simulate("explicit_euler", [1.0], [0.0], lambda x, v, t: -1e6 * x, 1.0, 200)


@pytest.mark.parametrize(
    "step", [explicit_euler_step, symplectic_euler_step, velocity_verlet_step, rk4_step]
)
def test_step_functions_reject_bad_input(step):
    with pytest.raises(ValueError, match="x"):
        step([np.nan], [0.0], spring, 0.0, 0.1)
    with pytest.raises(ValueError, match="v"):
        step([0.0], [np.inf], spring, 0.0, 0.1)
    with pytest.raises(ValueError, match="dt"):
        step([0.0], [0.0], spring, 0.0, 0.0)
    with pytest.raises(ValueError, match="t must be finite"):
        step([0.0], [0.0], spring, np.nan, 0.1)
    with pytest.raises(ValueError, match="same shape"):
        step([0.0], [0.0, 1.0], spring, 0.0, 0.1)
    with pytest.raises(TypeError, match="acceleration"):
        step([0.0], [0.0], "gravity", 0.0, 0.1)


def test_position_verlet_functions_reject_bad_input():
    with pytest.raises(ValueError, match="dt"):
        position_verlet_step([0.0], [0.0], spring, 0.0, -1.0)
    with pytest.raises(ValueError, match="x_previous must be finite"):
        position_verlet_step([0.0], [np.nan], spring, 0.0, 0.1)
    with pytest.raises(ValueError, match="x0 must be finite"):
        position_verlet_start([np.nan], [0.0], spring, 0.0, 0.1)


# --- the float range -----------------------------------------------------------------------
# Finite input whose next state leaves the float range raises FloatingPointError naming the
# step and the quantity, never an inf that the next step would blame on its input.

HUGE = 1.7e308


def zero(x, v, t):
    return 0.0 * x


overflow = pytest.mark.filterwarnings("ignore:overflow encountered", "ignore:invalid value")


@overflow
@pytest.mark.parametrize(
    ("step", "words"),
    [
        (explicit_euler_step, r"explicit_euler_step from t=0 with dt=1: the new position"),
        (symplectic_euler_step, r"symplectic_euler_step from t=0 with dt=1: the new position"),
        (velocity_verlet_step, r"velocity_verlet_step from t=0 with dt=1: the new position"),
        (rk4_step, r"rk4_step from t=0 with dt=1: "),
        (position_verlet_start, r"position_verlet_start from t=0 with dt=1: the position"),
    ],
)
def test_a_step_whose_position_overflows_raises_naming_the_step(step, words):
    x, v = ([HUGE], [-HUGE]) if step is position_verlet_start else ([HUGE], [HUGE])
    with pytest.raises(FloatingPointError, match=words):
        step(x, v, zero, 0.0, 1.0)


@overflow
def test_position_verlet_overflow_raises_and_its_doubling_does_not_overflow():
    with pytest.raises(FloatingPointError, match=r"position_verlet_step .*: the new position"):
        position_verlet_step([HUGE], [-HUGE], zero, 0.0, 1.0)
    # 2·x alone would be 3.4e308; the new position, 2·x − x_previous, is x itself.
    np.testing.assert_array_equal(position_verlet_step([HUGE], [HUGE], zero, 0.0, 1.0), [HUGE])


@overflow
def test_overflow_in_a_trial_state_is_reported_as_such():
    # The midpoint position x + v·dt/2 = 5e309 is beyond range before the end state is.
    with pytest.raises(FloatingPointError,
                       match=r"rk4_step from t=0 with dt=1e\+10: the trial state"):
        rk4_step([0.0], [1e300], lambda x, v, t: -x, 0.0, 1e10)


@overflow
@pytest.mark.parametrize("step", [velocity_verlet_step, rk4_step])
def test_an_end_time_beyond_the_float_range_raises(step):
    with pytest.raises(FloatingPointError, match=r"the end time t \+ dt"):
        step([0.0], [0.0], zero, 1e308, 1e308)


@overflow
def test_simulate_names_the_overflow_not_its_own_input():
    with pytest.raises(FloatingPointError, match="explicit_euler_step .*: the new position"):
        simulate("explicit_euler", [1e308], [1e308], zero, 1.0, 3)
    with pytest.raises(FloatingPointError, match=r"the end time t0 \+ steps·dt"):
        simulate("symplectic_euler", [0.0], [1.0], zero, 1e308, 3, t0=1e308)
    # Position Verlet's recorded velocity passes 1.8e308 while its positions, ~1e307, fit.
    with pytest.raises(FloatingPointError, match="central-difference velocity"):
        simulate("position_verlet", [0.0], [HUGE], lambda x, v, t: np.full_like(x, 1e308),
                 0.01, 20)


@pytest.mark.parametrize("step", [explicit_euler_step, symplectic_euler_step,
                                  velocity_verlet_step, rk4_step, position_verlet_start,
                                  position_verlet_step])
def test_every_step_checks_what_the_acceleration_returns(step):
    for returned, error, words in [
        (lambda x: 1j * x, TypeError, "complex"),
        (lambda x: None, TypeError, "NoneType"),
        (lambda x: np.full_like(x, np.nan), FloatingPointError, "non-finite value"),
        (lambda x: [10**400], FloatingPointError, "non-finite value"),
        (lambda x: np.zeros(3), ValueError, "shaped like x"),
    ]:
        with pytest.raises(error, match=r"acceleration\(x, v, t\).*" + words):
            step([1.0], [0.5], lambda x, v, t, returned=returned: returned(x), 0.0, 0.1)


def test_errors_raised_by_the_acceleration_itself_are_passed_on():
    def broken(x, v, t):
        raise KeyError("the user's own bug")

    with pytest.raises(KeyError, match="own bug"):
        rk4_step([1.0], [0.0], broken, 0.0, 0.1)


def test_position_verlet_start_names_t0():
    with pytest.raises(ValueError, match="t0 must be finite"):
        position_verlet_start([0.0], [0.0], spring, np.inf, 0.1)


def test_a_recording_too_large_to_allocate_is_a_value_error_naming_steps(monkeypatch):
    def out_of_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 7.3 TiB")

    monkeypatch.setattr(integrate.np, "empty", out_of_memory)
    with pytest.raises(ValueError, match=r"steps = 1000000000: recording 1000000001 states"):
        simulate("rk4", np.zeros(1000), np.zeros(1000), zero, 0.1, 10**9)
