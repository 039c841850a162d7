"""Every tolerance and default of the engine, documented once.

Lengths are in metres, speeds in m/s. A *relative* tolerance is multiplied by a size of
the objects it judges (a polygon's extent, a simplex's radius), so that millimetre and
kilometre scenes are judged alike; an *absolute* one is a length in metres, chosen for
game scenes whose bodies are about 0.1 m to 10 m across.
"""

from __future__ import annotations

# --- vectors (chapter 1) ----------------------------------------------------------------

#: Below this length (m) a vector has no direction: ``normalize`` refuses it, ``Line``
#: refuses it as a normal.
ZERO_LENGTH = 1e-12

# --- time (chapter 3) -------------------------------------------------------------------

#: Relative tolerance of a full step: an accumulator within ``dt·STEP_TOLERANCE`` of a
#: whole step takes it. Far above float rounding (~1e-16), far below any real clock jitter.
STEP_TOLERANCE = 1e-9

# --- shapes (chapter 4) -----------------------------------------------------------------

#: Points closer than this fraction of a polygon's size count as the same point, and a
#: vertex closer than this fraction to the line through its neighbours counts as collinear.
WELD_TOLERANCE = 1e-9

# --- contact manifolds (chapters 6–7) ---------------------------------------------------

#: Circle centres closer than this fraction of the radius sum count as coincident. Their
#: direction is then only rounding noise, so the normal is the fixed ``COINCIDENT_NORMAL``.
COINCIDENT_FRACTION = 1e-12

#: The normal given to two circles whose centres coincide (and to EPA on two coincident
#: points): any direction separates them by the same r_A + r_B, so the choice is arbitrary,
#: but it is fixed so that results repeat.
COINCIDENT_NORMAL = (1.0, 0.0)

#: The reference face stays on polygon A unless B's best axis separates more by this
#: fraction of the smaller polygon's size. Nearly equal axes would otherwise swap from step
#: to step on rounding noise alone, and the contact points and their feature ids with them,
#: which spoils warm starting. The price: the chosen axis may penetrate up to this much more
#: than the least one (a millimetre on a one-metre box).
FACE_SWITCH_TOLERANCE = 1e-3

#: Bits that a contact's feature id shifts the feature number of shape A by.
FEATURE_SHIFT = 32

# --- GJK and EPA (chapter 8) ------------------------------------------------------------

#: GJK on two polygons adds a new support point per iteration and never repeats one, so it
#: ends within a few more than n_A + n_B iterations. Curved shapes only converge, and slower
#: near flat spots; 64 iterations reach the tolerance below in every case the book meets,
#: and the cap keeps a pathological shape from looping for ever.
GJK_MAX_ITERATIONS = 64

#: GJK stops when a new support point w brings the simplex no closer:
#: |v|² − v·w ≤ tolerance·|v|², i.e. the distance is known to this relative precision
#: (near double-precision rounding, so polygons stop only on a repeated vertex).
GJK_RELATIVE_TOLERANCE = 1e-12

#: A closest point of A ⊖ B nearer the origin than this fraction of the simplex's size is
#: the origin up to rounding: the shapes touch.
GJK_CONTACT_FRACTION = 1e-12

#: EPA adds one support point per iteration; for polygons it ends once the closest edge lies
#: on A ⊖ B (at most n_A + n_B new points). For curved shapes each new point halves the
#: angular gap near the closest feature, so the depth error shrinks about fourfold per
#: iteration; 128 is far beyond what double precision can use.
EPA_MAX_ITERATIONS = 128

#: EPA stops when the support point along the closest edge's normal lies no farther out
#: than this fraction of the polytope's size: the edge is on the boundary of A ⊖ B.
EPA_RELATIVE_TOLERANCE = 1e-12

# --- broad phase (chapter 9) ------------------------------------------------------------

#: Rows of the N² overlap matrix the naive broad phase tests at once (bounds its memory:
#: 512 rows × N columns of booleans).
NAIVE_BLOCK_ROWS = 512

# --- continuous collision (chapter 13) --------------------------------------------------

#: Conservative advancement stops after this many jumps and sampling then bisection finish
#: the root; each phase is capped at this many iterations. A fast spin makes the bound on
#: approach far larger than the approach itself, and the jumps short: on random sweeps
#: spinning up to 20 rad per step, half converge in 7 jumps and 99 % in 115.
TOI_MAX_ITERATIONS = 100

#: A time of impact is accepted when the shapes are within this fraction of their size
#: of the target separation.
TOI_TOLERANCE_FRACTION = 1e-6

#: A body is *fast*, and checked by time of impact, when its farthest point may move more
#: than this fraction of its thinnest shape's size in a step (it could then cross a wall as
#: thin as itself before the solver sees it).
FAST_FRACTION = 0.5

