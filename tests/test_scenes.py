"""The standard scenes: their geometry, their materials, and how physbook runs them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physbook import scenes
from physbook.dynamics.materials import mix_friction, mix_restitution
from physbook.kinds import STATIC
from physbook.world import World


def test_bounce_apexes_match_r_plus_h_times_e_to_the_2n():
    scene = scenes.bounce()
    ball = scene.bodies["ball"]
    recording = scene.run()
    heights = recording.centers[:, ball.row, 1]
    measured = scenes.apex_heights(heights, 4)
    expected = scenes.bounce_apexes(10.0, 0.5, 0.5, 4)
    np.testing.assert_allclose(expected, [2.875, 1.09375, 0.6484375, 0.537109375])
    assert len(measured) == 4
    np.testing.assert_allclose(measured, expected, rtol=0.04)
    # Below the restitution threshold the ball stops bouncing and comes to rest.
    assert heights[-1] == pytest.approx(0.5, abs=0.011)


def test_ramp_boxes_stick_or_slide_as_coulomb_says():
    scene = scenes.ramp()
    indices = [box.row for box in scene.bodies["boxes"]]
    recording = scene.run()
    along = recording.centers[:, indices] @ scene.params["direction"]
    slides, accelerations = scenes.ramp_motion(along, scene.dt, slide_threshold=0.5)
    angle, frictions = scene.params["angle"], np.array(scene.params["frictions"])
    expected_slide = frictions < math.tan(angle)
    np.testing.assert_array_equal(slides, expected_slide)
    np.testing.assert_array_equal(expected_slide, [False, False, False, True, True])
    analytic = scenes.ramp_accelerations(angle, frictions)
    np.testing.assert_allclose(accelerations[slides], analytic[slides], rtol=0.01)
    # Sticking boxes stay within centimetres (the plain method lets them creep slightly).
    moved = along[0] - along[-1]
    assert (np.abs(moved[~slides]) < 0.15).all()


def test_scene_materials_mix_to_the_pair_values():
    scene = scenes.ramp()
    world = scene.world
    ramp_row = scene.bodies["ramp"].row
    for box, pair in zip(scene.bodies["boxes"], scene.params["frictions"], strict=True):
        ramp, moving = world.bodies[ramp_row].material, box.material
        assert mix_friction(ramp.friction, moving.friction) == pytest.approx(pair, abs=1e-12)
    bounce = scenes.bounce().world
    floor, ball = bounce.bodies[0].material, bounce.bodies[1].material
    assert mix_restitution(floor.restitution, ball.restitution) == 0.5
    assert mix_friction(floor.friction, ball.friction) == 0.0


def test_per_body_value():
    assert scenes.per_body_value(0.5, 1.0, mix_friction) == pytest.approx(0.25)
    assert scenes.per_body_value(0.3, 0.3, mix_restitution) == 0.3
    with pytest.raises(ValueError, match="no body value"):
        scenes.per_body_value(0.5, 0.2, mix_restitution)  # min(0.2, x) never reaches 0.5
    with pytest.raises(ValueError, match="pair_value"):
        scenes.per_body_value(-0.1, 1.0, mix_friction)


def test_pyramid_geometry():
    scene = scenes.pyramid(20)
    boxes = scene.bodies["boxes"]
    assert len(boxes) == 210 and scene.steps == 600 and scene.name == "pyramid-20"
    centers = scene.world.bodies.centers[[box.row for box in boxes]]
    assert centers[:, 1].min() == 0.5 and centers[:, 1].max() == 19.5
    bottom = np.sort(centers[centers[:, 1] == 0.5, 0])
    np.testing.assert_array_equal(np.diff(bottom), np.ones(19))  # exactly touching
    np.testing.assert_allclose(bottom[[0, -1]], [-9.5, 9.5])
    assert scene.world.bodies.kinds[scene.bodies["ground"].row] == STATIC
    with pytest.raises(ValueError, match="base"):
        scenes.pyramid(0)
    with pytest.raises(ValueError, match="frictions"):
        scenes.ramp(frictions=[0.5] * 10)
    with pytest.raises(ValueError, match="angle"):
        scenes.ramp(angle=2.0)
    with pytest.raises(ValueError, match="height"):
        scenes.bounce(height=0.4)


def test_rain_positions_follow_the_table():
    positions = scenes.rain_positions(1000)
    assert positions.shape == (1000, 2)
    np.testing.assert_allclose(positions[0], [-19.5 * 0.9 - 0.225, 2.0])
    np.testing.assert_allclose(positions[40], [-19.5 * 0.9 + 0.225, 2.9])
    assert positions[:, 1].max() == pytest.approx(2.0 + 24 * 0.9)
    gaps = np.hypot(*(positions[:, None] - positions[None]).transpose(2, 0, 1))
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() > 0.5, "no two circles start overlapping"


def test_scenes_fill_a_given_world():
    world = World()
    scene = scenes.boxes(80, world)
    assert scene.world is world and world.count == 83
    with pytest.raises(TypeError, match="world"):
        scenes.rain(10, world="a world")


def test_small_rain_runs_10000_steps_without_nan_or_escape():
    # A quarter of a row per layer: 120 circles keep the 10 000 steps a few seconds long.
    scene = scenes.rain(120)
    world = scene.world
    indices = [body.row for body in scene.bodies["circles"]]
    for _ in range(10_000):
        world.step(scene.dt)
    assert np.isfinite(world.bodies.centers).all() and np.isfinite(world.bodies.velocities).all()
    quality = scenes.container_quality(world.bodies.centers[indices], 0.25)
    assert quality["escaped"] == 0
    assert np.abs(world.bodies.velocities[indices]).max() < 1.0, "the pile has come to rest"


def test_full_rain_runs_without_nan_or_escape():
    scene = scenes.rain(1000)
    world = scene.world
    indices = [body.row for body in scene.bodies["circles"]]
    for _ in range(300):
        world.step(scene.dt)
    assert np.isfinite(world.bodies.centers).all() and np.isfinite(world.bodies.velocities).all()
    quality = scenes.container_quality(world.bodies.centers[indices], 0.25)
    assert quality["escaped"] == 0
    assert quality["deepest_penetration"] < 0.25, "no circle sank through the floor"


def test_draw_world_draws_contacts_and_impulses():
    import matplotlib.pyplot as plt

    import physbook.viz as viz

    scene = scenes.pyramid(3)
    scene.run(5)
    fig, ax = plt.subplots()
    viz.draw_world(ax, scene.world, contacts=True, impulses=True)
    quivers = [c for c in ax.collections if type(c).__name__ == "Quiver"]
    assert len(quivers) == 2  # normals and impulses
    assert len(quivers[0].U) == scene.world.contacts.point_total
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    assert len(dots[0].get_xdata()) == scene.world.contacts.point_total
    plt.close(fig)


def test_apex_heights_of_a_synthetic_series():
    t = np.linspace(0, 3, 301)
    heights = np.abs(np.sin(np.pi * t)) * np.exp(-t) + 0.5
    heights[0] = 2.0  # released from rest at a height, falling first
    apexes = scenes.apex_heights(heights, 2)
    # Maxima where d/dt (sin(πt)·e^(−t)) = 0: tan(πt) = π.
    first = math.atan(math.pi) / math.pi
    expected = 0.5 + math.sin(math.pi * first) * np.exp(-(first + np.array([0.0, 1.0])))
    np.testing.assert_allclose(apexes, expected, atol=2e-3)


def test_ramp_motion_recovers_a_known_acceleration():
    dt = 0.01
    t = dt * np.arange(200)
    distances = np.column_stack([5.0 - 0.5 * 1.7 * t**2, np.full_like(t, 3.0)])
    slides, accelerations = scenes.ramp_motion(distances, dt)
    np.testing.assert_array_equal(slides, [True, False])
    np.testing.assert_allclose(accelerations, [1.7, 0.0], atol=1e-9)


def test_pyramid_and_container_quality():
    start = np.array([[0.0, 0.5], [1.0, 0.5], [0.5, 1.5]])
    end = start + [[0.6, 0.0], [0.0, -0.1], [0.0, -0.3]]
    quality = scenes.pyramid_quality(start, end, np.array([0.0, 0.5 * np.pi + 0.1, 0.0]))
    assert quality["top_displacement"] == pytest.approx(0.3)
    assert quality["largest_slide"] == pytest.approx(0.6)
    assert quality["largest_tilt"] == pytest.approx(0.1)
    assert quality["standing"] is False
    held = scenes.container_quality(np.array([[0.0, 0.2], [21.0, 1.0], [3.0, 2.0]]), 0.25)
    assert held == {"escaped": 1, "deepest_penetration": pytest.approx(0.05),
                    "pile_height": 2.25}


@pytest.mark.parametrize("name", sorted(scenes.SCENES))
def test_every_named_scene_fills_the_given_world_and_steps(name):
    world = World()
    scene = scenes.SCENES[name](world=world)
    assert scene.world is world and scene.steps > 0 and scene.dt == pytest.approx(1 / 60)
    handles = [body for value in scene.bodies.values()
               for body in (value if isinstance(value, list) else [value])]
    assert handles and all(body.world is world and body.alive for body in handles)
    world.step(scene.dt)
    assert np.isfinite(world.bodies.centers).all() and np.isfinite(world.bodies.velocities).all()


_START = np.array([[0.0, 0.5], [1.0, 0.5], [0.5, 1.5]])


@pytest.mark.parametrize("call, error, message", [
    # Scene functions.
    (lambda: scenes.ramp(frictions=5), ValueError, "frictions must hold 1 to 9 values"),
    (lambda: scenes.ramp(frictions=["a"]), TypeError, "frictions must be numeric"),
    (lambda: scenes.ramp(frictions=[-0.1]), ValueError, r"frictions\[0\] must be non-neg"),
    (lambda: scenes.ramp(frictions=[50.0]), ValueError,
     r"frictions\[0\] = 50.0 cannot be given to bodies"),
    (lambda: scenes.high_mass_ratio(densities=5), ValueError, "densities must hold 1 to 3"),
    (lambda: scenes.high_mass_ratio(densities=[1.0] * 4), ValueError,
     "densities must hold 1 to 3"),
    (lambda: scenes.pyramid(10**4), ValueError, "base = 10000 would build 50005000 bodies"),
    (lambda: scenes.rain(2**31 - 1), ValueError, "n = 2147483647 would build"),
    (lambda: scenes.card_house(10**3), ValueError, "levels = 1000 would build"),
    (lambda: scenes.bounce(restitution=1.5), ValueError, "restitution must be in"),
    (lambda: scenes.Scene("x", "notaworld", 5).run(), TypeError, "world must be a World"),
    (lambda: scenes.Scene("x", World(), -1), ValueError, "steps must be at least 0"),
    (lambda: scenes.Scene("x", World(), 5, dt=0.0), ValueError, "dt must be positive"),
    (lambda: scenes.Scene(5, World(), 5), TypeError, "name must be a string"),
    (lambda: scenes.Scene("x", World(), 5, bodies=[]), TypeError, "bodies must be a dict"),
    # Mixing rules.
    (lambda: scenes.per_body_value(0.5, 0.5, 5), TypeError, "mix must be a function"),
    (lambda: scenes.per_body_value(0.5, 0.5, lambda a, b: None), TypeError,
     r"mix\(0.5, 0.0\) must be a real number"),
    (lambda: scenes.per_body_value(0.5, 0.5, lambda a: a), TypeError,
     r"mix must be a function of two numbers; mix\(0.5, 0.0\) raised TypeError"),
    (lambda: scenes.per_body_value(0.5, 0.5, lambda a, b: math.nan), ValueError,
     r"mix\(0.5, 0.0\) must be finite"),
    (lambda: scenes.per_body_value(0.5, 0.0, mix_friction), ValueError,
     r"no body value x in \[0, upper = 1000.0\] gives mix\(partner_value = 0.0, x\) = "
     r"pair_value = 0.5"),
    # Measures.
    (lambda: scenes.bounce_apexes("10", 0.5, 0.5), TypeError, "height must be a real"),
    (lambda: scenes.bounce_apexes(math.nan, 0.5, 0.5), ValueError, "height must be finite"),
    (lambda: scenes.bounce_apexes(10, 0.5, -3.0), ValueError, "restitution must be non-neg"),
    (lambda: scenes.bounce_apexes(10, 0.5, 1.2), ValueError, r"restitution must be in \[0, 1\]"),
    (lambda: scenes.bounce_apexes(0.2, 0.5, 0.5), ValueError, "height must be at least the "
                                                              "radius"),
    (lambda: scenes.bounce_apexes(10, 0.5, 0.5, 10**6), ValueError, "count must be at most"),
    (lambda: scenes.apex_heights(np.ones((5, 5))), ValueError, r"heights must have shape \(N,\)"),
    (lambda: scenes.ramp_motion(np.ones((5, 2)), 0.1, -1.0), ValueError,
     "slide_threshold must be non-negative"),
    (lambda: scenes.ramp_motion(np.array([[0.0], [1.0], [3.0]]), 1e-320), FloatingPointError,
     "acceleration .* divided by dt². overflows"),
    (lambda: scenes.ramp_accelerations(2.0, [0.1]), ValueError, r"angle must be in \[0, π/2\)"),
    (lambda: scenes.ramp_accelerations(0.2, [-0.1]), ValueError, "frictions must be non-neg"),
    (lambda: scenes.pyramid_quality(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0)),
     ValueError, "start_centers, end_centers, end_angles must hold the same bodies, at "
                 "least one, got lengths \\[0, 0, 0\\]"),
    (lambda: scenes.pyramid_quality(_START, _START[:2], np.zeros(3)), ValueError,
     r"got lengths \[3, 2, 3\]"),
    (lambda: scenes.pyramid_quality(_START, _START, np.zeros(3), top=99), ValueError,
     "top must be at most 2"),
    (lambda: scenes.pyramid_quality(_START, _START, np.zeros(3), top=1.0), TypeError,
     "top must be an integer"),
    (lambda: scenes.pyramid_quality(_START.ravel(), _START, np.zeros(3)), ValueError,
     r"start_centers must have shape \(N, 2\)"),
    (lambda: scenes.pyramid_quality(_START - [1.7e308, 0.0], _START + [1.7e308, 0.0],
                                    np.zeros(3)),
     FloatingPointError, "displacement overflows"),
    (lambda: scenes.structure_quality(_START, _START, np.zeros(3), np.zeros(2)), ValueError,
     "start_angles, end_angles must hold the same bodies"),
    (lambda: scenes.structure_quality(_START, _START, np.zeros(3), np.zeros(3), top=-4),
     ValueError, "top must be at least -3"),
    (lambda: scenes.container_quality(np.zeros(4), 0.5), ValueError,
     r"centers must have shape \(N, 2\)"),
    (lambda: scenes.container_quality(_START, 0.5, half_width=-5), ValueError,
     "half_width must be positive"),
    (lambda: scenes.recovery_quality([0.2, 0.0], [1.0, 1.0], 1e308), FloatingPointError,
     r"time \(steps × dt\) overflows"),
])
def test_bad_input_to_scenes_and_measures_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_measures_accept_negative_top_and_empty_containers():
    quality = scenes.pyramid_quality(_START, _START + [0.1, 0.0], np.zeros(3), top=-3)
    assert quality["top_displacement"] == pytest.approx(0.1)
    assert scenes.container_quality(np.zeros((0, 2)), 0.5) == {
        "escaped": 0, "deepest_penetration": 0.0, "pile_height": 0.0}
    np.testing.assert_allclose(scenes.bounce_apexes(0.5, 0.5, 1.0, 2), [0.5, 0.5])
    # A bracket up to the largest floats works: its halves are added, not its ends.
    assert scenes.per_body_value(1e300, 1e300, mix_restitution, 1.7e308) == 1e300
    def mean(a, b):
        return 0.5 * a + 0.5 * b

    assert scenes.per_body_value(1.65e308, 1.6e308, mean, 1.79e308) == pytest.approx(1.7e308)
