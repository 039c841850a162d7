"""The arguments of the Verlet kernels, taken from a world: shared by the Verlet tests."""

from __future__ import annotations

import numpy as np

from physbook.verlet import VerletWorld

DT = 1.0 / 60.0


def world_arrays(world: VerletWorld) -> dict:
    """The arguments of ``step_world`` for ``world``, as copies of the rows in use."""
    world._refresh_bodies()
    n, m, b = world.particle_count, world.edge_count, world.body_count
    bounds = world.bounds
    return {
        "positions": world._position[:n].copy(), "previous": world._previous[:n].copy(),
        "force": world._force[:n].copy(), "inverse_mass": world._inverse_mass[:n].copy(),
        "particle_count": n, "gravity_x": float(world.gravity[0]),
        "gravity_y": float(world.gravity[1]), "dt": DT, "damping": world.damping,
        "substeps": world.substeps, "iterations": world.iterations,
        "compliant": world.solver == "xpbd", "compliance": world.compliance,
        "multipliers": np.zeros(m), "has_bounds": bounds is not None,
        "bounds": np.zeros(4) if bounds is None else np.array(bounds),
        "edge_ends": world._edge_ends[:m].copy(), "rest_length": world._rest_length[:m].copy(),
        "edge_boundary": world._boundary[:m].copy(), "edge_count": m,
        "particle_start": world._body_particle_start[:b].copy(),
        "body_particle_count": world._body_particle_count[:b].copy(),
        "body_particles": world._body_particles[: world._body_particles_used].copy(),
        "edge_start": world._body_edge_start[:b].copy(),
        "body_edge_count": world._body_edge_count[:b].copy(),
        "body_edges": world._body_edges[: world._body_edges_used].copy(),
        "body_mass": world._body_mass[:b].copy(), "body_count": b,
        "centers": world._centers[:b].copy(), "boxes": world._boxes[:b].copy(),
    }
