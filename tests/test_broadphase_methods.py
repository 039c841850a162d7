"""Chapter 12's broad phases over time: the stages that keep state (sort and sweep's order,
the grid's cells, the dynamic tree) return exactly the N² method's pairs on moving scenes of
every distribution, with boxes added and removed; and the tree keeps its invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook.broadphase import BROAD_PHASES, STAGES
from physbook.broadphase.filters import ShapeFilters
from physbook.broadphase.grid import choose_cell_size, grid_pairs
from physbook.broadphase.naive import naive_pairs
from physbook.broadphase.pairs import ShapeBoxes
from physbook.broadphase.sweep import SortAndSweep, insertion_sort
from physbook.broadphase.tree import DynamicTree
from physbook.constants import TREE_MARGIN, TREE_REBUILD_RENEWALS

DISTRIBUTIONS = ("uniform", "clustered", "columns", "sizes")


def scene(distribution: str, count: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Box centres and half sizes of one of the benchmark's distributions."""
    side = 2.0 * np.sqrt(count)
    if distribution == "uniform":
        centers = rng.uniform(0, side, (count, 2))
    elif distribution == "clustered":
        hubs = rng.uniform(0, side, (max(1, count // 50), 2))
        centers = hubs[rng.integers(0, len(hubs), count)] + rng.normal(0, 1.0, (count, 2))
    elif distribution == "columns":
        centers = np.column_stack([rng.integers(0, 4, count) * 3.0,
                                   rng.uniform(0, 2 * count / 4, count)])
    else:  # sizes over three orders of magnitude
        centers = rng.uniform(0, side, (count, 2))
    if distribution == "sizes":
        half = np.exp(rng.uniform(np.log(0.005), np.log(5.0), (count, 1))) * np.ones((1, 2))
    else:
        half = rng.uniform(0.2, 0.6, (count, 2))
    return centers, half


def random_filters(rng, count: int) -> ShapeFilters:
    return ShapeFilters(rng.integers(0, max(1, count), count),
                        rng.integers(0, 4, count), rng.integers(-1, 4, count),
                        rng.integers(-1, 2, count), rng.random(count) < 0.8)


def tree_invariants(tree: DynamicTree, boxes: ShapeBoxes | None = None,
                    balanced: bool = False) -> None:
    """Every leaf's fat box contains its box; every parent encloses its children, its box
    their union exactly; heights are one more than the taller child's; the leaves are
    exactly the rows, each once; no node is left marked. A tree grown by insertions and
    removals alone is ``balanced``: its children's heights differ by at most one (AVL). A
    tree rebuilt from the top keeps a third of a node's leaves on each side at least."""
    nodes, root = tree.nodes, tree.root
    assert np.all(nodes.marked == -1)
    if root < 0:
        assert len(tree.leaf_of_row) == 0
        return
    assert nodes.parent[root] == -1
    seen_rows = []
    stack = [root]
    while stack:
        node = stack.pop()
        if nodes.height[node] == 0:
            seen_rows.append(nodes.row[node])
            continue
        first, second = nodes.child1[node], nodes.child2[node]
        for child in (first, second):
            assert nodes.parent[child] == node
            assert np.all(nodes.lower[node] <= nodes.lower[child])
            assert np.all(nodes.upper[child] <= nodes.upper[node])
            stack.append(child)
        np.testing.assert_array_equal(nodes.lower[node],
                                      np.minimum(nodes.lower[first], nodes.lower[second]))
        np.testing.assert_array_equal(nodes.upper[node],
                                      np.maximum(nodes.upper[first], nodes.upper[second]))
        assert nodes.height[node] == 1 + max(nodes.height[first], nodes.height[second])
        if balanced:
            assert abs(nodes.height[first] - nodes.height[second]) <= 1
    assert sorted(seen_rows) == list(range(len(tree.leaf_of_row)))
    assert all(nodes.row[tree.leaf_of_row[row]] == row for row in range(len(seen_rows)))
    if balanced:  # an AVL-balanced tree of n leaves has height below 1.45·log2(n + 2)
        assert tree.height <= 1.45 * np.log2(len(seen_rows) + 2)
    else:  # a third on each side: log_1.5(n) + 1 levels, and a few insertions since
        assert tree.height <= np.log(len(seen_rows) + 2) / np.log(1.5) + 3
    if boxes is not None:
        leaves = tree.leaf_of_row
        assert np.all(nodes.lower[leaves] <= boxes.lower)
        assert np.all(boxes.upper <= nodes.upper[leaves])


def fat_box_pairs(tree: DynamicTree) -> np.ndarray:
    """Brute force: the keys a·2³² + b (a < b) of the rows whose leaves' fat boxes overlap,
    sorted: what the tree keeps as its candidates."""
    leaves = tree.leaf_of_row
    lower, upper = tree.nodes.lower[leaves], tree.nodes.upper[leaves]
    overlap = (np.all(lower[:, None, :] <= upper[None, :, :], axis=2)
               & np.all(lower[None, :, :] <= upper[:, None, :], axis=2))
    a, b = np.nonzero(np.triu(overlap, 1))
    return np.sort((a.astype(np.int64) << 32) + b)


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
@pytest.mark.parametrize("seed", range(3))
def test_stages_equal_the_naive_pairs_over_many_steps(distribution, seed):
    rng = np.random.default_rng(seed)
    centers, half = scene(distribution, 300, rng)
    filters = random_filters(rng, len(centers))
    stages = {name: stage() for name, stage in STAGES.items()}
    for step in range(40):
        # 10 % of the boxes move each step; now and then one jumps far.
        moving = rng.random(len(centers)) < 0.1
        centers = centers + rng.normal(0, 0.2, centers.shape) * moving[:, None]
        if step % 10 == 4:
            centers[rng.integers(0, len(centers))] = rng.uniform(-50, 50, 2)
        if step % 8 == 3:  # remove two boxes; the stages that keep state are told
            gone = rng.choice(len(centers), 2, replace=False)
            keep = np.setdiff1d(np.arange(len(centers)), gone)
            centers, half = centers[keep], half[keep]
            filters = ShapeFilters(*(column[keep] for column in filters))
            for stage in stages.values():
                if hasattr(stage, "remove_rows"):
                    stage.remove_rows(gone)
        if step % 8 == 6:  # add three
            more_centers, more_half = scene(distribution, 3, rng)
            centers, half = np.vstack([centers, more_centers]), np.vstack([half, more_half])
            filters = ShapeFilters(*(np.concatenate([column, extra]) for column, extra in
                                     zip(filters, random_filters(rng, 3), strict=True)))
        boxes = ShapeBoxes(centers - half, centers + half)
        expected = naive_pairs(boxes, filters)
        for name, stage in stages.items():
            np.testing.assert_array_equal(stage(boxes, filters), expected, err_msg=name)
        tree_invariants(stages["tree"], boxes)
        np.testing.assert_array_equal(stages["tree"].candidates()[1],
                                      fat_box_pairs(stages["tree"]))


def test_stages_untold_of_removals_stay_exact():
    # A stage not told which rows went (a user's world) still answers exactly: its state
    # only speeds it up. Here rows vanish from the end and the middle without a word.
    rng = np.random.default_rng(7)
    centers, half = scene("uniform", 200, rng)
    filters = random_filters(rng, 200)
    stages = [DynamicTree(), SortAndSweep()]
    for _ in range(12):
        keep = np.sort(rng.choice(len(centers), len(centers) - 5, replace=False))
        centers, half = centers[keep], half[keep]
        filters = ShapeFilters(*(column[keep] for column in filters))
        boxes = ShapeBoxes(centers - half, centers + half)
        for stage in stages:
            np.testing.assert_array_equal(stage(boxes, filters), naive_pairs(boxes, filters))
        tree_invariants(stages[0], boxes)


@settings(max_examples=40)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 4),
                          st.integers(0, 4)), max_size=60),
       st.lists(st.integers(0, 59), max_size=20))
