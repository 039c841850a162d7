"""Fuzz cases for vectors, transforms and lines, the integrators, the fixed timestep and
materials: every argument of every public function, method and constructor.

The compiled helpers of ``physbook.vecmath.kernels`` are not listed: they take plain floats
inside compiled loops and check nothing, by design; Python callers use ``vec``.
"""

from __future__ import annotations

import numbers

from fuzz_support import Case

from physbook import _check
from physbook.dynamics import materials
from physbook.vecmath import integrate, timestep, vec

# --- vectors, transforms, lines --------------------------------------------------------------

GOOD = (1.0, 2.0)
OTHER = (-3.0, 0.5)


def _with(function, argument: str, **good):
    """Call ``function`` with ``good`` arguments and ``bad`` as ``argument``."""
    def call(bad):
        return function(**{**good, argument: bad})
    return call


def _line():
    return vec.Line((0.6, 0.8), 1.5)


VEC_CASES = [
    *(Case(f"vec.{name}", argument, _with(getattr(vec, name), argument, a=GOOD, b=OTHER))
      for name in ("dot", "cross") for argument in ("a", "b")),
    *(Case(f"vec.{name}", argument, _with(getattr(vec, name), argument, s=2.0, v=GOOD))
      for name in ("cross_scalar_vector", "cross_vector_scalar") for argument in ("s", "v")),
    Case("vec.perp", "v", lambda bad: vec.perp(bad)),
    Case("vec.length", "v", lambda bad: vec.length(bad)),
    Case("vec.normalize", "v", lambda bad: vec.normalize(bad)),
    Case("vec.normalize", "fallback", lambda bad: vec.normalize((0.0, 0.0), fallback=bad)),
    Case("vec.rotation_matrix", "angle", lambda bad: vec.rotation_matrix(bad)),
    Case("vec.rotate", "v", lambda bad: vec.rotate(bad, 0.3)),
    Case("vec.rotate", "angle", lambda bad: vec.rotate(GOOD, bad)),
    Case("Transform", "position", lambda bad: vec.Transform(bad, 0.3)),
    Case("Transform", "angle", lambda bad: vec.Transform(GOOD, bad)),
    *(Case(f"Transform.{method}", argument,
           lambda bad, method=method: getattr(vec.Transform(GOOD, 0.3), method)(bad))
      for method, argument in (("to_world", "points"), ("to_local", "points"),
                               ("rotate_to_world", "vectors"), ("rotate_to_local", "vectors"))),
    # Python's own TypeError for an operand of no known type: "unsupported operand … @".
    Case("Transform.__matmul__", "other", lambda bad: vec.Transform(GOOD, 0.3) @ bad,
         named="Transform"),
    Case("Line", "normal", lambda bad: vec.Line(bad, 1.5)),
    Case("Line", "offset", lambda bad: vec.Line((0.6, 0.8), bad)),
    Case("Line.through", "a", lambda bad: vec.Line.through(bad, OTHER)),
    Case("Line.through", "b", lambda bad: vec.Line.through(GOOD, bad)),
    Case("Line.signed_distance", "points", lambda bad: _line().signed_distance(bad)),
    Case("Line.side", "points", lambda bad: _line().side(bad)),
    Case("Line.side", "tolerance", lambda bad: _line().side(GOOD, bad)),
    Case("Line.project", "points", lambda bad: _line().project(bad)),
    *(Case("vec.closest_point_on_segment", argument,
           _with(vec.closest_point_on_segment, argument, points=(0.5, 3.0), a=GOOD, b=OTHER))
      for argument in ("points", "a", "b")),
]

# --- integrators -----------------------------------------------------------------------------


def _spring(x, v, t):
    return -4.0 * x - 0.1 * v


STEPS = ("explicit_euler_step", "symplectic_euler_step", "velocity_verlet_step", "rk4_step")


def _returning(bad):
    """An acceleration that returns ``bad``: the integrators must judge what comes back."""
    return lambda x, v, t: bad


def _acceleration_case(entry_point: str, call) -> Case:
    # A class is callable; what it raises when called is the callback's own error.
    return Case(entry_point, "acceleration",
                lambda bad: None if isinstance(bad, type) else call(bad))


