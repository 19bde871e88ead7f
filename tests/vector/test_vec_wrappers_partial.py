"""Vector wrappers on the partial batches of ``send`` / ``recv``: statistics from the rows
that arrived, episodes per ``env_id``."""

from __future__ import annotations

from typing import Any

import numpy as np
import proc_toy_envs as toys
import pytest

from sekai.vector import (
    SyncVecEnv,
    VecNormalizeObservation,
    VecNormalizeReward,
    VecRecordEpisodeStatistics,
    VecWrapper,
)
from sekai.vector.result import VecStepResult

ToyEnv = toys.ToyEnv


def toys_of(lengths: list[int]) -> SyncVecEnv:
    return SyncVecEnv([lambda n=n: ToyEnv(length=n) for n in lengths])


def episodes(vec: VecRecordEpisodeStatistics[Any, Any]) -> list[tuple[int, float, int]]:
    summary = vec.tracker.episodes  # type: ignore[attr-defined]
    return sorted((e.extra["env_index"], e.episode_return, e.episode_length) for e in summary)


def test_episode_statistics_follow_env_ids() -> None:
    lengths = [2, 3, 5]
    whole = VecRecordEpisodeStatistics(toys_of(lengths))
    split = VecRecordEpisodeStatistics(toys_of(lengths))
    whole.reset(seed=0), split.reset(seed=0)
    for _ in range(6):
        whole.step(np.zeros(3, dtype=np.int64))
    counts = [0, 0, 0]
    order = [[2], [0, 1], [2, 0], [1], [0, 1, 2], [2], [0, 1], [2, 0], [1], [0, 1, 2], [2]]
    for ids in order:
        ids = [i for i in ids if counts[i] < 6]
        if not ids:
            continue
        split.send(np.zeros(len(ids), dtype=np.int64), env_ids=ids)
        result = split.recv()
        assert result.env_ids.tolist() == sorted(ids)
        for k, i in enumerate(result.env_ids.tolist()):
            counts[i] += 1
            if result.terminated[k]:
                assert result.infos[k]["episode"].extra == {"env_index": i}
    assert counts == [6, 6, 6]
    assert episodes(split) == episodes(whole)
    # ToyEnv's reward is its step count: an episode of n steps returns n (n + 1) / 2
    assert episodes(whole) == [(0, 3.0, 2)] * 3 + [(1, 6.0, 3)] * 2 + [(2, 15.0, 5)]


def test_normalize_reward_updates_the_rows_that_arrived() -> None:
    vec = VecNormalizeReward(toys_of([9, 9, 9]), gamma=0.5)
    vec.reset(seed=0)
    vec.send(np.zeros(3, dtype=np.int64))
    vec.recv()  # returns [1, 1, 1]
    count = vec.return_rms.count
    vec.send(np.zeros(2, dtype=np.int64), env_ids=[2, 0])
    result = vec.recv()
    assert result.env_ids.tolist() == [0, 2]
    assert vec._returns.tolist() == [2.5, 1.0, 2.5]  # 1 * 0.5 + 2 for sub-envs 0 and 2 only
    assert vec.return_rms.count == pytest.approx(count + 2)
    scale = np.sqrt(vec.return_rms.var + vec.epsilon)
    np.testing.assert_allclose(result.rewards, np.array([2.0, 2.0]) / scale)


def test_normalize_observation_updates_from_the_rows_that_arrived() -> None:
    vec = VecNormalizeObservation(toys_of([9, 9, 9]))
    vec.reset(seed=0)
    count = vec.obs_rms.count
    vec.send(np.zeros(2, dtype=np.int64), env_ids=[1, 2])
    result = vec.recv()
    assert result.env_ids.tolist() == [1, 2] and result.observations.shape == (2, 2)
    assert vec.obs_rms.count == pytest.approx(count + 2)


class _Doubled(VecWrapper[Any, Any, Any, Any]):
    def step(self, actions: Any) -> VecStepResult[Any]:
        result = self.venv.step(actions)
        return VecStepResult(
            result.observations,
            result.rewards * 2,
            result.terminated,
            result.truncated,
            result.infos,
        )


def test_a_wrapper_that_changes_step_only_refuses_recv() -> None:
    vec = _Doubled(toys_of([3, 3]))
    vec.reset(seed=0)
    vec.send(np.zeros(2, dtype=np.int64))
    with pytest.raises(NotImplementedError, match="overrides step\\(\\) but not recv\\(\\)"):
        vec.recv()
    vec.close()


def test_wrappers_stack_on_partial_batches() -> None:
    vec = VecNormalizeReward(VecRecordEpisodeStatistics(toys_of([2, 4])))
    vec.reset(seed=1)
    for _ in range(4):
        vec.send(np.zeros(1, dtype=np.int64), env_ids=[0])
        result = vec.recv()
        assert result.env_ids.tolist() == [0]
    assert vec._returns[1] == 0.0
    assert isinstance(vec.venv, VecRecordEpisodeStatistics)
    assert episodes(vec.venv) == [(0, 3.0, 2), (0, 3.0, 2)]
