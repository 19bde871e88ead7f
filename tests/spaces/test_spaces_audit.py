"""Regression tests from a line-by-line audit of ``sekai.spaces`` against the API spec (§4)."""

from __future__ import annotations

import enum
import json
import warnings

import numpy as np
import pytest

from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    MultiDiscrete,
    Sequence,
    Tuple,
    batch_space,
    flatten,
    flatten_space,
    iterate,
    space_from_jsonable,
    unflatten,
)

# -- unflatten: integer Box from float input saturates at the *exact* bounds -------------------


def test_unflatten_integer_box_float_input_does_not_snap_to_unrepresentable_bound() -> None:
    # 2**53 + 1 has no float64; float(high) rounds down to 2**53, which is inside the bounds.
    edge = 2**53 + 1
    space = Box(-edge, edge, (4,), np.int64)
    out = unflatten(space, np.array([2.0**53, -(2.0**53), 2.0**53 + 2, -(2.0**53) - 2]))
    assert out.dtype == np.int64
    assert out.tolist() == [2**53, -(2**53), edge, -edge]
    assert out in space


def test_unflatten_integer_box_float_input_saturates_at_dtype_limits() -> None:
    space = Box(-np.inf, np.inf, (4,), np.int64)
    out = unflatten(space, np.array([2.0**63, -(2.0**63), 2.0**63 - 1024, np.inf]))
    assert out.tolist() == [2**63 - 1, -(2**63), 2**63 - 1024, 2**63 - 1]
    u64 = Box(3, 2**64 - 2, (3,), np.uint64)
    assert unflatten(u64, np.array([2.0**64, 2.0**64 - 4096, -1.0])).tolist() == [
        2**64 - 2,
        2**64 - 4096,
        3,
    ]


def test_unflatten_integer_box_float_input_rounds_then_clips() -> None:
    space = Box([0, -3], [10, 3], None, np.int8)
    assert unflatten(space, np.array([2.5, 3.5])).tolist() == [2, 3]
    assert unflatten(space, np.array([10.4, -3.6])).tolist() == [10, -3]
    assert unflatten(space, np.array([np.nan, -np.inf])).tolist() == [0, -3]


# -- flatten_space: float64 bounds beyond float32 ---------------------------------------------


