"""Drawing, animation and widgets for the book. The engine itself never imports this.

Each sub-module belongs to the chapters that need it; everything is re-exported here, so
chapters write ``pb.viz.animate(...)``, ``pb.viz.draw_world(...)``.
"""

from physbook.viz.notebook import (
    FRAME_BUDGET,
    animate,
    check_widget,
    interact,
    setup_notebook,
    show_source,
    version_problems,
)

__all__ = [
    "FRAME_BUDGET",
    "animate",
    "check_widget",
    "interact",
    "setup_notebook",
    "show_source",
    "version_problems",
]
