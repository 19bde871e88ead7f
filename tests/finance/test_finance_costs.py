"""Tests for sekai.finance.costs."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sekai.finance import (
    CompositeCost,
    CostModel,
    FixedCost,
    NoCost,
    ProportionalCost,
    SpreadCost,
    SquareRootImpact,
)
from sekai.finance.costs import CostContext, as_cost_model

TRADES = np.array([0.1, -0.3, 0.0])


def test_no_cost():
    assert NoCost()(TRADES) == 0.0 and isinstance(NoCost()(TRADES), float)
    np.testing.assert_array_equal(NoCost()(np.ones((4, 3))), np.zeros(4))
    assert NoCost().requires == frozenset() and repr(NoCost()) == "NoCost()"


def test_proportional_cost():
    cost = ProportionalCost(0.001)
    out = cost(TRADES)
    assert isinstance(out, float) and out == pytest.approx(0.001 * 0.4)
    assert cost([0.5]) == pytest.approx(0.0005)
    per_asset = ProportionalCost([0.001, 0.002, 0.003])
    assert per_asset(TRADES) == pytest.approx(0.0001 + 0.0006)
    assert repr(cost) == "ProportionalCost([0.001])"
    assert repr(per_asset) == "ProportionalCost([0.001, 0.002, 0.003])"
    assert not cost.rate.flags.writeable and cost.requires == frozenset()


def test_spread_cost_fixed_and_quoted():
    fixed = SpreadCost(0.0005)
    assert fixed.requires == frozenset() and fixed(TRADES) == pytest.approx(0.0005 * 0.4)
    assert repr(fixed) == "SpreadCost(half_spread=[0.0005])"
    quoted = SpreadCost()
    assert quoted.requires == frozenset({"spread"}) and quoted.fallbacks == frozenset()
    spread = np.array([0.002, 0.004, 0.01])
    assert quoted(TRADES, spread=spread) == pytest.approx(0.5 * (0.002 * 0.1 + 0.004 * 0.3))
    assert repr(quoted) == "SpreadCost(half_spread=from data)"
    with pytest.raises(ValueError, match="spread"):
        quoted(TRADES)
    fb = SpreadCost(fallback_spread=0.002)
    assert fb.fallbacks == frozenset({"spread"})
    assert repr(fb) == "SpreadCost(half_spread=from data, fallback_spread=0.002)"


def test_missing_quoted_spreads_take_the_row_median():
    quoted = SpreadCost()
    trades = np.array([0.1, 0.2, 0.3, 0.4])
    spread = np.array([np.nan, 0.002, 0.006, -1.0])  # valid: 0.002, 0.006 -> median 0.004
    expected = 0.5 * (0.004 * 0.1 + 0.002 * 0.2 + 0.006 * 0.3 + 0.004 * 0.4)
    assert quoted(trades, spread=spread) == pytest.approx(expected)
    zero = np.array([0.0, np.inf, 0.004, 0.002])  # finite 0 is valid: median of 0, .004, .002
    assert quoted(trades, spread=zero) == pytest.approx(
        0.5 * (0.0 + 0.002 * 0.2 + 0.004 * 0.3 + 0.002 * 0.4)
    )


def test_rows_without_valid_spread():
    trades = np.array([[0.1, 0.2], [0.0, 0.0], [0.3, 0.0]])
    spread = np.array([[0.002, 0.002], [np.nan, np.nan], [0.004, np.nan]])
    out = SpreadCost()(trades, spread=spread)  # row 1 has no trade: no fallback needed
    np.testing.assert_allclose(out, [0.0003, 0.0, 0.0006])
    bad = np.array([[np.nan, np.nan]])
    with pytest.raises(ValueError, match="free"):
        SpreadCost()(np.array([[0.1, 0.0]]), spread=bad)
    assert SpreadCost(fallback_spread=0.01)(np.array([[0.1, 0.1]]), spread=bad)[0] == (
        pytest.approx(0.001)
    )


def test_fixed_cost():
    cost = FixedCost(5.0)
    assert cost.requires == frozenset({"equity"})
    assert cost(TRADES, equity=1000.0) == pytest.approx(2 * 5.0 / 1000.0)
    assert cost([1e-7, 0.5], equity=100.0) == pytest.approx(0.05)
    assert FixedCost(5.0, threshold=0.2)(TRADES, equity=1000.0) == pytest.approx(0.005)
    np.testing.assert_allclose(
        cost(np.array([TRADES, TRADES, TRADES]), equity=np.array([1000.0, 0.0, -5.0])),
        [0.01, 0.0, 0.0],
    )
    assert repr(cost) == "FixedCost(5.0)"
    with pytest.raises(ValueError, match="equity"):
        cost(TRADES)


def test_square_root_impact():
    cost = SquareRootImpact(0.5)
    assert cost.requires == frozenset({"equity", "volatility", "volume"})
    trades = np.array([0.1, -0.4, 0.2])
    sigma = np.array([0.02, 0.01, 0.03])
    volume = np.array([1e6, 2e5, np.nan])
    equity = 1e6
    u0 = 0.5 * 0.02 * np.sqrt(0.1 * equity / 1e6)
    u1 = min(0.5 * 0.01 * np.sqrt(0.4 * equity / 2e5), 1.0)
    expected = u0 * 0.1 + u1 * 0.4 + 1.0 * 0.2  # no volume: u = 1
    out = cost(trades, equity=equity, volatility=sigma, volume=volume)
    assert isinstance(out, float) and out == pytest.approx(expected)
    assert repr(cost) == "SquareRootImpact(0.5)"
    huge = cost(np.array([1.0]), equity=1e12, volatility=np.array([1.0]), volume=np.array([1.0]))
    assert huge == pytest.approx(1.0)  # u is capped at 1
    for missing in ("equity", "volatility", "volume"):
        ctx = {"equity": equity, "volatility": sigma, "volume": volume}
        del ctx[missing]
        with pytest.raises(ValueError, match=missing):
            cost(trades, **ctx)


def test_square_root_impact_volatility_fallback():
    cost = SquareRootImpact(1.0, fallback_volatility=0.04)
    assert cost.fallbacks == frozenset({"volatility"})
    assert repr(cost) == "SquareRootImpact(1.0, fallback_volatility=0.04)"
    out = cost([0.25], equity=100.0, volatility=[np.nan], volume=[100.0])
    assert out == pytest.approx(0.04 * 0.5 * 0.25)
    median = cost([0.25, 0.25], equity=100.0, volatility=[np.nan, 0.02], volume=[100.0, 100.0])
    assert median == pytest.approx(2 * 0.02 * 0.5 * 0.25)
    with pytest.raises(ValueError, match="volatility"):
        SquareRootImpact()([0.1], equity=1.0, volatility=[np.nan], volume=[1.0])


def test_composite():
    a, b, c = ProportionalCost(0.001), SpreadCost(), FixedCost(1.0)
    ab = a + b
    assert isinstance(ab, CompositeCost) and ab.models == (a, b)
    assert ab.requires == frozenset({"spread"})
    abc = ab + c
    assert abc.models == (a, b, c) and (a + (b + c)).models == (a, b, c)
    assert repr(abc) == (
        "ProportionalCost([0.001]) + SpreadCost(half_spread=from data) + FixedCost(1.0)"
    )
    spread = np.array([0.002, 0.002, 0.002])
    total = abc(TRADES, spread=spread, equity=100.0)
    assert total == pytest.approx(a(TRADES) + b(TRADES, spread=spread) + c(TRADES, equity=100.0))
    assert CompositeCost([ab, CompositeCost([c])]).models == (a, b, c)
    with pytest.raises(TypeError):
        CompositeCost([a, 0.1])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        CompositeCost([])
    with pytest.raises(TypeError):
        a + 0.1  # type: ignore[operator]


def test_composite_fallbacks():
    quoted_fb = SpreadCost(fallback_spread=0.01)
    impact_fb = SquareRootImpact(fallback_volatility=0.02)
    assert (quoted_fb + impact_fb).fallbacks == frozenset({"spread", "volatility"})
    assert (quoted_fb + SpreadCost()).fallbacks == frozenset()
    assert (impact_fb + SquareRootImpact()).fallbacks == frozenset()
    assert (quoted_fb + ProportionalCost(0.1)).fallbacks == frozenset({"spread"})


@pytest.mark.parametrize(
    ("factory", "error"),
    [
        (lambda: ProportionalCost(-0.1), ValueError),
        (lambda: ProportionalCost([0.1, np.nan]), ValueError),
        (lambda: ProportionalCost(np.inf), ValueError),
        (lambda: ProportionalCost([]), ValueError),
        (lambda: ProportionalCost([[0.1]]), ValueError),
        (lambda: ProportionalCost("x"), TypeError),
        (lambda: ProportionalCost(True), TypeError),
        (lambda: SpreadCost(-0.001), ValueError),
        (lambda: SpreadCost(0.001, fallback_spread=0.002), ValueError),
        (lambda: SpreadCost(fallback_spread=-1.0), ValueError),
        (lambda: SpreadCost(fallback_spread=[0.1]), ValueError),
        (lambda: FixedCost(-1.0), ValueError),
        (lambda: FixedCost(np.array([1.0])), ValueError),
        (lambda: FixedCost(1.0, threshold=-1e-6), ValueError),
        (lambda: FixedCost(1.0, threshold=[0.1]), ValueError),
        (lambda: SquareRootImpact(-0.5), ValueError),
        (lambda: SquareRootImpact([0.5]), ValueError),
        (lambda: SquareRootImpact(np.nan), ValueError),
        (lambda: SquareRootImpact(fallback_volatility=np.inf), ValueError),
        (lambda: SquareRootImpact(fallback_volatility=(0.1,)), ValueError),
    ],
)
def test_parameter_errors(factory, error):
    with pytest.raises(error):
        factory()


def test_as_cost_model():
    model = SpreadCost()
    assert as_cost_model(model) is model
    prop = as_cost_model(0.002)
    assert isinstance(prop, ProportionalCost) and prop.rate[0] == 0.002
    assert isinstance(as_cost_model(np.float32(0.5)), ProportionalCost)
    assert isinstance(as_cost_model(0), ProportionalCost)
    for bad in (-0.1, [0.1]):
        with pytest.raises(ValueError):
            as_cost_model(bad)
    for bad in (True, "0.1", None):
        with pytest.raises(TypeError):
            as_cost_model(bad)


def test_models_pickle_and_copy():
    model = ProportionalCost([0.1, 0.2]) + SquareRootImpact(fallback_volatility=0.01)
    for clone in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert repr(clone) == repr(model) and clone.fallbacks == model.fallbacks


def test_abstract_base():
    with pytest.raises(TypeError):
        CostModel()  # type: ignore[abstract]


def test_keywords_and_context_price_alike():
    model = ProportionalCost(0.001) + FixedCost(5.0) + SpreadCost()
    context = CostContext(equity=1e6, spread=np.array([0.002, 0.004, 0.001]))
    assert model.price(TRADES, context) == model(TRADES, equity=1e6, spread=context.spread)
    assert context.given() == {"equity": 1e6, "spread": context.spread}
    assert CostContext().given() == {}
    with pytest.raises(AttributeError):
        context.equity = 2.0  # type: ignore[misc]
    with pytest.raises(ValueError, match="'equity' context"):
        FixedCost(5.0).price(TRADES, CostContext())


class KeywordCost(CostModel):
    """A model written in the keyword form: it defines ``__call__``, not ``price``."""

    requires = frozenset({"equity"})

    def __call__(self, trades, **context):
        return float(np.abs(trades).sum()) / context["equity"]


def test_a_model_in_the_keyword_form_prices_through_its_call():
    model = KeywordCost()
    assert model(TRADES, equity=2.0) == pytest.approx(0.2)
    assert model.price(TRADES, CostContext(equity=2.0)) == pytest.approx(0.2)
    both = model + ProportionalCost(0.001)
    assert both(TRADES, equity=2.0) == pytest.approx(0.2 + 0.0004)


class DoubledCost(ProportionalCost):
    """A built-in model whose ``__call__`` wraps the inherited one."""

    def __call__(self, trades, **context):
        return 2.0 * super().__call__(trades, **context)


def test_a_built_in_model_with_its_own_call_keeps_its_price():
    model = DoubledCost(0.001)
    assert model(TRADES) == pytest.approx(0.0008)
    assert model.price(TRADES, CostContext()) == pytest.approx(0.0004)


# -- batched evaluation -------------------------------------------------------------------

IMPACT_KEYS = {"equity", "volatility", "volume"}
MODELS = [
    (lambda n: NoCost(), set()),
    (lambda n: ProportionalCost(0.001), set()),
    (lambda n: ProportionalCost(np.linspace(0.0, 0.004, n)), set()),
    (lambda n: SpreadCost(0.0002), set()),
    (lambda n: SpreadCost(fallback_spread=0.003), {"spread"}),
    (lambda n: FixedCost(3.0), {"equity"}),
    (lambda n: SquareRootImpact(0.7, fallback_volatility=0.01), IMPACT_KEYS),
    (
        lambda n: (
            ProportionalCost(0.001) + SquareRootImpact(fallback_volatility=0.02) + FixedCost(2.0)
        ),
        IMPACT_KEYS,
    ),
]


def _context(rng: np.random.Generator, shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    spread = rng.uniform(0, 0.01, shape)
    spread[rng.random(shape) < 0.2] = np.nan
    vol = rng.uniform(0, 0.05, shape)
    vol[rng.random(shape) < 0.2] = -1.0
    volume = rng.uniform(0, 1e6, shape)
    volume[rng.random(shape) < 0.1] = 0.0
    return {
        "equity": rng.uniform(0, 1e6, shape[:-1]),
        "volatility": vol,
        "volume": volume,
        "spread": spread,
    }


@pytest.mark.parametrize(("factory", "keys"), MODELS)
@pytest.mark.parametrize("n_assets", [1, 4, 9])
def test_batched_rows_equal_single_calls_bitwise(factory, keys, n_assets):
    model = factory(n_assets)
    rng = np.random.default_rng(n_assets)
    trades = rng.normal(0, 0.2, (64, n_assets))
    trades[rng.random(trades.shape) < 0.3] = 0.0
    ctx = {k: v for k, v in _context(rng, trades.shape).items() if k in keys}
    batched = model(trades, **ctx)
    assert batched.shape == (64,)
    rows = [model(trades[i], **{k: v[i] for k, v in ctx.items()}) for i in range(64)]
    assert all(isinstance(r, float) for r in rows)
    np.testing.assert_array_equal(batched, rows)
    stacked = model(
        trades.reshape(8, 8, n_assets), **{k: v.reshape(8, 8, *v.shape[1:]) for k, v in ctx.items()}
    )
    np.testing.assert_array_equal(stacked.reshape(-1), batched)


finite = st.floats(-1, 1, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    trades=hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 6)), elements=finite),
    rate=st.floats(0, 0.01),
    half=st.floats(0, 0.01),
    amount=st.floats(0, 10),
)
def test_composite_is_the_sum_and_associative(trades, rate, half, amount):
    a, b, c = ProportionalCost(rate), SpreadCost(half), FixedCost(amount)
    equity = np.full(trades.shape[:-1], 1000.0)
    left, right = (a + b) + c, a + (b + c)
    assert left.models == right.models
    total = left(trades, equity=equity)
    parts = a(trades) + b(trades) + c(trades, equity=equity)
    np.testing.assert_allclose(total, parts, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(total, right(trades, equity=equity))
    assert (total >= 0).all()
