"""Chapter 4: the mass properties of a body made of several shapes.

Each shape knows its own mass, inertia about its centroid and centroid
(``shape.mass_properties(density)``); a compound body adds them up about the common centre
of mass with the parallel axis theorem. Segments and chain segments have no area and add
nothing; a body made of them only has no mass (it must be static or kinematic), and its
centre is the middle of its segments weighted by their lengths.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from physbook import _check
from physbook.geometry.round_shapes import SHAPE_CLASSES, Shape
from physbook.geometry.shapes import usable


def combine_mass(shapes: Sequence[Shape], density) -> tuple[float, float, np.ndarray]:
    """Mass (kg), inertia about the centre of mass (kg·m²) and centre (m, body frame).

    M = Σ mᵢ, C = Σ (mᵢ/M)·cᵢ, and by the parallel axis theorem
    I = Σ (Iᵢ + mᵢ·|cᵢ − C|²), where Iᵢ is shape i's inertia about its own centroid cᵢ.
    ``shapes`` is a non-empty list or tuple of shapes; ``density`` is in kg/m², one for
    every shape or a sequence of one per shape.
    """
    shapes = _shape_sequence(shapes)
    if isinstance(density, (list, tuple)):
        if len(density) != len(shapes):
            raise ValueError(f"density must be one value or one per shape ({len(shapes)}), "
                             f"got {len(density)}")
        densities = [_check.positive_scalar(d, f"density[{i}]") for i, d in enumerate(density)]
    else:
        densities = [density] * len(shapes)
    solid = [(shape, d) for shape, d in zip(shapes, densities, strict=True)
             if shape.area() > 0.0]
    if not solid:
        return 0.0, 0.0, wire_center(shapes)
    parts = [shape.mass_properties(d) for shape, d in solid]
    masses = np.array([part.mass for part in parts])
    centroids = np.array([part.centroid for part in parts])
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported below
        total = float(masses.sum())
        center = (masses / total) @ centroids  # weights of at most 1 keep C within range
        arms = centroids - center
        inertia = float(sum(part.inertia for part in parts)
                        + masses @ np.sum(arms * arms, axis=1))
    if not (usable(total) and usable(inertia) and np.all(np.isfinite(center))):
        raise ValueError(
            f"shapes at density {max(densities):g} kg/m² add up to mass {total:.3g} kg and "
            f"inertia {inertia:.3g} kg·m² about their centre of mass, beyond the float "
            "range: choose a lower density, smaller shapes or shapes closer together")
    return total, inertia, center


def _shape_sequence(shapes) -> tuple[Shape, ...]:
    if not isinstance(shapes, (list, tuple)):
        raise TypeError(f"shapes must be a list or tuple of shapes, got {type(shapes).__name__}")
    if not shapes:
        raise ValueError("shapes must hold at least one shape")
    for i, shape in enumerate(shapes):
        _check.instance(shape, f"shapes[{i}]", SHAPE_CLASSES,
                        "a Circle, Polygon, Capsule, Segment or ChainSegment")
    return tuple(shapes)


def wire_center(shapes: Sequence[Shape]) -> np.ndarray:
    """The centroid of segments taken as wires (m): Σ Lᵢ·mᵢ / Σ Lᵢ over their lengths Lᵢ
    and midpoints mᵢ."""
    cores = [shape.core()[0] for shape in shapes]
    lengths = np.array([np.hypot(*(core[-1] - core[0])) for core in cores])
    middles = np.array([0.5 * core[0] + 0.5 * core[-1] for core in cores])
    return (lengths / lengths.sum()) @ middles
