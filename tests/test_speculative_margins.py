"""Chapter 13's comparison of speculative margins, against Box2D v3 itself (pyb2d3).

A frictionless ball at 30 m/s passes the corner of a static box at a miss distance δ.
physbook grows the pair's margin with the distance a body travels in a step, so a ball
that misses by 4 cm is turned (a ghost contact); Box2D v3 keeps a fixed margin of 0.02 m
(``B2_SPECULATIVE_DISTANCE``) with time of impact behind it, so no ball that misses by more
than that is turned, and some that miss by less are.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb

DT = 1 / 60
RADIUS = 0.1
SPEED = 30.0
DIAGONAL = np.array([1.0, -1.0]) / math.sqrt(2)
BOX2D_MARGIN = 0.02


def start_for(miss: float, phase: float) -> np.ndarray:
    """A start on the line x + y = 1 + √2·(δ + r), which passes δ from the corner (½, ½),
    moved ``phase`` of a step's travel along it."""
    offset = 1.0 + math.sqrt(2) * (miss + RADIUS)
    return np.array([-1.5, offset + 1.5]) + phase * SPEED * DT * DIAGONAL


def box2d_turn(miss: float, phase: float, steps: int = 14) -> float:
    """How much Box2D v3 changes the ball's velocity (m/s) on its way past the corner."""
    import pyb2d3 as b2

    world = b2.World(gravity=(0.0, 0.0))
    box = world.create_static_body(position=(0.0, 0.0))
    slippery = b2.surface_material(friction=0.0)
    box.create_polygon_shape(b2.shape_def(material=slippery), b2.box(0.5, 0.5))
    ball = world.create_dynamic_body(position=tuple(start_for(miss, phase)),
                                     linear_velocity=tuple(SPEED * DIAGONAL))
    ball.create_circle_shape(b2.shape_def(density=1.0, material=slippery),
                             b2.circle(radius=RADIUS))
    for _ in range(steps):
        world.step(DT, 4)
    return float(np.hypot(*(np.array(tuple(ball.linear_velocity)) - SPEED * DIAGONAL)))


def physbook_turn(miss: float, phase: float, steps: int = 14) -> float:
    """The same in a physbook world with the sequential-impulse solver's default margin."""
    world = pb.World(gravity=(0.0, 0.0), solver=pb.SequentialImpulseSolver())
    world.continuous = False
    world.add_body(pb.Polygon.box(0.5, 0.5), kind="static")
    ball = world.add_body(pb.Circle(RADIUS), position=start_for(miss, phase),
                          velocity=SPEED * DIAGONAL, material=pb.Material(friction=0.0))
    world.run(steps, DT)
    return float(np.hypot(*(ball.velocity - SPEED * DIAGONAL)))


def test_box2d_turns_no_ball_that_misses_by_more_than_its_fixed_margin():
    pytest.importorskip("pyb2d3")
    phases = np.arange(8) / 8
    beyond = [box2d_turn(miss, phase) for miss in np.linspace(0.021, 0.4, 20)
              for phase in phases]
    # float32 velocities: a turn, when there is one, is metres per second.
    assert max(beyond) < 1e-4
    within = [box2d_turn(miss, phase) for miss in (0.015, 0.019) for phase in phases]
    assert max(within) > 1.0


def test_the_four_centimetre_pass_is_a_ghost_in_physbook_and_not_in_box2d():
    pytest.importorskip("pyb2d3")
    miss = 0.04
    assert physbook_turn(miss, 0.0) > 1.0
    assert box2d_turn(miss, 0.0) < 1e-4
