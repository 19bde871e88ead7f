"""MountainCar-v0: drive an under-powered car up a hill with three discrete actions.

``env`` holds the single env ``MountainCarEnv`` and ``vector`` its native twin
``MountainCarVecEnv``.
"""

from sekai.envs.classic_control.mountain_car.env import MountainCarEnv
from sekai.envs.classic_control.mountain_car.vector import MountainCarVecEnv

__all__ = ["MountainCarEnv", "MountainCarVecEnv"]
