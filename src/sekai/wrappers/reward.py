"""Reward wrappers: transforming and clipping rewards."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sekai._types import ActType, ObsType
from sekai.core.env import Env
from sekai.core.wrapper import RewardWrapper
from sekai.wrappers._args import check_real, func_or_fn

__all__ = ["ClipReward", "TransformReward"]


class TransformReward(RewardWrapper[ObsType, ActType]):
    """Applies ``func`` to every reward. ``fn=`` is a deprecated alias of ``func``."""

    def __init__(
        self,
        env: Env[ObsType, ActType],
        func: Callable[[Any], Any] | None = None,
        *,
        fn: Callable[[Any], Any] | None = None,
    ) -> None:
        super().__init__(env)
        self.func = func_or_fn(func, fn, "TransformReward")

    def reward(self, reward: Any) -> Any:
        """``func(reward)``."""
        return self.func(reward)


class ClipReward(RewardWrapper[ObsType, ActType]):
    """Clips every reward into ``[min_reward, max_reward]`` (None: unbounded on that side)."""

    def __init__(
        self,
        env: Env[ObsType, ActType],
        min_reward: float | None = -np.inf,
        max_reward: float | None = np.inf,
    ) -> None:
        super().__init__(env)
        lo = -np.inf if min_reward is None else min_reward
        hi = np.inf if max_reward is None else max_reward
        self.min_reward = check_real(lo, "min_reward", "ClipReward", finite=False)
        self.max_reward = check_real(hi, "max_reward", "ClipReward", finite=False)
        if not self.min_reward < self.max_reward:
            raise ValueError(
                f"ClipReward needs min_reward < max_reward, got {min_reward!r} and {max_reward!r}."
            )

    def reward(self, reward: Any) -> float:
        """The reward clipped into the bounds, as a Python float."""
        return min(max(float(reward), self.min_reward), self.max_reward)
