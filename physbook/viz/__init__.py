"""Drawing, animation and widgets for the book. The engine itself never imports this.

Each sub-module belongs to the chapters that need it; everything is re-exported here, so
chapters write ``pb.viz.animate(...)``, ``pb.viz.draw_world(...)``. It draws with
matplotlib and makes sliders with ipywidgets, which the engine does not need: they come
with the ``viz`` extra (``pip install "physbook[viz]"``).
"""

from physbook.viz import _requirements  # noqa: F401 (first: says what is missing)
from physbook.viz.boxes import box_outlines, draw_boxes, draw_grid, draw_pairs, draw_tree
from physbook.viz.collision import (
    COLOR_A,
    COLOR_B,
    COLOR_CONTACT,
    convex_hull,
    draw_convex,
    draw_epa_step,
    draw_gjk_step,
    draw_manifold,
    draw_minkowski,
    draw_pair,
    draw_sat_axis,
    gjk_legend,
    limits_with_origin,
    minkowski_difference,
    outline,
    plot_clipping,
    plot_sat,
)
from physbook.viz.debug_draw import MatplotlibDraw, draw_debug
from physbook.viz.frame_encoding import FrameEncoder, decode_frame
from physbook.viz.game_view import GameView
from physbook.viz.impulses import (
    ContactSnapshot,
    contact_snapshot,
    draw_contacts,
    plot_bounces,
)
from physbook.viz.integration import (
    METHOD_COLORS,
    draw_orbits,
    fitted_slope,
    plot_convergence,
    plot_frame_timeline,
)
from physbook.viz.joint_diagrams import JOINT_ROWS, draw_joint_diagram
from physbook.viz.linkage import draw_joints, joint_anchor_pairs
from physbook.viz.notebook import setup_notebook, show_source, version_problems
from physbook.viz.pipeline import pipeline_diagram
from physbook.viz.player import FRAME_BUDGET, animate
from physbook.viz.replay import replay_player
from physbook.viz.timestepping import animate_judder, draw_judder_frame
from physbook.viz.vectors import (
    clip_to_halfspace,
    draw_frame,
    draw_line,
    draw_outline,
    draw_vector,
    plane,
)
from physbook.viz.verlet import animate_verlet, draw_contact, draw_verlet, verlet_axes
from physbook.viz.widgets import check_widget, interact
from physbook.viz.world import (
    body_color,
    draw_bodies,
    draw_shape,
    draw_snapshot,
    draw_world,
    play,
    recording_limits,
)

__all__ = [
    "MatplotlibDraw",
    "draw_debug",
    "FrameEncoder",
    "decode_frame",
    "GameView",
    "replay_player",
    "box_outlines",
    "draw_boxes",
    "draw_grid",
    "draw_pairs",
    "draw_tree",
    "COLOR_A",
    "COLOR_B",
    "COLOR_CONTACT",
    "convex_hull",
    "draw_convex",
    "draw_epa_step",
    "draw_gjk_step",
    "draw_manifold",
    "draw_minkowski",
    "draw_pair",
    "minkowski_difference",
    "outline",
    "plot_clipping",
    "plot_sat",
    "draw_sat_axis",
    "gjk_legend",
    "limits_with_origin",
    "ContactSnapshot",
    "contact_snapshot",
    "draw_contacts",
    "plot_bounces",
    "animate_verlet",
    "draw_contact",
    "draw_verlet",
    "verlet_axes",
    "body_color",
    "draw_bodies",
    "draw_shape",
    "draw_snapshot",
    "draw_world",
    "play",
    "recording_limits",
    "animate_judder",
    "draw_judder_frame",
    "draw_joints",
    "joint_anchor_pairs",
    "JOINT_ROWS",
    "draw_joint_diagram",
    "METHOD_COLORS",
    "draw_orbits",
    "fitted_slope",
    "plot_convergence",
    "plot_frame_timeline",
    "clip_to_halfspace",
    "draw_frame",
    "draw_line",
    "draw_outline",
    "pipeline_diagram",
    "draw_vector",
    "plane",
    "FRAME_BUDGET",
    "animate",
    "check_widget",
    "interact",
    "setup_notebook",
    "show_source",
    "version_problems",
]
