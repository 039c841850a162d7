"""The contact solvers a world can be given by name.

A solver is a stage: an object with ``solve(contacts, bodies, dt)`` that receives the
contact table's columns (:class:`~physbook.dynamics.contact_table.ContactColumns`) and the
body columns (:class:`~physbook.dynamics.body_table.BodyArrays`), changes the bodies'
velocities (and maybe their centres) and stores the impulses it gave in the contacts.
"""

from __future__ import annotations

from physbook import _check
from physbook.dynamics.impulse_solver import ImpulseSolver

#: Contact solvers by name; a World takes a name or a solver object with ``solve``.
SOLVERS = {"impulse": ImpulseSolver}


def contact_solver(name_or_solver):
    """Resolve a solver given by name (a default-configured one) or as an object."""
    if callable(getattr(name_or_solver, "solve", None)):
        return name_or_solver
    name = _check.choice(name_or_solver, "solver", SOLVERS)
    return SOLVERS[name]()
