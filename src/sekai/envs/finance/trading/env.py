"""Trading-v0: hold one asset at a target position chosen from a discrete set."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.finance._checks import check_float, episode_ended, random_start_option
from sekai.envs.finance.windowed.config import WindowConfig
from sekai.envs.finance.windowed.env import (
    real_sequence,
    simulated_prices,
)
from sekai.envs.finance.windowed.growth import expected_log_growth_1d
from sekai.envs.finance.windowed.learnable import LEARNABLE_RESET_OPTIONS, LearnableWindowedEnv
from sekai.envs.finance.windowed.learning import sample_std
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.rewards import RewardFunction, StepOutcome
from sekai.finance.simulators import MarketModel, simulate_gbm
from sekai.spaces import Box, Discrete

__all__ = ["TradingEnv"]

_INF = float("inf")
_FLOOR = 1e-12
_from_growth = StepOutcome.from_growth


class LearningScales(NamedTuple):
    """The scales of the learnable settings for the current market parameters.

    ``returns``: the per-step volatility of the log returns (float32, what ``"scaled"``
    observations divide by); ``reward``: what ``"relative"`` (the volatility) or
    ``"expected"`` (its square) rewards divide by; ``growth``: the expected log return of
    each position for ``"expected"`` (else None).
    """

    returns: np.float32
    reward: float
    growth: NDArray[np.float64] | None


def _position_bounds(positions: NDArray[np.float64]) -> tuple[float, float]:
    """Observation bounds of the drifted position: ``[0, 1]`` where the targets allow it."""
    low = 0.0 if positions.min() >= 0 else -_INF
    high = 1.0 if positions.max() <= 1 else _INF
    return low, high


def _constant_policy(index: int) -> Callable[[Any], Any]:
    """The policy choosing action ``index`` for one observation, or for each of a batch."""

    def policy(observation: Any) -> Any:
        batch = np.asarray(observation)
        if batch.ndim == 1:
            return index
        return np.full(batch.shape[0], index, dtype=np.int64)

    return policy


class TradingEnv(LearnableWindowedEnv):
    """Trade one asset by choosing a target position (a weight of equity) each step.

    Action ``a`` sets the weight ``positions[a]``; rebalancing from the drifted position costs
    ``cost_model([trade])``, then the price moves by ``r`` and equity grows by
    ``(1 - cost)(1 + w·r)``. Observation: the last ``lookback`` log returns, then the drifted
    position. The episode truncates after ``episode_length`` steps and terminates when equity
    is wiped out.

    The learnable settings (``Trading-v1``; see ``sekai.envs.finance.windowed.learning``):
    ``observation="state"`` observes ``[position, time_left]`` and ``"scaled"`` the log
    returns divided by their per-step volatility before them; ``reward_mode="relative"`` is
    the log return in excess of holding the asset (position 1) and ``"expected"`` the
    expected log return of the step given the position and its cost, both on unit scale;
    ``random_start`` draws the first position uniformly from ``positions`` (a reset's
    ``options={"random_start": ...}`` decides it for that reset).
    """

    _benchmark = "holding the asset"

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 10}
    _ndim = 1

    def __init__(
        self,
        prices: Any = None,
        *,
        data: Any = None,
        episode_length: int = 252,
        lookback: int = 30,
        positions: Any = (-1.0, 0.0, 1.0),
        transaction_cost: Any = 1e-3,
        mu: float = 0.05,
        sigma: float = 0.2,
        dt: float | None = None,
        s0: float = 100.0,
        model: MarketModel | None = None,
        reward: RewardFunction | None = None,
        sampler: Any = "random",
        capital: float = 1_000_000.0,
        observation: str = "returns",
        reward_mode: str = "realised",
        random_start: bool = False,
    ) -> None:
        self.positions = positions
        self.mu = check_float(mu, "mu")
        self.sigma = check_float(sigma, "sigma", low=0.0)
        self.s0 = check_float(s0, "s0", low=0.0, low_open=True)
        config = WindowConfig(
            episode_length, lookback, transaction_cost, dt, reward, sampler, capital
        )
        self._setup(prices=prices, data=data, model=model, config=config)
        if model is not None and model.n_assets != 1:
            raise ValueError(f"Trading-v0 trades one asset; the model has {model.n_assets}.")
        self._setup_learning(
            observation=observation,
            reward_mode=reward_mode,
            random_start=random_start,
            reward=reward,
        )
        self._constants: tuple[tuple[Any, ...], LearningScales] | None = None
        mode = self._learning.observation
        n_returns = 0 if mode == "state" else self._lookback
        low, high = _position_bounds(self._positions)
        lows, highs = [-_INF] * n_returns + [low], [_INF] * n_returns + [high]
        if mode != "returns":
            lows.append(0.0)
            highs.append(1.0)
        self.observation_space = Box(
            np.array(lows, dtype=np.float32),
            np.array(highs, dtype=np.float32),
            shape=(len(lows),),
            dtype=np.float32,
        )
        self.action_space = Discrete(len(self._positions))
        self.position = 0.0
        self.equity = 1.0
        self._path_list: list[float] = []

    @property
    def positions(self) -> NDArray[np.float64]:
        """Target weights, one per action (float64, read-only)."""
        return self._positions

    @positions.setter
    def positions(self, value: Any) -> None:
        positions = real_sequence(value, "positions")
        if len(positions) < 2:
            raise ValueError(f"positions needs at least 2 entries, got {value!r}.")
        self._positions = positions
        self._position_list: list[float] = positions.tolist()

    @property
    def price(self) -> float:
        """Price at the current decision row."""
        self._check_started()
        return self._path_list[self._lookback + self.elapsed_steps]

    def _own_gbm(self) -> tuple[Any, Any, Any, float]:
        return self.mu, self.sigma, None, self.dt

    def learning_scales(self) -> LearningScales:
        """The ``LearningScales`` of the current parameters (recomputed when one changes)."""
        key = (self.mu, self.sigma, self.dt, self._positions, self.model)
        cached = self._constants
        if cached is not None and all(a is b for a, b in zip(cached[0], key, strict=True)):
            return cached[1]
        gbm = self._gbm_parameters()
        growth = None
        if gbm is None:
            volatility = float(sample_std(self._log_return_sample())[0])
        else:
            sigma = float(np.reshape(gbm[1], -1)[0])
            volatility = sigma * float(np.sqrt(gbm[3])) if sigma > 0.0 else 1.0
            if self._learning.reward_mode == "expected":
                growth = self._growth_table()
        reward = volatility**2 if self._learning.reward_mode == "expected" else volatility
        scales = LearningScales(np.float32(volatility), reward, growth)
        self._constants = (key, scales)
        return scales

    def reference_policies(self) -> dict[str, Callable[[Any], Any]]:
        """Named reference policies: observation (or batch of them) to action index (indices).

        ``"growth_optimal"`` (a simulated GBM market with known parameters): always the
        position ``p`` of ``positions`` with the largest expected log return per step,
        ``E[log(1 + p r)]``, the Kelly fraction ``mu / sigma^2`` clipped to the allowed
        positions (the nearest one in continuous time; always long when ``mu / sigma^2 > 1``
        and ``positions`` are ``(-1, 0, 1)``). The env's log-return reward summed over an
        episode is the log growth of equity, so this maximises its expectation up to the costs
        of rebalancing a drifting position, and of the one trade into it, which is repaid
        within a few steps. ``"flat"`` (where 0 is a position): always position 0, reward 0.
        """
        policies: dict[str, Callable[[Any], Any]] = {}
        if self._gbm_parameters() is not None:
            best = int(np.argmax(self._growth_table()))
            policies["growth_optimal"] = _constant_policy(best)
        zero = np.nonzero(self._positions == 0.0)[0]
        if len(zero):
            policies["flat"] = _constant_policy(int(zero[0]))
        return policies

    def _growth_table(self) -> NDArray[np.float64]:
        """``E[log(1 + p r)]`` of each position under the env's GBM."""
        gbm = self._gbm_parameters()
        assert gbm is not None
        mu, sigma = (float(np.reshape(v, -1)[0]) for v in gbm[:2])
        return expected_log_growth_1d(self._positions, mu, sigma, gbm[3])

    def _simulate(self) -> NDArray[np.float64]:
        steps = self._window - 1
        if self.model is not None:
            return simulated_prices(self.model, self.rng, steps)[:, 0]
        return simulate_gbm(self.rng, steps, s0=self.s0, mu=self.mu, sigma=self.sigma, dt=self.dt)

    def _observation(self) -> NDArray[np.float32]:
        lookback = self._lookback
        t = self.elapsed_steps
        mode = self._learning.observation
        if mode == "returns":
            obs = np.empty(lookback + 1, dtype=np.float32)
            obs[:lookback] = self._log_returns32[t : t + lookback]
            obs[lookback] = self.position
            return obs
        if mode == "state":
            return np.array([self.position, self._time_left()], dtype=np.float32)
        obs = np.empty(lookback + 2, dtype=np.float32)
        obs[:lookback] = self._log_returns32[t : t + lookback] / self.learning_scales().returns
        obs[lookback] = self.position
        obs[lookback + 1] = self._time_left()
        return obs

    def _info(self, asset_return: float, cost: float, turnover: float) -> dict[str, Any]:
        """The info of the reset or of a step, noted in the episode log."""
        t = self.elapsed_steps
        info = {
            "equity": self.equity,
            "position": self.position,
            "price": self._path_list[self._lookback + t],
            "asset_return": asset_return,
            "cost": cost,
            "turnover": turnover,
            "timestamp": self._stamp(t),
            "dt": self.dt,
        }
        self._log.note(t, info)
        return info

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start flat (or, with ``random_start``, at a position drawn uniformly from
        ``positions``) with equity 1 on a new window (``options={"start": row or time, "end":
        row or time, "random_start": bool}``)."""
        checked = check_reset_options(self, options, LEARNABLE_RESET_OPTIONS)
        self._set_rng(seed)
        self._start_episode(options)
        self._path_list = self._path.tolist()
        if random_start_option(checked, self._learning.random_start):
            self.position = self._position_list[int(self.rng.integers(len(self._positions)))]
        else:
            self.position = 0.0
        self.equity = 1.0
        return ResetResult(self._observation(), self._info(0.0, 0.0, 0.0))

    def step(self, action: Any) -> StepResult[NDArray[np.float32]]:
        """Rebalance to ``positions[action]``, then let the price move one row."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        if type(action) is not int or not 0 <= action < len(self._position_list):
            if not self.action_space.contains(action):
                raise InvalidAction(action, self.action_space)
            action = int(action)
        target = self._position_list[action]
        position = self.position
        equity = self.equity
        trade = target - position
        cost = float(self.cost_model([trade], **self._cost_context(equity)))
        t = self.elapsed_steps
        i = self._lookback + t
        path = self._path_list
        r = path[i + 1] / path[i] - 1.0
        growth = 0.0 if cost >= 1.0 else (1.0 - cost) * (1.0 + target * r)
        held = target * (1.0 + r)
        # 1 - target first: a long (1) or flat (0) position then drifts to exactly itself.
        denominator = held + (1.0 - target)
        position = held / denominator if growth > 0.0 and denominator > 0.0 else 0.0
        new_equity = equity * growth if growth > 0.0 else 0.0
        turnover = abs(trade)
        self.position = position
        self.equity = new_equity
        self.elapsed_steps = t + 1
        outcome = _from_growth(
            growth, equity=new_equity, turnover=turnover, cost=cost, previous_equity=equity
        )
        mode = self._learning.reward_mode
        if mode == "realised":
            reward = self._reward_fn(outcome)
        else:
            scales = self.learning_scales()
            if mode == "relative":
                excess = outcome.log_return - float(np.log(1.0 + r))
            else:
                assert scales.growth is not None
                kept = float(np.log(max(1.0 - cost, _FLOOR)))
                excess = kept + float(scales.growth[action])
            reward = excess / scales.reward
        terminated = growth <= 0.0
        truncated = not terminated and t + 1 >= self._steps
        self._done = terminated or truncated
        return StepResult(
            self._observation(),
            float(reward),
            terminated,
            truncated,
            self._info(r, cost, turnover),
        )
