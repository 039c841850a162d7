"""Tests of the Verlet engine (chapter 5) against analytic results and independent oracles."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from shapely.affinity import translate
from shapely.geometry import Polygon as ShapelyPolygon

import physbook as pb
from physbook.constants import MAXIMUM_VERLET_POLYGON_VERTICES
from physbook.verlet import (
    VerletContact,
    VerletWorld,
    hanging_cloth,
    satisfy_edges,
    verlet_demo_world,
)
from physbook.verlet.collide import _edge_parameter as edge_parameter

DT = 1.0 / 60.0


def point_line_distance(point, start, end) -> float:
    """Distance (m) of ``point`` from the infinite line through ``start`` and ``end``."""
    direction = end - start
    offset = point - start
    return abs(direction[0] * offset[1] - direction[1] * offset[0]) / np.linalg.norm(direction)


def body_polygon(world, body) -> ShapelyPolygon:
    return ShapelyPolygon(world.positions[body.particles])


# --------------------------------------------------------------------------- integration
@settings(max_examples=30)
@given(
    gx=st.floats(-20, 20), gy=st.floats(-20, 20),
    vx=st.floats(-5, 5), vy=st.floats(-5, 5),
    dt=st.floats(1e-3, 0.1), steps=st.integers(1, 200),
)
def test_free_particle_follows_the_exact_verlet_recurrence(gx, gy, vx, vy, dt, steps):
    # x_{n+1} = 2 x_n − x_{n−1} + g dt² has the closed form x_n = x_0 + b n + ½ g dt² n²
    # with b = v dt + ½ g dt² fixed by x_{−1} = x_0 − v dt.
    world = VerletWorld(gravity=(gx, gy), iterations=3)
    start = np.array([1.0, 2.0])
    i = world.add_particle(start)
    world.set_velocity(i, (vx, vy), dt)
    for _ in range(steps):
        world.step(dt)
    g = np.array([gx, gy])
    b = np.array([vx, vy]) * dt + 0.5 * g * dt * dt
    expected = start + b * steps + 0.5 * g * dt * dt * steps**2
    scale = 1.0 + np.abs(expected).max()
    np.testing.assert_allclose(world.positions[i], expected, rtol=0, atol=1e-9 * scale)


def test_moving_a_particle_changes_its_velocity():
    world = VerletWorld(gravity=(0.0, 0.0))
    i = world.add_particle((0.0, 0.0))
    world.set_velocity(i, (1.0, 0.0), DT)
    world.step(DT)
    world.positions[i, 0] -= 0.01  # a collision response would do this
    np.testing.assert_allclose(world.velocities(DT)[i], [1.0 - 0.01 / DT, 0.0], atol=1e-12)


def test_pinned_particles_never_move():
    world, grid = hanging_cloth(columns=12, rows=12, iterations=10)
    pinned = np.flatnonzero(world.pinned)
    assert set(pinned) == {grid[0, 0], grid[0, -1]}
    before = world.positions[pinned].copy()
    for k in range(200):
        world.apply_force(int(grid[-1, 5]), (0.0, -500.0 if k < 100 else 0.0))
        world.apply_force(int(pinned[0]), (300.0, 300.0))  # a force on a pinned particle
        world.step(DT)
    np.testing.assert_array_equal(world.positions[pinned], before)
    assert not np.allclose(world.positions[grid[-1, 5]], [0.0, 0.0])


def test_pinned_vertex_of_a_body_holds_under_collision():
    world = VerletWorld(iterations=10, bounds=(-5.0, -5.0, 5.0, 5.0))
    platform = world.add_box((0.0, 0.0), 4.0, 0.5)
    for index in platform.particles:
        world.pin(int(index))
    world.add_box((0.3, 1.5), 1.0, 1.0, mass=5.0, angle=0.4)
    before = world.positions[platform.particles].copy()
    for _ in range(240):
        world.step(DT)
    np.testing.assert_array_equal(world.positions[platform.particles], before)
    assert world.body(1).center[1] > 0.25  # the box rests on the platform, not through it


# --------------------------------------------------------------------------- edges
def test_one_edge_projection_is_exact_and_mass_weighted():
    positions = np.array([[0.0, 0.0], [3.0, 4.0]])
    inverse_mass = np.array([1.0, 3.0])  # m = 1 kg and 1/3 kg
    satisfy_edges(positions, inverse_mass, np.array([[0, 1]]), np.array([2.5]), 1)
    assert np.linalg.norm(positions[1] - positions[0]) == pytest.approx(2.5, abs=1e-12)
    # Σ m Δx = 0: the light end moves three times as far as the heavy one
    moved_0 = np.linalg.norm(positions[0])
    moved_1 = np.linalg.norm(positions[1] - [3.0, 4.0])
    assert moved_1 == pytest.approx(3.0 * moved_0, rel=1e-12)
    assert moved_0 + moved_1 == pytest.approx(2.5, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_edge_error_falls_as_iterations_grow(seed):
    errors = []
    for iterations in (1, 2, 4, 8, 16, 32, 64):
        world = VerletWorld(gravity=(0.0, 0.0), iterations=iterations)
        world.add_regular_polygon((0.0, 0.0), 1.0, 6)
        world.add_box((5.0, 0.0), 2.0, 1.0)
        shaken = np.random.default_rng(seed).normal(0.0, 0.05, world.positions.shape)
        world.positions[:] += shaken
        world.previous_positions[:] = world.positions
        world.step(DT)
        errors.append(world.max_edge_error())
    assert errors[0] > 1e-3
    ratios = np.array(errors[1:]) / np.array(errors[:-1])
    assert np.all(ratios <= 1.05)
    assert errors[-1] < 1e-3 * errors[0]


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), equal=st.booleans())
def test_internal_constraints_conserve_linear_momentum(seed, equal):
    # a random net of particles and edges, flung apart, gravity off: Σ m v must not change
    rng = np.random.default_rng(seed)
    world = VerletWorld(gravity=(0.0, 0.0), iterations=5)
    count = 12
    masses = np.ones(count) if equal else rng.uniform(0.2, 5.0, count)
    points = rng.uniform(-3.0, 3.0, (count, 2))
    for point, mass in zip(points, masses, strict=True):
        world.add_particle(point, mass=float(mass))
    for k in range(count):
        for j in rng.choice(count, 3, replace=False):
            if j != k and np.linalg.norm(points[j] - points[k]) > 0.1:
                world.add_edge(k, int(j))
    world.add_box((8.0, 0.0), 1.0, 1.0)
    everyone = np.arange(world.particle_count)
    world.set_velocity(everyone, rng.normal(0.0, 2.0, (world.particle_count, 2)), DT)
    before = world.momentum(DT)
    for _ in range(50):
        world.step(DT)
    assert world.edge_count > count
    np.testing.assert_allclose(world.momentum(DT), before, atol=1e-9 * (1 + abs(before).max()))


# --------------------------------------------------------------------------- SAT
def two_boxes(offset, depth, angle=math.pi / 4, mass_a=1.0, mass_b=1.0):
    """Box A turned by ``angle`` with its lowest corner ``depth`` below box B's top edge."""
    world = VerletWorld(gravity=(0.0, 0.0))
    lower = world.add_box((0.0, 0.0), 4.0, 1.0, mass=mass_b)
    # the lowest corner of a unit box turned by angle lies h below its centre
    h = 0.5 * (abs(math.cos(angle)) + abs(math.sin(angle)))
    upper = world.add_box((offset, 0.5 + h - depth), 1.0, 1.0, mass=mass_a, angle=angle)
    return world, upper, lower


