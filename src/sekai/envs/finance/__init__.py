"""Finance environments: trading, portfolios, market making, optimal execution."""

from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.optimal_execution import OptimalExecutionEnv
from sekai.envs.finance.vector import MarketMakingVecEnv, OptimalExecutionVecEnv

__all__ = [
    "MarketMakingEnv",
    "OptimalExecutionEnv",
    "MarketMakingVecEnv",
    "OptimalExecutionVecEnv",
]
