"""Fuzz cases for the Verlet engine: the world, its handles and records, scenes and kernels."""

from __future__ import annotations

import numpy as np
from fuzz_support import Case
from verlet_arrays import DT, world_arrays

from physbook import verlet
from physbook.verlet import VerletBody, VerletContact, VerletSnapshot, VerletWorld


def _world(**settings) -> VerletWorld:
    """Two overlapping boxes, a pinned rope and walls: every part of a step has work."""
    world = VerletWorld(bounds=(-5.0, -5.0, 5.0, 5.0), **settings)
    world.add_box((0.0, 0.0), 2.0, 1.0)
    world.add_box((0.3, 0.9), 1.0, 1.0, angle=0.5)
    world.add_rope((-3.0, 3.0), (-1.0, 3.0), 4)
    return world


def _contact_fields(world: VerletWorld) -> dict:
    contact = world.find_contact(0, 1)
    return {name: getattr(contact, name) for name in
            ("depth", "normal", "edge", "vertex", "edge_body", "vertex_body")}


def _snapshot_fields() -> dict:
    frame = _world().snapshot()
    return {name: getattr(frame, name) for name in
            ("positions", "edges", "boundary", "pinned", "bodies", "bounds")}


def _call(make, method: str, argument: str, **valid):
    """A case calling ``make()``'s ``method`` with ``valid`` arguments and ``bad`` as one."""
    def call(bad):
        return getattr(make(), method)(**{**valid, argument: bad})
    return Case(f"VerletWorld.{method}", argument, call)


def _grabbed_drag(bad):
    world = _world()
    world.grab(0)
    world.drag_to(bad)


def _setting(argument: str, **settings):
    def call(bad):
        setattr(VerletWorld(**settings), argument, bad)
    return Case(f"VerletWorld.{argument}", argument, call)


def _contact_case(argument: str):
    def call(bad):
        return VerletContact(**{**_contact_fields(_world()), argument: bad})
    return Case("VerletContact", argument, call)


def _respond_case(argument: str):
    # the world's respond: a contact with one bad field fails where it is made, or in respond
    def call(bad):
        world = _world()
        return world.respond(VerletContact(**{**_contact_fields(world), argument: bad}))
    return Case("VerletWorld.respond", "contact." + argument, call, named=argument)


def _snapshot_case(argument: str):
    def call(bad):
        return VerletSnapshot(**{**_snapshot_fields(), argument: bad})
    return Case("VerletSnapshot", argument, call)


# --------------------------------------------------------------------------- kernels
def _kernel_arguments() -> dict:
    """Every argument a kernel can take, valid, from a fresh world's rows in use."""
    world = _world()
    return {
        **world_arrays(world), "count": world.particle_count, "gravity_x": 0.0,
        "gravity_y": -10.0, "damping": 0.0, "substeps": 1, "iterations": 2, "compliant": True,
        "compliance": 1e-4, "alpha_tilde": 0.36, "has_bounds": True,
        "bounds": np.array(world.bounds),
        "body_a": 0, "body_b": 1, "edge": 0, "vertex": 5, "normal_x": 0.0, "normal_y": -1.0,
        "depth": 0.01, "vertex_body_mass": 1.0, "edge_body_mass": 2.0,
    }


KERNELS = {
    "integrate_particles": ("positions", "previous", "force", "inverse_mass", "count",
                            "gravity_x", "gravity_y", "dt", "damping"),
    "satisfy_edges": ("positions", "inverse_mass", "edge_ends", "rest_length", "edge_count"),
    "satisfy_edges_compliant": ("positions", "inverse_mass", "edge_ends", "rest_length",
                                "edge_count", "multipliers", "alpha_tilde"),
    "find_contact": ("positions", "edge_ends", "edge_boundary", "body_a", "body_b",
                     "particle_start", "particle_count", "body_particles", "edge_start",
                     "edge_count", "body_edges", "centers"),
    "respond_vertex_edge": ("positions", "inverse_mass", "edge_ends", "edge", "vertex",
                            "normal_x", "normal_y", "depth", "vertex_body_mass",
                            "edge_body_mass"),
    "step_world": ("positions", "previous", "force", "inverse_mass", "particle_count",
                   "gravity_x", "gravity_y", "dt", "damping", "substeps", "iterations",
                   "compliant", "compliance", "multipliers", "has_bounds", "bounds",
                   "edge_ends", "rest_length", "edge_boundary", "edge_count",
                   "particle_start", "body_particle_count", "body_particles", "edge_start",
                   "body_edge_count", "body_edges", "body_mass", "body_count", "centers",
                   "boxes"),
}

# find_contact's per-body counts share their names with other kernels' arguments
_FIND_CONTACT_SOURCES = {"particle_count": "body_particle_count", "edge_count": "body_edge_count"}


def _kernel_case(kernel: str, argument: str):
    def call(bad):
        valid = _kernel_arguments()
        sources = _FIND_CONTACT_SOURCES if kernel == "find_contact" else {}
        arguments = {name: valid[sources.get(name, name)] for name in KERNELS[kernel]}
        arguments[argument] = bad
        return getattr(verlet, kernel)(**arguments)
    return Case(f"verlet.{kernel}", argument, call)


