"""physbook: a 2D rigid-body physics engine for games, built chapter by chapter in the book.

``import physbook as pb`` gives the public API. Drawing and widgets live in ``pb.viz``,
imported on first use so that the engine itself runs headless without matplotlib.
"""

from physbook.vec import (
    Line,
    Transform,
    closest_point_on_segment,
    cross,
    cross_scalar_vector,
    cross_vector_scalar,
    dot,
    length,
    normalize,
    perp,
    rotate,
    rotation_matrix,
)

__version__ = "0.1.0"

__all__ = [
    "Line",
    "Transform",
    "closest_point_on_segment",
    "cross",
    "cross_scalar_vector",
    "cross_vector_scalar",
    "dot",
    "length",
    "normalize",
    "perp",
    "rotate",
    "rotation_matrix",
]


def __getattr__(name):
    # pb.viz is imported lazily: it pulls in matplotlib, which the engine must not need.
    if name == "viz":
        import importlib

        return importlib.import_module("physbook.viz")
    raise AttributeError(f"module 'physbook' has no attribute {name!r}")
