"""Layer 1, vector mathematics (chapters 1–3).

- :mod:`~physbook.vecmath.vec`: vectors, rotations, transforms, lines (chapter 1);
- :mod:`~physbook.vecmath.kernels`: the same algebra on plain floats for compiled loops;
- :mod:`~physbook.vecmath.integrate`: integrators of Newton's equations (chapter 2);
- :mod:`~physbook.vecmath.timestep`: the fixed timestep of a game loop (chapter 3).

Imports only layer 0 (``_jit``, ``_check``, ``constants``).
"""

from physbook.vecmath import integrate, kernels, timestep, vec

__all__ = ["integrate", "kernels", "timestep", "vec"]
