"""Tests for Dict, Tuple, Sequence and MaskedBox."""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from collections.abc import Iterator

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
    Space,
    Tuple,
    batch_space,
    flatdim,
    flatten,
    space_from_jsonable,
    unflatten,
)
from sekai.testing import assert_trees_equal
from sekai.utils.seeding import make_seed_sequence

# -- Dict -------------------------------------------------------------------------------------


def test_dict_merges_in_insertion_order() -> None:
    space = Dict({"b": Discrete(2), "a": Discrete(3)}, c=Discrete(4), a=Discrete(5))
    assert isinstance(space.spaces, OrderedDict)
    assert list(space.spaces) == ["b", "a", "c"]
    assert space["a"] == Discrete(5)
    assert space.shape is None and space.dtype is None
    assert len(space) == 3


def test_dict_views_are_iterators() -> None:
    space = Dict(a=Discrete(2), b=Discrete(3))
    for view in (space.keys(), space.values(), space.items()):
        assert isinstance(view, Iterator)
    assert list(space.keys()) == ["a", "b"]
    assert list(space.values()) == [Discrete(2), Discrete(3)]
    assert list(space.items()) == [("a", Discrete(2)), ("b", Discrete(3))]
    space["c"] = MultiBinary(2)
    assert list(space) == ["a", "b", "c"]
    with pytest.raises(TypeError, match="'d'"):
        space["d"] = 3  # type: ignore[assignment]


def test_dict_bad_arguments() -> None:
    with pytest.raises(TypeError, match="spaces"):
        Dict([Discrete(2)])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'a'"):
        Dict({"a": 3})  # type: ignore[dict-item]


def test_dict_sample_and_mask() -> None:
    space = Dict(a=Discrete(3), b=Box(0.0, 1.0, (2,)), seed=0)
    sample = space.sample()
    assert list(sample) == ["a", "b"] and sample in space
    masked = [space.sample(mask={"a": np.array([0, 0, 1], np.int8)}) for _ in range(20)]
    assert all(m["a"] == 2 and m in space for m in masked)
    with pytest.raises(ValueError, match="not keys"):
        space.sample(mask={"z": None})
    with pytest.raises(TypeError, match="mask"):
        space.sample(mask=[None, None])


def test_dict_contains() -> None:
    space = Dict(a=Discrete(3), b=Discrete(2))
    assert {"a": 1, "b": 0} in space
    assert {"b": 0, "a": 1} in space
    assert {"a": 1} not in space
    assert {"a": 1, "b": 0, "c": 0} not in space
    assert {"a": 3, "b": 0} not in space
    assert OrderedDict(a=1, b=0) in space
    assert [1, 0] not in space


def test_dict_seeding() -> None:
    a = Dict(x=Discrete(1000), y=Box(0.0, 1.0, (3,)), seed=42)
    b = Dict(x=Discrete(1000), y=Box(0.0, 1.0, (3,)))
    assert b.seed(42) == 42
    for _ in range(5):
        sa, sb = a.sample(), b.sample()
        assert sa["x"] == sb["x"]
        np.testing.assert_array_equal(sa["y"], sb["y"])
    assert a.seed(None) >= 0


def test_dict_seed_mapping() -> None:
    space = Dict(x=Discrete(1000), y=Discrete(1000))
    space.seed(1)
    y_first = space["y"].sample()
    space.seed(1)
    assert space.seed({"x": 7, "y": None}) == -1
    assert space["y"].sample() == y_first
    assert space["x"].sample() == Discrete(1000, seed=7).sample()
    with pytest.raises(ValueError, match="not keys"):
        space.seed({"z": 1})
    seeded = Dict(x=Discrete(1000), seed={"x": 7})
    assert seeded["x"].sample() == Discrete(1000, seed=7).sample()


def test_dict_repr_json_eq() -> None:
    space = Dict({"a": Discrete(2), "b": Box(0.0, 1.0, (2,))})
    assert repr(space) == "Dict({a: Discrete(2), b: Box(0.0, 1.0, (2,), float32)})"
    assert repr(Dict()) == "Dict({})"
    assert space.to_jsonable() == {
        "type": "Dict",
        "spaces": {"a": Discrete(2).to_jsonable(), "b": Box(0.0, 1.0, (2,)).to_jsonable()},
    }
    assert Dict.from_jsonable(json.loads(json.dumps(space.to_jsonable()))) == space
    assert space != Dict({"b": Box(0.0, 1.0, (2,)), "a": Discrete(2)})
    assert space != Tuple([Discrete(2), Box(0.0, 1.0, (2,))])
    with pytest.raises(TypeError):
        hash(space)


