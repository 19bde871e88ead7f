"""Regime switching: GBM parameters driven by a hidden Markov chain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.finance.simulators.base import (
    Array,
    Simulation,
    _fmt_dt,
    _from_log,
    _frozen,
    _FrozenModel,
    _run_shape,
    _shocks,
)
from sekai.finance.simulators.gbm import GBM
from sekai.utils.validation import check_array

__all__ = ["RegimeSwitching"]


class RegimeSwitching(_FrozenModel):
    """GBM with parameters driven by a hidden Markov chain; regime t sets the step t -> t+1."""

    _fields = ("regimes", "transition", "initial")

    regimes: tuple[GBM, ...]
    transition: Array
    initial: Array
    s0: Array
    _drift: Array
    _vol: Array

    def __init__(self, regimes: Sequence[GBM], transition: Any, *, initial: Any = None) -> None:
        if not isinstance(regimes, Sequence):
            raise TypeError(f"regimes must be a sequence of GBM models, got {regimes!r}.")
        models = tuple(regimes)
        if not models:
            raise ValueError("RegimeSwitching needs at least one regime.")
        for model in models:
            if not isinstance(model, GBM):
                raise TypeError(f"every regime must be a GBM, got {model!r}.")
        first = models[0]
        for model in models[1:]:
            if (
                model.n_assets != first.n_assets
                or model.dt != first.dt
                or not np.array_equal(model.s0, first.s0)
            ):
                raise ValueError("all regimes must share n_assets, dt and s0.")
        k = len(models)
        trans = np.array(check_array(transition, "transition"), dtype=np.float64)
        if trans.shape != (k, k):
            raise ValueError(f"transition must have shape ({k}, {k}), got {trans.shape}.")
        if not np.isfinite(trans).all() or (trans < 0).any():
            raise ValueError("transition must be finite and non-negative.")
        if np.abs(trans.sum(axis=1) - 1.0).max() > 1e-8:
            raise ValueError("transition rows must sum to 1.")
        if initial is None:
            init = _stationary(trans)
        else:
            init = np.array(check_array(initial, "initial"), dtype=np.float64)
            if init.shape != (k,):
                raise ValueError(f"initial must have shape ({k},), got {init.shape}.")
            if not np.isfinite(init).all() or (init < 0).any():
                raise ValueError("initial must be finite and non-negative.")
            if abs(init.sum() - 1.0) > 1e-8:
                raise ValueError("initial must sum to 1.")
        self._set(
            regimes=models,
            transition=_frozen(trans),
            initial=_frozen(init),
            s0=first.s0,
            _n_assets=first.n_assets,
            _dt=first.dt,
            _drift=np.stack([m._drift for m in models]),
            _vol=np.stack([m._vol for m in models]),
        )

    def state_spec(self) -> dict[str, tuple[int, ...]]:
        """``"regime"``: the regime index (as float64) at each row."""
        return {"regime": ()}

    def simulate(
        self, rng: np.random.Generator, n_steps: int, *, n_paths: int | None = None
    ) -> Simulation:
        """Draws ``u0 = random(paths)``, ``u = random((*paths, n_steps))`` and
        ``standard_normal((*paths, n_steps, n))`` shocks, correlated by the regime's ``corr``."""
        n_steps, paths = _run_shape(n_steps, n_paths)
        u0 = rng.random(paths)
        u = rng.random((*paths, n_steps))
        eps = rng.standard_normal((*paths, n_steps, self._n_assets))
        cum_initial = np.cumsum(self.initial)
        cum_transition = np.cumsum(self.transition, axis=1)
        regime = np.empty((*paths, n_steps + 1), dtype=np.intp)
        regime[..., 0] = _categorical(cum_initial, u0)
        for t in range(n_steps):
            regime[..., t + 1] = _categorical(cum_transition[regime[..., t]], u[..., t])
        increments = np.empty_like(eps)
        for k, model in enumerate(self.regimes):
            rows = regime[..., :-1] == k
            z = _shocks(eps[rows], model._chol_t)
            increments[rows] = self._drift[k] + self._vol[k] * z
        prices = _from_log(self.s0, np.cumsum(increments, axis=-2))
        return Simulation(prices, state={"regime": regime.astype(np.float64)})

    def __repr__(self) -> str:
        return (
            f"RegimeSwitching(n_regimes={len(self.regimes)}, n_assets={self._n_assets}, "
            f"dt={_fmt_dt(self._dt)})"
        )


def _stationary(transition: Array) -> Array:
    """Least-squares solution of ``pi P = pi, sum(pi) = 1``, clipped at 0 and normalised."""
    k = len(transition)
    a = np.vstack([transition.T - np.eye(k), np.ones((1, k))])
    b = np.zeros(k + 1)
    b[-1] = 1.0
    pi = np.clip(np.linalg.lstsq(a, b, rcond=None)[0], 0.0, None)
    return pi / pi.sum()


def _categorical(cumulative: Array, u: Array) -> NDArray[np.intp]:
    """The first category whose cumulative probability exceeds ``u``."""
    count = (cumulative <= np.asarray(u)[..., None]).sum(axis=-1)
    return np.minimum(count, cumulative.shape[-1] - 1)
