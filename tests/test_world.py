"""World, Body handles, forces and the step pipeline, against analytic oracles."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import physbook as pb
from physbook import scenes
from physbook.broadphase.naive import naive_pairs
from physbook.dynamics import motion
from physbook.dynamics.body_table import BodyArrays
from physbook.geometry.surface import FRICTION, RESTITUTION
from physbook.kinds import DYNAMIC, KINEMATIC, STATIC
from physbook.vecmath import vec

DT = 1.0 / 60.0


def box_inertia(mass, width, height):
    """I = m(w² + h²)/12 about the centre of a w × h rectangle."""
    return mass * (width**2 + height**2) / 12.0


def rotate(vector, angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * vector[0] - s * vector[1], s * vector[0] + c * vector[1]])


def drift(acceleration, dt, steps, substeps):
    """How far constant ``acceleration`` moves a body from rest in ``steps`` steps of
    symplectic Euler, each in ``substeps`` substeps of h = dt/substeps: a·h²·N(N+1)/2 with
    N = steps·substeps (the velocity is updated first, then the position)."""
    n = steps * substeps
    return acceleration * (dt / substeps) ** 2 * n * (n + 1) / 2


def substeps_of(world) -> int:
    """The substeps per step of a world's solver (1 for the rigid impulse solvers)."""
    return getattr(world.solver, "substeps", 1)


# --- free motion --------------------------------------------------------------------------


@settings(max_examples=40)
@given(
    y0=st.floats(-100, 100),
    v0=st.floats(-20, 20),
    scale=st.floats(-2, 3),
    dt=st.floats(1e-3, 0.1),
    steps=st.integers(1, 200),
    solver=st.sampled_from(sorted(pb.SOLVERS)),
)
def test_free_fall_follows_the_symplectic_euler_recurrence(y0, v0, scale, dt, steps, solver):
    # With k substeps of h = dt/k each step: v_n = v0 + n·g·dt and
    # y_n = y0 + n·dt·v0 + g·h²·N(N+1)/2, N = n·k (velocity first, then position).
    world = pb.World(gravity=(0.0, -9.0), solver=solver)
    body = world.add_body(pb.Circle(0.5), position=(1.0, y0), velocity=(0.5, v0),
                          gravity_scale=scale)
    for _ in range(steps):
        world.step(dt)
    g = -9.0 * scale
    n = steps
    assert body.velocity[1] == pytest.approx(v0 + n * g * dt, abs=1e-9)
    assert body.position[1] == pytest.approx(
        y0 + n * dt * v0 + drift(g, dt, n, substeps_of(world)), abs=1e-8)
    assert body.position[0] == pytest.approx(1.0 + 0.5 * n * dt, abs=1e-10)
    assert world.time == n * dt


def test_bodies_step_independently_of_each_other():
    # Stepping 50 bodies together gives each exactly what stepping it alone gives. They
    # overlap, so layers = 0 keeps them from colliding: this is about free motion.
    rng = np.random.default_rng(1)
    shapes = [pb.Circle(0.3, (0.1, 0.2)), pb.Polygon.box(0.5, 0.2, (0.3, -0.1), 0.4)]
    states = [(rng.normal(size=2), rng.normal(), rng.normal(size=2), rng.normal(),
               rng.normal(size=2), rng.normal(), rng.uniform(0, 2)) for _ in range(50)]
    together = pb.World()
    handles = []
    for position, angle, velocity, spin, *_ in states:
        handles.append(together.add_body(shapes, position, angle, velocity, spin,
                                         filter=pb.Filter(mask=0)))
    for _ in range(30):
        for handle, (*_, force, torque, scale) in zip(handles, states, strict=True):
            handle.apply_force(force)
            handle.apply_torque(torque)
            handle.gravity_scale = scale
        together.step(DT)
    for handle, (position, angle, velocity, spin, force, torque, scale) in zip(
            handles, states, strict=True):
        alone = pb.World()
        body = alone.add_body(shapes, position, angle, velocity, spin, gravity_scale=scale)
        for _ in range(30):
            body.apply_force(force)
            body.apply_torque(torque)
            alone.step(DT)
        np.testing.assert_array_equal(handle.position, body.position)
        np.testing.assert_array_equal(handle.velocity, body.velocity)
        assert handle.angle == body.angle


def random_body_arrays(rng: np.random.Generator, n: int) -> BodyArrays:
    """Random columns for ``n`` bodies of every kind, some with the centre off the origin."""
    columns = {name: rng.normal(size=(n, 2) if name in ("origins", "centers", "velocities",
                                                        "forces", "local_centers",
                                                        "sleep_centers") else n)
               for name in BodyArrays._fields}
    columns["local_centers"][rng.random(n) < 0.5] = 0.0  # the kernels' shortcut
    for name in ("masses", "inertias", "inverse_masses", "inverse_inertias", "gravity_scales"):
        columns[name] = rng.uniform(0, 2, n)
    for name in ("kinds", "ids"):
        columns[name] = rng.integers(0, 3, n).astype(np.int64)
    return BodyArrays(**columns)


def copy_of(bodies: BodyArrays) -> BodyArrays:
    return BodyArrays(*(column.copy() for column in bodies))


