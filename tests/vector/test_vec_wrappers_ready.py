"""Ready-made vector wrappers: episode statistics, normalisation and transforms."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest
from drift_envs import DriftVecEnv

import sekai
from sekai.registry import make_vec
from sekai.stats import EpisodeStats, InMemoryTracker
from sekai.utils.normalization import ObservationNormalizer
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd
from sekai.vector import AsyncVecEnv, SyncVecEnv, VecEnv
from sekai.vector.native import LazyInfos
from sekai.vector.vec_wrapper import VecWrapper
from sekai.vector.wrappers import (
    VecNormalizeObservation,
    VecNormalizeReward,
    VecRecordEpisodeStatistics,
    VecTransformObservation,
    VecTransformReward,
)

SHARED_INFO: dict[str, Any] = {"shared": True}


class Countdown(sekai.Env):
    """obs = [t, last action]; reward 1 + action; terminates after ``length`` steps.

    Every step returns the same info dict object, so wrappers must not write into it.
    """

    def __init__(self, length: int = 3) -> None:
        self.observation_space = sekai.Box(0.0, 100.0, shape=(2,))
        self.action_space = sekai.Discrete(2)
        self.length = length
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.t = 0
        return sekai.ResetResult(np.array([0.0, 0.0], np.float32), {})

    def step(self, action: Any) -> Any:
        self.t += 1
        obs = np.array([self.t, action], np.float32)
        return sekai.StepResult(obs, 1.0 + int(action), self.t >= self.length, False, SHARED_INFO)


def sync(lengths: tuple[int, ...] = (2, 3), **kwargs: Any) -> SyncVecEnv:
    return SyncVecEnv([lambda n=n: Countdown(n) for n in lengths], **kwargs)


class Recorder(VecWrapper):
    """Keeps the raw results of the env it wraps."""

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.results: list[Any] = []

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        result = self.venv.reset(seed=seed, options=options)
        self.results.append(result)
        return result

    def step(self, actions: Any) -> Any:
        result = self.venv.step(actions)
        self.results.append(result)
        return result


class CountingTracker(InMemoryTracker):
    def __init__(self) -> None:
        super().__init__(max_episodes=None)
        self.calls: list[str] = []

    def on_reset(self, env_id: str | None, seed: int | None) -> None:
        self.calls.append("reset")

    def on_step(self, reward: float, terminated: bool, truncated: bool, info: Any) -> None:
        self.calls.append("step")


# -- VecRecordEpisodeStatistics -----------------------------------------------------------------


def test_episode_statistics_per_sub_env_with_autoreset() -> None:
    tracker = CountingTracker()
    vec = VecRecordEpisodeStatistics(sync((2, 3)), tracker=tracker)
    vec.reset(seed=0)
    seen: list[tuple[int, int, EpisodeStats]] = []
    for t in range(1, 7):
        result = vec.step(np.array([1, 0]))
        for i, info in enumerate(result.infos):
            if "episode" in info:
                seen.append((t, i, info["episode"]))
            assert ("episode" in info) == bool(result.dones[i])
    assert [(t, i) for t, i, _ in seen] == [(2, 0), (3, 1), (4, 0), (6, 0), (6, 1)]
    first = seen[0][2]
    assert (first.episode_return, first.episode_length, first.extra) == (4.0, 2, {"env_index": 0})
    assert first.terminated and not first.truncated
    assert seen[1][2].episode_return == 3.0 and seen[1][2].episode_length == 3
    assert seen[1][2].extra == {"env_index": 1}
    for _, _, stats in seen:
        assert stats.end_time >= stats.start_time
        assert stats.elapsed_time == pytest.approx(stats.end_time - stats.start_time)
        assert isinstance(stats.episode_return, float) and isinstance(stats.episode_length, int)
        assert isinstance(stats.extra["env_index"], int)
    assert seen[2][2].start_time == seen[0][2].end_time
    assert [e.extra["env_index"] for e in tracker.episodes] == [0, 1, 0, 0, 1]
    assert tracker.calls == []
    assert SHARED_INFO == {"shared": True}
    assert vec.tracker is tracker


def test_episode_statistics_without_autoreset_records_each_episode_once() -> None:
    vec = VecRecordEpisodeStatistics(sync((1, 3), autoreset=False))
    for _ in range(2):
        vec.reset(seed=0)
        episodes = []
        for _ in range(5):
            result = vec.step(np.array([1, 1]))
            episodes += [
                (i, info["episode"]) for i, info in enumerate(result.infos) if "episode" in info
            ]
        assert [(i, e.episode_return, e.episode_length) for i, e in episodes] == [
            (0, 2.0, 1),
            (1, 6.0, 3),
        ]
    assert vec.tracker.summary()["num_episodes"] == 4


def test_episode_statistics_of_self_resetting_sub_envs_are_not_frozen() -> None:
    fns = [lambda: sekai.AutoReset(Countdown(2))] * 2
    vec = VecRecordEpisodeStatistics(SyncVecEnv(fns, autoreset=False))
    vec.reset(seed=0)
    lengths = []
    for _ in range(6):
        result = vec.step(np.zeros(2, int))
        lengths += [info["episode"].episode_length for info in result.infos if "episode" in info]
    assert lengths == [2] * 6


@pytest.mark.parametrize("autoreset", [True, False])
def test_episode_statistics_on_native_envs_stay_lazy(autoreset: bool) -> None:
    vec = VecRecordEpisodeStatistics(DriftVecEnv(3, max_episode_steps=2, autoreset=autoreset))
    vec.reset(seed=0)
    first = vec.step(np.ones(3, int))
    assert isinstance(first.infos, LazyInfos) and not first.infos._filled
    second = vec.step(np.ones(3, int))
    assert isinstance(second.infos, LazyInfos) and not second.infos._filled
    assert [info["episode"].extra for info in second.infos] == [{"env_index": i} for i in range(3)]
    assert all(info["episode"].episode_length == 2 for info in second.infos)
    expected = second.rewards + first.rewards
    returns = [info["episode"].episode_return for info in second.infos]
    np.testing.assert_allclose(returns, expected)
    third = vec.step(np.ones(3, int))
    assert sum("episode" in info for info in third.infos) == 0
    assert len(vec.tracker.episodes) == 3


def test_episode_statistics_async_path_and_validation() -> None:
    vec = VecRecordEpisodeStatistics(AsyncVecEnv([lambda: Countdown(1)] * 2))

    async def main() -> Any:
        await vec.async_reset(seed=0)
        return await vec.async_step(np.zeros(2, int))

    result = asyncio.run(main())
    assert [info["episode"].episode_length for info in result.infos] == [1, 1]
    vec.close()
    with pytest.raises(TypeError, match="StatsTracker"):
        VecRecordEpisodeStatistics(sync(), tracker=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="deque_size"):
        VecRecordEpisodeStatistics(sync(), deque_size=0)
    assert VecRecordEpisodeStatistics(sync(), deque_size=7).tracker.episodes.maxlen == 7


# -- VecNormalizeObservation --------------------------------------------------------------------


def test_normalize_observation_matches_the_normalizer_on_whole_batches() -> None:
    recorder = Recorder(make_vec("CartPole-v1", 4))
    vec = VecNormalizeObservation(recorder)
    reference = ObservationNormalizer(recorder.observation_space)
    assert vec.observation_space == reference.output_space
    assert vec.observation_space.dtype == np.float64
    actions = vec.batch_action_space
    actions.seed(0)
    outputs = [vec.reset(seed=0)]
    outputs += [vec.step(actions.sample()) for _ in range(60)]
    assert any(out.dones.any() for out in outputs)
    for out, raw in zip(outputs, recorder.results, strict=True):
        np.testing.assert_array_equal(out.observations, reference(raw.observations))
        for i in np.flatnonzero(out.dones):
            expected = reference.stats.normalize(raw.infos[i]["final_observation"])
            np.testing.assert_array_equal(out.infos[i]["final_observation"], expected)
            raw_final = raw.infos[i]["final_observation"]
            assert raw_final.dtype == np.float32
    assert vec.obs_rms is vec.normalizer.stats
    assert vec.obs_rms.count == pytest.approx(1e-4 + 4 * 61)
    assert vec.epsilon == 1e-8


def test_normalize_observation_counts_one_ewm_update_per_vector_step() -> None:
    vec = VecNormalizeObservation(make_vec("CartPole-v1", 8), stats="ewm", halflife=5.0, clip=2.0)
    assert isinstance(vec.obs_rms, ExponentialMovingStats)
    vec.reset(seed=0)
    for _ in range(3):
        out = vec.step(np.zeros(8, int))
    assert vec.obs_rms.count == 4
    assert np.abs(out.observations).max() <= 2.0
    assert vec.observation_space == sekai.Box(-2.0, 2.0, (4,), np.float64)


def test_normalize_observation_final_observation_does_not_update() -> None:
    vec = VecNormalizeObservation(sync((1, 1)))
    vec.reset(seed=0)
    before = vec.obs_rms.count
    result = vec.step(np.array([1, 1]))
    assert vec.obs_rms.count == before + 2
    final = result.infos[0]["final_observation"]
    np.testing.assert_array_equal(final, vec.obs_rms.normalize(np.array([1.0, 1.0])))


def test_normalize_observation_frozen_statistics_and_state_dict() -> None:
    vec = VecNormalizeObservation(make_vec("CartPole-v1", 2))
    vec.reset(seed=0)
    vec.step(np.zeros(2, int))
    state = vec.state_dict()
    vec.update_running_mean = False
    first = vec.step(np.zeros(2, int))
    assert vec.state_dict()["count"] == state["count"]
    other = VecNormalizeObservation(make_vec("CartPole-v1", 2))
    other.load_state_dict(state)
    np.testing.assert_array_equal(other.obs_rms.mean, vec.obs_rms.mean)
    assert other.obs_rms.count == vec.obs_rms.count
    assert first.observations.dtype == np.float64


def test_normalize_observation_dict_space_and_native_laziness() -> None:
    space = sekai.Dict({"x": sekai.Box(-1.0, 1.0, shape=(2,)), "k": sekai.Discrete(3)})

    def to_dict(batch: Any) -> Any:
        return {"x": np.repeat(batch, 2, axis=1), "k": np.zeros(len(batch), np.int64)}

    inner = VecTransformObservation(DriftVecEnv(3, max_episode_steps=1), to_dict, space)
    vec = VecNormalizeObservation(inner)
    assert isinstance(vec.obs_rms, dict) and vec.obs_rms["k"] is None
    assert isinstance(vec.obs_rms["x"], RunningMeanStd)
    vec.reset(seed=0)
    result = vec.step(np.ones(3, int))
    assert isinstance(result.infos, LazyInfos) and not result.infos._filled
    assert result.observations["x"].dtype == np.float64
    final = result.infos[0]["final_observation"]
    assert set(final) == {"x", "k"} and final["x"].shape == (2,)
    assert vec.observation_space.contains(final)


def test_normalize_observation_needs_a_box() -> None:
    class DiscreteObs(sekai.Env):
        observation_space = sekai.Discrete(3)
        action_space = sekai.Discrete(2)

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            return sekai.ResetResult(0, {})

        def step(self, action: Any) -> Any:
            return sekai.StepResult(0, 0.0, False, False, {})

    with pytest.raises(TypeError):
        VecNormalizeObservation(SyncVecEnv([DiscreteObs]))


# -- VecNormalizeReward -------------------------------------------------------------------------


def test_normalize_reward_tracks_discounted_returns_per_sub_env() -> None:
    recorder = Recorder(sync((2, 3)))
    vec = VecNormalizeReward(recorder, gamma=0.5)
    vec.reset(seed=0)
    rms = RunningMeanStd(shape=())
    returns = np.zeros(2)
    for _ in range(7):
        out = vec.step(np.array([1, 0]))
        raw = recorder.results[-1]
        returns = returns * 0.5 + raw.rewards
        rms.update(returns)
        np.testing.assert_array_equal(out.rewards, raw.rewards / np.sqrt(rms.var + 1e-8))
        returns[raw.dones] = 0.0
    assert vec.return_rms.count == rms.count
    vec.reset()
    assert not vec._returns.any()
    vec.update_running_mean = False
    count = vec.return_rms.count
    vec.step(np.array([1, 0]))
    assert vec.return_rms.count == count


def test_normalize_reward_with_one_sub_env_matches_normalize_reward() -> None:
    vec = VecNormalizeReward(make_vec("CartPole-v1", 1), gamma=0.9)
    env = sekai.NormalizeReward(sekai.AutoReset(sekai.make("CartPole-v1")), gamma=0.9)
    vec.reset(seed=[3])
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(80):
        a = int(rng.integers(2))
        got, want = vec.step(np.array([a])), env.step(a)
        assert got.rewards[0] == want.reward
    assert float(vec.return_rms.var) == float(env.return_rms.var)


def test_normalize_reward_validation_and_async() -> None:
    with pytest.raises(ValueError, match="gamma"):
        VecNormalizeReward(sync(), gamma=1.5)
    with pytest.raises(ValueError, match="epsilon"):
        VecNormalizeReward(sync(), epsilon=-1.0)
    vec = VecNormalizeReward(AsyncVecEnv([lambda: Countdown(2)] * 2))

    async def main() -> Any:
        await vec.async_reset(seed=0)
        return await vec.async_step(np.ones(2, int))

    result = asyncio.run(main())
    assert result.rewards.tolist() == pytest.approx([2.0 / np.sqrt(vec.return_rms.var + 1e-8)] * 2)
    vec.close()


# -- transforms ---------------------------------------------------------------------------------


def test_transform_observation() -> None:
    space = sekai.Box(0.0, 200.0, shape=(2,))
    vec = VecTransformObservation(sync((1, 2)), lambda batch: batch * 2, space)
    assert vec.observation_space is space and vec.func(np.ones(1)).tolist() == [2.0]
    vec.reset(seed=0)
    result = vec.step(np.array([1, 1]))
    np.testing.assert_array_equal(result.observations, [[0, 0], [2, 2]])
    np.testing.assert_array_equal(result.infos[0]["final_observation"], [2, 2])
    plain = VecTransformObservation(sync(), lambda batch: batch)
    assert plain.observation_space is plain.venv.observation_space
    with pytest.raises(TypeError):
        VecTransformObservation(sync())  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        VecTransformObservation(sync(), fn=lambda b: b)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="callable"):
        VecTransformObservation(sync(), 3)  # type: ignore[arg-type]


def test_transform_reward_casts_to_float64() -> None:
    vec = VecTransformReward(sync(), lambda r: (r * 10).astype(np.int32))
    vec.reset(seed=0)
    result = vec.step(np.array([1, 0]))
    assert result.rewards.dtype == np.float64 and result.rewards.tolist() == [20.0, 10.0]
    assert vec.func(np.ones(1)).dtype == np.int32
    with pytest.raises(TypeError):
        VecTransformReward(sync())  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="callable"):
        VecTransformReward(sync(), None)  # type: ignore[arg-type]


# -- the guide's examples -----------------------------------------------------------------------


def test_ppo_style_stack() -> None:
    stats = VecRecordEpisodeStatistics(make_vec("Pendulum-v1", num_envs=8))
    vec = VecNormalizeReward(VecNormalizeObservation(stats), gamma=0.99)
    assert repr(vec) == (
        "VecNormalizeReward(VecNormalizeObservation(VecRecordEpisodeStatistics("
        "SyncVecEnv(num_envs=8))))"
    )
    assert vec.unwrapped is stats.venv
    actions = vec.batch_action_space
    actions.seed(0)
    vec.reset(seed=0)
    for _ in range(250):
        result = vec.step(actions.sample())
        for i in np.flatnonzero(result.truncated):
            final = result.infos[i]["final_observation"]
            assert final.dtype == np.float64 and final.shape == (3,)
    assert stats.tracker.summary()["num_episodes"] == 8
    vec.close()
    assert stats.closed


def test_full_stack_on_a_native_env_never_builds_infos() -> None:
    stats = VecRecordEpisodeStatistics(DriftVecEnv(64, max_episode_steps=5))
    vec = VecTransformReward(
        VecNormalizeReward(
            VecNormalizeObservation(VecTransformObservation(stats, lambda b: b * 1.0))
        ),
        lambda r: r,
    )
    vec.reset(seed=0)
    for t in range(1, 11):
        result = vec.step(np.ones(64, int))
        assert isinstance(result.infos, LazyInfos) and not result.infos._filled
        assert result.dones.all() == (t % 5 == 0)
    assert len(stats.tracker.episodes) == 100
    assert [info["episode"].episode_length for info in result.infos] == [5] * 64
    assert result.infos[3]["final_observation"].dtype == np.float64
