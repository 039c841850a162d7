"""Bad input and overflow in the Verlet engine: clear errors, no out-of-bounds access, and a
world left as it was when a step cannot be completed."""

from __future__ import annotations

import copy
import inspect
import math
import re

import numpy as np
import pytest
from verlet_arrays import DT, world_arrays

import physbook as pb
from physbook.verlet import (
    VerletBody,
    VerletContact,
    VerletSnapshot,
    VerletWorld,
    verlet_demo_world,
)

#: The arrays that make up a Verlet world's state.
STATE = ("_position", "_previous", "_force", "_inverse_mass", "_multipliers", "_edge_ends",
         "_rest_length")


def state_of(world: VerletWorld) -> dict[str, np.ndarray]:
    return {name: getattr(world, name).copy() for name in STATE}


def assert_same_state(world: VerletWorld, before: dict[str, np.ndarray]) -> None:
    for name, array in before.items():
        np.testing.assert_array_equal(getattr(world, name), array, err_msg=name)


def two_boxes() -> tuple[VerletWorld, VerletContact]:
    """A unit box turned by 45° with its lowest corner 5 cm into a long flat box."""
    world = VerletWorld(gravity=(0.0, 0.0))
    world.add_box((0.0, 0.0), 4.0, 1.0)
    world.add_box((0.3, 0.5 + math.sqrt(0.5) - 0.05), 1.0, 1.0, angle=math.pi / 4)
    return world, world.find_contact(0, 1)


def contact_with(contact: VerletContact, **fields) -> VerletContact:
    values = {name: getattr(contact, name) for name in
              ("depth", "normal", "edge", "vertex", "edge_body", "vertex_body")}
    return VerletContact(**{**values, **fields})


# --------------------------------------------------------------------------- contacts
@pytest.mark.parametrize(("fields", "named"), [
    ({"edge": 10**9}, "contact.edge"),
    ({"vertex_body": 99}, "contact.vertex_body"),
    ({"edge_body": 99}, "contact.edge_body"),
    ({"vertex": 10**9}, "contact.vertex"),
])
def test_respond_refuses_indices_outside_the_world(fields, named):
    world, contact = two_boxes()
    before = state_of(world)
    with pytest.raises(ValueError, match=named):
        world.respond(contact_with(contact, **fields))
    assert_same_state(world, before)


def test_respond_refuses_an_edge_or_vertex_of_the_wrong_body():
    world, contact = two_boxes()
    vertex_body = world.body(contact.vertex_body)
    foreign_edge = int(vertex_body.edges[0])  # a boundary edge, but of the vertex's body
    with pytest.raises(ValueError, match="contact.edge .* boundary edge of contact.edge_body"):
        world.respond(contact_with(contact, edge=foreign_edge))
    brace = int(world.body(contact.edge_body).edges[-1])  # braces come last
    assert not world.boundary[brace]
    with pytest.raises(ValueError, match="contact.edge"):
        world.respond(contact_with(contact, edge=brace))
    foreign_vertex = int(world.body(contact.edge_body).particles[0])
    with pytest.raises(ValueError, match="contact.vertex .* particle of contact.vertex_body"):
        world.respond(contact_with(contact, vertex=foreign_vertex))
    with pytest.raises(TypeError, match="contact must be a VerletContact"):
        world.respond((contact.depth, contact.normal))


@pytest.mark.parametrize(("fields", "error", "named"), [
    ({"depth": math.nan}, ValueError, "depth"),
    ({"depth": -0.1}, ValueError, "depth"),
    ({"depth": math.inf}, ValueError, "depth"),
    ({"normal": np.array([0.0, 2.0])}, ValueError, "normal must be a unit vector"),
    ({"normal": np.array([math.nan, 1.0])}, ValueError, "normal"),
    ({"normal": "up"}, TypeError, "normal"),
    ({"edge": -1}, ValueError, "edge"),
    ({"vertex": 2.0}, TypeError, "vertex"),
    ({"edge_body": 1, "vertex_body": 1}, ValueError, "edge_body and vertex_body"),
])
def test_a_contact_checks_its_fields(fields, error, named):
    _, contact = two_boxes()
    with pytest.raises(error, match=named):
        contact_with(contact, **fields)


