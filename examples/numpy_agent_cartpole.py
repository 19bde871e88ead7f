"""Solve CartPole-v1 in seconds with the cross-entropy method and pure NumPy.

The policy is linear: push right when ``obs · w + b > 0``. Each generation samples a population
of parameter vectors from a Gaussian, runs one episode per candidate as one batched rollout on
a ``SyncVecEnv`` (``autoreset=False``: finished sub-envs freeze and score 0 afterwards), and
refits the Gaussian to the elite. The mean policy is then scored over 100 episodes.

Run ``python examples/numpy_agent_cartpole.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numpy.typing import NDArray

import sekai

SOLVED = 475.0
"""CartPole-v1 counts as solved at a mean return of 475 over 100 episodes."""
TARGET = 495.0
"""Training stops once the mean policy reaches this in a check run."""


def rollout(
    vec: sekai.vector.VecEnv, params: NDArray[np.float64], seed: int
) -> NDArray[np.float64]:
    """One episode per sub-env, sub-env ``i`` driven by the linear policy ``params[i]``."""
    obs = vec.reset(seed=seed).observations
    returns = np.zeros(vec.num_envs)
    done = np.zeros(vec.num_envs, dtype=bool)
    while not done.all():
        actions = (np.einsum("ij,ij->i", obs, params[:, :4]) + params[:, 4] > 0).astype(np.int64)
        result = vec.step(actions)
        returns += result.rewards  # frozen sub-envs add 0
        done |= result.dones
        obs = result.observations
    return returns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny population, short episodes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    population, generations, eval_episodes = (16, 3, 10) if args.quick else (64, 30, 100)
    max_steps = 100 if args.quick else 500
    scale = max_steps / 500
    elite = max(2, population // 5)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()

    def make(num_envs: int) -> sekai.vector.VecEnv:
        return sekai.make_vec(
            "CartPole-v1",
            num_envs,
            vectorization_mode="sync",
            vector_kwargs={"autoreset": False},
            max_episode_steps=max_steps,
        )

    with make(population) as train_vec, make(eval_episodes) as eval_vec:
        mean, std = np.zeros(5), np.ones(5)
        for generation in range(1, generations + 1):
            candidates = mean + std * rng.standard_normal((population, 5))
            scores = rollout(train_vec, candidates, seed=int(rng.integers(2**31)))
            best = candidates[np.argsort(scores)[-elite:]]
            mean, std = best.mean(axis=0), best.std(axis=0) + 0.05
            check = rollout(eval_vec, np.tile(mean, (eval_episodes, 1)), seed=generation)
            print(
                f"generation {generation:2d}: population mean {scores.mean():6.1f}, "
                f"best {scores.max():6.1f}, mean policy {check.mean():6.1f} "
                f"({time.perf_counter() - start:.1f}s)"
            )
            if check.mean() >= TARGET * scale:
                break
        final = rollout(eval_vec, np.tile(mean, (eval_episodes, 1)), seed=10_000 + args.seed)
    print(f"policy w={np.round(mean[:4], 3).tolist()} b={mean[4]:.3f}")
    print(
        f"Final mean return over {eval_episodes} episodes: {final.mean():.1f} "
        f"(solved: {'yes' if final.mean() >= SOLVED * scale else 'no'}, "
        f"{time.perf_counter() - start:.1f}s)"
    )


if __name__ == "__main__":
    main()
