"""PortfolioEnv: spaces, weights, exact accounting, price sources and validation."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sekai.envs.finance import PortfolioEnv, random_correlation, simulate_gbm
from sekai.error import InvalidAction, ResetRequired
from sekai.finance import GBM, FixedCost, MarketData, SimpleReturn, SquareRootImpact
from sekai.spaces import Box, Dict
from sekai.utils.checker import check_env

pd = pytest.importorskip("pandas")

INFO_KEYS = [
    "portfolio_value",
    "equity",
    "weights",
    "turnover",
    "cost",
    "asset_returns",
    "timestamp",
    "dt",
]
# lookback 1 + episode 2 + 1 rows, two assets
TINY = np.array([[100.0, 50.0], [100.0, 50.0], [110.0, 45.0], [121.0, 45.0]])


def _history(n: int = 120, k: int = 3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(rng.normal(0.0, 0.01, (n, k)), axis=0))


def test_defaults_spaces_and_reset_info() -> None:
    env = PortfolioEnv()
    assert env.metadata == {"render_fps": 10}
    assert env.n_assets == 5 and not env.allow_short
    space = env.observation_space
    assert isinstance(space, Dict) and list(space.spaces) == ["returns", "weights"]
    assert space["returns"].shape == (30, 5) and space["weights"].shape == (6,)
    assert space["weights"].low.min() == 0 and space["weights"].high.max() == 1
    assert env.action_space == Box(0.0, 1.0, shape=(6,), dtype=np.float32)
    np.testing.assert_array_equal(env.mu, np.full(5, 0.06))
    np.testing.assert_array_equal(env.sigma, np.linspace(0.15, 0.35, 5))
    np.testing.assert_array_equal(env.corr, random_correlation(np.random.default_rng(0), 5))
    reset = env.reset(seed=0)
    assert space.contains(reset.observation)
    assert list(reset.info) == INFO_KEYS
    np.testing.assert_array_equal(reset.info["weights"], [0, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(reset.info["asset_returns"], np.zeros(5))
    assert reset.info["portfolio_value"] == reset.info["equity"] == 1.0
    assert reset.info["turnover"] == reset.info["cost"] == 0.0 and reset.info["timestamp"] == 0
    assert env._path.shape == (283, 5) and env.price_history.shape == (31, 5)


def test_short_spaces() -> None:
    env = PortfolioEnv(n_assets=3, allow_short=True, episode_length=5, lookback=2)
    assert env.action_space == Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
    assert env.observation_space["weights"].low.min() == -np.inf


@pytest.mark.parametrize("allow_short", [False, True])
def test_check_env_passes(allow_short: bool) -> None:
    env = PortfolioEnv(allow_short=allow_short)
    assert check_env(env, n_steps=400, check_determinism=True) == []


def test_simulated_path_is_one_gbm_draw() -> None:
    env = PortfolioEnv(n_assets=3, episode_length=6, lookback=3, mu=0.1, sigma=0.2)
    env.reset(seed=5)
    expected = simulate_gbm(
        np.random.default_rng(5),
        9,
        s0=np.full(3, 100.0),
        mu=np.full(3, 0.1),
        sigma=np.full(3, 0.2),
        dt=1 / 252,
        corr=random_correlation(np.random.default_rng(0), 3),
    )
    np.testing.assert_array_equal(env._path, expected)
    model = GBM(0.0, [0.1, 0.2], dt=1 / 52)
    env = PortfolioEnv(model=model, episode_length=4, lookback=2)
    assert env.n_assets == 2 and env.dt == 1 / 52
    env.reset(seed=2)
    np.testing.assert_array_equal(env._path, model.simulate(np.random.default_rng(2), 6).prices)


def test_action_to_weights_long_only() -> None:
    env = PortfolioEnv(n_assets=2, episode_length=5, lookback=2)
    np.testing.assert_array_equal(env.action_to_weights([1, 1, 2]), [0.25, 0.25, 0.5])
    np.testing.assert_array_equal(env.action_to_weights([-1, 3, 0]), [0, 1, 0])
    np.testing.assert_array_equal(env.action_to_weights([0, 0, 0]), [0, 0, 1])
    np.testing.assert_array_equal(env.action_to_weights([-5, -1, -2]), [0, 0, 1])
    for bad in ([1, 1], [1, np.nan, 1], [[1, 1, 1]], "abc", None):
        with pytest.raises(InvalidAction):
            env.action_to_weights(bad)


def test_action_to_weights_short() -> None:
    env = PortfolioEnv(n_assets=2, allow_short=True, episode_length=5, lookback=2)
    np.testing.assert_array_equal(env.action_to_weights([0.25, -0.5]), [0.25, -0.5, 1.25])
    np.testing.assert_array_equal(env.action_to_weights([3, -1]), [0.5, -0.5, 1.0])
    np.testing.assert_allclose(env.action_to_weights([0.8, 0.6]), [4 / 7, 3 / 7, 0], atol=1e-15)
    with pytest.raises(InvalidAction):
        env.action_to_weights([0.1, 0.1, 0.1])
    with pytest.raises(InvalidAction):
        env.action_to_weights([np.inf, 0.1])


def test_hand_computed_pnl_and_costs() -> None:
    env = PortfolioEnv(TINY, episode_length=2, lookback=1, transaction_cost=0.01)
    info = env.reset().info
    assert info["timestamp"] == 1
    step = env.step(np.array([1, 1, 2], np.float32))  # 25 % / 25 % / 50 % cash
    assert step.info["turnover"] == 0.5 and step.info["cost"] == pytest.approx(0.005)
    np.testing.assert_allclose(step.info["asset_returns"], [0.1, -0.1])
    growth = 0.995 * (1 + 0.25 * 0.1 - 0.25 * 0.1)
    assert step.info["portfolio_value"] == pytest.approx(growth, rel=1e-14)
    drifted = np.array([0.25 * 1.1, 0.25 * 0.9, 0.5])
    np.testing.assert_allclose(step.info["weights"], drifted / drifted.sum(), rtol=1e-14)
    assert step.reward == pytest.approx(math.log(growth), rel=1e-14)
    weights = step.info["weights"]
    step = env.step(np.array([0, 1, 0], np.float32))  # all in asset 1
    trades = np.array([0.0, 1.0]) - weights[:2]
    cost = 0.01 * np.abs(trades).sum()
    assert step.info["turnover"] == pytest.approx(np.abs(trades).sum())
    assert step.info["cost"] == pytest.approx(cost)
    assert env.portfolio_value == pytest.approx(growth * (1 - cost), rel=1e-14)
    assert step.truncated and not step.terminated
    with pytest.raises(ResetRequired, match="ended"):
        env.step(np.ones(3))


def test_value_is_the_product_of_step_growths() -> None:
    env = PortfolioEnv(_history(200), episode_length=50, lookback=4, reward=SimpleReturn())
    env.reset(seed=1)
    env.action_space.seed(0)
    product, done = 1.0, False
    while not done:
        step = env.step(env.action_space.sample())
        product *= 1.0 + step.reward
        done = step.terminated or step.truncated
    assert env.portfolio_value == pytest.approx(product, rel=1e-12)


def test_wipe_out_goes_to_cash() -> None:
    prices = np.array([[100.0], [100.0], [10.0], [10.0]])
    env = PortfolioEnv(prices, allow_short=True, episode_length=2, lookback=1)
    env.reset()
    env.step(np.array([-1.0], np.float32))  # short, asset falls: fine
    env.reset()
    up = np.array([[100.0], [100.0], [250.0], [250.0]])
    env = PortfolioEnv(up, allow_short=True, episode_length=2, lookback=1, transaction_cost=0)
    env.reset()
    step = env.step(np.array([-1.0], np.float32))  # 1 - 1.5 < 0
    assert step.terminated and step.info["portfolio_value"] == 0.0
    np.testing.assert_array_equal(step.info["weights"], [0.0, 1.0])


def test_cost_context_equity_and_volatility() -> None:
    prices = _history(40, 2)
    volume = np.full((40, 2), 5e4)
    data = MarketData(prices, fields={"volume": volume})
    impact = SquareRootImpact(0.3) + FixedCost(10.0)
    env = PortfolioEnv(
        data=data, episode_length=5, lookback=4, transaction_cost=impact, capital=2e5, sampler=6
    )
    env.reset()
    step = env.step(np.array([1, 1, 2], np.float32))
    row = 6 + 4
    window = np.diff(np.log(prices), axis=0)[6:10]
    expected = impact(
        np.array([0.25, 0.25]),
        equity=2e5,
        volatility=window.std(axis=0),
        volume=volume[row] * prices[row],
    )
    assert step.info["cost"] == pytest.approx(expected, rel=1e-12)


def test_pandas_frame_with_dates() -> None:
    index = pd.date_range("2022-03-01", periods=40, freq="D")
    frame = pd.DataFrame(_history(40, 2), index=index, columns=["X", "Y"])
    env = PortfolioEnv(frame, episode_length=5, lookback=3)
    assert env.data is not None and env.data.assets == ("X", "Y") and env.n_assets == 2
    info = env.reset(options={"start": np.datetime64("2022-03-10")}).info
    assert info["timestamp"] == np.datetime64("2022-03-10")
    assert env.prices is not None and env.prices.shape == (40, 2)
    one = PortfolioEnv(pd.Series(_history(40, 1)[:, 0]), episode_length=5, lookback=3)
    assert one.n_assets == 1 and one.data is not None and not one.data.is_datetime


def test_attributes_and_read_only_properties() -> None:
    env = PortfolioEnv(n_assets=2, episode_length=5, lookback=2)
    for name in ("episode_length", "lookback"):
        with pytest.raises(AttributeError):
            setattr(env, name, 3)
    for name in ("timestamp", "price_history"):
        with pytest.raises(ResetRequired):
            getattr(env, name)
    with pytest.raises(ResetRequired):
        env.step(np.ones(3))
    np.testing.assert_array_equal(env.weights, [0, 0, 1])
    assert env.portfolio_value == 1.0 and env.elapsed_steps == 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_assets": 0}, "n_assets"),
        (
            {"prices": _history(20, 3), "n_assets": 2, "episode_length": 5, "lookback": 1},
            "n_assets",
        ),
        ({"model": GBM(n_assets=2), "n_assets": 3}, "n_assets"),
        ({"mu": [0.1, 0.2], "n_assets": 3}, "mu"),
        ({"sigma": -0.1}, "sigma"),
        ({"corr": np.eye(4)}, "corr"),
        ({"corr": np.full((5, 5), 2.0)}, "corr"),
        ({"allow_short": "yes"}, "allow_short"),
        ({"episode_length": -1}, "episode_length"),
        ({"capital": -1.0}, "capital"),
        ({"prices": np.ones((10, 2)), "episode_length": 9, "lookback": 1}, "at least 11"),
        ({"prices": -np.ones((20, 2)), "episode_length": 9, "lookback": 1}, "positive"),
        ({"prices": np.ones((20, 2, 2)), "episode_length": 9, "lookback": 1}, "2-D"),
    ],
)
def test_bad_parameters(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        PortfolioEnv(**kwargs)


def test_bad_sources() -> None:
    data = MarketData(_history(20, 2))
    with pytest.raises(TypeError):
        PortfolioEnv(data, episode_length=5, lookback=2)
    with pytest.raises(ValueError, match="at most one"):
        PortfolioEnv(data=data, model=GBM(), episode_length=5, lookback=2)
    gappy = _history(20, 2)
    gappy[3, 1] = np.nan
    with pytest.raises(ValueError, match="Market-v0"):
        PortfolioEnv(data=MarketData(gappy), episode_length=5, lookback=2)
    with pytest.raises(ValueError, match="historical"):
        PortfolioEnv(episode_length=5, lookback=2).reset(options={"start": 2})
