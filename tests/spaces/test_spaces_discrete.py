"""Tests for Discrete, MultiDiscrete and MultiBinary."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sekai.spaces import Discrete, MultiBinary, MultiDiscrete

# -- Discrete ---------------------------------------------------------------------------------


def test_discrete_attributes() -> None:
    space = Discrete(np.int64(3), start=np.int32(-1))
    assert space.n == 3 and type(space.n) is int
    assert space.start == -1 and type(space.start) is int
    assert space.shape == ()
    assert space.dtype == np.int64
    assert space.is_flattenable


@pytest.mark.parametrize("n", [0, -2])
def test_discrete_non_positive_n(n: int) -> None:
    with pytest.raises(ValueError, match="n must be positive"):
        Discrete(n)


@pytest.mark.parametrize(
    ("kwargs", "name", "error"),
    [
        ({"n": 2.5}, "n", TypeError),
        ({"n": float("inf")}, "n", TypeError),
        ({"n": True}, "n", TypeError),
        ({"n": 2, "start": 0.5}, "start", TypeError),
    ],
)
def test_discrete_bad_types(kwargs: dict, name: str, error: type) -> None:
    with pytest.raises(error, match=f"{name} must be an int"):
        Discrete(**kwargs)


def test_discrete_takes_whole_floats_as_ints() -> None:
    space = Discrete(3.0, start=np.float32(-1.0))  # type: ignore[arg-type]
    assert space.n == 3 and type(space.n) is int
    assert space.start == -1 and type(space.start) is int
    assert space == Discrete(3, start=-1)


def test_discrete_sample() -> None:
    space = Discrete(4, start=10, seed=0)
    samples = [space.sample() for _ in range(200)]
    assert all(type(s) is np.intp for s in samples)
    assert set(int(s) for s in samples) == {10, 11, 12, 13}


@pytest.mark.parametrize("mask", [[0, 1, 0, 1], np.array([0, 1, 0, 1], np.int8)])
def test_discrete_sample_mask(mask: object) -> None:
    space = Discrete(4, start=-2, seed=0)
    assert {int(space.sample(mask=mask)) for _ in range(100)} == {-1, 1}


def test_discrete_mask_errors() -> None:
    space = Discrete(3)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        space.sample(mask=np.ones(4, np.int8))
    with pytest.raises(ValueError, match="All actions masked"):
        space.sample(mask=np.zeros(3, np.int8))


def test_discrete_contains() -> None:
    space = Discrete(3, start=-1)
    assert -1 in space and 1 in space
    assert 2 not in space and -2 not in space
    assert np.int8(0) in space and np.uint64(1) in space
    assert np.array(0) in space
    assert np.array([0]) not in space
    assert np.array(0.0) not in space
    assert True not in space and np.bool_(True) not in space
    assert 0.0 not in space
    assert "0" not in space and None not in space


def test_discrete_repr_json_eq() -> None:
    assert repr(Discrete(3)) == "Discrete(3)"
    assert repr(Discrete(3, start=-1)) == "Discrete(3, start=-1)"
    space = Discrete(3, start=-1)
    assert space.to_jsonable() == {"type": "Discrete", "n": 3, "start": -1}
    assert Discrete.from_jsonable(json.loads(json.dumps(space.to_jsonable()))) == space
    assert Discrete.from_jsonable({"type": "Discrete", "n": 4}) == Discrete(4)
    assert Discrete(3) != Discrete(3, start=1)
    assert Discrete(3) != Discrete(4)
    with pytest.raises(TypeError):
        hash(Discrete(3))


def test_discrete_seed_determinism() -> None:
    a, b = Discrete(100, seed=4), Discrete(100, seed=4)
    assert [a.sample() for _ in range(10)] == [b.sample() for _ in range(10)]


# -- MultiDiscrete ----------------------------------------------------------------------------


def test_multi_discrete_attributes() -> None:
    space = MultiDiscrete([[2, 3], [4, 5]], dtype=np.int32, start=[[1, 0], [0, -2]])
    assert space.shape == (2, 2)
    assert space.dtype == np.int32
    assert space.nvec.dtype == np.int64 and space.start.dtype == np.int64
    np.testing.assert_array_equal(MultiDiscrete([2, 3]).start, [0, 0])


def test_multi_discrete_bad_arguments() -> None:
    with pytest.raises(ValueError, match="nvec"):
        MultiDiscrete([2, 0])
    with pytest.raises(ValueError, match="start"):
        MultiDiscrete([2, 3], start=[0, 0, 0])
    with pytest.raises(TypeError, match="nvec"):
        MultiDiscrete([2.5, 3])
    with pytest.raises(TypeError, match="start"):
        MultiDiscrete([2, 3], start=[0, 0.5])


def test_multi_discrete_takes_whole_floats_as_ints() -> None:
    space = MultiDiscrete(np.array([2.0, 3.0]), start=[1.0, np.float32(-1.0)])
    assert space == MultiDiscrete([2, 3], start=[1, -1])
    assert space.nvec.dtype == np.int64 and space.start.dtype == np.int64
    with pytest.raises(ValueError, match="nvec"):
        MultiDiscrete([[2, 3], [4]])
    with pytest.raises(TypeError, match="dtype"):
        MultiDiscrete([2, 3], dtype=np.float32)
    with pytest.raises(ValueError, match="uint8"):
        MultiDiscrete([300], dtype=np.uint8)


def test_multi_discrete_sample() -> None:
    space = MultiDiscrete([2, 3], start=[1, -1], dtype=np.int16, seed=0)
    samples = np.stack([space.sample() for _ in range(200)])
    assert samples.dtype == np.int16
    assert set(samples[:, 0].tolist()) == {1, 2}
    assert set(samples[:, 1].tolist()) == {-1, 0, 1}


def test_multi_discrete_sample_tuple_mask() -> None:
    space = MultiDiscrete([2, 3], seed=0)
    mask = (np.array([0, 1], np.int8), np.array([1, 0, 1], np.int8))
    samples = np.stack([space.sample(mask=mask) for _ in range(100)])
    assert set(samples[:, 0].tolist()) == {1}
    assert set(samples[:, 1].tolist()) == {0, 2}


def test_multi_discrete_sample_padded_mask() -> None:
    space = MultiDiscrete([2, 3], start=[5, 0], seed=0)
    mask = np.array([[0, 1, 1], [0, 0, 1]], np.int8)  # the third column of row 0 is padding
    samples = np.stack([space.sample(mask=mask) for _ in range(50)])
    assert set(samples[:, 0].tolist()) == {6}
    assert set(samples[:, 1].tolist()) == {2}


def test_multi_discrete_sample_nested_mask_2d() -> None:
    space = MultiDiscrete([[2, 3], [4, 5]], seed=0)
    mask = (([1, 0], [0, 0, 1]), ([0, 0, 0, 1], [0, 1, 0, 0, 0]))
    np.testing.assert_array_equal(space.sample(mask=mask), [[0, 2], [3, 1]])


def test_multi_discrete_mask_errors() -> None:
    space = MultiDiscrete([2, 2, 3])
    with pytest.raises(ValueError, match=r"dimension \(2,\) must have shape \(3,\)"):
        space.sample(mask=(np.ones(2), np.ones(2), np.ones(2)))
    with pytest.raises(ValueError, match=r"dimension \(2,\)"):
        space.sample(mask=(np.ones(2), np.ones(2)))
    with pytest.raises(ValueError, match="All actions masked"):
        space.sample(mask=(np.ones(2), np.zeros(2), np.ones(3)))
    with pytest.raises(ValueError, match=r"shape \(3, 3\)"):
        space.sample(mask=np.ones((3, 2)))
    with pytest.raises(ValueError, match="All actions masked"):
        space.sample(mask=np.array([[1, 1, 1], [0, 0, 1], [1, 1, 1]]))
    square = MultiDiscrete([2, 3])
    with pytest.raises(ValueError, match=r"shape \(2, 3\)"):
        square.sample(mask=np.ones((2, 2)))
    grid = MultiDiscrete([[2, 3], [4, 5]])
    with pytest.raises(ValueError, match=r"dimension \(0, 1\)"):
        grid.sample(mask=((np.ones(2),), (np.ones(4), np.ones(5))))
    with pytest.raises(ValueError, match=r"dimension \(0, 1\) must have shape \(3,\)"):
        grid.sample(mask=((np.ones(2), np.ones(2)), (np.ones(4), np.ones(5))))
    with pytest.raises(ValueError, match="dimension"):
        grid.sample(mask=5)


def test_multi_discrete_mask_entries_order() -> None:
    space = MultiDiscrete([[2, 3], [4, 5]])
    mask = np.zeros((2, 2, 5), np.int8)
    mask[..., 0] = 1
    mask[1, 0, 3] = 1
    entries = space._mask_entries(mask)
    assert [e.shape for e in entries] == [(2,), (3,), (4,), (5,)]
    np.testing.assert_array_equal(entries[2], [1, 0, 0, 1])


def test_multi_discrete_contains() -> None:
    space = MultiDiscrete([2, 3], start=[0, -1])
    assert np.array([1, 1]) in space
    assert np.array([1, -1], np.int8) in space
    assert [1, 1] in space and (0, 0) in space
    assert np.array([2, 0]) not in space
    assert np.array([0, -2]) not in space
    assert np.array([1.0, 1.0]) not in space
    assert np.array([1, 1, 1]) not in space
    assert [[1], [1, 2]] not in space
    assert 1 not in space


def test_multi_discrete_repr_json_eq() -> None:
    assert repr(MultiDiscrete([2, 3])) == "MultiDiscrete([2, 3])"
    assert repr(MultiDiscrete([2, 3], start=[1, 0])) == "MultiDiscrete([2, 3], start=[1, 0])"
    assert repr(MultiDiscrete([[2, 3], [4, 5]])) == "MultiDiscrete([[2, 3], [4, 5]])"
    space = MultiDiscrete([2, 3], start=[1, 0], dtype=np.int32)
    assert space.to_jsonable() == {
        "type": "MultiDiscrete",
        "nvec": [2, 3],
        "start": [1, 0],
        "dtype": "int32",
    }
    assert MultiDiscrete.from_jsonable(json.loads(json.dumps(space.to_jsonable()))) == space
    assert space != MultiDiscrete([2, 3], start=[1, 0])
    assert MultiDiscrete([2, 3]) != MultiDiscrete([2, 4])
    assert MultiDiscrete([2, 3]) == MultiDiscrete(np.array([2, 3], np.int32))
    with pytest.raises(TypeError):
        hash(MultiDiscrete([2]))


# -- MultiBinary ------------------------------------------------------------------------------


def test_multi_binary_attributes() -> None:
    assert MultiBinary(3).n == (3,)
    space = MultiBinary((np.int64(2), 3))
    assert space.n == (2, 3) and all(type(d) is int for d in space.n)
    assert space.shape == (2, 3) and space.dtype == np.int8


@pytest.mark.parametrize(
    ("n", "error"),
    [
        (-1, ValueError),
        ((2, -3), ValueError),
        (2.5, TypeError),
        ((2, 0.5), TypeError),
        ("3", TypeError),
        (True, TypeError),
    ],
)
def test_multi_binary_bad_n(n: object, error: type) -> None:
    with pytest.raises(error, match="MultiBinary n must"):
        MultiBinary(n)  # type: ignore[arg-type]


def test_multi_binary_takes_whole_floats_as_ints() -> None:
    assert MultiBinary(2.0).n == (2,)  # type: ignore[arg-type]
    assert MultiBinary((np.float64(2.0), 3)).n == (2, 3)  # type: ignore[arg-type]
    assert all(type(d) is int for d in MultiBinary((2.0, 3.0)).n)  # type: ignore[arg-type]


def test_multi_binary_sample_and_mask() -> None:
    space = MultiBinary(4, seed=0)
    sample = space.sample()
    assert sample.dtype == np.int8 and sample.shape == (4,)
    masked = np.stack([space.sample(mask=np.array([1, 0, -1, 2])) for _ in range(100)])
    assert masked.dtype == np.int8
    assert set(masked[:, 0].tolist()) == {1}
    assert set(masked[:, 1].tolist()) == {0}
    assert set(masked[:, 2].tolist()) == {0, 1}
    assert set(masked[:, 3].tolist()) == {0}
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        space.sample(mask=np.ones(3))


def test_multi_binary_contains() -> None:
    space = MultiBinary((2, 2))
    assert np.array([[0, 1], [1, 0]]) in space
    assert np.array([[True, False], [True, True]]) in space
    assert [[0, 1], [1, 1]] in space
    assert np.array([[0, 2], [1, 0]]) not in space
    assert np.array([[0.0, 1.0], [1.0, 0.0]]) not in space
    assert np.array([0, 1, 1, 0]) not in space
    assert [[0, 1], [1]] not in space
    assert "01" not in space


def test_multi_binary_repr_json_eq() -> None:
    assert repr(MultiBinary(3)) == "MultiBinary(3)"
    assert repr(MultiBinary((2, 3))) == "MultiBinary((2, 3))"
    assert repr(MultiBinary((3,))) == "MultiBinary(3)"
    assert MultiBinary((2, 3)).to_jsonable() == {"type": "MultiBinary", "n": [2, 3]}
    space = MultiBinary((2, 3))
    assert MultiBinary.from_jsonable(json.loads(json.dumps(space.to_jsonable()))) == space
    assert MultiBinary(3) == MultiBinary((3,))
    assert MultiBinary(3) != MultiBinary(4)
    with pytest.raises(TypeError):
        hash(MultiBinary(3))
