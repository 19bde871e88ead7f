"""Portfolio-v0: allocate equity between n assets and cash with continuous weights."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.finance._checks import check_int, episode_ended
from sekai.envs.finance.windowed.env import WindowedEnv, row_sum, simulated_prices
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.rewards import RewardFunction, StepOutcome
from sekai.finance.simulators import GBM, MarketModel, random_correlation, simulate_gbm
from sekai.spaces import Box, Dict

__all__ = ["PortfolioEnv", "cash_weights"]

_INF = float("inf")
_DEFAULT_ASSETS = 5


def cash_weights(shape: tuple[int, ...]) -> NDArray[np.float64]:
    """All-cash weights: zeros with a 1 in the last (cash) column."""
    weights = np.zeros(shape)
    weights[..., -1] = 1.0
    return weights


class PortfolioEnv(WindowedEnv):
    """Rebalance ``n_assets`` assets and cash to target weights every step.

    Long-only, the action scores assets and cash (last) and is normalised to weights; with
    ``allow_short`` it gives the asset weights directly (gross exposure at most 1, cash takes
    the rest). Rebalancing costs ``cost_model(trades)``; equity then grows by
    ``(1 - cost)(1 + target·r)``. Observation: ``returns`` (the last ``lookback`` rows of log
    returns) and the drifted ``weights`` (cash last).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 10}
    _ndim = 2

    def __init__(
        self,
        prices: Any = None,
        *,
        data: Any = None,
        n_assets: int | None = None,
        episode_length: int = 252,
        lookback: int = 30,
        transaction_cost: Any = 1e-3,
        allow_short: bool = False,
        mu: Any = None,
        sigma: Any = None,
        corr: Any = None,
        dt: float | None = None,
        model: MarketModel | None = None,
        reward: RewardFunction | None = None,
        sampler: Any = "random",
        capital: float = 1_000_000.0,
    ) -> None:
        self._setup(
            prices=prices,
            data=data,
            model=model,
            episode_length=episode_length,
            lookback=lookback,
            transaction_cost=transaction_cost,
            dt=dt,
            reward=reward,
            sampler=sampler,
            capital=capital,
        )
        given = None if n_assets is None else check_int(n_assets, "n_assets", low=1)
        if self._history is not None:
            n = self._history.prices.shape[1]
        elif model is not None:
            n = model.n_assets
        else:
            n = _DEFAULT_ASSETS if given is None else given
        if given is not None and given != n:
            raise ValueError(f"n_assets={given} disagrees with the {n} assets of the market.")
        self.n_assets = n
        if not isinstance(allow_short, (bool, np.bool_)):
            raise ValueError(f"allow_short must be a bool, got {allow_short!r}.")
        self.allow_short = bool(allow_short)
        gbm = GBM(
            np.full(n, 0.06) if mu is None else mu,
            np.linspace(0.15, 0.35, n) if sigma is None else sigma,
            corr=random_correlation(np.random.default_rng(0), n) if corr is None else corr,
            dt=self.dt,
            n_assets=n,
        )
        self.mu: NDArray[np.float64] = gbm.mu
        self.sigma: NDArray[np.float64] = gbm.sigma
        self.corr: NDArray[np.float64] | None = gbm.corr
        low = -_INF if self.allow_short else 0.0
        high = _INF if self.allow_short else 1.0
        self.observation_space = Dict(
            {
                "returns": Box(-_INF, _INF, shape=(self._lookback, n), dtype=np.float32),
                "weights": Box(low, high, shape=(n + 1,), dtype=np.float32),
            }
        )
        if self.allow_short:
            self.action_space = Box(-1.0, 1.0, shape=(n,), dtype=np.float32)
        else:
            self.action_space = Box(0.0, 1.0, shape=(n + 1,), dtype=np.float32)
        self.weights = cash_weights((n + 1,))
        self.portfolio_value = 1.0

    def action_to_weights(self, action: Any) -> NDArray[np.float64]:
        """Target weights ``(n+1,)`` (cash last) of an action; bad shape or NaN -> InvalidAction."""
        try:
            array = np.asarray(action)
        except (TypeError, ValueError) as exc:
            raise InvalidAction(action, self.action_space) from exc
        if array.shape != self.action_space.shape or array.dtype.kind not in "iuf":
            raise InvalidAction(action, self.action_space)
        scores = array.astype(np.float64)
        if not np.isfinite(scores).all():
            raise InvalidAction(action, self.action_space)
        if not self.allow_short:
            scores = np.maximum(scores, 0.0)
            total = row_sum(scores)
            if total < 1e-12:
                return cash_weights(scores.shape)
            result: NDArray[np.float64] = scores / total
            return result
        scores = np.clip(scores, -1.0, 1.0)
        gross = row_sum(np.abs(scores))
        if gross > 1.0:
            scores = scores / gross
        weights = np.empty(self.n_assets + 1)
        weights[:-1] = scores
        weights[-1] = 1.0 - row_sum(scores)
        return weights

    def _simulate(self) -> NDArray[np.float64]:
        steps = self._window - 1
        if self.model is not None:
            return simulated_prices(self.model, self.rng, steps)
        return simulate_gbm(
            self.rng,
            steps,
            s0=np.full(self.n_assets, 100.0),
            mu=self.mu,
            sigma=self.sigma,
            dt=self.dt,
            corr=self.corr,
        )

    def _observation(self) -> dict[str, NDArray[np.float32]]:
        t = self.elapsed_steps
        return {
            "returns": self._log_returns32[t : t + self._lookback].copy(),
            "weights": self.weights.astype(np.float32),
        }

    def _info(self, turnover: float, cost: float, returns: NDArray[np.float64]) -> dict[str, Any]:
        """The info of the reset or of a step, noted in the episode log."""
        value = self.portfolio_value
        info = {
            "portfolio_value": value,
            "equity": value,
            "weights": self.weights.copy(),
            "turnover": turnover,
            "cost": cost,
            "asset_returns": returns,
            "timestamp": self._stamp(self.elapsed_steps),
            "dt": self.dt,
        }
        self._log.note(self.elapsed_steps, info)
        return info

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[dict[str, NDArray[np.float32]]]:
        """Start in cash with value 1 on a new window (``options={"start": row or time}``)."""
        check_reset_options(self, options, ("start",))
        self._set_rng(seed)
        self._start_episode(options)
        self.weights = cash_weights((self.n_assets + 1,))
        self.portfolio_value = 1.0
        return ResetResult(self._observation(), self._info(0.0, 0.0, np.zeros(self.n_assets)))

    def step(self, action: Any) -> StepResult[dict[str, NDArray[np.float32]]]:
        """Rebalance to the action's target weights, then let prices move one row."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        target = self.action_to_weights(action)
        value = self.portfolio_value
        trades = target[:-1] - self.weights[:-1]
        turnover = float(row_sum(np.abs(trades)))
        cost = float(self.cost_model(trades, **self._cost_context(value)))
        t = self.elapsed_steps
        i = self._lookback + t
        path = self._path
        r = path[i + 1] / path[i] - 1.0
        gross = 1.0 + float(target[:-1] @ r)
        growth = 0.0 if cost >= 1.0 else (1.0 - cost) * gross
        if growth > 0.0:
            drifted = target.copy()
            drifted[:-1] *= 1.0 + r
            self.weights = drifted / row_sum(drifted)
            new_value = value * growth
        else:
            self.weights = cash_weights(target.shape)
            new_value = 0.0
        self.portfolio_value = new_value
        self.elapsed_steps = t + 1
        reward = self._reward_fn(
            StepOutcome.from_growth(
                growth, equity=new_value, turnover=turnover, cost=cost, previous_equity=value
            )
        )
        terminated = growth <= 0.0
        truncated = not terminated and t + 1 >= self._episode_length
        self._done = terminated or truncated
        return StepResult(
            self._observation(), float(reward), terminated, truncated, self._info(turnover, cost, r)
        )
