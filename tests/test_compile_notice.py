"""The notice printed while numba compiles physbook's kernels (physbook.compile_notice):
checked against numba's own compile events, by compiling small functions that say they are
physbook's (their ``__module__``) and one that does not."""

from __future__ import annotations

import io

import pytest

numba = pytest.importorskip("numba")
from numba.core import event as numba_events  # noqa: E402

from physbook import compile_notice  # noqa: E402
from physbook.compile_notice import FIRST_NOTICE, CompileNotice  # noqa: E402


def kernel(name: str, module: str = "physbook.notice_probe", calls=None):
    """A fresh numba function (nothing cached) that reports itself as ``module.name``;
    it calls ``calls`` (another such function) when given."""
    if calls is None:
        def function(x):
            return x + 1.0
    else:
        def function(x):
            return calls(x) * 2.0
    function.__module__, function.__name__, function.__qualname__ = module, name, name
    return numba.njit(function)


def listened(notice: CompileNotice, *calls):
    with numba_events.install_listener("numba:compile", notice):
        for call in calls:
            call()
    return notice.stream.getvalue().splitlines()


def test_a_wait_is_announced_once_with_what_happens_and_a_later_one_by_name():
    notice = CompileNotice(delay=None, stream=io.StringIO())
    first, second, third = kernel("first"), kernel("second"), kernel("third")
    # second compiles right after first: the same wait, said once
    assert listened(notice, lambda: first(1.0), lambda: second(1.0)) == [FIRST_NOTICE]
    notice.quiet_gap = 0.0  # every compile a wait of its own
    lines = listened(notice, lambda: first(2.0), lambda: third(1.0))
    # first(2.0) compiles nothing (same types); third is announced by name
    assert lines == [FIRST_NOTICE, "physbook: numba is compiling "
                     "physbook.notice_probe.third (once; cached after)"]
    assert notice.announced == 2


def test_a_kernel_compiled_inside_another_is_not_announced_apart():
    notice = CompileNotice(delay=None, stream=io.StringIO())
    inner = kernel("inner")
    outer = kernel("outer", calls=inner)
    notice.quiet_gap = 0.0
    assert listened(notice, lambda: outer(1.0)) == [FIRST_NOTICE]
    assert notice.announced == 1


def test_other_code_compiling_is_not_announced():
    notice = CompileNotice(delay=None, stream=io.StringIO())
    theirs = kernel("theirs", module="a_game_of_someone")
    assert listened(notice, lambda: theirs(1.0)) == [] and notice.announced == 0


def test_a_compile_shorter_than_the_delay_says_nothing():
    notice = CompileNotice(delay=600.0, stream=io.StringIO())
    quick = kernel("quick")
    assert listened(notice, lambda: quick(1.0)) == []
    assert notice._timer is None  # cancelled when the compile ended


def test_the_environment_turns_the_notice_off(monkeypatch):
    monkeypatch.setattr(compile_notice, "_installed", None)
    monkeypatch.setenv("PHYSBOOK_COMPILE_NOTICE", "0")
    assert compile_notice.install() is None


class FakeEvent:
    """What numba hands a listener: the dispatcher of the function it compiles."""

    def __init__(self, name: str):
        function = lambda: None  # noqa: E731
        function.__module__, function.__qualname__ = "physbook.notice_probe", name
        self.data = {"dispatcher": type("Dispatcher", (), {"py_func": function})()}


def test_short_compiles_one_after_another_add_up_to_one_wait():
    """Compiles each shorter than the delay, less than the quiet gap apart, are one wait,
    timed from its first: announced when the next compile starts past the delay."""
    now = [0.0]
    notice = CompileNotice(delay=1.0, quiet_gap=2.0, stream=io.StringIO(),
                           clock=lambda: now[0])
    for start in (0.0, 0.6, 1.2):  # each lasts 0.5 s, 0.1 s apart
        now[0] = start
        notice.on_start(FakeEvent(f"k{start}"))
        now[0] = start + 0.5
        notice.on_end(FakeEvent(f"k{start}"))
    # the third began 1.2 s into the wait: said at once (no timer)
    assert notice.stream.getvalue().splitlines() == [FIRST_NOTICE] and notice.announced == 1
    now[0] = 10.0  # long after: a new wait, not yet long enough to say
    notice.on_start(FakeEvent("later"))
    notice.on_end(FakeEvent("later"))
    assert notice.announced == 1 and notice._timer is None
