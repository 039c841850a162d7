"""Chapter 10: a step's contacts as one linear complementarity problem, written out densely.

Stack the velocities of N bodies in one vector, v = (v₁, ω₁, …, v_N, ω_N) (3N numbers), and
their masses in the **mass matrix** M = diag(m₁, m₁, I₁, …, m_N, m_N, I_N). A contact point
between bodies A and B, with normal n and arms r_A, r_B, has a **Jacobian row** J_i: the
numbers that turn v into the point's normal velocity, v_n = J_i v, which are −nᵀ and
−(r_A × n) in A's three columns, nᵀ and r_B × n in B's, zero elsewhere (a tangent row the
same with t). An impulse λ_i along the row changes v by M⁻¹J_iᵀλ_i (chapter 9's
Δv = ±P/m, Δω = ±r × P/I, written for all bodies at once). With J the rows stacked and v_f
the velocities before any impulse, the points' velocities after the impulses λ are

    w = J(v_f + M⁻¹Jᵀλ) − v* = Aλ + b,   A = JM⁻¹Jᵀ,   b = Jv_f − v*,

v* the rows' targets. A rigid contact asks, row by row, for the complementarity
conditions 0 ≤ λ ⟂ w ≥ 0 (λ ≥ 0, w ≥ 0, λw = 0: a point pushes only while it stays in
contact), a friction row for λ in the box |λ_t| ≤ μλ_n with w = 0 inside it (and w of the
sign that the bound resists at either end). Sequential impulses is **projected
Gauss–Seidel** on it: :func:`projected_gauss_seidel` visits the rows in order and sets each
λ_i to what makes w_i zero given the others, clamped to its bounds. :func:`projected_jacobi`
updates every row from the same old λ instead. These dense functions are for small worlds
and for checks; the engine's passes never form A.
"""

from __future__ import annotations

import numpy as np

from physbook.vecmath.kernels import cross


def inverse_mass_matrix(inverse_masses: np.ndarray, inverse_inertias: np.ndarray) -> np.ndarray:
    """M⁻¹ = diag(1/m₁, 1/m₁, 1/I₁, …) (3N, 3N) from the bodies' inverse masses (1/kg) and
    inverse inertias (1/(kg·m²)); a static body's row is zero (infinite mass)."""
    return np.diag(np.column_stack([inverse_masses, inverse_masses, inverse_inertias]).ravel())


def contact_jacobian(contacts, centers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobian J (2P, 3N) of a contact table's P points and the rows' points.

    Rows come in the order the passes meet them: contact after contact, and in a contact
    point after point, each point's normal row then its tangent row (t = (−n_y, n_x)).
    Returns J and ``rows`` (2P, 3): for each row its contact, its point and 0 for a normal
    row, 1 for a tangent row.
    """
    count = centers.shape[0]
    jacobian, rows = [], []
    for m, (a, b) in enumerate(contacts.bodies):
        nx, ny = contacts.normals[m]
        for k in range(contacts.point_counts[m]):
            point = contacts.points[m, k]
            arm_a, arm_b = point - centers[a], point - centers[b]
            for kind, (dx, dy) in enumerate(((nx, ny), (-ny, nx))):
                row = np.zeros(3 * count)
                row[3 * a:3 * a + 3] -= (dx, dy, cross(arm_a[0], arm_a[1], dx, dy))
                row[3 * b:3 * b + 3] += (dx, dy, cross(arm_b[0], arm_b[1], dx, dy))
                jacobian.append(row)
                rows.append((m, k, kind))
    return np.array(jacobian).reshape(-1, 3 * count), np.array(rows, np.int64).reshape(-1, 3)


def row_bounds(rows: np.ndarray, frictions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of :func:`contact_jacobian`: the row of its point's normal impulse
    (itself for a normal row) and the factor of its bounds (−1 for a normal row, λ ≥ 0;
    μ for a tangent row, |λ_t| ≤ μλ_n)."""
    normal_row = np.where(rows[:, 2] == 0, np.arange(len(rows)), np.arange(len(rows)) - 1)
    factor = np.where(rows[:, 2] == 0, -1.0, frictions[rows[:, 0]])
    return normal_row, factor


def _clamp(value: float, i: int, impulses: np.ndarray, normal_row, factor) -> float:
    if factor[i] < 0.0:
        return max(value, 0.0)
    bound = factor[i] * impulses[normal_row[i]]
    return min(max(value, -bound), bound)


def projected_gauss_seidel(A: np.ndarray, b: np.ndarray, normal_row: np.ndarray,
                           factor: np.ndarray, iterations: int,
                           start: np.ndarray | None = None) -> np.ndarray:
    """``iterations`` sweeps of projected Gauss–Seidel on the LCP (A, b): row by row,
    λ_i ← clamp(λ_i − w_i/A_ii), w = Aλ + b with the λ of rows already visited in this
    sweep. Returns the impulses after each sweep, (iterations + 1, rows), from ``start``
    (zero when None)."""
    impulses = np.zeros(len(b)) if start is None else np.array(start, float)
    history = [impulses.copy()]
    for _ in range(iterations):
        for i in range(len(b)):
            if A[i, i] > 0.0:
                value = impulses[i] - (A[i] @ impulses + b[i]) / A[i, i]
                impulses[i] = _clamp(value, i, impulses, normal_row, factor)
        history.append(impulses.copy())
    return np.array(history)


def projected_jacobi(A: np.ndarray, b: np.ndarray, normal_row: np.ndarray, factor: np.ndarray,
                     iterations: int, relaxation: float = 1.0,
                     start: np.ndarray | None = None) -> np.ndarray:
    """``iterations`` sweeps of projected Jacobi: every row from the λ of the sweep before,
    λ_i ← clamp(λ_i − ω·w_i/A_ii) with the relaxation ω = ``relaxation``; normal rows are
    clamped first, so that friction's bound is this sweep's λ_n. Returns the impulses after
    each sweep, as :func:`projected_gauss_seidel`."""
    impulses = np.zeros(len(b)) if start is None else np.array(start, float)
    history = [impulses.copy()]
    diagonal = np.diag(A)
    safe = np.where(diagonal > 0.0, diagonal, 1.0)
    normal = factor < 0.0
    for _ in range(iterations):
        step = np.where(diagonal > 0.0, (A @ impulses + b) / safe, 0.0)
        proposed = impulses - relaxation * step
        impulses = np.where(normal, np.maximum(proposed, 0.0), impulses)
        bound = np.where(normal, np.inf, factor * impulses[normal_row])
        impulses = np.where(normal, impulses, np.clip(proposed, -bound, bound))
        history.append(impulses.copy())
    return np.array(history)


def complementarity_error(A: np.ndarray, b: np.ndarray, impulses: np.ndarray,
                          normal_row: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """How far ``impulses`` (…, rows) are from solving the LCP, per row (m/s): for a normal
    row |min(λ, w)| (zero exactly when λ ≥ 0, w ≥ 0 and one of them is zero); for a
    tangent row |w| while inside the box, or the part of w the bound does not resist."""
    w = impulses @ A.T + b
    normal = factor < 0.0
    bound = np.where(normal, np.inf, factor * impulses[..., normal_row])
    at_lower = impulses <= -bound
    at_upper = impulses >= bound
    friction = np.where(at_upper, np.maximum(w, 0.0),
                        np.where(at_lower, np.maximum(-w, 0.0), np.abs(w)))
    friction = np.where(bound > 0.0, friction, 0.0)  # no normal impulse: any w will do
    return np.where(normal, np.abs(np.minimum(impulses, w)), friction)
