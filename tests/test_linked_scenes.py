"""Chapter 11's jointed scenes: the numbers the book and the issue state for them."""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb

DT = pb.scenes.DT


def run_cradle(release: float, solver: str = "soft_step", steps: int = 300):
    """Step the cradle; return each ball's largest rise above its rest height and largest
    distance from its start, and the energy ratio end/start."""
    scene = pb.scenes.cradle(pb.World(solver=solver), release_angle_degrees=release)
    world, balls = scene.world, scene.bodies["balls"]
    start = np.array([ball.position for ball in balls])
    energy_start = pb.scenes.energy(world)
    rise = np.zeros(len(balls))
    moved = np.zeros(len(balls))
    for _ in range(steps):
        world.step(DT)
        positions = np.array([ball.position for ball in balls])
        rise = np.maximum(rise, positions[:, 1] - scene.params["rest_height"])
        moved = np.maximum(moved, np.hypot(*(positions - start).T))
    return scene, rise, moved, pb.scenes.energy(world) / energy_start


@pytest.mark.parametrize("release", [30.0, 45.0])
def test_cradle_passes_the_hit_to_the_last_ball_alone(release):
    # Five equal balls in a row, e = 1: the sequential collisions of the textbook hand the
    # first ball's velocity down the row, so the middle balls stay put and the last one
    # rises to the release height. Energy is kept: after 5 s within 1 %, the bound
    # (measured: 1e-5).
    scene, rise, moved, energy_ratio = run_cradle(release)
    assert np.all(moved[1:-1] < 0.01)
    assert rise[-1] == pytest.approx(scene.params["release_height"], rel=0.01)
    assert abs(energy_ratio - 1.0) < 0.01


def test_sequential_impulses_treat_the_row_as_one_collision():
    # A rigid solver that sets every restitution target before the pass solves all four
    # contacts at once: the first pair must separate at v (e = 1) while the other three
    # may not approach, so balls 2–5 move as one at u and ball 1 at v − 4u with momentum
    # v = (v − 4u) + 4u and relative speed u − (v − 4u) = v: u = 2v/5, ball 1 leaves at
    # −3v/5. Energy is still kept: (9/25 + 4·4/25)·½mv² = ½mv².
    scene = pb.scenes.cradle(pb.World(solver="sequential_impulses"),
                             release_angle_degrees=30.0)
    world, balls = scene.world, scene.bodies["balls"]
    before = None
    for _ in range(300):
        speed = balls[0].velocity[0]
        world.step(DT)
        if balls[1].velocity[0] > 0.0:
            before = speed
            break
    assert before is not None
    after = np.array([ball.velocity[0] for ball in balls])
    # Gravity and the rods turn velocities within the step by O(g·Δt) = 0.17 m/s, a few
    # per cent of v ≈ 2.8 m/s.
    np.testing.assert_allclose(after[1:], 0.4 * before, rtol=0.05)
    assert after[0] == pytest.approx(-0.6 * before, rel=0.05)


def test_pendulum_scene_states_its_period():
    scene = pb.scenes.pendulum(length=2.0)
    assert scene.params["period"] == pytest.approx(2 * math.pi * math.sqrt(2.0 / 10.0))


def test_bridge_holds_its_pins_under_the_boxes():
    # 40 planks and 10 boxes: every pin's two copies stay within 1 cm (measured: 6 mm at
    # the boxes' impacts, 2 mm at rest; a pin under load F stretches about F/(m(2πf)²)
    # with the joints' 120 Hz).
    scene = pb.scenes.bridge()
    hinges = scene.params["hinges"]
    assert len(hinges) == 41
    assert max(pb.scenes.pin_gap(hinge) for hinge in hinges) < 1e-12
    worst = 0.0
    for _ in range(scene.steps):
        scene.world.step(DT)
        worst = max(worst, max(pb.scenes.pin_gap(hinge) for hinge in hinges))
    assert worst < 0.01
    boxes = scene.bodies["boxes"]
    assert all(box.position[1] > -scene.params["sag"] - 1.0 for box in boxes)  # on the deck


@pytest.mark.parametrize("name", ["ragdoll", "car"])
def test_ragdoll_and_car_run_ten_thousand_steps(name):
    scene = pb.scenes.SCENES[name]()
    world = scene.world
    for _ in range(10_000):
        world.step(DT)
    state = np.concatenate([world.centers.ravel(), world.velocities.ravel(),
                            world.angles, world.angular_velocities])
    assert np.all(np.isfinite(state))
    if name == "ragdoll":
        # Its limbs stay on: every hinge holds within 1 cm once the ragdoll has landed.
        assert max(pb.scenes.pin_gap(hinge) for hinge in scene.params["hinges"]) < 0.01
    else:
        assert scene.bodies["chassis"].position[0] > 20.0  # drove over the bumps


def test_chain_hangs_from_its_pin():
    scene = pb.scenes.chain(links=10, link_length=0.5)
    for _ in range(600):
        scene.world.step(DT)
    links = scene.bodies["links"]
    # A chain of 5 m hanging from (0, 12): its end is at most 5 m below the pin.
    assert 12.0 - 5.0 - 0.05 < links[-1].position[1] < 12.0
    assert max(pb.scenes.pin_gap(hinge) for hinge in scene.params["hinges"]) < 0.01


@pytest.mark.parametrize("call, name", [
    (lambda: pb.scenes.cradle(count=1), "count"),
    (lambda: pb.scenes.cradle(release_angle_degrees=95.0), "release_angle_degrees"),
    (lambda: pb.scenes.cradle(radius=4.0), "radius"),
    (lambda: pb.scenes.pendulum(length=-1.0), "length"),
    (lambda: pb.scenes.bridge(slack=30.0), "slack"),
    (lambda: pb.scenes.bridge(planks=0), "planks"),
    (lambda: pb.scenes.car(suspension_hertz=0.0), "suspension_hertz"),
    (lambda: pb.scenes.ragdoll(height=math.inf), "height"),
    (lambda: pb.scenes.chain(links=-3), "links"),
])
def test_scene_arguments_are_checked(call, name):
    with pytest.raises(ValueError, match=name):
        call()
