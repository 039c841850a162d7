"""Chapter 15's terrain scenes: bodies glide over chains and catch on tiles, capsules stick
or slide on a chain slope by the friction law, a character stands, marbles reach the bin."""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb


def glide(body: str, floor: str, speed: float = 5.0) -> dict:
    scene = pb.scenes.tile_floor(body=body, floor=floor, speed=speed)
    recording = scene.world.run(scene.steps, scene.dt)
    index = list(recording.body_ids).index(scene.bodies["body"].id)
    return pb.scenes.glide_quality(recording.velocities[:, index], speed)


@pytest.mark.parametrize("body", pb.scenes.GLIDERS)
def test_a_body_glides_along_a_chain_of_a_hundred_metres_without_friction(body):
    """No friction and a flat floor: nothing may slow the body or lift it. The acceptance
    bounds: under 0.1 % of the speed lost, vertical speed under 1 mm/s."""
    quality = glide(body, "chain")
    assert abs(quality["speed_loss"]) < 1e-3
    assert quality["max_vertical_speed"] < 1e-3
    assert quality["catches"] == 0


def test_a_box_catches_on_a_floor_of_tiles():
    """The same run over separate unit boxes: the tiles' side faces stop the box (a ghost
    collision), which is what the chain exists to prevent."""
    quality = glide("box", "tiles")
    assert quality["catches"] > 0 and quality["speed_loss"] > 0.5
    assert quality["max_vertical_speed"] > 0.1


def test_a_capsule_on_a_chain_slope_sticks_or_slides_by_the_friction_law():
    angle = 0.3
    scene = pb.scenes.chain_slope(angle=angle, frictions=(0.1, 0.2, math.tan(angle) + 0.01))
    recording = scene.world.run(scene.steps, scene.dt)
    rows = [list(recording.body_ids).index(c.id) for c in scene.bodies["capsules"]]
    distances = recording.centers[:, rows] @ scene.params["direction"]
    slides, accelerations = pb.scenes.ramp_motion(distances, scene.dt)
    expected = pb.scenes.ramp_accelerations(angle, scene.params["frictions"])
    assert slides.tolist() == [True, True, False]
    np.testing.assert_allclose(accelerations[:2], expected[:2], rtol=0.02)
    assert abs(distances[0, 2] - distances[-1, 2]) < 0.002  # under 2 mm in 5 s


def test_the_capsule_character_stands_where_it_was_put():
    scene = pb.scenes.capsule_character()
    character = scene.bodies["character"]
    start = character.position.copy()
    scene.run()
    assert np.hypot(*(character.position - start)) < 0.02
    assert character.angle == 0.0 and abs(character.velocity).max() < 0.01


def test_every_marble_reaches_the_bin_and_none_goes_through_a_chain():
    scene = pb.scenes.marble_run(marbles=20)
    recording = scene.world.run(scene.steps, scene.dt)
    rows = [list(recording.body_ids).index(m.id) for m in scene.bodies["marbles"]]
    params = scene.params
    for frame in range(0, len(recording.times), 30):  # never through a wall or the bin
        quality = pb.scenes.run_quality(recording.centers[frame, rows], params["wall_x"],
                                        params["bin_floor"], 30.0, 0.1)
        assert quality["escaped"] == 0
    final = pb.scenes.run_quality(recording.centers[-1, rows], params["wall_x"],
                                  params["bin_floor"], params["bin_top"], 0.1)
    assert final["in_bin"] == 20 and final["escaped"] == 0


def test_glide_quality_counts_drops_and_the_speed_lost():
    velocities = np.array([[5.0, 0.0], [5.0, 0.002], [4.5, -0.3], [4.5, 0.0], [4.0, 0.0]])
    quality = pb.scenes.glide_quality(velocities, 5.0)
    assert quality == {"speed_loss": pytest.approx(0.2), "max_vertical_speed": 0.3,
                       "catches": 2}


def test_run_quality_sorts_marbles_into_bin_escaped_and_elsewhere():
    centers = np.array([[0.0, -1.9], [7.0, 0.0], [0.0, -2.5], [1.0, 5.0]])
    quality = pb.scenes.run_quality(centers, 6.5, -2.0, 0.0, 0.15)
    assert quality == {"in_bin": 1, "escaped": 2, "lowest": pytest.approx(-0.5)}
