"""Market-v0's former module path; the env lives in ``sekai.envs.finance.market``."""

from sekai.envs.finance.market.env import MarketEnv as MarketEnv

__all__ = ["MarketEnv"]
