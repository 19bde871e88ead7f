"""The argument checks: right kind, wrong value -> ValueError; wrong kind -> TypeError."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from sekai.utils.validation import (
    check_array,
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_real,
)


def test_check_int_accepts_python_and_numpy_ints():
    assert check_int(3, "n") == 3
    value = check_int(np.int64(-2), "n")
    assert value == -2 and type(value) is int
    assert check_int(5, "n", low=5, high=5) == 5


@pytest.mark.parametrize(
    ("bad", "kwargs", "error", "match"),
    [
        (2.5, {}, ValueError, r"n must be an int, got float 2\.5"),
        (2.0, {}, ValueError, "n must be an int"),
        (np.float64(1.0), {}, ValueError, "n must be an int"),
        ([1, 2], {}, ValueError, r"n must be an int \(a scalar\), got list"),
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
