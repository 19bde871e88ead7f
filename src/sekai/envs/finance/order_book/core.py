"""The mechanics both LOB environments share: book, background flow, accounts and views.

The background flow is ``ZeroIntelligenceFlow`` or, given ``data``, a ``HistoricalFlow``
replaying LOBSTER messages from a start time the episode sampler picks (see
``sekai.finance.lob.lobster.flow`` for the replay's assumptions). With ``latency > 0`` a
decision is priced on the book the agent observed and reaches the book ``latency`` later.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance.order_book.config import LimitOrderBookConfig
from sekai.error import InvalidAction
from sekai.finance.lob import Fill, HistoricalFlow, Order, OrderBook, Side, ZeroIntelligenceFlow
from sekai.finance.sampling import EpisodeSampler, as_sampler, sample_start
from sekai.spaces import Box, Dict, MaskedBox, MultiDiscrete, Space

__all__ = ["BUY", "HOLD", "LATE", "NOW", "SELL", "Plan"]

SELL, HOLD, BUY = 0, 1, 2
"""The market-order choices (third action entry)."""

NOW, LATE = -1.0, -2.0
"""Arrival times of a decision that reaches the book at once / after the session (never)."""

_INF = float("inf")
_NS = 1_000_000_000
_Obs = dict[str, Any]

Plan = tuple[int, int | None, int | None]
"""A priced decision: market choice, bid price and ask price (``None``: no quote)."""


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


class _LOBSettings:
    """What both engines of the LOB environments share: settings, spaces, limits, masks.

    The mechanics (book, flow, accounts, views) are ``_LOBCore``'s in pure Python and
    ``compiled._CompiledCore``'s on the numba engine; the session clock belongs to the env.
    """

    def __init__(self, config: LimitOrderBookConfig, start_step: float) -> None:
        self.config = config
        self.levels = config.levels
        self.max_quote_offset = config.max_quote_offset
        self.mid_price = config.mid_price
        self.order_size = config.order_size
        self.max_inventory = config.max_inventory
        self.max_trades = config.max_trades
        self.session_length = config.session_length
        self.inventory_penalty = config.inventory_penalty
        self.warmup = config.warmup
        self.latency = config.latency
        if config.data is None:
            self.flow = ZeroIntelligenceFlow() if config.flow is None else config.flow
            self.history: HistoricalFlow | None = None
            self.sampler: EpisodeSampler | None = None
        else:
            self.flow = ZeroIntelligenceFlow()
            self.history = HistoricalFlow(config.data)
            self.sampler = as_sampler("random" if config.sampler is None else config.sampler)
            self._step_ns = round(start_step * _NS)
            self._starts = self._start_grid()
        self.end = Fraction(self.session_length)
        self.t0 = 0.0
        self.elapsed = 0.0
        self.day = 0
        self.owners: dict[int, _Trader] = {}

    def _start_grid(self) -> tuple[list[int], list[int]]:
        """Per day: the first start (ns) and the number of starts, ``_step_ns`` apart.

        They start ``warmup`` after the day's first message; each session ends by its last
        message. "sequential" moves one session length at a time.
        """
        assert self.history is not None
        step_ns = self._step_ns
        warmup_ns = round(self.warmup * _NS)
        session_ns = round(self.session_length * _NS)
        firsts, counts = [], []
        for day in range(len(self.history.days)):
            first, last = self.history.span(day)
            first += warmup_ns
            latest = last - session_ns
            firsts.append(first)
            counts.append((latest - first) // step_ns + 1 if latest >= first else 0)
        if not sum(counts):
            spans = ", ".join(
                f"{(b - a) / _NS:g} s" for a, b in map(self.history.span, range(len(counts)))
            )
            raise ValueError(
                f"no replayed session fits in the data: each needs warmup + session_length = "
                f"{self.warmup + self.session_length:g} s of messages, the days span {spans}."
            )
        return firsts, counts

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

    def session_start(self, rng: np.random.Generator) -> tuple[int, int]:
        """Draw a replayed session's ``(day, start)``, the start in ns after midnight."""
        assert self.history is not None and self.sampler is not None
        firsts, counts = self._starts
        step = self._step_ns
        index = sample_start(
            self.sampler,
            rng,
            n_starts=sum(counts),
            episode_length=max(1, round(self.session_length * _NS) // step),
            lookback=0,
        )
        day = 0
        while index >= counts[day]:
            index -= counts[day]
            day += 1
        self.day = day
        return day, firsts[day] + index * step

    @property
    def halted(self) -> bool:
        """Whether replayed trading is halted (agents' market orders are not sent)."""
        return self.history is not None and self.history.halted

    def can_buy(self, trader: _Trader) -> bool:
        """Whether buying ``order_size`` keeps the inventory within the limit."""
        return trader.inventory + self.order_size <= self.max_inventory

    def can_sell(self, trader: _Trader) -> bool:
        """Whether selling ``order_size`` keeps the inventory within the limit."""
        return trader.inventory - self.order_size >= -self.max_inventory

    def parse(self, action: Any, space: Space[Any]) -> tuple[int, int, int]:
        """``(bid level, ask level, market choice)``; ``InvalidAction`` outside ``space``."""
        if type(action) is np.ndarray and action.dtype == np.int64 and action.shape == (3,):
            bid, ask, market = action.tolist()
            n = self.max_quote_offset
            if 0 <= bid <= n and 0 <= ask <= n and 0 <= market <= 2:
                return bid, ask, market
        if not space.contains(action):
            raise InvalidAction(action, space)
        bid, ask, market = np.asarray(action).tolist()
        return bid, ask, market

    def info_of(
        self, trader: _Trader, dt: float, time: float, mid: float, spread: int | None
    ) -> dict[str, Any]:
        """The info of ``trader`` with the book at ``time`` showing ``mid`` and ``spread``."""
        return {
            "timestamp": time - self.t0,
            "mid_price": mid,
            "spread": spread,
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


class _LOBCore(_LOBSettings):
    """The mechanics of the LOB environments in pure Python: ``OrderBook`` and its flows."""

    def __init__(self, config: LimitOrderBookConfig, start_step: float) -> None:
        super().__init__(config, start_step)
        self.book = OrderBook()
        self.trades: deque[tuple[int, int, int]] = deque(maxlen=self.max_trades)

    # -- session ---------------------------------------------------------------------------

    def start(self, rng: np.random.Generator, traders: Sequence[_Trader]) -> None:
        """Lay the initial book (simulated and warmed up, or historical at a sampled start)."""
        book = self.book
        if self.history is None:
            self.flow.initialise(book, rng, mid=self.mid_price)
            if self.warmup > 0:
                self.flow.advance(book, rng, self.warmup)
        else:
            self.history.seek(book, *self.session_start(rng))
        self.t0 = book.time
        self.elapsed = 0.0
        self.trades.clear()
        self.owners = {trader.owner: trader for trader in traders}

    def advance(self, rng: np.random.Generator, clock: float | Fraction) -> None:
        """Run the flow until session time ``clock``, book its fills, forget filled quotes."""
        self.elapsed = float(clock)
        flow = self.flow if self.history is None else self.history
        self._record(flow.advance(self.book, rng, self.t0 + self.elapsed))
        for trader in self.owners.values():
            self._sync(trader)

    def mid(self) -> float:
        """The book mid, else ``last_price``, else ``mid_price``."""
        mid = self.book.mid()
        if mid is None:
            return self.book.last_price or self.mid_price
        return mid

    def reset_fills(self, traders: Sequence[_Trader]) -> None:
        """Zero the fill counts of ``traders``."""
        for trader in traders:
            trader.fills = 0

    # -- decisions -------------------------------------------------------------------------

    def decide(self, trader: _Trader, bid_level: int, ask_level: int, market: int) -> None:
        """Apply one decision now: the market order, then the bid and the ask quote."""
        self._market(trader, market)
        bid = self._target(trader, Side.BID, bid_level if self.can_buy(trader) else 0)
        trader.bid_id = self._hold(trader, Side.BID, bid, trader.bid_id)
        ask = self._target(trader, Side.ASK, ask_level if self.can_sell(trader) else 0)
        trader.ask_id = self._hold(trader, Side.ASK, ask, trader.ask_id)

    def plan(self, trader: _Trader, bid_level: int, ask_level: int, market: int) -> Plan:
        """Price a decision on the current book, to ``deliver`` after the latency."""
        bid = self._target(trader, Side.BID, bid_level if self.can_buy(trader) else 0)
        ask = self._target(trader, Side.ASK, ask_level if self.can_sell(trader) else 0)
        return market, bid, ask

    def deliver(self, trader: _Trader, plan: Plan) -> None:
        """Send a planned decision: limits are checked again, on the inventory it finds."""
        market, bid, ask = plan
        self._market(trader, market)
        trader.bid_id = self._hold(
            trader, Side.BID, bid if self.can_buy(trader) else None, trader.bid_id
        )
        trader.ask_id = self._hold(
            trader, Side.ASK, ask if self.can_sell(trader) else None, trader.ask_id
        )

    def _market(self, trader: _Trader, market: int) -> None:
        """A market order of ``order_size`` within the limits, cancelling the own opposite quote.

        None is sent while replayed trading is halted.
        """
        if market == HOLD or self.halted:
            return
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

    def _target(self, trader: _Trader, side: Side, level: int) -> int | None:
        """The price a quote ``level`` ticks behind on ``side`` holds; None for level 0.

        A resting quote at level 1 that sits at its side's best keeps its price.
        """
        if level == 0:
            return None
        book = self.book
        order_id = trader.bid_id if side is Side.BID else trader.ask_id
        own = None if order_id is None else book.get(order_id)
        bid = side is Side.BID
        best = book.best_bid() if bid else book.best_ask()
        if own is not None and level == 1 and own.price == best:
            return own.price
        return self._reference(trader, side, best, own) + (1 - level if bid else level - 1)

    def _hold(
        self, trader: _Trader, side: Side, price: int | None, order_id: int | None
    ) -> int | None:
        """Keep, move or cancel the quote ``order_id`` to rest at ``price``; returns its id."""
        book = self.book
        own = None if order_id is None else book.get(order_id)
        if own is not None:
            if own.price == price:
                return own.order_id
            book.cancel(own.order_id)
        if price is None:
            return None
        new_id, fills = book.limit(side, max(price, 1), self.order_size, trader.owner)
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
        return self.info_of(trader, dt, self.book.time, self.mid(), self.book.spread())

    def step_agent(
        self,
        rng: np.random.Generator,
        trader: _Trader,
        decision: tuple[int, int, int],
        times: tuple[float, float, float],
    ) -> tuple[_Obs, float, dict[str, Any]]:
        """One single-agent step: ``(observation, reward, info)``.

        ``times`` is ``(arrival, elapsed, dt)`` in session time: the decision reaches the book
        at ``arrival`` (``NOW``: at once; ``LATE``: never) and the flow then runs to
        ``elapsed``, ``dt`` after the previous decision.
        """
        arrival, elapsed, dt = times
        trader.fills = 0
        wealth_before = trader.wealth(self.mid())
        if arrival == NOW:
            self.decide(trader, *decision)
        elif arrival != LATE:
            planned = self.plan(trader, *decision)
            self.advance(rng, arrival)
            self.deliver(trader, planned)
        self.advance(rng, elapsed)
        q = trader.inventory
        reward = trader.wealth(self.mid()) - wealth_before - self.inventory_penalty * q * q * dt
        return self.observation(trader), reward, self.info(trader, dt)
