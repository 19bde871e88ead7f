"""Tests for sekai.finance.simulators: Simulation, MarketModel, GBM and the GBM helpers."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from sekai.finance import GBM, MarketModel, Simulation
from sekai.finance.simulators import random_correlation, sample_window, simulate_gbm

CORR = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.3], [0.2, 0.3, 1.0]])


# -- Simulation ---------------------------------------------------------------------------


def test_simulation_shapes():
    sim = Simulation(np.ones((5, 2)))
    assert sim.mask is None and sim.state == {} and sim.prices.dtype == np.float64
    paths = Simulation(
        np.ones((3, 5, 2)), mask=np.ones((3, 5, 2), bool), state={"v": np.zeros((3, 5))}
    )
    assert paths.state["v"].shape == (3, 5)
    with pytest.raises(AttributeError):
        sim.prices = np.ones((2, 2))  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"prices": np.ones(5)}, ValueError),
        ({"prices": np.ones((2, 2, 2, 2))}, ValueError),
        ({"prices": np.ones((5, 2)), "mask": np.ones((5, 3), bool)}, ValueError),
        ({"prices": np.ones((5, 2)), "mask": np.ones((5, 2))}, TypeError),
        ({"prices": np.ones((5, 2)), "state": {"v": np.ones(4)}}, ValueError),
        ({"prices": np.ones((3, 5, 2)), "state": {"v": np.ones((5, 3))}}, ValueError),
    ],
)
def test_simulation_errors(kwargs, error):
    with pytest.raises(error):
        Simulation(**kwargs)


def test_market_model_is_abstract():
    with pytest.raises(TypeError):
        MarketModel()  # type: ignore[abstract]

    class Flat(MarketModel):
        n_assets = 1  # type: ignore[assignment]
        dt = 1.0  # type: ignore[assignment]

        def simulate(self, rng, n_steps, *, n_paths=None):
            return Simulation(np.ones((n_steps + 1, 1)))

    assert Flat().state_spec() == {}


# -- GBM ----------------------------------------------------------------------------------


def test_gbm_defaults_and_repr():
    model = GBM()
    assert model.n_assets == 1 and model.dt == 1 / 252
    assert model.corr is None
    np.testing.assert_array_equal(model.sigma, [0.2])
    assert repr(model) == "GBM(n_assets=1, mu=0.0, sigma=0.2, s0=100.0, corr=None, dt=1/252)"
    many = GBM(mu=[0.1, 0.2, 0.3], corr=CORR, dt=0.01)
    assert repr(many) == (
        "GBM(n_assets=3, mu=[0.1, 0.2, 0.3], sigma=0.2, s0=100.0, corr=<3x3>, dt=1/100)"
    )
    assert repr(GBM(dt=0.3)).endswith("dt=0.3)")


def test_gbm_parameters_are_read_only_and_broadcast():
    model = GBM(mu=0.05, sigma=[0.1, 0.2], s0=50)
    assert model.n_assets == 2
    for arr in (model.mu, model.sigma, model.s0):
        assert arr.shape == (2,) and arr.dtype == np.float64 and not arr.flags.writeable
    np.testing.assert_array_equal(model.s0, [50.0, 50.0])
    assert GBM(n_assets=4).mu.shape == (4,)
    assert GBM(corr=np.eye(2)).n_assets == 2


def test_gbm_is_immutable_and_pickles():
    model = GBM(mu=[0.1, 0.2], corr=[[1.0, 0.3], [0.3, 1.0]])
    with pytest.raises(AttributeError):
        model.mu = np.zeros(2)
    with pytest.raises(AttributeError):
        model.new = 1
    with pytest.raises(AttributeError):
        del model.sigma
    for clone in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert repr(clone) == repr(model)
        assert not clone.mu.flags.writeable
        a = model.simulate(np.random.default_rng(3), 4).prices
        b = clone.simulate(np.random.default_rng(3), 4).prices
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"sigma": -0.1}, ValueError),
        ({"mu": np.nan}, ValueError),
        ({"mu": [[0.1]]}, ValueError),
        ({"s0": 0.0}, ValueError),
        ({"s0": [1.0, -1.0]}, ValueError),
        ({"dt": 0.0}, ValueError),
        ({"dt": np.inf}, ValueError),
        ({"dt": [0.1]}, TypeError),
        ({"dt": "daily"}, TypeError),
        ({"mu": "x"}, TypeError),
        ({"mu": [0.1, 0.2], "sigma": [0.1, 0.2, 0.3]}, ValueError),
        ({"mu": [0.1, 0.2], "n_assets": 3}, ValueError),
        ({"corr": np.eye(3), "n_assets": 2}, ValueError),
        ({"n_assets": 0}, ValueError),
        ({"n_assets": 2.0}, TypeError),
        ({"n_assets": True}, TypeError),
        ({"corr": np.ones(3)}, ValueError),
        ({"corr": np.ones((2, 3))}, ValueError),
        ({"corr": [[1.0, 0.5], [0.4, 1.0]]}, ValueError),
        ({"corr": [[2.0, 0.0], [0.0, 2.0]]}, ValueError),
        ({"corr": [[1.0, np.nan], [np.nan, 1.0]]}, ValueError),
        ({"corr": [[1.0, 1.0], [1.0, 1.0]]}, ValueError),
        ({"corr": [[1.0, 2.0], [2.0, 1.0]]}, ValueError),
    ],
)
def test_gbm_errors(kwargs, error):
    with pytest.raises(error):
        GBM(**kwargs)


def test_gbm_simulate_shapes_and_counts():
    model = GBM(mu=[0.0, 0.1])
    sim = model.simulate(np.random.default_rng(0), 10)
    assert sim.prices.shape == (11, 2) and sim.mask is None and sim.state == {}
    np.testing.assert_array_equal(sim.prices[0], [100.0, 100.0])
    assert model.simulate(np.random.default_rng(0), 10, n_paths=1).prices.shape == (1, 11, 2)
    sim = model.simulate(np.random.default_rng(0), np.int64(3), n_paths=np.int32(4))
    assert sim.prices.shape == (4, 4, 2)
    for bad, error in ((0, ValueError), (2.0, TypeError), (True, TypeError)):
        with pytest.raises(error):
            model.simulate(np.random.default_rng(0), bad)
        with pytest.raises(error):
            model.simulate(np.random.default_rng(0), 3, n_paths=bad)


def test_gbm_matches_formula_and_simulate_gbm():
    mu, sigma, s0, dt = np.array([0.05, -0.1]), np.array([0.2, 0.4]), np.array([10.0, 20.0]), 0.1
    model = GBM(mu, sigma, s0=s0, dt=dt)
    z = np.random.default_rng(5).standard_normal((6, 2))
    expected = s0 * np.exp(np.cumsum((mu - sigma**2 / 2) * dt + sigma * np.sqrt(dt) * z, axis=0))
    prices = model.simulate(np.random.default_rng(5), 6).prices
    np.testing.assert_allclose(prices[1:], expected, rtol=1e-13)
    helper = simulate_gbm(np.random.default_rng(5), 6, s0=s0, mu=mu, sigma=sigma, dt=dt)
    np.testing.assert_array_equal(prices, helper)
    one = GBM().simulate(np.random.default_rng(9), 50).prices[:, 0]
    np.testing.assert_array_equal(one, simulate_gbm(np.random.default_rng(9), 50))
    corr_model = GBM(sigma=0.3, corr=CORR)
    np.testing.assert_array_equal(
        corr_model.simulate(np.random.default_rng(2), 20).prices,
        simulate_gbm(np.random.default_rng(2), 20, sigma=0.3, corr=CORR),
    )


def test_gbm_paths_draw_once_in_path_major_order():
    model = GBM(mu=0.1, sigma=0.3, corr=CORR)
    paths = model.simulate(np.random.default_rng(4), 5, n_paths=3).prices
    z = np.random.default_rng(4).standard_normal((3, 5, 3)) @ np.linalg.cholesky(CORR).T
    log = np.cumsum((0.1 - 0.045) / 252 + 0.3 * np.sqrt(1 / 252) * z, axis=1)
    np.testing.assert_allclose(paths[:, 1:], 100.0 * np.exp(log), rtol=1e-12)


def test_gbm_log_normal_moments():
    mu, sigma, dt, n = 0.08, 0.25, 1 / 12, 12
    model = GBM(mu, sigma, corr=None, dt=dt, n_assets=2)
    prices = model.simulate(np.random.default_rng(123), n, n_paths=20000).prices
    log_growth = np.log(prices[:, -1] / prices[:, 0])
    horizon = n * dt
    se_mean = sigma * np.sqrt(horizon) / np.sqrt(log_growth.size)
    assert abs(log_growth.mean() - (mu - sigma**2 / 2) * horizon) < 4 * se_mean
    assert log_growth.var() == pytest.approx(sigma**2 * horizon, rel=0.03)
    growth = prices[:, -1] / prices[:, 0]
    assert growth.mean() == pytest.approx(np.exp(mu * horizon), rel=0.01)


def test_gbm_correlated_increments():
    model = GBM(sigma=0.2, corr=CORR)
    prices = model.simulate(np.random.default_rng(0), 20000).prices
    increments = np.diff(np.log(prices), axis=0)
    np.testing.assert_allclose(np.corrcoef(increments.T), CORR, atol=0.03)


def test_gbm_zero_sigma_is_deterministic():
    prices = GBM(mu=0.1, sigma=0.0, dt=0.5).simulate(np.random.default_rng(0), 4).prices[:, 0]
    np.testing.assert_allclose(prices, 100.0 * np.exp(0.05 * np.arange(5)))


# -- helpers ------------------------------------------------------------------------------


def test_simulate_gbm_shapes():
    g = np.random.default_rng
    assert simulate_gbm(g(0), 5).shape == (6,)
    assert simulate_gbm(g(0), 5, mu=[0.1]).shape == (6, 1)
    assert simulate_gbm(g(0), 5, s0=[1.0, 2.0]).shape == (6, 2)
    assert simulate_gbm(g(0), 5, corr=CORR).shape == (6, 3)
    path = simulate_gbm(g(0), 5, s0=42.0)
    assert path[0] == 42.0
    # one (n_steps, n) draw: the generator advances exactly that much
    gen = g(1)
    simulate_gbm(gen, 7, sigma=[0.1, 0.2])
    ref = g(1)
    ref.standard_normal((7, 2))
    assert gen.random() == ref.random()


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"sigma": -0.2}, ValueError),
        ({"sigma": [[0.2]]}, ValueError),
        ({"mu": np.ones((2, 2))}, ValueError),
        ({"s0": 0.0}, ValueError),
        ({"dt": -1.0}, ValueError),
        ({"corr": np.eye(2), "mu": [0.1, 0.2, 0.3]}, ValueError),
        ({"corr": np.ones((2, 2))}, ValueError),
    ],
)
def test_simulate_gbm_errors(kwargs, error):
    with pytest.raises(error):
        simulate_gbm(np.random.default_rng(0), 5, **kwargs)


def test_random_correlation_formula():
    c = random_correlation(np.random.default_rng(0), 5, strength=0.6)
    f = np.random.default_rng(0).standard_normal((5, 2)) * 0.6
    cov = f @ f.T + (1 - 0.36) * np.eye(5)
    d = np.sqrt(np.diag(cov))
    np.testing.assert_array_equal(c, cov / np.outer(d, d))
    np.testing.assert_allclose(np.diag(c), 1.0, atol=1e-12)
    np.testing.assert_allclose(c, c.T, atol=1e-12)
    assert np.linalg.eigvalsh(c).min() > 0
    GBM(corr=c)  # accepted as a correlation matrix
    assert random_correlation(np.random.default_rng(0), 1).shape == (1, 1)
    np.testing.assert_allclose(
        random_correlation(np.random.default_rng(0), 4, strength=0.0), np.eye(4)
    )
    for bad, error in ((0, ValueError), (2.0, TypeError)):
        with pytest.raises(error):
            random_correlation(np.random.default_rng(0), bad)
    with pytest.raises(ValueError):
        random_correlation(np.random.default_rng(0), 3, strength=1.0)


def test_sample_window():
    prices = np.arange(10)
    window = sample_window(np.random.default_rng(3), prices, 4)
    start = int(np.random.default_rng(3).integers(0, 7))
    np.testing.assert_array_equal(window, np.arange(start, start + 4))
    assert window.dtype == np.float64
    panel = np.arange(20.0).reshape(10, 2)
    out = sample_window(np.random.default_rng(0), panel, 10)
    np.testing.assert_array_equal(out, panel)
    out[0, 0] = -1
    assert panel[0, 0] == 0.0  # a copy
    with pytest.raises(ValueError):
        sample_window(np.random.default_rng(0), prices, 11)
    with pytest.raises(ValueError):
        sample_window(np.random.default_rng(0), prices, 0)