def test_tree_insert_and_remove_keep_the_invariants(cells, removals):
    # Boxes on an integer grid, so touching boxes and equal boxes are common.
    tree = DynamicTree()
    corners = np.array([cell[:2] for cell in cells], float).reshape(-1, 2)
    sizes = np.array([cell[2:] for cell in cells], float).reshape(-1, 2)
    lower, upper = corners, corners + sizes
    filters = ShapeFilters(np.arange(len(lower)), *(np.ones(len(lower), np.int64),) * 2,
                           np.zeros(len(lower), np.int64), np.ones(len(lower), bool))
    # update() inserts the boxes one by one (the stage would build the tree from the top).
    tree.update(ShapeBoxes(lower, upper))
    tree_invariants(tree, ShapeBoxes(lower, upper), balanced=True)
    np.testing.assert_array_equal(tree(ShapeBoxes(lower, upper), filters),
                                  naive_pairs(ShapeBoxes(lower, upper), filters))
    for row in removals:
        if row < len(lower):
            tree.remove_rows([row])
            keep = np.arange(len(lower)) != row
            lower, upper = lower[keep], upper[keep]
            filters = ShapeFilters(*(column[keep] for column in filters))
            tree_invariants(tree, balanced=True)
    np.testing.assert_array_equal(tree(ShapeBoxes(lower, upper), filters),
                                  naive_pairs(ShapeBoxes(lower, upper), filters))


