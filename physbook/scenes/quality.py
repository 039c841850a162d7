"""Quality measures of the scenes: pure functions of recorded positions and velocities.

They take numbers, not worlds, so that the benchmark judges physbook and other engines
(pymunk, Box2D) with the same code.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check

#: The most bounces :func:`bounce_apexes` predicts: with e ≤ 0.99 the apex is the radius
#: itself, to double precision, long before.
MAX_BOUNCES = 100_000


def _series(value, name: str, columns: int | None = None) -> np.ndarray:
    """A finite array of one row per body (or sample): shape (N,), or (N, columns)."""
    array = _check.finite_array(value, name)
    shape = "(N,)" if columns is None else f"(N, {columns})"
    if array.ndim != (1 if columns is None else 2) or (columns and array.shape[1] != columns):
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
    return array


def _same_length(arrays: dict[str, np.ndarray]) -> int:
    """The common, non-zero length of the named arrays."""
    lengths = {name: len(array) for name, array in arrays.items()}
    if len(set(lengths.values())) != 1 or 0 in lengths.values():
        raise ValueError(f"{', '.join(lengths)} must hold the same bodies, at least one, got "
                         f"lengths {list(lengths.values())}")
    return next(iter(lengths.values()))


def _index(value, name: str, count: int) -> int:
    """An index into ``count`` bodies, negative ones counting from the end."""
    return _check.integer(value, name, -count, count - 1)


def bounce_apexes(height: float, radius: float, restitution: float, count: int = 4):
    """Analytic apex heights of the centre after bounce 1..count: r + (h0 − r)·e^(2n) (m).

    ``height`` is the centre's release height h0 (m, at least the radius r: the ball starts
    on or above the floor) and ``restitution`` e is in [0, 1].
    """
    height = _check.finite_scalar(height, "height")
    radius = _check.positive_scalar(radius, "radius")
    restitution = _check.non_negative_scalar(restitution, "restitution")
    if restitution > 1.0:
        raise ValueError(f"restitution must be in [0, 1] (no bounce adds energy), got "
                         f"{restitution}")
    if height < radius:
        raise ValueError(f"height must be at least the radius (the ball starts on or above "
                         f"the floor), got {height} < {radius}")
    n = np.arange(1, _check.positive_int(count, "count", MAX_BOUNCES) + 1)
    return radius + (height - radius) * restitution ** (2 * n)


def apex_heights(heights, count: int = 4) -> np.ndarray:
    """The first ``count`` apexes of a bouncing height series (m), after its first fall.

    An apex is a sample higher than the one before it and not lower than the one after;
    the start (a release from rest) is not one. Fewer are returned if the series has fewer.
    """
    heights = _series(heights, "heights")
    count = _check.positive_int(count, "count")
    inner = heights[1:-1]
    peaks = np.nonzero((inner > heights[:-2]) & (inner >= heights[2:]))[0] + 1
    return heights[peaks[:count]]


def ramp_motion(distances, dt: float, slide_threshold: float = 0.1):
    """Which ramp boxes slide, and their acceleration down the slope.

    Parameters
    ----------
    distances
        (F, B) each box's position along the slope over F frames (m, up positive).
    dt
        Time between frames (s).
    slide_threshold
        A box slides if it moved farther than this down the slope (m).

    Returns
    -------
    slides : (B,) bool
    accelerations : (B,) m/s², from a least-squares fit s(t) = s0 + v0·t − a·t²/2 over
        the frames (positive down the slope).
    """
    distances = _check.finite_array(distances, "distances")
    if distances.ndim != 2 or len(distances) < 3:
        raise ValueError(f"distances must have shape (F, B) with F >= 3 frames to fit a "
                         f"parabola, got shape {distances.shape}")
    dt = _check.positive_scalar(dt, "dt")
    slide_threshold = _check.non_negative_scalar(slide_threshold, "slide_threshold")
    with np.errstate(over="ignore"):  # an overflow is reported below
        moved = distances[0] - distances.min(axis=0)
    _finite_result(moved, "distance moved")
    # The fit runs in frames k = t/dt, where every number is of the size of the data
    # whatever dt is; the acceleration per frame² is divided by dt² after.
    frames = np.arange(len(distances), dtype=float)
    design = np.column_stack([np.ones_like(frames), frames, -0.5 * frames**2])
    coefficients, *_ = np.linalg.lstsq(design, distances, rcond=None)
    with np.errstate(over="ignore"):
        accelerations = coefficients[2] / dt / dt
    _finite_result(accelerations, "acceleration (fitted per frame², divided by dt²)")
    return moved > slide_threshold, accelerations


def ramp_accelerations(angle: float, frictions, gravity: float = 10.0) -> np.ndarray:
    """g·(sin θ − μ cos θ) where the box slides (μ < tan θ), else 0 (m/s²).

    ``angle`` is the slope (rad), ``frictions`` the pair coefficients μ, ``gravity`` g (m/s²).
    """
    angle = _check.finite_scalar(angle, "angle")
    if not 0.0 <= angle < 0.5 * math.pi:
        raise ValueError(f"angle must be in [0, π/2), got {angle}")
    frictions = _check.finite_array(frictions, "frictions")
    if np.any(frictions < 0.0):
        raise ValueError("frictions must be non-negative")
    gravity = _check.positive_scalar(gravity, "gravity")
    slide = gravity * (math.sin(angle) - frictions * math.cos(angle))
    return np.where(frictions < math.tan(angle), slide, 0.0)




def _finite_result(values, what: str) -> None:
    """Raise FloatingPointError if a measure of finite states overflowed: states that far
    apart (1e308 m) are a simulation gone wrong, not a measure to report."""
    if not np.all(np.isfinite(values)):
        raise FloatingPointError(f"the {what} overflows the float range (±1.8e308)")


def _wrap_quarter_turn(angles: np.ndarray) -> np.ndarray:
    # A square looks the same after a quarter turn: tilt is the distance to the nearest one.
    return (angles + 0.25 * np.pi) % (0.5 * np.pi) - 0.25 * np.pi


def pyramid_quality(start_centers, end_centers, end_angles, top: int = -1) -> dict:
    """Displacements of the pyramid's boxes between two states (boxes only, in order).

    Returns ``top_displacement`` (m, of box ``top``, the last by default),
    ``largest_displacement``, ``largest_slide`` (|Δx|, m), ``largest_tilt`` (rad, modulo a
    quarter turn) and ``standing``: no box slid over 0.5 m or tilted over 0.2 rad.
    """
    start = _series(start_centers, "start_centers", 2)
    end = _series(end_centers, "end_centers", 2)
    angles = _series(end_angles, "end_angles")
    count = _same_length({"start_centers": start, "end_centers": end, "end_angles": angles})
    top = _index(top, "top", count)
    with np.errstate(over="ignore"):  # a displacement beyond 1.8e308 m is reported below
        displacement = np.hypot(*(end - start).T)
    _finite_result(displacement, "displacement")
    slide = np.abs(end[:, 0] - start[:, 0])
    tilt = np.abs(_wrap_quarter_turn(angles))
    return {
        "top_displacement": float(displacement[top]),
        "largest_displacement": float(displacement.max()),
        "largest_slide": float(slide.max()),
        "largest_tilt": float(tilt.max()),
        "standing": bool(slide.max() <= 0.5 and tilt.max() <= 0.2),
    }


def container_quality(centers, radius: float, half_width: float = 20.0) -> dict:
    """How well a container held its circles: ``escaped`` (centres outside the inner box
    |x| ≤ half_width, y ≥ 0), ``deepest_penetration`` into the floor (m, 0 if none) and
    ``pile_height`` (top of the highest circle inside, m)."""
    centers = _series(centers, "centers", 2)
    radius = _check.positive_scalar(radius, "radius")
    half_width = _check.positive_scalar(half_width, "half_width")
    inside = (np.abs(centers[:, 0]) <= half_width) & (centers[:, 1] >= 0.0)
    held = centers[inside]
    deepest = float(max(0.0, radius - held[:, 1].min())) if len(held) else 0.0
    pile = float(held[:, 1].max() + radius) if len(held) else 0.0
    _finite_result(pile, "pile height")
    return {"escaped": int(np.count_nonzero(~inside)), "deepest_penetration": deepest,
            "pile_height": pile}


def structure_quality(start_centers, end_centers, start_angles, end_angles, *, top: int = -1,
                      max_displacement: float = 0.5, max_turn: float = 0.2) -> dict:
    """How far the pieces of a structure (a stack, a card house, an arch) moved.

    Returns ``top_displacement`` (m, of piece ``top``), ``top_drop`` (m, how far it sank),
    ``largest_displacement`` (m), ``largest_turn`` (rad, the largest change of angle) and
    ``standing``: no piece moved more than ``max_displacement`` or turned more than
    ``max_turn``.
    """
    start = _series(start_centers, "start_centers", 2)
    end = _series(end_centers, "end_centers", 2)
    start_angles = _series(start_angles, "start_angles")
    end_angles = _series(end_angles, "end_angles")
    count = _same_length({"start_centers": start, "end_centers": end,
                          "start_angles": start_angles, "end_angles": end_angles})
    top = _index(top, "top", count)
    max_displacement = _check.positive_scalar(max_displacement, "max_displacement")
    max_turn = _check.positive_scalar(max_turn, "max_turn")
    with np.errstate(over="ignore"):  # a change beyond 1.8e308 is reported below
        displacement = np.hypot(*(end - start).T)
        turns = end_angles - start_angles
    _finite_result(displacement, "displacement")
    _finite_result(turns, "change of angle")
    turn = np.abs((turns + np.pi) % (2.0 * np.pi) - np.pi)
    return {
        "top_displacement": float(displacement[top]),
        "top_drop": float(start[top, 1] - end[top, 1]),
        "largest_displacement": float(displacement.max()),
        "largest_turn": float(turn.max()),
        "standing": bool(displacement.max() <= max_displacement and turn.max() <= max_turn),
    }


def recovery_quality(deepest, fastest, dt: float, tolerance: float = 0.01) -> dict:
    """How a scene that starts overlapping came apart, from a run recorded step by step.

    ``deepest`` (F,) is the deepest contact of each step (m) and ``fastest`` (F,) the speed
    of the fastest body (m/s). Returns ``separated_after`` (s, the first time no contact is
    deeper than ``tolerance``, or None if that never happens) and ``fastest`` (m/s, over
    the whole run).
    """
    deepest = _check.finite_array(deepest, "deepest")
    fastest = _check.finite_array(fastest, "fastest")
    if deepest.shape != fastest.shape or deepest.ndim != 1 or len(deepest) == 0:
        raise ValueError(f"deepest and fastest must be equal (F,) series, got shapes "
                         f"{deepest.shape} and {fastest.shape}")
    dt = _check.positive_scalar(dt, "dt")
    tolerance = _check.non_negative_scalar(tolerance, "tolerance")
    apart = np.flatnonzero(deepest <= tolerance)
    separated_after = None
    if len(apart):
        separated_after = float(int(apart[0] + 1) * dt)
        _finite_result(separated_after, "time (steps × dt)")
    return {"separated_after": separated_after, "fastest": float(fastest.max())}


def _polygons(value, name: str) -> np.ndarray:
    """A finite array of polygons' vertices: shape (N, K, 2) with K ≥ 3 (or (K, 2))."""
    array = _check.finite_array(value, name)
    if array.ndim == 2:
        array = array[None]
    if array.ndim != 3 or array.shape[1] < 3 or array.shape[2] != 2:
        raise ValueError(f"{name} must have shape (N, K, 2) or (K, 2) with K >= 3 vertices, "
                         f"got {array.shape}")
    return array


