"""physbook: a 2D rigid-body physics engine for games, built chapter by chapter in the book.

``import physbook as pb`` gives the engine: a :class:`World` of bodies made of
:class:`Circle`, :class:`Polygon` (sharp or rounded), :class:`Capsule`, :class:`Segment` and
:class:`Chain` shapes and :class:`Material` s, the narrow-phase and
distance queries, and the stages a world can be given. The layers it is built from are
subpackages, each importing only the ones below it:

========== ================================================================== ======
layer      what                                                               chapters
========== ================================================================== ======
0          ``_jit``, ``_check``, ``_buffers``, ``constants``, ``kinds``
1          ``vecmath``: vectors, integrators, the fixed timestep              1–3
2          ``geometry``: shapes, mass, the shape table                        4, 14, 15
3          ``collision``: manifolds, SAT, GJK/EPA, shape queries;             6–9, 12
           ``broadphase``: filters, sweep, grid, tree
4          ``dynamics``: bodies, contacts, solvers, joints, islands           4, 9–11
5          ``world``, ``stages``, ``recording``, ``queries``, ``events``,     4, 9, 12
           ``scenes``
6          ``games``: games that log their inputs and replay them              17
========== ================================================================== ======

``pb.verlet`` is chapter 5's position-based engine (layers 0–2 only) and ``pb.viz`` the
drawing, animation and widgets of the book, imported on first use so that the engine runs
headless without matplotlib.
"""

from physbook import (
    broadphase,
    collision,
    constants,
    dynamics,
    events,
    games,
    geometry,
    kinds,
    queries,
    recording,
    scenes,
    stages,
    vecmath,
    verlet,
    world,
)
from physbook.broadphase import BROAD_PHASES, DynamicTree, SortAndSweep, UniformGrid
from physbook.character import CharacterMover
from physbook.collision.gjk import (
    DistanceResult,
    PenetrationResult,
    distance,
    intersect,
    penetration,
)
from physbook.collision.manifold import ContactArrays, Manifold, collide, collide_pairs
from physbook.contact_hooks import ContactRule, PreSolveContact
from physbook.dynamics.body import Body
from physbook.dynamics.joints import (
    DistanceJoint,
    Joint,
    MotorJoint,
    MouseJoint,
    PrismaticJoint,
    RevoluteJoint,
    WeldJoint,
    WheelJoint,
)
from physbook.dynamics.materials import (
    DEFAULT_MATERIAL,
    MATERIALS,
    Material,
    mix_friction,
    mix_restitution,
)
from physbook.dynamics.solvers import (
    SOLVERS,
    ImpulseSolver,
    SequentialImpulseSolver,
    SoftStepSolver,
)
from physbook.events import Contact, ContactEvents, Hit, HitEvents, SensorEvents
from physbook.explosion import BlastHit
from physbook.geometry.decompose import DECOMPOSITION_METHODS, decompose, triangulate
from physbook.geometry.hull import HULL_METHODS, convex_hull, is_convex, is_simple, orientation
from physbook.geometry.round_shapes import Capsule, Chain, ChainSegment, Segment
from physbook.geometry.shape_filter import ALL_CATEGORIES, Filter
from physbook.geometry.shapes import AABB, Circle, MassData, Polygon
from physbook.kinds import DYNAMIC, KINEMATIC, STATIC
from physbook.queries import RayHit, ShapeRef
from physbook.recording import Frame, Recording
from physbook.shape_cast import CastHit
from physbook.snapshots import Snapshot
from physbook.vecmath.timestep import FixedTimestep, interpolate
from physbook.vecmath.vec import Transform
from physbook.world import World
from physbook.world_files import load_world
from physbook.world_files import save as save_world

__version__ = "0.6.7"  # the one place the version is written (pyproject reads it)

__all__ = [
    # the world and its bodies
    "World", "Body", "Recording", "Frame", "DYNAMIC", "STATIC", "KINEMATIC",
    # joints (chapter 11)
    "Joint", "DistanceJoint", "RevoluteJoint", "PrismaticJoint", "WeldJoint", "WheelJoint",
    "MotorJoint", "MouseJoint",
    # what bodies are made of
    "Circle", "Polygon", "AABB", "MassData", "Transform",
    "Capsule", "Segment", "ChainSegment", "Chain",
    "Material", "MATERIALS", "DEFAULT_MATERIAL", "mix_friction", "mix_restitution",
    # outlines, hulls and convex pieces (chapter 14)
    "convex_hull", "HULL_METHODS", "is_convex", "is_simple", "orientation", "triangulate",
    "decompose", "DECOMPOSITION_METHODS",
    # filters, queries and events (chapter 12)
    "Filter", "ALL_CATEGORIES", "RayHit", "ShapeRef", "Contact", "ContactEvents",
    "HitEvents", "SensorEvents", "Hit",
    # game mechanics (chapter 16)
    "ContactRule", "PreSolveContact", "Snapshot", "save_world", "load_world",
    "CastHit", "BlastHit", "CharacterMover",
    # queries on shapes
    "collide", "collide_pairs", "Manifold", "ContactArrays",
    "distance", "penetration", "intersect", "DistanceResult", "PenetrationResult",
    # stages a world can be given
    "ImpulseSolver", "SequentialImpulseSolver", "SoftStepSolver", "SOLVERS", "BROAD_PHASES",
    "DynamicTree", "SortAndSweep", "UniformGrid",
    # the game loop
    "FixedTimestep", "interpolate",
    # the layers, as modules
    "broadphase", "collision", "constants", "dynamics", "events", "geometry", "kinds",
    "queries", "recording",
    "scenes", "stages", "vecmath", "verlet", "world", "snapshots", "world_files",
    "contact_hooks", "shape_cast", "explosion", "character", "games",
]


def __getattr__(name):
    # pb.viz is imported lazily: it pulls in matplotlib, which the engine must not need.
    if name == "viz":
        import importlib

        return importlib.import_module("physbook.viz")
    raise AttributeError(f"module 'physbook' has no attribute {name!r}")
