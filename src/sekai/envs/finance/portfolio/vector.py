"""``PortfolioVecEnv``: ``num_envs`` Portfolio-v0 envs stepped together with array operations."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance.portfolio.env import PortfolioEnv, cash_weights
from sekai.envs.finance.windowed.env import row_sum, simulated_prices
from sekai.envs.finance.windowed.vector import SHAPE_READ_ONLY, WindowedVecEnv
from sekai.finance.rewards import StepOutcome
from sekai.finance.simulators import GBM
from sekai.vector.template import Param, float_actions, replace_rows

__all__ = ["PortfolioVecEnv"]


class PortfolioVecEnv(WindowedVecEnv[PortfolioEnv]):
    """``num_envs`` copies of ``PortfolioEnv`` stepped together.

    State arrays ``weights (N, n+1)`` and ``portfolio_value (N,)``; internal
    ``_paths (N, window, n)``. Simulated windows come from
    ``GBM(mu, sigma, s0=100.0, corr=corr, dt=dt)`` (or ``model``).
    """

    env_class = PortfolioEnv
    n_assets = Param(SHAPE_READ_ONLY)
    allow_short = Param(SHAPE_READ_ONLY)
    corr = Param()

    def _allocate(self) -> None:
        super()._allocate()
        self.weights: NDArray[np.float64] = cash_weights((self.num_envs, self.n_assets + 1))
        self.portfolio_value: NDArray[np.float64] = np.ones(self.num_envs)

    def _asset_shape(self) -> tuple[int, ...]:
        return (self.template.n_assets,)

    def _simulate(self, count: int) -> NDArray[np.float64]:
        template = self.template
        steps = template.window - 1
        if template.model is not None:
            return simulated_prices(template.model, self.rng, steps, count)
        gbm = GBM(template.mu, template.sigma, s0=100.0, corr=template.corr, dt=template.dt)
        return gbm.simulate(self.rng, steps, n_paths=count).prices

    def action_to_weights(self, actions: Any) -> NDArray[np.float64]:
        """Target weights ``(N, n+1)`` of a batch of actions (the single env's rule per row)."""
        template = self.template
        size = template.n_assets if template.allow_short else template.n_assets + 1
        scores = float_actions(self, actions, (self.num_envs, size))
        if not template.allow_short:
            np.maximum(scores, 0.0, out=scores)
            total = row_sum(scores)
            small = total < 1e-12
            if small.any():
                total[small] = 1.0
                weights = scores / total[:, None]
                weights[small] = cash_weights((template.n_assets + 1,))
                return weights
            result: NDArray[np.float64] = scores / total[:, None]
            return result
        np.clip(scores, -1.0, 1.0, out=scores)
        gross = row_sum(np.abs(scores))
        np.divide(scores, np.where(gross > 1.0, gross, 1.0)[:, None], out=scores)
        weights = np.empty((self.num_envs, template.n_assets + 1))
        weights[:, :-1] = scores
        weights[:, -1] = 1.0 - row_sum(scores)
        return weights

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self._reset_windows(indices, options)
        self.weights = replace_rows(self.weights, indices, cash_weights((self.n_assets + 1,)))
        self.portfolio_value = replace_rows(self.portfolio_value, indices, 1.0)

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, NDArray[Any]]:
        size = len(indices)
        zeros = np.zeros(size)
        values = self.portfolio_value[indices]
        return {
            "portfolio_value": values,
            "equity": values,
            "weights": self.weights[indices],
            "turnover": zeros,
            "cost": zeros,
            "asset_returns": np.zeros((size, self.n_assets)),
            "timestamp": self._timestamps(self._t)[indices],
            "dt": np.full(size, self.template.dt),
        }

    def _observe(self) -> dict[str, NDArray[np.float32]]:
        return {
            "returns": self._windows32[self._index, self._t],
            "weights": self.weights.astype(np.float32),
        }

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, NDArray[Any]]]:
        template = self.template
        target = self.action_to_weights(actions)
        weights, value = self.weights, self.portfolio_value
        steps = self._decision_steps()
        trades = target[:, :-1] - weights[:, :-1]
        turnover = row_sum(np.abs(trades))
        cost = np.asarray(
            template.cost_model(trades, **self._cost_context(value, steps)), dtype=np.float64
        )
        index = self._path_rows + steps
        paths = self._paths.reshape(-1, self.n_assets)
        r = paths.take(index + 1, axis=0) / paths.take(index, axis=0) - 1.0
        invested = np.ascontiguousarray(target[:, None, :-1])
        gross = 1.0 + np.matmul(invested, r[:, :, None])[:, 0, 0]
        growth = (1.0 - cost) * gross
        growth[cost >= 1.0] = 0.0
        alive = growth > 0.0
        drifted = target
        drifted[:, :-1] *= 1.0 + r
        with np.errstate(divide="ignore", invalid="ignore"):
            new_weights = drifted / row_sum(drifted)[:, None]
        if not alive.all():
            new_weights[~alive] = cash_weights((self.n_assets + 1,))
        new_value = np.where(alive, value * growth, 0.0)
        t = self._t
        active = self.active
        if active is not None:  # frozen sub-envs keep their state
            frozen = ~active
            new_weights[frozen] = weights[frozen]
            new_value = np.where(frozen, value, new_value)
            growth[frozen] = 1.0
            t = t + ~frozen
        else:
            t = t + 1
        self.weights, self.portfolio_value, self._t = new_weights, new_value, t
        rewards = template.reward_fn(
            StepOutcome.from_growth(
                growth, equity=new_value, turnover=turnover, cost=cost, previous_equity=value
            )
        )
        terminated = growth <= 0.0
        truncated = (t >= template.episode_length) & ~terminated
        infos = {
            "portfolio_value": new_value,
            "equity": new_value,
            "weights": new_weights.copy(),
            "turnover": turnover,
            "cost": cost,
            "asset_returns": r,
            "timestamp": self._timestamps(t),
            "dt": np.full(self.num_envs, template.dt),
        }
        return rewards, terminated, truncated, infos
