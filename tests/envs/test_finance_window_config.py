"""Tests for ``WindowConfig``, the checked settings of the windowed finance envs."""

from __future__ import annotations

import dataclasses

import pytest

import sekai
from sekai.envs.finance.windowed import WindowConfig
from sekai.finance import FixedStart, ProportionalCost, SpreadCost
from sekai.finance.sampling import RandomStart


def config(**changes):
    settings = {
        "episode_length": 10,
        "lookback": 5,
        "transaction_cost": 1e-3,
        "dt": None,
        "reward": None,
        "sampler": "random",
        "capital": 1e6,
    }
    return WindowConfig(**{**settings, **changes})


def test_the_settings_are_checked_and_resolved_once():
    window = config(sampler=3, capital=2, dt=0.5)
    assert window.window == 16 and window.capital == 2.0 and window.dt == 0.5
    assert isinstance(window.sampler, FixedStart) and window.sampler.start == 3
    assert isinstance(window.cost_model, ProportionalCost) and window.transaction_cost == 1e-3
    assert isinstance(config().sampler, RandomStart)
    spread = SpreadCost()
    assert config(transaction_cost=spread).cost_model is spread
    with pytest.raises(dataclasses.FrozenInstanceError):
        window.lookback = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"episode_length": 0}, ValueError, "episode_length"),
        ({"lookback": 1.5}, TypeError, "lookback"),
        ({"transaction_cost": -1.0}, ValueError, "transaction_cost must be a rate"),
        ({"transaction_cost": "free"}, TypeError, "transaction_cost must be a rate"),
        ({"capital": 0.0}, ValueError, "capital"),
        ({"dt": -1.0}, ValueError, "dt"),
        ({"sampler": "shuffled"}, ValueError, "sampler|shuffled"),
    ],
)
def test_bad_settings_are_refused(changes, error, match):
    with pytest.raises(error, match=match):
        config(**changes)


@pytest.mark.parametrize("env_id", ["Trading-v0", "Portfolio-v0", "Market-v0", "Trading-v1"])
def test_registered_envs_keep_their_flat_keywords(env_id):
    env = sekai.make(env_id, lookback=4, episode_length=7, transaction_cost=2e-3, capital=5e5)
    inner = env.unwrapped
    assert (inner.lookback, inner.episode_length, inner.window) == (4, 7, 12)
    assert inner.capital == 5e5 and inner.cost_model.rate.tolist() == [2e-3]
    assert sekai.make("Trading-v0", sigma=0.3).unwrapped.sigma == 0.3
