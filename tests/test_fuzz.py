"""Every public entry point fed bad values: only the engine's documented errors come out.

Each ``tests/fuzz_<area>.py`` lists its entry points' arguments as :class:`Case` s. Every
case is called with every value of :data:`BAD_VALUES` and with values hypothesis draws;
the call may succeed (some of the values are valid for some arguments) or raise one of
:data:`ALLOWED` with a message that names the argument. Anything else (an AttributeError
from deep inside, a numba typing error, an OverflowError) fails, and so does a call that
returns a NaN it was not given or that runs longer than :data:`TIME_LIMIT`.
"""

from __future__ import annotations

import importlib
import math
import pathlib
import signal
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
from fuzz_support import ALLOWED, BAD_VALUES, Case
from hypothesis import given, settings
from hypothesis import strategies as st

#: Seconds one call may take before it counts as a hang: generous, because the first call
#: of a compiled stage includes its compilation on a machine with a cold cache.
TIME_LIMIT = 300

AREAS = sorted(path.stem for path in pathlib.Path(__file__).parent.glob("fuzz_*.py")
               if path.stem != "fuzz_support")
CASES: list[Case] = [case for area in AREAS
                     for case in importlib.import_module(area).CASES]


@contextmanager
def time_limit(seconds: int, what: str):
    """Fail a call that does not return within ``seconds`` (a hang)."""
    def expire(signum, frame):
        raise TimeoutError(f"{what} did not return within {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _has_nan(result, depth: int = 0) -> bool:
    """Whether a returned number, array or tuple of them holds a NaN."""
    if depth > 3:
        return False
    if isinstance(result, float):
        return math.isnan(result)
    if isinstance(result, np.ndarray) and result.dtype.kind == "f":
        return bool(np.isnan(result).any())
    if isinstance(result, tuple):
        return any(_has_nan(item, depth + 1) for item in result)
    return False


def check(case: Case, bad) -> None:
    """Call ``case`` with ``bad``; fail unless it returns cleanly or raises clearly."""
    what = f"{case.entry_point}({case.argument}={bad!r:.60})"
    with time_limit(TIME_LIMIT, what), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a RuntimeWarning is not the error under test
        try:
            result = case.call(bad)
        except ALLOWED as error:
            message = str(error)
            assert case.name_in_message in message, (
                f"{what} raised {type(error).__name__} whose message does not name "
                f"{case.name_in_message!r}: {message}")
            return
        except Exception as error:  # noqa: BLE001 - any other type is the failure
            pytest.fail(f"{what} raised {type(error).__name__}: {error}")
    bad_has_nan = _has_nan(bad) if not isinstance(bad, list) else False
    assert bad_has_nan or not _has_nan(result), f"{what} returned a NaN: {result!r:.200}"


def _id(case: Case) -> str:
    return f"{case.entry_point}-{case.argument}"


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_every_bad_value_gives_a_clear_error_or_a_clean_result(case):
    for bad in BAD_VALUES:
        check(case, bad)


#: Values drawn beyond the fixed list: any float, small, huge and negative integers, short
#: strings, and small lists and arrays of floats of any shape. Integers between 1000 and
#: 2**31 are left out: as a count of steps or iterations they are valid, and only slow.
DRAWN = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**400), max_value=1000),
    st.integers(min_value=2**31, max_value=10**400),
    st.text(max_size=3),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4),
    st.lists(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=3), max_size=3),
    st.builds(np.full, st.tuples(st.integers(0, 3), st.integers(1, 3)),
              st.floats(allow_nan=True, allow_infinity=True)),
)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_drawn_values_give_a_clear_error_or_a_clean_result(case):
    # A property test made afresh for each case: one @given test parametrized over every
    # case makes hypothesis chain its settings one link per case, and past about 950
    # cases reading them exceeds Python's recursion limit.
    @settings(max_examples=8)
    @given(bad=DRAWN)
    def drawn(bad):
        check(case, bad)

    drawn()


def test_the_test_command_runs_hypothesis_derandomized():
    # A property test that draws new examples on each run can fail at random; the test
    # command (pyproject's addopts) selects the "ci" profile, which never does.
    root = pathlib.Path(__file__).parent.parent
    addopts = next(line for line in (root / "pyproject.toml").read_text().splitlines()
                   if line.startswith("addopts"))
    assert "--hypothesis-profile=ci" in addopts
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.database is None
