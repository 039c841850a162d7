"""The bad values and the case record shared by ``test_fuzz.py`` and its ``fuzz_*`` tables.

Each ``tests/fuzz_<area>.py`` module lists ``CASES``: one :class:`Case` per argument of a
public entry point. ``test_fuzz.py`` passes every bad value below (and values hypothesis
draws) to every case and asserts the only exceptions that come out are the engine's
documented ones, each with a message that names the argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np


class Case(NamedTuple):
    """One argument of one public entry point, with the call that feeds it a bad value.

    ``call(bad)`` builds whatever else the entry point needs (a fresh world, a valid shape)
    and passes ``bad`` as the argument ``argument``; the error message must contain
    ``named`` (the argument's name unless the case says otherwise).
    """

    entry_point: str
    argument: str
    call: Callable[[object], object]
    named: str = ""

    @property
    def name_in_message(self) -> str:
        return self.named or self.argument


class _Opaque:
    """An object of no type the engine knows."""

    def __repr__(self) -> str:
        return "<opaque>"


#: Values no argument of the engine may turn into a crash, a hang or an unclear error:
#: non-finite and overflowing numbers, wrong types, wrong shapes and empty containers.
BAD_VALUES: list[object] = [
    float("nan"), float("inf"), -float("inf"), 10**400, -(10**400), 2**70, 1e308, -1e308,
    1e-320, -1.0, 0, -0.0, True, None, "x", b"x", 1j, object(), _Opaque(), {}, [], (),
    [1.0], [[1.0, 2.0, 3.0]], [[1.0, 2.0], [3.0]], ["a", "b"], np.array([np.nan, 0.0]),
    np.zeros((0, 2)), np.ones((3, 3)), np.float32(2.0), np.int64(-5), int, lambda *a: None,
]

#: The exceptions a public call may raise on bad input.
ALLOWED = (ValueError, TypeError, LookupError, FloatingPointError)