def test_contact_names_the_edge_the_vertex_and_the_depth():
    world, upper, lower = two_boxes(offset=0.7, depth=0.05)
    contact = world.find_contact(upper, lower)
    assert isinstance(contact, VerletContact)
    assert contact.edge_body == lower.index and contact.vertex_body == upper.index
    np.testing.assert_allclose(contact.normal, [0.0, 1.0], atol=1e-12)
    assert contact.depth == pytest.approx(0.05, abs=1e-12)
    lowest = upper.particles[np.argmin(world.positions[upper.particles, 1])]
    assert contact.vertex == lowest
    i, j = world.edges[contact.edge]
    np.testing.assert_allclose(world.positions[[i, j], 1], [0.5, 0.5], atol=1e-12)


@settings(max_examples=40)
@given(
    ax=st.floats(-2, 2), ay=st.floats(-2, 2), angle_a=st.floats(0, math.tau),
    angle_b=st.floats(0, math.tau), sides=st.integers(3, 7),
)
def test_sat_agrees_with_shapely(ax, ay, angle_a, angle_b, sides):
    world = VerletWorld(gravity=(0.0, 0.0))
    a = world.add_box((ax, ay), 1.5, 0.8, angle=angle_a)
    b = world.add_regular_polygon((0.0, 0.0), 1.0, sides, angle=angle_b)
    poly_a, poly_b = body_polygon(world, a), body_polygon(world, b)
    overlap = poly_a.intersection(poly_b).area
    assume(overlap > 1e-6 or poly_a.distance(poly_b) > 1e-6)  # skip grazing contacts
    contact = world.find_contact(a, b)
    assert (contact is not None) == (overlap > 0.0)
    if contact is not None:
        # pushing the vertex body by depth · normal separates the two (the edge line splits them)
        push = contact.normal * contact.depth * 1.000001
        mover = a if contact.vertex_body == a.index else b
        moved = translate(body_polygon(world, mover), *push)
        still = poly_b if mover is a else poly_a
        assert moved.intersection(still).area < 1e-9


