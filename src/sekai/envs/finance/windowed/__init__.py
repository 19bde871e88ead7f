"""The windowed finance envs' shared base: one price window per episode, single and batched.

``env`` holds ``WindowedEnv`` with the price sources, windows and costs it shares with
Trading-v0, Portfolio-v0 and Market-v0; ``vector`` holds ``WindowedVecEnv``, the native vector
base of ``TradingVecEnv`` and ``PortfolioVecEnv``.
"""

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
from sekai.envs.finance.windowed.vector import SHAPE_READ_ONLY, WindowedVecEnv

__all__ = [
    "History",
    "SHAPE_READ_ONLY",
    "WindowedEnv",
    "WindowedVecEnv",
    "check_cost_inputs",
    "choose_start",
    "cost_model_of",
    "load_history",
    "real_sequence",
    "resolve_dt",
    "row_sum",
    "simulated_prices",
    "validate_prices",
]
