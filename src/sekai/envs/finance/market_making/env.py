"""MarketMaking: quote a bid and an ask around a Brownian mid price (Avellaneda-Stoikov)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai._types import SeedType
from sekai.core.env import Env
from sekai.core.options import check_reset_options
from sekai.core.result import ResetResult, StepResult
from sekai.envs.finance._checks import (
    action_floats,
    check_float,
    check_int,
    episode_ended,
    random_start_option,
)
from sekai.envs.finance._log import EpisodeLog
from sekai.envs.finance.market_making.actions import offsets_to_actions
from sekai.envs.finance.market_making.reference import (
    avellaneda_stoikov_offsets,
    reference_policies,
)
from sekai.error import ResetRequired
from sekai.spaces import Box
from sekai.utils.validation import check_bool

__all__ = ["RESET_OPTIONS", "MarketMakingEnv"]

#: The keys ``reset(options=...)`` reads.
RESET_OPTIONS = ("random_start",)

_exp = math.exp
_array = np.array
_float32 = np.float32
_NAN = float("nan")


class MarketMakingEnv(Env[NDArray[np.float32], NDArray[np.float32]]):
    """Quote ``(bid distance, ask distance)`` from the mid price for ``n_steps`` steps.

    Each side fills (``order_size`` shares) with probability
    ``1 - exp(-A·exp(-k·δ)·dt)`` while the inventory limit allows it; then the mid moves by
    ``sigma·sqrt(dt)·Z``. Reward ``ΔW - ½·risk_aversion·sigma²·dt·q²`` with wealth
    ``W = cash + q·mid``. Observation ``[q/inventory_scale, (n_steps - t)/n_steps]``.
    Per step the generator draws ``random(2)`` (bid, ask) then one ``standard_normal()``.

    Options for learners (all off by default, all on in ``MarketMaking-v1``):

    * ``centred_actions``: the action is ``Box(-1, 1, (2,))`` and ``a`` quotes
      ``default_offset·(1 + a)`` (module ``actions``), so 0 is symmetric quotes at the
      Avellaneda-Stoikov half-spread. The range ``[0, 2·default_offset]`` holds every quote
      of the optimum from a flat start.
    * ``expected_reward``: the reward is the expectation of the realised one given the state
      and the quotes, ``order_size·(p_b·δ_b + p_a·δ_a) - ½·risk_aversion·sigma²·dt·E[q'²]``
      (``p`` the fill probabilities, 0 on a side the limit blocks): the mid move and the fill
      draws no longer add noise, every policy keeps its expected return, so the optimum is
      the same. The dynamics, draws and ``info`` do not change.
    * ``inventory_scale``: the observed inventory is ``q/inventory_scale`` (default
      ``max_inventory``); 8 puts the inventories a good policy holds, ``|q| <= 6``, in
      ``[-0.75, 0.75]``.
    * ``random_start``: each episode starts with an inventory drawn uniformly from the
      integers ``|q| <= min(inventory_scale, max_inventory)`` (one ``rng.integers`` draw after
      seeding), bought at ``s0`` (``cash = -q·s0``, so wealth starts at 0);
      ``reset(options={"random_start": ...})`` decides it for one reset.

    ``default_offset`` is the Avellaneda-Stoikov half-spread at ``t = 0`` (at most
    ``max_offset``); ``reference_policies()`` gives the exact optimum and two baselines.
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
        centred_actions: bool = False,
        expected_reward: bool = False,
        inventory_scale: float | None = None,
        random_start: bool = False,
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
        self.centred_actions = check_bool(centred_actions, "centred_actions")
        self.expected_reward = check_bool(expected_reward, "expected_reward")
        self.random_start = check_bool(random_start, "random_start")
        self.inventory_scale: float = (
            self.max_inventory
            if inventory_scale is None
            else check_float(inventory_scale, "inventory_scale", low=0.0, low_open=True)
        )
        half_spread = avellaneda_stoikov_offsets(
            0,
            self.total_time,
            sigma=self.sigma,
            risk_aversion=self.risk_aversion,
            fill_decay=self.k,
            max_offset=self.max_offset,
        )
        self.default_offset = float(half_spread[0])
        bound = self.max_inventory / self.inventory_scale
        self.observation_space = Box(
            np.array([-bound, 0.0], dtype=np.float32),
            np.array([bound, 1.0], dtype=np.float32),
            dtype=np.float32,
        )
        if self.centred_actions:
            self.action_space = Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        else:
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
    def reward_description(self) -> str:
        """The reward in one line, with this env's settings (``sekai info`` shows it)."""
        if self.expected_reward:
            return (
                "order_size·(p_b·δ_b + p_a·δ_a) - ½·risk_aversion·sigma²·dt·E[q'²], the "
                "expected step reward given the state and the quotes"
            )
        return "ΔW - ½·risk_aversion·sigma²·dt·q² with wealth W = cash + q·mid"

    @property
    def wealth(self) -> float:
        """Marked-to-mid wealth ``cash + inventory·mid``."""
        return self.cash + self.inventory * self.mid

    @property
    def offset_range(self) -> tuple[float, float]:
        """The quote distances the actions can express: ``[0, max_offset]``, and under
        centred actions ``[0, min(2·default_offset, max_offset)]``."""
        if self.centred_actions:
            return 0.0, min(2.0 * self.default_offset, self.max_offset)
        return 0.0, self.max_offset

    @property
    def time_remaining(self) -> float:
        """Time left in the episode, ``(n_steps - t)·dt``."""
        return (self.n_steps - self.elapsed_steps) * self.dt

    def _observation(self) -> NDArray[np.float32]:
        return _array(
            [
                self.inventory / self.inventory_scale,
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
        """Start flat (no inventory, no cash) at ``mid = s0``, or under ``random_start`` (or
        ``options={"random_start": True}``) with a random inventory bought at ``s0``."""
        checked = check_reset_options(self, options, RESET_OPTIONS)
        self._set_rng(seed)
        self._start_state()
        if random_start_option(checked, self.random_start):
            bound = int(min(self.inventory_scale, self.max_inventory))
            self.inventory = q = int(self.rng.integers(-bound, bound + 1))
            self.cash = -q * self.s0
        self._started = True
        return ResetResult(self._observation(), self._info())

    def step(self, action: ArrayLike) -> StepResult[NDArray[np.float32]]:
        """Quote ``mid - δ_b`` / ``mid + δ_a`` (clipped to ``[0, max_offset]``) for one step."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        bid_offset, ask_offset = action_floats(action, self.action_space, 2)
        if self.centred_actions:
            centre = self.default_offset
            bid_offset = centre * (1.0 + min(max(bid_offset, -1.0), 1.0))
            ask_offset = centre * (1.0 + min(max(ask_offset, -1.0), 1.0))
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
        p_bid = 1.0 - _exp(-intensity * _exp(-k * bid_offset) * dt)
        p_ask = 1.0 - _exp(-intensity * _exp(-k * ask_offset) * dt)
        bid_filled = can_buy and u_bid < p_bid
        ask_filled = can_sell and u_ask < p_ask
        q_before = q
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
        if self.expected_reward:
            reward = self._expected_reward(
                q_before,
                p_bid if can_buy else 0.0,
                p_ask if can_sell else 0.0,
                bid_offset,
                ask_offset,
            )
        else:
            reward = (
                (cash + q * mid)
                - wealth_before
                - 0.5 * self.risk_aversion * sigma * sigma * dt * q * q
            )
        terminated = t >= self.n_steps
        self._done = terminated
        return StepResult(self._observation(), reward, terminated, False, self._info())

    def _expected_reward(
        self, q: int, p_bid: float, p_ask: float, bid_offset: float, ask_offset: float
    ) -> float:
        """The realised reward's expectation given inventory ``q``, the quotes and their
        (allowed) fill probabilities."""
        size = self.order_size
        up = p_bid * (1.0 - p_ask)
        down = p_ask * (1.0 - p_bid)
        mean_square = (
            q * q + up * (2 * q * size + size * size) + down * (size * size - 2 * q * size)
        )
        penalty = 0.5 * self.risk_aversion * self.sigma * self.sigma * self.dt
        return size * (p_bid * bid_offset + p_ask * ask_offset) - penalty * mean_square

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
        """Avellaneda-Stoikov quotes ``(bid, ask)`` for the current state, as an action of
        this env (the quote distances themselves unless ``centred_actions``)."""
        offsets = avellaneda_stoikov_offsets(
            self.inventory,
            self.time_remaining,
            sigma=self.sigma,
            risk_aversion=self.risk_aversion,
            fill_decay=self.k,
            max_offset=self.max_offset,
        )
        return self.action_from_offsets(offsets)

    def action_from_offsets(self, offsets: ArrayLike) -> NDArray[np.float32]:
        """The action(s) of this env that quote the distances ``offsets`` (last axis: bid,
        ask), clipped to what the action space can express."""
        centre = self.default_offset if self.centred_actions else None
        return offsets_to_actions(offsets, centre, self.max_offset)

    def reference_policies(self) -> dict[str, Callable[[Any], NDArray[np.float32]]]:
        """Named reference policies for this configuration: ``"dp_optimal"`` (the exact
        optimum), ``"avellaneda_stoikov"`` and ``"symmetric"``; see
        ``market_making.reference.reference_policies``. Each maps an observation (or a batch)
        to this env's action(s)."""
        return reference_policies(self)
