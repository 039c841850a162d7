"""Chapter 13: when two moving shapes first touch within a step — the time of impact.

A body's motion over a step is a :class:`Sweep`: its centre of mass goes from ``c0`` to
``c1`` and its angle from ``a0`` to ``a1``, both linearly in the fraction t ∈ [0, 1] of the
step (Box2D's b2Sweep). The shape is carried by the body, so at fraction t a point p of the
body (body coordinates) is at c(t) + R(a(t))·(p − local_center).

:func:`time_of_impact` finds the first t at which the shapes come within ``target`` of each
other by *conservative advancement*: at the current t the GJK distance d is known, and no
point of either shape moves faster, relative to the other, than

    bound = |Δc_B − Δc_A| + |Δa_A|·r_A + |Δa_B|·r_B   (per unit of t),

with r the farthest point of each shape from its body's centre of mass. So the shapes cannot
come closer than ``target`` before t + (d − target)/bound, and t may jump there safely. Each
jump is safe, none overshoots, and near contact d shrinks geometrically; the iterations are
capped, and a pair that has not converged by then is finished by bisection on "apart by more
than ``target``", which needs only that sign.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.collision.gjk import distance
from physbook.constants import TOI_MAX_ITERATIONS, TOI_TOLERANCE_FRACTION
from physbook.geometry.shapes import Circle, Polygon
from physbook.vecmath.vec import Transform

#: What :func:`time_of_impact` found.
HIT, SEPARATED, OVERLAPPED, FAILED = "hit", "separated", "overlapped", "failed"


class Sweep(NamedTuple):
    """A body's motion over a step: centre of mass from ``c0`` to ``c1`` (m), angle from
    ``a0`` to ``a1`` (rad), and the centre of mass in body coordinates ``local_center``."""

    c0: np.ndarray
    c1: np.ndarray
    a0: float
    a1: float
    local_center: np.ndarray

    def transform(self, t: float) -> Transform:
        """The body's pose at fraction ``t`` of the step: origin and angle."""
        angle = (1.0 - t) * self.a0 + t * self.a1
        center = (1.0 - t) * self.c0 + t * self.c1
        cosine, sine = math.cos(angle), math.sin(angle)
        x, y = self.local_center
        return Transform(center - np.array([cosine * x - sine * y, sine * x + cosine * y]),
                         angle)


def sweep(c0, c1, a0: float = 0.0, a1: float = 0.0, local_center=(0.0, 0.0)) -> Sweep:
    """A checked :class:`Sweep`."""
    return Sweep(_check.vector(c0, "c0"), _check.vector(c1, "c1"),
                 _check.finite_scalar(a0, "a0"), _check.finite_scalar(a1, "a1"),
                 _check.vector(local_center, "local_center"))


class ToiResult(NamedTuple):
    """``state`` (:data:`HIT`, :data:`SEPARATED`, :data:`OVERLAPPED` or :data:`FAILED`),
    ``fraction`` t of the step (the time of impact for a hit, ``t_max`` when separated,
    0 when overlapped at the start), and the ``iterations`` taken."""

    state: str
    fraction: float
    iterations: int


def _reach(shape, local_center: np.ndarray) -> float:
    """The farthest any point of ``shape`` lies from the centre of mass (m)."""
    if isinstance(shape, Circle):
        return float(np.hypot(*(shape.center - local_center))) + shape.radius
    return float(np.max(np.hypot(*(shape.vertices - local_center).T)))


def _checked_sweep(value, name: str) -> Sweep:
    _check.instance(value, name, Sweep, "a Sweep (physbook.collision.toi.sweep(...))")
    for field in ("c0", "c1", "local_center"):
        vector = np.asarray(getattr(value, field), dtype=float) if not isinstance(
            getattr(value, field), str) else None
        if vector is None or vector.shape != (2,) or not np.all(np.isfinite(vector)):
            raise ValueError(f"{name}.{field} must be a finite 2-vector")
    for field in ("a0", "a1"):
        angle = getattr(value, field)
        if not isinstance(angle, (int, float, np.floating, np.integer)) or isinstance(
                angle, bool) or not math.isfinite(angle):
            raise ValueError(f"{name}.{field} must be a finite number of radians")
    return Sweep(np.asarray(value.c0, float), np.asarray(value.c1, float), float(value.a0),
                 float(value.a1), np.asarray(value.local_center, float))


