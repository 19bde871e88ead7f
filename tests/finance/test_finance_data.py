"""Tests for sekai.finance.data: Time, row_of, MarketData."""

from __future__ import annotations

import datetime as dt
import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sekai.finance import MarketData, Time
from sekai.finance.data import naive_datetime64, row_of

pd = pytest.importorskip("pandas")

DAYS = np.arange("2020-01-01", "2020-01-11", dtype="datetime64[D]")


def prices(T: int = 10, N: int = 2) -> np.ndarray:
    return 100.0 + np.arange(T * N, dtype=float).reshape(T, N)


def dated(T: int = 10, N: int = 2, **kwargs) -> MarketData:
    stamps = np.arange("2020-01-01", T, dtype="datetime64[D]").astype("datetime64[ns]")
    return MarketData(prices(T, N), timestamps=stamps, **kwargs)


# -- Time ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        3,
        2.5,
        np.int32(4),
        np.float32(1.5),
        "2020-01-01",
        dt.date(2020, 1, 1),
        dt.datetime(2020, 1, 1, 12),
        np.datetime64("2020-01-01"),
    ],
)
def test_time_accepts(value):
    assert Time(value).value is value
    assert repr(Time(value)) == f"Time({value!r})"


@pytest.mark.parametrize("value", [True, np.bool_(False), None, [1], dt.timedelta(1)])
def test_time_refuses(value):
    with pytest.raises(TypeError):
        Time(value)


def test_time_is_frozen_and_hashable():
    t = Time(3)
    with pytest.raises(AttributeError):
        t.value = 4  # type: ignore[misc]
    assert hash(t) == hash(Time(3)) and t == Time(3)


# -- row_of -------------------------------------------------------------------------------


def test_row_of_ints_are_rows_unchecked():
    assert row_of(DAYS, 3) == 3
    assert row_of(DAYS, np.int64(99)) == 99
    assert row_of(DAYS, -1) == 9  # negatives count from the end
    assert row_of(DAYS, -11) == -11  # beyond the start: unchecked
    numeric = np.arange(10, 20)
    assert row_of(numeric, 12) == 12  # an int is a row even where a timestamp equals it


@pytest.mark.parametrize(
    "when",
    [
        "2020-01-03",
        dt.date(2020, 1, 3),
        dt.datetime(2020, 1, 3),
        np.datetime64("2020-01-03"),
        Time("2020-01-03"),
    ],
)
def test_row_of_dates(when):
    assert row_of(DAYS, when) == 2
    assert row_of(DAYS, when, side="right") == 3


def test_row_of_between_and_past_the_end():
    assert row_of(DAYS, "2020-01-03T12:00") == 3
    assert row_of(DAYS, "2030-01-01") == 10
    assert row_of(DAYS, "1990-01-01") == 0
    assert row_of(DAYS, pd.Timestamp("2020-01-05")) == 4


def test_row_of_numeric_axis():
    stamps = np.array([1.0, 2.0, 4.0, 8.0])
    assert row_of(stamps, 3.0) == 2
    assert row_of(stamps, Time(4)) == 2
    assert row_of(stamps, Time(4), side="right") == 3
    assert row_of(np.arange(1990, 2000), Time(1995)) == 5


@pytest.mark.parametrize(
    ("stamps", "when"),
    [
        (DAYS, 3.0),
        (DAYS, Time(3)),
        (np.arange(5.0), "2020-01-01"),
        (np.arange(5.0), Time(dt.date(2020, 1, 1))),
        (np.arange(5.0), float("nan")),
        (np.arange(5.0), Time(float("inf"))),
        (DAYS, np.datetime64("NaT", "D")),
        (DAYS, "2020-01-01T00:00+01:00"),
        (DAYS, dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)),
        (DAYS, pd.Timestamp("2020-01-01", tz="UTC")),
        (DAYS, "not a date"),
    ],
)
def test_row_of_value_errors(stamps, when):
    with pytest.raises(ValueError):
        row_of(stamps, when)


@pytest.mark.parametrize("when", [True, np.bool_(True), None, [1]])
def test_row_of_type_errors(when):
    with pytest.raises(TypeError):
        row_of(DAYS, when)


def test_row_of_numeric_axis_refuses_non_numbers():
    with pytest.raises(TypeError):
        row_of(np.arange(5.0), object())