CASES = [
    *(Case("VerletWorld", name, lambda bad, name=name: VerletWorld(**{name: bad})) for name in (
        "gravity", "iterations", "bounds", "solver", "substeps", "damping")),
    Case("VerletWorld", "compliance", lambda bad: VerletWorld(solver="xpbd", compliance=bad)),
    *(_setting(name) for name in ("gravity", "iterations", "bounds", "solver", "substeps",
                                  "damping", "compliance")),
    _setting("compliance", solver="xpbd"),
    _call(_world, "body", "index"),
    _call(_world, "add_particle", "position"),
    _call(_world, "add_particle", "mass", position=(0.0, 0.0)),
    _call(_world, "add_particle", "pinned", position=(0.0, 0.0)),
    _call(_world, "pin", "index"),
    _call(_world, "pin", "pinned", index=0),
    _call(_world, "apply_force", "index", force=(1.0, 0.0)),
    _call(_world, "apply_force", "force", index=0),
    _call(_world, "set_velocity", "indices", velocity=(1.0, 0.0), dt=DT),
    _call(_world, "set_velocity", "velocity", indices=[0, 1], dt=DT),
    _call(_world, "set_velocity", "dt", indices=[0, 1], velocity=(1.0, 0.0)),
    _call(_world, "velocities", "dt"),
    _call(_world, "momentum", "dt"),
    _call(_world, "add_edge", "i", j=0),
    _call(_world, "add_edge", "j", i=0),
    _call(_world, "add_edge", "boundary", i=0, j=9),
    _call(_world, "add_edge", "tear_ratio", i=0, j=9),
    _call(_world, "add_body", "particles", edges=[0, 1, 2, 3]),
    _call(_world, "add_body", "edges", particles=[0, 1, 2, 3]),
    _call(_world, "add_body", "mass", particles=[0, 1, 2, 3], edges=[0, 1, 2, 3]),
    _call(_world, "step", "dt"),
    _call(lambda: _world(solver="xpbd", compliance=1e-3, substeps=2), "step", "dt"),
    _call(_world, "record", "steps", dt=DT),
    _call(_world, "record", "dt", steps=2),
    _call(_world, "record", "every", steps=2, dt=DT),
    _call(_world, "add_polygon", "vertices"),
    _call(_world, "add_polygon", "mass", vertices=[(0, 0), (1, 0), (0, 1)]),
    *(_call(_world, factory, name, **{"center": (0.0, 0.0), "width": 1.0, "height": 1.0,
                                      **({} if name == "mass" else {"mass": 1.0})})
      for factory in ("add_box", "add_triangle")
      for name in ("center", "width", "height", "mass", "angle")),
    *(_call(_world, "add_regular_polygon", name,
            **{key: value for key, value in
               {"center": (0.0, 0.0), "radius": 1.0, "sides": 5}.items() if key != name})
      for name in ("center", "radius", "sides", "mass", "angle")),
    *(_call(_world, "add_rope", name,
            **{key: value for key, value in
               {"start": (0.0, 0.0), "end": (1.0, 0.0), "segments": 3}.items() if key != name})
      for name in ("start", "end", "segments", "mass", "pin_start", "pin_end", "tear_ratio")),
    *(_call(_world, "add_cloth", name,
            **{key: value for key, value in
               {"top_left": (0.0, 0.0), "width": 1.0, "height": 1.0, "columns": 3,
                "rows": 3}.items() if key != name})
      for name in ("top_left", "width", "height", "columns", "rows", "mass", "pin",
                   "tear_ratio")),
    _call(_world, "nearest_particle", "point"),
    _call(_world, "nearest_particle", "max_distance", point=(0.0, 0.0)),
    _call(_world, "grab", "index"),
    Case("VerletWorld.drag_to", "point", _grabbed_drag),
    _call(_world, "drag_along", "index", path=[(0.0, 0.0), (0.1, 0.0)], dt=DT),
    _call(_world, "drag_along", "path", index=0, dt=DT),
    _call(_world, "drag_along", "dt", index=0, path=[(0.0, 0.0), (0.1, 0.0)]),
    _call(_world, "drag_along", "every", index=0, path=[(0.0, 0.0), (0.1, 0.0)], dt=DT),
    _call(_world, "find_contact", "body_a", body_b=1),
    _call(_world, "find_contact", "body_b", body_a=0),
    _call(_world, "respond", "contact"),
    *(_respond_case(name) for name in ("depth", "normal", "edge", "vertex", "edge_body",
                                       "vertex_body")),
    *(_contact_case(name) for name in ("depth", "normal", "edge", "vertex", "edge_body",
                                       "vertex_body")),
    *(_snapshot_case(name) for name in ("positions", "edges", "boundary", "pinned", "bodies",
                                        "bounds")),
    Case("VerletBody", "world", lambda bad: VerletBody(bad, 0)),
    Case("VerletBody", "index", lambda bad: VerletBody(_world(), bad)),
    Case("VerletBody.velocity", "dt", lambda bad: _world().body(0).velocity(bad)),
    Case("VerletBody.angular_velocity", "dt",
         lambda bad: _world().body(0).angular_velocity(bad)),
    *(Case("verlet_demo_world", name,
           lambda bad, name=name: verlet.verlet_demo_world(
               **{"columns": 1, "rows": 1, "triangles": 1, name: bad}))
      for name in ("iterations", "columns", "rows", "triangles")),
    *(Case("hanging_cloth", name,
           lambda bad, name=name: verlet.hanging_cloth(**{"columns": 3, "rows": 3, name: bad}))
      for name in ("columns", "rows", "iterations", "tear_ratio")),
    *(_kernel_case(kernel, argument) for kernel, names in KERNELS.items() for argument in names),
]
