"""The fixed-timestep accumulator and interpolation against exact (rational) arithmetic."""

from __future__ import annotations

import hashlib
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from physbook.constants import STEP_TOLERANCE
from physbook.vecmath.integrate import symplectic_euler_step
from physbook.vecmath.timestep import FixedTimestep, interpolate, step_schedule


def test_steady_60_hz_takes_one_step_per_frame():
    clock = FixedTimestep(1 / 60)
    for _ in range(600):
        assert clock.advance(1 / 60) == 1
        assert clock.alpha == 0.0
    assert clock.steps_taken == 600
    assert clock.time == 10.0


@pytest.mark.parametrize("display_hz, physics_hz", [(144, 60), (60, 100), (144, 50), (75, 60)])
def test_step_counts_match_exact_arithmetic(display_hz, physics_hz):
    """After k frames of 1/display s the total is ⌊k·physics/display⌋ steps, for every k."""
    clock = FixedTimestep(1 / physics_hz)
    for frame in range(1, 10 * display_hz + 1):
        clock.advance(1 / display_hz)
        assert clock.steps_taken == (frame * physics_hz) // display_hz
        exact_alpha = Fraction(frame * physics_hz, display_hz) % 1
        assert clock.alpha == pytest.approx(float(exact_alpha), abs=1e-9)


def test_alpha_is_the_leftover_fraction_of_a_step():
    clock = FixedTimestep(0.1)
    assert clock.advance(0.25) == 2
    assert clock.alpha == pytest.approx(0.5)
    assert clock.accumulator == pytest.approx(0.05)
    assert clock.advance(0.04) == 0
    assert clock.alpha == pytest.approx(0.9)
    assert clock.advance(0.01) == 1
    assert clock.alpha == pytest.approx(0.0, abs=1e-9)
    assert clock.advance(0.0) == 0


@given(
    dt=st.sampled_from([1 / 30, 1 / 60, 1 / 120, 0.01, 0.007]),
    frames=st.lists(st.floats(0.0, 0.05), min_size=1, max_size=200),
)
@settings(max_examples=60)
def test_no_time_is_created_or_lost(dt, frames):
    clock = FixedTimestep(dt, max_frame_time=1.0)  # never clamps here
    for frame_time in frames:
        steps = clock.advance(frame_time)
        assert steps >= 0
        assert 0.0 <= clock.alpha < 1.0
        assert -dt * 1e-8 < clock.accumulator < dt
    total = float(sum(Fraction(f) for f in frames))
    assert clock.steps_taken * dt + clock.accumulator == pytest.approx(total, abs=1e-12)
    assert clock.steps_taken == math.floor(total / dt + STEP_TOLERANCE)


def test_clamp_limits_steps_and_counts_dropped_time():
    clock = FixedTimestep(1 / 60, max_frame_time=0.25)
    assert clock.advance(10.0) == 15
    assert clock.dropped_time == pytest.approx(9.75)
    assert clock.alpha == pytest.approx(0.0, abs=1e-9)
    clock.reset()
    assert (clock.steps_taken, clock.dropped_time, clock.accumulator) == (0, 0.0, 0.0)


def test_settings_are_read_only():
    clock = FixedTimestep(0.01, 0.1)
    with pytest.raises(AttributeError):
        clock.dt = -1.0
    with pytest.raises(AttributeError):
        clock.max_frame_time = 0.0
    assert (clock.dt, clock.max_frame_time) == (0.01, 0.1)
    clock.advance(0.5)
    for counter in ("steps_taken", "dropped_time"):
        with pytest.raises(AttributeError):
            setattr(clock, counter, "x")
    assert (clock.steps_taken, clock.dropped_time) == (10, pytest.approx(0.4))
    assert "dt=0.01" in repr(clock)


def test_time_is_a_product_not_a_running_sum():
    clock = FixedTimestep(1 / 60)
    running = 0.0
    for _ in range(216_000):  # one hour at 60 Hz
        clock.advance(1 / 60)
        running += 1 / 60
    assert clock.time == 3600.0
    assert running != 3600.0  # the running sum has drifted


@given(
    step_cost=st.floats(0.001, 0.1),
    render_cost=st.floats(0.0, 0.02),
    max_frame_time=st.floats(0.02, 0.5),
)
@settings(max_examples=40)
def test_clamp_bounds_every_frame_of_a_slow_game(step_cost, render_cost, max_frame_time):
    """A frame lasts render_cost + steps·step_cost; with the clamp it stays bounded."""
    dt = 1 / 60
    clock = FixedTimestep(dt, max_frame_time)
    most_steps = math.floor(max_frame_time / dt + STEP_TOLERANCE) + 1
    frame_time = 1.0  # start with a stall
    for _ in range(300):
        steps = clock.advance(frame_time)
        assert steps <= most_steps
        frame_time = render_cost + steps * step_cost
    assert frame_time <= render_cost + most_steps * step_cost


