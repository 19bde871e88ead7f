"""Per-step cost of single-env wrappers over a plain CartPoleEnv.

Every env gets the same pre-generated random actions and is reset when an episode ends.
Each figure is the best of ``--repeats`` timed runs after a warm-up; the ratio is the
wrapped env's time per step over the plain ``CartPoleEnv``'s.

Usage: ``python benchmarks/wrappers.py [--steps N] [--repeats R] [--seed S]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["main", "seconds_per_step"]


def _run(env: Any, actions: Sequence[int], seed: int) -> None:
    env.reset(seed=seed)
    step = env.step
    reset = env.reset
    for action in actions:
        result = step(action)
        if result.terminated or result.truncated:
            reset()


def seconds_per_step(env: Any, actions: Sequence[int], *, seed: int, repeats: int) -> float:
    """Best-of-``repeats`` seconds per step of ``env`` over ``actions``, after a warm-up."""
    _run(env, actions[: min(5_000, len(actions))], seed)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        _run(env, actions, seed)
        best = min(best, time.perf_counter() - start)
    return best / len(actions)


def _candidates() -> list[tuple[str, Callable[[], Any]]]:
    from sekai.envs.classic_control import CartPoleEnv
    from sekai.wrappers import (
        ClipReward,
        FrameStackObservation,
        NormalizeObservation,
        NormalizeReward,
        StickyAction,
        TimeAwareObservation,
        TimeLimit,
    )

    return [
        ("CartPoleEnv()", CartPoleEnv),
        ("NormalizeObservation(CartPoleEnv())", lambda: NormalizeObservation(CartPoleEnv())),
        (
            "NormalizeObservation(CartPoleEnv(), stats='ewm', clip=5)",
            lambda: NormalizeObservation(CartPoleEnv(), stats="ewm", clip=5.0),
        ),
        ("NormalizeReward(CartPoleEnv())", lambda: NormalizeReward(CartPoleEnv())),
        ("ClipReward(CartPoleEnv(), -1, 1)", lambda: ClipReward(CartPoleEnv(), -1.0, 1.0)),
        ("TimeLimit(CartPoleEnv(), 500)", lambda: TimeLimit(CartPoleEnv(), 500)),
        (
            "TimeAwareObservation(CartPoleEnv(), 500)",
            lambda: TimeAwareObservation(CartPoleEnv(), 500),
        ),
        (
            "FrameStackObservation(CartPoleEnv(), 4)",
            lambda: FrameStackObservation(CartPoleEnv(), 4),
        ),
        ("StickyAction(CartPoleEnv(), 0.25)", lambda: StickyAction(CartPoleEnv(), 0.25)),
    ]


def main(argv: Sequence[str] | None = None) -> None:
    """Time each wrapper and print a table of microseconds per step and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="timed steps per run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs; the best counts")
    parser.add_argument("--seed", type=int, default=0, help="env and action seed")
    args = parser.parse_args(argv)

    actions = np.random.default_rng(args.seed).integers(0, 2, size=args.steps).tolist()
    rows = [
        (name, seconds_per_step(factory(), actions, seed=args.seed, repeats=args.repeats))
        for name, factory in _candidates()
    ]
    base = rows[0][1]
    print(f"CartPole: {args.steps:,} steps, best of {args.repeats}, random actions")
    width = max(len(name) for name, _ in rows)
    print(f"{'env':<{width}}  {'us/step':>8}  {'vs plain':>8}")
    print(f"{'-' * width}  {'-' * 8}  {'-' * 8}")
    for name, cost in rows:
        print(f"{name:<{width}}  {cost * 1e6:>8.2f}  {cost / base:>7.2f}x")


if __name__ == "__main__":
    main()
