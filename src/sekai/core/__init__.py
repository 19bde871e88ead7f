"""Environment base classes and the results they return."""

from sekai.core.env import Env
from sekai.core.multi_agent import MultiAgentEnv
from sekai.core.result import MAResetResult, MAStepResult, ResetResult, StepResult
from sekai.core.wrapper import ActionWrapper, ObservationWrapper, RewardWrapper, Wrapper

__all__ = [
    "StepResult",
    "ResetResult",
    "Env",
    "Wrapper",
    "ObservationWrapper",
    "RewardWrapper",
    "ActionWrapper",
    "MultiAgentEnv",
    "MAStepResult",
    "MAResetResult",
]