def test_a_valid_contact_stores_checked_values():
    _, contact = two_boxes()
    made = contact_with(contact, depth=1, normal=[0, 1], edge=np.int64(contact.edge))
    assert made.depth == 1.0 and isinstance(made.depth, float)
    assert type(made.edge) is int and made.normal.dtype == np.float64
    assert not made.normal.flags.writeable


def test_respond_restores_the_positions_when_the_push_overflows():
    world, contact = two_boxes()
    world.positions[contact.vertex, 1] = 1e308  # written through the live view
    world.positions[world.edges[contact.edge], 1] = 1e308 - 1.0
    before = world.positions.copy()
    with pytest.raises(FloatingPointError, match="contact.depth"):
        world.respond(contact_with(contact, depth=1.7e308))
    np.testing.assert_array_equal(world.positions, before)


def test_equal_huge_masses_still_share_the_push_half_and_half():
    # m_v + m_e overflows for two bodies of 1e308 kg; their ratio is still 1
    world = VerletWorld(gravity=(0.0, 0.0))
    world.add_box((0.0, 0.0), 4.0, 1.0, mass=1e308)
    world.add_box((0.3, 0.5 + math.sqrt(0.5) - 0.05), 1.0, 1.0, mass=1e308, angle=math.pi / 4)
    contact = world.find_contact(0, 1)
    start = world.positions[contact.vertex].copy()
    world.respond(contact)
    np.testing.assert_allclose(world.positions[contact.vertex] - start,
                               0.5 * contact.depth * contact.normal, atol=1e-12)


def test_find_contact_refuses_a_body_of_another_world():
    world, _ = two_boxes()
    other, _ = two_boxes()
    with pytest.raises(ValueError, match="body_a is a body of another VerletWorld"):
        world.find_contact(other.body(0), world.body(1))
    with pytest.raises(ValueError, match="body_b is a body of another VerletWorld"):
        world.find_contact(world.body(0), other.body(1))
    assert world.find_contact(world.body(0), 1) is not None  # a handle or an index


def test_a_body_handle_checks_its_world_and_index():
    world, _ = two_boxes()
    with pytest.raises(TypeError, match="world must be a VerletWorld"):
        VerletBody("world", 0)
    with pytest.raises(ValueError, match="index"):
        VerletBody(world, 2)
    body = VerletBody(world, np.int64(1))
    assert body.index == 1 and body.world is world
    with pytest.raises(AttributeError):
        body.index = 99  # a handle cannot be pointed past the world's bodies


# --------------------------------------------------------------------------- kernels
def test_only_checked_kernels_are_exported():
    # a compiled kernel indexes without bounds checks, so none may be exported as it is
    for name in pb.verlet.__all__:
        exported = getattr(pb.verlet, name)
        if not isinstance(exported, type):
            assert inspect.isfunction(exported), name
            assert not hasattr(exported, "py_func"), name
    for private in ("collide_bodies", "edge_parameter", "keep_in_bounds", "project_body",
                    "stretched_edges", "update_bodies"):
        assert private not in pb.verlet.__all__ and not hasattr(pb.verlet, private)


@pytest.mark.parametrize("name", ["integrate_particles", "satisfy_edges",
                                  "satisfy_edges_compliant", "find_contact",
                                  "respond_vertex_edge", "step_world"])
def test_a_checked_kernel_shows_the_compiled_loop_as_its_source(name):
    # the book's show_source displays what inspect.getsource finds
    source = inspect.getsource(getattr(pb.verlet, name))
    assert source.startswith("@njit") and f"def {name}_unchecked(" in source


