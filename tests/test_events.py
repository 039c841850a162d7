"""Chapter 12's sensors, contact events and callbacks, checked against positions: a pair
begins touching exactly when the gap computed from the bodies' positions closes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import physbook as pb

DT = 1 / 60
RADIUS = 0.5
BOUNCY = pb.Material(restitution=0.6)


def drop_world(solver: str, sensor_zone: bool = False) -> tuple[pb.World, pb.Body, pb.Body]:
    world = pb.World(solver=solver, sleeping=False)
    ground = world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static",
                            material=BOUNCY)  # its top is y = 0
    if sensor_zone:  # a trigger zone from y = 2 to 3, which the ball falls through
        world.add_body(pb.Polygon.box(1.0, 0.5), position=(0.0, 2.5), kind="static",
                       sensor=True)
    ball = world.add_body(pb.Circle(RADIUS), position=(0.0, 4.0), material=BOUNCY)
    return world, ground, ball


def events_against_positions(world, ball, touching_at, events=lambda world: world.events.contacts,
                             steps=400):
    """Step, and collect (step, event) for begin and end, and the same from positions:
    ``touching_at(y, v)`` says whether the ball at height y, moving at v, touches in the
    step. The narrow phase of a step sees the positions from before it. ``events(world)``
    picks the events compared: contact events by default."""
    from_events, from_positions = [], []
    was = False
    for k in range(steps):
        now = touching_at(ball.position[1], ball.velocity[1])
        if now != was:
            from_positions.append((k, "begin" if now else "end"))
        was = now
        world.step(DT)
        yield k
        from_events.extend((k, kind) for kind in ("begin", "end")
                           if len(getattr(events(world), kind)))
    assert from_events == from_positions


@pytest.mark.parametrize("solver", ["soft_step", "sequential_impulses", "impulse"])
def test_each_touch_of_a_bouncing_ball_begins_and_ends_once(solver):
    world, ground, ball = drop_world(solver)
    begins = ends = 0
    # It touches if it overlaps, or, for a solver that takes speculative contacts (all but
    # chapter 9's impulse solver), falls onto the floor within the step.
    ahead = 0.0 if solver == "impulse" else DT
    for _ in events_against_positions(world, ball,
                                      lambda y, v: y - RADIUS <= max(0.0, -v * ahead)):
        events = world.events.contacts
        begins += len(events.begin)
        ends += len(events.end)
        for pairs in (events.begin, events.end):
            assert pairs.tolist() in ([], [[0, 1]])  # ground's shape id 0, the ball's 1
    assert begins >= 3 and ends == begins - 1  # bounces, then rests touching


def test_a_sensor_reports_entering_and_leaving_and_never_pushes():
    world, ground, ball = drop_world("soft_step", sensor_zone=True)
    falls_freely_until = []
    for k in events_against_positions(
            world, ball, lambda y, v: (2.0 - RADIUS <= y <= 3.0 + RADIUS),
            lambda world: world.events.sensors):
        sensor = world.events.sensors
        for pairs in (sensor.begin, sensor.end):
            assert pairs.tolist() in ([], [[1, 2]])  # (sensor, visitor)
        if ball.position[1] > 1.0:
            falls_freely_until.append(k)
        # Only the ground makes events of contact: the zone exerts no force.
        for pairs in (world.events.contacts.begin, world.events.contacts.end):
            assert pairs.tolist() in ([], [[0, 2]])
    # Through the zone the ball fell freely: y = 4 − g t²/2 exactly as without it.
    k = falls_freely_until[-1]
    t = (k + 1) * DT
    assert ball.position[1] != pytest.approx(4.0 - 5.0 * t**2)  # it has landed since
    free = pb.World(sleeping=False)
    alone = free.add_body(pb.Circle(RADIUS), position=(0.0, 4.0))
    check = pb.World(sleeping=False)
    check.add_body(pb.Polygon.box(1.0, 0.5), position=(0.0, 2.5), kind="static", sensor=True)
    through = check.add_body(pb.Circle(RADIUS), position=(0.0, 4.0))
    for _ in range(k + 1):
        free.step(DT)
        check.step(DT)
    assert through.position[1] == alone.position[1]


def test_a_hit_is_reported_once_per_impact_at_the_impact_speed():
    world, ground, ball = drop_world("soft_step")
    hits = []
    for k in range(300):
        before = ball.velocity[1]
        world.step(DT)
        events = world.events.contacts.hits
        if len(events.speeds):
            assert events.shape_ids.tolist() == [[0, 1]]
            np.testing.assert_allclose(events.normals[0], [0.0, 1.0], atol=1e-12)
            hits.append((k, events.speeds[0], -before))
    assert len(hits) >= 2
    for _, speed, falling in hits:
        # The approach speed is the ball's speed before the step (ground at rest).
        assert speed == pytest.approx(falling, rel=1e-12) and speed > world.events.hit_speed
    first = hits[0]
    assert first[1] == pytest.approx(np.sqrt(2 * 10 * (4.0 - RADIUS)), rel=0.05)
    world.events.hit_speed = 100.0
    world.step(DT)
    assert len(world.events.contacts.hits.speeds) == 0


@pytest.mark.parametrize("a, b", list(itertools.product(
    [pb.Filter(1, 1), pb.Filter(1, 2), pb.Filter(2, 1), pb.Filter(3, -1), pb.Filter(1, 0),
     pb.Filter(1, 1, 5), pb.Filter(1, 0, 5), pb.Filter(1, 1, -5), pb.Filter(2, 2, -5),
     pb.Filter(1, 1, 6)], repeat=2)))
def test_filters_decide_which_shapes_collide_as_the_truth_table_says(a, b):
    world = pb.World(gravity=(0.0, 0.0))
    world.add_body(pb.Circle(1.0), position=(0.0, 0.0), filter=a)
    world.add_body(pb.Circle(1.0), position=(1.0, 0.0), filter=b)
    world.step(DT)
    if a.group == b.group and a.group != 0:
        expected = a.group > 0
    else:
        expected = bool(a.category & b.mask) and bool(b.category & a.mask)
    assert (world.contacts.count == 1) == expected


def test_layers_are_category_equals_mask():
    world = pb.World()
    body = world.add_body(pb.Circle(1.0), layers=0b101)
    assert body.filter == pb.Filter(0b101, 0b101, 0) and body.layers == 0b101
    body.filter = pb.Filter(1, 2)
    with pytest.raises(ValueError, match="not a layer bitmask"):
        _ = body.layers
    two = world.add_body([pb.Circle(1.0), pb.Circle(0.5)],
                         filter=[pb.Filter(1, 2), pb.Filter(4, 4)], sensor=[False, True])
    assert two.filters == (pb.Filter(1, 2), pb.Filter(4, 4)) and two.sensors == (False, True)
    with pytest.raises(ValueError, match="different filters"):
        _ = two.filter
    with pytest.raises(ValueError, match="layers or filter, not both"):
        world.add_body(pb.Circle(1.0), layers=1, filter=pb.Filter())
    with pytest.raises(ValueError, match="one per shape"):
        world.add_body([pb.Circle(1.0), pb.Circle(0.5)], filter=[pb.Filter()])


def test_callbacks_match_categories_in_order_and_removals_wait():
    world = pb.World(sleeping=False)
    ground = world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static",
                            filter=pb.Filter(category=2))
    balls = [world.add_body(pb.Circle(0.5), position=(x, 0.45), filter=pb.Filter(1))
             for x in (-2.0, 0.0, 2.0)]
    seen, ended = [], []

    def begin(contact):
        # Every event of the step finds its bodies alive, though the first removed them.
        assert contact.body_a.alive and contact.body_b.alive
        assert contact.body_a == ground  # category 2 first, as registered
        seen.append(contact.body_b)
        world.remove_body(balls[0])  # the same body, removed by every callback
        world.remove_body(contact.body_b)
        with pytest.raises(RuntimeError, match="contact callback"):
            world.step(DT)

    world.events.on_contact(2, 1, begin=begin, end=lambda contact: ended.append(contact))
    world.step(DT)
    assert seen == balls and world.count == 1  # removed after the last callback
    assert not any(ball.alive for ball in balls)
    world.step(DT)  # their contacts ended with them
    assert sorted(contact.shape_b for contact in ended) == [1, 2, 3]
    assert all(contact.body_a == ground and not contact.body_b.alive for contact in ended)
    assert world.events.contacts.begin.shape == (0, 2)


def test_removing_a_touching_body_ends_its_contact_once():
    world, ground, ball = drop_world("soft_step")
    for _ in range(200):
        world.step(DT)
    assert world.events.contacts.end.shape == (0, 2)
    world.remove_body(ball)
    world.step(DT)
    assert world.events.contacts.end.tolist() == [[0, 1]]
    world.step(DT)
    assert world.events.contacts.end.shape == (0, 2)


def test_handlers_can_be_removed_and_must_do_something():
    world, _, _ = drop_world("soft_step")
    calls = []
    handler = world.events.on_contact(1, 1, begin=calls.append)
    world.events.remove_handler(handler)
    for _ in range(120):
        world.step(DT)
    assert calls == []
    with pytest.raises(ValueError, match="not registered"):
        world.events.remove_handler(handler)
    with pytest.raises(ValueError, match="give begin, end, hit or several"):
        world.events.on_contact(1, 1)


def test_a_callback_that_raises_costs_the_others_none_of_their_events():
    # Three balls land at once; the game's handler raises at the first. Every handler still
    # hears every landing, the removals asked for are made, the step stands, and the first
    # exception comes out of step().
    world = pb.World(sleeping=False)
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    balls = [world.add_body(pb.Circle(0.5), position=(x, 0.45)) for x in (-2.0, 0.0, 2.0)]
    heard, counted = [], []

    def fussy(contact):
        heard.append(contact.body_b)
        world.remove_body(contact.body_b)
        raise RuntimeError(f"the game failed at landing {len(heard)}")

    world.events.on_contact(1, 1, begin=fussy)
    world.events.on_contact(1, 1, begin=counted.append)
    with pytest.raises(RuntimeError, match="at landing 1$"):
        world.step(DT)
    assert heard == balls and len(counted) == 3
    assert world.step_count == 1 and world.count == 1
    world.step(DT)  # nothing left to land: the next step raises nothing
