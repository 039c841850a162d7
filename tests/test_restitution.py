"""Bounces keep the energy Newton's law of restitution leaves them, whichever solver.

The oracle is the analytic apex r + (h0 − r)·e^(2n) of a ball dropped from rest. Symplectic
Euler under gravity g moves a body exactly along a parabola whose discrete energy
Q = ½·u_k·u_{k+1} + g·x_k (u_k the velocity that brought it to x_k) is the same at every
step, and the samples x_k of that parabola peak between Q/g and Q/g + g·dt²/8 (a parabola
sampled every dt has a sample within dt/2 of its apex, which is g·(dt/2)²/2 lower; and its
apex lies g·dt²/8 above Q/g). A bounce that leaves exactly e²·Q therefore shows apexes within
g·dt²/8 of the analytic ones. With substeps of h the positions follow the substeps'
parabola, and its samples every dt lie within g·dt²/8 of it, too.
"""

from __future__ import annotations

import numpy as np
import pytest

from physbook.dynamics.contact_solver import bounce_speed
from physbook.dynamics.materials import Material
from physbook.dynamics.solvers import ImpulseSolver, SequentialImpulseSolver, SoftStepSolver
from physbook.geometry.shapes import Circle, Polygon
from physbook.scenes import apex_heights, bounce, bounce_apexes
from physbook.world import World

DT = 1.0 / 60.0
G = 10.0
RADIUS = 0.5
#: How far a sampled apex may lie from Q/g (see the module doc), with rounding to spare.
SAMPLING = G * DT**2 / 8 * (1 + 1e-9)

#: Solvers whose bounce keeps e²·Q exactly (the sampling bound holds).
EXACT = {
    "impulse": ImpulseSolver,
    "impulse-no-correction": lambda: ImpulseSolver(correction_fraction=0.0, slop=0.0),
    "sequential-no-speculative": lambda: SequentialImpulseSolver(speculative_distance=0.0),
    "sequential-baumgarte-no-speculative": lambda: SequentialImpulseSolver(
        position_correction="baumgarte", speculative_distance=0.0),
    "sequential-projection-no-speculative": lambda: SequentialImpulseSolver(
        position_correction="projection", speculative_distance=0.0),
    "soft_step": SoftStepSolver,
    "soft_step-1-substep": lambda: SoftStepSolver(substeps=1),
    "soft_step-2-substeps": lambda: SoftStepSolver(substeps=2),
    "soft_step-no-speculative": lambda: SoftStepSolver(speculative_distance=0.0),
}
#: Every solver, as a user may configure it: the elastic bounce holds its apex within 1 %.
EVERY = {
    **EXACT,
    "sequential_impulses": SequentialImpulseSolver,
    "sequential-baumgarte": lambda: SequentialImpulseSolver(position_correction="baumgarte"),
    "impulse-speculative": lambda: ImpulseSolver(speculative_distance=0.02),
}


def apexes(solver, restitution: float, height: float, count: int, steps: int) -> np.ndarray:
    scene = bounce(World(solver=solver), height=height, radius=RADIUS, restitution=restitution)
    ball = scene.bodies["ball"]
    heights = scene.run(steps).centers[:, ball.row, 1]
    found = apex_heights(heights, count)
    assert len(found) == count, "the ball should bounce that many times"
    return found


@pytest.mark.parametrize("name", sorted(EVERY))
def test_an_elastic_ball_keeps_its_apex_for_ten_bounces(name):
    # The reader's report: e = 1 climbed 5.00 → 5.19 → 5.37 m under chapter 9's solver.
    found = apexes(EVERY[name](), 1.0, 5.0, 10, 22 * 60)
    np.testing.assert_array_less(np.abs(found / 5.0 - 1.0), 0.01)


@pytest.mark.parametrize("name", sorted(EXACT))
@pytest.mark.parametrize("restitution", [0.5, 0.8, 1.0])
def test_bounce_apexes_are_newtons_to_within_the_sampling(name, restitution):
    count = 4
    found = apexes(EXACT[name](), restitution, 10.0, count, 15 * 60)
    analytic = np.asarray(bounce_apexes(10.0, RADIUS, restitution, count))
    np.testing.assert_array_less(np.abs(found - analytic), SAMPLING)