def test_satisfy_edges_refuses_counts_and_indices_outside_its_arrays():
    positions, weights = np.zeros((2, 2)), np.ones(2)
    positions[1] = (1.0, 0.0)
    ends, rest = np.array([[0, 1]]), np.array([0.5])
    with pytest.raises(ValueError, match="edge_count must not exceed the 1 rows of edge_ends"):
        pb.verlet.satisfy_edges(positions, weights, ends, rest, 10**8)
    with pytest.raises(ValueError, match="edge_ends must index the 2 rows of positions"):
        pb.verlet.satisfy_edges(positions, weights, np.array([[0, 7]]), rest, 1)
    with pytest.raises(TypeError, match="positions must be a float64 numpy array"):
        pb.verlet.satisfy_edges(positions.astype(np.float32), weights, ends, rest, 1)
    with pytest.raises(TypeError, match="positions must be a float64 numpy array"):
        pb.verlet.satisfy_edges(positions.tolist(), weights, ends, rest, 1)
    read_only = positions.copy()
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="positions must be writable"):
        pb.verlet.satisfy_edges(read_only, weights, ends, rest, 1)
    with pytest.raises(ValueError, match="inverse_mass must have one entry per row"):
        pb.verlet.satisfy_edges(positions, np.ones(3), ends, rest, 1)
    assert pb.verlet.satisfy_edges(positions, weights, ends, rest, 1) == pytest.approx(0.5)
    np.testing.assert_allclose(positions, [[0.25, 0.0], [0.75, 0.0]])


def test_integrate_particles_refuses_a_count_past_its_arrays_and_undoes_an_overflow():
    positions, previous, force = np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2))
    with pytest.raises(ValueError, match="count must not exceed the 2 rows of positions"):
        pb.verlet.integrate_particles(positions, previous, force, np.ones(2), 10**8,
                                      0.0, -10.0, DT, 0.0)
    positions[:] = 1.0
    with pytest.raises(FloatingPointError, match="positions row 0 .* restored"):
        pb.verlet.integrate_particles(positions, previous, force, np.ones(2), 2,
                                      0.0, -1e300, 1e10, 0.0)
    np.testing.assert_array_equal(positions, 1.0)
    np.testing.assert_array_equal(previous, 0.0)


def test_step_world_on_a_worlds_arrays_is_that_worlds_step():
    world, _ = verlet_demo_world(columns=2, rows=2, triangles=1)
    world.record(30, DT)
    arrays = world_arrays(world)
    responses = pb.verlet.step_world(**arrays)
    world.step(DT)
    np.testing.assert_array_equal(arrays["positions"], world.positions)
    np.testing.assert_array_equal(arrays["previous"], world.previous_positions)
    assert responses == world.last_responses


@pytest.mark.parametrize(("argument", "value", "named"), [
    ("body_count", 99, "body_count must not exceed"),
    ("body_particles", np.array([0, 1, 2, 10**6]), "body_particles must index"),
    ("body_particle_count", np.array([4, 4, 4, 40]), "body_particle_count"),
    ("edge_count", 10**6, "edge_count must not exceed"),
    ("particle_count", -1, "particle_count"),
    ("iterations", 10**30, "iterations must be at most"),
    ("edge_boundary", np.ones(3), "edge_boundary must be a 1D array of booleans"),
])
def test_step_world_refuses_rows_outside_its_arrays(argument, value, named):
    world, _ = verlet_demo_world(columns=1, rows=1, triangles=4)
    arrays = world_arrays(world)
    arrays[argument] = value
    with pytest.raises((ValueError, TypeError), match=named):
        pb.verlet.step_world(**arrays)


