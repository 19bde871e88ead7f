"""check_env validates its own arguments before touching the env."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import Discrete
from sekai.utils.checker import check_env

FLAGS = (
    "warn_on_anomaly",
    "check_obs_space",
    "check_action_space",
    "check_reset_seed",
    "check_determinism",
    "check_async",
    "check_learnability",
)


class CountingResets(Env[int, int]):
    """A valid env that counts its resets (so a refused call can be seen not to run)."""

    def __init__(self) -> None:
        self.observation_space = Discrete(4)
        self.action_space = Discrete(2)
        self.resets = 0
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self._set_rng(seed)
        self.resets += 1
        self.t = 0
        return ResetResult(0, {})

    def step(self, action: int) -> StepResult[int]:
        self.t += 1
        return StepResult(min(self.t, 3), 1.0, self.t >= 3, False, {})


@pytest.mark.parametrize("n_steps", [-1, 0, -100, np.int64(0)])
def test_n_steps_below_one_is_a_value_error(n_steps: Any) -> None:
    env = CountingResets()
    with pytest.raises(ValueError, match=f"n_steps must be a positive int, got {n_steps}"):
        check_env(env, n_steps=n_steps)
    assert env.resets == 0


@pytest.mark.parametrize(
    "n_steps", [True, False, np.bool_(True), 2.5, 0.5, float("nan"), float("inf"), "10", None]
)
def test_n_steps_of_another_type_is_a_type_error(n_steps: Any) -> None:
    env = CountingResets()
    with pytest.raises(TypeError, match="n_steps must be an int"):
        check_env(env, n_steps=n_steps)
    assert env.resets == 0


def test_n_steps_as_a_list_is_a_value_error() -> None:
    env = CountingResets()
    with pytest.raises(ValueError, match=r"n_steps must be an int \(a scalar\), got list \[5\]"):
        check_env(env, n_steps=[5])
    assert env.resets == 0


@pytest.mark.parametrize("n_steps", [0.0, -2.0])
def test_whole_float_n_steps_below_one_is_a_value_error(n_steps: float) -> None:
    env = CountingResets()
    with pytest.raises(ValueError, match=f"n_steps must be a positive int, got {int(n_steps)}"):
        check_env(env, n_steps=n_steps)
    assert env.resets == 0


@pytest.mark.parametrize("n_steps", [1, 7, np.int64(5), np.uint8(3), 1.0, np.float32(4.0)])
def test_positive_ints_are_accepted(n_steps: Any) -> None:
    assert check_env(CountingResets(), n_steps=n_steps) == []


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("value", [1, 0, "yes", None, 1.0])
def test_flags_must_be_bools(flag: str, value: Any) -> None:
    env = CountingResets()
    with pytest.raises(TypeError, match=f"{flag} must be a bool"):
        check_env(env, **{flag: value})
    assert env.resets == 0


@pytest.mark.parametrize("flag", FLAGS)
def test_numpy_bool_flags_are_accepted(flag: str) -> None:
    assert check_env(CountingResets(), n_steps=5, **{flag: np.bool_(False)}) == []
