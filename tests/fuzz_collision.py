"""Fuzz cases for collision (narrow phase, SAT, GJK/EPA, features, box tests), the broad
phase and the scenes with their quality measures.

The compiled kernels (``max_separation``, ``polygon_contact``, ``collide_rows``,
``shape_filters``, ...) and the numpy method ``compare_every_pair`` take arrays the engine
built and check nothing, by design; their checked entry points are listed here instead.
"""

from __future__ import annotations

import numpy as np
from fuzz_support import Case

import physbook as pb
from physbook.broadphase import broad_phase
from physbook.broadphase.filters import ShapeFilters
from physbook.broadphase.pairs import ShapeBoxes, canonical_pairs, stage_input
from physbook.collision import aabb_contacts, features, gjk, sat, toi
from physbook.geometry.shape_table import ShapeTable
from physbook.scenes import base, quality

# ----------------------------------------------------------------------------------------
# Narrow phase and queries on two shapes


def _pair_arguments():
    """A box and a circle that overlap, as the four arguments of a pair query."""
    return {"shape_a": pb.Polygon.box(0.5, 0.5), "xf_a": pb.Transform(),
            "shape_b": pb.Circle(0.5), "xf_b": pb.Transform((0.8, 0.1))}


def _box_pair_arguments():
    return {"polygon_a": pb.Polygon.box(0.5, 0.5), "xf_a": pb.Transform(),
            "polygon_b": pb.Polygon.box(0.4, 0.3), "xf_b": pb.Transform((0.8, 0.1), 0.2)}


def _pair_query(name: str, function, argument: str, make=_pair_arguments, **extra):
    def call(bad):
        arguments = {**make(), **extra, argument: bad}
        return function(**arguments)
    return Case(name, argument, call)


PAIR_QUERIES = {"collide": pb.collide, "distance": pb.distance,
                "penetration": pb.penetration, "intersect": pb.intersect,
                "sat_axes": sat.sat_axes, "sat_query": sat.sat_query,
                "b_comes_first": sat.b_comes_first, "check_shape_pair": sat.check_shape_pair}


def _table():
    table = ShapeTable()
    table.append(pb.Polygon.box(0.5, 0.5), 0)
    table.append(pb.Circle(0.5), 1)
    return table


def _collide_pairs(argument: str):
    def call(bad):
        arguments = {"pairs": [[0, 1]], "shapes": _table(),
                     "origins": np.array([[0.0, 0.0], [0.8, 0.1]]), "angles": np.zeros(2),
                     argument: bad}
        return pb.collide_pairs(**arguments)
    return Case("collide_pairs", argument, call)


def _core():
    return gjk.Core(pb.Polygon.box(0.5, 0.5), pb.Transform())


def _gjk_loop(argument: str):
    def call(bad):
        arguments = {"core_a": _core(), "core_b": gjk.Core(pb.Circle(0.5),
                                                           pb.Transform((0.6, 0.0))),
                     "keep_trace": False, argument: bad}
        return gjk.gjk(**arguments)
    return Case("gjk.gjk", argument, call)


def _epa_loop(argument: str):
    def call(bad):
        core_a, core_b = _core(), gjk.Core(pb.Circle(0.5), pb.Transform((0.6, 0.0)))
        solution, *_ = gjk.gjk(core_a, core_b)
        arguments = {"core_a": core_a, "core_b": core_b,
                     "simplex": np.array([vertex.w for vertex in solution[0]]),
                     "keep_trace": False, argument: bad}
        return gjk.epa(**arguments)
    return Case("gjk.epa", argument, call)


def _core_case(argument: str):
    def call(bad):
        arguments = {"shape": pb.Circle(0.5), "transform": pb.Transform(),
                     "frame": gjk.UNIT_FRAME, "name": "shape_a", argument: bad}
        return gjk.Core(**arguments)
    return Case("gjk.Core", argument, call)


