"""Input checks of flatten/unflatten, integer Box bound rounding, and JSON of zero-size spaces."""

from __future__ import annotations

import enum
import json
import math
import pickle
import re
import warnings
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    MultiDiscrete,
    Sequence,
    Space,
    Tuple,
    flatdim,
    flatten,
    space_from_jsonable,
    unflatten,
)

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def round_trip_json(space: Space[Any]) -> Space[Any]:
    return space_from_jsonable(json.loads(json.dumps(space.to_jsonable())))


# == flatten: out-of-space input raises =======================================================


@pytest.mark.parametrize(
    ("space", "value", "fragment"),
    [
        (Discrete(3), -1, r"Discrete\(3\) needs an integer in \[0, 2\], got -1 \(int\)"),
        (Discrete(3), 3, r"Discrete\(3\) needs an integer in \[0, 2\], got 3 \(int\)"),
        (Discrete(3, start=1), 0, r"Discrete\(3, start=1\) needs an integer in \[1, 3\], got 0"),
        (Discrete(3, start=1), 4, r"in \[1, 3\], got 4"),
        (Discrete(2, start=-5), np.int64(-3), r"in \[-5, -4\], got np\.int64\(-3\)"),
        (Discrete(3), np.array(7), r"in \[0, 2\], got array\(7\)"),
    ],
)
def test_flatten_discrete_out_of_range_raises(space: Discrete, value: Any, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        flatten(space, value)


@pytest.mark.parametrize("value", [1.0, np.float64(1.0), True, np.bool_(True), "1", None, [1]])
def test_flatten_discrete_wrong_kind_raises_type_error(value: Any) -> None:
    with pytest.raises(TypeError, match=r"flatten: Discrete\(3\) needs an integer, got "):
        flatten(Discrete(3), value)


def test_flatten_discrete_integer_array_of_wrong_shape_raises_value_error() -> None:
    with pytest.raises(ValueError, match=r"needs a single integer, got array\(\[1\]\)"):
        flatten(Discrete(3), np.array([1]))


class Side(enum.IntEnum):
    SELL = 0
    BUY = 1


@pytest.mark.parametrize("value", [2, np.int8(2), np.uint64(2), np.array(2), np.array(2, np.uint8)])
def test_flatten_discrete_accepts_every_integer_form(value: Any) -> None:
    out = flatten(Discrete(3, start=0), value)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(flatten(Discrete(2), Side.BUY), [0.0, 1.0])


@pytest.mark.parametrize(
    ("value", "got"),
    [
        (np.zeros(3), "got shape (3,)"),
        (np.zeros((2, 1)), "got shape (2, 1)"),
        (0.5, "got shape ()"),
        ([0.1, 0.2, 0.3], "got shape (3,)"),
    ],
)
def test_flatten_box_shape_mismatch_raises(value: Any, got: str) -> None:
    with pytest.raises(ValueError) as info:
        flatten(Box(0, 1, (2,)), value)
    message = str(info.value)
    assert message.startswith("flatten: Box(0.0, 1.0, (2,), float32) needs an array of shape (2,)")
    assert got in message


def test_flatten_box_ragged_input_raises_value_error() -> None:
    with pytest.raises(ValueError, match=r"needs a rectangular array, got \[\[1\], \[1, 2\]\]"):
        flatten(Box(0, 1, (2, 2)), [[1], [1, 2]])


@pytest.mark.parametrize(
    "value", [np.array(["a", "b"]), ["a", "b"], np.array([1 + 2j, 0j]), [None, None], [1, None]]
)
def test_flatten_box_non_numbers_raise_type_error(value: Any) -> None:
    with pytest.raises(
        TypeError, match=r"flatten: Box\(0\.0, 1\.0, \(2,\), float32\) needs numbers"
    ):
        flatten(Box(0, 1, (2,)), value)


def test_flatten_box_values_outside_the_bounds_pass_through() -> None:
    # flatten is reshape + cast; clipping observations into the bounds is a wrapper's job.
    out = flatten(Box(0, 1, (2, 2)), np.array([[5.0, -3.0], [np.inf, 0.5]]))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.array([5.0, -3.0, np.inf, 0.5], np.float32))
    nan = flatten(Box(0, 1, ()), np.nan)
    assert nan.shape == (1,) and np.isnan(nan[0])
    ints = flatten(Box(0, 10, (3,), np.int64), np.array([-4, 11, 2]))
    np.testing.assert_array_equal(ints, [-4.0, 11.0, 2.0])


