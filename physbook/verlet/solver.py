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

from physbook._jit import njit
from physbook.verlet.collide import collide_bodies, update_bodies
from physbook.verlet.constraints import satisfy_edges, satisfy_edges_compliant
from physbook.verlet.integrate import integrate_particles, keep_in_bounds


@njit
def step_world(positions, previous, force, inverse_mass, particle_count, gravity_x, gravity_y,
               dt, damping, substeps, iterations, compliant, compliance, multipliers,
               has_bounds, bounds, edge_ends, rest_length, edge_boundary, edge_count,
               particle_start, body_particle_count, body_particles, edge_start,
               body_edge_count, body_edges, body_mass, body_count, centers, boxes):
    """Advance the whole world by ``dt`` seconds, in place. Returns collision responses made.

    ``compliant`` selects the XPBD edge projection with compliance α = ``compliance`` (m/N);
    otherwise edges are projected rigidly. ``bounds`` is (x_min, y_min, x_max, y_max) in m.
    """
    h = dt / substeps
    alpha_tilde = compliance / (h * h)
    responses = 0
    for _ in range(substeps):
        integrate_particles(positions, previous, force, inverse_mass, particle_count,
                            gravity_x, gravity_y, h, damping)
        if compliant:
            multipliers[:edge_count] = 0.0
        for _ in range(iterations):
            if has_bounds:
                keep_in_bounds(positions, inverse_mass, particle_count,
                               bounds[0], bounds[1], bounds[2], bounds[3])
            if compliant:
                satisfy_edges_compliant(positions, inverse_mass, edge_ends, rest_length,
                                        edge_count, multipliers, alpha_tilde)
            else:
                satisfy_edges(positions, inverse_mass, edge_ends, rest_length, edge_count)
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
