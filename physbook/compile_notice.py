"""Saying so on screen while numba compiles physbook's kernels.

numba compiles a kernel the first time it is called with new argument types, and physbook's
kernels are then kept in numba's on-disk cache (:mod:`physbook._jit`), from which every
later process loads them in a fraction of a second. The first step of a world in a fresh
install therefore waits two to three minutes on a small two-core machine, and the first use
of a feature after it (a joint, a query, a solver) some seconds more, once. A silent wait
of minutes looks like a hang, so a listener on numba's compile events (``numba:compile``,
which numba broadcasts when it compiles and not when it loads from the cache) prints a line
to standard error once a wait for physbook's kernels has lasted :data:`NOTICE_DELAY`
seconds. A wait is one compile or several in a row (a step compiles its stages one after
another); one line per wait. The first line in a process says what is happening, how long
it takes and how to compile everything ahead of time (``python -m physbook.warm``); a later
one names the kernel.

Set the environment variable ``PHYSBOOK_COMPILE_NOTICE=0`` to keep it quiet.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time

from numba.core import event as numba_events

#: Seconds a compile of physbook's kernels lasts before it is announced: a kernel that
#: compiles in less goes unremarked.
NOTICE_DELAY = 1.0

#: Seconds between two compiles that make them two waits, each announced, rather than one.
QUIET_GAP = 2.0

#: The first announcement in a process.
FIRST_NOTICE = ("physbook: numba is compiling the engine's kernels for this machine. This "
                "happens once: two to three minutes for a world's first step, seconds for a "
                "feature used later; from then on they load from numba's cache in under a "
                "second. `python -m physbook.warm` compiles them all ahead of time.")


class CompileNotice(numba_events.Listener):
    """The listener: announces each wait for physbook's kernels (compiles less than
    ``quiet_gap`` seconds apart, each counted from its outermost kernel, which compiles its
    callees within it) once it has lasted ``delay`` seconds (None: at once), on ``stream``
    (standard error by default)."""

    def __init__(self, delay: float | None = NOTICE_DELAY, quiet_gap: float = QUIET_GAP,
                 stream=None, clock=time.perf_counter) -> None:
        super().__init__()
        self.delay = delay
        self.quiet_gap = quiet_gap
        self.stream = stream
        self.clock = clock
        self.announced = 0  # waits announced in this process
        self._depth = 0  # compiles under way, the outermost first
        self._name = ""
        self._wait_announced = False
        self._wait_started = -math.inf
        self._last_end = -math.inf
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    # numba's Listener interface: on_start and on_end of each event
    def on_start(self, event) -> None:
        self._depth += 1
        if self._depth > 1 or not _is_physbook(event):
            return
        now = self.clock()
        with self._lock:
            if now - self._last_end >= self.quiet_gap:  # a new wait
                self._wait_started, self._wait_announced = now, False
            elif self._wait_announced:
                return  # the same wait, already announced
            self._name = _kernel_name(event)
        # A wait is timed from its first compile: short compiles one after another add up.
        remaining = None if self.delay is None else self.delay - (now - self._wait_started)
        if remaining is None or remaining <= 0.0:
            self._announce()
        else:
            self._timer = threading.Timer(remaining, self._announce)
            self._timer.daemon = True
            self._timer.start()

    def on_end(self, event) -> None:
        self._depth = max(self._depth - 1, 0)
        if self._depth > 0 or not _is_physbook(event):
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with self._lock:
            self._last_end = self.clock()

    def _announce(self) -> None:
        with self._lock:
            if self._wait_announced or self._depth == 0:
                return
            self._wait_announced = True
            first = self.announced == 0
            self.announced += 1
            self._write(FIRST_NOTICE if first else
                        f"physbook: numba is compiling {self._name} (once; cached after)")

    def _write(self, line: str) -> None:
        stream = self.stream if self.stream is not None else sys.stderr
        print(line, file=stream, flush=True)


def _dispatcher(event):
    data = getattr(event, "data", None)
    return data.get("dispatcher") if isinstance(data, dict) else None


def _is_physbook(event) -> bool:
    function = getattr(_dispatcher(event), "py_func", None)
    module = getattr(function, "__module__", "") or ""
    return module == "physbook" or module.startswith("physbook.")


def _kernel_name(event) -> str:
    function = _dispatcher(event).py_func
    return f"{function.__module__}.{function.__qualname__}"


_installed: CompileNotice | None = None


def install() -> CompileNotice | None:
    """Listen to numba's compile events (once per process; not when
    ``PHYSBOOK_COMPILE_NOTICE=0``); the listener, or None."""
    global _installed
    if _installed is None and os.environ.get("PHYSBOOK_COMPILE_NOTICE", "1") != "0":
        _installed = CompileNotice()
        numba_events.register("numba:compile", _installed)
    return _installed
