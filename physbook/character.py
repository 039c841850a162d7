"""Chapter 16: a character mover — collide and slide, slopes, steps, snapping, platforms.

A character in a platformer is not a rigid body: it should stop dead when the player lets
go, stand on a slope without sliding, walk up a ramp at the speed it walks on the flat,
and never bounce. A :class:`CharacterMover` moves a capsule by geometry instead, built on
the shape cast (:mod:`physbook.shape_cast`) as Box2D 3.1's mover is, and carries a
*kinematic* body of the world along, so that sensors see the character and dynamic bodies
are pushed by it.

Each :meth:`~CharacterMover.move` wants a displacement δ₀ for this step and finds the
nearest one the world allows:

1. **planes**: every shape within :data:`CONTACT_RANGE` of the capsule is a plane the
   capsule must stay in front of. With n its normal (from the shape's closest feature,
   towards the capsule) and g the gap, a displacement δ keeps the capsule out if
   n·δ ≥ −g + n·v_B·h, v_B the velocity of the shape's body at the contact (a platform
   moves during the step too) and h the step;
2. **the plane solver**: δ is the displacement nearest δ₀ in front of every plane. Box2D's
   ``b2SolvePlanes`` projects onto the planes in turn (Gauss–Seidel) with an accumulated
   push that may only push out, p_i ← max(p_i + o_i − n_i·δ, 0), δ ← δ + Δp_i·n_i; that
   converges slowly in a wedge (a floor and a steep slope meeting at a sharp angle), where
   the leftover creeps the character up the slope. In 2D the nearest point is found
   exactly instead
   (:func:`~physbook.collision.planes.nearest_in_front`): it is the target, its projection onto one
   plane, or the corner of two, whichever feasible one is nearest; the projection in turn
   is kept for planes that leave no room at all;
3. **the cast**: δ is a straight-line guess from planes that are tangent only where the
   capsule stands now, so the capsule is cast along it (the shapes of the planes left
   out, as Box2D's ``b2World_CastMover`` leaves out what it overlaps) and stops at the
   first new shape it meets. From there, with that shape now a plane, the solver runs
   again towards the same target, at most :data:`SLIDE_ITERATIONS` times. Being a cast,
   no speed makes the capsule pass through a thin wall.

**Ground.** A plane is *walkable* if its normal is within ``max_slope`` of straight up
(n_y ≥ cos max_slope; y is up). The capsule also stands on a *corner* (a vertex of a
polygon or segment, a circle) whose contact lies on its round bottom no higher than
``step_height`` above its lowest point: walking, it rolls over that corner as a wheel
over a kerb, along the tangent of the contact, so it climbs steps up to ``step_height``
(at most its radius: a higher edge meets the capsule's straight side, which cannot roll)
and walks off ledges smoothly. On the ground the character walks along the ground's
tangent t = (n_y, −n_x) at the walking speed it is given (as fast up a ramp as on the
flat), adds the velocity of the ground's body at the contact (it rides platforms), and
feels no gravity: standing still it does not move at all, so it neither slides down a
walkable slope nor jitters. After each move on the ground it is *snapped* down onto ground
up to ``snap_distance`` below: walking along a tangent drifts off a curve (a corner rolled
over, a crest), and walking down a slope or a stair would otherwise launch it. The snap is
a cast, which meets the ground where it stands now; one more solve of the planes then puts
the capsule where a moving platform will be after the step.

**Air and steep slopes.** Off the ground the character keeps a velocity of its own, to
which gravity adds g·h each step; the part of it into the planes it pressed on is removed
(Box2D's ``b2ClipVector``: v ← v − min(v·n, 0)·n), so on a slope steeper than
``max_slope`` it slides down as a frictionless block, accelerating at g·sin θ. Walking does
not climb such a slope: the horizontal walk meets, besides the slope's plane, a vertical
wall at the same place (n_h = (sign n_x, 0), offset o/|n_x|), which stops the walk into
the slope and lets the slide down pass.

**One-way shapes** (a surface with a ``one_way`` side d) are planes only as their contacts
act: when the normal leans within 60° of d and the capsule is not inside them by more than
:data:`CONTACT_RANGE`; so the character jumps up through a one-way platform and lands on it.

The mover is driven once per step, before ``world.step(h)`` with the same h: it works out
the displacement and gives its kinematic body the velocity δ/h that the step carries out.
Platforms (kinematic bodies) should be given their velocity for the step before
:meth:`~CharacterMover.move` is called. Other moving bodies are met by the casts where they
stand at the time of the move. Dynamic bodies the mover's filter accepts stop it as walls
do; leave them out of its filter and its kinematic body pushes them instead. The world
pairs sensors with dynamic bodies only, so the mover finds the sensors it overlaps itself
(:meth:`~CharacterMover.sensors`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.collision.cast import overlapping
from physbook.collision.manifold import collide
from physbook.collision.planes import capsule_contacts, nearest_in_front
from physbook.collision.toi import core
from physbook.constants import LINEAR_SLOP
from physbook.continuous import shape_reaches
from physbook.dynamics.contact_surface import ONE_WAY_COSINE
from physbook.geometry.round_shapes import Capsule
from physbook.geometry.shape_filter import Filter
from physbook.queries import query_filter
from physbook.shape_cast import candidate_rows, cast_hits, one_way_sides
from physbook.vecmath.vec import Transform

#: Shapes within this gap of the capsule (m) are planes it must stay in front of.
CONTACT_RANGE = LINEAR_SLOP
#: Rounds of plane solving and casting per move (Box2D's sample takes 5).
SLIDE_ITERATIONS = 5
#: Passes of the plane solver at most (Box2D's b2SolvePlanes takes 20).
PLANE_ITERATIONS = 20
#: The plane solver stops when its pushes change by less than this in a pass (m).
PUSH_TOLERANCE = 1e-9


class Plane(NamedTuple):
    """A plane the capsule must stay in front of: unit ``normal`` (towards the capsule),
    ``offset`` o (the constraint n·δ ≥ o on a displacement δ, m), the shape ``row`` it
    comes from and its ``body`` (a handle), the contact ``point`` (m), the ``velocity``
    of the shape's body there (m/s), and whether the capsule may stand on it
    (``ground``)."""

    normal: np.ndarray
    offset: float
    row: int
    body: object
    point: np.ndarray
    velocity: np.ndarray
    ground: bool


def solve_planes(target: np.ndarray, normals: np.ndarray, offsets: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The displacement nearest ``target`` (m) with n_i·δ ≥ o_i for every plane
    (:func:`~physbook.collision.planes.nearest_in_front`), and which planes hold it back
    (bool per plane). Planes that leave no room are met as well as they can be:
    projecting onto them in turn with
    accumulated pushes clamped at 0 (Box2D's ``b2SolvePlanes``), at most
    :data:`PLANE_ITERATIONS` passes."""
    pressed = np.zeros(len(offsets), bool)
    if not len(offsets):
        return target.astype(float).copy(), pressed
    x, y, first, second, found = nearest_in_front(float(target[0]), float(target[1]),
                                                  normals, offsets)
    if found:
        pressed[[k for k in (first, second) if k >= 0]] = True
        return np.array([x, y]), pressed
    delta = target.astype(float).copy()
    pushes = np.zeros(len(offsets))
    for _ in range(PLANE_ITERATIONS):
        total = 0.0
        for i in range(len(offsets)):
            normal = normals[i]
            push = max(pushes[i] + offsets[i] - (normal[0] * delta[0] + normal[1] * delta[1]),
                       0.0)
            change = push - pushes[i]
            pushes[i] = push
            delta += change * normal
            total += abs(change)
        if total < PUSH_TOLERANCE:
            break
    return delta, pushes > 0.0


