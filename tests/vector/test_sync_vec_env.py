"""SyncVecEnv and the semantics every VecEnv backend shares (Drift and CartPole)."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest
from drift_envs import Drift, Tracked

import sekai
from sekai.error import VecEnvClosed
from sekai.registry import make_vec
from sekai.utils.seeding import make_seed_sequence
from sekai.vector import SyncVecEnv, VecEnv, stack_infos
from sekai.vector.vec_env import GENERATOR_SEED_ERROR


def drift_vec(n: int = 3, **kwargs: Any) -> SyncVecEnv:
    return SyncVecEnv([lambda: Tracked(Drift()) for _ in range(n)], **kwargs)


def cartpole_vec(n: int = 2) -> SyncVecEnv:
    return SyncVecEnv([lambda: sekai.make("CartPole-v1") for _ in range(n)])


def test_repr_len_and_spaces() -> None:
    vec = cartpole_vec(4)
    assert repr(vec) == "SyncVecEnv(num_envs=4)"
    assert len(vec) == 4 and vec.num_envs == 4
    assert vec.observation_space is vec.envs[0].observation_space
    assert vec.action_space is vec.envs[0].action_space
    assert repr(vec.batch_action_space) == "MultiDiscrete([2, 2, 2, 2])"
    assert vec.batch_observation_space.shape == (4, 4)
    assert vec.spec is None and vec.autoreset is True and vec.closed is False
    assert vec.unwrapped is vec
    vec.close()


def test_batch_spaces_are_memoised_until_the_single_space_changes() -> None:
    vec = cartpole_vec(2)
    batch = vec.batch_action_space
    batch.seed(0)
    assert vec.batch_action_space is batch
    first = batch.sample()
    batch.seed(0)
    assert np.array_equal(vec.batch_action_space.sample(), first)
    vec.action_space = sekai.Discrete(3)
    assert vec.batch_action_space is not batch
    assert repr(vec.batch_action_space) == "MultiDiscrete([3, 3])"
    assert vec.batch_observation_space is vec.batch_observation_space


def test_empty_env_fns_rejected() -> None:
    with pytest.raises(ValueError, match="at least one"):
        SyncVecEnv([])


def test_int_seed_matches_individually_seeded_envs() -> None:
    vec = drift_vec(3)
    singles = [Drift() for _ in range(3)]
    seeds = make_seed_sequence(7, 3)
    result = vec.reset(seed=7)
    expected = [env.reset(seed=s).observation for env, s in zip(singles, seeds, strict=True)]
    assert np.array_equal(result.observations, np.stack(expected))
    for actions in ([1, 0, 1], [0, 0, 1], [1, 1, 1]):
        step = vec.step(np.array(actions))
        singles_steps = [env.step(a) for env, a in zip(singles, actions, strict=True)]
        assert np.array_equal(step.observations, np.stack([r.observation for r in singles_steps]))
        assert step.rewards.tolist() == [r.reward for r in singles_steps]


def test_seed_variants_are_accepted() -> None:
    vec = drift_vec(2)
    base = vec.reset(seed=3).observations
    assert np.array_equal(vec.reset(seed=np.int64(3)).observations, base)
    assert np.array_equal(vec.reset(seed=3.0).observations, base)
    seeds = make_seed_sequence(3, 2)
    assert np.array_equal(vec.reset(seed=seeds).observations, base)


def test_seed_list_none_entry_continues_that_stream() -> None:
    vec = drift_vec(2)
    vec.reset(seed=[10, 20])
    result = vec.reset(seed=[None, 20])
    single = Drift()
    single.reset(seed=10)
    assert result.observations[0] == single.reset().observation
    assert result.observations[1] == Drift().reset(seed=20).observation


def test_seed_none_continues_every_stream() -> None:
    vec = drift_vec(2)
    vec.reset(seed=[1, 2])
    again = vec.reset()
    singles = [Drift(), Drift()]
    for env, s in zip(singles, [1, 2], strict=True):
        env.reset(seed=s)
    assert np.array_equal(again.observations, np.stack([e.reset().observation for e in singles]))


def test_bad_seeds() -> None:
    vec = drift_vec(2)
    with pytest.raises(TypeError) as info:
        vec.reset(seed=np.random.default_rng(0))
    assert str(info.value) == GENERATOR_SEED_ERROR
    assert "Generator" in GENERATOR_SEED_ERROR
    with pytest.raises(ValueError, match="num_envs=2"):
        vec.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError):
        vec.reset(seed="abc")


def test_options_shared_or_per_env() -> None:
    vec = drift_vec(3)
    result = vec.reset(seed=0, options={"x": 1.5})
    assert result.observations[:, 0].tolist() == [1.5, 1.5, 1.5]
    result = vec.reset(seed=0, options=[{"x": 1.0}, None, {"x": -2.0}])
    assert result.observations[0, 0] == 1.0 and result.observations[2, 0] == -2.0
    assert result.observations[1, 0] == Drift().reset(seed=make_seed_sequence(0, 3)[1]).observation
    with pytest.raises(ValueError, match="options"):
        vec.reset(options=[{}, {}])


def test_step_outputs_are_batched_and_typed() -> None:
    vec = drift_vec(3)
    vec.reset(seed=0)
    result = vec.step([1, 0, 1])
    assert result.observations.shape == (3, 1) and result.observations.dtype == np.float32
    assert result.rewards.dtype == np.float64
    assert result.terminated.dtype == np.bool_ and result.truncated.dtype == np.bool_
    assert result.infos == [{}, {}, {}]
    assert len({id(info) for info in result.infos}) == 3


def test_wrong_action_count() -> None:
    vec = drift_vec(3)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="num_envs=3"):
        vec.step(np.array([1, 0]))
    with pytest.raises(ValueError, match="num_envs=3"):
        vec.step([1, 0, 1, 1])


def test_cartpole_guide_example() -> None:
    vec = make_vec("CartPole-v1", num_envs=4)
    actions = vec.batch_action_space
    actions.seed(0)
    vec.reset(seed=0)
    result = vec.step(actions.sample())
    assert result.observations.shape == (4, 4)
    assert result.rewards.tolist() == [1.0, 1.0, 1.0, 1.0]
    result = vec.step([0, 1, 0, 1])
    assert stack_infos(result.infos)["elapsed_steps"].tolist() == [2, 2, 2, 2]
    vec.close()


def finish_first(vec: SyncVecEnv) -> Any:
    """Reset with sub-env 0 near the edge and push it over; the others start at 0."""
    vec.reset(seed=0, options=[{"x": 4.99}] + [{"x": 0.0}] * (vec.num_envs - 1))
    return vec.step(np.array([1] + [0] * (vec.num_envs - 1)))


def test_same_step_autoreset() -> None:
    vec = drift_vec(2)
    result = finish_first(vec)
    assert result.terminated.tolist() == [True, False]
    info = result.infos[0]
    assert sorted(info) == ["final_info", "final_observation", "reset_info"]
    assert info["final_observation"][0] > 5
    assert info["final_info"] == {} and info["reset_info"] == {}
    assert abs(result.observations[0, 0]) < 5
    assert result.rewards[0] < -5
    assert result.infos[1] == {}
    assert vec.get_attr("resets") == [2, 1]


def test_autoreset_sub_env_is_not_reset_twice() -> None:
    vec = SyncVecEnv([lambda: sekai.AutoReset(Tracked(Drift())) for _ in range(2)])
    result = finish_first(vec)
    assert result.dones.tolist() == [True, False]
    assert "final_observation" in result.infos[0]
    assert vec.get_attr("resets") == [2, 1]


def test_autoreset_off_freezes_finished_sub_envs() -> None:
    vec = drift_vec(2, autoreset=False)
    first = finish_first(vec)
    assert first.infos[0] == {} and vec.get_attr("steps") == [1, 1]
    later = vec.step(np.array([99, 0]))  # an invalid action for the frozen sub-env is ignored
    assert vec.get_attr("steps") == [1, 2]
    assert later.terminated.tolist() == [True, False] and later.dones[0]
    assert later.rewards[0] == 0.0 and later.infos[0] == {}
    assert np.array_equal(later.observations[0], first.observations[0])
    assert vec.get_attr("resets") == [1, 1]
    vec.reset(seed=0)
    vec.step(np.array([0, 0]))
    assert vec.get_attr("steps") == [2, 3]


def test_self_resetting_sub_env_never_freezes() -> None:
    vec = SyncVecEnv([lambda: sekai.AutoReset(Tracked(Drift())) for _ in range(2)], autoreset=False)
    finish_first(vec)
    vec.step(np.array([0, 0]))
    assert vec.get_attr("steps") == [2, 2]


def test_closed_env_raises_and_close_is_idempotent() -> None:
    vec = drift_vec(2)
    with vec:
        vec.reset(seed=0)
    assert vec.closed
    assert vec.get_attr("closes") == [1, 1]
    with pytest.raises(VecEnvClosed):
        vec.step([0, 0])
    with pytest.raises(VecEnvClosed):
        vec.reset()
    vec.close()
    assert vec.get_attr("closes") == [1, 1]


def test_close_closes_all_then_raises_first_error() -> None:
    vec = SyncVecEnv(
        [
            lambda: Tracked(Drift()),
            lambda: Tracked(Drift(), fail_close="first"),
            lambda: Tracked(Drift(), fail_close="second"),
        ]
    )
    with pytest.raises(RuntimeError, match="first"):
        vec.close()
    assert vec.get_attr("closes") == [1, 1, 1]
    assert vec.closed
    vec.close()


def test_failing_factory_closes_the_built_envs() -> None:
    built: list[Tracked] = []

    def good() -> Tracked:
        env = Tracked(Drift(), fail_close="close errors are suppressed")
        built.append(env)
        return env

    def bad() -> Tracked:
        raise OSError("cannot build")

    with pytest.raises(OSError, match="cannot build"):
        SyncVecEnv([good, good, bad, good])
    assert [env.closes for env in built] == [1, 1]


def test_get_set_call_through_wrapper_stack() -> None:
    vec = cartpole_vec(2)
    assert vec.get_attr("max_episode_steps") == [500, 500]
    assert vec.get_attr("x_threshold") == [2.4, 2.4]
    vec.set_attr("x_threshold", [2.0, 3.0])
    assert vec.get_attr("x_threshold") == [2.0, 3.0]
    assert vec.envs[0].unwrapped.x_threshold == 2.0
    vec.set_attr("x_threshold", 1.0)
    assert vec.get_attr("x_threshold") == [1.0, 1.0]
    assert vec.call("x_threshold") == [1.0, 1.0]
    assert vec.call("has_attr", "x_threshold") == [True, True]
    with pytest.raises(ValueError, match="num_envs=2"):
        vec.set_attr("x_threshold", [1.0])
    with pytest.raises(AttributeError):
        vec.get_attr("no_such_attribute")
    with pytest.raises(AttributeError):
        vec.call("no_such_attribute")


def test_async_fallbacks() -> None:
    class Doubling(SyncVecEnv):
        def step(self, actions: Any) -> Any:
            result = super().step(actions)
            return type(result)(
                result.observations,
                2 * result.rewards,
                result.terminated,
                result.truncated,
                result.infos,
            )

    vec = Doubling([Drift, Drift])
    vec.reset(seed=0)
    sync = vec.step([0, 0]).rewards
    vec.reset(seed=0)
    assert asyncio.run(vec.async_step([0, 0])).rewards.tolist() == sync.tolist()
    assert Doubling.async_step.__qualname__ == "Doubling.async_step"
    reset = asyncio.run(vec.async_reset(seed=0))
    assert reset.observations.shape == (2, 1)


def test_vec_env_is_abstract() -> None:
    with pytest.raises(TypeError):
        VecEnv()  # type: ignore[abstract]
