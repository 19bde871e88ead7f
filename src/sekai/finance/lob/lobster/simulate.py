"""Synthetic LOBSTER data: ``ZeroIntelligenceFlow`` on an ``OrderBook``, logged as messages.

The flow is initialised first (those orders rest before the file starts, so a reader sees
them only in the order-book rows), then run a millisecond at a time. Every change of the book
becomes a message: an aggressive order gives one execution (type 4) per resting order it
trades with, then a new order (type 1) for what rests; a cancel is a delete (type 3). After
each millisecond, with probability ``partial_cancel_rate``, one background order of two or
more shares is cut by 1 to all but one share (type 2); with probability ``hidden_rate``, a
hidden execution (type 5) of a drawn size trades at the best price of a random side without
touching the visible book. With ``halt``, once half the messages are written, trading halts
for 0.2 s (type 7 with price -1, then 0 and 1, 0.1 s apart), the flow paused meanwhile.
"""

from __future__ import annotations

import datetime
import os
from bisect import bisect_left, insort
from pathlib import Path
from typing import Any

import numpy as np

from sekai.finance.lob.book import BACKGROUND, Fill, OrderBook, Side
from sekai.finance.lob.lobster.data import LobsterData
from sekai.finance.lob.lobster.replay import EMPTY_ASK, EMPTY_BID
from sekai.finance.lob.zi_flow import ZeroIntelligenceFlow
from sekai.utils.validation import check_int, check_real

__all__ = ["simulate_lobster", "write_lobster"]

Message = tuple[int, int, int, int, int, float]
"""``(event, order_id, size, price, direction, time)``; time in flow units (milliseconds)."""

_HALT_MS = 100.0


