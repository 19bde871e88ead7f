"""LimitOrderBook-v0 and LimitOrderBookMarket: agents quoting in a zero-intelligence order book.

Both environments run on one shared core (``_LOBCore``): the book, the background flow, the
trade memory, the per-fill accounting, observations and the quote / market-order decision.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.core.env import Env
from sekai.core.multi_agent import MultiAgentEnv
from sekai.core.options import check_reset_options
from sekai.core.result import MAResetResult, MAStepResult, ResetResult, StepResult
from sekai.envs.finance._checks import check_float, check_int, episode_ended
from sekai.error import InvalidAction, ResetRequired
from sekai.finance.lob import Fill, Order, OrderBook, Side, ZeroIntelligenceFlow
from sekai.spaces import Box, Dict, MaskedBox, MultiDiscrete, Space

__all__ = ["BUY", "HOLD", "SELL", "LimitOrderBookEnv", "LimitOrderBookMarket"]

SELL, HOLD, BUY = 0, 1, 2
"""The market-order choices (third action entry)."""

_TOLERANCE = Fraction(1, 10**9)
_INF = float("inf")
_Obs = dict[str, Any]
_Action = NDArray[np.int64]


@dataclass(slots=True)
class _Trader:
    """One agent's account and resting quotes (``None`` ids when not quoting)."""

    owner: int
    inventory: int = 0
    cash: int = 0
    bid_id: int | None = None
    ask_id: int | None = None
    fills: int = 0

    def wealth(self, mid: float) -> float:
        """``cash + inventory·mid``."""
        return self.cash + self.inventory * mid


