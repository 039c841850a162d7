"""A world's parts by concern: its bodies (handles and columns), its sleep, its event log and
its query index, each an object the world holds, checked against the tables they show."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import numpy as np
import pytest

import physbook as pb

WORLD_SOURCE = Path(pb.__file__).resolve().parent / "world.py"
QUERIES_SOURCE = Path(pb.__file__).resolve().parent / "world_queries.py"


def small_world() -> tuple[pb.World, list[pb.Body]]:
    world = pb.World()
    ground = world.add_body(pb.Polygon.box(5, 0.5), position=(0, -0.5), kind="static")
    balls = [world.add_body(pb.Circle(0.25), position=(x, 0.25)) for x in (-1.0, 0.0, 1.0)]
    return world, [ground, *balls]


def test_bodies_is_the_sequence_of_handles_in_row_order():
    world, handles = small_world()
    bodies = world.bodies
    assert len(bodies) == len(handles) == world.count
    assert list(bodies) == handles
    assert [bodies[i] for i in range(len(handles))] == handles
    assert bodies[-1] is handles[-1] and bodies[-len(handles)] is handles[0]
    assert bodies[1:3] == handles[1:3]
    assert all(body in bodies for body in handles)
    with pytest.raises(IndexError, match="out of range"):
        bodies[len(handles)]
    with pytest.raises(IndexError, match="out of range"):
        bodies[-len(handles) - 1]
    world.remove_body(handles[1])
    assert list(world.bodies) == [handles[0], *handles[2:]]
    assert handles[1] not in world.bodies


def test_bodies_shows_each_column_as_the_handles_see_it():
    world, handles = small_world()
    bodies = world.bodies
    for row, body in enumerate(handles):
        assert np.array_equal(bodies.centers[row], body.center_of_mass)
        assert np.array_equal(bodies.origins[row], body.position)
        assert bodies.ids[row] == body.id
        assert bodies.masses[row] == body.mass
    # Writable columns write through to the world; derived ones refuse.
    bodies.velocities[1] = (2.0, 0.0)
    assert np.array_equal(handles[1].velocity, (2.0, 0.0))
    with pytest.raises(ValueError, match="read-only"):
        bodies.masses[1] = 5.0
    # The arrays are the stages' columns, rows in use.
    assert len(bodies.arrays.centers) == world.count
    assert bodies.capacity >= world.count


def test_update_origins_places_origins_after_written_centres():
    world = pb.World()
    # An L of two boxes: its centre of mass is away from its origin.
    body = world.add_body([pb.Polygon.box(1, 0.2), pb.Polygon.box(0.2, 1, center=(0.8, 0.8))])
    offset = body.local_center
    assert np.hypot(*offset) > 0.1
    world.bodies.centers[0] = (3.0, 4.0)
    world.bodies.angles[0] = 0.5
    world.bodies.update_origins()
    c, s = np.cos(0.5), np.sin(0.5)
    expected = np.array([3.0, 4.0]) - np.array([c * offset[0] - s * offset[1],
                                                 s * offset[0] + c * offset[1]])
    np.testing.assert_allclose(world.bodies.origins[0], expected, atol=1e-12)


def test_sleep_holds_the_switch_and_counts_the_awake():
    world, handles = small_world()
    sleep = world.sleep
    assert sleep.enabled and sleep.awake_count == 3
    handles[2].awake = False
    # Each ball rests on the static ground alone, an island of its own: one sleeps.
    assert sleep.awake_count == 2 and not handles[2].awake and handles[3].awake
    sleep.enabled = False  # turning sleep off wakes every body
    assert sleep.awake_count == 3
    with pytest.raises(TypeError, match="enabled"):
        sleep.enabled = "yes"
    assert pb.World(sleeping=False).sleep.enabled is False


def test_event_log_counts_steps_and_time_in_whole_steps():
    world, _ = small_world()
    for _ in range(3):
        world.step(0.1)
    world.step(0.05)
    record = world.events.record
    assert (record.step_count, record.steps_at_dt, record.dt) == (4, 1, 0.05)
    # time = elapsed + steps·dt, never a running sum: 3·0.1 exactly as Python forms it.
    assert world.time == 3 * 0.1 + 0.05 and world.step_count == 4


def test_event_log_survives_a_pickle_with_its_handlers_and_keys():
    world, handles = small_world()
    seen = []
    world.events.on_contact(1, 1, begin=seen.append)
    world.step(1 / 60)
    assert len(seen) == 3  # three balls resting on the ground begin touching
    copy = pickle.loads(pickle.dumps(world, protocol=pickle.HIGHEST_PROTOCOL))
    assert np.array_equal(copy.events.record.touching, world.events.record.touching)
    assert copy.events.has_handlers
    with pytest.raises(ValueError, match="not registered"):
        world.events.remove_handler(copy.events._handlers[0])


def test_queries_keep_their_own_tree_when_the_broad_phase_is_not_one():
    tree_world = pb.World()
    sweep_world = pb.World(broad_phase="sweep")
    for world in (tree_world, sweep_world):
        for x in range(5):
            world.add_body(pb.Circle(0.4), position=(float(x), 0.0), kind="static")
    assert tree_world._queries.own_tree is None
    assert isinstance(sweep_world._queries.own_tree, pb.broadphase.tree.DynamicTree)
    for world in (tree_world, sweep_world):
        hits = world.ray_cast_all((-1.0, 0.0), (7.0, 0.0))
        assert [hit.shape_id for hit in hits] == list(range(5))
        assert [ref.shape_id for ref in world.query_aabb((1.5, -1), (3.5, 1))] == [2, 3]


def public_members(source: str, class_name: str) -> list[str]:
    """The public names a class defines in its body: methods, properties and attributes."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            names = []
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found = [item.name]
                elif isinstance(item, ast.Assign):
                    found = [target.id for target in item.targets
                             if isinstance(target, ast.Name)]
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    found = [item.target.id]
                else:
                    found = []
                names += [name for name in found
                          if not name.startswith("_") and name not in names]
            return names
    raise LookupError(class_name)


def test_public_members_counts_what_a_class_defines():
    source = ("class A:\n    x = 1\n    _y = 2\n    def f(self): ...\n    @property\n"
              "    def g(self): ...\n    @g.setter\n    def g(self, v): ...\n"
              "    def _h(self): ...\n    def __len__(self): ...\n")
    assert public_members(source, "A") == ["x", "f", "g"]


def test_world_stays_a_class_of_its_own_concern():
    # World keeps the tables, the settings and the step; the concerns it holds are objects
    # of their own. pymunk's Space has 30 public members: World no more.
    # Its queries live in a base class of their own module, and count too.
    members = public_members(WORLD_SOURCE.read_text(encoding="utf-8"), "World") + \
        public_members(QUERIES_SOURCE.read_text(encoding="utf-8"), "WorldQueries")
    assert len(members) <= 30, members
    assert set(dir(pb.World)) >= set(members)