def test_a_still_box_keeps_its_leaf_and_a_moved_one_is_fattened_along_its_motion():
    tree = DynamicTree()
    lower, upper = np.array([[0.0, 0.0], [5.0, 0.0]]), np.array([[1.0, 1.0], [6.0, 1.0]])
    assert tree.update(ShapeBoxes(lower, upper)) == 2  # both inserted
    np.testing.assert_allclose(tree.nodes.lower[tree.leaf_of_row], lower - TREE_MARGIN)
    # Moving within the margin moves nothing.
    assert tree.update(ShapeBoxes(lower + 0.05, upper + 0.05)) == 0
    # Moving 0.5 m in +x leaves the fat box: reinserted, stretched by 4 × 0.45 m ahead
    # (the displacement since the last call) and by the margin behind.
    shifted_lower, shifted_upper = lower + [0.5, 0.05], upper + [0.5, 0.05]
    assert tree.update(ShapeBoxes(shifted_lower, shifted_upper)) == 2
    leaf = tree.leaf_of_row[0]
    np.testing.assert_allclose(tree.nodes.lower[leaf], shifted_lower[0] - TREE_MARGIN)
    np.testing.assert_allclose(tree.nodes.upper[leaf],
                               shifted_upper[0] + TREE_MARGIN + [4 * 0.45, 0.0])
    # A box that stops far inside its stretched box is shrunk back on a later call.
    assert tree.update(ShapeBoxes(shifted_lower, shifted_upper)) == 2
    np.testing.assert_allclose(tree.nodes.upper[tree.leaf_of_row[0]],
                               shifted_upper[0] + TREE_MARGIN)


def test_a_box_moving_steadily_is_reinserted_only_when_it_leaves_its_fat_box():
    # A unit box moving d = 0.3 m a call. Inserted at rest (the box and the margin), it
    # leaves that fat box at once (0.3 > 0.1) and is stretched 4·d ahead; from then on it
    # leaves it after j calls with j·d > 4·d + margin, j > 4.33: every 5th call. Its box
    # trails ever further behind the fat box's back edge, which must not count as the fat
    # box being too large: a fat box made now would be exactly as long.
    tree = DynamicTree()
    box = ShapeBoxes(np.array([[0.0, 0.0]]), np.array([[1.0, 1.0]]))
    moved = [tree.update(ShapeBoxes(box.lower + [0.3 * k, 0.0], box.upper + [0.3 * k, 0.0]))
             for k in range(51)]
    assert moved[0] == 1
    assert [k for k in range(1, 51) if moved[k]] == list(range(1, 51, 5))


def test_sorted_input_builds_a_balanced_tree():
    # Boxes inserted left to right would make a list of a tree without rotations.
    tree = DynamicTree()
    lower = np.column_stack([np.arange(1024.0) * 3.0, np.zeros(1024)])
    tree.update(ShapeBoxes(lower, lower + 1.0))
    tree_invariants(tree, balanced=True)
    assert tree.height <= 14  # 1.45·log2(1026) ≈ 14.5; a perfect tree would be 10
    assert tree.area_ratio > 0


@pytest.mark.parametrize("fraction", [0.01, 0.3, 1.0])
def test_candidates_are_the_rows_whose_fat_boxes_overlap_however_many_move(fraction):
    # Few renewed leaves are paired by querying the tree with each, many by one descent of
    # the tree against itself; either way the candidates are exactly the overlapping fat
    # boxes, and the pairs the double loop's.
    rng = np.random.default_rng(int(100 * fraction))
    centers, half = scene("clustered", 400, rng)
    filters = random_filters(rng, 400)
    tree = DynamicTree()
    for _ in range(12):
        moving = rng.random(len(centers)) < fraction
        centers = centers + rng.normal(0, 0.4, centers.shape) * moving[:, None]
        boxes = ShapeBoxes(centers - half, centers + half)
        np.testing.assert_array_equal(tree(boxes, filters), naive_pairs(boxes, filters))
        np.testing.assert_array_equal(tree.candidates()[1], fat_box_pairs(tree))
        tree_invariants(tree, boxes)


