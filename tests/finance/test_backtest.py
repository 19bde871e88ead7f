"""Backtests: dated returns, equity, holdings and costs of a policy on the finance envs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai
from sekai.finance import Backtest, MarketData, backtest
from sekai.finance.metrics import performance_summary

pd = pytest.importorskip("pandas")

ASSETS = ["AAA", "BBB", "CCC"]


def _frame(rows: int = 120, seed: int = 0) -> Any:
    rng = np.random.default_rng(seed)
    steps = rng.normal(0.0003, 0.01, size=(rows, len(ASSETS)))
    prices = 100.0 * np.exp(np.cumsum(steps, axis=0))
    index = pd.bdate_range("2021-01-04", periods=rows)
    return pd.DataFrame(prices, index=index, columns=ASSETS)


def _portfolio(frame: Any, lookback: int = 5, cost: float = 0.0) -> Any:
    return sekai.make(
        "Portfolio-v0",
        prices=frame,
        lookback=lookback,
        episode_length=len(frame) - lookback - 1,
        transaction_cost=cost,
    )


class BuyAndHold:
    """Equal weights at the first decision, then whatever the drift left (no trade)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.calls = 0

    def __call__(self, obs: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            return np.array([1.0, 1.0, 1.0, 0.0])
        return self.env.unwrapped.weights.copy()


def test_buy_and_hold_on_portfolio_equals_the_hand_computed_equity_curve() -> None:
    frame = _frame()
    lookback = 5
    env = _portfolio(frame, lookback)
    result = backtest(env, BuyAndHold(env), progress=False)
    held = frame.iloc[lookback:]
    dates = pd.DatetimeIndex(held.index.as_unit("ns").to_numpy(), name="time")
    expected = (held / held.iloc[0]).mean(axis=1)
    assert isinstance(result, Backtest)
    assert isinstance(result.equity.index, pd.DatetimeIndex)
    pd.testing.assert_index_equal(result.equity.index, dates)
    pd.testing.assert_index_equal(result.returns.index, dates[1:])
    np.testing.assert_allclose(result.equity.to_numpy(), expected.to_numpy(), rtol=1e-13, atol=0)
    hand_returns = expected.to_numpy()[1:] / expected.to_numpy()[:-1] - 1.0
    np.testing.assert_allclose(result.returns.to_numpy(), hand_returns, rtol=1e-10, atol=1e-15)
    # The weights held over each period: equal at first, then drifting with the prices.
    drift = held.to_numpy()[:-1] / held.to_numpy()[0]
    weights = drift / drift.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(result.positions[ASSETS].to_numpy(), weights, rtol=1e-12)
    np.testing.assert_array_equal(result.positions["cash"].to_numpy(), 0.0)
    assert list(result.positions.columns) == [*ASSETS, "cash"]
    assert (result.costs.to_numpy() == 0.0).all()
    # The benchmark of a portfolio env is this very strategy.
    np.testing.assert_allclose(result.benchmark.to_numpy(), expected.to_numpy(), rtol=1e-13)


@pytest.mark.quantstats
def test_quantstats_reads_the_returns_and_agrees_with_the_summary() -> None:
    qs = pytest.importorskip("quantstats")
    env = _portfolio(_frame(rows=300, seed=3), cost=1e-3)
    result = backtest(env, lambda obs: np.array([0.5, 0.3, 0.2, 0.0]), progress=False)
    periods = result.periods_per_year
    summary = result.summary
    assert qs.stats.sharpe(result.returns, periods=periods) == pytest.approx(
        summary.sharpe_ratio, rel=1e-12
    )
    assert qs.stats.sortino(result.returns, periods=periods) == pytest.approx(
        summary.sortino_ratio, rel=1e-12
    )
    assert qs.stats.volatility(result.returns, periods=periods) == pytest.approx(
        summary.annualized_volatility, rel=1e-12
    )
    # The env's dt comes from the dated data: periods per year of its calendar.
    assert periods == pytest.approx(env.unwrapped.history.data.periods_per_year, rel=1e-12)


def test_costs_are_split_over_assets_by_the_weight_traded() -> None:
    env = _portfolio(_frame(), cost=1e-3)
    targets = iter([np.array([1.0, 0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0, 1.0])])

    def policy(obs: Any) -> Any:
        return next(targets, np.array([0.0, 1.0, 0.0, 1.0]))

    result = backtest(env, policy, progress=False)
    first, second = result.costs.iloc[0], result.costs.iloc[1]
    assert first["AAA"] == pytest.approx(1e-3 * 0.5) and first["BBB"] == 0.0
    # Second decision: sell the drifted AAA weight, buy half of equity in BBB.
    total = result.to_frame()["cost"].iloc[1]
    assert first.sum() == pytest.approx(result.to_frame()["cost"].iloc[0], rel=1e-15)
    assert second.sum() == pytest.approx(total, rel=1e-12)
    assert second["AAA"] > 0.0 and second["BBB"] == pytest.approx(0.5 * 1e-3, rel=1e-12)
    assert result.summary.total_cost == pytest.approx(result.costs.to_numpy().sum(), rel=1e-12)


def test_trading_env_positions_and_numbered_index() -> None:
    env = sekai.make("Trading-v0", episode_length=50)
    actions = iter([2, 2, 0, 1] * 20)
    result = backtest(env, lambda obs: next(actions), seed=7, progress=False)
    assert list(result.positions.columns) == ["asset_0"]
    held = env.unwrapped.positions[[2, 2, 0, 1] * 12 + [2, 2]]
    np.testing.assert_array_equal(result.positions["asset_0"].to_numpy(), held)
    assert result.returns.index.tolist() == list(range(1, 51))
    assert result.equity.index.tolist() == list(range(51))
    summary = performance_summary(
        result.returns.to_numpy(),
        result.periods_per_year,
        turnover=result.turnover.to_numpy(),
        costs=result.costs.sum(axis=1).to_numpy(),
    )
    assert summary == result.summary
    np.testing.assert_allclose(
        result.equity.to_numpy()[1:], np.cumprod(1.0 + result.returns.to_numpy()), rtol=1e-12
    )


def test_market_env_maps_slots_to_asset_ids() -> None:
    rng = np.random.default_rng(5)
    prices = 50.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, size=(80, 4)), axis=0))
    prices[:30, 3] = np.nan  # DDD lists at row 30
    data = MarketData(
        prices,
        assets=["AAA", "BBB", "CCC", "DDD"],
        timestamps=np.datetime64("2022-01-03") + np.arange(80),
    )
    env = sekai.make("Market-v0", data=data, lookback=5, episode_length=70, max_assets=4)

    def policy(obs: Any) -> Any:
        return env.unwrapped.action_mask().astype(np.float32)

    result = backtest(env, policy, progress=False)
    assert list(result.positions.columns) == ["AAA", "BBB", "CCC", "DDD", "cash"]
    before = result.positions.index < np.datetime64("2022-02-02")
    assert (result.positions.loc[before, "DDD"] == 0.0).all()
    assert (result.positions["DDD"] > 0.0).any()
    np.testing.assert_allclose(result.positions.sum(axis=1), 1.0, rtol=1e-12)
    assert result.benchmark is not None


