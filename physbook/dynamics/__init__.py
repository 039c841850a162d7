"""Layer 4, dynamics: bodies, contacts and the solvers that move them (chapters 4 and 9;
chapters 10–11 add solvers, joints and islands).

- :mod:`~physbook.dynamics.materials`: materials, their presets and pair mixing (chapter 4);
- :mod:`~physbook.dynamics.body_table`: the body columns with stable ids (chapter 4);
- :mod:`~physbook.dynamics.body`: the handle to one body (chapter 4);
- :mod:`~physbook.dynamics.motion`: integrating velocities and positions (chapter 4);
- :mod:`~physbook.dynamics.contact_table`: contacts kept from step to step (chapter 9);
- :mod:`~physbook.dynamics.impulse_solver`: impulses, restitution, friction (chapter 9);
- :mod:`~physbook.dynamics.solvers`: the solvers by name.

Imports layers 0–3, but never the broad phase: stages take arrays, not worlds.
"""

from physbook.dynamics import (
    body,
    body_table,
    contact_table,
    impulse_solver,
    materials,
    motion,
    solvers,
)

__all__ = ["body", "body_table", "contact_table", "impulse_solver", "materials", "motion",
           "solvers"]
