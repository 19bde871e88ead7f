"""The gymnasium vector bridge: ``to_gymnasium_vector(vec)`` against the sekai env itself.

Times ``vec.step`` and ``to_gymnasium_vector(vec).step`` (which repacks results and infos into
gymnasium's dict-of-arrays) side by side in one run, at 16 and 1,024 sub-envs, for CartPole-v1
(``SyncVecEnv``) and the native ``Trading-v0`` and ``Portfolio-v0``. Both get the same
pre-generated random actions and seed and run whole episodes, so the steps that reset
sub-envs are timed too; each figure is the best of ``--repeats`` runs after a warm-up run.

Usage: ``python benchmarks/interop.py [--steps N] [--repeats R] [--seed S]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import sekai

__all__ = ["main"]

ENV_IDS = ("CartPole-v1", "Trading-v0", "Portfolio-v0")
SIZES = (16, 1024)


def _best_rate(
    step: Callable[[Any], Any], actions: list[Any], num_envs: int, repeats: int
) -> float:
    """Best-of-``repeats`` env-steps per second of ``step`` over ``actions``, after a warm-up."""
    for action in actions[: max(1, len(actions) // 5)]:
        step(action)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for action in actions:
            step(action)
        best = min(best, time.perf_counter() - start)
    return num_envs * len(actions) / best


def main(argv: Sequence[str] | None = None) -> None:
    """Time every id and size and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="timed vector steps per run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--seed", type=int, default=0, help="env and action seed")
    args = parser.parse_args(argv)
    from sekai.compat import to_gymnasium_vector

    print(f"{'env':<14}{'sub-envs':>9}{'sekai':>16}{'gymnasium bridge':>19}{'ratio':>8}")
    for env_id in ENV_IDS:
        for n in SIZES:
            sekai_vec = sekai.make_vec(env_id, n)
            bridge = to_gymnasium_vector(sekai.make_vec(env_id, n))
            space = sekai_vec.batch_action_space
            space.seed(args.seed)
            steps = args.steps * max(1, 256 // n)
            actions = [space.sample() for _ in range(steps)]
            seeds = [args.seed + i for i in range(n)]
            sekai_vec.reset(seed=seeds)
            bridge.reset(seed=seeds)
            rates = {
                "sekai": _best_rate(sekai_vec.step, actions, n, args.repeats),
                "bridge": _best_rate(bridge.step, actions, n, args.repeats),
            }
            sekai_vec.close()
            bridge.close()
            print(
                f"{env_id:<14}{n:>9}{rates['sekai']:>12,.0f} /s{rates['bridge']:>15,.0f} /s"
                f"{rates['bridge'] / rates['sekai']:>7.2f}x",
                flush=True,
            )
    print(f"\n{args.steps} vector steps per run (more below 256 sub-envs), best of {args.repeats}")


if __name__ == "__main__":
    main()
