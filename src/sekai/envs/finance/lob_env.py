"""LimitOrderBook-v0's former module path; the envs live in ``sekai.envs.finance.order_book``."""

from sekai.envs.finance.order_book.env import BUY as BUY
from sekai.envs.finance.order_book.env import HOLD as HOLD
from sekai.envs.finance.order_book.env import SELL as SELL
from sekai.envs.finance.order_book.env import LimitOrderBookEnv as LimitOrderBookEnv
from sekai.envs.finance.order_book.env import LimitOrderBookMarket as LimitOrderBookMarket

__all__ = ["BUY", "HOLD", "SELL", "LimitOrderBookEnv", "LimitOrderBookMarket"]