# --------------------------------------------------------------------------- response
def test_edge_parameter_divides_by_the_larger_extent():
    # a vertical edge: the x extent is 0, the y extent 2
    assert edge_parameter(1.0, 1.5, 1.0, 1.0, 1.0, 3.0) == pytest.approx(0.25)
    assert edge_parameter(2.0, 0.0, 0.0, 0.0, 4.0, 1e-14) == pytest.approx(0.5)


@settings(max_examples=40)
@given(
    offset=st.floats(-1.6, 1.6), depth=st.floats(0.001, 0.2), angle=st.floats(0.3, 1.2),
    mass_a=st.floats(0.1, 10.0), mass_b=st.floats(0.1, 10.0),
)
def test_response_puts_the_vertex_on_the_edge_with_the_mass_split(offset, depth, angle, mass_a,
                                                                   mass_b):
    world, upper, lower = two_boxes(offset, depth, angle, mass_a, mass_b)
    contact = world.find_contact(upper, lower)
    assert contact is not None and contact.vertex_body == upper.index
    i, j = world.edges[contact.edge]
    before = world.positions.copy()
    t = world.respond(contact)
    after = world.positions
    assert 0.0 < t < 1.0
    # the vertex ends on the moved edge's line
    assert point_line_distance(after[contact.vertex], after[i], after[j]) < 1e-9
    # it moved its share m_B / (m_A + m_B) of the push, and the edge point at t the rest
    vertex_move = np.linalg.norm(after[contact.vertex] - before[contact.vertex])
    point_before = (1 - t) * before[i] + t * before[j]
    point_after = (1 - t) * after[i] + t * after[j]
    edge_move = np.linalg.norm(point_after - point_before)
    assert vertex_move == pytest.approx(depth * mass_b / (mass_a + mass_b), rel=1e-9)
    assert edge_move == pytest.approx(depth * mass_a / (mass_a + mass_b), rel=1e-9)


def test_response_with_equal_masses_halves_the_push():
    world, upper, lower = two_boxes(offset=0.4, depth=0.1)
    contact = world.find_contact(upper, lower)
    start = world.positions[contact.vertex].copy()
    world.respond(contact)
    np.testing.assert_allclose(world.positions[contact.vertex] - start, [0.0, 0.05], atol=1e-12)


def spin_after_hit(height):
    """Angular velocity of a resting box after a small box slides into it at ``height``."""
    world = VerletWorld(gravity=(0.0, 0.0), iterations=10)
    target = world.add_box((0.0, 0.0), 1.0, 1.0)
    bullet = world.add_box((1.5, height), 0.3, 0.3)
    world.set_velocity(bullet.particles, (-6.0, 0.0), DT)
    for _ in range(20):
        world.step(DT)
    return target.angular_velocity(DT), target.velocity(DT)


def test_a_box_hit_off_centre_starts_to_spin():
    omega_high, velocity = spin_after_hit(0.35)
    omega_low, _ = spin_after_hit(-0.35)
    omega_centre, _ = spin_after_hit(0.0)
    assert velocity[0] < -0.5  # the hit pushed it to the left
    # a push to the left above the centre turns it counter-clockwise (τ = r × F > 0)
    assert omega_high > 0.3 and omega_low < -0.3
    # mirror images, up to the order in which the vertices are projected
    assert omega_high == pytest.approx(-omega_low, rel=0.02)
    assert abs(omega_centre) < 0.01 * omega_high  # a centred hit barely turns it


