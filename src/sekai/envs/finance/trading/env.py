"""Trading-v0: hold one asset at a target position chosen from a discrete set."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.finance._checks import check_float, episode_ended
from sekai.envs.finance.windowed.env import WindowedEnv, real_sequence, simulated_prices
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.rewards import RewardFunction, StepOutcome
from sekai.finance.simulators import MarketModel, simulate_gbm
from sekai.spaces import Box, Discrete

__all__ = ["TradingEnv"]

_INF = float("inf")
_from_growth = StepOutcome.from_growth


def _position_bounds(positions: NDArray[np.float64]) -> tuple[float, float]:
    """Observation bounds of the drifted position: ``[0, 1]`` where the targets allow it."""
    low = 0.0 if positions.min() >= 0 else -_INF
    high = 1.0 if positions.max() <= 1 else _INF
    return low, high


class TradingEnv(WindowedEnv):
    """Trade one asset by choosing a target position (a weight of equity) each step.

    Action ``a`` sets the weight ``positions[a]``; rebalancing from the drifted position costs
    ``cost_model([trade])``, then the price moves by ``r`` and equity grows by
    ``(1 - cost)(1 + w·r)``. Observation: the last ``lookback`` log returns, then the drifted
    position. The episode truncates after ``episode_length`` steps and terminates when equity
    is wiped out.
    """

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
    ) -> None:
        self.positions = positions
        self.mu = check_float(mu, "mu")
        self.sigma = check_float(sigma, "sigma", low=0.0)
        self.s0 = check_float(s0, "s0", low=0.0, low_open=True)
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
        if model is not None and model.n_assets != 1:
            raise ValueError(f"Trading-v0 trades one asset; the model has {model.n_assets}.")
        n_obs = self._lookback + 1
        low, high = _position_bounds(self._positions)
        self.observation_space = Box(
            np.array([-_INF] * self._lookback + [low], dtype=np.float32),
            np.array([_INF] * self._lookback + [high], dtype=np.float32),
            shape=(n_obs,),
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

    def _simulate(self) -> NDArray[np.float64]:
        steps = self._window - 1
        if self.model is not None:
            return simulated_prices(self.model, self.rng, steps)[:, 0]
        return simulate_gbm(self.rng, steps, s0=self.s0, mu=self.mu, sigma=self.sigma, dt=self.dt)

    def _observation(self) -> NDArray[np.float32]:
        lookback = self._lookback
        t = self.elapsed_steps
        obs = np.empty(lookback + 1, dtype=np.float32)
        obs[:lookback] = self._log_returns32[t : t + lookback]
        obs[lookback] = self.position
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
        """Start flat with equity 1 on a new window (``options={"start": row or time}``)."""
        check_reset_options(self, options, ("start",))
        self._set_rng(seed)
        self._start_episode(options)
        self._path_list = self._path.tolist()
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
        reward = self._reward_fn(
            _from_growth(
                growth, equity=new_equity, turnover=turnover, cost=cost, previous_equity=equity
            )
        )
        terminated = growth <= 0.0
        truncated = not terminated and t + 1 >= self._episode_length
        self._done = terminated or truncated
        return StepResult(
            self._observation(),
            float(reward),
            terminated,
            truncated,
            self._info(r, cost, turnover),
        )
