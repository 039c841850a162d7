"""Chapter 4: the mass properties of a body made of several shapes.

Each shape knows its own mass, inertia about its centroid and centroid
(``shape.mass_properties(density)``); a compound body adds them up about the common centre
of mass with the parallel axis theorem.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from physbook.geometry.shapes import Shape


def combine_mass(shapes: Sequence[Shape], density: float) -> tuple[float, float, np.ndarray]:
    """Mass (kg), inertia about the centre of mass (kg·m²) and centre (m, body frame).

    M = Σ mᵢ, C = Σ mᵢ·cᵢ / M, and by the parallel axis theorem
    I = Σ (Iᵢ + mᵢ·|cᵢ − C|²), where Iᵢ is shape i's inertia about its own centroid cᵢ.
    """
    parts = [shape.mass_properties(density) for shape in shapes]
    masses = np.array([part.mass for part in parts])
    centroids = np.array([part.centroid for part in parts])
    total = float(masses.sum())
    center = masses @ centroids / total
    arms = centroids - center
    inertia = float(sum(part.inertia for part in parts) + masses @ np.sum(arms * arms, axis=1))
    return total, inertia, center
