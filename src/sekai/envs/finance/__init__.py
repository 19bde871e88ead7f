"""Finance environments: trading, portfolios, changing universes, market making, execution, LOBs.

One package per environment, each holding the single env (``env``), its native vector
version where it has one (``vector``) and its dashboard (``viewer``), all re-exported by the
package: ``trading`` (Trading-v0), ``portfolio`` (Portfolio-v0), ``market_making``
(MarketMaking-v0), ``optimal_execution`` (OptimalExecution-v0), ``market`` (Market-v0) and
``order_book`` (LimitOrderBook-v0 and ``LimitOrderBookMarket``).

Beside them, the pieces several share: ``windowed`` (``WindowedEnv`` and ``WindowedVecEnv``,
the single and batched bases of the envs trading one price window per episode, with their
price sources), ``dashboard`` (``EnvDashboard``, the base of the viewers) and ``_checks``
(argument checks and messages). The modules ``vector``, ``rendering``, ``market_env`` and
``lob_env`` gather the native versions, the dashboards, Market-v0 and the order-book envs
under the paths that entry points and imports name.
"""

from sekai.envs.finance.market import MarketEnv, MarketRenderer, default_market
from sekai.envs.finance.market_making import (
    MarketMakingEnv,
    MarketMakingRenderer,
    MarketMakingVecEnv,
)
from sekai.envs.finance.optimal_execution import (
    OptimalExecutionEnv,
    OptimalExecutionRenderer,
    OptimalExecutionVecEnv,
)
from sekai.envs.finance.order_book import (
    LimitOrderBookEnv,
    LimitOrderBookMarket,
    LimitOrderBookMarketRenderer,
    LimitOrderBookRenderer,
)
from sekai.envs.finance.portfolio import PortfolioEnv, PortfolioRenderer, PortfolioVecEnv
from sekai.envs.finance.trading import TradingEnv, TradingRenderer, TradingVecEnv
from sekai.finance.simulators import random_correlation, sample_window, simulate_gbm

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
