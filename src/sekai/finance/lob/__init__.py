"""A price-time priority limit order book, zero-intelligence order flow and LOBSTER data.

Three wings. The pure-Python reference engine: ``book`` (``OrderBook``) and ``zi_flow``
(``ZeroIntelligenceFlow``), with ``engine`` choosing between it and its numba twin in
``compiled`` (imported only with numba). LOBSTER data in ``lobster``: data, read, replay,
historical flow, simulate and write. The modules ``compiled_book``, ``lobster_flow``,
``lobster_read``, ``lobster_replay`` and ``lobster_simulate`` are former paths that
re-export from the wings.
"""

from __future__ import annotations

from sekai.finance.lob.book import BACKGROUND, Fill, Order, OrderBook, Side
from sekai.finance.lob.lobster import (
    ANONYMOUS,
    EMPTY_ASK,
    EMPTY_BID,
    HistoricalFlow,
    LobsterData,
    LobsterEvent,
    read_lobster,
    simulate_lobster,
    write_lobster,
)
from sekai.finance.lob.zi_flow import MAX_EXPECTED_EVENTS, ZeroIntelligenceFlow

__all__ = [
    "BACKGROUND",
    "MAX_EXPECTED_EVENTS",
    "Fill",
    "Order",
    "OrderBook",
    "Side",
    "ZeroIntelligenceFlow",
    "ANONYMOUS",
    "EMPTY_ASK",
    "EMPTY_BID",
    "HistoricalFlow",
    "LobsterData",
    "LobsterEvent",
    "read_lobster",
    "simulate_lobster",
    "write_lobster",
]
