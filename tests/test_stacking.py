"""Chapter 10's criteria through the public API, with the default solver (the soft step).

Each bound is the one the chapter's criteria set (pyramid-20 within 0.02 m, large pyramid
drop within 0.2 m, ramp creep under 2 mm and slide accelerations within 2 %, rain deeper
than 0.01 m nowhere, bounce apexes within 1 %, piles at rest under 0.05 m/s, structures
within 0.1 m and 0.1 rad, recovery within 1 s and under 5 m/s); the oracles are analytic
(g(sin θ − μ cos θ), r + (h − r)e²ⁿ, g/ω² for a soft contact) or the scene's starting state.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import physbook as pb

DT = 1.0 / 60.0
GRAVITY = 10.0  # every scene's |g| (m/s²)


def top_displacement(scene, steps=None) -> float:
    """Run ``scene`` and return how far its last box (the top of a pyramid) moved (m)."""
    top = scene.bodies["boxes"][-1]
    start = top.position.copy()
    scene.run(steps)
    return float(np.linalg.norm(top.position - start))


def dynamic_speeds(world) -> np.ndarray:
    dynamic = world.bodies.kinds == pb.DYNAMIC
    return np.linalg.norm(world.bodies.velocities[dynamic], axis=1)


def states(bodies):
    return (np.array([body.position for body in bodies]),
            np.array([body.angle for body in bodies]))


def test_default_solver_is_the_soft_step():
    assert isinstance(pb.World().solver, pb.SoftStepSolver)


# --- criteria 1–11: the default solver ---------------------------------------------------


def test_pyramid_20_stands():
    # Criterion 1: the top box stays within 0.02 m of its start over 600 steps at 60 Hz.
    scene = pb.scenes.pyramid(20)
    assert scene.steps == 600 and scene.dt == pytest.approx(DT)
    assert top_displacement(scene) < 0.02


def test_large_pyramid_top_drops_at_most_20_cm():
    # Criterion 2: 5050 boxes, 500 steps, the top box sinks at most 0.2 m.
    scene = pb.scenes.large_pyramid()
    top = scene.bodies["boxes"][-1]
    start = top.position.copy()
    scene.run()
    assert scene.steps == 500 and len(scene.bodies["boxes"]) == 5050
    assert start[1] - top.position[1] <= 0.2
    assert np.isfinite(scene.world.bodies.centers).all()


def test_ramp_boxes_stick_or_slide_with_coulombs_acceleration():
    # Criterion 3: over 5 s a box with μ ≥ tan θ moves less than 2 mm (at any frame);
    # a box with μ < tan θ accelerates at g(sin θ − μ cos θ) within 2 %.
    scene = pb.scenes.ramp()
    rows = [box.row for box in scene.bodies["boxes"]]
    recording = scene.run()
    assert recording.times[-1] == pytest.approx(5.0)
    centers = recording.centers[:, rows]
    angle, frictions = scene.params["angle"], np.array(scene.params["frictions"])
    sticks = frictions >= math.tan(angle)
    assert sticks.any() and (~sticks).any()
    moved = np.linalg.norm(centers - centers[0], axis=2).max(axis=0)
    assert moved[sticks].max() < 0.002
    along = centers @ scene.params["direction"]
    slides, accelerations = pb.scenes.ramp_motion(along, scene.dt)
    assert np.array_equal(slides, ~sticks)
    coulomb = GRAVITY * (math.sin(angle) - frictions * math.cos(angle))
    np.testing.assert_allclose(accelerations[~sticks], coulomb[~sticks], rtol=0.02)


def test_rain_pile_rests_on_the_floor_without_sinking():
    # Criterion 4: after 600 steps no circle is deeper than 0.01 m into the floor (top
    # y = 0) and no body moves faster than 0.05 m/s.
    scene = pb.scenes.rain(1000)
    scene.run(600)
    world = scene.world
    circles = [circle.row for circle in scene.bodies["circles"]]
    radius = scene.params["radius"]
    deepest = radius - world.bodies.centers[circles, 1].min()
    assert deepest <= 0.01
    quality = pb.scenes.container_quality(world.bodies.centers[circles], radius)
    assert quality["escaped"] == 0
    assert dynamic_speeds(world).max() < 0.05


def test_box_pile_comes_to_rest():
    # Criterion 5: after 600 steps no box moves faster than 0.05 m/s; and no box corner is
    # deeper than criterion 4's 0.01 m into the floor (top y = 0). The lowest corner of a
    # square of half extent h turned by θ is h(|cos θ| + |sin θ|) below its centre.
    scene = pb.scenes.boxes(1000)
    scene.run(600)
    world = scene.world
    centers, angles = states(scene.bodies["boxes"])
    half = scene.params["half_extent"]
    lowest = centers[:, 1] - half * (np.abs(np.cos(angles)) + np.abs(np.sin(angles)))
    assert -lowest.min() <= 0.01
    assert dynamic_speeds(world).max() < 0.05


def test_bounce_apexes_within_one_percent():
    # Criterion 6: the first four apexes (height recorded every step) within 1 % of
    # r + (h − r)·e^(2n).
    scene = pb.scenes.bounce()
    ball = scene.bodies["ball"]
    recording = scene.run()
    assert len(recording) == scene.steps + 1      # a height for every step
    heights = recording.centers[:, ball.row, 1]
    apexes = pb.scenes.apex_heights(heights, 4)
    height, radius, e = (scene.params[key] for key in ("height", "radius", "restitution"))
    analytic = radius + (height - radius) * e ** (2 * np.arange(1, 5))
    assert len(apexes) == 4
    np.testing.assert_allclose(apexes, analytic, rtol=0.01)


def test_vertical_stack_of_ten_stands_for_ten_seconds():
    # Criterion 7: after 600 steps no box moved 0.1 m or turned 0.1 rad.
    scene = pb.scenes.vertical_stack()
    boxes = scene.bodies["boxes"]
    start_centers, start_angles = states(boxes)
    scene.run(600)
    end_centers, end_angles = states(boxes)
    quality = pb.scenes.structure_quality(start_centers, end_centers, start_angles,
                                          end_angles, max_displacement=0.1, max_turn=0.1)
    assert len(boxes) == 10 and quality["standing"], quality


@pytest.fixture(scope="module")
def mass_ratio_run():
    """The high-mass-ratio scene after 600 steps, with its pieces' starting states."""
    scene = pb.scenes.high_mass_ratio()
    starts = {j: states(scene.bodies[f"pyramid_{j}"]) for j in range(3)}
    scene.run(600)
    return scene, starts


