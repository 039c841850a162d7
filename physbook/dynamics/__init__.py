"""Layer 4, dynamics: bodies, contacts and the solvers that move them (chapters 4, 9 and
10; chapter 11 adds joints and islands).

- :mod:`~physbook.dynamics.materials`: materials, their presets and pair mixing (chapter 4);
- :mod:`~physbook.dynamics.body_table`: the body columns with stable ids (chapter 4);
- :mod:`~physbook.dynamics.body`: the handle to one body (chapter 4);
- :mod:`~physbook.dynamics.motion`: integrating velocities and positions (chapter 4);
- :mod:`~physbook.dynamics.contact_table`: contacts kept from step to step (chapter 9);
- :mod:`~physbook.dynamics.contact_solver`: the stages of every contact solver:
  impulses, restitution, friction, warm starting, soft contacts (chapters 9–10);
- :mod:`~physbook.dynamics.joint_table`, :mod:`~physbook.dynamics.joint_solver`,
  :mod:`~physbook.dynamics.joints`: joints, their columns and their stages (chapter 11);
- :mod:`~physbook.dynamics.solver_steps`: each solver's compiled step (chapters 9–11);
- :mod:`~physbook.dynamics.solvers`: the solvers, by name (chapters 9–10);
- :mod:`~physbook.dynamics.lcp`: a step's contacts as one complementarity problem, written
  out densely, with projected Gauss–Seidel and Jacobi on it (chapter 10);
- :mod:`~physbook.dynamics.block_solver`, :mod:`~physbook.dynamics.split_impulses`: Box2D
  v2's two-point block solver and Chipmunk's split impulses (chapter 10);
- :mod:`~physbook.dynamics.islands`: islands of touching bodies, and sleep (chapter 11).

Imports layers 0–3, but never the broad phase: stages take arrays, not worlds.
"""

from physbook.dynamics import (
    block_solver,
    body,
    body_table,
    contact_solver,
    contact_table,
    islands,
    joint_solver,
    joint_table,
    joints,
    lcp,
    materials,
    motion,
    solver_steps,
    solvers,
    split_impulses,
)

__all__ = ["block_solver", "body", "body_table", "contact_solver", "contact_table", "islands",
           "joint_solver", "joint_table", "joints", "lcp", "materials", "motion",
           "solver_steps", "solvers", "split_impulses"]
