"""``PortfolioVecEnv``: ``num_envs`` Portfolio-v0 envs stepped together with array operations.

The weights are held transposed, ``(n+1, num_envs)``, so that every per-asset operation runs
over one contiguous row of ``num_envs`` values; sums over the assets add those rows in the
order NumPy sums one sub-env's row, so each sub-env's numbers are its single env's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._checks import random_start_option
from sekai.envs.finance.portfolio.env import LOGIT_SCALE, PortfolioEnv, cash_weights
from sekai.envs.finance.windowed.env import row_sum, simulated_prices
from sekai.envs.finance.windowed.vector import LEARNING_READ_ONLY, SHAPE_READ_ONLY, WindowedVecEnv
from sekai.error import InvalidAction
from sekai.finance.rewards import StepOutcome
from sekai.finance.simulators import GBM
from sekai.vector.template import Param

__all__ = ["PortfolioVecEnv"]

_FLOOR = 1e-12


def _column_sum(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``row_sum`` of the transposed ``x (k, N)``: each column summed as ``row_sum`` sums a row.

    Below 8 entries ``row_sum`` adds left to right, which adding the rows reproduces; from 8
    on it is NumPy's (pairwise) sum of a contiguous row, taken here on a transposed copy.
    """
    k = x.shape[0]
    if not 1 < k < 8:
        result: NDArray[np.float64] = np.ascontiguousarray(x.T).sum(axis=-1)
        return result
    total = x[0] + x[1]
    for j in range(2, k):
        total += x[j]
    return total