# --------------------------------------------------------------------------- long runs
def test_dropped_boxes_stay_finite_inside_and_apart():
    world, bodies = verlet_demo_world()
    x0, y0, x1, y1 = world.bounds
    for _ in range(10_000):
        world.step(DT)
    positions = world.positions
    assert np.all(np.isfinite(positions))
    assert np.all((positions[:, 0] >= x0) & (positions[:, 0] <= x1))
    assert np.all((positions[:, 1] >= y0) & (positions[:, 1] <= y1))
    assert world.max_edge_error() < 0.02  # the bodies kept their shape
    polygons = [body_polygon(world, body) for body in bodies]
    worst = max(p.intersection(q).area for k, p in enumerate(polygons) for q in polygons[k + 1:])
    assert worst < 0.05  # m²: 5 % of a box at most


# --------------------------------------------------------------------------- XPBD
def test_xpbd_with_zero_compliance_and_one_substep_is_the_rigid_solver():
    worlds = []
    for solver in ("verlet", "xpbd"):
        world, _ = verlet_demo_world(columns=3, rows=2, triangles=2)
        world.solver = solver
        world.record(120, DT)
        worlds.append(world)
    np.testing.assert_allclose(worlds[0].positions, worlds[1].positions, atol=1e-9)


def rope_error(solver, compliance=0.0, substeps=1, iterations=1, steps=60):
    world = VerletWorld(iterations=iterations, solver=solver, compliance=compliance,
                        substeps=substeps)
    world.add_rope((0.0, 0.0), (5.0, 0.0), 20, mass=1.0)
    errors = []
    for _ in range(steps):
        world.step(DT)
        errors.append(world.max_edge_error())
    return max(errors)


def test_xpbd_converges_to_the_rigid_constraint():
    stiff = [rope_error("xpbd", compliance=c, substeps=20) for c in (1e-2, 1e-4, 1e-6, 0.0)]
    assert np.all(np.diff(stiff) < 0)
    by_substeps = [rope_error("xpbd", substeps=s) for s in (1, 4, 16, 64)]
    assert np.all(np.diff(by_substeps) < 0)
    assert by_substeps[-1] < 1e-3


def test_xpbd_compliance_is_an_inverse_stiffness():
    # a 2 kg particle hangs from a pin on an edge of compliance α: it settles m g α lower
    compliance, mass = 1e-3, 2.0
    world = VerletWorld(solver="xpbd", compliance=compliance, substeps=4, iterations=2,
                        damping=0.05)
    top = world.add_particle((0.0, 0.0), pinned=True)
    bottom = world.add_particle((0.0, -1.0), mass=mass)
    world.add_edge(top, bottom)
    for _ in range(600):
        world.step(DT)
    stretch = world.edge_lengths()[0] - 1.0
    assert stretch == pytest.approx(mass * 10.0 * compliance, rel=1e-6)


# --------------------------------------------------------------------------- tearing
def pull_cloth(tear_ratio):
    world = VerletWorld(iterations=10)
    world.add_box((20.0, 0.0), 1.0, 1.0)  # a body in the same world, to check its edges
    grid = world.add_cloth((0.0, 0.0), 3.0, 3.0, 10, 10, tear_ratio=tear_ratio)
    box_edges = world.edges[world.body(0).edges]
    grabbed = int(grid[-1, 5])
    start = world.positions[grabbed]
    path = start + np.linspace(0.0, 1.0, 30)[:, None] * np.array([0.0, -8.0])
    world.drag_along(grabbed, path, DT)
    return world, grid, box_edges


def test_cloth_tears_under_a_strong_pull():
    world, grid, box_edges = pull_cloth(tear_ratio=1.6)
    intact, _, _ = pull_cloth(tear_ratio=None)
    assert intact.torn_edges == 0 and intact.edge_count == 6 + 2 * 10 * 9
    assert world.torn_edges > 0
    assert world.edge_count == 6 + 2 * 10 * 9 - world.torn_edges
    # the body's edges survived the renumbering and still join the same particles
    np.testing.assert_array_equal(world.edges[world.body(0).edges], box_edges)
    # an independent look: the cloth's graph fell apart into more than one piece
    ends = world.edges
    n = world.particle_count
    graph = coo_matrix((np.ones(len(ends)), (ends[:, 0], ends[:, 1])), shape=(n, n))
    pieces, labels = connected_components(graph, directed=False)
    assert pieces > 2  # the box is one piece, the cloth at least two
    assert labels[grid[0, 0]] != labels[grid[-1, 5]]


