"""The one switch between compiled and plain-Python loops.

Every hot loop in physbook is written as a plain Python function over numpy arrays and
decorated with :func:`njit`. When numba imports and the environment variable
``NUMBA_DISABLE_JIT`` is unset (or ``0``), the function is compiled with
``numba.njit(cache=True)``; otherwise it is returned unchanged, so a reader can step
through it in a debugger and the engine still runs where numba is missing.

``fastmath`` is never enabled: it lets the compiler reorder floating-point arithmetic, and
then two runs of the same scene on two machines need not agree bit for bit.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)


def _numba_enabled() -> bool:
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


ENABLED: bool = _numba_enabled()
"""True when :func:`njit` compiles (numba present and not disabled)."""


def njit(function: F) -> F:
    """Compile ``function`` with ``numba.njit(cache=True)``, or return it unchanged.

    Use as a bare decorator, ``@njit``. The compiled and the plain function take the same
    arguments and return the same results. A function numba cannot cache, because its source
    is in no file (``python -c``, an interactive ``python`` prompt, ``exec``), is compiled
    without the on-disk cache instead of failing.
    """
    if not ENABLED:
        return function
    import numba

    try:
        return numba.njit(cache=True)(function)
    except RuntimeError as error:
        if "cannot cache" not in str(error):
            raise
        return numba.njit(function)
