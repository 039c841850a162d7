"""One step of the Verlet world: integrate, then iterate walls, edges and collisions.

The loop follows the seed article: forces → position Verlet → ``iterations`` passes, each
keeping particles inside the world's bounds, projecting every edge, recomputing the bodies'
centres and boxes, and resolving vertex–edge collisions between bodies whose boxes overlap.
More passes buy more rigidity, because each pass undoes part of what the previous edge
corrections did to their shared vertices.

The same loop runs the compliant (XPBD) form: the step is split into ``substeps`` substeps of
h = dt / substeps, each with its own integration, and edges are projected with compliance α
through Lagrange multipliers reset at the start of each substep.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.verlet import _arguments as arguments
from physbook.verlet.collide import collide_bodies, update_bodies
from physbook.verlet.constraints import satisfy_edges_compliant_unchecked, satisfy_edges_unchecked
from physbook.verlet.integrate import integrate_particles_unchecked, keep_in_bounds


@njit
def step_world_unchecked(positions, previous, force, inverse_mass, particle_count, gravity_x,
                         gravity_y, dt, damping, substeps, iterations, compliant, compliance,
                         multipliers, has_bounds, bounds, edge_ends, rest_length,
                         edge_boundary, edge_count, particle_start, body_particle_count,
                         body_particles, edge_start, body_edge_count, body_edges, body_mass,
                         body_count, centers, boxes):
    """Advance the whole world by ``dt`` seconds, in place. Returns collision responses made.

    ``compliant`` selects the XPBD edge projection with compliance α = ``compliance`` (m/N);
    otherwise edges are projected rigidly. ``bounds`` is (x_min, y_min, x_max, y_max) in m.
    """
    h = dt / substeps
    alpha_tilde = compliance / h / h  # α / h², divided twice so that h² cannot underflow to 0
    responses = 0
    for _ in range(substeps):
        integrate_particles_unchecked(positions, previous, force, inverse_mass, particle_count,
                             gravity_x, gravity_y, h, damping)
        if compliant:
            multipliers[:edge_count] = 0.0
        for _ in range(iterations):
            if has_bounds:
                keep_in_bounds(positions, inverse_mass, particle_count,
                                bounds[0], bounds[1], bounds[2], bounds[3])
            if compliant:
                satisfy_edges_compliant_unchecked(positions, inverse_mass, edge_ends, rest_length,
                                         edge_count, multipliers, alpha_tilde)
            else:
                satisfy_edges_unchecked(positions, inverse_mass, edge_ends, rest_length, edge_count)
            if body_count > 1:
                update_bodies(positions, particle_start, body_particle_count, body_particles,
                               body_count, centers, boxes)
                responses += collide_bodies(positions, inverse_mass, edge_ends, edge_boundary,
                                             particle_start, body_particle_count,
                                             body_particles, edge_start, body_edge_count,
                                             body_edges, body_mass, body_count, centers, boxes)
        if has_bounds:
            # a last clamp, so that no particle ends a step outside the walls
            keep_in_bounds(positions, inverse_mass, particle_count,
                            bounds[0], bounds[1], bounds[2], bounds[3])
    return responses


def substep_length(dt: float, substeps: int) -> float:
    """The substep h = dt / substeps (s); refuses a ``dt`` so small that h rounds to 0."""
    h = dt / substeps
    if h == 0.0:
        raise ValueError(f"dt must be at least substeps × 5e-324 s, so that each of the "
                         f"{substeps} substeps lasts longer than 0 s; got dt = {dt}")
    return h


def compliance_per_substep(compliance: float, h: float) -> float:
    """XPBD's α̃ = α / h² (1/kg); refuses a compliance and substep whose ratio overflows."""
    alpha_tilde = compliance / h / h
    if not math.isfinite(alpha_tilde):
        raise ValueError(f"compliance / h² overflows for compliance {compliance} m/N and a "
                         f"substep h = dt / substeps = {h} s: use a smaller compliance or a "
                         "larger dt")
    return alpha_tilde


