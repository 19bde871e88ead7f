"""MarketMaking: quote a bid and an ask around a Brownian mid price (Avellaneda-Stoikov)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, ClassVar, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._types import SeedType
from sekai.core.env import Env
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.finance._checks import action_floats, check_float, check_int, episode_ended
from sekai.envs.finance._log import EpisodeLog
from sekai.error import ResetRequired
from sekai.spaces import Box

__all__ = ["MarketMakingEnv"]

_exp = math.exp
_array = np.array
_float32 = np.float32
_NAN = float("nan")


class MarketMakingEnv(Env[NDArray[np.float32], NDArray[np.float32]]):
    """Quote ``(bid distance, ask distance)`` from the mid price for ``n_steps`` steps.

    Each side fills (``order_size`` shares) with probability
    ``1 - exp(-A·exp(-k·δ)·dt)`` while the inventory limit allows it; then the mid moves by
    ``sigma·sqrt(dt)·Z``. Reward ``ΔW - ½·risk_aversion·sigma²·dt·q²`` with wealth
    ``W = cash + q·mid``. Observation ``[q/max_inventory, (n_steps - t)/n_steps]``.
    Per step the generator draws ``random(2)`` (bid, ask) then one ``standard_normal()``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 20}

    def __init__(
        self,
        *,
        s0: float = 100.0,
        sigma: float = 2.0,
        total_time: float = 1.0,
        n_steps: int = 200,
        fill_intensity: float = 140.0,
        fill_decay: float = 1.5,
        risk_aversion: float = 0.1,
        max_inventory: int = 50,
        order_size: int = 1,
        max_offset: float = 5.0,
    ) -> None:
        self.s0 = check_float(s0, "s0", low=0.0, low_open=True)
        self.sigma = check_float(sigma, "sigma", low=0.0)
        self.total_time = check_float(total_time, "total_time", low=0.0, low_open=True)
        self.n_steps = check_int(n_steps, "n_steps", low=1)
        self.dt = self.total_time / self.n_steps
        self.A = check_float(fill_intensity, "fill_intensity", low=0.0, low_open=True)
        self.k = check_float(fill_decay, "fill_decay", low=0.0, low_open=True)
        self.risk_aversion = check_float(risk_aversion, "risk_aversion", low=0.0)
        self.max_inventory = check_int(max_inventory, "max_inventory", low=1)
        self.order_size = check_int(order_size, "order_size", low=1)
        self.max_offset = check_float(max_offset, "max_offset", low=0.0)
        self.observation_space = Box(
            np.array([-1.0, 0.0], dtype=np.float32),
            np.array([1.0, 1.0], dtype=np.float32),
            dtype=np.float32,
        )
        self.action_space = Box(0.0, self.max_offset, shape=(2,), dtype=np.float32)
        self._log = EpisodeLog()
        self._start_state()
        self._started = False

    def _start_state(self) -> None:
        """Flat at ``mid = s0``: no inventory, no cash, no quotes, step 0."""
        self.mid = self.s0
        self.inventory = 0
        self.cash = 0.0
        self.bid = _NAN
        self.ask = _NAN
        self.bid_filled = False
        self.ask_filled = False
        self.elapsed_steps = 0
        self._done = False

    @property
    def wealth(self) -> float:
        """Marked-to-mid wealth ``cash + inventory·mid``."""
        return self.cash + self.inventory * self.mid

    @property
    def time_remaining(self) -> float:
        """Time left in the episode, ``(n_steps - t)·dt``."""
        return (self.n_steps - self.elapsed_steps) * self.dt

    def _observation(self) -> NDArray[np.float32]:
        return _array(
            [
                self.inventory / self.max_inventory,
                (self.n_steps - self.elapsed_steps) / self.n_steps,
            ],
            dtype=_float32,
        )

    def _info(self) -> dict[str, Any]:
        """The info of the reset or of a step, noted in the episode log."""
        info = {
            "mid_price": self.mid,
            "inventory": self.inventory,
            "cash": self.cash,
            "wealth": self.cash + self.inventory * self.mid,
            "bid": self.bid,
            "ask": self.ask,
            "bid_filled": self.bid_filled,
            "ask_filled": self.ask_filled,
            "timestamp": self.elapsed_steps * self.dt,
            "dt": self.dt,
        }
        self._log.note(self.elapsed_steps, info)
        return info

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[NDArray[np.float32]]:
        """Start flat (no inventory, no cash) at ``mid = s0``; takes no ``options``."""
        check_reset_options(self, options)
        self._set_rng(seed)
        self._start_state()
        self._started = True
        return ResetResult(self._observation(), self._info())

    def step(self, action: ArrayLike) -> StepResult[NDArray[np.float32]]:
        """Quote ``mid - δ_b`` / ``mid + δ_a`` (clipped to ``[0, max_offset]``) for one step."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        bid_offset, ask_offset = action_floats(action, self.action_space, 2)
        max_offset = self.max_offset
        bid_offset = min(max(bid_offset, 0.0), max_offset)
        ask_offset = min(max(ask_offset, 0.0), max_offset)
        mid = self.mid
        q = self.inventory
        cash = self.cash
        wealth_before = cash + q * mid
        size = self.order_size
        bid = mid - bid_offset
        ask = mid + ask_offset
        can_buy = q + size <= self.max_inventory
        can_sell = q - size >= -self.max_inventory
        rng = self.rng
        u_bid = rng.random()  # two scalar draws: the same numbers as random(2), faster
        u_ask = rng.random()
        intensity = self.A
        k = self.k
        dt = self.dt
        bid_filled = can_buy and u_bid < 1.0 - _exp(-intensity * _exp(-k * bid_offset) * dt)
        ask_filled = can_sell and u_ask < 1.0 - _exp(-intensity * _exp(-k * ask_offset) * dt)
        if bid_filled:
            q += size
            cash -= size * bid
        if ask_filled:
            q -= size
            cash += size * ask
        sigma = self.sigma
        mid += sigma * math.sqrt(dt) * rng.standard_normal()
        self.mid = mid
        self.inventory = q
        self.cash = cash
        self.bid = bid
        self.ask = ask
        self.bid_filled = bid_filled
        self.ask_filled = ask_filled
        self.elapsed_steps = t = self.elapsed_steps + 1
        reward = (
            (cash + q * mid) - wealth_before - 0.5 * self.risk_aversion * sigma * sigma * dt * q * q
        )
        terminated = t >= self.n_steps
        self._done = terminated
        return StepResult(self._observation(), reward, terminated, False, self._info())

    @overload
    def fill_probability(self, offset: float) -> float: ...

    @overload
    def fill_probability(self, offset: NDArray[Any] | Sequence[float]) -> NDArray[np.float64]: ...

    def fill_probability(
        self, offset: float | NDArray[Any] | Sequence[float]
    ) -> float | NDArray[np.float64]:
        """Probability that a quote ``offset`` away from the mid fills in one step.

        A real number gives a float; an array or a sequence of offsets an array.
        """
        if isinstance(offset, numbers.Real) and not isinstance(offset, np.ndarray):
            return 1.0 - _exp(-self.A * _exp(-self.k * float(offset)) * self.dt)
        offsets = np.asarray(offset, dtype=np.float64)
        result: NDArray[np.float64] = 1.0 - np.exp(-self.A * np.exp(-self.k * offsets) * self.dt)
        return result

    def avellaneda_stoikov_action(self) -> NDArray[np.float32]:
        """Avellaneda-Stoikov quote distances ``(bid, ask)`` for the current state."""
        gamma = self.risk_aversion
        variance_left = self.sigma * self.sigma * self.time_remaining
        skew = self.inventory * gamma * variance_left
        if gamma > 0:
            spread = gamma * variance_left + (2.0 / gamma) * math.log(1.0 + gamma / self.k)
        else:
            spread = 2.0 / self.k
        half = spread / 2.0
        return np.clip(
            np.array([half + skew, half - skew], dtype=np.float64), 0.0, self.max_offset
        ).astype(np.float32)