def test_dict_is_flattenable() -> None:
    assert Dict(a=Discrete(2)).is_flattenable
    assert not Dict(a=Sequence(Discrete(2))).is_flattenable


# -- Tuple ------------------------------------------------------------------------------------


def test_tuple_basics() -> None:
    space = Tuple([Discrete(2), MultiBinary(2)])
    assert space.spaces == (Discrete(2), MultiBinary(2))
    assert space[1] == MultiBinary(2) and len(space) == 2
    assert list(space) == [Discrete(2), MultiBinary(2)]
    assert repr(space) == "Tuple(Discrete(2), MultiBinary(2))"
    assert repr(Tuple([])) == "Tuple()"
    assert space == Tuple((Discrete(2), MultiBinary(2)))
    assert space != Tuple([Discrete(2)])
    assert space.to_jsonable() == {
        "type": "Tuple",
        "spaces": [Discrete(2).to_jsonable(), MultiBinary(2).to_jsonable()],
    }
    assert Tuple.from_jsonable(json.loads(json.dumps(space.to_jsonable()))) == space
    with pytest.raises(TypeError):
        hash(space)


def test_tuple_bad_arguments() -> None:
    with pytest.raises(TypeError, match="spaces"):
        Tuple(Discrete(2))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"spaces\[1\]"):
        Tuple([Discrete(2), 5])  # type: ignore[list-item]


def test_tuple_contains() -> None:
    space = Tuple([Discrete(2), Discrete(3)])
    assert (1, 2) in space and [1, 2] in space
    assert (1,) not in space and (1, 3) not in space
    assert np.array([1, 2]) not in space


def test_tuple_sample_mask() -> None:
    space = Tuple([Discrete(3), Discrete(3)], seed=0)
    samples = [space.sample(mask=(np.array([0, 1, 0], np.int8), None)) for _ in range(20)]
    assert all(s[0] == 1 and s in space for s in samples)
    with pytest.raises(ValueError, match="one mask per sub-space"):
        space.sample(mask=(None,))


def test_tuple_seeding() -> None:
    a = Tuple([Discrete(1000), Discrete(1000)], seed=3)
    b = Tuple([Discrete(1000), Discrete(1000)])
    assert b.seed(3) == 3
    assert [a.sample() for _ in range(5)] == [b.sample() for _ in range(5)]
    assert b.seed([5]) == -1
    assert b[0].sample() == Discrete(1000, seed=5).sample()
    b.seed([None, 6])
    assert b[1].sample() == Discrete(1000, seed=6).sample()
    with pytest.raises(ValueError, match="3 seeds"):
        b.seed([1, 2, 3])


# -- Sequence ---------------------------------------------------------------------------------