@arguments.shows(step_world_unchecked)
def step_world(positions: np.ndarray, previous: np.ndarray, force, inverse_mass,
               particle_count: int, gravity_x: float, gravity_y: float, dt: float,
               damping: float, substeps: int, iterations: int, compliant: bool,
               compliance: float, multipliers: np.ndarray, has_bounds: bool, bounds,
               edge_ends, rest_length, edge_boundary, edge_count: int, particle_start,
               body_particle_count, body_particles, edge_start, body_edge_count, body_edges,
               body_mass, body_count: int, centers: np.ndarray, boxes: np.ndarray) -> int:
    """Advance a world held in these arrays by ``dt`` seconds, in place; return the responses.

    The arrays are a :class:`~physbook.verlet.world.VerletWorld`'s: particles (positions,
    previous, force, inverse_mass), edges (edge_ends, rest_length, edge_boundary,
    multipliers) and bodies in compressed rows (body b owns ``body_particles[particle_start[b]
    : particle_start[b] + body_particle_count[b]]``, likewise its edges), with ``centers``
    and ``boxes`` as scratch. Raises ``FloatingPointError``, with every written array
    restored, when the step overflows.
    """
    positions = arguments.in_place(positions, "positions", 2)
    previous = arguments.in_place(previous, "previous", 2)
    force = arguments.values(force, "force", 2)
    inverse_mass = arguments.values(inverse_mass, "inverse_mass", minimum=0.0)
    particle_count = arguments.count(particle_count, "particle_count", {
        "positions": positions, "previous": previous, "force": force,
        "inverse_mass": inverse_mass})
    gravity_x = _check.finite_scalar(gravity_x, "gravity_x")
    gravity_y = _check.finite_scalar(gravity_y, "gravity_y")
    dt = _check.positive_scalar(dt, "dt")
    damping = arguments.fraction(damping, "damping")
    substeps = _check.positive_int(substeps, "substeps")
    iterations = _check.positive_int(iterations, "iterations")
    compliant = _check.flag(compliant, "compliant")
    compliance = _check.non_negative_scalar(compliance, "compliance")
    h = substep_length(dt, substeps)
    if compliant:
        compliance_per_substep(compliance, h)
    multipliers = arguments.in_place(multipliers, "multipliers")
    has_bounds = _check.flag(has_bounds, "has_bounds")
    bounds = arguments.bounds_box(bounds, "bounds") if has_bounds else np.zeros(4)
    edge_ends = arguments.indices(edge_ends, "edge_ends", len(positions), 2, "positions")
    rest_length = arguments.values(rest_length, "rest_length", minimum=0.0)
    edge_boundary = arguments.flags(edge_boundary, "edge_boundary")
    edge_count = arguments.count(edge_count, "edge_count", {
        "edge_ends": edge_ends, "rest_length": rest_length, "edge_boundary": edge_boundary,
        "multipliers": multipliers})
    particle_start, body_particle_count, body_particles = arguments.body_rows(
        particle_start, body_particle_count, body_particles,
        ("particle_start", "body_particle_count", "body_particles"), len(positions),
        "positions", least=1)
    edge_start, body_edge_count, body_edges = arguments.body_rows(
        edge_start, body_edge_count, body_edges,
        ("edge_start", "body_edge_count", "body_edges"), len(edge_ends), "edge_ends")
    body_mass = arguments.values(body_mass, "body_mass", positive=True)
    centers = arguments.in_place(centers, "centers", 2)
    boxes = arguments.in_place(boxes, "boxes", 4)
    body_count = arguments.count(body_count, "body_count", {
        "particle_start": particle_start, "edge_start": edge_start, "body_mass": body_mass,
        "centers": centers, "boxes": boxes})
    return int(arguments.run_in_place(
        step_world_unchecked,
        (positions, previous, force, inverse_mass, particle_count, gravity_x, gravity_y, dt,
         damping, substeps, iterations, compliant, compliance, multipliers, has_bounds, bounds,
         edge_ends, rest_length, edge_boundary, edge_count, particle_start,
         body_particle_count, body_particles, edge_start, body_edge_count, body_edges,
         body_mass, body_count, centers, boxes),
        {"positions": positions, "previous": previous, "multipliers": multipliers,
         "centers": centers, "boxes": boxes},
        "positions, previous, force, inverse_mass, gravity_x, gravity_y, dt, rest_length "
        "and compliance"))
