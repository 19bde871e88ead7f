"""Merton jump diffusion: GBM with compensated log-normal jumps."""

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
    _FrozenModel,
    _log_simulation,
    _run_shape,
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
    _bounds: ClassVar[Mapping[str, _Bound]] = {
        "mu": _FREE,
        "sigma": _NONNEG,
        "jump_intensity": _NONNEG,
        "jump_mean": _FREE,
        "jump_std": _NONNEG,
        "s0": _POSITIVE,
    }

    mu: Array
    sigma: Array
    jump_intensity: Array
    jump_mean: Array
    jump_std: Array
    s0: Array
    corr: Array | None
    _drift: Array
    _vol: Array

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
        jumps = {"jump_intensity": jump_intensity, "jump_mean": jump_mean, "jump_std": jump_std}
        p = self._set_checked(n_assets, corr, dt, mu=mu, sigma=sigma, **jumps, s0=s0)
        mu_a, sigma_a, lam, dt = p["mu"], p["sigma"], p["jump_intensity"], self._dt
        k = np.exp(p["jump_mean"] + p["jump_std"] ** 2 / 2.0) - 1.0
        self._set(_drift=(mu_a - sigma_a**2 / 2.0 - lam * k) * dt, _vol=sigma_a * np.sqrt(dt))

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
        z = self._normals(rng, shape)
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
        return _log_simulation(self.s0, increments, jumps=jumps)
