"""Zero-intelligence order flow: Poisson limit orders, market orders and cancellations."""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np

from sekai.finance.lob.book import BACKGROUND, Fill, OrderBook, Side, plain_book
from sekai.utils.validation import check_int, check_real

__all__ = ["MAX_EXPECTED_EVENTS", "ZeroIntelligenceFlow"]

MAX_EXPECTED_EVENTS = 10_000_000
"""Most limit and market orders one ``ZeroIntelligenceFlow.advance`` call may expect to run."""

_NO_REFERENCE = (
    "the flow needs a reference price, but the book is empty and its last_price is None; "
    "call initialise(book, rng, mid=...) first, or set book.last_price to a price >= 1."
)


@dataclass(frozen=True, slots=True)
class ZeroIntelligenceFlow:
    """Background order flow: Poisson limit orders, market orders and cancellations.

    Limit orders arrive at ``limit_rate`` per side, market orders at ``market_rate`` per side,
    and each background order is cancelled at ``cancel_rate``. A limit order sits ``k`` ticks
    behind the opposite best, with ``P(k) ∝ exp(-offset_decay (k - 1))`` on
    ``1..max_offset``; sizes are ``1 + Poisson(mean_size - 1)``.
    """

    limit_rate: float = 10.0
    market_rate: float = 2.0
    cancel_rate: float = 0.5
    max_offset: int = 10
    offset_decay: float = 0.5
    mean_size: float = 3.0

    def __post_init__(self) -> None:
        checked = {
            "limit_rate": check_real(self.limit_rate, "limit_rate", low=0.0, low_open=True),
            "market_rate": check_real(self.market_rate, "market_rate", low=0.0, low_open=True),
            "cancel_rate": check_real(self.cancel_rate, "cancel_rate", low=0.0),
            "max_offset": check_int(self.max_offset, "max_offset", low=1),
            "offset_decay": check_real(self.offset_decay, "offset_decay", low=0.0),
            "mean_size": check_real(self.mean_size, "mean_size", low=1.0),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def initialise(
        self,
        book: OrderBook,
        rng: np.random.Generator,
        *,
        mid: int,
        levels: int = 10,
        orders_per_level: int = 3,
    ) -> None:
        """Clear ``book`` and lay ``orders_per_level`` orders on each of ``levels`` ticks per side.

        For ``d = 1..levels``, each time a bid at ``max(mid - d, 1)`` then an ask at ``mid + d``;
        ``last_price`` becomes ``mid``.
        """
        plain_book(book, "ZeroIntelligenceFlow")
        mid = check_int(mid, "mid", low=1)
        levels = check_int(levels, "levels", low=1)
        orders_per_level = check_int(orders_per_level, "orders_per_level", low=1)
        book.clear()
        book.last_price = mid
        fills: list[Fill] = []
        for d in range(1, levels + 1):
            for _ in range(orders_per_level):
                book._limit(Side.BID, max(mid - d, 1), self._draw_size(rng), BACKGROUND, fills)
                book._limit(Side.ASK, mid + d, self._draw_size(rng), BACKGROUND, fills)

    def advance(self, book: OrderBook, rng: np.random.Generator, until: float) -> list[Fill]:
        """Run the flow from ``book.time`` to ``until``; returns every fill, agents' included.

        Afterwards neither side is empty, and ``book.time == until``. The expected number of
        orders, ``(2·limit_rate + 2·market_rate)·(until - book.time)``, must be at most
        ``MAX_EXPECTED_EVENTS`` (10 million); cancellations add at most one event per
        background order. Before any draw: ``TypeError`` for an ``until`` that is not a real
        number; ``ValueError`` for one that is not finite or below ``book.time``, an empty book
        without ``last_price`` (no reference price to quote around) or an expectation above
        that bound.
        """
        plain_book(book, "ZeroIntelligenceFlow")
        end = self.check_span(book.time, until)
        if book.last_price is None and not book._bids.keys and not book._asks.keys:
            raise ValueError(_NO_REFERENCE)
        limit_rate = self.limit_rate
        limits = 2 * limit_rate
        buys = 2 * limit_rate + self.market_rate
        flow_rate = 2 * limit_rate + 2 * self.market_rate
        cancel_rate = self.cancel_rate
        exponential = rng.standard_exponential
        uniform = rng.random
        # Owner dicts live until the book is cleared, so this one stays current.
        background = book._owned(BACKGROUND)
        fills: list[Fill] = []
        t = book.time
        while True:
            n_background = len(background)
            rate = flow_rate + cancel_rate * n_background
            t += exponential() / rate
            if t > end:
                break
            book.time = t
            u = uniform() * rate
            if u < limits:
                self._place(book, rng, Side.BID if u < limit_rate else Side.ASK, fills)
            elif u < flow_rate:
                if u < buys:
                    if book.best_ask() is not None:
                        book._market(Side.BID, self._draw_size(rng), BACKGROUND, fills)
                elif book.best_bid() is not None:
                    book._market(Side.ASK, self._draw_size(rng), BACKGROUND, fills)
            else:
                index = int(rng.integers(n_background))
                book.cancel(next(islice(background, index, None)))
        while book.best_bid() is None or book.best_ask() is None:
            self._place(book, rng, Side.BID if book.best_bid() is None else Side.ASK, fills)
        book.time = end
        return fills

    def check_span(self, start: float, until: Any) -> float:
        """``until`` as a float, checked for an ``advance`` from ``start``, as ``advance`` does.

        ``TypeError`` for an ``until`` that is not a real number; ``ValueError`` for one that
        is not finite or below ``start``, or a span expecting more than ``MAX_EXPECTED_EVENTS``
        orders.
        """
        end = check_real(until, "until")
        if end < start:
            raise ValueError(
                f"until={end} is earlier than book.time={start}; the flow only runs "
                "forward, so pass an until >= book.time."
            )
        expected = (2 * self.limit_rate + 2 * self.market_rate) * (end - start)
        if expected > MAX_EXPECTED_EVENTS:
            raise ValueError(
                f"advance over {end - start} time units at limit_rate={self.limit_rate} and "
                f"market_rate={self.market_rate} expects {expected:.4g} orders, above the bound "
                f"of MAX_EXPECTED_EVENTS={MAX_EXPECTED_EVENTS} per call; lower the rates or "
                "advance in shorter spans."
            )
        return end

    def _place(
        self, book: OrderBook, rng: np.random.Generator, side: Side, fills: list[Fill]
    ) -> None:
        """Submit one background limit order on ``side``: offset drawn first, then size."""
        if side > 0:
            ref = book.best_ask()
            if ref is None:
                best = book.best_bid()
                ref = best + 1 if best is not None else book.last_price
        else:
            ref = book.best_bid()
            if ref is None:
                best = book.best_ask()
                ref = best - 1 if best is not None else book.last_price
        if ref is None:
            raise ValueError(_NO_REFERENCE)
        k = self._draw_offset(rng)
        price = max(ref - k, 1) if side > 0 else ref + k
        book._limit(side, price, self._draw_size(rng), BACKGROUND, fills)

    def _draw_offset(self, rng: np.random.Generator) -> int:
        """An offset in ``1..max_offset`` by inverse CDF of one ``rng.random()``."""
        u = rng.random()
        n = self.max_offset
        decay = self.offset_decay
        if decay == 0:
            k = int(u * n) + 1
        else:
            k = math.ceil(-math.log1p(u * math.expm1(-decay * n)) / decay)
        return min(max(k, 1), n)

    def _draw_size(self, rng: np.random.Generator) -> int:
        """``1 + Poisson(mean_size - 1)``; no draw when ``mean_size == 1``."""
        if self.mean_size == 1:
            return 1
        return 1 + int(rng.poisson(self.mean_size - 1))
