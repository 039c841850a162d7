"""Chapter 16: contacts a game changes — one-way shapes, conveyors, rules per pair of
categories and pre-solve callbacks — against free flight, the belt's speed and the slide
acceleration g(sin θ − μ cos θ)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb
from physbook.dynamics.contact_surface import CONTACT_DISABLED, CONTACT_PASSING

DT = 1 / 60
G = -pb.constants.DEFAULT_GRAVITY[1]  # 10 m/s²
SOLVERS = list(pb.SOLVERS)
PATHS = [True, False]  # the compiled step, and the stages one by one


def platform_world(solver: str, compiled: bool) -> tuple[pb.World, pb.Body]:
    """A floor (top at y = 0.5), a one-way platform 0.2 m thick whose top is at y = 3.1,
    and the platform's handle."""
    world = pb.World(solver=solver)
    world.compiled = compiled
    world.add_body(pb.Polygon.box(20.0, 0.5), kind="static")
    platform = world.add_body(pb.Polygon.box(2.0, 0.1), position=(0.0, 3.0), kind="static",
                              one_way=(0.0, 1.0))
    return world, platform


def jumper(world: pb.World, speed: float) -> pb.Body:
    """A 0.6 m box resting on the floor (centre at y = 0.8), thrown up at ``speed``."""
    return world.add_body(pb.Polygon.box(0.3, 0.3), position=(0.0, 0.8), velocity=(0.0, speed),
                          fixed_rotation=True)


@pytest.mark.parametrize("compiled", PATHS, ids=["compiled", "staged"])
@pytest.mark.parametrize("solver", SOLVERS)
def test_a_body_jumps_up_through_a_one_way_platform_and_stands_on_it(solver, compiled):
    world, _ = platform_world(solver, compiled)
    body = jumper(world, 9.0)  # apex 0.8 + 81/(2g) = 4.85: its bottom clears the top, 3.1
    heights, speeds = [], []
    for _ in range(240):
        world.step(DT)
        heights.append(body.position[1])
        speeds.append(body.velocity[1])
    heights, speeds = np.array(heights), np.array(speeds)
    # No snag: until it comes down onto the platform the box flies freely, v = v0 − g·t
    # (each solver integrates gravity exactly for a constant acceleration).
    apex = int(np.argmax(heights))
    free = 9.0 - G * DT * np.arange(1, apex + 2)
    np.testing.assert_allclose(speeds[:apex + 1], free, atol=1e-9)
    assert heights[apex] > 3.1 + 0.3
    # It lands and stands: its bottom at the platform's top, within the contact slop.
    assert abs(heights[-1] - 3.4) < 0.01
    assert abs(speeds[-1]) < 1e-3
    # No pop: once it has landed, nothing throws it up.
    landed = np.flatnonzero((heights < 3.45) & (np.arange(len(heights)) > apex))[0]
    assert speeds[landed:].max() < 0.05


@pytest.mark.parametrize("compiled", PATHS, ids=["compiled", "staged"])
@pytest.mark.parametrize("solver", SOLVERS)
def test_a_body_dropped_on_a_one_way_platform_stays_on_it(solver, compiled):
    world, _ = platform_world(solver, compiled)
    body = world.add_body(pb.Polygon.box(0.3, 0.3), position=(0.5, 5.0), fixed_rotation=True)
    for _ in range(180):
        world.step(DT)
    assert abs(body.position[1] - 3.4) < 0.01 and abs(body.velocity[1]) < 1e-3


@pytest.mark.parametrize("compiled", PATHS, ids=["compiled", "staged"])
def test_a_body_half_way_through_stays_passing_and_falls_back(compiled):
    world, _ = platform_world("soft_step", compiled)
    # Apex 0.8 + 49/(2g) = 3.25: the box's bottom stops at 2.95, inside the platform, whose
    # contact normal there points up. It must not be pushed up onto the top.
    body = jumper(world, 7.0)
    passing_seen = False
    for _ in range(150):
        world.step(DT)
        contacts = world.contacts
        passing_seen |= bool(np.any(contacts.flags & CONTACT_PASSING))
    assert passing_seen
    assert abs(body.position[1] - 0.8) < 0.01  # back on the floor