def test_row_of_bad_side():
    with pytest.raises(ValueError, match="side"):
        row_of(DAYS, "2020-01-01", side="middle")


def test_naive_datetime64():
    assert naive_datetime64("2020-01-02", "t") == np.datetime64("2020-01-02")
    out = naive_datetime64(dt.date(2020, 1, 2), "t", unit="ns")
    assert out.dtype == np.dtype("datetime64[ns]")
    ts = naive_datetime64(pd.Timestamp("2020-01-02 00:00:00.000000001"), "t")
    assert ts == np.datetime64("2020-01-02T00:00:00.000000001")
    with pytest.raises(ValueError, match="timezone"):
        naive_datetime64(dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc), "t")
    with pytest.raises(TypeError):
        naive_datetime64(1.0, "t")


# -- MarketData construction --------------------------------------------------------------


def test_defaults_and_properties():
    data = MarketData(prices(5, 3))
    assert (data.n_steps, data.n_assets, len(data)) == (5, 3, 5)
    assert data.assets == ("asset_0", "asset_1", "asset_2")
    assert data.timestamps.dtype == np.int64 and list(data.timestamps) == [0, 1, 2, 3, 4]
    assert not data.is_datetime and data.periods_per_year is None
    assert data.price_field == "close" and data.warmup == 0
    assert list(data.fields) == ["close"] and data.exogenous == {}
    np.testing.assert_array_equal(data.prices, prices(5, 3))
    assert data.prices.dtype == np.float64


def test_one_dimensional_prices_become_a_column():
    data = MarketData([1.0, 2.0, 3.0])
    assert data.prices.shape == (3, 1)


def test_fields_and_price_field():
    vol = np.ones((4, 2))
    data = MarketData(prices(4), fields={"volume": vol})
    assert list(data.fields) == ["close", "volume"]
    np.testing.assert_array_equal(data.field("volume"), vol)
    data2 = MarketData(fields={"volume": vol, "px": prices(4)}, price_field="px")
    assert list(data2.fields) == ["px", "volume"]
    np.testing.assert_array_equal(data2.prices, prices(4))
    with pytest.raises(ValueError, match="twice"):
        MarketData(prices(4), fields={"close": prices(4)})
    with pytest.raises(ValueError, match="no prices"):
        MarketData(fields={"volume": vol})
    with pytest.raises(KeyError, match="volume"):
        data.field("spread")


def test_arrays_are_read_only_copies():
    raw = prices(4)
    data = MarketData(raw, fields={"volume": np.ones((4, 2))}, exogenous={"x": np.arange(4.0)})
    raw[0, 0] = 1e9
    assert data.prices[0, 0] == 100.0
    assert raw.flags.writeable
    for arr in (data.prices, data.field("volume"), data.timestamps, data.exogenous_series("x")):
        assert not arr.flags.writeable
        with pytest.raises(ValueError):
            arr[0] = 1
    data.fields["new"] = np.ones((4, 2))
    assert "new" not in data.fields


