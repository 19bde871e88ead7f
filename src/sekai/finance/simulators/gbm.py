"""Geometric Brownian motion: the model, a one-path helper and random correlations."""

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
    _check_params,
    _from_log,
    _FrozenModel,
    _run_shape,
    _shocks,
)
from sekai.utils.validation import check_int, check_real

__all__ = ["GBM", "random_correlation", "simulate_gbm"]


def _gbm_coefficients(mu: Array, sigma: Array, dt: float) -> tuple[Array, Array]:
    return (mu - 0.5 * sigma**2) * dt, sigma * np.sqrt(dt)


def _gbm_prices(z: Array, drift: Array, vol: Array, s0: Array, chol_t: Array | None) -> Array:
    """Exact GBM prices from shocks ``z (..., n_steps, n)``, which it overwrites; row 0 is
    ``s0``. The log increments ``drift + vol * shocks`` are formed and summed in place."""
    increments = _shocks(z, chol_t)
    increments *= vol
    increments += drift
    return _from_log(s0, np.cumsum(increments, axis=-2, out=increments))


class GBM(_FrozenModel):
    """Geometric Brownian motion, exact: ``dlog S = (mu - sigma^2/2) dt + sigma sqrt(dt) z``."""

    _fields = ("mu", "sigma", "s0", "corr", "dt", "n_assets")
    _bounds: ClassVar[Mapping[str, _Bound]] = {"mu": _FREE, "sigma": _NONNEG, "s0": _POSITIVE}

    mu: Array
    sigma: Array
    s0: Array
    corr: Array | None
    _drift: Array
    _vol: Array

    def __init__(
        self,
        mu: Any = 0.0,
        sigma: Any = 0.2,
        *,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        p = self._set_checked(n_assets, corr, dt, mu=mu, sigma=sigma, s0=s0)
        drift, vol = _gbm_coefficients(p["mu"], p["sigma"], self._dt)
        self._set(_drift=drift, _vol=vol)

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """One ``standard_normal((*paths, n_steps, n))`` draw turned into exact GBM prices."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        z = rng.standard_normal((*paths, n_steps, self._n_assets))
        return Simulation(_gbm_prices(z, self._drift, self._vol, self.s0, self._chol_t))

    def _prices_into(
        self, rng: np.random.Generator, prices: Array, work: Array, spare: Array
    ) -> None:
        """``simulate(rng, n_steps, n_paths=k).prices``, number for number, written into
        ``prices (k, n_steps + 1, n)``, with ``work`` and ``spare`` as contiguous
        ``(k, n_steps, n)`` scratch arrays (``spare`` only used when the assets correlate)."""
        increments = rng.standard_normal(out=work)
        if self._chol_t is not None:
            increments = np.matmul(increments, self._chol_t, out=spare)
        increments *= self._vol
        increments += self._drift
        np.cumsum(increments, axis=-2, out=increments)
        np.exp(increments, out=increments)
        prices[:, 0] = self.s0
        np.multiply(increments, self.s0, out=prices[:, 1:])


def simulate_gbm(
    rng: np.random.Generator,
    n_steps: int,
    *,
    s0: Any = 100.0,
    mu: Any = 0.0,
    sigma: Any = 0.2,
    dt: float = 1 / 252,
    corr: Any = None,
) -> Array:
    """An exact log-normal GBM path: ``(n_steps+1,)`` for scalar parameters, else ``(..., n)``.

    Draws ``rng.standard_normal((n_steps, n))`` once; row 0 is ``s0``.
    """
    n_steps = check_int(n_steps, "n_steps", low=1)
    n, p, _, chol_t, dt = _check_params(
        None, corr, dt, {"mu": mu, "sigma": sigma, "s0": s0}, GBM._bounds
    )
    drift, vol = _gbm_coefficients(p["mu"], p["sigma"], dt)
    z = rng.standard_normal((n_steps, n))
    prices = _gbm_prices(z, drift, vol, p["s0"], chol_t)
    scalar = n == 1 and all(np.ndim(v) == 0 for v in (s0, mu, sigma))
    return prices[:, 0] if scalar else prices


def random_correlation(rng: np.random.Generator, n: int, strength: float = 0.5) -> Array:
    """A random ``(n, n)`` correlation matrix from ``max(1, n//2)`` factors of ``strength``."""
    n = check_int(n, "n", low=1)
    strength = check_real(strength, "strength", low=0.0, high=1.0, high_open=True)
    factors = rng.standard_normal((n, max(1, n // 2))) * strength
    cov = factors @ factors.T + (1.0 - strength**2) * np.eye(n)
    d = np.sqrt(np.diag(cov))
    return cov / np.outer(d, d)
