"""The five classic-control environments, numerically identical to gymnasium's, their native
vector versions (each sub-env bit for bit the single env) and their renderers."""

from sekai.envs.classic_control.acrobot import AcrobotEnv, AcrobotVecEnv
from sekai.envs.classic_control.cartpole import CartPoleEnv, CartPoleVecEnv
from sekai.envs.classic_control.continuous_mountain_car import (
    ContinuousMountainCarEnv,
    ContinuousMountainCarVecEnv,
)
from sekai.envs.classic_control.mountain_car import MountainCarEnv, MountainCarVecEnv
from sekai.envs.classic_control.pendulum import PendulumEnv, PendulumVecEnv
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
    "AcrobotVecEnv",
    "CartPoleVecEnv",
    "ContinuousMountainCarVecEnv",
    "MountainCarVecEnv",
    "PendulumVecEnv",
    "AcrobotRenderer",
    "CartPoleRenderer",
    "MountainCarRenderer",
    "PendulumRenderer",
]
