"""The contact solvers a world can be given, by name or as objects (chapters 9–10).

A solver is the stage of a step that moves the bodies through it: an object with
``step(contacts, bodies, gravity, dt, joints=None) -> int`` that receives the contact
table's columns (:class:`~physbook.dynamics.contact_table.ContactColumns`), the body columns
(:class:`~physbook.dynamics.body_table.BodyArrays`), gravity (m/s²), the step (s) and the
joint columns (:class:`~physbook.dynamics.joint_table.JointColumns`; a world passes them
only when it has joints, so a solver of contacts alone may leave the argument out). It
integrates velocities, solves the contacts, integrates positions (in substeps if it likes),
stores the impulses it gave in the contacts, and returns the number of bodies whose state
is no longer finite. All three solvers here run the shared stages of
:mod:`physbook.dynamics.contact_solver`:

- ``"impulse"`` (:class:`ImpulseSolver`): chapter 9's method. Each pass may only push,
  nothing carries over from the last step, and overlap is removed by linear projection.
- ``"sequential_impulses"`` (:class:`SequentialImpulseSolver`): accumulated impulses
  clamped on the total, warm started from the last step, with Baumgarte's bias or a
  non-linear position pass, each ingredient behind a switch (as Box2D-Lite has them).
- ``"soft_step"`` (:class:`SoftStepSolver`): Box2D v3's substepped soft contacts, relaxed
  and warm started, solved in colours (or in row order); the default.
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook._buffers import grown, room
from physbook.constants import (
    BAUMGARTE_FACTOR,
    CONTACT_DAMPING_RATIO,
    CONTACT_HERTZ,
    CORRECTION_FRACTION,
    JOINT_DAMPING_RATIO,
    JOINT_HERTZ,
    LINEAR_SLOP,
    MAX_LINEAR_CORRECTION,
    POSITION_ITERATIONS,
    PUSH_OUT_SPEED,
    RESTITUTION_THRESHOLD,
    SOLVER_ITERATIONS,
    SPECULATIVE_DISTANCE,
    SUBSTEPS,
)
from physbook.dynamics.body_table import BodyArrays
from physbook.dynamics.colouring import Colouring, colouring_arrays, share_out
from physbook.dynamics.contact_solver import (
    POSITION_CORRECTIONS,
    PROJECTION,
    ContactWork,
    Softness,
    body_work_arrays,
    softness,
    work_arrays,
)
from physbook.dynamics.contact_table import ContactColumns
from physbook.dynamics.joint_solver import JointWork, joint_work_arrays
from physbook.dynamics.joint_table import JointColumns
from physbook.dynamics.solver_steps import (
    AwakeRows,
    CompiledSettings,
    ImpulseSettings,
    SoftSettings,
    Springs,
    awake_rows_arrays,
    solver_step,
)

#: The orders in which the soft step's passes may meet the contacts.
ORDERS = ("colours", "rows")

#: The softness of a rigid constraint: what the impulse solvers' contacts are.
_RIGID = Softness(0.0, 1.0, 0.0)


class _Scratch:
    """The solver's per-contact, per-body and per-joint work arrays, kept between steps and
    cut to the rows in use (views rebuilt only when a count changes)."""

    def __init__(self):
        self._allocate()

    # Nothing in the work arrays outlives a step (the colouring they remember is worked out
    # again from the contacts, to the same colours): a pickle or deep copy of a solver, or
    # of a world, does not carry them, and gets fresh ones.
    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self._allocate()

    def _allocate(self) -> None:
        self._work = work_arrays(16)
        self._motion = body_work_arrays(16)
        self._joints = joint_work_arrays(4)
        self._views = (self._work, self._motion, JointWork(*(c[:0] for c in self._joints)))
        self._colouring = colouring_arrays(0, 0)
        self._awake_rows = awake_rows_arrays(16)

    def awake_rows(self, contacts: int) -> AwakeRows:
        """Room to gather ``contacts`` rows into (not cut to them)."""
        if len(self._awake_rows.rows) < contacts:
            self._awake_rows = awake_rows_arrays(room(len(self._awake_rows.rows), contacts))
        return self._awake_rows

    def views(self, contacts: int, bodies: int, joints: int | None):
        """Work arrays for these counts; no joint work when ``joints`` is None."""
        work, motion, joint_work = self._views
        wanted = len(joint_work.axes) if joints is None else joints
        if (len(work.targets) != contacts or len(motion.start_angles) != bodies
                or len(joint_work.axes) != wanted):
            if len(self._work.targets) < contacts:
                self._work = work_arrays(room(len(self._work.targets), contacts))
            if len(self._motion.start_angles) < bodies:
                self._motion = type(self._motion)(*(grown(column, bodies)
                                                    for column in self._motion))
            if len(self._joints.axes) < wanted:
                self._joints = JointWork(*(grown(column, wanted) for column in self._joints))
            self._views = (ContactWork(*(column[:contacts] for column in self._work)),
                           type(self._motion)(*(column[:bodies] for column in self._motion)),
                           JointWork(*(column[:wanted] for column in self._joints)))
        work, motion, joint_work = self._views
        return work, motion, (None if joints is None else joint_work)

    def colouring(self, contacts: int, bodies: int) -> Colouring:
        """Colouring work arrays with room for these counts (not cut to them); each count
        grows its own arrays, so a world that gains one body at a time never inflates the
        contact rows."""
        colouring = self._colouring
        if len(colouring.colours) < contacts or len(colouring.used) < bodies:
            colouring = self._colouring = colouring_arrays(
                room(len(colouring.colours), contacts), room(len(colouring.used), bodies))
        return colouring


def stage_input(contacts, bodies, gravity, dt, joints) -> tuple[float, JointColumns | None]:
    """Check what a solver's step receives (the world passes its own tables); returns dt
    and the joints (None when there are none)."""
    _check.instance(contacts, "contacts", ContactColumns, "the ContactColumns of a world")
    _check.instance(bodies, "bodies", BodyArrays, "the BodyArrays of a world")
    if not (isinstance(gravity, np.ndarray) and gravity.shape == (2,)
            and gravity.dtype == np.float64):
        raise TypeError("gravity must be a float64 array of shape (2,)")
    if not np.isfinite(gravity).all():
        raise ValueError("gravity must be finite")
    dt = _check.positive_scalar(dt, "dt")
    if joints is None:
        return dt, None
    _check.instance(joints, "joints", JointColumns, "the JointColumns of a world or None")
    if len(joints.kinds) and (joints.bodies.min() < 0
                              or joints.bodies.max() >= len(bodies.kinds)):
        raise ValueError(f"joints.bodies must hold body rows 0 .. {len(bodies.kinds) - 1}")
    return dt, joints


def _capped_softness(hertz: float, damping_ratio: float, h: float):
    """The softness of a spring of ``hertz`` for a (sub)step h, the frequency capped at a
    quarter of the step rate, 1/(4h), beyond which the step cannot resolve it."""
    return softness(min(hertz, 0.25 / h), damping_ratio, h)


class Setting:
    """A solver setting, checked whenever it is set (in ``__init__`` or later), so that a
    compiled step never receives a value it cannot use."""

    def __init__(self, check):
        self.check = check

    def __set_name__(self, owner, name: str) -> None:
        self.name = name
        self.attribute = "_" + name

    def __get__(self, instance, owner=None):
        return self if instance is None else getattr(instance, self.attribute)

    def __set__(self, instance, value) -> None:
        value = self.check(value, self.name)
        consistent = getattr(instance, "_consistent", None)
        if consistent is not None:
            consistent(self.name, value)
        setattr(instance, self.attribute, value)
        # A new version, so that the settings a compiled step was given are worked out anew.
        instance._version = getattr(instance, "_version", 0) + 1


class _CompiledSettings:
    """What a solver gives the world's compiled step (its ``compiled_settings``), worked
    out again only when ``dt`` or one of the solver's settings changes."""

    def __init__(self):
        self._key = None
        self._value = None

    def get(self, solver, dt: float, make):
        key = (solver._version, dt)
        if key != self._key:
            self._value, self._key = make(dt), key
        return self._value


