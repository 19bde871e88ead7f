"""TradingEnv: spaces, exact accounting, price sources, validation and reset options."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sekai.envs.finance import TradingEnv, simulate_gbm
from sekai.error import InvalidAction, ResetRequired
from sekai.finance import (
    GBM,
    DrawdownPenalty,
    FixedStart,
    MarketData,
    NoCost,
    ProportionalCost,
    RandomStart,
    SequentialStart,
    SimpleReturn,
    SpreadCost,
    SquareRootImpact,
    Time,
)
from sekai.spaces import Discrete
from sekai.utils.checker import check_env

pd = pytest.importorskip("pandas")

INFO_KEYS = ["equity", "position", "price", "asset_return", "cost", "turnover", "timestamp", "dt"]
TINY = [100.0, 110.0, 99.0, 99.0, 108.9]  # lookback 1 + episode 3 + 1 rows


def _history(n: int = 120, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(rng.normal(0.0, 0.01, n)))


# --- spaces and defaults ----------------------------------------------------------------------


def test_defaults_spaces_and_reset_info() -> None:
    env = TradingEnv()
    assert env.metadata == {"render_fps": 10}
    assert env.observation_space.shape == (31,) and env.observation_space.dtype == np.float32
    assert isinstance(env.action_space, Discrete) and env.action_space.n == 3
    assert env.observation_space.high[-1] == 1 and env.observation_space.low[-1] == -np.inf
    assert env.positions.dtype == np.float64 and env.positions.tolist() == [-1.0, 0.0, 1.0]
    assert isinstance(env.cost_model, ProportionalCost) and env.transaction_cost == 1e-3
    assert (env.mu, env.sigma, env.s0, env.capital, env.dt) == (0.05, 0.2, 100.0, 1e6, 1 / 252)
    assert env.data is None and env.prices is None and env.model is None
    assert (env.episode_length, env.lookback) == (252, 30)
    obs, info = env.reset(seed=3).observation, env.reset(seed=3).info
    assert env.observation_space.contains(obs)
    assert list(info) == INFO_KEYS
    assert info["equity"] == 1.0 and info["position"] == 0.0 and info["timestamp"] == 0
    assert info["asset_return"] == info["cost"] == info["turnover"] == 0.0
    assert info["price"] == env.price == env._path[30]
    assert env._path.shape == (283,) and env.price_history.shape == (31,)


def test_position_bounds_follow_the_targets() -> None:
    long_only = TradingEnv(positions=(0.0, 0.5, 1.0), episode_length=5, lookback=3)
    assert (long_only.observation_space.low[-1], long_only.observation_space.high[-1]) == (0, 1)
    levered = TradingEnv(positions=(0.0, 2.0), episode_length=5, lookback=3)
    assert levered.observation_space.high[-1] == np.inf and levered.action_space.n == 2


def test_check_env_passes() -> None:
    assert check_env(TradingEnv(), n_steps=400, check_determinism=True) == []
    history = TradingEnv(_history(), episode_length=30, lookback=5)
    assert check_env(history, n_steps=400, check_determinism=True) == []


def test_simulated_path_is_one_gbm_draw() -> None:
    env = TradingEnv(episode_length=10, lookback=4, mu=0.1, sigma=0.3, s0=50.0)
    env.reset(seed=7)
    expected = simulate_gbm(np.random.default_rng(7), 14, s0=50.0, mu=0.1, sigma=0.3, dt=1 / 252)
    np.testing.assert_array_equal(env._path, expected)
    obs = env.reset(seed=7).observation
    np.testing.assert_array_equal(obs[:4], np.diff(np.log(expected))[:4].astype(np.float32))


def test_model_source_and_its_dt() -> None:
    model = GBM(0.0, 0.1, s0=10.0, dt=1 / 12)
    env = TradingEnv(model=model, episode_length=5, lookback=2)
    assert env.dt == 1 / 12
    env.reset(seed=1)
    expected = model.simulate(np.random.default_rng(1), 7).prices[:, 0]
    np.testing.assert_array_equal(env._path, expected)
    assert TradingEnv(model=model, dt=0.5, episode_length=5, lookback=2).dt == 0.5


# --- exact accounting -----------------------------------------------------------------------


def test_hand_computed_pnl_and_costs() -> None:
    env = TradingEnv(TINY, episode_length=3, lookback=1, transaction_cost=0.01)
    info = env.reset(seed=0).info
    assert info["timestamp"] == 1 and info["price"] == 110.0
    growths = []
    step = env.step(2)  # long: trade 1, cost 0.01, r = -10 %
    assert step.info["cost"] == pytest.approx(0.01) and step.info["turnover"] == 1.0
    assert step.info["asset_return"] == pytest.approx(-0.1)
    growths.append(0.99 * 0.9)
    assert step.info["equity"] == pytest.approx(growths[-1], rel=1e-14)
    assert step.info["position"] == pytest.approx(1.0) and step.info["price"] == 99.0
    assert step.reward == pytest.approx(math.log(growths[-1]), rel=1e-14)
    step = env.step(2)  # hold (the drifted position is 1 up to rounding), flat price
    assert step.info["turnover"] == pytest.approx(0.0, abs=1e-15)
    assert step.info["cost"] == pytest.approx(0.0, abs=1e-17)
    growths.append(1.0 - step.info["cost"])
    assert step.reward == pytest.approx(0.0, abs=1e-15)
    step = env.step(0)  # short: trade -2, cost 0.02, r = +10 %
    growths.append(0.98 * (1 - 0.1))
    assert step.info["cost"] == pytest.approx(0.02) and step.info["turnover"] == 2.0
    assert step.info["position"] == pytest.approx(-1.1 / 0.9, rel=1e-14)
    assert env.equity == pytest.approx(math.prod(growths), rel=1e-14)
    assert step.truncated and not step.terminated and env.elapsed_steps == 3
    with pytest.raises(ResetRequired, match="ended"):
        env.step(1)


def test_equity_is_the_product_of_step_growths() -> None:
    env = TradingEnv(_history(300), episode_length=60, lookback=5, reward=SimpleReturn())
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    product = 1.0
    done = False
    while not done:
        step = env.step(int(rng.integers(3)))
        product *= 1.0 + step.reward
        done = step.terminated or step.truncated
    assert env.equity == pytest.approx(product, rel=1e-12)


def test_drifted_position_and_observation() -> None:
    env = TradingEnv([100.0, 100.0, 120.0, 120.0], episode_length=2, lookback=1, positions=(0, 0.5))
    env.reset()
    step = env.step(1)  # half invested, asset +20 %: drifts to 0.6/1.1
    assert step.info["position"] == pytest.approx(0.6 / 1.1)
    assert step.observation[-1] == np.float32(step.info["position"])
    assert step.observation[0] == np.float32(math.log(1.2))


def test_wipe_out_terminates() -> None:
    env = TradingEnv(
        [100.0, 100.0, 40.0, 40.0],
        episode_length=2,
        lookback=1,
        positions=(0, 3),
        transaction_cost=0,
    )
    env.reset()
    step = env.step(1)  # 1 + 3·(-0.6) < 0
    assert step.terminated and not step.truncated
    assert step.info["equity"] == 0.0 and step.info["position"] == 0.0
    assert step.reward == pytest.approx(math.log(1e-12))
    with pytest.raises(ResetRequired, match="ended"):
        env.step(0)


def test_cost_of_one_wipes_out() -> None:
    env = TradingEnv(TINY, episode_length=3, lookback=1, transaction_cost=1.0)
    env.reset()
    step = env.step(2)
    assert step.terminated and step.info["cost"] == 1.0 and env.equity == 0.0


def test_cost_context_from_data_fields() -> None:
    prices = _history(40)
    volume = np.linspace(1e4, 2e4, 40)
    spread = np.full(40, 0.002)
    data = MarketData(prices, fields={"volume": volume, "spread": spread})
    impact = SquareRootImpact(0.5)
    env = TradingEnv(
        data=data,
        episode_length=10,
        lookback=5,
        transaction_cost=impact + SpreadCost(),
        capital=1e5,
        sampler=FixedStart(3),
    )
    env.reset()
    step = env.step(2)
    row = 3 + 5
    window = np.diff(np.log(prices))[3:8]
    expected = impact(
        [1.0], equity=1e5, volatility=np.array([window.std()]), volume=volume[row] * prices[row]
    ) + SpreadCost()([1.0], spread=spread[row : row + 1])
    assert step.info["cost"] == pytest.approx(expected, rel=1e-12)


def test_pandas_datetime_index_gives_dated_data() -> None:
    index = pd.date_range("2021-01-04", periods=60, freq="B")
    series = pd.Series(_history(60), index=index, name="ABC")
    env = TradingEnv(series, episode_length=10, lookback=5)
    assert isinstance(env.data, MarketData) and env.data.assets == ("ABC",)
    assert env.dt == 1 / env.data.periods_per_year
    info = env.reset(seed=0, options={"start": "2021-02-01"}).info
    assert isinstance(info["timestamp"], np.datetime64)
    assert info["timestamp"] == np.datetime64("2021-02-01")
    assert env.timestamp == info["timestamp"]
    step = env.step(1)
    assert step.info["timestamp"] == np.datetime64("2021-02-02")
    plain = TradingEnv(pd.Series(_history(60)), episode_length=10, lookback=5)
    assert isinstance(plain.data, MarketData) and plain.dt == 1 / 252
    assert plain.reset(options={"start": 7}).info["timestamp"] == 7


def test_start_option_and_samplers() -> None:
    prices = _history(50)
    env = TradingEnv(prices, episode_length=10, lookback=5, sampler="sequential")
    assert [env.reset().info["timestamp"] for _ in range(4)] == [5, 15, 25, 35]
    assert env.reset(options={"start": 20}).info["timestamp"] == 20
    assert env.reset(options={"start": -11}).info["timestamp"] == 39
    assert env.reset(options={"start": 12.0}).info["timestamp"] == 12
    assert env.reset(options={"start": Time(9)}).info["timestamp"] == 9
    np.testing.assert_array_equal(env._path, prices[4:20])
    for bad in (4, 40, 1000):
        with pytest.raises(ValueError, match="start"):
            env.reset(options={"start": bad})
    assert (
        TradingEnv(prices, episode_length=10, lookback=5, sampler=3).reset().info["timestamp"] == 8
    )
    assert isinstance(TradingEnv(prices, episode_length=10, lookback=5).sampler, RandomStart)
    seq = TradingEnv(prices, episode_length=10, lookback=5, sampler=SequentialStart(2, 1))
    assert [seq.reset().info["timestamp"] for _ in range(2)] == [7, 8]
    with pytest.raises(ValueError, match="historical"):
        TradingEnv(episode_length=5, lookback=2).reset(options={"start": 3})


def test_warmup_rows_are_never_decided_on() -> None:
    data = MarketData(_history(40), warmup=12)
    env = TradingEnv(data=data, episode_length=5, lookback=3)
    stamps = {env.reset(seed=s).info["timestamp"] for s in range(30)}
    assert min(stamps) >= 12
    with pytest.raises(ValueError):
        env.reset(options={"start": 11})


# --- attributes ------------------------------------------------------------------------------


def test_read_only_shape_properties_and_reward_copies() -> None:
    env = TradingEnv(episode_length=5, lookback=2)
    for name in ("episode_length", "lookback"):
        with pytest.raises(AttributeError):
            setattr(env, name, 3)
    reward = DrawdownPenalty()
    env = TradingEnv(episode_length=5, lookback=2, reward=reward)
    assert env.reward_fn is not reward and isinstance(env.reward_fn, DrawdownPenalty)
    other = DrawdownPenalty()
    env.reward_fn = other
    assert env.reward_fn is not other
    env.reset(seed=0)
    env.step(2)
    assert env.reward_fn._state["peak"] is not None
    env.reset()
    assert env.reward_fn._state["peak"] is None  # reward_fn.reset() at every reset


def test_accessors_need_a_reset() -> None:
    env = TradingEnv(episode_length=5, lookback=2)
    for name in ("price", "timestamp", "price_history"):
        with pytest.raises(ResetRequired):
            getattr(env, name)
    with pytest.raises(ResetRequired):
        env.step(0)
    assert env.position == 0.0 and env.equity == 1.0 and env.elapsed_steps == 0


@pytest.mark.parametrize("action", [3, -1, 1.0, "1", np.array([1]), True, None])
def test_invalid_actions(action: Any) -> None:
    env = TradingEnv(episode_length=5, lookback=2)
    env.reset(seed=0)
    with pytest.raises(InvalidAction):
        env.step(action)


def test_numpy_integer_actions() -> None:
    env = TradingEnv(episode_length=5, lookback=2)
    env.reset(seed=0)
    assert env.step(np.int64(2)).info["position"] != 0.0
    assert env.step(np.array(1)).info["turnover"] > 0.0


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prices", "match"),
    [
        ([100.0, np.nan, 101.0, 102.0, 103.0], "NaN"),
        ([100.0, np.inf, 101.0, 102.0, 103.0], "NaN or inf"),
        ([100.0, 0.0, 101.0, 102.0, 103.0], "positive"),
        ([100.0, -1.0, 101.0, 102.0, 103.0], "positive"),
        ([100.0, 101.0, 102.0, 103.0], "at least 5"),
        (np.ones((5, 2)), "1-D"),
        (np.ones((5, 1, 1)), "1-D"),
        (["a", "b", "c", "d", "e"], "numeric"),
    ],
)
def test_bad_price_arrays(prices: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        TradingEnv(prices, episode_length=3, lookback=1)


def test_single_column_prices_are_squeezed() -> None:
    env = TradingEnv(np.array(TINY)[:, None], episode_length=3, lookback=1)
    assert env.prices is not None and env.prices.shape == (5,)


def test_bad_sources() -> None:
    data = MarketData(TINY)
    with pytest.raises(TypeError, match="data="):
        TradingEnv(data, episode_length=3, lookback=1)
    with pytest.raises(TypeError, match="MarketData"):
        TradingEnv(data=TINY, episode_length=3, lookback=1)
    with pytest.raises(ValueError, match="at most one"):
        TradingEnv(TINY, data=data, episode_length=3, lookback=1)
    with pytest.raises(ValueError, match="at most one"):
        TradingEnv(TINY, model=GBM(), episode_length=3, lookback=1)
    with pytest.raises(TypeError, match="MarketModel"):
        TradingEnv(model="gbm", episode_length=3, lookback=1)
    with pytest.raises(ValueError, match="one asset"):
        TradingEnv(data=MarketData(np.ones((5, 2))), episode_length=3, lookback=1)
    with pytest.raises(ValueError, match="one asset"):
        TradingEnv(model=GBM(n_assets=2), episode_length=3, lookback=1)
    with pytest.raises(ValueError, match="Market-v0"):
        TradingEnv(data=MarketData([100, np.nan, 1, 2, 3]), episode_length=3, lookback=1)
    with pytest.raises(ValueError, match="at least 6"):
        TradingEnv(data=data, episode_length=4, lookback=1)
    aware = pd.Series(TINY, index=pd.date_range("2020-01-01", periods=5, tz="UTC"))
    with pytest.raises(ValueError, match="timezone"):
        TradingEnv(aware, episode_length=3, lookback=1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"episode_length": 0}, "episode_length"),
        ({"lookback": 0}, "lookback"),
        ({"lookback": 0.0}, "lookback"),
        ({"positions": (1.0,)}, "positions"),
        ({"positions": (0.0, np.nan)}, "positions"),
        ({"positions": (0.0, "1")}, "positions"),
        ({"positions": 1.0}, "positions"),
        ({"sigma": -0.1}, "sigma"),
        ({"s0": 0.0}, "s0"),
        ({"mu": np.inf}, "mu"),
        ({"capital": 0.0}, "capital"),
        ({"dt": 0.0}, "dt"),
        ({"dt": np.nan}, "dt"),
        ({"sampler": "shuffled"}, "sampler"),
        ({"transaction_cost": -0.1}, "rate"),
    ],
)
def test_bad_parameters(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        TradingEnv(**kwargs)


def test_int_parameters_follow_the_int_rule() -> None:
    with pytest.raises(TypeError, match=r"lookback must be an int, got float 2\.5"):
        TradingEnv(lookback=2.5)
    env = TradingEnv(lookback=2.0, episode_length=5.0)
    assert (env.lookback, env.episode_length) == (2, 5)
    assert type(env.lookback) is int and type(env.episode_length) is int


def test_bad_cost_models_and_rewards() -> None:
    with pytest.raises(TypeError):
        TradingEnv(transaction_cost="free")
    with pytest.raises(TypeError, match="RewardFunction"):
        TradingEnv(reward=lambda outcome: 0.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="volume"):
        TradingEnv(transaction_cost=SquareRootImpact(fallback_volatility=0.01))
    with pytest.raises(ValueError, match="spread"):
        TradingEnv(TINY, episode_length=3, lookback=1, transaction_cost=SpreadCost())
    volume = MarketData(TINY, fields={"volume": np.ones(5)})
    with pytest.raises(ValueError, match="lookback >= 2"):
        TradingEnv(data=volume, episode_length=3, lookback=1, transaction_cost=SquareRootImpact())
    free = NoCost()
    env = TradingEnv(transaction_cost=free)
    assert env.cost_model is free and env.transaction_cost is free
