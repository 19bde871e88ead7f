"""Code written for gymnasium's vector API: results unpack, ``single_*_space`` answer."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np
import pytest

import sekai
from sekai.spaces import Box
from sekai.vector import (
    VecEnv,
    VecNormalizeObservation,
    VecRecordEpisodeStatistics,
    VecResetResult,
    VecStepResult,
    VecTransformObservation,
)


def test_vec_step_result_unpacks_indexes_and_counts_as_its_fields() -> None:
    result = VecStepResult(
        np.zeros((2, 3)), np.array([1.0, 2.0]), np.array([True, False]), np.zeros(2, bool), [{}, {}]
    )
    fields = (result.observations, result.rewards, result.terminated, result.truncated)
    obs, rewards, terminated, truncated, infos = result
    assert all(a is b for a, b in zip((obs, rewards, terminated, truncated), fields, strict=True))
    assert infos is result.infos
    assert len(result) == 5
    assert result[0] is result.observations and result[-1] is result.infos
    assert result[1:3] == (result.rewards, result.terminated)
    with pytest.raises(IndexError):
        result[5]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.rewards = np.zeros(2)  # type: ignore[misc]
    assert not hasattr(result, "__dict__")


def test_vec_reset_result_unpacks_as_obs_and_infos() -> None:
    result = VecResetResult(np.ones((2, 1)), [{"a": 1}, {}])
    obs, infos = result
    assert obs is result.observations and infos is result.infos
    assert len(result) == 2 and result[0] is obs and result[1] is infos
    assert result == VecResetResult(result.observations, [{"a": 1}, {}])
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.infos = []  # type: ignore[misc]


MODES = [("Trading-v0", "native"), ("CartPole-v1", "sync"), ("CartPole-v1", "async")]
MODES.append(("CartPole-v1", "proc"))


@pytest.fixture(params=MODES, ids=[mode for _, mode in MODES])
def vec(request: pytest.FixtureRequest) -> Iterator[VecEnv]:
    env_id, mode = request.param
    built = sekai.make_vec(env_id, 2, vectorization_mode=mode)
    yield built
    built.close()


def test_every_backend_unpacks_and_answers_single_spaces(vec: VecEnv) -> None:
    assert vec.single_observation_space is vec.observation_space
    assert vec.single_action_space is vec.action_space
    assert vec.batch_observation_space != vec.single_observation_space
    obs, infos = vec.reset(seed=0)
    assert vec.batch_observation_space.contains(obs) and len(infos) == 2
    vec.batch_action_space.seed(0)
    obs, rewards, terminated, truncated, infos = vec.step(vec.batch_action_space.sample())
    assert vec.batch_observation_space.contains(obs)
    assert rewards.shape == terminated.shape == truncated.shape == (2,) and len(infos) == 2


def test_single_spaces_are_read_only(vec: VecEnv) -> None:
    with pytest.raises(AttributeError):
        vec.single_observation_space = vec.observation_space  # type: ignore[misc]
    with pytest.raises(AttributeError):
        vec.single_action_space = vec.action_space  # type: ignore[misc]


def test_vector_wrappers_answer_single_spaces_of_their_own_layer() -> None:
    base = sekai.make_vec("CartPole-v1", 2, vectorization_mode="sync")
    normalized = VecNormalizeObservation(base)
    stats = VecRecordEpisodeStatistics(normalized)
    assert normalized.observation_space != base.observation_space
    for layer in (normalized, stats):
        assert layer.single_observation_space is normalized.observation_space
        assert layer.single_action_space is base.action_space
    doubled_space = Box(-np.inf, np.inf, (8,), np.float32)
    doubled = VecTransformObservation(
        stats, lambda obs: np.concatenate([obs, obs], axis=-1), doubled_space
    )
    assert doubled.single_observation_space is doubled_space is doubled.observation_space
    assert doubled.single_action_space is base.action_space
    obs, _ = doubled.reset(seed=0)
    assert obs.shape == (2, 8)
    doubled.close()
