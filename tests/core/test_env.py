"""Env, Wrapper and MultiAgentEnv behaviour."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

import sekai.core as core
from sekai.core import (
    ActionWrapper,
    Env,
    MAResetResult,
    MAStepResult,
    MultiAgentEnv,
    ObservationWrapper,
    ResetResult,
    RewardWrapper,
    StepResult,
    Wrapper,
)


class CountingEnv(Env[int, int]):
    """Observation is the step count; reward is the action."""

    observation_space = "obs-space"  # type: ignore[assignment]
    action_space = "act-space"  # type: ignore[assignment]

    def __init__(self) -> None:
        self.count = 0
        self.closed = False
        self.seeds: list[int] = []

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self.seeds.append(self._set_rng(seed))
        self.count = 0
        return ResetResult(self.count, {"options": options})

    def step(self, action: int) -> StepResult[int]:
        self.count += 1
        return StepResult(self.count, float(action), self.count >= 3, False, {})

    def close(self) -> None:
        self.closed = True


class Doubler(ObservationWrapper[int, int, int]):
    def observation(self, observation: int) -> int:
        return observation * 2


class Negate(RewardWrapper[int, int]):
    def reward(self, reward: float) -> float:
        return -reward


class AddOne(ActionWrapper[int, int, int]):
    def action(self, action: int) -> int:
        return action + 1


def test_abstract_methods_required() -> None:
    with pytest.raises(TypeError):
        Env()  # type: ignore[abstract]


def test_str_repr_and_unwrapped() -> None:
    env = CountingEnv()
    assert str(env) == repr(env) == "<CountingEnv>"
    assert env.unwrapped is env
    assert env.spec is None
    assert env.metadata == {}


def test_seeding_contract() -> None:
    env = CountingEnv()
    env.reset(seed=7)
    first = [env.rng.random() for _ in range(3)]
    env.reset(seed=7)
    assert [env.rng.random() for _ in range(3)] == first
    env.reset()
    assert env.seeds[-1] == 7  # the stream continues; the recorded seed stays
    gen = np.random.default_rng(3)
    env.reset(seed=gen)
    assert env.rng is gen and env.seeds[-1] == -1
    fresh = CountingEnv()
    fresh.reset()
    assert fresh.seeds[-1] > 2**64  # 128-bit entropy seed


def test_rng_setter_marks_unknown_seed() -> None:
    env = CountingEnv()
    env.rng = np.random.default_rng(0)
    assert env._rng_seed == -1
    assert env._set_rng(None) == -1


def test_context_manager_closes() -> None:
    with pytest.raises(RuntimeError), CountingEnv() as env:
        raise RuntimeError
    assert env.closed


def test_attr_helpers_on_base() -> None:
    env = CountingEnv()
    assert env.has_attr("count") and not env.has_attr("nope")
    env.set_attr("count", 5)
    assert env.get_attr("count") == 5
    with pytest.raises(AttributeError):
        env.get_attr("nope")


def test_wrapper_rejects_non_env() -> None:
    with pytest.raises(TypeError, match=r"Doubler.*sekai\.Env.*from_gymnasium"):
        Doubler(object())  # type: ignore[arg-type]


def test_wrapper_stack_iteration_len_str() -> None:
    base = CountingEnv()
    env = Negate(Doubler(base))
    assert len(env) == 3
    assert [type(layer) for layer in env] == [Negate, Doubler, CountingEnv]
    assert str(env) == "<Negate(<Doubler(<CountingEnv>)>)>"
    assert env.unwrapped is base


def test_wrapper_spaces_live_and_overridable() -> None:
    base = CountingEnv()
    env = Doubler(base)
    assert env.observation_space is base.observation_space
    env.observation_space = "new"  # type: ignore[assignment]
    assert env.observation_space == "new"
    assert env.action_space == "act-space"


def test_no_attribute_forwarding_but_get_attr() -> None:
    env = Doubler(CountingEnv())
    with pytest.raises(AttributeError):
        env.count  # noqa: B018
    assert env.has_attr("count")
    assert env.get_attr("count") == 0
    with pytest.raises(AttributeError, match="nope"):
        env.get_attr("nope")


def test_set_attr_targets_outermost_owner() -> None:
    base = CountingEnv()
    env = Negate(Doubler(base))
    env.set_attr("count", 9)
    assert base.count == 9
    env.set_attr("fresh", 1)
    assert env.__dict__["fresh"] == 1 and not hasattr(base, "fresh")


def test_rng_and_spec_shared_with_base() -> None:
    base = CountingEnv()
    env = Doubler(base)
    env.reset(seed=3)
    assert env.rng is base.rng
    assert env._rng_seed == 3
    gen = np.random.default_rng(0)
    env.rng = gen
    assert base.rng is gen and base._rng_seed == -1
    env.spec = "a spec"  # type: ignore[assignment]
    assert base.spec == "a spec"
    assert env.metadata is base.metadata


def test_semantic_wrappers() -> None:
    env = AddOne(Negate(Doubler(CountingEnv())))
    assert env.reset(seed=0, options={"x": 1}) == ResetResult(0, {"options": {"x": 1}})
    assert env.step(1) == StepResult(2, -2.0, False, False, {})
    with pytest.raises(NotImplementedError, match="AddOne"):
        env.reverse_action(1)


def test_close_reaches_base() -> None:
    base = CountingEnv()
    Negate(Doubler(base)).close()
    assert base.closed


def test_async_defaults_and_wrappers() -> None:
    env = AddOne(Negate(Doubler(CountingEnv())))

    async def run() -> tuple[Any, Any]:
        return await env.async_reset(seed=1), await env.async_step(1)

    reset, step = asyncio.run(run())
    assert reset == ResetResult(0, {"options": None})
    assert step == StepResult(2, -2.0, False, False, {})


class StepOnlyWrapper(Wrapper[int, int, int, int]):
    def step(self, action: int) -> StepResult[int]:
        result = self.env.step(action)
        return StepResult(result.observation + 100, result.reward, False, False, {"w": 1})


class Mixin:
    def step(self, action: int) -> StepResult[int]:
        return StepResult(-1, 0.0, False, False, {"mixin": True})


class MixedWrapper(Mixin, Wrapper[int, int, int, int]):
    pass


class RealAsyncEnv(CountingEnv):
    async def async_step(self, action: int) -> StepResult[int]:
        return StepResult(-5, 0.0, False, False, {"async": True})


class BothWithSuper(StepOnlyWrapper):
    calls = 0

    def step(self, action: int) -> StepResult[int]:
        type(self).calls += 1
        return super().step(action)

    async def async_step(self, action: int) -> StepResult[int]:
        type(self).calls += 1
        return await super().async_step(action)


def test_async_fallback_runs_sync_override() -> None:
    env = StepOnlyWrapper(CountingEnv())
    env.reset(seed=0)
    result = asyncio.run(env.async_step(1))
    assert result.observation == 101 and result.info == {"w": 1}
    assert StepOnlyWrapper.async_step.__name__ == "async_step"
    assert StepOnlyWrapper.async_step.__qualname__ == "StepOnlyWrapper.async_step"


def test_async_fallback_honours_mixin() -> None:
    env = MixedWrapper(CountingEnv())
    assert asyncio.run(env.async_step(0)).info == {"mixin": True}


def test_async_fallback_keeps_genuine_async_path() -> None:
    env = Doubler(RealAsyncEnv())
    assert asyncio.run(env.async_step(0)).info == {"async": True}


def test_both_overridden_with_super_runs_each_layer_once() -> None:
    env = BothWithSuper(CountingEnv())
    env.reset(seed=0)
    result = asyncio.run(env.async_step(1))
    assert BothWithSuper.calls == 1
    assert result.observation == 101


class Agents(MultiAgentEnv[int, int, str]):
    def __init__(self) -> None:
        self.possible_agents = ["a", "b"]
        self.agents = ["a"]
        self.observation_spaces = {"a": "oa", "b": "ob"}  # type: ignore[dict-item]
        self.action_spaces = {"a": "aa", "b": "ab"}  # type: ignore[dict-item]

    def reset(self, *, seed: Any = None, options: Any = None) -> MAResetResult[int]:
        self._set_rng(seed)
        return MAResetResult({"a": 0}, {})

    def step(self, actions: dict[str, int]) -> MAStepResult[int]:
        return MAStepResult({"a": 1}, {"a": 1.0}, {"a": True}, {"a": False}, {})


def test_multi_agent_env() -> None:
    env = Agents()
    assert str(env) == repr(env) == "<Agents agents=['a']>"
    assert (env.num_agents, env.max_num_agents) == (1, 2)
    assert env.observation_space("b") == "ob" and env.action_space("a") == "aa"
    env.reset(seed=4)
    assert env._rng_seed == 4
    env.rng = np.random.default_rng(0)
    assert env._rng_seed == -1
    assert asyncio.run(env.async_step({"a": 0})).all_done
    with env:
        pass


def test_core_all() -> None:
    assert core.__all__ == [
        "StepResult",
        "ResetResult",
        "Env",
        "Wrapper",
        "ObservationWrapper",
        "RewardWrapper",
        "ActionWrapper",
        "MultiAgentEnv",
        "MAStepResult",
        "MAResetResult",
    ]
