"""Market-v0: a portfolio over a changing universe of assets, observed as a padded set.

``env`` holds the single env ``MarketEnv`` and its default simulation ``default_market``,
``vector`` its native twin ``MarketVecEnv``, ``trades`` the discrete action mode
(MarketDiscrete-v0) they share and ``viewer`` the dashboard ``MarketRenderer``.
The windowed base it shares with Trading-v0 and Portfolio-v0 is ``sekai.envs.finance.windowed``.

Kept paths: this package replaced the module ``sekai.envs.finance.market``, which held the
price helpers of the windowed envs; ``validate_prices`` (from ``sekai.envs.finance.windowed``)
and ``random_correlation``, ``sample_window`` and ``simulate_gbm`` (from
``sekai.finance.simulators``) still import from here.
"""

from sekai.envs.finance.market.env import MarketEnv, default_market
from sekai.envs.finance.market.vector import MarketVecEnv
from sekai.envs.finance.market.viewer import MarketRenderer
from sekai.envs.finance.windowed.env import validate_prices
from sekai.finance.simulators import random_correlation, sample_window, simulate_gbm

__all__ = [
    "MarketEnv",
    "MarketRenderer",
    "MarketVecEnv",
    "default_market",
    "random_correlation",
    "sample_window",
    "simulate_gbm",
    "validate_prices",
]
