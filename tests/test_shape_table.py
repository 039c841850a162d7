"""The shape table: shapes packed into arrays, with stable ids, against a model and a table
rebuilt from scratch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from physbook.geometry.shape_table import ShapeArrays, ShapeTable, body_poses, shape_aabbs
from physbook.geometry.shapes import Circle, Polygon
from physbook.kinds import CIRCLE, POLYGON

#: Shapes of different kinds and vertex counts, so that removals move vertex runs around.
SHAPES = [Polygon.box(1, 1), Circle(0.5, (1, 2)), Polygon.regular(5, 1), Circle(0.25),
          Polygon.regular(7, 2), Polygon([(0, 0), (1, 0), (0, 1)])]


def test_shape_table_packs_and_removes_bodies():
    shapes = [SHAPES[0], SHAPES[1], SHAPES[2], SHAPES[3], SHAPES[4]]
    owners = [0, 0, 1, 2, 2]
    table = ShapeTable(capacity=1)
    for shape, owner in zip(shapes, owners, strict=True):
        table.append(shape, owner)
    columns = table.arrays
    assert table.count == 5 and table.vertex_total == 4 + 1 + 5 + 1 + 7
    np.testing.assert_array_equal(columns.ids, [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(columns.kind, [POLYGON, CIRCLE, POLYGON, CIRCLE, POLYGON])
    np.testing.assert_array_equal(columns.radius, [0, 0.5, 0, 0.25, 0])
    np.testing.assert_array_equal(columns.vertex_start, [0, 4, 5, 10, 11])
    np.testing.assert_array_equal(columns.vertices[4], [1, 2])
    np.testing.assert_array_equal(columns.vertices[11:18], shapes[4].vertices)

    # Drop body 1 (shape 2): body 2 becomes body 1.
    table.remove_body(1)
    columns = table.arrays
    assert table.count == 4
    assert [table.shape(s) for s in range(4)] == [shapes[0], shapes[1], shapes[3], shapes[4]]
    np.testing.assert_array_equal(columns.ids, [0, 1, 3, 4])
    np.testing.assert_array_equal(columns.body, [0, 0, 1, 1])
    np.testing.assert_array_equal(columns.vertex_start, [0, 4, 5, 6])
    np.testing.assert_array_equal(columns.vertices[6:13], shapes[4].vertices)
    np.testing.assert_array_equal(columns.normals[6:13], shapes[4].normals)
    np.testing.assert_array_equal(columns.vertices[:4], shapes[0].vertices)
    assert table.vertex_total == 13

    with pytest.raises(TypeError, match="shape"):
        table.append("box", 0)
    with pytest.raises(ValueError, match="body"):
        table.remove_body(-1)
    with pytest.raises(TypeError, match="body"):
        table.remove_body(1.0)
    table.remove_body(0)
    table.remove_body(0)
    assert table.count == 0 and table.vertex_total == 0


def test_rows_are_read_only_views_and_checked():
    table = ShapeTable()
    table.append(SHAPES[0], 0)
    for column in table.arrays:
        with pytest.raises(ValueError, match="read-only"):
            column[0] = 0
    with pytest.raises(IndexError, match="row"):
        table.shape(1)
    with pytest.raises(ValueError, match="origins"):
        table.aabbs(np.zeros((0, 2)), np.zeros(0))  # no row for body 0


# --- stable ids, against a model -------------------------------------------------------------

#: One operation: add a body of shapes (kinds picked from SHAPES), or remove a body by pick.
operations = st.lists(st.tuples(st.booleans(), st.integers(0, 50),
                                st.lists(st.integers(0, len(SHAPES) - 1), min_size=1,
                                         max_size=3)),
                      min_size=1, max_size=30)


def run_operations(table: ShapeTable, steps, check) -> None:
    """Apply ``steps`` to ``table`` and to a model, a list of bodies, each a list of
    (shape id, shape); call ``check(table, model, next_id)`` after every step."""
    model: list[list[tuple[int, object]]] = []
    next_id = 0
    for add, pick, picks in steps:
        if add or not model:
            body = []
            for k in picks:
                row = table.append(SHAPES[k], len(model))
                assert row == table.count - 1, "a new shape gets the last row"
                body.append((next_id, SHAPES[k]))
                next_id += 1
            model.append(body)
        else:
            victim = pick % len(model)
            table.remove_body(victim)
            del model[victim]
        check(table, model, next_id)


def kept_shapes(model) -> list[tuple[int, int, object]]:
    """(id, body row, shape) of every shape in the model, in row order."""
    return [(shape_id, row, shape) for row, body in enumerate(model)
            for shape_id, shape in body]


@settings(max_examples=60)
@given(operations)
def test_ids_are_stable_and_strictly_increasing_with_rows(steps):
    def check(table, model, next_id):
        ids = table.arrays.ids
        np.testing.assert_array_equal(ids, [shape_id for shape_id, _, _ in kept_shapes(model)])
        assert np.all(np.diff(ids) > 0)
        assert len(ids) == 0 or ids[-1] < next_id  # ids are never reused

    run_operations(ShapeTable(capacity=1), steps, check)


def rebuilt(model) -> ShapeArrays:
    """The brute-force oracle: a fresh table of the kept shapes, bodies numbered anew."""
    fresh = ShapeTable()
    for _, row, shape in kept_shapes(model):
        fresh.append(shape, row)
    return fresh.arrays


@settings(max_examples=60)
@given(operations)
def test_remove_body_leaves_the_table_a_fresh_build_of_the_kept_shapes_would_have(steps):
    def check(table, model, next_id):
        expected = rebuilt(model)
        assert table.count == len(expected.ids)
        assert table.vertex_total == len(expected.vertices)
        assert [table.shape(s) for s in range(table.count)] == [
            shape for _, _, shape in kept_shapes(model)]
        for name, actual, wanted in zip(ShapeArrays._fields, table.arrays, expected,
                                        strict=True):
            if name != "ids":  # a fresh table numbers its ids from 0 again
                assert actual.dtype == wanted.dtype, name
                np.testing.assert_array_equal(actual, wanted, err_msg=name)

    run_operations(ShapeTable(capacity=1), steps, check)


# --- arguments ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("capacity", "error", "rule"), [
    (0, ValueError, "at least 1"), (-1, ValueError, "at least 1"), (2.5, TypeError, "integer"),
    ("a", TypeError, "integer"), (True, TypeError, "integer"), (10**400, ValueError, "at most"),
])
def test_capacity_must_be_a_positive_integer(capacity, error, rule):
    with pytest.raises(error, match=f"capacity.*{rule}"):
        ShapeTable(capacity)


def test_a_capacity_beyond_memory_is_refused_naming_it(monkeypatch):
    # Whether 2**20 rows fit depends on the machine; a refused allocation is simulated.
    def no_memory(*args, **kwargs):
        raise MemoryError("simulated")

    monkeypatch.setattr(np, "zeros", no_memory)
    with pytest.raises(ValueError, match=r"capacity 1048576 needs 0\.243 GiB, more memory"):
        ShapeTable(2**20)
    with pytest.raises(ValueError, match="capacity must be at most 1048576"):
        ShapeTable(2**20 + 1)


def test_a_table_of_capacity_one_grows_by_doubling():
    table = ShapeTable(capacity=1)
    for k in range(5):
        assert table.append(SHAPES[k % len(SHAPES)], k) == k
    assert table.count == 5 and len(table._ids) >= 5


def test_aabbs_check_poses_and_report_overflow():
    table = ShapeTable()
    table.append(Circle(1.0, center=(1.7e308, 0.0)), 0)
    lower, upper = table.aabbs(np.zeros((1, 2)), np.zeros(1))
    np.testing.assert_array_equal(lower, [[1.7e308 - 1.0, -1.0]])
    with pytest.raises(FloatingPointError, match="AABBs overflow.*origins"):
        table.aabbs(np.array([[1.7e308, 0.0]]), np.zeros(1))
    with pytest.raises(ValueError, match="angles must have shape \\(1,\\), one per row of origins"):
        table.aabbs(np.zeros((1, 2)), np.zeros(2))
    with pytest.raises(TypeError, match="shapes must be a ShapeTable"):
        body_poses(np.zeros((1, 2)), np.zeros(1), "table")


def test_the_compiled_kernel_refuses_rows_outside_its_arrays():
    # shape_aabbs reads and writes by index without bounds checks of its own: too few rows
    # in any array would touch memory that is not the array's.
    table = ShapeTable()
    table.append(SHAPES[0], 0)
    table.append(SHAPES[1], 1)
    rows = {"origins": np.zeros((2, 2)), "angles": np.zeros(2), "margins": np.zeros(2),
            "lower": np.zeros((2, 2)), "upper": np.zeros((2, 2))}
    shape_aabbs(table.arrays, *rows.values())
    for name, short in [("origins", np.zeros((1, 2))), ("angles", np.zeros(1)),
                        ("margins", np.zeros(1)), ("lower", np.zeros((1, 2))),
                        ("upper", np.zeros((2, 1)))]:
        with pytest.raises(ValueError, match="must"):
            shape_aabbs(table.arrays, *{**rows, name: short}.values())
