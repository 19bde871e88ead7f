"""Pendulum-v1: swing a frictionless pendulum up and keep it upright.

``env`` holds the single env ``PendulumEnv`` and ``vector`` its native twin ``PendulumVecEnv``.
"""

from sekai.envs.classic_control.pendulum.env import PendulumEnv, angle_normalize
from sekai.envs.classic_control.pendulum.vector import PendulumVecEnv

__all__ = ["PendulumEnv", "PendulumVecEnv", "angle_normalize"]
