"""Box2D v3's benchmark scenes (benchmarks/box2d_benchmarks.py) built in physbook, Box2D v3
and pymunk (benchmarks/benchmark_engines.py): each engine, read through its own API, holds
the bodies, mass and joints the description gives, where it gives them; and each quality
function gives the known answer on a state made by hand. Nothing is timed or stepped."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tool_scripts import ROOT, load_script

scenes = load_script(ROOT / "benchmarks" / "box2d_benchmarks.py", "box2d_benchmarks")
engines = load_script(ROOT / "benchmarks" / "benchmark_engines.py", "benchmark_engines")
pytest.importorskip("pymunk")
pytest.importorskip("pyb2d3")

# Every scene at a size that builds in milliseconds, with every kind of body, shape and
# joint the full scene has.
SMALL = {
    "large_pyramid": {"base": 5},
    "many_pyramids": {"rows": 2, "columns": 3, "base": 3},
    "joint_grid": {"n": 8},
    "tumbler": {"grid": 4},
    "washer": {"grid": 5},
    "smash": {"columns": 4, "rows": 3},
    "spinner": {"count": 9},
    "rain": {"rows": 2, "columns": 3, "group_size": 2, "grid_count": 10, "steps": 40},
}
# The places of the rain's ragdolls filled before reading the engines: place 0 twice, so
# that its first group is destroyed and made again.
FILLS = (0, 4, 0)
# Box2D stores masses and positions as 32-bit floats: each is within a few units of
# 2⁻²⁴ ≈ 6e-8 of its value (relative), and a sum of such masses is too. 1e-6 is 16 of them.
FLOAT32_RELATIVE = 1e-6


def small(name):
    return scenes.SCENES[name](**SMALL[name])


def described(scene):
    """The bodies and joints of a small scene as the engines list them: its own, then the
    groups of the places :data:`FILLS` fills, in the order of places."""
    bodies, joints = list(scene.bodies), list(scene.joints)
    if scene.group is not None:
        for place in sorted(set(FILLS)):
            group_bodies, group_joints = scene.group(place)
            joints += [scenes.replace_indices(joint, len(bodies)) for joint in group_joints]
            bodies += group_bodies
    return bodies, joints


@pytest.fixture(scope="module", params=list(SMALL))
def built(request):
    """(scene, its bodies and joints, {engine: built scene}) for one scene at its small
    size, its places filled."""
    scene = small(request.param)
    worlds = {engine: build(scene) for engine, build in engines.BUILDERS.items()}
    if scene.group is not None:
        for world in worlds.values():
            for place in FILLS:
                world.fill(place)
    return scene, *described(scene), worlds


def box2d_rounded_area(shape) -> float:
    """Box2D's area of a rounded polygon: it pushes each vertex out by 1.412·r along the
    bisector of its two edges' normals (b2ComputePolygonMass), and takes that polygon's."""
    vertices = np.asarray(shape.points, dtype=float)
    edges = np.roll(vertices, -1, axis=0) - vertices
    normals = np.column_stack([edges[:, 1], -edges[:, 0]])
    normals /= np.hypot(*normals.T)[:, None]
    bisectors = normals + np.roll(normals, 1, axis=0)    # edge i − 1 and edge i at vertex i
    bisectors /= np.hypot(*bisectors.T)[:, None]
    pushed = vertices + 1.412 * shape.radius * bisectors
    x, y = pushed.T
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def test_the_full_scenes_have_box2d_counts():
    # benchmarks.c (release build): a pyramid of base 100; 20 × 20 pyramids of base 10;
    # a 100 × 100 grid, 7 of them static, 2·100·99 joints less the 6 between static ones;
    # 45² tumbler boxes; 90² washer boxes; 120 × 80 smash boxes; 2 · 3038 spinner bodies.
    def dynamic(scene):
        return sum(body.kind == "dynamic" for body in scene.bodies)

    assert dynamic(scenes.large_pyramid()) == 5050
    assert dynamic(scenes.many_pyramids()) == 400 * 55
    grid = scenes.joint_grid()
    assert dynamic(grid) == 100 * 100 - 7 and len(grid.joints) == 2 * 100 * 99 - 6
    assert dynamic(scenes.tumbler()) == 45 * 45 + 1
    assert dynamic(scenes.washer()) == 90 * 90
    assert dynamic(scenes.smash()) == 120 * 80 + 1
    assert dynamic(scenes.spinner()) == 2 * 3038 + 1
    steps = {name: make().steps for name, make in scenes.SCENES.items()}
    assert steps == {"large_pyramid": 500, "many_pyramids": 200, "joint_grid": 500,
                     "tumbler": 750, "washer": 500, "smash": 300, "spinner": 500,
                     "rain": 1000}
    # The rain: 5 floors × 40 columns of places, each a group of 5 ragdolls of 11 bones
    # and 10 joints; a column every 8 steps from step 0, then the oldest again.
    rain = scenes.rain()
    bones, pins = rain.group(0)
    assert len(bones) == 5 * 11 and len(pins) == 5 * 10
    assert rain.schedule(0) == [0, 40, 80, 120, 160] and rain.schedule(1) == []
    assert rain.schedule(8) == [1, 41, 81, 121, 161]
    assert rain.schedule(8 * 40) == rain.schedule(0)
    assert len(set().union(*(rain.schedule(k) for k in range(rain.steps)))) == 200


def test_every_engine_holds_the_described_bodies_and_joints(built):
    scene, bodies, joints, worlds = built
    counts = {engine: len(world.masses()) for engine, world in worlds.items()}
    assert set(counts.values()) == {len(bodies)}
    held = {engine: world.joint_count() for engine, world in worlds.items()}
    assert set(held.values()) == {len(joints)}
    moving = np.array([body.kind == "dynamic" for body in bodies])
    for engine, world in worlds.items():
        masses = world.masses()
        assert np.all(masses[moving] > 0.0) and np.all(masses[~moving] == 0.0), engine


def test_every_engine_has_physbook_total_mass(built):
    import physbook as pb

    scene, bodies, joints, worlds = built
    ours = worlds["physbook"].masses()
    assert worlds["pymunk"].masses().sum() == pytest.approx(ours.sum(), rel=1e-9)
    # Box2D's rounded polygons (the spinner's bar, the ragdolls' feet) weigh what Box2D's
    # own approximation of their area gives; every other shape weighs physbook's.
    expected = ours.copy()
    for index, body in enumerate(bodies):
        for shape in body.shapes:
            if shape.kind == "polygon" and shape.radius > 0.0 and body.kind == "dynamic":
                exact = pb.Polygon(shape.points, radius=shape.radius).area()
                expected[index] += shape.density * (box2d_rounded_area(shape) - exact)
    theirs = worlds["box2d3"].masses()
    assert theirs == pytest.approx(expected, rel=FLOAT32_RELATIVE)
    assert theirs.sum() == pytest.approx(expected.sum(), rel=FLOAT32_RELATIVE)


def test_every_engine_starts_with_the_bodies_where_described(built):
    scene, bodies, joints, worlds = built
    origins = np.array([body.position for body in bodies], dtype=float)
    angles = np.array([body.angle for body in bodies], dtype=float)
    span = np.max(np.abs(origins)) + 1.0
    for engine, world in worlds.items():
        where, turned = world.state()
        tolerance = FLOAT32_RELATIVE * span if engine == "box2d3" else 1e-12 * span
        assert where.min(axis=0) == pytest.approx(origins.min(axis=0), abs=tolerance), engine
        assert where.max(axis=0) == pytest.approx(origins.max(axis=0), abs=tolerance), engine
        assert np.max(np.abs(where - origins)) <= tolerance, engine
        assert np.max(np.abs(turned - angles)) <= 1e-6, engine


def test_every_quality_is_zero_at_the_start():
    for name in SMALL:
        scene = small(name)
        bodies, _ = described(scene)
        start = (np.array([body.position for body in bodies], dtype=float),
                 np.array([body.angle for body in bodies], dtype=float))
        for key, value in scene.quality(*start).items():
            expected = scene.bodies[0].position[0] if key == "hammer_x_m" else 0
            # The ragdolls' pins are sums of decimal heights: equal to rounding.
            assert value == pytest.approx(expected, abs=1e-12), (name, key)


# --- each quality function on a state made by hand ------------------------------------

def test_top_drop_is_the_largest_drop_of_a_pyramid_top():
    scene = small("many_pyramids")       # six pyramids of six boxes, tops every sixth body
    origins, angles = scene.start()
    origins[6, 1] -= 0.25                # the first pyramid's top box (body 0 is the ground)
    origins[12, 1] -= 0.5                # the second's
    origins[3, 1] -= 2.0                 # a box that is no top
    assert scene.quality(origins, angles)["top_drop_m"] == pytest.approx(0.5, abs=1e-12)


def test_joint_stretch_is_the_largest_anchor_separation():
    scene = small("joint_grid")
    origins, angles = scene.start()
    k = 3 * 8 + 4                        # a circle inside the grid, jointed on four sides
    angles[k] = 0.3                      # its anchors 0.5 m out move by 2 · 0.5 · sin(0.15)
    assert scene.quality(origins, angles)["stretch_m"] == pytest.approx(
        math.sin(0.15), rel=1e-12)
    origins[k] += (0.0, 1.0)             # then a metre up: the anchor on its right, which
    right = np.hypot(0.5 - 0.5 * math.cos(0.3), 1.0 + 0.5 * math.sin(0.3))  # the turn lifts
    assert scene.quality(origins, angles)["stretch_m"] == pytest.approx(right, rel=1e-12)


def test_a_tumbler_box_pushed_into_the_top_wall_counts_out_and_sinks():
    scene = small("tumbler")
    origins, angles = scene.start()
    origins[2] = (0.0, 10.0 + 9.6)       # 9.6 m above the centre: beyond the inner face at 9.5
    quality = scene.quality(origins, angles)
    assert quality["out"] == 1
    assert quality["sink_m"] == pytest.approx(9.6 + 0.125 - 9.5, abs=1e-12)
    origins[0] = (5.0, 5.0)              # the ground body is not judged
    angles[1] = 0.5 * math.pi            # a quarter turn: the same box is in the side wall
    assert scene.quality(origins, angles) == pytest.approx(quality, abs=1e-12)


def test_a_washer_box_in_the_drum_sinks_and_one_beyond_it_counts_out():
    scene = small("washer")
    origins, angles = scene.start()
    # Block 4 spans 39° to 51°; its inner face is the chord at 16·cos 6° from the centre.
    direction = np.array([math.cos(math.radians(45.0)), math.sin(math.radians(45.0))])
    face = 16.0 * math.cos(math.radians(6.0))
    origins[2] = (0.0, 10.0) + (face - 0.1 + 0.03) * direction
    angles[2] = math.radians(45.0)
    quality = scene.quality(origins, angles)
    assert quality == {"sink_m": pytest.approx(0.03, abs=1e-9), "out": 0}
    origins[3] = (0.0, 10.0) + 16.5 * direction
    assert scene.quality(origins, angles)["out"] == 1


def test_a_smash_box_pushed_into_the_hammer_sinks():
    scene = small("smash")
    origins, angles = scene.start()
    origins[1] = (-16.0 + 0.2 - 0.05, 1.0)  # its left face 5 cm inside the hammer's right
    origins[0, 0] += 2.0
    origins[1, 0] += 2.0
    quality = scene.quality(origins, angles)
    assert quality["sink_m"] == pytest.approx(0.05, abs=1e-12)
    assert quality["hammer_x_m"] == -18.0


def test_a_spinner_body_beyond_the_chain_counts_out():
    scene = small("spinner")
    origins, angles = scene.start()
    origins[5] = (0.0, 32.0 + 40.5)
    origins[6] = (39.5, 32.0)            # inside, near the chain
    origins[1] = (0.0, 80.0)             # the bar is not judged
    assert scene.quality(origins, angles) == {"out": 1}


def test_a_ragdoll_arm_turned_about_its_elbow_stretches_nothing_and_moved_stretches():
    scene = small("rain")
    bodies, _ = described(scene)
    origins = np.array([body.position for body in bodies], dtype=float)
    angles = np.zeros(len(bodies))
    forearm = 1 + 11 + 8                 # the second ragdoll's lower left arm
    elbow = origins[forearm] + (0.0, 1.1 - 0.975)
    turn = 0.7
    c, s = math.cos(turn), math.sin(turn)
    x, y = origins[forearm] - elbow
    origins[forearm] = elbow + (c * x - s * y, s * x + c * y)
    angles[forearm] = turn
    assert scene.quality(origins, angles)["stretch_m"] == pytest.approx(0.0, abs=1e-12)
    origins[forearm] += (0.06, 0.08)
    assert scene.quality(origins, angles)["stretch_m"] == pytest.approx(0.1, abs=1e-12)


def test_physbook_measures_the_elbows_from_box2d_reference_angle():
    # Box2D's elbow joint angle is θ_forearm − θ_upper arm − π/4, so a ragdoll made straight
    # starts at −π/4, below its lower limit of −0.2π; physbook's joint must read the same.
    scene = small("rain")
    world = engines.build_physbook(scene)
    world.fill(0)
    joints = world.world.joints
    assert len(joints) == 2 * 10
    angles = sorted(joint.angle for joint in joints)
    assert angles[:4] == pytest.approx([-0.25 * math.pi] * 4, abs=1e-12)
    assert angles[4:] == pytest.approx([0.0] * 16, abs=1e-12)
    elbows = [joint for joint in joints if abs(joint.angle + 0.25 * math.pi) < 1e-9]
    assert all((joint.lower_angle, joint.upper_angle) == pytest.approx(
        (-0.2 * math.pi, 0.3 * math.pi)) for joint in elbows)


def test_pymunk_gets_shape_values_that_multiply_to_the_described_pairs():
    # The spinner's pairs: μ = 0.1 between bodies and with the chain, 0 with the bar, and
    # e = 0.1 everywhere; pymunk multiplies the two shapes' values, so each has the root.
    scene = small("spinner")
    space = engines.build_pymunk(scene).world
    bar = list(space.bodies)[1]            # in the order added: the chain's body, the bar
    frictions = {(shape.body is bar, round(shape.friction**2, 12)) for shape in space.shapes
                 if shape.body.body_type == shape.body.DYNAMIC}
    assert frictions == {(True, 0.0), (False, 0.1)}
    chain = [shape for shape in space.shapes if shape.body.body_type == shape.body.STATIC]
    assert len(chain) == 360 and {round(s.friction**2, 12) for s in chain} == {0.1}
    assert {round(shape.elasticity**2, 12) for shape in space.shapes} == {0.1}


def test_box2d3_standard_scenes_mix_to_physbook_pairs():
    box2d3 = load_script(ROOT / "benchmarks" / "box2d3_scenes.py", "box2d3_scenes")
    import physbook as pb

    ramp = box2d3.ramp()
    for body, pair in zip(ramp.bodies, pb.scenes.RAMP_FRICTIONS, strict=True):
        (shape,) = body.shapes
        assert math.sqrt(1.0 * shape.friction) == pytest.approx(pair, rel=1e-6)
    bounce = box2d3.bounce()             # the scene holds the world: keep it while reading
    (ball,) = bounce.bodies
    assert ball.shapes[0].restitution == pytest.approx(0.5) and ball.mass == pytest.approx(
        math.pi * 0.25, rel=FLOAT32_RELATIVE)
    assert len(box2d3.pyramid(20).bodies) == 210 and len(box2d3.rain(1000).bodies) == 1000


def test_a_spring_frequency_becomes_stiffness_and_damping_of_the_effective_inertia():
    # Two bodies of inertia 2 kg·m² turn against each other as one of 1 kg·m²; at
    # 1/(2π) Hz, ω = 1 rad/s: k = I·ω² = 1 N·m/rad and c = 2·I·ζ·ω = 0.5 N·m·s/rad.
    assert engines.spring_constants(2.0, 2.0, 0.5 / math.pi, 0.25) == pytest.approx((1.0, 0.5))
    # Against a body that cannot turn, the other's own inertia.
    assert engines.spring_constants(3.0, math.inf, 0.5 / math.pi, 1.0) == pytest.approx(
        (3.0, 6.0))
