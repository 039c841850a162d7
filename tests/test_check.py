"""physbook._check: each check converts good input and names the argument in its errors."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from physbook import _check

NOT_NUMBERS = ["1.0", None, True, np.bool_(True), 1 + 0j, [1.0], object()]


@pytest.mark.parametrize(
    "value", [3, 2.5, -1.0, np.float32(0.5), np.int64(7), np.array(4.0), Fraction(1, 4)]
)
def test_finite_scalar_accepts_real_numbers_as_float(value):
    out = _check.finite_scalar(value, "x")
    assert type(out) is float
    assert out == float(value)


@pytest.mark.parametrize("value", NOT_NUMBERS + [np.array(True), np.array("a")])
def test_finite_scalar_rejects_non_numbers_naming_the_argument(value):
    with pytest.raises(TypeError, match="speed must be a real number"):
        _check.finite_scalar(value, "speed")


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, np.float32("nan"), np.array(np.inf)])
def test_finite_scalar_rejects_non_finite(value):
    with pytest.raises(ValueError, match="speed must be finite"):
        _check.finite_scalar(value, "speed")


def test_positive_and_non_negative_boundaries():
    assert _check.positive_scalar(1e-300, "dt") == 1e-300
    assert _check.non_negative_scalar(0.0, "slop") == 0.0
    for bad in (0.0, -0.0, -1.0):
        with pytest.raises(ValueError, match="dt must be positive"):
            _check.positive_scalar(bad, "dt")
    with pytest.raises(ValueError, match="slop must be non-negative"):
        _check.non_negative_scalar(-1e-300, "slop")
    with pytest.raises(ValueError, match="finite"):
        _check.positive_scalar(np.inf, "dt")
    with pytest.raises(TypeError):
        _check.non_negative_scalar("1", "slop")


@settings(max_examples=50)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_positive_scalar_agrees_with_its_definition(value):
    if np.isfinite(value) and value > 0:
        assert _check.positive_scalar(value, "r") == value
    else:
        with pytest.raises(ValueError):
            _check.positive_scalar(value, "r")


def test_integer_and_positive_int_check_type_and_minimum():
    assert _check.positive_int(3, "n") == 3
    assert type(_check.positive_int(np.int64(3), "n")) is int
    assert _check.integer(3, "n", 3) == 3
    assert _check.integer(0, "n", 0) == 0
    with pytest.raises(ValueError, match="n must be at least 3, got 2"):
        _check.integer(2, "n", 3)
    with pytest.raises(ValueError, match="at least 1"):
        _check.positive_int(0, "n")
    for bad in (3.0, True, "3", None, np.float64(3)):
        with pytest.raises(TypeError, match="n must be an integer"):
            _check.positive_int(bad, "n")


def test_non_negative_int_accepts_zero_only_from_below():
    assert _check.non_negative_int(0, "row") == 0
    assert type(_check.non_negative_int(np.int64(5), "row")) is int
    with pytest.raises(ValueError, match="row must be at least 0, got -1"):
        _check.non_negative_int(-1, "row")
    with pytest.raises(TypeError, match="row must be an integer"):
        _check.non_negative_int(1.0, "row")


@pytest.mark.parametrize("value", [-(2**63), -1, 0, 6, 2**63 - 1, np.int64(7)])
def test_bitmask_accepts_every_signed_64_bit_integer(value):
    out = _check.bitmask(value, "layers")
    assert type(out) is int and out == int(value)


@pytest.mark.parametrize(("value", "error"), [
    (2**63, ValueError), (-(2**63) - 1, ValueError), (1.0, TypeError), (True, TypeError),
    (np.bool_(True), TypeError), ("1", TypeError), (None, TypeError),
])
def test_bitmask_rejects_what_does_not_fit_or_is_not_an_integer(value, error):
    with pytest.raises(error, match="layers must"):
        _check.bitmask(value, "layers")


def test_flag_accepts_only_booleans():
    assert _check.flag(True, "pin") is True
    assert _check.flag(np.bool_(False), "pin") is False
    for bad in (0, 1, None, "yes", 1.0):
        with pytest.raises(TypeError, match="pin must be True or False"):
            _check.flag(bad, "pin")


def test_finite_array_converts_and_copies():
    source = np.array([1.0, 2.0])
    out = _check.finite_array(source, "a")
    assert out.dtype == np.float64
    out[0] = 9.0
    assert source[0] == 1.0  # a copy: the caller's array is untouched
    np.testing.assert_array_equal(_check.finite_array([[1, 2], [3, 4]], "a"), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(_check.finite_array(np.arange(3, dtype=np.int32), "a"),
                                  [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(_check.finite_array([Fraction(1, 2)], "a"), [0.5])
    assert _check.finite_array(2.5, "a").shape == ()
    assert _check.finite_array([], "a").shape == (0,)


@pytest.mark.parametrize(
    "value",
    [None, "12", ["1", "2"], [1 + 2j], np.array([1 + 0j]), [True, False], [[1, 2], [3]]],
)
def test_finite_array_rejects_non_numeric(value):
    with pytest.raises(TypeError, match="pts must be numeric"):
        _check.finite_array(value, "pts")


@pytest.mark.parametrize("value", [[1.0, np.nan], [[np.inf, 0.0]], -np.inf])
def test_finite_array_rejects_non_finite(value):
    with pytest.raises(ValueError, match="pts must be finite"):
        _check.finite_array(value, "pts")


def test_vector_shape():
    np.testing.assert_array_equal(_check.vector((1, 2), "v"), [1.0, 2.0])
    for bad in ([1.0], [1.0, 2.0, 3.0], [[1.0, 2.0]], 1.0):
        with pytest.raises(ValueError, match=r"v must be a 2D vector of shape \(2,\)"):
            _check.vector(bad, "v")


def test_points_shape():
    assert _check.points([1, 2], "p").shape == (2,)
    assert _check.points(np.zeros((5, 2)), "p").shape == (5, 2)
    assert _check.points(np.zeros((0, 2)), "p").shape == (0, 2)
    for bad in (np.zeros(3), np.zeros((2, 3)), np.zeros((2, 2, 2)), 1.0, np.zeros((0,))):
        with pytest.raises(ValueError, match=r"p must have shape \(2,\) or \(N, 2\)"):
            _check.points(bad, "p")


def test_choice():
    assert _check.choice("sat", "method", {"sat", "gjk"}) == "sat"
    with pytest.raises(ValueError, match=r"method must be one of \['gjk', 'sat'\], got 'epa'"):
        _check.choice("epa", "method", {"sat", "gjk"})
    with pytest.raises(TypeError, match="method must be a string"):
        _check.choice(1, "method", {"sat", "gjk"})


def test_instance_returns_the_value_or_names_argument_and_kind():
    value = [1.0, 2.0]
    assert _check.instance(value, "points", (list, tuple), "a list or tuple") is value
    with pytest.raises(TypeError, match=r"^box must be an AABB, got dict$"):
        _check.instance({}, "box", (list, tuple), "an AABB")