@pytest.mark.parametrize("kernel, arguments, returned", [
    ("integrate_velocities", (np.array([0.0, -10.0]), 0.02), None),
    ("integrate_positions", (0.02,), 0),  # no body became non-finite
    ("update_origins", (), None),
])
def test_compiled_kernels_match_their_plain_python(kernel, arguments, returned):
    compiled = getattr(motion, kernel)
    if not hasattr(compiled, "py_func"):
        pytest.skip("numba is disabled: the kernels are plain Python already")
    bodies = random_body_arrays(np.random.default_rng(2), 64)
    plain = copy_of(bodies)
    assert compiled(bodies, *arguments) == compiled.py_func(plain, *arguments) == returned
    for name, a, b in zip(BodyArrays._fields, bodies, plain, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)


def test_free_flight_runs_the_substeps_body_by_body_bit_for_bit():
    # With no contact and no joint, the soft step hands its substeps to integrate_free,
    # which runs each body's in one go. The oracle: the two passes over every body,
    # substeps times over, as the soft step runs them otherwise.
    rng = np.random.default_rng(5)
    bodies = random_body_arrays(rng, 64)._replace(
        kinds=np.array([DYNAMIC, STATIC, KINEMATIC] * 21 + [DYNAMIC], np.int64),
        awake=rng.random(64) < 0.8)
    bodies.awake[0] = True
    bodies.inverse_masses[0] = 2.0
    bodies.forces[0, 0] = 1e308  # F/m overflows: the body is counted as not finite
    passes = copy_of(bodies)
    gravity, h, substeps = np.array([0.5, -10.0]), 0.02 / 8, 8
    for _ in range(substeps):
        motion.integrate_velocities(passes, gravity, h)
        bad = motion.integrate_positions(passes, h)
    assert motion.integrate_free(bodies, gravity, h, substeps) == bad == 1
    for name, a, b in zip(BodyArrays._fields, bodies, passes, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)


# --- forces, torques, impulses ------------------------------------------------------------


def test_forces_accumulate_act_for_one_step_and_are_cleared():
    world = pb.World(gravity=(0.0, 0.0))
    body = world.add_body(pb.Polygon.box(1.0, 0.5))  # mass 2 at density 1
    body.apply_force((3.0, 0.0))
    body.apply_force((1.0, 2.0))
    np.testing.assert_array_equal(body.force, [4.0, 2.0])
    world.step(0.1)
    # a = ΣF/m = (2, 1); one step of symplectic Euler, in the solver's substeps.
    np.testing.assert_allclose(body.velocity, [0.2, 0.1])
    np.testing.assert_allclose(body.position,
                               drift(np.array([2.0, 1.0]), 0.1, 1, substeps_of(world)))
    np.testing.assert_array_equal(world.bodies.forces, [[0.0, 0.0]])
    assert world.bodies.torques[0] == 0.0
    world.step(0.1)  # no force any more: constant velocity
    np.testing.assert_allclose(body.velocity, [0.2, 0.1])


@settings(max_examples=30)
@given(
    fx=st.floats(-50, 50), fy=st.floats(-50, 50),
    px=st.floats(-3, 3), py=st.floats(-3, 3), angle=st.floats(-3, 3),
)
def test_off_centre_force_gives_torque_and_angular_acceleration(fx, fy, px, py, angle):
    world = pb.World(gravity=(0.0, 0.0))
    box = pb.Polygon.box(1.0, 0.5, center=(0.5, 0.25))  # centre of mass off the origin
    body = world.add_body(box, position=(2.0, -1.0), angle=angle)
    center = body.center_of_mass
    np.testing.assert_allclose(center, [2.0, -1.0] + rotate([0.5, 0.25], angle), atol=1e-12)
    point = center + (px, py)
    body.apply_force((fx, fy), point)
    torque = px * fy - py * fx  # τ = (p − c) × F
    assert body.torque == pytest.approx(torque, abs=1e-9)
    world.step(DT)
    mass, inertia = 2.0, box_inertia(2.0, 2.0, 1.0)
    assert body.angular_velocity == pytest.approx(DT * torque / inertia, abs=1e-9)
    np.testing.assert_allclose(body.velocity, np.array([fx, fy]) * DT / mass, atol=1e-12)
    # The body turned about its centre of mass: it moved only by the linear motion.
    np.testing.assert_allclose(body.center_of_mass,
                               center + drift(body.velocity / DT, DT, 1, substeps_of(world)),
                               atol=1e-12)


def test_impulse_changes_velocity_at_once():
    world = pb.World()
    body = world.add_body(pb.Circle(1.0), position=(0.0, 0.0))
    mass, inertia = math.pi, math.pi / 2
    body.apply_impulse((0.0, 2.0), point=(1.0, 0.0))
    np.testing.assert_allclose(body.velocity, [0.0, 2.0 / mass])
    assert body.angular_velocity == pytest.approx(2.0 / inertia)  # (1, 0) × (0, 2) = 2
    # The contact point's velocity v + ω × r.
    np.testing.assert_allclose(body.velocity_at((1.0, 0.0)), [0.0, 2.0 / mass + 2.0 / inertia])


def test_apply_torque_spins_the_body():
    world = pb.World(gravity=(0.0, 0.0))
    body = world.add_body(pb.Polygon.box(1.0, 1.0))
    body.apply_torque(4.0)
    world.step(0.5)
    alpha = 4.0 / (8.0 / 3.0)  # τ/I
    assert body.angular_velocity == pytest.approx(0.5 * alpha)
    assert body.angle == pytest.approx(drift(alpha, 0.5, 1, substeps_of(world)))


# --- mass properties of bodies ----------------------------------------------------------