def test_flatten_box_refuses_object_arrays() -> None:
    # numpy would read None as NaN and "1" as 1.0: neither is a number.
    for value in ([None, None], np.array([1.0, "1"], dtype=object), [2**70, 1]):
        with pytest.raises(TypeError, match="needs numbers"):
            flatten(Box(0.0, 1e30, (2,)), value)


def test_flatten_box_of_several_dimensions_keeps_c_order() -> None:
    obs = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = flatten(Box(-np.inf, np.inf, (2, 3)), obs)
    assert out.shape == (6,) and out.dtype == np.float32
    np.testing.assert_array_equal(out, np.arange(6, dtype=np.float32))


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ([1, 3], r"needs entry \(1,\) in \[0, 2\], got 3 in \[1, 3\] \(list\)"),
        ([-1, 0], r"needs entry \(0,\) in \[0, 1\], got -1"),
        (np.array([2, 0], np.uint8), r"needs entry \(0,\) in \[0, 1\], got 2"),
        (np.array([2**64 - 1, 0], np.uint64), r"needs entry \(0,\) in \[0, 1\], got 1844674407"),
    ],
)
def test_flatten_multi_discrete_out_of_range_raises(value: Any, fragment: str) -> None:
    with pytest.raises(ValueError, match=r"flatten: MultiDiscrete\(\[2, 3\]\) " + fragment):
        flatten(MultiDiscrete([2, 3]), value)


def test_flatten_multi_discrete_names_the_entry_of_a_2d_space() -> None:
    space = MultiDiscrete([[2, 3], [4, 5]], start=[[1, 0], [0, -2]])
    with pytest.raises(ValueError, match=r"entry \(1, 1\) in \[-2, 2\], got 3"):
        flatten(space, np.array([[1, 0], [3, 3]]))
    np.testing.assert_array_equal(
        flatten(space, np.array([[2, 2], [3, -2]])), [0, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0]
    )


def test_flatten_multi_discrete_wrong_kind_or_shape() -> None:
    space = MultiDiscrete([2, 3])
    with pytest.raises(TypeError, match=r"MultiDiscrete\(\[2, 3\]\) needs an integer array"):
        flatten(space, [1.0, 0.0])
    with pytest.raises(TypeError, match="needs an integer array"):
        flatten(space, np.array([True, False]))
    with pytest.raises(ValueError, match=r"needs an array of shape \(2,\), got shape \(3,\)"):
        flatten(space, [0, 0, 0])
    with pytest.raises(ValueError, match="rectangular"):
        flatten(MultiDiscrete([[2, 2], [2, 2]]), [[0, 0], [0]])