def test_find_contact_and_respond_kernels_check_their_indices():
    world, contact = two_boxes()
    arrays = world_arrays(world)
    geometry = {key: arrays[key] for key in ("positions", "edge_ends")}
    bodies = {"particle_start": arrays["particle_start"],
              "particle_count": arrays["body_particle_count"],
              "body_particles": arrays["body_particles"], "edge_start": arrays["edge_start"],
              "edge_count": arrays["body_edge_count"], "body_edges": arrays["body_edges"],
              "centers": arrays["centers"]}
    found = pb.verlet.find_contact(**geometry, edge_boundary=arrays["edge_boundary"], body_a=0,
                                   body_b=1, **bodies)
    assert found[0] == pytest.approx(contact.depth) and found[3] == contact.edge
    with pytest.raises(ValueError, match="body_b must be below 2"):
        pb.verlet.find_contact(**geometry, edge_boundary=arrays["edge_boundary"], body_a=0,
                               body_b=2, **bodies)
    with pytest.raises(ValueError, match="particle_start .* must not run past"):
        pb.verlet.find_contact(**geometry, edge_boundary=arrays["edge_boundary"], body_a=0,
                               body_b=1, **{**bodies, "particle_start": np.array([0, 6])})
    respond = {"positions": arrays["positions"], "inverse_mass": arrays["inverse_mass"],
               "edge_ends": arrays["edge_ends"], "edge": contact.edge,
               "vertex": contact.vertex, "normal_x": 0.0, "normal_y": 1.0,
               "depth": contact.depth, "vertex_body_mass": 1.0, "edge_body_mass": 1.0}
    with pytest.raises(ValueError, match="edge must be below"):
        pb.verlet.respond_vertex_edge(**{**respond, "edge": 10**9})
    with pytest.raises(ValueError, match="vertex .* must not be an end of edge"):
        pb.verlet.respond_vertex_edge(**{**respond, "vertex": int(world.edges[contact.edge, 0])})
    with pytest.raises(ValueError, match=r"\(normal_x, normal_y\) must be a unit vector"):
        pb.verlet.respond_vertex_edge(**{**respond, "normal_y": 2.0})
    t = pb.verlet.respond_vertex_edge(**respond)
    assert t == pytest.approx(world.respond(contact), abs=1e-15)
    np.testing.assert_allclose(respond["positions"], world.positions, atol=1e-15)


# --------------------------------------------------------------------------- overflow in a step
def test_a_step_that_overflows_raises_and_leaves_the_world_as_it_was():
    world = VerletWorld(gravity=(0.0, -1e308))
    world.add_particle((0.0, 0.0))
    world.add_rope((1.0, 0.0), (2.0, 0.0), 2)
    for _ in range(1000):
        before = state_of(world)
        try:
            world.step(DT)
        except FloatingPointError as error:
            assert re.search(r"particle \d+'s (position|previous position|velocity)", str(error))
            assert "gravity" in str(error)
            break
    else:
        pytest.fail("gravity of 1e308 m/s² never overflowed")
    assert_same_state(world, before)
    world.gravity = (0.0, -10.0)  # the user can recover and go on
    world.positions[:] = 0.0
    world.previous_positions[:] = 0.0
    world.step(DT)


def test_a_huge_force_raises_in_the_step_it_is_applied_and_can_be_taken_back():
    world = VerletWorld()
    i = world.add_particle((0.0, 0.0), mass=1e-300)
    world.apply_force(i, (1e308, 0.0))
    before = state_of(world)
    with pytest.raises(FloatingPointError, match=f"particle {i}'s position"):
        world.step(DT)
    assert_same_state(world, before)  # the force is still there: nothing happened
    world.apply_force(i, (-1e308, 0.0))
    world.step(DT)
    assert np.isfinite(world.positions).all()


def test_accumulated_forces_that_overflow_are_refused():
    world = VerletWorld()
    i = world.add_particle((0.0, 0.0))
    world.apply_force(i, (1e308, 0.0))
    with pytest.raises(FloatingPointError, match="force"):
        world.apply_force(i, (1e308, 0.0))
    np.testing.assert_array_equal(world._force[i], [1e308, 0.0])


def test_an_xpbd_step_whose_compliance_over_h_squared_overflows_is_refused():
    world = VerletWorld(solver="xpbd", compliance=1e306)
    world.add_rope((0.0, 0.0), (1.0, 0.0), 4)
    before = state_of(world)
    with pytest.raises(ValueError, match=r"compliance / h² overflows .* dt"):
        world.step(DT)
    assert_same_state(world, before)


