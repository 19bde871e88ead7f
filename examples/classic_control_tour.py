"""A tour of sekai's classic-control environments.

Each registered env is checked with ``sekai.check_env``, then driven by a small hand-written
controller and by random actions; the table compares the two with the env's reward threshold.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import sekai

Policy = Callable[[np.ndarray], Any]


def cartpole(obs: np.ndarray) -> int:
    """Push towards where the pole is falling, with a little position feedback."""
    x, x_dot, theta, theta_dot = (float(v) for v in obs)
    return int(theta + 0.5 * theta_dot + 0.01 * x + 0.1 * x_dot > 0)


def mountain_car(obs: np.ndarray) -> int:
    """Push along the velocity to pump energy into the swing."""
    return 2 if obs[1] >= 0 else 0


def continuous_mountain_car(obs: np.ndarray) -> np.ndarray:
    """Full throttle along the velocity."""
    return np.array([1.0 if obs[1] >= 0 else -1.0], dtype=np.float32)


def pendulum(obs: np.ndarray) -> np.ndarray:
    """Pump energy until the pendulum swings up, then balance it with a PD controller."""
    cos, sin, omega = (float(v) for v in obs)
    if cos > 0.9:
        torque = -(12.0 * math.atan2(sin, cos) + 2.5 * omega)
    else:
        energy = 0.5 * omega * omega + 15.0 * cos  # 15 = 3g/(2l): upright at rest
        torque = 2.0 if (energy < 15.0) == (omega >= 0.0) else -2.0
    return np.array([min(max(torque, -2.0), 2.0)], dtype=np.float32)


def acrobot(obs: np.ndarray) -> int:
    """Torque the second joint along its own velocity."""
    return 0 if obs[5] < 0 else 2


CONTROLLERS: dict[str, Policy] = {
    "CartPole-v1": cartpole,
    "MountainCar-v0": mountain_car,
    "MountainCarContinuous-v0": continuous_mountain_car,
    "Pendulum-v1": pendulum,
    "Acrobot-v1": acrobot,
}


def mean_return(env_id: str, policy: Policy | None, episodes: int) -> tuple[float, int]:
    """Mean episode return of ``policy`` (random actions if None) and the steps taken."""
    env = sekai.make(env_id)
    env.action_space.seed(0)
    returns, steps = [], 0
    for episode in range(episodes):
        result = env.reset(seed=episode)
        total = 0.0
        while not result.done:
            action = env.action_space.sample() if policy is None else policy(result.observation)
            result = env.step(action)
            total += result.reward
            steps += 1
        returns.append(total)
    env.close()
    return float(np.mean(returns)), steps


def main() -> None:
    print(f"sekai {sekai.__version__}: classic control\n")
    header = f"{'ID':<26}{'check_env':>10}{'random':>10}{'controller':>12}{'threshold':>11}"
    print(header + f"{'steps/s':>11}")
    print("-" * (len(header) + 11))
    for env_id, policy in CONTROLLERS.items():
        issues = sekai.check_env(sekai.make(env_id), n_steps=400, check_determinism=True)
        random_return, _ = mean_return(env_id, None, episodes=10)
        start = time.perf_counter()
        controlled_return, steps = mean_return(env_id, policy, episodes=10)
        rate = steps / (time.perf_counter() - start)
        threshold = sekai.spec(env_id).reward_threshold
        print(
            f"{env_id:<26}{'ok' if not issues else f'{len(issues)} issues':>10}"
            f"{random_return:>10.1f}{controlled_return:>12.1f}"
            f"{'-' if threshold is None else f'{threshold:.1f}':>11}{rate:>11,.0f}"
        )
        for issue in issues:
            print("   ", issue)
    print("\nreturns are means over 10 episodes seeded 0-9; steps/s includes the controller")


if __name__ == "__main__":
    main()