class _Model:
    """An SB3-style model: predict(obs, deterministic=...) -> (action, state)."""

    def __init__(self) -> None:
        self.deterministic: list[bool] = []

    def predict(self, obs: Any, deterministic: bool = False) -> tuple[Any, None]:
        self.deterministic.append(deterministic)
        return np.array([0.0, 0.0, 1.0, 0.0]), None


def test_sb3_style_predict_and_several_episodes() -> None:
    env = sekai.make("Portfolio-v0", n_assets=3, episode_length=20)
    model = _Model()
    result = backtest(env, model, episodes=3, seed=1, progress=False)
    assert set(model.deterministic) == {True}
    assert result.n_episodes == 3
    assert result.returns.index.names == ["episode", "time"]
    assert result.summary.n_periods == 60
    one = result.episode(1)
    assert one.n_episodes == 1 and len(one.returns) == 20
    np.testing.assert_array_equal(
        one.returns.to_numpy(), result.returns.xs(1, level="episode").to_numpy()
    )
    frame = result.to_frame()
    assert len(frame) == 60 and "weight_asset_2" in frame.columns
    again = backtest(env, _Model(), episodes=3, seed=1, progress=False)
    pd.testing.assert_series_equal(result.returns, again.returns)


def test_start_option_fixes_the_first_decision() -> None:
    frame = _frame(rows=200)
    env = sekai.make("Portfolio-v0", prices=frame, lookback=5, episode_length=30)
    result = backtest(env, lambda obs: np.ones(4), start="2021-03-01", progress=False)
    assert result.equity.index[0] == pd.Timestamp("2021-03-01")


def test_bad_inputs_are_refused() -> None:
    env = _portfolio(_frame())
    with pytest.raises(TypeError, match="policy must be a callable"):
        backtest(env, 42)
    with pytest.raises(TypeError, match="env must be a sekai Env"):
        backtest("Portfolio-v0", lambda obs: obs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="episodes"):
        backtest(env, lambda obs: np.ones(4), episodes=0)
    cartpole = sekai.make("CartPole-v1")
    with pytest.raises(ValueError, match=r"infos report \['equity', 'timestamp'\]"):
        backtest(cartpole, lambda obs: 0)


