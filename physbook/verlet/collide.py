"""Collisions between Verlet bodies: SAT over boundary edges and the vertex–edge response.

A body is a convex set of particles. Its boundary edges are the only candidate separating
axes (interior braces are skipped). For a colliding pair, the separating-axis test also names
the *collision edge* (the boundary edge whose axis needs the smallest push) and the
*collision vertex* (the particle of the other body deepest behind that edge). The response
moves only that vertex and that edge's two ends; the distance constraints then carry the move
to the rest of each body, which is why bodies start to spin by themselves.

Bodies are stored in compressed rows: the particles of body b are
``body_particles[particle_start[b] : particle_start[b] + particle_count[b]]`` and likewise for
its edges.
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook._jit import njit

# An edge shorter than DEGENERATE_LENGTH (m) gives no axis and no response; the distance
# constraints skip it by the same threshold.
from physbook.constants import DEGENERATE_LENGTH
from physbook.verlet import _arguments as arguments


@njit
def update_bodies(positions, particle_start, particle_count, body_particles, body_count,
                  centers, boxes):
    """Recompute each body's centre (mean of its particles, m) and AABB (x0, y0, x1, y1)."""
    for b in range(body_count):
        start = particle_start[b]
        n = particle_count[b]
        sum_x = 0.0
        sum_y = 0.0
        x0 = math.inf
        y0 = math.inf
        x1 = -math.inf
        y1 = -math.inf
        for k in range(start, start + n):
            p = body_particles[k]
            x = positions[p, 0]
            y = positions[p, 1]
            sum_x += x
            sum_y += y
            x0 = min(x0, x)
            y0 = min(y0, y)
            x1 = max(x1, x)
            y1 = max(y1, y)
        centers[b, 0] = sum_x / n
        centers[b, 1] = sum_y / n
        boxes[b, 0] = x0
        boxes[b, 1] = y0
        boxes[b, 2] = x1
        boxes[b, 3] = y1


@njit
def _project_body(positions, body_particles, start, count, axis_x, axis_y):
    """The interval (min, max) of a body's particles projected onto a unit axis (m)."""
    low = math.inf
    high = -math.inf
    for k in range(start, start + count):
        p = body_particles[k]
        value = positions[p, 0] * axis_x + positions[p, 1] * axis_y
        low = min(low, value)
        high = max(high, value)
    return low, high


@njit
def find_contact_unchecked(positions, edge_ends, edge_boundary, body_a, body_b, particle_start,
                           particle_count, body_particles, edge_start, edge_count, body_edges,
                           centers):
    """SAT between two bodies over their boundary edges.

    Returns ``(depth, normal_x, normal_y, edge, vertex, edge_body, vertex_body)``. ``depth``
    (m) is negative when a separating axis exists (then the rest is meaningless). Otherwise
    ``edge`` belongs to ``edge_body``, the unit normal is that edge's outward normal (it
    points from ``edge_body`` towards ``vertex_body``) and ``vertex`` is the particle of
    ``vertex_body`` lying ``depth`` behind the edge's line.

    Each axis is oriented away from the centre of the edge's own body, and its overlap is
    measured on that side: ``depth`` = (edge line) − (other body's minimum along the normal).
    The intervals are still compared whole, as in the seed, for the early exit.
    """
    best_depth = math.inf
    best_edge = -1
    best_owner = -1
    best_nx = 0.0
    best_ny = 0.0
    for side in range(2):
        owner = body_a if side == 0 else body_b
        other = body_b if side == 0 else body_a
        for k in range(edge_start[owner], edge_start[owner] + edge_count[owner]):
            e = body_edges[k]
            if not edge_boundary[e]:
                continue  # interior braces never separate two convex bodies
            i = edge_ends[e, 0]
            j = edge_ends[e, 1]
            # axis ⟂ edge: (y_i − y_j, x_j − x_i), normalised
            ax = positions[i, 1] - positions[j, 1]
            ay = positions[j, 0] - positions[i, 0]
            norm = math.sqrt(ax * ax + ay * ay)
            if norm < DEGENERATE_LENGTH:
                continue
            ax /= norm
            ay /= norm
            line = positions[i, 0] * ax + positions[i, 1] * ay
            # orient outward: the owner's centre must lie behind the edge line
            if centers[owner, 0] * ax + centers[owner, 1] * ay > line:
                ax = -ax
                ay = -ay
                line = -line
            own_low, own_high = _project_body(positions, body_particles, particle_start[owner],
                                              particle_count[owner], ax, ay)
            low, high = _project_body(positions, body_particles, particle_start[other],
                                      particle_count[other], ax, ay)
            if own_high < low or high < own_low:
                return -1.0, 0.0, 0.0, -1, -1, -1, -1  # the intervals are apart: no collision
            depth = line - low
            if depth < 0.0:
                return -1.0, 0.0, 0.0, -1, -1, -1, -1  # the other body is in front of this edge
            if depth < best_depth:
                best_depth = depth
                best_edge = e
                best_owner = owner
                best_nx = ax
                best_ny = ay
    if best_edge < 0:
        return -1.0, 0.0, 0.0, -1, -1, -1, -1
    vertex_body = body_b if best_owner == body_a else body_a
    # the collision vertex: smallest signed distance n·(v − x_i) to the collision edge's line
    i = edge_ends[best_edge, 0]
    smallest = math.inf
    vertex = -1
    for k in range(particle_start[vertex_body],
                   particle_start[vertex_body] + particle_count[vertex_body]):
        p = body_particles[k]
        distance = (best_nx * (positions[p, 0] - positions[i, 0])
                    + best_ny * (positions[p, 1] - positions[i, 1]))
        if distance < smallest:
            smallest = distance
            vertex = p
    return best_depth, best_nx, best_ny, best_edge, vertex, best_owner, vertex_body


