"""Chapter 1: 2D vectors, rotations, transforms, lines and halfspaces.

Every function accepts one vector, shape (2,), or a batch, shape (N, 2), and returns the
matching shape: a scalar or (N,) for scalar results, (2,) or (N, 2) for vector results.
Angles are in radians, counter-clockwise positive; y points up. Inputs must be finite
(checked). A result beyond the float range (about ±1.8e308) raises ``FloatingPointError``
naming what overflowed instead of returning inf or NaN; products such as :func:`dot` reach
it for coordinates of about 1e154, far beyond any scene.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from physbook import _check
from physbook.constants import ZERO_LENGTH

__all__ = [
    "dot", "cross", "cross_scalar_vector", "cross_vector_scalar", "perp", "length",
    "normalize", "rotation_matrix", "rotate", "Transform", "Line", "closest_point_on_segment",
]


def _finite(result, what: str):
    """Return ``result``; raise ``FloatingPointError`` if computing it overflowed.

    Every input is finite, so an inf or NaN here can only come from a result beyond the
    float range; ``what`` names the quantity in the message.
    """
    if not np.all(np.isfinite(result)):
        raise FloatingPointError(f"{what} overflowed the float range (±1.8e308)")
    return result


def _pair(a, b, names: tuple[str, str] = ("a", "b")) -> tuple[np.ndarray, np.ndarray]:
    """Check two vector arguments: each (2,) or (N, 2), and batches of the same length."""
    a = _check.points(a, names[0])
    b = _check.points(b, names[1])
    if a.ndim == 2 and b.ndim == 2 and a.shape != b.shape:
        raise ValueError(
            f"{names[0]} and {names[1]} must be batches of the same length (or one a single "
            f"vector), got shapes {a.shape} and {b.shape}"
        )
    return a, b


def _scalars(s, v: np.ndarray, name: str = "s") -> np.ndarray:
    """Check a scalar, or an (N,) array of them to pair with an (N, 2) batch ``v``."""
    s = _check.finite_array(s, name)
    if s.ndim > 1 or (s.ndim == 1 and v.ndim == 2 and s.shape[0] != v.shape[0]):
        raise ValueError(
            f"{name} must be a scalar or one value per vector, got shape {s.shape} "
            f"for vectors of shape {v.shape}"
        )
    return s


def dot(a, b) -> np.ndarray | float:
    """Dot product a·b = ax·bx + ay·by = |a|·|b|·cos θ (θ the angle between them)."""
    a, b = _pair(a, b)
    return _finite(a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1], "dot(a, b): a·b")


def cross(a, b) -> np.ndarray | float:
    """2D cross product of two vectors, a scalar: a × b = ax·by − ay·bx.

    It is the z component of the 3D cross product of (ax, ay, 0) and (bx, by, 0): positive
    when b lies counter-clockwise of a, and |a × b| is the area of their parallelogram.
    """
    a, b = _pair(a, b)
    return _finite(a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0], "cross(a, b): a × b")


def cross_scalar_vector(s, v) -> np.ndarray:
    """Cross product of a scalar (a z-axis vector) with a vector: s × v = (−s·vy, s·vx).

    This is how an angular velocity ω turns an arm r into the velocity ω × r of a point.
    ``s`` is a scalar, or an (N,) array: one value per vector of an (N, 2) batch ``v``, or
    N values applied to a single vector ``v``.
    """
    v = _check.points(v, "v")
    s = _scalars(s, v)
    product = np.stack([-s * v[..., 1], s * v[..., 0]], axis=-1)
    return _finite(product, "cross_scalar_vector(s, v): s × v")


def cross_vector_scalar(v, s) -> np.ndarray:
    """Cross product of a vector with a scalar (a z-axis vector): v × s = (s·vy, −s·vx).

    It equals −(s × v): swapping the factors of a cross product flips its sign.
    """
    v = _check.points(v, "v")
    s = _scalars(s, v)
    product = np.stack([s * v[..., 1], -s * v[..., 0]], axis=-1)
    return _finite(product, "cross_vector_scalar(v, s): v × s")


def perp(v) -> np.ndarray:
    """The vector turned 90° counter-clockwise: perp(x, y) = (−y, x)."""
    v = _check.points(v, "v")
    return np.stack([-v[..., 1], v[..., 0]], axis=-1)


def length(v) -> np.ndarray | float:
    """Euclidean length |v|, computed with ``hypot`` so that it does not overflow.

    Only a length itself beyond the float range, of a vector such as (1.5e308, 1.5e308),
    raises ``FloatingPointError``.
    """
    v = _check.points(v, "v")
    return _finite(np.hypot(v[..., 0], v[..., 1]), "length(v): |v|")


def normalize(v, fallback=None) -> np.ndarray:
    """Unit vector v / |v|.

    A zero vector has no direction. By default it raises ``ValueError``; pass ``fallback``
    (a (2,) vector) to get that vector instead for every row shorter than
    :data:`~physbook.constants.ZERO_LENGTH`. This makes the caller decide, as every engine
    must, what direction coincident points get.
    """
    v = _check.points(v, "v")
    if fallback is not None:
        fallback = _check.vector(fallback, "fallback")
    # Divide by the larger component first: the scaled vector has length in [1, √2], so
    # neither huge vectors (|v| > 1e308 overflows hypot) nor tiny ones lose their direction.
    largest = np.max(np.abs(v), axis=-1, keepdims=True)
    scaled = v / np.where(largest > 0.0, largest, 1.0)
    size = np.hypot(scaled[..., 0], scaled[..., 1])[..., None]
    safe_size = np.where(size > 0.0, size, 1.0)
    # |v| = largest · size < ZERO_LENGTH, written so that it cannot overflow.
    short = (largest < ZERO_LENGTH / safe_size)[..., 0]
    if np.any(short) and fallback is None:
        raise ValueError("v must have non-zero length to be normalized (or pass fallback=)")
    unit = scaled / safe_size
    if np.any(short):
        unit = np.where(short[..., None], fallback, unit)
    return unit


def rotation_matrix(angle) -> np.ndarray:
    """The 2×2 matrix [[cos, −sin], [sin, cos]] that turns vectors by ``angle`` radians."""
    angle = _check.finite_scalar(angle, "angle")
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


def rotate(v, angle) -> np.ndarray:
    """Turn vectors counter-clockwise by ``angle`` radians: (c·x − s·y, s·x + c·y)."""
    v = _check.points(v, "v")
    return _finite(v @ rotation_matrix(angle).T, "rotate(v, angle): the turned vector")


@dataclass(frozen=True, eq=False)
class Transform:
    """A rigid pose: rotate by ``angle`` (rad) about the origin, then move by ``position`` (m).

    ``to_world(p) = R·p + position`` maps body-local points to world space and
    ``to_local`` is its inverse, ``Rᵀ·(p − position)``. ``rotation`` holds R, the
    (read-only) :func:`rotation_matrix` of ``angle``.
    """

    position: np.ndarray
    angle: float

    # Make numpy decline ``transform @ array`` too, so that it raises a plain TypeError
    # instead of numpy treating the transform as an object array: map points with to_world.
    __array_ufunc__ = None

    def __init__(self, position=(0.0, 0.0), angle: float = 0.0):
        position = _check.vector(position, "position")
        position.setflags(write=False)
        object.__setattr__(self, "position", position)
        object.__setattr__(self, "angle", _check.finite_scalar(angle, "angle"))
        rotation = rotation_matrix(self.angle)
        rotation.setflags(write=False)
        object.__setattr__(self, "rotation", rotation)

    def to_world(self, points) -> np.ndarray:
        """Map local points, (2,) or (N, 2), to world space."""
        points = _check.points(points, "points")
        return _finite(points @ self.rotation.T + self.position,
                       "Transform.to_world(points): R·points + position")

    def to_local(self, points) -> np.ndarray:
        """Map world points, (2,) or (N, 2), to this frame."""
        points = _check.points(points, "points")
        return _finite((points - self.position) @ self.rotation,
                       "Transform.to_local(points): Rᵀ·(points − position)")

    def rotate_to_world(self, vectors) -> np.ndarray:
        """Turn local directions into world directions (no translation)."""
        vectors = _check.points(vectors, "vectors")
        return _finite(vectors @ self.rotation.T, "Transform.rotate_to_world(vectors): R·vectors")

    def rotate_to_local(self, vectors) -> np.ndarray:
        """Turn world directions into local directions (no translation)."""
        vectors = _check.points(vectors, "vectors")
        return _finite(vectors @ self.rotation, "Transform.rotate_to_local(vectors): Rᵀ·vectors")

    def inverse(self) -> Transform:
        """The transform whose ``to_world`` is this one's ``to_local``."""
        position = _finite(-(self.position @ self.rotation),
                           "Transform.inverse(): the inverse position −Rᵀ·position")
        return Transform(position, -self.angle)

    def __matmul__(self, other: Transform) -> Transform:
        """Compose: ``(a @ b).to_world(p) == a.to_world(b.to_world(p))``."""
        if not isinstance(other, Transform):
            return NotImplemented
        position = _finite(other.position @ self.rotation.T + self.position,
                           "Transform @ Transform: the composed position")
        angle = _finite(self.angle + other.angle, "Transform @ Transform: the composed angle")
        return Transform(position, angle)

    def __repr__(self) -> str:
        x, y = self.position
        return f"Transform(position=({x:g}, {y:g}), angle={self.angle:g})"


