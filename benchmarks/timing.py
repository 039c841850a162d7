"""Timing loops shared by the benchmark scripts (wall clock; never used by tests)."""

from __future__ import annotations

import time
from collections.abc import Callable


def time_calls(call: Callable[[], object], steps: int, warmup: int) -> list[float]:
    """Milliseconds of each of ``steps`` calls of ``call()`` after ``warmup`` untimed calls."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        call()
        times.append(1000.0 * (time.perf_counter() - start))
    return times


def mean_step_ms(step: Callable[[float], object], dt: float, steps: int, first: int,
                 watch: Callable[[], object] | None = None, every: int = 10) -> float:
    """Mean milliseconds of ``step(dt)`` over steps ``first`` to ``steps − 1``.

    One clock reading around the whole timed loop, so that engines whose step takes about a
    microsecond are not measured by the clock's own cost. With ``watch``, the loop is timed
    in runs of ``every`` steps and ``watch()`` is called after each, off the clock.
    """
    for _ in range(first):
        step(dt)
    timed = steps - first
    if watch is None:
        start = time.perf_counter()
        for _ in range(timed):
            step(dt)
        return 1e3 * (time.perf_counter() - start) / timed
    elapsed, done = 0.0, 0
    while done < timed:
        run = min(every, timed - done)
        start = time.perf_counter()
        for _ in range(run):
            step(dt)
        elapsed += time.perf_counter() - start
        done += run
        watch()
    return 1e3 * elapsed / timed