def _fraction(value, name: str) -> float:
    value = _check.non_negative_scalar(value, name)
    if value > 1.0:
        raise ValueError(f"{name} must be at most 1, got {value}")
    return value


#: The largest damping ratio a solver takes: far past critical (1), and small enough that
#: the soft constraint's 2ζ + hω stays far inside float range.
MAX_DAMPING_RATIO = 1e9


def _damping_ratio(value, name: str) -> float:
    value = _check.non_negative_scalar(value, name)
    if value > MAX_DAMPING_RATIO:
        raise ValueError(f"{name} must be at most {MAX_DAMPING_RATIO:g}, got {value:g}")
    return value


def _optional_positive(value, name: str) -> float | None:
    return None if value is None else _check.positive_scalar(value, name)


class _CompiledSolver:
    """What the library's own solvers share: their work arrays, kept between steps, and
    their step, one compiled call (:func:`~physbook.dynamics.solver_steps.solver_step`)
    that the world's compiled step makes too."""

    def work_views(self, contacts: int, bodies: int, joints: int | None) -> tuple:
        """The solver's work arrays cut to these counts, kept between steps: (per contact,
        per body, per joint); no joint work when ``joints`` is None."""
        return self._scratch.views(contacts, bodies, joints)

    def awake_rows(self, contacts: int) -> AwakeRows:
        """Room to gather the rows of ``contacts`` contacts that have a body awake (see
        :func:`~physbook.dynamics.solver_steps.solver_step`)."""
        return self._scratch.awake_rows(contacts)

    def colouring(self, contacts: int, bodies: int) -> Colouring | None:
        """The colouring work arrays of a step with these counts; None: rows in order."""
        return None

    def threads(self, colouring: Colouring) -> np.ndarray | None:
        """What a coloured step takes as ``threads``; None: one thread."""
        return None

    def step(self, contacts, bodies, gravity, dt: float, joints=None) -> int:
        """Move ``bodies`` through a step of ``dt`` s with ``contacts`` and ``joints`` (a
        world's :class:`~physbook.dynamics.joint_table.JointColumns`, or None); see the
        module doc. Returns the count of bodies whose state is no longer finite."""
        dt, joints = stage_input(contacts, bodies, gravity, dt, joints)
        count, body_count = len(contacts.bodies), len(bodies.kinds)
        work, motion, joint_work = self.work_views(
            count, body_count, None if joints is None else len(joints.kinds))
        settings = self.compiled_settings(dt)
        springs = settings.springs
        colouring = self.colouring(count, body_count)
        return solver_step(settings.soft, settings.impulse, contacts, bodies, work, motion,
                           joints, joint_work, gravity, dt, springs.contacts,
                           springs.static_contacts, springs.joints, colouring,
                           None if colouring is None else self.threads(colouring),
                           self.awake_rows(count))


