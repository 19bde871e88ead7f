"""Built-in environments, registered on import of sekai."""

from sekai.envs.classic_control import (
    AcrobotEnv,
    CartPoleEnv,
    ContinuousMountainCarEnv,
    MountainCarEnv,
    PendulumEnv,
)
from sekai.registry import register

__all__ = [
    "AcrobotEnv",
    "CartPoleEnv",
    "ContinuousMountainCarEnv",
    "MountainCarEnv",
    "PendulumEnv",
]

_CLASSIC = "sekai.envs.classic_control"

register(
    "CartPole-v1",
    f"{_CLASSIC}.cartpole:CartPoleEnv",
    max_episode_steps=500,
    reward_threshold=475.0,
)
register(
    "MountainCar-v0",
    f"{_CLASSIC}.mountain_car:MountainCarEnv",
    max_episode_steps=200,
    reward_threshold=-110.0,
)
register(
    "MountainCarContinuous-v0",
    f"{_CLASSIC}.continuous_mountain_car:ContinuousMountainCarEnv",
    max_episode_steps=999,
    reward_threshold=90.0,
)
register("Pendulum-v1", f"{_CLASSIC}.pendulum:PendulumEnv", max_episode_steps=200)
register(
    "Acrobot-v1",
    f"{_CLASSIC}.acrobot:AcrobotEnv",
    max_episode_steps=500,
    reward_threshold=-100.0,
)
