"""Tests for ``MarketData.read_csv`` / ``read_parquet`` / ``to_parquet``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sekai.finance import MarketData
from sekai.finance.data import FileOptions, ReadOptions

pd = pytest.importorskip("pandas")

DATES = np.array(["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-06"], dtype="datetime64[ns]")
TEXT = [str(d)[:10] for d in DATES]


def long_frame() -> pd.DataFrame:
    """Rows for A, B (shuffled), B not listed on the first day."""
    rows = [
        (TEXT[1], "B", 21.0, 2.0),
        (TEXT[0], "A", 10.0, 1.0),
        (TEXT[2], "A", 12.0, 3.0),
        (TEXT[1], "A", 11.0, 4.0),
        (TEXT[3], "B", 23.0, 5.0),
        (TEXT[2], "B", 22.0, 6.0),
        (TEXT[3], "A", 13.0, 7.0),
    ]
    return pd.DataFrame(rows, columns=["Date", "Symbol", "Close", "Volume"])


LONG_CLOSE = [[10.0, np.nan], [11.0, 21.0], [12.0, 22.0], [13.0, 23.0]]
LONG_VOLUME = [[1.0, np.nan], [4.0, 2.0], [3.0, 6.0], [7.0, 5.0]]


def check_long(data: MarketData) -> None:
    assert data.assets == ("A", "B") and data.price_field == "close"
    assert list(data.fields) == ["close", "volume"]
    np.testing.assert_array_equal(data.timestamps, DATES)
    np.testing.assert_array_equal(data.prices, LONG_CLOSE)
    np.testing.assert_array_equal(data.field("volume"), LONG_VOLUME)


# -- CSV ----------------------------------------------------------------------------------


def test_long_csv(tmp_path):
    path = tmp_path / "prices.csv"
    long_frame().to_csv(path, index=False)
    check_long(MarketData.read_csv(path))
    check_long(MarketData.read_csv(str(path), layout="long"))


def test_csv_prices_read_back_to_the_last_bit(tmp_path):
    # pandas writes each float's shortest round-trip text; reading it must give the same float
    prices = np.random.default_rng(0).lognormal(4.0, 1.0, size=(2000, 3))
    dates = pd.date_range("2000-01-03", periods=len(prices), freq="D")
    pd.DataFrame(prices, index=dates, columns=["A", "B", "C"]).rename_axis("Date").to_csv(
        tmp_path / "wide.csv"
    )
    read = MarketData.read_csv(tmp_path / "wide.csv")
    assert read.assets == ("A", "B", "C")
    assert np.array_equal(read.prices, prices)


def test_long_csv_last_row_wins_and_vendor_headers(tmp_path):
    frame = long_frame().rename(columns={"Date": "TradeDate", "Symbol": "Sym", "Close": "Px_Last"})
    frame = pd.concat([frame, frame.iloc[[0]].assign(Px_Last=99.0)])
    path = tmp_path / "vendor.csv"
    frame.to_csv(path, index=False)
    data = MarketData.read_csv(
        path, columns={"Px_Last": "close", "Sym": "symbol"}, time="TradeDate"
    )
    assert data.assets == ("A", "B")
    assert data.prices[1, 1] == 99.0
    with pytest.raises(ValueError, match=r"vendor.csv: no time column: expected one named"):
        MarketData.read_csv(path)
    with pytest.raises(ValueError, match=r"no price column 'close'; the field columns are"):
        MarketData.read_csv(path, time="TradeDate", asset="Sym")
    only = MarketData.read_csv(
        path, time="TradeDate", asset="Sym", fields=["Px_Last"], price_field="Px_Last"
    )
    assert list(only.fields) == ["Px_Last"]


def test_file_options_read_like_their_keywords(tmp_path):
    frame = long_frame().rename(columns={"Date": "TradeDate", "Symbol": "Sym", "Close": "Px_Last"})
    path = tmp_path / "vendor.csv"
    frame.to_csv(path, index=False)
    vendor = FileOptions(columns={"Px_Last": "close"}, time="TradeDate", asset="Sym")
    assert vendor.columns == {"Px_Last": "close"} and vendor.dates == ReadOptions()
    check_long(MarketData.read_csv(path, options=vendor))
    only = MarketData.read_csv(path, options=vendor, fields="close")
    assert list(only.fields) == ["close"] and vendor.fields is None
    with pytest.raises(TypeError, match="options must be a FileOptions"):
        MarketData.read_csv(path, options=ReadOptions())
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['sheet'\]"):
        MarketData.read_csv(path, sheet=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="time must be a str"):
        FileOptions(time=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not both"):
        FileOptions(date_format="%Y", dayfirst=True)


def test_csv_folder_of_per_ticker_files_joins_on_the_union_of_dates(tmp_path):
    headers = ["Date", "Open", "High", "Low", "Close", "Adj Close", "Volume"]
    aapl = pd.DataFrame([[TEXT[0], 1, 2, 0.5, 1.5, 1.4, 100], [TEXT[2], 2, 3, 1, 2.5, 2.4, 200]])
    msft = pd.DataFrame([[TEXT[1], 5, 6, 4, 5.5, 5.4, 300], [TEXT[2], 6, 7, 5, 6.5, 6.4, 400]])
    for name, frame in (("AAPL", aapl), ("MSFT", msft)):
        frame.columns = headers
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    (tmp_path / "notes.txt").write_text("ignored")
    for source in (tmp_path, str(tmp_path / "*.csv")):
        data = MarketData.read_csv(source)
        assert data.assets == ("AAPL", "MSFT")
        assert list(data.fields) == ["close", "open", "high", "low", "adj_close", "volume"]
        np.testing.assert_array_equal(data.timestamps, DATES[:3])
        np.testing.assert_array_equal(data.prices, [[1.5, np.nan], [np.nan, 5.5], [2.5, 6.5]])
        np.testing.assert_array_equal(
            data.field("volume"), [[100, np.nan], [np.nan, 300], [200, 400]]
        )
    adjusted = MarketData.read_csv(tmp_path, price_field="Adj Close")
    assert adjusted.price_field == "adj_close"
    np.testing.assert_array_equal(adjusted.prices[2], [2.4, 6.4])


def test_csv_folder_of_long_files_merges(tmp_path):
    frame = long_frame()
    frame.iloc[:4].to_csv(tmp_path / "part1.csv", index=False)
    frame.iloc[4:].to_csv(tmp_path / "part2.csv", index=False)
    check_long(MarketData.read_csv(tmp_path))


def test_wide_csv_asset_columns_and_single_ticker(tmp_path):
    path = tmp_path / "wide.csv"
    pd.DataFrame({"date": TEXT, "X": [1.0, 2, 3, 4], "Y": [5.0, 6, 7, np.nan]}).to_csv(
        path, index=False
    )
    data = MarketData.read_csv(path)
    assert data.assets == ("X", "Y")
    np.testing.assert_array_equal(data.timestamps, DATES)
    np.testing.assert_array_equal(data.prices, [[1, 5], [2, 6], [3, 7], [4, np.nan]])
    one = tmp_path / "SPY.csv"
    pd.DataFrame({"Timestamp": [0, 1, 2], "Close": [1.0, 2, 3], "Volume": [7, 8, 9]}).to_csv(
        one, index=False
    )
    spy = MarketData.read_csv(one)
    assert spy.assets == ("SPY",) and spy.timestamps.dtype == np.int64
    np.testing.assert_array_equal(spy.timestamps, [0, 1, 2])
    np.testing.assert_array_equal(spy.field("volume"), [[7.0], [8.0], [9.0]])
    with pytest.raises(ValueError, match=r"layout='long' needs an asset column named"):
        MarketData.read_csv(path, layout="long")


def test_csv_errors_name_the_file_line_column_and_value(tmp_path):
    truncated = tmp_path / "truncated.csv"
    truncated.write_text("date,A,B\n2020-01-01,1,2\n2020-01-02,3,4\n2020-01-03,5")
    with pytest.raises(ValueError, match=r"truncated.csv: line 4 has 2 fields, the header 3"):
        MarketData.read_csv(truncated)
    bad_date = tmp_path / "dates.csv"
    bad_date.write_text("date,A\n2020-01-01,1\n2020-01-02,2\n\n2020-13-45,3\n")
    with pytest.raises(
        ValueError, match=r"dates.csv: line 5, column 'date': '2020-13-45' is not a date"
    ):
        MarketData.read_csv(bad_date)
    bad_number = tmp_path / "numbers.csv"
    bad_number.write_text("date,A\n2020-01-01,1\n2020-01-02,n/a?\n")
    with pytest.raises(ValueError, match=r"line 3, column 'A': 'n/a\?' is not a number"):
        MarketData.read_csv(bad_number)
    binary = tmp_path / "binary.csv"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=r"binary.csv: not a readable CSV file"):
        MarketData.read_csv(binary)
    extra = tmp_path / "extra.csv"
    extra.write_text("date,A\n2020-01-01,1,9\n2020-01-02,2,9\n")
    with pytest.raises(ValueError, match="more fields than the header"):
        MarketData.read_csv(extra)
    missing = tmp_path / "missing.csv"
    missing.write_text("date,symbol,close\n2020-01-01,,1\n2020-01-02,A,2\n")
    with pytest.raises(ValueError, match=r"line 2: no asset in 'symbol'"):
        MarketData.read_csv(missing)
    negative = tmp_path / "negative.csv"
    negative.write_text("date,A\n2020-01-01,1\n2020-01-02,-2\n")
    with pytest.raises(ValueError, match=r"negative.csv: prices must be > 0"):
        MarketData.read_csv(negative)


def test_sources_that_match_nothing(tmp_path):
    with pytest.raises(FileNotFoundError, match="no file matches the pattern"):
        MarketData.read_csv(str(tmp_path / "*.csv"))
    with pytest.raises(FileNotFoundError, match=r"holds no \.csv file"):
        MarketData.read_csv(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        MarketData.read_csv(tmp_path / "absent.csv")
    with pytest.raises(TypeError, match="expected a path"):
        MarketData.read_csv(3)
    with pytest.raises(ValueError, match="layout"):
        MarketData.read_csv(tmp_path, layout="tall")


def test_per_ticker_files_must_hold_one_asset(tmp_path):
    for name in ("a", "b"):
        pd.DataFrame({"date": TEXT[:2], "X": [1.0, 2], "Y": [3.0, 4]}).to_csv(
            tmp_path / f"{name}.csv", index=False
        )
    with pytest.raises(ValueError, match="one ticker's file, but this one has 2 asset columns"):
        MarketData.read_csv(tmp_path)


# -- Parquet ------------------------------------------------------------------------------


def test_long_and_wide_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    frame = long_frame().assign(Date=lambda f: pd.to_datetime(f["Date"]))
    frame.to_parquet(tmp_path / "long.parquet", index=False)
    check_long(MarketData.read_parquet(tmp_path / "long.parquet"))
    categorical = frame.assign(Symbol=frame["Symbol"].astype("category"))
    categorical.to_parquet(tmp_path / "cat.parquet", index=False)
    check_long(MarketData.read_parquet(tmp_path / "cat.parquet"))
    wide = frame.pivot(index="Date", columns="Symbol", values="Close")
    wide.to_parquet(tmp_path / "wide.parquet")
    data = MarketData.read_parquet(tmp_path / "wide.parquet")
    assert data.assets == ("A", "B")
    np.testing.assert_array_equal(data.prices, LONG_CLOSE)
    np.testing.assert_array_equal(data.timestamps, DATES)
    multi = frame.set_index(["Date", "Symbol"]).unstack("Symbol").swaplevel(axis=1)
    multi.to_parquet(tmp_path / "multi.parquet")
    check_long(MarketData.read_parquet(tmp_path / "multi.parquet"))
    column = wide.reset_index()
    column.to_parquet(tmp_path / "column.parquet", index=False)
    np.testing.assert_array_equal(
        MarketData.read_parquet(tmp_path / "column.parquet").prices, LONG_CLOSE
    )


def test_parquet_errors(tmp_path):
    pytest.importorskip("pyarrow")
    text = tmp_path / "text.parquet"
    text.write_text("date,close\n")
    with pytest.raises(ValueError, match=r"text.parquet: not a readable Parquet file"):
        MarketData.read_parquet(text)
    good = tmp_path / "good.parquet"
    long_frame().to_parquet(good, index=False)
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(good.read_bytes()[:-100])
    with pytest.raises(ValueError, match=r"cut.parquet: not a readable Parquet file"):
        MarketData.read_parquet(cut)
    strings = tmp_path / "strings.parquet"
    long_frame().assign(Close="x").to_parquet(strings, index=False)
    with pytest.raises(ValueError, match=r"column .Close. has type (large_)?string; expected"):
        MarketData.read_parquet(strings)
    dates = tmp_path / "dates.parquet"
    long_frame().assign(Date=["2020-01-01"] * 6 + ["soon"]).to_parquet(dates, index=False)
    with pytest.raises(ValueError, match=r"row 6 \(0-based\), column 'Date': 'soon' is not a"):
        MarketData.read_parquet(dates)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"holds no \.parquet/\.pq file"):
        MarketData.read_parquet(empty)


def test_missing_pyarrow_names_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "x.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=r'needs pyarrow.*pip install -e "\.\[parquet\]"'):
        MarketData.read_parquet(path)


# -- to_parquet round trip ----------------------------------------------------------------


def assert_same(a: MarketData, b: MarketData) -> None:
    assert a.assets == b.assets and [type(x) for x in a.assets] == [type(x) for x in b.assets]
    assert list(a.fields) == list(b.fields) and a.price_field == b.price_field
    assert a.warmup == b.warmup and a.timestamps.dtype == b.timestamps.dtype
    np.testing.assert_array_equal(a.timestamps, b.timestamps)
    for name in a.fields:
        np.testing.assert_array_equal(a.field(name), b.field(name))
    assert list(a.exogenous) == list(b.exogenous)
    for name in a.exogenous:
        assert a.exogenous_series(name).shape == b.exogenous_series(name).shape
        np.testing.assert_array_equal(a.exogenous_series(name), b.exogenous_series(name))


@pytest.mark.parametrize("unit", ["D", "s", "ms", "us", "ns", "M", "h"])
def test_round_trip_keeps_the_datetime_unit(tmp_path, unit):
    pytest.importorskip("pyarrow")
    stamps = np.arange(0, 30, 10).astype(f"datetime64[{unit}]")
    data = MarketData([[1.0, np.nan], [2.0, 3.0], [4.0, 5.0]], timestamps=stamps)
    data.to_parquet(tmp_path / "p.parquet")
    assert_same(MarketData.read_parquet(tmp_path / "p.parquet"), data)


def test_round_trip_of_everything(tmp_path):
    pytest.importorskip("pyarrow")
    prices = np.array([[1.0, np.nan, 3.0], [2.0, 2.5, np.nan], [3.0, 3.5, 4.0], [4, 5, 6]])
    data = MarketData(
        fields={"adj_close": prices, "time": prices * 2, "asset": np.full((4, 3), np.nan)},
        timestamps=np.array([0.5, 1.5, 2.25, 10.0]),
        assets=[7, 3, 11],
        exogenous={"vix": [1.0, np.nan, 3.0, 4.0], "rates": np.arange(8.0).reshape(4, 2)},
        price_field="adj_close",
        warmup=2,
    )
    data.to_parquet(tmp_path / "all.parquet")
    back = MarketData.read_parquet(tmp_path / "all.parquet")
    assert_same(back, data)
    assert back.assets == (7, 3, 11)
    int_axis = MarketData(prices[:, :1], timestamps=[3, 5, 8, 9], assets=["Z"])
    int_axis.to_parquet(tmp_path / "int.parquet")
    assert_same(MarketData.read_parquet(tmp_path / "int.parquet"), int_axis)
    with pytest.raises(ValueError, match=r"all\.parquet: a file written by to_parquet"):
        MarketData.read_parquet(tmp_path)


def test_to_parquet_refuses_other_asset_ids(tmp_path):
    pytest.importorskip("pyarrow")
    for ids in ([("a", 1), ("b", 2)], ["a", 1], [True, False]):
        with pytest.raises(TypeError, match="str or int asset ids"):
            MarketData(np.ones((2, 2)), assets=ids).to_parquet(tmp_path / "x.parquet")
    with pytest.raises(TypeError, match="path must be"):
        MarketData(np.ones((2, 1))).to_parquet(3)


def test_to_parquet_file_is_a_plain_long_table(tmp_path):
    pytest.importorskip("pyarrow")
    data = MarketData.from_long(long_frame(), time="Date", asset="Symbol", price="Close")
    data.to_parquet(tmp_path / "p.parquet")
    table = pd.read_parquet(tmp_path / "p.parquet")
    assert list(table.columns) == ["time", "asset", "close"]
    assert table["asset"].tolist() == ["A", "B"] * 4


@st.composite
def panels(draw):
    n_steps = draw(st.integers(2, 6))
    n_assets = draw(st.integers(1, 4))
    cells = st.one_of(st.just(np.nan), st.floats(1e-3, 1e6, allow_nan=False))
    prices = np.array(
        draw(st.lists(cells, min_size=n_steps * n_assets, max_size=n_steps * n_assets))
    )
    volume = np.array(
        draw(
            st.lists(
                st.floats(allow_infinity=False),
                min_size=n_steps * n_assets,
                max_size=n_steps * n_assets,
            )
        )
    )
    gaps = draw(st.lists(st.integers(1, 10**6), min_size=n_steps, max_size=n_steps))
    dated = draw(st.booleans())
    stamps = np.cumsum(gaps)
    if dated:
        stamps = stamps.astype(f"datetime64[{draw(st.sampled_from(['D', 's', 'ns']))}]")
    ints = draw(st.booleans())
    assets = list(range(n_assets)) if ints else [f"T{j}" for j in range(n_assets)]
    exo = {}
    if draw(st.booleans()):
        exo["x"] = np.array(
            draw(st.lists(st.floats(allow_infinity=False), min_size=n_steps, max_size=n_steps))
        )
    return MarketData(
        prices.reshape(n_steps, n_assets),
        fields={"volume": volume.reshape(n_steps, n_assets)},
        timestamps=stamps,
        assets=assets,
        exogenous=exo,
        warmup=draw(st.integers(0, n_steps)),
    )


@pytest.mark.filterwarnings("ignore:the time axis has .* far longer:UserWarning")  # random gaps
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=panels())
def test_round_trip_property(tmp_path, data):
    pytest.importorskip("pyarrow")
    path: Path = tmp_path / "h.parquet"
    data.to_parquet(path)
    assert_same(MarketData.read_parquet(path), data)
