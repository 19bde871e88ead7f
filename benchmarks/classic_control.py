"""Native classic-control vector envs side by side with gymnasium's and ``SyncVecEnv``.

For each classic env at ``--num-envs`` sub-envs this prints the env-steps per second of its
native class (``sekai.envs.classic_control``), without reading ``infos`` and reading every
sub-env's info dict; of gymnasium's own vector env where it has one (``CartPoleVectorEnv``)
and its ``SyncVectorEnv`` otherwise; and of sekai's ``SyncVecEnv``. All take the same
pre-drawn random actions with autoreset on. The runs alternate in ``--rounds`` rounds and each
figure is a run's best round, so that a load on the machine falls on all of them alike; ratios
are against gymnasium.

Usage: ``python benchmarks/classic_control.py [--num-envs N] [--steps S] [--rounds R]
[--only CartPole-v1 ...]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import sekai
from sekai.envs import classic_control
from sekai.spaces import Box

__all__ = ["ENVS", "best_rates", "main"]

#: Registry id -> native class name in ``sekai.envs.classic_control``.
ENVS = {
    "CartPole-v1": "CartPoleVecEnv",
    "MountainCar-v0": "MountainCarVecEnv",
    "MountainCarContinuous-v0": "ContinuousMountainCarVecEnv",
    "Pendulum-v1": "PendulumVecEnv",
    "Acrobot-v1": "AcrobotVecEnv",
}

Runner = Callable[[int], None]


def _actions(env_id: str, num_envs: int, seed: int) -> list[np.ndarray[Any, Any]]:
    """64 batches of random actions: int64 ``(n,)`` or float32 ``(n, 1)``."""
    space = sekai.spec(env_id).make().action_space
    rng = np.random.default_rng(seed)
    if isinstance(space, Box):
        low, high = float(space.low[0]), float(space.high[0])
        return [rng.uniform(low, high, (num_envs, 1)).astype(np.float32) for _ in range(64)]
    return [rng.integers(0, space.n, num_envs) for _ in range(64)]


def _runner(vec: Any, actions: list[np.ndarray[Any, Any]], read_infos: bool) -> Runner:
    """A function taking ``k`` steps of ``vec`` (reading every info dict if asked)."""
    step = vec.step
    count = len(actions)
    position = [0]

    def run(k: int) -> None:
        start = position[0]
        for i in range(start, start + k):
            result = step(actions[i % count])
            if read_infos:
                for info in result[-1]:
                    len(info)
        position[0] = start + k

    return run


def best_rates(
    runners: dict[str, tuple[Runner, int]], num_envs: int, rounds: int
) -> dict[str, float]:
    """Env-steps per second of each ``(runner, steps)``, the best of ``rounds`` alternating runs."""
    best = dict.fromkeys(runners, 0.0)
    for run, steps in runners.values():
        run(max(1, steps // 10))  # warm-up
    for _ in range(rounds):
        for name, (run, steps) in runners.items():
            start = time.perf_counter()
            run(steps)
            best[name] = max(best[name], steps * num_envs / (time.perf_counter() - start))
    return best


def _gymnasium(env_id: str, num_envs: int) -> tuple[str, Any] | None:
    try:
        import gymnasium
    except ImportError:
        return None
    if gymnasium.spec(env_id).vector_entry_point is not None:
        vec = gymnasium.make_vec(env_id, num_envs, vectorization_mode="vector_entry_point")
        return f"gymnasium {type(vec).__name__}", vec
    return "gymnasium SyncVectorEnv", gymnasium.make_vec(env_id, num_envs, "sync")


def measure(env_id: str, num_envs: int, steps: int, rounds: int, seed: int) -> None:
    """Time one env on every backend and print its rows."""
    actions = _actions(env_id, num_envs, seed)
    cls = getattr(classic_control, ENVS[env_id])
    limit = sekai.spec(env_id).max_episode_steps
    envs: dict[str, Any] = {
        "sekai native": cls(num_envs, max_episode_steps=limit),
        "sekai native, infos read": cls(num_envs, max_episode_steps=limit),
        "sekai SyncVecEnv": sekai.make_vec(env_id, num_envs),
    }
    gym = _gymnasium(env_id, num_envs)
    if gym is not None:
        envs[gym[0]] = gym[1]
    slow = max(1, steps // 30)  # per-env Python loops: fewer steps for the same time
    runners = {}
    for name, vec in envs.items():
        vec.reset(seed=seed)
        count = slow if "Sync" in name else steps
        runners[name] = (_runner(vec, actions, "infos" in name), count)
    rates = best_rates(runners, num_envs, rounds)
    for vec in envs.values():
        vec.close()
    base = rates[gym[0]] if gym is not None else None
    for name, rate in rates.items():
        ratio = "" if base is None else f"{rate / base:8.2f}x"
        print(f"{env_id:<26}{name:<32}{rate:>14,.0f}{ratio:>10}")


def main(argv: list[str] | None = None) -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=300, help="vector steps per native run")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="+", choices=sorted(ENVS), default=list(ENVS))
    args = parser.parse_args(argv)
    print(f"{args.num_envs} sub-envs, best of {args.rounds} alternating rounds; env-steps/s")
    print(f"{'env':<26}{'backend':<32}{'steps/s':>14}{'vs gym':>10}")
    for env_id in args.only:
        measure(env_id, args.num_envs, args.steps, args.rounds, args.seed)


if __name__ == "__main__":
    main()
