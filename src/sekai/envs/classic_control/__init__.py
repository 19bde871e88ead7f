"""The five classic-control environments, numerically identical to gymnasium's, and their
renderers."""

from sekai.envs.classic_control.acrobot import AcrobotEnv
from sekai.envs.classic_control.cartpole import CartPoleEnv
from sekai.envs.classic_control.continuous_mountain_car import ContinuousMountainCarEnv
from sekai.envs.classic_control.mountain_car import MountainCarEnv
from sekai.envs.classic_control.pendulum import PendulumEnv
from sekai.envs.classic_control.rendering import (
    AcrobotRenderer,
    CartPoleRenderer,
    MountainCarRenderer,
    PendulumRenderer,
)

__all__ = [
    "AcrobotEnv",
    "CartPoleEnv",
    "ContinuousMountainCarEnv",
    "MountainCarEnv",
    "PendulumEnv",
    "AcrobotRenderer",
    "CartPoleRenderer",
    "MountainCarRenderer",
    "PendulumRenderer",
]
