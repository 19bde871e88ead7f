"""The finance envs' native vector versions, each in its env's package, gathered here."""

from sekai.envs.finance.market.vector import MarketVecEnv as MarketVecEnv
from sekai.envs.finance.market_making.vector import MarketMakingVecEnv as MarketMakingVecEnv
from sekai.envs.finance.optimal_execution.vector import (
    OptimalExecutionVecEnv as OptimalExecutionVecEnv,
)
from sekai.envs.finance.portfolio.vector import PortfolioVecEnv as PortfolioVecEnv
from sekai.envs.finance.trading.vector import TradingVecEnv as TradingVecEnv

__all__ = [
    "MarketMakingVecEnv",
    "MarketVecEnv",
    "OptimalExecutionVecEnv",
    "PortfolioVecEnv",
    "TradingVecEnv",
]
