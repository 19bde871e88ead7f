"""``MarketMakingVecEnv``: ``num_envs`` MarketMaking-v0 envs stepped together."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.core.options import check_reset_options_each
from sekai.envs.finance._checks import random_start_option
from sekai.envs.finance.market_making.env import RESET_OPTIONS, MarketMakingEnv
from sekai.envs.finance.market_making.reference import (
    avellaneda_stoikov_offsets,
    reference_policies,
)
from sekai.vector.template import Param, TemplateVecEnv, float_actions, replace_rows

__all__ = ["MarketMakingVecEnv"]

_NAN = float("nan")


class MarketMakingVecEnv(TemplateVecEnv[MarketMakingEnv]):
    """``num_envs`` copies of ``MarketMakingEnv`` stepped together.

    State arrays ``mid``, ``inventory`` (int64), ``cash``, ``bid``, ``ask``, ``bid_filled``,
    ``ask_filled``. Per step the generator draws ``random((N, 2))`` (bid, ask columns) then
    ``standard_normal(N)``; a reset draws ``integers(-b, b + 1, size=k)`` for the ``k`` sub-envs
    it starts at random (``random_start``, or a reset's ``{"random_start": True}``).
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
    centred_actions = Param("it fixes the action space")
    expected_reward = Param()
    inventory_scale = Param("it fixes the observation space")
    random_start = Param()
    default_offset = Param()
    reward_description = Param("it follows from the settings")

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
    def offset_range(self) -> tuple[float, float]:
        """The quote distances the actions can express (``MarketMakingEnv.offset_range``)."""
        range_: tuple[float, float] = self.template.offset_range
        return range_

    @property
    def time_remaining(self) -> NDArray[np.float64]:
        """Time left in each sub-env's episode, ``(n_steps - t)·dt``."""
        template = self.template
        return (template.n_steps - self._t) * np.float64(template.dt)

    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        check_reset_options_each(self, options, RESET_OPTIONS)
        template = self.template
        self.mid = replace_rows(self.mid, indices, template.s0)
        default = template.random_start
        random = np.array([random_start_option(entry, default) for entry in options], dtype=bool)
        start = np.zeros(len(indices), np.int64)
        if random.any():
            bound = int(min(template.inventory_scale, template.max_inventory))
            start[random] = self.rng.integers(-bound, bound + 1, size=int(random.sum()))
        self.inventory = replace_rows(self.inventory, indices, start)
        self.cash = replace_rows(self.cash, indices, -start * template.s0)
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
        np.divide(self.inventory, template.inventory_scale, out=obs[:, 0])
        np.divide(n_steps - self._t, n_steps, out=obs[:, 1])
        return obs

    def _step(
        self, actions: Any
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, NDArray[Any]]]:
        template = self.template
        n = self.num_envs
        offsets = float_actions(self, actions, (n, 2))
        if template.centred_actions:  # centre·(1 + a), a clipped to [-1, 1]
            np.clip(offsets, -1.0, 1.0, out=offsets)
            np.add(1.0, offsets, out=offsets)
            np.multiply(template.default_offset, offsets, out=offsets)
        np.maximum(offsets, 0.0, out=offsets)
        np.minimum(offsets, template.max_offset, out=offsets)
        quoted = offsets.copy() if template.expected_reward else offsets
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
        can_buy = q <= max_inventory - size
        can_sell = q >= size - max_inventory
        active = self.active
        if active is not None:
            can_buy &= active
            can_sell &= active
            z *= active
            t = t + active
        else:
            t = t + 1
        bid_filled = fills[:, 0] & can_buy
        ask_filled = fills[:, 1] & can_sell
        expected = (
            self._expected_rewards(q, offsets[:, 0] * can_buy, offsets[:, 1] * can_sell, quoted)
            if template.expected_reward
            else None
        )
        wealth_before = cash + q * mid
        q = q + size * bid_filled - size * ask_filled
        cash = cash - size * bid * bid_filled + size * ask * ask_filled
        sigma = template.sigma
        mid = mid + sigma * math.sqrt(dt) * z
        wealth = cash + q * mid
        if expected is None:
            penalty = 0.5 * template.risk_aversion * sigma * sigma * dt
            rewards = wealth - wealth_before - penalty * q * q
        else:
            rewards = expected
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

    def _expected_rewards(
        self,
        q: NDArray[np.int64],
        p_bid: NDArray[np.float64],
        p_ask: NDArray[np.float64],
        offsets: NDArray[np.float64],
    ) -> NDArray[np.float64]:
        """The realised rewards' expectations given the inventories ``q``, the quotes
        ``offsets`` and their (allowed) fill probabilities; as ``MarketMakingEnv``'s."""
        template = self.template
        size = template.order_size
        up = p_bid * (1.0 - p_ask)
        down = p_ask * (1.0 - p_bid)
        mean_square = (
            q * q + up * (2 * q * size + size * size) + down * (size * size - 2 * q * size)
        )
        sigma = template.sigma
        penalty = 0.5 * template.risk_aversion * sigma * sigma * template.dt
        result: NDArray[np.float64] = (
            size * (p_bid * offsets[:, 0] + p_ask * offsets[:, 1]) - penalty * mean_square
        )
        return result

    def avellaneda_stoikov_action(self) -> NDArray[np.float32]:
        """Avellaneda-Stoikov quotes ``(N, 2)`` for every sub-env's state, as actions of this
        env (the quote distances themselves unless ``centred_actions``)."""
        template = self.template
        offsets = avellaneda_stoikov_offsets(
            self.inventory,
            self.time_remaining,
            sigma=template.sigma,
            risk_aversion=template.risk_aversion,
            fill_decay=template.k,
            max_offset=template.max_offset,
        )
        return template.action_from_offsets(offsets)

    def action_from_offsets(self, offsets: Any) -> NDArray[np.float32]:
        """The actions that quote the distances ``offsets`` (last axis: bid, ask)."""
        return self.template.action_from_offsets(offsets)

    def reference_policies(self) -> dict[str, Callable[[Any], NDArray[np.float32]]]:
        """``MarketMakingEnv.reference_policies`` for the shared configuration; each maps a
        batch of observations ``(N, 2)`` to a batch of actions ``(N, 2)``."""
        return reference_policies(self.template)
