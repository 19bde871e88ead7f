"""NormalizeObservation and NormalizeReward; sekai.wrappers.__all__."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from _wrapper_toy_envs import CountEnv, DictEnv, SequenceEnv, run

import sekai
import sekai.wrappers
from sekai.spaces import Box, Dict, Discrete, MaskedBox
from sekai.utils.checker import check_env
from sekai.utils.running_stats import ExponentialMovingStats, RunningMeanStd
from sekai.wrappers import NormalizeObservation, NormalizeReward, PadSequenceObservation


def test_wrappers_all_is_the_spec_list() -> None:
    assert sekai.wrappers.__all__ == [
        "TimeLimit", "AutoReset", "OrderEnforcing", "RecordEpisodeStatistics", "ClipAction",
        "RescaleAction", "StickyAction", "ActionRepeat", "DelayAction", "FlattenObservation",
        "NormalizeObservation", "FrameStackObservation", "TransformObservation",
        "RescaleObservation", "DtypeObservation", "FilterObservation", "TimeAwareObservation",
        "DelayObservation", "ActionMaskObservation", "PadSequenceObservation", "NormalizeReward",
        "TransformReward", "ClipReward",
    ]  # fmt: skip
    for name in sekai.wrappers.__all__:
        assert getattr(sekai.wrappers, name).__name__ == name


# -- NormalizeObservation -----------------------------------------------------------------------


def test_normalize_observation_matches_running_mean_std() -> None:
    wrapped = NormalizeObservation(CountEnv(length=100))
    assert wrapped.observation_space == Box(-np.inf, np.inf, (2,), np.float64)
    assert wrapped.epsilon == 1e-8 and wrapped.update_running_mean
    reference = RunningMeanStd((2,))
    raw = [np.array([t, -t], np.float64) for t in range(8)]
    outs = [wrapped.reset().observation] + [wrapped.step(0).observation for _ in range(7)]
    for x, out in zip(raw, outs, strict=True):
        reference.update(x[None])
        assert out.dtype == np.float64
        np.testing.assert_allclose(out, reference.normalize(x), rtol=1e-10, atol=1e-12)
    assert isinstance(wrapped.obs_rms, RunningMeanStd)
    np.testing.assert_allclose(wrapped.obs_rms.mean, reference.mean, rtol=1e-12)
    np.testing.assert_allclose(wrapped.obs_rms.var, reference.var, rtol=1e-12)
    assert wrapped.obs_rms.count == pytest.approx(8.0001)


def test_normalize_observation_frozen_stats_and_state_dict() -> None:
    wrapped = NormalizeObservation(CountEnv(length=100))
    wrapped.reset()
    for _ in range(5):
        wrapped.step(0)
    state = wrapped.state_dict()
    wrapped.update_running_mean = False
    before = wrapped.obs_rms.state_dict()
    out = wrapped.step(0).observation
    assert wrapped.obs_rms.count == before["count"]
    np.testing.assert_allclose(out, wrapped.obs_rms.normalize(np.array([6.0, -6.0])))
    other = NormalizeObservation(CountEnv(length=100))
    other.load_state_dict(state)
    np.testing.assert_array_equal(other.obs_rms.mean, state["mean"])
    assert other.obs_rms.count == state["count"]


def test_normalize_observation_ewm_clip_and_async() -> None:
    inner = CountEnv(length=100)
    wrapped = NormalizeObservation(inner, stats="ewm", halflife=3.0, clip=0.5)
    assert wrapped.observation_space == Box(-0.5, 0.5, (2,), np.float64)
    assert isinstance(wrapped.obs_rms, ExponentialMovingStats)

    async def go() -> list[Any]:
        outs = [(await wrapped.async_reset()).observation]
        for _ in range(10):
            outs.append((await wrapped.async_step(0)).observation)
        return outs

    outs = run(go())
    assert inner.async_calls == 11
    assert max(float(np.abs(o).max()) for o in outs) == 0.5
    assert wrapped.obs_rms.count == 11 and wrapped.obs_rms.halflife == 3.0


def test_normalize_observation_dict_with_pass_through_and_masked_box() -> None:
    wrapped = NormalizeObservation(DictEnv())
    assert wrapped.observation_space == Dict(
        {"pos": Box(-np.inf, np.inf, (2,), np.float64), "n": Discrete(7)}
    )
    obs = wrapped.reset().observation
    assert obs["n"] == 0 and obs["pos"].dtype == np.float64
    assert set(wrapped.obs_rms) == {"pos", "n"} and wrapped.obs_rms["n"] is None
    padded = NormalizeObservation(PadSequenceObservation(SequenceEnv()), clip=10.0)
    assert padded.observation_space["items"] == MaskedBox(  # type: ignore[index]
        -10.0, 10.0, (2,), max_size=4, dtype=np.float64
    )
    padded.reset()
    padded.step(0)
    out = padded.step(0).observation["items"]
    assert out["mask"].tolist() == [1, 1, 0, 0]
    assert out["values"][2:].tolist() == [[0, 0], [0, 0]]
    assert padded.obs_rms["items"].count == pytest.approx(3.0001)  # occupied slots only


def test_normalize_observation_check_env() -> None:
    frozen = NormalizeObservation(sekai.make("CartPole-v1"))
    frozen.update_running_mean = False
    assert check_env(frozen) == []
    # Updating statistics make reset(seed=0) differ between calls, as they should.
    assert check_env(NormalizeObservation(sekai.make("CartPole-v1")), check_reset_seed=False) == []
    ewm = NormalizeObservation(sekai.make("Pendulum-v1"), stats="ewm", halflife=10.0, clip=5.0)
    assert check_env(ewm, check_reset_seed=False) == []


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"stats": "median"}, ValueError),
        ({"clip": 0.0}, ValueError),
        ({"clip": -1.0}, ValueError),
        ({"halflife": 0.0}, ValueError),
        ({"stats": "ewm", "halflife": -5.0}, ValueError),
        ({"epsilon": -1.0}, ValueError),
    ],
)
def test_normalize_observation_rejects_bad_arguments(
    kwargs: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        NormalizeObservation(CountEnv(), **kwargs)


def test_normalize_observation_needs_a_box_leaf() -> None:
    env = CountEnv()
    env.observation_space = Discrete(3)
    with pytest.raises(TypeError, match="Box"):
        NormalizeObservation(env)


# -- NormalizeReward ----------------------------------------------------------------------------


def test_normalize_reward_scales_by_discounted_return_std() -> None:
    inner = CountEnv(length=3)
    wrapped = NormalizeReward(inner, gamma=0.5)
    reference = RunningMeanStd(())
    wrapped.reset()
    ret = 0.0
    for _ in range(2):
        for t in range(1, 4):
            r = wrapped.step(0)
            ret = ret * 0.5 + t
            reference.update(np.array([ret]))
            assert r.reward == pytest.approx(t / math.sqrt(float(reference.var) + 1e-8))
            assert type(r.reward) is float
        ret = 0.0  # the episode ended
        assert wrapped._returns == 0.0
        wrapped.reset()
    np.testing.assert_allclose(wrapped.return_rms.var, reference.var)
    wrapped.update_running_mean = False
    count = wrapped.return_rms.count
    run(wrapped.async_step(0))
    assert wrapped.return_rms.count == count and inner.async_calls == 1


def test_normalize_reward_validation_and_check_env() -> None:
    with pytest.raises(ValueError):
        NormalizeReward(CountEnv(), gamma=1.5)
    with pytest.raises(ValueError):
        NormalizeReward(CountEnv(), epsilon=-1.0)
    assert check_env(NormalizeReward(sekai.make("CartPole-v1"))) == []
