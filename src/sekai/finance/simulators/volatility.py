"""Stochastic-volatility models: Heston and GARCH(1, 1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from sekai.finance.simulators.base import (
    _FREE,
    _NONNEG,
    _POSITIVE,
    Array,
    Simulation,
    _Bound,
    _frozen,
    _FrozenModel,
    _log_simulation,
    _run_shape,
    _shocks,
)

__all__ = ["GARCH", "Heston"]


class Heston(_FrozenModel):
    """Heston stochastic volatility by full-truncation Euler (``v+ = max(v, 0)``)."""

    _fields = ("mu", "kappa", "theta", "xi", "rho", "v0", "s0", "corr", "dt", "n_assets")
    _bounds: ClassVar[Mapping[str, _Bound]] = {
        "mu": _FREE,
        "kappa": _POSITIVE,
        "theta": _POSITIVE,
        "xi": _POSITIVE,
        "rho": _FREE,
        "v0": _NONNEG,
        "s0": _POSITIVE,
    }

    mu: Array
    kappa: Array
    theta: Array
    xi: Array
    rho: Array
    v0: Array
    s0: Array
    corr: Array | None

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
        given = {"mu": mu, "kappa": kappa, "theta": theta, "xi": xi, "rho": rho}
        p = self._set_checked(
            n_assets, corr, dt, **given, **({} if v0 is None else {"v0": v0}), s0=s0
        )
        if (np.abs(p["rho"]) > 1.0).any():
            raise ValueError(f"rho must satisfy abs(rho) <= 1, got {rho!r}.")
        self._set(v0=p.get("v0", p["theta"]))

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
        return _log_simulation(self.s0, increments, variance=variance)


class GARCH(_FrozenModel):
    """GARCH(1, 1) log returns: ``eps_t = sqrt(h_t) z_t``, ``h_{t+1} = omega + alpha eps_t^2 +
    beta h_t``, started at the unconditional variance."""

    _fields = ("omega", "alpha", "beta", "mu", "s0", "corr", "dt", "n_assets")
    _bounds: ClassVar[Mapping[str, _Bound]] = {
        "omega": _POSITIVE,
        "alpha": _NONNEG,
        "beta": _NONNEG,
        "mu": _FREE,
        "s0": _POSITIVE,
    }

    omega: Array
    alpha: Array
    beta: Array
    mu: Array
    s0: Array
    corr: Array | None
    _h0: Array

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
        given = {"omega": omega, "alpha": alpha, "beta": beta, "mu": mu, "s0": s0}
        p = self._set_checked(n_assets, corr, dt, **given)
        if (p["alpha"] + p["beta"] >= 1.0).any():
            raise ValueError(f"alpha + beta must be < 1, got {alpha!r} + {beta!r}.")
        self._set(_h0=_frozen(p["omega"] / (1.0 - p["alpha"] - p["beta"])))

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
        z = self._normals(rng, (*paths, n_steps, n))
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
        return _log_simulation(self.s0, increments, variance=variance)
