"""make_vec(): backend choice, kwargs, time limits, wrappers, samplers and the recorded spec."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from drift_envs import Drift, DriftVecEnv

import sekai
from sekai.finance.sampling import EpisodeSampler, RandomStart
from sekai.registry import EnvSpec, WrapperSpec, deregister, make_vec, register
from sekai.vector import AsyncVecEnv, ProcVecEnv, SyncVecEnv


class Counter(EpisodeSampler):
    """A sampler with per-env state: spawn() returns a fresh copy."""

    def __init__(self) -> None:
        self.calls = 0

    def sample(self, rng: np.random.Generator, n_starts: int, episode_length: int) -> int:
        self.calls += 1
        return 0

    def spawn(self) -> Counter:
        return Counter()


class SamplerEnv(Drift):
    def __init__(self, sampler: Any = None, scale: float = 1.0) -> None:
        super().__init__()
        self.sampler = sampler
        self.scale = scale


class Marker(sekai.Wrapper):
    def __init__(self, env: sekai.Env, tag: str = "") -> None:
        super().__init__(env)
        self.tag = tag


@pytest.fixture
def ids() -> Iterator[None]:
    register(
        "test_vec/Drift-v0",
        entry_point=Drift,
        vector_entry_point=DriftVecEnv,
        max_episode_steps=100,
    )
    register("test_vec/Plain-v0", entry_point=SamplerEnv, kwargs={"scale": 2.0})
    register(
        "test_vec/Wrapped-v0",
        entry_point=Drift,
        vector_entry_point=DriftVecEnv,
        additional_wrappers=(WrapperSpec("Marker", f"{__name__}:Marker", {"tag": "a"}),),
    )
    yield
    for id in ("test_vec/Drift-v0", "test_vec/Plain-v0", "test_vec/Wrapped-v0"):
        deregister(id)


def test_default_mode_picks_native_or_sync(ids: None) -> None:
    assert repr(make_vec("test_vec/Drift-v0", num_envs=8)) == "DriftVecEnv(num_envs=8)"
    sync = make_vec("test_vec/Drift-v0", num_envs=8, vectorization_mode="sync")
    assert repr(sync) == "SyncVecEnv(num_envs=8)"
    assert repr(make_vec("CartPole-v1", num_envs=64)) == "SyncVecEnv(num_envs=64)"
    wrapped = make_vec("test_vec/Drift-v0", 2, wrappers=[sekai.AutoReset])
    assert isinstance(wrapped, SyncVecEnv)
    assert isinstance(make_vec("test_vec/Wrapped-v0", 2), SyncVecEnv)
    alias = make_vec("test_vec/Drift-v0", 2, vectorization_mode="vector_entry_point")
    assert isinstance(alias, DriftVecEnv)
    assert isinstance(make_vec("CartPole-v1", 2, vectorization_mode="async"), AsyncVecEnv)


def test_native_gets_kwargs_time_limit_and_vector_kwargs(ids: None) -> None:
    vec = make_vec("test_vec/Drift-v0", 3, vector_kwargs={"autoreset": False})
    assert vec.max_episode_steps == 100 and vec.autoreset is False
    assert make_vec("test_vec/Drift-v0", 3, max_episode_steps=7).max_episode_steps == 7
    assert make_vec("test_vec/Drift-v0", 3, max_episode_steps=-1).max_episode_steps is None
    assert vec.spec is not None and vec.spec.id == "test_vec/Drift-v0"


def test_native_errors(ids: None) -> None:
    with pytest.raises(ValueError, match="no native vector implementation") as info:
        make_vec("CartPole-v1", 2, vectorization_mode="native")
    assert "CartPole-v1" in str(info.value)
    with pytest.raises(ValueError, match="wrappers"):
        make_vec("test_vec/Drift-v0", 2, vectorization_mode="native", wrappers=[sekai.AutoReset])
    with pytest.raises(ValueError, match=r"additional_wrappers \(Marker\)"):
        make_vec("test_vec/Wrapped-v0", 2, vectorization_mode="native")


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match=r"\['native', 'sync', 'async', 'proc', 'ray'\]"):
        make_vec("CartPole-v1", 2, vectorization_mode="threads")
    with pytest.raises(ValueError, match="num_envs"):
        make_vec("CartPole-v1", 0)
    with pytest.raises(sekai.EnvNotFound):
        make_vec("NoSuchEnv-v0", 2)


def test_sync_sub_envs_get_kwargs_limit_and_wrappers_in_order(ids: None) -> None:
    vec = make_vec(
        "test_vec/Plain-v0",
        2,
        vectorization_mode="sync",
        wrappers=[lambda env: Marker(env, "inner"), lambda env: Marker(env, "outer")],
        max_episode_steps=5,
        scale=3.0,
    )
    env = vec.envs[0]
    layers = [type(layer).__name__ for layer in env]
    assert layers == ["Marker", "Marker", "TimeLimit", "SamplerEnv"]
    assert env.tag == "outer" and env.env.tag == "inner"
    assert vec.get_attr("scale") == [3.0, 3.0]
    assert vec.get_attr("max_episode_steps") == [5, 5]
    no_limit = make_vec("CartPole-v1", 1, max_episode_steps=-1)
    with pytest.raises(AttributeError):
        no_limit.get_attr("max_episode_steps")


def test_spec_is_recorded_and_rebuilds(ids: None) -> None:
    vec = make_vec("test_vec/Plain-v0", 2, max_episode_steps=9, scale=4.0)
    spec = vec.spec
    assert isinstance(spec, EnvSpec)
    assert spec.kwargs == {"scale": 4.0} and spec.max_episode_steps == 9
    assert "max_episode_steps" not in spec.kwargs
    assert sekai.spec("test_vec/Plain-v0").kwargs == {"scale": 2.0}
    again = make_vec(spec, 2)
    assert again.spec == spec
    assert again.get_attr("scale") == [4.0, 4.0]
    assert again.get_attr("max_episode_steps") == [9, 9]
    assert vec.envs[0].spec == dataclasses.replace(spec)


def test_samplers_are_spawned_per_sub_env(ids: None) -> None:
    counter = Counter()
    vec = make_vec("test_vec/Plain-v0", 3, sampler=counter)
    samplers = vec.get_attr("sampler")
    assert all(isinstance(s, Counter) for s in samplers)
    assert len({id(s) for s in samplers}) == 3 and counter not in samplers
    assert vec.spec is not None and vec.spec.kwargs["sampler"] is counter
    shared = RandomStart()
    assert make_vec("test_vec/Plain-v0", 2, sampler=shared).get_attr("sampler") == [shared] * 2


def test_async_and_vector_kwargs(ids: None) -> None:
    vec = make_vec(
        "test_vec/Drift-v0", 2, vectorization_mode="async", vector_kwargs={"autoreset": False}
    )
    assert isinstance(vec, AsyncVecEnv) and vec.autoreset is False
    vec.reset(seed=0)
    assert vec.step(np.array([0, 1])).infos[0]["elapsed_steps"] == 1
    vec.close()


def test_proc_mode() -> None:
    vec = make_vec("CartPole-v1", 2, vectorization_mode="proc", vector_kwargs={"context": "fork"})
    with vec:
        assert isinstance(vec, ProcVecEnv)
        assert vec.spec is not None and vec.spec.max_episode_steps == 500
        vec.reset(seed=0)
        assert vec.step(np.array([0, 1])).rewards.tolist() == [1.0, 1.0]
    assert vec.closed