def test_sequence_validation() -> None:
    with pytest.raises(TypeError, match="feature_space"):
        Sequence(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_length"):
        Sequence(Discrete(2), max_length=-1)
    with pytest.raises(TypeError, match="max_length"):
        Sequence(Discrete(2), max_length=2.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="stack"):
        Sequence(Sequence(Discrete(2)), stack=True)
    with pytest.raises(TypeError, match="no sub-space holding data"):
        Sequence(Dict(a=Tuple([]), b=Dict()), stack=True)
    assert Sequence(Discrete(2), max_length=np.int64(3)).max_length == 3
    assert type(Sequence(Discrete(2), max_length=np.int64(3)).max_length) is int
    assert Sequence(Discrete(2), max_length=3.0).max_length == 3


def test_sequence_sample_lengths() -> None:
    bounded = Sequence(Discrete(2), max_length=3, seed=0)
    lengths = {len(bounded.sample()) for _ in range(200)}
    assert lengths == {0, 1, 2, 3}
    unbounded = Sequence(Discrete(2), seed=0)
    mean = np.mean([len(unbounded.sample()) for _ in range(3000)])
    assert 2.7 < mean < 3.3


def test_sequence_sample_mask() -> None:
    space = Sequence(Discrete(3), max_length=4, seed=0)
    sample = space.sample(mask=(4, np.array([0, 0, 1], np.int8)))
    assert sample == (2, 2, 2, 2)
    assert len(space.sample(mask=(0, None))) == 0
    assert len(space.sample(mask=(None, None))) <= 4
    with pytest.raises(ValueError, match="length"):
        space.sample(mask=(5, None))
    with pytest.raises(ValueError, match="length"):
        space.sample(mask=(-1, None))
    with pytest.raises(ValueError, match="mask"):
        space.sample(mask=3)
    assert len(space.sample(mask=(2.0, None))) == 2
    for bad in (1.5, True, "2"):
        with pytest.raises(TypeError, match="Sequence mask length must be an int"):
            space.sample(mask=(bad, None))


@pytest.mark.parametrize(
    ("feature", "expected"),
    [
        (Box(0.0, 1.0, (2,)), ((0, 2), np.float32)),
        (Box(0, 1, (), np.uint8), ((0,), np.uint8)),
        (Discrete(3), ((0,), np.int64)),
        (MultiDiscrete([[2, 3]]), ((0, 1, 2), np.int64)),
        (MultiBinary((2, 3)), ((0, 2, 3), np.int8)),
    ],
)
def test_sequence_empty_stacked_batch(feature: Space, expected: tuple) -> None:
    space = Sequence(feature, stack=True)
    empty = space.pack([])
    assert (empty.shape, empty.dtype) == expected
    assert empty in space
    assert space.elements(empty) == []


def test_sequence_empty_stacked_composite() -> None:
    space = Sequence(Dict(a=Tuple([Discrete(2), Dict()]), b=Box(0.0, 1.0, (2,))), stack=True)
    empty = space.pack([])
    assert empty["a"][0].shape == (0,) and empty["a"][1] == {}
    assert empty["b"].shape == (0, 2)
    assert empty in space


def test_sequence_stacked_pack_and_contains() -> None:
    space = Sequence(Dict(a=Discrete(3), b=Box(0.0, 1.0, (2,))), max_length=3, stack=True)
    items = [{"a": np.intp(1), "b": np.array([0.5, 0.5], np.float32)}] * 2
    packed = space.pack(items)
    assert packed["a"].shape == (2,) and packed["b"].shape == (2, 2)
    assert packed in space
    assert items not in space
    assert tuple(items) not in space
    assert space.pack(items * 2) not in space  # too long
    assert {"a": np.array([1]), "b": np.zeros((2, 2))} not in space  # different lengths
    elements = space.elements(packed)
    assert len(elements) == 2 and all(e in space.feature_space for e in elements)


def test_sequence_unstacked_contains() -> None:
    space = Sequence(Discrete(3), max_length=2)
    assert (0, 1) in space and [2] in space and () in space
    assert (0, 1, 2) not in space
    assert (0, 3) not in space
    assert np.array([0, 1]) not in space
    assert space.pack([1, 2]) == (1, 2)
    assert space.elements((1, 2)) == [1, 2]


def test_sequence_seeding() -> None:
    a = Sequence(Box(0.0, 1.0, (2,)), seed=9)
    b = Sequence(Box(0.0, 1.0, (2,)))
    assert b.seed(9) == 9
    for _ in range(5):
        sa, sb = a.sample(), b.sample()
        assert len(sa) == len(sb)
        for x, y in zip(sa, sb, strict=True):
            np.testing.assert_array_equal(x, y)


def test_sequence_repr_json_eq() -> None:
    space = Sequence(Box(0.0, 1.0, (2,)), max_length=3, stack=True)
    assert repr(space) == "Sequence(Box(0.0, 1.0, (2,), float32), max_length=3, stack=True)"
    assert repr(Sequence(Discrete(2))) == "Sequence(Discrete(2))"
    assert repr(Sequence(Discrete(2), stack=True)) == "Sequence(Discrete(2), stack=True)"
    assert space.to_jsonable() == {
        "type": "Sequence",
        "feature_space": Box(0.0, 1.0, (2,)).to_jsonable(),
        "max_length": 3,
        "stack": True,
    }
    assert Sequence.from_jsonable(json.loads(json.dumps(space.to_jsonable()))) == space
    assert space != Sequence(Box(0.0, 1.0, (2,)), max_length=3)
    assert space != Sequence(Box(0.0, 1.0, (2,)), stack=True)
    assert not space.is_flattenable
    with pytest.raises(TypeError):
        hash(space)


def test_sequence_batch_space_uses_seed_sequence() -> None:
    space = Sequence(Discrete(1000), max_length=5, seed=11)
    rng = copy.deepcopy(space.rng)
    seeds = make_seed_sequence(int(rng.integers(2**63)), 3)
    batched = batch_space(space, 3)
    assert isinstance(batched, Tuple) and len(batched) == 3
    assert all(sub == space and sub is not space for sub in batched.spaces)
    for sub, seed in zip(batched.spaces, seeds, strict=True):
        reference = Sequence(Discrete(1000), max_length=5, seed=seed)
        assert [sub.sample() for _ in range(3)] == [reference.sample() for _ in range(3)]
    # batching drew from the original's generator
    assert space.rng.integers(2**63) == rng.integers(2**63)


def test_sequence_is_not_flattenable() -> None:
    space = Sequence(Discrete(2))
    for call in (
        lambda: flatdim(space),
        lambda: flatten(space, (1,)),
        lambda: unflatten(space, np.zeros(2)),
    ):
        with pytest.raises(NotImplementedError):
            call()


# -- MaskedBox --------------------------------------------------------------------------------


def test_masked_box_structure() -> None:
    space = MaskedBox(0.0, 1.0, (2,), max_size=3)
    assert isinstance(space, Dict)
    assert list(space.keys()) == ["values", "mask"]
    assert space["values"] == Box(0.0, 1.0, (3, 2))
    assert space["mask"] == MultiBinary(3)
    assert space.element_space == Box(0.0, 1.0, (2,))
    assert space.element_shape == (2,) and space.value_dtype == np.float32
    assert space.max_size == 3
    np.testing.assert_array_equal(space.fill_value, [0.0, 0.0])
    np.testing.assert_array_equal(MaskedBox(1.0, 2.0, (2,), max_size=1).fill_value, [1.0, 1.0])


def test_masked_box_validation() -> None:
    with pytest.raises(ValueError, match="max_size"):
        MaskedBox(0.0, 1.0, (2,), max_size=0)
    with pytest.raises(TypeError, match="max_size"):
        MaskedBox(0.0, 1.0, (2,), max_size=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="fill_value"):
        MaskedBox(0.0, 1.0, (2,), max_size=2, fill_value=2.0)
    with pytest.raises(ValueError, match="fill_value"):
        MaskedBox(0.0, 1.0, (2,), max_size=2, fill_value=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="fill_value"):
        MaskedBox(0, 5, (2,), max_size=2, dtype=np.int64, fill_value=0.5)
    with pytest.raises(ValueError, match="NaN"):
        MaskedBox(np.nan, 1.0, (2,), max_size=2)


def test_masked_box_empty_pack_unpack() -> None:
    space = MaskedBox(-1.0, 1.0, (2,), max_size=3, fill_value=[0.5, -0.5])
    empty = space.empty()
    assert empty["mask"].dtype == np.int8 and not empty["mask"].any()
    np.testing.assert_array_equal(empty["values"], [[0.5, -0.5]] * 3)
    assert empty in space
    packed = space.pack([[0.1, 0.2], [0.3, 0.4]], slots=[2, 0])
    np.testing.assert_array_equal(packed["mask"], [1, 0, 1])
    np.testing.assert_array_equal(
        packed["values"], np.array([[0.3, 0.4], [0.5, -0.5], [0.1, 0.2]], np.float32)
    )
    assert packed in space
    values, slots = space.unpack(packed)
    np.testing.assert_array_equal(slots, [0, 2])
    np.testing.assert_array_equal(values, np.array([[0.3, 0.4], [0.1, 0.2]], np.float32))
    assert space.pack(np.zeros(4))["mask"].tolist() == [1, 1, 0]
    assert_trees_equal(
        space.pack([[0.1, 0.2], [0.3, 0.4]], slots=[2.0, 0.0]),
        space.pack([[0.1, 0.2], [0.3, 0.4]], slots=[2, 0]),
    )
    with pytest.raises(TypeError, match="slots must hold ints"):
        space.pack([[0.1, 0.2]], slots=[0.5])
    for values_, slots_ in [
        ([[0.0, 0.0]], [0, 1]),
        (np.zeros((4, 2)), None),
        (np.zeros((2, 2)), [1, 1]),
        (np.zeros((1, 2)), [3]),
    ]:
        with pytest.raises(ValueError):
            space.pack(values_, slots_)


def test_masked_box_sample() -> None:
    space = MaskedBox(1.0, 2.0, (2,), max_size=4, seed=0)
    samples = [space.sample() for _ in range(50)]
    assert all(s in space and s["mask"].dtype == np.int8 for s in samples)
    occupancy = np.mean([s["mask"].mean() for s in samples])
    assert 0.3 < occupancy < 0.7
    fixed = space.sample(mask=np.array([1, 0, 0, 1]))
    np.testing.assert_array_equal(fixed["mask"], [1, 0, 0, 1])
    np.testing.assert_array_equal(fixed["values"][1], space.fill_value)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        space.sample(mask=np.ones(3))


def test_masked_box_contains() -> None:
    space = MaskedBox(0.0, 1.0, (2,), max_size=2)
    good = {"values": np.array([[0.5, 0.5], [0.0, 0.0]]), "mask": np.array([1, 0], np.int8)}
    assert good in space
    assert {"values": [[0.5, 0.5], [0.0, 0.0]], "mask": [1, 0]} in space
    assert {**good, "extra": 1} not in space
    assert {"values": good["values"]} not in space
    assert {"values": np.array([[0.5, 0.5], [0.1, 0.0]]), "mask": good["mask"]} not in space
    assert {"values": np.array([[1.5, 0.5], [0.0, 0.0]]), "mask": good["mask"]} not in space
    assert {"values": np.zeros((3, 2)), "mask": good["mask"]} not in space
    assert {"values": [[0.5], [0.0, 0.0]], "mask": good["mask"]} not in space
    assert {"values": good["values"], "mask": np.array([1, 2])} not in space
    assert {"values": np.array([[np.nan, 0.5], [0.0, 0.0]]), "mask": good["mask"]} not in space


def test_masked_box_repr_json_eq() -> None:
    space = MaskedBox(0.0, 1.0, (2,), max_size=3)
    assert repr(space) == "MaskedBox(0.0, 1.0, (2,), max_size=3, float32)"
    filled = MaskedBox(0.0, 1.0, (2,), max_size=3, fill_value=[0.0, 0.5])
    assert repr(filled) == "MaskedBox(0.0, 1.0, (2,), max_size=3, float32, fill_value=[0.0, 0.5])"
    assert space.to_jsonable() == {
        "type": "MaskedBox",
        "low": [0.0, 0.0],
        "high": [1.0, 1.0],
        "shape": [2],
        "max_size": 3,
        "dtype": "float32",
        "fill_value": [0.0, 0.0],
    }
    for s in (space, filled, MaskedBox(0, 9, (2, 2), max_size=2, dtype=np.uint8, fill_value=3)):
        assert space_from_jsonable(json.loads(json.dumps(s.to_jsonable()))) == s
    assert space != filled
    assert space != MaskedBox(0.0, 1.0, (2,), max_size=4)
    plain = Dict(values=Box(0.0, 1.0, (3, 2)), mask=MultiBinary(3))
    assert space != plain and plain != space
    with pytest.raises(TypeError):
        hash(space)


def test_masked_box_utilities() -> None:
    space = MaskedBox(0.0, 1.0, (2, 2), max_size=3, seed=0)
    assert flatdim(space) == 3 * 4 + 3
    sample = space.sample(mask=np.array([1, 0, 1]))
    flat = flatten(space, sample)
    np.testing.assert_array_equal(flat[:12], sample["values"].reshape(-1))
    np.testing.assert_array_equal(flat[12:], [1, 0, 1])
    vector = np.full(15, 0.7, np.float32)
    vector[12:] = [1, 0, 1]
    restored = unflatten(space, vector)
    assert restored in space
    np.testing.assert_array_equal(restored["mask"], [1, 0, 1])
    np.testing.assert_array_equal(restored["values"][1], space.fill_value)
    np.testing.assert_array_equal(restored["values"][[0, 2]], np.full((2, 2, 2), 0.7, np.float32))
    batched = batch_space(space, 2)
    assert type(batched) is Dict
    assert batched == Dict(values=Box(0.0, 1.0, (2, 3, 2, 2)), mask=MultiBinary((2, 3)))
