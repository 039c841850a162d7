"""Trees grown by insertion (chapter 12): greedy descent with AVL rotations against branch and
bound with cost rotations, held to brute force: the tree's structure, its queries, the
sibling the search picks and the swap a cost rotation makes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import physbook as pb
from physbook.broadphase import insertion
from physbook.broadphase.tree import NULL


def fields():
    for distribution in pb.scenes.DISTRIBUTIONS:
        field = pb.scenes.box_field(distribution, 400, seed=3)
        yield distribution, field.lower, field.upper
    rng = np.random.default_rng(5)                      # mixed sizes, random order
    lower = rng.uniform(0, 30, (300, 2))
    yield "mixed", lower, lower + rng.uniform(0.01, 5, (300, 2)) ** 2


FIELDS = list(fields())


def check_structure(tree, lower, upper):
    """Every box in one leaf; every internal node's box and height made from its two
    children, which name it as parent; every node reached from the root."""
    nodes, root = tree.nodes, tree.root
    leaves = np.flatnonzero(nodes.height == 0)
    assert sorted(nodes.row[leaves]) == list(range(len(lower)))
    assert np.array_equal(nodes.lower[leaves], lower[nodes.row[leaves]])
    assert np.array_equal(nodes.upper[leaves], upper[nodes.row[leaves]])
    internal = np.flatnonzero(nodes.height > 0)
    assert len(internal) == len(lower) - 1 and nodes.parent[root] == NULL
    a, b = nodes.child1[internal], nodes.child2[internal]
    assert np.array_equal(nodes.parent[a], internal) and np.array_equal(nodes.parent[b], internal)
    assert np.array_equal(nodes.lower[internal], np.minimum(nodes.lower[a], nodes.lower[b]))
    assert np.array_equal(nodes.upper[internal], np.maximum(nodes.upper[a], nodes.upper[b]))
    assert np.array_equal(nodes.height[internal], 1 + np.maximum(nodes.height[a], nodes.height[b]))
    reached, stack = 0, [root]
    while stack:
        node = stack.pop()
        reached += 1
        if nodes.height[node] > 0:
            stack += [nodes.child1[node], nodes.child2[node]]
    assert reached == 2 * len(lower) - 1


@pytest.mark.parametrize("method", insertion.INSERTION_METHODS)
@pytest.mark.parametrize("name, lower, upper", FIELDS, ids=[name for name, *_ in FIELDS])
def test_a_tree_of_either_method_holds_every_box_and_answers_as_brute_force(method, name,
                                                                            lower, upper):
    tree = insertion.inserted_tree(lower, upper, method)
    check_structure(tree, lower, upper)
    rng = np.random.default_rng(7)
    span_low, span_high = lower.min(axis=0), upper.max(axis=0)
    for _ in range(100):
        low = rng.uniform(span_low, span_high)
        high = low + rng.uniform(0, 0.2, 2) * (span_high - span_low)
        brute = np.flatnonzero(np.all(lower <= high, axis=1) & np.all(low <= upper, axis=1))
        assert np.array_equal(insertion.query(tree, low, high), brute)
    # The cost, summed by hand over the internal nodes.
    nodes = tree.nodes
    perimeter = 2 * (nodes.upper - nodes.lower).sum(axis=1)
    assert insertion.tree_cost(tree) == pytest.approx(
        perimeter[nodes.height > 0].sum() / perimeter[tree.root], rel=1e-12)


def test_greedy_avl_builds_the_same_tree_as_the_dynamic_tree():
    _, lower, upper = FIELDS[0]
    tree = insertion.inserted_tree(lower, upper, "greedy_avl")
    dynamic = pb.DynamicTree(margin=0.0)
    dynamic.update(pb.broadphase.pairs.ShapeBoxes(lower[:2], upper[:2]))
    for count in range(3, len(lower) + 1):   # one at a time: no build from the top
        dynamic.update(pb.broadphase.pairs.ShapeBoxes(lower[:count], upper[:count]))
    assert dynamic.height == tree.nodes.height[tree.root]
    assert dynamic.area_ratio == pytest.approx(insertion.tree_cost(tree), rel=1e-12)


@pytest.mark.parametrize("name, lower, upper", FIELDS, ids=[name for name, *_ in FIELDS])
def test_the_search_finds_the_sibling_of_least_cost(name, lower, upper):
    rng = np.random.default_rng(11)
    for size in (1, 2, 5, 60, len(lower) - 1):
        tree = insertion.inserted_tree(lower[:size], upper[:size], "branch_and_bound")
        for _ in range(20):
            low = rng.uniform(lower.min(axis=0), upper.max(axis=0))
            high = low + rng.uniform(0.01, 3.0, 2)
            costs = insertion.best_sibling_costs(tree, low, high)
            best = insertion.sibling_search(tree, low, high)
            # Both sum the same perimeters in other orders: equal to rounding.
            assert costs[best] <= np.nanmin(costs) * (1 + 1e-12)


def test_a_cost_rotation_makes_the_best_of_the_four_swaps():
    rng = np.random.default_rng(2)
    improved = 0
    for _ in range(300):
        lower = rng.uniform(0, 10, (4, 2))
        upper = lower + rng.uniform(0.1, 3, (4, 2))
        # Four leaves as a = ((0, 1), (2, 3)), built by hand, then rotated at a.
        nodes = insertion.empty_nodes(7)
        lo, up, parent, child1, child2, height = nodes[:6]
        lo[:4], up[:4], height[:4] = lower, upper, 0
        for node, (first, second) in ((4, (0, 1)), (5, (2, 3)), (6, (4, 5))):
            child1[node], child2[node] = first, second
            parent[first] = parent[second] = node
            insertion.refit(lo, up, child1, child2, height, node)
        parent[6] = NULL

        def perimeter(boxes, lo=lo, up=up):
            return 2 * float((up[boxes].max(axis=0) - lo[boxes].min(axis=0)).sum())

        # Brute force: a swap of a child of a with a grandchild on the other side changes
        # that side's box to the union of the two that stay; the gain is the drop.
        gains = {}
        for keep, pair in ((4, (2, 3)), (5, (0, 1))):
            leaves = (0, 1) if keep == 4 else (2, 3)
            for moved in pair:
                stays = pair[1 - pair.index(moved)]
                gains[keep, moved] = perimeter(list(pair)) - perimeter([*leaves, stays])
        before = perimeter([0, 1]) + perimeter([2, 3])
        insertion._rotate_by_cost(lo, up, parent, child1, child2, height, 6)
        # Nodes 4 and 5 stay internal (one may now sit below the other): their perimeters.
        after = sum(perimeter(_leaves_below(child1, child2, height, c)) for c in (4, 5))
        best = max(gains.values())
        if best > 0:
            improved += 1
            assert after == pytest.approx(before - best, rel=1e-12)
        else:
            assert (child1[6], child2[6]) == (4, 5) and after == before
        assert sorted(_leaves_below(child1, child2, height, 6)) == [0, 1, 2, 3]
    assert 0 < improved < 300


def _leaves_below(child1, child2, height, node):
    if height[node] == 0:
        return [node]
    return _leaves_below(child1, child2, height, child1[node]) + _leaves_below(
        child1, child2, height, child2[node])


def test_branch_and_bound_lowers_the_cost_on_every_field():
    for _, lower, upper in FIELDS:
        costs = [insertion.tree_cost(insertion.inserted_tree(lower, upper, method))
                 for method in insertion.INSERTION_METHODS]
        assert costs[1] < costs[0]


def test_small_trees():
    empty = insertion.inserted_tree(np.zeros((0, 2)), np.zeros((0, 2)))
    assert empty.root == NULL and insertion.tree_cost(empty) == 0.0
    assert len(insertion.query(empty, (0, 0), (1, 1))) == 0
    for method, count in itertools.product(insertion.INSERTION_METHODS, (1, 2, 3)):
        lower = np.arange(2.0 * count).reshape(count, 2)
        tree = insertion.inserted_tree(lower, lower + 0.5, method)
        check_structure(tree, lower, lower + 0.5)


@pytest.mark.parametrize("args, message", [
    ((np.zeros((3, 2)), np.ones((3, 2)), "avl"), "method"),
    ((np.zeros((3, 3)), np.ones((3, 3))), "shape"),
    ((np.zeros((3, 2)), np.ones((2, 2))), "shape"),
    ((np.ones((3, 2)), np.zeros((3, 2))), "must not exceed"),
    ((np.full((3, 2), np.nan), np.ones((3, 2))), "lower"),
])
def test_bad_input_is_refused_naming_the_rule(args, message):
    with pytest.raises(ValueError, match=message):
        insertion.inserted_tree(*args)
