"""MountainCarContinuous-v0: drive an under-powered car up a hill with a continuous force.

``env`` holds the single env ``ContinuousMountainCarEnv`` and ``vector`` its native twin
``ContinuousMountainCarVecEnv``.
"""

from sekai.envs.classic_control.continuous_mountain_car.env import ContinuousMountainCarEnv
from sekai.envs.classic_control.continuous_mountain_car.vector import (
    ContinuousMountainCarVecEnv,
)

__all__ = ["ContinuousMountainCarEnv", "ContinuousMountainCarVecEnv"]
