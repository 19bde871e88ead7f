"""Tests for sekai.finance.features."""

from __future__ import annotations

import datetime as dt
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sekai.error import LookAheadError
from sekai.finance import features
from sekai.finance.features import (
    asof_join,
    check_causal,
    cross_sectional_rank,
    cross_sectional_zscore,
    ewm_mean,
    ewm_std,
    forward_fill,
    lag,
    log_returns,
    momentum,
    realized_volatility,
    rolling_mean,
    rolling_std,
    rolling_zscore,
    simple_returns,
)

nan = np.nan

# Every transform with fixed parameters; the cross-sectional ones need 2-D input.
SERIES: dict[str, Callable[[Any], np.ndarray]] = {
    "log_returns": log_returns,
    "simple_returns": simple_returns,
    "momentum": lambda a: momentum(a, 3),
    "lag": lambda a: lag(a, 2),
    "forward_fill": lambda a: forward_fill(a, limit=1),
    "forward_fill_unlimited": forward_fill,
    "rolling_mean": lambda a: rolling_mean(a, 4, min_periods=2),
    "rolling_std": lambda a: rolling_std(a, 4, min_periods=1, ddof=0),
    "rolling_zscore": lambda a: rolling_zscore(a, 3, min_periods=2),
    "ewm_mean": lambda a: ewm_mean(a, 2.0),
    "ewm_std": lambda a: ewm_std(a, 3.0, min_periods=1),
    "realized_volatility": lambda a: realized_volatility(a, 3, periods_per_year=252),
}
PANEL = {
    **SERIES,
    "cross_sectional_zscore": cross_sectional_zscore,
    "cross_sectional_rank": cross_sectional_rank,
}


