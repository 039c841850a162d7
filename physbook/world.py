"""Chapters 4, 9 and 11: the World, which owns the tables and runs the stages of a step.

A world keeps its bodies in a :class:`~physbook.dynamics.body_table.BodyTable`, their shapes
in a :class:`~physbook.geometry.shape_table.ShapeTable` and the touching pairs in a
:class:`~physbook.dynamics.contact_table.ContactTable`. :meth:`World.step` hands the stages
of a step (integrators, broad phase, narrow phase, solver) the columns they work on, never
the world itself; the broad phase and the solver are chosen by name or given as objects.
Each other concern is an object the world holds: its bodies' handles and columns
(:class:`~physbook.dynamics.bodies.Bodies`), sleep (:class:`~physbook.dynamics.sleep.Sleep`),
the events and callbacks (:class:`~physbook.event_log.EventLog`) and the queries
(:class:`~physbook.queries.QueryIndex`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from physbook import _check
from physbook._buffers import carry_out
from physbook.body_removal import BodyRemover
from physbook.broadphase import DEFAULT_BROAD_PHASE
from physbook.broadphase import broad_phase as resolve_broad_phase
from physbook.constants import DEFAULT_GRAVITY
from physbook.dynamics.bodies import Bodies
from physbook.dynamics.body import Body
from physbook.dynamics.body_changes import BodyChanges
from physbook.dynamics.body_table import BodyTable
from physbook.dynamics.contact_table import ContactTable
from physbook.dynamics.joint_table import JointRemoval, JointTable
from physbook.dynamics.joints import Joint
from physbook.dynamics.materials import DEFAULT_MATERIAL, Material
from physbook.dynamics.new_body import new_body_values
from physbook.dynamics.sleep import Sleep
from physbook.dynamics.solvers import DEFAULT_SOLVER, resolve_solver
from physbook.event_log import EventLog
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shape_table import ShapeTable
from physbook.queries import QueryIndex
from physbook.recording import Recording, recorded_run
from physbook.snapshots import Snapshot
from physbook.snapshots import snapshot as take_snapshot
from physbook.step_driver import StepDriver
from physbook.world_queries import WorldQueries


class World(WorldQueries):
    """A collection of bodies that move together under gravity, forces and contacts.

    Parameters
    ----------
    gravity
        Acceleration of gravity (m/s²), (0, −10) by default.
    capacity
        Body rows to allocate at first; the arrays double whenever they fill up.
    solver
        The contact solver stage: a name from :data:`physbook.dynamics.solvers.SOLVERS`
        (``"soft_step"``, the default) or an object with
        ``step(contacts, bodies, gravity, dt)``.
    broad_phase
        The broad phase stage: a name from :data:`physbook.broadphase.BROAD_PHASES`
        (``"tree"``, the default) or a callable ``(boxes, filters) -> (P, 2)`` shape pairs.
    sleeping
        Let islands of bodies that have come to rest fall asleep (chapter 11): they cost
        almost nothing until something wakes them. The switch and the thresholds are
        :attr:`sleep`'s.

    Notes
    -----
    A world holds its parts by concern, each an object of its own:

    - :attr:`bodies`: the handles, and every body column as a numpy view
      (``world.bodies.centers``), as the stages receive them;
    - :attr:`shapes`, :attr:`contacts` and :attr:`joints`: the shape table, the touching
      pairs after the last step (points, impulses), and the joints (chapter 11), which the
      solver solves beside the contacts;
    - :attr:`sleep`: when islands at rest fall asleep (``awake`` false: they skip every
      stage until something wakes them);
    - :attr:`events`: which contacts began, ended or hit in the last step, the sensor
      overlaps, and a game's callbacks for them (chapter 12).

    Queries (:meth:`query_aabb`, :meth:`query_point`, :meth:`ray_cast`) ask where the
    shapes are (chapter 12).
    """

    def __init__(self, gravity=DEFAULT_GRAVITY, capacity: int = 16, solver=None,
                 broad_phase=DEFAULT_BROAD_PHASE, sleeping: bool = True):
        gravity = _check.vector(gravity, "gravity")
        capacity = _check.positive_int(capacity, "capacity", _check.MAX_CAPACITY)
        self._bodies = BodyTable(capacity)
        self._shapes = ShapeTable(capacity)
        self._contacts = ContactTable(capacity)
        self._joints = JointTable()
        self._body_view = Bodies(self._bodies)
        self._sleep = Sleep(self._bodies, sleeping)
        self._solver = resolve_solver(DEFAULT_SOLVER if solver is None else solver)
        # The library's broad phases return canonical pairs; a user's are checked.
        self._broad_phase, trusted_pairs = resolve_broad_phase(broad_phase)
        # Sensors, events and queries (chapter 12).
        self._sensor_contacts = ContactTable(capacity)
        self._log = EventLog(self._bodies, self._shapes, self._contacts)
        self._queries = QueryIndex(self._bodies, self._shapes, self._broad_phase, self._log)
        # The step and the removal of bodies: objects of their own, working on the tables.
        tables = {"bodies": self._bodies, "shapes": self._shapes, "contacts": self._contacts,
                  "sensor_contacts": self._sensor_contacts, "joints": self._joints,
                  "sleep": self._sleep, "log": self._log, "queries": self._queries}
        self._driver = StepDriver(**tables, solver=self._solver, broad_phase=self._broad_phase,
                                  trusted_pairs=trusted_pairs, gravity=gravity,
                                  capacity=capacity)
        self._remover = BodyRemover(**tables, broad_phase=self._broad_phase)
        self._changes = BodyChanges(self._bodies, self._sleep, self._contacts, self._joints)

    # --- the step --------------------------------------------------------------------

    def step(self, dt: float) -> None:
        """Advance the world by ``dt`` seconds: the stages of one time step
        (:class:`~physbook.step_driver.StepDriver` runs them).

        Raises ``ValueError`` if a body's state holds a NaN or an infinity written into the
        arrays, and ``FloatingPointError`` if the step itself makes one (a force or speed
        too large for floats); in both cases the world is left as it was before the step.
        So is it when anything else cuts the step short, a ``KeyboardInterrupt`` above all
        (Ctrl-C, or a notebook's stop button), which is raised as it came. Once the step is
        done, the contact callbacks (``world.events.on_contact``) run.
        """
        if not (dt.__class__ is float and 0.0 < dt < math.inf):  # the common case, at once
            dt = _check.positive_scalar(dt, "dt")
        if self._log.in_callback():
            raise RuntimeError("step() was called from a contact callback; step the world "
                               "after the callbacks return")
        self._refuse_in_pre_solve("step()")
        # The stages, as one compiled call or one by one; a step cut short is undone.
        self._driver.step(dt)
        if self._log.has_handlers:
            self._log.dispatch(self.remove_bodies)

    # --- sizes, settings and tables ----------------------------------------------------

    @property
    def count(self) -> int:
        """Number of bodies (rows in use)."""
        return self._bodies.count

    def __len__(self) -> int:
        return self._bodies.count

    @property
    def gravity(self) -> np.ndarray:
        """Gravity (m/s²)."""
        return self._driver.gravity.copy()

    @gravity.setter
    def gravity(self, value) -> None:
        self._driver.gravity = _check.vector(value, "gravity")

    @property
    def time(self) -> float:
        """Simulated time (s): the steps taken times their ``dt``, never a running sum."""
        return self._log.record.time

    @property
    def step_count(self) -> int:
        """Steps taken since the world was made."""
        return self._log.record.step_count

    @property
    def bodies(self) -> Bodies:
        """The bodies: their handles in row order, and their columns as numpy views
        (``world.bodies.centers``; :class:`~physbook.dynamics.bodies.Bodies`)."""
        return self._body_view

    @property
    def shapes(self) -> ShapeTable:
        """Every body's shapes in one :class:`~physbook.geometry.shape_table.ShapeTable`."""
        return self._shapes

    @property
    def contacts(self) -> ContactTable:
        """The touching shape pairs after the last step, their points and impulses."""
        return self._contacts

    @property
    def solver(self):
        """The contact solver stage."""
        return self._solver

    @property
    def broad_phase(self) -> Callable:
        """The broad phase stage, called ``(boxes, filters) -> pairs``."""
        return self._broad_phase

    @property
    def joints(self) -> list[Joint]:
        """The joints of the world, in the order they were added (a new list)."""
        return self._joints.handles

    @property
    def joint_arrays(self):
        """Every joint column (:class:`~physbook.dynamics.joint_table.JointColumns`), as
        the solver receives them."""
        return self._joints.arrays

    @property
    def compiled(self) -> bool:
        """Whether a step runs as one compiled call when the solver and the broad phase are
        the library's own and no pre-solve callback is registered (on by default). The
        states are the same bit for bit either way; off, every step runs the stages of
        :data:`~physbook.stages.STEP_STAGES` one by one from Python."""
        return self._driver.compiled

    @compiled.setter
    def compiled(self, value) -> None:
        self._driver.compiled = _check.flag(value, "compiled")

    # --- continuous collision (chapter 13) ----------------------------------------------

    @property
    def continuous(self) -> bool:
        """Whether fast bodies are stopped at their time of impact against static bodies
        (and bullets against dynamic ones too); on by default."""
        return self._driver.continuous

    @continuous.setter
    def continuous(self, value) -> None:
        self._driver.continuous = _check.flag(value, "continuous")

    @property
    def sleep(self) -> Sleep:
        """When islands at rest fall asleep, and how many bodies are awake
        (:class:`~physbook.dynamics.sleep.Sleep`)."""
        return self._sleep

    def _wake_around(self, rows) -> None:
        """Wake the body at ``rows`` (a row or rows) and whatever touches it or is jointed to
        it, with their islands."""
        self._changes.wake_around(rows)

    def _refuse_in_pre_solve(self, what: str) -> None:
        """``RuntimeError`` when a pre-solve callback is running: it sits inside a step,
        whose arrays must not change under it."""
        if self._log.hooks.running:
            raise RuntimeError(f"{what} was called from a pre-solve callback, which runs "
                               "inside the step; do it after the step")

    # --- adding and removing ---------------------------------------------------------

    def add_body(
        self,
        shape_or_shapes,
        position=(0.0, 0.0),
        angle: float = 0.0,
        velocity=(0.0, 0.0),
        angular_velocity: float = 0.0,
        material: Material | Sequence[Material] = DEFAULT_MATERIAL,
        kind: str | int = "dynamic",
        gravity_scale: float = 1.0,
        layers: int | None = None,
        filter: Filter | None = None,  # noqa: A002 (Box2D's and pymunk's name for it)
        sensor: bool = False,
        fixed_rotation: bool = False,
        linear_damping: float = 0.0,
        angular_damping: float = 0.0,
        surface_velocity=(0.0, 0.0),
        one_way=None,
        user_data=None,
    ) -> Body:
        """Add a body made of one shape or several (a compound) and return its handle.

        Adding is all or nothing: an exception inside it (Ctrl-C, a ``MemoryError``)
        leaves the world as it was, or with the body added.

        Parameters
        ----------
        shape_or_shapes
            A :class:`~physbook.geometry.shapes.Circle`,
            :class:`~physbook.geometry.shapes.Polygon` (sharp or rounded),
            :class:`~physbook.geometry.round_shapes.Capsule`,
            :class:`~physbook.geometry.round_shapes.Segment`,
            :class:`~physbook.geometry.round_shapes.ChainSegment` or
            :class:`~physbook.geometry.round_shapes.Chain` (one shape per segment), or a list
            or tuple of them, in body coordinates (about the body origin). Segments and
            chains have no area: only static and kinematic bodies take them.
        position, angle
            Pose of the body origin in the world (m, rad).
        velocity, angular_velocity
            Initial velocity of the centre of mass (m/s) and angular velocity (rad/s).
            Must be zero for a static body.
        material
            Density, restitution and friction (:class:`~physbook.dynamics.materials.Material`),
            or one per shape given (a chain's goes to each of its segments). A contact
            mixes the friction and restitution of its two shapes.
        kind
            ``"dynamic"``, ``"static"`` or ``"kinematic"`` (or ``pb.DYNAMIC``,
            ``pb.STATIC``, ``pb.KINEMATIC``).
        gravity_scale
            Multiplier of the world's gravity for this body.
        layers
            Collision bitmask (an integer, 1 by default): shorthand for the filter
            ``Filter(category=layers, mask=layers)`` on every shape.
        filter
            A :class:`~physbook.geometry.shape_filter.Filter` (category, mask, group), or one
            per shape given (a chain's goes to each of its segments); give ``layers`` or
            ``filter``, not both.
        sensor
            True (or one flag per shape given) for shapes that report overlaps
            (``world.events.sensors``) and never collide.
        fixed_rotation
            True for a body that never turns (an upright character): its angle stays as
            given and ``angular_velocity`` must be 0.
        linear_damping, angular_damping
            Damping rates c ≥ 0 (1/s): each step divides the velocity, or the angular
            velocity, by 1 + c·h (chapter 16); air drag, or a pool table's felt.
        surface_velocity
            Velocity (m/s, body coordinates) at which the shapes' surfaces move along
            themselves, as a conveyor belt's: friction carries what touches them along.
        one_way
            A direction (body coordinates), for shapes that stop only what comes at them
            from that side (a platform jumped up through), or None.
        user_data
            Any object, kept for the game as ``body.user_data``.
        """
        self._refuse_in_pre_solve("add_body()")
        shapes, values, filters, sensors, surfaces = new_body_values(
            shape_or_shapes, position, angle, velocity, angular_velocity, material, kind,
            gravity_scale, layers, filter, sensor, fixed_rotation, linear_damping,
            angular_damping, surface_velocity, one_way)
        # Room first (growing a table changes none of its rows), then the body and its
        # shapes; if anything stops them, the tables go back to their marks.
        row = self._bodies.count
        self._sleep.grow(row + 1)
        body_mark, shape_mark = self._bodies.mark(), self._shapes.mark()
        try:
            self._bodies.add(values, shapes, tuple(m for m, _ in surfaces),
                             lambda body_id: Body(self, self._bodies, body_id),
                             values["fixed_rotation"], user_data)
            for shape, shape_filter, is_sensor, (_, surface) in zip(
                    shapes, filters, sensors, surfaces, strict=True):
                self._shapes.append(shape, row, shape_filter, is_sensor, surface)
            self._sleep.labels[row] = row  # a new body is an island of its own, labelled by its row
            self._queries.forget()
        except BaseException:
            self._shapes.truncate(shape_mark)
            self._bodies.truncate(body_mark)
            raise
        return self._bodies.handle(row)

    def remove_body(self, body: Body) -> None:
        """Remove ``body``. Rows behind it move up by one, in order; other handles stay
        valid, and the other contacts keep the impulses they carry. Its joints leave the
        world with it, and their other bodies wake, as does its island; its touching
        contacts and sensor overlaps end (events of the next step).

        Called from a contact callback, the removal waits until every callback of the step
        has run, so that each event still finds its bodies; removing the same body twice
        there removes it once. :meth:`remove_bodies` removes many bodies at once.

        A removal is all or nothing: an exception inside it (Ctrl-C, a ``MemoryError``)
        leaves the world as it was or with the body removed, never in between.
        """
        _check.instance(body, "body", Body, "a Body")
        if body.world is not self:
            raise ValueError("body belongs to another world")
        body.row  # noqa: B018 (raises LookupError if it was removed already)
        self._refuse_in_pre_solve("remove_body()")
        self._remover.remove([body])

    def remove_bodies(self, bodies: Iterable[Body]) -> None:
        """Remove every body of ``bodies`` (handles, each once) at once: the same as
        :meth:`remove_body` on each in turn, in one pass over each table however many
        there are. Rows behind removed ones move up, in order (a row behind j removed ones
        moves up j rows).

        One removal moves every row behind it, so clearing many bodies one at a time
        moves the rows again for each; here they move once, and each body adds a little
        work of its own. All or nothing, as :meth:`remove_body`.
        """
        if isinstance(bodies, Body) or not isinstance(bodies, Iterable):
            raise TypeError("bodies must be an iterable of Body handles (remove_body removes "
                            f"one), got {type(bodies).__name__}")
        handles = list(bodies)
        first: dict[int, int] = {}
        for i, body in enumerate(handles):
            _check.instance(body, f"bodies[{i}]", Body, "a Body")
            if body.world is not self:
                raise ValueError(f"bodies[{i}] belongs to another world")
            body.row  # noqa: B018 (raises LookupError if it was removed already)
            if body.id in first:
                raise ValueError(f"bodies[{i}] repeats bodies[{first[body.id]}] (body "
                                 f"{body.id}): give each body once")
            first[body.id] = i
        self._refuse_in_pre_solve("remove_bodies()")
        self._remover.remove(handles)

    def add_joint(self, joint: Joint) -> Joint:
        """Add ``joint`` (made from bodies of this world) and return it. Its bodies wake.

        Raises ``ValueError`` if the joint is in a world already or one of its bodies was
        removed or belongs to another world. All or nothing, as :meth:`add_body`.
        """
        _check.instance(joint, "joint", Joint, "a joint (DistanceJoint, RevoluteJoint, ...)")
        self._refuse_in_pre_solve("add_joint()")
        if joint.world is not None:
            raise ValueError("joint was added to a world already; make a new joint")
        for name in ("body_a", "body_b"):
            body = getattr(joint, name)
            if not body.alive:
                raise ValueError(f"joint's {name} was removed from its world")
            if body.world is not self:
                raise ValueError(f"joint's {name} belongs to another world")
        values = joint.row_values()
        rows = [joint.body_a.row, joint.body_b.row]
        bodies = self._bodies.arrays
        awake, sleep_times = bodies.awake[rows], bodies.sleep_times[rows]
        mark = self._joints.mark()
        try:
            joint._attach(self, self._joints.add(values, joint))
            joint.wake_bodies()
        except BaseException:  # all or nothing: the joint leaves, its bodies as they were
            joint._attach(None, -1)
            self._joints.truncate(mark)
            bodies.awake[rows], bodies.sleep_times[rows] = awake, sleep_times
            raise
        return joint

    def remove_joint(self, joint: Joint) -> None:
        """Remove ``joint``; its bodies wake (and may now collide with each other). The
        joint keeps its settings and may be added again while its bodies exist. All or
        nothing, as :meth:`remove_body`.

        A joint leaves the world with either of its bodies (:meth:`remove_body`); removing
        it afterwards raises ``ValueError`` saying so."""
        _check.instance(joint, "joint", Joint, "a joint")
        self._refuse_in_pre_solve("remove_joint()")
        if joint.world is not self:
            gone = joint._removed_with
            if gone and joint.body_a.world is self:
                bodies = " and ".join(str(body_id) for body_id in gone)
                raise ValueError(f"joint is not in this world: it left the world with its "
                                 f"{'body' if len(gone) == 1 else 'bodies'} {bodies}, "
                                 "which remove_body removed")
            raise ValueError("joint is not in this world")
        removal = self._joints.removal(joint_rows=[self._joints.row_of(joint._id)])
        settings = joint._settings(self._joints)
        carry_out(lambda plan: self._detach_joint(joint, *plan), (removal, settings))

    def _detach_joint(self, joint: Joint, removal: JointRemoval, settings: dict) -> None:
        """Carry out :meth:`remove_joint`; calling it again changes nothing more."""
        joint.wake_bodies()
        self._joints.apply_removal(removal)
        joint._leave(settings)

    # --- events (chapter 12) ----------------------------------------------------------

    @property
    def events(self) -> EventLog:
        """What the last step found (contacts that began, ended or hit, sensor overlaps)
        and the game's callbacks for them (:class:`~physbook.event_log.EventLog`)."""
        return self._log

    # --- snapshots (chapter 16) -------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The world's state now, to come back to: ``snapshot.restore()`` puts every body,
        contact, joint and setting back, after which steps give the states the world gave
        from here the first time, bit for bit (a rollback, an undo; see
        :mod:`physbook.snapshots`). Cheap: its arrays copied, no Python per body.
        ``pb.save_world(snapshot, path)`` writes it to a file. Callbacks are not part of it."""
        return take_snapshot(self)

    # --- running and recording -------------------------------------------------------

    def run(self, steps: int, dt: float,
            before_step: Callable[[World], None] | None = None) -> Recording:
        """Step ``steps`` times and return a :class:`~physbook.recording.Recording` of
        steps + 1 states.

        ``before_step(world)``, if given, runs before each step: the place to apply forces,
        which every step clears. Bodies may not be added or removed during a run, neither
        there nor by contact callbacks (``RuntimeError``).
        """
        return recorded_run(self, steps, dt, before_step)
