"""Every registered environment keeps the environment contract."""

from __future__ import annotations

import asyncio

import pytest

import sekai
from sekai.utils.checker import _equal

ENV_IDS = [spec.id for spec in sekai.all_specs()]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env_finds_nothing(env_id: str) -> None:
    with sekai.make(env_id) as env:
        assert sekai.check_env(env, n_steps=400, check_determinism=True) == []


def _layers(env: sekai.Env) -> list[sekai.Env]:
    return list(env) if isinstance(env, sekai.Wrapper) else [env]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_spec_rebuilds_identical_env(env_id: str) -> None:
    env = sekai.make(env_id)
    clone = env.spec.make()
    assert clone.spec == env.spec
    assert [type(layer) for layer in _layers(clone)] == [type(layer) for layer in _layers(env)]
    first, second = env.reset(seed=3), clone.reset(seed=3)
    assert _equal(first.observation, second.observation)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(50)]
    for action in actions:
        a, b = env.step(action), clone.step(action)
        assert _equal(a.observation, b.observation)
        assert (a.reward, a.terminated, a.truncated) == (b.reward, b.terminated, b.truncated)
        if a.done:
            break


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_async_path_matches_sync(env_id: str) -> None:
    sync_env, async_env = sekai.make(env_id), sekai.make(env_id)
    sync_env.action_space.seed(1)
    actions = [sync_env.action_space.sample() for _ in range(30)]

    sync_env.reset(seed=5)
    expected = []
    for action in actions:
        expected.append(sync_env.step(action))
        if expected[-1].done:
            break

    async def rollout() -> list[sekai.StepResult]:
        await async_env.async_reset(seed=5)
        return [await async_env.async_step(a) for a in actions[: len(expected)]]

    for got, want in zip(asyncio.run(rollout()), expected, strict=True):
        assert _equal(got.observation, want.observation)
        assert _equal(got.info, want.info)
        assert (got.reward, got.terminated, got.truncated) == (
            want.reward,
            want.terminated,
            want.truncated,
        )


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_registered_limit_applies(env_id: str) -> None:
    spec = sekai.spec(env_id)
    env = sekai.make(env_id)
    if spec.max_episode_steps is None:
        assert not isinstance(env, sekai.TimeLimit)
    else:
        assert env.get_attr("max_episode_steps") == spec.max_episode_steps
        assert not isinstance(sekai.make(env_id, max_episode_steps=-1), sekai.TimeLimit)