def _row_heights():
    # The centre heights of the 54 light boxes of a high_mass_ratio pyramid, in order.
    return [1.0 + 2.0 * row for row, count in enumerate(range(10, 1, -1)) for _ in range(count)]


def test_high_mass_ratio_pyramids_keep_their_rows(mass_ratio_run):
    # Criterion 7 in its weaker form, which holds: nothing collapses. The heavy tops are
    # dropped from 2 m above their place; each pyramid must come to rest (0.05 m/s, as
    # criteria 4–5) with every light box within 0.1 m of its row's height and turned less
    # than 0.1 rad, and the heavy top resting on its two supports, its centre a box height
    # (2 m) above theirs within 0.1 m. A box falling out of a row drops by 2 m.
    scene, _ = mass_ratio_run
    assert dynamic_speeds(scene.world).max() < 0.05
    for j in range(3):
        pieces = scene.bodies[f"pyramid_{j}"]
        heavy, light = pieces[-1], pieces[:-1]
        assert heavy.mass / light[0].mass == pytest.approx(scene.params["densities"][j])
        supports = np.array([box.position for box in light[-2:]])
        assert supports[0, 0] < heavy.position[0] < supports[1, 0]
        assert abs(heavy.position[1] - supports[:, 1].mean() - 2.0) < 0.1
        for built_height, box in zip(_row_heights(), light, strict=True):
            assert abs(box.position[1] - built_height) < 0.1
        assert max(abs(box.angle) for box in pieces) < 0.1


