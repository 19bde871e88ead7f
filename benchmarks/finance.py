"""Throughput of the native finance vector envs against ``SyncVecEnv``.

For every native class in ``VEC_ENVS`` (skipped while it does not exist yet) this prints the
env-steps per second of the native env at each ``--num-envs`` and of a ``SyncVecEnv`` of the
single env (``vec_cls.env_class``) at ``--sync-envs``, once without reading ``infos`` and once
reading every sub-env's info dict, followed by the native/sync ratio at the same size.
Actions are pre-sampled batches of ``batch_action_space``; autoreset is on. Each figure is the
best of ``--repeats`` timed runs of ``--steps`` vector steps after a warm-up.

Usage: ``python benchmarks/finance.py [--steps N] [--repeats R] [--num-envs 16 1024]
[--sync-envs 16] [--seed S]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from sekai.envs.finance import vector
from sekai.vector import SyncVecEnv, VecEnv

__all__ = ["VEC_ENVS", "available", "main", "steps_per_second"]

#: Native classes of ``sekai.envs.finance.vector`` to measure, one line each.
VEC_ENVS = (
    "TradingVecEnv",
    "PortfolioVecEnv",
    "MarketMakingVecEnv",
    "OptimalExecutionVecEnv",
)

_ACTION_BATCHES = 64


def available() -> list[Any]:
    """The classes of ``VEC_ENVS`` that exist; the others are reported as skipped."""
    found = []
    for name in VEC_ENVS:
        cls = getattr(vector, name, None)
        if cls is None:
            print(f"{name}: not in sekai.envs.finance.vector yet, skipped")
        else:
            found.append(cls)
    return found


def _run(vec: VecEnv[Any, Any], actions: list[Any], steps: int, read_infos: bool) -> None:
    step = vec.step
    count = len(actions)
    for i in range(steps):
        result = step(actions[i % count])
        if read_infos:
            for info in result.infos:
                len(info)


def steps_per_second(
    vec: VecEnv[Any, Any], *, steps: int, repeats: int, read_infos: bool, seed: int
) -> float:
    """Best-of-``repeats`` env-steps per second of ``steps`` vector steps (after a warm-up)."""
    space = vec.batch_action_space
    space.seed(seed)
    actions = [space.sample() for _ in range(_ACTION_BATCHES)]
    vec.reset(seed=seed)
    _run(vec, actions, max(steps // 10, 1), read_infos)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        _run(vec, actions, steps, read_infos)
        best = min(best, time.perf_counter() - start)
    return steps * vec.num_envs / best


def main(argv: list[str] | None = None) -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500, help="vector steps per timed run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--num-envs", type=int, nargs="+", default=[16, 1024])
    parser.add_argument("--sync-envs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    classes = available()
    header = f"{'env':<24}{'backend':<9}{'num_envs':>9}{'no infos':>14}{'all infos':>14}"
    print(header)
    print("-" * len(header))
    for cls in classes:
        name = cls.env_class.__name__
        figures: dict[tuple[str, int], tuple[float, float]] = {}
        builds: list[tuple[str, int, Any]] = [
            ("native", n, lambda cls=cls, n=n: cls(n)) for n in args.num_envs
        ]
        sync_n = args.sync_envs
        builds.append(("sync", sync_n, lambda cls=cls, n=sync_n: SyncVecEnv([cls.env_class] * n)))
        for backend, n, build in builds:
            rates = []
            for read_infos in (False, True):
                vec = build()
                rates.append(
                    steps_per_second(
                        vec,
                        steps=args.steps,
                        repeats=args.repeats,
                        read_infos=read_infos,
                        seed=args.seed,
                    )
                )
                vec.close()
            figures[backend, n] = (rates[0], rates[1])
            print(f"{name:<24}{backend:<9}{n:>9}{rates[0]:>14,.0f}{rates[1]:>14,.0f}")
        if ("native", sync_n) in figures:
            native, sync = figures["native", sync_n], figures["sync", sync_n]
            print(
                f"{'':<24}native/sync at {sync_n}: {native[0] / sync[0]:.1f}x without infos, "
                f"{native[1] / sync[1]:.1f}x reading them"
            )


if __name__ == "__main__":
    main()