def test_plot_draws_the_report_and_writes_a_png(tmp_path: Any) -> None:
    pytest.importorskip("PIL")
    env = _portfolio(_frame(), cost=1e-3)
    result = backtest(env, lambda obs: np.array([0.5, 0.3, 0.2, 0.0]), progress=False)
    path = tmp_path / "report.png"
    frame = result.plot(path)
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert path.stat().st_size > 0
    np.testing.assert_array_equal(result.plot(), frame)
    several = backtest(env, lambda obs: np.ones(4), episodes=2, progress=False)
    with pytest.raises(ValueError, match=r"episode\(k\)\.plot\(\)"):
        several.plot()
    assert several.episode(0).plot().shape == frame.shape


# -- the span a backtest covers ---------------------------------------------------------------


def _spx(rows: int = 1260) -> Any:
    """Five years of a daily index: more than the 252-step episodes of the env's defaults."""
    rng = np.random.default_rng(11)
    close = 1229.23 * np.exp(np.cumsum(rng.normal(0.0002, 0.012, rows)))
    return pd.Series(close, index=pd.bdate_range("1999-01-04", periods=rows), name="SPX")


def _trend(obs: Any) -> int:
    return 2 if float(np.sum(obs[:-1])) > 0.0 else 0


def test_a_backtest_covers_the_whole_data_the_same_on_every_call() -> None:
    series = _spx()
    env = sekai.make("Trading-v0", prices=series)  # episode_length 252, lookback 30
    runs = [backtest(env, _trend, progress=False) for _ in range(3)]
    for other in runs[1:]:
        pd.testing.assert_series_equal(runs[0].returns, other.returns)
    result = runs[0]
    stamps = series.index
    assert result.summary.n_periods == len(series) - 31
    assert result.period == (stamps[30], stamps[-1])
    expected = pd.DatetimeIndex(stamps[31:].as_unit("ns").to_numpy(), name="time")
    pd.testing.assert_index_equal(result.returns.index, expected)
    lines = str(result).splitlines()
    assert lines[0].split() == ["period", "1999-02-15", "..", f"{stamps[-1].date()}"]
    assert lines[1].split()[:2] == ["periods", str(len(series) - 31)]
    assert "1999-02-15 .. " in repr(result)


def test_start_and_end_cut_a_span_and_window_episode_runs_the_env_episodes() -> None:
    series = _spx()
    env = sekai.make("Trading-v0", prices=series)
    span = backtest(env, _trend, start="2001-01-02", end="2001-12-31", progress=False)
    assert span.period == (pd.Timestamp("2001-01-02"), pd.Timestamp("2001-12-31"))
    assert span.returns.index[0] == pd.Timestamp("2001-01-03")
    rows = backtest(env, _trend, start=100, end=-100, progress=False)
    assert rows.period == (series.index[100], series.index[-100])
    sampled = backtest(env, _trend, window="episode", episodes=3, seed=4, progress=False)
    assert sampled.summary.n_periods == 3 * 252
    again = backtest(env, _trend, window="episode", episodes=3, seed=4, progress=False)
    pd.testing.assert_series_equal(sampled.returns, again.returns)
    first, last = sampled.period
    assert first >= series.index[30] and last <= series.index[-1]
    fixed = backtest(env, _trend, window="episode", start="2002-01-02", progress=False)
    assert fixed.period[0] == pd.Timestamp("2002-01-02") and fixed.summary.n_periods == 252
    with pytest.raises(ValueError, match="window='episode' runs the env's own episodes"):
        backtest(env, _trend, window="episode", end="2002-01-02")
    with pytest.raises(ValueError, match="window must be"):
        backtest(env, _trend, window="year")
    with pytest.raises(TypeError, match="window must be"):
        backtest(env, _trend, window=252)  # type: ignore[arg-type]


def test_portfolio_and_market_backtests_span_their_data() -> None:
    frame = _frame(rows=400)
    for name in ("Portfolio-v0", "Market-v0"):
        env = sekai.make(name, prices=frame, lookback=5, episode_length=50)
        result = backtest(env, lambda obs: np.array([1.0, 1.0, 1.0, 0.0]), progress=False)
        assert result.summary.n_periods == 400 - 6
        assert result.period == (frame.index[5], frame.index[-1])
    simulated = sekai.make("Portfolio-v0", n_assets=3, episode_length=40)
    result = backtest(simulated, lambda obs: np.ones(4), seed=0, progress=False)
    assert result.summary.n_periods == 40 and result.period == (0, 40)
    assert str(result).splitlines()[0].split() == ["period", "0", "..", "40"]
