"""Light boxes pressed against heavy moving bodies: physbook beside Box2D v3, in one run.

    python benchmarks/bench_pressed.py [--scenes tumbler platform vice] [--engines physbook box2d]

The scenes are :mod:`physbook.scenes.pressed`'s: a tumbler (a container turned by a motor,
full of small boxes), a platform (heavy, raised to its stop under a pile) and a vice (two
heavy jaws pushed together on a channel of boxes). Each is built again in Box2D v3 through
its Python binding ``pyb2d3`` (4 substeps and its other defaults) with the same geometry,
densities, friction and motors, and run for the same steps. In every frame the deepest
overlap of any box with the heavy bodies is measured the same way for both engines, from
their poses (:func:`physbook.scenes.quality.deepest_sink`), and judged by
:func:`physbook.scenes.quality.sink_quality`: the median and largest over the run, and for
the platform and the vice the deepest from one second after the heavy bodies came to rest.
Milliseconds per step are printed too (steps after the first 60; numba compiles in the
first).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import physbook as pb
from physbook import scenes

SUBSTEPS = 4  # Box2D v3's default
TIMING_START = 60
BUILDERS = {"tumbler": scenes.tumbler, "platform": scenes.platform, "vice": scenes.vice}


def heavy_polygons(shapes: dict, poses: dict) -> list[np.ndarray]:
    """The world vertices of every heavy shape: ``shapes`` maps a body's name to its
    polygons' body vertices, ``poses`` to its (origin, angle) now, or a list of them."""
    polygons = []
    for name, pieces in shapes.items():
        bodies = poses[name] if isinstance(poses[name], list) else [poses[name]]
        for origin, angle in bodies:
            for piece in pieces:
                vertices = piece.vertices if hasattr(piece, "vertices") else piece
                polygons.append(scenes.placed(vertices, np.array([origin]),
                                              np.array([angle]))[0])
    return polygons


def _frame(deepest, speeds, half_extent, shapes, box_origins, box_angles, poses, velocities):
    deepest.append(scenes.deepest_sink(box_origins, box_angles, half_extent,
                                       heavy_polygons(shapes, poses)))
    speeds.append(max(float(np.hypot(*v)) for v in velocities))


# --- physbook --------------------------------------------------------------------------


def run_physbook(name: str, kwargs: dict, solver=None) -> dict:
    """Run a physbook scene; its deepest sink and heavy speed per frame, and ms per step."""
    world = pb.World() if solver is None else pb.World(solver=solver)
    scene = BUILDERS[name](world=world, **kwargs)
    shapes, half_extent = scene.params["heavy_shapes"], scene.params["half_extent"]
    rows = [box.row for box in scene.bodies["boxes"]]
    heavy = {key: scene.bodies[key] for key in shapes}
    deepest, speeds, elapsed = [], [], 0.0
    for step in range(scene.steps + 1):
        if step:
            start = time.perf_counter()
            world.step(scene.dt)
            elapsed += time.perf_counter() - start if step > TIMING_START else 0.0
        poses = {key: ([(b.position, b.angle) for b in value] if isinstance(value, list)
                       else (value.position, value.angle)) for key, value in heavy.items()}
        velocities = [b.velocity for value in heavy.values()
                      for b in (value if isinstance(value, list) else [value])]
        _frame(deepest, speeds, half_extent, shapes, world.bodies.origins[rows],
               world.bodies.angles[rows],
               poses, velocities)
    return {"deepest": np.array(deepest), "speeds": np.array(speeds), "dt": scene.dt,
            "ms": 1000.0 * elapsed / max(scene.steps - TIMING_START, 1),
            "boxes": len(rows)}


# --- Box2D v3 --------------------------------------------------------------------------


