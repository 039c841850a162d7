"""Shared test set-up: a headless matplotlib and hypothesis settings."""

import os

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

# The first call of a compiled function includes numba's compile time, so hypothesis'
# per-example deadline would fire on it; the suite budgets time per file instead.
# "ci", which the test command in pyproject.toml selects (--hypothesis-profile=ci), is
# derandomized: every run tries the same examples, so a test that passes passes every time
# (a flaky test is a failing test), and keeps no example database, for the same reason.
# "explore" draws new examples on each run, ten times as many, to look for new failures:
# pytest --hypothesis-profile=explore tests/
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True, database=None,
)
settings.register_profile(
    "explore", deadline=None, suppress_health_check=[HealthCheck.too_slow],
    max_examples=1000,
)
# Without the option (a bare `pytest tests/test_x.py -o addopts=`), run as CI does too.
settings.load_profile("ci")

#: Test modules that take minutes (each runs every chapter), in the order to start them.
#: pytest-xdist hands a module to one worker (--dist loadscope) in the order collected, so
#: starting the longest first lets the short ones fill the other workers' time, and every
#: worker finishes at about the same moment.
LONGEST_FIRST = ("tests/browser/test_jupyterlab.py", "tests/test_reader_path.py")


#: What runs chapters of the book (every notebook under nbval, the reader's path, the
#: browser, the static site): marked ``book``, so that ``pytest -m "not book"`` runs the
#: library's own tests alone, the loop to run while editing the engine.
BOOK_TESTS = ("book/", "tests/browser/", "tests/test_reader_path.py", "tests/test_export_book.py")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(BOOK_TESTS):
            item.add_marker("book")

    def rank(item):
        module = item.nodeid.split("::")[0]
        return LONGEST_FIRST.index(module) if module in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: tests keep their order within a module
