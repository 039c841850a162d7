"""Broad phase: every broad phase returns exactly the pairs a brute-force double loop finds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook.broadphase import BROAD_PHASES, broad_phase, naive
from physbook.broadphase.filters import ShapeFilters, layer_filters
from physbook.broadphase.naive import naive_pairs
from physbook.broadphase.pairs import (
    ShapeBoxes,
    _pairs_are_sorted,
    canonical_pairs,
    lengthened,
    sorted_pairs,
)
from physbook.broadphase.sweep import sweep_pairs
from physbook.geometry.shape_table import ShapeTable, shape_aabbs
from physbook.geometry.shapes import Circle, Polygon
from physbook.kinds import CIRCLE, DYNAMIC
from physbook.stages import broad_phase_input
from physbook.world import World


def may_collide(category_a, mask_a, group_a, category_b, mask_b, group_b) -> bool:
    """Box2D's rule written out: an equal non-zero group decides by its sign, else each
    category must be in the other's mask."""
    if group_a == group_b and group_a != 0:
        return group_a > 0
    return bool(category_a & mask_b) and bool(category_b & mask_a)


def brute_force(lower, upper, body, category, mask, group, dynamic):
    """The oracle: a plain double loop over all ordered pairs, then duplicates culled."""
    found = set()
    count = len(lower)
    for a in range(count):
        for b in range(count):
            if a == b or body[a] == body[b]:
                continue
            if not may_collide(category[a], mask[a], group[a], category[b], mask[b],
                               group[b]):
                continue
            if not (dynamic[a] or dynamic[b]):
                continue
            if (lower[a] <= upper[b]).all() and (lower[b] <= upper[a]).all():
                found.add((min(a, b), max(a, b)))
    return sorted(found)


boxes_strategy = st.integers(0, 40).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=n, max_size=n),
    st.lists(st.tuples(st.floats(0, 2), st.floats(0, 2)), min_size=n, max_size=n),
    st.lists(st.integers(0, 12), min_size=n, max_size=n),
    st.lists(st.integers(0, 7), min_size=n, max_size=n),
    st.lists(st.integers(-1, 7), min_size=n, max_size=n),
    st.lists(st.integers(-2, 2), min_size=n, max_size=n),
    st.lists(st.booleans(), min_size=n, max_size=n),
))


def _filters(body, category, mask, group, dynamic) -> ShapeFilters:
    return ShapeFilters(np.array(body, np.int64), np.array(category, np.int64),
                        np.array(mask, np.int64), np.array(group, np.int64),
                        np.array(dynamic, bool))


def two_filters(body=(0, 1), layers=(1, 1), dynamic=(True, True)) -> ShapeFilters:
    return layer_filters(np.array(body), np.array(layers), np.array(dynamic))


@settings(max_examples=60)
@given(boxes_strategy)
def test_array_broad_phases_equal_the_double_loop(data):
    corners, sizes, *columns = data
    lower = np.array(corners, dtype=float).reshape(-1, 2)
    # Snap to a grid of 0.5 so that exactly touching boxes occur often.
    lower = np.round(lower * 2.0) / 2.0
    upper = lower + np.round(np.array(sizes, dtype=float).reshape(-1, 2) * 2.0) / 2.0
    filters = _filters(*columns)
    expected = brute_force(lower, upper, *filters)
    for function in BROAD_PHASES.values():
        pairs = function(ShapeBoxes(lower, upper), filters)
        assert pairs.dtype == np.int64 and pairs.shape == (len(expected), 2)
        assert [tuple(row) for row in pairs.tolist()] == expected


