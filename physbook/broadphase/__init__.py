"""Layer 3, the broad phase: which shapes might touch, from their bounding boxes.

Boxes and filters in, pairs out (see :mod:`~physbook.broadphase.pairs` for the contract):

- :mod:`~physbook.broadphase.filters`: the rule that decides which shapes may collide;
- :mod:`~physbook.broadphase.pairs`: the input and output types, and canonical order;
- :mod:`~physbook.broadphase.naive`: the N² reference (chapter 9);
- :mod:`~physbook.broadphase.sweep`: sort and sweep, the default (chapter 9).

It imports layers 0–2 only: never the narrow phase, the dynamics or the world.
"""

from __future__ import annotations

from collections.abc import Callable

from physbook import _check
from physbook.broadphase import filters, naive, pairs, sweep
from physbook.broadphase.naive import compare_every_pair, naive_pairs
from physbook.broadphase.sweep import _sort_and_sweep, sweep_pairs

#: Broad phases by name, as functions ``(boxes, filters) -> pairs`` that check their input.
BROAD_PHASES: dict[str, Callable] = {"naive": naive_pairs, "sweep": sweep_pairs}

#: The same methods on input a world made itself, which needs no check.
_UNCHECKED: dict[str, Callable] = {"naive": compare_every_pair,
                                   "sweep": _sort_and_sweep}


def broad_phase(name_or_function) -> tuple[Callable, bool]:
    """Resolve a broad phase given by name (see :data:`BROAD_PHASES`) or as a callable.

    Returns the function a world calls and whether its pairs are known to be canonical:
    for a name it is the library's method without its input check; a callable of the
    user's is returned as it is, and its pairs must be checked.
    """
    if callable(name_or_function):
        return name_or_function, False
    return _UNCHECKED[_check.choice(name_or_function, "broad_phase", BROAD_PHASES)], True


__all__ = ["BROAD_PHASES", "broad_phase", "filters", "naive", "pairs", "sweep"]
