"""Random convex polygons, round shapes and poses shared by the narrow-phase tests, with
shapely twins."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon as ShapelyPolygon

from physbook.geometry.round_shapes import Capsule, ChainSegment, Segment
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


# ---------------------------------------------------------------------------------------
# Shapes with a radius (chapter 15): random shapes, their cores as shapely geometry, and a
# brute-force overlap depth of two cores.


def random_capsule(rng: np.random.Generator) -> Capsule:
    """A capsule with centres uniform in [−0.8, 0.8]², more than 0.05 m apart, and radius
    uniform in [0.02, 0.5] m."""
    while True:
        centres = rng.uniform(-0.8, 0.8, (2, 2))
        if np.hypot(*(centres[1] - centres[0])) > 0.05:
            return Capsule(centres[0], centres[1], rng.uniform(0.02, 0.5))


def random_rounded(rng: np.random.Generator) -> Polygon:
    """A :func:`random_polygon` grown by a radius uniform in [0.02, 0.3] m."""
    return random_polygon(rng).rounded(rng.uniform(0.02, 0.3))


def random_segment(rng: np.random.Generator) -> Segment:
    """A segment with ends uniform in [−0.8, 0.8]², more than 0.05 m apart."""
    while True:
        ends = rng.uniform(-0.8, 0.8, (2, 2))
        if np.hypot(*(ends[1] - ends[0])) > 0.05:
            return Segment(ends[0], ends[1])


def random_chain_segment(rng: np.random.Generator) -> ChainSegment:
    """The middle segment of a random polyline of 5 points: edges 0.1–1 m long, each turning
    from the last by an angle uniform in (−150°, 150°)."""
    heading = rng.uniform(-np.pi, np.pi)
    points = [rng.uniform(-0.3, 0.3, 2)]
    for _ in range(4):
        points.append(points[-1] + rng.uniform(0.1, 1.0) * np.array(
            [np.cos(heading), np.sin(heading)]))
        heading += np.radians(rng.uniform(-150.0, 150.0))
    points = np.array(points) - 0.5 * (points[1] + points[2])
    return ChainSegment(points[0], points[1], points[2], points[3])


def world_core(shape, transform: Transform):
    """The core of ``shape`` placed by ``transform``, as exact shapely geometry (a point, a
    segment, or a polygon), and the shape's radius."""
    points, radius = shape.core()
    world = transform.to_world(points)
    if len(world) == 1:
        return shapely.Point(world[0]), radius
    if len(world) == 2:
        return shapely.LineString(world), radius
    return ShapelyPolygon(world), radius


def core_axes(shape, transform: Transform) -> np.ndarray:
    """The axes a brute-force overlap of this core needs, in the world: a polygon's edge
    normals; a segment's normal and direction; none for a point."""
    points, _ = shape.core()
    world = transform.to_world(points)
    if len(world) == 1:
        return np.zeros((0, 2))
    if len(world) == 2:
        direction = (world[1] - world[0]) / np.hypot(*(world[1] - world[0]))
        return np.array([[direction[1], -direction[0]], direction])
    return transform.rotate_to_world(shape.normals)


def core_overlaps(shape_a, xf_a: Transform, shape_b, xf_b: Transform) -> np.ndarray:
    """For each axis u of :func:`core_axes` of both cores, how far B's core must move along
    ±u to clear A's: min(max_A u − min_B u, max_B u − min_A u) (negative: a gap); the least
    over the axes is the overlap depth of two convex cores, each the hull of its points."""
    axes = np.vstack([core_axes(shape_a, xf_a), core_axes(shape_b, xf_b)])
    pa = xf_a.to_world(shape_a.core()[0]) @ axes.T
    pb = xf_b.to_world(shape_b.core()[0]) @ axes.T
    return np.minimum(pa.max(axis=0) - pb.min(axis=0), pb.max(axis=0) - pa.min(axis=0))


def contact_rows(world) -> dict[tuple[int, int], tuple[int, tuple[int, ...]]]:
    """(shape id A, shape id B) → (point count, feature ids) of every contact row."""
    columns = world.contacts.arrays
    return {tuple(columns.shape_ids[m].tolist()): (
        int(columns.point_counts[m]),
        tuple(columns.features[m, :columns.point_counts[m]].tolist()))
        for m in range(len(columns.shape_ids))}