def _step_cases(name: str, names: tuple[str, str, str]) -> list[Case]:
    function = getattr(integrate, name)
    x, v, t = names
    good = {x: [0.5], v: [1.0], "acceleration": _spring, t: 0.25, "dt": 0.1}
    return [
        *(Case(f"integrate.{name}", argument, _with(function, argument, **good))
          for argument in (x, v, t, "dt")),
        _acceleration_case(f"integrate.{name}", _with(function, "acceleration", **good)),
        Case(f"integrate.{name}", "acceleration",
             lambda bad: function(**{**good, "acceleration": _returning(bad)})),
    ]


#: Counts above this are valid but slow: a long run is no bad input, so only short ones run.
_LONG_RUN = 200


def _simulate(argument: str):
    good = {"method": "rk4", "x0": [0.5], "v0": [1.0], "acceleration": _spring, "dt": 0.1,
            "steps": 5, "t0": 0.0}

    def call(bad):
        if (argument == "steps" and isinstance(bad, numbers.Integral)
                and _LONG_RUN < bad <= _check.MAX_COUNT):
            return None
        return integrate.simulate(**{**good, argument: bad})
    return call


INTEGRATE_CASES = [
    *(case for name in STEPS for case in _step_cases(name, ("x", "v", "t"))),
    *_step_cases("position_verlet_start", ("x0", "v0", "t0")),
    *_step_cases("position_verlet_step", ("x", "x_previous", "t")),
    *(Case("integrate.simulate", argument, _simulate(argument))
      for argument in ("method", "x0", "v0", "dt", "steps", "t0")),
    _acceleration_case("integrate.simulate", _simulate("acceleration")),
    *(Case("integrate.simulate", "acceleration",
           lambda bad, method=method: integrate.simulate(
               method, [0.5], [1.0], _returning(bad), 0.1, 3))
      for method in integrate.METHODS),
    *(Case("integrate.implicit_spring_step", argument,
           _with(integrate.implicit_spring_step, argument, x=[0.5], v=[1.0], stiffness=40.0,
                 damping=0.5, mass=2.0, dt=0.1, force=[0.3]))
      for argument in ("x", "v", "stiffness", "damping", "mass", "dt", "force")),
]

# --- the fixed timestep ----------------------------------------------------------------------


def _advance(bad):
    clock = timestep.FixedTimestep(1 / 60)
    clock.advance(0.02)
    return clock.advance(bad)


TIMESTEP_CASES = [
    Case("FixedTimestep", "dt", lambda bad: timestep.FixedTimestep(bad, 0.25)),
    Case("FixedTimestep", "max_frame_time", lambda bad: timestep.FixedTimestep(1 / 60, bad)),
    # The largest frame a clock at the extremes of its range may be given, every frame.
    Case("FixedTimestep", "max_frame_time",
         lambda bad: [timestep.FixedTimestep(1e300, bad).advance(bad) for _ in range(3)]),
    Case("FixedTimestep", "dt",
         lambda bad: [timestep.FixedTimestep(bad, 1e300).advance(1e308) for _ in range(3)]),
    Case("FixedTimestep.advance", "frame_time", _advance),
    Case("FixedTimestep.advance", "frame_time",
         lambda bad: [timestep.FixedTimestep(1e-3, 1e300).advance(bad) for _ in range(3)]),
    Case("interpolate", "previous", lambda bad: timestep.interpolate(bad, 1.0, 0.5)),
    Case("interpolate", "current", lambda bad: timestep.interpolate([0.0], bad, 0.5)),
    Case("interpolate", "alpha", lambda bad: timestep.interpolate([0.0], [1.0], bad)),
    Case("step_schedule", "frame_times", lambda bad: timestep.step_schedule(bad, 1 / 60)),
    Case("step_schedule", "dt", lambda bad: timestep.step_schedule([0.02, 0.5], bad)),
    Case("step_schedule", "max_frame_time",
         lambda bad: timestep.step_schedule([0.02, 0.5], 1 / 60, bad)),
]

# --- materials -------------------------------------------------------------------------------


MATERIAL_CASES = [
    *(Case("Material", argument, lambda bad, argument=argument: materials.Material(
        **{argument: bad})) for argument in ("density", "restitution", "friction")),
    Case("Material.preset", "name", lambda bad: materials.Material.preset(bad)),
    *(Case(f"materials.{name}", argument, _with(getattr(materials, name), argument,
                                                 a=0.5, b=[0.2, 0.9]))
      for name in ("mix_restitution", "mix_friction") for argument in ("a", "b")),
]

CASES: list[Case] = [*VEC_CASES, *INTEGRATE_CASES, *TIMESTEP_CASES, *MATERIAL_CASES]
