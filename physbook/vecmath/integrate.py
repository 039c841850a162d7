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

:func:`implicit_spring_step` is the one implicit method: backward Euler for a linear
spring–damper, solved in closed form. It is unconditionally stable and loses energy, which
is why engines step stiff springs and soft contacts with it (chapter 10).

The step functions are the mathematics, one step each; :func:`simulate` checks its input
once, runs many steps and records the trajectory. Every input must be finite and so must
every value the acceleration returns; a state that leaves the float range (about ±1.8e308)
raises ``FloatingPointError`` naming the step and the quantity that overflowed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from physbook import _check

__all__ = [
    "METHODS", "explicit_euler_step", "symplectic_euler_step", "position_verlet_start",
    "position_verlet_step", "velocity_verlet_step", "rk4_step", "implicit_spring_step",
    "simulate",
]

#: The integration methods :func:`simulate` knows, by name.
METHODS = (
    "explicit_euler",
    "symplectic_euler",
    "position_verlet",
    "velocity_verlet",
    "rk4",
)

Acceleration = Callable[[np.ndarray, np.ndarray, float], np.ndarray]


def _state(x, v, t, dt, names=("x", "v", "t")) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Check one step's input: finite x and v of one shape, finite t, positive dt."""
    x = _check.finite_array(x, names[0])
    v = _check.finite_array(v, names[1])
    if x.shape != v.shape:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same shape, got {x.shape} and {v.shape}"
        )
    return x, v, _check.finite_scalar(t, names[2]), _check.positive_scalar(dt, "dt")


class _Step(NamedTuple):
    """Which step from which time with which dt: the context of an overflow message."""

    name: str
    t: float
    dt: float

    def __str__(self) -> str:
        return f"{self.name} from t={self.t:g} with dt={self.dt:g}"


def _acceleration_at(acceleration: Acceleration, x, v, t: float, step: _Step) -> np.ndarray:
    """Call ``acceleration(x, v, t)`` and check it returned finite real values shaped like x.

    ``x, v, t`` is the state ``step`` evaluates at: its start, or one of its trial states.
    What the function itself raises is its own error, passed on unchanged.
    """
    if not callable(acceleration):
        raise TypeError(
            f"acceleration must be a function acceleration(x, v, t), "
            f"got {type(acceleration).__name__}"
        )
    a = acceleration(x, v, t)
    if not (isinstance(a, np.ndarray) and a.dtype == np.float64):
        # Anything but the usual float64 array is converted with the checks every argument
        # gets, so complex values, None or strings are refused instead of cast.
        try:
            a = _check.finite_array(a, "acceleration(x, v, t)")
        except ValueError:  # NaN, inf, or an integer beyond the float range
            raise FloatingPointError(_non_finite_acceleration(x, v, t, step)) from None
    if a.shape != np.shape(x):
        raise ValueError(
            f"acceleration(x, v, t) must return an array shaped like x, {np.shape(x)}, "
            f"got shape {a.shape} at t={t:g} (use np.broadcast_to(a, x.shape) for a constant)"
        )
    if not np.all(np.isfinite(a)):
        raise FloatingPointError(_non_finite_acceleration(x, v, t, step))
    return a


def _non_finite_acceleration(x, v, t: float, step: _Step) -> str:
    """Say why the acceleration was not finite: its own result, or a state out of range."""
    if np.all(np.isfinite(x)) and np.all(np.isfinite(v)):
        return (f"{step}: acceleration(x, v, t) returned a non-finite value at t={t:g} "
                f"for a finite state")
    return (f"{step}: the trial state passed to acceleration(x, v, t) at t={t:g} had "
            f"overflowed the float range (±1.8e308)")


def _finite(value, step: _Step, quantity: str):
    """Return ``value``; raise ``FloatingPointError`` naming ``quantity`` if it overflowed."""
    if not np.all(np.isfinite(value)):
        raise FloatingPointError(f"{step}: {quantity} overflowed the float range (±1.8e308)")
    return value


def _end_time(step: _Step) -> float:
    """The time at the end of ``step``, t + dt, which must be finite."""
    t_end = step.t + step.dt
    if not math.isfinite(t_end):
        raise FloatingPointError(f"{step}: the end time t + dt overflowed the float range")
    return t_end


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
    step = _Step("explicit_euler_step", t, dt)
    a = _acceleration_at(acceleration, x, v, t, step)
    return (_finite(x + v * dt, step, "the new position x + v·dt"),
            _finite(v + a * dt, step, "the new velocity v + a·dt"))