# Measured (soft step in colours, 600 steps): the heavy tops' impacts move a light box by
# up to 0.250, 0.420 and 0.278 m, and the heavy tops end 0.048, 0.095 and 0.067 m from
# their resting place. Solved in row order, the ground's contacts first, the upper rows of
# pyramids 0 and 1 slid 0.67 and 0.60 m: the colours, which solve the contacts with the
# ground last in a pass, are what lets all three meet criterion 7 in full.
@pytest.mark.parametrize("j", range(3))
def test_high_mass_ratio_pyramid_meets_structure_quality(mass_ratio_run, j):
    # Criterion 7 in full: structure_quality's default "standing" (no piece moved over
    # 0.5 m or turned over 0.2 rad) against the built pyramid, and the heavy top within
    # 0.1 m of its resting place, which is its start less the 2 m it is dropped from.
    scene, starts = mass_ratio_run
    start_centers, start_angles = starts[j]
    resting = start_centers.copy()
    resting[-1, 1] -= 2.0
    end_centers, end_angles = states(scene.bodies[f"pyramid_{j}"])
    quality = pb.scenes.structure_quality(resting, end_centers, start_angles, end_angles)
    assert quality["standing"], quality
    assert quality["top_displacement"] < 0.1, quality


def test_overlapping_pyramid_separates_within_a_second_without_launching():
    # Criterion 8: every contact depth ≤ 0.01 m within 1 s (and it stays so for the rest of
    # the 2 s run), no body faster than 5 m/s at any step. The contact table after a step
    # holds the depths found at its start, so the time measured is one step late: the
    # check is, if anything, stricter.
    scene = pb.scenes.overlap_recovery()
    world = scene.world
    deepest, fastest = [], []
    for _ in range(scene.steps):
        world.step(scene.dt)
        deepest.append(world.contacts.depths.max() if world.contacts.count else 0.0)
        fastest.append(dynamic_speeds(world).max())
    assert deepest[0] > 0.2, "the scene starts overlapping by 0.25 m"
    quality = pb.scenes.recovery_quality(deepest, fastest, scene.dt)
    assert quality["separated_after"] is not None and quality["separated_after"] <= 1.0
    apart = round(quality["separated_after"] / scene.dt)
    assert max(deepest[apart - 1:]) <= 0.01
    assert quality["fastest"] < 5.0


def test_boxes_created_at_one_point_are_not_launched():
    # Criterion 9: no box faster than 10 m/s at any of the 120 steps.
    # Known shortfall, deliberately not asserted: 100 coincident boxes do not separate
    # within the scene's 120 steps (the contact normals of coincident boxes all point the
    # same way, so they rise into a tower, a few cm per second, which topples after ~8 s).
    scene = pb.scenes.box_cluster()
    world = scene.world
    assert scene.steps == 120 and len(scene.bodies["boxes"]) == 100
    for _ in range(scene.steps):
        world.step(scene.dt)
        assert dynamic_speeds(world).max() < 10.0


def test_heavy_box_does_not_squeeze_a_light_box_out():
    # Criterion 10: a unit box 1000× denser on a light one, 2 s: the light box moves less
    # than 0.05 m sideways and stays under the heavy one (|Δx| < 0.5, half a box).
    world = pb.World()
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0, -0.5), kind="static",
                   material=pb.Material(friction=0.6, restitution=0.0))
    light = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 0.5),
                           material=pb.Material(density=1.0, friction=0.6, restitution=0.0))
    heavy = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 1.5),
                           material=pb.Material(density=1000.0, friction=0.6,
                                                restitution=0.0))
    world.run(120, DT)
    assert heavy.mass / light.mass == pytest.approx(1000.0)
    assert abs(light.position[0]) < 0.05
    assert abs(heavy.position[0] - light.position[0]) < 0.5
    assert heavy.position[1] > light.position[1] + 0.5     # still on top of it