def random_world(seed: int, count: int = 60) -> World:
    rng = np.random.default_rng(seed)
    world = World()
    kinds = ["dynamic", "static", "kinematic"]
    for _ in range(count):
        if rng.random() < 0.5:
            shape = Circle(rng.uniform(0.1, 1.0))
        else:
            shape = Polygon.box(rng.uniform(0.1, 1.0), rng.uniform(0.1, 1.0))
        shapes = [shape, Circle(0.3, center=(0.5, 0.0))] if rng.random() < 0.2 else shape
        world.add_body(shapes, position=rng.uniform(-6, 6, 2), angle=rng.uniform(-3, 3),
                       kind=kinds[rng.choice(3, p=[0.7, 0.2, 0.1])],
                       filter=pb.Filter(int(rng.integers(1, 4)), int(rng.integers(-1, 4)),
                                        int(rng.integers(-1, 2))))
    return world


def world_brute_force(world: World):
    """Double loop over shapes with each Shape's own aabb() and the world's filter rules."""
    table = world.shapes
    shape_body = table.arrays.body
    filters = [table.filter(s) for s in range(table.count)]
    boxes = []
    for s in range(table.count):
        b = shape_body[s]
        boxes.append(table.shape(s).aabb(pb.Transform(world.bodies.origins[b],
                                                      world.bodies.angles[b])))
    found = []
    for a in range(table.count):
        for b in range(a + 1, table.count):
            body_a, body_b = shape_body[a], shape_body[b]
            if body_a == body_b or not may_collide(
                    filters[a].category, filters[a].mask, filters[a].group,
                    filters[b].category, filters[b].mask, filters[b].group):
                continue
            if world.bodies.kinds[body_a] != DYNAMIC and world.bodies.kinds[body_b] != DYNAMIC:
                continue
            if boxes[a].overlaps(boxes[b]):
                found.append((a, b))
    return found


@pytest.mark.parametrize("seed", range(4))
def test_world_broad_phases_equal_the_double_loop(seed):
    world = random_world(seed)
    expected = world_brute_force(world)
    assert expected, "the random world should hold some overlapping pairs"
    for name, function in BROAD_PHASES.items():
        pairs = function(*broad_phase_input(world))
        assert [tuple(row) for row in pairs.tolist()] == expected, name


def test_shape_aabbs_match_each_shape():
    world = random_world(11, count=20)
    lower, upper = world.shapes.aabbs(world.bodies.origins, world.bodies.angles)
    for s in range(world.shapes.count):
        b = world.shapes.arrays.body[s]
        box = world.shapes.shape(s).aabb(pb.Transform(world.bodies.origins[b],
                                                      world.bodies.angles[b]))
        np.testing.assert_allclose(lower[s], box.lower, atol=1e-12)
        np.testing.assert_allclose(upper[s], box.upper, atol=1e-12)


def test_shape_aabbs_turn_only_what_needs_turning():
    # A circle on its body's origin is boxed without a cosine or a sine: the boxes are still
    # those of turning every vertex, bit for bit, and a non-finite angle still spoils the
    # box of every shape of its body (an inverted, infinite box: the NaN vertices drop out
    # of the running minimum and maximum).
    table = ShapeTable()
    shapes = [(Circle(0.5), 0), (Polygon.box(0.4, 0.2), 0), (Circle(0.3, center=(0.2, -0.1)), 1),
              (Circle(0.7), 1), (Polygon.regular(5, 0.6), 2), (Circle(0.25), 3),
              (Polygon.box(0.3, 0.3, center=(1.0, 0.5)), 3)]
    for shape, body in shapes:
        table.append(shape, body)
    arrays = table.arrays
    origins = np.array([[1.5, -2.0], [0.0, 0.0], [-3.25, 4.0], [1e3, -1e-3]])
    margins = np.array([0.0, 0.1, 0.0, 0.05, 0.02, 0.0, 0.3])
    for angles in (np.array([0.3, -2.0, 5.5, 1e-9]), np.array([0.0, np.pi, -0.0, 2.5])):
        lower, upper = np.empty((7, 2)), np.empty((7, 2))
        shape_aabbs(arrays, origins, angles, margins, lower, upper)
        for s in range(7):
            b = arrays.body[s]
            cosine, sine = np.cos(angles[b]), np.sin(angles[b])
            vertices = arrays.vertices[arrays.vertex_start[s]:
                                       arrays.vertex_start[s] + arrays.vertex_count[s]]
            x = cosine * vertices[:, 0] - sine * vertices[:, 1] + origins[b, 0]
            y = sine * vertices[:, 0] + cosine * vertices[:, 1] + origins[b, 1]
            grow = margins[s] + (arrays.radius[s] if arrays.kind[s] == CIRCLE else 0.0)
            np.testing.assert_array_equal(lower[s], [x.min() - grow, y.min() - grow])
            np.testing.assert_array_equal(upper[s], [x.max() + grow, y.max() + grow])
    for bad in (np.nan, np.inf):
        lower, upper = np.empty((7, 2)), np.empty((7, 2))
        shape_aabbs(arrays, origins, np.array([bad, 0.0, 0.0, bad]), margins, lower, upper)
        spoiled = np.isin(arrays.body, [0, 3])
        assert np.all(lower[spoiled] == np.inf) and np.all(upper[spoiled] == -np.inf)
        assert np.all(np.isfinite(lower[~spoiled])) and np.all(np.isfinite(upper[~spoiled]))