def test_market_data_is_immutable():
    data = MarketData(prices(4))
    with pytest.raises(AttributeError):
        data.warmup = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        data._fields = {}
    with pytest.raises(AttributeError):
        del data._warmup


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"prices": np.ones((1, 2))}, ValueError),
        ({"prices": np.ones((5, 0))}, ValueError),
        ({"prices": np.ones((2, 2, 2))}, ValueError),
        ({"prices": [[1.0, np.inf], [1.0, 2.0]]}, ValueError),
        ({"prices": [[1.0, 0.0], [1.0, 2.0]]}, ValueError),
        ({"prices": [[1.0, -1.0], [1.0, 2.0]]}, ValueError),
        ({"prices": ["a", "b"]}, ValueError),
        ({"prices": [True, False]}, ValueError),
        ({"prices": prices(3), "fields": {"v": np.ones((3, 3))}}, ValueError),
        ({"prices": prices(3), "fields": {"v": np.full((3, 2), -np.inf)}}, ValueError),
        ({"prices": prices(3), "fields": {1: np.ones((3, 2))}}, TypeError),
        ({"prices": prices(3), "price_field": 1}, TypeError),
        ({"prices": prices(3), "timestamps": [0, 1]}, ValueError),
        ({"prices": prices(3), "timestamps": [0, 2, 1]}, ValueError),
        ({"prices": prices(3), "timestamps": [0, 1, 1]}, ValueError),
        ({"prices": prices(3), "timestamps": [0.0, np.nan, 2.0]}, ValueError),
        ({"prices": prices(3), "timestamps": [True, False, True]}, ValueError),
        ({"prices": prices(3), "timestamps": ["2020-01-01", "x", "2020-01-03"]}, ValueError),
        ({"prices": prices(3), "timestamps": ["2020-01-01", "NaT", "2020-01-03"]}, ValueError),
        (
            {"prices": prices(3), "timestamps": ["2020-01-01T00:00+01:00"] * 3},
            ValueError,
        ),
        ({"prices": prices(3), "assets": ["a"]}, ValueError),
        ({"prices": prices(3), "assets": ["a", "a"]}, ValueError),
        ({"prices": prices(3, 1), "assets": "a"}, TypeError),
        ({"prices": prices(3), "assets": 5}, TypeError),
        ({"prices": prices(3), "exogenous": {"x": np.ones(4)}}, ValueError),
        ({"prices": prices(3), "exogenous": {"x": np.ones((3, 2, 1))}}, ValueError),
        ({"prices": prices(3), "exogenous": {"x": [1.0, np.inf, 2.0]}}, ValueError),
        ({"prices": prices(3), "warmup": True}, TypeError),
        ({"prices": prices(3), "warmup": 1.5}, TypeError),
        ({"prices": prices(3), "warmup": -1}, ValueError),
        ({"prices": prices(3), "warmup": 4}, ValueError),
    ],
)
def test_constructor_errors(kwargs, error):
    with pytest.raises(error):
        MarketData(**kwargs)


def test_nan_prices_mean_unlisted():
    raw = prices(4)
    raw[0, 1] = np.nan
    data = MarketData(raw)
    np.testing.assert_array_equal(data.mask, np.isfinite(raw))


def test_timestamp_conversions():
    data = MarketData(prices(3), timestamps=["2020-01-01", "2020-01-02", "2020-01-03"])
    assert data.timestamps.dtype == np.dtype("datetime64[ns]") and data.is_datetime
    objs = [dt.datetime(2020, 1, d) for d in (1, 2, 3)]
    assert MarketData(prices(3), timestamps=objs).timestamps.dtype == np.dtype("datetime64[ns]")
    tz = pd.date_range("2020-01-01", periods=3, tz="UTC")
    with pytest.raises(ValueError, match="timezone"):
        MarketData(prices(3), timestamps=tz)
    aware = [dt.datetime(2020, 1, d, tzinfo=dt.timezone.utc) for d in (1, 2, 3)]
    with pytest.raises(ValueError, match="timezone"):
        MarketData(prices(3), timestamps=aware)
    floats = MarketData(prices(3), timestamps=[0.5, 1.0, 2.0])
    assert floats.timestamps.dtype == np.float64
    days = MarketData(prices(3), timestamps=DAYS[:3])
    assert days.timestamps.dtype == np.dtype("datetime64[D]")


def test_periods_per_year():
    stamps = np.arange("2020-01-01", "2021-01-01", dtype="datetime64[D]")
    data = MarketData(np.ones(len(stamps)), timestamps=stamps)
    span = 365.0  # 2020-01-01 .. 2020-12-31
    assert data.periods_per_year == pytest.approx((len(stamps) - 1) / (span / 365.25))
    monthly = MarketData(np.ones(13), timestamps=np.arange("2020-01", "2021-02", dtype="M8[M]"))
    assert monthly.periods_per_year == pytest.approx(12 / (366 / 365.25))


def test_exogenous():
    data = MarketData(prices(4), exogenous={"vix": np.arange(4.0), "macro": np.ones((4, 3))})
    assert data.exogenous_width("vix") == 1 and data.exogenous_width("macro") == 3
    assert data.exogenous_series("vix").shape == (4,)
    with pytest.raises(KeyError, match="vix"):
        data.exogenous_series("nope")
    more = data.with_exogenous(extra=[1.0, 2.0, np.nan, 4.0])
    assert set(more.exogenous) == {"vix", "macro", "extra"} and "extra" not in data.exogenous
    assert not more.exogenous_series("extra").flags.writeable
    with pytest.raises(ValueError):
        data.with_exogenous(bad=np.ones(3))


