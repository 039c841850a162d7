"""Chapter 16: what a game tunes on a body while it runs — damping against chapter 2's
implicit step, materials per shape, a changed kind, user data, move_to — and the small
traps (kind constants, a filter of no category)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import physbook as pb
from physbook.geometry.surface import FRICTION

DT = 1 / 60


def integration_steps(solver) -> tuple[int, float]:
    """How many velocity updates a step makes, and of what length h: the soft step's
    substeps, or one of dt."""
    substeps = getattr(solver, "substeps", 1)
    return substeps, DT / substeps


@pytest.mark.parametrize("solver", list(pb.SOLVERS))
@pytest.mark.parametrize("with_contact", [False, True], ids=["free", "beside-a-contact"])
def test_damping_divides_the_velocity_by_one_plus_c_h_each_update(solver, with_contact):
    world = pb.World(gravity=(0.0, 0.0), solver=solver)
    if with_contact:  # a resting pair elsewhere: the solver's own path, not free flight
        world.add_body(pb.Polygon.box(1.0, 0.5), position=(50.0, 0.0), kind="static")
        world.add_body(pb.Circle(0.5), position=(50.0, 0.99))
    c, c_spin = 0.7, 2.5
    body = world.add_body(pb.Circle(0.5), velocity=(3.0, -1.0), angular_velocity=4.0,
                          linear_damping=c, angular_damping=c_spin)
    substeps, h = integration_steps(world.solver)
    for n in range(1, 31):
        world.step(DT)
        updates = n * substeps
        np.testing.assert_allclose(body.velocity, np.array([3.0, -1.0]) / (1 + c * h) ** updates,
                                   rtol=1e-12)
        assert body.angular_velocity == pytest.approx(4.0 / (1 + c_spin * h) ** updates,
                                                      rel=1e-12)


def test_damped_balls_come_to_rest_and_sleep():
    world = pb.World(gravity=(0.0, 0.0))
    balls = [world.add_body(pb.Circle(0.03), position=(0.1 * k, 0.0), velocity=(1.0, 0.5),
                            angular_velocity=20.0, linear_damping=1.0, angular_damping=1.0)
             for k in range(5)]
    for _ in range(600):
        world.step(DT)
    assert not any(ball.awake for ball in balls)


def test_damping_setters_check_and_take_effect():
    world = pb.World(gravity=(0.0, 0.0))
    body = world.add_body(pb.Circle(0.5), velocity=(1.0, 0.0))
    body.linear_damping = 2.0
    assert body.linear_damping == 2.0 and world.bodies.linear_dampings[0] == 2.0
    world.step(DT)
    _, h = integration_steps(world.solver)
    assert body.velocity[0] == pytest.approx((1 + 2.0 * h) ** -8, rel=1e-12)
    with pytest.raises(ValueError, match="linear_damping must be non-negative"):
        body.linear_damping = -1.0
    with pytest.raises(ValueError, match="angular_damping must be finite"):
        body.angular_damping = math.inf


# --- materials, per shape, at run time ----------------------------------------------------


def test_each_shape_keeps_its_own_material_and_density():
    world = pb.World()
    grip, ice = pb.Material(density=2.0, friction=1.2), pb.Material(density=0.5, friction=0.0)
    left, right = pb.Polygon.box(0.5, 0.5, center=(-0.5, 0.0)), pb.Polygon.box(
        0.5, 0.5, center=(0.5, 0.0))
    body = world.add_body([left, right], material=[grip, ice])
    assert body.materials == (grip, ice)
    # Mass and centre from each shape's density: 2·1 + 0.5·1 kg, centre (2·(−½) + ½·½)/2.5.
    assert body.mass == pytest.approx(2.5)
    np.testing.assert_allclose(body.local_center, [(-1.0 + 0.25) / 2.5, 0.0], atol=1e-15)
    np.testing.assert_array_equal(world.shapes.surfaces[:, FRICTION], [1.2, 0.0])
    with pytest.raises(ValueError, match="read body.materials"):
        _ = body.material


def test_a_changed_friction_acts_from_the_next_step():
    world = pb.World()
    slope = 0.3
    world.add_body(pb.Polygon.box(30.0, 0.5), angle=slope, kind="static")
    normal = np.array([-math.sin(slope), math.cos(slope)])
    box = world.add_body(pb.Polygon.box(0.25, 0.25), position=0.75 * normal, angle=slope)
    for _ in range(30):
        world.step(DT)
    assert np.linalg.norm(box.velocity) < 1e-4  # μ = 0.6 > tan 0.3 holds it
    box.material = pb.Material(friction=0.0)
    world.step(DT)
    assert world.contacts.frictions[0] == pb.mix_friction(0.6, 0.0) == 0.0
    for _ in range(29):
        world.step(DT)
    expected = 10.0 * math.sin(slope) * 0.5  # v = g sin θ · t after half a second (g = 10)
    assert np.linalg.norm(box.velocity) == pytest.approx(expected, rel=0.02)


def test_a_changed_restitution_acts_from_the_next_bounce():
    world = pb.World()
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static",
                   material=pb.Material(restitution=1.0))
    ball = world.add_body(pb.Circle(0.2), position=(0.0, 1.0))
    ball.material = pb.Material(restitution=0.5)
    peaks, rising = [], False
    for _ in range(240):
        world.step(DT)
        if ball.velocity[1] > 0:
            rising = True
        elif rising:
            peaks.append(ball.position[1] - 0.2)
            rising = False
    # e = min(1, 0.5): each bounce keeps e² = 1/4 of the height, from a drop of 0.8 m.
    assert peaks[0] == pytest.approx(0.8 * 0.25, rel=0.03)


def test_a_new_density_gives_a_new_mass_at_once():
    world = pb.World()
    body = world.add_body(pb.Polygon.box(0.5, 0.5))
    body.material = pb.Material(density=3.0)
    assert body.mass == pytest.approx(3.0) and body.inverse_mass == pytest.approx(1 / 3)
    assert body.inertia == pytest.approx(3.0 / 6.0)  # m·(w² + h²)/12 for a 1 × 1 box
    body.set_material(pb.Material(friction=0.1), shape=0)
    assert world.shapes.surfaces[0, FRICTION] == 0.1
    with pytest.raises(ValueError, match="shape must be below"):
        body.set_material(pb.Material(), shape=1)


def test_a_changed_kind_acts_from_the_next_step():
    world = pb.World()
    crate = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0.0, 5.0), kind=pb.STATIC)
    world.step(DT)
    assert crate.position[1] == 5.0
    crate.kind = pb.DYNAMIC
    world.step(DT)
    assert crate.velocity[1] < 0 and crate.mass == pytest.approx(1.0)
    crate.kind = "kinematic"
    assert crate.mass == 0.0 and crate.inverse_mass == 0.0
    with pytest.raises(ValueError, match="kind must be one of"):
        crate.kind = 7


def test_kind_constants_are_accepted_where_names_are():
    world = pb.World()
    for constant, name in ((pb.DYNAMIC, "dynamic"), (pb.STATIC, "static"),
                           (pb.KINEMATIC, "kinematic")):
        assert world.add_body(pb.Circle(0.5), kind=constant).kind == name
    with pytest.raises(TypeError, match="kind must be a string"):
        world.add_body(pb.Circle(0.5), kind=True)


def test_a_filter_of_no_category_is_refused():
    with pytest.raises(ValueError, match="category must have a bit set"):
        pb.Filter(category=0)
    with pytest.raises(ValueError, match="layers must have a bit set"):
        pb.World().add_body(pb.Circle(1.0), layers=0)


# --- data the game keeps, and a kinematic body's next pose -------------------------------


def test_user_data_follows_its_body_through_removals_and_pickling():
    world = pb.World()
    bodies = [world.add_body(pb.Circle(0.5), position=(2.0 * k, 0.0), user_data={"k": k})
              for k in range(4)]
    bodies[3].user_data = "player"
    world.remove_body(bodies[1])
    assert [body.user_data for body in world.bodies] == [{"k": 0}, {"k": 2}, "player"]
    copy = pickle.loads(pickle.dumps(world))
    assert [body.user_data for body in copy.bodies] == [{"k": 0}, {"k": 2}, "player"]


def test_a_shape_id_leads_to_its_body():
    world = pb.World()
    world.add_body(pb.Circle(0.5))
    body = world.add_body([pb.Circle(0.5), pb.Circle(0.5, center=(1.0, 0.0))],
                          position=(5.0, 0.0))
    for shape_id in world.shapes.arrays.ids[1:]:
        assert world.events.body_of(int(shape_id)) == body
    with pytest.raises(LookupError, match="no shape of this world has id 9"):
        world.events.body_of(9)


def test_move_to_brings_a_kinematic_body_to_its_pose_in_one_step():
    world = pb.World()
    platform = world.add_body(pb.Polygon.box(1.5, 0.1, center=(0.3, 0.2)), kind="kinematic")
    for k in range(1, 31):
        target, angle = (k / 60, -0.5 * k / 60), 0.1 * k / 60
        platform.move_to(target, angle, DT)
        world.step(DT)
        np.testing.assert_allclose(platform.position, target, atol=1e-12)
        assert platform.angle == pytest.approx(angle, abs=1e-12)


@pytest.mark.parametrize("solver", list(pb.SOLVERS))
def test_a_platform_moved_by_move_to_carries_a_box(solver):
    world = pb.World(solver=solver)
    platform = world.add_body(pb.Polygon.box(1.5, 0.1), kind="kinematic")
    box = world.add_body(pb.Polygon.box(0.2, 0.2), position=(0.0, 0.3))
    for _ in range(30):
        world.step(DT)
    start = box.position
    for k in range(1, 61):  # a tween: 1 m to the right in 1 s
        platform.move_to((k / 60, 0.0), dt=DT)
        world.step(DT)
    # The platform starts at 1 m/s at once; friction μg = 6 m/s² brings the box to that
    # speed, which leaves it behind by v²/(2μg) = 1/12 m.
    assert box.position[0] - start[0] == pytest.approx(1.0 - 1.0 / 12.0, abs=0.02)
    assert box.velocity[0] == pytest.approx(1.0, abs=1e-3)


def test_move_to_is_for_kinematic_bodies():
    world = pb.World()
    with pytest.raises(ValueError, match="move_to moves a kinematic body"):
        world.add_body(pb.Circle(0.5)).move_to((1.0, 0.0))
    with pytest.raises(ValueError, match="dt must be positive"):
        world.add_body(pb.Circle(0.5), kind="kinematic").move_to((1.0, 0.0), dt=0.0)
