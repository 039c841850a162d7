"""Chapter 11's jointed scenes: the numbers the book and the issue state for them."""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb

DT = pb.scenes.DT


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
    state = np.concatenate([world.bodies.centers.ravel(), world.bodies.velocities.ravel(),
                            world.bodies.angles, world.bodies.angular_velocities])
    assert np.all(np.isfinite(state))
    if name == "ragdoll":
        # Its limbs stay on: every hinge holds within 1 cm once the ragdoll has landed.
        assert max(pb.scenes.pin_gap(hinge) for hinge in scene.params["hinges"]) < 0.01
    else:
        # It drove over the bumps to the wall at the road's end and stays there, upright.
        chassis = scene.bodies["chassis"]
        assert 20.0 < chassis.position[0] < scene.bodies["wall"].position[0]
        assert 0.0 < chassis.position[1] < 2.0


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
    (lambda: pb.scenes.pendulum(radius=3.0), "radius"),
    (lambda: pb.scenes.pendulum(angle=math.nan), "angle"),
    (lambda: pb.scenes.cradle(length=-3.0), "length"),
    (lambda: pb.scenes.cradle(release_angle_degrees=0.0), "release_angle_degrees"),
    (lambda: pb.scenes.chain(link_length=0.0), "link_length"),
    (lambda: pb.scenes.bridge(boxes=0), "boxes"),
    (lambda: pb.scenes.ragdoll(spin=math.nan), "spin"),
    (lambda: pb.scenes.car(motor_speed=math.inf), "motor_speed"),
    (lambda: pb.scenes.car(max_motor_torque=-1.0), "max_motor_torque"),
    (lambda: pb.scenes.car(bumps=-1), "bumps"),
])
def test_scene_arguments_are_checked(call, name):
    with pytest.raises(ValueError, match=name):
        call()