class _LOBCore:
    """The mechanics both LOB environments share; the session clock belongs to the env."""

    def __init__(
        self,
        *,
        flow: ZeroIntelligenceFlow | None,
        mid_price: int,
        session_length: float,
        levels: int,
        max_quote_offset: int,
        order_size: int,
        max_inventory: int,
        inventory_penalty: float,
        max_trades: int,
        warmup: float,
    ) -> None:
        self.levels = check_int(levels, "levels", low=1)
        self.max_quote_offset = check_int(max_quote_offset, "max_quote_offset", low=1)
        self.mid_price = check_int(
            mid_price, "mid_price", low=2 * (self.max_quote_offset + self.levels)
        )
        self.order_size = check_int(order_size, "order_size", low=1)
        self.max_inventory = check_int(max_inventory, "max_inventory", low=1)
        self.max_trades = check_int(max_trades, "max_trades", low=1)
        self.session_length = check_float(session_length, "session_length", low=0.0, low_open=True)
        self.inventory_penalty = check_float(inventory_penalty, "inventory_penalty", low=0.0)
        self.warmup = check_float(warmup, "warmup", low=0.0)
        self.flow = ZeroIntelligenceFlow() if flow is None else flow
        self.end = Fraction(self.session_length)
        self.book = OrderBook()
        self.t0 = 0.0
        self.elapsed = 0.0
        self.trades: deque[tuple[int, int, int]] = deque(maxlen=self.max_trades)
        self.owners: dict[int, _Trader] = {}

    # -- spaces ----------------------------------------------------------------------------

    def observation_space(self) -> Dict:
        """``Dict(book (levels, 4), trades MaskedBox max_trades x (3,), agent (6,))``."""
        return Dict(
            {
                "book": Box(-_INF, _INF, (self.levels, 4), np.float32),
                "trades": MaskedBox(-_INF, _INF, shape=(3,), max_size=self.max_trades),
                "agent": Box(-_INF, _INF, (6,), np.float32),
            }
        )

    def action_space(self) -> MultiDiscrete:
        """``MultiDiscrete([K+1, K+1, 3])``: bid level, ask level, market order."""
        n = self.max_quote_offset + 1
        return MultiDiscrete([n, n, 3])

    # -- session ---------------------------------------------------------------------------

    def start(self, rng: np.random.Generator, traders: Sequence[_Trader]) -> None:
        """Lay the initial book, run the warm-up, and start the session with ``traders``."""
        book = self.book
        self.flow.initialise(book, rng, mid=self.mid_price)
        if self.warmup > 0:
            self.flow.advance(book, rng, self.warmup)
        self.t0 = book.time
        self.elapsed = 0.0
        self.trades.clear()
        self.owners = {trader.owner: trader for trader in traders}

    def advance(self, rng: np.random.Generator, clock: Fraction) -> None:
        """Run the flow until session time ``clock``, book its fills, forget filled quotes."""
        self.elapsed = float(clock)
        self._record(self.flow.advance(self.book, rng, self.t0 + self.elapsed))
        for trader in self.owners.values():
            self._sync(trader)

    def mid(self) -> float:
        """The book mid, else ``last_price``, else ``mid_price``."""
        mid = self.book.mid()
        if mid is None:
            return self.book.last_price or self.mid_price
        return mid

    def can_buy(self, trader: _Trader) -> bool:
        """Whether buying ``order_size`` keeps the inventory within the limit."""
        return trader.inventory + self.order_size <= self.max_inventory

    def can_sell(self, trader: _Trader) -> bool:
        """Whether selling ``order_size`` keeps the inventory within the limit."""
        return trader.inventory - self.order_size >= -self.max_inventory

    # -- decisions -------------------------------------------------------------------------

    @staticmethod
    def parse(action: Any, space: Space[Any]) -> tuple[int, int, int]:
        """``(bid level, ask level, market choice)``; ``InvalidAction`` outside ``space``."""
        if not space.contains(action):
            raise InvalidAction(action, space)
        bid, ask, market = np.asarray(action).tolist()
        return bid, ask, market

    def decide(self, trader: _Trader, bid_level: int, ask_level: int, market: int) -> None:
        """Apply one decision: the market order, then the bid and the ask quote."""
        book = self.book
        if market == BUY and self.can_buy(trader):
            if trader.ask_id is not None:
                book.cancel(trader.ask_id)
                trader.ask_id = None
            self._record(book.market(Side.BID, self.order_size, trader.owner)[1])
        elif market == SELL and self.can_sell(trader):
            if trader.bid_id is not None:
                book.cancel(trader.bid_id)
                trader.bid_id = None
            self._record(book.market(Side.ASK, self.order_size, trader.owner)[1])
        trader.bid_id = self._quote(
            trader, Side.BID, bid_level if self.can_buy(trader) else 0, trader.bid_id
        )
        trader.ask_id = self._quote(
            trader, Side.ASK, ask_level if self.can_sell(trader) else 0, trader.ask_id
        )

    def _quote(self, trader: _Trader, side: Side, level: int, order_id: int | None) -> int | None:
        """Keep, move or cancel the quote ``order_id`` on ``side``; returns the resting id."""
        book = self.book
        own = None if order_id is None else book.get(order_id)
        if level == 0:
            if own is not None:
                book.cancel(own.order_id)
            return None
        bid = side is Side.BID
        best = book.best_bid() if bid else book.best_ask()
        target = self._reference(trader, side, best, own) + (1 - level if bid else level - 1)
        if own is not None:
            if own.price == target or (level == 1 and own.price == best):
                return own.order_id
            book.cancel(own.order_id)
        new_id, fills = book.limit(side, max(target, 1), self.order_size, trader.owner)
        self._record(fills)
        return new_id

    def _reference(self, trader: _Trader, side: Side, best: int | None, own: Order | None) -> int:
        """The price a level-1 quote on ``side`` joins, ignoring the trader's own quote."""
        book = self.book
        bid = side is Side.BID
        if best is not None:
            if own is None or own.price != best or book.volume_at(side, best) != own.quantity:
                return best
            bid_prices, _, ask_prices, _ = book.depth(2)
            second = int(bid_prices[1] if bid else ask_prices[1])
            if second:
                return second
        opposite = book.best_ask() if bid else book.best_bid()
        opposite_id = trader.ask_id if bid else trader.bid_id
        own_opposite = None if opposite_id is None else book.get(opposite_id)
        if opposite is not None and (own_opposite is None or own_opposite.price != opposite):
            return opposite - 1 if bid else opposite + 1
        last = book.last_price or self.mid_price
        return math.floor(last) if bid else math.ceil(last)

    def _sync(self, trader: _Trader) -> None:
        """Forget quote ids whose orders have left the book."""
        book = self.book
        if trader.bid_id is not None and book.get(trader.bid_id) is None:
            trader.bid_id = None
        if trader.ask_id is not None and book.get(trader.ask_id) is None:
            trader.ask_id = None

    def _record(self, fills: list[Fill]) -> None:
        """Remember every trade and book each fill for the traders on either side of it."""
        remember = self.trades.append
        owners = self.owners
        for fill in fills:
            price = fill.price
            quantity = fill.quantity
            buy = fill.taker_side is Side.BID
            remember((price, quantity, 1 if buy else -1))
            maker = owners.get(fill.maker_owner)
            if maker is not None:
                maker.fills += 1
                change = -quantity if buy else quantity
                maker.inventory += change
                maker.cash -= change * price
            taker = owners.get(fill.taker_owner)
            if taker is not None:
                if taker is not maker:
                    taker.fills += 1
                change = quantity if buy else -quantity
                taker.inventory += change
                taker.cash -= change * price

    # -- views -----------------------------------------------------------------------------

    def observation(self, trader: _Trader) -> _Obs:
        """A fresh observation for ``trader`` (see ``observation_space``)."""
        book = self.book
        mid = self.mid()
        bid_prices, bid_sizes, ask_prices, ask_sizes = book.depth(self.levels)
        rows = np.empty((self.levels, 4), dtype=np.float32)
        rows[:, 0] = np.where(bid_prices > 0, bid_prices - mid, 0.0)
        rows[:, 1] = bid_sizes
        rows[:, 2] = np.where(ask_prices > 0, ask_prices - mid, 0.0)
        rows[:, 3] = ask_sizes
        values = np.zeros((self.max_trades, 3), dtype=np.float32)
        mask = np.zeros(self.max_trades, dtype=np.int8)
        n = len(self.trades)
        if n:
            trades = np.array(self.trades, dtype=np.float64)
            trades[:, 0] -= mid
            values[:n] = trades
            mask[:n] = 1
        bid = None if trader.bid_id is None else book.get(trader.bid_id)
        ask = None if trader.ask_id is None else book.get(trader.ask_id)
        agent = np.array(
            [
                trader.inventory / self.max_inventory,
                max(1.0 - self.elapsed / self.session_length, 0.0),
                bid is not None,
                ask is not None,
                0 if bid is None else book.queue_ahead(bid.order_id),
                0 if ask is None else book.queue_ahead(ask.order_id),
            ],
            dtype=np.float32,
        )
        return {"book": rows, "trades": {"values": values, "mask": mask}, "agent": agent}

    def info(self, trader: _Trader, dt: float) -> dict[str, Any]:
        """``timestamp, mid_price, spread, inventory, cash, wealth, fills, dt``."""
        book = self.book
        mid = self.mid()
        return {
            "timestamp": book.time - self.t0,
            "mid_price": mid,
            "spread": book.spread(),
            "inventory": trader.inventory,
            "cash": trader.cash,
            "wealth": trader.wealth(mid),
            "fills": trader.fills,
            "dt": dt,
        }

    def action_mask(self, trader: _Trader) -> tuple[NDArray[np.int8], ...]:
        """``(bid_mask, ask_mask, market_mask)``; quotes and orders that keep within limits."""
        n = self.max_quote_offset + 1
        can_buy = self.can_buy(trader)
        can_sell = self.can_sell(trader)
        bid = np.full(n, can_buy, dtype=np.int8)
        ask = np.full(n, can_sell, dtype=np.int8)
        bid[0] = ask[0] = 1
        return bid, ask, np.array([can_sell, 1, can_buy], dtype=np.int8)


