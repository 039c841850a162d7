"""Feature ids: the names that let a contact point be recognised from step to step.

A feature number names a piece of one shape: vertex ``i`` of a polygon is ``2·i``, its edge
``i`` (from vertex i to i + 1) is ``2·i + 1``, and a circle is ``0``. A contact point's id
packs the numbers of the pieces of shapes A and B that made it,
``feature_a · 2**FEATURE_SHIFT + feature_b``. It stays the same while the same two pieces
touch, so a solver can match this step's contacts with last step's and warm start them.
"""

from __future__ import annotations

import numpy as np

from physbook._jit import njit
from physbook.constants import FEATURE_SHIFT


@njit
def make_feature(feature_a, feature_b):
    """Pack one contact point's feature numbers on shapes A and B into one int64 id."""
    return (np.int64(feature_a) << FEATURE_SHIFT) | np.int64(feature_b)


@njit
def swap_feature(feature):
    """The id of the same point seen with A and B exchanged: the two numbers trade places."""
    low_bits = (np.int64(1) << FEATURE_SHIFT) - 1
    return ((feature & low_bits) << FEATURE_SHIFT) | (feature >> FEATURE_SHIFT)


def feature_parts(feature: int) -> tuple[int, int]:
    """Split a feature id into its feature numbers on A and on B (inverse of make_feature)."""
    feature = int(feature)
    return feature >> FEATURE_SHIFT, feature & ((1 << FEATURE_SHIFT) - 1)
