"""Chapter 2: numerical integration of Newton's equations of motion.

Every method here advances the pair of first-order equations

    dx/dt = v,    dv/dt = a(x, v, t)

by one fixed time step ``dt``. ``x`` and ``v`` are arrays of any one shape: (1,) for a
point on a line, (2,) for a point in the plane, (N, 2) for a batch of N points. The
acceleration is a function ``acceleration(x, v, t)`` that returns an array shaped like ``x``
(m/s²); for a body of mass m under a total force F it is F / m.

=================== ====== ========== ==========================================
method              order  symplectic  acceleration evaluations per step
=================== ====== ========== ==========================================
explicit Euler      1      no          1
symplectic Euler    1      yes         1
position Verlet     2      yes         1
velocity Verlet     2      yes         2 here (1 if the last one is cached)
RK4                 4      no          4
=================== ====== ========== ==========================================

The step functions are the mathematics, one step each; :func:`simulate` checks its input
once, runs many steps and records the trajectory.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from physbook import _check

#: The integration methods :func:`simulate` knows, by name.
METHODS = (
    "explicit_euler",
    "symplectic_euler",
    "position_verlet",
    "velocity_verlet",
    "rk4",
)

Acceleration = Callable[[np.ndarray, np.ndarray, float], np.ndarray]


def _state(x, v, t, dt, names=("x", "v")) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Check one step's input: finite x and v of one shape, finite t, positive dt."""
    x = _check.finite_array(x, names[0])
    v = _check.finite_array(v, names[1])
    if x.shape != v.shape:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same shape, got {x.shape} and {v.shape}"
        )
    return x, v, _check.finite_scalar(t, "t"), _check.positive_scalar(dt, "dt")


def _acceleration_at(acceleration: Acceleration, x, v, t: float) -> np.ndarray:
    """Call ``acceleration(x, v, t)`` and check it returned finite values shaped like x."""
    if not callable(acceleration):
        raise TypeError(
            f"acceleration must be a function acceleration(x, v, t), "
            f"got {type(acceleration).__name__}"
        )
    try:
        a = np.asarray(acceleration(x, v, t), dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"acceleration(x, v, t) must return a numeric array: {error}") from None
    if a.shape != np.shape(x):
        raise ValueError(
            f"acceleration(x, v, t) must return an array shaped like x, {np.shape(x)}, "
            f"got shape {a.shape} at t={t:g} (use np.broadcast_to(a, x.shape) for a constant)"
        )
    if not np.all(np.isfinite(a)):
        raise ValueError(f"acceleration(x, v, t) returned a non-finite value at t={t:g}")
    return a


def explicit_euler_step(x, v, acceleration: Acceleration, t: float, dt: float):
    """One explicit (forward) Euler step; first order, gains energy on oscillations.

    Both updates use the state at the start of the step:
    x₁ = x₀ + v₀·dt,  v₁ = v₀ + a(x₀, v₀, t₀)·dt.

    Parameters
    ----------
    x, v : array_like
        Position (m) and velocity (m/s) at time ``t``, of one shape.
    acceleration : callable
        ``acceleration(x, v, t)`` in m/s², shaped like ``x``.
    t, dt : float
        Time at the start of the step and the step (s); ``dt > 0``.

    Returns
    -------
    (x, v) : tuple of numpy.ndarray
        The state at ``t + dt``.
    """
    x, v, t, dt = _state(x, v, t, dt)
    a = _acceleration_at(acceleration, x, v, t)
    return x + v * dt, v + a * dt


def symplectic_euler_step(x, v, acceleration: Acceleration, t: float, dt: float):
    """One symplectic (semi-implicit) Euler step; first order, keeps energy bounded.

    The velocity is updated first and the position moves with the *new* velocity:
    v₁ = v₀ + a(x₀, v₀, t₀)·dt,  x₁ = x₀ + v₁·dt.
    Arguments and result as :func:`explicit_euler_step`.
    """
    x, v, t, dt = _state(x, v, t, dt)
    a = _acceleration_at(acceleration, x, v, t)
    v_new = v + a * dt
    return x + v_new * dt, v_new


def position_verlet_start(x0, v0, acceleration: Acceleration, t0: float, dt: float):
    """The position one step *before* the start, to begin position Verlet.

    Position Verlet needs two positions. From the initial state (x₀, v₀) the second-order
    Taylor expansion backwards in time gives x₋₁ = x₀ − v₀·dt + ½·a(x₀, v₀, t₀)·dt²; with
    it the first Verlet step reproduces x₁ = x₀ + v₀·dt + ½·a₀·dt², as velocity Verlet does.
    Starting from x₋₁ = x₀ − v₀·dt instead costs an error of order dt in every later
    position.
    """
    x0, v0, t0, dt = _state(x0, v0, t0, dt, names=("x0", "v0"))
    a0 = _acceleration_at(acceleration, x0, v0, t0)
    return x0 - v0 * dt + 0.5 * a0 * dt * dt


def position_verlet_step(x, x_previous, acceleration: Acceleration, t: float, dt: float):
    """One position (Störmer) Verlet step; second order, keeps energy bounded.

    x₁ = 2·x₀ − x₋₁ + a·dt², from adding the Taylor expansions of x(t + dt) and x(t − dt).
    No velocity is stored. An acceleration that depends on velocity gets the backward
    difference (x₀ − x₋₁)/dt, which is only first-order accurate, so with drag or damping
    the method drops to first order.

    Parameters
    ----------
    x, x_previous : array_like
        Positions (m) at ``t`` and ``t − dt``.
    acceleration, t, dt
        As :func:`explicit_euler_step`.

    Returns
    -------
    numpy.ndarray
        The position at ``t + dt``.
    """
    x, x_previous, t, dt = _state(x, x_previous, t, dt, names=("x", "x_previous"))
    velocity_estimate = (x - x_previous) / dt
    a = _acceleration_at(acceleration, x, velocity_estimate, t)
    return 2.0 * x - x_previous + a * dt * dt