@pytest.mark.parametrize("factory", [
    lambda world, mass: world.add_particle((0.0, 0.0), mass=mass),
    lambda world, mass: world.add_box((0.0, 0.0), 1.0, 1.0, mass=mass),
    lambda world, mass: world.add_rope((0.0, 0.0), (1.0, 0.0), 3, mass=mass),
    lambda world, mass: world.add_cloth((0.0, 0.0), 1.0, 1.0, 3, 3, mass=mass),
])
def test_a_particle_mass_without_a_finite_inverse_is_refused(factory):
    world = VerletWorld()
    with pytest.raises(ValueError, match="mass must leave each of its .* finite"):
        factory(world, 1e-320)
    assert world.particle_count == 0


def test_nan_written_into_a_view_is_named_with_its_particle():
    world = VerletWorld()
    world.add_rope((0.0, 0.0), (1.0, 0.0), 3)
    world.previous_positions[2, 1] = math.inf
    with pytest.raises(ValueError, match="previous_positions must be finite: particle 2"):
        world.step(DT)
    world.previous_positions[2, 1] = 0.0
    world.positions[1, 0] = math.nan
    with pytest.raises(ValueError, match="positions must be finite: particle 1"):
        world.step(DT)


def test_velocities_that_overflow_are_refused_not_returned():
    world = VerletWorld(gravity=(0.0, 0.0))
    i = world.add_particle((0.0, 0.0))
    world.set_velocity(i, (1.0, 0.0), DT)
    with pytest.raises(FloatingPointError, match="velocity"):
        world.velocities(1e-320)
    with pytest.raises(FloatingPointError, match="velocity"):
        world.momentum(1e-320)
    with pytest.raises(FloatingPointError, match="velocity"):
        world.set_velocity(i, (1e308, 0.0), 1e10)
    np.testing.assert_allclose(world.velocities(DT)[i], [1.0, 0.0])


# --------------------------------------------------------------------------- tiny and huge dt
def test_a_tiny_dt_steps_like_any_other():
    for world in (VerletWorld(), VerletWorld(solver="xpbd"), VerletWorld(substeps=4)):
        world.add_rope((0.0, 0.0), (1.0, 0.0), 3)
        world.set_velocity(3, (1.0, 0.0), 1e-170)
        start = world.positions.copy()
        world.step(1e-170)
        # a g dt² of 1e-339 m is below float resolution: the state is unchanged but for
        # the moving end, which keeps its velocity
        np.testing.assert_array_equal(world.positions[:3], start[:3])
        assert np.isfinite(world.positions).all()
    with pytest.raises(ValueError, match="dt must be at least substeps × 5e-324 s"):
        VerletWorld(substeps=4).step(5e-324)


def test_a_tiny_dt_with_compliance_names_compliance_and_dt():
    world = VerletWorld(solver="xpbd", compliance=1e-3)
    world.add_rope((0.0, 0.0), (1.0, 0.0), 3)
    with pytest.raises(ValueError, match="compliance .* dt"):
        world.step(1e-170)


@pytest.mark.parametrize(("make", "named"), [
    (lambda: VerletWorld(iterations=10**30), "iterations"),
    (lambda: VerletWorld(substeps=10**30), "substeps"),
    (lambda: VerletWorld().record(10**30, DT), "steps"),
    (lambda: VerletWorld().record(2, DT, every=10**30), "every"),
    (lambda: VerletWorld().add_rope((0, 0), (1, 0), 10**30), "segments"),
    (lambda: VerletWorld().add_rope((0, 0), (1, 0), 2**21), "segments"),
    (lambda: VerletWorld().add_cloth((0, 0), 1, 1, 10**30, 3), "columns"),
    (lambda: VerletWorld().add_cloth((0, 0), 1e4, 1e4, 2000, 2000), "columns × rows"),
    (lambda: VerletWorld().add_regular_polygon((0, 0), 1.0, 10**30), "sides"),
    (lambda: verlet_demo_world(iterations=10**30), "iterations"),
    (lambda: pb.verlet.hanging_cloth(columns=10**30), "columns"),
])
def test_huge_counts_are_refused_by_name(make, named):
    with pytest.raises(ValueError, match=named):
        make()


