"""Two ways to grow a bounding volume hierarchy one box at a time (chapter 12).

A tree's *cost* is the surface-area heuristic of its internal nodes: in 2D, the sum of
their perimeters. A random line crosses a convex set with a probability proportional to its
perimeter (Cauchy–Crofton), so that sum, over the root's perimeter, is the expected number
of internal nodes a random line through the root crosses.

Inserting a leaf L beside a sibling X makes a new parent of perimeter P(X ∪ L) and grows
every ancestor A of X by P(A ∪ L) − P(A); that sum is the *cost of the sibling* X,

    C(X) = P(X ∪ L) + Σ_{A above X} [P(A ∪ L) − P(A)].

- ``"greedy_avl"``: the insertion of :class:`~physbook.broadphase.tree.DynamicTree`, as in
  Box2D v2: walk down from the root, at each node comparing the cost of stopping there with
  a one-level estimate of descending into each child; walking back up, rotate a node whose
  children's heights differ by more than one (an AVL rotation), which bounds the height but
  not the cost.
- ``"branch_and_bound"``: Bittner et al.'s search for the sibling of least C(X), as Catto
  (GDC 2019) teaches it: descend every subtree whose lower bound, P(L) plus the growth
  inherited on the way down, is below the best cost found so far. Walking back up, at each
  node try the four swaps of a child with a grandchild on the other side and keep the one
  that most lowers the changed node's perimeter (a cost rotation, as Box2D v3's
  ``b2RotateNodes``), which lowers the cost and leaves the height free. Box2D v3's
  ``b2FindBestSibling`` follows one path of this search with the same bound.

:func:`inserted_tree` builds a tree by either, :func:`tree_cost` prices it, and
:func:`best_sibling_costs` gives C(X) of every node (the brute force the tests hold the
search against).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._jit import njit
from physbook.broadphase.tree import (
    NULL,
    ROOT,
    TreeNodes,
    allocate,
    box_perimeter,
    empty_nodes,
    insert_leaf,
    overlapping_leaves,
    refit,
    replace_child,
    union_perimeter,
)

#: The insertion methods by name.
INSERTION_METHODS = ("greedy_avl", "branch_and_bound")


class InsertedTree(NamedTuple):
    """A tree built by :func:`inserted_tree`: its ``nodes`` (leaf of box k is node k) and
    its ``root``; the leaf of box k holds row k (``nodes.row``)."""

    nodes: TreeNodes
    root: int


@njit(refcounted=False)
def _sibling_search(lower, upper, child1, child2, height, root, leaf, stack, inherited):
    """The node X of least C(X) for ``leaf`` (its box set), by branch and bound: a subtree
    is entered only if P(leaf) plus the growth inherited above it can beat the best."""
    low_x = lower[leaf, 0]
    low_y = lower[leaf, 1]
    high_x = upper[leaf, 0]
    high_y = upper[leaf, 1]
    leaf_perimeter = box_perimeter(low_x, low_y, high_x, high_y)
    best = root
    best_cost = np.inf
    stack[0] = root
    inherited[0] = 0.0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        growth_above = inherited[top]
        direct = union_perimeter(lower, upper, node, low_x, low_y, high_x, high_y)
        cost = direct + growth_above
        if cost < best_cost:
            best, best_cost = node, cost
        if height[node] == 0:
            continue
        # Below this node every sibling pays this node's growth too, and at least P(leaf)
        # for the new parent: the bound on the whole subtree.
        below = growth_above + direct - box_perimeter(lower[node, 0], lower[node, 1],
                                                      upper[node, 0], upper[node, 1])
        if below + leaf_perimeter >= best_cost:
            continue
        stack[top] = child1[node]
        inherited[top] = below
        stack[top + 1] = child2[node]
        inherited[top + 1] = below
        top += 2
    return best


@njit(refcounted=False)
def _rotate_by_cost(lower, upper, parent, child1, child2, height, a):
    """Swap a child of ``a`` with a grandchild on the other side if that lowers the
    perimeter of the node that changes (the other child); the best of the four swaps."""
    b = child1[a]
    c = child2[a]
    if b == NULL:
        return
    best_gain = 0.0
    choice = 0
    # Swapping b with c's child f leaves c = (b, g): its perimeter goes from P(c) to
    # P(b ∪ g). Likewise the three other swaps.
    for side in range(2):
        keep, inner = (b, c) if side == 0 else (c, b)
        if height[inner] == 0:
            continue
        base = box_perimeter(lower[inner, 0], lower[inner, 1], upper[inner, 0], upper[inner, 1])
        for grand in range(2):
            other = child2[inner] if grand == 0 else child1[inner]
            swapped = box_perimeter(min(lower[keep, 0], lower[other, 0]),
                                    min(lower[keep, 1], lower[other, 1]),
                                    max(upper[keep, 0], upper[other, 0]),
                                    max(upper[keep, 1], upper[other, 1]))
            if base - swapped > best_gain:
                best_gain = base - swapped
                choice = 1 + 2 * side + grand
    if choice == 0:
        return
    side = (choice - 1) // 2
    grand = (choice - 1) % 2
    keep, inner = (b, c) if side == 0 else (c, b)
    moved = child1[inner] if grand == 0 else child2[inner]
    # keep and moved change places: moved becomes a's child, keep inner's.
    if child1[a] == keep:
        child1[a] = moved
    else:
        child2[a] = moved
    if grand == 0:
        child1[inner] = keep
    else:
        child2[inner] = keep
    parent[moved] = a
    parent[keep] = inner
    refit(lower, upper, child1, child2, height, inner)
    refit(lower, upper, child1, child2, height, a)


@njit(refcounted=False)
def _insert_by_cost(lower, upper, parent, child1, child2, height, row, free_next, state, leaf,
                    stack, inherited):
    """Put ``leaf`` beside the sibling of least cost (branch and bound), then refit and
    rotate by cost every node from the new parent up to the root."""
    if state[ROOT] == NULL:
        state[ROOT] = leaf
        parent[leaf] = NULL
        return
    sibling = _sibling_search(lower, upper, child1, child2, height, state[ROOT], leaf, stack,
                              inherited)
    join = allocate(parent, child1, child2, height, row, free_next, state)
    replace_child(parent, child1, child2, state, parent[sibling], sibling, join)
    child1[join] = sibling
    child2[join] = leaf
    parent[sibling] = join
    parent[leaf] = join
    index = join
    while index != NULL:
        refit(lower, upper, child1, child2, height, index)
        _rotate_by_cost(lower, upper, parent, child1, child2, height, index)
        index = parent[index]


@njit
def _build(nodes, state, lower, upper, by_cost, stack, inherited):
    """Insert the boxes in order into the empty tree ``nodes``; the leaf of box k holds row k."""
    fat_lower, fat_upper, parent, child1, child2, height, leaf_row, free_next, _ = nodes
    for k in range(lower.shape[0]):
        leaf = allocate(parent, child1, child2, height, leaf_row, free_next, state)
        leaf_row[leaf] = k
        fat_lower[leaf, 0] = lower[k, 0]
        fat_lower[leaf, 1] = lower[k, 1]
        fat_upper[leaf, 0] = upper[k, 0]
        fat_upper[leaf, 1] = upper[k, 1]
        if by_cost:
            _insert_by_cost(fat_lower, fat_upper, parent, child1, child2, height, leaf_row,
                            free_next, state, leaf, stack, inherited)
        else:
            insert_leaf(fat_lower, fat_upper, parent, child1, child2, height, leaf_row,
                        free_next, state, leaf)


def inserted_tree(lower, upper, method: str = "greedy_avl") -> InsertedTree:
    """A tree of the boxes ``lower``–``upper`` ((N, 2) corners, m) inserted one by one in
    the order given, by ``method`` (one of :data:`INSERTION_METHODS`); the leaf of box k
    holds row k."""
    method = _check.choice(method, "method", INSERTION_METHODS)
    lower, upper = _check.box_corners(lower, upper, "lower", "upper")
    count = len(lower)
    nodes = empty_nodes(2 * count + 1)
    state = np.array([NULL, 0, 0], np.int64)
    _build(nodes, state, lower, upper, method == "branch_and_bound",
           np.empty(2 * count + 2, np.int64), np.empty(2 * count + 2))
    return InsertedTree(nodes, int(state[ROOT]))


def _internal(tree: InsertedTree) -> np.ndarray:
    """Whether each node is an internal node of the tree."""
    return tree.nodes.height > 0


def tree_cost(tree: InsertedTree) -> float:
    """The tree's surface-area cost: its internal nodes' perimeters summed, over the
    root's (dimensionless; 0 for fewer than two leaves)."""
    nodes = tree.nodes
    if tree.root == NULL or nodes.height[tree.root] == 0:
        return 0.0
    sides = nodes.upper[_internal(tree)] - nodes.lower[_internal(tree)]
    root_sides = nodes.upper[tree.root] - nodes.lower[tree.root]
    return float(sides.sum() / root_sides.sum())


