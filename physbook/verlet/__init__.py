"""Chapter 5: a position-based (Verlet) engine of particles, edges and convex bodies.

``VerletWorld`` holds everything in arrays; the compiled kernels it runs live in the
sub-modules, one idea each:

- :mod:`~physbook.verlet.integrate`: position Verlet and the walls;
- :mod:`~physbook.verlet.constraints`: distance constraints, rigid and compliant (XPBD);
- :mod:`~physbook.verlet.collide`: SAT over boundary edges and the vertex–edge response;
- :mod:`~physbook.verlet.solver`: the step that ties them together;
- :mod:`~physbook.verlet.world`: the world and its arrays of particles, edges and bodies;
- :mod:`~physbook.verlet.handles`: body handles, contacts and snapshots;
- :mod:`~physbook.verlet.factories`: boxes, polygons, ropes and cloth;
- :mod:`~physbook.verlet.interaction`: picking, dragging and collisions run by hand;
- :mod:`~physbook.verlet.scenes`: the seed's demo and a hanging cloth.

The kernels the book shows (``integrate_particles``, ``satisfy_edges``, ``find_contact``, …)
are exported in checked form: each checks its arrays, counts and indices before the compiled
loop runs, since that loop indexes without bounds checks. The world calls the loops directly.
"""

from physbook.verlet.collide import find_contact, respond_vertex_edge
from physbook.verlet.constraints import satisfy_edges, satisfy_edges_compliant
from physbook.verlet.handles import VerletBody, VerletContact, VerletSnapshot
from physbook.verlet.integrate import integrate_particles
from physbook.verlet.scenes import hanging_cloth, verlet_demo_world
from physbook.verlet.solver import step_world
from physbook.verlet.world import VerletWorld

__all__ = [
    "VerletBody",
    "VerletContact",
    "VerletSnapshot",
    "VerletWorld",
    "find_contact",
    "hanging_cloth",
    "integrate_particles",
    "respond_vertex_edge",
    "satisfy_edges",
    "satisfy_edges_compliant",
    "step_world",
    "verlet_demo_world",
]