@njit
def _edge_parameter(point_x, point_y, start_x, start_y, end_x, end_y):
    """Where a point on the line through an edge lies along it: 0 at the start, 1 at the end.

    Divides by the larger of the edge's x and y extents, never by the smaller: the larger is
    at least |edge| / √2, so a vertical or horizontal edge never divides by about zero.
    """
    dx = end_x - start_x
    dy = end_y - start_y
    if abs(dx) > abs(dy):
        return (point_x - start_x) / dx
    return (point_y - start_y) / dy


@njit
def respond_vertex_edge_unchecked(positions, inverse_mass, edge_ends, edge, vertex, normal_x,
                                  normal_y, depth, vertex_body_mass, edge_body_mass):
    """Separate a collision vertex from a collision edge by ``depth`` along the normal; in place.

    The vertex moves by + r_v · depth · n and the edge's point at parameter t by
    − r_e · depth · n, with the mass shares r_v = m_e / (m_v + m_e), r_e = m_v / (m_v + m_e)
    (m_v, m_e the two bodies' masses, kg). The edge's ends move in proportion to 1 − t and t,
    scaled by κ = 1 / (t² + (1 − t)²) so that their interpolated point moves exactly by its
    share. t is clamped to [0, 1]. A pinned particle never moves; its body then counts as
    infinitely heavy. Returns t (or −1 when nothing could move).
    """
    end_1 = edge_ends[edge, 0]
    end_2 = edge_ends[edge, 1]
    if (abs(positions[end_2, 0] - positions[end_1, 0]) < DEGENERATE_LENGTH
            and abs(positions[end_2, 1] - positions[end_1, 1]) < DEGENERATE_LENGTH):
        return -1.0
    vertex_free = inverse_mass[vertex] > 0.0
    edge_free = inverse_mass[end_1] > 0.0 or inverse_mass[end_2] > 0.0
    if vertex_free and edge_free:
        # both masses over the larger one first, so that m_v + m_e cannot overflow
        largest = max(vertex_body_mass, edge_body_mass)
        m_v = vertex_body_mass / largest
        m_e = edge_body_mass / largest
        vertex_share = m_e / (m_v + m_e)
        edge_share = m_v / (m_v + m_e)
    elif vertex_free:
        vertex_share = 1.0
        edge_share = 0.0
    elif edge_free:
        vertex_share = 0.0
        edge_share = 1.0
    else:
        return -1.0
    push_x = normal_x * depth
    push_y = normal_y * depth
    # the vertex's foot on the edge line: one push along +n from the vertex
    foot_x = positions[vertex, 0] + push_x
    foot_y = positions[vertex, 1] + push_y
    t = _edge_parameter(foot_x, foot_y, positions[end_1, 0], positions[end_1, 1],
                        positions[end_2, 0], positions[end_2, 1])
    t = min(max(t, 0.0), 1.0)
    kappa = 1.0 / (t * t + (1.0 - t) * (1.0 - t))
    if inverse_mass[end_1] > 0.0:
        positions[end_1, 0] -= push_x * (1.0 - t) * edge_share * kappa
        positions[end_1, 1] -= push_y * (1.0 - t) * edge_share * kappa
    if inverse_mass[end_2] > 0.0:
        positions[end_2, 0] -= push_x * t * edge_share * kappa
        positions[end_2, 1] -= push_y * t * edge_share * kappa
    if vertex_free:
        positions[vertex, 0] += push_x * vertex_share
        positions[vertex, 1] += push_y * vertex_share
    return t


@njit
def collide_bodies(positions, inverse_mass, edge_ends, edge_boundary, particle_start,
                   particle_count, body_particles, edge_start, edge_count, body_edges,
                   body_mass, body_count, centers, boxes):
    """Test every pair of bodies whose AABBs overlap and respond to each collision found.

    Returns the number of responses applied.
    """
    responses = 0
    for a in range(body_count):
        for b in range(a + 1, body_count):
            # AABB pre-test: cheap, and most pairs are far apart
            if (boxes[a, 0] > boxes[b, 2] or boxes[b, 0] > boxes[a, 2]
                    or boxes[a, 1] > boxes[b, 3] or boxes[b, 1] > boxes[a, 3]):
                continue
            depth, nx, ny, edge, vertex, edge_body, vertex_body = find_contact_unchecked(
                positions, edge_ends, edge_boundary, a, b, particle_start, particle_count,
                body_particles, edge_start, edge_count, body_edges, centers)
            if depth <= 0.0:
                continue
            t = respond_vertex_edge_unchecked(positions, inverse_mass, edge_ends, edge, vertex,
                                              nx, ny, depth, body_mass[vertex_body],
                                              body_mass[edge_body])
            if t >= 0.0:
                responses += 1
    return responses


