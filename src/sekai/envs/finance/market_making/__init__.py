"""MarketMaking-v0/-v1: quote a bid and an ask around a Brownian mid price (Avellaneda-Stoikov).

``env`` holds the single env ``MarketMakingEnv``, ``vector`` its native twin
``MarketMakingVecEnv`` and ``viewer`` its dashboard ``MarketMakingRenderer``. ``actions`` is
the centred action encoding of ``MarketMaking-v1``, ``dynamic_programme`` the exact optimum of
the env's own problem and ``reference`` the reference policies built on it.
"""

from sekai.envs.finance.market_making.env import MarketMakingEnv
from sekai.envs.finance.market_making.vector import MarketMakingVecEnv
from sekai.envs.finance.market_making.viewer import MarketMakingRenderer

__all__ = ["MarketMakingEnv", "MarketMakingRenderer", "MarketMakingVecEnv"]
