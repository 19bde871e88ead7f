"""Portfolio-v0: allocate equity between n assets and cash with continuous weights."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.finance._checks import check_int, episode_ended, random_start_option
from sekai.envs.finance.windowed.config import WindowConfig
from sekai.envs.finance.windowed.env import (
    row_sum,
    simulated_prices,
)
from sekai.envs.finance.windowed.growth import GBMGrowth, best_constant_weights
from sekai.envs.finance.windowed.learnable import LEARNABLE_RESET_OPTIONS, LearnableWindowedEnv
from sekai.envs.finance.windowed.learning import sample_std
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.rewards import RewardFunction, StepOutcome
from sekai.finance.simulators import GBM, MarketModel, random_correlation, simulate_gbm
from sekai.spaces import Box, Dict
from sekai.utils.validation import check_choice

__all__ = ["LOGIT_SCALE", "PortfolioEnv", "cash_weights"]

_INF = float("inf")
_DEFAULT_ASSETS = 5
_FLOOR = 1e-12
#: ``action_mode="logits"``: asset weights are ``softmax(LOGIT_SCALE * action[:-1])``.
LOGIT_SCALE = 3.0


class LearningScales(NamedTuple):
    """The scales of the learnable settings for the current market parameters.

    ``returns``: each asset's per-step log-return volatility (float32, what ``"scaled"``
    observations divide by); ``reward``: what ``"relative"`` (the equal-weight benchmark's
    per-step volatility) or ``"expected"`` (its square) rewards divide by; ``growth``: the
    GBM's one-step return moments for ``"expected"`` and ``benchmark`` the equal-weight
    benchmark's expected log return (0 where unused).
    """

    returns: NDArray[np.float32]
    reward: float
    growth: GBMGrowth | None
    benchmark: float


def cash_weights(shape: tuple[int, ...]) -> NDArray[np.float64]:
    """All-cash weights: zeros with a 1 in the last (cash) column."""
    weights = np.zeros(shape)
    weights[..., -1] = 1.0
    return weights


class PortfolioEnv(LearnableWindowedEnv):
    """Rebalance ``n_assets`` assets and cash to target weights every step.

    Long-only, the action scores assets and cash (last) and is normalised to weights; with
    ``allow_short`` it gives the asset weights directly (gross exposure at most 1, cash takes
    the rest). Rebalancing costs ``cost_model(trades)``; equity then grows by
    ``(1 - cost)(1 + target·r)``. Observation: ``returns`` (the last ``lookback`` rows of log
    returns) and the drifted ``weights`` (cash last).

    The learnable settings (``Portfolio-v1``; see ``sekai.envs.finance.windowed.learning``):
    ``action_mode="logits"`` takes an action in ``[-1, 1]^(n+1)``: the asset weights are
    ``softmax(LOGIT_SCALE * action[:-1])`` scaled by ``1 - cash`` with the cash weight
    ``max(0, -action[-1])``, so the action 0 is the equal-weight portfolio.
    ``observation="state"`` observes ``weights`` and ``time_left`` only, ``"scaled"`` adds
    the log returns divided by each asset's per-step volatility; ``reward_mode="relative"``
    is the log return in excess of the equal-weight benchmark's and ``"expected"`` its
    expectation given the weights and the cost, both on unit scale; ``random_start`` draws
    the first weights uniformly from the simplex (assets and cash; a reset's
    ``options={"random_start": ...}`` decides it for that reset).
    """

    _benchmark = "the equal-weight portfolio"

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
        action_mode: str = "scores",
        observation: str = "returns",
        reward_mode: str = "realised",
        random_start: bool = False,
    ) -> None:
        config = WindowConfig(
            episode_length, lookback, transaction_cost, dt, reward, sampler, capital
        )
        self._setup(prices=prices, data=data, model=model, config=config)
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
        self._action_mode = check_choice(action_mode, "action_mode", ("scores", "logits"))
        if self._action_mode == "logits" and self.allow_short:
            raise ValueError(
                "action_mode='logits' gives long-only weights; it needs allow_short=False, "
                "got allow_short=True."
            )
        self._setup_learning(
            observation=observation,
            reward_mode=reward_mode,
            random_start=random_start,
            reward=reward,
        )
        self._constants: tuple[tuple[Any, ...], LearningScales] | None = None
        self._best: tuple[tuple[Any, ...], NDArray[np.float64]] | None = None
        low = -_INF if self.allow_short else 0.0
        high = _INF if self.allow_short else 1.0
        spaces = {
            "returns": Box(-_INF, _INF, shape=(self._lookback, n), dtype=np.float32),
            "weights": Box(low, high, shape=(n + 1,), dtype=np.float32),
            "time_left": Box(0.0, 1.0, shape=(1,), dtype=np.float32),
        }
        mode = self._learning.observation
        keys = {"returns": ("returns", "weights"), "state": ("weights", "time_left")}
        self.observation_space = Dict(
            {key: spaces[key] for key in keys.get(mode, ("returns", "weights", "time_left"))}
        )
        if self._action_mode == "logits":
            self.action_space = Box(-1.0, 1.0, shape=(n + 1,), dtype=np.float32)
        elif self.allow_short:
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
        if self._action_mode == "logits":
            return _softmax_weights(scores)
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

    @property
    def action_mode(self) -> str:
        """How an action gives weights: ``"scores"`` or ``"logits"`` (read-only)."""
        return self._action_mode

    def _own_gbm(self) -> tuple[Any, Any, Any, float]:
        return self.mu, self.sigma, self.corr, self.dt

    def _gbm_growth(self) -> GBMGrowth | None:
        """The one-step returns of the env's GBM (None for a history or another model)."""
        gbm = self._gbm_parameters()
        return None if gbm is None else GBMGrowth.of(*gbm)

    def learning_scales(self) -> LearningScales:
        """The ``LearningScales`` of the current parameters (recomputed when one changes)."""
        key = (self.mu, self.sigma, self.corr, self.dt, self.model)
        cached = self._constants
        if cached is not None and all(a is b for a, b in zip(cached[0], key, strict=True)):
            return cached[1]
        n = self.n_assets
        equal = np.full(n, 1.0 / n)
        growth = self._gbm_growth()
        benchmark = 0.0
        if growth is None:
            log_returns = self._log_return_sample()
            volatility = sample_std(log_returns)
            bench = np.log1p(np.expm1(log_returns).mean(axis=1))
            scale = float(sample_std(bench[:, None])[0])
        else:
            volatility = growth.sigma * np.sqrt(growth.dt)
            volatility = np.where(volatility > 0.0, volatility, 1.0)
            variance = float(equal @ growth.covariance @ equal) * growth.dt
            scale = float(np.sqrt(variance)) if variance > 0.0 else 1.0
            if self._learning.reward_mode == "expected":
                benchmark = float(growth.log_growth(equal))
            else:
                growth = None
        reward = scale**2 if self._learning.reward_mode == "expected" else scale
        scales = LearningScales(volatility.astype(np.float32), reward, growth, benchmark)
        self._constants = (key, scales)
        return scales

    def best_constant_weights(self) -> NDArray[np.float64]:
        """The long-only constant weights ``(n+1,)`` (cash last) of ``"best_constant"``.

        Maximise the expected episode log growth of rebalancing to them at every step under
        the env's GBM, the cost of every rebalance counted (the first from cash, or from
        uniform random weights with ``random_start``); see ``growth.best_constant_weights``.
        Needs a GBM with known parameters and a cost model that needs no context
        (``ValueError`` otherwise). Cached per parameter set.
        """
        gbm = self._gbm_parameters()
        if gbm is None or self.cost_model.requires:
            raise ValueError(
                "best constant weights need a simulated GBM market with known parameters and "
                "a cost model that needs no context."
            )
        key = (*gbm, self.cost_model, self._learning.random_start)
        cached = self._best
        if cached is not None and all(a is b for a, b in zip(cached[0], key, strict=True)):
            return cached[1].copy()
        weights, _ = best_constant_weights(
            GBMGrowth.of(*gbm),
            self.cost_model,
            self._episode_length,
            random_start=self._learning.random_start,
        )
        self._best = (key, weights)
        return weights.copy()

    def weights_to_action(self, weights: Any) -> NDArray[np.float32]:
        """An action giving the long-only ``weights (n+1,)`` (cash last) in this action mode.

        ``"scores"``: the weights themselves (the asset weights with ``allow_short``).
        ``"logits"``: cash ``-w_cash``; asset logits ``log(w_i) / LOGIT_SCALE`` centred on 0,
        those below ``exp(-2 LOGIT_SCALE)`` times the largest weight raised to it (the
        smallest ratio the action reaches).
        """
        w = np.asarray(weights, dtype=np.float64)
        if self._action_mode == "scores":
            return (w[:-1] if self.allow_short else w).astype(np.float32)
        assets = w[:-1]
        floor = np.exp(-2.0 * LOGIT_SCALE) * assets.max()
        logits = np.log(np.maximum(assets, floor)) / LOGIT_SCALE if floor > 0 else 0 * assets
        logits = logits - 0.5 * (logits.max() + logits.min())
        action = np.empty(len(w), dtype=np.float32)
        action[:-1] = np.clip(logits, -1.0, 1.0)
        action[-1] = -w[-1]
        return action

    def reference_policies(self) -> dict[str, Callable[[Any], Any]]:
        """Named reference policies: observation (or batch of them) to action (actions).

        ``"equal_weight"``: weight ``1/n`` on every asset, no cash, at every step.
        ``"best_constant"`` (a simulated GBM market with known parameters and a cost model
        that needs no context): rebalance every step to ``best_constant_weights()``, the
        long-only weights whose expected episode log growth, costs included, is the largest.
        The env's log-return reward summed over an episode is the log growth of equity (and
        the ``"relative"`` and ``"expected"`` rewards are affine in it with policy-free
        terms), so among constant weights this maximises the expected episode reward.
        """
        n = self.n_assets
        equal = np.full(n + 1, 1.0 / n)
        equal[-1] = 0.0
        policies = {"equal_weight": _constant_policy(self.weights_to_action(equal))}
        if self._gbm_parameters() is not None and not self.cost_model.requires:
            best = self.best_constant_weights()
            policies["best_constant"] = _constant_policy(self.weights_to_action(best))
        return policies

    def _expected_log_growth(self, assets: NDArray[np.float64], gross: float, cost: float) -> float:
        """The ``"expected"`` reward of rebalancing to ``assets`` at ``cost``: the log return's
        expectation, ``log(1 - cost) + E[w·r] - E[(w·r)^2]/2`` plus the realised third-order
        remainder ``log(gross) - y + y^2/2`` (``y = w·r``, mean ~ 0 and noise of third order in
        the volatility), less the benchmark's expected log return, over the reward scale."""
        scales = self.learning_scales()
        growth = scales.growth
        assert growth is not None
        y = gross - 1.0
        remainder = float(np.log(max(gross, _FLOOR))) - y + 0.5 * y * y
        first = row_sum(assets * growth.mean)
        second = growth.second
        moved = np.array([row_sum(second[i] * assets) for i in range(len(assets))])
        kept = float(np.log(max(1.0 - cost, _FLOOR)))
        excess = kept + remainder + (first - 0.5 * row_sum(assets * moved)) - scales.benchmark
        return float(excess / scales.reward)

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
        mode = self._learning.observation
        weights = self.weights.astype(np.float32)
        if mode == "returns":
            return {
                "returns": self._log_returns32[t : t + self._lookback].copy(),
                "weights": weights,
            }
        time_left = np.array([self._time_left()], dtype=np.float32)
        if mode == "state":
            return {"weights": weights, "time_left": time_left}
        returns = self._log_returns32[t : t + self._lookback] / self.learning_scales().returns
        return {"returns": returns, "weights": weights, "time_left": time_left}

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
        """Start in cash (or, with ``random_start``, at weights drawn uniformly from the
        simplex) with value 1 on a new window (``options={"start": row or time, "end": row or
        time, "random_start": bool}``)."""
        checked = check_reset_options(self, options, LEARNABLE_RESET_OPTIONS)
        self._set_rng(seed)
        self._start_episode(options)
        if random_start_option(checked, self._learning.random_start):
            draws = self.rng.standard_exponential(self.n_assets + 1)
            self.weights = draws / row_sum(draws)
        else:
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
        mode = self._learning.reward_mode
        if mode == "expected":
            expected = self._expected_log_growth(target[:-1], gross, cost)
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
        outcome = StepOutcome.from_growth(
            growth, equity=new_value, turnover=turnover, cost=cost, previous_equity=value
        )
        if mode == "realised":
            reward = self._reward_fn(outcome)
        elif mode == "relative":
            benchmark = float(np.log(1.0 + row_sum(r) / self.n_assets))
            reward = (outcome.log_return - benchmark) / self.learning_scales().reward
        else:
            reward = expected
        terminated = growth <= 0.0
        truncated = not terminated and t + 1 >= self._steps
        self._done = terminated or truncated
        return StepResult(
            self._observation(), float(reward), terminated, truncated, self._info(turnover, cost, r)
        )


def _softmax_weights(action: NDArray[np.float64]) -> NDArray[np.float64]:
    """The ``"logits"`` weights ``(n+1,)`` of an action (see ``PortfolioEnv``)."""
    clipped = np.clip(action, -1.0, 1.0)
    logits = clipped[:-1] * LOGIT_SCALE
    logits -= logits.max()
    exp = np.exp(logits)
    cash = max(0.0, -float(clipped[-1]))
    weights = np.empty(len(action))
    weights[:-1] = exp / row_sum(exp) * (1.0 - cash)
    weights[-1] = cash
    return weights


def _constant_policy(action: NDArray[np.float32]) -> Callable[[Any], Any]:
    """The policy taking ``action`` for one observation, or for each of a batch."""

    def policy(observation: Any) -> Any:
        weights = np.asarray(observation["weights"])
        if weights.ndim == 1:
            return action.copy()
        return np.tile(action, (weights.shape[0], 1))

    return policy