def test_compound_body_uses_the_parallel_axis_theorem():
    left = pb.Polygon.box(1.0, 0.5, center=(-2.0, 0.0))  # 2 × 1, mass 2 at density 2 → 4
    right = pb.Polygon.box(0.5, 0.5, center=(1.0, 1.0))  # 1 × 1, mass 2
    world = pb.World()
    body = world.add_body([left, right], material=pb.Material(density=2.0))
    m1, m2 = 4.0, 2.0
    c1, c2 = np.array([-2.0, 0.0]), np.array([1.0, 1.0])
    center = (m1 * c1 + m2 * c2) / (m1 + m2)
    inertia = (box_inertia(m1, 2, 1) + m1 * np.sum((c1 - center) ** 2)
               + box_inertia(m2, 1, 1) + m2 * np.sum((c2 - center) ** 2))
    assert body.mass == pytest.approx(6.0)
    np.testing.assert_allclose(body.local_center, center)
    assert body.inertia == pytest.approx(inertia)
    assert body.inverse_mass == pytest.approx(1 / 6.0)
    assert body.inverse_inertia == pytest.approx(1 / inertia)


def test_compound_of_circle_and_box_against_grid_integration():
    shapes = [pb.Circle(0.5, (1.0, 0.0)), pb.Polygon.box(0.5, 1.0, (-0.5, 0.5), 0.3)]
    world = pb.World()
    body = world.add_body(shapes)
    # Midpoint quadrature of ∫ρ dA, ∫ρ·p dA and ∫ρ·|p − c|² dA over a fine grid.
    h = 0.002
    xs = np.arange(-2, 2, h) + h / 2
    x, y = np.meshgrid(xs, xs)
    inside = (x - 1.0) ** 2 + y**2 <= 0.25
    local = np.stack([x + 0.5, y - 0.5], axis=-1) @ vec.rotation_matrix(0.3)  # to box frame
    inside |= (np.abs(local[..., 0]) <= 0.5) & (np.abs(local[..., 1]) <= 1.0)
    mass = inside.sum() * h * h
    center = np.array([x[inside].mean(), y[inside].mean()])
    inertia = np.sum((x[inside] - center[0]) ** 2 + (y[inside] - center[1]) ** 2) * h * h
    assert body.mass == pytest.approx(mass, rel=2e-3)
    np.testing.assert_allclose(body.local_center, center, atol=2e-3)
    assert body.inertia == pytest.approx(inertia, rel=3e-3)


