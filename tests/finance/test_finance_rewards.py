"""Tests for sekai.finance.rewards."""

from __future__ import annotations

import copy
import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sekai.finance import (
    DifferentialSharpe,
    DrawdownPenalty,
    LogReturn,
    MeanVariance,
    ProfitAndLoss,
    RewardFunction,
    SimpleReturn,
    StepOutcome,
    TurnoverPenalty,
)
from sekai.finance.rewards import WeightedSum


def outcome(growth, equity=1.0, turnover=0.0, cost=0.0, previous_equity=None) -> StepOutcome:
    return StepOutcome.from_growth(
        growth, equity=equity, turnover=turnover, cost=cost, previous_equity=previous_equity
    )


# -- StepOutcome --------------------------------------------------------------------------


def test_from_growth_scalar():
    o = outcome(1.05, equity=2.0, turnover=0.3, cost=0.001, previous_equity=1.9)
    assert isinstance(o.log_return, float) and o.log_return == pytest.approx(math.log(1.05))
    assert o.simple_return == pytest.approx(0.05)
    assert (o.equity, o.turnover, o.cost) == (2.0, 0.3, 0.001)
    assert o.pnl == pytest.approx(0.1)
    assert outcome(1.0).pnl is None
    floored = outcome(-0.5)
    assert floored.log_return == pytest.approx(math.log(1e-12))
    assert floored.simple_return == pytest.approx(1e-12 - 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.equity = 3.0  # type: ignore[misc]


def test_from_growth_batched():
    growth = np.array([1.1, 0.0, 0.9])
    equity = np.array([1.1, 0.0, 0.9])
    o = outcome(growth, equity=equity, previous_equity=np.ones(3))
    np.testing.assert_allclose(o.log_return, np.log([1.1, 1e-12, 0.9]))
    np.testing.assert_allclose(o.simple_return, [0.1, 1e-12 - 1, -0.1])
    np.testing.assert_allclose(o.pnl, [0.1, -1.0, -0.1])


# -- simple rewards -----------------------------------------------------------------------


def test_stateless_rewards():
    o = outcome(1.02, equity=1.5, turnover=0.4, previous_equity=1.5 / 1.02)
    assert LogReturn()(o) == o.log_return and repr(LogReturn()) == "LogReturn()"
    assert SimpleReturn()(o) == o.simple_return and repr(SimpleReturn()) == "SimpleReturn()"
    assert TurnoverPenalty()(o) == 0.4 and repr(TurnoverPenalty()) == "TurnoverPenalty()"
    r = o.log_return
    assert MeanVariance(2.0)(o) == pytest.approx(r - r * r)
    assert MeanVariance()(o) == pytest.approx(r - 0.5 * r * r)
    assert MeanVariance(0)(o) == r
    assert repr(MeanVariance(2.0)) == "MeanVariance(risk_aversion=2.0)"


def test_profit_and_loss():
    with_pnl = outcome(1.1, equity=110.0, previous_equity=100.0)
    assert ProfitAndLoss()(with_pnl) == pytest.approx(10.0)
    without = outcome(1.1, equity=110.0)
    assert ProfitAndLoss()(without) == pytest.approx(10.0)
    batched = outcome(np.array([1.1, 0.5]), equity=np.array([110.0, 50.0]))
    np.testing.assert_allclose(ProfitAndLoss()(batched), [10.0, -50.0])
    with pytest.raises(ValueError, match="pnl"):
        ProfitAndLoss()(outcome(0.0, equity=0.0))
    with pytest.raises(ValueError):
        ProfitAndLoss()(outcome(np.array([1.0, 0.0]), equity=np.array([1.0, 0.0])))
    wiped = outcome(0.0, equity=0.0, previous_equity=100.0)
    assert ProfitAndLoss()(wiped) == -100.0
    assert repr(ProfitAndLoss()) == "ProfitAndLoss()"


@pytest.mark.parametrize(
    ("factory", "error"),
    [
        (lambda: MeanVariance(-1.0), ValueError),
        (lambda: MeanVariance(np.inf), ValueError),
        (lambda: MeanVariance("1"), TypeError),
        (lambda: MeanVariance(True), TypeError),
        (lambda: DifferentialSharpe(0.0), ValueError),
        (lambda: DifferentialSharpe(1.0), ValueError),
        (lambda: DifferentialSharpe(np.nan), ValueError),
        (lambda: DifferentialSharpe("0.1"), TypeError),
    ],
)
def test_parameter_errors(factory, error):
    with pytest.raises(error):
        factory()


def test_reward_function_is_abstract():
    with pytest.raises(TypeError):
        RewardFunction()  # type: ignore[abstract]


# -- stateful rewards ---------------------------------------------------------------------


def test_drawdown_penalty_sequence():
    penalty = DrawdownPenalty()
    assert penalty._state == {"peak": None, "drawdown": None}
    equities = [1.1, 0.99, 0.88, 0.95, 1.2, 0.6]
    rewards = [penalty(outcome(1.0, equity=e)) for e in equities]
    expected = [0.0, 0.1, 0.1, 0.0, 0.0, 0.5]
    np.testing.assert_allclose(rewards, expected, atol=1e-12)
    assert all(isinstance(r, float) for r in rewards)
    assert penalty._state["peak"] == 1.2 and penalty._state["peak"].shape == ()
    penalty.reset()
    assert penalty._state["peak"] is None
    assert penalty(outcome(1.0, equity=0.9)) == pytest.approx(0.1)  # peak starts at 1.0
    assert repr(penalty) == "DrawdownPenalty()"


def reference_dsr(returns, eta):
    a = b = 0.0
    out = []
    for r in returns:
        da, db = r - a, r * r - b
        var = b - a * a
        out.append((b * da - 0.5 * a * db) / var**1.5 if var > 1e-12 else 0.0)
        a, b = a + eta * da, b + eta * db
    return out, a, b


def test_differential_sharpe_recurrence():
    returns = [0.01, -0.02, 0.015, 0.03, -0.01, 0.0, 0.02]
    dsr = DifferentialSharpe(0.1)
    assert dsr._state == {"A": None, "B": None}
    got = [dsr(outcome(1 + r)) for r in returns]
    simple = [outcome(1 + r).simple_return for r in returns]
    expected, a, b = reference_dsr(simple, 0.1)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert got[0] == 0.0  # B - A^2 = 0 before any update
    np.testing.assert_allclose([dsr._state["A"], dsr._state["B"]], [a, b], rtol=1e-14)
    assert repr(dsr) == "DifferentialSharpe(eta=0.1)"
    assert repr(DifferentialSharpe()) == "DifferentialSharpe(eta=0.01)"


@pytest.mark.parametrize(
    "factory",
    [
        DrawdownPenalty,
        lambda: DifferentialSharpe(0.2),
        LogReturn,
        lambda: MeanVariance(3.0),
        lambda: LogReturn() - 0.5 * DrawdownPenalty() + 0.1 * DifferentialSharpe(0.3) - 0.001,
    ],
)
def test_batched_equals_single_env_bitwise(factory):
    rng = np.random.default_rng(0)
    n_envs, n_steps = 6, 40
    growth = np.exp(rng.normal(0, 0.05, (n_steps, n_envs)))
    equity = np.cumprod(growth, axis=0)
    reset_at = rng.random((n_steps, n_envs)) < 0.1
    batched, singles = factory(), [factory() for _ in range(n_envs)]
    for t in range(n_steps):
        got = batched(outcome(growth[t], equity=equity[t], turnover=np.abs(growth[t] - 1)))
        assert got.shape == (n_envs,)
        for i, single in enumerate(singles):
            want = single(
                outcome(
                    float(growth[t, i]),
                    equity=float(equity[t, i]),
                    turnover=abs(float(growth[t, i]) - 1),
                )
            )
            assert got[i] == want
        if reset_at[t].any():
            batched.reset(reset_at[t])
            for i in np.flatnonzero(reset_at[t]):
                singles[i].reset()


def test_reset_mask_and_shape_changes():
    dsr = DifferentialSharpe(0.5)
    batch = outcome(np.array([1.1, 0.9, 1.05]))
    dsr(batch)
    dsr(batch)
    before = dsr._state["A"].copy()
    dsr.reset(np.array([False, True, False]))
    np.testing.assert_array_equal(dsr._state["A"], [before[0], 0.0, before[2]])
    assert dsr._state["B"][1] == 0.0
    dsr.reset(np.array([0]))  # integer indices work too
    assert dsr._state["A"][0] == 0.0
    dsr(outcome(np.array([1.1, 0.9])))  # a different batch size rebuilds the state
    assert dsr._state["A"].shape == (2,)
    dsr(outcome(1.1))
    assert dsr._state["A"].shape == ()
    dsr.reset(np.array([True, False]) if False else None)
    assert dsr._state == {"A": None, "B": None}
    dsr.reset(np.array([True]))  # nothing allocated: nothing to do
    assert dsr._state["A"] is None
    dd = DrawdownPenalty()
    dd(outcome(np.ones(2), equity=np.array([1.5, 0.5])))
    dd.reset(np.array([True, False]))
    np.testing.assert_array_equal(dd._state["peak"], [1.0, 1.0])
    np.testing.assert_array_equal(dd._state["drawdown"], [0.0, 0.5])


def test_deepcopy_is_independent():
    dsr = DifferentialSharpe(0.3)
    dsr(outcome(1.01))
    dsr(outcome(1.03))
    clone = copy.deepcopy(dsr)
    a = dsr(outcome(0.99))
    b = clone(outcome(0.99))
    assert a == b
    dsr(outcome(1.2))
    assert clone._state["A"] != dsr._state["A"]


# -- arithmetic ---------------------------------------------------------------------------


def test_arithmetic_repr_and_values():
    expr = LogReturn() - 0.5 * DrawdownPenalty()
    assert isinstance(expr, WeightedSum)
    assert repr(expr) == "LogReturn() - 0.5 * DrawdownPenalty()"
    assert repr(2 * LogReturn() + 1) == "2 * LogReturn() + 1"
    assert repr(-LogReturn()) == "-LogReturn()"
    assert repr(1 - LogReturn()) == "1 - LogReturn()"
    assert repr(0.5 + TurnoverPenalty() * 3) == "0.5 + 3 * TurnoverPenalty()"
    assert repr(-(LogReturn() - SimpleReturn())) == "-LogReturn() + SimpleReturn()"
    o = outcome(1.05, equity=1.05, turnover=0.2)
    value = (2 * LogReturn() - 0.1 * TurnoverPenalty() + 0.25)(o)
    assert value == pytest.approx(2 * math.log(1.05) - 0.02 + 0.25)
    batched = outcome(np.array([1.05, 0.95]), equity=np.ones(2), turnover=np.zeros(2))
    out = (LogReturn() * 0 + 1)(batched)
    np.testing.assert_array_equal(out, [1.0, 1.0])


def test_arithmetic_flattens():
    a, b, c = LogReturn(), DrawdownPenalty(), TurnoverPenalty()
    expr = 2 * ((a - b) + 3 * (c + 1))
    weights = [(w, type(r).__name__) for w, r in expr.terms]
    assert weights == [
        (2.0, "LogReturn"),
        (-2.0, "DrawdownPenalty"),
        (6.0, "TurnoverPenalty"),
        (6.0, "_Unit"),
    ]
    assert repr(expr) == "2 * LogReturn() - 2 * DrawdownPenalty() + 6 * TurnoverPenalty() + 6"


@pytest.mark.parametrize("other", ["x", None, [1.0], True, np.ones(2)])
def test_arithmetic_type_errors(other):
    reward = LogReturn()
    with pytest.raises(TypeError):
        reward + other
    with pytest.raises(TypeError):
        other - reward
    with pytest.raises(TypeError):
        reward * other
    with pytest.raises(TypeError):
        reward * LogReturn()


def test_sum_resets_every_term_and_shares_instances():
    dd = DrawdownPenalty()
    dsr = DifferentialSharpe()
    expr = LogReturn() - dd - dd + dsr
    expr(outcome(1.0, equity=0.8))
    assert dd._state["peak"] is not None and dsr._state["A"] is not None
    expr.reset()
    assert dd._state["peak"] is None and dsr._state["A"] is None
    # the same penalty twice is evaluated once per step: -2 * 0.2
    assert expr(outcome(1.0, equity=0.8)) == pytest.approx(-0.4)
    batched = LogReturn() - dd
    batched(outcome(np.ones(3), equity=np.array([1.0, 0.5, 1.0])))
    batched.reset(np.array([False, True, False]))
    np.testing.assert_array_equal(dd._state["drawdown"], [0.0, 0.0, 0.0])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0.5, 2.0), min_size=1, max_size=50))
def test_log_returns_sum_to_log_of_product(growths):
    reward = LogReturn()
    total = sum(reward(outcome(g)) for g in growths)
    assert total == pytest.approx(math.log(math.prod(growths)), abs=1e-9)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(-0.2, 0.2), min_size=1, max_size=40),
    st.floats(0.01, 0.99),
)
def test_differential_sharpe_matches_reference(returns, eta):
    dsr = DifferentialSharpe(eta)
    got = [dsr(outcome(1 + r)) for r in returns]
    simple = [outcome(1 + r).simple_return for r in returns]
    expected, a, b = reference_dsr(simple, eta)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
    assert float(dsr._state["A"]) == pytest.approx(a, abs=1e-15)
    assert float(dsr._state["B"]) == pytest.approx(b, abs=1e-15)