def noisy(T: int, N: int | None = None, *, seed: int = 0, missing: float = 0.2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shape = (T,) if N is None else (T, N)
    x = rng.normal(size=shape)
    x[rng.random(shape) < missing] = nan
    return x


def walk(T: int, N: int, *, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 100.0 * np.exp(np.cumsum(rng.normal(0.0, 0.01, (T, N)), axis=0))


def test_all():
    assert set(features.__all__) == {
        "log_returns",
        "simple_returns",
        "momentum",
        "lag",
        "forward_fill",
        "rolling_mean",
        "rolling_std",
        "rolling_zscore",
        "ewm_mean",
        "ewm_std",
        "realized_volatility",
        "cross_sectional_zscore",
        "cross_sectional_rank",
        "asof_join",
        "check_causal",
    }


# -- returns ------------------------------------------------------------------------------

PRICES = np.array([100.0, 110.0, 99.0, nan, 100.0, 0.0, 50.0, 25.0, -5.0, 10.0])


def test_log_and_simple_returns():
    expected = [nan, math.log(1.1), math.log(0.9), nan, nan, nan, nan, math.log(0.5), nan, nan]
    np.testing.assert_allclose(log_returns(PRICES), expected, rtol=1e-15)
    simple = [nan, 0.1, -0.1, nan, nan, nan, nan, -0.5, nan, nan]
    np.testing.assert_allclose(simple_returns(PRICES), simple, rtol=1e-14)
    panel = np.column_stack([PRICES, PRICES[::-1]])
    out = log_returns(panel)
    assert out.shape == panel.shape and out.dtype == np.float64
    np.testing.assert_array_equal(out[:, 0], log_returns(PRICES))
    np.testing.assert_array_equal(out[:, 1], log_returns(PRICES[::-1]))


def test_returns_accept_ints_and_tiny_inputs():
    out = simple_returns([1, 2, 3])
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [nan, 1.0, 0.5])
    assert log_returns([5.0]).shape == (1,) and np.isnan(log_returns([5.0])).all()
    assert log_returns(np.empty((0, 3))).shape == (0, 3)


def test_momentum():
    p = np.array([1.0, 2.0, 4.0, 8.0, nan, 32.0])
    np.testing.assert_allclose(
        momentum(p, 2), [nan, nan, math.log(4), math.log(4), nan, math.log(4)], rtol=1e-15
    )
    np.testing.assert_array_equal(momentum(p, 1), log_returns(p))
    assert np.isnan(momentum(p, 6)).all() and np.isnan(momentum(p, 100)).all()


# -- lag, forward_fill ------------------------------------------------------------------------


def test_lag():
    x = np.array([1.0, 2.0, 3.0])
    out = lag(x, 0)
    np.testing.assert_array_equal(out, x)
    assert out is not x
    np.testing.assert_array_equal(lag(x), [nan, 1.0, 2.0])
    np.testing.assert_array_equal(lag(x, np.int64(2)), [nan, nan, 1.0])
    assert np.isnan(lag(x, 3)).all() and np.isnan(lag(x, 10)).all()
    panel = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(lag(panel), [[nan, nan], [0.0, 1.0], [2.0, 3.0]])


def test_forward_fill():
    x = np.array([nan, 1.0, nan, nan, nan, 2.0, nan])
    np.testing.assert_array_equal(forward_fill(x), [nan, 1, 1, 1, 1, 2, 2])
    np.testing.assert_array_equal(forward_fill(x, limit=2), [nan, 1, 1, 1, nan, 2, 2])
    np.testing.assert_array_equal(forward_fill(x, limit=0), x)
    panel = np.array([[1.0, nan], [nan, 3.0], [nan, nan], [4.0, nan]])
    np.testing.assert_array_equal(
        forward_fill(panel, limit=1), [[1.0, nan], [1.0, 3.0], [nan, 3.0], [4.0, nan]]
    )


# -- rolling windows ------------------------------------------------------------------------


def test_rolling_mean_by_hand():
    x = np.array([1.0, 2.0, nan, 4.0, 5.0])
    assert np.isnan(rolling_mean(x, 3)).all()  # never 3 valid values in a window
    np.testing.assert_array_equal(rolling_mean(x, 3, min_periods=2), [nan, 1.5, 1.5, 3.0, 4.5])
    np.testing.assert_array_equal(rolling_mean(x, 3, min_periods=1), [1.0, 1.5, 1.5, 3.0, 4.5])
    np.testing.assert_array_equal(rolling_mean(x, 1), x)
    np.testing.assert_array_equal(rolling_mean(x, 10, min_periods=1), [1, 1.5, 1.5, 7 / 3, 3])


@pytest.mark.parametrize("shape", [(60,), (60, 3)])
@pytest.mark.parametrize(
    ("window", "min_periods"), [(1, None), (3, None), (5, 2), (7, 1), (20, 20), (80, 4)]
)
def test_rolling_mean_matches_pandas(shape, window, min_periods):
    pd = pytest.importorskip("pandas")
    x = noisy(*shape, seed=window)
    expected = pd.DataFrame(x).rolling(window, min_periods=min_periods).mean().to_numpy()
    out = rolling_mean(x, window, min_periods=min_periods)
    assert out.shape == shape
    np.testing.assert_allclose(out, expected.reshape(shape), rtol=1e-12, atol=1e-14)


def test_rolling_std_by_hand():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(rolling_std(x, 3), [nan, nan, 1.0, 1.0])
    np.testing.assert_allclose(rolling_std(x, 3, ddof=0), [nan, nan, *[math.sqrt(2 / 3)] * 2])
    np.testing.assert_allclose(rolling_std(x, 3, min_periods=1), [nan, math.sqrt(0.5), 1, 1])
    # ddof 0 needs one value, ddof 2 three, whatever min_periods says.
    np.testing.assert_allclose(
        rolling_std(x, 3, min_periods=1, ddof=0), [0.0, 0.5, *[math.sqrt(2 / 3)] * 2]
    )
    np.testing.assert_allclose(
        rolling_std(x, 3, min_periods=1, ddof=2), [nan, nan, math.sqrt(2), math.sqrt(2)]
    )
    assert np.isnan(rolling_std(x, 3, ddof=3)).all()
    assert np.isnan(rolling_std(x, 1)).all()


def test_rolling_std_of_constant_windows_is_exactly_zero():
    x = np.array([0.1] * 5 + [0.3] * 4 + [1e9 + 0.7] * 4 + [nan, 1e9 + 0.7])
    out = rolling_std(x, 3, min_periods=2)
    assert (out[[1, 2, 3, 4, 7, 8, 11, 12, 13, 14]] == 0.0).all()
    assert (out[[5, 6, 9, 10]] > 0).all()
    panel = np.column_stack([x, np.full(x.shape, -2.7)])
    assert (rolling_std(panel, 4, min_periods=2)[1:, 1] == 0.0).all()
    assert (rolling_zscore(panel, 4, min_periods=2)[1:, 1] == 0.0).all()


@pytest.mark.parametrize("shape", [(50,), (50, 3)])
@pytest.mark.parametrize(
    ("window", "min_periods", "ddof"),
    [(2, None, 1), (5, None, 1), (5, 2, 0), (6, 1, 1), (6, 3, 2), (70, 5, 1)],
)
def test_rolling_std_matches_pandas(shape, window, min_periods, ddof):
    pd = pytest.importorskip("pandas")
    x = noisy(*shape, seed=window + ddof)
    frame = pd.DataFrame(x).rolling(window, min_periods=min_periods)
    expected = frame.std(ddof=ddof).to_numpy().reshape(shape)
    out = rolling_std(x, window, min_periods=min_periods, ddof=ddof)
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-13)


def test_rolling_std_is_accurate_far_from_zero_and_late_in_long_series():
    rng = np.random.default_rng(3)
    x = 1e8 + rng.normal(0.0, 1e-3, 5000)  # a one-pass formula would lose every digit here
    out = rolling_std(x, 25)
    for t in (24, 2500, 4999):
        assert out[t] == pytest.approx(np.std(x[t - 24 : t + 1], ddof=1), rel=1e-6)
    p = walk(20_000, 1, seed=4)[:, 0]
    assert rolling_std(p, 20)[-1] == pytest.approx(np.std(p[-20:], ddof=1), rel=1e-11)
    assert rolling_mean(p, 20)[-1] == pytest.approx(p[-20:].mean(), rel=1e-14)