def test_body_rotates_about_its_centre_of_mass():
    world = pb.World(gravity=(0.0, 0.0))
    box = pb.Polygon.box(0.5, 0.5, center=(1.0, 0.0))
    body = world.add_body(box, position=(0.0, 0.0), angular_velocity=1.0)
    for _ in range(60):
        world.step(DT)
    angle = 60 * DT
    assert body.angle == pytest.approx(angle)
    np.testing.assert_allclose(body.center_of_mass, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(body.position, [1.0, 0.0] - rotate([1.0, 0.0], angle), atol=1e-12)


def test_position_and_angle_setters_keep_the_centre_of_mass_attached():
    world = pb.World()
    body = world.add_body(pb.Polygon.box(0.5, 0.5, center=(0.0, 2.0)))
    body.position = (3.0, 4.0)
    np.testing.assert_allclose(body.center_of_mass, [3.0, 6.0])
    body.angle = math.pi / 2  # turns about the origin: the centre swings to the left
    np.testing.assert_allclose(body.position, [3.0, 4.0])
    np.testing.assert_allclose(body.center_of_mass, [1.0, 4.0], atol=1e-12)
    np.testing.assert_allclose(world.bodies.origins[0], [3.0, 4.0])
    body.velocity = (1.0, -1.0)
    body.angular_velocity = 2.0
    np.testing.assert_array_equal(world.bodies.velocities[0], [1.0, -1.0])
    assert world.bodies.angular_velocities[0] == 2.0
    transform = body.transform
    np.testing.assert_allclose(transform.to_world(body.local_center), body.center_of_mass)


def test_written_centres_carry_the_origin_along():
    world = pb.World()
    body = world.add_body(pb.Polygon.box(0.5, 0.5, center=(1.0, 0.0)), angle=0.5)
    world.bodies.centers[0] += (2.0, 3.0)
    world.bodies.update_origins()
    np.testing.assert_allclose(body.position, [2.0, 3.0], atol=1e-12)


# --- kinds --------------------------------------------------------------------------------


def test_static_bodies_never_move():
    world = pb.World()
    ground = world.add_body(pb.Polygon.box(5.0, 0.5), position=(0, -1), kind="static")
    assert ground.mass == 0.0 and ground.inverse_mass == 0.0 and ground.inverse_inertia == 0.0
    assert world.bodies.kinds[0] == STATIC
    ground.apply_force((100.0, 100.0), point=(1.0, 0.0))
    ground.apply_impulse((5.0, 5.0), point=(2.0, 0.0))
    for _ in range(10):
        world.step(DT)
    np.testing.assert_array_equal(ground.position, [0.0, -1.0])
    np.testing.assert_array_equal(ground.velocity, [0.0, 0.0])
    assert ground.angle == 0.0
    with pytest.raises(ValueError, match="static"):
        ground.velocity = (1.0, 0.0)
    with pytest.raises(ValueError, match="static"):
        ground.angular_velocity = 1.0
    ground.velocity = (0.0, 0.0)  # zero is fine
    ground.position = (0.0, -2.0)  # a static body may be placed
    np.testing.assert_array_equal(ground.position, [0.0, -2.0])


def test_kinematic_bodies_move_at_their_velocity_and_ignore_forces():
    world = pb.World()
    platform = world.add_body(pb.Polygon.box(1.0, 0.2, center=(0.5, 0.0)), position=(0, 0),
                              velocity=(1.0, 0.5), angular_velocity=0.3, kind="kinematic")
    assert world.bodies.kinds[0] == KINEMATIC
    assert platform.inverse_mass == 0.0 and platform.inverse_inertia == 0.0
    np.testing.assert_allclose(platform.local_center, [0.5, 0.0], atol=1e-12)
    for _ in range(120):
        platform.apply_force((50.0, 50.0), point=(3.0, 3.0))
        platform.apply_impulse((9.0, 9.0), point=(1.0, 1.0))
        world.step(DT)
    t = 120 * DT
    np.testing.assert_allclose(platform.velocity, [1.0, 0.5])
    assert platform.angular_velocity == 0.3
    np.testing.assert_allclose(platform.center_of_mass, [0.5 + t, 0.5 * t], atol=1e-12)
    assert platform.angle == pytest.approx(0.3 * t)


def test_dynamic_body_kind_and_defaults():
    world = pb.World()
    body = world.add_body(pb.Circle(1.0))
    assert body.kind == "dynamic" and world.bodies.kinds[0] == DYNAMIC
    assert body.material is pb.DEFAULT_MATERIAL
    assert body.layers == 1 and body.gravity_scale == 1.0
    surface = world.shapes.surfaces[0]
    assert surface[FRICTION] == pb.DEFAULT_MATERIAL.friction
    assert surface[RESTITUTION] == pb.DEFAULT_MATERIAL.restitution
    body.layers = 0b110
    assert world.shapes.filters.category[0] == world.shapes.filters.mask[0] == 6
    assert body.filter == pb.Filter(6, 6, 0) and body.layers == 6


def test_materials_set_mass_and_contact_coefficients():
    world = pb.World()
    wood = pb.MATERIALS["wood"]
    body = world.add_body(pb.Polygon.box(1.0, 1.0), material=wood)
    assert body.mass == pytest.approx(4.0 * wood.density)
    assert world.shapes.surfaces[0, RESTITUTION] == wood.restitution
    assert world.shapes.surfaces[0, FRICTION] == wood.friction


# --- removal, growth, handles -----------------------------------------------------------


def shape_table_is_consistent(world):
    table, columns = world.shapes, world.shapes.arrays
    expected = [(shape, row) for row, body in enumerate(world.bodies) for shape in body.shapes]
    assert table.count == len(expected)
    for s, (shape, row) in enumerate(expected):
        assert table.shape(s) is shape
        assert columns.body[s] == row
        start, count = columns.vertex_start[s], columns.vertex_count[s]
        if isinstance(shape, pb.Circle):
            assert columns.kind[s] == 0 and columns.radius[s] == shape.radius
            np.testing.assert_array_equal(columns.vertices[start], shape.center)
        else:
            assert columns.kind[s] == 1 and count == len(shape.vertices)
            np.testing.assert_array_equal(columns.vertices[start:start + count], shape.vertices)
            np.testing.assert_array_equal(columns.normals[start:start + count], shape.normals)
    assert table.vertex_total == int(np.sum(columns.vertex_count))
    assert np.all(np.diff(columns.ids) > 0), "shape ids grow with the rows"


def test_removal_keeps_handles_and_the_shape_table_consistent():
    world = pb.World()
    rng = np.random.default_rng(3)
    bodies = []
    for i in range(12):
        shapes = [pb.Polygon.regular(3 + i % 4, 0.5), pb.Circle(0.2, (0.5, 0.0))][: 1 + i % 2]
        bodies.append(world.add_body(shapes, position=rng.normal(size=2),
                                     velocity=(float(i), 0.0)))
    for victim in (bodies[0], bodies[5], bodies[11], bodies[6]):
        world.remove_body(victim)
        shape_table_is_consistent(world)
    alive = [b for i, b in enumerate(bodies) if i not in (0, 5, 6, 11)]
    assert list(world.bodies) == alive and world.count == 8
    for row, body in enumerate(alive):
        assert body.row == row and world.bodies.ids[row] == body.id
        assert body.velocity[0] == float(bodies.index(body))  # its own state followed it
    with pytest.raises(LookupError, match="removed"):
        bodies[5].position  # noqa: B018
    with pytest.raises(LookupError):
        world.remove_body(bodies[5])
    assert not bodies[5].alive and "removed" in repr(bodies[5])
    new = world.add_body(pb.Circle(1.0))
    # The id freed last (body 6's) goes to the next body, one generation on.
    assert (new.id, new.generation, new.row) == (6, 1, 8)
    assert bodies[6].id == 6 and not bodies[6].alive
    shape_table_is_consistent(world)


@settings(max_examples=30)
@given(operations=st.lists(st.tuples(st.booleans(), st.integers(0, 50), st.integers(1, 3)),
                           min_size=1, max_size=40))
def test_random_adds_and_removes_match_a_simple_model(operations):
    # The model: an ordered dict id -> (x, number of shapes), as a list of bodies would be.
    world = pb.World(capacity=1)
    model = {}
    handles = {}
    for add, pick, shape_count in operations:
        if add or not model:
            x = float(len(handles))
            shapes = [pb.Circle(0.1, (0.2 * k, 0.0)) for k in range(shape_count)]
            body = world.add_body(shapes, position=(x, 0.0), filter=pb.Filter(mask=0))
            handles[body.id] = body
            model[body.id] = (x, shape_count)
        else:
            victim = list(model)[pick % len(model)]
            world.remove_body(handles[victim])
            del model[victim]
    assert [body.id for body in world.bodies] == list(model)
    np.testing.assert_array_equal(world.bodies.ids, list(model))
    np.testing.assert_array_equal(world.bodies.origins[:, 0], [x for x, _ in model.values()])
    assert world.shapes.count == sum(count for _, count in model.values())
    shape_table_is_consistent(world)
    for body_id, body in handles.items():
        assert body.alive == (body_id in model)


def test_growth_past_the_initial_capacity_keeps_every_row():
    world = pb.World(capacity=2)
    bodies = [world.add_body(pb.Polygon.box(0.5, 0.25), position=(i, -i), angle=0.01 * i,
                             velocity=(0.0, i)) for i in range(37)]
    assert world.bodies.capacity == 64 and world.count == 37
    np.testing.assert_array_equal(world.bodies.origins[:, 0], np.arange(37))
    np.testing.assert_array_equal(world.bodies.velocities[:, 1], np.arange(37))
    assert all(body.row == i for i, body in enumerate(bodies))
    shape_table_is_consistent(world)


def test_empty_world_steps_and_runs():
    world = pb.World()
    world.step(DT)
    recording = world.run(3, DT)
    assert recording.origins.shape == (4, 0, 2)


def test_remove_bad_arguments():
    world, other = pb.World(), pb.World()
    body = other.add_body(pb.Circle(1.0))
    with pytest.raises(ValueError, match="another world"):
        world.remove_body(body)
    with pytest.raises(TypeError, match="body"):
        world.remove_body(0)


def test_read_only_views_protect_derived_arrays():
    world = pb.World()
    world.add_body(pb.Circle(1.0))
    for name in ("origins", "masses", "inertias", "inverse_masses", "inverse_inertias",
                 "local_centers", "kinds", "ids"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(world.bodies, name)[0] = 0
    world.bodies.velocities[0] = (1.0, 2.0)  # writable state is the world's own array
    np.testing.assert_array_equal(world.bodies[0].velocity, [1.0, 2.0])


def _stack_of_boxes(solver="soft_step"):
    world = pb.World(solver=solver)
    world.add_body(pb.Polygon.box(10, 0.5), position=(0, -0.5), kind="static")
    for i in range(4):
        world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 0.5 + i))
    world.run(30, 1 / 60)
    return world


