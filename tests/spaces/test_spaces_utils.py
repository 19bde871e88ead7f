"""Tests for sekai.spaces.utils and the Space base class contract."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

import sekai.spaces
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
    batch_space,
    concatenate,
    flatdim,
    flatten,
    flatten_space,
    iterate,
    register_space_type,
    space_from_jsonable,
    unflatten,
    zero_sample,
)


class Custom(Space[int]):
    """A user space with no registrations."""

    def sample(self, mask: Any = None) -> int:
        return 0

    def contains(self, x: Any) -> bool:
        return x == 0

    @property
    def is_flattenable(self) -> bool:
        return False


def test_a_user_space_shape_follows_the_int_rule() -> None:
    space = Custom((2.0, np.int64(3)), np.int64)
    assert space.shape == (2, 3) and all(type(d) is int for d in space.shape)
    for bad in ((2.5,), (True,), ("2",), 3):
        with pytest.raises(TypeError, match="Custom shape must be a tuple of ints"):
            Custom(bad, np.int64)
    with pytest.raises(ValueError, match="Custom shape must have non-negative entries"):
        Custom((-1,), np.int64)


def test_exports() -> None:
    assert sekai.spaces.__all__ == [
        "Space", "Box", "Discrete", "MultiDiscrete", "MultiBinary", "Dict", "Tuple", "Sequence",
        "MaskedBox", "flatdim", "flatten", "unflatten", "flatten_space", "batch_space",
        "concatenate", "iterate", "space_from_jsonable", "register_space_type", "zero_sample",
    ]  # fmt: skip
    assert sekai.spaces.utils.flatdim is flatdim


def test_user_space_base_behaviour() -> None:
    a, b = Custom(), Custom()
    assert a != b and a == a
    assert len({a, b}) == 2
    assert repr(a) == "Custom()"
    assert 0 in a
    with pytest.raises(NotImplementedError, match="Custom"):
        a.to_jsonable()
    with pytest.raises(NotImplementedError, match="Custom"):
        Custom.from_jsonable({})


def test_flatdim() -> None:
    assert flatdim(Box(0.0, 1.0, (2, 3))) == 6
    assert flatdim(Box(0.0, 1.0, ())) == 1
    assert flatdim(Discrete(4)) == 4
    assert flatdim(MultiDiscrete([[2, 3], [4, 5]])) == 14
    assert flatdim(MultiBinary((2, 3))) == 6
    assert flatdim(Dict(a=Discrete(2), b=Tuple([Box(0.0, 1.0, (3,)), MultiBinary(2)]))) == 7
    assert flatdim(Tuple([])) == 0
    with pytest.raises(NotImplementedError, match="Custom"):
        flatdim(Custom())


def test_flatten() -> None:
    np.testing.assert_array_equal(flatten(Discrete(3, start=-1), 0), [0, 1, 0])
    md = MultiDiscrete([[2, 3]], start=[[1, 0]])
    np.testing.assert_array_equal(flatten(md, np.array([[2, 1]])), [0, 1, 0, 1, 0])
    box = flatten(Box(0, 5, (2, 2), np.int64), np.array([[1, 2], [3, 4]]))
    assert box.dtype == np.float32
    np.testing.assert_array_equal(box, [1, 2, 3, 4])
    composite = Dict(b=MultiBinary(2), a=Discrete(2))
    np.testing.assert_array_equal(flatten(composite, {"a": 1, "b": np.array([1, 0])}), [1, 0, 0, 1])
    empty = flatten(Tuple([]), ())
    assert empty.dtype == np.float32 and empty.shape == (0,)
    with pytest.raises(NotImplementedError):
        flatten(Custom(), 0)


def test_unflatten_simple() -> None:
    assert unflatten(Discrete(3, start=-1), np.array([0.0, 0.0, 1.0])) == 1
    assert type(unflatten(Discrete(3), np.array([1.0, 0, 0]))) is np.intp
    md = unflatten(
        MultiDiscrete([2, 3], dtype=np.int8, start=[1, 0]), np.array([0.0, 1.0, 0.0, 0.0, 1.0])
    )
    assert md.dtype == np.int8
    np.testing.assert_array_equal(md, [2, 2])
    mb = unflatten(MultiBinary(3), np.array([0.0, 1.0, 0.0]))
    assert mb.dtype == np.int8
    np.testing.assert_array_equal(mb, [0, 1, 0])
    # Soft scores decode too: the argmax of each one-hot block (plus start), flags above 0.5.
    assert unflatten(Discrete(3, start=-1), np.array([0.1, 0.2, 0.9])) == 1
    soft = unflatten(MultiDiscrete([2, 3], start=[1, 0]), np.array([0.0, 1.0, 0.2, 0.1, 0.9]))
    np.testing.assert_array_equal(soft, [2, 2])
    np.testing.assert_array_equal(unflatten(MultiBinary(3), np.array([0.2, 0.6, 0.5])), [0, 1, 0])
    with pytest.raises(ValueError, match="shape"):
        unflatten(Discrete(3), np.zeros(4))
    with pytest.raises(NotImplementedError):
        unflatten(Custom(), np.zeros(1))


def test_unflatten_float_box_casts_then_clips() -> None:
    space = Box(0.0, 0.1, (3,))
    out = unflatten(space, np.array([0.1, 5.0, -1.0]))
    assert out.dtype == np.float32 and out in space
    np.testing.assert_array_equal(out, np.array([0.1, 0.1, 0.0], np.float32))
    assert unflatten(Box(-np.inf, np.inf, (1,)), np.array([1e300])) in Box(-np.inf, np.inf, (1,))
    assert unflatten(space, np.array([np.nan, 0.05, 0.0])) in space


def test_unflatten_integer_box() -> None:
    u8 = Box(0, 255, (3,), np.uint8)
    np.testing.assert_array_equal(unflatten(u8, np.array([-5, 300, 7], np.int64)), [0, 255, 7])
    i64 = Box(-(2**63), 2**63 - 1, (2,), np.int64)
    out = unflatten(i64, np.array([2**64 - 1, 5], np.uint64))
    assert out.dtype == np.int64 and out.tolist() == [2**63 - 1, 5]
    out = unflatten(i64, np.array([1e30, -1e30]))
    assert out.tolist() == [2**63 - 1, -(2**63)]
    u64 = Box(0, 2**64 - 1, (2,), np.uint64)
    assert unflatten(u64, np.array([1e30, -3.0])).tolist() == [2**64 - 1, 0]
    small = Box(-3, 3, (4,), np.int16)
    out = unflatten(small, np.array([2.6, -2.4, np.nan, np.inf]))
    assert out.dtype == np.int16 and out.tolist() == [3, -2, 0, 3]
    shifted = Box(2, 4, (1,), np.int64)
    assert unflatten(shifted, np.array([np.nan])).tolist() == [2]


def test_flatten_space() -> None:
    assert flatten_space(Box(0, 5, (2, 2), np.int64)) == Box(0.0, 5.0, (4,), np.float32)
    assert flatten_space(Discrete(3)) == Box(0, 1, (3,), np.float32)
    assert flatten_space(MultiDiscrete([2, 3])) == Box(0, 1, (5,), np.float32)
    assert flatten_space(MultiBinary((2, 2))) == Box(0, 1, (4,), np.float32)
    space = flatten_space(Tuple([Box(-1.0, 2.0, (2,)), Discrete(2)]))
    assert space == Box([-1.0, -1.0, 0.0, 0.0], [2.0, 2.0, 1.0, 1.0], dtype=np.float32)
    assert repr(flatten_space(Dict())) == "Box([], [], (0,), float32)"
    with pytest.raises(NotImplementedError):
        flatten_space(Custom())


def test_batch_space() -> None:
    box = batch_space(Box([0.0, 1.0], [1.0, 2.0], dtype=np.float64), 3)
    assert isinstance(box, Box)
    assert box.shape == (3, 2) and box.dtype == np.float64
    np.testing.assert_array_equal(box.low, [[0.0, 1.0]] * 3)
    assert batch_space(Discrete(3, start=1), 2) == MultiDiscrete([3, 3], start=[1, 1])
    assert repr(batch_space(Discrete(2), 4)) == "MultiDiscrete([2, 2, 2, 2])"
    assert repr(batch_space(Discrete(10), 2)) == "MultiDiscrete([10, 10])"
    md = batch_space(MultiDiscrete([2, 3], dtype=np.int8, start=[0, 1]), 2)
    assert md == MultiDiscrete([[2, 3], [2, 3]], dtype=np.int8, start=[[0, 1], [0, 1]])
    assert batch_space(MultiBinary((2, 3)), 4) == MultiBinary((4, 2, 3))
    nested = batch_space(Dict(a=Tuple([Discrete(2)]), b=Dict()), 2)
    assert nested == Dict(a=Tuple([MultiDiscrete([2, 2])]), b=Dict())
    with pytest.raises(NotImplementedError):
        batch_space(Custom(), 2)
    with pytest.raises(ValueError, match="n must be"):
        batch_space(Discrete(2), -1)
    with pytest.raises(TypeError, match="n must be"):
        batch_space(Box(0.0, 1.0), 2.5)  # type: ignore[arg-type]
    assert batch_space(Box(0.0, 1.0), 2.0) == batch_space(Box(0.0, 1.0), 2)  # type: ignore[arg-type]


def test_concatenate_and_default() -> None:
    stacked = concatenate(Box(0.0, 1.0, (2,)), [np.zeros(2, np.float32), np.ones(2, np.float32)])
    assert stacked.shape == (2, 2) and stacked.dtype == np.float32
    discrete = concatenate(Discrete(3), [np.intp(1), np.intp(2)])
    assert discrete.tolist() == [1, 2]
    assert concatenate(Custom(), iter([0, 0])) == [0, 0]
    assert concatenate(Sequence(Discrete(2)), [(1,), ()]) == ((1,), ())
    tup = concatenate(Tuple([Discrete(2), Discrete(3)]), [(0, 1), (1, 2)])
    assert isinstance(tup, tuple) and tup[1].tolist() == [1, 2]


def test_iterate() -> None:
    rows = list(iterate(Box(0.0, 1.0, (2,)), np.arange(6.0).reshape(3, 2)))
    assert len(rows) == 3 and rows[2].tolist() == [4.0, 5.0]
    assert list(iterate(Custom(), [0, 0])) == [0, 0]
    space = Dict(a=Discrete(3), e=Dict(), t=Tuple([Dict()]))
    out = list(iterate(space, {"a": np.array([1, 2]), "e": {}, "t": ({},)}))
    assert out == [{"a": 1, "e": {}, "t": ({},)}, {"a": 2, "e": {}, "t": ({},)}]
    per_env = [{"a": 1, "e": {}, "t": ({},)}]
    assert list(iterate(space, per_env)) == per_env
    tup = Tuple([Discrete(3), Discrete(3)])
    assert list(iterate(tup, [(0, 1), (2, 0)])) == [(0, 1), (2, 0)]
    assert [tuple(map(int, r)) for r in iterate(tup, (np.array([0, 2]), np.array([1, 0])))] == [
        (0, 1),
        (2, 0),
    ]


def test_iterate_errors() -> None:
    space = Dict(a=Discrete(3), b=Discrete(3))
    with pytest.raises(ValueError, match="different numbers"):
        list(iterate(space, {"a": np.array([1, 2]), "b": np.array([1])}))
    with pytest.raises(ValueError, match="no sub-space holding data"):
        list(iterate(Dict(a=Dict()), {"a": {}}))
    with pytest.raises(ValueError, match="no sub-space holding data"):
        list(iterate(Tuple([Tuple([])]), ((),)))


def test_zero_sample() -> None:
    np.testing.assert_array_equal(zero_sample(Box(1.0, 2.0, (2,))), [1.0, 1.0])
    zero = zero_sample(Discrete(3, start=2))
    assert zero == 2 and type(zero) is np.intp
    md = zero_sample(MultiDiscrete([2, 3], dtype=np.int16, start=[1, 2]))
    assert md.dtype == np.int16 and md.tolist() == [1, 2]
    mb = zero_sample(MultiBinary(2))
    assert mb.dtype == np.int8 and mb.tolist() == [0, 0]
    assert zero_sample(Dict(a=Tuple([Discrete(2)]))) == {"a": (0,)}
    masked = MaskedBox(0.0, 1.0, (2,), max_size=2, fill_value=0.5)
    np.testing.assert_array_equal(zero_sample(masked)["values"], np.full((2, 2), 0.5))
    assert zero_sample(Sequence(Discrete(2))) == ()
    assert zero_sample(Sequence(Discrete(2), stack=True)).shape == (0,)
    with pytest.raises(TypeError, match="Custom"):
        zero_sample(Custom())


def test_registration_of_custom_space() -> None:
    class Point(Space[int]):
        def sample(self, mask: Any = None) -> int:
            return 1

        def contains(self, x: Any) -> bool:
            return x == 1

        @property
        def is_flattenable(self) -> bool:
            return True

        def to_jsonable(self) -> dict[str, Any]:
            return {"type": "Point"}

        @classmethod
        def from_jsonable(cls, data: Mapping[str, Any]) -> Point:
            return cls()

    flatdim.register(Point, lambda space: 1)
    assert flatdim(Tuple([Point(), Discrete(2)])) == 3
    register_space_type("Point", Point)
    assert isinstance(space_from_jsonable({"type": "Point"}), Point)
    with pytest.raises(TypeError):
        register_space_type("Bad", int)  # type: ignore[arg-type]


def test_space_from_jsonable() -> None:
    data = json.loads(json.dumps(Dict(a=Discrete(2), b=Sequence(Box(0.0, 1.0))).to_jsonable()))
    assert space_from_jsonable(data) == Dict(a=Discrete(2), b=Sequence(Box(0.0, 1.0)))
    with pytest.raises(ValueError, match=r"^Unknown space type") as info:
        space_from_jsonable({"type": "Nope"})
    assert "MaskedBox" in str(info.value)
    with pytest.raises(ValueError, match=r"^Unknown space type"):
        space_from_jsonable({})
    with pytest.raises(TypeError):
        space_from_jsonable([1])  # type: ignore[arg-type]