def symplectic_euler_step(x, v, acceleration: Acceleration, t: float, dt: float):
    """One symplectic (semi-implicit) Euler step; first order, keeps energy bounded.

    The velocity is updated first and the position moves with the *new* velocity:
    v₁ = v₀ + a(x₀, v₀, t₀)·dt,  x₁ = x₀ + v₁·dt.
    Arguments and result as :func:`explicit_euler_step`.
    """
    x, v, t, dt = _state(x, v, t, dt)
    step = _Step("symplectic_euler_step", t, dt)
    a = _acceleration_at(acceleration, x, v, t, step)
    v_new = _finite(v + a * dt, step, "the new velocity v + a·dt")
    return _finite(x + v_new * dt, step, "the new position x + v·dt"), v_new


def position_verlet_start(x0, v0, acceleration: Acceleration, t0: float, dt: float):
    """The position one step *before* the start, to begin position Verlet.

    Position Verlet needs two positions. From the initial state (x₀, v₀) the second-order
    Taylor expansion backwards in time gives x₋₁ = x₀ − v₀·dt + ½·a(x₀, v₀, t₀)·dt²; with
    it the first Verlet step reproduces x₁ = x₀ + v₀·dt + ½·a₀·dt², as velocity Verlet does.
    Starting from x₋₁ = x₀ − v₀·dt instead costs an error of order dt in every later
    position.
    """
    x0, v0, t0, dt = _state(x0, v0, t0, dt, names=("x0", "v0", "t0"))
    step = _Step("position_verlet_start", t0, dt)
    a0 = _acceleration_at(acceleration, x0, v0, t0, step)
    return _finite(x0 - v0 * dt + 0.5 * a0 * dt * dt, step,
                   "the position before the start, x0 − v0·dt + ½·a·dt²")


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
    x, x_previous, t, dt = _state(x, x_previous, t, dt, names=("x", "x_previous", "t"))
    step = _Step("position_verlet_step", t, dt)
    velocity_estimate = (x - x_previous) / dt
    a = _acceleration_at(acceleration, x, velocity_estimate, t, step)
    # x + (x − x₋₁) rather than 2·x − x₋₁: the same sum, but 2·x alone can overflow.
    return _finite(x + (x - x_previous) + a * dt * dt, step,
                   "the new position 2·x − x_previous + a·dt²")


def velocity_verlet_step(x, v, acceleration: Acceleration, t: float, dt: float):
    """One velocity Verlet step; second order, keeps energy bounded.

    x₁ = x₀ + v₀·dt + ½·a₀·dt²,  v₁ = v₀ + ½·(a₀ + a₁)·dt, with a₀ = a(x₀, v₀, t₀) and
    a₁ = a(x₁, ·, t₀ + dt). Its positions are those of position Verlet started with
    :func:`position_verlet_start`. When the acceleration depends on velocity, a₁ is
    evaluated at the predicted velocity v₀ + a₀·dt. Arguments and result as
    :func:`explicit_euler_step`.
    """
    x, v, t, dt = _state(x, v, t, dt)
    step = _Step("velocity_verlet_step", t, dt)
    t_end = _end_time(step)
    a_start = _acceleration_at(acceleration, x, v, t, step)
    x_new = _finite(x + v * dt + 0.5 * a_start * dt * dt, step,
                    "the new position x + v·dt + ½·a·dt²")
    a_end = _acceleration_at(acceleration, x_new, v + a_start * dt, t_end, step)
    return x_new, _finite(v + 0.5 * (a_start + a_end) * dt, step,
                          "the new velocity v + ½·(a₀ + a₁)·dt")


def rk4_step(x, v, acceleration: Acceleration, t: float, dt: float):
    """One classical Runge–Kutta step; fourth order, not symplectic (energy drifts slowly).

    Four slopes of the state (x, v) — at the start, twice at the midpoint, at the end —
    are averaged with weights 1/6, 2/6, 2/6, 1/6. Arguments and result as
    :func:`explicit_euler_step`.
    """
    x, v, t, dt = _state(x, v, t, dt)
    step = _Step("rk4_step", t, dt)
    t_end = _end_time(step)
    half = 0.5 * dt
    # Each slope k = (dx/dt, dv/dt) = (velocity, acceleration) at a trial state.
    k1_x, k1_v = v, _acceleration_at(acceleration, x, v, t, step)
    k2_x = v + k1_v * half
    k2_v = _acceleration_at(acceleration, x + k1_x * half, k2_x, t + half, step)
    k3_x = v + k2_v * half
    k3_v = _acceleration_at(acceleration, x + k2_x * half, k3_x, t + half, step)
    k4_x = v + k3_v * dt
    k4_v = _acceleration_at(acceleration, x + k3_x * dt, k4_x, t_end, step)
    x_new = x + (k1_x + 2.0 * k2_x + 2.0 * k3_x + k4_x) * (dt / 6.0)
    v_new = v + (k1_v + 2.0 * k2_v + 2.0 * k3_v + k4_v) * (dt / 6.0)
    return (_finite(x_new, step, "the new position x + (k1 + 2·k2 + 2·k3 + k4)·dt/6"),
            _finite(v_new, step, "the new velocity v + (k1 + 2·k2 + 2·k3 + k4)·dt/6"))