def _world_state(world):
    contacts = world.contacts
    return ([column.copy() for column in world.bodies.arrays]
            + [column.copy() for column in contacts.arrays] + [world.time, world.step_count])


def _assert_same_state(before, after):
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        np.testing.assert_array_equal(old, new)


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")  # plain-Python kernels warn
@pytest.mark.parametrize("solver", sorted(pb.SOLVERS))
def test_a_step_that_overflows_raises_and_leaves_the_world_as_it_was(solver):
    world = _stack_of_boxes(solver)
    world.bodies[-1].gravity_scale = 1e300  # its weight, 1e301 N, overflows v += dt·g·s
    world.gravity = (0.0, -1e10)
    before = _world_state(world)
    with pytest.raises(FloatingPointError, match=r"of body \d \(row \d\) became NaN or inf"):
        world.step(1 / 60)
    _assert_same_state(before, _world_state(world))
    # The error is recoverable: undo the cause, and the next step is the one that would
    # have been taken without it.
    world.bodies[-1].gravity_scale = 1.0
    world.gravity = (0.0, -10.0)
    twin = _stack_of_boxes(solver)
    world.step(1 / 60)
    twin.step(1 / 60)
    _assert_same_state(_world_state(twin), _world_state(world))


@pytest.mark.parametrize("column", ["centers", "angles", "velocities", "angular_velocities",
                                    "forces", "torques", "gravity_scales"])
def test_a_non_finite_value_written_into_the_arrays_is_refused_before_it_spreads(column):
    world = _stack_of_boxes()
    getattr(world.bodies, column)[2] = np.nan
    before = _world_state(world)
    with pytest.raises(ValueError, match=rf"{column} of body 2 \(row 2\) must be finite"):
        world.step(1 / 60)
    _assert_same_state(before, _world_state(world))


@pytest.mark.parametrize(("shape", "density", "quantity"), [
    (pb.Circle(1.0), 1e308, "mass"),  # m = ρπr² overflows
    (pb.Polygon.box(1.0, 1.0), 1e308, "mass"),
])
def test_add_body_rejects_a_mass_out_of_float_range(shape, density, quantity):
    world = pb.World()
    with pytest.raises(ValueError, match=f"density.* {quantity} inf"):
        world.add_body(shape, material=pb.Material(density=density))
    assert world.count == 0


def test_add_body_rejects_a_compound_whose_total_mass_overflows():
    # Each 2 m × 2 m box weighs 4 m²·4e307 kg/m² = 1.6e308 kg, finite; their sum is not.
    big = pb.Polygon.box(1.0, 1.0)
    world = pb.World()
    with pytest.raises(ValueError, match="density.* mass inf"):
        world.add_body([big, pb.Polygon(big.vertices + (3.0, 0.0))],
                       material=pb.Material(density=4e307))


# --- run and recordings -----------------------------------------------------------------


