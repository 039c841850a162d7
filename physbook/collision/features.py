"""Feature ids: the names that let a contact point be recognised from step to step.

A feature number names a piece of one shape: vertex ``i`` of a polygon is ``2·i``, its edge
``i`` (from vertex i to i + 1) is ``2·i + 1``, and a circle is ``0``. A capsule, segment or
chain segment is numbered as a polygon of two vertices: its ends ``0`` and ``2``, its sides
``1`` (normal +n) and ``3`` (normal −n); a rounded polygon's corner arcs are named by their
vertex and its flat sides by their edge. A contact point's id
packs the numbers of the pieces of shapes A and B that made it,
``feature_a · 2**FEATURE_SHIFT + feature_b``. It stays the same while the same two pieces
touch, so a solver can match this step's contacts with last step's and warm start them.

:func:`make_feature`, :func:`swap_feature` and :func:`feature_parts` check their input; the
narrow phase packs ids inside its compiled loops with the unchecked kernels
``make_feature_unchecked`` and ``swap_feature_unchecked``, whose numbers it makes itself.
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.constants import FEATURE_SHIFT

#: The largest feature number. An id is a signed 64-bit integer: A's number sits above the
#: shift and must leave the sign bit alone, and B's number must fit there too when A and B
#: are swapped, so both are limited to the 63 − FEATURE_SHIFT bits above the shift.
MAX_FEATURE = (1 << (63 - FEATURE_SHIFT)) - 1

_LOW_BITS = (1 << FEATURE_SHIFT) - 1


@njit(refcounted=False)
def make_feature_unchecked(feature_a, feature_b):
    """Unchecked :func:`make_feature` for compiled loops: both numbers in [0, MAX_FEATURE]."""
    return (np.int64(feature_a) << FEATURE_SHIFT) | np.int64(feature_b)


@njit(refcounted=False)
def swap_feature_unchecked(feature):
    """Unchecked :func:`swap_feature` for compiled loops: ``feature`` a valid id."""
    low_bits = (np.int64(1) << FEATURE_SHIFT) - 1
    return ((feature & low_bits) << FEATURE_SHIFT) | (feature >> FEATURE_SHIFT)


def _feature_number(value, name: str) -> int:
    return _check.integer(value, name, 0, MAX_FEATURE)


def make_feature(feature_a: int, feature_b: int) -> int:
    """Pack one contact point's feature numbers on shapes A and B (integers from 0 to
    :data:`MAX_FEATURE`) into one id."""
    feature_a = _feature_number(feature_a, "feature_a")
    feature_b = _feature_number(feature_b, "feature_b")
    return int(make_feature_unchecked(feature_a, feature_b))


def feature_parts(feature: int) -> tuple[int, int]:
    """Split a feature id into its feature numbers on A and on B (inverse of make_feature)."""
    feature = _check.integer(feature, "feature", 0, 2**63 - 1)
    feature_a, feature_b = feature >> FEATURE_SHIFT, feature & _LOW_BITS
    if feature_b > MAX_FEATURE:
        raise ValueError(f"feature must be an id made by make_feature, got {feature}: its "
                         f"number on B, {feature_b}, exceeds {MAX_FEATURE}")
    return feature_a, feature_b


def swap_feature(feature: int) -> int:
    """The id of the same point seen with A and B exchanged: the two numbers trade places."""
    feature_a, feature_b = feature_parts(feature)
    return make_feature(feature_b, feature_a)