def test_flatten_space_of_wide_float64_box_emits_no_overflow_warning() -> None:
    space = Box(-1e300, 1e300, (2,), np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flat = flatten_space(space)
        value = flatten(space, np.array([1e299, -5.0]))
    assert flat == Box(-np.inf, np.inf, (2,), np.float32)
    assert value in flat


# -- iterate: Dict/Tuple errors surface on the call itself ------------------------------------


def test_iterate_composite_errors_raised_by_the_call() -> None:
    space = Dict(a=Discrete(3), b=Discrete(3))
    with pytest.raises(ValueError, match="different numbers"):
        iterate(space, {"a": np.array([1, 2]), "b": np.array([1])})
    with pytest.raises(ValueError, match="no sub-space holding data"):
        iterate(Dict(e=Dict()), {"e": {}})
    with pytest.raises(ValueError, match="different numbers"):
        iterate(Tuple([Discrete(2), Discrete(2)]), (np.array([0]), np.array([0, 1])))
    with pytest.raises(ValueError, match="no sub-space holding data"):
        iterate(Tuple([Tuple([])]), ((),))


def test_iterate_composite_rows_and_pass_through() -> None:
    space = Dict(a=Discrete(3), e=Dict(), t=Tuple([]))
    rows = list(iterate(space, {"a": np.array([1, 2]), "e": {}, "t": ()}))
    assert rows == [{"a": 1, "e": {}, "t": ()}, {"a": 2, "e": {}, "t": ()}]
    per_env = [{"a": 0, "e": {}, "t": ()}]
    assert list(iterate(space, per_env)) == per_env  # a non-Mapping batch is iterated as-is
    tup = Tuple([Discrete(3)])
    assert list(iterate(tup, [(1,), (2,)])) == [(1,), (2,)]  # a list is per-env samples


# -- space_from_jsonable: any unknown "type" is a ValueError ----------------------------------


@pytest.mark.parametrize("kind", [["Box"], {"a": 1}, None, 3, "Nope"])
def test_space_from_jsonable_unknown_type_of_any_kind(kind: object) -> None:
    with pytest.raises(ValueError, match=r"^Unknown space type") as info:
        space_from_jsonable({"type": kind})
    for name in ("Box", "Discrete", "MultiDiscrete", "MultiBinary", "Dict", "Tuple"):
        assert name in str(info.value)
    assert "Sequence" in str(info.value) and "MaskedBox" in str(info.value)


# -- Discrete.contains: Python int subclasses are Python integers -----------------------------


class _Action(enum.IntEnum):
    LEFT = 0
    RIGHT = 1
    FAR = 7


def test_discrete_contains_int_subclasses_but_not_bools() -> None:
    space = Discrete(2)
    assert _Action.LEFT in space and _Action.RIGHT in space
    assert _Action.FAR not in space
    assert True not in space and np.True_ not in space
    assert 1.0 not in space and np.array([1]) not in space
    assert np.array(1) in space and np.uint8(1) in space


# -- Box sampling: the fast paths keep the documented per-group draw order ---------------------


def _reference_unbounded(space: Box, rng: np.random.Generator) -> np.ndarray:
    lf, hf = np.isfinite(space.low), np.isfinite(space.high)
    out = np.empty(space.shape)
    out[lf & hf] = rng.uniform(space.low[lf & hf], space.high[lf & hf])
    out[lf & ~hf] = space.low[lf & ~hf] + rng.exponential(size=int((lf & ~hf).sum()))
    out[~lf & hf] = space.high[~lf & hf] - rng.exponential(size=int((~lf & hf).sum()))
    out[~lf & ~hf] = rng.standard_normal(size=int((~lf & ~hf).sum()))
    return out.astype(space.dtype)


@pytest.mark.parametrize(
    "low, high",
    [
        ([-np.inf, -np.inf], [np.inf, np.inf]),
        ([0.0, -np.inf, -1.0, -np.inf], [1.0, 2.0, np.inf, np.inf]),
        ([0.0, 1.0], [np.inf, np.inf]),
        ([-np.inf], [3.0]),
    ],
)
def test_box_partly_unbounded_sample_stream(low: list[float], high: list[float]) -> None:
    space = Box(low, high, None, np.float64, seed=5)
    rng = np.random.default_rng(5)
    for _ in range(3):
        np.testing.assert_array_equal(space.sample(), _reference_unbounded(space, rng))
    scalar = Box(-np.inf, np.inf, (), np.float32, seed=1)
    sample = scalar.sample()
    assert isinstance(sample, np.ndarray) and sample.shape == () and sample.dtype == np.float32


def test_box_sample_mask_drawn_first_then_masked() -> None:
    space = Box(1.0, 2.0, (3,), seed=0)
    twin = Box(1.0, 2.0, (3,), seed=0)
    full = twin.sample()
    masked = space.sample(mask=np.array([1, 0, 1]))
    np.testing.assert_array_equal(masked, np.where([True, False, True], full, 1.0))
    assert masked.dtype == np.float32
    assert space.sample() == pytest.approx(twin.sample())


# -- Spec pins that the audit checked and found already right ---------------------------------


def test_spec_pins_exact_strings() -> None:
    with pytest.raises(ValueError, match=r"dimension \(0, 1\)"):
        MultiDiscrete([[2, 3], [4, 5]]).sample(mask=(([1, 1],), ([1] * 4, [1] * 5)))
    with pytest.raises(ValueError, match="3 seeds"):
        Tuple([Discrete(2), Discrete(2)]).seed([1, 2, 3])
    with pytest.raises(ValueError, match="not keys"):
        Dict(a=Discrete(2)).seed({"b": 1})
    assert repr(MultiDiscrete([2, 3], start=[1, 0])) == "MultiDiscrete([2, 3], start=[1, 0])"
    assert repr(MultiBinary((2, 3))) == "MultiBinary((2, 3))"
    assert repr(Sequence(Discrete(2))) == "Sequence(Discrete(2))"
    fill = MaskedBox(0.0, 1.0, (2,), max_size=3, fill_value=[0.0, 1.0])
    assert repr(fill) == "MaskedBox(0.0, 1.0, (2,), max_size=3, float32, fill_value=[0.0, 1.0])"


def test_spec_pins_batch_space() -> None:
    batched = batch_space(Discrete(3, start=-1), 2)
    assert batched == MultiDiscrete([3, 3], dtype=np.int64, start=[-1, -1])
    masked = MaskedBox(0.0, 1.0, (2,), max_size=3)
    plain = batch_space(masked, 2)
    assert type(plain) is Dict
    assert plain["values"] == Box(0.0, 1.0, (2, 3, 2), np.float32)
    assert plain["mask"] == MultiBinary((2, 3))
    assert Dict(dict(masked.spaces)) != masked and masked != Dict(dict(masked.spaces))


def test_spec_pins_json_round_trip_with_numpy_ints() -> None:
    n = np.int64
    spaces = [
        Box(0, 2**64 - 1, (n(2),), np.uint64),
        Discrete(n(3), start=n(-2)),
        MultiDiscrete(np.array([[2, 3]]), dtype=np.int16, start=[[0, 1]]),
        MultiBinary(n(2)),
        MaskedBox(0, 5, (n(2),), max_size=n(3), dtype=np.int32, fill_value=5),
        Sequence(Tuple([Discrete(2)]), max_length=n(4), stack=True),
    ]
    for space in spaces:
        text = json.dumps(space.to_jsonable())
        assert space_from_jsonable(json.loads(text)) == space
