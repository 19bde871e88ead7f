"""Market-v0: a portfolio over a changing universe of assets, observed as a padded set.

``env`` holds the single env ``MarketEnv`` and its default simulation ``default_market``,
``vector`` its native twin ``MarketVecEnv`` and ``viewer`` its dashboard ``MarketRenderer``.
The windowed base it shares with Trading-v0 and Portfolio-v0 is ``sekai.envs.finance.windowed``.
"""

from sekai.envs.finance.market.env import MarketEnv, default_market
from sekai.envs.finance.market.vector import MarketVecEnv
from sekai.envs.finance.market.viewer import MarketRenderer

__all__ = ["MarketEnv", "MarketRenderer", "MarketVecEnv", "default_market"]
