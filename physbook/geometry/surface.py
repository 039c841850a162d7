"""Chapter 16: what a shape's surface does in a contact, one row of six numbers per shape.

A contact takes its friction and restitution from the surfaces of its two shapes, not from
their bodies: a character's feet grip and its sides slide. Two more settings make game
mechanics out of an ordinary contact:

- a **surface velocity** (m/s, body coordinates): the shape's surface moves along itself at
  this velocity, as a conveyor belt's does, though the body stays put. Friction then drives
  what touches it towards that velocity, not towards rest.
- a **one-way** direction (a unit vector, body coordinates, or zero for none): the shape
  stops only bodies that come at it from that side, as a platform a character jumps up
  through and then stands on.

The table keeps them as columns of one (S, 6) array, in the order of the constants below, so
that a compiled loop reads a shape's surface from one row.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check

#: Columns of a shape's surface row.
FRICTION = 0  #: Coulomb friction coefficient μ ≥ 0
RESTITUTION = 1  #: coefficient of restitution e in [0, 1]
VELOCITY_X, VELOCITY_Y = 2, 3  #: surface velocity (m/s), body coordinates
ONE_WAY_X, ONE_WAY_Y = 4, 5  #: the side a body must come from (unit, body coordinates), or 0
SURFACE_WIDTH = 6


def one_way_direction(value, name: str = "one_way") -> np.ndarray:
    """``value`` checked as a one-way direction: None or a zero vector for none, else any
    non-zero vector, returned as a unit vector."""
    if value is None:
        return np.zeros(2)
    direction = _check.vector(value, name)
    length = math.hypot(direction[0], direction[1])
    if length == 0.0:
        return direction
    if not length > 1e-12:
        raise ValueError(f"{name} must be zero (no one-way side) or a direction of length "
                         f"above 1e-12, got {value!r}")
    return direction / length


def surface_row(friction: float, restitution: float, velocity=(0.0, 0.0),
                one_way=None) -> np.ndarray:
    """A shape's surface row (:data:`SURFACE_WIDTH` floats), each value checked: ``friction``
    ≥ 0 and finite, ``restitution`` in [0, 1], a finite surface ``velocity`` (m/s) and a
    ``one_way`` direction (:func:`one_way_direction`)."""
    friction = _check.non_negative_scalar(friction, "friction")
    restitution = _check.non_negative_scalar(restitution, "restitution")
    if restitution > 1.0:
        raise ValueError(f"restitution must be in [0, 1], got {restitution}")
    velocity = _check.vector(velocity, "surface_velocity")
    direction = one_way_direction(one_way)
    return np.array([friction, restitution, velocity[0], velocity[1], direction[0],
                     direction[1]])
