"""Fuzz cases for the drawing, animation and widget helpers of ``physbook.viz``.

Every case draws on a fresh small figure and closes every figure it opened, so that a long
fuzz run does not pile up figures; animations keep two frames on a one-inch figure.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from fuzz_support import Case
from viz_scenes import BOX, verlet_world, world

import physbook as pb
from physbook.vecmath.vec import Line

viz = pb.viz
PENTAGON = pb.Polygon([(np.cos(t), np.sin(t)) for t in np.arange(5) * 2 * np.pi / 5])
NEAR = pb.Transform((0.6, 0.3), 0.2)  # B overlaps A: every narrow-phase drawing has content
QUICK = {"max_frames": 2, "figsize": (1.0, 1.0)}  # an animation as cheap as one can be
#: Chapter 15's shapes, each drawn with every other argument of draw_shape fuzzed.
ROUND_SHAPES = {
    "capsule": pb.Capsule((-0.5, 0.0), (0.5, 0.2), 0.25),
    "rounded box": pb.Polygon.box(0.5, 0.3, radius=0.1),
    "segment": pb.Segment((-1.0, 0.0), (1.0, 0.5)),
    "chain segment": pb.ChainSegment((-2.0, 0.5), (-1.0, 0.0), (1.0, 0.0), (2.0, 0.5)),
    "chain": pb.Chain([(2.0, 1.0), (1.0, 0.0), (0.0, 0.2), (-1.0, 0.0), (-2.0, 1.0)]),
}


def _closing(call):
    """``call(bad)``, closing every figure it opened, whether it returns or raises."""
    def run(bad):
        before = set(plt.get_fignums())
        try:
            return call(bad)
        finally:
            for number in set(plt.get_fignums()) - before:
                plt.close(number)
    return run


def _on_axes(draw):
    """A case call that draws ``draw(ax, bad)`` on the axes of a fresh figure."""
    def call(bad):
        _, ax = plt.subplots(figsize=(1.0, 1.0))
        return draw(ax, bad)
    return _closing(call)


def _no_class(call):
    # A class is callable; what it raises when called is the callback's own error.
    return lambda bad: None if isinstance(bad, type) else call(bad)


def _recording():
    return world().run(2, 1 / 60)


def _verlet_contact():
    return pb.verlet.VerletContact(depth=0.05, normal=(0.0, 1.0), edge=2, vertex=4,
                                   edge_body=0, vertex_body=1)


def _gjk_step():
    return pb.distance(BOX, pb.Transform(), PENTAGON, pb.Transform((3.0, 0.0)),
                       trace=True).trace[0]


def _epa_step():
    return pb.penetration(BOX, pb.Transform(), PENTAGON, NEAR, trace=True).trace[0]


def _manifold():
    return pb.collide(BOX, pb.Transform(), PENTAGON, NEAR)


def _arguments(function, defaults: dict, positional: tuple = ()):
    """One case per argument: ``function(*positional values, **keyword values)`` with
    ``bad`` in place of that argument; the defaults are made fresh for each call."""
    def call_with(name):
        def call(ax, bad):
            values = {key: make() for key, make in defaults.items()}
            values[name] = bad
            if values.get("ax") is _FRESH:
                values["ax"] = ax
            args = [values.pop(key) for key in positional]
            return function(*args, **values)
        return _on_axes(call)
    return [Case(function.__name__, name, call_with(name)) for name in defaults]


def _fixed(value):
    return lambda: value


_FRESH = object()
AX = _fixed(_FRESH)  # stands for the fresh axes of each call


def _snapshot_columns():
    table = world().contacts
    return viz.contact_snapshot(table)


def _snapshot_case(name):
    def call(bad):
        columns = _snapshot_columns()._asdict()
        columns[name] = bad
        return viz.ContactSnapshot(**columns)
    return Case("ContactSnapshot", name, call)


def _widget_function(speed=1.0):
    return speed


def _widget_case(entry, argument, call, named=""):
    return Case(entry.__name__, argument, _closing(call), named)


CASES = [
    # collision
    Case("convex_hull", "points", viz.convex_hull),
    *_arguments(viz.outline, {"shape": _fixed(pb.Circle(0.5)), "transform": _fixed(None),
                              "samples": _fixed(8)}),
    *_arguments(viz.minkowski_difference,
                {"shape_a": _fixed(BOX), "xf_a": pb.Transform, "shape_b": _fixed(PENTAGON),
                 "xf_b": _fixed(NEAR), "samples": _fixed(8)}),
    *_arguments(viz.draw_convex, {"ax": AX, "shape": _fixed(pb.Circle(0.5)),
                                  "transform": _fixed(None), "color": _fixed("C0"),
                                  "label": _fixed("A"), "alpha": _fixed(0.5),
                                  "samples": _fixed(8)}, ("ax", "shape")),
    *_arguments(viz.draw_manifold, {"ax": AX, "manifold": _manifold, "color": _fixed("C3"),
                                    "arrow": _fixed(0.5)}, ("ax", "manifold")),
    *_arguments(viz.draw_pair, {"ax": AX, "shape_a": _fixed(BOX), "xf_a": pb.Transform,
                                "shape_b": _fixed(PENTAGON), "xf_b": _fixed(NEAR),
                                "manifold": _manifold, "limits": _fixed((-2, 2, -2, 2)),
                                "title": _fixed("pair")},
                ("ax", "shape_a", "xf_a", "shape_b", "xf_b")),
    *_arguments(viz.plot_sat, {"shape_a": _fixed(BOX), "xf_a": pb.Transform,
                               "shape_b": _fixed(PENTAGON), "xf_b": _fixed(NEAR),
                               "limits": _fixed(None), "figsize": _fixed((2.0, 1.0))},
                ("shape_a", "xf_a", "shape_b", "xf_b")),
    *_arguments(viz.draw_sat_axis, {"ax": AX, "shape_a": _fixed(BOX), "xf_a": pb.Transform,
                                    "shape_b": _fixed(PENTAGON), "xf_b": _fixed(NEAR),
                                    "limits": _fixed(None), "clearance": _fixed(0.3)},
                ("ax", "shape_a", "xf_a", "shape_b", "xf_b")),
    *_arguments(viz.plot_clipping, {"polygon_a": _fixed(BOX), "xf_a": pb.Transform,
                                    "polygon_b": _fixed(PENTAGON), "xf_b": _fixed(NEAR),
                                    "manifold": _manifold, "limits": _fixed(None),
                                    "figsize": _fixed((3.0, 1.0))},
                ("polygon_a", "xf_a", "polygon_b", "xf_b", "manifold")),
    *_arguments(viz.draw_minkowski, {"ax": AX, "shape_a": _fixed(BOX), "xf_a": pb.Transform,
                                     "shape_b": _fixed(pb.Circle(0.5)), "xf_b": _fixed(NEAR),
                                     "color": _fixed("C4"), "samples": _fixed(8)},
                ("ax", "shape_a", "xf_a", "shape_b", "xf_b")),
    *_arguments(viz.draw_gjk_step, {"ax": AX, "step": _gjk_step, "color": _fixed("C3")},
                ("ax", "step")),
    *_arguments(viz.draw_epa_step, {"ax": AX, "step": _epa_step, "color": _fixed("C3")},
                ("ax", "step")),
    # impulses
    *(_snapshot_case(name) for name in viz.ContactSnapshot._fields),
    Case("contact_snapshot", "contacts", viz.contact_snapshot),
    *_arguments(viz.draw_contacts, {"ax": AX, "contacts": _snapshot_columns,
                                    "normals": _fixed(True), "impulses": _fixed(True),
                                    "normal_length": _fixed(0.3),
                                    "impulse_scale": _fixed(1.0), "markersize": _fixed(4.0)},
                ("ax", "contacts")),
    *_arguments(viz.plot_bounces, {"ax": AX, "times": _fixed([0.0, 0.1, 0.2]),
                                   "heights": _fixed([1.0, 0.6, 0.8]),
                                   "apex_times": _fixed([0.2]), "apex_heights": _fixed([0.8]),
                                   "analytic_apexes": _fixed([0.79]), "radius": _fixed(0.5),
                                   "label": _fixed("drop")},
                ("ax", "times", "heights", "apex_times", "apex_heights", "analytic_apexes")),
    # integration
    *_arguments(viz.fitted_slope, {"dts": _fixed([0.1, 0.05]), "errors": _fixed([0.4, 0.1])}),
    *_arguments(viz.plot_convergence, {"ax": AX, "dts": _fixed([0.1, 0.05]),
                                       "errors_by_method": _fixed({"rk4": [0.4, 0.1]})},
                ("ax", "dts", "errors_by_method")),
    Case("plot_convergence", "errors_by_method[...]",
         _on_axes(lambda ax, bad: viz.plot_convergence(ax, [0.1, 0.05], {"rk4": bad})),
         named="errors_by_method"),
    *_arguments(viz.draw_orbits, {"ax": AX, "trails": _fixed({"rk4": np.zeros((3, 2))}),
                                  "center": _fixed((0.0, 0.0)), "extent": _fixed(2.0)},
                ("ax", "trails")),
    Case("draw_orbits", "trails[...]",
         _on_axes(lambda ax, bad: viz.draw_orbits(ax, {"rk4": bad})), named="trails"),
    *_arguments(viz.plot_frame_timeline, {"ax": AX, "frame_times": _fixed([0.02, 0.01]),
                                          "steps": _fixed([1, 0]), "label": _fixed("game"),
                                          "color": _fixed(None)},
                ("ax", "frame_times", "steps")),
    # notebook
    Case("animate", "frames", _closing(lambda bad: viz.animate(bad, lambda ax, f: None,
                                                               **QUICK))),
    Case("animate", "draw", _closing(_no_class(lambda bad: viz.animate([1, 2], bad,
                                                                       **QUICK)))),
    Case("animate", "fps", _closing(lambda bad: viz.animate([1, 2], lambda ax, f: None,
                                                            fps=bad, **QUICK))),
    Case("animate", "max_frames", _closing(lambda bad: viz.animate(
        [1, 2], lambda ax, f: None, max_frames=bad, figsize=(1.0, 1.0)))),
    Case("animate", "figsize", _closing(lambda bad: viz.animate(
        [1, 2], lambda ax, f: None, max_frames=2, figsize=bad))),
    Case("animate", "setup", _closing(_no_class(lambda bad: viz.animate(
        [1, 2], lambda ax, f: None, setup=bad, **QUICK)))),
    _widget_case(viz.interact, "function", lambda bad: viz.interact(bad, speed=(0.0, 1.0))),
    _widget_case(viz.interact, "sliders", lambda bad: viz.interact(_widget_function, speed=bad),
                 named="speed"),
    _widget_case(viz.check_widget, "function",
                 lambda bad: viz.check_widget(bad, speed=(0.0, 1.0))),
    _widget_case(viz.check_widget, "sliders",
                 lambda bad: viz.check_widget(_widget_function, speed=bad), named="speed"),
    Case("show_source", "obj", viz.show_source),
    # vectors
    *_arguments(viz.plane, {"ax": AX, "limits": _fixed((-1, 1, -1, 1)), "unit": _fixed("m")},
                ("ax",)),
    *_arguments(viz.draw_vector, {"ax": AX, "vector": _fixed((1.0, 0.5)),
                                  "tail": _fixed((0.0, 0.0)), "label": _fixed("a"),
                                  "color": _fixed("C0"), "width": _fixed(1.0)},
                ("ax", "vector", "tail")),
    Case("draw_vector", "style",
         _on_axes(lambda ax, bad: viz.draw_vector(ax, (1.0, 0.0), linestyle=bad))),
    *_arguments(viz.draw_frame, {"ax": AX, "transform": pb.Transform, "size": _fixed(1.0),
                                 "label": _fixed("body")}, ("ax", "transform", "size")),
    *_arguments(viz.draw_outline, {"ax": AX, "vertices": _fixed([[0, 0], [1, 0], [0, 1]]),
                                   "closed": _fixed(True), "color": _fixed("C0"),
                                   "fill_alpha": _fixed(0.2)}, ("ax", "vertices")),
    Case("draw_outline", "style",
         _on_axes(lambda ax, bad: viz.draw_outline(ax, [[0, 0], [1, 0]], linewidth=bad))),
    *_arguments(viz.clip_to_halfspace, {"vertices": _fixed([[0, 0], [2, 0], [0, 2]]),
                                        "line": _fixed(Line((1.0, 0.0), 0.5)),
                                        "keep": _fixed("back")}),
    *_arguments(viz.draw_line, {"ax": AX, "line": _fixed(Line((1.0, 1.0), 0.5)),
                                "color": _fixed("C3"), "shade": _fixed("back"),
                                "normal_at": _fixed((0.0, 0.0)), "label": _fixed("edge")},
                ("ax", "line")),
    Case("pipeline_diagram", "ax", _closing(viz.pipeline_diagram)),
    # verlet
    *_arguments(viz.verlet_axes, {"ax": AX, "bounds": _fixed((-1, -1, 1, 1)),
                                  "margin": _fixed(0.1), "title": _fixed("walls")}, ("ax",)),
    *_arguments(viz.draw_verlet, {"ax": AX, "frame": verlet_world,
                                  "particles": _fixed(True), "braces": _fixed(True),
                                  "fill": _fixed(True), "color": _fixed("C0"),
                                  "line_width": _fixed(1.0), "particle_size": _fixed(4.0)},
                ("ax", "frame")),
    *_arguments(viz.draw_contact, {"ax": AX, "world": verlet_world,
                                   "contact": _verlet_contact, "color": _fixed("C3")},
                ("ax", "world", "contact")),
    *_arguments(viz.animate_verlet, {"frames": lambda: [verlet_world().snapshot()] * 2,
                                     "bounds": _fixed(None), "fps": _fixed(10.0),
                                     "figsize": _fixed((1.0, 1.0)), "title": _fixed("boxes"),
                                     "max_frames": _fixed(2)}, ("frames",)),
    Case("animate_verlet", "draw_options",
         _closing(lambda bad: viz.animate_verlet([verlet_world()], particles=bad, **QUICK)),
         named="particles"),
    Case("animate_verlet", "draw_options (name)",
         _closing(lambda bad: viz.animate_verlet([verlet_world()], **{str(bad): True},
                                                 **QUICK)), named="draw_options"),
    # world
    *_arguments(viz.body_color, {"kind": _fixed(0), "body_id": _fixed(3)}),
    *_arguments(viz.draw_shape, {"ax": AX, "shape": _fixed(BOX), "transform": _fixed(None),
                                 "color": _fixed("C0"), "alpha": _fixed(0.5),
                                 "edgecolor": _fixed("k"), "linewidth": _fixed(1.0)},
                ("ax", "shape", "transform")),
    *[Case(f"draw_shape ({label})", case.argument, case.call)
      for label, shape in ROUND_SHAPES.items()
      for case in _arguments(viz.draw_shape, {"ax": AX, "shape": _fixed(shape),
                                              "transform": _fixed(None),
                                              "color": _fixed("C0"), "alpha": _fixed(0.5),
                                              "edgecolor": _fixed("k"),
                                              "linewidth": _fixed(1.0)},
                             ("ax", "shape", "transform"))
      if case.argument != "shape"],
    *[Case(f"draw_bodies ({label})", case.argument, case.call)
      for label, shape in ROUND_SHAPES.items() if label != "chain"
      for case in _arguments(viz.draw_bodies, {"ax": AX, "shapes": _fixed([(shape,)]),
                                               "kinds": _fixed([1]), "body_ids": _fixed([0]),
                                               "origins": _fixed([[0.0, 0.0]]),
                                               "angles": _fixed([0.3]),
                                               "centers": _fixed(None),
                                               "aabbs": _fixed(True), "alpha": _fixed(0.5)},
                             ("ax", "shapes", "kinds", "body_ids", "origins", "angles",
                              "centers"))
      if case.argument != "shapes"],
    *[Case(f"outline ({label})", case.argument, case.call)
      for label, shape in ROUND_SHAPES.items() if label != "chain"
      for case in _arguments(viz.outline, {"shape": _fixed(shape), "transform": _fixed(None),
                                           "samples": _fixed(8)})
      if case.argument != "shape"],
    *_arguments(viz.draw_bodies, {"ax": AX, "shapes": _fixed([(pb.Circle(0.5),)]),
                                  "kinds": _fixed([0]), "body_ids": _fixed([0]),
                                  "origins": _fixed([[0.0, 0.0]]), "angles": _fixed([0.0]),
                                  "centers": _fixed(None), "aabbs": _fixed(True),
                                  "alpha": _fixed(0.5)},
                ("ax", "shapes", "kinds", "body_ids", "origins", "angles", "centers")),
    *_arguments(viz.draw_world, {"ax": AX, "world": world, "aabbs": _fixed(False),
                                 "centers": _fixed(True), "alpha": _fixed(0.5),
                                 "contacts": _fixed(True), "impulses": _fixed(True),
                                 "impulse_scale": _fixed(1.0)}, ("ax", "world")),
    *_arguments(viz.draw_snapshot, {"ax": AX, "frame": lambda: _recording().frame(1),
                                    "aabbs": _fixed(False), "centers": _fixed(True),
                                    "alpha": _fixed(0.5)}, ("ax", "frame")),
    *_arguments(viz.recording_limits, {"recording": _recording, "margin": _fixed(0.05)}),
    *_arguments(viz.play, {"recording": _recording, "limits": _fixed(None),
                           "aabbs": _fixed(False), "fps": _fixed(10.0),
                           "max_frames": _fixed(2), "figsize": _fixed((1.0, 1.0))},
                ("recording",)),
]