@pytest.mark.parametrize("restitution", [0.0, 0.3, 0.5, 0.9, 1.0])
def test_bounce_speed_leaves_e_squared_of_the_discrete_energy(restitution):
    rng = np.random.default_rng(7)
    dt = 1.0 / 240.0
    for _ in range(200):
        approach = rng.uniform(1.0, 30.0)
        gap = rng.uniform(-1.0, 1.0) * approach * dt  # outside or inside the surface
        pull = rng.uniform(0.0, 30.0) * dt  # g·dt
        speed = bounce_speed(approach, gap, restitution, pull, 1.0 / dt)
        # Before: arrived at −U; the next step would move at −(U + g·dt).
        before = 0.5 * approach * (approach + pull) + pull / dt * gap
        # After: leaves at w; the step after moves at w − g·dt.
        after = 0.5 * speed * (speed - pull) + pull / dt * (gap + speed * dt)
        # The least Q any speed leaves at this gap is at w = g·dt/2: below it, no speed
        # can leave e²·Q, and the bounce falls back to Newton's e·U.
        reachable = restitution**2 * before >= pull / dt * gap - pull**2 / 8
        if restitution == 0.0 or not reachable:
            assert speed == restitution * approach
        else:
            assert after == pytest.approx(restitution**2 * before, rel=1e-9, abs=1e-12)
    assert bounce_speed(4.0, 0.01, 1.0, 0.1, 60.0) == pytest.approx(4.0, rel=1e-14)
    assert bounce_speed(4.0, 0.01, 0.5, 0.0, 60.0) == 2.0  # no pull: Newton's e·U


def test_a_touching_bounce_reverses_the_speed_it_hit_with():
    # One step of chapter 9's solver, the ball already 3 cm into the floor at 6 m/s:
    # the bounce takes the speed measured before gravity acts, and with e = 1 nothing
    # moves the ball but its new velocity.
    world = World(solver=ImpulseSolver(correction_fraction=0.4, slop=0.01))
    elastic = Material(restitution=1.0, friction=0.0)
    world.add_body(Polygon.box(10.0, 0.5), position=(0.0, -0.5), kind="static",
                   material=elastic)
    ball = world.add_body(Circle(RADIUS), position=(0.0, RADIUS - 0.03),
                          velocity=(0.0, -6.0), material=elastic)
    world.step(DT)
    assert ball.velocity[1] == pytest.approx(6.0, rel=1e-12)
    assert ball.position[1] == pytest.approx(RADIUS - 0.03 + 6.0 * DT, rel=1e-12)


@pytest.mark.parametrize("restitution", [0.3, 0.6])
def test_a_touching_bounce_below_one_moves_the_ball_by_the_energy_shift(restitution):
    # With e < 1 the pair is moved apart by (1 − e²)·d − ½·e·(1 − e)·U·dt after the
    # bounce, the move that leaves e²·Q (land_late_bounces); a static floor takes none.
    depth, approach = 0.03, 6.0
    world = World(solver=ImpulseSolver(correction_fraction=0.0, slop=0.0))
    material = Material(restitution=restitution, friction=0.0)
    world.add_body(Polygon.box(10.0, 0.5), position=(0.0, -0.5), kind="static",
                   material=material)
    ball = world.add_body(Circle(RADIUS), position=(0.0, RADIUS - depth),
                          velocity=(0.0, -approach), material=material)
    world.step(DT)
    e = restitution
    shift = (1 - e * e) * depth - 0.5 * e * (1 - e) * approach * DT
    assert ball.velocity[1] == pytest.approx(e * approach, rel=1e-12)
    assert ball.position[1] == pytest.approx(RADIUS - depth + e * approach * DT + shift,
                                             rel=1e-12)
    # And Q after is e² of Q before (heights above the surface, g = 10).
    before = 0.5 * approach * (approach + G * DT) - G * depth
    height = ball.position[1] - RADIUS
    after = 0.5 * ball.velocity[1] * (ball.velocity[1] - G * DT) + G * height
    assert after == pytest.approx(e * e * before, rel=1e-9)