# --------------------------------------------------------------------------- outlines
def star(turns: int = 2, points: int = 5) -> list[tuple[float, float]]:
    angles = 2.0 * math.pi * turns * np.arange(points) / points
    return [(math.cos(a), math.sin(a)) for a in angles]


def body_from_outline(world: VerletWorld, outline, inner=()) -> VerletBody:
    """Particles at ``outline`` joined in order, plus ``inner`` particles with spokes."""
    ring = [world.add_particle(point) for point in outline]
    edges = [world.add_edge(ring[k], ring[(k + 1) % len(ring)]) for k in range(len(ring))]
    hubs = [world.add_particle(point) for point in inner]
    edges += [world.add_edge(hub, spoke, boundary=False) for hub in hubs for spoke in ring]
    return world.add_body(ring + hubs, edges)


def test_add_polygon_refuses_a_pentagram():
    with pytest.raises(ValueError, match="vertices"):
        VerletWorld().add_polygon(star())


@pytest.mark.parametrize(("outline", "named"), [
    (star(), "goes round 2 times"),  # turns left at every point, but twice round
    ([(0, 0), (1, 1), (1, 0), (0, 1)], "convex"),  # a bowtie
    ([(0, 0), (2, 0), (1, 0.5), (2, 1), (0, 1)], "convex"),  # an arrow's notch
    ([(0, 0), (1, 0), (2, 0), (2, 1), (0, 1)], "convex"),  # three particles in a line
])
def test_add_body_refuses_outlines_that_are_not_convex(outline, named):
    world = VerletWorld()
    with pytest.raises(ValueError, match=f"edges: .*{named}"):
        body_from_outline(world, outline)
    assert world.body_count == 0


def test_add_body_needs_one_closed_outline():
    world = VerletWorld()
    triangles = [[world.add_particle(p) for p in ((x, 0), (x + 1, 0), (x, 1))] for x in (0, 5)]
    edges = [world.add_edge(t[k], t[(k + 1) % 3]) for t in triangles for k in range(3)]
    with pytest.raises(ValueError, match="one outline, not several loops"):
        world.add_body(triangles[0] + triangles[1], edges)
    with pytest.raises(ValueError, match="close one outline"):
        world.add_body(triangles[0], edges[:2])  # open
    with pytest.raises(ValueError, match="edges must not repeat"):
        world.add_body(triangles[0], edges[:3] + edges[:1])
    assert world.add_body(triangles[0], edges[:3]).index == 0


def test_add_body_accepts_both_orientations_and_inner_particles():
    world = VerletWorld()
    square = [(0, 0), (1, 0), (1, 1), (0, 1)]
    body_from_outline(world, square)
    body_from_outline(world, square[::-1])  # clockwise
    wheel = body_from_outline(world, star(1, 6), inner=[(0.0, 0.0)])
    assert len(wheel.particles) == 7
    with pytest.raises(ValueError, match="particles: particle .* outside the body's outline"):
        body_from_outline(world, square, inner=[(2.0, 0.5)])


# --------------------------------------------------------------------------- odds and ends
@pytest.mark.parametrize("radius", [np.float32(1.0), np.float64(1.0), 1, math.inf, 10**400])
def test_nearest_particle_takes_any_positive_real_radius(radius):
    world = VerletWorld()
    world.add_particle((0.0, 0.0))
    assert world.nearest_particle((0.5, 0.0), radius) == 0


@pytest.mark.parametrize(("radius", "error"), [
    (0.0, ValueError), (-1.0, ValueError), (math.nan, ValueError), ("1", TypeError),
    (True, TypeError), (None, TypeError),
])
def test_nearest_particle_refuses_a_radius_that_is_not_positive(radius, error):
    world = VerletWorld()
    world.add_particle((0.0, 0.0))
    with pytest.raises(error, match="max_distance"):
        world.nearest_particle((0.0, 0.0), radius)


