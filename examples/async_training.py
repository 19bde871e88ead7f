"""A policy-gradient learner on ``send`` / ``recv`` that keeps training while its workers die.

Sixteen CartPole-v1 sub-envs run in ``ProcVecEnv`` workers with ``batch_size=8``: the learner
acts on whichever eight sub-envs finished first and sends them their next actions at once.
``on_worker_failure="restart"`` rebuilds a worker that dies or hangs past ``step_timeout``;
its sub-envs' episodes come back truncated (``infos[k]["worker_failure"]`` says why) and the
learner simply goes on. To show it, a chaos thread SIGKILLs a random worker every
``--kill-every`` seconds (each sub-env writes its process id to a folder when it is built).

The policy is linear-softmax, trained with REINFORCE: every finished episode contributes its
normalised discounted returns, and the weights move once ``--episodes-per-update`` episodes
are in. Run ``python examples/async_training.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

import sekai

GAMMA = 0.99


class PidFile(sekai.Wrapper):
    """CartPole-v1 that writes the id of its process to ``folder/<rank>`` when built."""

    def __init__(self, folder: str, rank: int) -> None:
        super().__init__(sekai.make("CartPole-v1"))
        (Path(folder) / str(rank)).write_text(str(os.getpid()))


def chaos(folder: Path, every: float, stop: threading.Event, kills: list[int]) -> None:
    """Every ``every`` seconds, SIGKILL the process whose id one of ``folder``'s files holds."""
    while not stop.wait(every):
        files = sorted(folder.iterdir())
        if not files:
            continue
        try:
            os.kill(int(random.choice(files).read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):  # killed already and not yet rebuilt
            continue
        kills.append(1)


def policy(weights: NDArray[np.float64], obs: NDArray[Any]) -> NDArray[np.float64]:
    """Action probabilities, one row per observation."""
    logits = obs @ weights
    logits -= logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    return exp / exp.sum(axis=1, keepdims=True)


def discounted(rewards: list[float]) -> NDArray[np.float64]:
    out = np.zeros(len(rewards))
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + GAMMA * running
        out[t] = running
    return out


def train(args: argparse.Namespace, folder: Path) -> None:
    rng = np.random.default_rng(args.seed)
    n = args.num_envs
    vec = sekai.ProcVecEnv(
        [lambda k=k: PidFile(str(folder), k) for k in range(n)],
        batch_size=n // 2,
        step_timeout=5.0,
        on_worker_failure="restart",
        max_restarts=1000,
    )
    weights = np.zeros((4, 2))
    trajectories: list[list[Any]] = [[] for _ in range(n)]  # (obs, action, reward) per step
    finished: list[list[Any]] = []
    returns: list[float] = []
    truncated_by_failure = 0
    stop = threading.Event()
    kills: list[int] = []
    killer = threading.Thread(target=chaos, args=(folder, args.kill_every, stop, kills))
    steps = updates = 0
    try:
        obs = vec.reset(seed=args.seed).observations
        start = time.monotonic()
        killer.start()
        actions = (rng.random(n) < policy(weights, obs)[:, 1]).astype(np.int64)
        for i in range(n):
            trajectories[i].append([obs[i], actions[i], 0.0])
        vec.send(actions)
        while time.monotonic() - start < args.seconds:
            result = vec.recv()
            ids = result.env_ids
            steps += len(ids)
            for k, i in enumerate(ids.tolist()):
                trajectories[i][-1][2] = result.rewards[k]
                if result.terminated[k] or result.truncated[k]:
                    truncated_by_failure += "worker_failure" in result.infos[k]
                    finished.append(trajectories[i])
                    returns.append(sum(step[2] for step in trajectories[i]))
                    trajectories[i] = []
            actions = (rng.random(len(ids)) < policy(weights, result.observations)[:, 1]).astype(
                np.int64
            )
            for k, i in enumerate(ids.tolist()):
                trajectories[i].append([result.observations[k], actions[k], 0.0])
            vec.send(actions, ids)
            if len(finished) >= args.episodes_per_update:
                weights += args.lr * gradient(weights, finished)
                finished.clear()
                updates += 1
                if updates % args.report_every == 0:
                    print(
                        f"update {updates:4d}: {steps:7,d} env steps, mean return of the last "
                        f"50 episodes {np.mean(returns[-50:]):6.1f}, workers killed "
                        f"{len(kills)}, restarts {int(vec.restarts.sum())}"
                    )
        stop.set()
        killer.join()
        while vec.in_flight.size:
            vec.recv()
    finally:
        stop.set()
        if killer.is_alive():
            killer.join()
        vec.close()
    print(
        f"done: {steps:,} env steps, {len(returns)} episodes, {updates} updates in "
        f"{time.monotonic() - start:.1f} s"
    )
    print(
        f"workers killed {len(kills)}, restarts {int(vec.restarts.sum())}, episodes "
        f"truncated by a failure {truncated_by_failure}"
    )
    print(
        f"mean return: first 50 episodes {np.mean(returns[:50]):.1f}, "
        f"last 50 {np.mean(returns[-50:]):.1f}"
    )


def gradient(weights: NDArray[np.float64], episodes: list[list[Any]]) -> NDArray[np.float64]:
    """The REINFORCE gradient of the episodes' normalised discounted returns."""
    obs = np.array([step[0] for episode in episodes for step in episode])
    actions = np.array([step[1] for episode in episodes for step in episode])
    advantages = np.concatenate([discounted([step[2] for step in ep]) for ep in episodes])
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    probs = policy(weights, obs)
    onehot = np.eye(2)[actions]
    return obs.T @ ((onehot - probs) * advantages[:, None]) / len(episodes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--kill-every", type=float, default=3.0)
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--episodes-per-update", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--report-every", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.kill_every, args.num_envs, args.report_every = 6.0, 1.5, 4, 5
    with tempfile.TemporaryDirectory() as folder:
        train(args, Path(folder))


if __name__ == "__main__":
    main()
