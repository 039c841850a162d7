"""Layer 3, collision detection (chapters 6–8; chapter 13 adds time of impact, chapter 15
shapes with a radius and chains).

- :mod:`~physbook.collision.features`: feature ids that name a contact point over steps;
- :mod:`~physbook.collision.aabb_contacts`: manifolds of axis-aligned boxes and circles,
  written plainly (chapter 6);
- :mod:`~physbook.collision.sat`: the separating axis theorem and clipping (chapter 7);
- :mod:`~physbook.collision.manifold`: the narrow phase, one compiled kernel for every pair
  of shapes (chapters 6–7);
- :mod:`~physbook.collision.gjk`: support functions, GJK distance and EPA depth (chapter 8);
- :mod:`~physbook.collision.shape_queries`: point, ray and box against one shape (chapter 12);
- :mod:`~physbook.collision.core_distance`: exact closest features of two cores, the points,
  segments and polygons that shapes with a radius grow from (chapter 15);
- :mod:`~physbook.collision.round_manifold`: capsules, and rounded polygons corner to corner
  (chapter 15);
- :mod:`~physbook.collision.chain_manifold`: one-sided chain segments that use only the
  normals their neighbours leave them (chapter 15).

Imports layers 0–2 only.
"""

from physbook.collision import (
    aabb_contacts,
    chain_manifold,
    core_distance,
    features,
    gjk,
    manifold,
    round_manifold,
    sat,
    shape_queries,
)

__all__ = ["aabb_contacts", "chain_manifold", "core_distance", "features", "gjk", "manifold",
           "round_manifold", "sat", "shape_queries"]