def query(tree: InsertedTree, lower, upper) -> np.ndarray:
    """Boxes (their indices, sorted) that overlap the box ``lower``–``upper``."""
    lower = _check.vector(lower, "lower")
    upper = _check.vector(upper, "upper")
    if np.any(lower > upper):
        raise ValueError(f"lower must not exceed upper, got {lower} and {upper}")
    if tree.root == NULL:
        return np.empty(0, np.int64)
    nodes = tree.nodes
    stack = np.empty(2 * (int(nodes.height[tree.root]) + 2), np.int64)
    out, found = overlapping_leaves(nodes.lower, nodes.upper, nodes.child1, nodes.child2,
                                    nodes.height, nodes.row, tree.root, lower[0], lower[1],
                                    upper[0], upper[1], stack, np.empty(16, np.int64), 0)
    return np.sort(out[:found])


def best_sibling_costs(tree: InsertedTree, lower, upper) -> np.ndarray:
    """C(X) of every node X for a new leaf ``lower``–``upper`` (NaN for free nodes): the
    new parent's perimeter plus the growth of X's ancestors, by walking up from each node."""
    lower = _check.vector(lower, "lower")
    upper = _check.vector(upper, "upper")
    nodes = tree.nodes

    def perimeter(low, high):
        return 2.0 * float((high - low).sum())

    costs = np.full(len(nodes.height), np.nan)
    for node in np.flatnonzero(nodes.height >= 0):
        cost = perimeter(np.minimum(nodes.lower[node], lower), np.maximum(nodes.upper[node], upper))
        above = nodes.parent[node]
        while above != NULL:
            cost += (perimeter(np.minimum(nodes.lower[above], lower),
                               np.maximum(nodes.upper[above], upper))
                     - perimeter(nodes.lower[above], nodes.upper[above]))
            above = nodes.parent[above]
        costs[node] = cost
    return costs


def sibling_search(tree: InsertedTree, lower, upper) -> int:
    """The node the branch and bound search would make a new leaf ``lower``–``upper``'s
    sibling (the tree is not changed)."""
    lower = _check.vector(lower, "lower")
    upper = _check.vector(upper, "upper")
    nodes = tree.nodes
    free = int(np.flatnonzero(nodes.height < 0)[0]) if np.any(nodes.height < 0) else None
    if free is None:
        raise ValueError("the tree has no free node to hold the new leaf's box")
    box_lower, box_upper = nodes.lower.copy(), nodes.upper.copy()
    box_lower[free], box_upper[free] = lower, upper
    size = len(nodes.height) + 2
    return int(_sibling_search(box_lower, box_upper, nodes.child1, nodes.child2, nodes.height,
                               tree.root, free, np.empty(size, np.int64), np.empty(size)))
