"""Finance environments: trading, portfolios, changing universes, market making, execution, LOBs."""

from sekai.envs.finance.lob_env import LimitOrderBookEnv, LimitOrderBookMarket
from sekai.envs.finance.market import (
    default_market,
    random_correlation,
    sample_window,
    simulate_gbm,
)
from sekai.envs.finance.market_env import MarketEnv
from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.optimal_execution import OptimalExecutionEnv
from sekai.envs.finance.portfolio import PortfolioEnv
from sekai.envs.finance.rendering import (
    LimitOrderBookMarketRenderer,
    LimitOrderBookRenderer,
    MarketMakingRenderer,
    MarketRenderer,
    OptimalExecutionRenderer,
    PortfolioRenderer,
    TradingRenderer,
)
from sekai.envs.finance.trading import TradingEnv
from sekai.envs.finance.vector import (
    MarketMakingVecEnv,
    OptimalExecutionVecEnv,
    PortfolioVecEnv,
    TradingVecEnv,
)

__all__ = [
    "LimitOrderBookEnv",
    "LimitOrderBookMarket",
    "MarketEnv",
    "MarketMakingEnv",
    "OptimalExecutionEnv",
    "PortfolioEnv",
    "TradingEnv",
    "TradingVecEnv",
    "PortfolioVecEnv",
    "MarketMakingVecEnv",
    "OptimalExecutionVecEnv",
    "TradingRenderer",
    "PortfolioRenderer",
    "MarketRenderer",
    "MarketMakingRenderer",
    "OptimalExecutionRenderer",
    "LimitOrderBookRenderer",
    "LimitOrderBookMarketRenderer",
    "default_market",
    "random_correlation",
    "sample_window",
    "simulate_gbm",
]
