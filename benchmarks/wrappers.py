"""Per-step cost of single-env wrappers over CartPole: sekai vs gymnasium.

Each wrapper is timed around the unwrapped ``CartPoleEnv`` of its library, with the same
pre-generated random actions, resetting when an episode ends. Each figure is the best of
``--repeats`` timed runs after a warm-up. ``vs plain`` is the wrapped env's time per step over
its library's plain ``CartPoleEnv``; ``speed-up`` is gymnasium's time over sekai's.
``TransformObservation(identity)`` is the floor of any observation wrapper: one call and a
new result per step, with no work on the observation.

Usage: ``python benchmarks/wrappers.py [--steps N] [--repeats R] [--seed S]``
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from single_env import run_gymnasium, run_sekai, steps_per_second

__all__ = ["main"]

Factory = Callable[[], Any]


def _candidates() -> list[tuple[str, Factory, Factory | None]]:
    """``(label, sekai factory, gymnasium factory or None)``; the first row is the plain env."""
    import gymnasium
    from gymnasium.envs.classic_control import CartPoleEnv as GymCartPole

    import sekai
    from sekai.envs.classic_control import CartPoleEnv

    gw = gymnasium.wrappers

    def gym_with_limit() -> Any:
        # gymnasium's TimeAwareObservation reads the limit from the spec.
        return gw.TimeLimit(GymCartPole(), 500)

    return [
        ("CartPoleEnv()", CartPoleEnv, GymCartPole),
        (
            "TransformObservation(identity)",
            lambda: sekai.TransformObservation(CartPoleEnv(), lambda o: o),
            lambda: gw.TransformObservation(GymCartPole(), lambda o: o, None),
        ),
        (
            "NormalizeObservation",
            lambda: sekai.NormalizeObservation(CartPoleEnv()),
            lambda: gw.NormalizeObservation(GymCartPole()),
        ),
        (
            "NormalizeObservation(stats='ewm', clip=5)",
            lambda: sekai.NormalizeObservation(CartPoleEnv(), stats="ewm", clip=5.0),
            None,
        ),
        (
            "NormalizeReward",
            lambda: sekai.NormalizeReward(CartPoleEnv()),
            lambda: gw.NormalizeReward(GymCartPole()),
        ),
        (
            "ClipReward(-1, 1)",
            lambda: sekai.ClipReward(CartPoleEnv(), -1.0, 1.0),
            lambda: gw.ClipReward(GymCartPole(), -1.0, 1.0),
        ),
        (
            "TimeLimit(500)",
            lambda: sekai.TimeLimit(CartPoleEnv(), 500),
            lambda: gw.TimeLimit(GymCartPole(), 500),
        ),
        (
            "TimeAwareObservation(TimeLimit(500))",
            lambda: sekai.TimeAwareObservation(
                sekai.TimeLimit(CartPoleEnv(), 500), normalize_time=False
            ),
            lambda: gw.TimeAwareObservation(gym_with_limit()),
        ),
        (
            "FrameStackObservation(4)",
            lambda: sekai.FrameStackObservation(CartPoleEnv(), 4),
            lambda: gw.FrameStackObservation(GymCartPole(), 4),
        ),
        (
            "StickyAction(0.25)",
            lambda: sekai.StickyAction(CartPoleEnv(), 0.25),
            lambda: gw.StickyAction(GymCartPole(), 0.25),
        ),
    ]


def main(argv: Sequence[str] | None = None) -> None:
    """Time each wrapper in both libraries and print a table of costs and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="timed steps per run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs; the best counts")
    parser.add_argument("--seed", type=int, default=0, help="env and action seed")
    args = parser.parse_args(argv)

    actions = np.random.default_rng(args.seed).integers(0, 2, size=args.steps).tolist()

    def timed(runner: Callable[[Any, Sequence[int], int], None], factory: Factory) -> float:
        """Seconds per step of a fresh env from ``factory``."""
        warmup = min(5_000, len(actions))
        rate = steps_per_second(
            runner, factory(), actions, seed=args.seed, repeats=args.repeats, warmup=warmup
        )
        return 1.0 / rate

    rows = [
        (
            name,
            timed(run_sekai, ours),
            None if theirs is None else timed(run_gymnasium, theirs),
        )
        for name, ours, theirs in _candidates()
    ]
    base, gym_base = rows[0][1], rows[0][2]
    assert gym_base is not None
    print(f"CartPole: {args.steps:,} steps, best of {args.repeats}, random actions")
    width = max(len(name) for name, _, _ in rows)
    header = ("sekai us", "vs plain", "gym us", "vs plain", "speed-up")
    print(f"{'wrapper':<{width}}  " + "  ".join(f"{h:>8}" for h in header))
    print(f"{'-' * width}  " + "  ".join("-" * 8 for _ in header))
    for name, ours, theirs in rows:
        cells = [f"{ours * 1e6:>8.2f}", f"{ours / base:>7.2f}x"]
        if theirs is None:
            cells += [f"{'-':>8}"] * 3
        else:
            cells += [
                f"{theirs * 1e6:>8.2f}",
                f"{theirs / gym_base:>7.2f}x",
                f"{theirs / ours:>7.2f}x",
            ]
        print(f"{name:<{width}}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
