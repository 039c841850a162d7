"""The contact table: rows keyed by stable shape ids, points matched by pair and feature, and
impulses carried from step to step, also when other bodies are added or removed."""

from __future__ import annotations

import numpy as np
import pytest

import physbook as pb
from physbook import scenes
from physbook.dynamics.contact_table import ContactColumns, ContactTable
from physbook.dynamics.solvers import ImpulseSolver
from physbook.geometry.shape_table import ShapeTable
from physbook.geometry.surface import surface_row

DT = 1.0 / 60.0


def snapshot(columns: ContactColumns) -> ContactColumns:
    """A copy of every column (the table reuses its arrays from step to step)."""
    return ContactColumns(*(column.copy() for column in columns))


def point_impulses(columns: ContactColumns) -> dict[tuple[int, int, int], tuple[float, float]]:
    """(id_a, id_b, feature) -> (normal, tangent impulse) of every point in use."""
    found = {}
    for m in range(len(columns.shape_ids)):
        for k in range(columns.point_counts[m]):
            key = (*columns.shape_ids[m].tolist(), int(columns.features[m, k]))
            found[key] = (columns.normal_impulses[m, k], columns.tangent_impulses[m, k])
    return found


def assert_carried(carried: ContactColumns, before: ContactColumns) -> int:
    """Every point of ``carried`` holds the impulses the same shape ids and feature had in
    ``before``, or 0 for a point ``before`` lacks. Returns how many carried non-zero ones."""
    old = point_impulses(before)
    nonzero = 0
    for key, impulses in point_impulses(carried).items():
        assert impulses == old.get(key, (0.0, 0.0)), key
        nonzero += impulses != (0.0, 0.0)
    return nonzero


# --- matching by pair and feature, on a hand-made table -----------------------------------


class Poses:
    """A ground box, a box on it, and two circles, each its own body and material."""

    def __init__(self):
        self.shapes = ShapeTable()
        self.materials = list(pb.MATERIALS.values())[:4]
        for body, (shape, material) in enumerate(zip(
                [pb.Polygon.box(5.0, 0.5), pb.Polygon.box(0.5, 0.5), pb.Circle(0.5),
                 pb.Circle(0.5)], self.materials, strict=True)):
            self.shapes.append(shape, body,
                               surface=surface_row(material.friction, material.restitution))
        self.origins = np.array([[0.0, -0.5], [0.0, 0.49], [2.0, 0.49], [10.0, 10.0]])
        self.angles = np.zeros(4)
        # Every pair, in canonical order; the narrow phase keeps the touching ones.
        self.pairs = np.array([[a, b] for a in range(4) for b in range(a + 1, 4)])

    def update(self, table: ContactTable) -> ContactColumns:
        before = snapshot(table.arrays)
        table.update(self.pairs, self.shapes.arrays, self.origins, self.angles,
                     self.shapes.surfaces)
        assert_carried(table.arrays, before)
        return table.arrays


