"""Small scenes the viz tests and the viz fuzz table draw: a resting box, two Verlet boxes."""

from __future__ import annotations

import physbook as pb

BOX = pb.Polygon.box(0.5, 0.5)


def world():
    """A box resting on a floor, stepped once so that it has contacts."""
    world = pb.World()
    world.add_body(pb.Polygon.box(3.0, 0.5), position=(0.0, -0.5), kind="static")
    world.add_body(BOX, position=(0.0, 0.45))
    world.step(1 / 60)
    return world


def verlet_world():
    """Two Verlet boxes, one overlapping the other, inside walls."""
    world = pb.verlet.VerletWorld(bounds=(-2.0, -1.0, 2.0, 2.0))
    world.add_box((0.0, 0.0), 1.0, 1.0)
    world.add_box((0.0, 0.95), 1.0, 1.0)
    return world
