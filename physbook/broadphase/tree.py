"""A dynamic AABB tree: boxes in a balanced binary tree of boxes, kept between steps
(chapter 12); the world's default broad phase, and what its queries walk.

Each leaf holds a *fat* box: the shape's box grown by a margin and stretched along its
recent motion. A leaf is *renewed* (given a new fat box) only when its shape's box leaves the
fat box, so most steps renew few leaves. Every internal node's box encloses its two
children's.

*Insertion*, as in Box2D v2, walks down from the root choosing, at each node, the cheaper of
making the new leaf a sibling of the node or descending into one child, by the surface-area
heuristic: in 2D the cost of a node is its perimeter, since a random line crosses a box with
a probability proportional to it. Walking back up, each node's box and height are refitted
and a node whose children's heights differ by more than one is *rotated*: the taller child
takes its place and the node takes the shorter grandchild, as in an AVL tree, so the height
stays O(log N). (:mod:`~physbook.broadphase.insertion` sets this beside Box2D v3's search
by branch and bound and rotations by cost.)

A renewed leaf stays where it is in the tree, as in Box2D v3: its new fat box is written
in place and its ancestors refitted, up to the first one whose box does not change.
Only a leaf that wandered away from its sibling is taken out and inserted again. Bodies that
move together, as a falling pile or a crowd, thus cost a few box updates each, not a walk
down and up the tree; and so that the tree stays good when they do not, it is *rebuilt* from
the top (each node's leaves split at the middle of their centres along the longer side)
once it has renewed :data:`~physbook.constants.TREE_REBUILD_RENEWALS` times as many leaves as
it holds; the stage also builds it so at once when most of its leaves are new.

*Pairs* are kept from step to step as the set of rows whose fat boxes overlap. Only a renewed
leaf can gain or lose partners: its old pairs are dropped and its new ones found, by
querying the tree with its fat box when few leaves were renewed, else by one descent of the
tree against itself that enters only the subtrees holding a renewed leaf (*marked* nodes).
The answer is then the candidates whose actual boxes overlap and whose filters pass: exactly
the pairs of every other method.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook._buffers import carry_out, grown
from physbook._jit import njit
from physbook.broadphase.filters import ShapeFilters, may_collide
from physbook.broadphase.pairs import (
    ShapeBoxes,
    appended,
    boxes_overlap,
    lengthened,
    removed_rows,
    stage_input,
)
from physbook.constants import (
    TREE_DESCENT_SHARE,
    TREE_MARGIN,
    TREE_PREDICTION,
    TREE_REBUILD_RENEWALS,
    TREE_SHRINK_MARGINS,
    TREE_WANDER_RATIO,
)

NULL = -1
# The axes a rebuild splits along, int64 values: numba would compile the split once for each
# literal axis.
X_AXIS, Y_AXIS = np.int64(0), np.int64(1)


class TreeNodes(NamedTuple):
    """The nodes of a tree, by node index: ``lower``, ``upper`` (C, 2) box corners (m);
    ``parent``, ``child1``, ``child2`` (C,) node indices (−1 for none); ``height`` (C,) 0 for
    a leaf, −1 for a free node; ``row`` (C,) the box row a leaf holds (−1 if internal);
    ``free_next`` (C,) the next free node; ``marked`` (C,) during a search for pairs, the
    row of the one renewed leaf at or below the node, −2 if there are several (−1 for none,
    and between searches)."""

    lower: np.ndarray
    upper: np.ndarray
    parent: np.ndarray
    child1: np.ndarray
    child2: np.ndarray
    height: np.ndarray
    row: np.ndarray
    free_next: np.ndarray
    marked: np.ndarray


# State of a tree, one int64 array: the root node, the head of the free list, and how many
# leaves were renewed since the tree was last rebuilt.
ROOT, _FREE, _RENEWED = 0, 1, 2


def empty_nodes(capacity: int) -> TreeNodes:
    nodes = TreeNodes(np.zeros((capacity, 2)), np.zeros((capacity, 2)),
                      *(np.full(capacity, NULL, np.int64) for _ in range(7)))
    nodes.free_next[:-1] = np.arange(1, capacity)
    return nodes


# The helpers below take the node columns one by one, not as a TreeNodes: reading a field
# of a tuple of arrays costs a reference count increment and decrement each time, which in
# these short, often-called functions would cost more than the work.

@njit(refcounted=False)
def box_perimeter(low_x, low_y, high_x, high_y):
    return 2.0 * ((high_x - low_x) + (high_y - low_y))


@njit(refcounted=False)
def union_perimeter(lower, upper, a, low_x, low_y, high_x, high_y):
    """Perimeter of the box enclosing node ``a`` and the box given by its corners."""
    return box_perimeter(min(lower[a, 0], low_x), min(lower[a, 1], low_y),
                         max(upper[a, 0], high_x), max(upper[a, 1], high_y))


@njit(refcounted=False)
def refit(lower, upper, child1, child2, height, index):
    """Node ``index``'s box and height from its two children."""
    a = child1[index]
    b = child2[index]
    lower[index, 0] = min(lower[a, 0], lower[b, 0])
    lower[index, 1] = min(lower[a, 1], lower[b, 1])
    upper[index, 0] = max(upper[a, 0], upper[b, 0])
    upper[index, 1] = max(upper[a, 1], upper[b, 1])
    height[index] = 1 + max(height[a], height[b])


@njit(refcounted=False)
def allocate(parent, child1, child2, height, row, free_next, state):
    node = state[_FREE]
    state[_FREE] = free_next[node]
    parent[node] = NULL
    child1[node] = NULL
    child2[node] = NULL
    height[node] = 0
    row[node] = NULL
    return node


@njit(refcounted=False)
def _free(height, row, free_next, state, node):
    height[node] = NULL
    row[node] = NULL
    free_next[node] = state[_FREE]
    state[_FREE] = node


@njit(refcounted=False)
def replace_child(parent, child1, child2, state, above, old, new):
    """Make ``new`` take ``old``'s place under ``above`` (or as the root)."""
    parent[new] = above
    if above == NULL:
        state[ROOT] = new
    elif child1[above] == old:
        child1[above] = new
    else:
        child2[above] = new


