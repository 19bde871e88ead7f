"""Mean-reverting models: exponential Ornstein-Uhlenbeck prices and a cointegrated pair."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from sekai.finance.simulators.base import (
    _NONNEG,
    _POSITIVE,
    Array,
    Simulation,
    _Bound,
    _fmt_dt,
    _fmt_param,
    _from_log,
    _FrozenModel,
    _per_asset,
    _positive,
    _run_shape,
)
from sekai.utils.validation import check_real

__all__ = ["CointegratedPair", "MeanReverting"]


def _ou_coefficients(theta: Any, sigma: Any, dt: float) -> tuple[Any, Any]:
    """Exact OU step: decay ``e^(-theta dt)`` and noise scale
    ``sigma sqrt((1 - e^(-2 theta dt)) / (2 theta))``."""
    return np.exp(-theta * dt), sigma * np.sqrt((1.0 - np.exp(-2.0 * theta * dt)) / (2.0 * theta))


class MeanReverting(_FrozenModel):
    """Exponential Ornstein-Uhlenbeck prices: ``log(S/s0)`` reverts to ``log(mean/s0)``, exactly."""

    _fields = ("theta", "mean", "sigma", "s0", "corr", "dt", "n_assets")
    _bounds: ClassVar[Mapping[str, _Bound]] = {
        "theta": _POSITIVE,
        "mean": _POSITIVE,
        "sigma": _NONNEG,
        "s0": _POSITIVE,
    }

    theta: Array
    mean: Array
    sigma: Array
    s0: Array
    corr: Array | None
    _target: Array
    _decay: Array
    _scale: Array

    def __init__(
        self,
        theta: Any = 5.0,
        mean: Any = 100.0,
        sigma: Any = 0.2,
        *,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        p = self._set_checked(n_assets, corr, dt, theta=theta, mean=mean, sigma=sigma, s0=s0)
        decay, scale = _ou_coefficients(p["theta"], p["sigma"], self._dt)
        self._set(_target=np.log(p["mean"] / p["s0"]), _decay=decay, _scale=scale)

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, n))`` draw, correlated by ``corr``."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        n = self._n_assets
        z = self._normals(rng, (*paths, n_steps, n))
        m = self._target
        y = np.zeros((*paths, n))
        levels = np.empty((*paths, n_steps, n))
        for t in range(n_steps):
            y = m + (y - m) * self._decay + self._scale * z[..., t, :]
            levels[..., t, :] = y
        return Simulation(_from_log(self.s0, levels))


class CointegratedPair(_FrozenModel):
    """Two assets sharing a GBM trend ``x``, split by an OU spread ``s``:
    ``log P1 = log s0[0] + x + s/2``, ``log P2 = log s0[1] + x - s/2``."""

    _fields = ("mu", "sigma", "theta", "spread_sigma", "s0", "dt")

    mu: float
    sigma: float
    theta: float
    spread_sigma: float
    s0: Array
    _decay: float
    _scale: float

    def __init__(
        self,
        mu: float = 0.05,
        sigma: float = 0.2,
        theta: float = 5.0,
        spread_sigma: float = 0.1,
        *,
        s0: Any = (100.0, 100.0),
        dt: float = 1 / 252,
    ) -> None:
        mu = check_real(mu, "mu")
        sigma = check_real(sigma, "sigma", low=0.0)
        theta = _positive(theta, "theta")
        spread_sigma = check_real(spread_sigma, "spread_sigma", low=0.0)
        s0_a = _per_asset(s0, "s0", 2, low=0.0, strict=True)
        dt = _positive(dt, "dt")
        decay, scale = _ou_coefficients(theta, spread_sigma, dt)
        self._set(
            mu=mu,
            sigma=sigma,
            theta=theta,
            spread_sigma=spread_sigma,
            s0=s0_a,
            _n_assets=2,
            _dt=dt,
            _decay=float(decay),
            _scale=float(scale),
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"spread"``: the OU spread ``s`` at each row."""
        return {"spread": ()}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, 2))`` draw: column 0 the trend, 1 the spread."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        z = rng.standard_normal((*paths, n_steps, 2))
        drift = (self.mu - self.sigma**2 / 2.0) * self._dt
        trend = np.cumsum(drift + self.sigma * np.sqrt(self._dt) * z[..., 0], axis=-1)
        spread = np.zeros((*paths, n_steps + 1))
        for t in range(n_steps):
            spread[..., t + 1] = spread[..., t] * self._decay + self._scale * z[..., t, 1]
        half = spread[..., 1:] / 2.0
        log_paths = np.stack([trend + half, trend - half], axis=-1)
        return Simulation(_from_log(self.s0, log_paths), state={"spread": spread})

    def __repr__(self) -> str:
        return (
            f"CointegratedPair(mu={self.mu!r}, sigma={self.sigma!r}, theta={self.theta!r}, "
            f"spread_sigma={self.spread_sigma!r}, s0={_fmt_param(self.s0)}, "
            f"dt={_fmt_dt(self._dt)})"
        )
