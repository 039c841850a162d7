"""Ready-made Verlet scenes shared by the book, the tests and the benchmarks."""

from __future__ import annotations

from physbook import _check
from physbook.verlet.world import VerletBody, VerletWorld


def verlet_demo_world(iterations: int = 10, columns: int = 8, rows: int = 5,
                      triangles: int = 6) -> tuple[VerletWorld, list[VerletBody]]:
    """The seed article's demo in SI units: rows of 1 m boxes and a row of triangles released
    in a walled 16 m × 12 m screen. Returns the world and its bodies."""
    iterations = _check.positive_int(iterations, "iterations")
    columns = _check.non_negative_int(columns, "columns")
    rows = _check.non_negative_int(rows, "rows")
    triangles = _check.non_negative_int(triangles, "triangles")
    if columns > 8 or rows > 5 or triangles > 6:
        raise ValueError("the screen holds at most 8 columns, 5 rows and 6 triangles")
    world = VerletWorld(gravity=(0.0, -10.0), iterations=iterations, bounds=(0.0, 0.0, 16.0, 12.0))
    bodies = []
    for i in range(columns):
        for j in range(rows):
            bodies.append(world.add_box((0.9 + 2.0 * i, 10.5 - 2.0 * j), 1.0, 1.0))
    for k in range(triangles):
        bodies.append(world.add_triangle((2.0 + 2.6 * k, 11.4), 2.0, 0.9))
    return world, bodies


def hanging_cloth(columns: int = 100, rows: int = 100, iterations: int = 10,
                  tear_ratio: float | None = None) -> tuple[VerletWorld, object]:
    """A square cloth, 10 m a side, hanging from its two top corners in an open world.

    Returns the world and the (rows, columns) array of particle indices.
    """
    world = VerletWorld(gravity=(0.0, -10.0), iterations=iterations)
    grid = world.add_cloth((-5.0, 10.0), 10.0, 10.0, columns, rows, mass=1.0,
                           pin="corners", tear_ratio=tear_ratio)
    return world, grid