def test_without_a_clamp_a_slow_step_spirals():
    dt, step_cost = 1 / 60, 1.5 / 60  # each step costs 1.5 steps of wall time
    clock = FixedTimestep(dt, max_frame_time=1e9)
    frame_time, frame_times = 0.05, []
    for _ in range(30):
        frame_time = 0.001 + clock.advance(frame_time) * step_cost
        frame_times.append(frame_time)
    assert frame_times[-1] > 100 * frame_times[0]
    assert np.all(np.diff(frame_times[5:]) > 0)


# --- interpolation -------------------------------------------------------------------------


def test_interpolate_scalars_and_arrays():
    assert interpolate(2.0, 6.0, 0.25) == 3.0
    assert isinstance(interpolate(2.0, 6.0, 0.25), float)
    previous, current = np.array([[0.0, 1.0], [2.0, 4.0]]), np.array([[1.0, 1.0], [0.0, 8.0]])
    np.testing.assert_array_equal(interpolate(previous, current, 0.0), previous)
    np.testing.assert_array_equal(interpolate(previous, current, 1.0), current)
    np.testing.assert_allclose(interpolate(previous, current, 0.75), [[0.75, 1.0], [0.5, 7.0]])


@given(a=st.floats(-1e3, 1e3), b=st.floats(-1e3, 1e3), alpha=st.floats(0.0, 1.0))
@settings(max_examples=60)
def test_interpolate_stays_between_its_ends(a, b, alpha):
    value = interpolate(a, b, alpha)
    assert min(a, b) - 1e-9 <= value <= max(a, b) + 1e-9
    assert value == pytest.approx(a + alpha * (b - a), abs=1e-9)


def test_interpolated_constant_velocity_moves_evenly_at_144_hz():
    """Physics at 60 Hz, display at 144 Hz: drawn positions advance by v/144 every frame."""
    dt, speed = 1 / 60, 3.0
    steps, alpha = step_schedule(np.full(288, 1 / 144), dt)
    index = np.cumsum(steps)
    states = speed * dt * np.arange(index[-1] + 1)
    drawn = np.array(
        [
            interpolate(states[max(k - 1, 0)], states[k], a)
            for k, a in zip(index, alpha, strict=True)
        ]
    )
    frames = np.arange(1, 289) / 144
    valid = index >= 1
    np.testing.assert_allclose(drawn[valid], speed * (frames[valid] - dt), atol=1e-9)
    raw_moves = np.diff(states[index])
    assert set(np.round(raw_moves / (speed * dt), 9)) == {0.0, 1.0}  # without it: jerks


# --- determinism ---------------------------------------------------------------------------


def run_game(frame_times, total_steps):
    """Physics of 3 bodies on springs, stepped by a FixedTimestep until total_steps."""
    clock = FixedTimestep(1 / 60)
    x = np.array([[1.0, 0.0], [0.0, 2.0], [-1.5, 0.5]])
    v = np.array([[0.0, 1.0], [-1.0, 0.0], [0.3, 0.3]])

    def force(x, v, t):
        return -4.0 * x - 0.1 * v * np.linalg.norm(v, axis=1, keepdims=True)

    frame, done = 0, 0
    while done < total_steps:
        for _ in range(clock.advance(frame_times[frame % len(frame_times)])):
            if done == total_steps:
                break
            x, v = symplectic_euler_step(x, v, force, 0.0, clock.dt)
            done += 1
        frame += 1
    return np.concatenate([x, v])


def digest(state):
    return hashlib.sha256(np.ascontiguousarray(state).tobytes()).hexdigest()


def test_physics_is_identical_at_any_frame_rate():
    steady = run_game([1 / 60], 300)
    fast = run_game([1 / 144], 300)
    rng = np.random.default_rng(0)
    stutter = run_game(list(rng.uniform(0.002, 0.1, 50)), 300)
    assert digest(steady) == digest(fast) == digest(stutter)
    assert digest(steady) != digest(run_game([1 / 60], 301))


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dt, max_frame_time, error, words",
    [
        (0.0, 0.25, ValueError, "dt"),
        (-1 / 60, 0.25, ValueError, "dt"),
        (np.nan, 0.25, ValueError, "dt"),
        (np.inf, 0.25, ValueError, "dt"),
        ("1/60", 0.25, TypeError, "dt"),
        (1 / 60, 0.01, ValueError, "max_frame_time must be at least dt"),
        (1 / 60, np.inf, ValueError, "max_frame_time"),
        (1 / 60, -1.0, ValueError, "max_frame_time"),
        (1 / 60, None, TypeError, "max_frame_time"),
        (1 / 60, 10**400, ValueError, "max_frame_time"),
        # A frame could ask for more steps than any loop should run, or than a float holds.
        (5e-324, 1e308, ValueError, r"max_frame_time / dt must be below 9007199254740992"),
        (1e-17, 0.25, ValueError, r"max_frame_time / dt must be below 9007199254740992"),
        # The accumulator, up to dt + max_frame_time, would overflow.
        (1.5e308, 1.7e308, ValueError, r"max_frame_time \+ dt must be within the float range"),
    ],
)
def test_fixed_timestep_rejects_bad_settings(dt, max_frame_time, error, words):
    with pytest.raises(error, match=words):
        FixedTimestep(dt, max_frame_time)


