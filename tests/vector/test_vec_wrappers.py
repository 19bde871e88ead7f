"""Vector wrapper bases: delegation, spaces, final observations and async paths."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest
from drift_envs import DriftVecEnv

import sekai
from sekai.error import VecEnvClosed
from sekai.vector import AsyncVecEnv, SyncVecEnv, VecEnv
from sekai.vector.native import LazyInfos
from sekai.vector.result import VecStepResult
from sekai.vector.vec_wrapper import (
    VecActionWrapper,
    VecObservationWrapper,
    VecRewardWrapper,
    VecWrapper,
)


class Countdown(sekai.Env):
    """obs = [t, last action]; reward 1 + action; terminates after ``length`` steps."""

    def __init__(self, length: int = 3) -> None:
        self.observation_space = sekai.Box(0.0, 100.0, shape=(2,))
        self.action_space = sekai.Discrete(2)
        self.length = length
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.t = 0
        return sekai.ResetResult(np.array([0.0, 0.0], np.float32), {"t": 0})

    def step(self, action: Any) -> Any:
        self.t += 1
        obs = np.array([self.t, action], np.float32)
        return sekai.StepResult(obs, 1.0 + int(action), self.t >= self.length, False, {"t": self.t})


def sync(lengths: tuple[int, ...] = (2, 3), **kwargs: Any) -> SyncVecEnv:
    return SyncVecEnv([lambda n=n: Countdown(n) for n in lengths], **kwargs)


class Identity(VecWrapper):
    pass


class Double(VecObservationWrapper):
    def observation(self, batch: Any) -> Any:
        return batch * 2


class Boxed(VecObservationWrapper):
    """Changes the space: every observation becomes ``{"x": obs}``."""

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.observation_space = sekai.Dict({"x": venv.observation_space})

    def observation(self, batch: Any) -> Any:
        return {"x": batch + 1}


class Recorder(VecWrapper):
    """Keeps the raw results of the env it wraps."""

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.results: list[Any] = []

    def step(self, actions: Any) -> Any:
        result = self.venv.step(actions)
        self.results.append(result)
        return result


class Negate(VecRewardWrapper):
    def reward(self, rewards: Any) -> Any:
        return -rewards


class Flip(VecActionWrapper):
    def action(self, actions: Any) -> Any:
        return 1 - np.asarray(actions)


# -- VecWrapper ---------------------------------------------------------------------------------


@pytest.mark.parametrize("venv", [3, None, sekai.make("CartPole-v1")])
def test_rejects_non_vec_env(venv: Any) -> None:
    with pytest.raises(TypeError) as e:
        Identity(venv)
    assert str(e.value) == f"Identity expected a VecEnv, got {type(venv).__name__}."


def test_copies_num_envs_and_autoreset_and_delegates_spaces() -> None:
    inner = sync(autoreset=False)
    vec = Identity(inner)
    assert (vec.num_envs, vec.autoreset, len(vec)) == (2, False, 2)
    assert vec.observation_space is inner.observation_space
    assert vec.action_space is inner.action_space
    assert vec.batch_action_space == sekai.MultiDiscrete([2, 2])
    assert vec.batch_action_space is vec.batch_action_space
    space = sekai.Box(-1.0, 1.0, shape=(2,))
    vec.observation_space = space
    assert vec.observation_space is space and inner.observation_space is not space
    assert vec.batch_observation_space.shape == (2, 2)
    vec.action_space = sekai.Discrete(3)
    assert vec.batch_action_space == sekai.MultiDiscrete([3, 3])
    assert inner.action_space == sekai.Discrete(2)


def test_spec_and_closed_delegate() -> None:
    inner = sync()
    vec = Identity(Identity(inner))
    assert vec.spec is None
    spec = sekai.spec("CartPole-v1")
    vec.spec = spec
    assert inner.spec is spec and vec.spec is spec
    assert not vec.closed
    vec.close()
    assert inner.closed and vec.closed
    with pytest.raises(VecEnvClosed):
        vec.step(np.zeros(2, int))
    vec.close()
    other = sync()
    Identity(other).closed = True
    assert other.closed


def test_unwrapped_repr_and_context_manager() -> None:
    inner = sync()
    vec = Double(Identity(inner))
    assert vec.unwrapped is inner
    assert repr(vec) == "Double(Identity(SyncVecEnv(num_envs=2)))"
    with vec as v:
        assert v is vec
    assert inner.closed


def test_step_reset_and_sub_env_access_delegate() -> None:
    vec = Identity(sync())
    first = vec.reset(seed=0)
    assert first.infos == [{"t": 0}, {"t": 0}]
    step = vec.step(np.array([1, 0]))
    assert step.rewards.tolist() == [2.0, 1.0]
    assert vec.get_attr("length") == [2, 3]
    vec.set_attr("length", [5, 6])
    assert vec.get_attr("length") == [5, 6]
    assert vec.call("step", 1)[0].info == {"t": 2}
    vec.close()


def test_async_methods_await_the_inner_async_methods() -> None:
    inner = AsyncVecEnv([lambda: Countdown(2)] * 2)
    vec = Negate(Double(Flip(Identity(inner))))

    async def main() -> VecStepResult:
        # Inside a running loop the sync AsyncVecEnv.step() refuses to run.
        await vec.async_reset(seed=0)
        return await vec.async_step(np.array([1, 0]))

    result = asyncio.run(main())
    assert result.observations.tolist() == [[2.0, 0.0], [2.0, 2.0]]
    assert result.rewards.tolist() == [-1.0, -2.0]
    vec.close()


# -- VecObservationWrapper ----------------------------------------------------------------------


def test_observation_wrapper_transforms_batches_and_final_observations() -> None:
    recorder = Recorder(sync((1, 3)))
    vec = Double(recorder)
    assert (vec.reset(seed=0).observations == 0).all()
    result = vec.step(np.array([1, 1]))
    np.testing.assert_array_equal(result.observations, [[0, 0], [2, 2]])
    np.testing.assert_array_equal(result.infos[0]["final_observation"], [2, 2])
    assert "final_observation" not in result.infos[1]
    # The inner result's info dict is left as it was.
    raw = recorder.results[-1].infos[0]
    np.testing.assert_array_equal(raw["final_observation"], [1, 1])
    assert result.infos[0] is not raw
    assert result.infos[0]["final_info"] == {"t": 1}


def test_default_final_observation_iterates_with_the_wrappers_space() -> None:
    vec = Boxed(sync((1, 1)))
    assert isinstance(vec.observation_space, sekai.Dict)
    vec.reset(seed=0)
    result = vec.step(np.array([0, 1]))
    final = result.infos[1]["final_observation"]
    assert set(final) == {"x"}
    np.testing.assert_array_equal(final["x"], [2.0, 2.0])
    assert vec.observation_space.contains(final)
    assert vec.final_observation(np.array([3.0, 4.0], np.float32))["x"].tolist() == [4.0, 5.0]


def test_final_observation_hook_can_be_overridden() -> None:
    class Demean(VecObservationWrapper):
        def observation(self, batch: Any) -> Any:
            return batch - batch.mean(axis=0, keepdims=True)

        def final_observation(self, obs: Any) -> Any:
            return obs

    vec = Demean(sync((1, 2)))
    assert np.allclose(vec.reset(seed=0).observations.mean(axis=0), 0.0)
    result = vec.step(np.array([1, 0]))
    np.testing.assert_array_equal(result.infos[0]["final_observation"], [1, 1])


def test_observation_wrapper_keeps_native_infos_lazy() -> None:
    vec = Double(DriftVecEnv(4, max_episode_steps=2))
    vec.reset(seed=0)
    first = vec.step(np.ones(4, int))
    assert isinstance(first.infos, LazyInfos) and not first.infos._filled
    second = vec.step(np.ones(4, int))
    assert second.dones.all()
    assert isinstance(second.infos, LazyInfos) and not second.infos._filled
    for i, info in enumerate(second.infos):
        raw = info["final_observation"] / 2
        assert vec.observation_space.contains(raw.astype(np.float32))
        assert info["final_observation"].shape == (1,)
        assert info["reset_info"] == {} and info["elapsed_steps"] == 2, i


def test_observation_wrapper_without_autoreset_leaves_frozen_infos_empty() -> None:
    vec = Double(sync((1, 3), autoreset=False))
    vec.reset(seed=0)
    vec.step(np.array([1, 1]))
    later = vec.step(np.array([1, 1]))
    assert later.infos[0] == {}
    np.testing.assert_array_equal(later.observations[0], [2, 2])


# -- VecRewardWrapper / VecActionWrapper --------------------------------------------------------


def test_reward_wrapper_transforms_rewards_only() -> None:
    vec = Negate(sync())
    vec.reset(seed=0)
    result = vec.step(np.array([1, 0]))
    assert result.rewards.tolist() == [-2.0, -1.0]
    np.testing.assert_array_equal(result.observations, [[1, 1], [1, 0]])
    assert result.infos == [{"t": 1}, {"t": 1}]


def test_action_wrapper_transforms_actions_before_the_step() -> None:
    vec = Flip(sync())
    vec.reset(seed=0)
    result = vec.step(np.array([1, 0]))
    np.testing.assert_array_equal(result.observations[:, 1], [0, 1])
    assert result.rewards.tolist() == [1.0, 2.0]


def test_abstract_hooks_are_required() -> None:
    for cls in (VecObservationWrapper, VecRewardWrapper, VecActionWrapper):
        with pytest.raises(TypeError):
            cls(sync())  # type: ignore[abstract]