def test_run_records_steps_plus_one_states():
    world = pb.World()
    a = world.add_body(pb.Circle(0.5), position=(0.0, 10.0))
    world.add_body(pb.Polygon.box(1, 1), position=(5.0, 0.0), kind="static")
    pushes = []

    def push(w):
        pushes.append(w.time)
        a.apply_force((a.mass, 0.0))  # 1 m/s² sideways

    recording = world.run(30, DT, before_step=push)
    assert len(recording) == 31 and len(pushes) == 30
    np.testing.assert_array_equal(recording.times, np.arange(31) * DT)
    assert recording.origins.shape == (31, 2, 2) and recording.angles.shape == (31, 2)
    np.testing.assert_array_equal(recording.origins[0, 0], [0.0, 10.0])
    n = np.arange(31)
    k = substeps_of(world)
    np.testing.assert_allclose(recording.centers[:, 0, 1], 10.0 - drift(10.0, DT, n, k))
    np.testing.assert_allclose(recording.centers[:, 0, 0], drift(1.0, DT, n, k))
    np.testing.assert_array_equal(recording.centers[:, 1], [[5.0, 0.0]] * 31)
    frame = recording.frames[-1]
    assert frame.time == 30 * DT and frame.shapes[1] == a.world.bodies[1].shapes
    np.testing.assert_array_equal(recording.kinds, [DYNAMIC, STATIC])


def test_run_refuses_bodies_added_during_the_run():
    world = pb.World()
    world.add_body(pb.Circle(0.5))
    with pytest.raises(RuntimeError, match="added or removed"):
        world.run(3, DT, before_step=lambda w: w.add_body(pb.Circle(0.5)))



def test_run_refuses_a_body_replaced_by_one_with_its_id():
    # Removing the last body and adding one gives the new body the removed one's id, in
    # the next generation: the ids read the same, and only the generation tells.
    world = pb.World()
    world.add_body(pb.Circle(0.5))
    world.add_body(pb.Circle(0.5), position=(2.0, 0.0))

    def replace_last(w: pb.World) -> None:
        w.remove_body(w.bodies[-1])
        replacement = w.add_body(pb.Circle(0.5), position=(2.0, 0.0))
        assert replacement.id == 1 and replacement.generation == 1

    with pytest.raises(RuntimeError, match="added or removed"):
        world.run(3, DT, before_step=replace_last)


# --- simulated time ---------------------------------------------------------------------


@pytest.mark.parametrize("segments", [
    [(1000, 1 / 60)],
    [(700, 1 / 60), (300, 1 / 120)],
    [(400, 1 / 60), (300, 1 / 120), (300, 1 / 60)],
])
def test_time_is_counted_as_steps_times_dt(segments):
    world = pb.World()
    world.add_body(pb.Circle(0.5), filter=pb.Filter(mask=0))
    expected, running = 0.0, 0.0
    for steps, dt in segments:
        expected += steps * dt  # whole runs of equal steps, each one product
        for _ in range(steps):
            world.step(dt)
            running += dt
    assert world.time == expected
    assert world.step_count == sum(steps for steps, _ in segments)
    # The running sum drifts away from it, so the test tells the two apart.
    assert running != expected


# --- determinism -------------------------------------------------------------------------


STATE = ("origins", "centers", "angles", "velocities", "angular_velocities")


def final_state(world: pb.World) -> dict[str, np.ndarray]:
    """Copies of the body state and of every contact column (impulses included)."""
    state = {name: getattr(world.bodies, name).copy() for name in STATE}
    contacts = world.contacts.arrays
    state.update({f"contacts.{name}": column.copy()
                  for name, column in zip(contacts._fields, contacts, strict=True)})
    return state


def assert_identical(first: dict, second: dict) -> None:
    assert first.keys() == second.keys()
    for name in first:
        assert first[name].dtype == second[name].dtype, name
        assert first[name].shape == second[name].shape, name
        assert first[name].tobytes() == second[name].tobytes(), name


def run_scene(make, steps: int) -> dict[str, np.ndarray]:
    world = make().world
    for _ in range(steps):
        world.step(scenes.DT)
    return final_state(world)


@pytest.mark.parametrize("make", [lambda: scenes.pyramid(6), lambda: scenes.rain(80)],
                         ids=["pyramid-6", "rain-80"])
def test_a_scene_run_twice_in_one_process_is_bit_identical(make):
    # The second run starts with every scratch buffer the first one left behind.
    first = run_scene(make, 120)
    second = run_scene(make, 120)
    assert len(first["contacts.shape_ids"]) > 0, "the scene should have contacts"
    assert_identical(first, second)


def mixed_scene(broad_phase="sweep") -> pb.World:
    """Boxes and circles thrown onto a floor: every narrow-phase route, and bounces."""
    world = pb.World(broad_phase=broad_phase)
    world.add_body(pb.Polygon.box(10.0, 0.5), position=(0.0, -0.5), kind="static")
    rng = np.random.default_rng(4)
    for k in range(16):
        shape = pb.Circle(0.3) if k % 2 else pb.Polygon.box(0.3, 0.25)
        world.add_body(shape, position=(rng.uniform(-3, 3), 0.4 + 0.7 * k),
                       angle=rng.uniform(-1, 1), velocity=rng.uniform(-1, 1, 2),
                       angular_velocity=rng.uniform(-2, 2),
                       material=pb.Material(restitution=0.3 * (k % 3), friction=0.5))
    return world


def mixed_scene_state(steps: int = 60) -> dict[str, np.ndarray]:
    world = mixed_scene()
    for _ in range(steps):
        world.step(DT)
    return final_state(world)


