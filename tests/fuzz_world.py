"""Fuzz cases for the world, its bodies, its solvers, its contact table and recordings."""

from __future__ import annotations

import numpy as np
from fuzz_support import Case

import physbook as pb
from physbook.dynamics.contact_table import ContactTable


def _world(solver="soft_step"):
    """A floor and a resting box: enough for every stage of a step to run."""
    world = pb.World(solver=solver)
    world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
    world.add_body(pb.Polygon.box(0.5, 0.5), position=(0.0, 0.5))
    return world


def _body():
    return _world().bodies[1]


def _add_body(argument: str):
    def call(bad):
        arguments = {"shape_or_shapes": pb.Circle(0.5), argument: bad}
        return _world().add_body(**arguments)
    return call


def _set(argument: str):
    def call(bad):
        setattr(_body(), argument, bad)
    return call


def _contact_rule(argument: str):
    def call(bad):
        arguments = {"category_a": 1, "category_b": 2, "friction": 0.5, argument: bad}
        return _world().events.contact_rule(**arguments)
    return call


def _move_to(argument: str):
    def call(bad):
        platform = _world().add_body(pb.Polygon.box(1.0, 0.1), kind="kinematic")
        arguments = {"position": (1.0, 0.0), "angle": None, "dt": 1 / 60, argument: bad}
        platform.move_to(**arguments)
    return call


def _solver_setting(make, argument: str):
    def call(bad):
        return make(**{argument: bad})
    return call


def _step_with(setup):
    """A world that ``setup(world, bad)`` changed, then stepped."""
    def call(bad):
        world = _world()
        setup(world, bad)
        world.step(1 / 60)
    return call


def _write_column(name: str):
    def setup(world, bad):
        try:
            getattr(world.bodies, name)[1] = bad
        except (TypeError, ValueError, OverflowError):
            return  # numpy refused the write itself: no physbook call was made
    return _step_with(setup)


def _contact_update(argument: str):
    def call(bad):
        world = _world()
        world.step(1 / 60)
        bodies, shapes = world.bodies.arrays, world.shapes.arrays
        arguments = {"pairs": np.array([[0, 1]]), "shapes": shapes,
                     "origins": bodies.origins, "angles": bodies.angles,
                     "surfaces": world.shapes.surfaces, "margins": None}
        arguments[argument] = bad
        ContactTable().update(**arguments)
    return call


def _solver_step(position: int, name: str):
    def call(bad):
        world = _world()
        arguments = [world.contacts.arrays, world.bodies.arrays, world.gravity, 1 / 60]
        arguments[position] = bad
        for make in pb.SOLVERS.values():
            make().step(*arguments)
    return Case("Solver.step", name, call)


def _recording_frame(bad):
    return _world().run(2, 1 / 60).frame(bad)