def test_boxes_moving_together_are_renewed_in_place():
    # A field sliding as one: every leaf is renewed now and then, in place, so that no node
    # changes parent or children (until a rebuild is due), and the boxes stay exact unions.
    rng = np.random.default_rng(6)
    centers, half = scene("uniform", 200, rng)
    filters = random_filters(rng, 200)
    tree = DynamicTree()
    tree.update(ShapeBoxes(centers - half, centers + half))
    shape = [column.copy() for column in tree.nodes[2:5]]  # parent, child1, child2
    renewed = 0
    for step in range(1, 12):
        boxes = ShapeBoxes(centers - half + [0.3 * step, -0.1 * step],
                           centers + half + [0.3 * step, -0.1 * step])
        np.testing.assert_array_equal(tree(boxes, filters), naive_pairs(boxes, filters))
        renewed += tree.moved_last
        assert tree.renewed_since_rebuild == renewed < 4 * 200
        tree_invariants(tree, boxes, balanced=True)
        for before, after in zip(shape, tree.nodes[2:5], strict=True):
            np.testing.assert_array_equal(before, after)
    assert renewed >= 2 * 200


def test_a_box_that_wanders_off_is_reinserted_beside_new_neighbours():
    # Boxes on a line; the first jumps far past the last. Renewed in place, it would keep
    # its old sibling, and their parent would stretch over the whole line. (No prediction:
    # its fat box would otherwise be stretched back along the jump, over the line itself.)
    lower = np.column_stack([np.arange(16.0) * 2.0, np.zeros(16)])
    tree = DynamicTree(prediction=0.0)
    tree.update(ShapeBoxes(lower, lower + 1.0))
    nodes = tree.nodes
    old_parent = nodes.parent[tree.leaf_of_row[0]]
    old_sibling = nodes.child1[old_parent] + nodes.child2[old_parent] - tree.leaf_of_row[0]
    lower[0] = [40.0, 0.0]
    assert tree.update(ShapeBoxes(lower, lower + 1.0)) == 1
    tree_invariants(tree, ShapeBoxes(lower, lower + 1.0), balanced=True)
    nodes = tree.nodes
    parent = nodes.parent[tree.leaf_of_row[0]]
    sibling = nodes.child1[parent] + nodes.child2[parent] - tree.leaf_of_row[0]
    assert sibling != old_sibling
    # Its new parent encloses it and boxes near x = 30, not the whole line.
    assert nodes.lower[parent, 0] >= 20.0


def test_the_stage_is_rebuilt_after_as_many_renewals_as_four_times_its_leaves():
    # The boxes step back and forth together, out of their fat boxes each call: 50 renewals
    # a call, so the 200 renewals that make the tree due for a rebuild come at the fourth.
    assert TREE_REBUILD_RENEWALS == 4.0
    rng = np.random.default_rng(8)
    centers, half = scene("uniform", 50, rng)
    filters = random_filters(rng, 50)
    tree = DynamicTree()
    tree(ShapeBoxes(centers - half, centers + half), filters)
    assert tree.renewed_since_rebuild == 0  # all new: built from the top at once
    counts = []
    for step in range(9):
        centers = centers + (-1.0) ** step
        boxes = ShapeBoxes(centers - half, centers + half)
        np.testing.assert_array_equal(tree(boxes, filters), naive_pairs(boxes, filters))
        assert tree.moved_last == 50
        counts.append(tree.renewed_since_rebuild)
        tree_invariants(tree, boxes)
        np.testing.assert_array_equal(tree.candidates()[1], fat_box_pairs(tree))
    assert counts == [50, 100, 150, 0, 50, 100, 150, 0, 50]