def test_rolling_zscore_by_hand():
    x = np.array([1.0, 2.0, 3.0, nan, 3.0])
    out = rolling_zscore(x, 3)
    np.testing.assert_allclose(out, [nan, nan, 1.0, nan, nan])
    out = rolling_zscore(x, 3, min_periods=2)
    # row 1: (2 - 1.5) / std(1, 2); row 4: window (3, nan, 3) is constant.
    np.testing.assert_allclose(out, [nan, 1 / math.sqrt(2), 1.0, nan, 0.0])
    assert np.isnan(rolling_zscore(x, 3, min_periods=1)[0])  # one value is never enough


@pytest.mark.parametrize(("window", "min_periods"), [(4, None), (6, 2), (10, 3)])
def test_rolling_zscore_matches_pandas(window, min_periods):
    pd = pytest.importorskip("pandas")
    x = noisy(60, 3, seed=window)
    roll = pd.DataFrame(x).rolling(window, min_periods=max(min_periods or window, 2))
    expected = ((pd.DataFrame(x) - roll.mean()) / roll.std()).to_numpy()
    out = rolling_zscore(x, window, min_periods=min_periods)
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)


def test_realized_volatility():
    r = noisy(40, 2, seed=5, missing=0.05)
    np.testing.assert_array_equal(realized_volatility(r, 10), rolling_std(r, 10))
    np.testing.assert_allclose(
        realized_volatility(r, 10, periods_per_year=252), rolling_std(r, 10) * math.sqrt(252)
    )
    # Full window: a missing return inside it gives NaN.
    assert np.isnan(realized_volatility([0.01, nan, 0.02, 0.0, 0.01], 3)[2:4]).all()
    assert realized_volatility([0.01, nan, 0.02, 0.0, 0.01], 3)[4] > 0


# -- exponentially weighted -----------------------------------------------------------------


def test_ewm_mean_by_hand():
    x = np.array([nan, 2.0, 4.0, nan, 8.0])  # halflife 1: alpha = 0.5
    np.testing.assert_allclose(ewm_mean(x, 1), [nan, 2.0, 3.0, nan, 5.5])
    np.testing.assert_allclose(ewm_mean(x, 1.0, min_periods=2), [nan, nan, 3.0, nan, 5.5])
    np.testing.assert_allclose(ewm_mean(x, 1, min_periods=0), [nan, 2.0, 3.0, nan, 5.5])
    alpha = 1 - math.exp(math.log(0.5) / 3.0)
    assert ewm_mean([1.0, 0.0], 3.0)[1] == pytest.approx(1 - alpha)


@pytest.mark.parametrize(("halflife", "min_periods"), [(1.0, 0), (2.5, 1), (10, 4)])
def test_ewm_mean_matches_pandas_adjust_false(halflife, min_periods):
    pd = pytest.importorskip("pandas")
    x = noisy(80, 3, seed=int(halflife))
    x[:5, 1] = nan
    frame = pd.DataFrame(x).ewm(
        halflife=halflife, adjust=False, ignore_na=True, min_periods=min_periods
    )
    expected = np.where(np.isnan(x), nan, frame.mean().to_numpy())
    out = ewm_mean(x, halflife, min_periods=min_periods)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-15)


def reference_ewm_std(x: np.ndarray, halflife: float, min_periods: int) -> np.ndarray:
    alpha = 1 - math.exp(math.log(0.5) / halflife)
    out = np.full(x.shape, nan)
    for j in range(x.shape[1]):
        m, v, seen = None, 0.0, 0
        for t in range(x.shape[0]):
            value = x[t, j]
            if math.isnan(value):
                continue
            seen += 1
            if m is None:
                m = value
            else:
                d = value - m
                v = (1 - alpha) * (v + alpha * d * d)
                m = m + alpha * d
            if seen >= min_periods:
                out[t, j] = math.sqrt(v)
    return out


def test_ewm_std_by_hand():
    x = np.array([2.0, 4.0, nan, 3.0])  # alpha 0.5: v = 0.5 (0 + 0.5 * 2^2) = 1, m = 3; d = 0
    np.testing.assert_allclose(ewm_std(x, 1), [nan, 1.0, nan, math.sqrt(0.5)])
    np.testing.assert_allclose(ewm_std(x, 1, min_periods=1), [0.0, 1.0, nan, math.sqrt(0.5)])
    assert (ewm_std(np.full(6, 0.1), 2.0)[1:] == 0.0).all()


