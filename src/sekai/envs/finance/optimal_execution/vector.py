"""``OptimalExecutionVecEnv``: ``num_envs`` OptimalExecution envs stepped together."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core.options import check_reset_options_each
from sekai.envs.finance._checks import random_start_option
from sekai.envs.finance.optimal_execution.encoding import centred_fractions
from sekai.envs.finance.optimal_execution.env import RESET_OPTIONS, SNAP, OptimalExecutionEnv
from sekai.envs.finance.optimal_execution.policies import ScheduledActions
from sekai.vector.native import shared
from sekai.vector.template import Param, TemplateVecEnv, float_actions, replace_rows

__all__ = ["OptimalExecutionVecEnv"]

_NAN = float("nan")


class OptimalExecutionVecEnv(TemplateVecEnv[OptimalExecutionEnv]):
    """``num_envs`` copies of ``OptimalExecutionEnv`` stepped together.

    State arrays ``inventory``, ``mid``, ``shortfall``. Per step the generator draws
    ``standard_normal(N)``; a reset draws ``random()`` for each sub-env it starts at random
    (``random_start``, or a reset's ``{"random_start": True}``), in index order.
    """

    env_class = OptimalExecutionEnv
    X0 = Param()
    s0 = Param()
    sigma = Param()
    total_time = Param()
    n_steps = Param()
    tau = Param()
    gamma = Param()
    eta = Param()
    epsilon = Param()
    risk_aversion = Param()
    centred_action = Param("it fixes the action space")
    expected_reward = Param()
    reward_scale = Param()
    reward_description = Param("it follows from the settings")
    observe_price = Param("it fixes the observation space")
    random_start = Param()

    def _allocate(self) -> None:
        n = self.num_envs
        self.inventory: NDArray[np.float64] = np.full(n, self.template.X0)
        self.mid: NDArray[np.float64] = np.full(n, self.template.s0)
        self.shortfall: NDArray[np.float64] = np.zeros(n)
        self._k: NDArray[np.int64] = np.zeros(n, np.int64)

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        check_reset_options_each(self, options, RESET_OPTIONS)
        x0 = self.template.X0
        start = np.full(len(indices), x0)
        default = self.template.random_start
        random = np.array([random_start_option(entry, default) for entry in options], dtype=bool)
        if random.any():
            start[random] = x0 * (1.0 - self.rng.random(int(random.sum())))
        self.inventory = replace_rows(self.inventory, indices, start)
        self.mid = replace_rows(self.mid, indices, self.template.s0)
        self.shortfall = replace_rows(self.shortfall, indices, 0.0)
        self._k = replace_rows(self._k, indices, 0)

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, NDArray[Any]]:
        size = len(indices)
        return self._infos(
            np.zeros(size),
            np.full(size, _NAN),
            self.inventory[indices],
            self.mid[indices],
            self.shortfall[indices],
            self._k[indices],
        )

    def _infos(
        self,
        shares_sold: NDArray[np.float64],
        execution_price: NDArray[np.float64],
        inventory: NDArray[np.float64],
        mid: NDArray[np.float64],
        shortfall: NDArray[np.float64],
        k: NDArray[np.int64],
    ) -> dict[str, NDArray[Any]]:
        template = self.template
        tau = template.tau
        return {
            "shares_sold": shares_sold,
            "execution_price": execution_price,
            "inventory": inventory,
            "mid_price": mid,
            "implementation_shortfall": shortfall,
            "shortfall_bps": 1e4 * shortfall / (template.X0 * template.s0),
            "timestamp": k * tau,
            "dt": np.full(len(k), tau),
        }

    def _observe(self) -> NDArray[np.float32]:
        template = self.template
        n_steps = template.n_steps
        scale = template.sigma * math.sqrt(template.total_time)
        obs = np.empty((self.num_envs, 3 if template.observe_price else 2), np.float32)
        np.divide(self.inventory, template.X0, out=obs[:, 0])
        np.divide(n_steps - self._k, n_steps, out=obs[:, 1])
        if template.observe_price:
            if scale != 0:
                np.divide(self.mid - template.s0, scale, out=obs[:, 2])
            else:
                obs[:, 2] = 0.0
        return obs

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, NDArray[Any]]]:
        template = self.template
        n = self.num_envs
        value = float_actions(self, actions, (n, 1))[:, 0]
        x, mid, k = self.inventory, self.mid, self._k
        if template.centred_action:
            fraction = centred_fractions(value, np.maximum(template.n_steps - k, 1))
        else:
            fraction = np.clip(value, 0.0, 1.0)
        tau, s0, x0 = template.tau, template.s0, template.X0
        z = self.rng.standard_normal(n)
        shares = np.where(k == template.n_steps - 1, x, fraction * x)
        active = self.active
        if active is not None:  # frozen sub-envs keep their state
            shares[~active] = 0.0
            z *= active
            k = k + active
        else:
            k = k + 1
        selling = shares > 0
        price = np.where(selling, mid - template.epsilon - template.eta * shares / tau, mid)
        x = x - shares
        x[x < SNAP * x0] = 0.0
        shortfall = self.shortfall + shares * (s0 - price)
        if template.expected_reward:  # the mean of the realised gain given the state
            gain = -shares * (template.epsilon + template.eta * shares / tau)
            gain -= template.gamma * shares * x
        else:
            gain = shares * (price - s0)
        mid = mid + template.sigma * math.sqrt(tau) * z
        mid -= template.gamma * shares
        self.inventory, self.mid, self.shortfall, self._k = x, mid, shortfall, k
        penalty = template.risk_aversion * template.sigma * template.sigma * tau
        rewards = template.reward_scale * (gain - penalty * x * x) / (x0 * s0)
        terminated = (x == 0) | (k >= template.n_steps)
        infos = self._infos(shares, price, x, mid, shortfall, k)
        return rewards, terminated, np.zeros(n, bool), infos

    @shared
    def almgren_chriss_actions(self) -> NDArray[np.float32]:
        """The template's Almgren-Chriss schedule ``(n_steps, 1)``, the same for every sub-env."""
        return self.template.almgren_chriss_actions()

    def reference_policies(self) -> dict[str, ScheduledActions]:
        """The template's ``reference_policies()``: each maps a batch ``(num_envs, d)`` of
        observations to a batch ``(num_envs, 1)`` of actions."""
        return self.template.reference_policies()
