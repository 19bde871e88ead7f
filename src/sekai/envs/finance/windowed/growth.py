"""Expected log growth of positions rebalanced in a GBM market, and the best constant weights.

One step of a GBM with drifts ``mu``, volatilities ``sigma`` and correlation ``corr`` over
``dt`` years moves each price by the simple return ``r_i = exp(X_i) - 1`` with
``X ~ N((mu - sigma^2/2) dt, Sigma dt)``, so ``E[r_i] = exp(mu_i dt) - 1`` and
``E[r_i r_j] = exp((mu_i + mu_j) dt + Sigma_ij dt) - exp(mu_i dt) - exp(mu_j dt) + 1``. A
position ``w`` (weights of equity, cash the rest) grows by ``1 + w·r``; the expected log
growth is ``E[log(1 + w·r)]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.finance.costs import CostModel

__all__ = [
    "GBMGrowth",
    "best_constant_weights",
    "expected_log_growth_1d",
    "project_to_simplex",
]

Array = NDArray[np.float64]

#: Returns drawn (in antithetic pairs) for the sample averages, and the generator's seed.
_SAMPLES = 8192
_SEED = 20240601
#: Initial weights drawn to average the first rebalance's cost from a random start.
_START_SAMPLES = 512
_FLOOR = 1e-12


def expected_log_growth_1d(
    positions: Any, mu: float, sigma: float, dt: float, nodes: int = 96
) -> Array:
    """``E[log(max(1 + p r, 1e-12))]`` for each position ``p`` of one GBM asset (quadrature).

    Gauss-Hermite quadrature in the normal log return, exact to rounding for ``|p| <= 1``;
    the floor is the one the env's log-return reward applies.
    """
    x, weights = np.polynomial.hermite_e.hermegauss(nodes)
    weights = weights / weights.sum()
    log_step = (mu - 0.5 * sigma**2) * dt + sigma * np.sqrt(dt) * x
    r = np.expm1(log_step)
    p = np.asarray(positions, dtype=np.float64)[:, None]
    growth = np.maximum(1.0 + p * r, _FLOOR)
    result: Array = np.log(growth) @ weights
    return result


def project_to_simplex(v: Array) -> Array:
    """The Euclidean projection of ``v`` onto ``{w >= 0, sum(w) = 1}``."""
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1.0
    k = np.arange(1, len(v) + 1)
    rho = int(np.nonzero(u * k > cumulative)[0][-1])
    projected: Array = np.maximum(v - cumulative[rho] / (rho + 1), 0.0)
    return projected


@dataclass(frozen=True)
class GBMGrowth:
    """The one-step returns of a GBM market: moments and a fixed sample of simple returns.

    ``covariance`` is ``Sigma`` (per year), ``mean`` is ``E[r]``, ``second`` is ``E[r r']``
    and ``returns`` ``(8192, n)`` a sample drawn from a fixed seed in antithetic pairs, so
    every average over it is deterministic.
    """

    mu: Array
    sigma: Array
    corr: Array | None
    dt: float
    covariance: Array = field(init=False)
    mean: Array = field(init=False)
    second: Array = field(init=False)
    returns: Array = field(init=False)

    @classmethod
    def of(cls, mu: Any, sigma: Any, corr: Any, dt: float) -> GBMGrowth:
        """From per-asset (or scalar) ``mu`` and ``sigma``, ``corr`` (or None) and ``dt``."""
        mu = np.reshape(np.asarray(mu, dtype=np.float64), -1)
        sigma = np.reshape(np.asarray(sigma, dtype=np.float64), -1)
        return cls(mu, sigma, None if corr is None else np.asarray(corr, np.float64), float(dt))

    def __post_init__(self) -> None:
        mu, sigma, dt = self.mu, self.sigma, self.dt
        n = len(mu)
        corr = np.eye(n) if self.corr is None else self.corr
        cov = corr * np.outer(sigma, sigma)
        object.__setattr__(self, "covariance", cov)
        growth = np.exp(mu * dt)
        second = np.exp(np.add.outer(mu, mu) * dt + cov * dt) - np.add.outer(growth, growth) + 1
        rng = np.random.default_rng(_SEED)
        z = rng.standard_normal((_SAMPLES // 2, n))
        z = np.concatenate([z, -z])
        chol = np.linalg.cholesky(corr)
        log_step = (mu - 0.5 * sigma**2) * dt + (z @ chol.T) * (sigma * np.sqrt(dt))
        object.__setattr__(self, "mean", growth - 1.0)
        object.__setattr__(self, "second", second)
        object.__setattr__(self, "returns", np.expm1(log_step))

    def log_growth(self, weights: Array) -> Array:
        """``E[log(1 + w·r)]`` for asset weights ``weights (..., n)`` (cash the rest).

        The second-order Taylor term ``w·r - (w·r)^2/2`` is taken from its exact mean; only the
        remainder, of third order in ``sigma sqrt(dt)``, is averaged over the sample.
        """
        w = np.asarray(weights, dtype=np.float64)
        y = w @ self.returns.T
        remainder = np.log(np.maximum(1.0 + y, _FLOOR)) - y + 0.5 * y * y
        quadratic = np.einsum("...i,ij,...j->...", w, self.second, w)
        result: Array = w @ self.mean - 0.5 * quadratic + remainder.mean(axis=-1)
        return result


def _episode_objective(
    weights: Array,
    growth: GBMGrowth,
    cost_model: CostModel,
    episode_length: int,
    starts: Array,
) -> Array:
    """Expected episode log growth of rebalancing to ``weights (k, n+1)`` at every step.

    ``episode_length`` steps of ``log(1 - cost) + log(1 + w·r)``; the first rebalance starts
    from each row of ``starts (s, n+1)`` (averaged), the later ones from the drifted ``w``.
    """
    assets = weights[:, :-1]
    per_step = growth.log_growth(assets)
    r = growth.returns
    held = assets[:, None, :] * (1.0 + r)[None]
    total = held.sum(axis=-1) + weights[:, None, -1]
    drifted = held / total[..., None]
    rebalance = cost_model(assets[:, None, :] - drifted)
    first = cost_model(assets[:, None, :] - starts[None, :, :-1])
    log_keep = np.log(np.maximum(1.0 - np.asarray(rebalance), _FLOOR)).mean(axis=-1)
    log_first = np.log(np.maximum(1.0 - np.asarray(first), _FLOOR)).mean(axis=-1)
    result: Array = episode_length * per_step + log_first + (episode_length - 1) * log_keep
    return result


def best_constant_weights(
    growth: GBMGrowth,
    cost_model: CostModel,
    episode_length: int,
    *,
    random_start: bool,
    iterations: int = 400,
) -> tuple[Array, float]:
    """The long-only weights ``(n+1,)`` (cash last) that maximise the expected episode log
    growth of rebalancing to them at every step, and that maximum.

    The objective (``_episode_objective``) counts the costs of the first rebalance, from cash
    or (``random_start``) from weights uniform on the simplex, and of every later one from the
    drifted weights. Projected gradient ascent on the simplex with central-difference
    gradients along ``e_i - e_cash`` and a backtracking step.
    """
    n = len(growth.mu)
    if random_start:
        starts = np.random.default_rng(_SEED).dirichlet(np.ones(n + 1), _START_SAMPLES)
    else:
        starts = np.zeros((1, n + 1))
        starts[0, -1] = 1.0

    def objective(w: Array) -> Array:
        return _episode_objective(w, growth, cost_model, episode_length, starts)

    h = 1e-6
    directions = np.zeros((n, n + 1))
    directions[np.arange(n), np.arange(n)] = 1.0
    directions[:, -1] = -1.0
    w = np.full(n + 1, 1.0 / n)
    w[-1] = 0.0
    value = float(objective(w[None])[0])
    step = 1.0
    for _ in range(iterations):
        probes = np.concatenate([w + h * directions, w - h * directions])
        values = objective(probes)
        gradient = (values[:n] - values[n:]) / (2 * h)
        improved = False
        while step > 1e-8:
            moved = w.copy()
            moved[:-1] += step * gradient
            moved[-1] = 1.0 - moved[:-1].sum()
            candidate = project_to_simplex(moved)
            candidate_value = float(objective(candidate[None])[0])
            if candidate_value > value:
                improved = candidate_value - value > 1e-13
                w, value = candidate, candidate_value
                step *= 2.0
                break
            step *= 0.5
        if not improved:
            break
    return w, value
