"""The body table and Body handles: rows compacted in order on removal, recycled ids, handles
that follow their body's row, and stale handles that refuse to be used."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook.dynamics.body_table import BodyArrays, BodyTable

DT = 1.0 / 60.0


def add_numbered_body(table: BodyTable, value: float) -> int:
    """Add a body whose every float column holds ``value`` (its handle is its id)."""
    values = {name: value for name in BodyArrays._fields
              if name not in ("kinds", "materials", "ids")}
    return table.add(values, (f"shapes {value}",), (f"material {value}",), lambda body_id: body_id,
                     user_data=f"data {value}")


@settings(max_examples=60)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 50)), min_size=1, max_size=40))
def test_removal_compacts_every_column_in_order(operations):
    table = BodyTable(capacity=1)
    next_value, most = 0.0, 0
    for add, pick in operations:
        if add or table.count == 0:
            add_numbered_body(table, next_value)
            next_value += 1.0
            most = max(most, table.count)
            continue
        row = pick % table.count
        before = BodyArrays(*(column.copy() for column in table.arrays))
        body_id = int(before.ids[row])
        assert table.remove(body_id) == row
        # The oracle: numpy's delete of that row from every column.
        for name, column, old in zip(BodyArrays._fields, table.arrays, before, strict=True):
            np.testing.assert_array_equal(column, np.delete(old, row, axis=0), err_msg=name)
        assert not table.is_alive(body_id)
        with pytest.raises(LookupError, match="stale"):
            table.row_of(body_id)
    # Every id maps to its current row, and the per-body objects moved with the rows.
    for row, body_id in enumerate(table.arrays.ids.tolist()):
        assert table.row_of(body_id) == row and table.is_alive(body_id)
        value = table.arrays.masses[row]
        assert table.shapes(row) == (f"shapes {value}",)
        assert table.materials(row) == (f"material {value}",)
        assert table.user_data(row) == f"data {value}"
        assert table.handle(row) == body_id
    assert table.handles == table.arrays.ids.tolist()
    # Ids are recycled: distinct, and never more than the most bodies alive at once.
    ids = table.arrays.ids.tolist()
    assert len(set(ids)) == len(ids)
    assert max(ids, default=-1) < most


def boxes_in_a_row(count: int) -> tuple[pb.World, list[pb.Body]]:
    world = pb.World(gravity=(0.0, 0.0))
    bodies = [world.add_body(pb.Polygon.box(0.2, 0.2), position=(float(i), 0.0),
                             velocity=(float(i), 0.0),
                             filter=pb.Filter(mask=0)) for i in range(count)]
    return world, bodies


def test_handles_of_other_bodies_keep_working_after_a_removal():
    world, bodies = boxes_in_a_row(6)
    world.remove_body(bodies[2])
    for body in bodies[3:]:
        body.velocity = (10.0 * body.id, 1.0)  # written through the handle, at its new row
    world.step(0.5)
    for row, body in enumerate(bodies[:2] + bodies[3:]):
        assert body.row == row and world.bodies[row] is body
        velocity = [10.0 * body.id, 1.0] if body.id > 2 else [float(body.id), 0.0]
        np.testing.assert_array_equal(body.velocity, velocity)
        np.testing.assert_array_equal(world.bodies.velocities[row], velocity)
        np.testing.assert_array_equal(body.position, [body.id + 0.5 * velocity[0],
                                                      0.5 * velocity[1]])


@pytest.mark.parametrize("use", [
    lambda body: body.row,
    lambda body: body.position,
    lambda body: body.velocity,
    lambda body: body.angle,
    lambda body: body.mass,
    lambda body: body.shapes,
    lambda body: body.material,
    lambda body: body.transform,
    lambda body: setattr(body, "velocity", (1.0, 0.0)),
    lambda body: setattr(body, "position", (1.0, 0.0)),
    lambda body: body.apply_force((1.0, 0.0)),
    lambda body: body.apply_impulse((1.0, 0.0)),
])
def test_a_stale_handle_raises_lookup_error(use):
    world, bodies = boxes_in_a_row(3)
    world.remove_body(bodies[1])
    state = world.bodies.velocities.copy()
    with pytest.raises(LookupError, match="removed"):
        use(bodies[1])
    np.testing.assert_array_equal(world.bodies.velocities, state)  # nobody else was touched
    assert not bodies[1].alive and bodies[1].id == 1
    assert repr(bodies[1]) == "Body(id=1, generation=0, removed)"


def test_row_reports_the_current_row_as_bodies_before_it_go():
    world, bodies = boxes_in_a_row(5)
    last = bodies[-1]
    for removed, victim in enumerate(bodies[:-1], start=1):
        world.remove_body(victim)
        assert last.row == 4 - removed and world.bodies.ids[last.row] == last.id
        assert repr(last) == f"Body(id=4, dynamic, row={4 - removed})"
