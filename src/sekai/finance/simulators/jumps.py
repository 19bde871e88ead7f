"""Merton jump diffusion: GBM with compensated log-normal jumps."""

from __future__ import annotations

from typing import Any

import numpy as np

from sekai.finance.simulators.base import (
    Array,
    Simulation,
    _check_common,
    _from_log,
    _FrozenModel,
    _infer_n_assets,
    _per_asset,
    _run_shape,
    _shocks,
)

__all__ = ["MertonJumpDiffusion"]


class MertonJumpDiffusion(_FrozenModel):
    """GBM plus compound-Poisson log-normal jumps, compensated so ``E[S_t] = s0 e^{mu t}``."""

    _fields = (
        "mu",
        "sigma",
        "jump_intensity",
        "jump_mean",
        "jump_std",
        "s0",
        "corr",
        "dt",
        "n_assets",
    )

    mu: Array
    sigma: Array
    jump_intensity: Array
    jump_mean: Array
    jump_std: Array
    s0: Array
    corr: Array | None
    _drift: Array
    _vol: Array
    _chol_t: Array | None

    def __init__(
        self,
        mu: Any = 0.05,
        sigma: Any = 0.2,
        jump_intensity: Any = 1.0,
        jump_mean: Any = -0.05,
        jump_std: Any = 0.1,
        *,
        s0: Any = 100.0,
        corr: Any = None,
        dt: float = 1 / 252,
        n_assets: int | None = None,
    ) -> None:
        params = {
            "mu": mu,
            "sigma": sigma,
            "jump_intensity": jump_intensity,
            "jump_mean": jump_mean,
            "jump_std": jump_std,
            "s0": s0,
        }
        n = _infer_n_assets(n_assets, params, corr)
        mu_a = _per_asset(mu, "mu", n)
        sigma_a = _per_asset(sigma, "sigma", n, low=0.0)
        lam = _per_asset(jump_intensity, "jump_intensity", n, low=0.0)
        m = _per_asset(jump_mean, "jump_mean", n)
        s = _per_asset(jump_std, "jump_std", n, low=0.0)
        s0_a, corr_a, chol_t, dt = _check_common(n, s0, corr, dt)
        k = np.exp(m + s**2 / 2.0) - 1.0
        self._set(
            mu=mu_a,
            sigma=sigma_a,
            jump_intensity=lam,
            jump_mean=m,
            jump_std=s,
            s0=s0_a,
            corr=corr_a,
            _n_assets=n,
            _dt=dt,
            _drift=(mu_a - sigma_a**2 / 2.0 - lam * k) * dt,
            _vol=sigma_a * np.sqrt(dt),
            _chol_t=chol_t,
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"jumps"``: the number of jumps in the step ending at each row (row 0 is 0)."""
        return {"jumps": (self._n_assets,)}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Draws, each ``(*paths, n_steps, n)``: diffusion shocks ``z`` (correlated by ``corr``),
        jump counts ``poisson(jump_intensity * dt)``, then jump-size shocks ``w``."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        shape = (*paths, n_steps, self._n_assets)
        z = _shocks(rng.standard_normal(shape), self._chol_t)
        counts = rng.poisson(self.jump_intensity * self._dt, shape).astype(np.float64)
        w = rng.standard_normal(shape)
        increments = (
            self._drift
            + self._vol * z
            + counts * self.jump_mean
            + np.sqrt(counts) * self.jump_std * w
        )
        jumps = np.zeros((*paths, n_steps + 1, self._n_assets))
        jumps[..., 1:, :] = counts
        prices = _from_log(self.s0, np.cumsum(increments, axis=-2))
        return Simulation(prices, state={"jumps": jumps})