class _LoggingBook(OrderBook):
    """An ``OrderBook`` that logs each change as a LOBSTER message once ``log`` is a list."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[Message] | None = None

    def _limit(
        self, side: Side, price: int, quantity: int, owner: int, fills: list[Fill]
    ) -> int | None:
        start = len(fills)
        order_id = super()._limit(side, price, quantity, owner, fills)
        if self.log is not None:
            self._executions(fills[start:])
            order = self.get(order_id) if order_id is not None else None
            if order is not None:
                self.log.append((1, order.order_id, order.quantity, price, int(side), self.time))
        return order_id

    def _market(self, side: Side, quantity: int, owner: int, fills: list[Fill]) -> int:
        start = len(fills)
        order_id = super()._market(side, quantity, owner, fills)
        self._executions(fills[start:])
        return order_id

    def _executions(self, fills: list[Fill]) -> None:
        if self.log is not None:
            for fill in fills:
                maker = -int(fill.taker_side)
                self.log.append(
                    (4, fill.maker_order_id, fill.quantity, fill.price, maker, fill.time)
                )

    def cancel(self, order_id: int) -> bool:
        order = self.get(order_id)
        if order is not None and self.log is not None:
            self.log.append((3, order_id, order.quantity, order.price, int(order.side), self.time))
        return super().cancel(order_id)

    def reduce(self, order_id: int, quantity: int) -> bool:
        order = self.get(order_id)
        if order is not None and self.log is not None and 0 < quantity < order.quantity:
            cut = order.quantity - quantity
            self.log.append((2, order_id, cut, order.price, int(order.side), self.time))
        return super().reduce(order_id, quantity)


def _depth(volumes: dict[int, dict[int, int]], messages: list[Message], levels: int) -> np.ndarray:
    """The ``(rows, levels, 4)`` book after each message, from level volumes alone."""
    keys = {side: sorted(side * price for price in volumes[side]) for side in (1, -1)}
    empty = {1: EMPTY_BID, -1: EMPTY_ASK}

    def top(side: int) -> tuple[list[int], list[int]]:
        prices = [side * key for key in keys[side][: -levels - 1 : -1]]
        pad = levels - len(prices)
        return prices + [empty[side]] * pad, [volumes[side][p] for p in prices] + [0] * pad

    current = {side: top(side) for side in (1, -1)}
    rows: list[list[int]] = []
    for event, _, size, price, side, _ in messages:
        if event in (1, 2, 3, 4):
            level = volumes[side]
            volume = level.get(price, 0) + (size if event == 1 else -size)
            if volume:
                if price not in level:
                    insort(keys[side], side * price)
                level[price] = volume
            else:
                del level[price]
                del keys[side][bisect_left(keys[side], side * price)]
            current[side] = top(side)
        (ask_prices, ask_sizes), (bid_prices, bid_sizes) = current[-1], current[1]
        rows.append(
            [
                v
                for level in zip(ask_prices, ask_sizes, bid_prices, bid_sizes, strict=True)
                for v in level
            ]
        )
    return np.array(rows, dtype=np.int64).reshape(len(messages), levels, 4)


def simulate_lobster(
    n_messages: int,
    *,
    levels: int = 10,
    seed: int = 0,
    flow: ZeroIntelligenceFlow | None = None,
    mid: int = 10_000,
    tick_size: int = 100,
    partial_cancel_rate: float = 0.2,
    hidden_rate: float = 0.0,
    halt: bool = False,
    ticker: str = "SEKAI",
    date: datetime.date = datetime.date(2024, 1, 2),
    start_ms: int = 34_200_000,
) -> LobsterData:
    """``n_messages`` of zero-intelligence flow as ``LobsterData`` with a ``levels``-deep book.

    ``flow`` (default ``ZeroIntelligenceFlow()``) runs with one time unit per millisecond from
    ``start_ms`` after midnight, around ``mid`` ticks of ``tick_size``; ``seed`` seeds
    ``numpy.random.default_rng``, so equal arguments give equal data.
    """
    n = check_int(n_messages, "n_messages", low=1)
    levels = check_int(levels, "levels", low=1)
    partial = check_real(partial_cancel_rate, "partial_cancel_rate", low=0.0, high=1.0)
    hidden = check_real(hidden_rate, "hidden_rate", low=0.0, high=1.0)
    start_ms = check_int(start_ms, "start_ms", low=0)
    flow = ZeroIntelligenceFlow() if flow is None else flow
    rng = np.random.default_rng(seed)
    book = _LoggingBook()
    flow.initialise(book, rng, mid=mid)
    volumes = {
        side: dict(zip(*book.levels(side, book.n_levels(side)), strict=True)) for side in (1, -1)
    }
    log: list[Message] = []
    book.log = log
    halt_at = n // 2 if halt else None
    while len(log) < n:
        flow.advance(book, rng, book.time + 1.0)
        if partial and rng.random() < partial:
            orders = [o for o in book.orders_of(BACKGROUND) if o.quantity > 1]
            if orders:
                order = orders[int(rng.integers(len(orders)))]
                book.reduce(order.order_id, int(rng.integers(1, order.quantity)))
        if hidden and rng.random() < hidden:
            side = 1 if rng.random() < 0.5 else -1
            best = book.best_bid() if side > 0 else book.best_ask()
            assert best is not None
            log.append((5, 0, flow._draw_size(rng), best, side, book.time))
        if halt_at is not None and len(log) >= halt_at:
            for code in (-1, 0, 1):
                log.append((7, 0, 0, code, -1, book.time))
                book.time += _HALT_MS
            halt_at = None
    messages = log[:n]
    event, order_id, size, price, direction, time = zip(*messages, strict=True)
    time_ns = start_ms * 1_000_000 + np.rint(np.array(time) * 1e6).astype(np.int64)
    return LobsterData(
        time_ns,
        np.array(event, dtype=np.int8),
        np.array(order_id, dtype=np.int64),
        np.array(size, dtype=np.int64),
        np.array(price, dtype=np.int64),
        np.array(direction, dtype=np.int8),
        book=_depth(volumes, messages, levels),
        tick_size=tick_size,
        date=date,
        ticker=ticker,
    )


def write_lobster(
    directory: str | os.PathLike[str], n_messages: int, **options: Any
) -> tuple[Path, Path]:
    """Write ``simulate_lobster(n_messages, **options)`` in ``directory``, named as LOBSTER does.

    ``options`` are ``simulate_lobster``'s keyword arguments. Returns
    ``(message_path, orderbook_path)``; reading them back with ``read_lobster`` gives the
    simulated arrays exactly.
    """
    return simulate_lobster(n_messages, **options).write(directory)
