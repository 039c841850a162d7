"""Position Verlet for particles: the velocity lives in ``x − x_prev``.

One step of position Verlet (dt in s, a in m/s²):

    x_new = x + (1 − damping) (x − x_prev) + a dt²,   x_prev ← x.

It follows from adding the Taylor expansions of x(t + dt) and x(t − dt): the odd terms
cancel, so x(t + dt) = 2 x(t) − x(t − dt) + a dt² + O(dt⁴). No velocity is stored: moving a
particle (a constraint or a collision does) changes the velocity it carries into the next step.
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.verlet import _arguments as arguments


@njit
def integrate_particles_unchecked(
    positions, previous, force, inverse_mass, count, gravity_x, gravity_y, dt, damping
):
    """Advance ``count`` particles by one position Verlet step of ``dt`` seconds, in place.

    The acceleration of particle i is gravity + force_i · w_i, with w_i its inverse mass
    (1/kg). Pinned particles (w_i = 0) are left untouched, position and previous position,
    so a particle moved by hand between steps keeps the velocity of that motion.
    ``damping`` in [0, 1) removes that fraction of the implicit velocity each step.
    """
    dt2 = dt * dt
    keep = 1.0 - damping
    for i in range(count):
        w = inverse_mass[i]
        if w == 0.0:
            continue
        x = positions[i, 0]
        y = positions[i, 1]
        ax = gravity_x + force[i, 0] * w
        ay = gravity_y + force[i, 1] * w
        # x ← x + (x − x_prev) + a dt², with the old x kept as the new x_prev
        positions[i, 0] = x + keep * (x - previous[i, 0]) + ax * dt2
        positions[i, 1] = y + keep * (y - previous[i, 1]) + ay * dt2
        previous[i, 0] = x
        previous[i, 1] = y


@njit
def keep_in_bounds(positions, inverse_mass, count, x_min, y_min, x_max, y_max):
    """Clamp every free particle into the box [x_min, x_max] × [y_min, y_max] (m), in place.

    The walls are not bodies: a particle outside is put back on the wall. Its previous
    position is left alone, so the clamp also removes the velocity into the wall (an
    inelastic, frictionless wall). Returns how many particles were clamped.
    """
    clamped = 0
    for i in range(count):
        if inverse_mass[i] == 0.0:
            continue
        x = positions[i, 0]
        y = positions[i, 1]
        cx = min(max(x, x_min), x_max)
        cy = min(max(y, y_min), y_max)
        if cx != x or cy != y:
            positions[i, 0] = cx
            positions[i, 1] = cy
            clamped += 1
    return clamped


@arguments.shows(integrate_particles_unchecked)
def integrate_particles(positions: np.ndarray, previous: np.ndarray, force, inverse_mass,
                        count: int, gravity_x: float, gravity_y: float, dt: float,
                        damping: float) -> None:
    """Advance ``count`` particles by one position Verlet step of ``dt`` seconds, in place.

    ``positions`` and ``previous`` are (n, 2) float64 arrays (m), updated in place; ``force``
    (n, 2) in N and ``inverse_mass`` (n,) in 1/kg, 0 for a pinned particle; gravity in m/s²;
    ``damping`` in [0, 1). Raises ``FloatingPointError``, with both arrays restored, when
    the step overflows.
    """
    positions = arguments.in_place(positions, "positions", 2)
    previous = arguments.in_place(previous, "previous", 2)
    force = arguments.values(force, "force", 2)
    inverse_mass = arguments.values(inverse_mass, "inverse_mass", minimum=0.0)
    count = arguments.count(count, "count", {"positions": positions, "previous": previous,
                                             "force": force, "inverse_mass": inverse_mass})
    gravity_x = _check.finite_scalar(gravity_x, "gravity_x")
    gravity_y = _check.finite_scalar(gravity_y, "gravity_y")
    dt = _check.positive_scalar(dt, "dt")
    damping = arguments.fraction(damping, "damping")
    arguments.run_in_place(
        integrate_particles_unchecked,
        (positions, previous, force, inverse_mass, count, gravity_x, gravity_y, dt, damping),
        {"positions": positions, "previous": previous},
        "positions, previous, force, inverse_mass, gravity_x, gravity_y and dt")