def test_contact_table_matches_points_by_pair_and_feature():
    poses, table = Poses(), ContactTable()
    contacts = poses.update(table)
    np.testing.assert_array_equal(contacts.shape_ids, [[0, 1], [0, 2]])  # untouched go
    np.testing.assert_array_equal(contacts.bodies, [[0, 1], [0, 2]])
    np.testing.assert_array_equal(contacts.point_counts, [2, 1])
    materials = poses.materials
    for (a, b), restitution, friction in zip(contacts.bodies, contacts.restitutions,
                                             contacts.frictions, strict=True):
        assert restitution == pb.mix_restitution(materials[a].restitution,
                                                 materials[b].restitution)
        assert friction == pb.mix_friction(materials[a].friction, materials[b].friction)
    np.testing.assert_array_equal(contacts.normal_impulses, 0.0)  # new points start at 0
    table.normal_impulses[:] = [[1.0, 2.0], [3.0, 0.0]]
    table.tangent_impulses[:] = [[-1.0, -2.0], [-3.0, 0.0]]
    first = snapshot(table.arrays)

    # Next step: the box tilts onto one corner (one of its two points stays); circle 2
    # lifts off; circle 3 lands, with the feature id circle 2 had, but as another pair.
    poses.angles[1] = 0.05
    poses.origins[2] = (2.0, 0.6)
    poses.origins[3] = (-3.0, 0.49)
    contacts = poses.update(table)
    np.testing.assert_array_equal(contacts.shape_ids, [[0, 1], [0, 3]])
    np.testing.assert_array_equal(contacts.point_counts, [1, 1])
    assert contacts.features[1, 0] == first.features[1, 0]
    np.testing.assert_array_equal(contacts.normal_impulses, [[2.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(contacts.tangent_impulses, [[-2.0, 0.0], [0.0, 0.0]])
    assert table.point_total == 2 and len(table) == 2

    # The box lands flat again: the kept point carries on, the other starts anew at 0.
    table.normal_impulses[:] = [[5.0, 0.0], [6.0, 0.0]]
    poses.angles[1] = 0.0
    contacts = poses.update(table)
    np.testing.assert_array_equal(contacts.point_counts, [2, 1])
    assert sorted(contacts.normal_impulses[0].tolist()) == [0.0, 5.0]
    np.testing.assert_array_equal(contacts.normal_impulses[1], [6.0, 0.0])


def test_clear_forgets_every_contact():
    poses, table = Poses(), ContactTable()
    poses.update(table)
    table.normal_impulses[:] = 1.0
    table.clear()
    assert len(table) == 0 and table.point_total == 0
    np.testing.assert_array_equal(poses.update(table).normal_impulses, 0.0)


# --- contacts of a world when bodies come and go ---------------------------------------------


class CarriedImpulses:
    """A solver stage that keeps the contacts it is given (what each point carries into
    the step), then solves them."""

    def __init__(self):
        self.inner = ImpulseSolver()
        self.carried = None

    def step(self, contacts, bodies, gravity, dt):
        self.carried = snapshot(contacts)
        return self.inner.step(contacts, bodies, gravity, dt)


def settle_pyramid():
    """A pyramid of 4 rows (10 boxes) after 60 steps, with a solver that records."""
    solver = CarriedImpulses()
    # Sleep off: a world asleep calls no solver, and these tests read what the solver got.
    scene = scenes.pyramid(4, world=pb.World(solver=solver, sleeping=False))
    for _ in range(60):
        scene.world.step(DT)
    return scene, solver


@pytest.fixture
def settled_pyramid():
    return settle_pyramid()


def test_removing_a_body_keeps_every_other_contact_and_its_impulses(settled_pyramid):
    scene, _ = settled_pyramid
    world = scene.world
    before = snapshot(world.contacts.arrays)
    victim = scene.bodies["boxes"][5]  # the middle box of the second row
    row = victim.row
    touches = (before.bodies == row).any(axis=1)
    assert touches.any() and not touches.all()
    assert (before.bodies[~touches] > row).any(), "some kept rows must be renumbered"
    world.remove_body(victim)
    after = world.contacts.arrays
    for name, kept, expected in zip(ContactColumns._fields, after, before, strict=True):
        expected = expected[~touches]
        if name == "bodies":
            expected = expected - (expected > row)  # rows behind the removed one move up
        np.testing.assert_array_equal(kept, expected, err_msg=name)
        assert kept.dtype == expected.dtype, name


def test_a_point_kept_through_a_removal_finds_its_impulse_at_the_next_step(settled_pyramid):
    scene, solver = settled_pyramid
    world = scene.world
    before = snapshot(world.contacts.arrays)
    world.remove_body(scene.bodies["boxes"][5])
    world.step(DT)
    assert assert_carried(solver.carried, before) >= 5


def test_adding_a_body_leaves_every_contact_and_impulse_unchanged(settled_pyramid):
    scene, solver = settled_pyramid
    world = scene.world
    before = snapshot(world.contacts.arrays)
    first_new_id = world.shapes.count  # no shape was removed: ids are rows
    world.add_body(pb.Circle(0.5), position=(-2.0, 5.0))
    world.add_body(pb.Polygon.box(0.5, 0.5), position=(30.0, 0.5))  # lands on the ground
    for name, now, expected in zip(ContactColumns._fields, world.contacts.arrays, before,
                                   strict=True):
        np.testing.assert_array_equal(now, expected, err_msg=name)
    # At the next step the old pairs carry exactly what they carry in the same scene
    # without the new bodies.
    twin, twin_solver = settle_pyramid()
    world.step(DT)
    twin.world.step(DT)
    assert_carried(solver.carried, before)
    old_pairs = (solver.carried.shape_ids < first_new_id).all(axis=1)
    assert not old_pairs.all(), "the new box should touch the ground"
    for name, with_new, without in zip(ContactColumns._fields, solver.carried,
                                       twin_solver.carried, strict=True):
        np.testing.assert_array_equal(with_new[old_pairs], without, err_msg=name)