@pytest.mark.parametrize("contact_hertz", [5.0, 10.0, 20.0, 70.0])
def test_resting_circle_sinks_g_over_omega_squared(contact_hertz):
    # Criterion 11: a soft contact is a spring of stiffness m·ω²; at rest under gravity it
    # is compressed by g/ω², ω = 2π·f, f the ground's frequency: 2·contact_hertz capped at
    # a quarter of the substep rate substeps/dt (70 Hz hits the cap, 120 Hz).
    # Tolerance: the spring is overdamped (ζ = 10); its slow mode decays at
    # ω(ζ − √(ζ² − 1)) ≈ ω/(2ζ) ≥ 3.1 /s for the softest (10 Hz) ground, so after 10 s
    # what is left of the 2.5 mm start error is e^(−31) of it; the steady state itself is
    # exact, so 1e-6 leaves room for rounding only (the four cases differ by factors ≥ 2).
    solver = pb.SoftStepSolver(contact_hertz=contact_hertz)
    # Sleep would stop the ball while it still creeps towards the steady state.
    world = pb.World(solver=solver, sleeping=False)
    world.add_body(pb.Polygon.box(3.0, 0.5), position=(0, -0.5), kind="static")
    ball = world.add_body(pb.Circle(0.5), position=(0, 0.5))
    world.run(600, DT)
    ground_hertz = min(2.0 * contact_hertz, solver.substeps / DT / 4.0)
    expected = GRAVITY / (2.0 * math.pi * ground_hertz) ** 2
    assert 0.5 - ball.position[1] == pytest.approx(expected, rel=1e-6)
    assert abs(ball.velocity[1]) < 1e-9


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


# --- criterion 12: the ingredients the chapter switches off one by one -------------------


def test_sequential_impulses_need_warm_starting_to_stack():
    # Warm started, sequential impulses hold pyramid-20 within 0.05 m (criterion 12);
    # without warm starting the top moves more, beyond that same bound.
    warm = top_displacement(pb.scenes.pyramid(20, pb.World(solver="sequential_impulses")))
    cold = top_displacement(pb.scenes.pyramid(
        20, pb.World(solver=pb.SequentialImpulseSolver(warm_starting=False))))
    assert warm < 0.05
    assert cold > warm and cold > 0.05


def test_chapter_9_solver_cannot_stack():
    # The failure chapter 10 starts from: pyramid-20's top moves more than 1 m.
    assert top_displacement(pb.scenes.pyramid(20, pb.World(solver="impulse"))) > 1.0


def test_warm_starting_needs_the_total_clamped():
    # Warm started increments can only grow: nothing takes an impulse back. The pyramid
    # collapses as chapter 9's does (top moves over 1 m, criterion 12's bound).
    solver = pb.SequentialImpulseSolver(accumulate=False)
    assert top_displacement(pb.scenes.pyramid(20, pb.World(solver=solver))) > 1.0


def test_chain_needs_passes_growing_with_its_length():
    # One step of a resting column from rest, no warm start: the floor's impulse reaches
    # the column's weight m·g·Δt only after many passes (Gauss–Seidel on a chain).
    def floor_share(count, iterations):
        world = pb.World(solver=pb.SequentialImpulseSolver(
            iterations, warm_starting=False, position_correction="none"))
        world.add_body(pb.Polygon.box(1.5, 0.5), position=(0, -0.5), kind="static")
        boxes = [world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 0.5 + i))
                 for i in range(count)]
        world.step(DT)
        floor = [row for row, ids in enumerate(world.contacts.shape_ids) if 0 in ids]
        return world.contacts.normal_impulses[floor].sum() / (
            sum(box.mass for box in boxes) * GRAVITY * DT)

    assert floor_share(1, 10) == pytest.approx(1.0, abs=1e-3)  # one box: a few passes
    assert floor_share(10, 1000) == pytest.approx(1.0, abs=1e-3)
    # Ten passes carry less than half the weight of ten boxes down (measured 0.30).
    assert floor_share(10, 10) < 0.5


