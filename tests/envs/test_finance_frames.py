"""Frames as the windowed envs' price sources: read as ``MarketData.from_pandas`` reads them.

The cases are the paths a quant takes with a vendor's daily file: ``pd.read_csv(path,
index_col=0)`` without ``parse_dates`` (an index of ISO date text), one series with holiday
gaps, and a changing universe with NaN before a listing.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.finance import MarketEnv, PortfolioEnv, TradingEnv
from sekai.finance import MarketData, backtest

pd = pytest.importorskip("pandas")

ROWS = 300


def _spx_csv() -> str:
    """A daily S&P 500 file as vendors export it: Date, OHLC, Adj Close, Volume."""
    rng = np.random.default_rng(0)
    close = 1229.23 * np.exp(np.cumsum(rng.normal(0.0003, 0.011, ROWS)))
    dates = pd.bdate_range("1999-01-04", periods=ROWS)
    frame = pd.DataFrame(
        {
            "Open": close * 0.999,
            "High": close * 1.006,
            "Low": close * 0.993,
            "Close": close,
            "Adj Close": close,
            "Volume": rng.integers(500_000_000, 900_000_000, ROWS).astype(float),
        },
        index=pd.Index(dates.strftime("%Y-%m-%d"), name="Date"),
    )
    return frame.to_csv()


def _raw() -> Any:
    """The file read without ``parse_dates``: its index is the date text."""
    raw = pd.read_csv(io.StringIO(_spx_csv()), index_col=0)
    assert not isinstance(raw.index, pd.DatetimeIndex)
    return raw


def test_a_text_date_index_dates_the_trading_env_as_from_pandas_does() -> None:
    raw = _raw()
    data = MarketData.from_pandas(raw)
    env = sekai.make("Trading-v0", prices=raw["Adj Close"], lookback=20, episode_length=100)
    base = env.unwrapped
    assert base.data is not None and base.data.is_datetime
    np.testing.assert_array_equal(base.data.timestamps, data.timestamps)
    assert base.data.timestamps[0] == np.datetime64("1999-01-04")
    assert base.data.timestamps[-1] == np.datetime64(pd.bdate_range("1999-01-04", periods=ROWS)[-1])
    assert base.dt == 1.0 / data.periods_per_year
    assert base.data.assets == ("Adj Close",)
    info = env.reset(options={"start": "1999-03-01"}).info
    assert info["timestamp"] == np.datetime64("1999-03-01")
    result = backtest(env, lambda obs: 2, progress=False)
    assert isinstance(result.returns.index, pd.DatetimeIndex)
    assert result.returns.index[0] == pd.Timestamp(data.timestamps[21])
    assert result.periods_per_year == data.periods_per_year


def test_a_text_date_index_dates_portfolio_and_market_and_their_vector_envs() -> None:
    raw = _raw()
    pair = pd.DataFrame({"SPX": raw["Close"], "NDX": raw["Close"] * 1.5}, index=raw.index)
    expected = MarketData.from_pandas(pair).timestamps
    for name in ("Portfolio-v0", "Market-v0"):
        env = sekai.make(name, prices=pair, lookback=5, episode_length=50)
        np.testing.assert_array_equal(env.unwrapped.data.timestamps, expected)
        vec = sekai.make_vec(name, 2, prices=pair, lookback=5, episode_length=50)
        np.testing.assert_array_equal(vec.template.data.timestamps, expected)
        infos = vec.reset(seed=0, options=[{"start": "1999-02-01"}] * 2).infos
        assert infos[0]["timestamp"] == np.datetime64("1999-02-01")


def test_a_numeric_index_still_numbers_the_rows() -> None:
    prices = _raw()["Close"].to_numpy()
    shifted = pd.Series(prices, index=np.arange(ROWS) + 1000)
    env = TradingEnv(shifted, lookback=5, episode_length=10)
    assert env.data is not None and not env.data.is_datetime
    np.testing.assert_array_equal(env.data.timestamps, np.arange(ROWS))
    assert env.dt == 1 / 252


def test_labels_number_the_rows_and_a_date_index_with_a_typo_is_refused() -> None:
    labels = pd.Series([100.0, 101.0, 102.0, 103.0, 104.0], index=list("abcde"))
    env = TradingEnv(labels, lookback=1, episode_length=3)
    assert env.data is not None and env.data.timestamps.tolist() == [0, 1, 2, 3, 4]
    typo = pd.Series(labels.to_numpy(), index=["2020-01-02", "2020-01-03", "2020-13-06", "b", "c"])
    with pytest.raises(ValueError, match=r"the index, row 2: '2020-13-06' is not a date"):
        TradingEnv(typo, lookback=1, episode_length=3)
    numbers = pd.Series(labels.to_numpy(), index=pd.Index([7, 8, 9, 10, 11], dtype=object))
    by_row = TradingEnv(numbers, lookback=1, episode_length=3).data
    assert by_row is not None and by_row.timestamps.tolist() == list(range(5))


def test_market_takes_frames_as_prices_and_as_data() -> None:
    raw = _raw()
    close = raw["Close"].to_numpy()
    frame = pd.DataFrame({"OLD": close, "NEW": close * 2.0}, index=raw.index)
    frame.loc[frame.index[:100], "NEW"] = np.nan  # NEW lists at row 100
    expected = MarketData.from_pandas(frame)
    for env in (
        sekai.make("Market-v0", prices=frame, lookback=5, episode_length=200),
        sekai.make("Market-v0", data=frame, lookback=5, episode_length=200),
        MarketEnv(frame, lookback=5, episode_length=200),
    ):
        data = env.unwrapped.data
        assert data.assets == ("OLD", "NEW")
        np.testing.assert_array_equal(data.prices, expected.prices)
        np.testing.assert_array_equal(data.timestamps, expected.timestamps)
        env.reset(options={"start": 5})
        assert env.unwrapped.action_mask().tolist() == [1, 0, 1]
    raw_array = sekai.make("Market-v0", prices=frame.to_numpy(), lookback=5, episode_length=200)
    np.testing.assert_array_equal(raw_array.unwrapped.history.prices, expected.prices)
    with pytest.raises(ValueError, match="at most one price source"):
        MarketEnv(frame, prices=frame, lookback=5, episode_length=200)
    with pytest.raises(TypeError, match=r"raw array .* goes in prices="):
        TradingEnv(data=frame["OLD"], lookback=5, episode_length=200)


def test_missing_prices_in_one_series_suggest_ffill_and_dropna() -> None:
    raw = _raw()
    holidays = raw["Close"].copy()
    holidays.iloc[[40, 41, 120]] = np.nan
    when = holidays.index[40]
    with pytest.raises(ValueError, match="3 missing") as caught:
        TradingEnv(holidays, lookback=5, episode_length=100)
    message = str(caught.value)
    assert when in message and "'Close'" in message
    assert "ffill()" in message and "dropna()" in message and "Market-v0" in message
    filled = TradingEnv(holidays.ffill(), lookback=5, episode_length=100)
    assert filled.data is not None and filled.data.mask.all()
    dropped = TradingEnv(holidays.dropna(), lookback=5, episode_length=100)
    assert dropped.data is not None and dropped.data.n_steps == ROWS - 3
    with pytest.raises(ValueError, match=r"Portfolio-v0 needs a price at every row.*ffill"):
        PortfolioEnv(holidays.to_frame(), lookback=5, episode_length=100)


def test_end_option_runs_one_episode_to_a_chosen_row() -> None:
    raw = _raw()
    env = TradingEnv(raw["Close"], lookback=5, episode_length=10)
    info = env.reset(options={"start": "1999-02-01", "end": "1999-06-30"}).info
    stamps = env.data.timestamps if env.data is not None else None
    assert stamps is not None
    first = int(np.searchsorted(stamps, np.datetime64("1999-02-01")))
    last = int(np.searchsorted(stamps, np.datetime64("1999-06-30"), side="right")) - 1
    assert info["timestamp"] == stamps[first]
    steps = 0
    done = False
    while not done:
        step = env.step(1)
        steps += 1
        done = step.terminated or step.truncated
    assert steps == last - first and step.info["timestamp"] == stamps[last]
    env.reset(options={"start": 5, "end": -1})
    assert env.price_history.shape == (6,)
    with pytest.raises(ValueError, match="'end' option"):
        env.reset(options={"start": 20, "end": 20})
    with pytest.raises(ValueError, match="'end' option needs historical prices"):
        TradingEnv(lookback=5, episode_length=10).reset(options={"end": 30})
    vec = sekai.make_vec("Trading-v0", 2, prices=raw["Close"], lookback=5, episode_length=10)
    with pytest.raises(ValueError, match="'end' option"):
        vec.reset(options=[{"end": 50}, None])