def test_a_one_way_side_turns_with_its_body():
    world, platform = platform_world("soft_step", True)
    platform.angle = math.pi  # the side now points down: the platform stops what falls
    body = world.add_body(pb.Polygon.box(0.3, 0.3), position=(0.5, 5.0), fixed_rotation=True)
    for _ in range(120):
        world.step(DT)
    assert abs(body.position[1] - 0.8) < 0.01  # fell through, onto the floor
    np.testing.assert_allclose(platform.one_way, [0.0, 1.0])  # body coordinates


# --- conveyors --------------------------------------------------------------------------


@pytest.mark.parametrize("compiled", PATHS, ids=["compiled", "staged"])
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("belt_first", [True, False], ids=["belt-a", "belt-b"])
def test_a_box_on_a_conveyor_reaches_the_belt_speed(solver, compiled, belt_first):
    world = pb.World(solver=solver)
    world.compiled = compiled
    belt_speed = 2.0
    box_shape, belt_shape = pb.Polygon.box(0.3, 0.3), pb.Polygon.box(20.0, 0.2)
    # The order of the bodies decides which shape is A in the contact: both must work.
    if belt_first:
        world.add_body(belt_shape, kind="static", surface_velocity=(belt_speed, 0.0))
        box = world.add_body(box_shape, position=(0.0, 0.5))
    else:
        box = world.add_body(box_shape, position=(0.0, 0.5))
        world.add_body(belt_shape, kind="static", surface_velocity=(belt_speed, 0.0))
    for _ in range(120):
        world.step(DT)
    # Friction μ = 0.6 brings the box to the belt's speed within v/(μg) = 0.34 s.
    assert abs(box.velocity[0] - belt_speed) < 0.02 * belt_speed
    assert abs(box.angle) < 0.01  # carried upright, not tipped by the belt


def test_a_turned_conveyor_carries_along_its_own_surface():
    world = pb.World()
    angle = 0.2  # a belt tilted up, carrying boxes uphill faster than they slip
    world.add_body(pb.Polygon.box(20.0, 0.2), angle=angle, kind="static",
                   surface_velocity=(1.5, 0.0), material=pb.Material(friction=1.0))
    along = np.array([math.cos(angle), math.sin(angle)])
    normal = np.array([-math.sin(angle), math.cos(angle)])
    box = world.add_body(pb.Polygon.box(0.3, 0.3), position=0.5 * normal, angle=angle,
                         material=pb.Material(friction=1.0))
    for _ in range(120):
        world.step(DT)
    assert abs(box.velocity @ along - 1.5) < 0.03
    assert abs(box.velocity @ normal) < 1e-3


# --- per-contact friction: rules and pre-solve callbacks ---------------------------------

SLOPE = 0.3
BOX, GROUND = 0b01, 0b10


def slope_world(compiled: bool = True) -> tuple[pb.World, pb.Body, np.ndarray]:
    """A slope at 0.3 rad with friction 0.9 (enough to hold), a box on it, and the
    downhill direction."""
    world = pb.World()
    world.compiled = compiled
    world.add_body(pb.Polygon.box(30.0, 0.5), angle=SLOPE, kind="static",
                   filter=pb.Filter(GROUND), material=pb.Material(friction=0.9))
    normal = np.array([-math.sin(SLOPE), math.cos(SLOPE)])
    box = world.add_body(pb.Polygon.box(0.25, 0.25), position=0.75 * normal, angle=SLOPE,
                         filter=pb.Filter(BOX), material=pb.Material(friction=0.9))
    return world, box, -np.array([math.cos(SLOPE), math.sin(SLOPE)])


def slide_acceleration(world: pb.World, box: pb.Body, downhill: np.ndarray) -> float:
    """The box's acceleration down the slope, from its speed between 0.5 s and 1.5 s."""
    speeds = []
    for step in range(1, 91):
        world.step(DT)
        if step in (30, 90):
            speeds.append(box.velocity @ downhill)
    return (speeds[1] - speeds[0]) / (60 * DT)


