"""Spec-audit regressions for the single-env wrappers (core.md section 6)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _wrapper_toy_envs import CountEnv, MaskedBoxEnv

from sekai.spaces import Box
from sekai.utils.seeding import np_random
from sekai.wrappers import (
    AutoReset,
    ClipReward,
    RecordEpisodeStatistics,
    RescaleAction,
    StickyAction,
    TimeAwareObservation,
)


class _NoSeedSeq(np.random.PCG64):
    """A bit generator without a SeedSequence."""

    seed_seq = None


def _draws(rng: np.random.Generator, n: int = 20) -> list[float]:
    return [float(rng.random()) for _ in range(n)]


def test_sticky_generator_seed_spawns_without_drawing() -> None:
    # a Generator seed is spawned from, so the caller's generator is left where it was
    gen = np.random.Generator(np.random.PCG64(11))
    state = gen.bit_generator.state
    wrapped = StickyAction(CountEnv(length=1000), 0.5)
    wrapped.reset(seed=gen)
    assert gen.bit_generator.state == state
    child = np.random.SeedSequence(11).spawn(1)[0]
    assert _draws(wrapped._sticky_rng) == _draws(np.random.Generator(np.random.PCG64(child)))


def test_sticky_generator_seed_without_seed_sequence_draws_one_seed() -> None:
    gen = np.random.Generator(_NoSeedSeq(4))
    wrapped = StickyAction(CountEnv(length=1000), 0.5)
    wrapped.reset(seed=gen)
    reference = np.random.Generator(np.random.PCG64(4))
    expected = np_random(int(reference.integers(2**63)))[0]
    assert _draws(wrapped._sticky_rng) == _draws(expected)
    # exactly one draw was taken from the caller's generator
    assert gen.bit_generator.state["state"] == reference.bit_generator.state["state"]


@pytest.mark.parametrize(("dtype", "expected"), [(np.float64, np.float64), (np.int64, np.float32)])
def test_time_aware_box_dtype_via_float_dtype(dtype: Any, expected: Any) -> None:
    env = CountEnv()
    env.observation_space = Box(0, 10, (2,), dtype)
    for normalize, high in ((True, 1.0), (False, np.inf)):
        wrapped = TimeAwareObservation(env, 4, normalize_time=normalize)
        space = wrapped.observation_space
        assert isinstance(space, Box) and space.dtype == expected
        assert space.low[-1] == 0.0 and space.high[-1] == high
        obs = wrapped.reset().observation
        assert obs.dtype == expected and obs[-1] == 0.0


def test_rescale_action_mask_uses_env_zero_and_ignores_bad_mask() -> None:
    env = MaskedBoxEnv()  # Box([1, 1, -3], 3); zero() == [1, 1, 0]; component 1 masked
    wrapped = RescaleAction(env, -1.0, 1.0)
    np.testing.assert_allclose(wrapped.action(np.array([1.0, 1.0, 0.0])), [3.0, 1.0, 0.0])
    env.mask = np.array([1, 0])  # does not broadcast to (3,): ignored
    np.testing.assert_allclose(wrapped.action(np.array([1.0, 1.0, 0.0])), [3.0, 3.0, 0.0])
    # out-of-range inputs are clipped into the env's bounds after the linear map
    env.mask = np.ones(3)
    np.testing.assert_allclose(wrapped.action(np.array([5.0, -5.0, 5.0])), [3.0, 1.0, 3.0])


def test_clip_reward_none_bounds_and_equal_bounds() -> None:
    wrapped = ClipReward(CountEnv(length=10), None, 2.5)
    assert wrapped.min_reward == -np.inf and wrapped.max_reward == 2.5
    wrapped.reset()
    rewards = [wrapped.step(0).reward for _ in range(4)]
    assert rewards == [1.0, 2.0, 2.5, 2.5] and all(type(r) is float for r in rewards)
    with pytest.raises(ValueError):
        ClipReward(CountEnv(), 1.0, 1.0)


def test_record_episode_statistics_never_warns_inside_autoreset_stack() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RecordEpisodeStatistics(AutoReset(CountEnv()))
