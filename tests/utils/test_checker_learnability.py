"""check_env(check_learnability=True): the action box and reward scale that trap learners."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sekai
from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Box, Discrete, MultiDiscrete, Space
from sekai.testing.learnability import (
    REWARD_SCALE_RANGE,
    action_space_warning,
    reward_scale_warning,
)
from sekai.utils.checker import check_env

NOT_SYMMETRIC = (
    "action_space {space} is not symmetric around 0: a Gaussian policy starts at mean 0, and "
    "clipping to the box piles its actions up at a bound; rescale it to [-1, 1], e.g. with "
    "RescaleAction."
)
NOT_UNIT = (
    "action_space {space} is symmetric but not [-1, 1]: a Gaussian policy starts with standard "
    "deviation 1, which explores a wider box too little and a narrower one mostly at its "
    "bounds; rescale it to [-1, 1], e.g. with RescaleAction."
)
SCALE = (
    "{n} finite rewards under random actions have a root mean square of {rms} (mean {mean}, "
    "std {std}), {side} the range [0.01, 100] around 1 that learners' defaults are sized for; "
    "scale the reward towards 1 (e.g. with TransformReward, or NormalizeReward while training)."
)


class Scripted(Env[np.ndarray, Any]):
    """A valid env with the given action space whose step ``t`` of an episode (from 0) pays
    ``rewards[t % len(rewards)]``. Episodes last 10 steps; the observation is constant."""

    def __init__(self, action_space: Space[Any], rewards: list[float]) -> None:
        self.observation_space = Box(-1.0, 1.0, (1,), np.float32)
        self.action_space = action_space
        self.rewards = rewards
        self.steps = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.steps = 0
        return ResetResult(np.zeros(1, np.float32), {})

    def step(self, action: Any) -> Any:
        reward = self.rewards[self.steps % len(self.rewards)]
        self.steps += 1
        return StepResult(np.zeros(1, np.float32), reward, self.steps >= 10, False, {})


UNIT_BOX = Box(-1.0, 1.0, (2,), np.float32)


# --- the action space ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "space",
    [
        Box(0.0, 1.0, (1,), np.float32),
        Box(0.0, 5.0, (2,), np.float32),
        Box(-1.0, 2.0, (1,), np.float64),
        Box(np.array([-1.0, 0.0]), np.array([1.0, 1.0]), dtype=np.float32),
        Box(np.array([-1.0, -2.0]), np.array([2.0, 1.0]), dtype=np.float32),
    ],
)
def test_a_box_not_symmetric_around_0_warns(space: Box) -> None:
    assert action_space_warning(space) == NOT_SYMMETRIC.format(space=repr(space))


@pytest.mark.parametrize(
    "space",
    [
        Box(-2.0, 2.0, (1,), np.float32),
        Box(-0.1, 0.1, (3,), np.float64),
        Box(np.array([-1.0, -3.0]), np.array([1.0, 3.0]), dtype=np.float32),
    ],
)
def test_a_symmetric_box_other_than_unit_warns(space: Box) -> None:
    assert action_space_warning(space) == NOT_UNIT.format(space=repr(space))


@pytest.mark.parametrize(
    "space",
    [
        UNIT_BOX,
        Box(-1.0, 1.0, (3, 2), np.float64),
        Box(np.full(2, -1.0), np.ones(2), dtype=np.float32),
        Box(-np.inf, np.inf, (2,), np.float32),  # unbounded: nothing to rescale
        Box(np.array([0.0, -1.0]), np.array([np.inf, 1.0]), dtype=np.float32),  # partly
        Box(0, 5, (2,), np.int64),  # integer boxes are not Gaussian policies' spaces
        Discrete(3),
        MultiDiscrete([2, 3]),
    ],
)
def test_unit_unbounded_integer_and_other_spaces_do_not_warn(space: Space[Any]) -> None:
    assert action_space_warning(space) is None


# --- the reward scale ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rewards",
    [[1.0], [-1.0, 1.0], [0.01], [100.0], [-100.0, 100.0], [0.0, 0.02], [0.0] * 9 + [3.0]],
)
def test_rewards_with_a_root_mean_square_in_the_range_do_not_warn(rewards: list[float]) -> None:
    assert reward_scale_warning(rewards) is None


def test_no_rewards_do_not_warn() -> None:
    assert reward_scale_warning([]) is None


@pytest.mark.parametrize(
    ("rewards", "rms", "mean", "std", "side"),
    [
        ([300.0, -400.0], "354", "-50", "350", "above"),
        ([150.0], "150", "150", "0", "above"),
        ([0.003, -0.004], "0.00354", "-0.0005", "0.0035", "below"),
        ([0.0, 0.0, 0.0], "0", "0", "0", "below"),
        ([1e300, -1e300], "1e+300", "0", "1e+300", "above"),  # no overflow in the squares
    ],
)
def test_rewards_far_from_unit_scale_warn(
    rewards: list[float], rms: str, mean: str, std: str, side: str
) -> None:
    expected = SCALE.format(n=len(rewards), rms=rms, mean=mean, std=std, side=side)
    assert reward_scale_warning(rewards) == expected


@given(
    st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False), min_size=1, max_size=50),
)
def test_the_warning_follows_the_root_mean_square(rewards: list[float]) -> None:
    rms = math.sqrt(math.fsum(r * r for r in rewards) / len(rewards))
    low, high = REWARD_SCALE_RANGE
    if low * (1 + 1e-12) < rms < high * (1 - 1e-12):
        assert reward_scale_warning(rewards) is None
    elif rms > high * (1 + 1e-12) or rms < low * (1 - 1e-12):
        message = reward_scale_warning(rewards)
        assert message is not None
        found = re.match(
            rf"{len(rewards)} finite rewards under random actions have a root mean square of "
            r"(\S+) ",
            message,
        )
        assert found is not None
        assert float(found.group(1)) == pytest.approx(rms, rel=6e-3)


# --- through check_env --------------------------------------------------------------------------


def test_check_env_reports_both_only_when_asked() -> None:
    box = Box(0.0, 1.0, (1,), np.float32)
    assert check_env(Scripted(box, [500.0, -500.0])) == []
    issues = check_env(Scripted(box, [500.0, -500.0]), n_steps=40, check_learnability=True)
    assert issues == [
        "WARNING: " + NOT_SYMMETRIC.format(space=repr(box)),
        "WARNING: " + SCALE.format(n=40, rms="500", mean="0", std="500", side="above"),
    ]


def test_check_env_of_a_learnable_env_finds_nothing() -> None:
    env = Scripted(UNIT_BOX, [0.5, -1.5, 2.0])
    assert check_env(env, n_steps=60, check_learnability=True, check_determinism=True) == []


def test_the_scale_uses_the_rollout_steps_only() -> None:
    """``n_steps=3`` sees three 1e-3 rewards; 4 sees the 10 too."""
    env = Scripted(UNIT_BOX, [1e-3, 1e-3, 1e-3, 10.0])
    assert check_env(env, n_steps=3, check_learnability=True, check_async=False) == [
        "WARNING: " + SCALE.format(n=3, rms="0.001", mean="0.001", std="0", side="below")
    ]
    env = Scripted(UNIT_BOX, [1e-3, 1e-3, 1e-3, 10.0])
    assert check_env(env, n_steps=4, check_learnability=True, check_async=False) == []


def test_non_finite_rewards_are_reported_as_before_and_left_out_of_the_scale() -> None:
    env = Scripted(UNIT_BOX, [math.inf, 1000.0])
    assert check_env(env, n_steps=10, check_learnability=True, check_async=False) == [
        "WARNING: Encountered 5 infinite reward(s) during 10 steps.",
        "WARNING: " + SCALE.format(n=5, rms="1e+03", mean="1e+03", std="0", side="above"),
    ]


def test_the_warnings_follow_the_grouped_ones_and_need_warn_on_anomaly() -> None:
    class Float64Observations(Scripted):
        def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
            super().reset(seed=seed)
            return ResetResult(np.zeros(1), {})

    box = Box(-3.0, 3.0, (1,), np.float32)
    issues = check_env(
        Float64Observations(box, [1e-4]), n_steps=10, check_learnability=True, check_async=False
    )
    assert issues == [
        "WARNING: Observation from reset() has dtype float64, space has float32. "
        "(seen at 3 resets; first shown)",
        "WARNING: " + NOT_UNIT.format(space=repr(box)),
        "WARNING: " + SCALE.format(n=10, rms="0.0001", mean="0.0001", std="0", side="below"),
    ]
    quiet = check_env(
        Float64Observations(box, [1e-4]),
        n_steps=10,
        check_learnability=True,
        warn_on_anomaly=False,
    )
    assert quiet == []


def test_a_failed_rollout_still_judges_the_action_space() -> None:
    class BrokenReset(Scripted):
        def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
            raise RuntimeError("no data")

    box = Box(0.0, 2.0, (1,), np.float32)
    assert check_env(BrokenReset(box, [1e6]), check_learnability=True) == [
        "ERROR: reset(seed=42) raised RuntimeError: no data",
        "WARNING: " + NOT_SYMMETRIC.format(space=repr(box)),
    ]


def test_optimal_execution_v1_fixes_what_v0_is_warned_about() -> None:
    v0 = sekai.make("OptimalExecution-v0")
    v0.action_space.seed(0)
    issues = check_env(v0, check_learnability=True, check_async=False)
    assert issues[0] == "WARNING: " + NOT_SYMMETRIC.format(space="Box(0.0, 1.0, (1,), float32)")
    assert len(issues) == 2 and "above the range [0.01, 100]" in issues[1]
    assert check_env(sekai.make("OptimalExecution-v0"), check_async=False) == []
    v1 = sekai.make("OptimalExecution-v1")
    assert check_env(v1, n_steps=500, check_learnability=True, check_determinism=True) == []