@pytest.mark.parametrize(
    "frame_time, error", [(-0.01, ValueError), (np.nan, ValueError), (np.inf, ValueError),
                          ("0.1", TypeError), (None, TypeError)]
)
def test_advance_rejects_bad_frame_time(frame_time, error):
    clock = FixedTimestep(1 / 60)
    with pytest.raises(error, match="frame_time"):
        clock.advance(frame_time)
    assert clock.steps_taken == 0 and clock.accumulator == 0.0


@pytest.mark.parametrize(
    "previous, current, alpha, error, words",
    [
        (0.0, 1.0, -0.1, ValueError, "alpha"),
        (0.0, 1.0, 1.5, ValueError, "alpha"),
        (0.0, 1.0, np.nan, ValueError, "alpha"),
        (0.0, 1.0, "half", TypeError, "alpha"),
        ([0.0, 1.0], [1.0], 0.5, ValueError, "same shape"),
        (np.nan, 1.0, 0.5, ValueError, "previous"),
        (0.0, [np.inf], 0.5, ValueError, "current"),
    ],
)
def test_interpolate_rejects_bad_input(previous, current, alpha, error, words):
    with pytest.raises(error, match=words):
        interpolate(previous, current, alpha)


def test_step_schedule_matches_the_clock_and_rejects_bad_input():
    frames = [0.01, 0.03, 0.5, 0.0, 0.02]
    steps, alpha = step_schedule(frames, 1 / 60, 0.25)
    clock = FixedTimestep(1 / 60, 0.25)
    for frame_time, count, a in zip(frames, steps, alpha, strict=True):
        assert clock.advance(frame_time) == count
        assert clock.alpha == a
    with pytest.raises(ValueError, match="frame_times"):
        step_schedule([[0.1]], 1 / 60)
    with pytest.raises(ValueError, match="frame_times"):
        step_schedule([0.1, np.nan], 1 / 60)
    with pytest.raises(ValueError, match="frame_times must be non-negative"):
        step_schedule([0.1, -0.1], 1 / 60)
    with pytest.raises(FloatingPointError, match=r"frame_times\[1\]: .*dropped_time"):
        step_schedule([1.7e308, 1.7e308], 1.0, 10.0)


def test_the_largest_clocks_count_exactly():
    # The most steps per frame a clock may ask for, and frames near the float limit.
    clock = FixedTimestep(1.0, max_frame_time=2.0**53 - 1)
    assert clock.advance(1e308) == 2**53 - 1
    assert clock.dropped_time == 1e308 - (2**53 - 1)
    # 1.7e308 / 1e300 is 1.7e8 less a rounding error; the shortfall waits in the accumulator.
    clock = FixedTimestep(1e300, 1.7e308)
    assert clock.advance(1.7e308) in (169_999_999, 170_000_000)
    assert 0.0 <= clock.accumulator < clock.dt
    assert clock.steps_taken * clock.dt + clock.accumulator == pytest.approx(1.7e308, rel=1e-15)


def test_dropped_time_overflow_raises_and_leaves_the_clock_unchanged():
    clock = FixedTimestep(1.0, 10.0)
    clock.advance(1.7e308)
    state = (clock.steps_taken, clock.dropped_time, clock.accumulator)
    with pytest.raises(FloatingPointError, match=r"frame_time = 1.7e\+308 s: the total dropped"):
        clock.advance(1.7e308)
    assert (clock.steps_taken, clock.dropped_time, clock.accumulator) == state


@settings(max_examples=200)
@given(alpha=st.floats(0.0, 1.0),
       previous=st.sampled_from([1.7976931348623157e308, -1.7976931348623157e308, 0.0, 1e308]),
       current=st.sampled_from([1.7976931348623157e308, -1.7976931348623157e308, 0.0]))
def test_interpolate_stays_between_its_states_at_the_edge_of_the_float_range(
        alpha, previous, current):
    blended = interpolate(previous, current, alpha)
    assert math.isfinite(blended)
    low, high = min(previous, current), max(previous, current)
    # Between the two states, up to rounding.
    assert abs(blended - min(max(blended, low), high)) <= 1e-15 * max(abs(low), abs(high))
