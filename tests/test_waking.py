"""What wakes a sleeping island besides a touch (chapter 11): its support removed, a filter
or a kind changed, a pose written through the world's arrays; and a query between two
steps changes nothing a later step does.

Oracles: a body in free fall drops exactly as substepped symplectic Euler says; a body
changed to dynamic moves bit for bit as one added dynamic; a pose written through the
arrays gives the same states as the same pose given through ``Body.position``; a world that
is queried steps bit for bit as its twin that is not.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import physbook as pb

DT = 1.0 / 60.0
FLOOR = pb.Filter(category=2, mask=0xFFFF)
BOXES = pb.Filter(category=1, mask=0xFFFF)


def _free_fall_drop(steps: int, world: pb.World) -> float:
    """How far a body at rest falls in ``steps`` steps of the soft step: symplectic Euler
    over its substeps of h, v -= g·h then y += v·h, which after m substeps is g·h²·m(m+1)/2."""
    substeps = world.solver.substeps
    h, m = DT / substeps, steps * substeps
    return -world.gravity[1] * h * h * m * (m + 1) / 2


def _sleeping_stack(floor_kind: str = "static") -> tuple[pb.World, pb.Body, list[pb.Body]]:
    world = pb.World()
    floor = world.add_body(pb.Polygon.box(4.0, 0.5), position=(0.0, -0.5), kind=floor_kind,
                           filter=FLOOR)
    boxes = [world.add_body(pb.Polygon.box(0.5, 0.5), position=(0.0, 0.5 + k),
                            filter=BOXES) for k in range(5)]
    for _ in range(200):
        world.step(DT)
    assert world.sleep.awake_count == 0
    return world, floor, boxes


def _heights(boxes: list[pb.Body]) -> np.ndarray:
    return np.array([box.position[1] for box in boxes])


def _falls_freely(world: pb.World, boxes: list[pb.Body]) -> None:
    """Every box wakes and, with nothing under the stack, falls as one free body."""
    start = _heights(boxes)
    for _ in range(60):
        world.step(DT)
    drop = start - _heights(boxes)
    masses = np.array([box.mass for box in boxes])
    # Nothing holds the stack up: its centre of mass falls freely. The contacts between
    # the boxes push them apart a little as the overlaps they rested with relax, but
    # their impulses cancel in the sum, up to the rounding of some thousands of velocity
    # updates (each within 1e-16 of a 10 m/s velocity).
    centre_drop = np.dot(masses, drop) / masses.sum()
    assert centre_drop == pytest.approx(_free_fall_drop(60, world), rel=1e-9)
    assert np.all(drop > 4.0)  # and every box falls with it


@pytest.mark.parametrize("floor_kind", ["static", "kinematic"])
def test_removing_the_floor_under_a_sleeping_stack_drops_it(floor_kind):
    world, floor, boxes = _sleeping_stack(floor_kind)
    world.remove_body(floor)
    _falls_freely(world, boxes)


def test_a_filter_that_lets_a_sleeping_stack_through_its_floor_drops_it():
    world, floor, boxes = _sleeping_stack()
    for box in boxes:
        box.filter = pb.Filter(category=1, mask=1)  # boxes meet boxes, not the floor
    _falls_freely(world, boxes)


def test_a_floor_filtered_anew_drops_what_slept_on_it():
    world, floor, boxes = _sleeping_stack()
    floor.filter = pb.Filter(category=2, mask=2)
    _falls_freely(world, boxes)


def test_a_floor_made_dynamic_falls_with_its_stack():
    world, floor, boxes = _sleeping_stack()
    floor.kind = "dynamic"
    assert floor.mass == 8.0  # 8 m × 1 m at density 1
    _falls_freely(world, [floor, *boxes])


def test_a_body_given_a_kind_moves_as_one_added_with_it():
    # The oracle: the same body added with that kind, in a twin world.
    shapes = [pb.Polygon.box(0.6, 0.2), pb.Circle(0.2, center=(0.5, 0.3))]
    changed, born = pb.World(), pb.World()
    for world in (changed, born):
        world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    body = changed.add_body(shapes, position=(1.0, 4.0), angle=0.3, kind="static")
    changed.step(DT)
    born.step(DT)
    body.kind = "dynamic"
    twin = born.add_body(shapes, position=(1.0, 4.0), angle=0.3)
    body.angular_velocity = twin.angular_velocity = 2.0
    assert (body.mass, body.inertia) == (twin.mass, twin.inertia)
    for _ in range(150):
        changed.step(DT)
        born.step(DT)
        np.testing.assert_array_equal(body.position, twin.position)
        assert body.angle == twin.angle
    # Made static where it rests, it stays there for good, whatever hits it.
    body.kind = "static"
    assert body.mass == 0.0 and body.inverse_mass == 0.0 and not body.awake
    rest = body.position
    ball = changed.add_body(pb.Circle(0.2), position=(float(rest[0]), 3.0))
    for _ in range(120):
        changed.step(DT)
    np.testing.assert_array_equal(body.position, rest)
    assert ball.position[0] > rest[0] + 1.0  # the ball hit it, and was sent on its way


def test_a_kinematic_body_keeps_its_velocity_and_moves_on_at_it():
    world = pb.World(gravity=(0, -10))
    body = world.add_body(pb.Polygon.box(0.5, 0.5), velocity=(1.0, 0.0))
    body.kind = "kinematic"
    for _ in range(60):
        world.step(DT)
    assert body.velocity.tolist() == [1.0, 0.0]
    assert body.position[0] == pytest.approx(1.0, rel=1e-12)
    assert body.position[1] == 0.0


def test_kind_must_be_a_kind():
    body = pb.World().add_body(pb.Circle(0.5))
    with pytest.raises(ValueError, match="kind"):
        body.kind = "ghost"


def _written(world: pb.World, row: int, through_arrays: bool, query: bool) -> None:
    """Put the body at ``row`` at (0.3, 6) turned by 0.4 rad, through the world's arrays or
    through its handle, with or without a query before the next step."""
    if through_arrays:
        world.bodies.centers[row] = (0.3, 6.0)
        world.bodies.angles[row] = 0.4
    else:
        body = world.bodies[row]
        body.position = (0.3, 6.0)
        body.angle = 0.4
    if query:
        world.query_point((50.0, 50.0))  # hits nothing


def test_a_pose_written_into_the_arrays_wakes_a_sleeper_as_its_handle_would():
    world, _, boxes = _sleeping_stack()
    row = boxes[2].row
    by_handle, by_arrays, queried = (copy.deepcopy(world) for _ in range(3))
    _written(by_handle, row, through_arrays=False, query=False)
    _written(by_arrays, row, through_arrays=True, query=False)
    _written(queried, row, through_arrays=True, query=True)
    by_arrays.step(DT)
    by_handle.step(DT)
    queried.step(DT)
    # It woke where it was put, and fell for one step from there.
    moved = by_arrays.bodies[row]
    assert moved.awake
    assert moved.position[1] == pytest.approx(6.0 - _free_fall_drop(1, world), abs=1e-12)
    for k in range(240):
        for each in (by_handle, by_arrays, queried):
            each.step(DT)
        for name in ("origins", "centers", "angles", "velocities", "awake"):
            reference = getattr(by_handle.bodies, name)
            assert np.array_equal(getattr(by_arrays.bodies, name), reference), (k, name)
            assert np.array_equal(getattr(queried.bodies, name), reference), (k, name)


def test_a_query_between_steps_changes_nothing_a_step_does():
    # Awake bodies, some written through the arrays between steps: a world queried after
    # each write steps bit for bit as its twin that is not.
    world = pb.World()
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    for k in range(12):
        world.add_body([pb.Polygon.box(0.3, 0.2), pb.Circle(0.15, center=(0.3, 0.1))],
                       position=(-2.0 + 0.4 * k, 1.0 + 0.3 * k), angle=0.2 * k)
    quiet = copy.deepcopy(world)
    rng = np.random.default_rng(5)
    for k in range(200):
        if k % 10 == 0:
            row = int(rng.integers(1, world.count))
            for each in (world, quiet):
                each.bodies.centers[row] += (0.0, 0.3)
                each.bodies.angles[row] += 0.1
            world.query_aabb((-10.0, -10.0), (10.0, 10.0))
            world.ray_cast((-6.0, 0.5), (12.0, 0.0))
        world.step(DT)
        quiet.step(DT)
        assert np.array_equal(world.bodies.centers, quiet.bodies.centers), k
        assert np.array_equal(world.bodies.origins, quiet.bodies.origins), k