@pytest.mark.parametrize(("halflife", "min_periods"), [(1.0, 1), (3.0, 2), (7.5, 5)])
def test_ewm_std_matches_reference_recursion(halflife, min_periods):
    x = noisy(70, 3, seed=7)
    expected = reference_ewm_std(x, halflife, min_periods)
    np.testing.assert_allclose(ewm_std(x, halflife, min_periods=min_periods), expected, 1e-12)
    np.testing.assert_allclose(ewm_std(x[:, 0], halflife, min_periods=min_periods), expected[:, 0])


# -- cross-sectional ------------------------------------------------------------------------


def test_cross_sectional_zscore_by_hand():
    x = np.array(
        [[1.0, 2.0, 3.0, nan], [5.0, nan, nan, nan], [0.1, 0.1, 0.1, nan], [nan] * 4, [1, 1, 3, 3]]
    )
    out = cross_sectional_zscore(x)
    s = math.sqrt(1.5)
    np.testing.assert_allclose(out[0], [-s, 0.0, s, nan])
    assert np.isnan(out[1]).all() and np.isnan(out[3]).all()
    assert (out[2, :3] == 0.0).all() and np.isnan(out[2, 3])
    np.testing.assert_allclose(out[4], [-1, -1, 1, 1])


def test_cross_sectional_zscore_matches_numpy():
    x = noisy(30, 6, seed=8, missing=0.3)
    n = (~np.isnan(x)).sum(axis=1, keepdims=True)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # rows without valid entries
        expected = (x - np.nanmean(x, axis=1, keepdims=True)) / np.nanstd(x, axis=1, keepdims=True)
    expected[(n < 2)[:, 0]] = nan
    np.testing.assert_allclose(cross_sectional_zscore(x), expected, rtol=1e-12, atol=1e-14)


def test_cross_sectional_rank_by_hand():
    x = np.array([[3.0, 1.0, 3.0, nan, 2.0], [nan, 7.0, nan, nan, nan], [nan] * 5])
    out = cross_sectional_rank(x)
    np.testing.assert_allclose(out[0], [2.5 / 3, 0.0, 2.5 / 3, nan, 1 / 3])
    np.testing.assert_array_equal(out[1], [nan, 0.5, nan, nan, nan])
    assert np.isnan(out[2]).all()
    np.testing.assert_array_equal(cross_sectional_rank([[2.0, 2.0, 2.0]]), [[0.5, 0.5, 0.5]])
    np.testing.assert_array_equal(cross_sectional_rank([[-0.0, 0.0, -1.0]]), [[0.75, 0.75, 0.0]])


def test_cross_sectional_rank_matches_pandas():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(9)
    x = rng.integers(0, 4, (40, 7)).astype(float)  # plenty of ties
    x[rng.random(x.shape) < 0.25] = nan
    ranks = pd.DataFrame(x).rank(axis=1, method="average").to_numpy()
    n = (~np.isnan(x)).sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(n == 1, np.where(np.isnan(x), nan, 0.5), (ranks - 1) / (n - 1))
    np.testing.assert_allclose(cross_sectional_rank(x), expected, rtol=1e-15)


@pytest.mark.parametrize("fn", [cross_sectional_zscore, cross_sectional_rank])
def test_cross_sectional_shapes(fn):
    with pytest.raises(ValueError, match="2-D"):
        fn([1.0, 2.0, 3.0])
    assert fn(np.empty((0, 3))).shape == (0, 3) and fn(np.empty((4, 0))).shape == (4, 0)
    out = fn(np.array([[1, 2], [3, 4]]))
    assert out.dtype == np.float64 and out.shape == (2, 2)


# -- asof_join --------------------------------------------------------------------------------


def test_asof_join_numeric():
    events = np.array([1, 2, 2, 5])
    values = np.array([10.0, 20.0, 21.0, 50.0])
    targets = np.array([0, 1, 2, 3, 5, 6])
    np.testing.assert_array_equal(asof_join(targets, events, values), [nan, 10, 21, 21, 50, 50])
    np.testing.assert_array_equal(
        asof_join(targets, events, values, lag=1), [nan, nan, 10, 21, 21, 50]
    )
    np.testing.assert_array_equal(
        asof_join(targets.astype(float), events, values, lag=0.5), [nan, nan, 10, 21, 21, 50]
    )
    wide = np.column_stack([values, -values])
    out = asof_join([0.0, 2.5], events, wide)
    np.testing.assert_array_equal(out, [[nan, nan], [21, -21]])
    assert asof_join([], events, values).shape == (0,)
    assert asof_join([1.0, 2.0], [], np.empty((0, 2))).shape == (2, 2)


def test_asof_join_keeps_large_integer_times_exact():
    base = 1_600_000_000_000_000_000  # nanosecond epochs: beyond float64 precision
    events = np.array([base, base + 1])
    out = asof_join(np.array([base, base + 1, base + 2]), events, [1.0, 2.0], lag=1)
    np.testing.assert_array_equal(out, [nan, 1.0, 2.0])


