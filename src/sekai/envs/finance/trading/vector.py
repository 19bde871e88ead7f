"""``TradingVecEnv``: ``num_envs`` Trading-v0 envs stepped together with array operations."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance._checks import random_start_option
from sekai.envs.finance.trading.env import TradingEnv
from sekai.envs.finance.windowed.env import simulated_prices
from sekai.envs.finance.windowed.vector import LEARNING_READ_ONLY, SHAPE_READ_ONLY, WindowedVecEnv
from sekai.error import InvalidAction
from sekai.finance.rewards import StepOutcome
from sekai.finance.simulators import GBM
from sekai.vector.template import Param, replace_rows

__all__ = ["TradingVecEnv"]

_FLOOR = 1e-12


class TradingVecEnv(WindowedVecEnv[TradingEnv]):
    """``num_envs`` copies of ``TradingEnv`` stepped together.

    State arrays ``position``, ``equity``; internal ``_paths (N, window)`` and ``_t``.
    Simulated windows come from ``GBM(mu, sigma, s0=s0, dt=dt)`` (or ``model``) with one
    ``simulate(rng, window - 1, n_paths=k)`` per reset batch.
    """

    env_class = TradingEnv
    positions = Param()
    s0 = Param()
    mu = Param()
    sigma = Param()
    observation_mode = Param(SHAPE_READ_ONLY)
    reward_mode = Param(LEARNING_READ_ONLY)
    random_start = Param(LEARNING_READ_ONLY)
    _reset_option_names = ("random_start",)
    reward_description = Param("it follows from the settings")

    def _allocate(self) -> None:
        super()._allocate()
        self.position: NDArray[np.float64] = np.zeros(self.num_envs)
        self.equity: NDArray[np.float64] = np.ones(self.num_envs)

    def _asset_shape(self) -> tuple[int, ...]:
        return ()

    def _simulate(self, count: int) -> NDArray[np.float64]:
        template = self.template
        steps = template.window - 1
        if template.model is not None:
            return simulated_prices(template.model, self.rng, steps, count)[..., 0]
        gbm = GBM(template.mu, template.sigma, s0=template.s0, dt=template.dt)
        return gbm.simulate(self.rng, steps, n_paths=count).prices[..., 0]

    @property
    def price(self) -> NDArray[np.float64]:
        """Price at each sub-env's decision row."""
        self._check_started()
        return self._paths.reshape(-1).take(self._path_rows + self._t)

    def reference_policies(self) -> dict[str, Callable[[Any], Any]]:
        """The single env's reference policies (each takes a batch of observations)."""
        return self.template.reference_policies()

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        self._reset_windows(indices, options)
        template = self.template
        default = template.random_start
        random = np.array([random_start_option(entry, default) for entry in options], dtype=bool)
        start = np.zeros(len(indices))
        if random.any():
            draws = self.rng.integers(len(template.positions), size=int(random.sum()))
            start[random] = template.positions.take(draws)
        self.position = replace_rows(self.position, indices, start)
        self.equity = replace_rows(self.equity, indices, 1.0)

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, NDArray[Any]]:
        zeros = np.zeros(len(indices))
        t = self._t[indices]
        return {
            "equity": self.equity[indices],
            "position": self.position[indices],
            "price": self._paths.reshape(-1).take(self._path_rows[indices] + t),
            "asset_return": zeros,
            "cost": zeros,
            "turnover": zeros,
            "timestamp": self._timestamps(self._t)[indices],
            "dt": np.full(len(indices), self.template.dt),
        }

    def _observe(self) -> NDArray[np.float32]:
        template = self.template
        lookback = template.lookback
        mode = template.observation_mode
        if mode == "returns":
            obs = np.empty((self.num_envs, lookback + 1), np.float32)
            obs[:, :lookback] = self._observed_windows()
            obs[:, lookback] = self.position
            return obs
        time_left = (template.episode_length - self._t) / template.episode_length
        if mode == "state":
            obs = np.empty((self.num_envs, 2), np.float32)
            obs[:, 0] = self.position
            obs[:, 1] = time_left
            return obs
        obs = np.empty((self.num_envs, lookback + 2), np.float32)
        obs[:, :lookback] = self._observed_windows() / template.learning_scales().returns
        obs[:, lookback] = self.position
        obs[:, lookback + 1] = time_left
        return obs

    def _actions(self, actions: Any) -> NDArray[np.intp]:
        """Integral, in-range action indices ``(N,)``, else ``InvalidAction``."""
        try:
            array = np.asarray(actions)
        except (TypeError, ValueError) as exc:
            raise InvalidAction(actions, self.batch_action_space) from exc
        if array.shape != (self.num_envs,) or array.dtype.kind not in "iuf":
            raise InvalidAction(actions, self.batch_action_space)
        if array.dtype.kind == "f":
            if not (np.isfinite(array).all() and (array == np.floor(array)).all()):
                raise InvalidAction(actions, self.batch_action_space)
            array = array.astype(np.intp)
        if array.min() < 0 or array.max() >= len(self.template.positions):
            raise InvalidAction(actions, self.batch_action_space)
        return array

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, NDArray[Any]]]:
        template = self.template
        indices = self._actions(actions)
        target = template.positions.take(indices)
        position, equity = self.position, self.equity
        steps = self._decision_steps()
        trade = target - position
        cost = np.asarray(
            template.cost_model(trade[:, None], **self._cost_context(equity, steps)),
            dtype=np.float64,
        )
        index = self._path_rows + steps
        paths = self._paths.reshape(-1)
        price = paths.take(index)
        next_price = paths.take(index + 1)
        r = next_price / price - 1.0
        growth = (1.0 - cost) * (1.0 + target * r)
        growth[cost >= 1.0] = 0.0
        held = target * (1.0 + r)
        # 1 - target first: a long (1) or flat (0) position then drifts to exactly itself.
        denominator = held + (1.0 - target)
        alive = growth > 0.0
        moved = alive & (denominator > 0.0)
        new_position = np.where(moved, held / np.where(moved, denominator, 1.0), 0.0)
        new_equity = np.where(alive, equity * growth, 0.0)
        t = self._t
        active = self.active
        if active is not None:  # frozen sub-envs keep their state
            new_position = np.where(active, new_position, position)
            new_equity = np.where(active, new_equity, equity)
            growth[~active] = 1.0
            t = t + active
        else:
            t = t + 1
        turnover = np.abs(trade)
        self.position, self.equity, self._t = new_position, new_equity, t
        outcome = StepOutcome.from_growth(
            growth, equity=new_equity, turnover=turnover, cost=cost, previous_equity=equity
        )
        mode = template.reward_mode
        if mode == "realised":
            rewards = template.reward_fn(outcome)
        else:
            scales = template.learning_scales()
            if mode == "relative":
                excess = outcome.log_return - np.log(1.0 + r)
            else:
                assert scales.growth is not None
                excess = np.log(np.maximum(1.0 - cost, _FLOOR)) + scales.growth.take(indices)
            rewards = excess / scales.reward
        terminated = growth <= 0.0
        truncated = (t >= template.episode_length) & ~terminated
        infos = {
            "equity": new_equity,
            "position": new_position,
            "price": next_price,
            "asset_return": r,
            "cost": cost,
            "turnover": turnover,
            "timestamp": self._timestamps(t),
            "dt": np.full(self.num_envs, template.dt),
        }
        return rewards, terminated, truncated, infos