CASES = [
    Case("World", "gravity", lambda bad: pb.World(gravity=bad)),
    Case("World", "capacity", lambda bad: pb.World(capacity=bad)),
    Case("World", "solver", lambda bad: pb.World(solver=bad)),
    Case("World", "broad_phase", lambda bad: pb.World(broad_phase=bad)),
    Case("World.gravity", "gravity", lambda bad: setattr(_world(), "gravity", bad)),
    *(Case("World.add_body", name, _add_body(name)) for name in (
        "shape_or_shapes", "position", "angle", "velocity", "angular_velocity", "material",
        "kind", "gravity_scale", "layers", "filter", "sensor", "fixed_rotation",
        "linear_damping", "angular_damping", "surface_velocity", "one_way")),
    Case("World.add_body", "material[1]", lambda bad: _world().add_body(
        [pb.Circle(0.5), pb.Circle(0.2)], material=[pb.Material(), bad]), named="material"),
    Case("World.add_body", "filter[1]", lambda bad: _world().add_body(
        [pb.Circle(0.5), pb.Circle(0.2)], filter=[pb.Filter(), bad]), named="filter"),
    Case("World.add_body", "sensor[0]", lambda bad: _world().add_body(
        [pb.Circle(0.5), pb.Circle(0.2)], sensor=[bad, False]), named="sensor"),
    # Chapter 12: queries, events and their settings.
    Case("World.query_aabb", "lower", lambda bad: _world().query_aabb(bad, (1.0, 1.0))),
    Case("World.query_aabb", "upper", lambda bad: _world().query_aabb((0.0, 0.0), bad)),
    Case("World.query_aabb", "filter",
         lambda bad: _world().query_aabb((0.0, 0.0), (1.0, 1.0), bad)),
    Case("World.query_point", "point", lambda bad: _world().query_point(bad)),
    Case("World.query_point", "filter", lambda bad: _world().query_point((0.0, 0.0), bad)),
    *(Case(f"World.{method}", "origin",
           lambda bad, method=method: getattr(_world(), method)(bad, (1.0, 0.0)))
      for method in ("ray_cast", "ray_cast_all")),
    *(Case(f"World.{method}", "translation",
           lambda bad, method=method: getattr(_world(), method)((0.0, 3.0), bad))
      for method in ("ray_cast", "ray_cast_all")),
    Case("World.ray_cast", "filter",
         lambda bad: _world().ray_cast((0.0, 3.0), (0.0, -5.0), bad)),
    Case("EventLog.hit_speed", "hit_speed",
         lambda bad: setattr(_world().events, "hit_speed", bad)),
    Case("EventLog.on_contact", "category_a",
         lambda bad: _world().events.on_contact(bad, 1, print)),
    Case("EventLog.on_contact", "category_b",
         lambda bad: _world().events.on_contact(1, bad, print)),
    # A class is callable: registering one is valid, what it does when called is not ours.
    Case("EventLog.on_contact", "begin",
         lambda bad: None if isinstance(bad, type) else _world().events.on_contact(1, 1, bad)),
    Case("EventLog.on_contact", "end",
         lambda bad: None if isinstance(bad, type) else _world().events.on_contact(1, 1, None, bad),
         named="end"),
    Case("EventLog.on_contact", "hit",
         lambda bad: None if isinstance(bad, type) else _world().events.on_contact(
             1, 1, hit=bad), named="hit"),
    # Chapter 16: contact rules, pre-solve callbacks, shape lookups, a body's feel.
    *(Case("EventLog.contact_rule", name, _contact_rule(name)) for name in (
        "category_a", "category_b", "enabled", "friction", "restitution", "tangent_speed")),
    Case("EventLog.on_pre_solve", "category_a",
         lambda bad: _world().events.on_pre_solve(bad, 1, print)),
    Case("EventLog.on_pre_solve", "category_b",
         lambda bad: _world().events.on_pre_solve(1, bad, print)),
    Case("EventLog.on_pre_solve", "function",
         lambda bad: None if isinstance(bad, type) else _world().events.on_pre_solve(
             1, 1, bad)),
    Case("EventLog.body_of", "shape_id", lambda bad: _world().events.body_of(bad)
         if not (isinstance(bad, int) and 0 <= bad < 2) else None),
    *(Case("Body." + name, name, _set(name)) for name in (
        "linear_damping", "angular_damping", "surface_velocity", "one_way", "material")),
    Case("Body.set_material", "material", lambda bad: _body().set_material(bad)),
    Case("Body.set_material", "shape",
         lambda bad: _body().set_material(pb.Material(), bad) if bad is not None else None),
    Case("Body.set_surface_velocity", "velocity",
         lambda bad: _body().set_surface_velocity(bad), named="surface_velocity"),
    Case("Body.set_one_way", "direction", lambda bad: _body().set_one_way(bad),
         named="one_way"),
    *(Case("Body.move_to", name, _move_to(name)) for name in ("position", "angle", "dt")),
    Case("Platformer.step", "keys", lambda bad: pb.scenes.Platformer().step(bad)),
    Case("Platformer.play", "steps", lambda bad: pb.scenes.Platformer().play(steps=bad)
         if not (isinstance(bad, int) and 200 < bad < 2**31) else None),
    Case("EventLog.remove_handler", "handler",
         lambda bad: _world().events.remove_handler(bad)),
    Case("Body.filter", "filter", lambda bad: setattr(_body(), "filter", bad)),
    # Chapter 13: continuous collision's switches.
    Case("World.continuous", "continuous", lambda bad: setattr(_world(), "continuous", bad)),
    Case("Body.bullet", "bullet", lambda bad: setattr(_body(), "bullet", bad)),
    Case("Body.fixed_rotation", "fixed_rotation",
         lambda bad: setattr(_body(), "fixed_rotation", bad)),
    Case("World.add_body", "sensor[1]", lambda bad: _world().add_body(
        [pb.Chain([(3, 0), (2, 0), (1, 0), (0, 0)]), pb.Segment((0, 0), (0, 1))],
        kind="static", sensor=[False, bad]), named="sensor"),
    Case("box_field", "distribution", lambda bad: pb.scenes.box_field(bad, 10)),
    Case("box_field", "count", lambda bad: pb.scenes.box_field("uniform", bad)
         if not (isinstance(bad, int) and 10**5 < bad < 10**7) else None),
    Case("box_field", "seed", lambda bad: pb.scenes.box_field("uniform", 10, bad)),
    Case("moving_boxes", "steps", lambda bad: pb.scenes.moving_boxes(
        pb.scenes.box_field("uniform", 10), bad)
         if not (isinstance(bad, int) and 10**3 < bad < 10**6) else None),
    Case("moving_boxes", "fraction", lambda bad: pb.scenes.moving_boxes(
        pb.scenes.box_field("uniform", 10), 2, bad)),
    Case("moving_boxes", "boxes", lambda bad: pb.scenes.moving_boxes(bad, 2)),
    Case("moving_boxes", "speed", lambda bad: pb.scenes.moving_boxes(
        pb.scenes.box_field("uniform", 10), 2, 0.1, bad)),
    Case("moving_boxes", "dt", lambda bad: pb.scenes.moving_boxes(
        pb.scenes.box_field("uniform", 10), 2, 0.1, 1.0, bad)),
    Case("free_filters", "count", lambda bad: pb.scenes.free_filters(bad)
         if not (isinstance(bad, int) and 10**5 < bad < 10**7) else None),
    *(Case(f"{name}.remove_rows", "rows", lambda bad, stage=stage: stage().remove_rows(bad))
      for name, stage in (("DynamicTree", pb.DynamicTree), ("SortAndSweep", pb.SortAndSweep))),
    Case("World.add_body", "shape_or_shapes[0]",
         lambda bad: _world().add_body([pb.Circle(0.5), bad]), named="shape_or_shapes"),
    Case("World.remove_body", "body", lambda bad: _world().remove_body(bad)),
    Case("World.step", "dt", lambda bad: _world().step(bad)),
    # A valid but large count would only run long: such steps are not bad input.
    Case("World.run", "steps", lambda bad: _world().run(bad, 1 / 60)
         if not (isinstance(bad, int) and 200 < bad < 2**31) else None),
    Case("World.run", "dt", lambda bad: _world().run(2, bad)),
    # A class is callable; what it raises when called is the callback's own error.
    Case("World.run", "before_step",
         lambda bad: None if isinstance(bad, type) else _world().run(2, 1 / 60, bad)),
    # What a step says of a bad value written into a column: the body and the quantity.
    *(Case("World.bodies." + name, name, _write_column(name), named="1") for name in (
        "centers", "angles", "velocities", "angular_velocities", "forces", "torques",
        "gravity_scales")),
    *(Case("Body." + name, name, _set(name)) for name in (
        "position", "angle", "velocity", "angular_velocity", "gravity_scale", "layers")),
    Case("Body.velocity_at", "point", lambda bad: _body().velocity_at(bad)),
    Case("Body.apply_force", "force", lambda bad: _body().apply_force(bad)),
    Case("Body.apply_force", "point", lambda bad: _body().apply_force((1.0, 0.0), bad)),
    Case("Body.apply_torque", "torque", lambda bad: _body().apply_torque(bad)),
    Case("Body.apply_impulse", "impulse", lambda bad: _body().apply_impulse(bad)),
    Case("Body.apply_impulse", "point", lambda bad: _body().apply_impulse((1.0, 0.0), bad)),
    Case("Body", "table", lambda bad: pb.Body(_world(), bad, 0)),
    Case("Body", "body_id", lambda bad: pb.Body(_world(), _world()._bodies, bad)),
    *(Case("SequentialImpulseSolver", name, _solver_setting(pb.SequentialImpulseSolver, name))
      for name in ("iterations", "accumulate", "warm_starting", "position_correction",
                   "correction", "slop", "position_iterations", "max_correction",
                   "restitution_threshold")),
    *(Case("ImpulseSolver", name, _solver_setting(pb.ImpulseSolver, name))
      for name in ("iterations", "correction_fraction", "slop", "restitution_threshold")),
    *(Case("SoftStepSolver", name, _solver_setting(pb.SoftStepSolver, name))
      for name in ("substeps", "relax_iterations", "contact_hertz", "damping_ratio",
                   "static_hertz", "push_out_speed", "warm_starting",
                   "speculative_distance", "restitution_threshold")),
    Case("SoftStepSolver.springs", "dt", lambda bad: pb.SoftStepSolver().springs(bad)),
    _solver_step(0, "contacts"),
    _solver_step(1, "bodies"),
    _solver_step(2, "gravity"),
    _solver_step(3, "dt"),
    *(Case("ContactTable.update", name, _contact_update(name)) for name in (
        "pairs", "shapes", "origins", "angles", "surfaces", "margins")),
    Case("ContactTable", "capacity", lambda bad: ContactTable(bad)),
    Case("Recording.frame", "k", _recording_frame),
]
