"""Fuzz cases for the geometry layer: shapes, boxes, mass data, compound mass, shape table."""

from __future__ import annotations

import numpy as np
from fuzz_support import Case

import physbook as pb
from physbook.geometry.mass import combine_mass
from physbook.geometry.shape_table import ShapeTable, body_poses


def _circle():
    return pb.Circle(0.5, center=(1.0, 2.0))


def _polygon():
    return pb.Polygon([(0.0, 0.0), (2.0, 0.0), (1.5, 1.0), (0.0, 1.0)])


def _box():
    return pb.AABB((0.0, 0.0), (1.0, 1.0))


def _capsule():
    return pb.Capsule((0.0, 0.0), (1.0, 0.5), 0.25)


def _segment():
    return pb.Segment((0.0, 0.0), (1.0, 0.5))


def _chain_segment():
    return pb.ChainSegment((-1.0, 0.0), (0.0, 0.0), (1.0, 0.0), (2.0, 1.0))


def _rounded():
    return pb.Polygon.box(1.0, 0.5, radius=0.1)


def _table():
    """Two bodies: a box on body 0, a circle on body 1."""
    table = ShapeTable(capacity=2)
    table.append(pb.Polygon.box(1.0, 0.5), 0)
    table.append(pb.Circle(0.5), 1)
    return table


def _keywords(make, argument: str, **valid):
    """``make(**valid)`` with ``argument`` replaced by the bad value."""
    def call(bad):
        return make(**{**valid, argument: bad})
    return call


def _method(make, name: str):
    """``make().name(bad)``."""
    def call(bad):
        return getattr(make(), name)(bad)
    return call


_L_SHAPE = [(0.0, 0.0), (2.0, 0.0), (2.0, 0.5), (0.5, 0.5), (0.5, 2.0), (0.0, 2.0)]
_BOX_ARGUMENTS = {"half_width": 1.0, "half_height": 0.5, "center": (0.0, 0.0), "angle": 0.0}
_POSES = {"origins": np.zeros((2, 2)), "angles": np.zeros(2)}
_CAPSULE = {"center1": (0.0, 0.0), "center2": (1.0, 0.0), "radius": 0.5}
_SEGMENT = {"point1": (0.0, 0.0), "point2": (1.0, 0.0)}
_CHAIN_SEGMENT = {"ghost1": (-1.0, 0.0), "point1": (0.0, 0.0), "point2": (1.0, 0.0),
                  "ghost2": (2.0, 0.0)}