@pytest.mark.parametrize("correction", ["nonlinear", "baumgarte", "projection", "none"])
def test_every_position_correction_runs_pyramid_20(correction):
    solver = pb.SequentialImpulseSolver(position_correction=correction)
    scene = pb.scenes.pyramid(20, pb.World(solver=solver))
    recording = scene.run()
    assert len(recording) == 601
    assert np.isfinite(recording.centers).all() and np.isfinite(recording.velocities).all()
    assert np.isfinite(recording.angles).all()


def test_baumgarte_launches_overlapping_boxes_and_the_position_pass_does_not():
    # Criterion 8's launch speed, 5 m/s: Baumgarte's bias turns overlap into velocity.
    def fastest(solver):
        scene = pb.scenes.overlap_recovery(world=pb.World(solver=solver))
        return np.linalg.norm(scene.run().velocities, axis=2).max()

    assert fastest(pb.SequentialImpulseSolver(position_correction="baumgarte")) > 5.0
    assert fastest(pb.SequentialImpulseSolver()) < 5.0


@pytest.mark.parametrize("solver", sorted(pb.SOLVERS))
def test_resting_box_stores_its_weight_per_step(solver):
    # Every solver stores per-step impulses (N·s): a box at rest on the ground gets m·g·Δt
    # from it each step. Tolerance: chapter 9's solver restarts from zero every step and
    # ends its 10 passes with a Gauss–Seidel residual (measured 2e-7).
    world = pb.World(solver=solver)
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    box = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0.0, 0.5))
    world.run(120, DT)
    assert world.contacts.count == 1
    weight = box.mass * GRAVITY * DT
    assert world.contacts.normal_impulses.sum() == pytest.approx(weight, rel=1e-6)


# --- criterion 13: settings --------------------------------------------------------------


@pytest.mark.parametrize("make, name, error", [
    (lambda: pb.SoftStepSolver(0), "substeps", ValueError),
    (lambda: pb.SoftStepSolver(-2), "substeps", ValueError),
    (lambda: pb.SoftStepSolver(2.5), "substeps", TypeError),
    (lambda: pb.SoftStepSolver(True), "substeps", TypeError),
    (lambda: pb.SoftStepSolver(relax_iterations=-1), "relax_iterations", ValueError),
    (lambda: pb.SoftStepSolver(relax_iterations=1.5), "relax_iterations", TypeError),
    (lambda: pb.SoftStepSolver(contact_hertz=0.0), "contact_hertz", ValueError),
    (lambda: pb.SoftStepSolver(contact_hertz=-10.0), "contact_hertz", ValueError),
    (lambda: pb.SoftStepSolver(contact_hertz=math.nan), "contact_hertz", ValueError),
    (lambda: pb.SoftStepSolver(contact_hertz=True), "contact_hertz", TypeError),
    (lambda: pb.SoftStepSolver(damping_ratio=-1.0), "damping_ratio", ValueError),
    (lambda: pb.SoftStepSolver(damping_ratio=math.nan), "damping_ratio", ValueError),
    (lambda: pb.SoftStepSolver(static_hertz=-5.0), "static_hertz", ValueError),
    (lambda: pb.SoftStepSolver(static_hertz=math.nan), "static_hertz", ValueError),
    (lambda: pb.SoftStepSolver(push_out_speed=0.0), "push_out_speed", ValueError),
    (lambda: pb.SoftStepSolver(warm_starting="yes"), "warm_starting", TypeError),
    (lambda: pb.SoftStepSolver(speculative_distance=-0.1), "speculative_distance",
     ValueError),
    (lambda: pb.SoftStepSolver(restitution_threshold=math.inf), "restitution_threshold",
     ValueError),
    (lambda: pb.SequentialImpulseSolver(0), "iterations", ValueError),
    (lambda: pb.SequentialImpulseSolver(-3), "iterations", ValueError),
    (lambda: pb.SequentialImpulseSolver(2.5), "iterations", TypeError),
    (lambda: pb.SequentialImpulseSolver(True), "iterations", TypeError),
    (lambda: pb.SequentialImpulseSolver(accumulate=1), "accumulate", TypeError),
    (lambda: pb.SequentialImpulseSolver(warm_starting=0), "warm_starting", TypeError),
    (lambda: pb.SequentialImpulseSolver(position_correction="sideways"),
     "position_correction", ValueError),
    (lambda: pb.SequentialImpulseSolver(position_correction=None),
     "position_correction", TypeError),
    (lambda: pb.SequentialImpulseSolver(correction=1.5), "correction", ValueError),
    (lambda: pb.SequentialImpulseSolver(correction=math.nan), "correction", ValueError),
    (lambda: pb.SequentialImpulseSolver(slop=-0.01), "slop", ValueError),
    (lambda: pb.SequentialImpulseSolver(position_iterations=-1), "position_iterations",
     ValueError),
    (lambda: pb.SequentialImpulseSolver(max_correction=0.0), "max_correction", ValueError),
    (lambda: pb.SequentialImpulseSolver(max_correction=True), "max_correction", TypeError),
    (lambda: pb.SequentialImpulseSolver(restitution_threshold=-1.0),
     "restitution_threshold", ValueError),
    # ImpulseSolver's zero and fractional iterations, correction_fraction > 1, negative slop
    # and NaN threshold are in test_solver.py's test_solver_settings_are_validated.
    (lambda: pb.ImpulseSolver(-1), "iterations", ValueError),
    (lambda: pb.ImpulseSolver(True), "iterations", TypeError),
    (lambda: pb.ImpulseSolver(correction_fraction=-0.1), "correction_fraction", ValueError),
    (lambda: pb.ImpulseSolver(correction_fraction=math.nan), "correction_fraction",
     ValueError),
    (lambda: pb.ImpulseSolver(slop=math.nan), "slop", ValueError),
    (lambda: pb.ImpulseSolver(restitution_threshold=-1.0), "restitution_threshold",
     ValueError),
])
def test_bad_settings_name_the_argument(make, name, error):
    with pytest.raises(error, match=name):
        make()


