"""The integer codes stored in the engine's arrays for kinds of bodies and shapes.

Compiled loops compare these codes, never strings; the names are for people.
"""

from __future__ import annotations

import numpy as np

from physbook import _check

#: A dynamic body moves under gravity, forces, impulses and contacts.
DYNAMIC = 0
#: A static body never moves (infinite mass: inverse mass and inertia 0).
STATIC = 1
#: A kinematic body moves at the velocity it is given and ignores forces and impulses.
KINEMATIC = 2

#: Body kind names, indexed by code: ``BODY_KINDS[DYNAMIC] == "dynamic"``.
BODY_KINDS = ("dynamic", "static", "kinematic")


def body_kind_code(kind, name: str = "kind") -> int:
    """The code of a body kind given by name (``"dynamic"``, ``"static"``,
    ``"kinematic"``) or by its constant (``pb.DYNAMIC``, ``pb.STATIC``, ``pb.KINEMATIC``)."""
    if isinstance(kind, (int, np.integer)) and not isinstance(kind, (bool, np.bool_)):
        if kind in (DYNAMIC, STATIC, KINEMATIC):
            return int(kind)
        raise ValueError(f"{name} must be one of {list(BODY_KINDS)} or pb.DYNAMIC, pb.STATIC, "
                         f"pb.KINEMATIC ({DYNAMIC}, {STATIC}, {KINEMATIC}), got {kind}")
    if not isinstance(kind, str):
        raise TypeError(f"{name} must be a string, one of {list(BODY_KINDS)}, or one of "
                        f"pb.DYNAMIC, pb.STATIC, pb.KINEMATIC, got {type(kind).__name__}")
    return BODY_KINDS.index(_check.choice(kind, name, BODY_KINDS))


#: A shape that is a circle (one centre and a radius).
CIRCLE = 0
#: A shape that is a convex polygon (vertices and outward edge normals), grown by its
#: radius when the radius is positive (a rounded polygon).
POLYGON = 1
#: A capsule: the segment between two centres grown by a radius.
CAPSULE = 2
#: A two-sided segment with no radius (static and kinematic bodies only).
SEGMENT = 3
#: A one-sided segment of a chain, which knows its neighbours (its ghost vertices).
CHAIN_SEGMENT = 4

#: Shape kind names, indexed by code.
SHAPE_KINDS = ("circle", "polygon", "capsule", "segment", "chain segment")

#: A distance joint keeps two anchor points at a distance (a rod, a rope, a spring).
DISTANCE = 0
#: A revolute joint pins two bodies together at a point; they turn freely about it.
REVOLUTE = 1
#: A prismatic joint lets two bodies slide along an axis, without turning.
PRISMATIC = 2
#: A weld joint glues two bodies together, rigidly or softly.
WELD = 3
#: A wheel joint: a point sliding on a sprung axis, turning freely (a car's suspension).
WHEEL = 4
#: A mouse joint pulls one body's point towards a target in the world.
MOUSE = 5
#: A motor joint drives body B's pose relative to body A towards an offset, with a bounded
#: force and torque.
MOTOR = 6

#: Joint kind names, indexed by code.
JOINT_KINDS = ("distance", "revolute", "prismatic", "weld", "wheel", "mouse", "motor")
