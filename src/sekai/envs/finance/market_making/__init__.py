"""MarketMaking-v0: quote a bid and an ask around a Brownian mid price (Avellaneda-Stoikov).

``env`` holds the single env ``MarketMakingEnv``, ``vector`` its native twin
``MarketMakingVecEnv`` and ``viewer`` its dashboard ``MarketMakingRenderer``.
"""

from sekai.envs.finance.market_making.env import MarketMakingEnv
from sekai.envs.finance.market_making.vector import MarketMakingVecEnv
from sekai.envs.finance.market_making.viewer import MarketMakingRenderer

__all__ = ["MarketMakingEnv", "MarketMakingRenderer", "MarketMakingVecEnv"]
