"""physbook.vecmath.vec against independent oracles: numpy's 3D cross product, complex arithmetic,
dense sampling, and the definitions of distance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import physbook as pb
from physbook import constants
from physbook.vecmath import vec

coordinate = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
vector2 = st.tuples(coordinate, coordinate).map(np.array)
angle = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)
batch = hnp.arrays(np.float64, st.tuples(st.integers(0, 6), st.just(2)), elements=coordinate)

RNG = np.random.default_rng(1)
A = RNG.uniform(-5, 5, (8, 2))
B = RNG.uniform(-5, 5, (8, 2))


def as_complex(v: np.ndarray) -> np.ndarray:
    return v[..., 0] + 1j * v[..., 1]


def from_complex(z) -> np.ndarray:
    return np.stack([np.real(z), np.imag(z)], axis=-1)


def to3(v: np.ndarray) -> np.ndarray:
    return np.concatenate([v, np.zeros(v.shape[:-1] + (1,))], axis=-1)


# --- dot, cross, perp ------------------------------------------------------------------


def test_dot_matches_numpy_on_single_and_batch():
    assert vec.dot([3.0, 1.0], [1.0, 2.0]) == 5.0
    np.testing.assert_allclose(vec.dot(A, B), np.einsum("ij,ij->i", A, B))
    np.testing.assert_allclose(vec.dot(A, B[0]), A @ B[0])  # a batch against one vector
    assert vec.dot(A, B).shape == (8,)


@settings(max_examples=60)
@given(st.floats(0.1, 10), st.floats(0.1, 10), angle, angle)
def test_dot_is_product_of_lengths_and_cosine(r1, r2, t1, t2):
    a = r1 * np.array([math.cos(t1), math.sin(t1)])
    b = r2 * np.array([math.cos(t2), math.sin(t2)])
    assert vec.dot(a, b) == pytest.approx(r1 * r2 * math.cos(t2 - t1), abs=1e-9)


def test_cross_is_z_of_numpy_3d_cross():
    assert vec.cross([3.0, 1.0], [1.0, 2.0]) == 5.0
    np.testing.assert_allclose(vec.cross(A, B), np.cross(to3(A), to3(B))[:, 2])
    np.testing.assert_allclose(vec.cross(A[0], B), np.cross(to3(A[0]), to3(B))[:, 2])


@settings(max_examples=60)
@given(vector2, vector2)
def test_cross_sign_is_orientation_and_size_is_area(a, b):
    value = vec.cross(a, b)
    assert value == pytest.approx(-vec.cross(b, a), abs=1e-9)
    # |a × b| = |a|·|b|·|sin θ|, with θ from complex division (an independent route).
    za, zb = complex(*a), complex(*b)
    if za != 0 and zb != 0:
        theta = np.angle(zb / za)
        assert value == pytest.approx(abs(za) * abs(zb) * math.sin(theta), abs=1e-6)


def test_cross_scalar_vector_matches_numpy_3d_cross():
    omega = RNG.uniform(-3, 3, 8)
    expected = np.cross(np.column_stack([np.zeros(8), np.zeros(8), omega]), to3(A))[:, :2]
    np.testing.assert_allclose(vec.cross_scalar_vector(omega, A), expected)
    np.testing.assert_allclose(
        vec.cross_scalar_vector(2.0, [1.0, 3.0]), np.cross([0, 0, 2.0], [1.0, 3.0, 0])[:2]
    )
    # N scalars against one vector give N vectors.
    np.testing.assert_allclose(
        vec.cross_scalar_vector(omega, A[0]), np.cross(np.c_[0 * omega, 0 * omega, omega],
                                                      to3(A[0]))[:, :2]
    )


def test_cross_vector_scalar_matches_numpy_3d_cross():
    omega = RNG.uniform(-3, 3, 8)
    expected = np.cross(to3(A), np.column_stack([np.zeros(8), np.zeros(8), omega]))[:, :2]
    np.testing.assert_allclose(vec.cross_vector_scalar(A, omega), expected)
    np.testing.assert_allclose(vec.cross_vector_scalar(A, omega),
                               -vec.cross_scalar_vector(omega, A))


def test_spinning_point_velocity_is_perpendicular_with_speed_omega_r():
    # A wheel rolling right at 2 m/s with radius 0.5 spins at ω = −4 rad/s: the contact point
    # is at rest and the top moves at 4 m/s (rolling without slipping).
    centre_velocity = np.array([2.0, 0.0])
    arms = np.array([[0.0, -0.5], [0.0, 0.5]])
    velocities = centre_velocity + vec.cross_scalar_vector(-4.0, arms)
    np.testing.assert_allclose(velocities, [[0.0, 0.0], [4.0, 0.0]], atol=1e-15)
    np.testing.assert_allclose(vec.dot(vec.cross_scalar_vector(3.0, A), A), 0.0, atol=1e-12)
    np.testing.assert_allclose(vec.length(vec.cross_scalar_vector(3.0, A)), 3.0 * vec.length(A))


def test_perp_is_multiplication_by_i():
    np.testing.assert_allclose(vec.perp(A), from_complex(1j * as_complex(A)))
    np.testing.assert_array_equal(vec.perp([2.0, 0.0]), [0.0, 2.0])
    np.testing.assert_allclose(vec.perp(vec.perp(A)), -A)


# --- length and normalize --------------------------------------------------------------


def test_length_matches_complex_abs_and_does_not_overflow():
    np.testing.assert_allclose(vec.length(A), np.abs(as_complex(A)))
    assert vec.length([3.0, 4.0]) == 5.0
    assert vec.length([3e200, 4e200]) == pytest.approx(5e200)  # x² alone would overflow
    assert vec.length([3e-200, 4e-200]) == pytest.approx(5e-200)  # x² alone would underflow


@settings(max_examples=60)
@given(batch)
def test_normalize_gives_unit_vectors_in_the_same_direction(v):
    nonzero = np.hypot(v[:, 0], v[:, 1]) >= constants.ZERO_LENGTH
    unit = vec.normalize(v, fallback=(0.0, 1.0))
    assert unit.shape == v.shape
    np.testing.assert_allclose(vec.length(unit), 1.0, rtol=1e-12)
    z = as_complex(v[nonzero])
    np.testing.assert_allclose(as_complex(unit[nonzero]), z / np.abs(z), atol=1e-12)
    np.testing.assert_array_equal(unit[~nonzero], np.tile([0.0, 1.0], (int((~nonzero).sum()), 1)))


def test_normalize_single_vector_and_extreme_sizes():
    np.testing.assert_allclose(vec.normalize([3.0, 4.0]), [0.6, 0.8])
    np.testing.assert_allclose(vec.normalize([1.5e308, 1.5e308]), [0.5**0.5, 0.5**0.5])
    np.testing.assert_allclose(vec.normalize([0.0, -1e-11]), [0.0, -1.0])


def test_normalize_zero_vector_needs_a_fallback():
    with pytest.raises(ValueError, match="non-zero"):
        vec.normalize([0.0, 0.0])
    with pytest.raises(ValueError, match="non-zero"):
        vec.normalize([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="non-zero"):
        vec.normalize([constants.ZERO_LENGTH / 2, 0.0])
    np.testing.assert_array_equal(vec.normalize([0.0, 0.0], fallback=(1.0, 0.0)), [1.0, 0.0])
    out = vec.normalize([[0.0, 0.0], [0.0, 2.0]], fallback=(1.0, 0.0))
    np.testing.assert_array_equal(out, [[1.0, 0.0], [0.0, 1.0]])


def test_normalize_checks_the_fallback_even_when_unused():
    with pytest.raises(ValueError, match="fallback"):
        vec.normalize([1.0, 0.0], fallback=(np.nan, 0.0))
    with pytest.raises(ValueError, match="fallback"):
        vec.normalize([1.0, 0.0], fallback=(1.0, 0.0, 0.0))


# --- rotation --------------------------------------------------------------------------


@settings(max_examples=60)
@given(angle, angle)
def test_rotation_matrix_is_orthonormal_and_composes(alpha, beta):
    r = vec.rotation_matrix(alpha)
    np.testing.assert_allclose(r @ r.T, np.eye(2), atol=1e-12)
    assert np.linalg.det(r) == pytest.approx(1.0)
    np.testing.assert_allclose(
        vec.rotation_matrix(alpha) @ vec.rotation_matrix(beta),
        vec.rotation_matrix(alpha + beta), atol=1e-12,
    )
    np.testing.assert_allclose(vec.rotation_matrix(-alpha), r.T, atol=1e-15)


@settings(max_examples=60)
@given(batch, angle)
def test_rotate_matches_complex_multiplication(v, theta):
    expected = from_complex(as_complex(v) * np.exp(1j * theta))
    np.testing.assert_allclose(vec.rotate(v, theta), expected.reshape(v.shape), atol=1e-9)


def test_rotate_single_vector_quarter_turn():
    np.testing.assert_allclose(vec.rotate([1.0, 0.0], np.pi / 2), [0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(vec.rotate(A, np.pi / 2), vec.perp(A), atol=1e-12)


# --- Transform -------------------------------------------------------------------------

transform = st.builds(pb.Transform, vector2, angle)


@settings(max_examples=60)
@given(transform, batch)
def test_to_world_matches_complex_rigid_motion(t, points):
    expected = from_complex(as_complex(points) * np.exp(1j * t.angle) + complex(*t.position))
    np.testing.assert_allclose(t.to_world(points), expected.reshape(points.shape), atol=1e-9)


@settings(max_examples=60)
@given(transform, batch)
def test_to_local_inverts_to_world(t, points):
    np.testing.assert_allclose(t.to_local(t.to_world(points)), points, atol=1e-9)
    np.testing.assert_allclose(t.to_world(t.to_local(points)), points, atol=1e-9)
    np.testing.assert_allclose(t.inverse().to_world(points), t.to_local(points), atol=1e-9)


@settings(max_examples=60)
@given(transform, transform, vector2)
def test_composition_applies_right_then_left(a, b, p):
    np.testing.assert_allclose((a @ b).to_world(p), a.to_world(b.to_world(p)), atol=1e-8)
    np.testing.assert_allclose((a @ a.inverse()).to_world(p), p, atol=1e-8)


def test_transform_single_point_and_directions():
    t = pb.Transform((3.0, 2.0), np.pi / 2)
    np.testing.assert_allclose(t.to_world([1.0, 0.0]), [3.0, 3.0], atol=1e-15)
    np.testing.assert_allclose(t.to_local([3.0, 3.0]), [1.0, 0.0], atol=1e-15)
    # Directions turn but do not move.
    np.testing.assert_allclose(t.rotate_to_world([1.0, 0.0]), [0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(t.rotate_to_local([0.0, 1.0]), [1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(t.rotation, vec.rotation_matrix(np.pi / 2))
    assert repr(t) == "Transform(position=(3, 2), angle=1.5708)"
    identity = pb.Transform()
    np.testing.assert_array_equal(identity.to_world(A), A)


def test_transform_is_immutable_and_does_not_freeze_the_callers_array():
    position = np.array([1.0, 2.0])
    t = pb.Transform(position, 0.3)
    position[0] = 5.0  # the caller's array stays writable and the transform keeps (1, 2)
    np.testing.assert_array_equal(t.position, [1.0, 2.0])
    with pytest.raises(ValueError):
        t.position[0] = 9.0
    with pytest.raises(ValueError):
        t.rotation[0, 0] = 9.0
    with pytest.raises(AttributeError):
        t.angle = 1.0


# --- Line ------------------------------------------------------------------------------


def test_line_normalizes_its_equation():
    line = vec.Line((0.0, 2.0), 4.0)  # 2y = 4 is the line y = 2
    np.testing.assert_array_equal(line.normal, [0.0, 1.0])
    assert line.offset == 2.0
    assert line.signed_distance([7.0, 5.0]) == 3.0
    assert line.side([7.0, 5.0]) == 1 and line.side([0.0, -1.0]) == -1
    assert line.side([1.0, 2.0]) == 0


def test_line_through_puts_the_normal_on_the_right_outward_for_ccw():
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    outward = [[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]
    centre = square.mean(axis=0)
    for i in range(4):
        line = vec.Line.through(square[i], square[(i + 1) % 4])
        np.testing.assert_allclose(line.normal, outward[i], atol=1e-15)
        assert line.signed_distance(centre) == pytest.approx(-0.5)
        np.testing.assert_allclose(line.signed_distance(square[[i, (i + 1) % 4]]), 0, atol=1e-15)


@settings(max_examples=60)
@given(vector2, vector2, batch)
def test_signed_distance_matches_the_cross_product_formula(a, b, points):
    d = b - a
    if np.hypot(*d) < 1e-3:
        return
    line = vec.Line.through(a, b)
    # Distance from the area of the parallelogram: |d × (p − a)| / |d|; right of a→b is +.
    expected = -np.cross(to3(d), to3(points - a))[..., 2] / np.hypot(*d)
    np.testing.assert_allclose(line.signed_distance(points), expected, atol=1e-7)
    sides = line.side(points, tolerance=1e-6)
    distance = line.signed_distance(points)
    np.testing.assert_array_equal(sides, np.where(distance > 1e-6, 1, np.where(distance < -1e-6,
                                                                                -1, 0)))


def test_side_single_point_is_int_and_tolerance_widens_zero():
    line = vec.Line((1.0, 0.0), 0.0)
    assert isinstance(line.side([0.5, 3.0]), int)
    assert line.side([0.05, 0.0], tolerance=0.1) == 0
    assert line.side([-0.2, 0.0], tolerance=0.1) == -1
    np.testing.assert_array_equal(line.side([[1.0, 0.0], [-1.0, 0.0], [0.0, 5.0]]), [1, -1, 0])


@settings(max_examples=40)
@given(vector2, vector2, vector2)
def test_project_is_the_closest_point_of_the_line(a, b, p):
    if np.hypot(*(b - a)) < 1e-2:
        return
    line = vec.Line.through(a, b)
    foot = line.project(p)
    assert line.signed_distance(foot) == pytest.approx(0.0, abs=1e-7)
    # Dense samples along the line are never closer than the projection.
    t = np.linspace(-3, 3, 2001)[:, None]
    span = 2.0 * (np.hypot(*(p - a)) + np.hypot(*(b - a)))
    samples = foot + t * span * (b - a) / np.hypot(*(b - a))
    best = np.min(np.hypot(*(samples - p).T))
    assert np.hypot(*(foot - p)) <= best + 1e-9


def test_project_batch_shape():
    line = vec.Line((0.0, 1.0), 1.0)
    np.testing.assert_allclose(line.project([[2.0, 5.0], [3.0, -1.0]]), [[2.0, 1.0], [3.0, 1.0]])


# --- closest point on a segment --------------------------------------------------------


def test_closest_point_on_segment_examples():
    a, b = (0.0, 0.0), (4.0, 0.0)
    np.testing.assert_allclose(vec.closest_point_on_segment([1.0, 2.0], a, b), [1.0, 0.0])
    np.testing.assert_allclose(vec.closest_point_on_segment([-2.0, 1.0], a, b), [0.0, 0.0])
    np.testing.assert_allclose(vec.closest_point_on_segment([6.0, -1.0], a, b), [4.0, 0.0])
    out = vec.closest_point_on_segment([[1.0, 2.0], [-2.0, 1.0]], a, b)
    np.testing.assert_allclose(out, [[1.0, 0.0], [0.0, 0.0]])


@settings(max_examples=60)
@given(batch, vector2, vector2)
def test_closest_point_on_segment_matches_dense_sampling(points, a, b):
    closest = vec.closest_point_on_segment(points, a, b)
    t = np.linspace(0.0, 1.0, 4001)[:, None]
    samples = a + t * (b - a)
    step = np.hypot(*(b - a)) / 4000
    for p, c in zip(points, closest, strict=True):
        # c lies on the segment ...
        assert abs(vec.cross(b - a, c - a)) <= 1e-6 * (1 + np.hypot(*(b - a)) ** 2)
        # ... and no sample is closer by more than the sampling step.
        best = np.min(np.hypot(*(samples - p).T))
        assert np.hypot(*(c - p)) <= best + 1e-9
        assert np.hypot(*(c - p)) >= best - step - 1e-9


def test_closest_point_on_zero_length_segment_is_its_point():
    out = vec.closest_point_on_segment([[1.0, 2.0], [3.0, 4.0]], (1.0, 1.0), (1.0, 1.0))
    np.testing.assert_array_equal(out, [[1.0, 1.0], [1.0, 1.0]])
    out[0, 0] = 7.0  # a fresh, writable array


# --- bad input -------------------------------------------------------------------------

BAD_VECTORS = [
    ([np.nan, 0.0], ValueError),
    ([np.inf, 0.0], ValueError),
    ([1.0, 2.0, 3.0], ValueError),
    ([[1.0, 2.0, 3.0]], ValueError),
    (np.zeros((2, 2, 2)), ValueError),
    (3.0, ValueError),
    ("ab", TypeError),
    (None, TypeError),
    ([1 + 2j, 0], TypeError),
]


@pytest.mark.parametrize(("bad", "error"), BAD_VECTORS)
def test_every_function_rejects_bad_vectors(bad, error):
    good = np.array([1.0, 2.0])
    calls = [
        lambda: vec.dot(bad, good), lambda: vec.dot(good, bad),
        lambda: vec.cross(bad, good), lambda: vec.cross(good, bad),
        lambda: vec.cross_scalar_vector(1.0, bad), lambda: vec.cross_vector_scalar(bad, 1.0),
        lambda: vec.perp(bad), lambda: vec.length(bad), lambda: vec.normalize(bad),
        lambda: vec.rotate(bad, 0.5), lambda: pb.Transform(bad, 0.5),
        lambda: pb.Transform().to_world(bad), lambda: pb.Transform().to_local(bad),
        lambda: pb.Transform().rotate_to_world(bad), lambda: pb.Transform().rotate_to_local(bad),
        lambda: vec.Line(bad, 1.0), lambda: vec.Line.through(bad, good),
        lambda: vec.Line.through(good, bad), lambda: vec.Line(good, 0.0).signed_distance(bad),
        lambda: vec.Line(good, 0.0).project(bad), lambda: vec.Line(good, 0.0).side(bad),
        lambda: vec.closest_point_on_segment(bad, good, -good),
        lambda: vec.closest_point_on_segment(good, bad, -good),
    ]
    for call in calls:
        with pytest.raises(error):
            call()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_angles_and_scalars_raise(bad):
    with pytest.raises(ValueError, match="angle"):
        vec.rotation_matrix(bad)
    with pytest.raises(ValueError, match="angle"):
        vec.rotate([1.0, 0.0], bad)
    with pytest.raises(ValueError, match="angle"):
        pb.Transform((0.0, 0.0), bad)
    with pytest.raises(ValueError, match="offset"):
        vec.Line((1.0, 0.0), bad)
    with pytest.raises(ValueError, match="s must be finite"):
        vec.cross_scalar_vector(bad, [1.0, 0.0])
    with pytest.raises(ValueError, match="s must be finite"):
        vec.cross_vector_scalar([1.0, 0.0], [1.0, bad])


def test_wrong_types_and_shapes_raise():
    with pytest.raises(TypeError, match="angle"):
        vec.rotation_matrix("0.5")
    with pytest.raises(TypeError, match="angle"):
        pb.Transform((0.0, 0.0), True)
    with pytest.raises(ValueError, match="same length"):
        vec.dot(np.ones((3, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="same length"):
        vec.cross(np.ones((3, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="one value per vector"):
        vec.cross_scalar_vector(np.ones(3), np.ones((4, 2)))
    with pytest.raises(ValueError, match="one value per vector"):
        vec.cross_vector_scalar(np.ones((4, 2)), np.ones((4, 1)))
    with pytest.raises(TypeError):
        pb.Transform() @ np.eye(2)
    with pytest.raises(ValueError, match="tolerance"):
        vec.Line((1.0, 0.0), 0.0).side([0.0, 0.0], tolerance=-1.0)


def test_degenerate_lines_raise():
    with pytest.raises(ValueError, match="non-zero"):
        vec.Line((0.0, 0.0), 1.0)
    with pytest.raises(ValueError, match="non-zero"):
        vec.Line((1e-13, 0.0), 1.0)
    with pytest.raises(ValueError, match="distinct"):
        vec.Line.through((1.0, 1.0), (1.0, 1.0))


# --- results at the edge of the float range ----------------------------------------------
# Inputs are finite; a result beyond ±1.8e308 raises FloatingPointError naming it, and a
# result that fits is computed without an intermediate that does not.

HUGE = 1.7e308
overflow = pytest.mark.filterwarnings("ignore:overflow encountered", "ignore:invalid value")


@overflow
@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: vec.dot([1e200, 0.0], [1e200, 0.0]), r"dot\(a, b\)"),
        (lambda: vec.dot([1e200, 1e200], [1e200, -1e200]), r"dot\(a, b\)"),  # inf − inf
        (lambda: vec.cross([1e200, 0.0], [0.0, 1e200]), r"cross\(a, b\)"),
        (lambda: vec.cross_scalar_vector(1e200, [1e200, 0.0]), r"s × v"),
        (lambda: vec.cross_vector_scalar(np.full((3, 2), 1e200), 1e200), r"v × s"),
        (lambda: vec.length([HUGE, HUGE]), r"length\(v\)"),
        (lambda: vec.rotate([HUGE, HUGE], math.pi / 4), r"rotate\(v, angle\)"),
        (lambda: pb.Transform((HUGE, 0.0)).to_world([HUGE, 0.0]), "to_world"),
        (lambda: pb.Transform((-HUGE, 0.0)).to_local([HUGE, 0.0]), "to_local"),
        (lambda: pb.Transform((0, 0), math.pi / 4).rotate_to_world([HUGE, HUGE]),
         "rotate_to_world"),
        (lambda: pb.Transform((0, 0), math.pi / 4).rotate_to_local([HUGE, -HUGE]),
         "rotate_to_local"),
        (lambda: pb.Transform((HUGE, HUGE), math.pi / 4).inverse(), "inverse"),
        (lambda: pb.Transform((HUGE, 0.0)) @ pb.Transform((HUGE, 0.0)), "composed position"),
        (lambda: pb.Transform(angle=1e308) @ pb.Transform(angle=1e308), "composed angle"),
        (lambda: vec.Line((1e-12, 0.0), 1e300), r"offset / \|normal\|"),
        (lambda: vec.Line.through((HUGE, HUGE), (HUGE - 1e300, HUGE + 1e300)),
         r"Line.through\(a, b\)"),
        (lambda: vec.Line((1.0, 1.0), 0.0).signed_distance([HUGE, HUGE]), "signed_distance"),
        (lambda: vec.Line((1.0, 1.0), -1e308).side([HUGE, HUGE]), "signed_distance"),
        # The distance, −0.7e308, fits; the foot of the perpendicular, x = 2.2e308, does not.
        (lambda: vec.Line((1.0, 1.0), 1e308).project([HUGE, -HUGE]), "project"),
    ],
)
def test_results_beyond_the_float_range_raise_naming_what_overflowed(call, words):
    with pytest.raises(FloatingPointError, match=words):
        call()


def test_lines_with_huge_normals_or_far_points_are_still_lines():
    # |normal| = 2.1e308 overflows; the line itself is ordinary.
    line = vec.Line((1.5e308, 1.5e308), 1e300)
    np.testing.assert_allclose(line.normal, [0.5**0.5, 0.5**0.5], rtol=1e-15)
    assert line.offset == pytest.approx(1e300 / 1.5e308 / math.sqrt(2.0), rel=1e-15)
    # b − a = 2e308 overflows; the line through them is y = 1 + x / 1e308.
    a, b = np.array([-1e308, 0.0]), np.array([1e308, 2.0])
    line = vec.Line.through(a, b)
    np.testing.assert_allclose(line.normal, [1e-308, -1.0], rtol=1e-15)
    np.testing.assert_allclose(line.signed_distance(np.array([a, b, [0.0, 1.0]])), 0.0,
                               atol=1e-15)


def test_closest_point_on_segments_longer_than_the_float_range():
    # d·d = 4e400 overflows; the foot of the perpendicular is the origin.
    np.testing.assert_array_equal(
        vec.closest_point_on_segment([0.0, 5.0], (-1e200, 0.0), (1e200, 0.0)), [0.0, 0.0])
    # Even b − a overflows here. Accurate to rounding at the segment's scale, and the
    # clamped end comes back exactly.
    a, b = (-HUGE, 0.0), (HUGE, 1.0)
    closest = vec.closest_point_on_segment([[-1e308, -7.0], [1e300, 0.5], [HUGE, 9.0]], a, b)
    t = np.array([(HUGE - 1e308) / HUGE / 2, 0.5 + 1e300 / HUGE / 2])  # y = t on this segment
    np.testing.assert_allclose(closest[:2, 0], [-1e308, 1e300], rtol=0, atol=1e-15 * HUGE)
    np.testing.assert_allclose(closest[:2, 1], t, rtol=1e-12)
    np.testing.assert_array_equal(closest[2], b)