class LimitOrderBookEnv(Env[_Obs, _Action]):
    """Quote a bid and an ask, and trade at market, against zero-intelligence order flow.

    Each step the agent may send a market order of ``order_size`` lots, then sets its bid and
    ask ``level`` ticks behind the best prices of other traders (0 = no quote); the flow then
    runs for ``decision_interval`` time units of a ``session_length`` session. Reward: change
    of marked-to-mid wealth minus ``inventory_penalty·q²·dt``. Only the flow draws from
    ``rng``: the initial book and the warm-up at reset, then one ``advance`` per step.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_fps": 10}
    AGENT: ClassVar[int] = 0

    def __init__(
        self,
        *,
        flow: ZeroIntelligenceFlow | None = None,
        mid_price: int = 10_000,
        session_length: float = 300.0,
        decision_interval: float = 1.0,
        levels: int = 5,
        max_quote_offset: int = 5,
        order_size: int = 1,
        max_inventory: int = 20,
        inventory_penalty: float = 0.01,
        max_trades: int = 16,
        warmup: float = 20.0,
    ) -> None:
        self.core = _LOBCore(
            flow=flow,
            mid_price=mid_price,
            session_length=session_length,
            levels=levels,
            max_quote_offset=max_quote_offset,
            order_size=order_size,
            max_inventory=max_inventory,
            inventory_penalty=inventory_penalty,
            max_trades=max_trades,
            warmup=warmup,
        )
        self.decision_interval = check_float(
            decision_interval, "decision_interval", low=0.0, low_open=True
        )
        self.n_steps = math.ceil(self.core.session_length / self.decision_interval - 1e-9)
        self.observation_space = self.core.observation_space()
        self.action_space = self.core.action_space()
        self.trader = _Trader(self.AGENT)
        self.elapsed_steps = 0
        self._interval = Fraction(self.decision_interval)
        self._clock = Fraction(0)
        self._started = False
        self._done = False

    @property
    def book(self) -> OrderBook:
        """The order book (the same object across resets)."""
        return self.core.book

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[_Obs]:
        """Lay a fresh book, run the warm-up and start flat; takes no ``options``."""
        check_reset_options(self, options)
        self._set_rng(seed)
        self.trader = _Trader(self.AGENT)
        self.core.start(self.rng, [self.trader])
        self.elapsed_steps = 0
        self._clock = Fraction(0)
        self._started = True
        self._done = False
        core = self.core
        return ResetResult(
            core.observation(self.trader), core.info(self.trader, self.decision_interval)
        )

    def step(self, action: Any) -> StepResult[_Obs]:
        """Market order, quotes, then the flow runs to the next decision time."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        core = self.core
        bid_level, ask_level, market = core.parse(action, self.action_space)
        trader = self.trader
        trader.fills = 0
        wealth_before = trader.wealth(core.mid())
        core.decide(trader, bid_level, ask_level, market)
        self.elapsed_steps = k = self.elapsed_steps + 1
        clock = min(k * self._interval, core.end)
        dt = float(clock - self._clock)
        self._clock = clock
        core.advance(self.rng, clock)
        q = trader.inventory
        reward = trader.wealth(core.mid()) - wealth_before - core.inventory_penalty * q * q * dt
        self._done = terminated = k >= self.n_steps
        return StepResult(
            core.observation(trader), reward, terminated, False, core.info(trader, dt)
        )

    def action_mask(self) -> tuple[NDArray[np.int8], ...]:
        """``(bid_mask[K+1], ask_mask[K+1], market_mask[3])`` int8."""
        return self.core.action_mask(self.trader)