def test_asof_join_datetimes():
    days = np.array(["2024-01-01", "2024-01-03", "2024-01-03", "2024-01-05"], "datetime64[D]")
    values = np.array([1.0, 2.0, 3.0, 4.0])
    targets = np.arange("2024-01-01", "2024-01-07", dtype="datetime64[D]").astype("datetime64[ns]")
    np.testing.assert_array_equal(asof_join(targets, days, values), [1, 1, 3, 3, 4, 4])
    day = [nan, 1, 1, 3, 3, 4]
    for lag_ in (np.timedelta64(1, "D"), dt.timedelta(days=1), np.timedelta64(24, "h")):
        np.testing.assert_array_equal(asof_join(targets, days, values, lag=lag_), day)
    hours = asof_join(targets + np.timedelta64(1, "h"), days, values, lag=np.timedelta64(1, "h"))
    np.testing.assert_array_equal(hours, [1, 1, 3, 3, 4, 4])
    ns = asof_join(targets[:1], targets[:1], [7.0], lag=np.timedelta64(1, "ns"))
    assert np.isnan(ns).all()


def test_asof_join_pandas_times():
    pd = pytest.importorskip("pandas")
    idx = pd.date_range("2024-01-01", periods=4, freq="D")
    out = asof_join(idx, idx[[0, 2]], [1.0, 2.0], lag=pd.Timedelta("1ns"))
    np.testing.assert_array_equal(out, [nan, 1.0, 1.0, 2.0])


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (([[1, 2]], [1], [1.0]), {}, ValueError, "target_times must be 1-D"),
        (([1, 2], [[1]], [1.0]), {}, ValueError, "event_times must be 1-D"),
        (([2, 1], [1], [1.0]), {}, ValueError, "sorted"),
        (([1, 2], [3, 1], [1.0, 2.0]), {}, ValueError, "sorted"),
        (([1.0, nan], [1], [1.0]), {}, ValueError, "NaN"),
        (([1.0], [nan], [1.0]), {}, ValueError, "NaN"),
        (
            (np.array(["NaT"], "datetime64[D]"), np.array(["2024-01-01"], "M8[D]"), [1.0]),
            {},
            ValueError,
            "NaT",
        ),
        ((np.array(["2024-01-01"], "M8[D]"), [1], [1.0]), {}, ValueError, "both"),
        (([1], np.array(["2024-01-01"], "M8[D]"), [1.0]), {}, ValueError, "both"),
        ((["2024-01-01"], ["2024-01-01"], [1.0]), {}, ValueError, "datetime64 or numeric"),
        (([True], [True], [1.0]), {}, ValueError, "datetime64 or numeric"),
        (([1], [1, 2], [1.0]), {}, ValueError, "one row per event"),
        (([1], [1], [[[1.0]]]), {}, ValueError, "1-D"),
        (([1], [1], [np.inf]), {}, ValueError, "inf"),
        (([1], [1], ["a"]), {}, ValueError, "numeric"),
        (([1], [1], [1.0]), {"lag": -1}, ValueError, ">= 0"),
        (([1], [1], [1.0]), {"lag": math.inf}, ValueError, "finite"),
        (([1], [1], [1.0]), {"lag": True}, TypeError, "number"),
        (([1], [1], [1.0]), {"lag": np.timedelta64(1, "D")}, TypeError, "number"),
        (([1], [1], [1.0]), {"lag": "1"}, TypeError, "number"),
    ],
)
def test_asof_join_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        asof_join(*args, **kwargs)


@pytest.mark.parametrize(
    ("lag_", "error", "match"),
    [
        (1, TypeError, "timedelta"),
        (1.5, TypeError, "timedelta"),
        (np.timedelta64("NaT", "D"), ValueError, "NaT"),
        (np.timedelta64(-1, "D"), ValueError, ">= 0"),
        (dt.timedelta(seconds=-1), ValueError, ">= 0"),
    ],
)
def test_asof_join_datetime_lag_errors(lag_, error, match):
    days = np.array(["2024-01-01", "2024-01-02"], "datetime64[D]")
    with pytest.raises(error, match=match):
        asof_join(days, days, [1.0, 2.0], lag=lag_)


@settings(max_examples=60, deadline=None)
@given(
    events=st.lists(st.integers(0, 30), min_size=1, max_size=15).map(sorted),
    targets=st.lists(st.integers(-5, 40), max_size=15).map(sorted),
    lag_=st.integers(0, 5),
    cut=st.integers(-5, 40),
    seed=st.integers(0, 2**16),
)
def test_asof_join_is_causal(events, targets, lag_, cut, seed):
    events_arr, targets_arr = np.array(events), np.array(targets)
    values = np.random.default_rng(seed).normal(size=(len(events), 2))
    out = asof_join(targets_arr, events_arr, values, lag=lag_)
    # brute force: latest event (later row on ties) with event + lag <= t
    for i, t in enumerate(targets):
        hits = [j for j, e in enumerate(events) if e + lag_ <= t]
        np.testing.assert_array_equal(out[i], values[hits[-1]] if hits else [nan, nan])
    # events not yet known at `cut` change nothing up to `cut`
    late = events_arr + lag_ > cut
    changed = values.copy()
    changed[late] += 1.0
    again = asof_join(targets_arr, events_arr, changed, lag=lag_)
    early = targets_arr <= cut
    np.testing.assert_array_equal(again[early], out[early])


