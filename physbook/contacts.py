"""Contacts that persist from step to step.

After the narrow phase, a world keeps the touching shape pairs in a :class:`Contacts` table
(structure of arrays, one row per touching pair, up to two points per row). A point is the
same point in the next step when its shape pair and its feature id are the same: then it
keeps the impulses it received, so that a solver can start from them (warm starting).
"""

from __future__ import annotations

import numpy as np

from physbook._jit import njit


@njit
def pairs_are_sorted(pairs) -> bool:
    """True when every row has ``a < b`` and the rows increase by ``a``, then ``b``."""
    for k in range(pairs.shape[0]):
        if pairs[k, 0] >= pairs[k, 1]:
            return False
        if k > 0:
            if pairs[k, 0] < pairs[k - 1, 0]:
                return False
            if pairs[k, 0] == pairs[k - 1, 0] and pairs[k, 1] <= pairs[k - 1, 1]:
                return False
    return True


def canonical_pairs(pairs) -> np.ndarray:
    """Pairs as ``(min, max)`` rows sorted by first then second index, duplicates dropped.

    The contact table matches points of consecutive steps by walking two sorted lists, so
    every broad phase's output passes through here (a no-op check for the built-in ones).
    """
    pairs = np.ascontiguousarray(pairs, dtype=np.int64).reshape(-1, 2)
    if pairs_are_sorted(pairs):
        return pairs
    ordered = np.sort(pairs, axis=1)
    ordered = ordered[ordered[:, 0] != ordered[:, 1]]
    return np.unique(ordered, axis=0)


@njit
def _carry_kernel(pairs, counts, normals, points, depths, features,
                  old_pairs, old_counts, old_features, old_normal, old_tangent):
    touching = 0
    for p in range(counts.shape[0]):
        if counts[p] > 0:
            touching += 1
    out_pairs = np.empty((touching, 2), np.int64)
    out_counts = np.empty(touching, np.int64)
    out_normals = np.empty((touching, 2))
    out_points = np.zeros((touching, 2, 2))
    out_depths = np.zeros((touching, 2))
    out_features = np.full((touching, 2), -1, np.int64)
    out_normal = np.zeros((touching, 2))
    out_tangent = np.zeros((touching, 2))
    row = 0
    old = 0
    old_total = old_pairs.shape[0]
    for p in range(counts.shape[0]):
        if counts[p] == 0:
            continue
        a = pairs[p, 0]
        b = pairs[p, 1]
        out_pairs[row, 0] = a
        out_pairs[row, 1] = b
        out_counts[row] = counts[p]
        out_normals[row, 0] = normals[p, 0]
        out_normals[row, 1] = normals[p, 1]
        for k in range(counts[p]):
            out_points[row, k, 0] = points[p, k, 0]
            out_points[row, k, 1] = points[p, k, 1]
            out_depths[row, k] = depths[p, k]
            out_features[row, k] = features[p, k]
        # Both lists are sorted by (a, b): advance the old cursor to this pair (a merge).
        while old < old_total and (old_pairs[old, 0] < a
                                   or (old_pairs[old, 0] == a and old_pairs[old, 1] < b)):
            old += 1
        if old < old_total and old_pairs[old, 0] == a and old_pairs[old, 1] == b:
            for k in range(counts[p]):
                for q in range(old_counts[old]):
                    if old_features[old, q] == features[p, k]:
                        out_normal[row, k] = old_normal[old, q]
                        out_tangent[row, k] = old_tangent[old, q]
                        break
        row += 1
    return (out_pairs, out_counts, out_normals, out_points, out_depths, out_features,
            out_normal, out_tangent)


