"""LimitOrderBook-v0 and ``LimitOrderBookMarket``: trade in a simulated or replayed order book.

``config`` holds their settings (``LimitOrderBookConfig``); ``core`` their shared
mechanics; ``env`` the single-agent ``LimitOrderBookEnv``, the multi-agent
``LimitOrderBookMarket`` and the market-order codes ``SELL``, ``HOLD``, ``BUY``; ``viewer``
their dashboards ``LimitOrderBookRenderer`` and ``LimitOrderBookMarketRenderer``.
There is no native vector version.
"""

from sekai.envs.finance.order_book.config import LimitOrderBookConfig
from sekai.envs.finance.order_book.env import (
    BUY,
    HOLD,
    SELL,
    LimitOrderBookEnv,
    LimitOrderBookMarket,
)
from sekai.envs.finance.order_book.viewer import (
    LimitOrderBookMarketRenderer,
    LimitOrderBookRenderer,
)

__all__ = [
    "BUY",
    "HOLD",
    "SELL",
    "LimitOrderBookConfig",
    "LimitOrderBookEnv",
    "LimitOrderBookMarket",
    "LimitOrderBookMarketRenderer",
    "LimitOrderBookRenderer",
]
