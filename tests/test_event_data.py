"""Chapter 16: what contact callbacks carry — points, normals and impulses equal to the
contact table's, hits with their bodies, and bodies removed in a callback that read dead
at once."""

from __future__ import annotations

import numpy as np
import pytest

import physbook as pb

DT = 1 / 60
BALL, FLOOR = 0b01, 0b10


def floor_and_balls(count: int = 3) -> tuple[pb.World, list[pb.Body]]:
    world = pb.World()
    world.add_body(pb.Polygon.box(10.0, 0.5), position=(0.0, -0.5), kind="static",
                   filter=pb.Filter(FLOOR))
    balls = [world.add_body(pb.Circle(0.25), position=(1.0 * k - 1.0, 1.0 + 0.3 * k),
                            filter=pb.Filter(BALL)) for k in range(count)]
    return world, balls


def table_row(world: pb.World, shape_a: int, shape_b: int) -> int:
    ids = world.contacts.shape_ids
    low, high = min(shape_a, shape_b), max(shape_a, shape_b)
    return int(np.flatnonzero((ids[:, 0] == low) & (ids[:, 1] == high))[0])


@pytest.mark.parametrize("order", ["ball-first", "floor-first"])
def test_a_begin_event_carries_the_contact_tables_points_normal_and_impulses(order):
    world, _ = floor_and_balls()
    began = []
    if order == "ball-first":
        world.events.on_contact(BALL, FLOOR, begin=lambda c: began.append((c, snapshot(world))))
    else:
        world.events.on_contact(FLOOR, BALL, begin=lambda c: began.append((c, snapshot(world))))
    for _ in range(90):
        world.step(DT)
    assert len(began) == 3
    for contact, table in began:
        shape_ids, normals, points, normal_impulses, tangent_impulses, counts = table
        ids = shape_ids.tolist()
        low, high = sorted((contact.shape_a, contact.shape_b))
        row = ids.index([low, high])
        flipped = contact.shape_a != low
        k = counts[row]
        np.testing.assert_array_equal(contact.points, points[row, :k])
        np.testing.assert_array_equal(contact.normal, -normals[row] if flipped else normals[row])
        assert contact.normal_impulse == normal_impulses[row, :k].sum() > 0.0
        assert contact.tangent_impulse == tangent_impulses[row, :k].sum()
        # The normal points from shape a to shape b: from the floor up, or from a ball down.
        floor_first = order == "floor-first"
        assert contact.normal[1] == pytest.approx(1.0 if floor_first else -1.0)


def snapshot(world: pb.World) -> tuple:
    contacts = world.contacts
    return (contacts.shape_ids.copy(), contacts.normals.copy(), contacts.points.copy(),
            contacts.normal_impulses.copy(), contacts.tangent_impulses.copy(),
            contacts.point_counts.copy())


def test_a_hit_callback_gets_the_bodies_point_normal_and_speed_of_the_hit_events():
    world, balls = floor_and_balls()
    world.events.hit_speed = 0.5
    hits = []
    world.events.on_contact(BALL, FLOOR, hit=lambda hit: hits.append(
        (hit, world.events.contacts.hits)))
    for _ in range(90):
        world.step(DT)
    assert len(hits) >= 3
    for hit, events in hits:
        assert hit.body_a in balls and hit.body_b.kind == "static"
        ids = events.shape_ids.tolist()
        low, high = sorted((hit.shape_a, hit.shape_b))
        k = ids.index([low, high])
        assert hit.speed == events.speeds[k] > 0.5
        np.testing.assert_array_equal(hit.point, events.points[k])
        sign = -1.0 if hit.shape_a != low else 1.0
        np.testing.assert_array_equal(hit.normal, sign * events.normals[k])
        # A ball falling from rest hits at √(2gΔh) or less (the speculative contact may
        # report it a step early, slower).
        assert hit.speed <= np.sqrt(2 * 10.0 * 2.0)


def test_a_body_removed_in_a_callback_reads_dead_at_once():
    world = pb.World()
    world.add_body(pb.Polygon.box(10.0, 0.5), position=(0.0, -0.5), kind="static",
                   filter=pb.Filter(FLOOR))
    # A coin of two shapes: each shape begins touching, and a game counts coins by body.
    coin = world.add_body([pb.Circle(0.2), pb.Circle(0.2, center=(0.3, 0.0))],
                          position=(0.0, 0.5), filter=pb.Filter(BALL))
    counted = []

    def collect(contact):
        if contact.body_a.alive:
            counted.append(contact.body_a.id)
            world.remove_body(contact.body_a)
        assert not contact.body_a.alive

    world.events.on_contact(BALL, FLOOR, begin=collect)
    for _ in range(30):
        world.step(DT)
    assert counted == [coin.id] and not coin.alive and len(world.bodies) == 1
