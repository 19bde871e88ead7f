"""Single-environment step throughput: sekai vs gymnasium on CartPole-v1.

Times ``sekai.make("CartPole-v1")`` against ``gymnasium.make("CartPole-v1")`` and both
unwrapped envs, feeding every env the same pre-generated random actions and resetting when
an episode ends. Each figure is the best of ``--repeats`` timed runs after a warm-up.

Usage: ``python benchmarks/single_env.py [--steps N] [--repeats R] [--seed S]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["main", "run_gymnasium", "run_sekai", "steps_per_second"]

ENV_ID = "CartPole-v1"


def run_sekai(env: Any, actions: Sequence[int], seed: int) -> None:
    """Step a sekai env through ``actions``, resetting whenever an episode ends."""
    env.reset(seed=seed)
    step = env.step
    reset = env.reset
    for action in actions:
        result = step(action)
        if result.terminated or result.truncated:
            reset()


def run_gymnasium(env: Any, actions: Sequence[int], seed: int) -> None:
    """Step a gymnasium env through ``actions``, resetting whenever an episode ends."""
    env.reset(seed=seed)
    step = env.step
    reset = env.reset
    for action in actions:
        _, _, terminated, truncated, _ = step(action)
        if terminated or truncated:
            reset()


def steps_per_second(
    runner: Callable[[Any, Sequence[int], int], None],
    env: Any,
    actions: Sequence[int],
    *,
    seed: int,
    repeats: int,
    warmup: int,
) -> float:
    """Best-of-``repeats`` throughput of ``runner(env, actions, seed)`` after a warm-up."""
    runner(env, actions[:warmup], seed)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        runner(env, actions, seed)
        best = min(best, time.perf_counter() - start)
    return len(actions) / best


def _sekai_make() -> tuple[Callable[..., Any] | None, str]:
    """Return ``(make, note)``; ``make`` is None when no sekai ``make`` is importable."""
    try:
        import sekai
    except ImportError as exc:  # pragma: no cover - sekai is installed with the benchmarks
        return None, f"sekai cannot be imported ({exc})"
    make = getattr(sekai, "make", None)
    if make is not None:
        return make, "sekai.make"
    try:
        import sekai.envs  # registers the built-in ids
        from sekai.registry import make as registry_make
    except ImportError as exc:
        return None, f"sekai.make is not available yet ({exc})"
    return registry_make, "sekai.registry.make (sekai.make is not available yet)"


def main(argv: Sequence[str] | None = None) -> None:
    """Run the benchmark and print a table of steps/s and sekai/gymnasium ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="timed steps per run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs; the best counts")
    parser.add_argument("--seed", type=int, default=0, help="env and action seed")
    args = parser.parse_args(argv)

    from sekai.envs.classic_control import CartPoleEnv

    actions = np.random.default_rng(args.seed).integers(0, 2, size=args.steps).tolist()
    timing = {"seed": args.seed, "repeats": args.repeats, "warmup": min(5_000, args.steps)}
    rows: list[tuple[str, float, str]] = []

    gymnasium: Any
    try:
        import gymnasium
    except ImportError:
        gymnasium = None
        print("gymnasium is not installed: only sekai is timed (pip install gymnasium).")

    sekai_make, make_note = _sekai_make()
    gym_wrapped = gym_unwrapped = None
    if gymnasium is not None:
        gym_wrapped = steps_per_second(run_gymnasium, gymnasium.make(ENV_ID), actions, **timing)
        gym_unwrapped = steps_per_second(
            run_gymnasium, gymnasium.make(ENV_ID).unwrapped, actions, **timing
        )
    if sekai_make is not None:
        wrapped = steps_per_second(run_sekai, sekai_make(ENV_ID), actions, **timing)
        rows.append((f"{make_note.split(' ')[0]}({ENV_ID!r})", wrapped, "wrapped"))
    else:
        print(f"Skipping the wrapped sekai env: {make_note}.")
    unwrapped = steps_per_second(run_sekai, CartPoleEnv(), actions, **timing)
    rows.append(("sekai CartPoleEnv() [unwrapped]", unwrapped, "unwrapped"))
    if gym_wrapped is not None and gym_unwrapped is not None:
        rows.append((f"gymnasium.make({ENV_ID!r})", gym_wrapped, "wrapped"))
        rows.append((f"gymnasium.make({ENV_ID!r}).unwrapped", gym_unwrapped, "unwrapped"))

    reference = {"wrapped": gym_wrapped, "unwrapped": gym_unwrapped}
    print(f"{ENV_ID}: {args.steps:,} steps, best of {args.repeats}, random actions")
    if sekai_make is not None and make_note != "sekai.make":
        print(f"note: timed {make_note}")
    width = max(len(name) for name, _, _ in rows)
    print(f"{'env':<{width}}  {'steps/s':>12}  {'vs gymnasium':>12}")
    print(f"{'-' * width}  {'-' * 12}  {'-' * 12}")
    for name, rate, kind in rows:
        base = reference[kind]
        ratio = "" if base is None or name.startswith("gymnasium") else f"{rate / base:.2f}x"
        print(f"{name:<{width}}  {rate:>12,.0f}  {ratio:>12}")


if __name__ == "__main__":
    main()