def run_box2d(name: str, kwargs: dict) -> dict:
    """The same scene in Box2D v3 (pyb2d3), built from the physbook scene's own bodies and
    numbers; its deepest sink and heavy speed per frame, and ms per step."""
    import pyb2d3 as b2

    reference = BUILDERS[name](**kwargs)
    params = reference.params
    world = b2.World(gravity=(0.0, -10.0))
    friction = params["friction"]

    def shape_def(density):
        return b2.shape_def(density=density, material=b2.surface_material(friction=friction))

    def polygon(vertices):
        return b2.polygon(points=np.asarray(vertices, dtype=np.float32))

    def copy(body, kind):
        """A Box2D body with ``body``'s pose, shapes and density; ``kind`` static/dynamic."""
        make = world.create_static_body if kind == "static" else world.create_dynamic_body
        twin = make(position=tuple(body.position), rotation=float(body.angle))
        if body.filter.mask != 0:  # an anchor collides with nothing: no shape
            for shape in body.shapes:
                twin.create_polygon_shape(shape_def(body.material.density),
                                          polygon(shape.vertices))
        return twin

    twins = {}
    for key, value in reference.bodies.items():
        handles = value if isinstance(value, list) else [value]
        twins[key] = [copy(body, body.kind) for body in handles]
        for body, twin in zip(handles, twins[key], strict=True):
            if body.kind == "dynamic":  # the same body, as Box2D works out its mass
                assert math.isclose(twin.mass, body.mass, rel_tol=1e-5), (key, twin.mass)
    if name == "tumbler":
        center = reference.bodies["container"].position
        world.create_revolute_joint(
            body_a=twins["anchor"][0], body_b=twins["container"][0],
            local_anchor_a=(0.0, 0.0), local_anchor_b=(0.0, 0.0), enable_motor=True,
            motor_speed=params["turn_rate"], max_motor_torque=1.0e8)
        assert np.allclose(center, reference.bodies["anchor"].position)
    elif name == "platform":
        anchor = reference.bodies["anchor"].position
        world.create_prismatic_joint(
            body_a=twins["anchor"][0], body_b=twins["platform"][0],
            local_anchor_a=tuple(-anchor), local_anchor_b=(0.0, 0.0), local_axis_a=(0.0, 1.0),
            enable_limit=True, lower_translation=0.0, upper_translation=params["travel"],
            enable_motor=True, motor_speed=params["speed"], max_motor_force=1.0e6)
    else:
        for jaw, twin in zip(reference.bodies["jaws"], twins["jaws"], strict=True):
            side = math.copysign(1.0, jaw.position[0])
            anchor_twin = world.create_static_body(position=tuple(jaw.position))
            world.create_prismatic_joint(
                body_a=anchor_twin, body_b=twin, local_anchor_a=(0.0, 0.0),
                local_anchor_b=(0.0, 0.0), local_axis_a=(-side, 0.0), enable_motor=True,
                motor_speed=params["speed"], max_motor_force=params["force"])
    boxes = b2.Bodies()
    for twin in twins["boxes"]:
        boxes.append(twin)
    shapes, half_extent = params["heavy_shapes"], params["half_extent"]
    heavy = {key: twins[key] for key in shapes}
    deepest, speeds, elapsed = [], [], 0.0
    for step in range(reference.steps + 1):
        if step:
            start = time.perf_counter()
            world.step(reference.dt, SUBSTEPS)
            elapsed += time.perf_counter() - start if step > TIMING_START else 0.0
        rotations = boxes.get_rotations()
        poses = {key: [(np.array(tuple(b.position)), b.angle) for b in value]
                 for key, value in heavy.items()}
        poses = {key: value if isinstance(reference.bodies[key], list) else value[0]
                 for key, value in poses.items()}
        velocities = [np.array(tuple(b.linear_velocity)) for value in heavy.values()
                      for b in value]
        _frame(deepest, speeds, half_extent, shapes, boxes.get_positions(),
               np.arctan2(rotations[:, 1], rotations[:, 0]), poses, velocities)
    return {"deepest": np.array(deepest), "speeds": np.array(speeds), "dt": reference.dt,
            "ms": 1000.0 * elapsed / max(reference.steps - TIMING_START, 1),
            "boxes": len(twins["boxes"])}


RUNNERS = {"physbook": run_physbook, "box2d": run_box2d}


def judge(run: dict, name: str) -> dict:
    speeds = None if name == "tumbler" else run["speeds"]
    return scenes.sink_quality(run["deepest"], run["dt"], speeds)


def _mm(value) -> str:
    return "     -" if value is None else f"{1000.0 * value:6.1f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", nargs="+", choices=list(BUILDERS), default=list(BUILDERS))
    parser.add_argument("--engines", nargs="+", choices=list(RUNNERS), default=list(RUNNERS))
    arguments = parser.parse_args(argv)
    print(f"{'scene':10s} {'engine':9s} {'boxes':>5s}  {'median':>6s} {'largest':>7s} "
          f"{'final':>6s} {'rest at':>7s} {'at rest':>7s}  (mm; rest at: s)  ms/step")
    for name in arguments.scenes:
        for engine in arguments.engines:
            run = RUNNERS[engine](name, {})
            quality = judge(run, name)
            rest = quality.get("rest_from")
            print(f"{name:10s} {engine:9s} {run['boxes']:5d}  {_mm(quality['median'])} "
                  f"{_mm(quality['largest']):>7s} {_mm(quality['final'])} "
                  f"{'      -' if rest is None else f'{rest:7.2f}'} "
                  f"{_mm(quality.get('at_rest')):>7s}  {run['ms']:16.2f}", flush=True)


if __name__ == "__main__":
    main()
