"""Conformance of the finance toolkit: point-in-time rule, pandas prices, metric and feature
validation."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.envs.finance import MarketEnv, PortfolioEnv, TradingEnv, TradingVecEnv
from sekai.finance import MarketData, Time, features, metrics
from sekai.finance.data import row_of

pd = pytest.importorskip("pandas")


def _walk(T: int, n: int = 1, seed: int = 0) -> np.ndarray:
    steps = np.random.default_rng(seed).normal(0.0, 0.01, size=(T, n))
    return 100.0 * np.exp(np.cumsum(steps, axis=0))


def _late() -> MarketData:
    """1000 rows sliced from row 100: numeric timestamps 100..999 on 900 rows."""
    return MarketData(_walk(1000))[100:]


# -- point-in-time rule ---------------------------------------------------------------------


def test_int_is_a_row_position_on_a_numeric_axis() -> None:
    data = _late()
    assert data.timestamps[0] == 100 and data.timestamps[-1] == 999 and len(data) == 900
    assert data.index_of(300) == 300
    assert data.index_of(np.int64(300)) == 300
    assert data.index_of(300, side="right") == 300
    assert data.index_of(-1) == 899
    assert data.index_of(-900) == 0
    assert data.index_of(5000) == 5000  # returned unchecked


def test_negative_int_counts_from_the_end_in_row_of() -> None:
    stamps = np.arange(100, 110)
    assert row_of(stamps, -1) == 9
    assert row_of(stamps, np.int32(-10)) == 0
    assert row_of(stamps, -11) == -11  # beyond the first row: unchecked


def test_time_or_float_looks_a_numeric_timestamp_up() -> None:
    data = _late()
    assert data.index_of(Time(300)) == 200
    assert data.index_of(Time(np.int64(300)), side="right") == 201
    assert data.index_of(300.0) == 200
    assert data.index_of(300.5) == 201
    assert data.index_of(Time(50)) == 0 and data.index_of(Time(5000)) == 900


def test_split_int_boundary_is_a_row_on_a_numeric_axis() -> None:
    data = _late()
    first, second = data.split(300)
    assert len(first) == 300 and len(second) == 600
    assert first.timestamps[-1] == 399 and second.timestamps[0] == 400
    by_time, _ = data.split(Time(300))
    assert len(by_time) == 200 and by_time.timestamps[-1] == 299
    head, tail = data.split(-100)
    assert len(head) == 800 and len(tail) == 100


def test_between_ints_are_rows_on_a_numeric_axis() -> None:
    data = _late()
    part = data.between(100, 200)
    np.testing.assert_array_equal(part.timestamps, np.arange(200, 300))
    np.testing.assert_array_equal(part.prices, data.prices[100:200])
    by_time = data.between(Time(100), Time(200))
    np.testing.assert_array_equal(by_time.timestamps, np.arange(100, 200))
    np.testing.assert_array_equal(data.between(150.0, 160.0).timestamps, np.arange(150, 160))
    np.testing.assert_array_equal(data.between(-100).timestamps, np.arange(900, 1000))
    np.testing.assert_array_equal(data.between(end=-898).timestamps, [100, 101])


def test_slicing_takes_int_rows_only() -> None:
    data = _late()
    np.testing.assert_array_equal(
        data[np.int64(100) : np.int64(200)].timestamps, np.arange(200, 300)
    )
    np.testing.assert_array_equal(data[-2:].timestamps, [998, 999])
    for bad in (slice(Time(300), None), slice(True, None), slice(2.0, None), slice(0, 10, 1.0)):
        with pytest.raises(TypeError, match="between"):
            data[bad]


def test_start_option_int_is_a_row_on_a_numeric_axis() -> None:
    env = TradingEnv(data=_late(), episode_length=20, lookback=10)
    assert env.reset(seed=0, options={"start": 300}).info["timestamp"] == 400
    assert env.reset(options={"start": np.int64(300)}).info["timestamp"] == 400
    assert env.reset(options={"start": Time(300)}).info["timestamp"] == 300
    assert env.reset(options={"start": 300.0}).info["timestamp"] == 300
    # the last first-decision row is T - episode_length - 1 = 879 (timestamp 979)
    assert env.reset(options={"start": -21}).info["timestamp"] == 979
    for bad in (-20, 880, -5000, Time(99)):
        with pytest.raises(ValueError, match="decision row"):
            env.reset(options={"start": bad})


def test_market_env_start_option_follows_the_same_rule() -> None:
    data = MarketData(_walk(1000, 3))[100:]
    env = MarketEnv(data, episode_length=20, lookback=10)
    assert env.reset(seed=0, options={"start": 300}).info["timestamp"] == 400
    assert env.reset(options={"start": Time(300)}).info["timestamp"] == 300
    assert env.reset(options={"start": -21}).info["timestamp"] == 979


def test_native_vector_start_option_follows_the_same_rule() -> None:
    vec = TradingVecEnv(3, data=_late(), episode_length=20, lookback=10)
    vec.reset(seed=0, options=[{"start": 300}, {"start": Time(300)}, {"start": -21}])
    np.testing.assert_array_equal(vec.timestamp, [400, 300, 979])


# -- pandas prices without a DatetimeIndex ---------------------------------------------------


@pytest.mark.parametrize("index", [None, np.arange(1000, 1060), [f"r{i}" for i in range(60)]])
def test_undated_pandas_prices_become_row_numbered_market_data(index: Any) -> None:
    series = pd.Series(_walk(60)[:, 0], index=index, name="ABC")
    env = sekai.make("Trading-v0", prices=series, episode_length=10, lookback=5).unwrapped
    assert isinstance(env.data, MarketData) and not env.data.is_datetime
    np.testing.assert_array_equal(env.data.timestamps, np.arange(60))
    assert env.data.assets == ("ABC",)
    assert env.dt == 1 / 252
    info = env.reset(seed=0, options={"start": 7}).info
    assert info["timestamp"] == 7 and type(info["timestamp"]) is int
    assert env.step(1).info["timestamp"] == 8
    np.testing.assert_array_equal(env.prices, series.to_numpy())


def test_one_column_frame_gives_the_series_prices() -> None:
    values = _walk(60)[:, 0]
    from_series = TradingEnv(pd.Series(values, name="A"), episode_length=10, lookback=5)
    from_frame = TradingEnv(pd.DataFrame({"A": values}), episode_length=10, lookback=5)
    assert from_series.data is not None and from_frame.data is not None
    np.testing.assert_array_equal(from_frame.data.prices, from_series.data.prices)
    np.testing.assert_array_equal(from_frame.prices, from_series.prices)
    assert from_frame.data.assets == from_series.data.assets == ("A",)
    a = from_series.reset(seed=3).observation
    b = from_frame.reset(seed=3).observation
    np.testing.assert_array_equal(a, b)


def test_undated_pandas_frame_in_portfolio() -> None:
    values = _walk(40, 2)
    frame = pd.DataFrame(values, columns=["X", "Y"], index=np.arange(40) * 10)
    env = sekai.make("Portfolio-v0", prices=frame, episode_length=5, lookback=3).unwrapped
    assert isinstance(env.data, MarketData) and env.data.assets == ("X", "Y")
    np.testing.assert_array_equal(env.data.timestamps, np.arange(40))
    assert env.n_assets == 2 and env.dt == 1 / 252
    info = env.reset(seed=0, options={"start": 12}).info
    assert info["timestamp"] == 12
    assert env.step(np.array([0.5, 0.5, 0.0], np.float32)).info["timestamp"] == 13
    one_frame = PortfolioEnv(frame[["X"]], episode_length=5, lookback=3)
    one_series = PortfolioEnv(frame["X"], episode_length=5, lookback=3)
    assert one_frame.data is not None and one_series.data is not None
    np.testing.assert_array_equal(one_frame.data.prices, one_series.data.prices)
    assert one_frame.data.assets == one_series.data.assets == ("X",)


@pytest.mark.parametrize(
    ("values", "match"),
    [
        ([100.0, math.nan, *([101.0] * 58)], "NaN"),
        ([100.0, -1.0, *([101.0] * 58)], "positive"),
        ([100.0] * 10, "rows"),
        (["a"] * 60, "numeric"),
    ],
)
def test_undated_pandas_prices_are_validated_like_arrays(values: list[Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        TradingEnv(pd.Series(values), episode_length=10, lookback=5)


def test_undated_two_column_frame_is_not_one_asset() -> None:
    frame = pd.DataFrame(_walk(60, 2), columns=["X", "Y"])
    with pytest.raises(ValueError, match="1-D"):
        TradingEnv(frame, episode_length=10, lookback=5)


# -- metrics --------------------------------------------------------------------------------


def test_returns_from_equity_needs_zeros_after_a_wipe_out() -> None:
    np.testing.assert_array_equal(
        metrics.returns_from_equity([1.0, 0.5, -0.2, 0.0, 0.0]), [-0.5, -1.0, 0.0, 0.0]
    )
    np.testing.assert_array_equal(metrics.returns_from_equity([1.0, 0.0]), [-1.0])
    for bad in ([1.0, 0.5, 0.0, 0.3], [1.0, -1.0, -1.0], [2.0, 0.0, 0.0, 1e-300]):
        with pytest.raises(ValueError, match="wipe-out"):
            metrics.returns_from_equity(bad)


def test_returns_from_equity_needs_two_values_and_a_positive_start() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        metrics.returns_from_equity([1.0])
    for bad in ([0.0, 0.0], [-1.0, 0.0]):
        with pytest.raises(ValueError, match="start > 0"):
            metrics.returns_from_equity(bad)


_SERIES_FUNCTIONS: dict[str, tuple[Callable[[Any], Any], str]] = {
    name: (getattr(metrics, name), "returns")
    for name in (
        "equity_curve",
        "total_return",
        "annualized_return",
        "annualized_volatility",
        "sharpe_ratio",
        "sortino_ratio",
        "drawdown_series",
        "max_drawdown",
        "calmar_ratio",
        "value_at_risk",
        "conditional_value_at_risk",
        "hit_rate",
        "performance_summary",
    )
}
_SERIES_FUNCTIONS["returns_from_equity"] = (metrics.returns_from_equity, "equity")
_SERIES_FUNCTIONS["pnl_summary"] = (metrics.pnl_summary, "pnl")

_NON_NUMERIC: list[Any] = [
    ["0.1", "0.2"],
    np.array(["0.1", "0.2"]),
    [object(), object()],
    [0.1, None],
    [None, None],
    [True, False],
    [0.1 + 1j, 0.2],
    [[0.1], [0.2, 0.3]],
]

_NOT_SEQUENCES: list[Any] = [None, "0.1", {"a": 0.1}]


def _stable_id(value: Any) -> str:
    """A test id that is the same in every process (no object addresses)."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