class PortfolioVecEnv(WindowedVecEnv[PortfolioEnv]):
    """``num_envs`` copies of ``PortfolioEnv`` stepped together.

    State arrays ``weights (N, n+1)`` (a property over the transposed ``_weights_t``) and
    ``portfolio_value (N,)``; internal ``_paths (N, window, n)``. Simulated windows come from
    ``GBM(mu, sigma, s0=100.0, corr=corr, dt=dt)`` (or ``model``).
    """

    env_class = PortfolioEnv
    n_assets = Param(SHAPE_READ_ONLY)
    allow_short = Param(SHAPE_READ_ONLY)
    corr = Param()
    mu = Param()
    sigma = Param()
    action_mode = Param(SHAPE_READ_ONLY)
    observation_mode = Param(SHAPE_READ_ONLY)
    reward_mode = Param(LEARNING_READ_ONLY)
    random_start = Param(LEARNING_READ_ONLY)
    _reset_option_names = ("random_start",)
    reward_description = Param("it follows from the settings")

    def _allocate(self) -> None:
        super()._allocate()
        n, size = self.num_envs, self.n_assets + 1
        self._weights_t: NDArray[np.float64] = cash_weights((n, size)).T.copy()
        self.portfolio_value: NDArray[np.float64] = np.ones(n)
        self._scratch: NDArray[np.float64] | None = None  # for resets of every sub-env

    @property
    def weights(self) -> NDArray[np.float64]:
        """Every sub-env's weights, ``(num_envs, n_assets + 1)`` with cash last; a copy."""
        return np.ascontiguousarray(self._weights_t.T)

    @weights.setter
    def weights(self, value: Any) -> None:
        shape = (self.num_envs, self.n_assets + 1)
        array = np.asarray(value, dtype=np.float64)
        if array.shape != shape:
            raise ValueError(f"weights must have shape {shape}, got shape {array.shape}.")
        self._weights_t = array.T.copy()

    def _asset_shape(self) -> tuple[int, ...]:
        return (self.template.n_assets,)

    def _gbm(self) -> GBM:
        template = self.template
        return GBM(template.mu, template.sigma, s0=100.0, corr=template.corr, dt=template.dt)

    def _simulate(self, count: int) -> NDArray[np.float64]:
        template = self.template
        steps = template.window - 1
        if template.model is not None:
            return simulated_prices(template.model, self.rng, steps, count)
        return self._gbm().simulate(self.rng, steps, n_paths=count).prices

    def _store_simulated(self, indices: NDArray[np.intp]) -> None:
        if self.template.model is not None or len(indices) < self.num_envs:
            super()._store_simulated(indices)
            return
        # Every window at once: simulate and take the logs in one reused buffer (with the log
        # returns as spare scratch) instead of fresh arrays of the whole batch.
        paths = self._paths
        if self._scratch is None:
            self._scratch = np.empty(paths.size)
        work = self._scratch[: self._log_returns.size].reshape(self._log_returns.shape)
        self._gbm()._prices_into(self.rng, paths, work, self._log_returns)
        logs = np.log(paths, out=self._scratch.reshape(paths.shape))
        np.subtract(logs[:, 1:], logs[:, :-1], out=self._log_returns)
        self._log_returns32[...] = self._log_returns

    def _scores_t(self, actions: Any, size: int) -> NDArray[np.float64]:
        """The batch ``actions (N, size)`` transposed to a new float64 ``(size, N)`` array.

        Another shape, a non-numeric dtype or a NaN / inf entry raises ``InvalidAction``.
        """
        try:
            array = np.asarray(actions)
        except (TypeError, ValueError) as exc:
            raise InvalidAction(actions, self.batch_action_space) from exc
        if array.shape != (self.num_envs, size) or array.dtype.kind not in "iuf":
            raise InvalidAction(actions, self.batch_action_space)
        scores = array.T.astype(np.float64, order="C")
        if not np.isfinite(scores).all():
            raise InvalidAction(actions, self.batch_action_space)
        return scores

    def _target_weights_t(self, actions: Any) -> NDArray[np.float64]:
        """Target weights ``(n+1, N)`` of a batch of actions, transposed (a new array)."""
        template = self.template
        n = template.n_assets
        if template.action_mode == "logits":
            scores = self._scores_t(actions, n + 1)
            np.clip(scores, -1.0, 1.0, out=scores)
            logits = scores[:-1] * LOGIT_SCALE
            logits -= logits.max(axis=0)
            exp = np.exp(logits)
            cash = np.maximum(0.0, -scores[-1])
            weights = np.empty((n + 1, self.num_envs))
            weights[:-1] = exp / _column_sum(exp) * (1.0 - cash)
            weights[-1] = cash
            return weights
        if not template.allow_short:
            scores = self._scores_t(actions, n + 1)
            np.maximum(scores, 0.0, out=scores)
            total = _column_sum(scores)
            small = total < 1e-12
            if small.any():
                total[small] = 1.0
                np.divide(scores, total, out=scores)
                scores[:, small] = cash_weights((n + 1,))[:, None]
                return scores
            return np.divide(scores, total, out=scores)
        scores = self._scores_t(actions, n)
        np.clip(scores, -1.0, 1.0, out=scores)
        gross = _column_sum(np.abs(scores))
        np.divide(scores, np.where(gross > 1.0, gross, 1.0), out=scores)
        weights = np.empty((n + 1, self.num_envs))
        weights[:-1] = scores
        np.subtract(1.0, _column_sum(scores), out=weights[-1])
        return weights

    def action_to_weights(self, actions: Any) -> NDArray[np.float64]:
        """Target weights ``(N, n+1)`` of a batch of actions (the single env's rule per row)."""
        return np.ascontiguousarray(self._target_weights_t(actions).T)

    def reference_policies(self) -> dict[str, Callable[[Any], Any]]:
        """The single env's reference policies (each takes a batch of observations)."""
        return self.template.reference_policies()

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self._reset_windows(indices, options)
        default = self.template.random_start
        random = np.array([random_start_option(entry, default) for entry in options], dtype=bool)
        self._weights_t[:, indices] = cash_weights((self.n_assets + 1,))[:, None]
        if random.any():
            draws = self.rng.standard_exponential((int(random.sum()), self.n_assets + 1))
            self._weights_t[:, indices[random]] = (draws / row_sum(draws)[:, None]).T
        self.portfolio_value = self.portfolio_value.copy()
        self.portfolio_value[indices] = 1.0

    def _returns(self, steps: NDArray[np.int64]) -> NDArray[np.float64]:
        """Each sub-env's simple asset returns ``(N, n)`` over its decision step ``steps``."""
        index = self._path_rows + steps
        paths = self._paths.reshape(-1, self.n_assets)
        returns = paths.take(index + 1, axis=0)
        returns /= paths.take(index, axis=0)
        returns -= 1.0
        return returns

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, NDArray[Any]]:
        size = len(indices)
        zeros = np.zeros(size)
        values = self.portfolio_value[indices]
        return {
            "portfolio_value": values,
            "equity": values,
            "weights": self._weights_t[:, indices].T,
            "turnover": zeros,
            "cost": zeros,
            "asset_returns": np.zeros((size, self.n_assets)),
            "timestamp": self._timestamps(self._t)[indices],
            "dt": np.full(size, self.template.dt),
        }

    def _observe(self) -> dict[str, NDArray[np.float32]]:
        template = self.template
        mode = template.observation_mode
        weights = self._weights_t.T.astype(np.float32, order="C")
        if mode == "returns":
            return {"returns": self._observed_windows(), "weights": weights}
        length = template.episode_length
        time_left = ((length - self._t) / length).astype(np.float32)[:, None]
        if mode == "state":
            return {"weights": weights, "time_left": time_left}
        returns = self._observed_windows() / template.learning_scales().returns
        return {"returns": returns, "weights": weights, "time_left": time_left}

    def _expected_log_growth(
        self, assets_t: NDArray[np.float64], gross: NDArray[np.float64], cost: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """The ``"expected"`` rewards of rebalancing to ``assets_t (n, N)`` (the single env's
        ``_expected_log_growth`` per sub-env)."""
        scales = self.template.learning_scales()
        growth = scales.growth
        assert growth is not None
        y = gross - 1.0
        remainder = np.log(np.maximum(gross, _FLOOR)) - y + 0.5 * y * y
        first = _column_sum(assets_t * growth.mean[:, None])
        second = growth.second
        moved = np.stack([_column_sum(second[i][:, None] * assets_t) for i in range(len(assets_t))])
        kept = np.log(np.maximum(1.0 - cost, _FLOOR))
        excess = kept + remainder + (first - 0.5 * _column_sum(assets_t * moved)) - scales.benchmark
        result: NDArray[np.float64] = excess / scales.reward
        return result

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        template = self.template
        n = self.num_envs
        target = self._target_weights_t(actions)
        weights, value = self._weights_t, self.portfolio_value
        steps = self._decision_steps()
        trades_t = target[:-1] - weights[:-1]
        turnover = _column_sum(np.abs(trades_t))
        # Cost models take trades (N, n) with each sub-env's row contiguous, as a single env's.
        trades = np.ascontiguousarray(trades_t.T)
        cost = np.asarray(
            template.cost_model(trades, **self._cost_context(value, steps)), dtype=np.float64
        )
        r = self._returns(steps)
        # One dot product per sub-env, as the single env's ``target[:-1] @ r`` takes it.
        invested = np.ascontiguousarray(target[:-1].T)[:, None, :]
        gross = np.matmul(invested, r[:, :, None])[:, 0, 0]
        gross += 1.0
        mode = template.reward_mode
        if mode == "expected":
            expected = self._expected_log_growth(target[:-1], gross, cost)
        growth = 1.0 - cost
        growth *= gross
        growth[cost >= 1.0] = 0.0
        alive = growth > 0.0
        drifted = target
        drifted[:-1] *= 1.0 + r.T
        with np.errstate(divide="ignore", invalid="ignore"):
            new_weights = np.divide(drifted, _column_sum(drifted), out=drifted)
        if not alive.all():
            new_weights[:, ~alive] = cash_weights((self.n_assets + 1,))[:, None]
        new_value = np.where(alive, value * growth, 0.0)
        t = self._t
        active = self.active
        if active is not None:  # frozen sub-envs keep their state
            frozen = ~active
            new_weights[:, frozen] = weights[:, frozen]
            new_value = np.where(frozen, value, new_value)
            growth[frozen] = 1.0
            t = t + ~frozen
        else:
            t = t + 1
        self._weights_t, self.portfolio_value, self._t = new_weights, new_value, t
        outcome = StepOutcome.from_growth(
            growth, equity=new_value, turnover=turnover, cost=cost, previous_equity=value
        )
        if mode == "realised":
            rewards = template.reward_fn(outcome)
        elif mode == "relative":
            benchmark = np.log(1.0 + row_sum(r) / template.n_assets)
            rewards = (outcome.log_return - benchmark) / template.learning_scales().reward
        else:
            rewards = expected
        terminated = growth <= 0.0
        truncated = (t >= template.episode_length) & ~terminated
        infos = {
            "portfolio_value": new_value,
            "equity": new_value,
            "weights": new_weights.T,
            "turnover": turnover,
            "cost": cost,
            "asset_returns": r,
            "timestamp": self._timestamps(t),
            "dt": np.full(n, template.dt),
        }
        return rewards, terminated, truncated, infos
