"""``to_gymnasium_vector``: a sekai ``VecEnv`` as a ``gymnasium.vector.VectorEnv``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import gymnasium.wrappers.vector as gym_wrappers  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import sekai  # noqa: E402
from sekai.compat import SekaiToGymnasiumVector, to_gymnasium_vector  # noqa: E402
from sekai.compat.gymnasium_vector import vector_infos  # noqa: E402

# (id, vectorization mode): a native env, a sync one, and a Dict observation space.
CASES = [("Trading-v0", None), ("CartPole-v1", "sync"), ("LimitOrderBook-v0", "sync")]


def _pair(env_id: str, mode: str | None, n: int) -> tuple[Any, SekaiToGymnasiumVector]:
    return (
        sekai.make_vec(env_id, n, vectorization_mode=mode),
        to_gymnasium_vector(sekai.make_vec(env_id, n, vectorization_mode=mode)),
    )


def test_a_whole_float_seed_is_the_int_seed_plus_i() -> None:
    vec, bridge = _pair("CartPole-v1", None, 3)
    try:
        expected = vec.reset(seed=[7, 8, 9]).observations
        obs, _ = bridge.reset(seed=7.0)
        np.testing.assert_equal(obs, expected)
        with pytest.raises(TypeError, match="seed must be an int"):
            bridge.reset(seed=7.5)
    finally:
        vec.close()
        bridge.close()


def test_spaces_and_metadata_follow_gymnasiums_names() -> None:
    bridge = to_gymnasium_vector(sekai.make_vec("Trading-v0", 5))
    try:
        assert bridge.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
        assert bridge.num_envs == 5
        assert isinstance(bridge.single_action_space, gymnasium.spaces.Discrete)
        assert bridge.action_space == gymnasium.vector.utils.batch_space(
            bridge.single_action_space, 5
        )
        assert bridge.observation_space.shape == (5, *bridge.single_observation_space.shape)
        assert bridge.render_mode is None
        assert isinstance(bridge, gymnasium.vector.VectorEnv)
        assert repr(bridge).startswith("SekaiToGymnasiumVector(")
    finally:
        bridge.close()
    assert bridge.sekai_vec.closed


def test_bad_input_is_refused() -> None:
    with pytest.raises(TypeError, match="expects a sekai VecEnv, got CartPoleEnv"):
        to_gymnasium_vector(sekai.make("CartPole-v1").unwrapped)
    vec = sekai.make_vec("CartPole-v1", 2, vector_kwargs={"autoreset": False})
    with pytest.raises(ValueError, match=r"autoreset=True.*SAME_STEP"):
        to_gymnasium_vector(vec)
    vec.close()


@pytest.mark.parametrize(("env_id", "mode"), CASES)
def test_steps_equal_the_sekai_envs_and_final_obs_its_final_observation(
    env_id: str, mode: str | None
) -> None:
    n = 4
    vec, bridge = _pair(env_id, mode, n)
    try:
        seeds = [7 + i for i in range(n)]
        expected = vec.reset(seed=seeds)
        obs, _ = bridge.reset(seed=7)  # gymnasium's convention: sub-env i gets 7 + i
        np.testing.assert_equal(obs, expected.observations)
        space = vec.batch_action_space
        space.seed(1)
        finished = 0
        for _ in range(300):
            actions = space.sample()
            want = vec.step(actions)
            obs, rewards, terminated, truncated, infos = bridge.step(actions)
            np.testing.assert_equal(obs, want.observations)
            np.testing.assert_array_equal(rewards, want.rewards)
            np.testing.assert_array_equal(terminated, want.terminated)
            np.testing.assert_array_equal(truncated, want.truncated)
            assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == bool
            done = want.terminated | want.truncated
            if done.any():
                np.testing.assert_array_equal(infos["_final_obs"], done)
                np.testing.assert_array_equal(infos["_final_info"], done)
                for i in np.flatnonzero(done):
                    np.testing.assert_equal(
                        infos["final_obs"][i], want.infos[i]["final_observation"]
                    )
                finished += int(done.sum())
            else:
                assert "final_obs" not in infos
        assert finished > 0
    finally:
        vec.close()
        bridge.close()


@pytest.mark.parametrize("env_id", ["Trading-v0", "Portfolio-v0", "MarketMaking-v0"])
def test_native_info_arrays_give_the_same_infos_as_the_dicts(env_id: str) -> None:
    vec = sekai.make_vec(env_id, 6)
    try:
        vec.reset(seed=0)
        space = vec.batch_action_space
        space.seed(0)
        checked_final = False
        for _ in range(400):
            infos = vec.step(space.sample()).infos
            fast = vector_infos(infos, 6)  # from the arrays, before any dict is built
            slow = vector_infos(list(infos), 6)  # from the per-sub-env dicts
            assert fast.keys() == slow.keys()
            for key in fast:
                if key == "final_obs":
                    for a, b in zip(fast[key], slow[key], strict=True):
                        np.testing.assert_equal(a, b)
                else:
                    np.testing.assert_equal(fast[key], slow[key])
            checked_final |= "final_obs" in fast
        assert checked_final
    finally:
        vec.close()


def test_a_finished_sub_env_reports_its_reset_info_and_its_step_info_as_final_info() -> None:
    infos = [
        {"a": 1.0, "tag": "x"},
        {
            "a": 2.0,
            "tag": "y",
            "final_observation": np.array([9.0]),
            "final_info": {"a": 2.0, "tag": "y"},
            "reset_info": {"a": 0.0},
        },
    ]
    out = vector_infos(infos, 2)
    np.testing.assert_array_equal(out["a"], [1.0, 0.0])
    np.testing.assert_array_equal(out["_a"], [True, True])
    assert list(out["tag"]) == ["x", None] and list(out["_tag"]) == [True, False]
    np.testing.assert_array_equal(out["final_info"]["a"], [0.0, 2.0])
    np.testing.assert_array_equal(out["final_info"]["_a"], [False, True])
    assert list(out["final_info"]["tag"]) == [None, "y"]
    assert out["final_obs"][0] is None
    np.testing.assert_array_equal(out["final_obs"][1], [9.0])
    np.testing.assert_array_equal(out["_final_obs"], [False, True])
    assert "final_observation" not in out and "reset_info" not in out


@pytest.mark.parametrize(("env_id", "mode"), [("CartPole-v1", None), ("Trading-v0", None)])
def test_gymnasiums_record_episode_statistics_counts_every_episode(
    env_id: str, mode: str | None
) -> None:
    n = 8
    wrapped = gym_wrappers.RecordEpisodeStatistics(
        to_gymnasium_vector(sekai.make_vec(env_id, n, vectorization_mode=mode))
    )
    try:
        wrapped.reset(seed=0)
        returns, lengths = np.zeros(n), np.zeros(n, dtype=int)
        episodes = 0
        space = wrapped.action_space
        space.seed(0)
        for _ in range(600):
            _, rewards, terminated, truncated, infos = wrapped.step(space.sample())
            returns += rewards
            lengths += 1
            done = terminated | truncated
            if done.any():
                np.testing.assert_array_equal(infos["_episode"], done)
                np.testing.assert_allclose(infos["episode"]["r"][done], returns[done])
                np.testing.assert_array_equal(infos["episode"]["l"][done], lengths[done])
                episodes += int(done.sum())
                returns[done], lengths[done] = 0.0, 0
        assert episodes >= n
    finally:
        wrapped.close()


def test_gymnasiums_clip_action_and_normalize_reward_apply() -> None:
    clipped = gym_wrappers.ClipAction(to_gymnasium_vector(sekai.make_vec("Pendulum-v1", 3)))
    plain = sekai.make_vec("Pendulum-v1", 3)
    try:
        clipped.reset(seed=0)
        plain.reset(seed=[0, 1, 2])
        over = np.full((3, 1), 50.0, dtype=np.float32)
        _, rewards, *_ = clipped.step(over)
        np.testing.assert_array_equal(rewards, plain.step(np.full((3, 1), 2.0, np.float32)).rewards)
    finally:
        clipped.close()
        plain.close()
    scaled = gym_wrappers.NormalizeReward(to_gymnasium_vector(sekai.make_vec("CartPole-v1", 4)))
    scaled.reset(seed=0)
    _, rewards, *_ = scaled.step(np.zeros(4, dtype=np.int64))
    assert rewards.shape == (4,) and np.all(rewards > 0) and np.all(rewards != 1.0)
    scaled.close()


def test_observation_wrappers_refuse_same_step_and_take_next_step() -> None:
    # gymnasium's observation wrappers refuse SAME_STEP envs (their final_obs would be left
    # untransformed) and take the next-step bridge of a sekai env built with autoreset=False.
    same_step = to_gymnasium_vector(sekai.make_vec("CartPole-v1", 2))
    with pytest.raises(ValueError, match="NEXT_STEP or DISABLED"):
        gym_wrappers.NormalizeObservation(same_step)
    same_step.close()
    frozen = sekai.make_vec("CartPole-v1", 2, vector_kwargs={"autoreset": False})
    wrapped = gym_wrappers.NormalizeObservation(
        to_gymnasium_vector(frozen, autoreset_mode="next_step")
    )
    obs, _ = wrapped.reset(seed=0)
    assert wrapped.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    for _ in range(100):
        obs, *_ = wrapped.step(np.ones(2, dtype=np.int64))
    assert obs.shape == (2, 4) and wrapped.obs_rms.count > 100
    wrapped.close()


def test_observation_normalisation_is_sekais_under_same_step_autoreset() -> None:
    # sekai's VecNormalizeObservation under the same-step bridge normalises both the
    # observations and final_obs.
    normalised = sekai.VecNormalizeObservation(sekai.make_vec("CartPole-v1", 4))
    bridge = to_gymnasium_vector(normalised)
    try:
        bridge.reset(seed=0)
        for _ in range(200):
            obs, _, terminated, truncated, infos = bridge.step(np.ones(4, dtype=np.int64))
            if (terminated | truncated).any():
                break
        assert np.all(np.abs(obs) < 10)
        rms = normalised.obs_rms
        for i in np.flatnonzero(infos["_final_obs"]):
            assert np.all(np.abs(infos["final_obs"][i]) < 10 * np.sqrt(rms.var).max() + 10)
    finally:
        bridge.close()


def test_sekais_episode_statistics_come_through_as_an_info_key() -> None:
    bridge = to_gymnasium_vector(sekai.VecRecordEpisodeStatistics(sekai.make_vec("Trading-v0", 3)))
    try:
        bridge.reset(seed=0)
        for _ in range(400):
            *_, terminated, truncated, infos = bridge.step(np.zeros(3, dtype=np.int64))
            done = terminated | truncated
            if done.any():
                np.testing.assert_array_equal(infos["_episode"], done)
                stats = infos["episode"][np.flatnonzero(done)[0]]
                assert isinstance(stats, sekai.EpisodeStats) and stats.episode_length > 0
                break
        else:
            pytest.fail("no episode finished")
    finally:
        bridge.close()
