"""Acrobot-v1: swing the free end of a two-link chain above a line.

``env`` holds the single env ``AcrobotEnv`` and ``vector`` its native twin ``AcrobotVecEnv``.
"""

from sekai.envs.classic_control.acrobot.env import AcrobotEnv, bound, wrap
from sekai.envs.classic_control.acrobot.vector import AcrobotVecEnv

__all__ = ["AcrobotEnv", "AcrobotVecEnv", "bound", "wrap"]
