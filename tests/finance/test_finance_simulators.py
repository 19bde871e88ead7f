"""Tests for sekai.finance.simulators: Simulation, MarketModel, the market models and helpers."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest

from sekai.finance import GBM, MarketModel, Simulation
from sekai.finance.simulators import (
    GARCH,
    BlockBootstrap,
    CointegratedPair,
    Heston,
    ListingProcess,
    MeanReverting,
    MertonJumpDiffusion,
    Randomized,
    RegimeSwitching,
    random_correlation,
    sample_window,
    simulate_gbm,
)

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
        ({"prices": np.ones((5, 2)), "mask": np.ones((5, 2))}, ValueError),
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
        ({"dt": [0.1]}, ValueError),
        ({"dt": "daily"}, TypeError),
        ({"mu": "x"}, TypeError),
        ({"mu": [0.1, 0.2], "sigma": [0.1, 0.2, 0.3]}, ValueError),
        ({"mu": [0.1, 0.2], "n_assets": 3}, ValueError),
        ({"corr": np.eye(3), "n_assets": 2}, ValueError),
        ({"n_assets": 0}, ValueError),
        ({"n_assets": 2.5}, TypeError),
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
    whole = model.simulate(np.random.default_rng(0), 3.0, n_paths=4.0)
    np.testing.assert_array_equal(whole.prices, sim.prices)
    for bad, error in ((0, ValueError), (2.5, TypeError), (True, TypeError)):
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


@pytest.mark.parametrize("corr", [CORR, None])
def test_gbm_prices_into_buffers_are_simulate_number_for_number(corr: np.ndarray | None) -> None:
    model = GBM(mu=[0.1, 0.0, -0.2], sigma=[0.3, 0.1, 0.5], corr=corr, s0=[100.0, 5.0, 1.0])
    expected = model.simulate(np.random.default_rng(9), 40, n_paths=6).prices
    prices, work, spare = np.zeros((6, 41, 3)), np.zeros((6, 40, 3)), np.zeros((6, 40, 3))
    model._prices_into(np.random.default_rng(9), prices, work, spare)
    assert np.array_equal(prices.view(np.uint64), expected.view(np.uint64))


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
    np.testing.assert_array_equal(
        random_correlation(np.random.default_rng(0), 3.0),
        random_correlation(np.random.default_rng(0), 3),
    )
    for bad, error in ((0, ValueError), (2.5, TypeError)):
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


# -- reference implementations of the other models ---------------------------------------
# Each draws from a fresh generator in the documented order and shapes, then steps through
# paths, steps and assets one scalar at a time. Results carry a paths axis of size P.

SEEDS = (0, 1, 7)
PATHS = (None, 1, 3)
CORR2 = np.array([[1.0, -0.4], [-0.4, 1.0]])


def _paths(n_paths):
    return () if n_paths is None else (n_paths,)


def _with_paths(arr, n_paths):
    return arr[None] if n_paths is None else arr


def _cholesky(model):
    return np.eye(model.n_assets) if model.corr is None else np.linalg.cholesky(model.corr)


def _first_above(probabilities, u):
    total = 0.0
    for k, p in enumerate(probabilities):
        total += p
        if u < total:
            return k
    return len(probabilities) - 1


def ref_heston(model, seed, n_steps, n_paths):
    n, dt = model.n_assets, model.dt
    z = np.random.default_rng(seed).standard_normal((*_paths(n_paths), n_steps, 2, n))
    z = z.reshape(-1, n_steps, 2, n)
    chol = _cholesky(model)
    prices = np.empty((len(z), n_steps + 1, n))
    variance = np.empty_like(prices)
    for p in range(len(z)):
        x, v = np.zeros(n), model.v0.copy()
        prices[p, 0] = model.s0
        for t in range(n_steps):
            z1 = chol @ z[p, t, 0]
            for i in range(n):
                vp = max(v[i], 0.0)
                variance[p, t, i] = vp
                rho = model.rho[i]
                z2 = rho * z1[i] + math.sqrt(1 - rho**2) * z[p, t, 1, i]
                x[i] += (model.mu[i] - vp / 2) * dt + math.sqrt(vp * dt) * z1[i]
                v[i] += model.kappa[i] * (model.theta[i] - vp) * dt
                v[i] += model.xi[i] * math.sqrt(vp * dt) * z2
                prices[p, t + 1, i] = model.s0[i] * math.exp(x[i])
        variance[p, n_steps] = np.maximum(v, 0.0)
    return prices, {"variance": variance}


def ref_merton(model, seed, n_steps, n_paths):
    n, dt = model.n_assets, model.dt
    rng = np.random.default_rng(seed)
    shape = (*_paths(n_paths), n_steps, n)
    z = rng.standard_normal(shape).reshape(-1, n_steps, n)
    counts = rng.poisson(model.jump_intensity * dt, shape).reshape(-1, n_steps, n)
    w = rng.standard_normal(shape).reshape(-1, n_steps, n)
    chol = _cholesky(model)
    prices = np.empty((len(z), n_steps + 1, n))
    jumps = np.zeros_like(prices)
    for p in range(len(z)):
        x = np.zeros(n)
        prices[p, 0] = model.s0
        for t in range(n_steps):
            zc = chol @ z[p, t]
            for i in range(n):
                m, s, lam = model.jump_mean[i], model.jump_std[i], model.jump_intensity[i]
                k = math.exp(m + s**2 / 2) - 1
                big_n = counts[p, t, i]
                x[i] += (model.mu[i] - model.sigma[i] ** 2 / 2 - lam * k) * dt
                x[i] += model.sigma[i] * math.sqrt(dt) * zc[i]
                x[i] += big_n * m + math.sqrt(big_n) * s * w[p, t, i]
                prices[p, t + 1, i] = model.s0[i] * math.exp(x[i])
                jumps[p, t + 1, i] = big_n
    return prices, {"jumps": jumps}


def ref_regimes(model, seed, n_steps, n_paths):
    n, dt = model.n_assets, model.dt
    rng = np.random.default_rng(seed)
    paths = _paths(n_paths)
    u0 = rng.random(paths).reshape(-1)
    u = rng.random((*paths, n_steps)).reshape(-1, n_steps)
    eps = rng.standard_normal((*paths, n_steps, n)).reshape(-1, n_steps, n)
    prices = np.empty((len(u0), n_steps + 1, n))
    regime = np.empty((len(u0), n_steps + 1))
    for p in range(len(u0)):
        r = _first_above(model.initial, u0[p])
        x = np.zeros(n)
        prices[p, 0] = model.s0
        regime[p, 0] = r
        for t in range(n_steps):
            gbm = model.regimes[r]
            zc = _cholesky(gbm) @ eps[p, t]
            for i in range(n):
                x[i] += (gbm.mu[i] - gbm.sigma[i] ** 2 / 2) * dt
                x[i] += gbm.sigma[i] * math.sqrt(dt) * zc[i]
            prices[p, t + 1] = model.s0 * np.exp(x)
            r = _first_above(model.transition[r], u[p, t])
            regime[p, t + 1] = r
    return prices, {"regime": regime}


def ref_garch(model, seed, n_steps, n_paths):
    n, dt = model.n_assets, model.dt
    z = np.random.default_rng(seed).standard_normal((*_paths(n_paths), n_steps, n))
    z = z.reshape(-1, n_steps, n)
    chol = _cholesky(model)
    prices = np.empty((len(z), n_steps + 1, n))
    variance = np.empty_like(prices)
    for p in range(len(z)):
        x = np.zeros(n)
        h = model.omega / (1 - model.alpha - model.beta)
        prices[p, 0] = model.s0
        variance[p, 0] = h
        for t in range(n_steps):
            zc = chol @ z[p, t]
            for i in range(n):
                eps = math.sqrt(h[i]) * zc[i]
                x[i] += model.mu[i] * dt + eps
                h[i] = model.omega[i] + model.alpha[i] * eps**2 + model.beta[i] * h[i]
                prices[p, t + 1, i] = model.s0[i] * math.exp(x[i])
                variance[p, t + 1, i] = h[i]
    return prices, {"variance": variance}


def ref_mean_reverting(model, seed, n_steps, n_paths):
    n, dt = model.n_assets, model.dt
    z = np.random.default_rng(seed).standard_normal((*_paths(n_paths), n_steps, n))
    z = z.reshape(-1, n_steps, n)
    chol = _cholesky(model)
    prices = np.empty((len(z), n_steps + 1, n))
    for p in range(len(z)):
        y = np.zeros(n)
        prices[p, 0] = model.s0
        for t in range(n_steps):
            zc = chol @ z[p, t]
            for i in range(n):
                th, sig = model.theta[i], model.sigma[i]
                m = math.log(model.mean[i] / model.s0[i])
                scale = sig * math.sqrt((1 - math.exp(-2 * th * dt)) / (2 * th))
                y[i] = m + (y[i] - m) * math.exp(-th * dt) + scale * zc[i]
                prices[p, t + 1, i] = model.s0[i] * math.exp(y[i])
    return prices, {}


def ref_pair(model, seed, n_steps, n_paths):
    dt, th = model.dt, model.theta
    z = np.random.default_rng(seed).standard_normal((*_paths(n_paths), n_steps, 2))
    z = z.reshape(-1, n_steps, 2)
    prices = np.empty((len(z), n_steps + 1, 2))
    spread = np.zeros((len(z), n_steps + 1))
    scale = model.spread_sigma * math.sqrt((1 - math.exp(-2 * th * dt)) / (2 * th))
    for p in range(len(z)):
        x = s = 0.0
        prices[p, 0] = model.s0
        for t in range(n_steps):
            x += (model.mu - model.sigma**2 / 2) * dt + model.sigma * math.sqrt(dt) * z[p, t, 0]
            s = s * math.exp(-th * dt) + scale * z[p, t, 1]
            prices[p, t + 1, 0] = math.exp(math.log(model.s0[0]) + x + s / 2)
            prices[p, t + 1, 1] = math.exp(math.log(model.s0[1]) + x - s / 2)
            spread[p, t + 1] = s
    return prices, {"spread": spread}


def ref_bootstrap(model, seed, n_steps, n_paths):
    b, rows_in = model.block_size, len(model.returns)
    n_blocks = math.ceil(n_steps / b)
    starts = np.random.default_rng(seed).integers(0, rows_in, (*_paths(n_paths), n_blocks))
    starts = starts.reshape(-1, n_blocks)
    prices = np.empty((len(starts), n_steps + 1, model.n_assets))
    for p in range(len(starts)):
        rows = [(int(start) + j) % rows_in for start in starts[p] for j in range(b)]
        x = np.zeros(model.n_assets)
        prices[p, 0] = model.s0
        for t, row in enumerate(rows[:n_steps]):
            x = x + model.returns[row]
            prices[p, t + 1] = model.s0 * np.exp(x)
    return prices, {}


def _listing_chain(listing, u0, u):
    """Listed flags ``(n_steps+1, n)`` of one path, switching assets on by column order."""
    p_list = 1 - math.exp(-listing.listing_rate * listing.dt)
    p_delist = 1 - math.exp(-listing.delisting_rate * listing.dt)

    def floor(flags):
        for i in range(len(flags)):
            if sum(flags) >= listing.min_listed:
                break
            flags[i] = True
        return flags

    flags = floor([bool(v < listing.initial_listed) for v in u0])
    out = [list(flags)]
    for step in u:
        flags = floor(
            [
                bool(v >= p_delist) if on else bool(v < p_list)
                for on, v in zip(flags, step, strict=True)
            ]
        )
        out.append(list(flags))
    return np.array(out)


def ref_listing(model, seed, n_steps, n_paths):
    rng = np.random.default_rng(seed)
    inner = model.model.simulate(rng, n_steps, n_paths=n_paths)
    paths, n = _paths(n_paths), model.n_assets
    u0 = rng.random((*paths, n)).reshape(-1, n)
    u = rng.random((*paths, n_steps, n)).reshape(-1, n_steps, n)
    listed = np.stack([_listing_chain(model, u0[p], u[p]) for p in range(len(u0))])
    inner_mask = np.ones_like(listed) if inner.mask is None else _with_paths(inner.mask, n_paths)
    mask = listed & inner_mask
    prices = np.where(mask, _with_paths(inner.prices, n_paths), np.nan)
    state = {k: _with_paths(v, n_paths) for k, v in inner.state.items()}
    return prices, state, mask


REFERENCE_CASES = {
    "heston": (
        lambda: Heston(
            mu=[0.05, 0.1],
            kappa=[2.0, 4.0],
            theta=0.05,
            xi=[0.9, 0.3],
            rho=[-0.7, 0.3],
            v0=[0.01, 0.09],
            s0=[50.0, 80.0],
            corr=CORR2,
            dt=1 / 52,
        ),
        ref_heston,
    ),
    "heston_truncated": (lambda: Heston(kappa=0.5, xi=3.0, rho=-1.0, v0=0.0, dt=0.1), ref_heston),
    "merton": (
        lambda: MertonJumpDiffusion(
            mu=0.05,
            sigma=[0.2, 0.3, 0.1],
            jump_intensity=[20.0, 0.0, 60.0],
            jump_mean=[-0.05, 0.1, 0.02],
            jump_std=[0.1, 0.2, 0.0],
            corr=CORR,
            dt=1 / 52,
        ),
        ref_merton,
    ),
    "regimes": (
        lambda: RegimeSwitching(
            [
                GBM(mu=0.1, sigma=0.1, s0=[20.0, 30.0], corr=CORR2, dt=0.05),
                GBM(mu=[-0.3, 0.0], sigma=[0.5, 0.2], s0=[20.0, 30.0], dt=0.05),
                GBM(mu=0.0, sigma=0.3, s0=[20.0, 30.0], corr=[[1.0, 0.8], [0.8, 1.0]], dt=0.05),
            ],
            [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.0, 0.4, 0.6]],
        ),
        ref_regimes,
    ),
    "regimes_initial": (
        lambda: RegimeSwitching(
            [GBM(0.2, 0.1), GBM(-0.2, 0.6)], [[0.5, 0.5], [0.0, 1.0]], initial=[0.0, 1.0]
        ),
        ref_regimes,
    ),
    "garch": (
        lambda: GARCH(
            omega=[1e-5, 4e-5, 2e-6],
            alpha=[0.1, 0.3, 0.0],
            beta=[0.85, 0.5, 0.9],
            mu=[0.05, 0.0, -0.1],
            s0=[10.0, 20.0, 30.0],
            corr=CORR,
        ),
        ref_garch,
    ),
    "mean_reverting": (
        lambda: MeanReverting(
            theta=[5.0, 0.5, 20.0],
            mean=[120.0, 80.0, 10.0],
            sigma=[0.2, 0.4, 0.0],
            s0=[100.0, 100.0, 12.0],
            corr=CORR,
            dt=1 / 12,
        ),
        ref_mean_reverting,
    ),
    "pair": (
        lambda: CointegratedPair(0.08, 0.25, 3.0, 0.2, s0=(40.0, 60.0), dt=1 / 52),
        ref_pair,
    ),
    "bootstrap": (
        lambda: BlockBootstrap(
            np.random.default_rng(11).normal(0.0, 0.02, (9, 2)), block_size=4, s0=[5.0, 7.0]
        ),
        ref_bootstrap,
    ),
    "bootstrap_1d": (
        lambda: BlockBootstrap(np.linspace(-0.05, 0.05, 5), block_size=5, dt=0.5),
        ref_bootstrap,
    ),
}


@pytest.mark.parametrize("n_paths", PATHS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", sorted(REFERENCE_CASES))
def test_models_match_step_by_step_reference(case, seed, n_paths):
    build, reference = REFERENCE_CASES[case]
    model = build()
    n_steps = 13
    sim = model.simulate(np.random.default_rng(seed), n_steps, n_paths=n_paths)
    expected_prices, expected_state = reference(model, seed, n_steps, n_paths)
    lead = () if n_paths is None else (n_paths,)
    assert sim.prices.shape == (*lead, n_steps + 1, model.n_assets)
    assert sim.mask is None
    np.testing.assert_allclose(_with_paths(sim.prices, n_paths), expected_prices, rtol=1e-12)
    assert set(sim.state) == set(expected_state) == set(model.state_spec())
    for key, shape in model.state_spec().items():
        value = sim.state[key]
        assert value.dtype == np.float64 and value.shape == (*lead, n_steps + 1, *shape)
        np.testing.assert_allclose(_with_paths(value, n_paths), expected_state[key], rtol=1e-12)


LISTING_CASES = {
    "gbm": lambda: ListingProcess(
        GBM(sigma=[0.1, 0.2, 0.3, 0.4, 0.5], dt=0.1),
        initial_listed=0.5,
        listing_rate=2.0,
        delisting_rate=3.0,
        min_listed=2,
    ),
    "heston_no_floor": lambda: ListingProcess(
        Heston(n_assets=3),
        initial_listed=0.3,
        listing_rate=50.0,
        delisting_rate=80.0,
        min_listed=0,
    ),
    "nested": lambda: ListingProcess(
        ListingProcess(GBM(n_assets=4, dt=0.2), initial_listed=0.6, min_listed=1),
        initial_listed=0.9,
        listing_rate=0.5,
        min_listed=3,
    ),
}


@pytest.mark.parametrize("n_paths", PATHS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("case", sorted(LISTING_CASES))
def test_listing_process_matches_reference(case, seed, n_paths):
    model = LISTING_CASES[case]()
    sim = model.simulate(np.random.default_rng(seed), 15, n_paths=n_paths)
    prices, state, mask = ref_listing(model, seed, 15, n_paths)
    assert sim.mask is not None and sim.mask.dtype == np.bool_
    assert sim.mask.shape == sim.prices.shape
    np.testing.assert_array_equal(_with_paths(sim.mask, n_paths), mask)
    np.testing.assert_array_equal(_with_paths(sim.prices, n_paths), prices)
    assert set(sim.state) == set(state) == set(model.state_spec())
    for key, value in state.items():
        np.testing.assert_array_equal(_with_paths(sim.state[key], n_paths), value)


@pytest.mark.parametrize(
    "build",
    [
        *(case[0] for case in REFERENCE_CASES.values()),
        *LISTING_CASES.values(),
        lambda: Randomized(_random_gbm),
    ],
)
def test_models_without_paths_equal_a_single_path(build):
    model = build()
    one = model.simulate(np.random.default_rng(5), 9)
    stacked = model.simulate(np.random.default_rng(5), 9, n_paths=1)
    np.testing.assert_array_equal(stacked.prices[0], one.prices)
    assert (one.mask is None) == (stacked.mask is None)
    if one.mask is not None:
        np.testing.assert_array_equal(stacked.mask[0], one.mask)
    for key, value in one.state.items():
        np.testing.assert_array_equal(stacked.state[key][0], value)


# -- statistical behaviour ----------------------------------------------------------------


def test_heston_variance_state_is_truncated():
    model = Heston(kappa=0.5, theta=0.02, xi=2.5, v0=0.02, dt=0.05)
    sim = model.simulate(np.random.default_rng(0), 60, n_paths=50)
    variance = sim.state["variance"]
    assert (variance >= 0).all() and (variance == 0).any()
    np.testing.assert_array_equal(variance[:, 0, 0], 0.02)
    assert Heston(theta=0.09).v0.tolist() == [0.09]
    # the price shock is correlated with the variance shock through rho
    lines = Heston(rho=-0.9, xi=0.5).simulate(np.random.default_rng(1), 4000)
    dx = np.diff(np.log(lines.prices[:, 0]))
    dv = np.diff(lines.state["variance"][:, 0])
    assert np.corrcoef(dx, dv)[0, 1] < -0.8


def test_merton_jump_counts_are_poisson():
    lam, dt = np.array([40.0, 5.0]), 0.01
    model = MertonJumpDiffusion(mu=0.1, sigma=0.2, jump_intensity=lam, jump_std=0.05, dt=dt)
    sim = model.simulate(np.random.default_rng(2), 200, n_paths=100)
    jumps = sim.state["jumps"]
    assert (jumps[:, 0] == 0).all() and (jumps == np.round(jumps)).all()
    counts = jumps[:, 1:].reshape(-1, 2)
    se = np.sqrt(lam * dt / len(counts))
    assert (np.abs(counts.mean(axis=0) - lam * dt) < 4 * se).all()
    assert counts.var(axis=0) == pytest.approx(lam * dt, rel=0.05)
    # compensated drift: E[S_T / s0] = exp(mu T)
    growth = sim.prices[:, -1] / sim.prices[:, 0]
    se_growth = growth.std(axis=0) / np.sqrt(len(growth))
    assert (np.abs(growth.mean(axis=0) - np.exp(0.1 * 200 * dt)) < 4 * se_growth).all()
    quiet = MertonJumpDiffusion(jump_intensity=0.0).simulate(np.random.default_rng(0), 50)
    assert (quiet.state["jumps"] == 0).all()


def test_regime_frequencies_match_the_stationary_distribution():
    transition = np.array([[0.9, 0.1], [0.3, 0.7]])
    model = RegimeSwitching([GBM(0.1, 0.1, n_assets=2), GBM(-0.2, 0.4, n_assets=2)], transition)
    np.testing.assert_allclose(model.initial, [0.75, 0.25], atol=1e-12)
    regime = model.simulate(np.random.default_rng(3), 200, n_paths=400).state["regime"]
    assert set(np.unique(regime)) == {0.0, 1.0}
    assert (regime[:, 0] == 1).mean() == pytest.approx(0.25, abs=0.07)
    assert (regime == 1).mean() == pytest.approx(0.25, abs=0.015)
    stays = (regime[:, 1:] == 0) & (regime[:, :-1] == 0)
    assert stays.sum() / (regime[:, :-1] == 0).sum() == pytest.approx(0.9, abs=0.01)
    three = RegimeSwitching(
        [GBM(), GBM(), GBM()], [[0.5, 0.5, 0.0], [0.25, 0.5, 0.25], [0.0, 0.5, 0.5]]
    )
    np.testing.assert_allclose(three.initial, [0.25, 0.5, 0.25], atol=1e-12)
    np.testing.assert_allclose(three.initial @ three.transition, three.initial, atol=1e-12)


def test_regime_sets_the_step_that_follows_it():
    calm, wild = GBM(mu=0.0, sigma=0.0, dt=0.1), GBM(mu=1.0, sigma=0.0, dt=0.1)
    model = RegimeSwitching([calm, wild], [[0.8, 0.2], [0.2, 0.8]])
    sim = model.simulate(np.random.default_rng(4), 40, n_paths=5)
    steps = np.diff(np.log(sim.prices[..., 0]), axis=-1)
    expected = np.where(sim.state["regime"][:, :-1] == 1, 0.1, 0.0)
    np.testing.assert_allclose(steps, expected, atol=1e-12)
    never = RegimeSwitching([calm, wild], [[1.0, 0.0], [0.0, 1.0]], initial=[1.0, 0.0])
    assert (never.simulate(np.random.default_rng(0), 30, n_paths=20).state["regime"] == 0).all()


def test_garch_variance_of_increments():
    model = GARCH(omega=2e-5, alpha=0.1, beta=0.8, mu=0.5, n_assets=2, corr=CORR2)
    np.testing.assert_allclose(model.unconditional_variance, 2e-4)
    assert not model.unconditional_variance.flags.writeable
    sim = model.simulate(np.random.default_rng(5), 200, n_paths=2000)
    eps = np.diff(np.log(sim.prices), axis=1) - 0.5 / 252
    assert eps.var(axis=(0, 1)) == pytest.approx([2e-4, 2e-4], rel=0.03)
    np.testing.assert_allclose(sim.state["variance"][:, 0], 2e-4)
    # h_{t+1} = omega + alpha eps_t^2 + beta h_t along every path
    h = sim.state["variance"]
    np.testing.assert_allclose(h[:, 1:], 2e-5 + 0.1 * eps**2 + 0.8 * h[:, :-1], rtol=1e-10)
    np.testing.assert_allclose(
        np.corrcoef(eps[..., 0].ravel(), eps[..., 1].ravel())[0, 1], -0.4, atol=0.01
    )


def test_mean_reverting_moments():
    theta, sigma, dt, n_steps = 4.0, 0.3, 1 / 52, 26
    model = MeanReverting(theta=theta, mean=[150.0, 60.0], sigma=sigma, s0=100.0, dt=dt)
    y = np.log(model.simulate(np.random.default_rng(6), n_steps, n_paths=4000).prices / 100.0)
    horizon = n_steps * dt
    m = np.log([1.5, 0.6])
    mean = m * (1 - np.exp(-theta * horizon))
    var = sigma**2 / (2 * theta) * (1 - np.exp(-2 * theta * horizon))
    se = np.sqrt(var / 4000)
    assert (np.abs(y[:, -1].mean(axis=0) - mean) < 4 * se).all()
    assert y[:, -1].var(axis=0) == pytest.approx([var, var], rel=0.08)
    # the gap to the target keeps shrinking on average
    gap = np.abs(y.mean(axis=0) - m)
    assert (np.diff(gap, axis=0) < 0).all()
    flat = MeanReverting(theta=2.0, mean=50.0, sigma=0.0, s0=100.0, dt=0.25)
    path = flat.simulate(np.random.default_rng(0), 4).prices[:, 0]
    np.testing.assert_allclose(
        path, 100.0 * np.exp(np.log(0.5) * (1 - np.exp(-0.5 * np.arange(5))))
    )


def test_cointegrated_pair_spread_and_trend():
    model = CointegratedPair(mu=0.1, sigma=0.3, theta=6.0, spread_sigma=0.2, s0=(40.0, 50.0))
    sim = model.simulate(np.random.default_rng(7), 300, n_paths=300)
    logs = np.log(sim.prices / np.array([40.0, 50.0]))
    np.testing.assert_allclose(logs[..., 0] - logs[..., 1], sim.state["spread"], atol=1e-12)
    assert (sim.state["spread"][:, 0] == 0).all()
    stationary = 0.2**2 / (2 * 6.0) * (1 - np.exp(-2 * 6.0 * 300 / 252))
    assert sim.state["spread"][:, -1].var() == pytest.approx(stationary, rel=0.2)
    trend = logs.mean(axis=-1)
    assert np.diff(trend, axis=1).var() == pytest.approx(0.09 / 252, rel=0.03)


def test_block_bootstrap_uses_whole_circular_blocks():
    rows_in, b = 11, 4
    returns = (np.arange(rows_in)[:, None] * 3 + np.arange(3)) * 1e-3 + 1e-4
    model = BlockBootstrap(returns, block_size=b, s0=[1.0, 2.0, 3.0])
    sim = model.simulate(np.random.default_rng(8), 30, n_paths=6)
    increments = np.diff(np.log(sim.prices), axis=1)
    index = np.rint((increments[..., 0] - 1e-4) / 3e-3).astype(int)
    for p in range(6):
        for t in range(30):
            np.testing.assert_allclose(increments[p, t], returns[index[p, t]], atol=1e-12)
            if t % b:
                assert index[p, t] == (index[p, t - 1] + 1) % rows_in
    assert (np.diff(index, axis=1) < 0).any()  # some blocks wrap around
    # one integers draw of ceil(n_steps / b) starts per path
    gen, ref = np.random.default_rng(9), np.random.default_rng(9)
    model.simulate(gen, 30, n_paths=2)
    ref.integers(0, rows_in, (2, 8))
    assert gen.random() == ref.random()
    whole = BlockBootstrap(returns, block_size=rows_in).simulate(np.random.default_rng(0), 11)
    logs = np.log(whole.prices / 100.0)
    assert np.allclose(np.sort(np.diff(logs, axis=0), axis=0), returns, atol=1e-12)


# -- Randomized ---------------------------------------------------------------------------


def _random_gbm(rng):
    return GBM(mu=rng.normal(0.0, 0.5, 2), sigma=rng.uniform(0.1, 0.4))


def _gbm_or_listed(rng):
    base = GBM(n_assets=3, sigma=rng.uniform(0.1, 0.3))
    return ListingProcess(base, min_listed=1) if rng.random() < 0.5 else base


def _random_heston(rng):
    return Heston(theta=rng.uniform(0.01, 0.1), n_assets=2)


def _random_width(rng):
    return GBM(n_assets=int(rng.integers(1, 3)))


def _random_dt(rng):
    return GBM(dt=1 / 252 if rng.random() < 0.5 else 1 / 12)


def _random_kind(rng):
    return Heston() if rng.random() < 0.5 else GBM()


def _sometimes_not_a_model(rng):
    return GBM() if rng.random() > 0.5 else "GBM"


@pytest.mark.parametrize("factory", [_random_gbm, _gbm_or_listed, _random_heston])
@pytest.mark.parametrize("seed", SEEDS)
def test_randomized_builds_and_stacks_one_model_per_path(factory, seed):
    model = Randomized(factory)
    reference = factory(np.random.default_rng(0))
    assert model.n_assets == reference.n_assets and model.dt == reference.dt
    assert model.state_spec() == reference.state_spec()
    sim = model.simulate(np.random.default_rng(seed), 12, n_paths=4)
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(4):
        inner = factory(rng)
        parts.append(inner.simulate(rng, 12))
    np.testing.assert_array_equal(sim.prices, np.stack([s.prices for s in parts]))
    if all(s.mask is None for s in parts):
        assert sim.mask is None
    else:
        masks = [np.ones(s.prices.shape, bool) if s.mask is None else s.mask for s in parts]
        np.testing.assert_array_equal(sim.mask, np.stack(masks))
    for key in reference.state_spec():
        np.testing.assert_array_equal(sim.state[key], np.stack([s.state[key] for s in parts]))
    single = model.simulate(np.random.default_rng(seed), 12)
    rng = np.random.default_rng(seed)
    np.testing.assert_array_equal(single.prices, factory(rng).simulate(rng, 12).prices)


def test_randomized_mixes_masked_and_unmasked_paths():
    sim = Randomized(_gbm_or_listed).simulate(np.random.default_rng(0), 10, n_paths=12)
    rows = sim.mask.all(axis=(1, 2))
    assert rows.any() and not rows.all()
    assert np.isnan(sim.prices).any()
    np.testing.assert_array_equal(np.isnan(sim.prices), ~sim.mask)


@pytest.mark.parametrize("factory", [_random_width, _random_dt, _random_kind])
def test_randomized_refuses_mismatching_models(factory):
    model = Randomized(factory)
    with pytest.raises(ValueError):
        model.simulate(np.random.default_rng(0), 5, n_paths=20)


def test_randomized_type_errors():
    with pytest.raises(TypeError):
        Randomized(GBM())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Randomized(lambda rng: 3.0)  # type: ignore[arg-type,return-value]
    model = Randomized(_sometimes_not_a_model)
    with pytest.raises(TypeError):
        model.simulate(np.random.default_rng(0), 5, n_paths=20)


# -- ListingProcess behaviour -------------------------------------------------------------


def test_listing_long_run_fraction_and_floor():
    dt, rate_on, rate_off = 1 / 12, 2.0, 1.0
    p_on, p_off = 1 - np.exp(-rate_on * dt), 1 - np.exp(-rate_off * dt)
    fraction = p_on / (p_on + p_off)
    model = ListingProcess(
        GBM(n_assets=10, dt=dt),
        initial_listed=fraction,
        listing_rate=rate_on,
        delisting_rate=rate_off,
        min_listed=0,
    )
    sim = model.simulate(np.random.default_rng(10), 100, n_paths=200)
    listed = sim.mask
    lag = 1 - p_on - p_off
    se = np.sqrt(fraction * (1 - fraction) * (1 + lag) / (1 - lag) / listed.size)
    assert abs(listed.mean() - fraction) < 4 * se
    assert abs(listed[:, -1].mean() - fraction) < 0.05
    np.testing.assert_array_equal(np.isnan(sim.prices), ~listed)
    inner = GBM(n_assets=10, dt=dt).simulate(np.random.default_rng(10), 100, n_paths=200)
    np.testing.assert_array_equal(sim.prices[listed], inner.prices[listed])
    floored = ListingProcess(
        GBM(n_assets=6), initial_listed=0.1, listing_rate=0.5, delisting_rate=20.0, min_listed=4
    )
    mask = floored.simulate(np.random.default_rng(11), 200, n_paths=20).mask
    assert (mask.sum(axis=-1) >= 4).all() and (mask.sum(axis=-1) == 4).any()


def test_listing_floor_switches_on_the_lowest_columns():
    frozen = ListingProcess(
        GBM(n_assets=5), initial_listed=0.0, listing_rate=0.0, delisting_rate=0.0, min_listed=3
    )
    mask = frozen.simulate(np.random.default_rng(0), 8, n_paths=2).mask
    np.testing.assert_array_equal(mask, np.broadcast_to([1, 1, 1, 0, 0], mask.shape).astype(bool))
    everyone = ListingProcess(GBM(n_assets=4), initial_listed=1.0, delisting_rate=0.0)
    assert everyone.simulate(np.random.default_rng(0), 8).mask.all()
    nobody = ListingProcess(
        GBM(n_assets=4), initial_listed=0.0, listing_rate=0.0, min_listed=0
    ).simulate(np.random.default_rng(0), 8)
    assert not nobody.mask.any() and np.isnan(nobody.prices).all()


def test_listing_keeps_the_inner_state_and_mask():
    inner_model = ListingProcess(MertonJumpDiffusion(n_assets=4), min_listed=0)
    outer = ListingProcess(inner_model, initial_listed=0.5, min_listed=2)
    assert outer.state_spec() == {"jumps": (4,)} and outer.n_assets == 4
    assert outer.dt == inner_model.dt
    sim = outer.simulate(np.random.default_rng(12), 50, n_paths=3)
    inner = inner_model.simulate(np.random.default_rng(12), 50, n_paths=3)
    np.testing.assert_array_equal(sim.state["jumps"], inner.state["jumps"])
    assert not (sim.mask & ~inner.mask).any()


# -- validation, immutability, pickling, repr ---------------------------------------------


@pytest.mark.parametrize(
    ("cls", "kwargs", "error"),
    [
        (Heston, {"kappa": 0.0}, ValueError),
        (Heston, {"theta": -0.1}, ValueError),
        (Heston, {"xi": 0.0}, ValueError),
        (Heston, {"rho": 1.5}, ValueError),
        (Heston, {"rho": [0.5, -1.01]}, ValueError),
        (Heston, {"v0": -0.01}, ValueError),
        (Heston, {"v0": [0.1, 0.2], "mu": [0.1, 0.2, 0.3]}, ValueError),
        (Heston, {"s0": 0.0}, ValueError),
        (Heston, {"mu": np.inf}, ValueError),
        (Heston, {"rho": "x"}, TypeError),
        (Heston, {"dt": [0.1]}, ValueError),
        (Heston, {"corr": CORR2, "n_assets": 3}, ValueError),
        (Heston, {"corr": [[1.0, 0.9], [0.1, 1.0]]}, ValueError),
        (MertonJumpDiffusion, {"sigma": -0.1}, ValueError),
        (MertonJumpDiffusion, {"jump_intensity": -1.0}, ValueError),
        (MertonJumpDiffusion, {"jump_std": -0.1}, ValueError),
        (MertonJumpDiffusion, {"jump_mean": np.nan}, ValueError),
        (MertonJumpDiffusion, {"jump_mean": [0.1, 0.2], "sigma": [0.1, 0.2, 0.3]}, ValueError),
        (MertonJumpDiffusion, {"s0": -1.0}, ValueError),
        (MertonJumpDiffusion, {"dt": 0.0}, ValueError),
        (MertonJumpDiffusion, {"n_assets": 0}, ValueError),
        (GARCH, {"omega": 0.0}, ValueError),
        (GARCH, {"omega": -1e-6}, ValueError),
        (GARCH, {"alpha": -0.1}, ValueError),
        (GARCH, {"beta": -0.1}, ValueError),
        (GARCH, {"alpha": 0.5, "beta": 0.5}, ValueError),
        (GARCH, {"alpha": [0.1, 0.5], "beta": [0.8, 0.6]}, ValueError),
        (GARCH, {"mu": np.inf}, ValueError),
        (GARCH, {"corr": [[1.0, 1.0], [1.0, 1.0]]}, ValueError),
        (GARCH, {"n_assets": 2.5}, TypeError),
        (MeanReverting, {"theta": 0.0}, ValueError),
        (MeanReverting, {"mean": 0.0}, ValueError),
        (MeanReverting, {"mean": [10.0, -5.0]}, ValueError),
        (MeanReverting, {"sigma": -0.1}, ValueError),
        (MeanReverting, {"s0": 0.0}, ValueError),
        (MeanReverting, {"dt": -1.0}, ValueError),
        (CointegratedPair, {"mu": [0.1]}, ValueError),
        (CointegratedPair, {"sigma": "x"}, TypeError),
        (CointegratedPair, {"theta": True}, TypeError),
        (CointegratedPair, {"sigma": -0.1}, ValueError),
        (CointegratedPair, {"theta": 0.0}, ValueError),
        (CointegratedPair, {"spread_sigma": -1.0}, ValueError),
        (CointegratedPair, {"mu": np.nan}, ValueError),
        (CointegratedPair, {"s0": (1.0, 2.0, 3.0)}, ValueError),
        (CointegratedPair, {"s0": (0.0, 1.0)}, ValueError),
        (CointegratedPair, {"dt": 0.0}, ValueError),
    ],
)
def test_parametric_model_errors(cls, kwargs, error):
    with pytest.raises(error):
        cls(**kwargs)


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ([], {}, ValueError),
        (np.ones((2, 2, 2)), {}, ValueError),
        (np.zeros((0, 2)), {}, ValueError),
        ([0.1, np.nan], {"block_size": 1}, ValueError),
        ([0.1, np.inf], {"block_size": 1}, ValueError),
        ("abc", {}, TypeError),
        (np.zeros(10), {"block_size": 0}, ValueError),
        (np.zeros(10), {"block_size": 11}, ValueError),
        (np.zeros(10), {"block_size": 2.5}, TypeError),
        (np.zeros(10), {"block_size": True}, TypeError),
        (np.zeros((10, 2)), {"block_size": 2, "s0": [1.0, 2.0, 3.0]}, ValueError),
        (np.zeros(10), {"block_size": 2, "s0": 0.0}, ValueError),
        (np.zeros(10), {"block_size": 2, "dt": 0.0}, ValueError),
    ],
)
def test_block_bootstrap_errors(args, kwargs, error):
    with pytest.raises(error):
        BlockBootstrap(args, **kwargs)


def test_block_bootstrap_shapes():
    one = BlockBootstrap(np.zeros(10), block_size=10)
    assert one.n_assets == 1 and one.returns.shape == (10, 1) and one.block_size == 10
    assert not one.returns.flags.writeable and one.returns.dtype == np.float64
    many = BlockBootstrap(np.zeros((5, 3)), block_size=1, s0=[1.0, 2.0, 3.0], dt=0.5)
    assert many.n_assets == 3 and many.dt == 0.5
    np.testing.assert_array_equal(many.simulate(np.random.default_rng(0), 7).prices[-1], many.s0)


TWO = [[0.9, 0.1], [0.2, 0.8]]


@pytest.mark.parametrize(
    ("regimes", "transition", "initial", "error"),
    [
        ([], np.ones((0, 0)), None, ValueError),
        (GBM(), [[1.0]], None, TypeError),
        ([GBM(), Heston()], TWO, None, TypeError),
        ([GBM(), "GBM"], TWO, None, TypeError),
        ([GBM(), GBM(n_assets=2)], TWO, None, ValueError),
        ([GBM(), GBM(dt=0.1)], TWO, None, ValueError),
        ([GBM(), GBM(s0=50.0)], TWO, None, ValueError),
        ([GBM(), GBM()], [[1.0]], None, ValueError),
        ([GBM(), GBM()], [0.5, 0.5], None, ValueError),
        ([GBM(), GBM()], [[1.2, -0.2], [0.5, 0.5]], None, ValueError),
        ([GBM(), GBM()], [[0.5, 0.4], [0.5, 0.5]], None, ValueError),
        ([GBM(), GBM()], [[np.nan, 0.5], [0.5, 0.5]], None, ValueError),
        ([GBM(), GBM()], "xy", None, TypeError),
        ([GBM(), GBM()], TWO, [1.0], ValueError),
        ([GBM(), GBM()], TWO, [1.5, -0.5], ValueError),
        ([GBM(), GBM()], TWO, [0.5, 0.6], ValueError),
        ([GBM(), GBM()], TWO, [[0.5, 0.5]], ValueError),
    ],
)
def test_regime_switching_errors(regimes, transition, initial, error):
    with pytest.raises(error):
        RegimeSwitching(regimes, transition, initial=initial)


def test_regime_switching_attributes():
    calm, wild = GBM(0.1, 0.1, s0=[1.0, 2.0]), GBM(-0.1, 0.5, s0=[1.0, 2.0], corr=CORR2)
    model = RegimeSwitching([calm, wild], TWO, initial=[0.3, 0.7])
    assert model.regimes == (calm, wild) and model.n_assets == 2 and model.dt == 1 / 252
    for arr in (model.transition, model.initial, model.s0):
        assert arr.dtype == np.float64 and not arr.flags.writeable
    np.testing.assert_array_equal(model.initial, [0.3, 0.7])
    np.testing.assert_array_equal(model.s0, [1.0, 2.0])
    assert model.state_spec() == {"regime": ()}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"model": "GBM"}, TypeError),
        ({"initial_listed": 1.5}, ValueError),
        ({"initial_listed": -0.1}, ValueError),
        ({"initial_listed": [0.5]}, ValueError),
        ({"listing_rate": -1.0}, ValueError),
        ({"listing_rate": np.inf}, ValueError),
        ({"delisting_rate": -0.5}, ValueError),
        ({"delisting_rate": np.nan}, ValueError),
        ({"min_listed": -1}, ValueError),
        ({"min_listed": 4}, ValueError),
        ({"min_listed": 1.5}, TypeError),
        ({"min_listed": True}, TypeError),
    ],
)
def test_listing_process_errors(kwargs, error):
    kwargs = {"model": GBM(n_assets=3), **kwargs}
    with pytest.raises(error):
        ListingProcess(**kwargs)


def _all_models():
    return [
        Heston(rho=[-0.5, 0.2], corr=CORR2),
        MertonJumpDiffusion(sigma=[0.1, 0.2, 0.3]),
        RegimeSwitching([GBM(n_assets=2), GBM(0.2, 0.5, n_assets=2)], TWO),
        GARCH(alpha=[0.05, 0.08], corr=CORR2),
        MeanReverting(mean=[90.0, 110.0, 100.0], corr=CORR),
        CointegratedPair(s0=(10.0, 20.0)),
        BlockBootstrap(np.random.default_rng(0).normal(0, 0.01, (30, 2)), block_size=5),
        Randomized(_random_gbm),
        ListingProcess(GARCH(n_assets=3), min_listed=2),
    ]


@pytest.mark.parametrize("model", _all_models(), ids=lambda m: type(m).__name__)
def test_models_are_immutable_and_pickle(model):
    for name in ("s0", "model", "factory", "regimes", "mu", "new_attribute", "_dt"):
        with pytest.raises(AttributeError):
            setattr(model, name, 1.0)
    for name in ("s0", "model", "factory", "transition", "_n_assets"):
        with pytest.raises(AttributeError):
            delattr(model, name)
    for clone in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert type(clone) is type(model) and repr(clone) == repr(model)
        assert clone.n_assets == model.n_assets and clone.dt == model.dt
        assert clone.state_spec() == model.state_spec()
        a = model.simulate(np.random.default_rng(3), 6, n_paths=2)
        b = clone.simulate(np.random.default_rng(3), 6, n_paths=2)
        np.testing.assert_array_equal(a.prices, b.prices)
        assert (a.mask is None) == (b.mask is None)
        if a.mask is not None:
            np.testing.assert_array_equal(a.mask, b.mask)
        for key in model.state_spec():
            np.testing.assert_array_equal(a.state[key], b.state[key])


@pytest.mark.parametrize("model", _all_models(), ids=lambda m: type(m).__name__)
def test_models_check_step_and_path_counts(model):
    sim = model.simulate(np.random.default_rng(0), np.int64(3), n_paths=np.int32(2))
    assert sim.prices.shape == (2, 4, model.n_assets)
    assert (
        model.simulate(np.random.default_rng(0), 3.0, n_paths=2.0).prices.shape == sim.prices.shape
    )
    for bad, error in ((0, ValueError), (-1, ValueError), (2.5, TypeError), (True, TypeError)):
        with pytest.raises(error):
            model.simulate(np.random.default_rng(0), bad)
        with pytest.raises(error):
            model.simulate(np.random.default_rng(0), 3, n_paths=bad)


@pytest.mark.parametrize(
    "model",
    [
        Heston(mu=[0.05, 0.1], corr=CORR2),
        MertonJumpDiffusion(n_assets=3),
        GARCH(omega=[1e-6, 2e-6]),
        MeanReverting(theta=5, mean=[90, 110], s0=100),
    ],
    ids=lambda m: type(m).__name__,
)
def test_parameter_arrays_are_read_only_float64(model):
    names = [n for n in type(model)._fields if n not in ("corr", "dt", "n_assets")]
    for name in names:
        arr = getattr(model, name)
        assert arr.dtype == np.float64 and arr.shape == (model.n_assets,)
        assert not arr.flags.writeable
    if model.corr is not None:
        assert not model.corr.flags.writeable


def test_model_reprs():
    assert repr(Heston()) == (
        "Heston(n_assets=1, mu=0.05, kappa=2.0, theta=0.04, xi=0.3, rho=-0.7, v0=0.04, "
        "s0=100.0, corr=None, dt=1/252)"
    )
    assert repr(MertonJumpDiffusion(sigma=[0.1, 0.2], corr=CORR2, dt=0.01)) == (
        "MertonJumpDiffusion(n_assets=2, mu=0.05, sigma=[0.1, 0.2], jump_intensity=1.0, "
        "jump_mean=-0.05, jump_std=0.1, s0=100.0, corr=<2x2>, dt=1/100)"
    )
    assert repr(GARCH()) == (
        "GARCH(n_assets=1, omega=1e-06, alpha=0.08, beta=0.9, mu=0.0, s0=100.0, corr=None, "
        "dt=1/252)"
    )
    assert repr(MeanReverting(dt=0.3)) == (
        "MeanReverting(n_assets=1, theta=5.0, mean=100.0, sigma=0.2, s0=100.0, corr=None, dt=0.3)"
    )
    assert repr(CointegratedPair(s0=(10.0, 20.0))) == (
        "CointegratedPair(mu=0.05, sigma=0.2, theta=5.0, spread_sigma=0.1, s0=[10.0, 20.0], "
        "dt=1/252)"
    )
    assert repr(BlockBootstrap(np.zeros((30, 2)))) == (
        "BlockBootstrap(n_assets=2, n_rows=30, block_size=20, s0=100.0, dt=1/252)"
    )
    assert repr(RegimeSwitching([GBM(), GBM()], TWO)) == (
        "RegimeSwitching(n_regimes=2, n_assets=1, dt=1/252)"
    )
    assert repr(Randomized(_random_gbm)) == (
        "Randomized(factory=_random_gbm, n_assets=2, dt=1/252)"
    )
    assert repr(ListingProcess(GBM(n_assets=2), min_listed=2)) == (
        "ListingProcess(GBM(n_assets=2, mu=0.0, sigma=0.2, s0=100.0, corr=None, dt=1/252), "
        "initial_listed=0.8, listing_rate=1.0, delisting_rate=0.25, min_listed=2)"
    )


def test_model_defaults():
    heston = Heston()
    assert heston.state_spec() == {"variance": (1,)} and heston.dt == 1 / 252
    merton = MertonJumpDiffusion(n_assets=2)
    assert merton.state_spec() == {"jumps": (2,)}
    assert GARCH(corr=CORR).n_assets == 3 and GARCH().state_spec() == {"variance": (1,)}
    assert MeanReverting().state_spec() == {} and MeanReverting(n_assets=4).n_assets == 4
    pair = CointegratedPair()
    assert pair.n_assets == 2 and pair.state_spec() == {"spread": ()}
    assert pair.mu == 0.05 and pair.theta == 5.0 and pair.spread_sigma == 0.1
    np.testing.assert_array_equal(pair.s0, [100.0, 100.0])
    assert not pair.s0.flags.writeable
    listing = ListingProcess(GBM(n_assets=3))
    assert (listing.initial_listed, listing.listing_rate, listing.delisting_rate) == (
        0.8,
        1.0,
        0.25,
    )
    assert listing.min_listed == 1 and listing.state_spec() == {}
    randomized = Randomized(_random_heston)
    assert randomized.state_spec() == {"variance": (2,)}
    assert isinstance(randomized.reference, Heston)