def test_flatten_multi_binary_checks() -> None:
    space = MultiBinary(3)
    with pytest.raises(ValueError, match=r"MultiBinary\(3\) needs only 0s and 1s, got \[0, 2, 1\]"):
        flatten(space, [0, 2, 1])
    with pytest.raises(ValueError, match="only 0s and 1s"):
        flatten(space, np.array([0, -1, 1], np.int8))
    with pytest.raises(ValueError, match="only 0s and 1s"):
        flatten(space, np.array([0, 255, 1], np.uint8))
    with pytest.raises(TypeError, match="needs an integer or bool array"):
        flatten(space, np.array([0.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match=r"needs an array of shape \(3,\), got shape \(2,\)"):
        flatten(space, [0, 1])
    np.testing.assert_array_equal(flatten(space, np.array([True, False, True])), [1, 0, 1])
    np.testing.assert_array_equal(flatten(MultiBinary((2, 2)), [[1, 0], [0, 1]]), [1, 0, 0, 1])


def test_flatten_dict_keys_and_kind() -> None:
    space = Dict(a=Discrete(2), b=Box(0, 1, (1,)))
    with pytest.raises(ValueError, match=r"missing \['b'\], unexpected \['c'\]"):
        flatten(space, {"a": 1, "c": np.zeros(1)})
    with pytest.raises(ValueError, match=r"missing \[\], unexpected \['z'\]"):
        flatten(space, {"a": 1, "b": np.zeros(1), "z": 0})
    with pytest.raises(TypeError, match=r"Dict\(\{a: Discrete\(2\), .*\}\) needs a mapping"):
        flatten(space, [1, np.zeros(1)])
    ordered = OrderedDict([("b", np.array([0.5])), ("a", 1)])
    np.testing.assert_array_equal(flatten(space, ordered), [0.0, 1.0, 0.5])


def test_flatten_tuple_length_and_kind() -> None:
    space = Tuple([Discrete(2), Discrete(3)])
    with pytest.raises(ValueError, match=r"needs a sequence of length 2, got length 3"):
        flatten(space, (0, 1, 2))
    with pytest.raises(TypeError, match=r"Tuple\(Discrete\(2\), Discrete\(3\)\) needs a tuple"):
        flatten(space, np.array([0, 1]))
    np.testing.assert_array_equal(flatten(space, [1, 2]), [0, 1, 0, 0, 1])


def test_flatten_nested_error_names_the_path_and_outer_space() -> None:
    space = Dict(a=Discrete(2), b=Tuple([Discrete(2), Box(0, 1, (1,))]))
    with pytest.raises(ValueError) as info:
        flatten(space, {"a": 1, "b": (5, np.zeros(1))})
    assert str(info.value) == (
        "flatten: Discrete(2) needs an integer in [0, 1], got 5 (int). (in sub-space ['b'][0] of "
        "Dict({a: Discrete(2), b: Tuple(Discrete(2), Box(0.0, 1.0, (1,), float32))}))"
    )
    with pytest.raises(
        TypeError, match=r"needs an integer, got 0\.5 \(float\)\. \(in sub-space \['a'\]"
    ):
        flatten(space, {"a": 0.5, "b": (1, np.zeros(1))})
    # The error stays picklable, keeping its message.
    restored = pickle.loads(pickle.dumps(info.value))
    assert type(restored) is ValueError and str(restored) == str(info.value)


def test_flatten_masked_box_checks_the_mask() -> None:
    space = MaskedBox(0.0, 1.0, (2,), max_size=2)
    sample = space.empty()
    sample["mask"] = np.array([2, 0], np.int8)
    with pytest.raises(ValueError, match=r"only 0s and 1s.*\(in sub-space \['mask'\] of MaskedBox"):
        flatten(space, sample)


def test_flatten_empty_composites_still_give_empty_vectors() -> None:
    assert flatten(Dict(), {}).shape == (0,)
    assert flatten(Tuple([]), []).shape == (0,)
    with pytest.raises(ValueError, match="unexpected"):
        flatten(Dict(), {"a": 1})


# == unflatten: every vector of the flat size decodes to a member =============================


@pytest.mark.parametrize(
    ("vector", "expected"),
    [
        (np.zeros(3), 5),
        (np.array([1.0, 1.0, 0.0]), 5),
        (np.array([0.0, 0.5, 0.0]), 6),
        (np.array([0.0, 2.0, 0.0]), 6),
        (np.array([1.0, 0.0, np.nan]), 7),
        (np.array([np.nan, np.inf, np.nan]), 5),
        (np.array([1.0, 0.0, -1.0]), 5),
        (np.array([-3.0, -1.0, -2.0]), 6),
        (np.array([0.1, 0.2, 0.9]), 7),
        (np.full(3, -np.inf), 5),
    ],
)
def test_unflatten_discrete_is_the_argmax_plus_start(vector: np.ndarray, expected: int) -> None:
    # Ties pick the first maximum and NaN counts as the largest value, as in np.argmax.
    out = unflatten(Discrete(3, start=5), vector)
    assert type(out) is np.intp and out == expected


@pytest.mark.parametrize(
    "vector", [np.array([0, 1, 0]), np.array([0.0, 1.0, 0.0], np.float32), [False, True, False]]
)
def test_unflatten_discrete_accepts_one_hots_of_any_numeric_dtype(vector: Any) -> None:
    out = unflatten(Discrete(3, start=5), vector)
    assert type(out) is np.intp and out == 6


def test_unflatten_wrong_kind_and_length() -> None:
    with pytest.raises(
        TypeError,
        match=r"unflatten: Discrete\(3\) needs numbers \(a bool, integer or float array\), "
        r"got \['a'",
    ):
        unflatten(Discrete(3), ["a", "b", "c"])
    with pytest.raises(TypeError, match="needs numbers"):
        unflatten(Box(0, 1, (2,)), np.array(["0.5", "1"]))
    with pytest.raises(ValueError, match=r"needs a vector of shape \(3,\), got shape \(1, 3\)"):
        unflatten(Discrete(3), np.array([[1.0, 0.0, 0.0]]))
    with pytest.raises(ValueError, match=r"needs a vector of shape \(2,\), got shape \(3,\)"):
        unflatten(Box(0, 1, (2,)), np.zeros(3))


def test_unflatten_multi_discrete_takes_the_argmax_of_each_block() -> None:
    space = MultiDiscrete([2, 3, 2], start=[0, -1, 4])
    scores = np.array([0.2, 0.7, 0.3, 0.3, 0.1, 5.0, -5.0])
    assert unflatten(space, scores).tolist() == [1, -1, 4]
    # Ties pick the first maximum of a block; NaN counts as the largest value (np.argmax).
    assert unflatten(space, np.array([1, 1, 0, 0, 0, 0, 0])).tolist() == [0, -1, 4]
    assert unflatten(space, np.array([0, np.nan, np.inf, 1, np.nan, np.nan, 2])).tolist() == [
        1,
        1,
        4,
    ]
    assert unflatten(space, [False, True, True, False, True, True, False]).tolist() == [1, -1, 4]
    grid = MultiDiscrete([[2, 2], [2, 3]], dtype=np.int16, start=[[0, 1], [2, -1]])
    out = unflatten(grid, np.array([0.9, 0.1, -1, 0, 3, 2, 0.4, 0.5, 0.45]))
    assert out.dtype == np.int16 and out.tolist() == [[0, 2], [2, 0]]
    out = unflatten(grid, np.array([1, 0, 0, 1, 0, 1, 0, 0, 1]))
    assert out.dtype == np.int16 and out.tolist() == [[0, 2], [3, 1]]


def test_unflatten_multi_binary_thresholds_at_one_half() -> None:
    out = unflatten(MultiBinary(6), np.array([0.5, 0.5000001, -1.0, 3.0, np.nan, np.inf]))
    assert out.dtype == np.int8 and out.tolist() == [0, 1, 0, 1, 0, 1]
    out = unflatten(MultiBinary((2, 2)), np.array([1.0, 0.0, 0.0, 1.0]))
    assert out.dtype == np.int8 and out.tolist() == [[1, 0], [0, 1]]
    assert unflatten(MultiBinary(2), [True, False]).tolist() == [1, 0]


class Refusing(Space[int]):
    """A custom one-number space whose registered ``unflatten`` refuses every vector."""

    def sample(self, mask: Any = None) -> int:
        return 0

    def contains(self, x: Any) -> bool:
        return x == 0

    @property
    def is_flattenable(self) -> bool:
        return True


def _refusing_flatdim(space: Refusing) -> int:
    return 1


def _refusing_unflatten(space: Refusing, x: Any) -> int:
    raise ValueError(f"unflatten: {space!r} refuses {x!r}.")


flatdim.register(Refusing, _refusing_flatdim)
unflatten.register(Refusing, _refusing_unflatten)


def test_unflatten_nested_error_names_the_path() -> None:
    space = Tuple([Box(0, 1, (1,)), Dict(flags=Refusing())])
    with pytest.raises(ValueError) as info:
        unflatten(space, np.array([0.5, 1.0]))
    assert str(info.value) == (
        "unflatten: Refusing() refuses array([1.]). (in sub-space [1]['flags'] of "
        "Tuple(Box(0.0, 1.0, (1,), float32), Dict({flags: Refusing()})))"
    )


def test_unflatten_box_parts_are_still_clipped() -> None:
    space = Tuple([Box(0, 1, (2,)), Discrete(2)])
    out = unflatten(space, np.array([5.0, -1.0, 0.0, 1.0]))
    np.testing.assert_array_equal(out[0], np.array([1.0, 0.0], np.float32))
    assert out[1] == 1


def test_unflatten_zero_size_multi_discrete() -> None:
    out = unflatten(MultiDiscrete(np.zeros((0, 3), np.int64)), np.zeros(0))
    assert out.shape == (0, 3) and out.dtype == np.int64


# == flatten / unflatten properties ===========================================================


@SETTINGS
@given(st.integers(1, 8), st.integers(-5, 5), st.integers(-(2**62), 2**62))
def test_out_of_range_discrete_values_always_raise(n: int, start: int, value: int) -> None:
    space = Discrete(n, start=start)
    if start <= value < start + n:
        out = flatten(space, value)
        assert out.tolist() == [1.0 if i == value - start else 0.0 for i in range(n)]
        assert unflatten(space, out) == value
    else:
        with pytest.raises(ValueError, match=f"got {value} "):
            flatten(space, value)


@SETTINGS
@given(
    st.integers(-5, 5),
    hnp.arrays(st.sampled_from([np.float16, np.float32, np.float64]), st.integers(1, 6)),
)
def test_unflatten_discrete_is_always_the_argmax(start: int, vector: np.ndarray) -> None:
    space = Discrete(vector.size, start=start)
    out = unflatten(space, vector)
    assert out == int(np.argmax(vector)) + start and out in space


@SETTINGS
@given(
    hnp.arrays(np.int64, st.integers(1, 4), elements=st.integers(1, 4)),
    st.integers(-3, 3),
    st.data(),
)
def test_unflatten_multi_discrete_is_always_the_blockwise_argmax(
    nvec: np.ndarray, start: int, data: st.DataObject
) -> None:
    space = MultiDiscrete(nvec, start=np.full(nvec.shape, start))
    vector = data.draw(hnp.arrays(np.float64, (int(nvec.sum()),), elements=st.floats()))
    ends = np.cumsum(nvec)
    blocks = np.split(vector, ends[:-1])
    expected = [int(np.argmax(block)) + start for block in blocks]
    out = unflatten(space, vector)
    assert out.tolist() == expected and out in space


@st.composite
def multi_discrete_and_bad_value(draw: st.DrawFn) -> tuple[MultiDiscrete, np.ndarray, tuple]:
    shape = draw(st.sampled_from([(1,), (3,), (2, 2)]))
    nvec = draw(hnp.arrays(np.int64, shape, elements=st.integers(1, 4)))
    start = draw(hnp.arrays(np.int64, shape, elements=st.integers(-3, 3)))
    space = MultiDiscrete(nvec, start=start)
    space.seed(draw(st.integers(0, 2**32 - 1)))
    value = space.sample()
    entry = draw(st.sampled_from(list(np.ndindex(shape))))
    above = draw(st.booleans())
    shift = draw(st.integers(0, 100))
    value[entry] = start[entry] + nvec[entry] + shift if above else start[entry] - 1 - shift
    return space, value, entry


@SETTINGS
@given(multi_discrete_and_bad_value())
def test_out_of_range_multi_discrete_entries_always_raise(case: tuple) -> None:
    space, value, entry = case
    with pytest.raises(ValueError, match=rf"needs entry {re_tuple(entry)} in"):
        flatten(space, value)


def re_tuple(entry: tuple[int, ...]) -> str:
    return "\\(" + ", ".join(str(int(v)) for v in entry) + (",\\)" if len(entry) == 1 else "\\)")


@SETTINGS
@given(
    st.sampled_from([(), (1,), (3,), (2, 2)]),
    st.sampled_from([(), (2,), (4,), (1, 3), (2, 2, 1)]),
)
def test_box_shape_mismatch_always_raises(shape: tuple[int, ...], given_shape: tuple) -> None:
    space = Box(-1.0, 1.0, shape)
    value = np.zeros(given_shape)
    if given_shape == shape:
        assert flatten(space, value).shape == (math.prod(shape),)
    else:
        with pytest.raises(ValueError, match=rf"got shape {re.escape(str(given_shape))}"):
            flatten(space, value)


leaves = st.one_of(
    st.builds(Discrete, st.integers(1, 5), start=st.integers(-3, 3)),
    st.builds(
        lambda nvec, start: MultiDiscrete(nvec, start=start),
        st.just([2, 3, 1]),
        st.sampled_from([[0, 0, 0], [-1, 2, 5]]),
    ),
    st.builds(MultiBinary, st.integers(0, 3)),
    st.builds(Box, st.just(-2.0), st.just(3.0), st.sampled_from([(), (2,), (1, 2)])),
    st.builds(Box, st.just(-5), st.just(5), st.just((2,)), st.just(np.int16)),
)
flattenable = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.dictionaries(st.sampled_from("abc"), children, max_size=3).map(Dict),
        st.lists(children, max_size=3).map(Tuple),
    ),
    max_leaves=6,
)


