"""physbook: a 2D rigid-body physics engine for games, built chapter by chapter in the book.

``import physbook as pb`` gives the public API. Drawing and widgets live in ``pb.viz``,
imported on first use so that the engine itself runs headless without matplotlib.
"""

from physbook.aabb_contacts import aabb_vs_aabb, aabb_vs_circle, circle_vs_aabb
from physbook.broadphase import BROAD_PHASES, naive_pairs, sweep_pairs
from physbook.contacts import Contacts
from physbook.gjk import (
    DistanceResult,
    EpaStep,
    GjkStep,
    PenetrationResult,
    distance,
    intersect,
    minkowski_support,
    penetration,
    support_point,
)
from physbook.integrate import (
    explicit_euler_step,
    position_verlet_start,
    position_verlet_step,
    rk4_step,
    simulate,
    symplectic_euler_step,
    velocity_verlet_step,
)
from physbook.manifold import ContactArrays, Manifold, collide, collide_pairs, feature_parts
from physbook.materials import (
    DEFAULT_MATERIAL,
    MATERIALS,
    Material,
    mix_friction,
    mix_restitution,
)
from physbook.sat import SatAxes, SatResult, make_feature, sat_axes, sat_query
from physbook.scenes import Scene
from physbook.shapes import AABB, Circle, MassData, Polygon, ShapeTable
from physbook.solver import SOLVERS, ImpulseSolver
from physbook.timestep import FixedTimestep, interpolate, step_schedule
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
from physbook.verlet import (
    VerletBody,
    VerletContact,
    VerletSnapshot,
    VerletWorld,
    verlet_demo_world,
)
from physbook.world import DYNAMIC, KINEMATIC, STATIC, Body, Frame, Recording, World

__version__ = "0.1.0"

__all__ = [
    "BROAD_PHASES",
    "naive_pairs",
    "sweep_pairs",
    "Contacts",
    "Scene",
    "SOLVERS",
    "ImpulseSolver",
    "aabb_vs_aabb",
    "aabb_vs_circle",
    "circle_vs_aabb",
    "DistanceResult",
    "EpaStep",
    "GjkStep",
    "PenetrationResult",
    "distance",
    "intersect",
    "minkowski_support",
    "penetration",
    "support_point",
    "ContactArrays",
    "Manifold",
    "collide",
    "collide_pairs",
    "feature_parts",
    "SatAxes",
    "SatResult",
    "make_feature",
    "sat_axes",
    "sat_query",
    "VerletBody",
    "VerletContact",
    "VerletSnapshot",
    "VerletWorld",
    "verlet_demo_world",
    "AABB",
    "Circle",
    "MassData",
    "Polygon",
    "ShapeTable",
    "DEFAULT_MATERIAL",
    "MATERIALS",
    "Material",
    "mix_friction",
    "mix_restitution",
    "DYNAMIC",
    "KINEMATIC",
    "STATIC",
    "Body",
    "Frame",
    "Recording",
    "World",
    "explicit_euler_step",
    "position_verlet_start",
    "position_verlet_step",
    "rk4_step",
    "simulate",
    "symplectic_euler_step",
    "velocity_verlet_step",
    "FixedTimestep",
    "interpolate",
    "step_schedule",
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