# --------------------------------------------------------------------------- interaction
@settings(max_examples=20)
@given(st.lists(st.tuples(st.floats(-10, 10), st.floats(-10, 10)), min_size=1, max_size=20),
       st.tuples(st.floats(-10, 10), st.floats(-10, 10)))
def test_nearest_particle_agrees_with_brute_force(points, query):
    world = VerletWorld()
    for point in points:
        world.add_particle(point)
    distances = [math.dist(point, query) for point in points]
    found = world.nearest_particle(query)
    assert distances[found] == pytest.approx(min(distances))
    assert world.nearest_particle(query, max_distance=min(distances) / 2 + 1e-12) in (-1, found)


def test_a_released_particle_keeps_the_velocity_of_the_drag():
    world = VerletWorld(gravity=(0.0, 0.0))
    i = world.add_particle((0.0, 0.0))
    path = np.column_stack([np.linspace(0.1, 1.0, 10), np.zeros(10)])
    world.drag_along(i, path, DT)
    np.testing.assert_allclose(world.positions[i], [1.0, 0.0])
    np.testing.assert_allclose(world.velocities(DT)[i], [0.1 / DT, 0.0], rtol=1e-9)
    assert world.inverse_masses[i] == 1.0


def test_factories_build_what_they_say():
    world = VerletWorld()
    box = world.add_box((1.0, 2.0), 2.0, 1.0, mass=3.0, angle=0.3)
    assert len(box.particles) == 4 and len(box.edges) == 6 and box.mass == 3.0
    np.testing.assert_allclose(box.center, [1.0, 2.0], atol=1e-12)
    lengths = np.sort(world.edge_lengths()[box.edges])
    np.testing.assert_allclose(lengths, [1, 1, 2, 2, math.sqrt(5), math.sqrt(5)])
    np.testing.assert_allclose(box.aabb.lower, world.positions[box.particles].min(axis=0))
    clockwise = world.add_polygon([(0, 0), (0, 1), (1, 1), (1, 0)])
    p = world.positions[clockwise.particles]
    area = 0.5 * np.sum(p[:, 0] * np.roll(p[:, 1], -1) - np.roll(p[:, 0], -1) * p[:, 1])
    assert area == pytest.approx(1.0)  # reordered counter-clockwise
    hexagon = world.add_regular_polygon((0, 0), 1.0, 6)
    assert len(hexagon.edges) == 6 * 5 // 2
    assert np.sum(world.boundary[hexagon.edges]) == 6
    triangle = world.add_triangle((0.0, 0.0), 2.0, 0.9)
    np.testing.assert_allclose(triangle.center, [0.0, 0.0], atol=1e-12)


def test_add_polygon_judges_the_outline_as_polygon_does():
    world = VerletWorld()
    outline = [(0, 0), (0, 1), (0.5, 1), (1, 1), (1, 0)]  # clockwise, (0.5, 1) collinear
    body = world.add_polygon(outline)
    expected = pb.Polygon(outline).vertices
    np.testing.assert_array_equal(world.positions[body.particles], expected)
    np.testing.assert_array_equal(expected[0], outline[0])  # vertex 0 stays first
    assert len(body.particles) == 4
    for bad in ([(0, 0), (1, 0), (1, 0), (0, 1)], [(0, 0), (2, 2), (2, 0), (0, 2)]):
        with pytest.raises(ValueError) as polygon_error:
            pb.Polygon(bad)
        with pytest.raises(ValueError, match=re.escape(str(polygon_error.value))):
            world.add_polygon(bad)
    with pytest.raises(ValueError, match=f"3 to {MAXIMUM_VERLET_POLYGON_VERTICES} vertices"):
        world.add_regular_polygon((0.0, 0.0), 1.0, MAXIMUM_VERLET_POLYGON_VERTICES + 1)


