"""TransformReward and ClipReward."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _wrapper_toy_envs import CountEnv, run

import sekai
from sekai.utils.checker import check_env
from sekai.wrappers import ClipReward, TransformReward


def test_transform_reward_func_and_async() -> None:
    env = CountEnv()
    wrapped = TransformReward(env, lambda r: r * 10)
    wrapped.reset()
    assert wrapped.step(0).reward == 10.0
    assert run(wrapped.async_step(0)).reward == 20.0
    assert env.async_calls == 1
    assert check_env(TransformReward(sekai.make("CartPole-v1"), func=lambda r: -r)) == []


def test_transform_reward_deprecated_fn_and_errors() -> None:
    with pytest.warns(DeprecationWarning, match=r"TransformReward\(fn=\.\.\.\) is deprecated"):
        wrapped = TransformReward(CountEnv(), fn=lambda r: r + 1)
    wrapped.reset()
    assert wrapped.step(0).reward == 2.0
    with pytest.raises(TypeError, match="both func and fn"):
        TransformReward(CountEnv(), lambda r: r, fn=lambda r: r)
    with pytest.raises(TypeError, match="missing required argument: 'func'"):
        TransformReward(CountEnv())


def test_clip_reward_bounds_and_python_float() -> None:
    wrapped = ClipReward(CountEnv(length=10), 0, 2.5)
    assert (wrapped.min_reward, wrapped.max_reward) == (0.0, 2.5)
    assert type(wrapped.min_reward) is float
    wrapped.reset()
    rewards = [wrapped.step(0).reward for _ in range(4)]
    assert rewards == [1.0, 2.0, 2.5, 2.5]
    assert all(type(r) is float for r in rewards)
    assert ClipReward(CountEnv()).reward(np.float32(1e30)) == pytest.approx(1e30)
    assert ClipReward(CountEnv(), None, 1.0).reward(-1e9) == -1e9
    assert ClipReward(CountEnv(), -1.0, None).reward(1e9) == 1e9
    assert run(ClipReward(CountEnv(), 0.0, 0.5).async_step(0)).reward == 0.5
    assert check_env(ClipReward(sekai.make("CartPole-v1"), 0.0, 0.5)) == []


@pytest.mark.parametrize(("lo", "hi"), [(1.0, 1.0), (2.0, 1.0), (np.inf, None)])
def test_clip_reward_needs_min_below_max(lo: Any, hi: Any) -> None:
    with pytest.raises(ValueError):
        ClipReward(CountEnv(), lo, hi)