CASES: list[Case] = [
    Case("Circle", "radius", _keywords(pb.Circle, "radius", center=(0.0, 0.0))),
    Case("Circle", "center", _keywords(pb.Circle, "center", radius=1.0)),
    Case("Circle.mass_properties", "density", _method(_circle, "mass_properties")),
    Case("Circle.aabb", "transform", _method(_circle, "aabb")),
    Case("Circle.support", "direction", _method(_circle, "support")),
    Case("Polygon", "vertices", pb.Polygon),
    *[Case("Polygon.box", name, _keywords(pb.Polygon.box, name, **_BOX_ARGUMENTS))
      for name in _BOX_ARGUMENTS],
    Case("Polygon.regular", "n", _keywords(pb.Polygon.regular, "n", radius=1.0)),
    Case("Polygon.regular", "radius", _keywords(pb.Polygon.regular, "radius", n=5)),
    Case("Polygon.mass_properties", "density", _method(_polygon, "mass_properties")),
    Case("Polygon.aabb", "transform", _method(_polygon, "aabb")),
    Case("Polygon.support", "direction", _method(_polygon, "support")),
    Case("Polygon", "radius", _keywords(pb.Polygon, "radius", vertices=_L_SHAPE[:3])),
    Case("Polygon.box", "radius", _keywords(pb.Polygon.box, "radius", **_BOX_ARGUMENTS)),
    Case("Polygon.rounded", "radius", _method(_polygon, "rounded")),
    *[Case("Capsule", name, _keywords(pb.Capsule, name, **_CAPSULE)) for name in _CAPSULE],
    *[Case("Segment", name, _keywords(pb.Segment, name, **_SEGMENT)) for name in _SEGMENT],
    *[Case("ChainSegment", name, _keywords(pb.ChainSegment, name, **_CHAIN_SEGMENT))
      for name in _CHAIN_SEGMENT],
    Case("Chain", "points", _keywords(pb.Chain, "points", loop=False)),
    Case("Chain", "loop", _keywords(pb.Chain, "loop", points=[(0, 0), (1, 0), (1, 1)])),
    *[Case(f"{make.__name__[1:]}.{method}", argument, _method(make, method))
      for make in (_capsule, _rounded, _segment, _chain_segment)
      for method, argument in (("aabb", "transform"), ("support", "direction"))],
    Case("Capsule.mass_properties", "density", _method(_capsule, "mass_properties")),
    Case("Polygon.mass_properties (rounded)", "density", _method(_rounded, "mass_properties")),
    Case("AABB", "lower", _keywords(pb.AABB, "lower", upper=(1.0, 1.0))),
    Case("AABB", "upper", _keywords(pb.AABB, "upper", lower=(0.0, 0.0))),
    Case("AABB.overlaps", "other", _method(_box, "overlaps")),
    Case("AABB.contains", "other", _method(_box, "contains")),
    Case("AABB.union", "other", _method(_box, "union")),
    Case("AABB.contains_point", "point", _method(_box, "contains_point")),
    *[Case("MassData", name, _keywords(pb.MassData, name, mass=1.0, inertia=1.0,
                                       centroid=(0.0, 0.0)))
      for name in ("mass", "inertia", "centroid")],
    Case("combine_mass", "shapes", _keywords(combine_mass, "shapes", density=1.0)),
    Case("combine_mass", "density",
         _keywords(combine_mass, "density", shapes=[pb.Circle(0.5), pb.Polygon.box(1.0, 1.0)])),
    Case("ShapeTable", "capacity", ShapeTable),
    Case("ShapeTable.shape", "row", _method(_table, "shape")),
    Case("ShapeTable.append", "shape", lambda bad: _table().append(bad, 0)),
    Case("ShapeTable.append", "body", lambda bad: _table().append(pb.Circle(1.0), bad)),
    Case("ShapeTable.remove_body", "body", _method(_table, "remove_body")),
    *[Case("ShapeTable.aabbs", name, lambda bad, name=name: _table().aabbs(
        **{**_POSES, name: bad})) for name in _POSES],
    *[Case("body_poses", name, lambda bad, name=name: body_poses(
        **{**_POSES, "shapes": _table(), name: bad})) for name in _POSES],
    Case("body_poses", "shapes", lambda bad: body_poses(shapes=bad, **_POSES)),
    # Chapter 14: outlines, hulls and convex pieces.
    Case("convex_hull", "points", lambda bad: pb.convex_hull(bad)),
    Case("convex_hull", "method", lambda bad: pb.convex_hull(_L_SHAPE, bad)),
    Case("is_convex", "points", pb.is_convex),
    Case("is_simple", "points", pb.is_simple),
    Case("orientation", "points", pb.orientation),
    Case("triangulate", "outline", pb.triangulate),
    Case("decompose", "outline", lambda bad: pb.decompose(bad)),
    Case("decompose", "outline", lambda bad: pb.decompose(bad, "bayazit"), named="outline"),
    Case("decompose", "method", lambda bad: pb.decompose(_L_SHAPE, bad)),
    Case("decompose", "max_vertices", lambda bad: pb.decompose(_L_SHAPE, max_vertices=bad)),
    Case("decompose", "chain", lambda bad: pb.decompose(_L_SHAPE, chain=bad)),
    Case("decompose", "outline (chain)", lambda bad: pb.decompose(bad, chain=True),
         named="outline"),
]