def test_arrays_grow_past_their_capacity():
    world = VerletWorld()
    grid = world.add_cloth((0.0, 0.0), 1.0, 1.0, 30, 30)
    boxes = [world.add_box((5.0 * k, 0.0), 1.0, 1.0) for k in range(40)]
    assert world.particle_count == 900 + 160 and world.body_count == 40
    np.testing.assert_allclose(world.positions[grid[0, 0]], [0.0, 0.0])
    np.testing.assert_allclose(boxes[-1].center, [195.0, 0.0])


# --------------------------------------------------------------------------- bad input
def test_bad_input_raises():
    world = VerletWorld()
    a = world.add_particle((0.0, 0.0))
    b = world.add_particle((0.0, 0.0))
    with pytest.raises(ValueError, match="zero-length"):
        world.add_edge(a, b)
    with pytest.raises(ValueError, match="iterations"):
        VerletWorld(iterations=0)
    with pytest.raises(ValueError, match="iterations"):
        world.iterations = -3
    with pytest.raises(TypeError):
        VerletWorld(iterations=2.5)
    with pytest.raises(ValueError, match="position"):
        world.add_particle((math.nan, 0.0))
    with pytest.raises(ValueError, match="gravity"):
        VerletWorld(gravity=(0.0, math.inf))
    with pytest.raises(ValueError, match="center"):
        world.add_box((math.nan, 0.0), 1.0, 1.0)
    with pytest.raises(ValueError, match="vertices"):
        world.add_polygon([(0, 0), (1, 0), (math.nan, 1)])
    with pytest.raises(ValueError, match="dt"):
        world.step(math.nan)
    with pytest.raises(ValueError, match="dt"):
        world.step(0.0)
    with pytest.raises(ValueError, match="mass"):
        world.add_particle((1.0, 1.0), mass=0.0)
    with pytest.raises(ValueError, match="convex"):
        world.add_polygon([(0, 0), (2, 0), (1, 0.2), (2, 2), (0, 2)])
    with pytest.raises(ValueError, match="bounds"):
        VerletWorld(bounds=(0.0, 0.0, -1.0, 1.0))
    with pytest.raises(ValueError, match="compliance"):
        VerletWorld(compliance=1e-3)
    with pytest.raises(ValueError, match="solver"):
        VerletWorld(solver="impulse")
    with pytest.raises(ValueError, match="damping"):
        world.damping = 1.0
    with pytest.raises(ValueError, match="substeps"):
        VerletWorld(substeps=0)
    with pytest.raises(ValueError, match="compliance"):
        VerletWorld(solver="xpbd", compliance=-1.0)
    with pytest.raises(ValueError, match="tear_ratio"):
        world.add_cloth((0, 0), 1.0, 1.0, 3, 3, tear_ratio=0.5)
    with pytest.raises(ValueError, match="different"):
        world.add_edge(a, a)
    with pytest.raises(ValueError):
        world.add_edge(a, 99)
    world.positions[a, 0] = math.nan  # NaN written into the state is refused, not stepped
    with pytest.raises(ValueError, match="finite"):
        world.step(DT)


# --------------------------------------------------------------------------- plain Python
def test_plain_python_kernels_give_the_compiled_result():
    script = textwrap.dedent(
        """
        import numpy as np
        from physbook.verlet import verlet_demo_world
        world, _ = verlet_demo_world(columns=2, rows=2, triangles=1)
        world.record(40, 1 / 60)
        np.save("{path}", world.positions)
        """
    )
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"verlet_plain_{os.getpid()}.npy")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", script.format(path=path)], env=env, check=True,
                   timeout=120)
    plain = np.load(path)
    os.remove(path)
    world, _ = verlet_demo_world(columns=2, rows=2, triangles=1)
    world.record(40, DT)
    np.testing.assert_allclose(world.positions, plain, atol=1e-12)


def test_drawing_a_world_and_its_contact():
    world, upper, lower = two_boxes(offset=0.3, depth=0.1)
    fig, ax = plt.subplots()
    pb.viz.verlet_axes(ax, (-3, -2, 3, 3))
    pb.viz.draw_verlet(ax, world)
    pb.viz.draw_contact(ax, world, world.find_contact(upper, lower))
    assert len(ax.collections) >= 3 and len(ax.patches) == 2
    plt.close(fig)
