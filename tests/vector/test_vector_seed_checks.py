"""A vector reset(seed=...) checks its seeds as Env.reset does, on every backend."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.testing import assert_trees_equal, tree_difference
from sekai.vector import VecEnv
from sekai.vector.vec_env import GENERATOR_SEED_ERROR, check_vector_seed, resolve_seeds

BACKENDS: dict[str, Callable[[], VecEnv[Any, Any]]] = {
    "sync": lambda: sekai.make_vec("CartPole-v1", 3, vectorization_mode="sync"),
    "async": lambda: sekai.make_vec("CartPole-v1", 3, vectorization_mode="async"),
    "native": lambda: sekai.make_vec("Trading-v0", 4),
}

#: Seeds that are of a wrong kind for Env.reset and for a vector reset alike.
WRONG_KIND = [(1, 2), (), np.array([1, 2]), np.array(3), True, np.bool_(False), b"1", {1: 2}]
#: Whole numbers given as floats, accepted as their int (by Env.reset too).
WHOLE_FLOATS = [3.0, np.float64(3.0), np.float32(3.0)]
#: Floats with a fraction: of the wrong kind for a seed, as for any int (TypeError).
FRACTIONAL = [2.7, 0.5, -2.5, float("nan"), float("inf"), np.float64(1.25)]
#: Entries of a seed list that Env.reset refuses.
BAD_ENTRIES = [-1, np.int64(-5), -1.0, "a", "7", 2.7, np.float64(1.5), (1,), np.array([1]), True]


def _env_reset_error(seed: Any) -> tuple[type[BaseException], str]:
    """What ``Env.reset(seed=seed)`` raises."""
    with pytest.raises(Exception) as info:
        sekai.make("CartPole-v1").reset(seed=seed)
    return info.type, str(info.value)


def _observations(vec: VecEnv[Any, Any], **kwargs: Any) -> Any:
    obs = vec.reset(**kwargs).observations
    return {k: v.copy() for k, v in obs.items()} if isinstance(obs, dict) else obs.copy()


@pytest.fixture(params=sorted(BACKENDS))
def vec(request: pytest.FixtureRequest) -> Iterator[VecEnv[Any, Any]]:
    env = BACKENDS[request.param]()
    yield env
    env.close()


@pytest.mark.parametrize("seed", [-1, np.int64(-1), -7, -1.0])
def test_negative_seed_is_the_env_reset_value_error(vec: VecEnv[Any, Any], seed: Any) -> None:
    expected_type, expected = _env_reset_error(int(seed))
    assert expected_type is ValueError
    with pytest.raises(ValueError) as info:
        vec.reset(seed=seed)
    assert str(info.value) == expected


@pytest.mark.parametrize("seed", WRONG_KIND, ids=repr)
def test_wrong_kind_is_a_type_error_as_in_env_reset(vec: VecEnv[Any, Any], seed: Any) -> None:
    assert _env_reset_error(seed)[0] is TypeError
    with pytest.raises(TypeError, match=r"^seed must be an int, a list of num_envs seeds or None"):
        vec.reset(seed=seed)


@pytest.mark.parametrize("seed", FRACTIONAL, ids=repr)
def test_fractional_seed_is_a_type_error_as_in_env_reset(vec: VecEnv[Any, Any], seed: Any) -> None:
    expected_type, expected = _env_reset_error(seed)
    assert expected_type is TypeError
    with pytest.raises(TypeError) as info:
        vec.reset(seed=seed)
    assert str(info.value) == expected


@pytest.mark.parametrize("seed", ["a", "7", ""])
def test_string_seed_is_refused(vec: VecEnv[Any, Any], seed: str) -> None:
    with pytest.raises(ValueError, match="seed must be an int, a list of num_envs seeds or None"):
        vec.reset(seed=seed)


def test_generator_seed_keeps_its_message(vec: VecEnv[Any, Any]) -> None:
    with pytest.raises(TypeError) as info:
        vec.reset(seed=np.random.default_rng(0))
    assert str(info.value) == GENERATOR_SEED_ERROR


def test_whole_numbers_are_accepted(vec: VecEnv[Any, Any]) -> None:
    base = _observations(vec, seed=3)
    for seed in [np.int64(3), np.uint16(3), *WHOLE_FLOATS]:
        assert tree_difference(_observations(vec, seed=seed), base) is None, seed


def test_whole_float_list_entries_are_their_ints(vec: VecEnv[Any, Any]) -> None:
    n = vec.num_envs
    base = _observations(vec, seed=list(range(3, 3 + n)))
    for whole in WHOLE_FLOATS:
        seeds = [float(s) for s in range(3, 3 + n)]
        seeds[0] = whole
        assert tree_difference(_observations(vec, seed=seeds), base) is None, whole


@pytest.mark.parametrize("entry", BAD_ENTRIES, ids=repr)
def test_each_list_entry_is_checked_as_env_reset_checks_it(
    vec: VecEnv[Any, Any], entry: Any
) -> None:
    expected_type, expected = _env_reset_error(entry)
    twin = BACKENDS["native" if vec.num_envs == 4 else "sync"]()
    vec.reset(seed=5)
    twin.reset(seed=5)
    seeds: list[Any] = [11] * (vec.num_envs - 1) + [entry]
    with pytest.raises(expected_type) as info:
        vec.reset(seed=seeds)
    assert str(info.value) == expected
    # Nothing was reset or reseeded by the refused call.
    assert_trees_equal(_observations(vec), _observations(twin))
    twin.close()


def test_list_entries_may_be_none_ints_or_generators(vec: VecEnv[Any, Any]) -> None:
    n = vec.num_envs
    vec.reset(seed=[np.int64(1)] + [None] * (n - 1))
    vec.reset(seed=[None] * n)
    vec.reset(seed=[np.random.default_rng(i) for i in range(n)])
    with pytest.raises(ValueError, match=f"num_envs={n}"):
        vec.reset(seed=[0] * (n + 1))


def test_helpers() -> None:
    assert check_vector_seed(np.float64(4.0)) == 4 and type(check_vector_seed(4.0)) is int
    assert resolve_seeds([np.int64(2), None], 2) == [2, None]
    assert type(resolve_seeds([np.int64(2), None], 2)[0]) is int
    assert resolve_seeds(7.0, 3) == resolve_seeds(7, 3)
    with pytest.raises(TypeError, match="other than None"):
        check_vector_seed(None)


# -- ProcVecEnv: slow to start, so one env for several checks ---------------------------------


@pytest.fixture(scope="module")
def proc() -> Iterator[VecEnv[Any, Any]]:
    vec = sekai.make_vec(
        "CartPole-v1", 2, vectorization_mode="proc", vector_kwargs={"context": "forkserver"}
    )
    yield vec
    vec.close()


def test_proc_scalar_seeds(proc: VecEnv[Any, Any]) -> None:
    with pytest.raises(ValueError) as info:
        proc.reset(seed=-1)
    assert str(info.value) == _env_reset_error(-1)[1]
    for seed in ((1, 2), np.array([1]), True):
        with pytest.raises(TypeError, match=r"^seed must be an int"):
            proc.reset(seed=seed)
    with pytest.raises(ValueError):
        proc.reset(seed="a")
    with pytest.raises(TypeError, match=r"^seed must be an int, got float 2\.7"):
        proc.reset(seed=2.7)
    assert np.array_equal(proc.reset(seed=3.0).observations, proc.reset(seed=3).observations)


def test_proc_list_entries(proc: VecEnv[Any, Any]) -> None:
    twin = sekai.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    assert np.array_equal(proc.reset(seed=5).observations, twin.reset(seed=5).observations)
    for entry in (-1, "a", 2.7, (1,)):
        expected_type, expected = _env_reset_error(entry)
        with pytest.raises(expected_type) as info:
            proc.reset(seed=[1, entry])
        assert str(info.value) == expected
    # No sub-env was reset by the refused calls: both continue from seed 5.
    assert np.array_equal(proc.reset().observations, twin.reset().observations)
    proc.reset(seed=[None, np.int64(4)])
