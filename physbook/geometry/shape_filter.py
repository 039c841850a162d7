"""A shape's collision filter: the bits it is, the bits it collides with, and its group.

The rule that uses them is in :mod:`physbook.broadphase.filters`: two shapes of equal
non-zero ``group`` always collide if it is positive and never if it is negative; otherwise
each one's ``category`` must share a bit with the other's ``mask``.
"""

from __future__ import annotations

from dataclasses import dataclass

from physbook import _check

#: Every bit set: a mask that accepts every category (−1 in two's complement).
ALL_CATEGORIES = -1


@dataclass(frozen=True)
class Filter:
    """A collision filter (Box2D's category, mask and group).

    Parameters
    ----------
    category
        The bits this shape is (an integer bitmask, not 0; 1 by default).
    mask
        The categories it collides with (every bit by default).
    group
        0 for none; shapes of one positive group always collide, of one negative group
        never, whatever their categories.
    """

    category: int = 1
    mask: int = ALL_CATEGORIES
    group: int = 0

    def __post_init__(self):
        object.__setattr__(self, "category", _check.bitmask(self.category, "category"))
        if self.category == 0:
            raise ValueError("category must have a bit set: a shape of no category collides "
                             "with nothing and no query finds it (for a shape that collides "
                             "with nothing, give mask=0; for a zone, sensor=True)")
        object.__setattr__(self, "mask", _check.bitmask(self.mask, "mask"))
        object.__setattr__(self, "group", _check.bitmask(self.group, "group"))

    @classmethod
    def layers(cls, layers: int) -> Filter:
        """The filter of a layer bitmask: ``category = mask = layers``, no group."""
        layers = _check.bitmask(layers, "layers")
        if layers == 0:
            raise ValueError("layers must have a bit set: a body on no layer collides with "
                             "nothing and no query finds it (for a body that collides with "
                             "nothing, give filter=Filter(mask=0))")
        return cls(layers, layers, 0)
