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
}
# Box2D stores masses and positions as 32-bit floats: each is within a few units of
# 2⁻²⁴ ≈ 6e-8 of its value (relative), and a sum of such masses is too. 1e-6 is 16 of them.
FLOAT32_RELATIVE = 1e-6


def small(name):
    return scenes.SCENES[name](**SMALL[name])


@pytest.fixture(scope="module", params=list(SMALL))
def built(request):
    """(scene, {engine: built scene}) for one scene at its small size."""
    scene = small(request.param)
    return scene, {engine: build(scene) for engine, build in engines.BUILDERS.items()}


def box2d_rounded_mass(shape) -> float:
    """Box2D's mass of a rounded box: it pushes each corner of the core out by 1.412·r
    along the corner's bisector (b2ComputePolygonMass), a sharp box grown by 1.412·r/√2."""
    grown = 1.412 * shape.radius / math.sqrt(2.0)
    half = np.max(np.abs(shape.points), axis=0) + grown
    return shape.density * 4.0 * half[0] * half[1]


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
                     "tumbler": 750, "washer": 500, "smash": 300, "spinner": 500}


def test_every_engine_holds_the_described_bodies_and_joints(built):
    scene, worlds = built
    counts = {engine: len(world.masses()) for engine, world in worlds.items()}
    assert set(counts.values()) == {len(scene.bodies)}
    joints = {engine: world.joint_count for engine, world in worlds.items()}
    assert set(joints.values()) == {len(scene.joints)}
    moving = np.array([body.kind == "dynamic" for body in scene.bodies])
    for engine, world in worlds.items():
        masses = world.masses()
        assert np.all(masses[moving] > 0.0) and np.all(masses[~moving] == 0.0), engine


def test_every_engine_has_physbook_total_mass(built):
    scene, worlds = built
    ours = worlds["physbook"].masses()
    assert worlds["pymunk"].masses().sum() == pytest.approx(ours.sum(), rel=1e-9)
    # Box2D's rounded polygons weigh what Box2D's own approximation gives (the spinner's
    # bar); every other body weighs physbook's, to Box2D's float precision.
    theirs = worlds["box2d3"].masses()
    rounded = np.array([any(shape.kind == "polygon" and shape.radius > 0.0
                            for shape in body.shapes) and body.kind == "dynamic"
                        for body in scene.bodies])
    assert theirs[~rounded].sum() == pytest.approx(ours[~rounded].sum(), rel=FLOAT32_RELATIVE)
    for index in np.flatnonzero(rounded):
        assert theirs[index] == pytest.approx(
            box2d_rounded_mass(scene.bodies[index].shapes[0]), rel=FLOAT32_RELATIVE)


def test_every_engine_starts_with_the_bodies_where_described(built):
    scene, worlds = built
    origins, angles = scene.start()
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
        for key, value in scene.quality(*scene.start()).items():
            expected = scene.bodies[0].position[0] if key == "hammer_x_m" else 0
            assert value == expected, (name, key)


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