def time_of_impact(shape_a, sweep_a: Sweep, shape_b, sweep_b: Sweep, t_max: float = 1.0,
                   target: float = 0.0, tolerance: float | None = None) -> ToiResult:
    """The first fraction t ≤ ``t_max`` of the step at which the shapes come within
    ``target`` (m) of each other, by conservative advancement (see the module docstring).

    A hit is reported once the distance is within ``tolerance`` above ``target`` (by
    default a millionth of the shapes' size, :data:`~physbook.constants.TOI_TOLERANCE_FRACTION`):
    the time found is then at most tolerance/approach-speed early, and never late.
    """
    for name, shape in (("shape_a", shape_a), ("shape_b", shape_b)):
        _check.instance(shape, name, (Circle, Polygon), "a Circle or a Polygon")
    sweep_a = _checked_sweep(sweep_a, "sweep_a")
    sweep_b = _checked_sweep(sweep_b, "sweep_b")
    t_max = _check.positive_scalar(t_max, "t_max")
    if t_max > 1.0:
        raise ValueError(f"t_max must be at most 1 (a fraction of the step), got {t_max}")
    target = _check.non_negative_scalar(target, "target")
    reach_a = _reach(shape_a, sweep_a.local_center)
    reach_b = _reach(shape_b, sweep_b.local_center)
    if tolerance is None:
        tolerance = TOI_TOLERANCE_FRACTION * max(reach_a, reach_b)
    tolerance = _check.positive_scalar(tolerance, "tolerance")
    # The bound on the approach speed, per unit of t.
    bound = (float(np.hypot(*((sweep_b.c1 - sweep_b.c0) - (sweep_a.c1 - sweep_a.c0))))
             + abs(sweep_a.a1 - sweep_a.a0) * reach_a + abs(sweep_b.a1 - sweep_b.a0) * reach_b)

    def gap(t: float) -> float:
        return distance(shape_a, sweep_a.transform(t), shape_b, sweep_b.transform(t)).distance

    t = 0.0
    d = gap(t)
    if d <= target:
        return ToiResult(OVERLAPPED if d == 0.0 else HIT, 0.0, 0)
    for iteration in range(1, TOI_MAX_ITERATIONS + 1):
        if d <= target + tolerance:
            return ToiResult(HIT, t, iteration - 1)
        # No point comes closer by more than bound·Δt: no contact before t_next.
        t_next = t + (d - target) / bound if bound > 0.0 else math.inf
        if t_next >= t_max:
            return ToiResult(SEPARATED, t_max, iteration)
        t = t_next
        d = gap(t)
        if d <= target:  # only rounding can bring it here: the jump was safe
            return ToiResult(HIT, t, iteration)
    # Not converged (a grazing approach creeps): look for a sample of the rest of the step
    # within reach of the target, then bisect between the last safe t and it.
    low = t
    for high in np.linspace(t, t_max, TOI_MAX_ITERATIONS + 1)[1:]:
        if gap(high) <= target + tolerance:
            break
        low = high
    else:
        # Apart at every sample: a contact, if any, is shorter than a sample. The last
        # safe fraction is still safe.
        return ToiResult(FAILED, t, 2 * TOI_MAX_ITERATIONS)
    halvings = 0
    while (high - low) * bound > tolerance and halvings < TOI_MAX_ITERATIONS:
        middle = 0.5 * (low + high)
        if gap(middle) > target + tolerance:
            low = middle
        else:
            high = middle
        halvings += 1
    return ToiResult(HIT, low, 2 * TOI_MAX_ITERATIONS + halvings)
