"""Throughput of the native finance vector envs against ``SyncVecEnv`` and the single env.

For every native class in ``VEC_ENVS`` (skipped while it does not exist yet) this prints the
env-steps per second of the native env at each ``--num-envs`` and of a ``SyncVecEnv`` of the
single env (``vec_cls.env_class``) at ``--sync-envs``, once without reading ``infos`` and once
reading every sub-env's info dict, and the steps per second of one single env stepped in a
loop; then the native/sync ratio at the same size and the native/single ratio at each size.
Actions are pre-sampled batches of ``batch_action_space``; autoreset is on. Each figure is the
best of ``--repeats`` timed runs of ``--steps`` vector steps after a warm-up.

Usage: ``python benchmarks/finance.py [--steps N] [--repeats R] [--num-envs 16 256 1024]
[--sync-envs 16] [--seed S] [--only PortfolioVecEnv ...]``
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
    "MarketVecEnv",
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


def single_steps_per_second(env_class: Any, *, steps: int, repeats: int, seed: int) -> float:
    """Best-of-``repeats`` steps per second of one single env (reset when an episode ends)."""
    env = env_class()
    env.action_space.seed(seed)
    actions = [env.action_space.sample() for _ in range(_ACTION_BATCHES)]
    env.reset(seed=seed)
    best = float("inf")
    for _ in range(repeats + 1):  # the first run warms up
        start = time.perf_counter()
        for i in range(steps):
            result = env.step(actions[i % _ACTION_BATCHES])
            if result.terminated or result.truncated:
                env.reset()
        best = min(best, time.perf_counter() - start)
    env.close()
    return steps / best


def main(argv: list[str] | None = None) -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500, help="vector steps per timed run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--num-envs", type=int, nargs="+", default=[16, 256, 1024])
    parser.add_argument("--sync-envs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="+", choices=VEC_ENVS, default=list(VEC_ENVS))
    args = parser.parse_args(argv)
    classes = [cls for cls in available() if cls.__name__ in args.only]
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
        single = single_steps_per_second(
            cls.env_class, steps=args.steps, repeats=args.repeats, seed=args.seed
        )
        print(f"{name:<24}{'single':<9}{1:>9}{single:>14,.0f}")
        if ("native", sync_n) in figures:
            native, sync = figures["native", sync_n], figures["sync", sync_n]
            print(
                f"{'':<24}native/sync at {sync_n}: {native[0] / sync[0]:.1f}x without infos, "
                f"{native[1] / sync[1]:.1f}x reading them"
            )
        ratios = ", ".join(
            f"{figures['native', n][0] / single:.1f}x at {n}"
            for n in args.num_envs
            if ("native", n) in figures
        )
        print(f"{'':<24}native/single (no infos): {ratios}")


if __name__ == "__main__":
    main()
