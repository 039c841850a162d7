"""Chapters 4, 11 and 16: changing what a body is while the world runs — its kind, its
materials, whether it turns — and keeping its mass, inertia and sleep consistent.
"""

from __future__ import annotations

import numpy as np

from physbook.dynamics.body import rotated
from physbook.dynamics.body_table import BodyTable
from physbook.dynamics.contact_table import ContactTable
from physbook.dynamics.joint_table import JointTable
from physbook.dynamics.new_body import require_area_for, turning_inverse
from physbook.dynamics.sleep import Sleep
from physbook.geometry.mass import combine_mass
from physbook.kinds import DYNAMIC, KINEMATIC, STATIC


class BodyChanges:
    """What :class:`~physbook.dynamics.body.Body` setters change in a world's tables:
    ``bodies``, with its ``sleep``, and the ``contacts`` and ``joints`` that say what
    touches and holds a body (so that what rests on it wakes)."""

    def __init__(self, bodies: BodyTable, sleep: Sleep, contacts: ContactTable,
                 joints: JointTable) -> None:
        self._bodies, self._sleep, self._contacts, self._joints = bodies, sleep, contacts, joints

    def wake_around(self, rows) -> None:
        """Wake the body at ``rows`` (a row or rows) and whatever touches it or is jointed to
        it, with their islands, and restart the sleep clock of the bodies at ``rows``: a
        body the game just changed must not fall asleep in the next step before the change
        has shown (a friction taken away from a box at rest on a slope)."""
        self._sleep.wake_around(rows, self._contacts.arrays.bodies, self._joints.arrays.bodies)
        self._bodies.arrays.sleep_times[rows] = 0.0

    def set_kind(self, row: int, kind_code: int) -> None:
        """Make the body at ``row`` dynamic, static or kinematic (``Body.kind``): its mass
        and inertia follow (infinite unless dynamic), a static body stops, and it wakes
        with whatever rests on it."""
        require_area_for(kind_code, self._bodies.shapes(row), "kind")
        bodies = self._bodies.arrays
        self.wake_around(row)
        bodies.kinds[row] = kind_code
        self.set_materials(row, self._bodies.materials(row))
        if kind_code == STATIC:
            bodies.velocities[row] = 0.0
            bodies.angular_velocities[row] = 0.0
        bodies.awake[row] = kind_code == DYNAMIC or (kind_code == KINEMATIC and (
            bodies.velocities[row].any() or bodies.angular_velocities[row] != 0.0))
        bodies.sleep_times[row] = 0.0
        self._sleep.labels[row] = row  # an island of its own until the next step links it

    def set_materials(self, row: int, materials: tuple) -> None:
        """Record the materials of the body at ``row`` (one per shape), and give it the mass
        and inertia of its shapes at their densities (infinite unless it is dynamic) and
        their centre of mass, the body's origin staying where it is."""
        bodies = self._bodies.arrays
        mass, inertia, local_center = combine_mass(self._bodies.shapes(row),
                                                   [m.density for m in materials])
        self._bodies.set_materials(row, materials)
        if bodies.kinds[row] != DYNAMIC:
            mass = inertia = 0.0
        if not np.array_equal(local_center, bodies.local_centers[row]):
            angle = float(bodies.angles[row])
            bodies.local_centers[row] = local_center
            bodies.centers[row] = bodies.origins[row] + rotated(local_center, angle)
        bodies.masses[row], bodies.inertias[row] = mass, inertia
        bodies.inverse_masses[row] = 1.0 / mass if mass > 0.0 else 0.0
        bodies.inverse_inertias[row] = turning_inverse(inertia,
                                                       self._bodies.fixed_rotation(row))

    def set_fixed_rotation(self, row: int, fixed: bool) -> None:
        """``Body.fixed_rotation``: keep the body from turning (inverse inertia 0) or let it
        turn again; it wakes."""
        bodies = self._bodies.arrays
        self.wake_around(row)
        self._bodies.set_fixed_rotation(row, fixed)
        bodies.inverse_inertias[row] = turning_inverse(float(bodies.inertias[row]), fixed)
        if fixed:
            bodies.angular_velocities[row] = 0.0
