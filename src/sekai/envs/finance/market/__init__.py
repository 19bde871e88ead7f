"""Market-v0: a portfolio over a changing universe of assets, observed as a padded set.

``env`` holds the single env ``MarketEnv`` and its default simulation ``default_market``;
``viewer`` its dashboard ``MarketRenderer``. There is no native vector version. The windowed
base's names (``WindowedEnv``, ``validate_prices``, ... of ``sekai.envs.finance.windowed``)
and the simulators' helpers are importable from here as well, as they were before the base
had a module of its own.
"""

from sekai.envs.finance.market.env import MarketEnv, default_market
from sekai.envs.finance.market.viewer import MarketRenderer
from sekai.envs.finance.windowed.env import (
    History,
    WindowedEnv,
    check_cost_inputs,
    choose_start,
    cost_model_of,
    load_history,
    real_sequence,
    resolve_dt,
    row_sum,
    simulated_prices,
    validate_prices,
)
from sekai.finance.simulators import random_correlation, sample_window, simulate_gbm

__all__ = [
    "MarketEnv",
    "MarketRenderer",
    "default_market",
    "History",
    "WindowedEnv",
    "check_cost_inputs",
    "choose_start",
    "cost_model_of",
    "load_history",
    "random_correlation",
    "real_sequence",
    "resolve_dt",
    "row_sum",
    "sample_window",
    "simulate_gbm",
    "simulated_prices",
    "validate_prices",
]