@pytest.mark.parametrize("name", sorted(_SERIES_FUNCTIONS))
@pytest.mark.parametrize("bad", _NON_NUMERIC, ids=lambda bad: _stable_id(bad))
def test_metrics_refuse_non_numeric_input_with_value_error(name: str, bad: Any) -> None:
    function, argument = _SERIES_FUNCTIONS[name]
    with pytest.raises(ValueError, match=argument):
        function(bad)


@pytest.mark.parametrize("name", sorted(_SERIES_FUNCTIONS))
@pytest.mark.parametrize("bad", _NOT_SEQUENCES, ids=repr)
def test_metrics_refuse_input_that_is_no_sequence_with_type_error(name: str, bad: Any) -> None:
    function, argument = _SERIES_FUNCTIONS[name]
    with pytest.raises(TypeError, match=argument):
        function(bad)


def test_metric_side_series_refuse_non_numeric_input_with_value_error() -> None:
    returns = [0.01, -0.02, 0.03]
    with pytest.raises(ValueError, match="turnover"):
        metrics.performance_summary(returns, turnover=["a", "b", "c"])
    with pytest.raises(ValueError, match="costs"):
        metrics.performance_summary(returns, costs=[0.0, None, 0.0])


def test_metrics_accept_object_arrays_of_numbers() -> None:
    values = np.array([0.01, -0.02, 0.03], dtype=object)
    assert metrics.total_return(values) == metrics.total_return([0.01, -0.02, 0.03])
    assert metrics.sharpe_ratio([1, 2, np.float32(0.5)]) == metrics.sharpe_ratio([1.0, 2.0, 0.5])