def clip_velocity(velocity: np.ndarray, normals) -> np.ndarray:
    """``velocity`` less its part into each of ``normals``: v ← v − min(v·n, 0)·n."""
    v = velocity.copy()
    for normal in normals:
        v -= min(float(v @ normal), 0.0) * normal
    return v


class CharacterMover:
    """A capsule character that collides and slides, walks up slopes up to ``max_slope``
    and slides down steeper ones, steps up to ``step_height``, snaps to the ground and
    rides moving platforms (see the module docstring). It owns a kinematic body in
    ``world``.

    Parameters
    ----------
    world
        The :class:`~physbook.world.World` the character lives in (y up).
    capsule
        Its :class:`~physbook.geometry.round_shapes.Capsule`, about the body origin; it
        never turns.
    position
        Where the body origin starts (m).
    max_slope
        The steepest ground it stands and walks on (rad, in (0, π/2)).
    step_height
        The highest edge above its lowest point it steps onto (m, from 0 to the capsule's
        radius; None: the radius).
    snap_distance
        How far down it is pulled onto the ground after walking (m, ≥ 0; None: the step
        height).
    filter
        The :class:`~physbook.geometry.shape_filter.Filter` of its body, and of what it
        collides with (None: the default filter). Its own body is never in its way.
    """

    def __init__(self, world, capsule: Capsule, position, max_slope: float = math.radians(50),
                 step_height: float | None = None, snap_distance: float | None = None,
                 filter: Filter | None = None) -> None:  # noqa: A002
        _check.instance(capsule, "capsule", Capsule, "a Capsule")
        position = _check.vector(position, "position")
        max_slope = _check.positive_scalar(max_slope, "max_slope")
        if max_slope >= math.pi / 2:
            raise ValueError(f"max_slope must be below π/2 (a wall), got {max_slope}")
        points, normals, radius = core(capsule)
        step_height = radius if step_height is None else _check.non_negative_scalar(
            step_height, "step_height")
        if step_height > radius:
            raise ValueError(f"step_height must be at most the capsule's radius ({radius} m):"
                             f" a higher edge meets its straight side; got {step_height}")
        snap_distance = step_height if snap_distance is None else \
            _check.non_negative_scalar(snap_distance, "snap_distance")
        self._filter = Filter() if filter is None else query_filter(filter)
        self._world = world
        self._capsule = capsule
        self._core = points
        self._normals = normals
        self._radius = radius
        self.max_slope = max_slope
        self.step_height = step_height
        self.snap_distance = snap_distance
        self._body = world.add_body(capsule, position=position, kind="kinematic",
                                    filter=self._filter)
        self._own = np.zeros(2)  # the velocity of its own off the ground (m/s)
        # How far any other body travels in the step being moved (m): see _travel.
        self._others_travel = 0.0
        self._velocity = np.zeros(2)
        self._ground: Plane | None = None

    # --- what a game reads ---------------------------------------------------------

    @property
    def body(self):
        """The kinematic :class:`~physbook.dynamics.body.Body` that carries the capsule."""
        return self._body

    @property
    def position(self) -> np.ndarray:
        """Where the body origin is (m)."""
        return self._body.position

    @property
    def velocity(self) -> np.ndarray:
        """The velocity of the last move (m/s): its displacement over the step."""
        return self._velocity.copy()

    @property
    def on_ground(self) -> bool:
        """Whether the character stands on ground (walkable, or a corner it can step on)."""
        return self._ground is not None

    @property
    def ground_normal(self) -> np.ndarray | None:
        """The normal of the ground it stands on, or None in the air."""
        return None if self._ground is None else self._ground.normal.copy()

    @property
    def ground_body(self):
        """The body it stands on, or None in the air."""
        return None if self._ground is None else self._ground.body

    def sensors(self) -> list:
        """The sensor shapes the capsule overlaps now (coins, trigger zones), as
        :class:`~physbook.queries.ShapeRef` s by shape id: those whose filter and the
        mover's accept each other. (The world's own sensor events pair a sensor with
        dynamic bodies only.)"""
        queries = self._queries()
        tree, origins = queries.refreshed()
        position = self._body.position
        points = self._core + position
        rows = tree.query(points.min(axis=0) - self._radius, points.max(axis=0) + self._radius)
        filters = queries._shapes.filters
        mine = self._filter
        rows = np.sort(rows[filters.sensor[rows]
                            & ((filters.category[rows] & mine.mask) != 0)
                            & ((filters.mask[rows] & mine.category) != 0)])
        if not len(rows):
            return []
        keep = overlapping(queries._shapes.arrays, origins, queries._bodies.arrays.angles,
                           rows, points, self._normals, self._radius)
        return [queries._shape_ref(int(row)) for row in rows[keep]]

    # --- moving --------------------------------------------------------------------

    def move(self, velocity, dt: float) -> np.ndarray:
        """Work out this step's motion and give the body the velocity that makes the next
        ``world.step(dt)`` carry it out; returns the displacement (m).

        ``velocity`` (m/s): its x is the walking speed (along the ground when on it, in
        the air as it is); a positive y launches the character upward at that speed (a
        jump, from the ground or not: the game decides when one is allowed), 0 lets
        gravity act.
        """
        velocity = _check.vector(velocity, "velocity")
        dt = _check.positive_scalar(dt, "dt")
        walk, jump = float(velocity[0]), float(velocity[1])
        self._others_travel = self._travel(dt)
        position = self._body.position
        ground = self._ground
        if ground is not None:
            if ground.body.alive:  # the ground's velocity now: a platform's may change
                ground = ground._replace(velocity=ground.body.velocity_at(ground.point))
            else:
                ground = None
        if jump > 0.0:
            self._own = np.array([0.0, jump]) + (ground.velocity if ground is not None
                                                 else 0.0)
            ground = None
            delta = (self._own + [walk, 0.0]) * dt
        elif ground is not None:
            n = ground.normal
            tangent = np.array([n[1], -n[0]])
            delta = (walk * tangent + ground.velocity) * dt
        else:
            self._own = self._own + self._world.gravity * dt
            delta = (self._own + [walk, 0.0]) * dt
        if not np.all(np.isfinite(position + delta)):
            raise ValueError(f"velocity {velocity} over dt {dt} moves too far for a float")
        end, pressed = self._slide(position, delta, dt)
        self._own = clip_velocity(self._own, pressed)
        found = None
        if ground is not None and self.snap_distance > 0.0:
            # Walking along a tangent drifts off a curve (a corner rolled over, a crest):
            # back down onto the ground, if there is ground within reach.
            found, end = self._snap(end, walk, dt)
        if found is None and jump <= 0.0:
            found = self._find_ground(end, walk, dt)
        if found is not None:
            self._own = np.zeros(2)
        self._ground = found
        displacement = end - position
        if not np.all(np.isfinite(displacement / dt)):
            raise ValueError(f"dt {dt} is too short for the displacement {displacement}")
        self._velocity = displacement / dt
        self._body.velocity = self._velocity
        return displacement

    # --- the parts of a move ---------------------------------------------------------

    def _queries(self):
        return self._world._queries  # the tree the world's queries walk

    def _planes(self, position: np.ndarray, dt: float, after_step: bool = False
                ) -> list[Plane]:
        """The planes of the shapes within CONTACT_RANGE of the capsule at ``position``,
        now or once the step has moved them (a platform rising into it, or falling away
        with it); with ``after_step``, only those in range once the step has moved them
        (the ground it will stand on)."""
        queries = self._queries()
        points = self._core + position
        # A shape as far as a body can travel in the step may be in range once it has moved.
        reach = self._radius + CONTACT_RANGE + self._others_travel
        rows, origins = candidate_rows(queries, points.min(axis=0) - reach,
                                       points.max(axis=0) + reach, self._filter,
                                       self._body.row)
        if not len(rows):
            return []
        rows = np.sort(rows)
        arrays = queries._shapes.arrays
        normals, contact_points, gaps, corners, found = capsule_contacts(
            arrays, origins, queries._bodies.arrays.angles, rows, points, self._normals,
            self._radius)
        foot = float(points[:, 1].min()) - self._radius
        sides = one_way_sides(queries._shapes, queries._bodies.arrays.angles, rows)
        planes = []
        for k, row in enumerate(rows.tolist()):
            if not found[k]:
                contact = self._deep_contact(row, position, origins)
                if contact is None:
                    continue
                normal, point, gap, corner = contact
            else:
                normal, point, gap, corner = (normals[k], contact_points[k], float(gaps[k]),
                                              bool(corners[k]))
            if sides[k].any() and (gap < -CONTACT_RANGE
                                   or normal @ sides[k] < ONE_WAY_COSINE):
                continue  # a one-way shape met from a side it lets through, or passing
            body = queries._shape_ref(row).body
            moving = body.velocity_at(point)
            after = gap - float(normal @ moving) * dt  # the gap once the shape has moved
            if (after if after_step else min(gap, after)) > CONTACT_RANGE:
                continue
            walkable = normal[1] >= math.cos(self.max_slope)
            step = corner and normal[1] > 0.0 and point[1] - foot <= self.step_height
            planes.append(Plane(normal.copy(), -gap + float(normal @ moving) * dt, row, body,
                                point.copy(), moving, bool(walkable or step)))
        return planes

    def _travel(self, dt: float) -> float:
        """The farthest any point of another body moves in a step of ``dt`` s at its
        velocity now (m): the largest (|v| + |ω|·R)·dt, R the body's reach from its centre
        of mass."""
        bodies = self._queries()._bodies.arrays
        others = np.arange(len(bodies.kinds)) != self._body.row
        if not others.any():
            return 0.0
        reaches = shape_reaches(self._queries()._shapes.arrays, bodies.local_centers).bodies
        speeds = (np.hypot(bodies.velocities[:, 0], bodies.velocities[:, 1])
                  + np.abs(bodies.angular_velocities) * reaches)
        return float(speeds[others].max()) * dt

    def _deep_contact(self, row: int, position, origins):
        """Normal, point, gap and corner flag when the capsule's core is inside a shape's
        (the manifold's), or None (a chain segment from behind)."""
        queries = self._queries()
        shapes = queries._shapes
        body = int(shapes.arrays.body[row])
        other = shapes.shape(row)
        manifold = collide(self._capsule, Transform(position, 0.0), other,
                           Transform(origins[body].copy(),
                                     float(queries._bodies.arrays.angles[body])))
        if manifold is None:
            return None
        deepest = int(np.argmax(manifold.depths))
        return -manifold.normal, manifold.points[deepest], -float(manifold.depths[deepest]), \
            False

    def _constraints(self, planes: list[Plane]) -> tuple[np.ndarray, np.ndarray]:
        """Normals and offsets for the solver: each plane, and for each steep plane that
        faces up a vertical wall at the same place, which stops walking up it."""
        normals = [plane.normal for plane in planes]
        offsets = [plane.offset for plane in planes]
        for plane in planes:
            n = plane.normal
            if not plane.ground and n[1] > 0.0 and abs(n[0]) > 0.0:
                normals.append(np.array([math.copysign(1.0, n[0]), 0.0]))
                offsets.append(plane.offset / abs(n[0]))
        return np.array(normals).reshape(-1, 2), np.array(offsets)

    def _slide(self, position: np.ndarray, delta: np.ndarray, dt: float
               ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Collide and slide from ``position`` towards ``position + delta``: the end, and
        the normals of the planes that pushed on the way."""
        queries = self._queries()
        target = position + delta
        pressed = []
        for _ in range(SLIDE_ITERATIONS):
            planes = self._planes(position, dt)
            normals, offsets = self._constraints(planes)
            step, held = solve_planes(target - position, normals, offsets)
            pressed.extend(normals[k] for k in np.flatnonzero(held))
            if np.hypot(*step) <= PUSH_TOLERANCE:
                break
            hits = cast_hits(queries, self._capsule, position, 0.0, step, self._filter,
                             first_only=True, skip_body=self._body.row,
                             skip_rows=np.array([plane.row for plane in planes], np.int64))
            fraction = hits[0].fraction if hits else 1.0
            position = position + fraction * step
            if fraction >= 1.0:
                break
        return position, pressed

    def _find_ground(self, position: np.ndarray, walk: float, dt: float) -> Plane | None:
        """The plane the capsule stands on at ``position``, or None. The gap counts the
        ground's own motion this step (a platform moving down is still under it). Walking,
        the ground ahead wins (the one whose normal opposes the walk most); standing, the
        flattest."""
        grounds = [plane for plane in self._planes(position, dt, after_step=True)
                   if plane.ground]
        if not grounds:
            return None
        if walk != 0.0:
            return min(grounds, key=lambda plane: math.copysign(1.0, walk) * plane.normal[0])
        return max(grounds, key=lambda plane: plane.normal[1])

    def _snap(self, position: np.ndarray, walk: float, dt: float
              ) -> tuple[Plane | None, np.ndarray]:
        """Pull the capsule down onto ground up to ``snap_distance`` below, if there is
        ground there: (the ground or None, the position). A wall or ceiling it touches is
        not in the way (moving down does not enter it, but a cast that starts in contact
        stops at once)."""
        down = np.array([0.0, -self.snap_distance])
        touching = [plane.row for plane in self._planes(position, dt)
                    if plane.normal[1] <= 0.0]
        hits = cast_hits(self._queries(), self._capsule, position, 0.0, down, self._filter,
                         first_only=True, skip_body=self._body.row,
                         skip_rows=np.array(touching, np.int64))
        if not hits:
            return None, position
        landed = position + hits[0].fraction * down
        # The cast met the shapes where they stand now; a platform moves this step too:
        # stay in front of every plane as it will be (the nearest such place).
        normals, offsets = self._constraints(self._planes(landed, dt))
        landed = landed + solve_planes(np.zeros(2), normals, offsets)[0]
        ground = self._find_ground(landed, walk, dt)
        return (None, position) if ground is None else (ground, landed)
