"""Tests for sekai.finance.account."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sekai.finance import AccountConfig, Settlement
from sekai.finance.account import project_weights, settle, turnover

LONG = AccountConfig()
SHORT = AccountConfig(allow_short=True, max_leverage=2.0)


def test_account_config_defaults():
    config = AccountConfig()
    assert (config.allow_short, config.max_leverage, config.cash_rate) == (False, 1.0, 0.0)
    assert config.margin_rate is None and config.borrow_rate == 0.0
    assert config.effective_margin_rate == 0.0
    assert AccountConfig(cash_rate=0.02).effective_margin_rate == 0.02
    assert AccountConfig(cash_rate=0.02, margin_rate=0.05).effective_margin_rate == 0.05
    assert AccountConfig(max_leverage=2).max_leverage == 2.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.max_leverage = 3.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"max_leverage": 0.0}, ValueError),
        ({"max_leverage": -1.0}, ValueError),
        ({"max_leverage": np.inf}, ValueError),
        ({"cash_rate": np.nan}, ValueError),
        ({"margin_rate": np.inf}, ValueError),
        ({"borrow_rate": -0.01}, ValueError),
        ({"cash_rate": "1%"}, TypeError),
        ({"max_leverage": True}, TypeError),
        ({"allow_short": 1}, TypeError),
    ],
)
def test_account_config_errors(kwargs, error):
    with pytest.raises(error):
        AccountConfig(**kwargs)


def test_project_weights_long_only():
    scores = np.array([0.2, 0.6, 0.2])
    np.testing.assert_allclose(project_weights(scores, [True, True, True], LONG), scores)
    np.testing.assert_allclose(project_weights(scores, [True, False, True], LONG), [0.5, 0.0, 0.5])
    np.testing.assert_allclose(
        project_weights(scores, [1, 1, 1], LONG, cash_score=1.0), [0.1, 0.3, 0.1]
    )
    np.testing.assert_allclose(
        project_weights([-1.0, 1.0, 3.0], [True] * 3, LONG, cash_score=-5.0), [0, 0.25, 0.75]
    )
    np.testing.assert_array_equal(project_weights([0.0, 0.0], [True, True], LONG), [0.0, 0.0])
    np.testing.assert_array_equal(
        project_weights([0.0, 0.0], [True, True], LONG, cash_score=1.0), [0.0, 0.0]
    )
    levered = AccountConfig(max_leverage=1.5)
    np.testing.assert_allclose(project_weights([1.0, 1.0], [True, True], levered), [0.75, 0.75])


def test_project_weights_short():
    config = AccountConfig(allow_short=True, max_leverage=1.0)
    np.testing.assert_allclose(project_weights([0.3, -0.2], [True, True], config), [0.3, -0.2])
    np.testing.assert_allclose(
        project_weights([3.0, -1.0], [True, True], config), [0.5, -0.5]
    )  # clipped to [-1, 1], then scaled by 1/2
    np.testing.assert_allclose(
        project_weights([1.5, -1.0, 4.0], [True, True, False], SHORT), [1.2, -0.8, 0.0]
    )


def test_project_weights_batched():
    scores = np.array([[0.2, 0.6, 0.2], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    tradable = np.array([[True, True, True], [True, True, False], [True, True, True]])
    out = project_weights(scores, tradable, LONG, cash_score=np.array([0.0, 1.0, 0.0]))
    np.testing.assert_allclose(out, [[0.2, 0.6, 0.2], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]])


def test_settle_hand_computed():
    config = AccountConfig(cash_rate=0.05, margin_rate=0.08, borrow_rate=0.02)
    w = np.array([0.5, 0.2])
    r = np.array([0.1, -0.05])
    s = settle(w, r, cost=0.001, dt=0.1, config=config)
    cash = 0.3
    financing = cash * 0.05 * 0.1
    gross = 1 + 0.05 - 0.01 + financing
    assert isinstance(s, Settlement)
    assert isinstance(s.growth, float) and isinstance(s.wiped_out, bool)
    assert s.financing == pytest.approx(financing)
    assert s.growth == pytest.approx(0.999 * gross)
    np.testing.assert_allclose(s.drifted, w * (1 + r) / gross)
    assert not s.wiped_out


def test_settle_margin_and_borrow():
    config = AccountConfig(
        allow_short=True, max_leverage=3, cash_rate=0.01, margin_rate=0.06, borrow_rate=0.03
    )
    w = np.array([1.5, -0.2])
    s = settle(w, np.array([0.0, 0.0]), cost=0.0, dt=1.0, config=config)
    cash = 1 - 1.3
    assert s.financing == pytest.approx(cash * 0.06 - 0.03 * 0.2)
    assert s.growth == pytest.approx(1 + s.financing)


def test_settle_nan_returns_and_wipe_out():
    s = settle(np.array([1.0, 0.0]), np.array([0.1, np.nan]), cost=0.0, dt=0.0, config=LONG)
    assert s.growth == pytest.approx(1.1)
    np.testing.assert_allclose(s.drifted, [1.0, 0.0])
    crash = settle(np.array([2.0]), np.array([-0.6]), cost=0.0, dt=0.0, config=SHORT)
    assert crash.wiped_out and crash.growth == pytest.approx(-0.2)
    np.testing.assert_array_equal(crash.drifted, [0.0])
    ruinous = settle(np.array([0.5]), np.array([0.1]), cost=1.0, dt=0.0, config=LONG)
    assert ruinous.growth == 0.0 and ruinous.wiped_out
    np.testing.assert_array_equal(ruinous.drifted, [0.0])


def test_settle_batched_equals_rows():
    rng = np.random.default_rng(0)
    config = AccountConfig(
        allow_short=True, max_leverage=2, cash_rate=0.02, margin_rate=0.05, borrow_rate=0.01
    )
    w = rng.uniform(-1, 1, (50, 4))
    r = rng.normal(0, 0.3, (50, 4))
    r[rng.random(r.shape) < 0.1] = np.nan
    cost = rng.uniform(0, 0.01, 50)
    cost[0] = 1.5
    s = settle(w, r, cost=cost, dt=1 / 252, config=config)
    assert s.growth.shape == (50,) and s.drifted.shape == (50, 4) and s.wiped_out.dtype == bool
    for i in range(50):
        row = settle(w[i], r[i], cost=cost[i], dt=1 / 252, config=config)
        assert row.growth == s.growth[i] and row.financing == s.financing[i]
        assert row.wiped_out == s.wiped_out[i]
        np.testing.assert_array_equal(row.drifted, s.drifted[i])


def test_turnover():
    assert turnover([0.5, 0.5], [0.2, 0.9]) == pytest.approx(0.7)
    assert isinstance(turnover([0.5], [0.2]), float)
    np.testing.assert_allclose(turnover(np.ones((3, 2)), np.zeros((3, 2))), [2.0, 2.0, 2.0])


@settings(max_examples=80, deadline=None)
@given(
    scores=hnp.arrays(np.float64, st.integers(1, 8), elements=st.floats(-5, 5)),
    data=st.data(),
    short=st.booleans(),
    leverage=st.floats(0.1, 4.0),
)
def test_project_weights_respect_limits(scores, data, short, leverage):
    tradable = data.draw(hnp.arrays(bool, scores.shape))
    config = AccountConfig(allow_short=short, max_leverage=leverage)
    w = project_weights(scores, tradable, config)
    assert (w[~tradable] == 0).all()
    assert np.abs(w).sum() <= leverage * (1 + 1e-12)
    if not short:
        assert (w >= 0).all()