def velocity_verlet_step(x, v, acceleration: Acceleration, t: float, dt: float):
    """One velocity Verlet step; second order, keeps energy bounded.

    x₁ = x₀ + v₀·dt + ½·a₀·dt²,  v₁ = v₀ + ½·(a₀ + a₁)·dt, with a₀ = a(x₀, v₀, t₀) and
    a₁ = a(x₁, ·, t₀ + dt). Its positions are those of position Verlet started with
    :func:`position_verlet_start`. When the acceleration depends on velocity, a₁ is
    evaluated at the predicted velocity v₀ + a₀·dt. Arguments and result as
    :func:`explicit_euler_step`.
    """
    x, v, t, dt = _state(x, v, t, dt)
    a_start = _acceleration_at(acceleration, x, v, t)
    x_new = x + v * dt + 0.5 * a_start * dt * dt
    a_end = _acceleration_at(acceleration, x_new, v + a_start * dt, t + dt)
    return x_new, v + 0.5 * (a_start + a_end) * dt


def rk4_step(x, v, acceleration: Acceleration, t: float, dt: float):
    """One classical Runge–Kutta step; fourth order, not symplectic (energy drifts slowly).

    Four slopes of the state (x, v) — at the start, twice at the midpoint, at the end —
    are averaged with weights 1/6, 2/6, 2/6, 1/6. Arguments and result as
    :func:`explicit_euler_step`.
    """
    x, v, t, dt = _state(x, v, t, dt)
    half = 0.5 * dt
    # Each slope k = (dx/dt, dv/dt) = (velocity, acceleration) at a trial state.
    k1_x, k1_v = v, _acceleration_at(acceleration, x, v, t)
    k2_x = v + k1_v * half
    k2_v = _acceleration_at(acceleration, x + k1_x * half, k2_x, t + half)
    k3_x = v + k2_v * half
    k3_v = _acceleration_at(acceleration, x + k2_x * half, k3_x, t + half)
    k4_x = v + k3_v * dt
    k4_v = _acceleration_at(acceleration, x + k3_x * dt, k4_x, t + dt)
    x_new = x + (k1_x + 2.0 * k2_x + 2.0 * k3_x + k4_x) * (dt / 6.0)
    v_new = v + (k1_v + 2.0 * k2_v + 2.0 * k3_v + k4_v) * (dt / 6.0)
    return x_new, v_new


_ONE_STEP = {
    "explicit_euler": explicit_euler_step,
    "symplectic_euler": symplectic_euler_step,
    "velocity_verlet": velocity_verlet_step,
    "rk4": rk4_step,
}


def simulate(
    method: str,
    x0,
    v0,
    acceleration: Acceleration,
    dt: float,
    steps: int,
    t0: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integrate from (x0, v0) for ``steps`` fixed steps of ``dt`` and record every state.

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    x0, v0 : array_like
        Initial position (m) and velocity (m/s), finite, of one shape: (1,), (2,), (N, 2), ….
    acceleration : callable
        ``acceleration(x, v, t)`` in m/s², returning finite values shaped like ``x``.
    dt : float
        Time step (s), positive.
    steps : int
        Number of steps, at least 1.
    t0 : float
        Initial time (s).

    Returns
    -------
    t, x, v : numpy.ndarray
        ``t`` has shape (steps + 1,) with t[n] = t0 + n·dt (computed, not summed, so it does
        not drift); ``x`` and ``v`` have shape (steps + 1, *x0.shape), row 0 the initial
        state. Position Verlet starts from :func:`position_verlet_start` and reports the
        central-difference velocity v[n] = (x[n+1] − x[n−1]) / (2·dt), second-order
        accurate; for the last row it takes one extra step.
    """
    method = _check.choice(method, "method", METHODS)
    x0 = _check.finite_array(x0, "x0")
    v0 = _check.finite_array(v0, "v0")
    if x0.shape != v0.shape:
        raise ValueError(f"x0 and v0 must have the same shape, got {x0.shape} and {v0.shape}")
    dt = _check.positive_scalar(dt, "dt")
    steps = _check.positive_int(steps, "steps")
    t0 = _check.finite_scalar(t0, "t0")
    _acceleration_at(acceleration, x0, v0, t0)  # fail early on a bad function

    times = t0 + dt * np.arange(steps + 1, dtype=np.float64)
    positions = np.empty((steps + 1,) + x0.shape)
    velocities = np.empty_like(positions)
    positions[0], velocities[0] = x0, v0

    if method == "position_verlet":
        previous = position_verlet_start(x0, v0, acceleration, t0, dt)
        x = x0
        for n in range(steps + 1):
            x_next = position_verlet_step(x, previous, acceleration, times[n], dt)
            # Central difference: v(t) = (x(t + dt) − x(t − dt)) / (2 dt) + O(dt²).
            if n > 0:  # row 0 keeps the given v0, which the start makes exact anyway
                velocities[n] = (x_next - previous) / (2.0 * dt)
            if n < steps:
                positions[n + 1] = x_next
            previous, x = x, x_next
        return times, positions, velocities

    step = _ONE_STEP[method]
    for n in range(steps):
        positions[n + 1], velocities[n + 1] = step(
            positions[n], velocities[n], acceleration, times[n], dt
        )
    return times, positions, velocities