@njit(refcounted=False)
def _rotate(lower, upper, parent, child1, child2, height, state, a):
    """Rebalance node ``a`` if its children's heights differ by more than one; return the
    node now in its place.

    The taller child T moves up into ``a``'s place; ``a`` keeps its shorter child and takes
    T's shorter child, and T keeps its taller child beside ``a``. Heights then differ by at
    most one again, and the boxes of ``a`` and T are refitted.
    """
    if child1[a] == NULL:
        return a
    b = child1[a]
    c = child2[a]
    if abs(height[c] - height[b]) <= 1:
        return a
    taller, shorter = (c, b) if height[c] > height[b] else (b, c)
    f = child1[taller]
    g = child2[taller]
    keep, give = (f, g) if height[f] >= height[g] else (g, f)
    replace_child(parent, child1, child2, state, parent[a], a, taller)
    # a's children become (shorter, give); taller's become (a, keep).
    child1[a] = shorter
    child2[a] = give
    parent[shorter] = a
    parent[give] = a
    child1[taller] = a
    child2[taller] = keep
    parent[a] = taller
    parent[keep] = taller
    refit(lower, upper, child1, child2, height, a)
    refit(lower, upper, child1, child2, height, taller)
    return taller


@njit(refcounted=False)
def _rebalance(lower, upper, parent, child1, child2, height, state, a):
    """Rotate at ``a`` until the subtree there is balanced; return its new top.

    One rotation mends a height difference of two. A larger one (a leaf joined to a tall
    sibling) leaves the demoted node ``a`` unbalanced by one less, so it is rotated again,
    one level lower each time, and the nodes above it are refitted on the way back.
    """
    top = _rotate(lower, upper, parent, child1, child2, height, state, a)
    if top == a:
        return a
    node = a
    while True:
        lifted = _rotate(lower, upper, parent, child1, child2, height, state, node)
        if lifted == node:
            break
    index = parent[node]
    while index != parent[top]:
        refit(lower, upper, child1, child2, height, index)
        index = parent[index]
    return top


@njit(refcounted=False)
def _fix_upwards(lower, upper, parent, child1, child2, height, state, index):
    """Rebalance and refit every node from ``index`` up to the root."""
    while index != NULL:
        # Tested here, not only inside _rebalance: most nodes need no rotation, and this
        # loop is the hot path of every insertion and removal.
        if abs(height[child2[index]] - height[child1[index]]) > 1:
            index = _rebalance(lower, upper, parent, child1, child2, height, state, index)
        refit(lower, upper, child1, child2, height, index)
        index = parent[index]


@njit(refcounted=False)
def insert_leaf(lower, upper, parent, child1, child2, height, row, free_next, state, leaf):
    """Put ``leaf`` (its box set) into the tree beside the sibling of least cost."""
    if state[ROOT] == NULL:
        state[ROOT] = leaf
        parent[leaf] = NULL
        return
    low_x = lower[leaf, 0]
    low_y = lower[leaf, 1]
    high_x = upper[leaf, 0]
    high_y = upper[leaf, 1]
    index = state[ROOT]
    while height[index] > 0:
        area = box_perimeter(lower[index, 0], lower[index, 1], upper[index, 0], upper[index, 1])
        combined = union_perimeter(lower, upper, index, low_x, low_y, high_x, high_y)
        # Making the leaf this node's sibling creates a parent of the combined perimeter;
        # descending instead grows this node by (combined − area), a cost every node
        # below inherits, plus the growth of the child it descends into.
        here = 2.0 * combined
        inherited = 2.0 * (combined - area)
        first = child1[index]
        second = child2[index]
        cost_first = union_perimeter(lower, upper, first, low_x, low_y, high_x, high_y)
        if height[first] > 0:
            cost_first -= box_perimeter(lower[first, 0], lower[first, 1], upper[first, 0],
                                        upper[first, 1])
        cost_second = union_perimeter(lower, upper, second, low_x, low_y, high_x, high_y)
        if height[second] > 0:
            cost_second -= box_perimeter(lower[second, 0], lower[second, 1], upper[second, 0],
                                         upper[second, 1])
        cost_first += inherited
        cost_second += inherited
        if here < cost_first and here < cost_second:
            break
        index = first if cost_first < cost_second else second
    sibling = index
    join = allocate(parent, child1, child2, height, row, free_next, state)
    replace_child(parent, child1, child2, state, parent[sibling], sibling, join)
    child1[join] = sibling
    child2[join] = leaf
    parent[sibling] = join
    parent[leaf] = join
    _fix_upwards(lower, upper, parent, child1, child2, height, state, join)


@njit(refcounted=False)
def _remove_leaf(lower, upper, parent, child1, child2, height, row, free_next, state, leaf):
    """Take ``leaf`` out of the tree (the node stays allocated): its sibling takes its
    parent's place."""
    if leaf == state[ROOT]:
        state[ROOT] = NULL
        return
    join = parent[leaf]
    sibling = child2[join] if child1[join] == leaf else child1[join]
    grandparent = parent[join]
    replace_child(parent, child1, child2, state, grandparent, join, sibling)
    _free(height, row, free_next, state, join)
    parent[leaf] = NULL
    _fix_upwards(lower, upper, parent, child1, child2, height, state, grandparent)


@njit(refcounted=False)
def _refit_upwards(lower, upper, parent, child1, child2, index):
    """Refit node ``index`` and its ancestors to their children's boxes, up to the first
    whose box stays the same: the boxes above it are then unchanged too. No node moves, so
    the heights stay as they are."""
    while index != NULL:
        a = child1[index]
        b = child2[index]
        low_x = min(lower[a, 0], lower[b, 0])
        low_y = min(lower[a, 1], lower[b, 1])
        high_x = max(upper[a, 0], upper[b, 0])
        high_y = max(upper[a, 1], upper[b, 1])
        if (low_x == lower[index, 0] and low_y == lower[index, 1]
                and high_x == upper[index, 0] and high_y == upper[index, 1]):
            return
        lower[index, 0] = low_x
        lower[index, 1] = low_y
        upper[index, 0] = high_x
        upper[index, 1] = high_y
        index = parent[index]


@njit(refcounted=False)
def _wandered(lower, upper, parent, child1, child2, leaf):
    """Whether ``leaf``, its new fat box set, has wandered away from its sibling: the box
    enclosing both would have more than :data:`~physbook.constants.TREE_WANDER_RATIO` times
    their two perimeters. Bodies moving together keep their siblings near; a body that
    crossed the world would otherwise stretch every box above it along its way."""
    above = parent[leaf]
    if above == NULL:
        return False
    sibling = child2[above] if child1[above] == leaf else child1[above]
    low_x = lower[leaf, 0]
    low_y = lower[leaf, 1]
    high_x = upper[leaf, 0]
    high_y = upper[leaf, 1]
    both = union_perimeter(lower, upper, sibling, low_x, low_y, high_x, high_y)
    apart = (box_perimeter(low_x, low_y, high_x, high_y)
             + box_perimeter(lower[sibling, 0], lower[sibling, 1], upper[sibling, 0],
                             upper[sibling, 1]))
    return both > TREE_WANDER_RATIO * apart


