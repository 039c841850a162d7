"""Shared test set-up: a headless matplotlib and hypothesis settings."""

import os

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

# The first call of a compiled function includes numba's compile time, so hypothesis'
# per-example deadline would fire on it; the suite budgets time per file instead.
# derandomize: every run tries the same examples, so a test that passes passes every time
# (a flaky test is a failing test); no example database, for the same reason.
settings.register_profile(
    "physbook", deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True, database=None,
)
settings.load_profile("physbook")
