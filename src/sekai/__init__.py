"""sekai: reinforcement-learning environments for large simulations and financial markets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sekai import compat, envs, error, finance, rendering, spaces, stats, utils, vector, wrappers
from sekai._version import __version__
from sekai.compat import gymnasium_registration as _gymnasium_registration
from sekai.core import (
    ActionWrapper,
    Env,
    MAResetResult,
    MAStepResult,
    MultiAgentEnv,
    ObservationWrapper,
    ResetResult,
    RewardWrapper,
    StepResult,
    Wrapper,
)
from sekai.error import (
    AsyncCallPending,
    EnvAlreadyRegistered,
    EnvNotFound,
    InvalidAction,
    InvalidObservation,
    LookAheadError,
    ResetRequired,
    SekaiError,
    SpaceMismatch,
    VecEnvClosed,
    VecEnvWorkerError,
)
from sekai.registry import (
    EnvSpec,
    WrapperSpec,
    all_specs,
    deregister,
    make,
    make_vec,
    pprint_registry,
    register,
    register_namespace,
)
from sekai.registry import renderer_for as renderer_for
from sekai.registry.registry import spec  # the function, not the module sekai.registry.spec
from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    MultiDiscrete,
    Sequence,
    Space,
    Tuple,
)
from sekai.spaces import utils as space_utils
from sekai.spaces.masking import get_action_mask
from sekai.stats import EpisodeStats, InMemoryTracker, LoggingTracker, StatsTracker
from sekai.testing import check_env
from sekai.utils import (
    ExponentialMovingStats,
    RunningMeanStd,
    make_seed_sequence,
    np_random,
)
from sekai.vector import (
    AsyncVecEnv,
    NativeVecEnv,
    ProcVecEnv,
    SyncVecEnv,
    VecActionWrapper,
    VecEnv,
    VecNormalizeObservation,
    VecNormalizeReward,
    VecObservationWrapper,
    VecRecordEpisodeStatistics,
    VecResetResult,
    VecRewardWrapper,
    VecStepResult,
    VecTransformObservation,
    VecTransformReward,
    VecWrapper,
    stack_infos,
)
from sekai.vector import RayVecEnv as RayVecEnv  # importable here, outside __all__
from sekai.wrappers import (
    ActionMaskObservation,
    ActionRepeat,
    AutoReset,
    ClipAction,
    ClipReward,
    DelayAction,
    DelayObservation,
    DtypeObservation,
    FilterObservation,
    FlattenObservation,
    FrameStackObservation,
    NormalizeObservation,
    NormalizeReward,
    OrderEnforcing,
    PadSequenceObservation,
    RecordEpisodeStatistics,
    RescaleAction,
    RescaleObservation,
    StickyAction,
    TimeAwareObservation,
    TimeLimit,
    TransformObservation,
    TransformReward,
)

if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "__version__",
    "Env",
    "Wrapper",
    "ObservationWrapper",
    "RewardWrapper",
    "ActionWrapper",
    "MultiAgentEnv",
    "StepResult",
    "ResetResult",
    "MAStepResult",
    "MAResetResult",
    "Space",
    "Box",
    "Discrete",
    "MultiDiscrete",
    "MultiBinary",
    "Dict",
    "Tuple",
    "Sequence",
    "MaskedBox",
    "space_utils",
    "register",
    "deregister",
    "make",
    "make_vec",
    "spec",
    "all_specs",
    "register_namespace",
    "pprint_registry",
    "EnvSpec",
    "WrapperSpec",
    "VecEnv",
    "SyncVecEnv",
    "AsyncVecEnv",
    "ProcVecEnv",
    "NativeVecEnv",
    "VecStepResult",
    "VecResetResult",
    "stack_infos",
    "VecWrapper",
    "VecObservationWrapper",
    "VecRewardWrapper",
    "VecActionWrapper",
    "VecRecordEpisodeStatistics",
    "VecNormalizeObservation",
    "VecNormalizeReward",
    "VecTransformObservation",
    "VecTransformReward",
    "EpisodeStats",
    "StatsTracker",
    "InMemoryTracker",
    "LoggingTracker",
    "TimeLimit",
    "AutoReset",
    "RecordEpisodeStatistics",
    "ClipAction",
    "RescaleAction",
    "FlattenObservation",
    "NormalizeObservation",
    "NormalizeReward",
    "FrameStackObservation",
    "TransformObservation",
    "TransformReward",
    "OrderEnforcing",
    "ClipReward",
    "RescaleObservation",
    "DtypeObservation",
    "FilterObservation",
    "TimeAwareObservation",
    "DelayObservation",
    "StickyAction",
    "ActionRepeat",
    "DelayAction",
    "ActionMaskObservation",
    "PadSequenceObservation",
    "envs",
    "finance",
    "compat",
    "wrappers",
    "spaces",
    "vector",
    "rendering",
    "stats",
    "utils",
    "error",
    "SekaiError",
    "EnvNotFound",
    "EnvAlreadyRegistered",
    "InvalidAction",
    "InvalidObservation",
    "ResetRequired",
    "AsyncCallPending",
    "SpaceMismatch",
    "VecEnvWorkerError",
    "VecEnvClosed",
    "LookAheadError",
    "np_random",
    "make_seed_sequence",
    "check_env",
    "RunningMeanStd",
    "ExponentialMovingStats",
    "get_action_mask",
]


def __dir__() -> list[str]:
    """The public names: ``__all__`` and ``renderer_for``."""
    return sorted([*__all__, "renderer_for"])


def __getattr__(name: str) -> Any:
    if name == "BackendMismatch":
        import warnings

        warnings.warn(
            "sekai.BackendMismatch is deprecated and will be removed in sekai 0.3.",
            DeprecationWarning,
            stacklevel=2,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return error.BackendMismatch
    raise AttributeError(f"module 'sekai' has no attribute {name!r}")


del annotations, TYPE_CHECKING  # set-up of this module, not part of sekai's API


# Every sekai id in gymnasium's registry as ``sekai/<id>``, once gymnasium is loaded.
_gymnasium_registration.register_when_gymnasium_loads()