def test_a_tree_built_from_the_top_does_not_depend_on_the_order_of_its_boxes():
    # Inserted one by one, sorted boxes make a worse tree than shuffled ones (chapter 12);
    # built from the top, each node's leaves depend only on where the boxes are.
    field = pb.scenes.box_field("uniform", 2000, seed=8)
    filters = pb.scenes.free_filters(2000)
    built = []
    for order in (np.random.default_rng(0).permutation(2000), np.argsort(field.lower[:, 0])):
        boxes = ShapeBoxes(field.lower[order], field.upper[order])
        tree = DynamicTree()
        np.testing.assert_array_equal(tree(boxes, filters), naive_pairs(boxes, filters))
        tree_invariants(tree, boxes)
        built.append((tree.height, tree.area_ratio))
    assert built[0][0] == built[1][0]
    assert built[0][1] == pytest.approx(built[1][1], rel=1e-12)
    # A row of boxes is halved at every node: a perfect tree.
    line = np.column_stack([np.arange(1024.0) * 3.0, np.zeros(1024)])
    tree = DynamicTree()
    tree(ShapeBoxes(line, line + 1.0), pb.scenes.free_filters(1024))
    assert tree.height == 10


def test_rebuild_keeps_the_pairs_and_the_queries():
    rng = np.random.default_rng(9)
    centers, half = scene("sizes", 300, rng)
    lower, upper = centers - half, centers + half
    filters = random_filters(rng, 300)
    tree = DynamicTree(margin=0.0, prediction=0.0)
    tree.update(ShapeBoxes(lower, upper))
    before = tree.height
    tree.rebuild()
    tree_invariants(tree, ShapeBoxes(lower, upper))
    assert tree.height <= max(before, np.log(300) / np.log(1.5) + 1)
    np.testing.assert_array_equal(tree(ShapeBoxes(lower, upper), filters),
                                  naive_pairs(ShapeBoxes(lower, upper), filters))
    for _ in range(30):
        a, b = _box_query_agrees(tree, lower, upper, rng, (-5, 40))
        rows, visited = tree.segment_query(a, b - a)
        crossed = [row for row in range(300) if _segment_crosses(a, b - a, lower[row],
                                                                     upper[row])]
        np.testing.assert_array_equal(rows, crossed)
        assert visited[0] == tree.root
    # Boxes all at one point cannot be split by a plane: the list is halved.
    same = DynamicTree()
    same.update(ShapeBoxes(np.zeros((37, 2)), np.ones((37, 2))))
    same.rebuild()
    tree_invariants(same)
    assert same.height == 6


def _box_query_agrees(tree, lower, upper, rng, extent):
    """Query ``tree`` with the box spanned by two random corners in ``extent`` and check the
    rows against brute force over the boxes ``lower``–``upper``; return the corners."""
    a, b = rng.uniform(*extent, 2), rng.uniform(*extent, 2)
    low, high = np.minimum(a, b), np.maximum(a, b)
    expected = np.flatnonzero(np.all(lower <= high, axis=1) & np.all(low <= upper, axis=1))
    np.testing.assert_array_equal(tree.query(low, high), expected)
    return a, b


def _segment_crosses(origin, translation, lower, upper) -> bool:
    """The slab test written out: the parameter intervals inside the box along x and y
    meet each other and [0, 1]."""
    enter, leave = 0.0, 1.0
    for axis in range(2):
        if translation[axis] == 0.0:
            if not lower[axis] <= origin[axis] <= upper[axis]:
                return False
            continue
        t0 = (lower[axis] - origin[axis]) / translation[axis]
        t1 = (upper[axis] - origin[axis]) / translation[axis]
        enter, leave = max(enter, min(t0, t1)), min(leave, max(t0, t1))
    return enter <= leave


def test_tree_queries_equal_brute_force():
    rng = np.random.default_rng(3)
    centers, half = scene("sizes", 500, rng)
    lower, upper = centers - half, centers + half
    tree = DynamicTree(margin=0.0, prediction=0.0)
    tree.update(ShapeBoxes(lower, upper))
    for _ in range(50):
        a, b = _box_query_agrees(tree, lower, upper, rng, (-5, 50))
        # The segment a → b crosses a box iff the slab intervals along x and y meet.
        rows, visited = tree.segment_query(a, b - a)
        t = np.linspace(0.0, 1.0, 20001)[:, None]
        points = a + t * (b - a)
        sampled = {row for row in range(len(lower)) if np.any(
            np.all((lower[row] <= points) & (points <= upper[row]), axis=1))}
        assert sampled <= set(rows.tolist())
        assert len(visited) >= len(rows) and visited[0] == tree.root


@pytest.mark.parametrize("name", list(BROAD_PHASES))
def test_columns_cost_the_sweep_nothing_extra(name):
    # Four columns of boxes: along x all overlap at once, so the sweep runs along y.
    rng = np.random.default_rng(1)
    centers, half = scene("columns", 400, rng)
    filters = random_filters(rng, 400)
    boxes = ShapeBoxes(centers - half, centers + half)
    np.testing.assert_array_equal(BROAD_PHASES[name](boxes, filters),
                                  naive_pairs(boxes, filters))