def _support_point(argument: str):
    def call(bad):
        arguments = {"shape": pb.Polygon.box(0.5, 0.5), "transform": pb.Transform(),
                     "direction": (1.0, 0.2), argument: bad}
        return gjk.support_point(**arguments)
    return Case("gjk.support_point", argument, call)


def _aabb_case(function, argument: str, defaults):
    def call(bad):
        return function(**{**defaults(), argument: bad})
    return Case(f"aabb_contacts.{function.__name__}", argument, call)


def _box():
    return pb.AABB((0.0, 0.0), (1.0, 1.0))


def _circle():
    return pb.Circle(0.3, (1.1, 0.5))


NARROW_PHASE = [
    *(_pair_query(name, function, argument)
      for name, function in PAIR_QUERIES.items()
      for argument in ("shape_a", "xf_a", "shape_b", "xf_b")),
    _pair_query("collide", pb.collide, "margin"),
    _pair_query("distance", pb.distance, "trace"),
    _pair_query("penetration", pb.penetration, "trace"),
    *(_pair_query("clipping_steps", sat.clipping_steps, argument, _box_pair_arguments)
      for argument in ("polygon_a", "xf_a", "polygon_b", "xf_b")),
    *(_collide_pairs(argument) for argument in ("pairs", "shapes", "origins", "angles",
                                                 "margin")),
    Case("ContactArrays.manifold", "row",
         lambda bad: pb.collide_pairs([[0, 1]], _table(), np.zeros((2, 2)),
                                      np.zeros(2)).manifold(bad)),
    *(_support_point(argument) for argument in ("shape", "transform", "direction")),
    *(Case("gjk.minkowski_support", argument,
           lambda bad, argument=argument: gjk.minkowski_support(
               **{**_pair_arguments(), "direction": (0.0, 1.0), argument: bad}))
      for argument in ("shape_a", "xf_a", "shape_b", "xf_b", "direction")),
    *(_core_case(argument) for argument in ("shape", "transform", "frame", "name")),
    Case("gjk.Core.support", "direction", lambda bad: _core().support(bad)),
    *(_gjk_loop(argument) for argument in ("core_a", "core_b", "keep_trace")),
    *(_epa_loop(argument) for argument in ("core_a", "core_b", "simplex", "keep_trace")),
    _aabb_case(aabb_contacts.aabb_vs_aabb, "a", lambda: {"a": _box(), "b": _box()}),
    _aabb_case(aabb_contacts.aabb_vs_aabb, "b", lambda: {"a": _box(), "b": _box()}),
    _aabb_case(aabb_contacts.aabb_vs_circle, "box", lambda: {"box": _box(),
                                                            "circle": _circle()}),
    _aabb_case(aabb_contacts.aabb_vs_circle, "circle", lambda: {"box": _box(),
                                                               "circle": _circle()}),
    _aabb_case(aabb_contacts.circle_vs_aabb, "circle", lambda: {"circle": _circle(),
                                                               "box": _box()}),
    _aabb_case(aabb_contacts.circle_vs_aabb, "box", lambda: {"circle": _circle(),
                                                            "box": _box()}),
    Case("features.make_feature", "feature_a", lambda bad: features.make_feature(bad, 3)),
    Case("features.make_feature", "feature_b", lambda bad: features.make_feature(3, bad)),
    Case("features.feature_parts", "feature", features.feature_parts),
    Case("features.swap_feature", "feature", features.swap_feature),
]

# ----------------------------------------------------------------------------------------
# Broad phase


def _stage_arguments():
    boxes = ShapeBoxes(np.array([[0.0, 0.0], [0.5, 0.5], [3.0, 0.0]]),
                       np.array([[1.0, 1.0], [1.5, 1.5], [4.0, 1.0]]))
    filters = ShapeFilters(np.array([0, 1, 2]), np.array([1, 1, 1]), np.array([1, 1, -1]),
                           np.array([0, 0, -1]), np.array([True, True, False]))
    return boxes, filters


