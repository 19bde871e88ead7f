"""Ready-made wrappers.

Each is defined in a grouped module (``common``, ``action``, ``observation``, ``reward``,
``normalization``); the ones gymnasium has are also importable from gymnasium's module paths,
such as ``sekai.wrappers.time_limit`` or ``sekai.wrappers.transform_observation``.
"""

from sekai.wrappers.action import (
    ActionRepeat,
    ClipAction,
    DelayAction,
    RescaleAction,
    StickyAction,
)
from sekai.wrappers.common import AutoReset, OrderEnforcing, RecordEpisodeStatistics, TimeLimit
from sekai.wrappers.normalization import NormalizeObservation, NormalizeReward
from sekai.wrappers.observation import (
    ActionMaskObservation,
    DelayObservation,
    DtypeObservation,
    FilterObservation,
    FlattenObservation,
    FrameStackObservation,
    PadSequenceObservation,
    RescaleObservation,
    TimeAwareObservation,
    TransformObservation,
)
from sekai.wrappers.reward import ClipReward, TransformReward

__all__ = [
    "TimeLimit",
    "AutoReset",
    "OrderEnforcing",
    "RecordEpisodeStatistics",
    "ClipAction",
    "RescaleAction",
    "StickyAction",
    "ActionRepeat",
    "DelayAction",
    "FlattenObservation",
    "NormalizeObservation",
    "FrameStackObservation",
    "TransformObservation",
    "RescaleObservation",
    "DtypeObservation",
    "FilterObservation",
    "TimeAwareObservation",
    "DelayObservation",
    "ActionMaskObservation",
    "PadSequenceObservation",
    "NormalizeReward",
    "TransformReward",
    "ClipReward",
]
