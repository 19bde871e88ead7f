"""check_env audit against the spec (§9.6): cases the main checker tests do not pin down."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete
from sekai.utils.checker import check_env


class InfiniteRewardEnv(Env[np.ndarray, np.intp]):
    """Infinite rewards; ``step()`` raises at step ``fail_at``; episodes never end."""

    def __init__(self, fail_at: int) -> None:
        self.observation_space = Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = Discrete(2)
        self.fail_at = fail_at
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(np.zeros(2, np.float32), {})

    def step(self, action: Any) -> Any:
        if self.t == self.fail_at:
            raise RuntimeError("boom")
        self.t += 1
        return StepResult(np.zeros(2, np.float32), math.inf, False, False, {})


def test_infinite_reward_summary_names_n_steps() -> None:
    # Spec step 6: "Encountered <k> infinite reward(s) during <n_steps> steps." — the total
    # is the requested n_steps even when the rollout stopped early.
    issues = check_env(InfiniteRewardEnv(fail_at=3), n_steps=10, check_async=False)
    assert issues == [
        "ERROR: step() raised RuntimeError at step 3: boom",
        "WARNING: Encountered 3 infinite reward(s) during 10 steps.",
    ]


def test_infinite_rewards_silent_without_warnings() -> None:
    issues = check_env(
        InfiniteRewardEnv(fail_at=3), n_steps=10, check_async=False, warn_on_anomaly=False
    )
    assert issues == ["ERROR: step() raised RuntimeError at step 3: boom"]