def test_set_velocity_checks_indices_and_rows():
    world = VerletWorld()
    world.add_rope((0.0, 0.0), (1.0, 0.0), 2)
    with pytest.raises(TypeError, match="indices"):
        world.set_velocity([[0, 1], [2]], (1.0, 0.0), DT)
    with pytest.raises(ValueError, match="velocity must be one .* row per index"):
        world.set_velocity([0, 1], [(1.0, 0.0)] * 3, DT)
    world.set_velocity([], (1.0, 0.0), DT)  # nothing to set


def test_bad_arguments_of_drag_along_and_record_change_nothing():
    world = VerletWorld()
    world.add_rope((0.0, 0.0), (1.0, 0.0), 2, pin_start=False)
    before = state_of(world)
    with pytest.raises(ValueError, match="dt"):
        world.drag_along(1, [(0.5, 1.0)], math.nan)
    with pytest.raises(ValueError, match="dt"):
        world.record(0, -1.0)
    assert_same_state(world, before)
    assert world._grabbed == -1


@pytest.mark.parametrize(("make", "named"), [
    (lambda w: w.add_box((0.0, 0.0), 1e308, 1.0), "width"),
    (lambda w: w.add_box((1e150, 0.0), 1.0, 1.0), "center"),
    (lambda w: w.add_triangle((0.0, 0.0), 1.0, 1e308), "height"),
    (lambda w: w.add_regular_polygon((0.0, 0.0), 1e200, 5), "radius"),
    (lambda w: w.add_box((1e6, 0.0), 1e-12, 1e-12), "width"),
    (lambda w: w.add_cloth((0.0, 0.0), 1e-12, 1.0, 3, 3), "width"),
    (lambda w: w.add_cloth((1e150, 0.0), 1.0, 1.0, 3, 3), "top_left"),
    (lambda w: w.add_rope((0.0, 0.0), (1e-9, 0.0), 4), "segments"),
    (lambda w: w.add_particle((1e151, 0.0)), "position"),
])
def test_shapes_beyond_float_reach_or_too_small_name_their_arguments(make, named):
    world = VerletWorld()
    with pytest.raises(ValueError, match=named):
        make(world)
    assert world.particle_count == 0


def test_a_snapshot_checks_what_it_holds():
    world, _ = two_boxes()
    frame = world.snapshot()
    fields = {name: getattr(frame, name) for name in
              ("positions", "edges", "boundary", "pinned", "bodies", "bounds")}
    assert VerletSnapshot(**fields).bodies[1].tolist() == world.body(1).particles.tolist()
    bad = [({"positions": np.full((8, 2), np.nan)}, ValueError, "positions"),
           ({"edges": fields["edges"] + 100}, ValueError, "edges must index the 8 rows"),
           ({"boundary": fields["boundary"][:3]}, ValueError, "boundary"),
           ({"pinned": np.zeros(8)}, TypeError, "pinned"),
           ({"bodies": (np.array([0, 99]),)}, ValueError, "bodies"),
           ({"bodies": 5}, TypeError, "bodies"),
           ({"bounds": (1.0, 0.0, 0.0, 1.0)}, ValueError, "bounds")]
    for change, error, named in bad:
        with pytest.raises(error, match=named):
            VerletSnapshot(**{**fields, **change})


def test_a_failed_step_keeps_a_deep_copy_equal_to_the_world():
    # the state is restored in place: a copy taken before the step still matches it exactly
    world = VerletWorld(gravity=(0.0, -1e308))
    world.add_box((0.0, 0.0), 0.5, 0.5)
    world.add_box((0.0, 0.6), 0.5, 0.5)
    copy_before = None
    for _ in range(1000):
        copy_before = copy.deepcopy(world)
        try:
            world.step(DT)
        except FloatingPointError:
            break
    assert copy_before is not None
    assert_same_state(world, state_of(copy_before))
    np.testing.assert_array_equal(world._centers, copy_before._centers)