def test_log_returns():
    raw = np.array([[100.0, 10.0], [110.0, np.nan], [121.0, 12.0]])
    out = MarketData(raw).log_returns()
    assert out.shape == (3, 2) and np.isnan(out[0]).all()
    assert out[1, 0] == pytest.approx(np.log(1.1)) and out[2, 0] == pytest.approx(np.log(1.1))
    assert np.isnan(out[1, 1]) and np.isnan(out[2, 1])


def test_index_of_and_between():
    data = dated(10)
    assert data.index_of("2020-01-04") == 3
    assert data.index_of("2020-01-04", side="right") == 4
    assert data.index_of(-2) == 8
    part = data.between("2020-01-03", "2020-01-06")
    assert list(part.timestamps) == list(data.timestamps[2:5])
    assert len(data.between()) == 10 and len(data.between(end=5)) == 5
    with pytest.raises(ValueError, match="at least 2 rows"):
        data.between("2020-01-03", "2020-01-04")


def test_slicing():
    data = MarketData(prices(10), warmup=4)
    part = data[2:8]
    assert len(part) == 6 and part.warmup == 2
    np.testing.assert_array_equal(part.prices, prices(10)[2:8])
    np.testing.assert_array_equal(part.timestamps, np.arange(2, 8))
    assert data[5:].warmup == 0 and data[:3].warmup == 3 and data[-3:].warmup == 0
    stepped = data[::3]
    assert list(stepped.timestamps) == [0, 3, 6, 9] and stepped.warmup == 2
    with pytest.raises(TypeError):
        data[3]  # type: ignore[index]
    with pytest.raises(TypeError):
        data[:, 0]  # type: ignore[index]
    with pytest.raises(ValueError):
        data[::-1]
    with pytest.raises(ValueError, match="at least 2"):
        data[3:4]


def test_select():
    data = MarketData(prices(4, 3), assets=["A", "B", "C"], fields={"v": np.ones((4, 3))})
    sub = data.select(["C", "A"])
    assert sub.assets == ("C", "A")
    np.testing.assert_array_equal(sub.prices, prices(4, 3)[:, [2, 0]])
    assert sub.field("v").shape == (4, 2)
    assert data.select("B").assets == ("B",)
    with pytest.raises(KeyError, match="Z"):
        data.select(["A", "Z"])
    with pytest.raises(ValueError):
        data.select([])
    with pytest.raises(ValueError):
        data.select(["A", "A"])


def test_with_fields():
    data = MarketData(prices(4), warmup=1, exogenous={"x": np.ones(4)})
    more = data.with_fields(volume=np.ones((4, 2)))
    assert list(more.fields) == ["close", "volume"] and "volume" not in data.fields
    assert more.warmup == 1 and "x" in more.exogenous
    replaced = data.with_fields(close=prices(4) * 2)
    np.testing.assert_array_equal(replaced.prices, prices(4) * 2)
    with pytest.raises(ValueError):
        data.with_fields(volume=np.ones((3, 2)))


def test_repr():
    data = dated(10, fields={"volume": np.ones((10, 2))}, exogenous={"vix": np.ones(10)})
    assert repr(data) == (
        "MarketData(T=10, N=2, fields=['close', 'volume'], exogenous=['vix'], "
        "2020-01-01 .. 2020-01-10)"
    )
    assert repr(MarketData(prices(5), warmup=2)) == (
        "MarketData(T=5, N=2, fields=['close'], warmup=2, 0 .. 4)"
    )


def test_pickle_round_trip():
    data = dated(6, fields={"v": np.ones((6, 2))}, exogenous={"x": np.ones(6)}, warmup=2)
    back = pickle.loads(pickle.dumps(data))
    np.testing.assert_array_equal(back.prices, data.prices)
    np.testing.assert_array_equal(back.timestamps, data.timestamps)
    assert back.warmup == 2 and back.assets == data.assets and "x" in back.exogenous
    assert not back.prices.flags.writeable


# -- split / walk_forward -----------------------------------------------------------------


def test_split_fraction_and_rows():
    data = MarketData(prices(10))
    train, test = data.split(0.6)
    assert list(train.timestamps) == list(range(6)) and list(test.timestamps) == [6, 7, 8, 9]
    a, b, c = data.split(3, 7)
    assert [len(a), len(b), len(c)] == [3, 4, 3]
    x, y = data.split(-4)
    assert len(x) == 6 and len(y) == 4


