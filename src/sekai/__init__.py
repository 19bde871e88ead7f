"""sekai: reinforcement-learning environments for large simulations and financial markets."""

from __future__ import annotations

import warnings
from typing import Any

from sekai import envs, error, spaces, stats, utils, wrappers
from sekai._version import __version__
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
    pprint_registry,
    register,
    register_namespace,
    spec,
)
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
from sekai.stats import EpisodeStats, InMemoryTracker, LoggingTracker, StatsTracker
from sekai.utils import get_action_mask, make_seed_sequence, np_random
from sekai.utils.checker import check_env
from sekai.wrappers import AutoReset, OrderEnforcing, RecordEpisodeStatistics, TimeLimit

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
    "spec",
    "all_specs",
    "register_namespace",
    "pprint_registry",
    "EnvSpec",
    "WrapperSpec",
    "EpisodeStats",
    "StatsTracker",
    "InMemoryTracker",
    "LoggingTracker",
    "TimeLimit",
    "AutoReset",
    "RecordEpisodeStatistics",
    "OrderEnforcing",
    "envs",
    "wrappers",
    "spaces",
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
    "get_action_mask",
]


def __getattr__(name: str) -> Any:
    if name == "BackendMismatch":
        warnings.warn(
            "sekai.BackendMismatch is deprecated and will be removed in sekai 0.3.",
            DeprecationWarning,
            stacklevel=2,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return error.BackendMismatch
    raise AttributeError(f"module 'sekai' has no attribute {name!r}")
