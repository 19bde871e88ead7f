"""CartPole-v1: balance a pole on a cart.

``env`` holds the single env ``CartPoleEnv`` and ``vector`` its native twin ``CartPoleVecEnv``.
"""

from sekai.envs.classic_control.cartpole.env import CartPoleEnv
from sekai.envs.classic_control.cartpole.vector import CartPoleVecEnv

__all__ = ["CartPoleEnv", "CartPoleVecEnv"]
