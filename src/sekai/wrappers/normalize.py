"""gymnasium's ``wrappers.normalize`` module path to the matching sekai wrappers."""

from sekai.wrappers.normalization import NormalizeObservation, NormalizeReward

__all__ = ["NormalizeObservation", "NormalizeReward"]