@njit(refcounted=False)
def _fatten(fat_lower, fat_upper, leaf, lower, upper, row, dx, dy, margin, prediction):
    """Leaf box = the row's box grown by ``margin`` and stretched by ``prediction`` times
    its displacement (dx, dy) in the direction of motion."""
    fat_lower[leaf, 0] = lower[row, 0] - margin + min(0.0, prediction * dx)
    fat_lower[leaf, 1] = lower[row, 1] - margin + min(0.0, prediction * dy)
    fat_upper[leaf, 0] = upper[row, 0] + margin + max(0.0, prediction * dx)
    fat_upper[leaf, 1] = upper[row, 1] + margin + max(0.0, prediction * dy)


@njit(refcounted=False)
def _fits(fat_lower, fat_upper, leaf, lower, upper, row, dx, dy, margin, prediction, shrink):
    """Whether the leaf's fat box still serves the row's box: it contains the box, and is
    not far larger than a fat box made now would be (a fast body that stopped would
    otherwise keep a huge box, and with it many candidate pairs).

    "Larger" compares sizes, not sides: a body falling ever faster leaves its box trailing
    ever further behind its fat box's back edge, yet the fat box made now would be as long,
    so that body must not be reinserted for it."""
    fat_low_x = fat_lower[leaf, 0]
    fat_low_y = fat_lower[leaf, 1]
    fat_high_x = fat_upper[leaf, 0]
    fat_high_y = fat_upper[leaf, 1]
    low_x = lower[row, 0]
    low_y = lower[row, 1]
    high_x = upper[row, 0]
    high_y = upper[row, 1]
    if fat_low_x > low_x or fat_low_y > low_y or high_x > fat_high_x or high_y > fat_high_y:
        return False
    # A fat box made now is the box, 2·margin and |prediction·d| longer along each axis.
    slack = 2.0 * (margin + shrink)
    return (fat_high_x - fat_low_x <= high_x - low_x + slack + abs(prediction * dx)
            and fat_high_y - fat_low_y <= high_y - low_y + slack + abs(prediction * dy))


@njit(refcounted=False)
def _sync(nodes, state, leaf_of_row, centers, moved, lower, upper, known, margin, prediction,
          shrink):
    """Bring the leaves to rows 0 .. S − 1 of the boxes: insert the rows from ``known`` on,
    and renew a leaf whose fat box no longer serves its box (see :func:`_fits`), in place
    unless it wandered from its sibling (:func:`_wandered`). Sets ``moved`` for every row
    inserted or renewed; returns how many."""
    # Columns are taken out of the tuple once: reading a field of a tuple of arrays in a
    # hot loop costs a reference count increment and decrement each time.
    fat_lower, fat_upper, parent, child1, child2, height, leaf_row, free_next, _ = nodes
    count = lower.shape[0]
    renewed = 0
    for row in range(count):
        center_x = 0.5 * (lower[row, 0] + upper[row, 0])
        center_y = 0.5 * (lower[row, 1] + upper[row, 1])
        if row >= known:
            leaf = allocate(parent, child1, child2, height, leaf_row, free_next, state)
            leaf_row[leaf] = row
            leaf_of_row[row] = leaf
            _fatten(fat_lower, fat_upper, leaf, lower, upper, row, 0.0, 0.0, margin, 0.0)
            insert_leaf(fat_lower, fat_upper, parent, child1, child2, height, leaf_row,
                        free_next, state, leaf)
        else:
            leaf = leaf_of_row[row]
            dx = center_x - centers[row, 0]
            dy = center_y - centers[row, 1]
            if _fits(fat_lower, fat_upper, leaf, lower, upper, row, dx, dy, margin, prediction,
                     shrink):
                centers[row, 0] = center_x
                centers[row, 1] = center_y
                continue
            _fatten(fat_lower, fat_upper, leaf, lower, upper, row, dx, dy, margin, prediction)
            if _wandered(fat_lower, fat_upper, parent, child1, child2, leaf):
                _remove_leaf(fat_lower, fat_upper, parent, child1, child2, height, leaf_row,
                             free_next, state, leaf)
                insert_leaf(fat_lower, fat_upper, parent, child1, child2, height, leaf_row,
                            free_next, state, leaf)
            else:
                _refit_upwards(fat_lower, fat_upper, parent, child1, child2, parent[leaf])
            state[_RENEWED] += 1
        centers[row, 0] = center_x
        centers[row, 1] = center_y
        moved[row] = True
        renewed += 1
    return renewed


@njit(refcounted=False)
def _partition(centers, leaves, start, end, axis, plane):
    """Reorder ``leaves[start:end]`` with their ``centers`` so that those whose centre lies
    below ``plane`` along ``axis`` come first; returns where the others start. Two indices
    walk in from both ends and swap the pairs they find on the wrong sides (Hoare's)."""
    below = start
    above = end - 1
    for _ in range(end - start):  # each pass settles at least one leaf
        while below <= above and centers[below, axis] < plane:
            below += 1
        while below <= above and centers[above, axis] >= plane:
            above -= 1
        if below >= above:
            break
        leaves[below], leaves[above] = leaves[above], leaves[below]
        for side in range(2):
            centers[below, side], centers[above, side] = (centers[above, side],
                                                          centers[below, side])
        below += 1
        above -= 1
    return below