def test_filter_rules_on_a_small_world():
    world = World()
    unit = Polygon.box(0.5, 0.5)
    ground = world.add_body(Polygon.box(5, 0.5), (0, -0.5), kind="static")
    wall = world.add_body(unit, (0.2, -0.2), kind="static")  # static on static: never
    lift = world.add_body(unit, (-0.5, 0.0), kind="kinematic")  # kinematic on static: never
    box = world.add_body(unit, (0.0, 0.5))  # touches the ground exactly, and overlaps
    ghost = world.add_body(unit, (0.0, 0.5), layers=2)  # on another layer: only with nobody
    compound = world.add_body([Circle(0.5), Circle(0.5, center=(0.4, 0.0))], (3.0, 0.5))
    rows = {b.row: name for b, name in [(ground, "ground"), (wall, "wall"), (lift, "lift"),
                                          (box, "box"), (ghost, "ghost"),
                                          (compound, "compound")]}
    shape_body = world.shapes.arrays.body
    boxes, filters = broad_phase_input(world)
    for function in BROAD_PHASES.values():
        named = {tuple(sorted((rows[shape_body[a]], rows[shape_body[b]])))
                 for a, b in function(boxes, filters)}
        assert named == {("box", "ground"), ("box", "wall"), ("box", "lift"),
                         ("compound", "ground")}
        # The compound's own two overlapping circles are never a pair.
        assert all(shape_body[a] != shape_body[b] for a, b in function(boxes, filters))


def test_empty_world_has_no_pairs():
    boxes, filters = broad_phase_input(World())
    for function in BROAD_PHASES.values():
        assert function(boxes, filters).shape == (0, 2)


def test_broad_phase_lookup():
    # Names give a new stage of the library's, whose pairs are trusted to be canonical.
    for name, stage_class in pb.broadphase.STAGES.items():
        stage, trusted = broad_phase(name)
        assert type(stage) is stage_class and trusted
        assert broad_phase(name)[0] is not stage  # each world gets its own
    assert pb.broadphase.DEFAULT_BROAD_PHASE == "tree"
    assert isinstance(pb.World().broad_phase, pb.DynamicTree)
    assert naive.NaiveBroadPhase().pairs is not None
    # A user's callable is used as it is, and its pairs are not trusted.
    assert broad_phase(naive_pairs) == (naive_pairs, False)
    with pytest.raises(ValueError, match="broad_phase"):
        broad_phase("octree")
    with pytest.raises(TypeError, match="broad_phase"):
        broad_phase(3)


