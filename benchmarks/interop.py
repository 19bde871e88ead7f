"""The gymnasium vector bridge: ``to_gymnasium_vector(vec)`` against the sekai env itself.

Times ``vec.step`` and the bridge's ``step`` (which repacks results and infos into
gymnasium's dict-of-arrays) side by side in one run, at 16 and 1,024 sub-envs, for CartPole-v1
(``SyncVecEnv``) and the native ``Trading-v0`` and ``Portfolio-v0``. Two bridges: the
same-step one over the sekai env (``autoreset=True``), and the next-step one over the sekai
env built with ``autoreset=False``, which restarts the sub-envs that finished at the step
before with a partial reset. All get the same pre-generated random actions and seed and run
whole episodes, so the steps that reset sub-envs are timed too; each figure is the best of
``--repeats`` runs (alternating between the envs) after a warm-up run. Ratios are against
the sekai env. The native envs end their episodes together; ``--stagger N`` first restarts
sub-env ``i`` (a partial reset) at the ``i % N``-th of ``N`` steps, so that episodes of
``N`` steps end apart.

Usage: ``python benchmarks/interop.py [--steps N] [--repeats R] [--seed S] [--stagger N]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import sekai

__all__ = ["main"]

ENV_IDS = ("CartPole-v1", "Trading-v0", "Portfolio-v0")
SIZES = (16, 1024)


def _best_rates(
    steps: dict[str, Callable[[Any], Any]], actions: list[Any], num_envs: int, repeats: int
) -> dict[str, float]:
    """Best-of-``repeats`` env-steps per second of each ``step`` over ``actions``, after a
    warm-up; the runs of the different steps alternate, so that a change of load hits all."""
    for step in steps.values():
        for action in actions[: max(1, len(actions) // 5)]:
            step(action)
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(repeats):
        for name, step in steps.items():
            start = time.perf_counter()
            for action in actions:
                step(action)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: num_envs * len(actions) / seconds for name, seconds in best.items()}


def _stagger(env: Any, actions: list[Any], num_envs: int, period: int) -> None:
    """Step ``env`` ``period`` times, restarting sub-env ``i`` at the ``i % period``-th step."""
    for k in range(period):
        env.step(actions[k % len(actions)])
        env.reset(options={"reset_mask": np.arange(num_envs) % period == k})


def main(argv: Sequence[str] | None = None) -> None:
    """Time every id and size and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300, help="timed vector steps per run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--seed", type=int, default=0, help="env and action seed")
    parser.add_argument(
        "--stagger", type=int, default=0, help="spread episode starts over N steps (0: off)"
    )
    args = parser.parse_args(argv)
    from sekai.compat import to_gymnasium_vector

    print(f"{'env':<14}{'sub-envs':>9}{'bridge':>11}{'sekai':>16}{'bridge':>16}{'ratio':>8}")
    for env_id in ENV_IDS:
        for n in SIZES:
            envs = {
                "sekai": sekai.make_vec(env_id, n),
                "same_step": to_gymnasium_vector(sekai.make_vec(env_id, n)),
                "next_step": to_gymnasium_vector(
                    sekai.make_vec(env_id, n, vector_kwargs={"autoreset": False}),
                    autoreset_mode="next_step",
                ),
            }
            space = envs["sekai"].batch_action_space
            space.seed(args.seed)
            steps = args.steps * max(1, 256 // n)
            actions = [space.sample() for _ in range(steps)]
            seeds = [args.seed + i for i in range(n)]
            for env in envs.values():
                env.reset(seed=seeds)
                if args.stagger:
                    _stagger(env, actions, n, args.stagger)
            rates = _best_rates(
                {name: env.step for name, env in envs.items()}, actions, n, args.repeats
            )
            for env in envs.values():
                env.close()
            for mode in ("same_step", "next_step"):
                print(
                    f"{env_id:<14}{n:>9}{mode:>11}{rates['sekai']:>12,.0f} /s"
                    f"{rates[mode]:>12,.0f} /s{rates[mode] / rates['sekai']:>7.2f}x",
                    flush=True,
                )
    staggered = f", episode starts spread over {args.stagger} steps" if args.stagger else ""
    print(
        f"\n{args.steps} vector steps per run (more below 256 sub-envs), best of "
        f"{args.repeats}{staggered}"
    )


if __name__ == "__main__":
    main()