# -- shared contract ----------------------------------------------------------------------------


def finite_or_missing(low: float, high: float) -> st.SearchStrategy[float]:
    # Rounded so that price ratios cannot overflow; zeros stay possible.
    values = st.floats(low, high, allow_nan=False).map(lambda v: round(v, 6))
    return st.one_of(values, st.just(nan))


@st.composite
def perturbed_panels(draw: st.DrawFn) -> tuple[np.ndarray, int, np.ndarray]:
    """A panel (positive or signed), a cut and replacement rows for after the cut."""
    T = draw(st.integers(3, 30))
    N = draw(st.integers(1, 3))
    low = draw(st.sampled_from([0.0, -50.0]))
    x = draw(hnp.arrays(np.float64, (T, N), elements=finite_or_missing(low, 50.0)))
    cut = draw(st.integers(0, T - 2))
    tail = draw(hnp.arrays(np.float64, (T - cut - 1, N), elements=finite_or_missing(low, 50.0)))
    return x, cut, tail


@pytest.mark.parametrize("name", sorted(PANEL))
@settings(max_examples=25, deadline=None)
@given(case=perturbed_panels(), one_d=st.booleans())
def test_every_transform_is_causal_and_leaves_its_input_alone(name, case, one_d):
    fn = PANEL[name]
    x, cut, tail = case
    if one_d and name in SERIES:
        x, tail = x[:, 0], tail[:, 0]
    before = x.copy()
    out = fn(x)
    np.testing.assert_array_equal(x, before)
    assert out.shape == x.shape and out.dtype == np.float64
    changed = x.copy()
    changed[cut + 1 :] = tail
    np.testing.assert_array_equal(fn(changed)[: cut + 1], out[: cut + 1])


@pytest.mark.parametrize("name", sorted(PANEL))
def test_check_causal_passes_every_transform(name):
    fn = PANEL[name]
    check_causal(fn, walk(30, 3), n_checks=30)  # prices: positive, no NaN
    noisy_panel = noisy(30, 3, seed=10)
    noisy_panel[::7] = 0.0
    check_causal(fn, noisy_panel, n_checks=5)  # signs, zeros and NaNs move
    if name in SERIES:
        check_causal(fn, noisy(12), n_checks=10)


def test_read_only_and_pandas_inputs():
    pd = pytest.importorskip("pandas")
    x = walk(10, 2)
    x.setflags(write=False)
    for fn in PANEL.values():
        fn(x)
    series = pd.Series(x[:, 0])
    np.testing.assert_array_equal(log_returns(series), log_returns(x[:, 0]))
    np.testing.assert_array_equal(rolling_mean(pd.DataFrame(x), 3), rolling_mean(x, 3))


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PANEL))
@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        (np.float64(1.0), ValueError, "shape"),
        (np.ones((3, 2, 2)), ValueError, "shape"),
        (np.array([1.0, np.inf, 2.0]), ValueError, "inf"),
        (np.array([[1.0], [-np.inf], [2.0]]), ValueError, "inf"),
        (np.array(["a", "b", "c"]), ValueError, "numeric"),
        (np.array([True, False, True]), ValueError, "numeric"),
    ],
)
def test_bad_inputs(name, bad, error, match):
    with pytest.raises(error, match=match):
        PANEL[name](bad)


X = np.arange(1.0, 9.0)


