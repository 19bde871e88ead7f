"""Vector environments: many copies of an environment stepped as one batch."""

from sekai.vector.async_vec_env import AsyncVecEnv
from sekai.vector.native import NativeVecEnv, shared
from sekai.vector.proc_vec_env import ProcVecEnv
from sekai.vector.result import VecResetResult, VecStepResult, stack_infos
from sekai.vector.sync_vec_env import SyncVecEnv
from sekai.vector.vec_env import VecEnv
from sekai.vector.vec_wrapper import (
    VecActionWrapper,
    VecObservationWrapper,
    VecRewardWrapper,
    VecWrapper,
)
from sekai.vector.wrappers import (
    VecNormalizeObservation,
    VecNormalizeReward,
    VecRecordEpisodeStatistics,
    VecTransformObservation,
    VecTransformReward,
)

__all__ = [
    "VecStepResult",
    "VecResetResult",
    "stack_infos",
    "VecEnv",
    "SyncVecEnv",
    "AsyncVecEnv",
    "ProcVecEnv",
    "NativeVecEnv",
    "shared",
    "VecWrapper",
    "VecObservationWrapper",
    "VecRewardWrapper",
    "VecActionWrapper",
    "VecRecordEpisodeStatistics",
    "VecNormalizeObservation",
    "VecNormalizeReward",
    "VecTransformObservation",
    "VecTransformReward",
]