class SequentialImpulseSolver(_CompiledSolver):
    """Sequential impulses: rigid contacts solved point by point, ``iterations`` passes.

    Parameters
    ----------
    iterations
        Velocity passes over all contact points per step (≥ 1).
    accumulate
        Clamp the accumulated impulse of a point (λ ≥ 0 in total) instead of each
        increment (j ≥ 0): later passes may then take back what earlier ones overdid.
    warm_starting
        Start each point from the impulses it received in the last step.
    position_correction
        How overlap is removed: ``"nonlinear"`` (a pass over positions after they are
        integrated, adding no energy), ``"baumgarte"`` (a push-out velocity in the solve),
        ``"projection"`` (chapter 9's linear projection) or ``"none"``.
    correction
        The fraction of the error removed per step (β): Baumgarte's bias factor, the
        non-linear pass's factor, or the projection's fraction; in [0, 1].
    slop
        Penetration (m) left alone, ≥ 0, so that resting contacts stay touching.
    position_iterations
        Passes of the non-linear position correction (≥ 1).
    max_correction
        Largest position correction of one point in one pass (m, > 0).
    restitution_threshold
        Approach speed (m/s) below which a contact does not bounce, ≥ 0.
    joint_hertz, joint_damping_ratio
        The soft constraint that removes a joint's position error (chapter 11): frequency
        (Hz, > 0, capped at a quarter of the step rate) and damping ratio (≥ 0).
    speculative_distance
        Shapes closer than this (m, ≥ 0), plus the distance their bodies can travel in the
        step, get a contact before they touch, which the solver lets close but not pass
        (chapter 13); 0 gives contacts only to shapes that touch.
    """

    iterations = Setting(_check.positive_int)
    speculative_distance = Setting(_check.non_negative_scalar)
    accumulate = Setting(_check.flag)
    warm_starting = Setting(_check.flag)
    position_correction = Setting(
        lambda value, name: _check.choice(value, name, POSITION_CORRECTIONS))
    correction = Setting(_fraction)
    slop = Setting(_check.non_negative_scalar)
    position_iterations = Setting(_check.positive_int)
    max_correction = Setting(_check.positive_scalar)
    restitution_threshold = Setting(_check.non_negative_scalar)
    joint_hertz = Setting(_check.positive_scalar)
    joint_damping_ratio = Setting(_damping_ratio)

    def __init__(self, iterations: int = SOLVER_ITERATIONS, *, accumulate: bool = True,
                 warm_starting: bool = True, position_correction: str = "nonlinear",
                 correction: float = BAUMGARTE_FACTOR, slop: float = LINEAR_SLOP,
                 position_iterations: int = POSITION_ITERATIONS,
                 max_correction: float = MAX_LINEAR_CORRECTION,
                 restitution_threshold: float = RESTITUTION_THRESHOLD,
                 joint_hertz: float = JOINT_HERTZ,
                 joint_damping_ratio: float = JOINT_DAMPING_RATIO,
                 speculative_distance: float = SPECULATIVE_DISTANCE):
        self.iterations = iterations
        self.speculative_distance = speculative_distance
        self.accumulate = accumulate
        self.warm_starting = warm_starting
        self.position_correction = position_correction
        self.correction = correction
        self.slop = slop
        self.position_iterations = position_iterations
        self.max_correction = max_correction
        self.restitution_threshold = restitution_threshold
        self.joint_hertz = joint_hertz
        self.joint_damping_ratio = joint_damping_ratio
        self._scratch = _Scratch()
        self._compiled = _CompiledSettings()

    def _settings(self) -> str:
        return (f"iterations={self.iterations}, accumulate={self.accumulate}, "
                f"warm_starting={self.warm_starting}, "
                f"position_correction={self.position_correction!r}, "
                f"correction={self.correction:g}, slop={self.slop:g}, "
                f"position_iterations={self.position_iterations}, "
                f"max_correction={self.max_correction:g}, "
                f"restitution_threshold={self.restitution_threshold:g}, "
                f"joint_hertz={self.joint_hertz:g}, "
                f"joint_damping_ratio={self.joint_damping_ratio:g}, "
                f"speculative_distance={self.speculative_distance:g}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._settings()})"

    def joint_softness(self, dt: float):
        """The :class:`~physbook.dynamics.contact_solver.Softness` of the joints for a step
        of ``dt`` s: ``joint_hertz`` capped at a quarter of the step rate."""
        return _capped_softness(self.joint_hertz, self.joint_damping_ratio,
                                _check.positive_scalar(dt, "dt"))

    def compiled_settings(self, dt: float) -> CompiledSettings:
        """The settings and softnesses of a step of ``dt`` s (checked), as
        :func:`~physbook.dynamics.solver_steps.solver_step` takes them; the soft step's
        settings are None."""
        return self._compiled.get(self, dt, lambda dt: CompiledSettings.of(
            None,
            ImpulseSettings(self.restitution_threshold, self.warm_starting, self.iterations,
                            self.accumulate,
                            POSITION_CORRECTIONS.index(self.position_correction),
                            self.correction, self.slop, self.position_iterations,
                            self.max_correction),
            Springs(_RIGID, _RIGID, self.joint_softness(dt))))


class ImpulseSolver(SequentialImpulseSolver):
    """The impulse method of chapter 9: the same stages with accumulation and warm starting
    switched off, and overlap removed by linear projection.

    Parameters
    ----------
    iterations
        Passes over all contact points per step (≥ 1).
    correction_fraction
        Fraction of the penetration beyond ``slop`` removed per step by positional
        correction, in [0, 1]; 0 switches the correction off.
    slop
        Penetration (m) allowed without correction, ≥ 0; it stops resting bodies from
        jittering between touching and not touching.
    restitution_threshold
        Approach speed (m/s) below which a contact does not bounce (e = 0), ≥ 0.
    speculative_distance
        As for :class:`SequentialImpulseSolver` (m, ≥ 0), but 0 by default: chapter 9's
        method gives contacts only to shapes that touch.
    """

    def __init__(self, iterations: int = SOLVER_ITERATIONS,
                 correction_fraction: float = CORRECTION_FRACTION, slop: float = LINEAR_SLOP,
                 restitution_threshold: float = RESTITUTION_THRESHOLD,
                 joint_hertz: float = JOINT_HERTZ,
                 joint_damping_ratio: float = JOINT_DAMPING_RATIO,
                 speculative_distance: float = 0.0):
        super().__init__(iterations, accumulate=False, warm_starting=False,
                         position_correction=POSITION_CORRECTIONS[PROJECTION],
                         correction=_fraction(correction_fraction, "correction_fraction"),
                         slop=slop, restitution_threshold=restitution_threshold,
                         joint_hertz=joint_hertz, joint_damping_ratio=joint_damping_ratio,
                         speculative_distance=speculative_distance)

    @property
    def correction_fraction(self) -> float:
        """Fraction of the penetration beyond the slop removed per step (the seed's
        ``percent``)."""
        return self.correction

    def __repr__(self) -> str:
        return (f"ImpulseSolver(iterations={self.iterations}, "
                f"correction_fraction={self.correction:g}, slop={self.slop:g}, "
                f"restitution_threshold={self.restitution_threshold:g}, "
                f"joint_hertz={self.joint_hertz:g}, "
                f"joint_damping_ratio={self.joint_damping_ratio:g}, "
                f"speculative_distance={self.speculative_distance:g})")


class SoftStepSolver(_CompiledSolver):
    """The soft step (Box2D v3): substeps, soft contacts, relaxing, restitution last.

    Parameters
    ----------
    substeps
        Substeps per step (≥ 1); each integrates, solves, moves and relaxes.
    relax_iterations
        Rigid passes without bias after each substep's positions (≥ 0).
    contact_hertz
        Frequency of the contact spring (Hz, > 0). It is capped at a quarter of the
        substep rate, beyond which the spring is too stiff for the substep. A resting
        contact sags by its load over m_eff·(2πf)², a length that does not shrink with
        the bodies: ten 1 mm plates collapse at 70 Hz and stand at 280 Hz with 32
        substeps (sag ∝ 1/f²).
    damping_ratio
        Damping ratio ζ of the contact spring (≥ 0; 1 is critical).
    static_hertz
        Frequency for contacts with a body of infinite mass (Hz, > 0); twice
        ``contact_hertz`` when None, so the ground is stiffer than a pile. Capped alike.
    push_out_speed
        Fastest speed (m/s, > 0) at which overlapping bodies are pushed apart.
    warm_starting
        Start each point from the impulses it received in the last step.
    speculative_distance
        Shapes closer than this (m, ≥ 0), plus the distance their bodies can travel in the
        step, get a contact before they touch, which the solver lets close but not pass.
    restitution_threshold
        Approach speed (m/s) below which a contact does not bounce, ≥ 0.
    joint_hertz, joint_damping_ratio
        The soft constraint that removes a joint's position error (chapter 11): frequency
        (Hz, > 0, capped at a quarter of the substep rate) and damping ratio (≥ 0).
    order
        The order in which a pass meets the contacts (one of :data:`ORDERS`).
        ``"colours"``, as Box2D v3 does: colour by colour, where no two contacts of a
        colour share a moving body (:mod:`physbook.dynamics.colouring`), up to 32 of a
        colour at a time in the processor's vector lanes (:mod:`physbook.dynamics.wide_pass`).
        ``"rows"``: one at a time in the contact table's order, as chapter 10 derives the
        pass; slower, and a different state, since the order is part of the solution a
        pass converges to.
    parallel
        Share each colour's contacts out among numba's threads (``numba.set_num_threads``
        sets how many); only with ``order="colours"``. The states are the same on any
        number of threads.
    """

    substeps = Setting(_check.positive_int)
    speculative_distance = Setting(_check.non_negative_scalar)
    relax_iterations = Setting(_check.non_negative_int)
    contact_hertz = Setting(_check.positive_scalar)
    damping_ratio = Setting(_damping_ratio)
    static_hertz = Setting(_optional_positive)
    push_out_speed = Setting(_check.positive_scalar)
    warm_starting = Setting(_check.flag)
    restitution_threshold = Setting(_check.non_negative_scalar)
    joint_hertz = Setting(_check.positive_scalar)
    joint_damping_ratio = Setting(_damping_ratio)
    order = Setting(lambda value, name: _check.choice(value, name, ORDERS))
    parallel = Setting(_check.flag)

    def __init__(self, substeps: int = SUBSTEPS, *, relax_iterations: int = 1,
                 contact_hertz: float = CONTACT_HERTZ,
                 damping_ratio: float = CONTACT_DAMPING_RATIO,
                 static_hertz: float | None = None, push_out_speed: float = PUSH_OUT_SPEED,
                 warm_starting: bool = True,
                 speculative_distance: float = SPECULATIVE_DISTANCE,
                 restitution_threshold: float = RESTITUTION_THRESHOLD,
                 joint_hertz: float = JOINT_HERTZ,
                 joint_damping_ratio: float = JOINT_DAMPING_RATIO, order: str = "colours",
                 parallel: bool = False):
        self.substeps = substeps
        self.speculative_distance = speculative_distance
        self.relax_iterations = relax_iterations
        self.contact_hertz = contact_hertz
        self.damping_ratio = damping_ratio
        self.static_hertz = static_hertz
        self.push_out_speed = push_out_speed
        self.warm_starting = warm_starting
        self.restitution_threshold = restitution_threshold
        self.joint_hertz = joint_hertz
        self.joint_damping_ratio = joint_damping_ratio
        self.order = order
        self.parallel = parallel
        self._scratch = _Scratch()
        self._compiled = _CompiledSettings()

    def _consistent(self, name: str, value) -> None:
        """Refuse a setting that contradicts another: parallel=True with order='rows'."""
        order = value if name == "order" else getattr(self, "_order", "colours")
        parallel = value if name == "parallel" else getattr(self, "_parallel", False)
        if parallel and order != "colours":
            raise ValueError("parallel=True needs order='colours': contacts taken one at a "
                             "time in row order cannot be shared out among threads")

    def __repr__(self) -> str:
        static = "None" if self.static_hertz is None else f"{self.static_hertz:g}"
        return (f"SoftStepSolver(substeps={self.substeps}, "
                f"relax_iterations={self.relax_iterations}, "
                f"contact_hertz={self.contact_hertz:g}, damping_ratio={self.damping_ratio:g}, "
                f"static_hertz={static}, push_out_speed={self.push_out_speed:g}, "
                f"warm_starting={self.warm_starting}, "
                f"speculative_distance={self.speculative_distance:g}, "
                f"restitution_threshold={self.restitution_threshold:g}, "
                f"joint_hertz={self.joint_hertz:g}, "
                f"joint_damping_ratio={self.joint_damping_ratio:g}, order={self.order!r}, "
                f"parallel={self.parallel})")

    def joint_softness(self, dt: float):
        """The :class:`~physbook.dynamics.contact_solver.Softness` of the joints for one
        substep of a step of ``dt`` s: ``joint_hertz`` capped at a quarter of the substep
        rate."""
        return _capped_softness(self.joint_hertz, self.joint_damping_ratio,
                                _check.positive_scalar(dt, "dt") / self.substeps)

    def springs(self, dt: float):
        """The :class:`~physbook.dynamics.contact_solver.Softness` of ordinary and static
        contacts for a step of ``dt`` s: the frequencies capped at a quarter of the
        substep rate."""
        h = _check.positive_scalar(dt, "dt") / self.substeps
        static = 2.0 * self.contact_hertz if self.static_hertz is None else self.static_hertz
        return (_capped_softness(self.contact_hertz, self.damping_ratio, h),
                _capped_softness(static, self.damping_ratio, h))

    def compiled_settings(self, dt: float) -> CompiledSettings:
        """The settings and softnesses of a step of ``dt`` s (checked), as
        :func:`~physbook.dynamics.solver_steps.solver_step` takes them; the impulse
        solvers' settings are None."""
        return self._compiled.get(self, dt, lambda dt: CompiledSettings.of(
            SoftSettings(self.substeps, self.relax_iterations, self.push_out_speed,
                         self.restitution_threshold, self.warm_starting),
            None, Springs(*self.springs(dt), self.joint_softness(dt))))

    def colouring(self, contacts: int, bodies: int) -> Colouring | None:
        """The colouring work arrays of a step with these counts, shared out among numba's
        threads when :attr:`parallel`, when the :attr:`order` is ``"colours"``; else None."""
        if self.order != "colours":
            return None
        colouring = self._scratch.colouring(contacts, bodies)
        if self.parallel:
            share_out(colouring)
        return colouring

    def threads(self, colouring: Colouring) -> np.ndarray | None:
        """What the coloured soft step takes as ``threads``: the colouring's ``chunks`` when
        this solver shares each colour out among numba's threads (:attr:`parallel`), else
        None, which compiles the step without them."""
        return colouring.chunks if self.parallel else None


#: Contact solvers by name; a World takes a name or a solver object with ``step``.
SOLVERS = {
    "impulse": ImpulseSolver,
    "sequential_impulses": SequentialImpulseSolver,
    "soft_step": SoftStepSolver,
}

#: The solver classes whose step a world can run inside its compiled step
#: (:mod:`physbook.compiled_step`): exactly these, not their subclasses.
COMPILED_SOLVERS = (ImpulseSolver, SequentialImpulseSolver, SoftStepSolver)

#: The solver a World gets when none is given.
DEFAULT_SOLVER = "soft_step"


def resolve_solver(name_or_solver):
    """Resolve a solver given by name (a default-configured one) or as an object.

    An object must have a callable ``step(contacts, bodies, gravity, dt)``; its
    ``speculative_distance`` (m, 0 when it has none) says how close shapes must come for
    the world to give them a contact before they touch.
    """
    if isinstance(name_or_solver, str):
        return SOLVERS[_check.choice(name_or_solver, "solver", SOLVERS)]()
    if isinstance(name_or_solver, type):
        raise TypeError(f"solver must be a solver object or a name, got the class "
                        f"{name_or_solver.__name__}; call it: {name_or_solver.__name__}()")
    if not callable(getattr(name_or_solver, "step", None)):
        raise TypeError(f"solver must be one of {sorted(SOLVERS)} or an object with a "
                        f"step(contacts, bodies, gravity, dt) method, got "
                        f"{type(name_or_solver).__name__}")
    _check.non_negative_scalar(getattr(name_or_solver, "speculative_distance", 0.0),
                               "solver.speculative_distance")
    return name_or_solver
