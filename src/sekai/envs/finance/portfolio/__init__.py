"""Portfolio-v0: allocate equity between n assets and cash with continuous weights.

``env`` holds the single env ``PortfolioEnv``, ``vector`` its native twin ``PortfolioVecEnv``
and ``viewer`` its dashboard ``PortfolioRenderer``.
"""

from sekai.envs.finance.portfolio.env import PortfolioEnv, cash_weights
from sekai.envs.finance.portfolio.vector import PortfolioVecEnv
from sekai.envs.finance.portfolio.viewer import PortfolioRenderer

__all__ = ["PortfolioEnv", "PortfolioRenderer", "PortfolioVecEnv", "cash_weights"]