@arguments.shows(find_contact_unchecked)
def find_contact(positions, edge_ends, edge_boundary, body_a: int, body_b: int, particle_start,
                 particle_count, body_particles, edge_start, edge_count, body_edges,
                 centers) -> tuple:
    """SAT between bodies ``body_a`` and ``body_b`` over their boundary edges.

    ``positions`` (n, 2) in m; ``edge_ends`` (m, 2) particle indices and ``edge_boundary``
    (m,) booleans; the bodies in compressed rows: body b owns
    ``body_particles[particle_start[b] : particle_start[b] + particle_count[b]]`` and likewise
    its edges; ``centers`` (bodies, 2) in m. Returns ``(depth, normal_x, normal_y, edge,
    vertex, edge_body, vertex_body)``, with ``depth`` < 0 when the bodies are apart.
    """
    positions = arguments.values(positions, "positions", 2)
    edge_ends = arguments.indices(edge_ends, "edge_ends", len(positions), 2, "positions")
    edge_boundary = arguments.flags(edge_boundary, "edge_boundary")
    if len(edge_boundary) != len(edge_ends):
        raise ValueError("edge_boundary must have one entry per row of edge_ends")
    particle_start, particle_count, body_particles = arguments.body_rows(
        particle_start, particle_count, body_particles,
        ("particle_start", "particle_count", "body_particles"), len(positions), "positions",
        least=1)
    edge_start, edge_count, body_edges = arguments.body_rows(
        edge_start, edge_count, body_edges, ("edge_start", "edge_count", "body_edges"),
        len(edge_ends), "edge_ends")
    bodies = len(particle_start)
    if len(edge_start) != bodies:
        raise ValueError("edge_start must have one row per body, as particle_start has")
    centers = arguments.values(centers, "centers", 2)
    arguments.count(bodies, "the number of bodies", {"centers": centers})
    body_a = arguments.index(body_a, "body_a", bodies)
    body_b = arguments.index(body_b, "body_b", bodies)
    if body_a == body_b:
        raise ValueError("body_a and body_b must be different bodies")
    depth, nx, ny, edge, vertex, edge_body, vertex_body = find_contact_unchecked(
        positions, edge_ends, edge_boundary, body_a, body_b, particle_start, particle_count,
        body_particles, edge_start, edge_count, body_edges, centers)
    return float(depth), float(nx), float(ny), int(edge), int(vertex), int(edge_body), int(
        vertex_body)


@arguments.shows(respond_vertex_edge_unchecked)
def respond_vertex_edge(positions: np.ndarray, inverse_mass, edge_ends, edge: int, vertex: int,
                        normal_x: float, normal_y: float, depth: float,
                        vertex_body_mass: float, edge_body_mass: float) -> float:
    """Separate particle ``vertex`` from edge ``edge`` by ``depth`` (m) along the unit normal.

    ``positions`` (n, 2) float64 (m) is updated in place; ``inverse_mass`` (n,) in 1/kg;
    ``edge_ends`` (m, 2) particle indices; the two body masses in kg. Returns the edge
    parameter t of the push, or −1 when nothing could move. Raises ``FloatingPointError``,
    with ``positions`` restored, when the push overflows.
    """
    positions, inverse_mass = arguments.particles(positions, inverse_mass)
    edge_ends = arguments.indices(edge_ends, "edge_ends", len(positions), 2, "positions")
    edge = arguments.index(edge, "edge", len(edge_ends))
    vertex = arguments.index(vertex, "vertex", len(positions))
    if vertex in edge_ends[edge]:
        raise ValueError(f"vertex {vertex} must not be an end of edge {edge}")
    normal_x = _check.finite_scalar(normal_x, "normal_x")
    normal_y = _check.finite_scalar(normal_y, "normal_y")
    arguments.unit_length(normal_x, normal_y, "(normal_x, normal_y)")
    depth = _check.non_negative_scalar(depth, "depth")
    vertex_body_mass = _check.positive_scalar(vertex_body_mass, "vertex_body_mass")
    edge_body_mass = _check.positive_scalar(edge_body_mass, "edge_body_mass")
    return float(arguments.run_in_place(
        respond_vertex_edge_unchecked,
        (positions, inverse_mass, edge_ends, edge, vertex, normal_x, normal_y, depth,
         vertex_body_mass, edge_body_mass),
        {"positions": positions}, "positions and depth"))