@njit(refcounted=False)
def _split(centers, leaves, start, end, axis, low, high):
    """Split ``leaves[start:end]``, whose centres span ``low`` .. ``high`` along ``axis``, in
    two; returns where the second part starts.

    The plane goes through the middle of that span, which keeps apart groups of boxes with
    a gap between them. While it leaves fewer than a third of the leaves on one side, it is
    moved halfway towards the other end (at most 64 times, about as often as a float can be
    halved); with a third on each side, the tree stays below log₁.₅ N + 1 levels. Leaves
    whose centres it cannot tell apart are split at the middle of the list."""
    fewest = max(1, (end - start) // 3)
    first = start  # leaves[start:first] lie below every plane left to try,
    last = end  # leaves[last:end] above it
    for _ in range(64):
        plane = 0.5 * (low + high)
        if not low < plane < high:
            break
        middle = _partition(centers, leaves, first, last, axis, plane)
        if middle - start < fewest:
            first = middle
            low = plane
        elif end - middle < fewest:
            last = middle
            high = plane
        else:
            return middle
    return start + (end - start) // 2


@njit
def _rebuild(nodes, state, leaf_of_row, count):
    """Rebuild the tree of the leaves of rows 0 .. ``count`` − 1 from the top, reusing its
    internal nodes: the leaves are split in two along the longer side of the box of their
    fat boxes' centres (:func:`_split`), each part again, down to single leaves, and the
    boxes and heights are refitted from the leaves up."""
    lower, upper, parent, child1, child2, height, _, _, _ = nodes
    state[_RENEWED] = 0
    if count < 3:  # one shape of tree only
        return
    # The internal nodes in index order, handed out parents first, so that the nodes every
    # descent visits lie together at the front of the columns.
    spare = np.empty(count - 1, np.int64)
    found = 0
    for node in range(height.shape[0]):
        if height[node] > 0:
            spare[found] = node
            found += 1
    leaves = leaf_of_row[:count].copy()
    centers = np.empty((count, 2))
    for k in range(count):
        centers[k, 0] = 0.5 * (lower[leaves[k], 0] + upper[leaves[k], 0])
        centers[k, 1] = 0.5 * (lower[leaves[k], 1] + upper[leaves[k], 1])
    root = spare[0]
    parent[root] = NULL
    state[ROOT] = root
    # Parts still to split: (first leaf, end, the node that gets them).
    parts = np.empty((count, 3), np.int64)
    parts[0, 0] = 0
    parts[0, 1] = count
    parts[0, 2] = root
    top = 1
    used = 1
    while top > 0:
        top -= 1
        start, end, node = parts[top, 0], parts[top, 1], parts[top, 2]
        low_x = high_x = centers[start, 0]
        low_y = high_y = centers[start, 1]
        for k in range(start + 1, end):
            low_x = min(low_x, centers[k, 0])
            high_x = max(high_x, centers[k, 0])
            low_y = min(low_y, centers[k, 1])
            high_y = max(high_y, centers[k, 1])
        if high_x - low_x >= high_y - low_y:
            middle = _split(centers, leaves, start, end, X_AXIS, low_x, high_x)
        else:
            middle = _split(centers, leaves, start, end, Y_AXIS, low_y, high_y)
        for first, last in ((start, middle), (middle, end)):
            if last - first == 1:
                child = leaves[first]
            else:
                child = spare[used]
                used += 1
                parts[top, 0] = first
                parts[top, 1] = last
                parts[top, 2] = child
                top += 1
            parent[child] = node
            if first == start:
                child1[node] = child
            else:
                child2[node] = child
    for k in range(count - 2, -1, -1):  # children were handed out after their parents
        refit(lower, upper, child1, child2, height, spare[k])


@njit
def _rebuild_if_due(nodes, state, leaf_of_row, count, added):
    """Rebuild the tree (:func:`_rebuild`) once :data:`~physbook.constants.TREE_REBUILD_RENEWALS`
    times as many leaves as it holds have been renewed since it was last built, or when the
    ``added`` leaves just inserted are most of it: inserted one by one, in the order given,
    they make a worse tree than a build from the top."""
    if count > 2 and (2 * added > count
                      or state[_RENEWED] >= TREE_REBUILD_RENEWALS * count):
        _rebuild(nodes, state, leaf_of_row, count)


@njit
def overlapping_leaves(lower, upper, child1, child2, height, row, root, low_x, low_y, high_x,
                       high_y, stack, out, found):
    """Append to ``out`` (from ``found`` on) the rows of every leaf whose box overlaps the
    given box; returns (out, found), ``out`` grown if it filled up."""
    if root == NULL:
        return out, found
    top = 0
    stack[top] = root
    top += 1
    while top > 0:
        top -= 1
        node = stack[top]
        if (lower[node, 0] > high_x or low_x > upper[node, 0]
                or lower[node, 1] > high_y or low_y > upper[node, 1]):
            continue
        if child1[node] == NULL:  # a leaf: tested on a column the descent reads anyway
            out = appended(out, found, row[node])
            found += 1
        else:
            stack[top] = child1[node]
            stack[top + 1] = child2[node]
            top += 2
    return out, found


@njit
def _overlapping_many(nodes, root, lowers, uppers, stack):
    """For each query box k, the rows whose fat boxes overlap it: (query index, row)."""
    queries = np.empty(16, np.int64)
    rows = np.empty(16, np.int64)
    found = 0
    for k in range(lowers.shape[0]):
        start = found
        rows, found = overlapping_leaves(nodes.lower, nodes.upper, nodes.child1,
                                         nodes.child2, nodes.height, nodes.row, root,
                                         lowers[k, 0], lowers[k, 1], uppers[k, 0],
                                         uppers[k, 1], stack, rows, found)
        if found > queries.shape[0]:
            queries = lengthened(queries, start, max(found, 2 * queries.shape[0]))
        queries[start:found] = k
    return queries[:found], rows[:found]


# Marks of a node during a search for pairs, besides the row of its one renewed leaf.
_UNMARKED, _SEVERAL = -1, -2


@njit(refcounted=False)
def _mark(parent, marked, leaf_of_row, moved, count):
    """Mark the leaves of the moved rows and every node above them: with the row of the one
    renewed leaf below, or :data:`_SEVERAL`. A walk up stops at a node already marked
    several, whose ancestors are too."""
    for m in range(count):
        if not moved[m]:
            continue
        node = leaf_of_row[m]
        marked[node] = m
        node = parent[node]
        while node != NULL and marked[node] != _SEVERAL:
            marked[node] = m if marked[node] == _UNMARKED else _SEVERAL
            node = parent[node]


@njit(refcounted=False)
def _unmark(parent, marked, leaf_of_row, moved, count):
    """Clear the marks :func:`_mark` set; each walk up stops at a node already clear."""
    for m in range(count):
        if not moved[m]:
            continue
        node = leaf_of_row[m]
        while node != NULL and marked[node] != _UNMARKED:
            marked[node] = _UNMARKED
            node = parent[node]


@njit(refcounted=False)
def _box_overlaps(lower, upper, node, low_x, low_y, high_x, high_y):
    """Whether node ``node``'s box overlaps the given box (touching counts)."""
    return not (lower[node, 0] > high_x or low_x > upper[node, 0]
                or lower[node, 1] > high_y or low_y > upper[node, 1])


@njit
def _fresh_keys(lower, upper, child1, child2, height, row, marked, leaf_of_row, root):
    """The keys ``a·2³² + b`` (rows a < b) of every two leaves whose boxes overlap and one of
    which at least is marked, unsorted.

    One descent of the tree against itself, over pairs of nodes whose boxes overlap, one of
    them at least marked: a marked internal node sends its two children against each other,
    and each marked child against itself; a pair is split into the pairs of one node with
    the other's children. Two leaves are met once, as a pair, below the node where their
    paths from the root part. A node with one renewed leaf below, against one with none, is
    done by querying the latter with that leaf's box: splitting would walk down to the leaf
    again from every node above it. Pairs are tested before they are pushed: most fail."""
    keys = np.empty(64, np.int64)
    found = 0
    if root == NULL or child1[root] == NULL or marked[root] == _UNMARKED:
        return keys[:0]
    # Pairs to visit, (a, b) at 2k and 2k + 1; (a, a) stands for a's subtree against itself.
    pairs = np.empty(8 * height[root] + 16, np.int64)
    pairs[0] = root
    pairs[1] = root
    top = 2
    stack = np.empty(2 * height[root] + 4, np.int64)  # a query's nodes
    while top > 0:
        top -= 2
        a = pairs[top]
        b = pairs[top + 1]
        if top + 6 > pairs.shape[0]:
            pairs = lengthened(pairs, top, 2 * pairs.shape[0])
        if a == b:
            first = child1[a]
            second = child2[a]
            if ((marked[first] != _UNMARKED or marked[second] != _UNMARKED)
                    and boxes_overlap(lower, upper, first, second)):
                pairs[top] = first
                pairs[top + 1] = second
                top += 2
            for child in (first, second):
                if marked[child] != _UNMARKED and child1[child] != NULL:
                    pairs[top] = child
                    pairs[top + 1] = child
                    top += 2
            continue
        if ((marked[a] >= 0 and marked[b] == _UNMARKED)
                or (marked[b] >= 0 and marked[a] == _UNMARKED)):
            renewed, other = (marked[a], b) if marked[a] >= 0 else (marked[b], a)
            leaf = leaf_of_row[renewed]
            low_x = lower[leaf, 0]
            low_y = lower[leaf, 1]
            high_x = upper[leaf, 0]
            high_y = upper[leaf, 1]
            if not _box_overlaps(lower, upper, other, low_x, low_y, high_x, high_y):
                continue
            # The query, written out here: a call would take and drop a reference to each
            # column, which costs more than the few nodes most of these queries visit.
            stack[0] = other
            depth = 1
            while depth > 0:
                depth -= 1
                node = stack[depth]
                if child1[node] != NULL:
                    for child in (child1[node], child2[node]):
                        if _box_overlaps(lower, upper, child, low_x, low_y, high_x, high_y):
                            stack[depth] = child
                            depth += 1
                    continue
                if found == keys.shape[0]:
                    keys = lengthened(keys, found, 2 * keys.shape[0])
                keys[found] = (min(row[node], renewed) << 32) + max(row[node], renewed)
                found += 1
            continue
        a_leaf = child1[a] == NULL
        b_leaf = child1[b] == NULL
        if a_leaf and b_leaf:
            if found == keys.shape[0]:
                keys = lengthened(keys, found, 2 * keys.shape[0])
            keys[found] = (min(row[a], row[b]) << 32) + max(row[a], row[b])
            found += 1
            continue
        # A marked node against an unmarked one is split first: its unmarked children then
        # drop out at once. Else the taller one is split.
        marked_a = marked[a] != _UNMARKED
        marked_b = marked[b] != _UNMARKED
        if b_leaf or (not a_leaf and ((marked_a and not marked_b)
                                      or (marked_a == marked_b and height[a] >= height[b]))):
            split, kept = a, b
        else:
            split, kept = b, a
        for child in (child1[split], child2[split]):
            if ((marked[kept] != _UNMARKED or marked[child] != _UNMARKED)
                    and boxes_overlap(lower, upper, child, kept)):
                pairs[top] = child
                pairs[top + 1] = kept
                top += 2
    return keys[:found]


@njit
def _queried_keys(lower, upper, child1, child2, height, row, leaf_of_row, moved, count, root):
    """The keys of every two leaves whose boxes overlap and one of which at least holds a
    moved row, unsorted: the tree queried from the root with each moved row's box."""
    stack = np.empty(2 * (height[root] + 2) if root != NULL else 2, np.int64)
    keys = np.empty(64, np.int64)
    found = 0
    hits = np.empty(64, np.int64)
    for m in range(count):
        if not moved[m]:
            continue
        leaf = leaf_of_row[m]
        hits, hit_count = overlapping_leaves(lower, upper, child1, child2, height, row, root,
                                             lower[leaf, 0], lower[leaf, 1], upper[leaf, 0],
                                             upper[leaf, 1], stack, hits, 0)
        for h in range(hit_count):
            other = hits[h]
            # A pair of two moved rows is found from both: keep it from the lower row.
            if other == m or (moved[other] and other < m):
                continue
            if found == keys.shape[0]:
                keys = lengthened(keys, found, 2 * keys.shape[0])
            keys[found] = (min(m, other) << 32) + max(m, other)
            found += 1
    return keys[:found]


@njit
def _sorted_keys(keys, count):
    """``keys`` (rows below ``count``) sorted. Many keys are sorted by counting, first by b
    and then, keeping that order, by a: two passes over the keys and the rows, where a
    comparison sort would take log₂ K passes."""
    if 8 * keys.shape[0] < count:
        return np.sort(keys)
    tallies = np.empty(count + 1, np.int64)
    source = keys
    target = np.empty_like(keys)
    for shift in (0, 32):
        tallies[:] = 0
        for k in range(source.shape[0]):
            tallies[((source[k] >> shift) & 0xFFFFFFFF) + 1] += 1
        for row in range(count):
            tallies[row + 1] += tallies[row]
        for k in range(source.shape[0]):
            digit = (source[k] >> shift) & 0xFFFFFFFF
            target[tallies[digit]] = source[k]
            tallies[digit] += 1
        source, target = target, source
    return source


@njit
def _candidate_keys(nodes, state, leaf_of_row, moved, old_keys, count):
    """The rows whose fat boxes overlap, as sorted keys ``a·2³² + b`` (a < b): last step's
    keys between unmoved rows, and those of the moved rows' leaves: found by querying the
    tree with each (:func:`_queried_keys`), or, when at least one row in
    :data:`~physbook.constants.TREE_DESCENT_SHARE` moved, by marking their leaves and
    descending the tree against itself (:func:`_fresh_keys`), which walks the nodes near
    the root once for all of them."""
    fat_lower, fat_upper, parent, child1, child2, height, leaf_row, _, marked = nodes
    kept = np.empty(old_keys.shape[0], np.int64)
    size = 0
    for k in range(old_keys.shape[0]):
        a = old_keys[k] >> 32
        b = old_keys[k] & 0xFFFFFFFF
        if a < count and b < count and not moved[a] and not moved[b]:
            kept[size] = old_keys[k]
            size += 1
    root = state[ROOT]
    moved_count = 0
    for m in range(count):
        moved_count += moved[m]
    if moved_count * TREE_DESCENT_SHARE >= count:
        _mark(parent, marked, leaf_of_row, moved, count)
        fresh = _fresh_keys(fat_lower, fat_upper, child1, child2, height, leaf_row, marked,
                            leaf_of_row, root)
        _unmark(parent, marked, leaf_of_row, moved, count)
    else:
        fresh = _queried_keys(fat_lower, fat_upper, child1, child2, height, leaf_row,
                              leaf_of_row, moved, count, root)
    fresh = _sorted_keys(fresh, count)
    fresh_count = fresh.shape[0]
    # Merge two sorted, disjoint lists (a kept key has no moved row, a fresh one has one).
    merged = np.empty(size + fresh_count, np.int64)
    i = j = 0
    for k in range(merged.shape[0]):
        if j == fresh_count or (i < size and kept[i] < fresh[j]):
            merged[k] = kept[i]
            i += 1
        else:
            merged[k] = fresh[j]
            j += 1
    return merged


@njit
def overlapping_pairs(keys, lower, upper, filters):
    """The candidate keys whose boxes overlap and whose filters pass, as (P, 2) pairs; the
    keys are sorted, so the pairs are canonical."""
    body, category, mask, group, dynamic = filters
    pairs = np.empty((keys.shape[0], 2), np.int64)
    found = 0
    for k in range(keys.shape[0]):
        a = keys[k] >> 32
        b = keys[k] & 0xFFFFFFFF
        if (boxes_overlap(lower, upper, a, b)
                and may_collide(body, category, mask, group, dynamic, a, b)):
            pairs[found, 0] = a
            pairs[found, 1] = b
            found += 1
    return pairs[:found]


@njit
def sync_and_pair(nodes, state, leaf_of_row, centers, moved, lower, upper, known, margin,
                   prediction, shrink, keys, filters):
    """One update of the tree stage: :func:`_sync`, a rebuild if one is due, then the
    candidate keys, then the pairs; returns (leaves inserted or renewed, new keys, pairs)."""
    count = lower.shape[0]
    renewed = _sync(nodes, state, leaf_of_row, centers, moved, lower, upper, known, margin,
                    prediction, shrink)
    _rebuild_if_due(nodes, state, leaf_of_row, count, count - min(known, count))
    # With no leaf moved (by this update or an update() before it) the keys stay as they
    # are, and so does the array: a step at rest allocates none.
    if renewed or moved[:count].any():
        keys = _candidate_keys(nodes, state, leaf_of_row, moved, keys, count)
        moved[:count] = False
    return renewed, keys, overlapping_pairs(keys, lower, upper, filters)


@njit
def _segment_leaves(nodes, root, origin_x, origin_y, dx, dy, visited):
    """Rows of the leaves whose boxes the segment origin + t·(dx, dy), t ∈ [0, 1], crosses,
    and into ``visited`` the nodes the walk tested (−1 after the last); returns the rows."""
    lower, upper, _, child1, child2, height, row, _, _ = nodes
    out = np.empty(16, np.int64)
    found = 0
    seen = 0
    if root == NULL:
        visited[0] = NULL
        return out[:0]
    stack = np.empty(2 * (height[root] + 2), np.int64)
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        if seen < visited.shape[0] - 1:
            visited[seen] = node
            seen += 1
        # Slab test: the parameter interval inside the box along each axis, intersected.
        t_enter = 0.0
        t_leave = 1.0
        for axis in range(2):
            start = origin_x if axis == 0 else origin_y
            step = dx if axis == 0 else dy
            if step == 0.0:
                if start < lower[node, axis] or start > upper[node, axis]:
                    t_enter = 2.0
            else:
                t0 = (lower[node, axis] - start) / step
                t1 = (upper[node, axis] - start) / step
                t_enter = max(t_enter, min(t0, t1))
                t_leave = min(t_leave, max(t0, t1))
        if t_enter > t_leave:
            continue
        if child1[node] == NULL:  # a leaf: tested on a column the descent reads anyway
            out = appended(out, found, row[node])
            found += 1
        else:
            stack[top] = child1[node]
            stack[top + 1] = child2[node]
            top += 2
    visited[seen] = NULL
    return out[:found]


@njit
def _remove_rows(nodes, state, leaf_of_row, centers, moved, removed, count, done):
    """Drop the leaves of the sorted rows ``removed`` (of ``count``) and renumber the rows
    behind them, which move up; ``done[0]`` is set last (the pass ran, all of it)."""
    lower, upper, parent, child1, child2, height, leaf_row, free_next, _ = nodes
    r = 0
    kept = removed[0]  # the rows ahead of the first removed one stay where they are
    for row in range(removed[0], count):
        if r < removed.shape[0] and removed[r] == row:
            leaf = leaf_of_row[row]
            _remove_leaf(lower, upper, parent, child1, child2, height, leaf_row, free_next,
                         state, leaf)
            _free(height, leaf_row, free_next, state, leaf)
            r += 1
            continue
        leaf_of_row[kept] = leaf_of_row[row]
        centers[kept] = centers[row]
        moved[kept] = moved[row]
        leaf_row[leaf_of_row[kept]] = kept
        kept += 1
    done[0] = True


@njit(refcounted=False)
def _renumber_keys(keys, removed, out):
    """Write into ``out`` the keys without the pairs of the sorted rows ``removed``, the
    others renumbered (a row behind j removed ones moves up j rows); returns how many."""
    first = removed[0]
    size = 0
    i = 0  # removed rows ahead of a: keys are sorted by a, so it only grows
    for k in range(keys.shape[0]):
        a = keys[k] >> 32
        b = keys[k] & 0xFFFFFFFF
        if b < first:  # then a < b is too: both rows stay where they are
            out[size] = keys[k]
            size += 1
            continue
        while i < removed.shape[0] and removed[i] < a:
            i += 1
        j = np.searchsorted(removed, b)
        if (i < removed.shape[0] and removed[i] == a) or (
                j < removed.shape[0] and removed[j] == b):
            continue
        out[size] = ((a - i) << 32) + (b - j)
        size += 1
    return size


class TreeRemoval(NamedTuple):
    """A removal worked out by :meth:`DynamicTree.removal`: the rows ``removed`` (sorted),
    the candidate ``keys`` after it, the row ``count`` before it, and ``done``, (1,) bool,
    set by the compiled pass."""

    removed: np.ndarray
    keys: np.ndarray
    count: int
    done: np.ndarray


class TreeStage(NamedTuple):
    """What the tree stage of a compiled step works on (:meth:`DynamicTree.stage_arrays`):
    the ``nodes`` (:class:`TreeNodes`), the root and counters (``state``), each row's leaf
    (``leaf_of_row``), the box centres at the last update (``centers``, (S, 2), m), the
    rows inserted or renewed since the keys were last found (``moved``), the rows the
    leaves hold (``known``), the settings (``margin`` and ``shrink``, m; ``prediction``,
    a multiple of the displacement) and the candidate ``keys`` a·2³² + b, sorted."""

    nodes: TreeNodes
    state: np.ndarray
    leaf_of_row: np.ndarray
    centers: np.ndarray
    moved: np.ndarray
    known: int
    margin: float
    prediction: float
    shrink: float
    keys: np.ndarray


class DynamicTree:
    """The dynamic AABB tree as a broad phase stage that keeps its tree between calls
    (see the module docstring); call it with ``(boxes, filters)`` as any broad phase.

    Parameters
    ----------
    margin
        Fat boxes are grown by this on every side (m).
    prediction
        ... and stretched by this many times the box's displacement since the last call.
    """

    def __init__(self, margin: float = TREE_MARGIN, prediction: float = TREE_PREDICTION):
        self.margin = _check.non_negative_scalar(margin, "margin")
        self.prediction = _check.non_negative_scalar(prediction, "prediction")
        self._nodes = empty_nodes(16)
        self._state = np.array([NULL, 0, 0], np.int64)
        self._leaf_of_row = np.full(8, NULL, np.int64)
        self._centers = np.zeros((8, 2))
        self._moved = np.zeros(8, np.bool_)
        self._count = 0
        self._keys = np.empty(0, np.int64)
        self.moved_last = 0  #: leaves inserted or renewed by the last update

    # --- the stage -------------------------------------------------------------------

    def __call__(self, boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
        return self.pairs(*stage_input(boxes, filters))

    def pairs(self, boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
        """The method on checked input, as the world calls it: canonical pairs."""
        count = len(boxes.lower)
        stage = self.stage_arrays(count)
        inserted, keys, pairs = sync_and_pair(
            stage.nodes, stage.state, stage.leaf_of_row, stage.centers, stage.moved,
            boxes.lower, boxes.upper, stage.known, stage.margin, stage.prediction,
            stage.shrink, stage.keys, filters)
        self.accept(count, keys, inserted)
        return pairs

    def stage_arrays(self, count: int) -> TreeStage:
        """For a compiled step that runs this stage itself (``tree`` of
        :func:`~physbook.compiled_step.compiled_step`): the tree's arrays and settings,
        with room for ``count`` rows; :meth:`accept` takes back what the step returns."""
        count = self._prepare(count)
        return TreeStage(self._nodes, self._state, self._leaf_of_row, self._centers,
                         self._moved, self._count, self.margin, self.prediction,
                         TREE_SHRINK_MARGINS * self.margin, self._keys)

    def accept(self, count: int, keys: np.ndarray, moved: int) -> None:
        """A compiled step updated the tree to ``count`` rows; ``keys`` are its candidate
        keys and ``moved`` the leaves it inserted or renewed."""
        self._count = count
        self._keys = keys
        self.moved_last = int(moved)

    def candidates(self) -> tuple[int, np.ndarray]:
        """(rows the leaves hold, candidate keys): what a compiled step needs besides
        :meth:`stage_arrays`, and what changes from step to step."""
        return self._count, self._keys

    def update(self, boxes: ShapeBoxes) -> int:
        """Make the leaves hold rows 0 .. S − 1 of ``boxes`` (checked input): rows beyond
        them are removed, new rows inserted, and a leaf whose box left its fat box renewed
        (the tree rebuilt when that is due). Returns how many leaves were inserted or
        renewed; their pairs are found at the next :meth:`pairs`."""
        lower, upper = boxes
        count = self._prepare(len(lower))
        self.moved_last = int(_sync(self._nodes, self._state, self._leaf_of_row,
                                    self._centers, self._moved, lower, upper, self._count,
                                    self.margin, self.prediction,
                                    TREE_SHRINK_MARGINS * self.margin))
        self._count = count
        _rebuild_if_due(self._nodes, self._state, self._leaf_of_row, count, 0)
        return self.moved_last

    def rebuild(self) -> None:
        """Rebuild the tree from the top (each node's leaves split at the middle of their
        centres along the longer side), keeping every leaf's fat box. The tree does so
        itself once it has renewed :data:`~physbook.constants.TREE_REBUILD_RENEWALS` times
        as many leaves as it holds, and the stage when most of its leaves are new."""
        _rebuild(self._nodes, self._state, self._leaf_of_row, self._count)

    def _prepare(self, count: int) -> int:
        """Drop the leaves of rows beyond ``count`` and make room for ``count`` rows."""
        if count >= 2**31:
            raise ValueError("a tree holds fewer than 2³¹ boxes")
        if count < self._count:
            self.remove_rows(np.arange(count, self._count))
        self._reserve(count)
        return count

    def remove_rows(self, rows) -> None:
        """Rows ``rows`` were removed and the rows behind them moved up: drop their leaves
        and renumber, keeping every other leaf where it is."""
        carry_out(self.apply_removal, self.removal(rows))

    def removal(self, rows) -> TreeRemoval | None:
        """Work out :meth:`remove_rows` for :meth:`apply_removal` (None: no leaf holds
        any of ``rows``); nothing changes yet."""
        removed = removed_rows(rows)
        removed = removed[removed < self._count]
        if not len(removed):
            return None
        keys = np.empty_like(self._keys)
        # The compiled parts return no array: numba returns one through Python code, where
        # an interrupt would surface as a SystemError.
        size = _renumber_keys(self._keys, removed, keys)
        return TreeRemoval(removed, keys[:size], self._count, np.zeros(1, np.bool_))

    def apply_removal(self, removal: TreeRemoval | None) -> None:
        """Carry out ``removal`` (from :meth:`removal`). Each part is done once, so a call
        interrupted midway is finished by calling again."""
        if removal is None:
            return
        if not removal.done[0]:
            _remove_rows(self._nodes, self._state, self._leaf_of_row, self._centers,
                         self._moved, removal.removed, removal.count, removal.done)
        self._count, self._keys = removal.count - len(removal.removed), removal.keys

    def clear(self) -> None:
        """Drop every leaf, whatever the nodes hold (a compiled step cut short may have
        inserted leaves it never reported): the next call inserts every row again and
        builds the tree from the top. Its pairs are the same as ever; only the fat boxes
        start afresh."""
        rows = len(self._leaf_of_row)
        self._nodes, self._state, self._leaf_of_row, self._moved, self._count, self._keys = (
            empty_nodes(len(self._nodes.height)), np.array([NULL, 0, 0], np.int64),
            np.full(rows, NULL, np.int64), np.zeros(rows, np.bool_), 0,
            np.empty(0, np.int64))

    def _reserve(self, count: int) -> None:
        """Room for ``count`` rows and their 2·count − 1 nodes."""
        self._leaf_of_row = grown(self._leaf_of_row, count, NULL)
        self._centers = grown(self._centers, count)
        self._moved = grown(self._moved, count)
        capacity = len(self._nodes.height)
        if 2 * count + 1 > capacity:
            size = max(2 * count + 1, 2 * capacity)
            nodes = empty_nodes(size)
            for old, new in zip(self._nodes, nodes, strict=True):
                new[:capacity] = old
            # The new nodes, already linked in order, join the free list at its head.
            nodes.free_next[capacity:size - 1] = np.arange(capacity + 1, size)
            nodes.free_next[size - 1] = self._state[_FREE]
            # In one statement: an exception (an interrupt) leaves the old nodes and free
            # list or the new ones, never a free list that runs off the old nodes.
            self._nodes, self._state[_FREE] = nodes, capacity

    # --- queries ---------------------------------------------------------------------

    def query(self, lower, upper) -> np.ndarray:
        """Rows whose fat boxes overlap the box ``lower``–``upper`` (sorted): a superset
        of the rows whose boxes do, as of the last update."""
        lower = _check.vector(lower, "lower")
        upper = _check.vector(upper, "upper")
        if np.any(lower > upper):
            raise ValueError(f"lower must not exceed upper, got {lower} and {upper}")
        root = int(self._state[ROOT])
        stack = np.empty(2 * (int(self._nodes.height[root]) + 2) if root != NULL else 2,
                         np.int64)
        nodes = self._nodes
        out, found = overlapping_leaves(nodes.lower, nodes.upper, nodes.child1, nodes.child2,
                                        nodes.height, nodes.row, root, lower[0], lower[1],
                                        upper[0], upper[1], stack, np.empty(16, np.int64), 0)
        return np.sort(out[:found])

    def query_many(self, lowers, uppers) -> tuple[np.ndarray, np.ndarray]:
        """For K boxes at once ((K, 2) ``lowers`` and ``uppers``): (query index, row) of
        every row whose fat box overlaps box k, in one compiled call."""
        lowers, uppers = _check.box_corners(lowers, uppers, "lowers", "uppers", rows="K")
        root = int(self._state[ROOT])
        stack = np.empty(2 * (int(self._nodes.height[root]) + 2) if root != NULL else 2,
                         np.int64)
        return _overlapping_many(self._nodes, root, lowers, uppers, stack)

    def segment_query(self, origin, translation) -> tuple[np.ndarray, np.ndarray]:
        """Rows whose fat boxes the segment from ``origin`` along ``translation`` crosses
        (sorted), and the nodes the walk tested, in order."""
        origin = _check.vector(origin, "origin")
        translation = _check.vector(translation, "translation")
        visited = np.empty(len(self._nodes.height) + 1, np.int64)
        rows = _segment_leaves(self._nodes, self._state[ROOT], origin[0], origin[1],
                               translation[0], translation[1], visited)
        return np.sort(rows), visited[:np.argmax(visited == NULL)]

    # --- what the tree looks like ----------------------------------------------------

    @property
    def nodes(self) -> TreeNodes:
        """Every node, by index (copies); free nodes have height −1."""
        return TreeNodes(*(column.copy() for column in self._nodes))

    @property
    def root(self) -> int:
        """The root node, −1 when empty."""
        return int(self._state[ROOT])

    @property
    def leaf_of_row(self) -> np.ndarray:
        """The leaf node of each row (a copy)."""
        return self._leaf_of_row[: self._count].copy()

    @property
    def renewed_since_rebuild(self) -> int:
        """Leaves renewed since the tree was last built from the top; at
        :data:`~physbook.constants.TREE_REBUILD_RENEWALS` times the leaf count it is
        rebuilt."""
        return int(self._state[_RENEWED])

    @property
    def height(self) -> int:
        """Edges on the longest path from the root to a leaf (−1 when empty)."""
        root = self.root
        return -1 if root == NULL else int(self._nodes.height[root])

    @property
    def area_ratio(self) -> float:
        """The surface-area cost: the internal nodes' perimeters summed, over the root's.
        A random line that crosses the root crosses each box with a chance of its
        perimeter over the root's (Cauchy–Crofton), so this is the expected number of
        internal nodes such a line crosses; a ray walk tests 1 + 2 × that many nodes.
        (For random points the chances go with area instead, for random boxes with the
        area of the box grown by the query box.)"""
        nodes, root = self._nodes, self.root
        if root == NULL:
            return 0.0
        internal = nodes.height > 0
        sides = nodes.upper[internal] - nodes.lower[internal]
        root_sides = nodes.upper[root] - nodes.lower[root]
        return float(sides.sum() / max(root_sides.sum(), np.finfo(float).tiny))


def tree_pairs(boxes: ShapeBoxes, filters: ShapeFilters) -> np.ndarray:
    """Broad phase by a dynamic AABB tree built for this call: (P, 2) canonical pairs."""
    return DynamicTree()(boxes, filters)
