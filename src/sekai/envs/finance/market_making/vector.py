"""``MarketMakingVecEnv``: ``num_envs`` MarketMaking-v0 envs stepped together."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core.options import check_reset_options_each
from sekai.envs.finance.market_making.env import MarketMakingEnv
from sekai.vector.template import Param, TemplateVecEnv, float_actions, replace_rows

__all__ = ["MarketMakingVecEnv"]

_NAN = float("nan")


class MarketMakingVecEnv(TemplateVecEnv[MarketMakingEnv]):
    """``num_envs`` copies of ``MarketMakingEnv`` stepped together.

    State arrays ``mid``, ``inventory`` (int64), ``cash``, ``bid``, ``ask``, ``bid_filled``,
    ``ask_filled``. Per step the generator draws ``random((N, 2))`` (bid, ask columns) then
    ``standard_normal(N)``.
    """

    env_class = MarketMakingEnv
    s0 = Param()
    sigma = Param()
    total_time = Param()
    n_steps = Param()
    dt = Param()
    A = Param()
    k = Param()
    risk_aversion = Param()
    max_inventory = Param()
    order_size = Param()
    max_offset = Param()

    def _allocate(self) -> None:
        n = self.num_envs
        self.mid: NDArray[np.float64] = np.full(n, self.template.s0)
        self.inventory: NDArray[np.int64] = np.zeros(n, np.int64)
        self.cash: NDArray[np.float64] = np.zeros(n)
        self.bid: NDArray[np.float64] = np.full(n, _NAN)
        self.ask: NDArray[np.float64] = np.full(n, _NAN)
        self.bid_filled: NDArray[np.bool_] = np.zeros(n, bool)
        self.ask_filled: NDArray[np.bool_] = np.zeros(n, bool)
        self._t: NDArray[np.int64] = np.zeros(n, np.int64)

    @property
    def wealth(self) -> NDArray[np.float64]:
        """Marked-to-mid wealth ``cash + inventory·mid`` per sub-env."""
        result: NDArray[np.float64] = self.cash + self.inventory * self.mid
        return result

    @property
    def time_remaining(self) -> NDArray[np.float64]:
        """Time left in each sub-env's episode, ``(n_steps - t)·dt``."""
        template = self.template
        return (template.n_steps - self._t) * np.float64(template.dt)

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        check_reset_options_each(self, options)
        self.mid = replace_rows(self.mid, indices, self.template.s0)
        self.inventory = replace_rows(self.inventory, indices, 0)
        self.cash = replace_rows(self.cash, indices, 0.0)
        self.bid = replace_rows(self.bid, indices, _NAN)
        self.ask = replace_rows(self.ask, indices, _NAN)
        self.bid_filled = replace_rows(self.bid_filled, indices, False)
        self.ask_filled = replace_rows(self.ask_filled, indices, False)
        self._t = replace_rows(self._t, indices, 0)

    def _reset_infos(self, indices: NDArray[np.intp]) -> dict[str, NDArray[Any]]:
        mid, inventory, cash = self.mid[indices], self.inventory[indices], self.cash[indices]
        return self._infos(
            mid,
            inventory,
            cash,
            cash + inventory * mid,
            self.bid[indices],
            self.ask[indices],
            self.bid_filled[indices],
            self.ask_filled[indices],
            self._t[indices],
        )

    def _infos(
        self,
        mid: NDArray[np.float64],
        inventory: NDArray[np.int64],
        cash: NDArray[np.float64],
        wealth: NDArray[np.float64],
        bid: NDArray[np.float64],
        ask: NDArray[np.float64],
        bid_filled: NDArray[np.bool_],
        ask_filled: NDArray[np.bool_],
        t: NDArray[np.int64],
    ) -> dict[str, NDArray[Any]]:
        dt = self.template.dt
        return {
            "mid_price": mid,
            "inventory": inventory,
            "cash": cash,
            "wealth": wealth,
            "bid": bid,
            "ask": ask,
            "bid_filled": bid_filled,
            "ask_filled": ask_filled,
            "timestamp": t * dt,
            "dt": np.full(len(t), dt),
        }

    def _observe(self) -> NDArray[np.float32]:
        template = self.template
        n_steps = template.n_steps
        obs = np.empty((self.num_envs, 2), np.float32)
        np.divide(self.inventory, template.max_inventory, out=obs[:, 0])
        np.divide(n_steps - self._t, n_steps, out=obs[:, 1])
        return obs

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, NDArray[Any]]]:
        template = self.template
        n = self.num_envs
        offsets = float_actions(self, actions, (n, 2))
        np.maximum(offsets, 0.0, out=offsets)
        np.minimum(offsets, template.max_offset, out=offsets)
        mid, q, cash, t = self.mid, self.inventory, self.cash, self._t
        size, max_inventory, dt = template.order_size, template.max_inventory, template.dt
        bid = mid - offsets[:, 0]
        ask = mid + offsets[:, 1]
        rng = self.rng
        uniforms = rng.random((n, 2))
        z = rng.standard_normal(n)
        # 1 - exp(-A·exp(-k·δ)·dt), evaluated in place on the offsets
        np.multiply(offsets, -template.k, out=offsets)
        np.exp(offsets, out=offsets)
        np.multiply(offsets, -template.A, out=offsets)
        np.multiply(offsets, dt, out=offsets)
        np.exp(offsets, out=offsets)
        np.subtract(1.0, offsets, out=offsets)
        fills = uniforms < offsets
        bid_filled = fills[:, 0] & (q <= max_inventory - size)
        ask_filled = fills[:, 1] & (q >= size - max_inventory)
        active = self.active
        if active is not None:
            bid_filled &= active
            ask_filled &= active
            z *= active
            t = t + active
        else:
            t = t + 1
        wealth_before = cash + q * mid
        q = q + size * bid_filled - size * ask_filled
        cash = cash - size * bid * bid_filled + size * ask * ask_filled
        sigma = template.sigma
        mid = mid + sigma * math.sqrt(dt) * z
        wealth = cash + q * mid
        penalty = 0.5 * template.risk_aversion * sigma * sigma * dt
        rewards = wealth - wealth_before - penalty * q * q
        if active is not None:  # frozen sub-envs keep their last quotes and fills
            bid = np.where(active, bid, self.bid)
            ask = np.where(active, ask, self.ask)
            bid_filled = np.where(active, bid_filled, self.bid_filled)
            ask_filled = np.where(active, ask_filled, self.ask_filled)
        self.mid, self.inventory, self.cash, self._t = mid, q, cash, t
        self.bid, self.ask, self.bid_filled, self.ask_filled = bid, ask, bid_filled, ask_filled
        terminated = t >= template.n_steps
        infos = self._infos(mid, q, cash, wealth, bid, ask, bid_filled, ask_filled, t)
        return rewards, terminated, np.zeros(n, bool), infos

    def avellaneda_stoikov_action(self) -> NDArray[np.float32]:
        """Avellaneda-Stoikov quote distances ``(N, 2)`` for every sub-env's state."""
        template = self.template
        gamma = template.risk_aversion
        variance_left = template.sigma * template.sigma * self.time_remaining
        skew = self.inventory * gamma * variance_left
        if gamma > 0:
            spread = gamma * variance_left + (2.0 / gamma) * math.log(1.0 + gamma / template.k)
        else:
            spread = np.full(self.num_envs, 2.0 / template.k)
        half = spread / 2.0
        quotes = np.stack([half + skew, half - skew], axis=1)
        return np.clip(quotes, 0.0, template.max_offset).astype(np.float32)