@SETTINGS
@given(flattenable, st.integers(0, 2**32 - 1))
def test_flatten_unflatten_round_trip_of_samples(space: Space[Any], seed: int) -> None:
    space.seed(seed)
    x = space.sample()
    flat = flatten(space, x)
    assert flat.shape == (flatdim(space),) and flat.dtype == np.float32
    back = unflatten(space, flat)
    assert space.contains(back)
    np.testing.assert_array_equal(flatten(space, back), flat)


# == Box: integer bounds are rounded inwards ===================================================


@pytest.mark.parametrize(
    ("low", "high", "dtype", "expected"),
    [
        (0.5, 1.5, np.int64, "Box(1, 1, (), int64)"),
        (-1.5, -0.5, np.int64, "Box(-1, -1, (), int64)"),
        (-2.5, 2.5, np.int8, "Box(-2, 2, (), int8)"),
        (0.1, 254.9, np.uint8, "Box(1, 254, (), uint8)"),
        (np.float32(0.25), np.float32(3.75), np.int32, "Box(1, 3, (), int32)"),
        (0.0, 3.0, np.int8, "Box(0, 3, (), int8)"),
        (1, 4, np.int64, "Box(1, 4, (), int64)"),
    ],
)
def test_integer_box_rounds_fractional_bounds_inwards(
    low: Any, high: Any, dtype: Any, expected: str
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        space = Box(low, high, dtype=dtype)
    assert repr(space) == expected
    assert space.low.dtype == np.dtype(dtype)


def test_integer_box_rounds_array_bounds_per_entry() -> None:
    space = Box(np.array([0.2, -3.7, 2.0]), np.array([5.9, 2.0, 2.5]), dtype=np.int16)
    assert space.low.tolist() == [1, -3, 2] and space.high.tolist() == [5, 2, 2]
    space.seed(0)
    for _ in range(20):
        x = space.sample()
        assert np.all(x >= [0.2, -3.7, 2.0]) and np.all(x <= [5.9, 2.0, 2.5])
    assert not space.contains(np.array([0, -3, 2], np.int16))
    assert space.contains(np.array([1, -3, 2], np.int16))


def test_integer_box_with_no_integer_in_its_bounds_is_refused() -> None:
    with pytest.raises(ValueError, match=r"after rounding the bounds inwards to int64 values"):
        Box(0.5, 0.7, dtype=np.int64)
    with pytest.raises(ValueError, match="rounding the bounds inwards"):
        Box([0.0, 1.2], [1.0, 1.8], dtype=np.int32)
    with pytest.raises(ValueError, match="rounding the bounds inwards"):
        MaskedBox(2.1, 2.9, (2,), max_size=1, dtype=np.int8)
    # Whole-number bounds in the wrong order keep the plain message.
    with pytest.raises(ValueError) as info:
        Box(3.0, 1.0, dtype=np.int64)
    assert "rounding" not in str(info.value) and "low must be <= high" in str(info.value)


def test_integer_box_infinite_bounds_keep_the_dtype_limits() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(Box(-np.inf, np.inf, (2,), np.int8)) == "Box(-128, 127, (2,), int8)"
        assert repr(Box(-np.inf, 2.5, (2,), np.int8)) == "Box(-128, 2, (2,), int8)"
        assert repr(Box(0.5, np.inf, (), np.uint16)) == "Box(1, 65535, (), uint16)"


def test_integer_box_out_of_range_bounds_still_clip_with_a_warning() -> None:
    with pytest.warns(UserWarning, match="uint8"):
        space = Box(-300.5, 3.5, dtype=np.uint8)
    assert repr(space) == "Box(0, 3, (), uint8)"


def test_float_box_bounds_are_not_rounded() -> None:
    space = Box(0.5, 1.5, dtype=np.float32)
    assert repr(space) == "Box(0.5, 1.5, (), float32)"


def test_masked_box_integer_bounds_round_inwards() -> None:
    space = MaskedBox(0.5, 3.5, (2,), max_size=2, dtype=np.int16)
    assert repr(space) == "MaskedBox(1, 3, (2,), max_size=2, int16, fill_value=1)"
    assert space.fill_value.tolist() == [1, 1]


@SETTINGS
@given(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(0, 10, allow_nan=False),
    st.sampled_from([np.int32, np.int64]),
)
def test_integer_box_never_widens_its_bounds(low: float, width: float, dtype: Any) -> None:
    high = low + width
    lo, hi = math.ceil(low), math.floor(high)
    if lo > hi:
        with pytest.raises(ValueError, match="rounding the bounds inwards"):
            Box(low, high, dtype=dtype)
        return
    space = Box(low, high, dtype=dtype)
    assert int(space.low) == lo and int(space.high) == hi
    assert low <= int(space.low) and int(space.high) <= high


# == JSON round trip of zero-size spaces =======================================================

ZERO_SIZE_SHAPES = [(0,), (0, 1), (1, 0), (2, 0), (0, 0), (0, 0, 3), (3, 0, 2)]
DTYPES = [np.float32, np.float64, np.int8, np.uint8, np.int64, np.uint64, np.bool_]


@pytest.mark.parametrize("shape", ZERO_SIZE_SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_zero_size_box_json_round_trip(shape: tuple[int, ...], dtype: Any) -> None:
    space = Box(0, 1, shape, dtype)
    restored = round_trip_json(space)
    assert restored == space
    assert restored.shape == shape and restored.dtype == np.dtype(dtype)
    assert restored.low.shape == shape and restored.high.shape == shape
    assert repr(restored) == f"Box([], [], {shape}, {np.dtype(dtype)})"


@pytest.mark.parametrize("shape", [(0,), (0, 2), (2, 0, 1)])
def test_zero_size_masked_box_json_round_trip(shape: tuple[int, ...]) -> None:
    space = MaskedBox(-1.0, 1.0, shape, max_size=2)
    restored = round_trip_json(space)
    assert restored == space and isinstance(restored, MaskedBox)
    assert restored.element_shape == shape and restored.fill_value.shape == shape
    int_space = MaskedBox(0, 5, shape, max_size=1, dtype=np.int16)
    assert round_trip_json(int_space) == int_space


def test_zero_size_boxes_inside_composites_round_trip() -> None:
    space = Dict(
        empty=Box(0, 1, (0, 1)),
        pair=Tuple([Box(-1, 1, (2, 0, 3), np.int8), Discrete(2)]),
        seq=Sequence(Box(0.0, 1.0, (0, 4)), max_length=2, stack=True),
    )
    assert round_trip_json(space) == space


@pytest.mark.parametrize("nvec_shape", [(0,), (2, 0)])
def test_zero_size_multi_discrete_and_multi_binary_json_round_trip(nvec_shape: tuple) -> None:
    md = MultiDiscrete(np.ones(nvec_shape, np.int64), dtype=np.int8)
    assert round_trip_json(md) == md and round_trip_json(md).shape == nvec_shape
    mb = MultiBinary(nvec_shape)
    assert round_trip_json(mb) == mb


def test_box_json_with_values_for_a_zero_size_shape_is_still_refused() -> None:
    data = {
        "type": "Box",
        "low": [1.0, 2.0],
        "high": [3.0, 4.0],
        "shape": [0, 3],
        "dtype": "float32",
    }
    with pytest.raises(ValueError, match="broadcast"):
        space_from_jsonable(data)


def test_non_empty_box_json_round_trip_is_unchanged() -> None:
    space = Box(np.array([[0.0, -1.5]]), np.array([[1.0, np.inf]]), dtype=np.float64)
    assert round_trip_json(space) == space
    exact = Box(2**63 + 1, 2**64 - 1, (2,), np.uint64)
    assert round_trip_json(exact).low.tolist() == [2**63 + 1, 2**63 + 1]
