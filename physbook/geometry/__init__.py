"""Layer 2, geometry (chapter 4; chapter 14 adds hulls and decomposition).

- :mod:`~physbook.geometry.shapes`: circles, convex polygons (sharp or rounded), boxes, mass
  properties;
- :mod:`~physbook.geometry.round_shapes`: capsules, segments and chains (chapter 15), with
  :mod:`~physbook.geometry.round_mass` the exact mass of shapes with a radius;
- :mod:`~physbook.geometry.mass`: the mass of a body made of several shapes;
- :mod:`~physbook.geometry.shape_table`: shapes packed into arrays, with stable ids, and
  their world bounding boxes;
- :mod:`~physbook.geometry.hull`: orientation, simplicity, convexity and convex hulls;
- :mod:`~physbook.geometry.decompose`: triangulation and convex decomposition.

Imports layers 0–1 only.
"""

from physbook.geometry import (
    decompose,
    hull,
    mass,
    round_mass,
    round_shapes,
    shape_table,
    shapes,
)

__all__ = ["decompose", "hull", "mass", "round_mass", "round_shapes", "shape_table", "shapes"]