#: A fast body stopped by time of impact is left this far short of touching (m), so that
#: the next step finds the contact apart rather than overlapping.
CONTINUOUS_TARGET = 0.0025

#: A shape already touching at the start of a step is swept by its core instead: a circle
#: of this fraction of its inner radius about its centroid (Box2D v3: a quarter of its
#: smallest extent).
CONTINUOUS_CORE_FRACTION = 0.25

# --- broad phase, queries and events (chapter 12) ----------------------------------------

#: Sort and sweep repairs last step's order by insertion sort; one that needs more than
#: this many swaps per box gives up for a full sort (a scrambled order, not a hang).
SWAPS_PER_BOX = 8

#: A grid cell is this many times the median box size, so a typical box covers at most
#: 2 × 2 cells.
GRID_CELL_FACTOR = 2.0

#: A box covering more grid cells than this is tested against every box instead of binned.
MAX_CELLS_PER_BOX = 64

#: The grid has at most this many columns and rows (its cells grow for larger extents), so
#: a cell's number, column × rows + row, fits in 64 bits.
MAX_CELLS_PER_AXIS = 2**30

#: The tree's fat boxes are the shape's box grown by this much on every side (m), as
#: Box2D's margin.
TREE_MARGIN = 0.1

#: ... and stretched along the box's displacement since the last step times this factor
#: (Box2D v2's multiplier): a body moving steadily stays inside for about this many steps.
TREE_PREDICTION = 4.0

#: A fat box larger than a new one would be by more than this many margins on a side is
#: shrunk (renewed): a body that moved fast and stopped would otherwise keep a huge box.
TREE_SHRINK_MARGINS = 4.0

#: A renewed leaf stays where it is in the tree unless the box enclosing its new fat box and
#: its sibling's box would have more than this many times their two perimeters: it has then
#: wandered away from its neighbours, and is reinserted next to new ones.
TREE_WANDER_RATIO = 4.0

#: The tree is rebuilt top down once this many times as many leaves as it holds have been
#: renewed since it was last built (and at once when most of its leaves were just inserted):
#: leaves renewed in place keep their places in the tree, which suit them less as they move
#: about.
TREE_REBUILD_RENEWALS = 4.0

#: The pairs of the renewed leaves are found by one descent of the tree against itself when
#: at least one leaf in this many was renewed, else by querying the tree with each.
TREE_DESCENT_SHARE = 16

#: A contact point approaching faster than this (m/s) and closing within the step is a hit
#: event (Box2D's default hit event threshold).
HIT_SPEED = 1.0

# --- the world and its contact solvers (chapters 4, 9 and 10) --------------------------

#: Gravity of a new world and of every standard scene (m/s²).
DEFAULT_GRAVITY = (0.0, -10.0)

#: Velocity passes over all contact points per step of the rigid impulse solvers.
SOLVER_ITERATIONS = 10

#: Penetration (m) left uncorrected, so that resting bodies do not jitter between touching
#: and not touching (Box2D-Lite's allowed penetration; Box2D's ``b2_linearSlop`` is 0.005 m).
LINEAR_SLOP = 0.01

#: A contact's slop is at most this fraction of its thinner body's size (2·area/perimeter:
#: the radius of a circle, half the side of a square, the thickness of a long plate), so a
#: slop meant for metre-sized bodies does not leave a millimetre one buried. Bodies of
#: 0.2 m and more keep the whole :data:`LINEAR_SLOP`.
SLOP_SIZE_FRACTION = 0.05

#: Fraction of the penetration beyond the slop removed per step by chapter 9's projection.
CORRECTION_FRACTION = 0.4

#: Baumgarte's bias factor β: the fraction of the position error removed per step by the
#: push-out velocity β·d/dt, and by a non-linear position pass (Box2D's 0.2).
BAUMGARTE_FACTOR = 0.2

#: Passes of the non-linear position correction per step (Box2D 2.x: 3).
POSITION_ITERATIONS = 3

#: Largest correction of one contact point in one position pass (m; Box2D 2.x: 0.2 m), so
#: that deep overlaps are removed over several steps instead of with a jump.
MAX_LINEAR_CORRECTION = 0.2

#: Approach speed (m/s) below which a contact does not bounce (Box2D's default is 1 m/s).
RESTITUTION_THRESHOLD = 1.0

#: Substeps per step of the soft step solver (Box2D v3: 4).
SUBSTEPS = 8

#: Colours the soft step sorts its contacts into (Box2D v3: 24); a contact that finds none
#: free, at a body with this many contacts, is solved after them, row by row.
COLOURS = 32

#: The highest this many colours take only contacts with a body that does not move (Box2D
#: v3: 4), which take colours from the top down and are solved last in each pass.
STATIC_COLOURS = 4

