"""Random convex polygons and poses shared by the narrow-phase tests, with shapely twins."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon as ShapelyPolygon

from physbook.geometry.shapes import Polygon
from physbook.vecmath.vec import Transform


def random_polygon(rng: np.random.Generator, scale: float = 1.0) -> Polygon:
    """A random convex polygon: the hull of 3–9 random points, about 3·``scale`` m across."""
    while True:
        points = rng.normal(size=(int(rng.integers(3, 10)), 2)) * rng.uniform(0.1, 0.8, 2)
        hull = shapely.convex_hull(shapely.MultiPoint(points * scale))
        if hull.geom_type == "Polygon" and hull.area > 1e-3 * scale**2:
            try:
                return Polygon(np.array(hull.exterior.coords)[:-1])
            except ValueError:
                continue


def random_pose(rng: np.random.Generator, spread: float = 1.0) -> Transform:
    """A pose with position uniform in [−spread, spread]² m and any angle."""
    return Transform(rng.uniform(-spread, spread, 2), rng.uniform(-np.pi, np.pi))


def world_polygon(polygon: Polygon, transform: Transform) -> ShapelyPolygon:
    """The shapely polygon of ``polygon`` placed by ``transform``."""
    return ShapelyPolygon(transform.to_world(polygon.vertices))
