"""Space conversions between sekai and gymnasium: round trips, key order, errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sekai.compat import space_from_gymnasium, space_to_gymnasium
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
)

pytest.importorskip("gymnasium")
from gymnasium import spaces as gspaces

FLOAT_DTYPES = [np.float16, np.float32, np.float64]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16]
shapes = st.lists(st.integers(1, 3), max_size=3).map(tuple)


@st.composite
def boxes(draw: st.DrawFn, dtypes: list[Any] | None = None) -> Box:
    dtype = np.dtype(draw(st.sampled_from(dtypes or [*FLOAT_DTYPES, *INT_DTYPES, np.bool_])))
    shape = draw(shapes)
    if dtype.kind == "b":
        return Box(False, True, shape, dtype)
    lo_min = 0 if dtype.kind == "u" else -20
    low = np.array([draw(st.integers(lo_min, 20)) for _ in range(int(np.prod(shape)))])
    high = low + np.array([draw(st.integers(0, 20)) for _ in range(low.size)])
    low, high = low.reshape(shape).astype(np.float64), high.reshape(shape).astype(np.float64)
    if dtype.kind == "f" and low.size and draw(st.booleans()):
        low.reshape(-1)[0] = -np.inf
        high.reshape(-1)[-1] = np.inf
    return Box(low, high, shape, dtype)


discretes = st.builds(Discrete, st.integers(1, 8), start=st.integers(-5, 5))


@st.composite
def multi_discretes(draw: st.DrawFn) -> MultiDiscrete:
    shape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2).map(tuple))
    size = int(np.prod(shape))
    nvec = np.array([draw(st.integers(1, 5)) for _ in range(size)]).reshape(shape)
    start = np.array([draw(st.integers(-3, 3)) for _ in range(size)]).reshape(shape)
    dtype = draw(st.sampled_from([np.int64, np.int32, np.int8]))
    return MultiDiscrete(nvec, dtype, start=start)


multi_binaries = st.one_of(
    st.builds(MultiBinary, st.integers(1, 5)),
    st.builds(MultiBinary, st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple)),
)


@st.composite
def masked_boxes(draw: st.DrawFn) -> MaskedBox:
    element = draw(boxes(FLOAT_DTYPES))
    return MaskedBox(element.low, element.high, element.shape, max_size=draw(st.integers(1, 4)))


leaves = st.one_of(boxes(), discretes, multi_discretes(), multi_binaries)
keys = st.text("abcxyz", min_size=1, max_size=3)


def _containers(children: st.SearchStrategy[Space[Any]]) -> st.SearchStrategy[Space[Any]]:
    dicts = st.lists(st.tuples(keys, children), max_size=4, unique_by=lambda kv: kv[0]).map(
        lambda pairs: Dict(dict(pairs))
    )
    return st.one_of(dicts, st.lists(children, max_size=3).map(Tuple))


stackable = st.recursive(leaves, _containers, max_leaves=4)


def _holds_data(space: Space[Any]) -> bool:
    if isinstance(space, Dict):
        return any(_holds_data(s) for s in space.spaces.values())
    if isinstance(space, Tuple):
        return any(_holds_data(s) for s in space.spaces)
    return True


stacked_sequences = stackable.filter(_holds_data).map(lambda f: Sequence(f, stack=True))
unstacked_sequences = st.builds(
    Sequence, stackable | masked_boxes(), max_length=st.none() | st.integers(0, 4)
)
all_spaces = st.recursive(
    st.one_of(leaves, masked_boxes(), stacked_sequences, unstacked_sequences),
    _containers,
    max_leaves=6,
)


def _expected_round_trip(space: Space[Any]) -> Space[Any]:
    """``space`` as it comes back from gymnasium: MaskedBox as Dict, no Sequence max_length."""
    if isinstance(space, Dict):
        return Dict({k: _expected_round_trip(s) for k, s in space.spaces.items()})
    if isinstance(space, Tuple):
        return Tuple([_expected_round_trip(s) for s in space.spaces])
    if isinstance(space, Sequence):
        return Sequence(_expected_round_trip(space.feature_space), stack=space.stack)
    return space


def _key_orders(space: Space[Any], gspace: Any) -> None:
    if isinstance(space, Dict):
        assert list(gspace.spaces) == list(space.spaces)
        for key, sub in space.spaces.items():
            _key_orders(sub, gspace.spaces[key])
    elif isinstance(space, Tuple):
        for sub, gsub in zip(space.spaces, gspace.spaces, strict=True):
            _key_orders(sub, gsub)
    elif isinstance(space, Sequence):
        _key_orders(space.feature_space, gspace.feature_space)


@settings(max_examples=150, deadline=None)
@given(all_spaces)
def test_round_trip_gives_an_equal_space(space: Space[Any]) -> None:
    gspace = space_to_gymnasium(space)
    assert isinstance(gspace, gspaces.Space)
    _key_orders(space, gspace)
    back = space_from_gymnasium(gspace)
    assert back == _expected_round_trip(space)
    assert space_from_gymnasium(space_to_gymnasium(back)) == back


def _samples_fit(space: Space[Any]) -> bool:
    """Whether both libraries can sample ``space`` (bool Boxes cannot be sampled by sekai)."""
    if isinstance(space, Box):
        return space.dtype.kind != "b"
    if isinstance(space, Dict):
        return all(_samples_fit(s) for s in space.spaces.values())
    if isinstance(space, Tuple):
        return all(_samples_fit(s) for s in space.spaces)
    return True


@settings(max_examples=100, deadline=None)
@given(st.recursive(leaves, _containers, max_leaves=6).filter(_samples_fit), st.integers(0, 99))
def test_converted_spaces_hold_each_others_samples(space: Space[Any], seed: int) -> None:
    gspace = space_to_gymnasium(space)
    space.seed(seed)
    gspace.seed(seed)
    for _ in range(3):
        assert gspace.contains(space.sample())
        assert space.contains(gspace.sample())


def test_dict_key_order_is_kept_both_ways() -> None:
    space = Dict({"z": Discrete(2), "a": Discrete(3), "m": Box(0.0, 1.0, (2,))})
    gspace = space_to_gymnasium(space)
    assert list(gspace.spaces) == ["z", "a", "m"]
    back = space_from_gymnasium(gspace)
    assert isinstance(back, Dict) and list(back.spaces) == ["z", "a", "m"]
    # gymnasium sorts the keys of a mapping; the sekai Dict keeps the gymnasium order
    sorted_back = space_from_gymnasium(
        gspaces.Dict({"z": gspaces.Discrete(2), "a": gspaces.Discrete(3)})
    )
    assert isinstance(sorted_back, Dict) and list(sorted_back.spaces) == ["a", "z"]


def test_leaf_conversions() -> None:
    box = space_to_gymnasium(Box(0, 255, (2, 3), np.uint8))
    assert box == gspaces.Box(0, 255, (2, 3), np.uint8)
    assert space_to_gymnasium(Discrete(3, start=-1)) == gspaces.Discrete(3, start=-1)
    md = space_to_gymnasium(MultiDiscrete([2, 3], np.int32, start=[1, 0]))
    assert md.dtype == np.int32
    np.testing.assert_array_equal(md.nvec, [2, 3])
    np.testing.assert_array_equal(md.start, [1, 0])
    assert space_to_gymnasium(MultiBinary(3)).n == (3,)
    assert space_to_gymnasium(MultiBinary((2, 3))).n == (2, 3)
    seq = space_to_gymnasium(Sequence(Discrete(4), max_length=5, stack=True))
    assert isinstance(seq, gspaces.Sequence) and seq.stack
    assert seq.feature_space == gspaces.Discrete(4)


def test_gymnasium_leaves_convert_to_python_types() -> None:
    discrete = space_from_gymnasium(gspaces.Discrete(np.int64(4), start=np.int64(2)))
    assert isinstance(discrete, Discrete) and discrete == Discrete(4, start=2)
    assert type(discrete.n) is int and type(discrete.start) is int
    assert space_from_gymnasium(gspaces.MultiBinary(3)) == MultiBinary(3)
    assert space_from_gymnasium(gspaces.MultiBinary([2, 2])) == MultiBinary((2, 2))
    md = space_from_gymnasium(gspaces.MultiDiscrete([3, 4], dtype=np.int16, start=[0, -1]))
    assert md == MultiDiscrete([3, 4], np.int16, start=[0, -1])
    box = gspaces.Box(-1.0, 1.0, (3,), np.float64)
    assert space_from_gymnasium(box) == Box(-1.0, 1.0, (3,), np.float64)
    assert space_from_gymnasium(gspaces.Tuple([])) == Tuple([])
    assert space_from_gymnasium(gspaces.Dict()) == Dict()


def test_masked_box_becomes_its_dict_form() -> None:
    masked = MaskedBox(0.0, 1.0, (2,), max_size=3)
    gspace = space_to_gymnasium(masked)
    assert list(gspace.spaces) == ["values", "mask"]
    assert gspace["values"] == gspaces.Box(0.0, 1.0, (3, 2), np.float32)
    assert gspace["mask"] == gspaces.MultiBinary([3])
    back = space_from_gymnasium(gspace)
    assert type(back) is Dict and back != masked
    assert back == Dict({"values": Box(0.0, 1.0, (3, 2)), "mask": MultiBinary(3)})
    assert gspace.contains(masked.sample())


def test_unsupported_spaces_raise_type_error() -> None:
    class Custom(Discrete):
        pass

    class Odd(Space[int]):
        def sample(self, mask: Any = None) -> int:
            return 0

        def contains(self, x: Any) -> bool:
            return x == 0

        @property
        def is_flattenable(self) -> bool:
            return False

    assert space_to_gymnasium(Custom(2)) == gspaces.Discrete(2)  # subclasses convert as their base
    with pytest.raises(TypeError, match="No gymnasium equivalent"):
        space_to_gymnasium(Odd())
    with pytest.raises(TypeError, match="No gymnasium equivalent"):
        space_to_gymnasium(Dict({"ok": Discrete(2), "odd": Odd()}))
    for gspace in (gspaces.Text(5), gspaces.OneOf([gspaces.Discrete(2)])):
        with pytest.raises(TypeError, match="No sekai equivalent"):
            space_from_gymnasium(gspace)