#: Contacts of a colour the soft step solves at once, one in each lane of the processor's
#: vector registers: four registers of eight float64 with AVX-512 (eight of four with AVX2).
#: A contact's arithmetic is a long chain of operations, each waiting for the last; with
#: four registers of independent lanes the processor works on one while the others wait (a
#: contact's pass costs a quarter to a third less than with one register).
LANES = 32

#: float64 in one vector register with AVX-512: a group of fewer than :data:`LANES`
#: contacts is solved in lanes up to the next multiple of this, not in all of them.
VECTOR_WIDTH = 8

#: A group of fewer contacts than this is solved row by row, not in lanes: gathering a
#: register's worth of lanes (:data:`VECTOR_WIDTH`), solving and scattering them back costs
#: about what solving five or six two-point contacts one after the other does.
LANE_MINIMUM = 6

#: The parallel soft step solves a colour of fewer contact rows than this on one thread:
#: starting the threads would cost more than the rows.
PARALLEL_ROWS = 128

#: Shapes closer than this (m), plus the distance their bodies may travel in the step, get a
#: speculative contact before they touch (Box2D v3: 4 × its 0.005 m linear slop).
SPECULATIVE_DISTANCE = 0.02

#: Frequency of the soft contact spring (Hz; Box2D v3: 30).
CONTACT_HERTZ = 70.0

#: Damping ratio of the soft contact spring (Box2D v3: 10, heavily overdamped, so that a
#: pushed-out body does not bounce back).
CONTACT_DAMPING_RATIO = 10.0

#: Fastest speed (m/s) at which overlapping bodies are pushed apart (Box2D v3: 3 m/s).
PUSH_OUT_SPEED = 3.0

# --- joints and sleep (chapter 11) -----------------------------------------------------

#: Frequency (Hz) of the soft constraint that removes a rigid joint's position error
#: (Box2D v3: 60 Hz); like the contact spring, capped at a quarter of the (sub)step rate,
#: which is 120 Hz at 60 steps of 8 substeps. A joint under a load F stretches by about
#: F/(m·(2πf)²): at 120 Hz a 40-plank bridge under ten boxes stretches 2 mm per pin, at
#: 60 Hz four times that.
JOINT_HERTZ = 120.0

#: Damping ratio of that soft constraint (Box2D v3: 2, overdamped: the error is removed
#: without overshoot).
JOINT_DAMPING_RATIO = 2.0

#: A body slower than this (m/s) ... counts towards falling asleep (Box2D's 0.05 m/s).
SLEEP_LINEAR_SPEED = 0.05

#: ... and turning slower than this (rad/s; Box2D's 2°/s).
SLEEP_ANGULAR_SPEED = 2.0 * 3.141592653589793 / 180.0

#: An island whose every body stayed that slow this long (s) falls asleep (Box2D: 0.5 s).
TIME_TO_SLEEP = 0.5

# --- the Verlet engine (chapter 5) ------------------------------------------------------

#: Edges shorter than this (m) are not projected and give no collision axis: their
#: direction is undefined.
DEGENERATE_LENGTH = 1e-12

#: Two particles closer than this (m) cannot be joined by an edge.
MINIMUM_EDGE_LENGTH = 1e-9

#: Most vertices a Verlet polygon body may have; every pair is braced, so edges grow as n².
MAXIMUM_VERLET_POLYGON_VERTICES = 16

# --- shapes with a radius, and chains (chapter 15) --------------------------------------

#: Shortest segment, chain segment or chain edge (m): shorter ones have no reliable
#: direction, and a chain's corner tests need one (Box2D refuses lengths below its slop).
MIN_SEGMENT_LENGTH = LINEAR_SLOP

#: Two rounded cores this far apart (m) or more are "apart": their manifold may come from
#: the closest features instead of clipping (Box2D uses 0.1 × its linear slop).
ROUND_CORE_GAP = 0.1 * LINEAR_SLOP

#: Rounded cores apart whose closest features are two vertices touch at one point on the
#: line between those vertices, unless the clipped points measure a gap within this much (m)
#: of that distance (they measure a gap no larger): then the clipped form stays, a band
#: against flicker between the two forms.
VERTEX_SWITCH = 0.1 * LINEAR_SLOP

#: A chain vertex is convex (the surface turns away from a body resting on it) when the
#: sine of the turn from the previous edge to the next is at least this (about 0.6°);
#: flatter vertices count as flat, so rounding never makes a flat floor bumpy.
CHAIN_CONVEX_SINE = 0.01

#: A normal turned past a convex vertex's neighbouring face normal by more than this sine
#: belongs to the neighbouring chain segment, which makes that contact instead.
CHAIN_NORMAL_SINE = 0.01
