"""Chapter 4: materials (density, restitution, friction), the presets table, pair mixing.

A :class:`Material` says what a body is made of. Density (kg/m², a 2D density: mass per
unit area) sets the mass from the shapes' area; restitution and friction describe how it
behaves in contact. A contact joins two materials, and the engine needs one restitution
and one friction for the pair: :func:`mix_restitution` and :func:`mix_friction` state how
physbook decides. The narrow phase mixes each contact it writes from its two shapes' values
(each shape keeps its material's, chapter 16) with :func:`pair_restitution` and
:func:`pair_friction`, the same rules on two numbers in a compiled loop, giving the same
bits. No table of mixed pairs is kept, so a world holds
nothing per pair of materials, however many distinct materials its bodies have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from physbook import _check
from physbook._jit import njit

__all__ = ["Material", "DEFAULT_MATERIAL", "MATERIALS", "mix_restitution", "mix_friction",
           "pair_restitution", "pair_friction"]


@dataclass(frozen=True)
class Material:
    """What a body is made of.

    Parameters
    ----------
    density
        Mass per unit area, kg/m² (> 0, finite).
    restitution
        Coefficient of restitution e in [0, 1]: the ratio of separating to approaching
        normal speed in a collision (0 sticks, 1 bounces without loss).
    friction
        Coulomb friction coefficient μ ≥ 0: the tangential force is at most μ times the
        normal force.
    """

    density: float = 1.0
    restitution: float = 0.0
    friction: float = 0.6

    def __post_init__(self):
        density = _check.positive_scalar(self.density, "density")
        restitution = _check.non_negative_scalar(self.restitution, "restitution")
        if restitution > 1.0:
            raise ValueError(f"restitution must be in [0, 1], got {restitution}")
        friction = _check.non_negative_scalar(self.friction, "friction")
        object.__setattr__(self, "density", density)
        object.__setattr__(self, "restitution", restitution)
        object.__setattr__(self, "friction", friction)

    @classmethod
    def preset(cls, name: str) -> Material:
        """The material called ``name`` in :data:`MATERIALS` (e.g. ``"wood"``)."""
        _check.choice(name, "name", MATERIALS)
        return MATERIALS[name]


#: The material a body gets when none is given: density 1 kg/m², no bounce, and μ = 0.6,
#: the defaults of Box2D's shape definition.
DEFAULT_MATERIAL = Material(density=1.0, restitution=0.0, friction=0.6)

#: Named presets. Density and restitution follow the materials table of Randy Gaul's
#: "custom 2D physics engine" articles; friction is a typical dry sliding coefficient for
#: the real material (see chapter 4 for the sources). The ``static`` preset is for
#: scenery: a static body ignores density (its mass is infinite), so the table's density 0,
#: which stood for "immovable", is replaced by ``kind="static"`` on the body. The table is
#: read-only, so every world and every :meth:`Material.preset` call sees the same presets.
MATERIALS: Mapping[str, Material] = MappingProxyType({
    "rock": Material(density=0.6, restitution=0.1, friction=0.6),
    "wood": Material(density=0.3, restitution=0.2, friction=0.4),
    "metal": Material(density=1.2, restitution=0.05, friction=0.5),
    "bouncy_ball": Material(density=0.3, restitution=0.8, friction=0.8),
    "super_ball": Material(density=0.3, restitution=0.95, friction=0.9),
    "pillow": Material(density=0.1, restitution=0.2, friction=0.5),
    "static": Material(density=1.0, restitution=0.4, friction=0.6),
})


def _coefficients(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Check two coefficients (scalars or arrays of shapes that broadcast): finite, ≥ 0."""
    a, b = _check.finite_array(a, "a"), _check.finite_array(b, "b")
    for array, name in ((a, "a"), (b, "b")):
        if np.any(array < 0.0):
            raise ValueError(f"{name} must be non-negative")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(
            f"a and b must be scalars or arrays of shapes that broadcast together, "
            f"got shapes {a.shape} and {b.shape}") from None
    return a, b


def _scalar_or_array(result: np.ndarray):
    return float(result) if result.ndim == 0 else result


def mix_restitution(a, b):
    """Restitution of a contact between materials with restitutions ``a`` and ``b``.

    e = min(a, b): the less elastic body wins, so a rubber ball dropped on a pillow does
    not bounce. Works on scalars (returns a float) and on arrays (element-wise).
    """
    a, b = _coefficients(a, b)
    return _scalar_or_array(np.minimum(a, b))


def mix_friction(a, b):
    """Friction coefficient of a contact between materials with frictions ``a`` and ``b``.

    μ = √(a·b), the geometric mean: ice (μ ≈ 0) on anything stays slippery, and two equal
    materials keep their own coefficient. Works on scalars and on arrays (element-wise).
    """
    a, b = _coefficients(a, b)
    # √(a·b) from mantissas and exponents, a = ma·2^ea and b = mb·2^eb. The product ma·mb is
    # near 1, so nothing overflows or underflows where a·b would (coefficients beyond about
    # 1e±154), and where a·b is an ordinary float the result is the same bit for bit.
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    odd = (ea + eb) % 2  # one factor of 2 moves under the root, so the exponent halves
    return _scalar_or_array(np.ldexp(np.sqrt(ma * mb * 2.0**odd), (ea + eb - odd) // 2))


#: The smallest positive normal float (2⁻¹⁰²²) and the largest finite one: a product a·b
#: between them was rounded as an ordinary float, neither overflowed nor underflowed.
_SMALLEST_NORMAL = 2.2250738585072014e-308
_LARGEST = 1.7976931348623157e308


@njit(inline=True)
def pair_restitution(a: float, b: float) -> float:
    """:func:`mix_restitution` of two restitutions, for a compiled loop: min(a, b).

    On a tie it returns ``b``, as ``np.minimum`` does, so that even the sign of a zero is
    the one :func:`mix_restitution` gives.
    """
    return a if a < b else b


@njit(inline=True)
def pair_friction(a: float, b: float) -> float:
    """:func:`mix_friction` of two friction coefficients, for a compiled loop: √(a·b).

    The same bits as :func:`mix_friction` for every pair of coefficients, huge and tiny ones
    included.
    """
    product = a * b
    if _SMALLEST_NORMAL <= product <= _LARGEST:
        # a·b = (ma·mb)·2^(ea+eb) is rounded as ma·mb is when it is a normal float, and
        # √(y·4^k) = √y·2^k: :func:`mix_friction`'s result, at the cost of one square root.
        return math.sqrt(product)
    # Zero, or a product that overflowed or underflowed: mix_friction's steps, one by one.
    ma, ea = math.frexp(a)
    mb, eb = math.frexp(b)
    odd = (ea + eb) % 2
    return math.ldexp(math.sqrt(ma * mb * (2.0 if odd else 1.0)), (ea + eb - odd) // 2)
