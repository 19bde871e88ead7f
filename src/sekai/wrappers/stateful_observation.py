"""gymnasium's ``wrappers.stateful_observation`` module path to the matching sekai wrappers."""

from sekai.wrappers.normalization import NormalizeObservation
from sekai.wrappers.observation import DelayObservation, FrameStackObservation, TimeAwareObservation

__all__ = [
    "DelayObservation",
    "FrameStackObservation",
    "NormalizeObservation",
    "TimeAwareObservation",
]