@pytest.mark.parametrize("mu", [0.0, 0.1, 0.2])
def test_a_rule_sets_the_friction_of_a_pair_of_categories(mu):
    world, box, downhill = slope_world()
    assert abs(slide_acceleration(*slope_world())) < 1e-6  # μ = 0.9 holds the box
    world.events.contact_rule(BOX, GROUND, friction=mu)
    expected = G * (math.sin(SLOPE) - mu * math.cos(SLOPE))
    assert slide_acceleration(world, box, downhill) == pytest.approx(expected, rel=0.02)


@pytest.mark.parametrize("mu", [0.0, 0.1, 0.2])
def test_a_pre_solve_callback_sets_the_friction_of_each_contact(mu):
    world, box, downhill = slope_world()
    seen = []

    def slippery(contact):
        # Shapes in the callback's order: the box's (id 1) first, the ground's (id 0).
        assert contact.body_a == box and (contact.shape_a, contact.shape_b) == (1, 0)
        seen.append(contact.friction)
        contact.friction = mu

    world.events.on_pre_solve(BOX, GROUND, slippery)
    expected = G * (math.sin(SLOPE) - mu * math.cos(SLOPE))
    assert slide_acceleration(world, box, downhill) == pytest.approx(expected, rel=0.02)
    assert seen and all(mu == pytest.approx(0.9) for mu in seen)  # read: the mixed value


def test_a_rule_and_the_same_pre_solve_callback_give_the_same_states_bit_for_bit():
    """The rule runs in the compiled step, the callback between the stages: the same
    numbers, so the same states."""
    ruled, box_ruled, _ = slope_world()
    ruled.events.contact_rule(BOX, GROUND, friction=0.15, tangent_speed=-0.5)
    called, box_called, _ = slope_world()

    def same(contact):
        contact.friction = 0.15
        contact.tangent_speed = -0.5

    called.events.on_pre_solve(GROUND, BOX, same)
    for _ in range(90):
        ruled.step(DT)
        called.step(DT)
        assert box_ruled.position.tobytes() == box_called.position.tobytes()
        assert box_ruled.velocity.tobytes() == box_called.velocity.tobytes()


def test_a_rule_that_turns_contacts_off_lets_bodies_through_without_events():
    world = pb.World()
    world.add_body(pb.Polygon.box(20.0, 0.5), kind="static", filter=pb.Filter(GROUND))
    ball = world.add_body(pb.Circle(0.3), position=(0.0, 2.0), filter=pb.Filter(BOX))
    began = []
    world.events.on_contact(BOX, GROUND, begin=began.append)
    rule = world.events.contact_rule(BOX, GROUND, enabled=False)
    for _ in range(60):
        world.step(DT)
    assert ball.position[1] < -3.0 and not began  # fell through the floor, unreported
    assert np.all(world.contacts.flags & CONTACT_DISABLED) or len(world.contacts) == 0
    world.events.remove_handler(rule)
    ball.position, ball.velocity = (0.0, 2.0), (0.0, 0.0)
    for _ in range(60):
        world.step(DT)
    assert abs(ball.position[1] - 0.8) < 0.01 and len(began) == 1


def test_a_pre_solve_callback_may_not_change_the_world():
    world, box, _ = slope_world(compiled=False)

    def meddle(contact):
        world.remove_body(box)

    world.events.on_pre_solve(BOX, GROUND, meddle)
    before = box.position
    with pytest.raises(RuntimeError, match="pre-solve"):
        world.step(DT)
    assert box.alive and box.position.tobytes() == before.tobytes()  # the step was undone


def test_rules_need_something_to_change_and_check_their_values():
    events = pb.World().events
    with pytest.raises(ValueError, match="changes nothing"):
        events.contact_rule(1, 2)
    with pytest.raises(ValueError, match="restitution"):
        events.contact_rule(1, 2, restitution=1.5)
    with pytest.raises(TypeError, match="function"):
        events.on_pre_solve(1, 2, 3)
