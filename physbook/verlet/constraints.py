"""Distance constraints ("poles"): the seed's projection and its compliant (XPBD) form.

An edge between particles i and j keeps them ``rest_length`` L apart. With d = x_j − x_i,
n = d / |d| and the violation C = |d| − L, the smallest mass-weighted move that restores the
length is

    Δx_i = + w_i / (w_i + w_j) · C n,     Δx_j = − w_j / (w_i + w_j) · C n,

where w are inverse masses (1/kg). Equal masses give the seed's half-and-half split, and
m_i Δx_i + m_j Δx_j = 0, so the projection never changes the total linear momentum.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.constants import DEGENERATE_LENGTH
from physbook.verlet import _arguments as arguments


@njit
def satisfy_edges_unchecked(positions, inverse_mass, edge_ends, rest_length, edge_count):
    """Project every edge once, in order (Gauss–Seidel), onto its rest length; in place.

    Returns the largest |C| (m) met during the sweep, before each correction.
    """
    largest = 0.0
    for k in range(edge_count):
        i = edge_ends[k, 0]
        j = edge_ends[k, 1]
        w_i = inverse_mass[i]
        w_j = inverse_mass[j]
        w_sum = w_i + w_j
        if w_sum == 0.0:
            continue  # both ends pinned: nothing can move
        dx = positions[j, 0] - positions[i, 0]
        dy = positions[j, 1] - positions[i, 1]
        distance = math.sqrt(dx * dx + dy * dy)
        if distance < DEGENERATE_LENGTH:
            continue
        violation = distance - rest_length[k]
        largest = max(largest, abs(violation))
        # Δx_i = w_i/(w_i+w_j) · C · d/|d|;  Δx_j = −w_j/(w_i+w_j) · C · d/|d|
        scale = violation / (distance * w_sum)
        positions[i, 0] += w_i * scale * dx
        positions[i, 1] += w_i * scale * dy
        positions[j, 0] -= w_j * scale * dx
        positions[j, 1] -= w_j * scale * dy
    return largest


@njit
def satisfy_edges_compliant_unchecked(
    positions, inverse_mass, edge_ends, rest_length, edge_count, multipliers, alpha_tilde
):
    """One XPBD sweep over the edges with compliance; in place.

    ``alpha_tilde`` = α / h² with α the compliance (m/N, the inverse of a stiffness) and h
    the substep (s). Each edge keeps its Lagrange multiplier λ (N·s²) in ``multipliers``
    over the sweeps of one substep, and moves by

        Δλ = (−C − α̃ λ) / (w_i + w_j + α̃),   Δx_i = −w_i Δλ n,   Δx_j = +w_j Δλ n.

    With α = 0 this is exactly :func:`satisfy_edges`. Returns the largest |C| (m) met.
    """
    largest = 0.0
    for k in range(edge_count):
        i = edge_ends[k, 0]
        j = edge_ends[k, 1]
        w_i = inverse_mass[i]
        w_j = inverse_mass[j]
        w_sum = w_i + w_j
        if w_sum == 0.0:
            continue
        dx = positions[j, 0] - positions[i, 0]
        dy = positions[j, 1] - positions[i, 1]
        distance = math.sqrt(dx * dx + dy * dy)
        if distance < DEGENERATE_LENGTH:
            continue
        violation = distance - rest_length[k]
        largest = max(largest, abs(violation))
        delta = (-violation - alpha_tilde * multipliers[k]) / (w_sum + alpha_tilde)
        multipliers[k] += delta
        # ∇_i C = −n and ∇_j C = +n, with n = d/|d|
        nx = dx / distance
        ny = dy / distance
        positions[i, 0] -= w_i * delta * nx
        positions[i, 1] -= w_i * delta * ny
        positions[j, 0] += w_j * delta * nx
        positions[j, 1] += w_j * delta * ny
    return largest


@njit
def stretched_edges(positions, edge_ends, rest_length, tear_ratio, edge_count, torn):
    """Mark in ``torn`` the edges longer than ``tear_ratio`` × rest length; return how many."""
    count = 0
    for k in range(edge_count):
        i = edge_ends[k, 0]
        j = edge_ends[k, 1]
        dx = positions[j, 0] - positions[i, 0]
        dy = positions[j, 1] - positions[i, 1]
        too_long = dx * dx + dy * dy > (tear_ratio[k] * rest_length[k]) ** 2
        torn[k] = too_long
        if too_long:
            count += 1
    return count


def _edge_arguments(positions, inverse_mass, edge_ends, rest_length, edge_count) -> tuple:
    """The checked arguments shared by both edge sweeps."""
    positions, inverse_mass = arguments.particles(positions, inverse_mass)
    edge_ends = arguments.indices(edge_ends, "edge_ends", len(positions), 2, "positions")
    rest_length = arguments.values(rest_length, "rest_length", minimum=0.0)
    edge_count = arguments.count(edge_count, "edge_count",
                                 {"edge_ends": edge_ends, "rest_length": rest_length})
    return positions, inverse_mass, edge_ends, rest_length, edge_count


@arguments.shows(satisfy_edges_unchecked)
def satisfy_edges(positions: np.ndarray, inverse_mass, edge_ends, rest_length,
                  edge_count: int) -> float:
    """Project the first ``edge_count`` edges once, in order, onto their rest lengths.

    ``positions`` (n, 2) float64 (m) is updated in place; ``inverse_mass`` (n,) in 1/kg;
    ``edge_ends`` (m, 2) particle indices; ``rest_length`` (m,) in m. Returns the largest
    |C| (m) met during the sweep. Raises ``FloatingPointError``, with ``positions`` restored,
    when the sweep overflows.
    """
    checked = _edge_arguments(positions, inverse_mass, edge_ends, rest_length, edge_count)
    return float(arguments.run_in_place(satisfy_edges_unchecked, checked,
                                        {"positions": checked[0]}, "positions and rest_length"))


@arguments.shows(satisfy_edges_compliant_unchecked)
def satisfy_edges_compliant(positions: np.ndarray, inverse_mass, edge_ends, rest_length,
                            edge_count: int, multipliers: np.ndarray,
                            alpha_tilde: float) -> float:
    """One XPBD sweep over the first ``edge_count`` edges with α̃ = α / h² (1/kg).

    As :func:`satisfy_edges`, with the Lagrange multipliers λ (N·s²) of the edges in
    ``multipliers`` (m,) float64, also updated in place. Returns the largest |C| (m) met.
    """
    checked = _edge_arguments(positions, inverse_mass, edge_ends, rest_length, edge_count)
    multipliers = arguments.in_place(multipliers, "multipliers")
    arguments.count(edge_count, "edge_count", {"multipliers": multipliers})
    alpha_tilde = _check.non_negative_scalar(alpha_tilde, "alpha_tilde")
    return float(arguments.run_in_place(
        satisfy_edges_compliant_unchecked, (*checked, multipliers, alpha_tilde),
        {"positions": checked[0], "multipliers": multipliers},
        "positions, rest_length, multipliers and alpha_tilde"))
