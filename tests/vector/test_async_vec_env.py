"""AsyncVecEnv: concurrency, errors, event loops and the shared VecEnv semantics."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest
from drift_envs import Drift, Tracked

import sekai
from sekai.error import VecEnvClosed
from sekai.utils.seeding import make_seed_sequence
from sekai.vector import AsyncVecEnv, SyncVecEnv
from sekai.vector.vec_env import GENERATOR_SEED_ERROR


class SlowEnv(sekai.Env):
    """An env with a genuine async step that logs when it starts and ends."""

    def __init__(self, index: int, log: list[str], fail: BaseException | None = None) -> None:
        self.observation_space = sekai.Box(-1.0, 1.0, shape=(1,))
        self.action_space = sekai.Discrete(2)
        self.index, self.log, self.fail = index, log, fail
        self.steps = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        return sekai.ResetResult(np.zeros(1, np.float32), {})

    def step(self, action: Any) -> Any:
        raise AssertionError("the async path must be used")

    async def async_step(self, action: Any) -> Any:
        self.log.append(f"start {self.index}")
        if self.fail is not None and self.index % 2:
            raise self.fail
        try:
            await asyncio.sleep(0.01 * (self.index + 1))
        except asyncio.CancelledError:
            self.log.append(f"cancelled {self.index}")
            raise
        self.steps += 1
        self.log.append(f"end {self.index}")
        return sekai.StepResult(np.full(1, self.index, np.float32), 1.0, False, False, {})


def slow_vec(n: int, log: list[str], fail: BaseException | None = None) -> AsyncVecEnv:
    return AsyncVecEnv([lambda i=i: SlowEnv(i, log, fail) for i in range(n)])


def test_sub_envs_run_concurrently() -> None:
    log: list[str] = []
    vec = slow_vec(3, log)
    vec.reset()
    result = vec.step([0, 0, 0])
    assert log[:3] == ["start 0", "start 1", "start 2"]
    assert result.observations[:, 0].tolist() == [0.0, 1.0, 2.0]
    assert repr(vec) == "AsyncVecEnv(num_envs=3)"
    vec.close()


def test_first_error_in_env_order_after_all_complete() -> None:
    log: list[str] = []
    vec = AsyncVecEnv(
        [
            lambda: SlowEnv(0, log),
            lambda: SlowEnv(1, log, KeyError("one")),
            lambda: SlowEnv(2, log),
            lambda: SlowEnv(3, log, ValueError("three")),
        ]
    )
    vec.reset()
    with pytest.raises(KeyError, match="one"):
        vec.step([0, 0, 0, 0])
    assert [env.steps for env in vec.envs] == [1, 0, 1, 0]


def test_step_inside_running_loop_raises_and_await_works() -> None:
    vec = AsyncVecEnv([Drift, Drift])

    async def main() -> Any:
        with pytest.raises(RuntimeError, match="running event loop") as info:
            vec.step([0, 0])
        assert "await" in str(info.value) and "async_step" in str(info.value)
        with pytest.raises(RuntimeError, match="async_reset"):
            vec.reset()
        await vec.async_reset(seed=0)
        return await vec.async_step([1, 1])

    result = asyncio.run(main())
    assert result.observations.shape == (2, 1)
    vec.close()


def test_interrupted_run_cancels_pending_tasks() -> None:
    log: list[str] = []
    vec = slow_vec(2, log, KeyboardInterrupt())
    vec.reset()
    with pytest.raises(KeyboardInterrupt):
        vec.step([0, 0])
    assert "cancelled 0" in log or "end 0" in log
    assert vec._loop is not None and not asyncio.all_tasks(vec._loop)
    vec.close()
    assert vec._loop is None


def test_close_cleans_the_loop_and_is_idempotent() -> None:
    vec = AsyncVecEnv([lambda: Tracked(Drift()), lambda: Tracked(Drift(), fail_close="boom")])
    vec.reset(seed=0)
    loop = vec._loop
    assert loop is not None
    with pytest.raises(RuntimeError, match="boom"):
        vec.close()
    assert loop.is_closed() and vec._loop is None and vec.closed
    assert vec.get_attr("closes") == [1, 1]
    vec.close()
    with pytest.raises(VecEnvClosed):
        vec.step([0, 0])
    with pytest.raises(VecEnvClosed):
        vec.reset()


def test_matches_sync_vec_env() -> None:
    def fns() -> list[Any]:
        return [lambda: Tracked(Drift()) for _ in range(3)]

    sync, asynchronous = SyncVecEnv(fns()), AsyncVecEnv(fns())
    assert np.array_equal(sync.reset(seed=4).observations, asynchronous.reset(seed=4).observations)
    for _ in range(30):
        a, b = sync.step([1, 1, 1]), asynchronous.step([1, 1, 1])
        assert np.array_equal(a.observations, b.observations)
        assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.dones, b.dones)
        assert [sorted(i) for i in a.infos] == [sorted(i) for i in b.infos]
    assert min(sync.get_attr("resets")) > 1


def test_seeds_options_and_errors() -> None:
    vec = AsyncVecEnv([Drift, Drift])
    first = vec.reset(seed=9, options=[{"x": 1.0}, None])
    assert first.observations[0, 0] == 1.0
    assert first.observations[1, 0] == Drift().reset(seed=make_seed_sequence(9, 2)[1]).observation
    with pytest.raises(TypeError, match="Generator"):
        vec.reset(seed=np.random.default_rng(0))
    with pytest.raises(TypeError) as info:
        vec.reset(seed=np.random.default_rng(0))
    assert str(info.value) == GENERATOR_SEED_ERROR
    with pytest.raises(ValueError, match="num_envs=2"):
        vec.reset(seed=[1])
    with pytest.raises(ValueError, match="num_envs=2"):
        vec.step([0, 0, 0])
    with pytest.raises(ValueError, match="at least one"):
        AsyncVecEnv([])


def test_autoreset_off_freezes() -> None:
    vec = AsyncVecEnv([lambda: Tracked(Drift()) for _ in range(2)], autoreset=False)
    vec.reset(seed=0, options=[{"x": 4.99}, {"x": 0.0}])
    first = vec.step(np.array([1, 0]))
    later = vec.step(np.array([7, 0]))
    assert vec.get_attr("steps") == [1, 2]
    assert later.rewards[0] == 0.0 and later.infos[0] == {} and later.terminated[0]
    assert np.array_equal(later.observations[0], first.observations[0])


def test_autoreset_and_attributes() -> None:
    vec = AsyncVecEnv([lambda: Tracked(Drift()) for _ in range(2)])
    vec.reset(seed=0, options=[{"x": 4.99}, {"x": 0.0}])
    result = vec.step(np.array([1, 0]))
    assert sorted(result.infos[0]) == ["final_info", "final_observation", "reset_info"]
    assert vec.get_attr("resets") == [2, 1]
    vec.set_attr("steps", [10, 20])
    assert vec.call("steps") == [10, 20]
    with pytest.raises(AttributeError):
        vec.get_attr("missing")