@dataclass(frozen=True, eq=False)
class Line:
    """The line n·p = offset, with ``normal`` n a unit vector.

    The line splits the plane in two halfspaces: n·p − offset > 0 is the front side (where
    the normal points), < 0 the back. For a counter-clockwise polygon the line through the
    edge from vertex i to i+1, made by :meth:`through`, has its normal pointing outward.
    """

    normal: np.ndarray
    offset: float

    def __init__(self, normal, offset: float):
        normal = _check.vector(normal, "normal")
        offset = _check.finite_scalar(offset, "offset")
        with np.errstate(over="ignore"):
            size = float(np.hypot(*normal))
        if size == math.inf:  # |normal| beyond the float range: halving both keeps the line
            normal, offset = 0.5 * normal, 0.5 * offset
            size = float(np.hypot(*normal))
        if size < ZERO_LENGTH:
            raise ValueError(f"normal must be a non-zero vector, got {normal}")
        normal = normal / size
        normal.setflags(write=False)
        object.__setattr__(self, "normal", normal)
        object.__setattr__(self, "offset", _finite(
            offset / size, "Line(normal, offset): the distance offset / |normal|"))

    @classmethod
    def through(cls, a, b) -> Line:
        """The line through a and b, its normal on the right of a→b: n = (dy, −dx)/|d|."""
        a = _check.vector(a, "a")
        b = _check.vector(b, "b")
        with np.errstate(over="ignore"):
            d = b - a
            size = np.hypot(*d)
        if size == math.inf:  # points far apart: half the difference has the same direction
            d = 0.5 * b - 0.5 * a
            size = np.hypot(*d)
        if size < ZERO_LENGTH:
            raise ValueError("a and b must be distinct points to define a line")
        normal = np.array([d[1], -d[0]]) / size
        offset = _finite(float(normal @ a), "Line.through(a, b): the distance n·a of the line")
        return cls(normal, offset)

    def signed_distance(self, points) -> np.ndarray | float:
        """Signed distance n·p − offset: positive in front, negative behind (m)."""
        points = _check.points(points, "points")
        return _finite(points @ self.normal - self.offset,
                       "Line.signed_distance(points): n·points − offset")

    def side(self, points, tolerance: float = 0.0) -> np.ndarray | int:
        """+1 in front, −1 behind, 0 within ``tolerance`` of the line."""
        tolerance = _check.non_negative_scalar(tolerance, "tolerance")
        distance = np.asarray(self.signed_distance(points))
        result = np.where(distance > tolerance, 1, np.where(distance < -tolerance, -1, 0))
        return int(result) if result.ndim == 0 else result

    def project(self, points) -> np.ndarray:
        """The closest points on the line: p − (n·p − offset)·n."""
        points = _check.points(points, "points")
        projected = points - np.multiply.outer(self.signed_distance(points), self.normal)
        return _finite(projected, "Line.project(points): the projected points")


def closest_point_on_segment(points, a, b) -> np.ndarray:
    """The point of segment ab closest to each point.

    With d = b − a, the parameter t = (p − a)·d / (d·d) is clamped to [0, 1] and the closest
    point is a + t·d = (1 − t)·a + t·b. A zero-length segment returns a.
    """
    points = _check.points(points, "points")
    a = _check.vector(a, "a")
    b = _check.vector(b, "b")
    # Every intermediate stays in the float range, however long the segment: halves of the
    # differences, d divided by its larger component (so d·d is in [1, 2], where the plain
    # d·d overflows beyond about 1e154), and a weighted mean of a and b for the result.
    half_d = 0.5 * b - 0.5 * a
    scale = float(np.max(np.abs(half_d)))
    if scale == 0.0:
        return np.broadcast_to(a, points.shape).copy()
    u = half_d / scale
    with np.errstate(over="ignore"):  # a t beyond the float range is clamped all the same
        t = np.clip((0.5 * points - 0.5 * a) @ u / scale / (u @ u), 0.0, 1.0)
    return np.multiply.outer(1.0 - t, a) + np.multiply.outer(t, b)