def _broad_phase_case(name: str, function, argument: str):
    """``argument`` is "boxes", "filters" or one of their fields, e.g. "boxes.lower"."""
    def call(bad):
        boxes, filters = _stage_arguments()
        if argument == "boxes":
            boxes = bad
        elif argument == "filters":
            filters = bad
        elif argument.startswith("boxes."):
            boxes = boxes._replace(**{argument.split(".")[1]: bad})
        else:
            filters = filters._replace(**{argument.split(".")[1]: bad})
        return function(boxes, filters)
    return Case(name, argument, call)


STAGE_ARGUMENTS = ("boxes", "filters", "boxes.lower", "boxes.upper", "filters.body",
                   "filters.category", "filters.mask", "filters.group", "filters.dynamic")

BROAD_PHASE = [
    *(_broad_phase_case(f"BROAD_PHASES[{name!r}]", function, argument)
      for name, function in pb.BROAD_PHASES.items() for argument in STAGE_ARGUMENTS),
    *(_broad_phase_case(f"STAGES[{name!r}]()", lambda boxes, filters, stage=stage:
                        stage()(boxes, filters), argument)
      for name, stage in pb.broadphase.STAGES.items() for argument in STAGE_ARGUMENTS),
    *(_broad_phase_case("stage_input", stage_input, argument)
      for argument in STAGE_ARGUMENTS),
    Case("grid_pairs", "cell_size", lambda bad: pb.broadphase.grid_pairs(
        *_stage_arguments(), cell_size=bad)),
    Case("UniformGrid", "cell_size", lambda bad: pb.UniformGrid(bad)),
    Case("DynamicTree", "margin", lambda bad: pb.DynamicTree(margin=bad)),
    Case("DynamicTree", "prediction", lambda bad: pb.DynamicTree(prediction=bad)),
    Case("DynamicTree.query", "lower", lambda bad: pb.DynamicTree().query(bad, (1.0, 1.0))),
    Case("DynamicTree.query", "upper", lambda bad: pb.DynamicTree().query((0.0, 0.0), bad)),
    Case("DynamicTree.segment_query", "origin",
         lambda bad: pb.DynamicTree().segment_query(bad, (1.0, 1.0))),
    Case("DynamicTree.segment_query", "translation",
         lambda bad: pb.DynamicTree().segment_query((0.0, 0.0), bad)),
    Case("Filter", "category", lambda bad: pb.Filter(category=bad)),
    Case("Filter", "mask", lambda bad: pb.Filter(mask=bad)),
    Case("Filter", "group", lambda bad: pb.Filter(group=bad)),
    Case("Filter.layers", "layers", lambda bad: pb.Filter.layers(bad)),
    # Its message names the World argument the name or function was given as.
    Case("broad_phase", "name_or_function", broad_phase, named="broad_phase"),
    Case("canonical_pairs", "pairs", canonical_pairs),
    Case("canonical_pairs", "name", lambda bad: canonical_pairs([[1, 0]], bad)),
]

# ----------------------------------------------------------------------------------------
# Time of impact (chapter 13)


def _toi_arguments():
    return {"shape_a": pb.Circle(0.1), "sweep_a": toi.sweep((0.0, 0.0), (2.0, 0.0)),
            "shape_b": pb.Polygon.box(0.01, 1.0), "sweep_b": toi.sweep((1.0, 0.0), (1.0, 0.0))}


def _toi_case(argument: str):
    def call(bad):
        return toi.time_of_impact(**{**_toi_arguments(), argument: bad})
    return Case("time_of_impact", argument, call)


def _sweep_case(argument: str):
    def call(bad):
        return toi.sweep(**{"c0": (0.0, 0.0), "c1": (1.0, 0.0), argument: bad})
    return Case("sweep", argument, call)


