"""Trading-v0: hold one asset at a target position chosen from a discrete set.

``env`` holds the single env ``TradingEnv``, ``vector`` its native twin ``TradingVecEnv`` and
``viewer`` its dashboard ``TradingRenderer``.
"""

from sekai.envs.finance.trading.env import TradingEnv
from sekai.envs.finance.trading.vector import TradingVecEnv
from sekai.envs.finance.trading.viewer import TradingRenderer

__all__ = ["TradingEnv", "TradingRenderer", "TradingVecEnv"]
