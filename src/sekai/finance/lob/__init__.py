"""A price-time priority limit order book, zero-intelligence order flow and LOBSTER data."""

from __future__ import annotations

from sekai.finance.lob.book import (
    BACKGROUND,
    MAX_EXPECTED_EVENTS,
    Fill,
    Order,
    OrderBook,
    Side,
    ZeroIntelligenceFlow,
)
from sekai.finance.lob.lobster import LobsterData
from sekai.finance.lob.lobster_flow import HistoricalFlow
from sekai.finance.lob.lobster_read import read_lobster
from sekai.finance.lob.lobster_replay import ANONYMOUS, EMPTY_ASK, EMPTY_BID, LobsterEvent
from sekai.finance.lob.lobster_simulate import simulate_lobster, write_lobster

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