def test_split_embargo_and_history():
    data = MarketData(prices(20))
    train, test = data.split(10, embargo=2, history=5)
    assert list(train.timestamps) == list(range(10))
    assert list(test.timestamps) == list(range(7, 20)) and test.warmup == 5
    _, early = data.split(3, embargo=1, history=10)
    assert early.timestamps[0] == 0 and early.warmup == 4


def test_split_by_timestamp():
    data = dated(10)
    a, b = data.split("2020-01-05")
    assert len(a) == 4 and b.timestamps[0] == np.datetime64("2020-01-05")
    numeric = MarketData(prices(10), timestamps=np.arange(10.0) * 2)
    left, _ = numeric.split(Time(7.0))
    assert len(left) == 4


@pytest.mark.parametrize(
    ("boundaries", "kwargs", "error"),
    [
        ((), {}, ValueError),
        ((1.5,), {}, ValueError),
        ((0.0,), {}, ValueError),
        ((5, 3), {}, ValueError),
        ((5, 5), {}, ValueError),
        ((10,), {}, ValueError),
        ((1,), {}, ValueError),
        ((8,), {"embargo": 1}, ValueError),
        ((5,), {"embargo": -1}, ValueError),
        ((5,), {"history": -1}, ValueError),
        ((5,), {"embargo": 1.5}, TypeError),
        ((True,), {}, TypeError),
    ],
)
def test_split_errors(boundaries, kwargs, error):
    with pytest.raises(error):
        MarketData(prices(10)).split(*boundaries, **kwargs)


def test_split_keeps_existing_warmup():
    data = MarketData(prices(20), warmup=6)
    first, second = data.split(4, history=1)
    assert first.warmup == 4
    assert second.timestamps[0] == 3 and second.warmup == 3


@settings(max_examples=60, deadline=None)
@given(
    T=st.integers(4, 60),
    data=st.data(),
    embargo=st.integers(0, 5),
    history=st.integers(0, 8),
)
def test_split_invariants(T, data, embargo, history):
    cuts = sorted(data.draw(st.sets(st.integers(2, T - 2), min_size=1, max_size=4)))
    market = MarketData(np.arange(1.0, T + 1.0))
    edges = [*cuts, T]
    try:
        parts = market.split(*cuts, embargo=embargo, history=history)
    except ValueError:
        assert any(hi - lo - embargo < 2 for lo, hi in zip(cuts, edges[1:], strict=True))
        return
    assert len(parts) == len(cuts) + 1
    traded = [p.timestamps[p.warmup :] for p in parts]
    assert list(traded[0]) == list(range(cuts[0]))
    for i, (cut, stop) in enumerate(zip(cuts, edges[1:], strict=True), start=1):
        assert list(traded[i]) == list(range(cut + embargo, stop))
        assert parts[i].warmup == min(history, cut + embargo)
    for earlier, later in itertools.pairwise(traded):
        assert earlier[-1] + embargo < later[0]  # no overlap, embargo respected


def test_walk_forward():
    data = MarketData(prices(20))
    folds = list(data.walk_forward(8, 4))
    assert [(list(tr.timestamps), list(te.timestamps)) for tr, te in folds] == [
        (list(range(0, 8)), list(range(8, 12))),
        (list(range(4, 12)), list(range(12, 16))),
        (list(range(8, 16)), list(range(16, 20))),
    ]
    grown = list(data.walk_forward(8, 4, expanding=True, step=6, embargo=1, history=2))
    assert [tr.timestamps[0] for tr, _ in grown] == [0, 0]
    assert [len(tr) for tr, _ in grown] == [8, 14]
    assert [list(te.timestamps) for _, te in grown] == [list(range(7, 13)), list(range(13, 19))]
    assert all(te.warmup == 2 for _, te in grown)


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ((1, 4), {}, ValueError),
        ((4, 1), {}, ValueError),
        ((4, 4), {"step": 0}, ValueError),
        ((4, 4), {"embargo": -1}, ValueError),
        ((4, 4), {"history": -1}, ValueError),
        ((4.5, 4), {}, TypeError),
        ((4, 4), {"step": True}, TypeError),
    ],
)
def test_walk_forward_errors(args, kwargs, error):
    with pytest.raises(error):
        MarketData(prices(20)).walk_forward(*args, **kwargs)


