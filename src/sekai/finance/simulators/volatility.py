"""Stochastic-volatility models: Heston and GARCH(1, 1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from sekai.finance.simulators.base import (
    Array,
    Simulation,
    _check_common,
    _from_log,
    _frozen,
    _FrozenModel,
    _infer_n_assets,
    _per_asset,
    _run_shape,
    _shocks,
)

__all__ = ["GARCH", "Heston"]


class Heston(_FrozenModel):
    """Heston stochastic volatility by full-truncation Euler (``v+ = max(v, 0)``)."""

    _fields = ("mu", "kappa", "theta", "xi", "rho", "v0", "s0", "corr", "dt", "n_assets")

    mu: Array
    kappa: Array
    theta: Array
    xi: Array
    rho: Array
    v0: Array
    s0: Array
    corr: Array | None
    _chol_t: Array | None

    def __init__(
        self,
        mu: Any = 0.05,
        kappa: Any = 2.0,
        theta: Any = 0.04,
        xi: Any = 0.3,
        rho: Any = -0.7,
        *,
        v0: Any = None,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        params = {"mu": mu, "kappa": kappa, "theta": theta, "xi": xi, "rho": rho, "s0": s0}
        if v0 is not None:
            params["v0"] = v0
        n = _infer_n_assets(n_assets, params, corr)
        mu_a = _per_asset(mu, "mu", n)
        kappa_a = _per_asset(kappa, "kappa", n, low=0.0, strict=True)
        theta_a = _per_asset(theta, "theta", n, low=0.0, strict=True)
        xi_a = _per_asset(xi, "xi", n, low=0.0, strict=True)
        rho_a = _per_asset(rho, "rho", n)
        if (np.abs(rho_a) > 1.0).any():
            raise ValueError(f"rho must satisfy abs(rho) <= 1, got {rho!r}.")
        v0_a = theta_a if v0 is None else _per_asset(v0, "v0", n, low=0.0)
        s0_a, corr_a, chol_t, dt = _check_common(n, s0, corr, dt)
        self._set(
            mu=mu_a,
            kappa=kappa_a,
            theta=theta_a,
            xi=xi_a,
            rho=rho_a,
            v0=v0_a,
            s0=s0_a,
            corr=corr_a,
            _n_assets=n,
            _dt=dt,
            _chol_t=chol_t,
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"variance"``: the truncated variance ``v+`` per asset."""
        return {"variance": (self._n_assets,)}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, 2, n))`` draw: ``[..., 0, :]`` price shocks
        (correlated by ``corr``), ``[..., 1, :]`` the independent part of the variance shocks."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        n, dt = self._n_assets, self._dt
        z = rng.standard_normal((*paths, n_steps, 2, n))
        z1 = _shocks(z[..., 0, :], self._chol_t)
        z2 = self.rho * z1 + np.sqrt(1.0 - self.rho**2) * z[..., 1, :]
        variance = np.empty((*paths, n_steps + 1, n))
        increments = np.empty((*paths, n_steps, n))
        v = np.broadcast_to(self.v0, (*paths, n))
        for t in range(n_steps):
            v_plus = np.maximum(v, 0.0)
            variance[..., t, :] = v_plus
            root = np.sqrt(v_plus * dt)
            increments[..., t, :] = (self.mu - v_plus / 2.0) * dt + root * z1[..., t, :]
            v = v + self.kappa * (self.theta - v_plus) * dt + self.xi * root * z2[..., t, :]
        variance[..., n_steps, :] = np.maximum(v, 0.0)
        prices = _from_log(self.s0, np.cumsum(increments, axis=-2))
        return Simulation(prices, state={"variance": variance})


class GARCH(_FrozenModel):
    """GARCH(1, 1) log returns: ``eps_t = sqrt(h_t) z_t``, ``h_{t+1} = omega + alpha eps_t^2 +
    beta h_t``, started at the unconditional variance."""

    _fields = ("omega", "alpha", "beta", "mu", "s0", "corr", "dt", "n_assets")

    omega: Array
    alpha: Array
    beta: Array
    mu: Array
    s0: Array
    corr: Array | None
    _h0: Array
    _chol_t: Array | None

    def __init__(
        self,
        omega: Any = 1e-6,
        alpha: Any = 0.08,
        beta: Any = 0.9,
        *,
        mu: Any = 0.0,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        params = {"omega": omega, "alpha": alpha, "beta": beta, "mu": mu, "s0": s0}
        n = _infer_n_assets(n_assets, params, corr)
        omega_a = _per_asset(omega, "omega", n, low=0.0, strict=True)
        alpha_a = _per_asset(alpha, "alpha", n, low=0.0)
        beta_a = _per_asset(beta, "beta", n, low=0.0)
        if (alpha_a + beta_a >= 1.0).any():
            raise ValueError(f"alpha + beta must be < 1, got {alpha!r} + {beta!r}.")
        mu_a = _per_asset(mu, "mu", n)
        s0_a, corr_a, chol_t, dt = _check_common(n, s0, corr, dt)
        self._set(
            omega=omega_a,
            alpha=alpha_a,
            beta=beta_a,
            mu=mu_a,
            s0=s0_a,
            corr=corr_a,
            _n_assets=n,
            _dt=dt,
            _h0=_frozen(omega_a / (1.0 - alpha_a - beta_a)),
            _chol_t=chol_t,
        )

    @property
    def unconditional_variance(self) -> Array:
        """``omega / (1 - alpha - beta)``, the per-step variance ``h_0``."""
        return self._h0

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"variance"``: the conditional variance ``h_t`` of the step leaving row t."""
        return {"variance": (self._n_assets,)}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, n))`` draw, correlated by ``corr``."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        n = self._n_assets
        z = _shocks(rng.standard_normal((*paths, n_steps, n)), self._chol_t)
        variance = np.empty((*paths, n_steps + 1, n))
        increments = np.empty((*paths, n_steps, n))
        h = np.broadcast_to(self._h0, (*paths, n))
        drift = self.mu * self._dt
        for t in range(n_steps):
            variance[..., t, :] = h
            eps = np.sqrt(h) * z[..., t, :]
            increments[..., t, :] = drift + eps
            h = self.omega + self.alpha * eps**2 + self.beta * h
        variance[..., n_steps, :] = h
        prices = _from_log(self.s0, np.cumsum(increments, axis=-2))
        return Simulation(prices, state={"variance": variance})