TIME_OF_IMPACT = [
    *(_toi_case(argument) for argument in ("shape_a", "sweep_a", "shape_b", "sweep_b",
                                           "t_max", "target", "tolerance")),
    *(_sweep_case(argument) for argument in ("c0", "c1", "a0", "a1", "local_center")),
    Case("shape_distance", "shape_a", lambda bad: toi.shape_distance(
        bad, pb.Transform(), pb.Circle(1.0), pb.Transform())),
    Case("shape_distance", "transform_a", lambda bad: toi.shape_distance(
        pb.Circle(1.0), bad, pb.Circle(1.0), pb.Transform())),
    Case("DynamicTree.query_many", "lowers", lambda bad: pb.DynamicTree().query_many(
        bad, np.ones((1, 2)))),
    Case("DynamicTree.query_many", "uppers", lambda bad: pb.DynamicTree().query_many(
        np.zeros((1, 2)), bad)),
]

# ----------------------------------------------------------------------------------------
# Scenes and their measures

#: Each scene function with small sizes, so that a valid value builds quickly.
SMALL_SCENES = {
    "bounce": {}, "ramp": {}, "pyramid": {"base": 3}, "rain": {"n": 10},
    "boxes": {"n": 10}, "vertical_stack": {"count": 3}, "large_pyramid": {},
    "card_house": {"levels": 1}, "arch": {}, "high_mass_ratio": {},
    "overlap_recovery": {"base": 2}, "box_cluster": {"count": 3},
    "pendulum": {}, "cradle": {"count": 2}, "chain": {"links": 2},
    "bridge": {"planks": 3, "boxes": 1}, "ragdoll": {}, "car": {"bumps": 1},
    "shot_at_wall": {}, "spinning_rod": {}, "bullets": {"count": 2},
    "tumbler": {"count": 2}, "platform": {"columns": 2, "rows": 2},
    "vice": {"columns": 2, "rows": 2},
    "tile_floor": {"tiles": 4}, "chain_slope": {}, "capsule_character": {},
    "marble_run": {"marbles": 3}, "platformer": {},
}

SCENE_ARGUMENTS = {
    "bounce": ("world", "height", "radius", "restitution"),
    "ramp": ("world", "angle", "frictions"),
    "pyramid": ("base", "world"), "rain": ("n", "world"), "boxes": ("n", "world"),
    "vertical_stack": ("count", "world", "friction"), "large_pyramid": ("world",),
    "card_house": ("levels", "world"), "arch": ("world", "friction"),
    "high_mass_ratio": ("world", "densities"), "overlap_recovery": ("base", "world", "overlap"),
    "box_cluster": ("count", "world"),
    "pendulum": ("world", "length", "angle", "radius"),
    "cradle": ("world", "count", "radius", "length", "release_angle_degrees"),
    "chain": ("world", "links", "link_length"),
    "bridge": ("world", "planks", "boxes", "slack"),
    "ragdoll": ("world", "height", "spin"),
    "car": ("world", "motor_speed", "max_motor_torque", "suspension_hertz", "bumps"),
    "shot_at_wall": ("speed", "thickness", "radius", "world"),
    "spinning_rod": ("height", "spin", "world"), "bullets": ("count", "speed", "world"),
    "tumbler": ("count", "world", "density", "turn_rate"),
    "platform": ("columns", "rows", "world", "speed", "travel", "density"),
    "vice": ("columns", "rows", "world", "force", "speed", "density"),
    "tile_floor": ("tiles", "body", "floor", "speed", "friction", "world"),
    "chain_slope": ("angle", "frictions", "world"), "capsule_character": ("world",),
    "marble_run": ("marbles", "world"), "platformer": ("world",),
}
assert set(SCENE_ARGUMENTS) == set(pb.scenes.SCENES)


def _scene_case(name: str, argument: str):
    def call(bad):
        return pb.scenes.SCENES[name](**{**SMALL_SCENES[name], argument: bad})
    return Case(f"scenes.{name}", argument, call)


def _measure(function, defaults: dict, argument: str):
    def call(bad):
        return function(**{**defaults, argument: bad})
    return Case(f"scenes.{function.__name__}", argument, call)