def test_plain_python_steps_give_the_compiled_result_bit_for_bit(tmp_path):
    # The same function, run in a fresh interpreter with numba switched off.
    path = tmp_path / "plain.npz"
    script = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
              "import numpy as np, test_world\n"
              f"np.savez({str(path)!r}, **test_world.mixed_scene_state())\n")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=300)
    with np.load(path) as saved:
        plain = dict(saved)
    compiled = mixed_scene_state()
    assert len(compiled["contacts.shape_ids"]) > 0, "the scene should have contacts"
    assert_identical(compiled, plain)


# --- a broad phase of the user's ---------------------------------------------------------


def scrambled_pairs(boxes, filters):
    """The right pairs, in the wrong order: reversed, each also as (b, a), duplicated."""
    pairs = naive_pairs(boxes, filters)
    return np.concatenate([pairs[::-1], pairs[:, ::-1], pairs])


def test_a_user_broad_phase_is_put_in_canonical_order():
    worlds = [mixed_scene(), mixed_scene(broad_phase=scrambled_pairs)]
    assert worlds[1].broad_phase is scrambled_pairs
    for _ in range(60):
        for world in worlds:
            world.step(DT)
    builtin, user = (final_state(world) for world in worlds)
    assert len(builtin["contacts.shape_ids"]) > 0, "the scene should have contacts"
    assert_identical(builtin, user)


@pytest.mark.parametrize("extra", [lambda s: [s, 0], lambda s: [0, s + 5],
                                   lambda s: [-1, 0], lambda s: [3, -2]])
def test_a_user_broad_phase_returning_a_row_out_of_range_raises(extra):
    def broad_phase(boxes, filters):
        row = extra(len(boxes.lower))
        return np.concatenate([naive_pairs(boxes, filters), [row]])

    world = mixed_scene(broad_phase=broad_phase)
    with pytest.raises(ValueError, match="broad_phase"):
        world.step(DT)


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"position": (np.nan, 0.0)}, ValueError, "position"),
        ({"position": (0.0, 0.0, 0.0)}, ValueError, "position"),
        ({"angle": np.inf}, ValueError, "angle"),
        ({"velocity": (0.0, np.inf)}, ValueError, "velocity"),
        ({"angular_velocity": np.nan}, ValueError, "angular_velocity"),
        ({"angular_velocity": "fast"}, TypeError, "angular_velocity"),
        ({"kind": "ghost"}, ValueError, "kind"),
        ({"kind": 5}, ValueError, "kind"),
        ({"kind": 1.0}, TypeError, "kind"),
        ({"material": "wood"}, TypeError, "material"),
        ({"gravity_scale": np.nan}, ValueError, "gravity_scale"),
        ({"layers": 1.5}, TypeError, "layers"),
        ({"layers": True}, TypeError, "layers"),
        ({"layers": 2**70}, ValueError, "layers"),
        ({"kind": "static", "velocity": (1.0, 0.0)}, ValueError, "static"),
        ({"kind": "static", "angular_velocity": 1.0}, ValueError, "static"),
    ],
)
def test_add_body_rejects_bad_arguments(kwargs, error, name):
    world = pb.World()
    with pytest.raises(error, match=name):
        world.add_body(pb.Circle(1.0), **kwargs)
    assert world.count == 0 and world.shapes.count == 0


@pytest.mark.parametrize(
    ("shapes", "error"),
    [([], ValueError), ((), ValueError), (None, TypeError), ("circle", TypeError),
     ([pb.Circle(1.0), "box"], TypeError), (pb.AABB((0, 0), (1, 1)), TypeError),
     ([[0, 0], [1, 0], [0, 1]], TypeError)],
)
def test_add_body_rejects_bad_shapes(shapes, error):
    world = pb.World()
    with pytest.raises(error, match="shape_or_shapes"):
        world.add_body(shapes)


@pytest.mark.parametrize("dt", [0.0, -0.1, np.nan, np.inf])
def test_step_rejects_bad_dt(dt):
    world = pb.World()
    world.add_body(pb.Circle(1.0))
    with pytest.raises(ValueError, match="dt"):
        world.step(dt)
    with pytest.raises(ValueError, match="dt"):
        world.run(2, dt)


def test_other_bad_inputs_name_their_argument():
    with pytest.raises(ValueError, match="gravity"):
        pb.World(gravity=(0.0, np.nan))
    with pytest.raises(ValueError, match="capacity"):
        pb.World(capacity=0)
    world = pb.World()
    body = world.add_body(pb.Circle(1.0))
    cases = [
        (lambda: body.apply_force((np.nan, 0.0)), ValueError, "force"),
        (lambda: body.apply_force((1.0, 0.0), point=(np.inf, 0.0)), ValueError, "point"),
        (lambda: body.apply_torque(np.inf), ValueError, "torque"),
        (lambda: body.apply_impulse((1.0,)), ValueError, "impulse"),
        (lambda: body.apply_impulse((1.0, 0.0), point=(0.0, np.nan)), ValueError, "point"),
        (lambda: setattr(body, "position", (np.nan, 1.0)), ValueError, "position"),
        (lambda: setattr(body, "angle", np.nan), ValueError, "angle"),
        (lambda: setattr(body, "gravity_scale", np.inf), ValueError, "gravity_scale"),
        (lambda: setattr(body, "layers", "all"), TypeError, "layers"),
        (lambda: world.run(-1, DT), ValueError, "steps"),
        (lambda: world.run(2, DT, before_step=3), TypeError, "before_step"),
    ]
    for call, error, name in cases:
        with pytest.raises(error, match=name):
            call()
    # Nothing above changed the body.
    np.testing.assert_array_equal(body.force, [0.0, 0.0])
    np.testing.assert_array_equal(body.velocity, [0.0, 0.0])
    np.testing.assert_array_equal(body.position, [0.0, 0.0])


