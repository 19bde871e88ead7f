"""Vector environments: many copies of an environment stepped as one batch.

The kit for native envs built on a single env (``TemplateVecEnv``, ``Param``,
``float_actions``, ``replace_rows`` of ``sekai.vector.template``) is importable from here as
well, outside ``__all__``, and so are ``RayVecEnv`` and ``RayWorkerInfo`` (of
``sekai.vector.ray_vec_env``; Ray itself is only imported when one is built).
"""

from sekai.vector.async_vec_env import AsyncVecEnv
from sekai.vector.native import NativeVecEnv, shared
from sekai.vector.proc_vec_env import ProcVecEnv
from sekai.vector.ray_vec_env import RayVecEnv as RayVecEnv
from sekai.vector.ray_vec_env import RayWorkerInfo as RayWorkerInfo
from sekai.vector.result import VecResetResult, VecStepResult, stack_infos
from sekai.vector.sync_vec_env import SyncVecEnv
from sekai.vector.template import Param as Param
from sekai.vector.template import TemplateVecEnv as TemplateVecEnv
from sekai.vector.template import float_actions as float_actions
from sekai.vector.template import replace_rows as replace_rows
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