class Contacts:
    """The touching shape pairs of a world, one row each, with up to two points per row.

    Attributes (``M`` rows, all numpy arrays; point columns beyond ``point_counts`` unused)
    ----------
    pairs : (M, 2) int64
        Shape indices ``(a, b)``, ``a < b``, sorted.
    bodies : (M, 2) int64
        Body rows of shapes ``a`` and ``b``.
    point_counts : (M,) int64
        1 or 2.
    normals : (M, 2)
        Unit normal from shape ``a`` to shape ``b``.
    points : (M, 2, 2)
        Contact points in the world (m).
    depths : (M, 2)
        Penetration per point (m), positive when overlapping.
    features : (M, 2) int64
        Feature id per point; with the pair it names the point from step to step.
    normal_impulses, tangent_impulses : (M, 2)
        Impulse per point along the normal and along the tangent ``(−n_y, n_x)`` (N·s).
        After :meth:`update` they hold what the same point received in the previous step
        (0 for a new point); after a solve, what it received in this step.
    restitutions, frictions : (M,)
        The pair's mixed material values.
    """

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        """Forget every contact and the bodies' materials (after bodies were renumbered)."""
        self.clear()
        # Mixed material values for every pair of distinct body materials (see update).
        self._material_of_body = None
        self._mixed_restitution = None
        self._mixed_friction = None

    def clear(self) -> None:
        """Forget every contact (and the impulses they carried)."""
        self.pairs = np.empty((0, 2), np.int64)
        self.bodies = np.empty((0, 2), np.int64)
        self.point_counts = np.empty(0, np.int64)
        self.normals = np.empty((0, 2))
        self.points = np.empty((0, 2, 2))
        self.depths = np.empty((0, 2))
        self.features = np.empty((0, 2), np.int64)
        self.normal_impulses = np.empty((0, 2))
        self.tangent_impulses = np.empty((0, 2))
        self.restitutions = np.empty(0)
        self.frictions = np.empty(0)

    @property
    def count(self) -> int:
        """Number of touching shape pairs."""
        return len(self.pairs)

    def __len__(self) -> int:
        return self.count

    @property
    def point_total(self) -> int:
        """Number of contact points over all pairs."""
        return int(self.point_counts.sum())

    def update(self, pairs, manifolds, shape_body, restitutions, frictions,
               mix_restitution, mix_friction) -> None:
        """Replace the table with this step's touching pairs, carrying matched impulses.

        Parameters
        ----------
        pairs
            (P, 2) candidate shape pairs, as :func:`canonical_pairs` returns them.
        manifolds
            The narrow phase's ``ContactArrays`` for ``pairs`` (P rows).
        shape_body
            Body row of every shape.
        restitutions, frictions
            Per-body material values, mixed per pair with ``mix_restitution`` and
            ``mix_friction``.
        """
        (self.pairs, self.point_counts, self.normals, self.points, self.depths,
         self.features, self.normal_impulses, self.tangent_impulses) = _carry_kernel(
            pairs, np.ascontiguousarray(manifolds.point_counts, dtype=np.int64),
            np.ascontiguousarray(manifolds.normals, dtype=np.float64),
            np.ascontiguousarray(manifolds.points, dtype=np.float64),
            np.ascontiguousarray(manifolds.depths, dtype=np.float64),
            np.ascontiguousarray(manifolds.features, dtype=np.int64),
            self.pairs, self.point_counts, self.features,
            self.normal_impulses, self.tangent_impulses,
        )
        self.bodies = np.ascontiguousarray(shape_body[self.pairs])
        if self._material_of_body is None or len(self._material_of_body) != len(restitutions):
            self._tabulate_materials(restitutions, frictions, mix_restitution, mix_friction)
        material_a = self._material_of_body[self.bodies[:, 0]]
        material_b = self._material_of_body[self.bodies[:, 1]]
        self.restitutions = self._mixed_restitution[material_a, material_b]
        self.frictions = self._mixed_friction[material_a, material_b]

    def _tabulate_materials(self, restitutions, frictions, mix_restitution, mix_friction):
        # A scene has few distinct materials: mix each pair of them once, then every step
        # only looks the pair's values up (the mixing rules validate their input, which
        # costs more than the lookup).
        values = np.column_stack([restitutions, frictions])
        distinct, self._material_of_body = np.unique(values, axis=0, return_inverse=True)
        self._material_of_body = self._material_of_body.reshape(-1)
        first, second = np.meshgrid(np.arange(len(distinct)), np.arange(len(distinct)),
                                    indexing="ij")
        self._mixed_restitution = np.asarray(
            mix_restitution(distinct[first, 0], distinct[second, 0]), dtype=np.float64)
        self._mixed_friction = np.asarray(
            mix_friction(distinct[first, 1], distinct[second, 1]), dtype=np.float64)
