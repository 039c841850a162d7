"""Which shapes may collide at all, whatever their boxes: the filter of the broad phase.

Every shape carries a *category* (the bits it is), a *mask* (the bits it collides with) and
a *group*, as in Box2D. Two shapes ``a`` and ``b`` may collide only if

- they belong to different bodies (a body's own shapes never collide);
- at least one of the bodies is dynamic: static and kinematic bodies do not push each other;
- and then, if they share a non-zero group, the group decides: a positive group always
  collides, a negative one never does; otherwise each one's category must be in the other's
  mask: ``category_a & mask_b != 0`` and ``category_b & mask_a != 0``.

A layer bitmask (chapter 9's ``layers``) is the special case ``category = mask = layers``:
two shapes on layers that share a bit collide.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._jit import njit
from physbook.geometry.shape_filter import ALL_CATEGORIES, Filter
from physbook.kinds import DYNAMIC

__all__ = ["ALL_CATEGORIES", "Filter", "ShapeFilters", "categories_match", "layer_filters",
           "shape_filters"]


class ShapeFilters(NamedTuple):
    """Per shape: ``body`` (S,) int64 owning body row, ``category`` and ``mask`` (S,) int64
    bitmasks, ``group`` (S,) int64 collision group (0 for none), ``dynamic`` (S,) bool
    whether the body is dynamic."""

    body: np.ndarray
    category: np.ndarray
    mask: np.ndarray
    group: np.ndarray
    dynamic: np.ndarray


def layer_filters(body, layers, dynamic) -> ShapeFilters:
    """Filters for shapes on layer bitmasks: ``category = mask = layers``, no groups."""
    layers = np.asarray(layers)
    return ShapeFilters(np.asarray(body), layers, layers, np.zeros(layers.shape, np.int64),
                        np.asarray(dynamic))


@njit(refcounted=False)
def categories_match(category_a, mask_a, group_a, category_b, mask_b, group_b):
    """The group and category rule alone (see the module docstring)."""
    if group_a == group_b and group_a != 0:
        return group_a > 0
    return (category_a & mask_b) != 0 and (category_b & mask_a) != 0


@njit(refcounted=False)
def may_collide(body, category, mask, group, dynamic, a, b):
    """The whole filter rule for shapes ``a`` and ``b`` (see the module docstring), given
    the columns of a :class:`ShapeFilters`."""
    if body[a] == body[b]:
        return False
    if not (dynamic[a] or dynamic[b]):
        return False
    return categories_match(category[a], mask[a], group[a], category[b], mask[b], group[b])


@njit(refcounted=False)
def shape_filters(shape_body, shape_category, shape_mask, shape_group, body_kinds, out):
    """Fill ``out`` (a :class:`ShapeFilters` of S rows) from each shape's filter columns
    and its body's kind.

    An unchecked compiled kernel for the world's own columns: every entry of ``shape_body``
    must index ``body_kinds``, and every array must have S rows.
    """
    body, category, mask, group, dynamic = out
    for s in range(shape_body.shape[0]):
        b = shape_body[s]
        body[s] = b
        category[s] = shape_category[s]
        mask[s] = shape_mask[s]
        group[s] = shape_group[s]
        dynamic[s] = body_kinds[b] == DYNAMIC
