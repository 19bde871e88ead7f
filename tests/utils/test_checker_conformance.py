"""check_env: non-float rewards are errors; a masked-sampling failure is reported once."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.error import InvalidAction
from sekai.spaces import Box, Discrete
from sekai.utils.checker import check_env

OUT_OF_SPACE = "Observation from step() at step 0 is not within observation_space."
ALL_MASKED = (
    "ERROR: action_space.sample(mask=env.action_mask()) raised ValueError at step 3: "
    "All actions masked: mask [0, 0, 0] allows no value. "
    "(action_mask() must return a valid mask with at least one allowed action)"
)


class PlainEnv(Env[np.ndarray, Any]):
    """Float32 observations in [-1, 1]^2, Discrete(3) actions, episodes of 5 steps."""

    def __init__(self, reward: Any = 1.0, obs: float | None = None) -> None:
        self.observation_space = Box(-1.0, 1.0, (2,), np.float32)
        self.action_space = Discrete(3)
        self.reward = reward
        self.obs = obs
        self.seed_used: Any = None
        self.t = 0

    def _obs(self) -> np.ndarray:
        if self.obs is None or not self.t:
            return self.rng.uniform(-1.0, 1.0, 2).astype(np.float32)
        return np.full(2, self.obs, np.float32)

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.seed_used = seed
        self.t = 0
        return ResetResult(self._obs(), {})

    def step(self, action: Any) -> Any:
        if not self.action_space.contains(action):
            raise InvalidAction(action, self.action_space)
        self.t += 1
        return StepResult(self._obs(), self.reward, self.t >= 5, False, {})


@pytest.mark.parametrize(
    ("reward", "kind"),
    [("1.0", "str"), (True, "bool"), (np.array(1.0), "ndarray"), (None, "NoneType")],
)
def test_non_float_reward_is_its_own_error_line_beside_an_out_of_space_observation(
    reward: Any, kind: str
) -> None:
    issues = check_env(PlainEnv(reward, obs=5.0), check_async=False)
    assert issues == [
        f"WARNING: {OUT_OF_SPACE} obs=array([5., 5.], dtype=float32) "
        "(seen at 100 steps; first shown)",
        f"ERROR: Reward from step() at step 0 has type {kind}; return a float. "
        "(seen at 100 steps; first shown)",
    ]


def test_non_float_reward_error_survives_without_warnings() -> None:
    issues = check_env(PlainEnv("1.0", obs=5.0), warn_on_anomaly=False, n_steps=1)
    assert issues == ["ERROR: Reward from step() at step 0 has type str; return a float."]


@pytest.mark.parametrize("reward", [1, np.int64(2), np.float32(0.5), -0.0, float("inf")])
def test_real_rewards_are_not_type_errors(reward: Any) -> None:
    assert not any("has type" in issue for issue in check_env(PlainEnv(reward)))


class MaskedEnv(PlainEnv):
    """Action 2 is never allowed; ``blocked(t)`` says when no action is."""

    def blocked(self) -> bool:
        return False

    def action_mask(self) -> np.ndarray:
        if self.blocked():
            return np.zeros(3, np.int8)
        return np.array([1, 1, 0], np.int8)

    def step(self, action: Any) -> Any:
        if self.action_mask()[action] != 1:
            raise InvalidAction(action, self.action_space)
        return super().step(action)


class BlockedAtThree(MaskedEnv):
    def __init__(self) -> None:
        super().__init__()
        self.length = 10

    def blocked(self) -> bool:
        return self.t == 3

    def step(self, action: Any) -> Any:
        result = super().step(action)
        return StepResult(result.observation, 1.0, self.t >= self.length, False, {})


class BlockedAlways(MaskedEnv):
    def blocked(self) -> bool:
        return True


class BlockedAtThreeAndAfterAsyncReset(BlockedAtThree):
    def blocked(self) -> bool:
        return self.t == 3 or self.seed_used == 7


class BlockedOnlyWithTheDeterminismSeed(MaskedEnv):
    def blocked(self) -> bool:
        return self.seed_used == 123


def test_all_masked_mask_is_reported_once_across_sub_checks() -> None:
    issues = check_env(BlockedAtThree(), check_determinism=True)
    assert issues == [ALL_MASKED]
    issues = check_env(BlockedAtThreeAndAfterAsyncReset(), check_determinism=True)
    assert issues == [ALL_MASKED]


def test_all_masked_from_the_start_is_reported_once() -> None:
    assert check_env(BlockedAlways(), check_determinism=True) == [
        "ERROR: action_space.sample(mask=env.action_mask()) right after reset() raised "
        "ValueError: All actions masked: mask [0, 0, 0] allows no value."
    ]


def test_a_mask_failure_first_seen_in_a_later_sub_check_is_still_reported() -> None:
    assert check_env(BlockedOnlyWithTheDeterminismSeed(), check_determinism=True) == [
        "ERROR: The determinism check's rollout raised ValueError: All actions masked: "
        "mask [0, 0, 0] allows no value."
    ]
