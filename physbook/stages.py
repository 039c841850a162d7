"""The stages of one time step, named once, in the order :meth:`World.step
<physbook.world.World.step>` runs them, and the small kernels some of them are made of.

A world steps in one of two ways (:mod:`physbook.compiled_step`): with the library's own
broad phase and solver, as one compiled call (:func:`~physbook.compiled_step.compiled_step`);
with a broad phase or solver of the user's, stage by stage from Python
(:meth:`StepDriver.run_staged <physbook.step_driver.StepDriver.run_staged>`). Both call
the kernels of :data:`STEP_STAGES` in its order, and only the broad phase's pairs and the
solver's call differ between them; ``tests/test_stages.py`` reads both drivers and checks it,
and ``tests/test_compiled_step.py`` checks that both give the same states, bit for bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook._jit import njit
from physbook.broadphase.filters import ShapeFilters, shape_filters
from physbook.broadphase.pairs import ShapeBoxes
from physbook.dynamics.motion import speculative_margins, sweep_boxes
from physbook.dynamics.snapshot import first_non_finite_fast
from physbook.events import contact_states_into
from physbook.geometry.shape_table import shape_aabbs


class Stage(NamedTuple):
    """One stage of a step: its ``name``, the ``chapter`` that builds it, what it
    ``reads`` and ``writes``, a one-line ``summary``, and the ``kernels``: the names of the
    functions that run it, which both drivers call (the solve stage's second is the
    ``step`` method of a solver the world was given)."""

    name: str
    chapter: int
    reads: str
    writes: str
    summary: str
    kernels: tuple[str, ...]


#: The stages of :meth:`World.step <physbook.world.World.step>`, in the order a step runs
#: them.
STEP_STAGES = (
    Stage("check", 4, "body state", "nothing",
          "refuse a state written into the arrays that is not finite", ("check_state",)),
    Stage("save", 4, "awake, sleep times, origins, forces, island labels", "saved state",
          "keep what waking writes, to undo a step that fails", ("save_step_start",)),
    Stage("wake", 11, "body state, island labels", "awake, sleep times",
          "a sleeping body given a push, or moved, wakes with its island; with nothing "
          "awake the step ends here", ("wake_before_step",)),
    Stage("save motion", 4, "body motion", "saved state",
          "once something is awake, keep the motion the step will change",
          ("save_motion",)),
    Stage("margins", 10, "velocities, shape reaches", "shape margins, body drifts",
          "how close two shapes may come within the step: a speculative contact's reach",
          ("step_margins",)),
    Stage("broad phase", 12, "poses, margins, filters", "shape pairs",
          "pairs of shapes whose boxes overlap and whose filters let them collide",
          ("boxes_and_filters", "drop_joined")),
    Stage("sensors", 12, "shape pairs, sensor flags", "sensor overlaps",
          "a sensor's pairs get an overlap test instead of a contact",
          ("split_sensor_pairs",)),
    Stage("narrow phase", 6, "shape pairs, poses", "contacts",
          "each pair's manifold; a point seen last step keeps its impulses",
          ("update_contacts",)),
    Stage("wake touched", 11, "contacts, joints", "awake",
          "a sleeping island an awake body now touches wakes", ("wake_touched",)),
    Stage("solve", 10, "contacts, joints, forces, gravity", "velocities, poses, impulses",
          "in substeps: forces and gravity into velocities, joint and contact impulses, "
          "velocities into poses", ("solver_step", "step")),
    Stage("events", 12, "contacts, saved motion", "touching pairs, hits",
          "which pairs touch and which hit, from the motion before the step",
          ("contact_events_into",)),
    Stage("finite check", 4, "body state", "nothing",
          "a state the step made non-finite undoes the step", ("check_state",)),
    Stage("continuous collision", 13, "saved poses, poses, shapes", "poses",
          "a fast body is put back at its time of impact", ("may_stop_fast",)),
    Stage("sleep", 11, "velocities, contacts, joints", "awake, sleep times, island labels",
          "islands at rest long enough fall asleep", ("update_islands",)),
    Stage("clear forces", 4, "nothing", "forces, torques",
          "forces act for one step only", ("clear_forces",)),
)


@njit(refcounted=False)
def check_state(bodies) -> int:
    """The check stages: the code of :func:`~physbook.dynamics.snapshot.first_non_finite`
    for the body columns a step reads and writes (−1 when every one is finite)."""
    return first_non_finite_fast(bodies.centers, bodies.angles, bodies.velocities,
                                 bodies.angular_velocities, bodies.forces, bodies.torques,
                                 bodies.gravity_scales, bodies.origins)


@njit(refcounted=False)
def step_margins(shape_bodies, reaches, bodies, distance, dt, margins, drifts):
    """The margins stage: each shape's speculative margin (m) into ``margins`` (S,) and
    each body's drift over the step into ``drifts`` (B, 2), for a solver that takes
    speculative contacts within ``distance`` (m; see
    :func:`~physbook.dynamics.motion.speculative_margins`), else zero: touching only.
    ``reaches`` (S,) is the first of :func:`~physbook.continuous.shape_reaches`."""
    if distance > 0.0:
        speculative_margins(shape_bodies, reaches, bodies, distance, dt, margins, drifts)
    else:
        margins[:] = 0.0
        drifts[:] = 0.0


@njit(refcounted=False)
def boxes_and_filters(shapes, bodies, filter_columns, margins, drifts, lower, upper,
                      filters):
    """What the broad phase reads: each shape's world box grown by its margin and swept
    along its body's drift over the step (``lower``, ``upper`` (S, 2), m;
    :func:`~physbook.dynamics.motion.sweep_boxes`) and its filter (``filters``, a
    :class:`~physbook.broadphase.filters.ShapeFilters`), from the shapes' filter columns
    and the bodies' kinds."""
    shape_aabbs(shapes, bodies.origins, bodies.angles, margins, lower, upper)
    sweep_boxes(shapes.body, drifts, lower, upper)
    shape_filters(shapes.body, filter_columns.category, filter_columns.mask,
                  filter_columns.group, bodies.kinds, filters)


