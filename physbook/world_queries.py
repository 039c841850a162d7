"""Chapters 12 and 16: what a world answers about where its shapes are — boxes, points,
rays, shapes cast and placed — and the one query that pushes back, an explosion.

:class:`WorldQueries` is part of :class:`~physbook.world.World` (its base class), kept in a
module of its own: each method hands the question to the world's query index or to the
module that answers it.
"""

from __future__ import annotations

from physbook.explosion import BlastHit, explode
from physbook.geometry.shape_filter import Filter
from physbook.queries import RayHit, ShapeRef
from physbook.shape_cast import CastHit, cast_shape, overlap_shape


class WorldQueries:
    """The queries of :class:`~physbook.world.World` (which holds ``_queries``, its
    :class:`~physbook.queries.QueryIndex`)."""

    def query_aabb(self, lower, upper, filter: Filter | None = None  # noqa: A002
                   ) -> list[ShapeRef]:
        """The shapes overlapping the box from ``lower`` to ``upper`` (m; touching counts),
        ordered by shape id. ``filter``: report only shapes it would collide with."""
        return self._queries.box(lower, upper, filter)

    def query_point(self, point, filter: Filter | None = None  # noqa: A002
                    ) -> list[ShapeRef]:
        """The shapes containing ``point`` (m; their boundary counts), by shape id."""
        return self._queries.point(point, filter)

    def ray_cast(self, origin, translation, filter: Filter | None = None  # noqa: A002
                 ) -> RayHit | None:
        """The first shape the ray from ``origin`` along ``translation`` (m) hits, or None.

        The ray covers origin + t·translation for t from 0 to 1; a shape the ray starts
        inside is not hit. Sensors are never hit.
        """
        hits = self._queries.ray(origin, translation, filter)
        return hits[0] if hits else None

    def ray_cast_all(self, origin, translation, filter: Filter | None = None  # noqa: A002
                     ) -> list[RayHit]:
        """Every shape the ray hits (see :meth:`ray_cast`), nearest first."""
        return self._queries.ray(origin, translation, filter)

    def cast_shape(self, shape, position, angle: float, translation,
                   filter: Filter | None = None  # noqa: A002
                   ) -> CastHit | None:
        """The first shape that ``shape``, placed at ``position`` and ``angle`` (m, rad),
        touches when moved by ``translation`` (m) without turning, or None: a ray cast with
        a body, through the tree (:func:`physbook.shape_cast.cast_shape`, chapter 16). A
        shape touched at the start is hit at fraction 0. Sensors are never hit."""
        return cast_shape(self, shape, position, angle, translation, filter)

    def overlap_shape(self, shape, position, angle: float = 0.0,
                      filter: Filter | None = None  # noqa: A002
                      ) -> list[ShapeRef]:
        """The shapes that ``shape``, placed at ``position`` and ``angle`` (m, rad),
        overlaps or touches, by shape id (:func:`physbook.shape_cast.overlap_shape`)."""
        return overlap_shape(self, shape, position, angle, filter)

    def explode(self, center, radius: float, impulse: float, falloff: float = 0.0,
                filter: Filter | None = None  # noqa: A002
                ) -> list[BlastHit]:
        """Push every dynamic shape within ``radius`` (m) of ``center`` (m) away from it,
        by ``impulse`` (N·s) per metre of its width facing the blast, falling off linearly
        over ``falloff`` (m) beyond; the bodies wake (:func:`physbook.explosion.explode`,
        chapter 16). Returns what each shape received."""
        return explode(self, center, radius, impulse, falloff, filter)