@pytest.mark.parametrize("name", list(BROAD_PHASES))
@pytest.mark.parametrize("corner", ["lower", "upper"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_box_is_rejected_naming_it(name, corner, bad):
    lower, upper = np.zeros((2, 2)), np.ones((2, 2))
    {"lower": lower, "upper": upper}[corner][1, 0] = bad
    filters = two_filters()
    with pytest.raises(ValueError, match=f"boxes.{corner} must be finite"):
        BROAD_PHASES[name](ShapeBoxes(lower, upper), filters)


@pytest.mark.parametrize("name", list(BROAD_PHASES))
def test_an_inverted_box_is_rejected_naming_it(name):
    # lower > upper would make the sweep, which stops at the first box starting past the
    # end of another, disagree with the double loop.
    lower, upper = np.array([[0.0, 0.0], [2.0, 0.0]]), np.array([[1.0, 1.0], [1.5, 1.0]])
    filters = two_filters()
    with pytest.raises(ValueError, match="boxes.lower must not exceed boxes.upper.*box 1"):
        BROAD_PHASES[name](ShapeBoxes(lower, upper), filters)


@pytest.mark.parametrize("boxes, filters, error, message", [
    ((np.zeros((2, 2)), np.ones((2, 2))), two_filters(),
     TypeError, "boxes must be a ShapeBoxes"),
    (ShapeBoxes(np.zeros((2, 2)), np.ones((2, 2))), ([0, 1], [1, 1], [True, True]),
     TypeError, "filters must be a ShapeFilters"),
    (ShapeBoxes(np.zeros((2, 2)), np.ones((3, 2))), two_filters(),
     ValueError, "boxes.lower and boxes.upper"),
    (ShapeBoxes(np.zeros((2, 2)), np.ones((2, 2))),
     ShapeFilters([0, 1], [1], [1, 1], [0, 0], [True, True]), ValueError,
     "filters.category must have one entry per box"),
])
def test_broad_phases_reject_malformed_input_naming_it(boxes, filters, error, message):
    for function in BROAD_PHASES.values():
        with pytest.raises(error, match=message):
            function(boxes, filters)


def test_canonical_pairs_orders_and_deduplicates():
    pairs = np.array([[3, 1], [0, 2], [1, 3], [2, 2], [0, 1]])
    np.testing.assert_array_equal(canonical_pairs(pairs), [[0, 1], [0, 2], [1, 3]])
    already = np.array([[0, 1], [0, 2], [1, 3]])
    np.testing.assert_array_equal(canonical_pairs(already), already)
    assert canonical_pairs([]).shape == (0, 2)
    with pytest.raises(ValueError, match="pairs must be a"):
        canonical_pairs(np.array([[0.0, 1.0]]))


pair_lists = st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.lists(
    st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40)))


@settings(max_examples=80)
@given(pair_lists)
def test_sorted_pairs_and_pairs_are_sorted_agree_with_their_definitions(data):
    count, rows = data
    pairs = np.array(rows, dtype=np.int64).reshape(-1, 2)
    ordered = sorted_pairs(pairs[:, 0].copy(), pairs[:, 1].copy(), count)
    assert ordered.tolist() == sorted(pairs.tolist())  # Python's sort is the oracle
    strictly_increasing = all(a < b for a, b in rows) and all(
        tuple(rows[k]) < tuple(rows[k + 1]) for k in range(len(rows) - 1))
    assert _pairs_are_sorted(pairs) == strictly_increasing


def _column_world(column: bool, count: int = 300) -> World:
    """Separated circles in a column (along y) or a row (along x), and one tall box that
    overlaps a run of them."""
    world = World()
    for i in range(count):
        world.add_body(Circle(0.5), position=(0.0, 1.2 * i) if column else (1.2 * i, 0.0))
    world.add_body(Polygon.box(0.5, 20.0) if column else Polygon.box(20.0, 0.5),
                   position=(0.3, 60.0) if column else (60.0, 0.3))
    return world


def test_a_column_and_a_row_give_the_same_pairs_as_the_double_loop():
    # The sweep runs along y for the column and along x for the row; the pairs come out in
    # the same canonical order either way.
    found = {}
    for column in (True, False):
        world = _column_world(column)
        expected = world_brute_force(world)
        assert len(expected) == 35  # circles 33 .. 67 reach into the box
        for name, function in BROAD_PHASES.items():
            pairs = function(*broad_phase_input(world))
            assert [tuple(row) for row in pairs.tolist()] == expected, (name, column)
        found[column] = expected
    assert found[True] == found[False]