def _assert_repr_shows(solver, settings):
    # Every constructor parameter appears by name, and the given ones with their value.
    text = repr(solver)
    for parameter in inspect.signature(type(solver)).parameters:
        assert f"{parameter}=" in text, (parameter, text)
    for setting in settings:
        assert setting in text, (setting, text)


def test_repr_shows_every_setting():
    _assert_repr_shows(
        pb.SoftStepSolver(6, relax_iterations=2, contact_hertz=40.0, damping_ratio=5.0,
                          static_hertz=90.0, push_out_speed=2.0, warm_starting=False,
                          speculative_distance=0.03, restitution_threshold=0.5),
        ("substeps=6", "relax_iterations=2", "contact_hertz=40", "damping_ratio=5",
         "static_hertz=90", "push_out_speed=2", "warm_starting=False",
         "speculative_distance=0.03", "restitution_threshold=0.5"))
    _assert_repr_shows(
        pb.SequentialImpulseSolver(7, accumulate=False, warm_starting=False,
                                   position_correction="baumgarte", correction=0.3,
                                   slop=0.02, position_iterations=4, max_correction=0.1,
                                   restitution_threshold=0.6),
        ("iterations=7", "accumulate=False", "warm_starting=False",
         "position_correction='baumgarte'", "correction=0.3", "slop=0.02",
         "position_iterations=4", "max_correction=0.1", "restitution_threshold=0.6"))
    _assert_repr_shows(
        pb.ImpulseSolver(3, correction_fraction=0.25, slop=0.04, restitution_threshold=0.7),
        ("iterations=3", "correction_fraction=0.25", "slop=0.04",
         "restitution_threshold=0.7"))


def test_every_solver_name_builds_a_world_and_unknown_names_list_them():
    for name in pb.SOLVERS:
        world = pb.World(solver=name)
        assert isinstance(world.solver, pb.SOLVERS[name])
    with pytest.raises(ValueError, match="solver") as raised:
        pb.World(solver="nope")
    for name in pb.SOLVERS:
        assert name in str(raised.value)
