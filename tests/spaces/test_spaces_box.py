"""Tests for Box and float_dtype."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from sekai.spaces import Box, Discrete
from sekai.spaces.box import float_dtype


@pytest.mark.parametrize(
    ("space", "text"),
    [
        (Box(-1.2, 0.6, (2,)), "Box(-1.2, 0.6, (2,), float32)"),
        (Box(0, 255, (3,), np.uint8), "Box(0, 255, (3,), uint8)"),
        (Box([-1.0, -np.inf], [1.0, np.inf]), "Box([-1.0, -inf], [1.0, inf], (2,), float32)"),
        (Box(0.0, 1.0, (3,)), "Box(0.0, 1.0, (3,), float32)"),
        (
            Box(0.0, np.arange(1, 101), (100,)),
            "Box(0.0, [1.0, 2.0, 3.0, ..., 98.0, 99.0, 100.0], (100,), float32)",
        ),
        (
            Box([-4.8, -np.inf, -0.41887903, -np.inf], [4.8, np.inf, 0.41887903, np.inf]),
            "Box([-4.8, -inf, -0.41887903, -inf], [4.8, inf, 0.41887903, inf], (4,), float32)",
        ),
        (Box([], [], (0,)), "Box([], [], (0,), float32)"),
        (Box(-1, 1, (), np.int64), "Box(-1, 1, (), int64)"),
        (Box(0.0, 1.0, (2,), np.float64), "Box(0.0, 1.0, (2,), float64)"),
    ],
)
def test_repr(space: Box, text: str) -> None:
    assert repr(space) == text


def test_repr_batched_bounds_elide_middle() -> None:
    low = np.tile(np.array([-4.8, -np.inf, -0.41887903, -np.inf], np.float32), (4, 1))
    space = Box(low, -low)
    assert repr(space) == (
        "Box([-4.8, -inf, -0.41887903, ..., -inf, -0.41887903, -inf], "
        "[4.8, inf, 0.41887903, ..., inf, 0.41887903, inf], (4, 4), float32)"
    )


def test_zero_is_zero_clipped_into_bounds() -> None:
    np.testing.assert_array_equal(Box(1, 2, (4,)).zero(), np.ones(4, np.float32))
    zero = Box(-3, -1, (2,), np.int8).zero()
    assert zero.dtype == np.int8
    np.testing.assert_array_equal(zero, [-1, -1])
    np.testing.assert_array_equal(Box(-1.0, 1.0, (2,)).zero(), [0.0, 0.0])


def test_zero_returns_a_fresh_array() -> None:
    space = Box(0.0, 1.0, (2,))
    zero = space.zero()
    zero[0] = 5.0
    assert space.zero()[0] == 0.0


def test_attributes() -> None:
    space = Box(np.int64(0), 1.0, (np.int64(2), 3))
    assert space.shape == (2, 3)
    assert all(type(d) is int for d in space.shape)
    assert space.dtype == np.float32
    assert space.low.dtype == np.float32 and space.low.shape == (2, 3)
    assert space.high.dtype == np.float32 and space.high.shape == (2, 3)
    json.dumps(space.to_jsonable())


def test_shape_from_bounds() -> None:
    space = Box(np.zeros((2, 2)), np.ones((2, 2)), dtype=np.float64)
    assert space.shape == (2, 2)
    assert Box(0.0, 1.0).shape == ()


@pytest.mark.parametrize(("low", "high"), [(0.0, np.ones(3)), (np.zeros(2), np.ones(3))])
def test_bounds_with_different_shapes_and_no_shape(low: object, high: object) -> None:
    with pytest.raises(ValueError, match="same shape"):
        Box(low, high)


def test_bound_not_broadcastable_to_shape() -> None:
    with pytest.raises(ValueError):
        Box(np.zeros(3), 1.0, (2,))


def test_low_above_high() -> None:
    with pytest.raises(ValueError, match="low must be <= high"):
        Box([0.0, 2.0], [1.0, 1.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8])
def test_nan_bound(dtype: type) -> None:
    with pytest.raises(ValueError, match="NaN"):
        Box(np.nan, 1.0, (2,), dtype)
    with pytest.raises(ValueError, match="NaN"):
        Box(0.0, [1.0, np.nan], (2,), dtype)


def test_integer_bounds_out_of_range_clip_with_warning() -> None:
    with pytest.warns(UserWarning, match="uint8"):
        space = Box(-1, 300, (2,), np.uint8)
    np.testing.assert_array_equal(space.low, [0, 0])
    np.testing.assert_array_equal(space.high, [255, 255])
    with pytest.warns(UserWarning, match="int8"):
        space = Box(-1e6, 1e6, (), np.int8)
    assert space.low == -128 and space.high == 127
    with pytest.warns(UserWarning, match="uint8"):
        Box(np.array([0], np.int64), np.array([256], np.int64), None, np.uint8)


def test_integer_bounds_infinite_map_to_limits_silently() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        space = Box(-np.inf, np.inf, (2,), np.int64)
        full = Box(-np.inf, np.inf, (), np.uint64)
    assert space.low.tolist() == [np.iinfo(np.int64).min] * 2
    assert space.high.tolist() == [np.iinfo(np.int64).max] * 2
    assert int(full.low) == 0 and int(full.high) == 2**64 - 1


def test_python_ints_are_exact() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        space = Box(0, 2**63 + 1, (), np.uint64)
        listed = Box([0, 1], [2**64 - 1, 2**63 + 1], None, np.uint64)
    assert int(space.high) == 2**63 + 1
    assert listed.high.tolist() == [2**64 - 1, 2**63 + 1]
    assert np.array(2**63 + 1, np.uint64) in space


def test_float_bounds_beyond_int64_saturate_exactly() -> None:
    with pytest.warns(UserWarning, match="int64"):
        space = Box(-1e30, 1e30, (), np.int64)
    assert int(space.low) == -(2**63) and int(space.high) == 2**63 - 1


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"low": 0, "high": 1, "dtype": None}, TypeError, "dtype"),
        ({"low": 0, "high": 1, "dtype": np.str_}, TypeError, "dtype"),
        ({"low": 0, "high": 1, "shape": 3}, TypeError, "shape"),
        ({"low": 0, "high": 1, "shape": (1.5,)}, TypeError, "shape"),
        ({"low": 0, "high": 1, "shape": (2, float("nan"))}, TypeError, "shape"),
        ({"low": 0, "high": 1, "shape": (-1,)}, ValueError, "shape"),
        ({"low": "a", "high": 1}, TypeError, "low"),
        ({"low": 0, "high": object()}, TypeError, "high"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict, error: type, fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        Box(**kwargs)


def test_contains_dtype_rules() -> None:
    f32 = Box(0.0, 10.0, (2,))
    u8 = Box(0, 255, (2,), np.uint8)
    assert np.array([1.0, 2.0], np.float64) in f32
    assert np.array([1, 2], np.int64) in f32
    assert np.array([True, False]) in f32
    assert np.array([1.0, 2.0]) not in u8
    assert np.array([1, 2], np.int64) not in u8
    assert np.array([1, 2], np.uint8) in u8
    assert np.array([1, 2], np.uint16) in Box(0, 5, (2,), np.int32)
    assert [1, 2] in u8
    assert (1, 2) in u8
    assert [1.0, 2.0] not in u8
    assert [256, 1] not in u8
    assert [-1, 1] not in u8
    assert [1, 2, 3] not in u8


def test_contains_values_and_shapes() -> None:
    space = Box(0.0, 1.0, (2,))
    assert [0.0, 1.0] in space
    assert np.array([0.5, 1.5]) not in space
    assert np.array([0.5, np.nan]) not in space
    assert np.array([0.5]) not in space
    assert np.zeros((1, 2)) not in space
    assert [[0.5], [0.5, 0.2]] not in space
    assert "ab" not in space
    assert None not in space
    assert 0.5 in Box(0.0, 1.0, ())
    assert 0.5 not in Box(0, 1, (), np.int64)
    assert 1 in Box(0, 1, (), np.int64)


def test_contains_exact_for_mixed_signedness() -> None:
    space = Box(-(2**63), 2**63 - 1, (1,), np.int64)
    assert np.array([2**63], np.uint64) not in space
    assert np.array([2**63 - 1], np.uint64) in space
    assert [2**63] not in space


def test_sample_float_bounds() -> None:
    space = Box([-1.0, 0.0, -np.inf, -np.inf], [1.0, np.inf, 0.0, np.inf], seed=0)
    samples = np.stack([space.sample() for _ in range(500)])
    assert samples.dtype == np.float32
    assert np.all(samples[:, 0] >= -1.0) and np.all(samples[:, 0] <= 1.0)
    assert np.all(samples[:, 1] >= 0.0)
    assert np.all(samples[:, 2] <= 0.0)
    assert samples[:, 3].min() < 0.0 < samples[:, 3].max()
    assert abs(samples[:, 1].mean() - 1.0) < 0.2


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint64])
def test_sample_integer_full_range(dtype: type) -> None:
    space = Box(-np.inf, np.inf, (50,), dtype, seed=1)
    sample = space.sample()
    assert sample.dtype == dtype
    assert sample in space


def test_sample_integer_is_inclusive() -> None:
    space = Box(0, 1, (1000,), np.int64, seed=0)
    sample = space.sample()
    assert set(sample.tolist()) == {0, 1}


def test_sample_scalar_shape_is_an_array() -> None:
    sample = Box(0.0, 1.0, (), seed=0).sample()
    assert isinstance(sample, np.ndarray) and sample.shape == ()


def test_sample_bool_dtype_raises_type_error() -> None:
    space = Box(False, True, (2,), bool)
    assert np.array([True, False]) in space
    with pytest.raises(TypeError, match="bool"):
        space.sample()


def test_sample_mask() -> None:
    space = Box(1.0, 2.0, (3,), seed=0)
    sample = space.sample(mask=np.array([1, 0, 1]))
    assert sample.dtype == np.float32
    assert sample[1] == 1.0
    assert 1.0 <= sample[0] <= 2.0
    np.testing.assert_array_equal(space.sample(mask=False), np.ones(3))
    ints = Box(-5, 5, (2, 2), np.int16, seed=0)
    masked = ints.sample(mask=np.array([[True], [False]]))
    assert masked.dtype == np.int16
    np.testing.assert_array_equal(masked[1], [0, 0])
    with pytest.raises(ValueError, match="mask"):
        space.sample(mask=np.ones(2))


def test_sample_order_draws_full_sample_first() -> None:
    a = Box(0.0, 1.0, (3,), seed=5)
    b = Box(0.0, 1.0, (3,), seed=5)
    full = a.sample()
    masked = b.sample(mask=[1, 0, 1])
    assert masked[0] == full[0] and masked[2] == full[2]


def test_seed_determinism() -> None:
    a = Box(-np.inf, np.inf, (3,), seed=3)
    b = Box(-np.inf, np.inf, (3,), seed=3)
    np.testing.assert_array_equal(a.sample(), b.sample())
    assert a.seed(9) == 9


def test_is_flattenable_and_bounded() -> None:
    space = Box([-1.0, -np.inf], [1.0, 2.0])
    assert space.is_flattenable
    assert space.is_bounded == (False, True)
    assert Box(0, 1, (2,), np.uint8).is_bounded == (True, True)


def test_jsonable() -> None:
    space = Box([-1.0, -np.inf], [1.0, np.inf])
    assert space.to_jsonable() == {
        "type": "Box",
        "low": [-1.0, -np.inf],
        "high": [1.0, np.inf],
        "shape": [2],
        "dtype": "float32",
    }
    data = json.loads(json.dumps(space.to_jsonable()))
    assert Box.from_jsonable(data) == space
    big = Box(0, 2**64 - 1, (2,), np.uint64)
    assert Box.from_jsonable(json.loads(json.dumps(big.to_jsonable()))) == big


def test_equality_and_hash() -> None:
    assert Box(0.0, 1.0, (2,)) == Box(0.0, 1.0, (2,))
    assert Box(0.0, 1.0, (2,)) != Box(0.0, 1.0, (3,))
    assert Box(0.0, 1.0, (2,)) != Box(0.0, 1.0, (2,), np.float64)
    assert Box(0.0, 1.0, (2,)) != Box(0.0, 2.0, (2,))
    assert Box(0, 1, (), np.int64) != Discrete(2)
    with pytest.raises(TypeError):
        hash(Box(0.0, 1.0))


def test_float_dtype() -> None:
    assert float_dtype(np.float64) == np.float64
    assert float_dtype(np.float16) == np.float16
    assert float_dtype(np.int64) == np.float32
    assert float_dtype(np.uint8) == np.float32
    assert float_dtype(bool) == np.float32
