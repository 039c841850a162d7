"""Shared test set-up: a headless matplotlib, hypothesis settings, and how the tests are
spread over pytest-xdist's workers."""

import os

import matplotlib
import pytest
from chromium import browser_tests_can_run
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

#: What runs chapters of the book (every notebook under nbval, the reader's path, the
#: browser, the static site): marked ``book``, so that ``pytest -m "not book"`` runs the
#: library's own tests alone, the loop to run while editing the engine.
BOOK_TESTS = ("book/", "tests/browser/", "tests/test_reader_path.py", "tests/test_export_book.py")

JUPYTERLAB = "tests/browser/test_jupyterlab.py"
READER_PATH = "tests/test_reader_path.py"

#: The longest scopes of tests, in the order to start them. pytest-xdist (--dist loadscope)
#: hands each module, or each class of a module, to one worker, in the order collected (a
#: notebook's cells under nbval, a module's tests). The JupyterLab test runs the chapters in
#: two classes, every other chapter in each, so that two workers share the longest job
#: (each with its own JupyterLab, on one reader's clone); the reader's path checks the
#: chapters they saved (tests/reader_clone.py), and starts a little later, once they are
#: saved. Starting the longest first lets the short ones fill the other worker's time, and
#: both workers finish at about the same moment (times of a full run on two cores: about
#: 400 s for each half of the book in JupyterLab, 140 s test_jit when it compiles every
#: kernel itself, a few seconds when tools/warm_kernels.py kept what it checks, 90 s the
#: reader's path once the chapters are saved).
LONGEST_FIRST = (f"{JUPYTERLAB}::TestEvenChapters", f"{JUPYTERLAB}::TestOddChapters",
                 "tests/test_jit.py", "tests/browser/test_site.py", READER_PATH,
                 "tests/test_interrupts.py", "tests/test_fuzz.py", "tests/test_export_book.py")


def module_of(item) -> str:
    return item.nodeid.split("::")[0]


def scope_of(item) -> str:
    """What pytest-xdist hands to one worker: the test's module, or its class."""
    return "::".join(item.nodeid.split("::")[:-1])


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # Marked here, before ``-m`` chooses: a per-item hook of this file would not reach the
    # notebooks' cells, which are collected under book/, outside this conftest's folder.
    for item in items:
        if item.nodeid.startswith(BOOK_TESTS):
            item.add_marker("book")

    def rank(item):
        scope = scope_of(item)
        return LONGEST_FIRST.index(scope) if scope in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: tests keep their order within a module


def chapter_run_in_jupyterlab(item) -> str | None:
    """The chapter file a test of tests/browser/test_jupyterlab.py runs, or None."""
    if module_of(item) != JUPYTERLAB or not hasattr(item, "callspec"):
        return None
    chapter = item.callspec.params.get("chapter")
    return getattr(chapter, "name", None)


class OneRunOfEachChapter:
    """Leave out nbval's run of each chapter the JupyterLab test runs in this session.

    nbval checks that every cell of a chapter runs without an error; the JupyterLab test runs
    every cell of the chapter too, and checks the same of the chapter it saved (every code
    cell shows an execution count and no error), besides what the browser shows. Running
    the chapter a second time under nbval would check nothing more. Without Playwright or
    Chromium the JupyterLab test skips, and nbval runs every chapter as before; ``pytest
    book/NN_x.ipynb`` runs nbval alone.
    """

    def __init__(self):
        self.left_out: list[str] = []

    @pytest.hookimpl(trylast=True)  # after -m and -k have chosen the tests
    def pytest_collection_modifyitems(self, config, items):
        if not browser_tests_can_run():
            return
        run_in_lab = {chapter_run_in_jupyterlab(item) for item in items} - {None}
        twice = [item for item in items if module_of(item).startswith("book/")
                 and module_of(item).removeprefix("book/") in run_in_lab]
        if twice:
            self.left_out = sorted({module_of(item) for item in twice})
            config.hook.pytest_deselected(items=twice)
            left_out = {id(item) for item in twice}
            items[:] = [item for item in items if id(item) not in left_out]

    def pytest_terminal_summary(self, terminalreporter):
        if self.left_out:
            terminalreporter.write_line(
                f"nbval's run of {len(self.left_out)} chapters was left out: the JupyterLab "
                "test runs them and checks that every cell ran without an error "
                "(tests/conftest.py).")


def pytest_configure(config):
    config.pluginmanager.register(OneRunOfEachChapter(), "physbook-one-run-of-each-chapter")