@njit(refcounted=False)
def contact_events_into(contacts, saved, dt, hit_speed, events, touching):
    """The events stage: :func:`~physbook.events.contact_states` of the contact rows, with
    the centres and velocities ``saved`` before the step, written into ``events`` (the
    :class:`~physbook.events.EventBuffers`); returns the fields of an
    :class:`~physbook.events.EventCounts` (a plain tuple: see
    :func:`~physbook.continuous.reach_arrays`), ``touching`` being last step's keys."""
    keys = events.keys
    touch_count, hit_count = contact_states_into(
        contacts.shape_ids, contacts.bodies, contacts.point_counts, contacts.normals,
        contacts.points, contacts.depths, contacts.flags, saved.centers, saved.velocities,
        saved.angular_velocities, dt, hit_speed, keys, events.hit_ids, events.hit_points,
        events.hit_normals, events.hit_speeds)
    if touch_count != touching.shape[0]:
        return touch_count, hit_count, True
    for k in range(touch_count):
        if keys[k] != touching[k]:
            return touch_count, hit_count, True
    return touch_count, hit_count, False


def broad_phase_input(world) -> tuple[ShapeBoxes, ShapeFilters]:
    """What the broad phase of ``world`` would see now (chapter 12): every shape's world box
    (:class:`~physbook.broadphase.pairs.ShapeBoxes`, no margin) and filter
    (:class:`~physbook.broadphase.filters.ShapeFilters`), new arrays."""
    shapes, bodies, columns = world.shapes.arrays, world.bodies.arrays, world.shapes.filters
    count = len(shapes.ids)
    boxes = ShapeBoxes(np.zeros((count, 2)), np.zeros((count, 2)))
    shape_aabbs(shapes, bodies.origins, bodies.angles, np.zeros(count), boxes.lower,
                boxes.upper)
    filters = ShapeFilters(*(np.zeros(count, np.int64) for _ in range(4)),
                           np.zeros(count, np.bool_))
    shape_filters(shapes.body, columns.category, columns.mask, columns.group, bodies.kinds,
                  filters)
    return boxes, filters


@njit(refcounted=False)
def clear_forces(bodies):
    """The last stage: forces and torques act for one step only."""
    bodies.forces[:] = 0.0
    bodies.torques[:] = 0.0