def test_insertion_sort_sorts_and_gives_up_when_told():
    rng = np.random.default_rng(2)
    keys = rng.normal(size=200)
    order = np.arange(200)
    swaps = insertion_sort(keys, order, 10**9)
    np.testing.assert_array_equal(keys[order], np.sort(keys))
    inversions = sum(1 for i in range(200) for j in range(i + 1, 200) if keys[i] > keys[j])
    assert swaps == inversions  # each swap removes exactly one inversion
    order = np.arange(200)
    assert insertion_sort(keys, order, 50) == -1
    assert sorted(order.tolist()) == list(range(200))  # still a permutation


def test_the_sweep_repairs_its_order_and_sorts_afresh_only_when_scrambled():
    rng = np.random.default_rng(4)
    centers, half = scene("uniform", 500, rng)
    filters = random_filters(rng, 500)
    sweep = SortAndSweep()
    sweep(ShapeBoxes(centers - half, centers + half), filters)
    first = sweep.full_sorts
    for _ in range(5):
        centers = centers + rng.normal(0, 0.05, centers.shape)
        sweep(ShapeBoxes(centers - half, centers + half), filters)
    assert sweep.full_sorts == first  # small moves: insertion sort only
    rng.shuffle(centers)
    boxes = ShapeBoxes(centers - half, centers + half)
    np.testing.assert_array_equal(sweep(boxes, filters), naive_pairs(boxes, filters))
    assert sweep.full_sorts == first + 1


def test_grid_cell_size_changes_the_work_not_the_answer():
    rng = np.random.default_rng(5)
    centers, half = scene("sizes", 400, rng)
    filters = random_filters(rng, 400)
    boxes = ShapeBoxes(centers - half, centers + half)
    expected = naive_pairs(boxes, filters)
    for size in (0.01, 0.3, 1.0, 10.0, 1e4):
        np.testing.assert_array_equal(grid_pairs(boxes, filters, size), expected)
    sides = np.max(2 * half, axis=1)
    assert choose_cell_size(*boxes) == pytest.approx(2.0 * np.median(sides))
    with pytest.raises(ValueError, match="cell_size must be"):
        grid_pairs(boxes, filters, 0.0)
    with pytest.raises(ValueError, match="cell_size must be"):
        pb.UniformGrid(-1.0)


def test_huge_and_far_boxes_do_not_overflow_the_grid():
    lower = np.array([[-1e300, -1.0], [0.0, 0.0], [1e299, 5.0], [0.5, 0.5]])
    upper = np.array([[1e300, 1.0], [1.0, 1.0], [1e300, 6.0], [0.6, 0.6]])
    filters = ShapeFilters(np.arange(4), *(np.ones(4, np.int64),) * 2, np.zeros(4, np.int64),
                           np.ones(4, bool))
    for function in BROAD_PHASES.values():
        np.testing.assert_array_equal(function(ShapeBoxes(lower, upper), filters),
                                      [[0, 1], [0, 3], [1, 3]])


@pytest.mark.parametrize("name", list(BROAD_PHASES))
def test_every_world_broad_phase_runs_the_same_simulation(name):
    # The pairs are identical, so a world's motion does not depend on the method, also
    # while bodies are removed (the stages that keep state are told) and added.
    worlds = []
    for method in ("naive", name):
        world = pb.World(broad_phase=method)
        world.add_body(pb.Polygon.box(10, 0.5), position=(0, -0.5), kind="static")
        for i in range(6):
            for j in range(6 - i):
                world.add_body(pb.Polygon.box(0.5, 0.5), position=(j - 2.5 + 0.5 * i,
                                                                     0.5 + 1.0 * i))
        world.add_body(pb.Circle(0.4), position=(-6, 1.0), velocity=(12, 2))
        for k in range(120):
            if k == 40:
                world.remove_body(world.bodies[3])
            if k == 60:
                world.add_body(pb.Circle(0.3), position=(0.0, 8.0))
            if k == 80:
                world.remove_body(world.bodies[1])
            world.step(1 / 60)
        worlds.append(world)
    np.testing.assert_array_equal(worlds[0].bodies.centers, worlds[1].bodies.centers)
    np.testing.assert_array_equal(worlds[0].bodies.angles, worlds[1].bodies.angles)