# -- rolling features -----------------------------------------------------------------------

_ROLLING = [features.rolling_mean, features.rolling_std, features.rolling_zscore]
_X = np.arange(1.0, 11.0)


@pytest.mark.parametrize("function", _ROLLING)
@pytest.mark.parametrize("min_periods", [0, -1, 4, 0.0, 4.0, [2]])
def test_rolling_min_periods_out_of_range_is_a_value_error(
    function: Callable[..., np.ndarray], min_periods: Any
) -> None:
    with pytest.raises(ValueError, match="min_periods"):
        function(_X, 3, min_periods=min_periods)


@pytest.mark.parametrize("function", _ROLLING)
def test_rolling_min_periods_as_a_whole_float_is_its_int(
    function: Callable[..., np.ndarray],
) -> None:
    np.testing.assert_array_equal(function(_X, 3, min_periods=2.0), function(_X, 3, min_periods=2))


@pytest.mark.parametrize("function", _ROLLING)
@pytest.mark.parametrize(
    "min_periods",
    [True, np.bool_(True), "2", 2.5, np.float64(1.5), math.nan, math.inf],
)
def test_rolling_min_periods_of_the_wrong_kind_is_a_type_error(
    function: Callable[..., np.ndarray], min_periods: Any
) -> None:
    with pytest.raises(TypeError, match="min_periods"):
        function(_X, 3, min_periods=min_periods)


@pytest.mark.parametrize("function", _ROLLING)
def test_rolling_min_periods_from_1_to_window_is_accepted(
    function: Callable[..., np.ndarray],
) -> None:
    for min_periods in (1, 2, 3, np.int64(3), None):
        assert function(_X, 3, min_periods=min_periods).shape == _X.shape
    np.testing.assert_array_equal(function(_X, 3, min_periods=3), function(_X, 3, min_periods=None))
