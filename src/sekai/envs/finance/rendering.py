"""The finance envs' dashboards, each in its env's package, gathered here."""

from sekai.envs.finance.market.viewer import MarketRenderer as MarketRenderer
from sekai.envs.finance.market_making.viewer import MarketMakingRenderer as MarketMakingRenderer
from sekai.envs.finance.optimal_execution.viewer import (
    OptimalExecutionRenderer as OptimalExecutionRenderer,
)
from sekai.envs.finance.order_book.viewer import (
    LimitOrderBookMarketRenderer as LimitOrderBookMarketRenderer,
)
from sekai.envs.finance.order_book.viewer import LimitOrderBookRenderer as LimitOrderBookRenderer
from sekai.envs.finance.portfolio.viewer import PortfolioRenderer as PortfolioRenderer
from sekai.envs.finance.trading.viewer import TradingRenderer as TradingRenderer
from sekai.envs.finance.trading.viewer import _chosen_position as _chosen_position

__all__ = [
    "TradingRenderer",
    "PortfolioRenderer",
    "MarketRenderer",
    "MarketMakingRenderer",
    "OptimalExecutionRenderer",
    "LimitOrderBookRenderer",
    "LimitOrderBookMarketRenderer",
]