@settings(max_examples=60, deadline=None)
@given(
    T=st.integers(4, 80),
    train=st.integers(2, 20),
    test=st.integers(2, 10),
    step=st.integers(1, 10),
    embargo=st.integers(0, 4),
    history=st.integers(0, 6),
    expanding=st.booleans(),
)
def test_walk_forward_invariants(T, train, test, step, embargo, history, expanding):
    data = MarketData(np.arange(1.0, T + 1.0))
    folds = list(
        data.walk_forward(
            train, test, step=step, embargo=embargo, history=history, expanding=expanding
        )
    )
    expected = max(0, (T - train - embargo - test) // step + 1)
    assert len(folds) == expected
    for k, (tr, te) in enumerate(folds):
        s = k * step
        assert tr.timestamps[-1] == s + train - 1
        assert tr.timestamps[0] == (0 if expanding else s)
        tested = te.timestamps[te.warmup :]
        assert list(tested) == list(range(s + train + embargo, s + train + embargo + test))
        assert tr.timestamps[-1] + embargo < tested[0]  # no look-ahead into the test rows
        assert te.warmup == min(history, tested[0])


# -- pandas -------------------------------------------------------------------------------


def test_from_pandas_frame():
    index = pd.date_range("2021-01-01", periods=5, freq="D")
    frame = pd.DataFrame(prices(5), index=index, columns=["AAA", "BBB"])
    volume = pd.DataFrame({"BBB": [1.0] * 3, "AAA": [2.0] * 3}, index=index[:3])
    vix = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0], index=index)
    data = MarketData.from_pandas(frame, fields={"volume": volume}, exogenous={"vix": vix})
    assert data.assets == ("AAA", "BBB") and data.is_datetime
    assert data.timestamps.dtype == np.dtype("datetime64[ns]")
    vol = data.field("volume")
    np.testing.assert_array_equal(vol[:3], [[2.0, 1.0]] * 3)
    assert np.isnan(vol[3:]).all()
    np.testing.assert_array_equal(data.exogenous_series("vix"), vix.to_numpy())
    exo_frame = pd.DataFrame({"a": range(5), "b": range(5)}, index=index, dtype=float)
    both = MarketData.from_pandas(frame, exogenous=exo_frame, price_field="px")
    assert set(both.exogenous) == {"a", "b"} and both.price_field == "px"


def test_from_pandas_series_and_other_index():
    series = pd.Series([1.0, 2.0, 3.0], name="SPY")
    data = MarketData.from_pandas(series)
    assert data.assets == ("SPY",) and list(data.timestamps) == [0, 1, 2]
    unnamed = MarketData.from_pandas(pd.Series([1.0, 2.0]))
    assert unnamed.assets == ("asset_0",)


def test_from_pandas_errors():
    tz = pd.Series([1.0, 2.0], index=pd.date_range("2020-01-01", periods=2, tz="UTC"))
    with pytest.raises(ValueError, match="timezone"):
        MarketData.from_pandas(tz)
    with pytest.raises(TypeError):
        MarketData.from_pandas(np.ones(3))
    frame = pd.DataFrame(prices(3), columns=["a", "b"])
    with pytest.raises(ValueError, match="Series"):
        MarketData.from_pandas(frame, fields={"v": pd.Series([1.0, 2.0, 3.0])})


def test_from_long():
    frame = pd.DataFrame(
        {
            "date": ["2020-01-02", "2020-01-01", "2020-01-01", "2020-01-02", "2020-01-01"],
            "symbol": ["B", "A", "B", "A", "A"],
            "close": [20.0, 10.0, 19.0, 11.0, 10.5],
            "volume": [5.0, 1.0, 2.0, 3.0, 4.0],
        }
    )
    data = MarketData.from_long(frame, fields=["volume"])
    assert data.assets == ("A", "B") and data.is_datetime
    np.testing.assert_array_equal(data.prices, [[10.5, 19.0], [11.0, 20.0]])
    np.testing.assert_array_equal(data.field("volume"), [[4.0, 2.0], [3.0, 5.0]])
    with pytest.raises(KeyError, match="price"):
        MarketData.from_long(frame, price="price")
    with pytest.raises(TypeError):
        MarketData.from_long(np.ones(3))
