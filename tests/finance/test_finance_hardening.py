"""Edge cases of the finance toolkit: expected shortfall at ties, ratios of zero dispersion,
shape checks of the accounting and of summaries, and the bound on order-flow work."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sekai import Env, ResetResult, StepResult
from sekai.finance import AccountConfig, OrderBook, ZeroIntelligenceFlow
from sekai.finance.account import settle
from sekai.finance.lob import MAX_EXPECTED_EVENTS
from sekai.finance.metrics import (
    RecordPerformance,
    calmar_ratio,
    conditional_value_at_risk,
    performance_summary,
    pnl_summary,
    sharpe_ratio,
    sortino_ratio,
    value_at_risk,
)
from sekai.spaces import Discrete

# 30 losses of 2%, 900 flat periods, 70 gains of 1%: the 5% tail (50 periods) is the 30 losses
# and 20 of the flat periods, although 930 returns tie at or below the 5% quantile (0).
TIES = np.array([-0.02] * 30 + [0.0] * 900 + [0.01] * 70)
# Ten distinct returns; sorted: -0.05, -0.03, -0.02, -0.01, 0.0, 0.01, 0.02, 0.03, 0.04, 0.05.
DISTINCT = np.array([0.03, -0.05, 0.01, -0.01, 0.04, -0.03, 0.02, 0.0, 0.05, -0.02])


def _reference_shortfall(r: np.ndarray, level: float) -> float:
    """Minus the integral of the empirical quantile function over ``[0, 1 - level]``, scaled."""
    x = np.sort(r)
    size = (1.0 - level) * x.size
    weights = np.clip(size - np.arange(x.size), 0.0, 1.0)
    return -float(weights @ x) / size


# -- expected shortfall -------------------------------------------------------------------


def test_cvar_with_ties_at_the_cut_off_takes_only_the_tail() -> None:
    assert conditional_value_at_risk(TIES, 0.95) == 0.012
    assert value_at_risk(TIES, 0.95) == 0.0


def test_cvar_without_ties_matches_a_hand_computation() -> None:
    # level 0.8: the 2 worst of 10 returns.
    assert conditional_value_at_risk(DISTINCT, 0.8) == pytest.approx((0.05 + 0.03) / 2, rel=1e-12)
    # level 0.9: the single worst return.
    assert conditional_value_at_risk(DISTINCT, 0.9) == pytest.approx(0.05, rel=1e-12)


def test_cvar_weights_the_boundary_return_by_the_fraction() -> None:
    # level 0.75: 2.5 returns, -0.05 and -0.03 fully and half of -0.02.
    expected = (0.05 + 0.03 + 0.5 * 0.02) / 2.5
    assert conditional_value_at_risk(DISTINCT, 0.75) == pytest.approx(expected, rel=1e-12)
    # level 0.95: half a return, which is the worst one alone.
    assert conditional_value_at_risk(DISTINCT, 0.95) == pytest.approx(0.05, rel=1e-12)
    # level 0.66: 3.4 returns.
    expected = (0.05 + 0.03 + 0.02 + 0.4 * 0.01) / 3.4
    assert conditional_value_at_risk(DISTINCT, 0.66) == pytest.approx(expected, rel=1e-12)


def test_cvar_keeps_the_loss_positive_sign_convention() -> None:
    gains = np.array([0.01, 0.02, 0.03, 0.04])
    assert conditional_value_at_risk(gains, 0.5) == pytest.approx(-0.015)  # a gain is < 0
    zero = conditional_value_at_risk([0.0, 0.0, 0.0], 0.5)
    assert zero == 0.0 and math.copysign(1.0, zero) == 1.0


def test_performance_summary_and_recorder_inherit_the_shortfall() -> None:
    assert performance_summary(TIES).conditional_value_at_risk == 0.012
    steps = [{"equity": float(e)} for e in np.cumprod(1.0 + TIES)]
    env = RecordPerformance(_Replay(steps))
    env.reset()
    result = env.step(0)
    while not result.done:
        result = env.step(0)
    recorded = result.info["performance"].conditional_value_at_risk
    assert recorded == pytest.approx(0.012, rel=1e-12)


returns_arrays = hnp.arrays(
    np.float64, st.integers(1, 60), elements=st.floats(-1.0, 1.0, allow_subnormal=False)
)


@settings(max_examples=120, deadline=None)
@given(returns_arrays, st.floats(0.01, 0.99), st.randoms(use_true_random=False))
def test_cvar_properties(r: np.ndarray, level: float, random: Any) -> None:
    cvar = conditional_value_at_risk(r, level)
    assert cvar >= value_at_risk(r, level)
    shuffled = r.copy()
    random.shuffle(shuffled)
    assert conditional_value_at_risk(shuffled, level) == cvar
    assert cvar == pytest.approx(_reference_shortfall(r, level), rel=1e-9, abs=1e-12)
    assert cvar <= -float(r.min()) + 1e-12  # no worse than the worst loss


# -- zero dispersion ----------------------------------------------------------------------


def _pnl_sharpe(r: list[float]) -> float:
    return pnl_summary(r).sharpe_ratio


RATIOS: list[Callable[[list[float]], float]] = [
    sharpe_ratio,
    sortino_ratio,
    calmar_ratio,
    _pnl_sharpe,
]


@pytest.mark.parametrize("ratio", RATIOS)
def test_constant_positive_series_is_plus_inf(ratio: Callable[[list[float]], float]) -> None:
    assert ratio([0.01] * 5) == math.inf
    assert ratio([0.01]) == math.inf


@pytest.mark.parametrize("ratio", RATIOS)
def test_constant_zero_series_is_zero(ratio: Callable[[list[float]], float]) -> None:
    assert ratio([0.0] * 5) == 0.0
    assert ratio([0.0]) == 0.0


def test_constant_negative_series() -> None:
    flat = [-0.01] * 5
    # Zero std: -inf by the sign of the mean.
    assert sharpe_ratio(flat) == -math.inf
    assert sharpe_ratio([-0.01]) == -math.inf
    assert _pnl_sharpe(flat) == -math.inf
    # A negative mean always has a downside deviation (here 0.01) and a drawdown, so Sortino
    # and Calmar stay finite.
    assert sortino_ratio(flat, periods_per_year=4) == pytest.approx(-2.0)
    annual = 0.99**4 - 1.0
    drawdown = 1.0 - 0.99**5
    assert calmar_ratio(flat, periods_per_year=4) == pytest.approx(annual / drawdown)


def test_constant_excess_below_the_hurdle_is_minus_inf() -> None:
    # 2.52 a year is 0.01 a period: excess returns are all -0.005.
    assert sharpe_ratio([0.005] * 4, risk_free=2.52) == -math.inf
    assert sharpe_ratio([0.01] * 4, risk_free=2.52) == 0.0  # excess within rounding of 0


def test_calmar_without_drawdown_but_a_negative_return_is_minus_inf() -> None:
    tiny = [-1e-18]  # 1 + r rounds to 1: no drawdown, yet the annualised return is < 0
    assert calmar_ratio(tiny) == -math.inf


def test_summary_table_shows_infinite_ratios() -> None:
    lines = str(performance_summary([-0.01] * 3, 3)).splitlines()
    assert lines[4].split() == ["Sharpe", "ratio", "-inf"]


# -- accounting and summary shapes --------------------------------------------------------


def test_settle_refuses_returns_of_the_wrong_length() -> None:
    w = np.array([0.3, 0.3, 0.4])
    with pytest.raises(ValueError, match=r"expected length 3 .*got length 2"):
        settle(w, np.array([0.01, 0.02]), cost=0.0, dt=0.0, config=AccountConfig())
    with pytest.raises(ValueError, match=r"expected length 3 .*got a scalar"):
        settle(w, 0.01, cost=0.0, dt=0.0, config=AccountConfig())
    with pytest.raises(ValueError, match=r"expected length 3 .*got length 1"):
        settle(np.ones((2, 3)) / 3, np.zeros((2, 1)), cost=0.0, dt=0.0, config=AccountConfig())


def test_settle_refuses_mismatched_batches_and_costs() -> None:
    w = np.full((2, 3), 0.25)
    with pytest.raises(ValueError, match=r"leading axes must broadcast to \(2,\)"):
        settle(w, np.zeros((3, 3)), cost=0.0, dt=0.0, config=AccountConfig())
    with pytest.raises(ValueError, match=r"cost must be .* batch shape \(2,\), got shape \(3,\)"):
        settle(w, np.zeros((2, 3)), cost=np.zeros(3), dt=0.0, config=AccountConfig())
    with pytest.raises(ValueError, match=r"batch shape \(\), got shape \(2,\)"):
        settle(w[0], np.zeros(3), cost=[0.0, 0.0], dt=0.0, config=AccountConfig())
    with pytest.raises(ValueError, match="asset axis"):
        settle(0.5, 0.01, cost=0.0, dt=0.0, config=AccountConfig())


def test_settle_still_broadcasts_shared_returns_over_a_batch() -> None:
    rng = np.random.default_rng(0)
    w = rng.uniform(0.0, 0.3, (4, 3))
    r = rng.normal(0.0, 0.01, 3)
    batch = settle(w, r, cost=np.full(4, 0.001), dt=0.01, config=AccountConfig())
    for i in range(4):
        row = settle(w[i], r, cost=0.001, dt=0.01, config=AccountConfig())
        assert row.growth == batch.growth[i]
        np.testing.assert_array_equal(row.drifted, batch.drifted[i])
    scalar_cost = settle(w, r[None, :], cost=0.001, dt=0.01, config=AccountConfig())
    np.testing.assert_array_equal(scalar_cost.growth, batch.growth)


@pytest.mark.parametrize("rate", [math.nan, math.inf, -math.inf])
def test_account_config_refuses_non_finite_margin_rates(rate: float) -> None:
    with pytest.raises(ValueError, match=r"margin_rate must be finite, got"):
        AccountConfig(margin_rate=rate)


@pytest.mark.parametrize("rate", [0.0, 0.05, -0.01, -1e-12, -2.5])
def test_account_config_accepts_any_finite_margin_rate(rate: float) -> None:
    # A negative margin rate (paid to the account on negative cash) is a valid setting.
    assert AccountConfig(margin_rate=rate).effective_margin_rate == rate


def test_settle_pays_a_negative_margin_rate_to_the_account() -> None:
    # Cash of -0.5 at a margin rate of -2% a year over one year earns 0.5 * 2% = 1%.
    config = AccountConfig(cash_rate=0.03, margin_rate=-0.02)
    s = settle(np.array([1.5]), np.zeros(1), cost=0.0, dt=1.0, config=config)
    assert s.financing == pytest.approx(0.01) and s.growth == pytest.approx(1.01)
    assert AccountConfig(cash_rate=-0.005).cash_rate == -0.005  # negative deposit rates exist


def test_performance_summary_turnover_and_costs_may_have_any_length() -> None:
    # Their mean and sum are reported whatever their length (e.g. only the trading steps).
    r = [0.01, -0.02, 0.03]
    s = performance_summary(r, turnover=[0.5, 0.25], costs=[0.001])
    assert s.mean_turnover == 0.375 and s.total_cost == 0.001
    s = performance_summary(r, turnover=[0.5] * 4, costs=[0.001, 0.0, 0.002, 0.001, 0.0])
    assert s.mean_turnover == 0.5 and s.total_cost == pytest.approx(0.004)
    s = performance_summary(r, turnover=[1.0, 0.0, 0.5], costs=[0.001, 0.0, 0.002])
    assert s.mean_turnover == 0.5 and s.total_cost == pytest.approx(0.003)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(-0.5, 0.5), min_size=1, max_size=8),
    st.lists(st.floats(0.0, 2.0), min_size=1, max_size=8),
    st.lists(st.floats(0.0, 0.01), min_size=1, max_size=8),
)
def test_performance_summary_reports_the_mean_turnover_and_total_cost(
    returns: list[float], turnover: list[float], costs: list[float]
) -> None:
    s = performance_summary(returns, turnover=turnover, costs=costs)
    assert s.n_periods == len(returns)
    assert s.mean_turnover == float(np.mean(turnover))
    assert s.total_cost == float(np.sum(costs))


def test_recorder_averages_only_the_steps_reporting_turnover() -> None:
    steps = [{"equity": 1.1, "turnover": 1.0}, {"equity": 1.21}, {"equity": 1.331, "cost": 0.01}]
    env = RecordPerformance(_Replay(steps), periods_per_year=3)
    env.reset()
    for _ in steps:
        result = env.step(0)
    summary = result.info["performance"]
    assert summary.mean_turnover == 1.0 and summary.total_cost == 0.01


# -- order flow ---------------------------------------------------------------------------


def _seeded_book(flow: ZeroIntelligenceFlow) -> tuple[OrderBook, np.random.Generator]:
    book = OrderBook()
    rng = np.random.default_rng(0)
    flow.initialise(book, rng, mid=1000)
    return book, rng


def test_absurd_rates_are_refused_quickly_before_any_draw() -> None:
    flow = ZeroIntelligenceFlow(limit_rate=1e12)
    book, rng = _seeded_book(flow)
    state = rng.bit_generator.state
    before = repr(book)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"limit_rate=1000000000000\.0") as caught:
        flow.advance(book, rng, 1.0)
    assert time.perf_counter() - start < 1.0
    assert f"MAX_EXPECTED_EVENTS={MAX_EXPECTED_EVENTS}" in str(caught.value)
    assert MAX_EXPECTED_EVENTS == 10_000_000
    assert rng.bit_generator.state == state and repr(book) == before


def test_long_spans_at_ordinary_rates_are_bounded_too() -> None:
    flow = ZeroIntelligenceFlow()  # 2·10 + 2·2 = 24 orders per unit time
    book, rng = _seeded_book(flow)
    span = MAX_EXPECTED_EVENTS / 24 * 1.001
    with pytest.raises(ValueError, match=r"market_rate=2\.0"):
        flow.advance(book, rng, span)
    with pytest.raises(ValueError, match=r"expects 1\.001e\+07 orders"):
        flow.advance(book, rng, span)


def test_ordinary_rates_run_as_before() -> None:
    flow = ZeroIntelligenceFlow(limit_rate=10.0, market_rate=2.0, cancel_rate=0.5)
    book, rng = _seeded_book(flow)
    fills = flow.advance(book, rng, 10.0)
    assert len(fills) == 57
    assert repr(book) == "OrderBook(time=10.0, best_bid=999, best_ask=1000, orders=36)"
    # Large rates stay allowed over a span short enough: 4e6 orders per unit time for 1e-6.
    fast = ZeroIntelligenceFlow(limit_rate=1e6, market_rate=1e6)
    book, rng = _seeded_book(fast)
    fast.advance(book, rng, 1e-6)
    assert book.time == 1e-6


class _Replay(Env[int, int]):
    """Replays scripted step infos; the last one terminates the episode."""

    def __init__(self, steps: list[dict[str, Any]]) -> None:
        self.observation_space = Discrete(2)
        self.action_space = Discrete(2)
        self.steps = steps
        self.t = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[int]:
        self._set_rng(seed)
        self.t = 0
        return ResetResult(0, {})

    def step(self, action: int) -> StepResult[int]:
        info = dict(self.steps[self.t])
        self.t += 1
        return StepResult(0, 0.0, self.t == len(self.steps), False, info)