def test_whole_float_parameters_are_their_ints():
    np.testing.assert_array_equal(momentum(X, 2.0), momentum(X, 2))
    np.testing.assert_array_equal(lag(X, 1.0), lag(X, 1))
    np.testing.assert_array_equal(
        rolling_mean(X, 3.0, min_periods=2.0), rolling_mean(X, 3, min_periods=2)
    )
    np.testing.assert_array_equal(rolling_std(X, 3, ddof=1.0), rolling_std(X, 3, ddof=1))
    np.testing.assert_array_equal(forward_fill(X, limit=1.0), forward_fill(X, limit=1))


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: momentum(X, 0), ValueError, "window"),
        (lambda: momentum(X, True), TypeError, "window"),
        (lambda: momentum(X, 2.5), TypeError, "window"),
        (lambda: lag(X, -1), ValueError, "periods"),
        (lambda: lag(X, False), TypeError, "periods"),
        (lambda: lag(X, 1.5), TypeError, "periods"),
        (lambda: forward_fill(X, limit=-1), ValueError, "limit"),
        (lambda: forward_fill(X, limit=1.5), TypeError, "limit"),
        (lambda: forward_fill(X, limit=True), TypeError, "limit"),
        (lambda: rolling_mean(X, 0), ValueError, "window"),
        (lambda: rolling_mean(X, np.bool_(True)), TypeError, "window"),
        (lambda: rolling_mean(X, "3"), TypeError, "window"),
        (lambda: rolling_mean(X, 3, min_periods=0), ValueError, "min_periods"),
        (lambda: rolling_mean(X, 3, min_periods=4), ValueError, "min_periods"),
        (lambda: rolling_mean(X, 3, min_periods=2.5), TypeError, "min_periods"),
        (lambda: rolling_std(X, 0), ValueError, "window"),
        (lambda: rolling_std(X, 3, min_periods=4), ValueError, "min_periods"),
        (lambda: rolling_std(X, 3, min_periods=True), TypeError, "min_periods"),
        (lambda: rolling_std(X, 3, ddof=-1), ValueError, "ddof"),
        (lambda: rolling_std(X, 3, ddof=True), TypeError, "ddof"),
        (lambda: rolling_std(X, 3, ddof=0.5), TypeError, "ddof"),
        (lambda: rolling_zscore(X, 0), ValueError, "window"),
        (lambda: rolling_zscore(X, 3, min_periods=5), ValueError, "min_periods"),
        (lambda: rolling_zscore(X, nan), TypeError, "window"),
        (lambda: ewm_mean(X, 0), ValueError, "halflife"),
        (lambda: ewm_mean(X, -1.0), ValueError, "halflife"),
        (lambda: ewm_mean(X, nan), ValueError, "halflife"),
        (lambda: ewm_mean(X, math.inf), ValueError, "halflife"),
        (lambda: ewm_mean(X, True), TypeError, "halflife"),
        (lambda: ewm_mean(X, "2"), TypeError, "halflife"),
        (lambda: ewm_mean(X, 2.0, min_periods=-1), ValueError, "min_periods"),
        (lambda: ewm_mean(X, 2.0, min_periods=True), TypeError, "min_periods"),
        (lambda: ewm_mean(X, 2.0, min_periods=math.inf), TypeError, "min_periods"),
        (lambda: ewm_std(X, 0.0), ValueError, "halflife"),
        (lambda: ewm_std(X, 2.0, min_periods=-2), ValueError, "min_periods"),
        (lambda: ewm_std(X, 2.0, min_periods=2.5), TypeError, "min_periods"),
        (lambda: realized_volatility(X, 0), ValueError, "window"),
        (lambda: realized_volatility(X, False), TypeError, "window"),
        (lambda: realized_volatility(X, 3, periods_per_year=0), ValueError, "periods_per_year"),
        (lambda: realized_volatility(X, 3, periods_per_year=-252), ValueError, "periods_per"),
        (lambda: realized_volatility(X, 3, periods_per_year=True), TypeError, "periods_per"),
        (lambda: realized_volatility(X, 3, periods_per_year="252"), TypeError, "periods_per"),
    ],
)
def test_parameter_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_numpy_integer_parameters_are_accepted():
    n = np.int32(3)
    np.testing.assert_array_equal(
        rolling_mean(X, n, min_periods=np.int64(2)), rolling_mean(X, 3, min_periods=2)
    )
    np.testing.assert_array_equal(rolling_std(X, n, ddof=np.uint8(0)), rolling_std(X, 3, ddof=0))
    np.testing.assert_array_equal(lag(X, np.int16(1)), lag(X, 1))
    np.testing.assert_array_equal(
        ewm_mean(X, np.float32(2), min_periods=np.int8(2)), ewm_mean(X, 2.0, min_periods=2)
    )


# -- check_causal --------------------------------------------------------------------------------


def centred_mean(a: np.ndarray) -> np.ndarray:
    out = np.full(a.shape, nan)
    out[1:-1] = (a[:-2] + a[1:-1] + a[2:]) / 3
    return out


def test_check_causal_catches_look_ahead():
    x = walk(20, 2)
    with pytest.raises(
        LookAheadError, match=r"centred_mean looks ahead: output row 1 changed .* cut 1"
    ):
        check_causal(centred_mean, x, n_checks=18)
    with pytest.raises(LookAheadError, match=r"output row 0 changed when the rows after cut 0"):
        check_causal(lambda a: np.roll(a, -1, axis=0), x)
    with pytest.raises(LookAheadError, match=r"row 0 .* cut 0"):
        check_causal(lambda a: a - a[-1], x[:, 0])


def test_check_causal_names_the_first_differing_row_and_the_cut():
    def peek(a: np.ndarray) -> np.ndarray:
        out = a.copy()
        out[5] = a[7]
        return out

    with pytest.raises(LookAheadError) as info:
        check_causal(peek, walk(10, 1), n_checks=100)  # every cut: 5 is the first that fails
    assert str(info.value) == (
        "peek looks ahead: output row 5 changed when the rows after cut 5 were perturbed."
    )


