"""Finance environments: trading, portfolios, market making, optimal execution."""

from sekai.envs.finance.market import random_correlation, sample_window, simulate_gbm
from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.optimal_execution import OptimalExecutionEnv
from sekai.envs.finance.portfolio import PortfolioEnv
from sekai.envs.finance.trading import TradingEnv
from sekai.envs.finance.vector import (
    MarketMakingVecEnv,
    OptimalExecutionVecEnv,
    PortfolioVecEnv,
    TradingVecEnv,
)

__all__ = [
    "MarketMakingEnv",
    "OptimalExecutionEnv",
    "PortfolioEnv",
    "TradingEnv",
    "TradingVecEnv",
    "PortfolioVecEnv",
    "MarketMakingVecEnv",
    "OptimalExecutionVecEnv",
    "random_correlation",
    "sample_window",
    "simulate_gbm",
]
