"""The windowed finance envs' shared base: one price window per episode, single and batched.

``config`` holds ``WindowConfig``, the checked episode, cost and account settings of those
envs; ``env`` holds ``WindowedEnv`` with the price sources (``History``), windows and costs it
shares with Trading-v0, Portfolio-v0 and Market-v0, and the helpers behind them;
``learnable`` holds ``LearnableWindowedEnv``, the base of Trading and Portfolio with their
learnable settings, which ``learning`` checks; ``growth`` computes expected log growth and the best
constant weights in a GBM market; ``vector`` holds ``WindowedVecEnv``, the native vector base
of ``TradingVecEnv`` and ``PortfolioVecEnv``.
"""

from sekai.envs.finance.windowed.config import WindowConfig
from sekai.envs.finance.windowed.env import History, WindowedEnv
from sekai.envs.finance.windowed.learnable import LearnableWindowedEnv
from sekai.envs.finance.windowed.vector import WindowedVecEnv

__all__ = ["History", "LearnableWindowedEnv", "WindowConfig", "WindowedEnv", "WindowedVecEnv"]