def test_check_causal_detects_a_shape_change():
    x = walk(10, 1)[:, 0]

    def grows(a: np.ndarray) -> np.ndarray:
        return np.zeros((len(a), 1 if np.array_equal(a, x) else 2))

    with pytest.raises(LookAheadError, match=r"shape changed from \(10, 1\) to \(10, 2\).*cut 0"):
        check_causal(grows, x)


def test_check_causal_tolerances():
    x = walk(10, 2)

    def leaky(a: np.ndarray) -> np.ndarray:
        return a + 1e-9 * a[-1]

    with pytest.raises(LookAheadError):
        check_causal(leaky, x)
    check_causal(leaky, x, atol=1e-5)
    check_causal(leaky, x, rtol=1e-6)
    check_causal(lambda a: np.where(np.arange(len(a))[:, None] > 0, a, nan), x)  # NaN == NaN


def record(calls: list[np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    def fn(a: np.ndarray) -> np.ndarray:
        calls.append(a.copy())
        return a

    return fn


def cuts_of(calls: list[np.ndarray], x: np.ndarray) -> list[int]:
    """The cut of each perturbed call: the last row still equal to ``x``."""
    cuts = []
    for a in calls[1:]:
        same = (np.isclose(a, x, rtol=0, atol=0, equal_nan=True)).reshape(len(x), -1).all(axis=1)
        cut = int(np.argmin(same)) - 1
        assert same[: cut + 1].all() and not same[cut + 1 :].any()
        cuts.append(cut)
    return cuts


def test_check_causal_cuts_and_perturbations():
    x = walk(12, 3)
    before = x.copy()
    calls: list[np.ndarray] = []
    check_causal(record(calls), x, n_checks=4)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(calls[0], x)
    assert len(calls) == 1 + 5 * 2  # per cut: a rescaled copy, then a reordered one
    cuts = cuts_of([calls[0], *calls[1::2]], x)
    assert len(cuts) == 5 and cuts[0] == 0 and len(set(cuts)) == 5
    assert all(1 <= c <= 10 for c in cuts[1:])
    assert all((a > 0).all() for a in calls)  # prices stay prices
    calls.clear()
    check_causal(record(calls), x, n_checks=10)
    assert cuts_of([calls[0], *calls[1::2]], x) == list(range(11))
    calls.clear()
    check_causal(record(calls), x[:3], n_checks=1)
    assert cuts_of([calls[0], *calls[1::2]], x[:3]) == [0, 1]


def test_check_causal_moves_signs_zeros_and_nans():
    x = noisy(40, 2, seed=11)
    x[::5, 0] = 0.0
    calls: list[np.ndarray] = []
    check_causal(record(calls), x, n_checks=1)
    assert len(calls) == 1 + 2 * 4  # per cut: rescaled, reordered, signs and zeros, NaNs
    signs, holes, original = calls[3][1:], calls[4][1:], x[1:]
    assert not np.array_equal(np.isnan(holes), np.isnan(original))
    both = ~np.isnan(signs) & ~np.isnan(original)
    assert (np.sign(signs[both]) != np.sign(original[both])).any()
    assert not np.array_equal(signs == 0, original == 0) and (signs == 0).any()


def test_check_causal_rng():
    x = noisy(15, 2, seed=12)
    first: list[np.ndarray] = []
    second: list[np.ndarray] = []
    check_causal(record(first), x)
    check_causal(record(second), x, rng=np.random.default_rng(0))
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    third: list[np.ndarray] = []
    check_causal(record(third), x, rng=np.random.default_rng(1))
    assert not np.array_equal(third[1], first[1], equal_nan=True)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"x": np.ones(2)}, ValueError, "at least 3 rows"),
        ({"x": np.ones((3, 2, 2))}, ValueError, "1-D"),
        ({"x": np.float64(1.0)}, ValueError, "1-D"),
        ({"x": np.array(["a", "b", "c"])}, ValueError, "numeric"),
        ({"n_checks": 0}, ValueError, "n_checks"),
        ({"n_checks": True}, TypeError, "n_checks"),
        ({"n_checks": 2.5}, TypeError, "n_checks"),
        ({"rtol": -1e-9}, ValueError, "rtol"),
        ({"atol": nan}, ValueError, "atol"),
        ({"atol": "0"}, TypeError, "atol"),
        ({"rng": 0}, TypeError, "Generator"),
        ({"fn": lambda a: a[1:]}, ValueError, "5 rows"),
        ({"fn": lambda a: float(a.sum())}, ValueError, "5 rows"),
    ],
)
def test_check_causal_errors(kwargs, error, match):
    args: dict[str, Any] = {"fn": lambda a: a, "x": walk(5, 1)}
    args.update(kwargs)
    fn, x = args.pop("fn"), args.pop("x")
    with pytest.raises(error, match=match):
        check_causal(fn, x, **args)
