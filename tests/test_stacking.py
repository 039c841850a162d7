"""Chapter 10's criteria through the public API, with the default solver (the soft step).

Each bound is the one the chapter's issue sets (pyramid-20 within 0.02 m, large pyramid
drop within 0.2 m, ramp creep under 2 mm and slide accelerations within 2 %, rain deeper
than 0.01 m nowhere, bounce apexes within 1 %, piles at rest under 0.05 m/s, recovery
within 1 s and under 5 m/s); the oracles are analytic (g(sin θ − μ cos θ), r + (h − r)e²ⁿ,
g/ω² for a soft contact) or the scene's starting state.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb
from physbook.dynamics.materials import Material
from physbook.geometry.shapes import Circle, Polygon

DT = 1.0 / 60.0


def top_displacement(scene, steps=None) -> float:
    top = scene.bodies["boxes"][-1]
    start = top.position.copy()
    scene.run(steps)
    return float(np.linalg.norm(top.position - start))


def dynamic_speeds(world) -> np.ndarray:
    dynamic = world.kinds == pb.DYNAMIC
    return np.linalg.norm(world.velocities[dynamic], axis=1)


def test_default_solver_is_the_soft_step():
    assert isinstance(pb.World().solver, pb.SoftStepSolver)


def test_pyramid_20_stands():
    assert top_displacement(pb.scenes.pyramid(20)) < 0.02


def test_large_pyramid_top_drops_at_most_20_cm():
    scene = pb.scenes.large_pyramid()
    top = scene.bodies["boxes"][-1]
    start = top.position.copy()
    scene.run()
    assert scene.steps == 500 and len(scene.bodies["boxes"]) == 5050
    assert start[1] - top.position[1] <= 0.2
    assert np.isfinite(scene.world.centers).all()


def test_ramp_boxes_stick_or_slide_with_coulombs_acceleration():
    scene = pb.scenes.ramp()
    rows = [box.row for box in scene.bodies["boxes"]]
    recording = scene.run()
    assert recording.times[-1] == pytest.approx(5.0)
    along = recording.centers[:, rows] @ scene.params["direction"]
    slides, accelerations = pb.scenes.ramp_motion(along, scene.dt)
    angle, frictions = scene.params["angle"], np.array(scene.params["frictions"])
    sticks = frictions >= math.tan(angle)
    assert np.array_equal(slides, ~sticks)
    assert np.abs(along[0, sticks] - along[-1, sticks]).max() < 0.002
    expected = pb.scenes.ramp_accelerations(angle, frictions)
    np.testing.assert_allclose(accelerations[~sticks], expected[~sticks], rtol=0.02)


def test_rain_pile_rests_on_the_floor_without_sinking():
    scene = pb.scenes.rain(1000)
    scene.run(600)
    world = scene.world
    dynamic = world.kinds == pb.DYNAMIC
    quality = pb.scenes.container_quality(world.centers[dynamic], scene.params["radius"])
    assert quality["escaped"] == 0
    assert quality["deepest_penetration"] <= 0.01
    assert dynamic_speeds(world).max() < 0.05


def test_box_pile_comes_to_rest():
    scene = pb.scenes.boxes(1000)
    scene.run(600)
    world = scene.world
    dynamic = world.kinds == pb.DYNAMIC
    # A box resting on the floor has its centre at least its half extent above y = 0.
    lowest = world.centers[dynamic, 1].min()
    assert lowest > scene.params["half_extent"] - 0.01
    assert dynamic_speeds(world).max() < 0.05


def test_bounce_apexes_within_one_percent():
    scene = pb.scenes.bounce()
    ball = scene.bodies["ball"]
    heights = scene.run().centers[:, ball.row, 1]
    apexes = pb.scenes.apex_heights(heights, 4)
    analytic = pb.scenes.bounce_apexes(10.0, 0.5, 0.5, 4)
    assert len(apexes) == 4
    np.testing.assert_allclose(apexes, analytic, rtol=0.01)


def test_vertical_stack_of_ten_stands_for_ten_seconds():
    scene = pb.scenes.vertical_stack()
    boxes = scene.bodies["boxes"]
    start_centers = np.array([box.position for box in boxes])
    start_angles = np.array([box.angle for box in boxes])
    scene.run(600)
    quality = pb.scenes.structure_quality(
        start_centers, np.array([box.position for box in boxes]), start_angles,
        np.array([box.angle for box in boxes]), max_displacement=0.05, max_turn=0.05)
    assert len(boxes) == 10 and quality["standing"], quality


def test_high_mass_ratio_pyramids_stand_for_ten_seconds():
    # The heavy tops are dropped from 2 m above their place; the impact may shift the
    # boxes under them, but each pyramid must come to rest standing: every row at its
    # height, no box tilted, the heavy top resting between its two supports.
    scene = pb.scenes.high_mass_ratio()
    scene.run(600)
    assert dynamic_speeds(scene.world).max() < 0.05
    for j in range(3):
        pieces = scene.bodies[f"pyramid_{j}"]
        heavy, light = pieces[-1], pieces[:-1]
        assert heavy.mass / light[0].mass == pytest.approx(scene.params["densities"][j])
        supports = np.array([box.position for box in light[-2:]])
        assert supports[0, 0] < heavy.position[0] < supports[1, 0]
        # Resting, its centre is one box height (2 m) above theirs, less the soft give.
        assert 1.9 < heavy.position[1] - supports[:, 1].mean() <= 2.0 + 1e-9
        for built_height, box in zip(_row_heights(), light, strict=True):
            assert abs(box.position[1] - built_height) < 0.1
        assert max(abs(box.angle) for box in pieces) < 0.1


def _row_heights():
    # The centre heights of the 54 light boxes of a high_mass_ratio pyramid, in order.
    return [1.0 + 2.0 * row for row, count in enumerate(range(10, 1, -1)) for _ in range(count)]


def test_overlapping_pyramid_separates_within_a_second_without_launching():
    scene = pb.scenes.overlap_recovery()
    world = scene.world
    deepest, fastest = [], []
    for _ in range(scene.steps):
        world.step(scene.dt)
        deepest.append(world.contacts.depths.max() if world.contacts.count else 0.0)
        fastest.append(dynamic_speeds(world).max())
    quality = pb.scenes.recovery_quality(deepest, fastest, scene.dt)
    assert quality["separated_after"] is not None and quality["separated_after"] <= 1.0
    assert quality["fastest"] < 5.0


def test_boxes_created_at_one_point_are_not_launched():
    # Known shortfall: 100 coincident boxes do not separate within the scene's 120 steps
    # (the contact normals of coincident boxes all point the same way, so they rise into a
    # tower, a few cm per second). What this asserts is that none is launched.
    scene = pb.scenes.box_cluster()
    world = scene.world
    for _ in range(scene.steps):
        world.step(scene.dt)
        assert dynamic_speeds(world).max() < 10.0


def test_heavy_box_does_not_squeeze_a_light_box_out():
    world = pb.World()
    world.add_body(Polygon.box(5.0, 0.5), position=(0, -0.5), kind="static",
                   material=Material(friction=0.6, restitution=0.0))
    light = world.add_body(Polygon.box(0.5, 0.5), position=(0, 0.5),
                           material=Material(density=1.0, friction=0.6, restitution=0.0))
    heavy = world.add_body(Polygon.box(0.5, 0.5), position=(0, 1.5),
                           material=Material(density=1000.0, friction=0.6, restitution=0.0))
    world.run(120, DT)
    assert abs(light.position[0]) < 0.05
    assert abs(heavy.position[0] - light.position[0]) < 0.5
    assert heavy.position[1] > light.position[1] + 0.5     # still on top of it


@pytest.mark.parametrize("contact_hertz", [5.0, 10.0, 70.0])
def test_resting_circle_sinks_g_over_omega_squared(contact_hertz):
    # A soft contact is a spring of stiffness m·ω²: at rest under gravity it is compressed
    # by g/ω², ω = 2π·f with f the ground's frequency, 2·contact_hertz capped at a quarter
    # of the substep rate. The steady state is exact, so the tolerance is rounding error.
    solver = pb.SoftStepSolver(contact_hertz=contact_hertz)
    world = pb.World(solver=solver)
    world.add_body(Polygon.box(3.0, 0.5), position=(0, -0.5), kind="static")
    ball = world.add_body(Circle(0.5), position=(0, 0.5))
    world.run(600, DT)
    ground_hertz = min(2.0 * contact_hertz, solver.substeps / DT / 4.0)
    expected = 10.0 / (2.0 * math.pi * ground_hertz) ** 2
    assert 0.5 - ball.position[1] == pytest.approx(expected, rel=1e-6)


def test_softness_is_an_implicit_spring_damper_step():
    # One soft impulse must give the velocity of the implicit step
    # v2 = v1 + h·(−ω²(s + h·v2) − 2ζω·v2), solved for v2 by hand.
    mass, separation, v1, h, hertz, zeta = 3.0, -0.02, -1.5, 1 / 240, 25.0, 0.8
    omega = 2 * math.pi * hertz
    v2 = (v1 - h * omega**2 * separation) / (1 + 2 * zeta * omega * h + (h * omega) ** 2)
    soft = pb.dynamics.contact_solver.softness(hertz, zeta, h)
    impulse = -mass * soft.mass_scale * (v1 + soft.bias_rate * separation)
    assert v1 + impulse / mass == pytest.approx(v2, rel=1e-12)
    assert soft.mass_scale + soft.impulse_scale == pytest.approx(1.0, rel=1e-15)
    assert pb.dynamics.contact_solver.softness(0.0, zeta, h) == (0.0, 1.0, 0.0)


def test_springs_are_capped_at_a_quarter_of_the_substep_rate():
    solver = pb.SoftStepSolver(4, contact_hertz=70.0)
    contact, ground = solver.springs(DT)
    cap = 4 / DT / 4.0
    assert cap == pytest.approx(60.0)
    h = DT / 4
    assert contact == pb.dynamics.contact_solver.softness(cap, solver.damping_ratio, h)
    assert ground == pb.dynamics.contact_solver.softness(cap, solver.damping_ratio, h)
    contact, ground = pb.SoftStepSolver(8, contact_hertz=20.0, static_hertz=30.0).springs(DT)
    assert contact == pb.dynamics.contact_solver.softness(20.0, 10.0, DT / 8)
    assert ground == pb.dynamics.contact_solver.softness(30.0, 10.0, DT / 8)


# --- the ingredients the chapter switches off one by one ------------------------------


def test_sequential_impulses_need_warm_starting_to_stack():
    warm = top_displacement(pb.scenes.pyramid(20, pb.World(solver="sequential_impulses")))
    cold = top_displacement(pb.scenes.pyramid(
        20, pb.World(solver=pb.SequentialImpulseSolver(warm_starting=False))))
    assert warm < 0.05 and cold > 1.0


def test_chapter_9_solver_cannot_stack():
    # The failure chapter 10 starts from.
    assert top_displacement(pb.scenes.pyramid(20, pb.World(solver="impulse"))) > 1.0


def test_warm_starting_needs_the_total_clamped():
    # Warm started increments can only grow: nothing takes an impulse back.
    solver = pb.SequentialImpulseSolver(accumulate=False)
    assert top_displacement(pb.scenes.pyramid(20, pb.World(solver=solver))) > 1.0


def test_chain_needs_passes_growing_with_its_length():
    # One step of a resting column from rest, no warm start: the floor's impulse reaches
    # the column's weight m·g·Δt only after many passes (Gauss–Seidel on a chain).
    def floor_share(count, iterations):
        world = pb.World(solver=pb.SequentialImpulseSolver(
            iterations, warm_starting=False, position_correction="none"))
        world.add_body(Polygon.box(1.5, 0.5), position=(0, -0.5), kind="static")
        boxes = [world.add_body(Polygon.box(0.5, 0.5), position=(0, 0.5 + i))
                 for i in range(count)]
        world.step(DT)
        floor = [row for row, ids in enumerate(world.contacts.shape_ids) if 0 in ids]
        return world.contacts.normal_impulses[floor].sum() / (
            sum(box.mass for box in boxes) * 10.0 * DT)

    assert floor_share(1, 10) == pytest.approx(1.0, abs=1e-3)  # one box: a few passes
    assert floor_share(10, 10) < 0.35
    assert floor_share(10, 1000) == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("correction", ["nonlinear", "baumgarte", "projection", "none"])
def test_every_position_correction_runs_the_pyramid(correction):
    solver = pb.SequentialImpulseSolver(position_correction=correction)
    scene = pb.scenes.pyramid(10, pb.World(solver=solver))
    scene.run(120)
    assert np.isfinite(scene.world.centers).all()


def test_baumgarte_launches_overlapping_boxes_and_the_position_pass_does_not():
    def fastest(solver):
        scene = pb.scenes.overlap_recovery(world=pb.World(solver=solver))
        return np.linalg.norm(scene.run().velocities, axis=2).max()

    assert fastest(pb.SequentialImpulseSolver(position_correction="baumgarte")) > 5.0
    assert fastest(pb.SequentialImpulseSolver()) < 0.1


# --- settings ----------------------------------------------------------------------------


@pytest.mark.parametrize("make, name, error", [
    (lambda: pb.SoftStepSolver(0), "substeps", ValueError),
    (lambda: pb.SoftStepSolver(2.5), "substeps", TypeError),
    (lambda: pb.SoftStepSolver(True), "substeps", TypeError),
    (lambda: pb.SoftStepSolver(relax_iterations=-1), "relax_iterations", ValueError),
    (lambda: pb.SoftStepSolver(contact_hertz=0.0), "contact_hertz", ValueError),
    (lambda: pb.SoftStepSolver(contact_hertz=math.nan), "contact_hertz", ValueError),
    (lambda: pb.SoftStepSolver(damping_ratio=-1.0), "damping_ratio", ValueError),
    (lambda: pb.SoftStepSolver(static_hertz=-5.0), "static_hertz", ValueError),
    (lambda: pb.SoftStepSolver(push_out_speed=0.0), "push_out_speed", ValueError),
    (lambda: pb.SoftStepSolver(warm_starting="yes"), "warm_starting", TypeError),
    (lambda: pb.SoftStepSolver(speculative_distance=-0.1), "speculative_distance",
     ValueError),
    (lambda: pb.SoftStepSolver(restitution_threshold=math.inf), "restitution_threshold",
     ValueError),
    (lambda: pb.SequentialImpulseSolver(0), "iterations", ValueError),
    (lambda: pb.SequentialImpulseSolver(accumulate=1), "accumulate", TypeError),
    (lambda: pb.SequentialImpulseSolver(position_correction="sideways"),
     "position_correction", ValueError),
    (lambda: pb.SequentialImpulseSolver(correction=1.5), "correction", ValueError),
    (lambda: pb.SequentialImpulseSolver(position_iterations=-1), "position_iterations",
     ValueError),
    (lambda: pb.SequentialImpulseSolver(max_correction=0.0), "max_correction", ValueError),
])
def test_bad_settings_name_the_argument(make, name, error):
    with pytest.raises(error, match=name):
        make()


def test_repr_shows_every_setting():
    solver = pb.SoftStepSolver(6, relax_iterations=2, contact_hertz=40.0, damping_ratio=5.0,
                               static_hertz=90.0, push_out_speed=2.0, warm_starting=False,
                               speculative_distance=0.03, restitution_threshold=0.5)
    text = repr(solver)
    for setting in ("substeps=6", "relax_iterations=2", "contact_hertz=40",
                    "damping_ratio=5", "static_hertz=90", "push_out_speed=2",
                    "warm_starting=False", "speculative_distance=0.03",
                    "restitution_threshold=0.5"):
        assert setting in text, text
    text = repr(pb.SequentialImpulseSolver(7, accumulate=False, warm_starting=False,
                                           position_correction="baumgarte", correction=0.3,
                                           slop=0.02, position_iterations=4,
                                           max_correction=0.1))
    for setting in ("iterations=7", "accumulate=False", "warm_starting=False",
                    "position_correction='baumgarte'", "correction=0.3", "slop=0.02",
                    "position_iterations=4", "max_correction=0.1"):
        assert setting in text, text


def test_every_solver_name_builds_a_world_and_unknown_names_list_them():
    for name in pb.SOLVERS:
        world = pb.World(solver=name)
        assert isinstance(world.solver, pb.SOLVERS[name])
    with pytest.raises(ValueError, match="soft_step"):
        pb.World(solver="nope")
