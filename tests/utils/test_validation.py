"""The argument checks: right kind, wrong value -> ValueError; wrong kind -> TypeError."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sekai.utils.validation import (
    check_array,
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_int_array,
    check_real,
    check_shape,
)


def test_check_int_accepts_python_and_numpy_ints():
    assert check_int(3, "n") == 3
    value = check_int(np.int64(-2), "n")
    assert value == -2 and type(value) is int
    assert check_int(5, "n", low=5, high=5) == 5


@pytest.mark.parametrize(
    ("whole", "expected"),
    [
        (3.0, 3),
        (-2.0, -2),
        (0.0, 0),
        (-0.0, 0),
        (np.float32(3.0), 3),
        (np.float64(7.0), 7),
        (np.float16(4.0), 4),
        (Fraction(6, 2), 3),
        (1e20, 10**20),
    ],
)
def test_check_int_takes_a_whole_float_as_its_int(whole, expected):
    value = check_int(whole, "n")
    assert value == expected and type(value) is int


def test_a_whole_float_is_range_checked_as_its_int():
    assert check_int(1.0, "n", low=1, high=1) == 1
    with pytest.raises(ValueError, match="n must be at least 1, got 0"):
        check_int(0.0, "n", low=1)
    with pytest.raises(ValueError, match="n must be at most 3, got 4"):
        check_int(np.float32(4.0), "n", high=3)


@pytest.mark.parametrize(
    ("bad", "kwargs", "error", "match"),
    [
        (2.5, {}, TypeError, r"n must be an int, got float 2\.5\.$"),
        (2.5, {"low": 5}, TypeError, r"n must be an int, got float 2\.5"),
        (-0.5, {}, TypeError, "n must be an int"),
        (np.float64(2.5), {}, TypeError, r"n must be an int, got float64 np\.float64\(2\.5\)"),
        (np.float32(0.25), {}, TypeError, "n must be an int"),
        (math.inf, {}, TypeError, "n must be an int, got float inf"),
        (-math.inf, {}, TypeError, "n must be an int, got float -inf"),
        (math.nan, {}, TypeError, "n must be an int, got float nan"),
        (np.float64("nan"), {"low": 0}, TypeError, "n must be an int"),
        (Fraction(1, 2), {}, TypeError, "n must be an int, got Fraction"),
        (1j, {}, ValueError, "n must be an int, got complex 1j"),
        ([1, 2], {}, ValueError, r"n must be an int \(a scalar\), got list"),
        ([2.5], {}, ValueError, r"n must be an int \(a scalar\)"),
        (np.array([1]), {}, ValueError, "a scalar"),
        (0, {"low": 1}, ValueError, "n must be at least 1, got 0"),
        (4, {"high": 3}, ValueError, "n must be at most 3, got 4"),
        (11, {"low": 1, "high": 10}, ValueError, r"n must be in \[1, 10\], got 11"),
        (True, {}, TypeError, "n must be an int, got bool True"),
        (np.bool_(False), {}, TypeError, "n must be an int"),
        ("3", {}, TypeError, "n must be an int, got str '3'"),
        (None, {}, TypeError, "got NoneType None"),
        (["a"], {}, TypeError, "n must be an int"),
        (object(), {}, TypeError, "n must be an int"),
    ],
)
def test_check_int_refusals(bad, kwargs, error, match):
    with pytest.raises(error, match=match):
        check_int(bad, "n", **kwargs)


def test_check_real_accepts_reals():
    assert check_real(1, "x") == 1.0 and type(check_real(1, "x")) is float
    assert check_real(np.float32(0.5), "x") == 0.5
    assert check_real(Fraction(1, 4), "x") == 0.25
    assert check_real(math.inf, "x", finite=False) == math.inf
    assert check_real(0.0, "x", low=0.0) == 0.0
    assert check_real(1.0, "x", low=0.0, high=1.0) == 1.0


@pytest.mark.parametrize(
    ("bad", "kwargs", "error", "match"),
    [
        (math.nan, {}, ValueError, "x must be finite, got nan"),
        (math.inf, {}, ValueError, "x must be finite, got inf"),
        (math.nan, {"finite": False}, ValueError, "other than NaN"),
        (0.0, {"low": 0.0, "low_open": True}, ValueError, r"x must be finite and > 0, got 0\.0"),
        (-1, {"low": 0.0}, ValueError, "x must be finite and >= 0"),
        (2.0, {"high": 1.0, "high_open": True}, ValueError, "x must be finite and < 1"),
        (
            1.0,
            {"low": 0, "high": 1, "low_open": True, "high_open": True},
            ValueError,
            r"x must be in \(0, 1\), got 1\.0",
        ),
        (math.nan, {"low": 0, "high": 1}, ValueError, r"x must be in \[0, 1\]"),
        (-math.inf, {"low": 0.0, "finite": False}, ValueError, "x must be >= 0"),
        ([0.1, 0.2], {}, ValueError, r"x must be a real number \(a scalar\), got list"),
        ((0.1,), {}, ValueError, "a scalar"),
        (np.array(0.5), {}, ValueError, "a scalar"),
        (1j, {}, ValueError, "x must be a real number, got complex"),
        (True, {}, TypeError, "x must be a real number, got bool True"),
        ("0.5", {}, TypeError, "x must be a real number, got str '0.5'"),
        (None, {}, TypeError, "got NoneType None"),
        ({"a": 1}, {}, TypeError, "x must be a real number"),
    ],
)
def test_check_real_refusals(bad, kwargs, error, match):
    with pytest.raises(error, match=match):
        check_real(bad, "x", **kwargs)


def test_check_bool():
    assert check_bool(True, "flag") is True and check_bool(np.bool_(False), "flag") is False
    for bad in (0, 1, "yes", None, 1.0):
        with pytest.raises(TypeError, match="flag must be a bool"):
            check_bool(bad, "flag")


def test_check_instance():
    assert check_instance("close", "price_field", str, "a str") == "close"
    with pytest.raises(TypeError, match="price_field must be a str, got int 1"):
        check_instance(1, "price_field", str, "a str")


def test_check_choice():
    assert check_choice("left", "side", ("left", "right")) == "left"
    with pytest.raises(ValueError, match="side must be 'left' or 'right', got 'middle'"):
        check_choice("middle", "side", ("left", "right"))
    with pytest.raises(TypeError, match="side must be 'left' or 'right', got int 1"):
        check_choice(1, "side", ("left", "right"))
    with pytest.raises(ValueError, match="mode must be one of 1, 2, 3, got 4"):
        check_choice(4, "mode", (1, 2, 3))
    with pytest.raises(TypeError, match="got bool True"):
        check_choice(True, "mode", (1, 2, 3))
    assert check_choice(False, "flag", (False,)) is False


def test_check_array_accepts_array_likes():
    arr = np.arange(3.0)
    assert check_array(arr, "x") is arr
    assert check_array([1, 2], "x", ndim=1, length=2).tolist() == [1, 2]
    assert check_array(2.0, "x", ndim=(0, 1)).shape == ()
    objects = check_array(np.array([1, Fraction(1, 2)], dtype=object), "x")
    assert objects.dtype == np.float64 and objects.tolist() == [1.0, 0.5]
    mask = check_array([True, False], "mask", dtype_kind="b")
    assert mask.dtype == np.bool_
    stamps = check_array(np.array(["2020-01-01"], "M8[D]"), "t", dtype_kind="Miuf")
    assert stamps.dtype.kind == "M"
    assert check_array([[1.0, math.nan]], "x", shape=(1, 2)).shape == (1, 2)


@pytest.mark.parametrize(
    ("bad", "kwargs", "error", "match"),
    [
        (["a", "b"], {}, ValueError, r"x must hold real numbers \(numeric values\), got .*<U1"),
        ([True, False], {}, ValueError, "x must hold real numbers"),
        (np.array([1, "a"], dtype=object), {}, ValueError, "got str 'a' at index 1"),
        (np.ones(3), {"dtype_kind": "b"}, ValueError, "mask must hold bool values"),
        (np.array([1.0]), {"dtype_kind": "M"}, ValueError, "must hold datetime64 values"),
        (["x"], {"dtype_kind": "Miuf"}, ValueError, "datetime64 or numeric values"),
        (np.ones((2, 2)), {"ndim": 1}, ValueError, r"x must be 1-D, got shape \(2, 2\)"),
        (np.ones(3), {"ndim": (0, 2)}, ValueError, "x must be 0-D or 2-D"),
        (np.ones(3), {"shape": (3, 1)}, ValueError, r"x must have shape \(3, 1\), got \(3,\)"),
        (np.ones(3), {"length": 4}, ValueError, "x must have length 4, got length 3"),
        (1.0, {"length": 1}, ValueError, "got a scalar"),
        ([1.0, math.nan], {"finite": True}, ValueError, "x must be finite, got nan at index 1"),
        ([[1.0, -math.inf]], {"finite": True}, ValueError, r"got -inf at index \(0, 1\)"),
        ([[1.0], [1.0, 2.0]], {}, ValueError, "rectangular"),
        ("abc", {}, TypeError, "x must be an array of real numbers"),
        (None, {}, TypeError, "got NoneType None"),
        (True, {}, TypeError, "got bool True"),
        (object(), {}, TypeError, "x must be an array"),
        ({"a": 1.0}, {}, TypeError, "got dict"),
    ],
)
def test_check_array_refusals(bad, kwargs, error, match):
    name = "mask" if kwargs.get("dtype_kind") == "b" else "x"
    with pytest.raises(error, match=match):
        check_array(bad, name, **kwargs)


# -- the integer rule as properties ------------------------------------------------------------

_FRACTIONAL = st.floats(allow_nan=True, allow_infinity=True).filter(
    lambda x: not math.isfinite(x) or not x.is_integer()
)
_BOUNDS = st.integers(-(10**6), 10**6)


@given(value=_FRACTIONAL, low=st.none() | _BOUNDS, high=st.none() | _BOUNDS)
def test_property_a_float_with_a_fraction_is_a_type_error(value, low, high):
    for given_value in (value, np.float64(value)):
        with pytest.raises(TypeError, match="n must be an int, got"):
            check_int(given_value, "n", low=low, high=high)


@given(value=_BOUNDS, data=st.data())
def test_property_a_whole_float_in_bounds_is_its_int(value, data):
    low = data.draw(st.none() | st.integers(-(10**6), value))
    high = data.draw(st.none() | st.integers(value, 10**6))
    for whole in (float(value), np.float64(value)):
        out = check_int(whole, "n", low=low, high=high)
        assert out == value and type(out) is int
    if abs(value) <= 2**24:  # exact in float32
        assert check_int(np.float32(value), "n", low=low, high=high) == value


@given(value=_BOUNDS, low=_BOUNDS, high=_BOUNDS, as_float=st.booleans())
def test_property_out_of_range_is_a_value_error(value, low, high, as_float):
    given_value = float(value) if as_float else value
    if low <= value <= high:
        assert check_int(given_value, "n", low=low, high=high) == value
    else:
        with pytest.raises(ValueError, match=rf"n must be in \[{low}, {high}\], got {value}\.$"):
            check_int(given_value, "n", low=low, high=high)


@given(
    value=st.sampled_from([True, False, np.True_, np.False_])
    | st.text()
    | st.none()
    | st.binary()
    | st.dictionaries(st.text(), st.integers())
)
def test_property_bools_and_non_numbers_are_type_errors(value):
    with pytest.raises(TypeError, match="n must be an int, got"):
        check_int(value, "n", low=0)


# -- arrays of ints and shapes -----------------------------------------------------------------


def test_check_int_array_takes_ints_and_whole_floats():
    assert check_int_array([2, 3], "nvec").tolist() == [2, 3]
    whole = check_int_array([2.0, np.float32(3.0)], "nvec")
    assert whole.dtype == np.int64 and whole.tolist() == [2, 3]
    assert check_int_array(np.array([[1.0, 2.0]]), "nvec").tolist() == [[1, 2]]
    assert check_int_array(np.array([4], np.uint8), "nvec").dtype == np.int64
    assert check_int_array(3.0, "nvec").shape == ()
    assert check_int_array([], "nvec").shape == (0,)


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        ([2.5], TypeError, r"nvec must hold ints, got float 2\.5 at index 0\.$"),
        (np.array([1.0, 2.5]), TypeError, r"got float64 np\.float64\(2\.5\) at index 1"),
        ([[1, 2], [3, 4.5]], TypeError, r"got float 4\.5 at index \(1, 1\)"),
        (np.array([1.0, math.nan]), TypeError, "at index 1"),
        ([math.inf], TypeError, "got float inf at index 0"),
        (2.5, TypeError, r"nvec must hold ints, got float 2\.5\.$"),
        ([2, True], TypeError, "got bool True at index 1"),
        (np.array([True]), TypeError, "got bool"),
        (["a"], TypeError, "got str 'a' at index 0"),
        (None, TypeError, "got NoneType None"),
        ([1j], ValueError, "got complex 1j at index 0"),
        ([2**70], ValueError, "ints that fit int64"),
        (np.array([1e30]), ValueError, "ints that fit int64"),
        (np.array([2**63], np.uint64), ValueError, "ints that fit int64"),
        ([[1, 2], [3]], ValueError, "nvec must be a rectangular array of ints"),
    ],
)
def test_check_int_array_refusals(bad, error, match):
    with pytest.raises(error, match=match):
        check_int_array(bad, "nvec")


@given(st.lists(st.integers(-(10**9), 10**9), min_size=1, max_size=6), st.data())
def test_property_int_array_entry_rule(values, data):
    floats = [float(v) for v in values]
    assert check_int_array(floats, "nvec").tolist() == values
    assert check_int_array(np.array(floats), "nvec").tolist() == values
    index = data.draw(st.integers(0, len(values) - 1))
    floats[index] = data.draw(_FRACTIONAL)
    with pytest.raises(TypeError, match=f"at index {index}"):
        check_int_array(floats, "nvec")
    with pytest.raises(TypeError, match=f"at index {index}"):
        check_int_array(np.array(floats), "nvec")


def test_check_shape():
    assert check_shape((2, 3), "shape") == (2, 3)
    assert check_shape([np.int64(2), 3.0], "shape") == (2, 3)
    assert all(type(d) is int for d in check_shape((np.int64(2), 3.0), "shape"))
    assert check_shape((), "shape") == ()
    assert check_shape(np.array([4, 5]), "shape") == (4, 5)
    for bad in ((2.5,), (2, True), ("a",), (None,), (math.nan,), 3, 3.0, "ab", None, np.array(2)):
        with pytest.raises(TypeError, match="shape must be a tuple of ints"):
            check_shape(bad, "shape")
    with pytest.raises(ValueError, match=r"shape must have non-negative entries, got \(2, -1\)"):
        check_shape((2, -1), "shape")
    with pytest.raises(ValueError, match="non-negative"):
        check_shape((-1.0,), "shape")
