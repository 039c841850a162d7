"""Chapter 4: shapes, their bounding boxes, mass properties and support points.

Shapes are given in body coordinates (metres). A polygon is convex, counter-clockwise, and
carries its outward unit edge normals: normal ``i`` belongs to the edge from vertex ``i`` to
vertex ``i + 1``. Shapes are immutable, so a body can share one shape object many times.
:class:`Polygon` is the one place where an outline is judged convex, for both engines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from physbook import _check
from physbook.constants import WELD_TOLERANCE
from physbook.vecmath.vec import Transform


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.ascontiguousarray(array, dtype=np.float64)
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class MassData:
    """Mass (kg), rotational inertia about the centroid (kg·m²) and centroid (m, local)."""

    mass: float
    inertia: float
    centroid: np.ndarray


@dataclass(frozen=True, eq=False)
class AABB:
    """An axis-aligned bounding box from ``lower`` to ``upper`` corner (m)."""

    lower: np.ndarray
    upper: np.ndarray

    def __init__(self, lower, upper):
        lower = _check.vector(lower, "lower")
        upper = _check.vector(upper, "upper")
        if np.any(lower > upper):
            raise ValueError(f"lower must not exceed upper on either axis: {lower} > {upper}")
        object.__setattr__(self, "lower", _frozen(lower))
        object.__setattr__(self, "upper", _frozen(upper))

    @property
    def center(self) -> np.ndarray:
        return 0.5 * (self.lower + self.upper)

    @property
    def extents(self) -> np.ndarray:
        """Half width and half height."""
        return 0.5 * (self.upper - self.lower)

    @property
    def perimeter(self) -> float:
        width, height = self.upper - self.lower
        return float(2.0 * (width + height))

    def overlaps(self, other: AABB) -> bool:
        """True when the boxes share at least a point (touching counts)."""
        return bool(np.all(self.lower <= other.upper) and np.all(other.lower <= self.upper))

    def contains(self, other: AABB) -> bool:
        """True when ``other`` lies entirely inside this box (boundaries included)."""
        return bool(np.all(self.lower <= other.lower) and np.all(other.upper <= self.upper))

    def contains_point(self, point) -> bool:
        point = _check.vector(point, "point")
        return bool(np.all(self.lower <= point) and np.all(point <= self.upper))

    def union(self, other: AABB) -> AABB:
        """The smallest box holding both."""
        return AABB(np.minimum(self.lower, other.lower), np.maximum(self.upper, other.upper))

    def __repr__(self) -> str:
        return f"AABB(lower={self.lower.tolist()}, upper={self.upper.tolist()})"


def _direction(direction) -> np.ndarray:
    direction = _check.vector(direction, "direction")
    if not np.any(direction):
        raise ValueError("direction must be a non-zero vector")
    return direction


class Circle:
    """A circle of ``radius`` (m) centred at ``center`` in body coordinates."""

    __slots__ = ("radius", "center")

    def __init__(self, radius: float, center=(0.0, 0.0)):
        self.radius = _check.positive_scalar(radius, "radius")
        self.center = _frozen(_check.vector(center, "center"))

    def area(self) -> float:
        return float(np.pi * self.radius**2)

    def mass_properties(self, density: float) -> MassData:
        """m = ρπr², I = m·r²/2 about the centre."""
        density = _check.positive_scalar(density, "density")
        mass = density * self.area()
        return MassData(mass, 0.5 * mass * self.radius**2, self.center.copy())

    def aabb(self, transform: Transform | None = None) -> AABB:
        center = self.center if transform is None else transform.to_world(self.center)
        return AABB(center - self.radius, center + self.radius)

    def support(self, direction) -> np.ndarray:
        """The farthest point in ``direction``: c + r·d/|d| (local frame)."""
        direction = _direction(direction)
        return self.center + self.radius * direction / np.hypot(*direction)

    def __repr__(self) -> str:
        return f"Circle(radius={self.radius:g}, center={self.center.tolist()})"


def _orientation(a, b, c) -> float:
    """Twice the signed area of triangle abc: > 0 when c lies left of a→b."""
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _near_segment(point, a, b, tolerance: float) -> bool:
    """True when ``point`` lies within ``tolerance`` of segment ab."""
    d = b - a
    t = min(max(float((point - a) @ d) / float(d @ d), 0.0), 1.0)
    gap = point - (a + t * d)
    return bool(np.hypot(gap[0], gap[1]) <= tolerance)


def _segments_touch(p1, p2, q1, q2, tolerance: float) -> bool:
    """True when segments p1p2 and q1q2 cross or come within ``tolerance`` of each other.

    Two segments cross properly when each one's end points lie strictly on opposite sides
    of the other's line; otherwise they can only meet where an end point lies on the other
    segment. Testing the second case by distance (not by a zero orientation) keeps
    collinear but disjoint segments, such as two edges along one side of a box, apart.
    """
    d1, d2 = _orientation(q1, q2, p1), _orientation(q1, q2, p2)
    d3, d4 = _orientation(p1, p2, q1), _orientation(p1, p2, q2)
    if d1 * d2 < 0.0 and d3 * d4 < 0.0:
        return True
    return (_near_segment(p1, q1, q2, tolerance) or _near_segment(p2, q1, q2, tolerance)
            or _near_segment(q1, p1, p2, tolerance) or _near_segment(q2, p1, p2, tolerance))


class Polygon:
    """A convex polygon in body coordinates.

    ``vertices`` is an (n, 2) array, counter-clockwise, n ≥ 3; ``normals[i]`` is the outward
    unit normal of the edge from vertex i to vertex i + 1. Clockwise input is reordered and
    collinear middle points are dropped. Input that is non-convex, self-intersecting, of zero
    area, with duplicate points, or not finite raises ``ValueError`` naming the rule.
    """

    __slots__ = ("vertices", "normals")

    def __init__(self, vertices):
        points = _check.finite_array(vertices, "vertices")
        if points.ndim != 2 or points.shape[1] != 2:
            raise ValueError(f"vertices must have shape (n, 2), got {points.shape}")
        count = len(points)
        if count < 3:
            raise ValueError(f"vertices must hold at least 3 points, got {count}")
        size = float(np.max(np.ptp(points, axis=0)))
        weld = WELD_TOLERANCE * max(size, np.finfo(float).tiny)

        gaps = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1))
        i, j = np.nonzero(np.triu(gaps <= weld, k=1))
        if len(i):
            raise ValueError(f"vertices must be distinct: points {i[0]} and {j[0]} coincide")

        # All points on one line: measure each point's distance from the line through
        # point 0 and the point farthest from it.
        far = points[int(np.argmax(gaps[0]))] - points[0]
        offsets = far[0] * (points[:, 1] - points[0, 1]) - far[1] * (points[:, 0] - points[0, 0])
        if np.max(np.abs(offsets)) <= weld * np.hypot(*far):
            raise ValueError("vertices must enclose a non-zero area (all points collinear)")

        for a in range(count):
            for b in range(a + 2, count):
                if a == 0 and b == count - 1:
                    continue  # neighbours through the closing edge
                if _segments_touch(points[a], points[(a + 1) % count], points[b],
                                   points[(b + 1) % count], weld):
                    raise ValueError(
                        f"vertices must not self-intersect: edge {a} crosses edge {b}"
                    )

        nxt = np.roll(points, -1, axis=0)
        twice_area = float(np.sum(points[:, 0] * nxt[:, 1] - nxt[:, 0] * points[:, 1]))
        if abs(twice_area) <= weld * size:
            raise ValueError("vertices must enclose a non-zero area")
        if twice_area < 0.0:
            # Clockwise input: reverse the order, keeping vertex 0 first.
            points = np.roll(points[::-1], 1, axis=0)

        points = self._drop_collinear(points, weld)
        if len(points) < 3:
            raise ValueError("vertices must enclose a non-zero area (all points collinear)")
        edges = np.roll(points, -1, axis=0) - points
        turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(
            edges, -1, axis=0
        )[:, 0]
        if np.any(turns < 0.0):
            bad = (int(np.argmin(turns)) + 1) % len(points)  # turns[i] is the turn at i + 1
            raise ValueError(f"vertices must form a convex polygon: it turns inward at {bad}")

        lengths = np.hypot(edges[:, 0], edges[:, 1])
        self.vertices = _frozen(points)
        # n = (dy, −dx)/|d|: the edge direction turned clockwise, outward for a CCW polygon.
        # Adding 0.0 turns −0.0 into 0.0, so that printed normals read cleanly.
        normals = np.column_stack([edges[:, 1], -edges[:, 0]]) / lengths[:, None] + 0.0
        self.normals = _frozen(normals)

    @staticmethod
    def _drop_collinear(points: np.ndarray, weld: float) -> np.ndarray:
        """Remove vertices whose distance to the line through their neighbours ≤ ``weld``.

        Such a vertex must lie between its neighbours; one beyond them is a spike where the
        outline doubles back on itself, which is rejected rather than silently dropped.
        """
        points = list(points)
        removed = True
        while removed and len(points) >= 3:
            removed = False
            for i in range(len(points)):
                prev, here, nxt = points[i - 1], points[i], points[(i + 1) % len(points)]
                chord = nxt - prev
                chord_length = np.hypot(*chord)
                offset = abs(chord[0] * (here[1] - prev[1]) - chord[1] * (here[0] - prev[0]))
                if offset <= weld * chord_length:
                    if float((here - prev) @ (nxt - here)) <= 0.0:
                        raise ValueError(
                            "vertices must not self-intersect: the outline doubles back on "
                            "itself at a point collinear with its neighbours"
                        )
                    del points[i]
                    removed = True
                    break
        return np.array(points)

    @classmethod
    def box(cls, half_width: float, half_height: float, center=(0.0, 0.0),
            angle: float = 0.0) -> Polygon:
        """A rectangle of half extents (m), centred at ``center`` and turned by ``angle``."""
        half_width = _check.positive_scalar(half_width, "half_width")
        half_height = _check.positive_scalar(half_height, "half_height")
        corners = np.array(
            [[-half_width, -half_height], [half_width, -half_height],
             [half_width, half_height], [-half_width, half_height]]
        )
        return cls(Transform(center, angle).to_world(corners))

    @classmethod
    def regular(cls, n: int, radius: float) -> Polygon:
        """A regular n-gon of circumradius ``radius``; vertex 0 at (radius, 0), then CCW."""
        n = _check.integer(n, "n", 3)
        radius = _check.positive_scalar(radius, "radius")
        angles = 2.0 * np.pi * np.arange(n) / n
        return cls(radius * np.column_stack([np.cos(angles), np.sin(angles)]))

    def area(self) -> float:
        x, y = self.vertices[:, 0], self.vertices[:, 1]
        return float(0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))

    def mass_properties(self, density: float) -> MassData:
        """Mass, inertia about the centroid and centroid, by a fan of triangles.

        The fan is rooted at vertex 0 (not the origin) so that a polygon far from its
        body origin keeps its precision. For a triangle (0, e1, e2) with D = e1 × e2 the area
        is D/2 and the second moment about vertex 0 is D/12 · (e1x² + e1x·e2x + e2x² +
        e1y² + e1y·e2y + e2y²); the parallel axis theorem moves it to the centroid.
        """
        density = _check.positive_scalar(density, "density")
        root = self.vertices[0]
        e1 = self.vertices[1:-1] - root
        e2 = self.vertices[2:] - root
        d = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
        area = 0.5 * np.sum(d)
        centroid_from_root = np.sum((0.5 * d / 3.0)[:, None] * (e1 + e2), axis=0) / area
        second_moment = np.sum(
            d / 12.0
            * (e1[:, 0] ** 2 + e1[:, 0] * e2[:, 0] + e2[:, 0] ** 2
               + e1[:, 1] ** 2 + e1[:, 1] * e2[:, 1] + e2[:, 1] ** 2)
        )
        mass = density * area
        inertia = density * second_moment - mass * float(centroid_from_root @ centroid_from_root)
        return MassData(float(mass), float(inertia), root + centroid_from_root)

    def aabb(self, transform: Transform | None = None) -> AABB:
        points = self.vertices if transform is None else transform.to_world(self.vertices)
        return AABB(points.min(axis=0), points.max(axis=0))

    def support(self, direction) -> np.ndarray:
        """The vertex farthest in ``direction`` (local frame); the lowest index on ties."""
        direction = _direction(direction)
        return self.vertices[int(np.argmax(self.vertices @ direction))].copy()

    def __repr__(self) -> str:
        return f"Polygon({np.round(self.vertices, 6).tolist()})"


Shape = Circle | Polygon