class LimitOrderBookMarket(MultiAgentEnv[_Obs, _Action, str]):
    """Several LOB agents sharing one book, each deciding on its own (jittered) clock.

    A step takes the actions of the agents in ``acting``; the session clock then jumps to the
    earliest next decision and the flow runs until then. Every agent gets a reward each step.
    Per step ``rng`` draws one ``uniform`` per acting agent in name order (only when
    ``jitter > 0``), then the flow runs. With one agent and no jitter the trajectories equal
    ``LimitOrderBookEnv``'s for the same seed and actions, unless ``session_length`` lies
    within about 1e-9 of a multiple of the interval (the two end tests round differently).
    ``staggered_by`` names the settings that let only some agents act at a step.
    """

    def __init__(
        self,
        n_agents: int = 2,
        *,
        decision_intervals: float | Sequence[float] = 1.0,
        jitter: float = 0.0,
        flow: ZeroIntelligenceFlow | None = None,
        mid_price: int = 10_000,
        session_length: float = 300.0,
        levels: int = 5,
        max_quote_offset: int = 5,
        order_size: int = 1,
        max_inventory: int = 20,
        inventory_penalty: float = 0.01,
        max_trades: int = 16,
        warmup: float = 20.0,
    ) -> None:
        self.core = _LOBCore(
            flow=flow,
            mid_price=mid_price,
            session_length=session_length,
            levels=levels,
            max_quote_offset=max_quote_offset,
            order_size=order_size,
            max_inventory=max_inventory,
            inventory_penalty=inventory_penalty,
            max_trades=max_trades,
            warmup=warmup,
        )
        n = check_int(n_agents, "n_agents", low=1)
        self.decision_intervals = _intervals(decision_intervals, n)
        self.jitter = check_float(jitter, "jitter", low=0.0, high=1.0, high_open=True)
        self.possible_agents = [f"trader_{i}" for i in range(n)]
        self.agents: list[str] = []
        self.observation_spaces = {a: self.core.observation_space() for a in self.possible_agents}
        self.action_spaces = {a: self.core.action_space() for a in self.possible_agents}
        self.traders = {a: _Trader(i) for i, a in enumerate(self.possible_agents)}
        self.acting: list[str] = []
        self._names = sorted(self.possible_agents)
        self._intervals = dict(
            zip(self.possible_agents, map(Fraction, self.decision_intervals.tolist()), strict=True)
        )
        self._next = dict.fromkeys(self.possible_agents, Fraction(0))
        self._clock = Fraction(0)
        self._started = False
        self._done = False

    @property
    def book(self) -> OrderBook:
        """The order book (the same object across resets)."""
        return self.core.book

    @property
    def next_decision(self) -> NDArray[np.float64]:
        """Each agent's next decision time in session time, in ``possible_agents`` order."""
        return np.array([float(self._next[a]) for a in self.possible_agents], dtype=np.float64)

    @property
    def staggered_by(self) -> str | None:
        """Unequal ``decision_intervals`` or ``jitter > 0`` with several agents, else ``None``.

        Either lets only some agents act at a step; with one agent it always acts.
        """
        if len(self.possible_agents) == 1:
            return None
        reasons = []
        if len(set(self._intervals.values())) > 1:
            reasons.append(f"unequal decision_intervals {self.decision_intervals.tolist()}")
        if self.jitter > 0:
            reasons.append(f"jitter={self.jitter}")
        if not reasons:
            return None
        return (
            f"{' and '.join(reasons)} (every agent acts at every step only with equal "
            "decision_intervals and jitter=0)"
        )

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[_Obs]:
        """Lay a fresh book, run the warm-up, start every trader flat; all agents act first.

        Takes no ``options``.
        """
        check_reset_options(self, options)
        self._set_rng(seed)
        self.traders = {a: _Trader(i) for i, a in enumerate(self.possible_agents)}
        core = self.core
        core.start(self.rng, list(self.traders.values()))
        self._clock = Fraction(0)
        self._next = dict.fromkeys(self.possible_agents, Fraction(0))
        self.agents = list(self.possible_agents)
        self.acting = list(self._names)
        self._started = True
        self._done = False
        return MAResetResult(
            {a: core.observation(self.traders[a]) for a in self.acting},
            {a: core.info(t, 0.0) for a, t in self.traders.items()},
        )

    def step(self, actions: Mapping[str, Any]) -> MAStepResult[_Obs]:
        """Apply the acting agents' decisions in name order, then run to the next decision."""
        if self._done:
            raise episode_ended()
        if not self._started:
            raise ResetRequired()
        if not isinstance(actions, Mapping) or set(actions) != set(self.acting):
            received = list(actions) if isinstance(actions, Mapping) else actions
            raise ValueError(
                f"step() needs exactly one action for each acting agent {self.acting}, "
                f"got {received!r}."
            )
        core = self.core
        decisions = [(a, core.parse(actions[a], self.action_spaces[a])) for a in self.acting]
        traders = self.traders
        mid_before = core.mid()
        wealth_before = {a: t.wealth(mid_before) for a, t in traders.items()}
        for trader in traders.values():
            trader.fills = 0
        rng = self.rng
        jitter = self.jitter
        clock = self._clock
        for agent, (bid_level, ask_level, market) in decisions:
            core.decide(traders[agent], bid_level, ask_level, market)
            interval = self._intervals[agent]
            if jitter > 0:
                interval = Fraction(float(interval) * rng.uniform(1.0 - jitter, 1.0 + jitter))
            self._next[agent] = clock + interval
        new_clock = min(min(self._next.values()), core.end)
        dt = float(new_clock - clock)
        self._clock = new_clock
        core.advance(rng, new_clock)
        mid = core.mid()
        penalty = core.inventory_penalty * dt
        rewards = {
            a: t.wealth(mid) - wealth_before[a] - penalty * t.inventory * t.inventory
            for a, t in traders.items()
        }
        done = new_clock >= core.end - _TOLERANCE
        self._done = done
        if done:
            self.acting = list(self._names)
            self.agents = []
        else:
            self.acting = [a for a in self._names if self._next[a] - new_clock <= _TOLERANCE]
        acting = set(self.acting)
        infos = {}
        for agent, trader in traders.items():
            info = core.info(trader, dt)
            info["acting"] = agent in acting
            infos[agent] = info
        return MAStepResult(
            {a: core.observation(traders[a]) for a in self.acting},
            rewards,
            dict.fromkeys(self.possible_agents, done),
            dict.fromkeys(self.possible_agents, False),
            infos,
        )

    def action_mask(self, agent: str) -> tuple[NDArray[np.int8], ...]:
        """``(bid_mask[K+1], ask_mask[K+1], market_mask[3])`` int8 for ``agent``."""
        return self.core.action_mask(self.traders[agent])


def _intervals(value: Any, n: int) -> NDArray[np.float64]:
    """Decision intervals broadcast to ``(n,)``; each finite and > 0."""
    values = [value] * n if np.ndim(value) == 0 else list(value)
    if len(values) != n:
        raise ValueError(
            f"decision_intervals needs a scalar or {n} values (one per agent), got {len(values)}."
        )
    return np.array(
        [check_float(v, "decision_intervals", low=0.0, low_open=True) for v in values],
        dtype=np.float64,
    )
