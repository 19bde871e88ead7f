"""gymnasium's ``wrappers.transform_reward`` module path to the matching sekai wrappers."""

from sekai.wrappers.reward import ClipReward, TransformReward

__all__ = ["ClipReward", "TransformReward"]
