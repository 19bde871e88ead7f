"""Tests for the frame layouts ``MarketData.from_pandas`` reads (pandas and polars)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import sekai
from sekai.finance import MarketData
from sekai.finance.data.pandas_io import field_name

pd = pytest.importorskip("pandas")

TICKERS = ["MSFT", "AAPL", "GOOG"]
FIELDS = ["Open", "High", "Low", "Close", "Adj Close", "Volume"]
STORED = ["open", "high", "low", "close", "adj_close", "volume"]


def values(T: int, n_tickers: int, n_fields: int) -> np.ndarray:
    """``(T, n_tickers, n_fields)`` distinct positive values."""
    return 100.0 + np.arange(T * n_tickers * n_fields, dtype=float).reshape(T, n_tickers, n_fields)


def multi_frame(T: int = 6, *, ticker_first: bool = True, index=None) -> pd.DataFrame:
    cube = values(T, len(TICKERS), len(FIELDS))
    if index is None:
        index = pd.date_range("2021-01-04", periods=T, freq="B")
    if ticker_first:
        columns = pd.MultiIndex.from_product([TICKERS, FIELDS])
        data = cube.reshape(T, -1)
    else:
        columns = pd.MultiIndex.from_product([FIELDS, TICKERS])
        data = cube.transpose(0, 2, 1).reshape(T, -1)
    return pd.DataFrame(data, index=index, columns=columns)


# -- field names ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("Adj Close", "adj_close"),
        ("adj_close", "adj_close"),
        ("ADJ-CLOSE", "adj_close"),
        ("  adj   close ", "adj_close"),
        ("Open", "open"),
        ("VOLUME", "volume"),
        ("Stock Splits", "stock_splits"),
        ("bid-size", "bid_size"),
        ("AAPL", None),
        ("price", None),
        (3, None),
    ],
)
def test_field_names_ignore_case_spaces_hyphens_underscores(name, field):
    assert field_name(name) == field


# -- column MultiIndex ------------------------------------------------------------------


@pytest.mark.parametrize("ticker_first", [True, False])
def test_multiindex_in_either_order(ticker_first):
    frame = multi_frame(ticker_first=ticker_first)
    data = MarketData.from_pandas(frame)
    cube = values(6, len(TICKERS), len(FIELDS))
    assert data.assets == tuple(TICKERS)
    assert list(data.fields) == ["close", "open", "high", "low", "adj_close", "volume"]
    assert data.price_field == "close"
    np.testing.assert_array_equal(data.timestamps, frame.index.to_numpy().astype("datetime64[ns]"))
    for k, name in enumerate(STORED):
        np.testing.assert_array_equal(data.field(name), cube[:, :, k])
    np.testing.assert_array_equal(data.prices, cube[:, :, 3])


def test_multiindex_price_field_and_missing_pairs():
    frame = multi_frame().drop(columns=[("AAPL", "Volume")])
    data = MarketData.from_pandas(frame, price_field="adj_close")
    cube = values(6, len(TICKERS), len(FIELDS))
    assert data.price_field == "adj_close"
    np.testing.assert_array_equal(data.prices, cube[:, :, 4])
    volume = data.field("volume")
    assert np.isnan(volume[:, 1]).all()
    np.testing.assert_array_equal(volume[:, [0, 2]], cube[:, [0, 2], 5])
    spelled = MarketData.from_pandas(frame, price_field="Adj Close")
    assert spelled.price_field == "adj_close"


def test_multiindex_refusals():
    frame = multi_frame()
    no_close = frame.drop(columns=[c for c in frame.columns if c[1] == "Close"])
    with pytest.raises(ValueError, match=r"price field 'close' is not in the frame; its fields"):
        MarketData.from_pandas(no_close)
    both = pd.DataFrame(
        np.ones((3, 2)), columns=pd.MultiIndex.from_tuples([("open", "close"), ("close", "open")])
    )
    with pytest.raises(ValueError, match="both column level holds only field names"):
        MarketData.from_pandas(both)
    neither = pd.DataFrame(
        np.ones((3, 2)), columns=pd.MultiIndex.from_tuples([("A", "x"), ("B", "y")])
    )
    with pytest.raises(ValueError, match="neither column level"):
        MarketData.from_pandas(neither)
    three = pd.DataFrame(np.ones((3, 1)), columns=pd.MultiIndex.from_tuples([("A", "close", "x")]))
    with pytest.raises(ValueError, match="must have 2 levels"):
        MarketData.from_pandas(three)
    twice = pd.DataFrame(
        np.ones((3, 2)), columns=pd.MultiIndex.from_tuples([("A", "Close"), ("A", "close")])
    )
    with pytest.raises(ValueError, match=r"column \('A', 'close'\) appears twice"):
        MarketData.from_pandas(twice)
    with pytest.raises(ValueError, match="several assets"):
        MarketData.from_pandas(frame, asset="X")


def test_multiindex_with_extra_fields_and_clash():
    frame = multi_frame()
    spread = pd.DataFrame(0.5, index=frame.index, columns=TICKERS)
    data = MarketData.from_pandas(frame, fields={"spread": spread})
    np.testing.assert_array_equal(data.field("spread"), np.full((6, 3), 0.5))
    with pytest.raises(ValueError, match=r"fields \['volume'\] are given twice"):
        MarketData.from_pandas(frame, fields={"volume": spread})


# -- single-level frames ----------------------------------------------------------------


def test_single_ticker_ohlcv_with_yfinance_headers():
    cube = values(5, 1, len(FIELDS))[:, 0, :]
    index = pd.date_range("2022-06-01", periods=5, freq="D", name="Date")
    frame = pd.DataFrame(cube, index=index, columns=FIELDS)
    data = MarketData.from_pandas(frame)
    assert data.assets == ("asset_0",)
    assert set(data.fields) == set(STORED)
    for k, name in enumerate(STORED):
        np.testing.assert_array_equal(data.field(name), cube[:, [k]])
    named = MarketData.from_pandas(frame, asset="AAPL", price_field="adj_close")
    assert named.assets == ("AAPL",) and named.price_field == "adj_close"
    np.testing.assert_array_equal(named.prices, cube[:, [4]])
    with pytest.raises(ValueError, match=r"price field 'close' is not in the frame"):
        MarketData.from_pandas(frame.drop(columns=["Close"]))
    with pytest.raises(ValueError, match="'Close' and 'close' are both the field 'close'"):
        MarketData.from_pandas(frame.assign(close=1.0))


def test_asset_columns_are_todays_behaviour_and_series_keep_their_name():
    index = pd.date_range("2020-01-01", periods=3)
    frame = pd.DataFrame({"X": [1.0, 2.0, 3.0], "Y": [4.0, 5.0, 6.0]}, index=index)
    data = MarketData.from_pandas(frame, price_field="px")
    assert data.assets == ("X", "Y") and data.price_field == "px"
    np.testing.assert_array_equal(data.prices, frame.to_numpy())
    close = MarketData.from_pandas(pd.Series([1.0, 2.0], name="Close"))
    assert close.assets == ("Close",)
    assert MarketData.from_pandas(pd.Series([1.0, 2.0]), asset="SPY").assets == ("SPY",)


def test_mixed_columns_are_refused_with_the_fix():
    frame = pd.DataFrame(
        {"AAPL": [1.0, 2.0], "MSFT": [3.0, 4.0], "volume": [5.0, 6.0]},
        index=pd.date_range("2020-01-01", periods=2),
    )
    with pytest.raises(ValueError) as info:
        MarketData.from_pandas(frame)
    message = str(info.value)
    assert "field names ['volume']" in message and "other names ['AAPL', 'MSFT']" in message
    assert "Select the asset columns" in message and "from_long()" in message


# -- index and dtype checks -------------------------------------------------------------


def test_duplicate_timestamps_are_refused():
    index = pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-02", "2020-01-03"])
    frame = pd.DataFrame({"A": [1.0, 2.0, 3.0, 4.0]}, index=index)
    with pytest.raises(
        ValueError, match=r"duplicate timestamps: 2020-01-02 00:00:00 at rows \[1, 2\]"
    ):
        MarketData.from_pandas(frame)


def test_unsorted_index_is_refused():
    index = pd.to_datetime(["2020-01-01", "2020-01-03", "2020-01-02"])
    frame = pd.DataFrame({"A": [1.0, 2.0, 3.0]}, index=index)
    with pytest.raises(ValueError, match=r"not sorted: row 2 \(2020-01-02.*sort_index\(\)"):
        MarketData.from_pandas(frame)
    with pytest.raises(ValueError, match=r"row 1 \(3\) is earlier than row 0 \(5\)"):
        MarketData.from_pandas(pd.Series([1.0, 2.0], index=[5, 3]))


@pytest.mark.parametrize(
    ("column", "dtype"),
    [(["a", "b", "c"], "str"), ([True, False, True], "bool"), ([1, "x", 2.0], "object")],
)
def test_non_numeric_columns_are_refused(column, dtype):
    frame = pd.DataFrame(
        {"A": [1.0, 2.0, 3.0], "B": column}, index=pd.date_range("2020-01-01", periods=3)
    )
    if dtype == "str" and int(pd.__version__.split(".")[0]) < 3:
        dtype = "object"  # text columns have a dtype of their own from pandas 3.0
    with pytest.raises(ValueError, match=rf"must be numeric: columns 'B' \({dtype}\)"):
        MarketData.from_pandas(frame)


def test_time_column_left_in_the_frame_gets_a_hint():
    frame = pd.DataFrame({"date": pd.date_range("2020-01-01", periods=2), "close": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"'date' \(datetime64.*set_index"):
        MarketData.from_pandas(frame)


def test_timezone_aware_and_row_multiindex_are_refused():
    aware = pd.Series([1.0, 2.0], index=pd.date_range("2020-01-01", periods=2, tz="UTC"))
    with pytest.raises(ValueError, match="timezone-aware"):
        MarketData.from_pandas(aware)
    rows = pd.MultiIndex.from_product([pd.date_range("2020-01-01", periods=2), ["A", "B"]])
    with pytest.raises(ValueError, match=r"2 levels; a long frame goes to from_long\(\)"):
        MarketData.from_pandas(pd.DataFrame({"close": [1.0, 2.0, 3.0, 4.0]}, index=rows))


def test_from_long_normalises_field_names():
    frame = pd.DataFrame(
        {
            "date": ["2020-01-01", "2020-01-01", "2020-01-02", "2020-01-02"],
            "symbol": ["B", "A", "A", "B"],
            "Adj Close": [2.0, 1.0, 3.0, 4.0],
            "Volume": [10.0, 20.0, 30.0, 40.0],
        }
    )
    data = MarketData.from_long(frame, price="Adj Close", fields=["Volume"])
    assert data.price_field == "adj_close" and list(data.fields) == ["adj_close", "volume"]
    np.testing.assert_array_equal(data.prices, [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(data.field("volume"), [[20.0, 10.0], [30.0, 40.0]])


def test_core_imports_neither_pandas_nor_polars():
    code = (
        "import sys, sekai.finance.data, sekai.envs.finance.windowed.env\n"
        "assert 'pandas' not in sys.modules and 'polars' not in sys.modules\n"
        "import pandas as pd\n"
        "from sekai.finance.data import MarketData\n"
        "MarketData.from_pandas(pd.Series([1.0, 2.0]))\n"
        "assert 'polars' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- polars -----------------------------------------------------------------------------


def test_polars_frames_and_series():
    pl = pytest.importorskip("polars")
    dates = pd.date_range("2020-01-01", periods=4).to_numpy()
    frame = pl.DataFrame(
        {"Close": [1.0, 2.0, 3.0, 4.0], "day": dates, "Volume": [10, None, 30, 40]}
    ).with_columns(pl.col("day").cast(pl.Date))
    data = MarketData.from_pandas(frame, asset="X")
    assert data.assets == ("X",) and list(data.fields) == ["close", "volume"]
    np.testing.assert_array_equal(data.timestamps, dates.astype("datetime64[ns]"))
    np.testing.assert_array_equal(data.field("volume")[:, 0], [10.0, np.nan, 30.0, 40.0])
    wide = pl.DataFrame({"Time": ["2020-01-01", "2020-01-02"], "A": [1.0, 2.0], "B": [3, 4]})
    both = MarketData.from_pandas(wide)
    assert both.assets == ("A", "B")
    np.testing.assert_array_equal(both.prices, [[1.0, 3.0], [2.0, 4.0]])
    np.testing.assert_array_equal(
        both.timestamps, np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[ns]")
    )
    series = MarketData.from_pandas(pl.Series("SPY", [1.0, 2.0, 3.0]))
    assert series.assets == ("SPY",) and list(series.timestamps) == [0, 1, 2]
    assert MarketData.from_pandas(pl.Series([1.0, 2.0])).assets == ("asset_0",)


def test_polars_refusals_and_from_long():
    pl = pytest.importorskip("polars")
    with pytest.raises(ValueError, match="needs a Date/Datetime column"):
        MarketData.from_pandas(pl.DataFrame({"A": [1.0, 2.0]}))
    aware = pl.DataFrame(
        {"t": pd.date_range("2020-01-01", periods=2).to_numpy(), "A": [1.0, 2.0]}
    ).with_columns(pl.col("t").dt.replace_time_zone("UTC"))
    with pytest.raises(ValueError, match="timezone-aware"):
        MarketData.from_pandas(aware)
    with pytest.raises(ValueError, match=r"columns 'B' \(bool\)"):
        MarketData.from_pandas(
            pl.DataFrame({"date": ["2020-01-01", "2020-01-02"], "B": [True, False]})
        )
    long = pl.DataFrame(
        {
            "date": ["2020-01-02", "2020-01-01", "2020-01-01", "2020-01-02"],
            "symbol": ["A", "A", "B", "B"],
            "close": [2.0, 1.0, 3.0, 4.0],
        }
    )
    data = MarketData.from_long(long)
    assert data.assets == ("A", "B")
    np.testing.assert_array_equal(data.prices, [[1.0, 3.0], [2.0, 4.0]])


# -- the envs' prices= --------------------------------------------------------------------


def _walk(T: int, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(rng.normal(0, 0.01, (T, n)), axis=0))


def _walk_frame(T: int, index=None) -> pd.DataFrame:
    close = _walk(T, len(TICKERS))
    columns = pd.MultiIndex.from_product([TICKERS, ["Close", "Volume"]])
    data = np.stack([close, np.full_like(close, 1e6)], axis=2).reshape(T, -1)
    return pd.DataFrame(data, index=index, columns=columns)


def test_portfolio_trades_the_tickers_of_a_multiindex_frame():
    frame = _walk_frame(40, pd.date_range("2021-01-04", periods=40, freq="B"))
    env = sekai.make("Portfolio-v0", prices=frame, episode_length=5, lookback=3).unwrapped
    assert env.n_assets == len(TICKERS) and env.data.assets == tuple(TICKERS)
    assert env.data.is_datetime
    np.testing.assert_array_equal(env.data.prices, frame.xs("Close", axis=1, level=1))
    env.reset(seed=0)
    env.step(np.full(len(TICKERS) + 1, 1 / (len(TICKERS) + 1), np.float32))


def test_undated_multiindex_frame_is_numbered_by_row():
    frame = _walk_frame(40)
    env = sekai.make("Portfolio-v0", prices=frame, episode_length=5, lookback=3).unwrapped
    assert env.n_assets == 3 and env.data.assets == tuple(TICKERS)
    np.testing.assert_array_equal(env.data.timestamps, np.arange(40))
    np.testing.assert_array_equal(env.data.field("volume"), np.full((40, 3), 1e6))


def test_trading_takes_a_single_ticker_ohlcv_frame_and_refuses_mixed_ones():
    close = _walk(60, 1)[:, 0]
    frame = pd.DataFrame({"Close": close, "Volume": 1e6}, index=pd.RangeIndex(60))
    env = sekai.make("Trading-v0", prices=frame, episode_length=10, lookback=5).unwrapped
    assert env.data.assets == ("asset_0",) and set(env.data.fields) == {"close", "volume"}
    np.testing.assert_array_equal(env.prices, close)
    mixed = pd.DataFrame({"AAPL": close, "MSFT": close, "volume": 1e6})
    with pytest.raises(ValueError, match="mix field names"):
        sekai.make("Portfolio-v0", prices=mixed, episode_length=5, lookback=3)
    with pytest.raises(ValueError, match="1-D"):
        sekai.make("Trading-v0", prices=_walk_frame(60), episode_length=10, lookback=5)


def test_envs_take_polars_prices():
    pl = pytest.importorskip("polars")
    close = _walk(40, 2)
    frame = pl.DataFrame(
        {
            "date": pd.date_range("2021-01-04", periods=40, freq="B").to_numpy(),
            "X": close[:, 0],
            "Y": close[:, 1],
        }
    )
    env = sekai.make("Portfolio-v0", prices=frame, episode_length=5, lookback=3).unwrapped
    assert env.data.assets == ("X", "Y") and env.data.is_datetime
    np.testing.assert_array_equal(env.data.prices, close)
    series = pl.Series("ABC", close[:, 0])
    one = sekai.make("Trading-v0", prices=series, episode_length=5, lookback=3).unwrapped
    assert one.data.assets == ("ABC",)
    np.testing.assert_array_equal(one.data.timestamps, np.arange(40))
