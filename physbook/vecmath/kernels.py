"""Chapter 1's vector algebra on plain floats, for compiled loops.

The checked functions of :mod:`physbook.vecmath.vec` take arrays and validate them; inside a
compiled loop over thousands of contacts a vector is two floats, and these helpers are the
one place where the rotation, the cross product and the velocity of a body point are
written. numba inlines them, so they cost nothing over writing the formula in place.

They check nothing, since a check would cost more than the formula: they are for compiled
code that passes finite floats it has already checked. Python callers use ``vec``.
"""

from __future__ import annotations

from physbook._jit import njit


@njit(refcounted=False)
def cross(ax, ay, bx, by):
    """2D cross product a × b = a_x·b_y − a_y·b_x (a scalar)."""
    return ax * by - ay * bx


@njit(refcounted=False)
def rotate(cosine, sine, x, y):
    """R(θ)·p = (c·x − s·y, s·x + c·y), given c = cos θ and s = sin θ."""
    return cosine * x - sine * y, sine * x + cosine * y


@njit(refcounted=False)
def rotate_inverse(cosine, sine, x, y):
    """R(θ)ᵀ·p = (c·x + s·y, −s·x + c·y): turns p back by θ."""
    return cosine * x + sine * y, -sine * x + cosine * y


@njit(refcounted=False)
def point_velocity(vx, vy, angular_velocity, rx, ry):
    """Velocity of a body point at arm r from its centre: v + ω × r = (v_x − ω r_y, v_y + ω r_x)."""
    return vx - angular_velocity * ry, vy + angular_velocity * rx