@settings(max_examples=60)
@given(boxes_strategy)
def test_the_sweep_gives_the_same_pairs_along_either_axis(data):
    # The same boxes with x and y exchanged: the sweep picks the other axis, the pairs are
    # those of the double loop both times.
    corners, sizes, *columns = data
    lower = np.array(corners, dtype=float).reshape(-1, 2)
    upper = lower + np.array(sizes, dtype=float).reshape(-1, 2)
    filters = _filters(*columns)
    straight = sweep_pairs(ShapeBoxes(lower, upper), filters)
    turned = sweep_pairs(ShapeBoxes(lower[:, ::-1], upper[:, ::-1]), filters)
    np.testing.assert_array_equal(straight, turned)
    assert [tuple(row) for row in straight.tolist()] == brute_force(lower, upper, *filters)


@pytest.mark.parametrize("filters, error, message", [
    (ShapeFilters([0], [1, 1], [1, 1], [0, 0], [True, True]), ValueError,
     r"filters.body must have one entry per box \(2\)"),
    (ShapeFilters([0.5, 1.0], [1, 1], [1, 1], [0, 0], [True, True]), TypeError,
     "filters.body must hold integers"),
    (ShapeFilters([0, 1], [1, 1], [1, 1], [0, 0], [1, 0]), TypeError,
     "filters.dynamic must hold True/False"),
    (ShapeFilters([0, 1], [[1, 2], [3]], [1, 1], [0, 0], [True, True]), ValueError,
     "filters.category must be a 1-D array"),
    (ShapeFilters([0, 1], [1, 1], np.array([2**64 - 1, 1], np.uint64), [0, 0], [True, True]),
     ValueError, "filters.mask must fit in a signed 64-bit integer"),
    (ShapeFilters([0, 1], [1, 1], [1, 1], [0.5, 0], [True, True]), TypeError,
     "filters.group must hold integers"),
])
def test_short_or_mistyped_filters_are_rejected_before_any_read(filters, error, message):
    boxes = ShapeBoxes(np.zeros((2, 2)), np.ones((2, 2)))
    for function in BROAD_PHASES.values():
        with pytest.raises(error, match=message):
            function(boxes, filters)


def test_boxes_of_the_wrong_shape_are_rejected_naming_them():
    filters = two_filters()
    with pytest.raises(ValueError, match=r"boxes.lower must have shape \(S, 2\)"):
        sweep_pairs(ShapeBoxes(np.zeros(4), np.ones((2, 2))), filters)
    with pytest.raises(TypeError, match="boxes.upper must be numeric"):
        naive_pairs(ShapeBoxes(np.zeros((2, 2)), "x"), filters)


def test_canonical_pairs_rejects_what_is_not_pairs_naming_it():
    with pytest.raises(ValueError, match="pairs must be a"):
        canonical_pairs("x")
    with pytest.raises(ValueError, match="found pairs must be a .* ragged rows"):
        canonical_pairs([[0, 1], [2]], "found pairs")
    with pytest.raises(ValueError, match="pairs must be a"):
        canonical_pairs(np.array([[True, False]]))
    with pytest.raises(TypeError, match="name must be a string"):
        canonical_pairs([[0, 1]], 5)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
@pytest.mark.parametrize("used", [0, 1, 5])
def test_a_lengthened_buffer_keeps_its_used_entries(dtype, used):
    # The growth of every compiled pair and key buffer: a longer array of the same type
    # whose first entries are the used ones.
    buffer = np.arange(5, dtype=dtype) * 3 + 1
    longer = lengthened(buffer, used, 12)
    assert longer.dtype == buffer.dtype and longer.shape == (12,)
    assert np.array_equal(longer[:used], buffer[:used])