def _unit_normals(polygons: np.ndarray, name: str) -> np.ndarray:
    """The outward unit normals of the edges of counter-clockwise ``polygons`` (N, K, 2)."""
    edges = np.roll(polygons, -1, axis=1) - polygons
    with np.errstate(over="ignore", invalid="ignore"):
        lengths = np.hypot(edges[..., 0], edges[..., 1])
        if np.any(lengths == 0.0):
            raise ValueError(f"{name} must have no repeated vertices (an edge of length 0)")
        normals = np.stack([edges[..., 1], -edges[..., 0]], axis=-1) / lengths[..., None]
    return normals


def polygon_depths(polygons, polygon) -> np.ndarray:
    """How deep each of N convex polygons overlaps one convex polygon (m; 0 where apart).

    ``polygons`` (N, K, 2) and ``polygon`` (L, 2) are vertices in world coordinates,
    counter-clockwise. The depth is the shortest move that separates the pair, the
    smallest over the edge normals n of both polygons of min(max_A·n − min_B·n,
    max_B·n − min_A·n): for two convex polygons one of their edge normals is the
    direction of that move (the separating axis theorem), so the result is exact. A pair
    with a normal along which it does not overlap is apart (0).
    """
    polygons = _polygons(polygons, "polygons")
    single = _polygons(polygon, "polygon")
    if len(single) != 1:
        raise ValueError(f"polygon must be one polygon, shape (L, 2), got {single.shape}")
    normals = np.concatenate(
        [_unit_normals(polygons, "polygons"),
         np.broadcast_to(_unit_normals(single, "polygon"),
                         (len(polygons), single.shape[1], 2))], axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        a = np.einsum("nkd,nad->nak", polygons, normals)         # (N, axes, K)
        b = np.einsum("ld,nad->nal", single[0], normals)          # (N, axes, L)
        moves = np.minimum(a.max(axis=2) - b.min(axis=2), b.max(axis=2) - a.min(axis=2))
        depths = np.maximum(moves.min(axis=1), 0.0)
    _finite_result(depths, "depth of polygons into polygon")
    return depths


def placed(vertices, origins, angles) -> np.ndarray:
    """Body-coordinate ``vertices`` (K, 2) placed at each body's pose: (N, K, 2) world
    vertices for ``origins`` (N, 2) (m) and ``angles`` (N,) (rad)."""
    vertices = _polygons(vertices, "vertices")
    if len(vertices) != 1:
        raise ValueError(f"vertices must be one polygon, shape (K, 2), got {vertices.shape}")
    origins = _series(origins, "origins", 2)
    angles = _series(angles, "angles")
    _same_length({"origins": origins, "angles": angles})
    cos, sin = np.cos(angles)[:, None], np.sin(angles)[:, None]
    x, y = vertices[0, :, 0][None], vertices[0, :, 1][None]
    with np.errstate(over="ignore", invalid="ignore"):
        world = np.stack([origins[:, :1] + cos * x - sin * y,
                          origins[:, 1:] + sin * x + cos * y], axis=-1)
    _finite_result(world, "vertices placed at the origins and angles")
    return world


def deepest_sink(box_origins, box_angles, half_extent: float, heavy_polygons) -> float:
    """The deepest any of N square boxes of ``half_extent`` (m), at ``box_origins`` (N, 2)
    and ``box_angles`` (N,), sinks into any of ``heavy_polygons`` (world vertices, a list
    of (L, 2) arrays): the largest :func:`polygon_depths` (m)."""
    box_origins = _series(box_origins, "box_origins", 2)
    box_angles = _series(box_angles, "box_angles")
    _same_length({"box_origins": box_origins, "box_angles": box_angles})
    half_extent = _check.positive_scalar(half_extent, "half_extent")
    if not isinstance(heavy_polygons, (list, tuple)):
        raise TypeError(f"heavy_polygons must be a list of (L, 2) vertex arrays, got "
                        f"{type(heavy_polygons).__name__}")
    heavy = [_polygons(polygon, f"heavy_polygons[{i}]")
             for i, polygon in enumerate(heavy_polygons)]
    if any(len(polygon) != 1 for polygon in heavy):
        raise ValueError("heavy_polygons must hold single polygons, each of shape (L, 2)")
    corners = np.array([[-half_extent, -half_extent], [half_extent, -half_extent],
                        [half_extent, half_extent], [-half_extent, half_extent]])
    try:
        boxes = placed(corners, box_origins, box_angles)
    except FloatingPointError:
        raise FloatingPointError("the corners of boxes of half_extent at box_origins and "
                                 "box_angles overflow the float range") from None
    if np.any(np.all(np.roll(boxes, -1, axis=1) == boxes, axis=2)):
        raise ValueError(f"half_extent = {half_extent:g} m is too small for boxes at "
                         f"box_origins: their corners coincide in floating point")
    try:
        depths = [polygon_depths(boxes, polygon[0]).max() for polygon in heavy]
    except FloatingPointError:
        raise FloatingPointError("the depth of boxes (half_extent, box_origins, box_angles) "
                                 "into heavy_polygons overflows the float range") from None
    except ValueError as error:  # only a heavy polygon can be malformed by now
        raise ValueError(f"heavy_polygons: {error}") from None
    return float(max(depths, default=0.0))


def sink_quality(deepest, dt: float, heavy_speeds=None, *, rest_speed: float = 0.01,
                 settle: float = 1.0) -> dict:
    """How deep light bodies sank into heavy ones over a run, from the deepest sink of
    each frame, ``deepest`` (F,) (m, :func:`deepest_sink`), ``dt`` (s) apart.

    Returns ``median`` and ``largest`` (m, over the frames) and ``final`` (m, the last
    frame's). Given ``heavy_speeds`` (F,), the fastest heavy body's speed in each frame
    (m/s), it also returns ``rest_from`` (s, the first time from which every later frame's
    speed is at most ``rest_speed``) and ``at_rest`` (m, the deepest over the frames
    ``settle`` s and more after it), both None when the heavy bodies never come to rest or
    the run ends before ``settle`` s of rest.
    """
    deepest = _series(deepest, "deepest")
    if len(deepest) == 0:
        raise ValueError("deepest must hold at least one frame")
    dt = _check.positive_scalar(dt, "dt")
    rest_speed = _check.non_negative_scalar(rest_speed, "rest_speed")
    settle = _check.non_negative_scalar(settle, "settle")
    quality = {"median": float(np.median(deepest)), "largest": float(deepest.max()),
               "final": float(deepest[-1])}
    if heavy_speeds is None:
        return quality
    speeds = _series(heavy_speeds, "heavy_speeds")
    _same_length({"deepest": deepest, "heavy_speeds": speeds})
    moving = np.flatnonzero(speeds > rest_speed)
    first = 0 if len(moving) == 0 else int(moving[-1]) + 1
    rest_from = at_rest = None
    if first < len(speeds):
        rest_from = first * dt
        _finite_result(rest_from, "time (frames × dt)")
        frames = settle / dt  # the frames of ``settle`` s, which may overflow: then never
        if frames < len(deepest) - first:
            settled = first + math.ceil(frames - 1e-9)
            if settled < len(deepest):
                at_rest = float(deepest[settled:].max())
    return {**quality, "rest_from": rest_from, "at_rest": at_rest}


def glide_quality(velocities, speed: float, catch_drop: float = 0.01) -> dict:
    """How smoothly a body slid over a floor without friction, from its velocity at each
    frame, ``velocities`` (F, 2) (m/s), sent at ``speed`` (m/s) along +x.

    Returns ``speed_loss`` (the fraction of the speed lost by the last frame,
    1 − vₓ/speed), ``max_vertical_speed`` (m/s, the largest |v_y|) and ``catches``: the
    frames in which vₓ fell by more than ``catch_drop`` × speed from the frame before (the
    body struck an edge of the floor).
    """
    velocities = _series(velocities, "velocities", 2)
    if len(velocities) < 2:
        raise ValueError(f"velocities must hold at least 2 frames, got {len(velocities)}")
    speed = _check.positive_scalar(speed, "speed")
    catch_drop = _check.non_negative_scalar(catch_drop, "catch_drop")
    with np.errstate(over="ignore"):
        drops = -np.diff(velocities[:, 0])
        loss = 1.0 - velocities[-1, 0] / speed
    _finite_result(drops, "change of speed")
    _finite_result(loss, "speed loss")
    return {"speed_loss": float(loss),
            "max_vertical_speed": float(np.abs(velocities[:, 1]).max()),
            "catches": int(np.count_nonzero(drops > catch_drop * speed))}


def run_quality(centers, wall_x: float, bin_floor: float, bin_top: float,
                radius: float) -> dict:
    """Where a marble run left its marbles, from their centres at the end, ``centers``
    (N, 2) (m): ``in_bin`` (centres between the walls |x| < ``wall_x`` and below
    ``bin_top``), ``escaped`` (centres beyond a wall or deeper than ``radius`` below the
    bin's floor ``bin_floor``: through something solid) and ``lowest`` (m, the lowest
    centre's height above the bin's floor)."""
    centers = _series(centers, "centers", 2)
    if len(centers) == 0:
        raise ValueError("centers must hold at least one marble")
    wall_x = _check.positive_scalar(wall_x, "wall_x")
    bin_floor = _check.finite_scalar(bin_floor, "bin_floor")
    bin_top = _check.finite_scalar(bin_top, "bin_top")
    radius = _check.positive_scalar(radius, "radius")
    if bin_top <= bin_floor:
        raise ValueError(f"bin_top must lie above bin_floor, got {bin_top} <= {bin_floor}")
    between = np.abs(centers[:, 0]) < wall_x
    escaped = ~between | (centers[:, 1] < bin_floor - radius)
    in_bin = between & ~escaped & (centers[:, 1] < bin_top)
    return {"in_bin": int(np.count_nonzero(in_bin)), "escaped": int(np.count_nonzero(escaped)),
            "lowest": float(centers[:, 1].min() - bin_floor)}