def implicit_spring_step(x, v, stiffness: float, damping: float, mass: float, dt: float,
                         force=0.0):
    """One implicit (backward) Euler step of a mass on a linear spring–damper.

    The spring pulls towards x = 0 with −k·x, the damper with −c·v, and a constant external
    ``force`` F acts too. Backward Euler evaluates the acceleration at the *end* of the step,

        v₁ = v₀ + dt·(F − k·x₁ − c·v₁)/m,    x₁ = x₀ + dt·v₁,

    and, the force being linear, substituting the second equation into the first gives v₁
    in closed form:

        v₁ = (v₀ + dt·(F − k·x₀)/m) / (1 + dt·c/m + dt²·k/m).

    For any dt > 0 the step is stable: undamped, it multiplies the energy by
    1/(1 + ω²·dt²) with ω² = k/m. At rest it sits at x = F/k, the exact equilibrium.

    Parameters
    ----------
    x, v : array_like
        Position (m) and velocity (m/s), of one shape; each entry is an independent mass.
    stiffness : float
        Spring constant k (N/m), 0 or more.
    damping : float
        Damping coefficient c (N·s/m), 0 or more.
    mass : float
        Mass m (kg), positive.
    dt : float
        Time step (s), positive.
    force : float or array_like
        Constant external force F (N), a number or an array shaped like ``x``.

    Returns
    -------
    (x, v) : tuple of numpy.ndarray
        Position (m) and velocity (m/s) at the end of the step.
    """
    x, v, _, dt = _state(x, v, 0.0, dt)
    stiffness = _check.non_negative_scalar(stiffness, "stiffness")
    damping = _check.non_negative_scalar(damping, "damping")
    mass = _check.positive_scalar(mass, "mass")
    force = _check.finite_array(force, "force")
    if force.shape not in ((), x.shape):
        raise ValueError(f"force must be a number or an array shaped like x, {x.shape}, "
                         f"got shape {force.shape}")
    step = _Step("implicit_spring_step", 0.0, dt)
    # The closed form times m, so that no term divides by the mass: a tiny mass cannot
    # overflow a quotient on its own, and the denominator m + dt·c + dt²·k is at least m.
    denominator = mass + dt * damping + dt * dt * stiffness
    v_new = _finite((mass * v + dt * (force - stiffness * x)) / denominator, step,
                    "the new velocity (m·v + dt·(F − k·x)) / (m + dt·c + dt²·k)")
    return _finite(x + dt * v_new, step, "the new position x + v·dt"), v_new


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
    if not math.isfinite(t0 + dt * steps):
        raise FloatingPointError(
            f"simulate: the end time t0 + steps·dt overflowed the float range "
            f"(t0 = {t0:g}, steps = {steps}, dt = {dt:g})")
    # Fail early on a bad function.
    _acceleration_at(acceleration, x0, v0, t0, _Step(f"simulate({method!r})", t0, dt))

    positions = _recording(steps, x0.shape)  # first: it names steps if they do not fit
    velocities = np.empty_like(positions)
    times = t0 + dt * np.arange(steps + 1, dtype=np.float64)
    positions[0], velocities[0] = x0, v0

    if method == "position_verlet":
        previous = position_verlet_start(x0, v0, acceleration, t0, dt)
        x = x0
        for n in range(steps + 1):
            x_next = position_verlet_step(x, previous, acceleration, times[n], dt)
            # Central difference: v(t) = (x(t + dt) − x(t − dt)) / (2 dt) + O(dt²).
            if n > 0:  # row 0 keeps the given v0, which the start makes exact anyway
                velocities[n] = _finite(
                    (x_next - previous) / (2.0 * dt), _Step("simulate", times[n], dt),
                    "the central-difference velocity (x[n+1] − x[n−1]) / (2·dt)")
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


def _recording(steps: int, shape: tuple[int, ...]) -> np.ndarray:
    """An empty array of ``steps + 1`` states of ``shape``, or a ValueError naming steps."""
    try:
        return np.empty((steps + 1,) + shape)
    except (MemoryError, ValueError):  # more than this machine (or numpy) can allocate
        size = (steps + 1) * math.prod(shape) * 8
        raise ValueError(
            f"steps = {steps}: recording {steps + 1} states of shape {shape} needs "
            f"{size / 1e9:.3g} GB, more than can be allocated") from None
