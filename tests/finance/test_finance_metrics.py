"""Tests for sekai.finance.metrics."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import sekai
from sekai import Env, ResetResult, StepResult
from sekai.finance.metrics import (
    PerformanceSummary,
    PnLSummary,
    RecordPerformance,
    annualized_return,
    annualized_volatility,
    calmar_ratio,
    conditional_value_at_risk,
    drawdown_series,
    equity_curve,
    hit_rate,
    max_drawdown,
    performance_summary,
    pnl_summary,
    returns_from_equity,
    sharpe_ratio,
    sortino_ratio,
    total_return,
    value_at_risk,
)
from sekai.spaces import Discrete

R = [0.1, -0.2, 0.25]  # equity 1, 1.1, 0.88, 1.1: one 20% drawdown, back to the peak
R_SD = math.sqrt(0.0525)  # sample std: mean 0.05, squared deviations sum to 0.105

SCALAR_METRICS = [
    total_return,
    annualized_return,
    annualized_volatility,
    sharpe_ratio,
    sortino_ratio,
    max_drawdown,
    calmar_ratio,
    value_at_risk,
    conditional_value_at_risk,
    hit_rate,
]
ALL_METRICS = [*SCALAR_METRICS, equity_curve, drawdown_series]

returns_arrays = hnp.arrays(
    np.float64, st.integers(1, 40), elements=st.floats(-3.0, 3.0, allow_subnormal=False)
)
safe_returns = hnp.arrays(
    np.float64, st.integers(1, 40), elements=st.floats(-0.9, 1.0, allow_subnormal=False)
)


# -- metric functions: exact values -------------------------------------------------------


def test_equity_curve_and_total_return():
    np.testing.assert_allclose(equity_curve(R), [1.0, 1.1, 0.88, 1.1])
    np.testing.assert_allclose(equity_curve(R, initial=100), [100.0, 110.0, 88.0, 110.0])
    assert total_return(R) == pytest.approx(0.1)
    assert total_return([0.0]) == 0.0


def test_wipe_out_floors_equity_forever():
    np.testing.assert_array_equal(equity_curve([0.5, -1.0, 0.3]), [1.0, 1.5, 0.0, 0.0])
    # Two factors of -1 would multiply back to +1: the floor keeps the equity at 0.
    np.testing.assert_array_equal(equity_curve([-2.0, -2.0]), [1.0, 0.0, 0.0])
    assert total_return([0.5, -1.0, 0.3]) == -1.0
    assert total_return([-2.0, -2.0]) == -1.0
    np.testing.assert_array_equal(drawdown_series([0.5, -1.0, 0.3]), [0.0, 0.0, 1.0, 1.0])
    assert max_drawdown([-1.5]) == 1.0
    assert annualized_return([0.5, -1.0, 0.3]) == -1.0
    assert annualized_return([0.2, -1.5]) == -1.0
    assert calmar_ratio([0.5, -1.0, 0.3]) == -1.0


def test_returns_from_equity():
    np.testing.assert_allclose(returns_from_equity([1.0, 1.1, 0.88, 1.1]), R)
    np.testing.assert_allclose(returns_from_equity([2.0, 3.0]), [0.5])
    # The first value <= 0 is the wipe-out step (-1); every later step is 0.
    np.testing.assert_array_equal(returns_from_equity([1.0, 1.5, 0.0, 0.0]), [0.5, -1.0, 0.0])
    np.testing.assert_array_equal(returns_from_equity([2.0, 1.0, -3.0, 0.0]), [-0.5, -1.0, 0.0])
    np.testing.assert_array_equal(returns_from_equity([1.0, 0.0]), [-1.0])


def test_annualized_return():
    assert annualized_return(R, periods_per_year=3) == pytest.approx(0.1)
    assert annualized_return(R, periods_per_year=6) == pytest.approx(1.1**2 - 1)
    assert annualized_return([0.01] * 4, periods_per_year=252) == pytest.approx(1.01**252 - 1)
    assert annualized_return([0.0, 0.0]) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert annualized_return([1.0], periods_per_year=1e6) == math.inf


def test_annualized_volatility():
    assert annualized_volatility(R, periods_per_year=1) == pytest.approx(R_SD)
    assert annualized_volatility(R) == pytest.approx(R_SD * math.sqrt(252))
    assert annualized_volatility([0.3]) == 0.0


def test_constant_series_has_zero_volatility():
    flat = [0.1] * 3
    assert np.std(flat, ddof=1) > 0.0  # rounding noise that must not count
    assert annualized_volatility(flat) == 0.0
    assert sharpe_ratio(flat) == math.inf  # zero std: the sign of the mean decides
    assert annualized_volatility([0.0] * 3) == 0.0


def test_sharpe_ratio():
    assert sharpe_ratio(R, periods_per_year=1) == pytest.approx(0.05 / R_SD)
    assert sharpe_ratio(R) == pytest.approx(0.05 / R_SD * math.sqrt(252))
    # risk_free is yearly: 2.52 / 252 = 0.01 per period, leaving excess [0, 0.01, 0.02].
    assert sharpe_ratio([0.01, 0.02, 0.03], risk_free=2.52) == pytest.approx(math.sqrt(252))
    assert sharpe_ratio([0.1], periods_per_year=1) == math.inf
    assert sharpe_ratio([-0.1, -0.3], periods_per_year=4) == pytest.approx(
        -0.2 / math.sqrt(0.02) * 2
    )


def test_excess_within_rounding_counts_as_zero():
    r = [0.1 + 0.2] * 2  # 0.30000000000000004, one rounding step above the hurdle 0.3
    assert r[0] - 0.3 > 0.0
    assert sortino_ratio(r, periods_per_year=1, target=0.3) == 0.0
    assert sharpe_ratio(r, periods_per_year=1, risk_free=0.3) == 0.0


def test_sortino_ratio():
    downside = 0.2 / math.sqrt(3)  # sqrt(mean([0, 0.04, 0]))
    assert sortino_ratio(R, periods_per_year=1) == pytest.approx(0.05 / downside)
    assert sortino_ratio(R, periods_per_year=4) == pytest.approx(0.05 / downside * 2)
    # target 0.01 per period: excess [0.01, -0.02, 0.02].
    assert sortino_ratio([0.02, -0.01, 0.03], periods_per_year=1, target=0.01) == pytest.approx(
        (0.01 / 3) / math.sqrt(0.0004 / 3)
    )
    assert sortino_ratio([-0.1, -0.2], periods_per_year=1) == pytest.approx(
        -0.15 / math.sqrt(0.025)
    )


def test_sortino_without_downside():
    assert sortino_ratio([0.1, 0.2]) == math.inf
    assert sortino_ratio([0.0, 0.1]) == math.inf
    assert sortino_ratio([0.1] * 3) == math.inf
    assert sortino_ratio([0.0, 0.0]) == 0.0
    assert sortino_ratio([0.01, 0.01], periods_per_year=1, target=0.01) == 0.0


def test_drawdown():
    np.testing.assert_allclose(drawdown_series(R), [0.0, 0.0, 0.2, 0.0], atol=1e-15)
    assert max_drawdown(R) == pytest.approx(0.2)
    np.testing.assert_allclose(drawdown_series([-0.5, -0.5, 1.0]), [0.0, 0.5, 0.75, 0.5])
    assert max_drawdown([0.1, 0.2]) == 0.0


def test_calmar_ratio():
    assert calmar_ratio(R, periods_per_year=3) == pytest.approx(0.5)
    assert calmar_ratio([-0.5, -0.5, 1.0], periods_per_year=3) == pytest.approx(-0.5 / 0.75)
    assert calmar_ratio([0.1, 0.2]) == math.inf
    assert calmar_ratio([0.0, 0.0]) == 0.0


def test_value_at_risk():
    assert value_at_risk(R, level=0.5) == pytest.approx(-0.1)  # the median
    # sorted [-0.2, 0.1, 0.25]: quantile 0.25 lies halfway between -0.2 and 0.1.
    assert value_at_risk(R, level=0.75) == pytest.approx(0.05)
    # quantile 0.05 of 21 values 0..20 (%): position 1.0, i.e. the 2nd smallest.
    assert value_at_risk(np.arange(-10, 11) / 100) == pytest.approx(0.09)


def test_value_at_risk_zero_is_positive():
    for returns, level in (([0.0, 0.0], 0.5), ([0.0, 0.0, 2.0], 0.9), ([-0.0, -0.0], 0.95)):
        var = value_at_risk(returns, level)
        assert var == 0.0 and math.copysign(1.0, var) == 1.0, returns


def test_conditional_value_at_risk():
    # sorted [-0.2, 0.1, 0.25]; level 0.5: the worst 1.5 returns, -0.2 and half of 0.1.
    assert conditional_value_at_risk(R, level=0.5) == pytest.approx(0.15 / 1.5)
    assert conditional_value_at_risk(R, level=0.75) == pytest.approx(0.2)
    # 21 values: the worst 1.05 are -0.10 and 5% of -0.09.
    assert conditional_value_at_risk(np.arange(-10, 11) / 100) == pytest.approx(0.1045 / 1.05)
    cvar = conditional_value_at_risk([0.0, 0.0])
    assert cvar == 0.0 and math.copysign(1.0, cvar) == 1.0


def test_conditional_value_at_risk_never_below_var_by_rounding():
    flat = np.array([0.1] * 3)
    assert -flat.mean() < -0.1  # the tail's mean rounds above its members
    assert conditional_value_at_risk(flat, 0.5) == value_at_risk(flat, 0.5) == -0.1


def test_hit_rate():
    assert hit_rate(R) == pytest.approx(2 / 3)
    assert hit_rate([0.0, 0.1, -0.1, 0.0, 0.2]) == pytest.approx(2 / 3)
    assert hit_rate([0.0, 0.0]) == 0.0
    assert hit_rate([-0.1]) == 0.0
    assert hit_rate([0.1, 0.0]) == 1.0


def test_scalar_metrics_are_python_floats_and_series_float64():
    for metric in SCALAR_METRICS:
        assert type(metric(np.array(R, dtype=np.float32))) is float, metric.__name__
    for series in (equity_curve(R), drawdown_series(R), returns_from_equity([1, 2, 3])):
        assert isinstance(series, np.ndarray) and series.dtype == np.float64
    np.testing.assert_array_equal(equity_curve([0, 1]), [1.0, 1.0, 2.0])  # ints accepted


# -- metric functions: bad input ----------------------------------------------------------


@pytest.mark.parametrize("metric", ALL_METRICS, ids=lambda f: f.__name__)
def test_metrics_reject_bad_returns(metric):
    with pytest.raises(ValueError, match="returns must not be empty"):
        metric([])
    with pytest.raises(ValueError, match=r"returns must be 1-D, got shape \(2, 1\)"):
        metric([[0.1], [0.2]])
    with pytest.raises(ValueError, match="returns must be 1-D"):
        metric(0.1)
    with pytest.raises(ValueError, match="returns must be finite, got nan at index 1"):
        metric([0.1, math.nan])
    with pytest.raises(ValueError, match="returns must be finite, got inf at index 0"):
        metric([math.inf])
    with pytest.raises(ValueError, match="returns must hold real numbers"):
        metric(["0.1"])
    with pytest.raises(ValueError, match="returns must hold real numbers"):
        metric([True, False])


@pytest.mark.parametrize(
    "metric", [annualized_return, annualized_volatility, sharpe_ratio, sortino_ratio, calmar_ratio]
)
def test_metrics_reject_bad_periods_per_year(metric):
    for bad in (0, -252, math.inf, math.nan):
        with pytest.raises(ValueError, match="periods_per_year must be finite and > 0"):
            metric(R, bad)
    with pytest.raises(TypeError, match="periods_per_year must be a real number, got str"):
        metric(R, "252")


def test_metrics_reject_bad_parameters():
    for metric in (value_at_risk, conditional_value_at_risk):
        for bad in (0.0, 1.0, -0.5, 1.5, math.nan):
            with pytest.raises(ValueError, match=r"level must be in \(0, 1\)"):
                metric(R, bad)
        with pytest.raises(TypeError, match="level must be a real number"):
            metric(R, None)
    with pytest.raises(ValueError, match="risk_free must be finite, got inf"):
        sharpe_ratio(R, risk_free=math.inf)
    with pytest.raises(ValueError, match="target must be finite, got nan"):
        sortino_ratio(R, target=math.nan)
    with pytest.raises(TypeError, match="target must be a real number"):
        sortino_ratio(R, target="0")
    for bad in (0.0, -1.0, math.inf):
        with pytest.raises(ValueError, match="initial must be finite and > 0"):
            equity_curve(R, initial=bad)


def test_returns_from_equity_rejects_bad_equity():
    with pytest.raises(ValueError, match="equity needs at least 2 values, got 1"):
        returns_from_equity([1.0])
    with pytest.raises(ValueError, match=r"equity must start > 0, got 0\.0"):
        returns_from_equity([0.0, 1.0])
    with pytest.raises(ValueError, match=r"equity must start > 0, got -1\.0"):
        returns_from_equity([-1.0, 1.0])
    with pytest.raises(ValueError, match="equity must not be empty"):
        returns_from_equity([])
    with pytest.raises(ValueError, match="equity must be finite"):
        returns_from_equity([1.0, math.nan])


# -- metric functions: properties ---------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(safe_returns)
def test_round_trip_without_wipe_out(r):
    np.testing.assert_allclose(returns_from_equity(equity_curve(r)), r, rtol=1e-9, atol=1e-12)
    assert annualized_return(r, periods_per_year=r.size) == pytest.approx(
        total_return(r), rel=1e-9, abs=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(returns_arrays, st.floats(0.01, 0.99))
def test_metrics_never_mutate_input(r, level):
    original = r.copy()
    for metric in ALL_METRICS:
        metric(r)
    value_at_risk(r, level)
    conditional_value_at_risk(r, level)
    performance_summary(r, turnover=r, costs=r)
    pnl_summary(r)
    np.testing.assert_array_equal(r, original)
    equity = equity_curve(r)
    kept = equity.copy()
    returns_from_equity(equity)
    np.testing.assert_array_equal(equity, kept)


@settings(max_examples=80, deadline=None)
@given(returns_arrays)
def test_equity_and_drawdown_bounds(r):
    equity = equity_curve(r)
    assert equity.shape == (r.size + 1,) and equity[0] == 1.0 and (equity >= 0.0).all()
    zero = np.flatnonzero(equity == 0.0)
    if zero.size:
        assert (equity[zero[0] :] == 0.0).all()
    drawdown = drawdown_series(r)
    assert drawdown.shape == (r.size + 1,) and drawdown[0] == 0.0
    assert ((drawdown >= 0.0) & (drawdown <= 1.0)).all()
    assert 0.0 <= max_drawdown(r) <= 1.0
    assert total_return(r) >= -1.0
    assert 0.0 <= hit_rate(r) <= 1.0
    if zero.size:
        assert max_drawdown(r) == 1.0 and annualized_return(r) == -1.0


@settings(max_examples=80, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(1, 40), elements=st.floats(-1e3, 1e3)),
    st.floats(0.01, 0.99),
)
def test_cvar_is_at_least_var(r, level):
    var = value_at_risk(r, level)
    assert conditional_value_at_risk(r, level) >= var
    assert var == -np.quantile(r, 1 - level)


# -- summaries ----------------------------------------------------------------------------


def test_performance_summary_matches_metrics():
    s = performance_summary(R, 3, risk_free=0.3, level=0.75)
    assert s.n_periods == 3
    assert s.total_return == total_return(R)
    assert s.annualized_return == annualized_return(R, 3)
    assert s.annualized_volatility == annualized_volatility(R, 3)
    assert s.sharpe_ratio == sharpe_ratio(R, 3, risk_free=0.3)
    assert s.sortino_ratio == sortino_ratio(R, 3, target=0.3)  # risk_free is the hurdle
    assert s.max_drawdown == max_drawdown(R)
    assert s.calmar_ratio == calmar_ratio(R, 3)
    assert s.value_at_risk == value_at_risk(R, 0.75)
    assert s.conditional_value_at_risk == conditional_value_at_risk(R, 0.75)
    assert s.hit_rate == hit_rate(R)
    assert s.mean_turnover is None and s.total_cost is None


def test_performance_summary_turnover_and_costs():
    s = performance_summary(R, turnover=[1.0, 0.5, 0.75], costs=[0.001, 0.0005, 0.0035])
    assert s.mean_turnover == 0.75 and s.total_cost == pytest.approx(0.005)
    with pytest.raises(ValueError, match="turnover must not be empty"):
        performance_summary(R, turnover=[])
    s = performance_summary(R, turnover=[1.0, 0.5], costs=[0.001, 0.0005, 0.002, 0.0015])
    assert s.mean_turnover == 0.75 and s.total_cost == pytest.approx(0.005)
    with pytest.raises(ValueError, match="costs must be finite"):
        performance_summary(R, costs=[math.nan])
    with pytest.raises(ValueError, match="risk_free must be finite"):
        performance_summary(R, risk_free=math.nan)
    with pytest.raises(ValueError, match="level must be in"):
        performance_summary(R, level=1.0)


def test_performance_summary_as_dict_and_frozen():
    s = performance_summary(R, 3, turnover=[1.0] * 3)
    d = s.as_dict()
    assert list(d) == [f.name for f in dataclasses.fields(PerformanceSummary)]
    assert d["n_periods"] == 3 and d["mean_turnover"] == 1.0 and d["total_cost"] is None
    assert d["sharpe_ratio"] == s.sharpe_ratio
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.total_return = 0.0  # type: ignore[misc]


def test_performance_summary_str():
    s = performance_summary(R, 3, turnover=[1.0, 0.5, 0.75], costs=[0.001, 0.0005, 0.002])
    assert str(s) == (
        "periods                     3\n"
        "total return           10.00%\n"
        "annualised return      10.00%\n"
        "annualised volatility  39.69%\n"
        "Sharpe ratio            0.378\n"
        "Sortino ratio           0.750\n"
        "max drawdown           20.00%\n"
        "Calmar ratio            0.500\n"
        "value at risk          17.00%\n"
        "conditional VaR        20.00%\n"
        "hit rate               66.67%\n"
        "mean turnover          75.00%\n"
        "total cost              0.35%"
    )
    lines = str(performance_summary([0.1, 0.2], 2, costs=[0.01, 0.0])).splitlines()
    assert len(lines) == 12 and lines[-1] == "total cost               1.00%"  # no turnover row
    assert lines[5] == "Sortino ratio              inf"
    assert lines[7] == "Calmar ratio               inf"
    assert lines[8] == "value at risk          -10.50%"


def test_pnl_summary():
    s = pnl_summary([1.0, -2.0, 3.0, -1.0], periods_per_year=4)
    sd = math.sqrt(14.75 / 3)
    assert s.n_periods == 4 and s.total_pnl == 1.0 and s.mean_pnl == 0.25
    assert s.pnl_volatility == pytest.approx(sd)
    assert s.sharpe_ratio == pytest.approx(0.25 / sd * 2)
    assert s.max_drawdown == 2.0  # cumulative 1, -1, 2, 1 against peaks 1, 1, 2, 2
    assert s.hit_rate == 0.5
    assert list(s.as_dict()) == [f.name for f in dataclasses.fields(PnLSummary)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.total_pnl = 0.0  # type: ignore[misc]


def test_pnl_summary_peak_starts_at_zero():
    assert pnl_summary([-1.0, -1.0]).max_drawdown == 2.0
    assert pnl_summary([1.0, 1.0]).max_drawdown == 0.0
    single = pnl_summary([5.0])
    assert (single.pnl_volatility, single.sharpe_ratio, single.max_drawdown) == (0.0, math.inf, 0.0)


def test_pnl_summary_scale_sets_the_rounding_tolerance():
    increments = np.diff(1e6 + np.array([0.0, 0.1, 0.2, 0.3]))  # 0.1 each, up to rounding
    assert np.std(increments, ddof=1) > 0.0
    assert pnl_summary(increments).sharpe_ratio > 1e6
    scaled = pnl_summary(increments, scale=1e6)
    assert scaled.pnl_volatility == 0.0 and scaled.sharpe_ratio == math.inf
    assert pnl_summary([2.0, 2.0, 2.0]).pnl_volatility == 0.0
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="scale must be"):
            pnl_summary([1.0], scale=bad)
    with pytest.raises(ValueError, match="pnl must not be empty"):
        pnl_summary([])
    with pytest.raises(ValueError, match="periods_per_year must be finite and > 0"):
        pnl_summary([1.0], periods_per_year=0)


def test_pnl_summary_str():
    assert str(pnl_summary([1.0, -2.0, 3.0, -1.0])) == (
        "periods              4\n"
        "total P&L       1.0000\n"
        "mean P&L        0.2500\n"
        "P&L volatility  2.2174\n"
        "Sharpe ratio     1.790\n"
        "max drawdown    2.0000\n"
        "hit rate        50.00%"
    )


# -- RecordPerformance on a scripted env --------------------------------------------------


class Ledger(Env[int, int]):
    """Replays scripted infos: each reset gives the next of ``resets``, step k ``steps[k]``.

    The last scripted step terminates the episode.
    """

    def __init__(self, steps: list[dict[str, Any]], *resets: dict[str, Any]) -> None:
        self.observation_space = Discrete(100)
        self.action_space = Discrete(2)
        self.steps = steps
        self.resets = list(resets) or [{}]
        self.n_resets = 0
        self.t = 0
        self.last_info: dict[str, Any] = {}

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self._set_rng(seed)
        info = dict(self.resets[min(self.n_resets, len(self.resets) - 1)])
        self.n_resets += 1
        self.t = 0
        return ResetResult(0, info)

    def step(self, action: int) -> StepResult[int]:
        self.last_info = dict(self.steps[self.t])
        self.t += 1
        return StepResult(self.t, 1.0, self.t == len(self.steps), False, self.last_info)


def run_episode(env: Env[Any, Any], action: Any = 0) -> list[StepResult[Any]]:
    results = []
    while not (results and results[-1].done):
        results.append(env.step(action))
    return results


def equities(*values: float, **extra: float) -> list[dict[str, Any]]:
    return [{"equity": v, **extra} for v in values]


def test_records_equity_returns_exactly():
    steps = [
        {"equity": 2.2, "turnover": 1.0, "cost": 0.001},
        {"equity": 1.76, "turnover": 0.5},
        {"equity": 2.2, "cost": 0.002},
    ]
    inner = Ledger(steps, {"equity": 2.0})
    env = RecordPerformance(inner, periods_per_year=3)
    env.reset()
    results = run_episode(env)
    assert all("performance" not in r.info for r in results[:-1])
    summary = results[-1].info["performance"]
    # Only the steps reporting turnover (or cost) feed its mean (or sum).
    expected = dataclasses.replace(performance_summary(R, 3), mean_turnover=0.75, total_cost=0.003)
    assert summary.as_dict() == pytest.approx(expected.as_dict())
    assert env.last_summary is summary and list(env.summaries) == [summary]
    assert "performance" not in inner.last_info  # a new dict, the env's info is untouched
    assert results[-1].info["equity"] == 2.2 and results[-1].reward == 1.0


def test_equity_starts_at_one_without_reset_value():
    env = RecordPerformance(Ledger(equities(1.1, 0.88, 1.1)), periods_per_year=3)
    env.reset()
    summary = run_episode(env)[-1].info["performance"]
    assert summary.total_return == pytest.approx(0.1) and summary.max_drawdown == pytest.approx(0.2)
    assert summary.mean_turnover is None and summary.total_cost is None


def test_equity_wipe_out_records_minus_one_then_zeros():
    env = RecordPerformance(Ledger(equities(0.5, 0.0, -0.3, 0.2)), periods_per_year=4)
    env.reset()
    summary = run_episode(env)[-1].info["performance"]
    expected = performance_summary([-0.5, -1.0, 0.0, 0.0], 4)
    assert summary == expected
    assert summary.total_return == -1.0 and summary.max_drawdown == 1.0


def test_turnover_and_cost_keys_can_be_renamed_or_ignored():
    steps = [{"equity": 1.1, "traded": 0.4, "fees": 0.01, "turnover": 9.0}]
    renamed = RecordPerformance(Ledger(steps), turnover_key="traded", cost_key="fees")
    renamed.reset()
    summary = run_episode(renamed)[-1].info["performance"]
    assert (summary.mean_turnover, summary.total_cost) == (0.4, 0.01)
    ignored = RecordPerformance(Ledger(steps), turnover_key=None, cost_key=None)
    ignored.reset()
    summary = run_episode(ignored)[-1].info["performance"]
    assert (summary.mean_turnover, summary.total_cost) == (None, None)


def test_pnl_mode_records_increments_from_the_reset_value():
    steps = [{"pnl": v, "equity": "unused"} for v in (11.0, 9.0, 12.0, 11.0)]
    env = RecordPerformance(Ledger(steps, {"pnl": 10.0}), pnl_key="pnl", periods_per_year=4)
    env.reset()
    summary = run_episode(env)[-1].info["performance"]
    assert isinstance(summary, PnLSummary)
    assert summary == pnl_summary([1.0, -2.0, 3.0, -1.0], 4, scale=12.0)
    from_zero = RecordPerformance(Ledger([{"pnl": 3.0}, {"pnl": 1.0}]), pnl_key="pnl")
    from_zero.reset()
    summary = run_episode(from_zero)[-1].info["performance"]
    assert (summary.total_pnl, summary.max_drawdown) == (1.0, 2.0)


def test_pnl_mode_scale_is_the_largest_level_seen():
    levels = 1e6 + np.array([0.1, 0.2, 0.3])
    env = RecordPerformance(Ledger([{"w": v} for v in levels], {"w": 1e6}), pnl_key="w")
    env.reset()
    summary = run_episode(env)[-1].info["performance"]
    assert summary.pnl_volatility == 0.0 and summary.sharpe_ratio == math.inf
    assert summary.mean_pnl == pytest.approx(0.1)


def test_mid_episode_reset_drops_the_partial_episode():
    inner = Ledger(equities(0.5, 0.5, 1.0), {"equity": 1.0})
    env = RecordPerformance(inner, periods_per_year=3)
    env.reset()
    env.step(0)
    env.step(0)
    env.reset()
    summary = run_episode(env)[-1].info["performance"]
    assert summary == performance_summary([-0.5, 0.0, 1.0], 3)
    assert len(env.summaries) == 1


def test_without_autoreset_the_next_episode_starts_at_reset():
    inner = Ledger(equities(1.1, 1.21), {"equity": 1.0}, {"equity": 1.1})
    env = RecordPerformance(inner, periods_per_year=2)
    env.reset()
    first = run_episode(env)[-1].info["performance"]
    env.reset()
    second = run_episode(env)[-1].info["performance"]
    assert first.total_return == pytest.approx(0.21)
    assert second.total_return == pytest.approx(0.1)
    assert list(env.summaries) == [first, second]


def test_inner_autoreset_restarts_from_reset_info():
    inner = Ledger(equities(2.2, 2.42), {"equity": 2.0}, {"equity": 1.1}, {"equity": 4.0})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = RecordPerformance(sekai.AutoReset(inner), periods_per_year=2)
    env.reset()
    first = run_episode(env)
    second = run_episode(env)
    assert first[-1].info["reset_info"] == {"equity": 1.1}
    assert first[-1].info["performance"].total_return == pytest.approx(0.21)
    # The second episode starts at 1.1 from reset_info, not at the previous 2.42.
    assert second[-1].info["performance"].as_dict() == pytest.approx(
        performance_summary([1.0, 0.1], 2).as_dict()
    )
    assert inner.n_resets == 3 and len(env.summaries) == 2


def test_autoreset_info_reads_final_info():
    steps = [
        {"equity": 1.1},
        {"equity": 50.0, "final_info": {"equity": 1.21}, "reset_info": {"equity": 3.0}},
        {"equity": 3.3},
        {"equity": 50.0, "final_info": {"equity": 3.63}, "reset_info": {"equity": 3.0}},
    ]

    class Autoresetting(Ledger):
        def step(self, action: int) -> StepResult[int]:
            result = super().step(action)
            done = "final_info" in result.info
            return StepResult(0, 0.0, False, done, result.info)

    env = RecordPerformance(Autoresetting(steps), periods_per_year=2)
    env.reset()
    first = run_episode(env)[-1].info["performance"]
    second = run_episode(env)[-1].info["performance"]
    assert first.total_return == pytest.approx(0.21)
    assert second.total_return == pytest.approx(0.21)  # from 3.0 in reset_info, not from 50.0


def test_summary_means_over_stored_summaries():
    env = RecordPerformance(
        Ledger(equities(1.1), {}), periods_per_year=1, turnover_key=None, deque_size=2
    )
    assert env.summary() == {}
    env.reset()
    run_episode(env)
    only = env.last_summary.as_dict()  # type: ignore[union-attr]
    assert env.summary() == {k: float(v) for k, v in only.items() if v is not None}
    assert "mean_turnover" not in env.summary() and "total_cost" not in env.summary()
    env.env.steps = [{"equity": 0.9, "cost": 0.02}]  # type: ignore[attr-defined]
    env.reset()
    run_episode(env)
    means = env.summary()
    assert means["total_return"] == pytest.approx(0.0)
    assert means["total_cost"] == 0.02  # only the episode that reported a cost counts
    assert means["max_drawdown"] == pytest.approx(0.05)
    assert all(type(v) is float for v in means.values())
    env.env.steps = [{"equity": 1.5}]  # type: ignore[attr-defined]
    env.reset()
    run_episode(env)
    assert len(env.summaries) == 2  # deque_size keeps the latest two
    assert env.summary()["total_return"] == pytest.approx(0.2)


def test_pnl_summary_means():
    env = RecordPerformance(Ledger([{"w": 1.0}, {"w": 3.0}]), pnl_key="w")
    for _ in range(2):
        env.reset()
        run_episode(env)
    assert env.summary() == pytest.approx(env.summaries[0].as_dict())
    assert set(env.summary()) == {f.name for f in dataclasses.fields(PnLSummary)}


class AsyncLedger(Ledger):
    """A ``Ledger`` that can only be stepped through the async path."""

    def step(self, action: int) -> StepResult[int]:
        raise AssertionError("the sync step was called")

    async def async_step(self, action: int) -> StepResult[int]:
        return Ledger.step(self, action)


async def async_steps(env: Env[int, int], n: int, seed: int | None) -> list[StepResult[int]]:
    if seed is not None:
        reset = await env.async_reset(seed=seed)
        assert reset.info == {"equity": 1.0}
    return [await env.async_step(0) for _ in range(n)]


def test_async_path():
    steps = equities(1.1, 0.88, 1.1, turnover=0.5)
    expected = performance_summary(R, 3, turnover=[0.5] * 3).as_dict()
    env = RecordPerformance(AsyncLedger(steps, {"equity": 1.0}), periods_per_year=3)
    results = asyncio.run(async_steps(env, 3, seed=0))
    assert [r.done for r in results] == [False, False, True]
    assert results[-1].info["performance"].as_dict() == pytest.approx(expected)
    inner = AsyncLedger(steps, {"equity": 1.0})
    auto = RecordPerformance(sekai.AutoReset(inner), periods_per_year=3)
    results = asyncio.run(async_steps(auto, 3, seed=0))
    results += asyncio.run(async_steps(auto, 3, seed=None))
    summaries = [r.info["performance"].as_dict() for r in results if r.done]
    assert len(summaries) == 2 and all(s == pytest.approx(expected) for s in summaries)
    assert inner.n_resets == 3 and len(auto.summaries) == 2


# -- RecordPerformance errors -------------------------------------------------------------


def test_missing_key_names_available_keys():
    env = RecordPerformance(Ledger([{"wealth": 1.0, "cash": 0.0}]))
    env.reset()
    with pytest.raises(KeyError, match=r"no 'equity'; available keys: 'wealth', 'cash'"):
        env.step(0)
    pnl = RecordPerformance(Ledger([{"equity": 1.0}]), pnl_key="wealth")
    pnl.reset()
    with pytest.raises(KeyError, match=r"no 'wealth'; available keys: 'equity'"):
        pnl.step(0)
    broken = RecordPerformance(Ledger([{"equity": 1.0, "final_info": {"equity": 1.0}}]))
    broken.reset()
    with pytest.raises(KeyError, match="no 'reset_info'"):
        broken.step(0)


@pytest.mark.parametrize("value", ["1.0", None, True, np.array([1.0]), [1.0]])
def test_non_numeric_values_are_rejected(value):
    env = RecordPerformance(Ledger([{"equity": value}]))
    env.reset()
    with pytest.raises(TypeError, match=r"info\['equity'\] must be a real number"):
        env.step(0)
    env = RecordPerformance(Ledger([{"equity": 1.0, "turnover": value}]))
    env.reset()
    with pytest.raises(TypeError, match=r"info\['turnover'\] must be a real number"):
        env.step(0)
    with pytest.raises(TypeError, match=r"info\['equity'\] must be a real number"):
        RecordPerformance(Ledger([], {"equity": value})).reset()


def test_non_finite_values_are_rejected():
    for info in ({"equity": math.nan}, {"equity": 1.0, "cost": math.inf}):
        env = RecordPerformance(Ledger([info]))
        env.reset()
        with pytest.raises(ValueError, match="must be finite"):
            env.step(0)
    with pytest.raises(ValueError, match=r"info\['pnl'\] must be finite, got -inf"):
        RecordPerformance(Ledger([], {"pnl": -math.inf}), pnl_key="pnl").reset()


def test_reset_equity_must_be_positive():
    env = RecordPerformance(Ledger([], {"equity": 0.0}))
    with pytest.raises(ValueError, match=r"'equity' must be > 0 .* pass pnl_key="):
        env.reset()


def test_constructor_validation():
    inner = Ledger([])
    for name in ("equity_key", "pnl_key", "turnover_key", "cost_key"):
        with pytest.raises(TypeError, match=f"{name} must be a str"):
            RecordPerformance(inner, **{name: 1})
    with pytest.raises(TypeError, match="equity_key must be a str, got NoneType"):
        RecordPerformance(inner, equity_key=None)  # type: ignore[arg-type]
    for size in (0, -1):
        with pytest.raises(ValueError, match="deque_size must be at least 1"):
            RecordPerformance(inner, deque_size=size)
    with pytest.raises(TypeError, match=r"deque_size must be an int, got float 2\.5"):
        RecordPerformance(inner, deque_size=2.5)  # type: ignore[arg-type]
    for ppy in (0, -1, math.inf, math.nan):
        with pytest.raises(ValueError, match="periods_per_year must be finite and > 0"):
            RecordPerformance(inner, periods_per_year=ppy)
    with pytest.raises(ValueError, match="risk_free must be finite"):
        RecordPerformance(inner, risk_free=math.nan)
    with pytest.raises(TypeError, match=r"expects a sekai\.Env"):
        RecordPerformance(object())  # type: ignore[arg-type]


# -- RecordPerformance on the finance envs -------------------------------------------------


def play(env: Env[Any, Any], seed: int, actions: Any) -> list[StepResult[Any]]:
    """One seeded episode; ``actions(t)`` picks each action."""
    env.reset(seed=seed)
    results = []
    while not (results and results[-1].done):
        results.append(env.step(actions(len(results))))
    return results


def test_trading_env():
    env = RecordPerformance(sekai.make("Trading-v0", episode_length=30))
    results = play(env, 3, lambda t: t % 3)
    infos = [r.info for r in results]
    returns = returns_from_equity([1.0] + [i["equity"] for i in infos])
    expected = performance_summary(
        returns, turnover=[i["turnover"] for i in infos], costs=[i["cost"] for i in infos]
    )
    assert results[-1].truncated and len(results) == 30
    assert infos[-1]["performance"].as_dict() == pytest.approx(expected.as_dict())
    assert expected.mean_turnover > 0.0 and expected.total_cost > 0.0
    assert infos[-1]["performance"].total_return == pytest.approx(infos[-1]["equity"] - 1)


def test_trading_env_wipe_out():
    env = RecordPerformance(sekai.make("Trading-v0", episode_length=10, transaction_cost=1.0))
    results = play(env, 0, lambda t: 2)
    assert results[-1].terminated and results[-1].info["equity"] == 0.0
    summary = results[-1].info["performance"]
    assert (summary.n_periods, summary.total_return, summary.max_drawdown) == (1, -1.0, 1.0)
    assert summary.total_cost == 1.0 and summary.annualized_return == -1.0


def test_portfolio_env():
    inner = sekai.make("Portfolio-v0", episode_length=25)
    env = RecordPerformance(inner, risk_free=0.02)
    weights = np.array([0.3, 0.2, 0.1, 0.1, 0.1, 0.2], dtype=np.float32)
    results = play(env, 5, lambda t: weights if t % 2 else weights[::-1].copy())
    infos = [r.info for r in results]
    returns = returns_from_equity([1.0] + [i["equity"] for i in infos])
    expected = performance_summary(
        returns,
        risk_free=0.02,
        turnover=[i["turnover"] for i in infos],
        costs=[i["cost"] for i in infos],
    )
    assert infos[-1]["performance"].as_dict() == pytest.approx(expected.as_dict())
    assert infos[-1]["performance"].total_return == pytest.approx(infos[-1]["portfolio_value"] - 1)


def test_trading_env_under_autoreset():
    env = RecordPerformance(sekai.AutoReset(sekai.make("Trading-v0", episode_length=5)))
    env.reset(seed=1)
    equity = [1.0]
    for t in range(15):
        info = env.step(t % 3).info
        if "final_info" not in info:
            equity.append(info["equity"])
            continue
        equity.append(info["final_info"]["equity"])
        summary = info["performance"]
        assert summary.n_periods == 5
        assert summary.total_return == pytest.approx(equity[-1] / equity[0] - 1)
        assert summary.sharpe_ratio == pytest.approx(sharpe_ratio(returns_from_equity(equity)))
        equity = [info["reset_info"]["equity"]]
    assert len(env.summaries) == 3


def test_market_making_env_pnl():
    env = RecordPerformance(sekai.make("MarketMaking-v0", n_steps=50), pnl_key="wealth")
    results = play(env, 7, lambda t: env.unwrapped.avellaneda_stoikov_action())
    wealth = np.array([r.info["wealth"] for r in results])
    summary = results[-1].info["performance"]
    assert isinstance(summary, PnLSummary) and summary.n_periods == 50
    expected = pnl_summary(np.diff(wealth, prepend=0.0), scale=float(np.abs(wealth).max()))
    assert summary.as_dict() == pytest.approx(expected.as_dict())
    assert summary.total_pnl == pytest.approx(wealth[-1])
    assert summary.total_pnl != 0.0  # quotes were filled


def test_market_making_env_in_equity_mode_names_its_keys():
    env = RecordPerformance(sekai.make("MarketMaking-v0"))
    env.reset(seed=0)
    with pytest.raises(KeyError, match=r"no 'equity'; available keys: .*'wealth'"):
        env.step(np.array([1.0, 1.0], dtype=np.float32))
