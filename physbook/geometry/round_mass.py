"""Chapter 15: exact area, centroid and second moment of shapes with a radius.

A rounded shape is its core grown by a disk of radius r (a Minkowski sum). It splits into
pieces whose moments are known in closed form, and which do not overlap:

- the core polygon;
- on each edge k (length L_k, outward normal n_k) a rectangle L_k × r pushed out along n_k;
- at each vertex v_k a circular sector of radius r between the normals of its two edges,
  opening θ_k (the exterior angle, Σθ_k = 2π).

The area is then Steiner's A = A_core + r·perimeter + πr². A capsule is the same sum for a
core of two points (a rectangle and two half disks); it has its own formula because the
exterior angle of a two-point "polygon" (π, between opposite normals) has no reliable sign.

The functions work on numbers already divided by a power of two 2**k (exact) that brings the
shape's size near 1 m, so that no power of a length overflows; the caller scales back (area by
2**2k, first moment by 2**3k, second moment by 2**4k).
"""

from __future__ import annotations

import math

import numpy as np


def capsule_moments(length: float, radius: float) -> tuple[float, float]:
    """Area and polar second moment about the centre of a capsule whose core segment has
    ``length`` L and whose radius is r (scaled units).

    A = 2rL + πr². The rectangle 2r × L contributes (2rL)(L² + 4r²)/12. Each half disk
    (area πr²/2) has second moment (πr²/2)·r²/2 about the centre of its flat side, its
    centroid lying ℓ = 4r/(3π) beyond that side; moved to its centroid and then to the
    capsule's centre, at distance h + ℓ with h = L/2, it gives (πr²/2)(r²/2 + h² + 2hℓ).
    """
    half = 0.5 * length
    arm = 4.0 * radius / (3.0 * math.pi)
    rectangle = 2.0 * radius * length
    disk = math.pi * radius * radius
    second = (rectangle * (length * length + 4.0 * radius * radius) / 12.0
              + disk * (0.5 * radius * radius + half * half + 2.0 * half * arm))
    return rectangle + disk, second


def rounding_moments(local: np.ndarray, normals: np.ndarray,
                     radius: float) -> tuple[float, np.ndarray, float]:
    """Area, first moment and polar second moment (about the origin of ``local``) that a
    radius r adds to a convex polygon: its edge rectangles and corner sectors.

    ``local`` (n, 2) are the vertices (counter-clockwise, scaled), ``normals`` (n, 2) their
    outward unit edge normals (normal k belongs to the edge from vertex k to vertex k + 1).

    Edge rectangle k: area L_k r, centre m_k + (r/2)n_k (m_k the edge's midpoint), second
    moment about its centre L_k r (L_k² + r²)/12. Corner sector k, apex v_k, from normal
    n_{k−1} = (cos α, sin α) to n_k = (cos β, sin β): area θ_k r²/2; relative to its apex its
    first moment is ∫∫(ρ cos φ, ρ sin φ) ρ dρ dφ = (r³/3)(sin β − sin α, cos α − cos β)
    = (r³/3)·rperp(n_k − n_{k−1}) with rperp(x, y) = (y, −x), and its second moment θ_k r⁴/4;
    moved to the origin by |v + q|² = |v|² + 2v·q + |q|².
    """
    edges = np.roll(local, -1, axis=0) - local
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    before = np.roll(normals, 1, axis=0)  # n_{k−1}, the normal of the edge ending at v_k
    angles = np.arctan2(before[:, 0] * normals[:, 1] - before[:, 1] * normals[:, 0],
                        np.sum(before * normals, axis=1))
    r = radius

    strips = lengths * r
    strip_centres = 0.5 * (local + np.roll(local, -1, axis=0)) + 0.5 * r * normals
    turn = normals - before
    sector_arms = (r**3 / 3.0) * np.column_stack([turn[:, 1], -turn[:, 0]])
    sector_areas = 0.5 * angles * r * r

    area = float(np.sum(strips) + np.sum(sector_areas))
    first = (strips @ strip_centres + sector_areas @ local + np.sum(sector_arms, axis=0))
    second = float(
        np.sum(strips * (lengths * lengths + r * r) / 12.0)
        + np.sum(strips * np.sum(strip_centres * strip_centres, axis=1))
        + np.sum(angles) * r**4 / 4.0
        + 2.0 * np.sum(local * sector_arms)
        + np.sum(sector_areas * np.sum(local * local, axis=1)))
    return area, first, second
