"""Finance environments: parameter checks and exact positions when holding in Trading-v0."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sekai.envs.finance import (
    MarketEnv,
    MarketMakingEnv,
    MarketMakingVecEnv,
    OptimalExecutionEnv,
    OptimalExecutionVecEnv,
    TradingEnv,
    TradingVecEnv,
)
from sekai.finance import FixedCost

HOLD_STEPS = 1000
LONG, FLAT, SHORT = 2, 1, 0  # indices into the default positions (-1, 0, 1)


def _prices(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.02, n)))


# -- parameter checks ---------------------------------------------------------------------


BAD_VALUES = [-5.0, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("value", [*BAD_VALUES, 0.0])
def test_market_making_refuses_a_non_positive_or_non_finite_s0(value: float) -> None:
    with pytest.raises(ValueError, match="s0"):
        MarketMakingEnv(s0=value)
    with pytest.raises(ValueError, match="s0"):
        MarketMakingVecEnv(2, s0=value)


@pytest.mark.parametrize(
    "name",
    ["sigma", "total_time", "fill_intensity", "fill_decay", "risk_aversion", "max_offset"],
)
@pytest.mark.parametrize("value", BAD_VALUES)
def test_market_making_refuses_bad_price_and_intensity_parameters(name: str, value: float) -> None:
    with pytest.raises(ValueError, match=name):
        MarketMakingEnv(**{name: value})


@pytest.mark.parametrize(
    "name",
    [
        "initial_inventory",
        "s0",
        "sigma",
        "total_time",
        "permanent_impact",
        "temporary_impact",
        "fixed_cost",
        "risk_aversion",
    ],
)
@pytest.mark.parametrize("value", BAD_VALUES)
def test_optimal_execution_refuses_bad_price_and_impact_parameters(name: str, value: float) -> None:
    with pytest.raises(ValueError, match=name):
        OptimalExecutionEnv(**{name: value})
    with pytest.raises(ValueError, match=name):
        OptimalExecutionVecEnv(2, **{name: value})


def test_optimal_execution_refuses_an_infinite_arrival_notional() -> None:
    with pytest.raises(ValueError, match=r"initial_inventory \* s0 must be finite"):
        OptimalExecutionEnv(initial_inventory=1e200, s0=1e200)
    assert OptimalExecutionEnv(initial_inventory=1e150, s0=1e150).X0 == 1e150


@pytest.mark.parametrize("rate", [math.nan, math.inf, -math.inf])
def test_market_env_refuses_non_finite_margin_rates(rate: float) -> None:
    with pytest.raises(ValueError, match=r"margin_rate must be finite, got"):
        MarketEnv(margin_rate=rate)


@pytest.mark.parametrize("rate", [0.0, -0.01, -1e-12])
def test_market_env_accepts_any_finite_margin_rate(rate: float) -> None:
    assert MarketEnv(margin_rate=rate).config.effective_margin_rate == rate


# -- Trading-v0: holding keeps the position exactly ---------------------------------------


def _hold(env: TradingEnv, action: int) -> list[dict[str, Any]]:
    env.reset(seed=0)
    infos = []
    for _ in range(HOLD_STEPS):
        result = env.step(action)
        assert result.observation[-1] == np.float32(result.info["position"])
        infos.append(result.info)
    assert result.truncated
    return infos


@pytest.mark.parametrize("target", [LONG, FLAT])
@pytest.mark.parametrize("source", ["simulated", "history"])
def test_holding_long_or_flat_keeps_the_position_exactly(target: int, source: str) -> None:
    kwargs: dict[str, Any] = {"episode_length": HOLD_STEPS, "lookback": 5}
    if source == "history":
        kwargs["prices"] = _prices(HOLD_STEPS + 6)
    env = TradingEnv(**kwargs)
    infos = _hold(env, target)
    weight = env.positions[target]
    assert [info["position"] for info in infos] == [weight] * HOLD_STEPS
    first, rest = infos[0], infos[1:]
    assert first["turnover"] == abs(weight)
    assert all(info["turnover"] == 0.0 and info["cost"] == 0.0 for info in rest)
    equity = 1.0 - first["cost"]
    for info in infos:
        equity *= 1.0 + weight * info["asset_return"]
    assert infos[-1]["equity"] == pytest.approx(equity, rel=1e-12)


def test_holding_long_pays_no_fixed_cost_after_the_first_trade() -> None:
    # With no threshold, any trade at all, however small, would pay the fixed amount.
    cost = FixedCost(100.0, threshold=0.0)
    env = TradingEnv(episode_length=HOLD_STEPS, lookback=5, transaction_cost=cost)
    infos = _hold(env, LONG)
    assert infos[0]["cost"] == 100.0 / env.capital
    assert all(info["cost"] == 0.0 for info in infos[1:])


def test_holding_short_drifts_as_the_short_weight_of_equity() -> None:
    # A short's weight is -(value owed)/equity: it moves with the price, as specified.
    env = TradingEnv(episode_length=HOLD_STEPS, lookback=5)
    infos = _hold(env, SHORT)
    position = 0.0
    for info in infos:
        expected_turnover = abs(-1.0 - position)
        assert info["turnover"] == expected_turnover
        r = info["asset_return"]
        held = -(1.0 + r)
        position = held / (held + 2.0)
        assert info["position"] == position


def test_vector_trading_holds_exactly_and_matches_the_single_env() -> None:
    prices = _prices(HOLD_STEPS + 6, seed=3)
    kwargs: dict[str, Any] = {"episode_length": HOLD_STEPS, "lookback": 5, "prices": prices}
    vec = TradingVecEnv(3, autoreset=False, **kwargs)
    singles = [TradingEnv(**kwargs) for _ in range(3)]
    vec.reset(seed=0)
    for env in singles:
        env.reset(seed=0)
    actions = np.array([LONG, FLAT, SHORT])
    for k in range(HOLD_STEPS):
        batch = vec.step(actions)
        assert batch.infos[0]["position"] == 1.0 and batch.infos[1]["position"] == 0.0
        if k:
            assert batch.infos[0]["turnover"] == 0.0 and batch.infos[0]["cost"] == 0.0
            assert batch.infos[1]["turnover"] == 0.0 and batch.infos[1]["cost"] == 0.0
        for i, env in enumerate(singles):
            result = env.step(int(actions[i]))
            assert batch.rewards[i] == result.reward
            assert np.array_equal(batch.observations[i], result.observation)
            for key in ("equity", "position", "cost", "turnover", "asset_return"):
                assert batch.infos[i][key] == result.info[key], key
    assert batch.truncated.all()
