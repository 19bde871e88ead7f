"""gymnasium's ``wrappers.stateful_reward`` module path to ``NormalizeReward``."""

from sekai.wrappers.normalization import NormalizeReward

__all__ = ["NormalizeReward"]