# --- drawing (physbook.viz.world) -------------------------------------------------------


def test_draw_world_draws_every_shape_where_the_world_has_it():
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PatchCollection

    world = pb.World()
    world.add_body(pb.Polygon.box(3.0, 0.5), position=(0.0, -1.0), kind="static")
    body = world.add_body([pb.Polygon.regular(5, 0.5), pb.Circle(0.3, (0.8, 0.0))],
                          position=(1.0, 2.0), angle=0.7)
    fig, ax = plt.subplots()
    pb.viz.draw_world(ax, world, aabbs=True)
    shapes_drawn, boxes_drawn = [c for c in ax.collections if isinstance(c, PatchCollection)]
    paths = shapes_drawn.get_paths()
    assert len(paths) == 3
    transform = body.transform
    pentagon = paths[1].vertices[:5]  # a patch's path in world coordinates (data units)
    np.testing.assert_allclose(pentagon, transform.to_world(body.shapes[0].vertices),
                               atol=1e-12)
    (radius_lines,) = [c for c in ax.collections if isinstance(c, LineCollection)]
    center, rim = radius_lines.get_segments()[0]
    np.testing.assert_allclose(center, transform.to_world((0.8, 0.0)))
    np.testing.assert_allclose(rim - center, 0.3 * np.array([math.cos(0.7), math.sin(0.7)]))
    expected = [shape.aabb(b.transform) for b in world.bodies for shape in b.shapes]
    drawn = boxes_drawn.get_paths()
    assert len(drawn) == len(expected) == 3
    for path, box in zip(drawn, expected, strict=True):
        np.testing.assert_allclose(path.vertices.min(axis=0), box.lower, atol=1e-12)
        np.testing.assert_allclose(path.vertices.max(axis=0), box.upper, atol=1e-12)
    plt.close(fig)


def test_recording_limits_hold_every_shape_in_every_frame():
    world = pb.World(gravity=(0.0, -10.0))
    world.add_body(pb.Polygon.box(3.0, 0.5), position=(0.0, -5.0), kind="static")
    world.add_body([pb.Polygon.box(1.0, 0.2, (0.5, 0.0)), pb.Circle(0.4, (-1.0, 0.3))],
                   position=(-2.0, 3.0), velocity=(2.0, 4.0), angular_velocity=3.0)
    recording = world.run(60, DT)
    xmin, xmax, ymin, ymax = pb.viz.recording_limits(recording, margin=0.0)
    for k in range(len(recording)):
        for i, shapes in enumerate(recording.shapes):
            transform = pb.Transform(recording.origins[k, i], recording.angles[k, i])
            for shape in shapes:
                box = shape.aabb(transform)
                assert xmin <= box.lower[0] + 1e-12 and box.upper[0] <= xmax + 1e-12
                assert ymin <= box.lower[1] + 1e-12 and box.upper[1] <= ymax + 1e-12


def test_play_makes_a_player_within_the_frame_budget():
    world = pb.World()
    world.add_body(pb.Circle(0.5), velocity=(1.0, 5.0), angular_velocity=2.0)
    html = pb.viz.play(world.run(40, DT), max_frames=6)
    # Six frames in the player's list; the picture shown before it starts is the first.
    assert len(re.findall(r'frames\[\d+\] = "data:image/png;base64', html.data)) == 6
    with pytest.raises(TypeError, match="recording"):
        pb.viz.play([1, 2, 3])


# --- handles made by hand, and the size column -------------------------------------------


def test_a_handle_made_by_hand_must_name_a_body_of_the_table():
    world = pb.World()
    bodies = [world.add_body(pb.Circle(1), position=(3 * i, 0)) for i in range(16)]
    table = world._bodies
    assert pb.Body(world, table, 15).position[0] == bodies[15].position[0]
    with pytest.raises(ValueError, match="body_id must be at least 0"):
        pb.Body(world, table, -1)  # not an alias of the last body
    with pytest.raises(LookupError, match="no body has id 999"):
        pb.Body(world, table, 999)
    with pytest.raises(TypeError, match="table must be a BodyTable"):
        pb.Body(world, "table", 0)
    world.remove_body(bodies[3])
    with pytest.raises(LookupError, match="stale"):
        pb.Body(world, table, 3)


@pytest.mark.parametrize(("shapes", "size"), [
    (pb.Circle(0.3), 0.3),  # 2·πr²/(2πr) = r
    (pb.Polygon.box(0.5, 0.5), 0.5),  # a 1 m square: 2·1/4 = 0.5
    (pb.Polygon.box(0.5, 0.0005), 2 * 1.0 * 0.001 / 2.002),  # a 1 mm plate: ≈ 1 mm
    ([pb.Circle(0.3), pb.Polygon.box(0.5, 0.0005)], 2 * 1.0 * 0.001 / 2.002),  # the thinner
])
def test_sizes_are_twice_the_area_over_the_perimeter_of_the_thinnest_shape(shapes, size):
    world = pb.World()
    world.add_body(shapes)
    assert world.bodies.arrays.sizes[0] == pytest.approx(size, rel=1e-12)
