"""Layer 3, the broad phase: which shapes might touch, from their bounding boxes.

Boxes and filters in, pairs out (see :mod:`~physbook.broadphase.pairs` for the contract);
every method returns the same pairs:

- :mod:`~physbook.broadphase.filters`: categories, masks and groups, the rule that decides
  which shapes may collide (chapters 9, 12);
- :mod:`~physbook.broadphase.pairs`: the input and output types, and canonical order;
- :mod:`~physbook.broadphase.naive`: the N² reference (chapter 9);
- :mod:`~physbook.broadphase.sweep`: sort and sweep, kept sorted by insertion (chapters 9, 12);
- :mod:`~physbook.broadphase.grid`: a uniform grid, or spatial hash (chapter 12);
- :mod:`~physbook.broadphase.tree`: a dynamic AABB tree, the default (chapter 12);
- :mod:`~physbook.broadphase.insertion`: trees grown by greedy insertion with AVL rotations
  (Box2D v2's) or by branch and bound with cost rotations (Box2D v3's), compared (chapter 12).

It imports layers 0–2 only: never the narrow phase, the dynamics or the world.
"""

from __future__ import annotations

from collections.abc import Callable

from physbook import _check
from physbook.broadphase import filters, grid, insertion, naive, pairs, sweep, tree
from physbook.broadphase.grid import UniformGrid, grid_pairs
from physbook.broadphase.naive import NaiveBroadPhase, naive_pairs
from physbook.broadphase.sweep import SortAndSweep, sweep_pairs
from physbook.broadphase.tree import DynamicTree, tree_pairs

#: Broad phases by name, as one-shot functions ``(boxes, filters) -> pairs`` that check
#: their input. A world makes the stage of the same name (:data:`STAGES`), which keeps
#: what it learnt (an order, a tree) from step to step.
BROAD_PHASES: dict[str, Callable] = {"naive": naive_pairs, "sweep": sweep_pairs,
                                     "grid": grid_pairs, "tree": tree_pairs}

#: The classes of the stages, by name: each instance is called ``(boxes, filters)``.
STAGES: dict[str, type] = {"naive": NaiveBroadPhase, "sweep": SortAndSweep,
                           "grid": UniformGrid, "tree": DynamicTree}

#: The broad phase a world uses unless told otherwise.
DEFAULT_BROAD_PHASE = "tree"


def broad_phase(name_or_stage) -> tuple[Callable, bool]:
    """Resolve a broad phase given by name (see :data:`BROAD_PHASES`) or as a callable.

    Returns the stage and whether its pairs are known to be canonical: for a name, a new
    stage of the library's (whose ``pairs`` method skips the input check); a callable of
    the user's is returned as it is, and its pairs must be checked.
    """
    if callable(name_or_stage):
        return name_or_stage, False
    return STAGES[_check.choice(name_or_stage, "broad_phase", BROAD_PHASES)](), True


__all__ = ["BROAD_PHASES", "DEFAULT_BROAD_PHASE", "STAGES", "DynamicTree", "NaiveBroadPhase",
           "SortAndSweep", "UniformGrid", "broad_phase", "filters", "grid", "insertion", "naive",
           "pairs",
           "sweep", "tree"]
