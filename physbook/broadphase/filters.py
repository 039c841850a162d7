"""Which shapes may collide at all, whatever their boxes: the filter of the broad phase.

Two shapes ``a`` and ``b`` may collide only if

- they belong to different bodies (a body's own shapes never collide);
- their bodies' ``layers`` bitmasks share a bit (``layers_a & layers_b != 0``);
- at least one of the bodies is dynamic: static and kinematic bodies do not push each other.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._jit import njit
from physbook.kinds import DYNAMIC


class ShapeFilters(NamedTuple):
    """Per shape: ``body`` (S,) int64 owning body row, ``layers`` (S,) int64 the body's
    collision bitmask, ``dynamic`` (S,) bool whether the body is dynamic."""

    body: np.ndarray
    layers: np.ndarray
    dynamic: np.ndarray


@njit
def _may_collide(body, layers, dynamic, a, b):
    """The filter rule for shapes ``a`` and ``b`` (see the module docstring), given the
    columns of a :class:`ShapeFilters`."""
    if body[a] == body[b]:
        return False
    if (layers[a] & layers[b]) == 0:
        return False
    return dynamic[a] or dynamic[b]


@njit
def shape_filters(shape_body, body_layers, body_kinds, out):
    """Fill ``out`` (a :class:`ShapeFilters` of S rows) from each shape's body row.

    An unchecked compiled kernel for the world's own columns: every entry of ``shape_body``
    must index ``body_layers`` and ``body_kinds``, and ``out`` must have S rows.
    """
    body, layers, dynamic = out
    for s in range(shape_body.shape[0]):
        b = shape_body[s]
        body[s] = b
        layers[s] = body_layers[b]
        dynamic[s] = body_kinds[b] == DYNAMIC
