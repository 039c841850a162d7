"""Drawing, animation and widgets for the book. The engine itself never imports this.

Each sub-module belongs to the chapters that need it; everything is re-exported here, so
chapters write ``pb.viz.animate(...)``, ``pb.viz.draw_world(...)``.
"""

from physbook.viz.integration import (
    METHOD_COLORS,
    draw_orbits,
    fitted_slope,
    plot_convergence,
    plot_frame_timeline,
)
from physbook.viz.notebook import (
    FRAME_BUDGET,
    animate,
    check_widget,
    interact,
    setup_notebook,
    show_source,
    version_problems,
)
from physbook.viz.vectors import (
    PIPELINE_STAGES,
    clip_to_halfspace,
    draw_frame,
    draw_line,
    draw_outline,
    draw_pipeline,
    draw_vector,
    plane,
)
from physbook.viz.verlet import animate_verlet, draw_contact, draw_verlet, verlet_axes
from physbook.viz.world import (
    body_colour,
    draw_bodies,
    draw_shape,
    draw_snapshot,
    draw_world,
    play,
    recording_limits,
)

__all__ = [
    "animate_verlet",
    "draw_contact",
    "draw_verlet",
    "verlet_axes",
    "body_colour",
    "draw_bodies",
    "draw_shape",
    "draw_snapshot",
    "draw_world",
    "play",
    "recording_limits",
    "METHOD_COLORS",
    "draw_orbits",
    "fitted_slope",
    "plot_convergence",
    "plot_frame_timeline",
    "PIPELINE_STAGES",
    "clip_to_halfspace",
    "draw_frame",
    "draw_line",
    "draw_outline",
    "draw_pipeline",
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