_CENTERS = np.array([[0.0, 0.5], [1.0, 0.5], [0.5, 1.5]])
MEASURES = {
    quality.bounce_apexes: {"height": 10.0, "radius": 0.5, "restitution": 0.5, "count": 4},
    quality.apex_heights: {"heights": np.array([3.0, 1.0, 2.0, 1.0, 1.5, 1.0]), "count": 2},
    quality.ramp_motion: {"distances": np.array([[5.0], [4.9], [4.6], [4.1]]), "dt": 0.1,
                          "slide_threshold": 0.1},
    quality.ramp_accelerations: {"angle": 0.25, "frictions": [0.1, 0.5], "gravity": 10.0},
    quality.pyramid_quality: {"start_centers": _CENTERS, "end_centers": _CENTERS + 0.01,
                              "end_angles": np.zeros(3), "top": -1},
    quality.container_quality: {"centers": _CENTERS, "radius": 0.5, "half_width": 20.0},
    quality.structure_quality: {"start_centers": _CENTERS, "end_centers": _CENTERS + 0.01,
                                "start_angles": np.zeros(3), "end_angles": np.zeros(3),
                                "top": -1, "max_displacement": 0.5, "max_turn": 0.2},
    quality.recovery_quality: {"deepest": np.array([0.2, 0.05, 0.0]),
                               "fastest": np.array([1.0, 0.5, 0.1]), "dt": 1 / 60,
                               "tolerance": 0.01},
    base.per_body_value: {"pair_value": 0.5, "partner_value": 0.8,
                          "mix": pb.mix_friction, "upper": 1.0e3},
    base.uniform_material: {"friction": 0.6, "restitution": 0.2, "density": 1.0},
    pb.scenes.rain_positions: {"n": 10},
    quality.polygon_depths: {"polygons": np.array([[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]]),
                             "polygon": np.array([[0.5, 0.0], [2.0, 0.0], [0.5, 1.0]])},
    quality.placed: {"vertices": np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
                     "origins": _CENTERS, "angles": np.zeros(3)},
    quality.deepest_sink: {"box_origins": _CENTERS, "box_angles": np.zeros(3),
                           "half_extent": 0.5,
                           "heavy_polygons": [np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])]},
    quality.glide_quality: {"velocities": np.array([[5.0, 0.0], [4.9, 0.01], [4.9, 0.0]]),
                            "speed": 5.0, "catch_drop": 0.01},
    quality.run_quality: {"centers": _CENTERS, "wall_x": 6.5, "bin_floor": -1.0,
                          "bin_top": 1.0, "radius": 0.15},
    quality.sink_quality: {"deepest": np.array([0.2, 0.05, 0.0]), "dt": 1 / 60,
                           "heavy_speeds": np.array([1.0, 0.0, 0.0]), "rest_speed": 0.01,
                           "settle": 0.02},
}


def _scene(argument: str):
    def call(bad):
        arguments = {"name": "empty", "world": pb.World(), "steps": 2, "dt": 1 / 60,
                     "bodies": {}, "params": {}, argument: bad}
        return base.Scene(**arguments)
    return Case("scenes.Scene", argument, call)


SCENES = [
    *(_scene_case(name, argument) for name, arguments in SCENE_ARGUMENTS.items()
      for argument in arguments),
    *(_measure(function, defaults, argument) for function, defaults in MEASURES.items()
      for argument in defaults),
    *(_scene(argument) for argument in ("name", "world", "steps", "dt", "bodies", "params")),
    Case("scenes.Scene.run", "steps",
         lambda bad: base.Scene("empty", pb.World(), 2).run(bad)),
    Case("scenes.base.scene_size", "value", lambda bad: base.scene_size(bad, "value")),
    Case("scenes.base.body_value", "pair_value",
         lambda bad: base.body_value(bad, 1.0, pb.mix_friction, "friction"), named="friction"),
    Case("scenes.base.body_value", "partner_value",
         lambda bad: base.body_value(0.5, bad, pb.mix_friction, "friction")),
    Case("scenes.base.body_value", "mix",
         lambda bad: base.body_value(0.5, 1.0, bad, "friction")),
]

CASES: list[Case] = [*NARROW_PHASE, *BROAD_PHASE, *TIME_OF_IMPACT, *SCENES]
