"""Vector-env throughput: sekai backends vs gymnasium's, and a native env.

Times CartPole-v1 at 16 and 1024 sub-envs on sekai ``SyncVecEnv`` and ``ProcVecEnv`` (2
workers) and on gymnasium ``SyncVectorEnv`` and ``AsyncVectorEnv`` (same-step autoreset, as
sekai's); gymnasium's AsyncVectorEnv runs one process per sub-env, so it is timed at 16 only.
Then the ``Drift`` env of the vector-environments guide at 1024 sub-envs, native
(``DriftVecEnv``) vs ``SyncVecEnv``, and the cost of a native step in µs with and without
reading ``infos`` (which builds the per-sub-env dicts) and under a stack of vector wrappers.
Last, where Ray is installed, ``RayVecEnv`` on a local Ray: the round trip of one step with 1
and 2 workers (one ``Drift`` sub-env each) next to ``ProcVecEnv``'s, then ``ProcVecEnv`` vs
``RayVecEnv`` at 2 workers and 32 sub-envs, vs ``SyncVecEnv``, on a cheap env (CartPole-v1)
and on expensive ones (``Busy``, a 1 ms CPU-bound step, and LimitOrderBook-v0).
Every backend gets the same pre-generated random actions; each figure is the best of
``--repeats`` timed runs after a warm-up run.

Usage: ``python benchmarks/vector.py [--steps N] [--repeats R] [--seed S] [--ray-only]``
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import sekai
from sekai.registry import make_vec
from sekai.spaces.utils import batch_space
from sekai.vector import NativeVecEnv, ProcVecEnv, RayVecEnv, SyncVecEnv
from sekai.vector.wrappers import (
    VecNormalizeObservation,
    VecNormalizeReward,
    VecRecordEpisodeStatistics,
)

__all__ = ["Busy", "Drift", "DriftVecEnv", "main", "seconds_per_step"]

ENV_ID = "CartPole-v1"
SIZES = (16, 1024)


class Drift(sekai.Env):
    """Push a drifting point back towards zero."""

    def __init__(self) -> None:
        self.observation_space = sekai.Box(-10.0, 10.0, shape=(1,))
        self.action_space = sekai.Discrete(2)  # push down / push up

    def reset(self, *, seed: Any = None, options: Any = None) -> sekai.ResetResult[Any]:
        self._set_rng(seed)
        self.x = self.rng.normal()
        return sekai.ResetResult(np.array([self.x], np.float32), {})

    def step(self, action: Any) -> sekai.StepResult[Any]:
        self.x += (0.5 if action == 1 else -0.5) + self.rng.normal(0.0, 0.1)
        obs = np.array([np.clip(self.x, -10, 10)], np.float32)
        return sekai.StepResult(obs, -abs(self.x), abs(self.x) > 5, False, {})


class Busy(Drift):
    """``Drift`` whose step also keeps a CPU busy for ``cost`` seconds: an expensive simulator."""

    def __init__(self, cost: float = 1e-3) -> None:
        super().__init__()
        self.cost = cost

    def step(self, action: Any) -> sekai.StepResult[Any]:
        end = time.perf_counter() + self.cost
        while time.perf_counter() < end:
            pass
        return super().step(action)


class DriftVecEnv(NativeVecEnv):
    """num_envs copies of Drift, stepped together with array operations."""

    def __init__(
        self, num_envs: int, *, max_episode_steps: int | None = None, autoreset: bool = True
    ) -> None:
        super().__init__(
            num_envs,
            sekai.Box(-10.0, 10.0, shape=(1,)),
            sekai.Discrete(2),
            autoreset=autoreset,
            max_episode_steps=max_episode_steps,
        )
        self.x = np.zeros(num_envs)

    def _reset_envs(self, indices: Any, options: Any) -> None:
        self.x[indices] = self.rng.normal(size=len(indices))

    def _observe(self) -> Any:
        return np.clip(self.x, -10, 10)[:, None].astype(np.float32)

    def _step(self, actions: Any) -> Any:
        push = np.where(np.asarray(actions) == 1, 0.5, -0.5)
        self.x += push + self.rng.normal(0.0, 0.1, size=self.num_envs)
        terminated = np.abs(self.x) > 5
        return -np.abs(self.x), terminated, np.zeros(self.num_envs, bool), {}


def _run_sekai(vec: Any, actions: Any, seed: int, read_infos: bool) -> None:
    vec.reset(seed=seed)
    step = vec.step
    if read_infos:
        for batch in actions:
            step(batch).infos[0]  # reading one entry builds every dict
    else:
        for batch in actions:
            step(batch)


def _run_gymnasium(vec: Any, actions: Any, seed: int, read_infos: bool) -> None:
    vec.reset(seed=seed)
    step = vec.step
    for batch in actions:
        step(batch)


def seconds_per_step(
    runner: Callable[[Any, Any, int, bool], None],
    vec: Any,
    actions: np.ndarray[Any, Any],
    *,
    seed: int,
    repeats: int,
    read_infos: bool = False,
) -> float:
    """Best-of-``repeats`` seconds per vector step of ``runner`` after a warm-up run."""
    runner(vec, actions[: max(1, len(actions) // 5)], seed, read_infos)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        runner(vec, actions, seed, read_infos)
        best = min(best, time.perf_counter() - start)
    return best / len(actions)


def _gymnasium_vectors(num_envs: int, *, with_async: bool) -> list[tuple[str, Callable[[], Any]]]:
    try:
        import gymnasium
    except ImportError:
        print("gymnasium is not installed: only sekai is timed (pip install gymnasium).")
        return []
    from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

    mode = getattr(gymnasium.vector, "AutoresetMode", None)
    kwargs = {} if mode is None else {"autoreset_mode": mode.SAME_STEP}
    fns = [lambda: gymnasium.make(ENV_ID)] * num_envs
    builders: list[tuple[str, Callable[[], Any]]] = [
        ("gymnasium SyncVectorEnv", lambda: SyncVectorEnv(fns, **kwargs))
    ]
    if with_async:
        builders.append(("gymnasium AsyncVectorEnv", lambda: AsyncVectorEnv(fns, **kwargs)))
    return builders


def _time(
    label: str,
    build: Callable[[], Any],
    runner: Callable[[Any, Any, int, bool], None],
    actions: np.ndarray[Any, Any],
    timing: dict[str, Any],
    read_infos: bool = False,
) -> float:
    vec = build()
    try:
        return seconds_per_step(runner, vec, actions, read_infos=read_infos, **timing)
    finally:
        vec.close()


def _table(title: str, rows: Sequence[tuple[str, float | None, float | None]], unit: str) -> None:
    print(title)
    width = max(len(name) for name, _, _ in rows)
    print(f"{'backend':<{width}}  {unit:>14}  {'ratio':>8}")
    print(f"{'-' * width}  {'-' * 14}  {'-' * 8}")
    for name, value, ratio in rows:
        if value is None:
            shown = "skipped"
        else:
            shown = f"{value:,.0f}" if unit == "env-steps/s" else f"{value:,.1f}"
        print(f"{name:<{width}}  {shown:>14}  {'' if ratio is None else f'{ratio:.2f}x':>8}")
    print()


RAY_ENVS = 32
"""Sub-envs of the Ray comparisons."""


def _drift() -> sekai.Env:
    return sekai.TimeLimit(Drift(), 100)


def _busy() -> sekai.Env:
    return sekai.TimeLimit(Busy(), 100)


def _lob() -> sekai.Env:
    return sekai.make("LimitOrderBook-v0")


def _cartpole() -> sekai.Env:
    return sekai.make(ENV_ID)


def _ray_tables(args: argparse.Namespace, rng: np.random.Generator, timing: dict[str, Any]) -> None:
    """Time ``RayVecEnv`` on a local Ray against ``ProcVecEnv`` and ``SyncVecEnv``."""
    try:
        import ray
    except ImportError:
        print("ray is not installed: RayVecEnv is not timed (pip install ray).")
        return
    ray.init()
    try:
        rows: list[tuple[str, float | None, float | None]] = []
        for workers in (1, 2):
            actions = rng.integers(0, 2, size=(args.steps * 5, workers))
            fns = [_drift] * workers
            build_proc = functools.partial(ProcVecEnv, fns)
            build_ray = functools.partial(RayVecEnv, fns, num_workers=workers)
            proc = 1e6 * _time("proc", build_proc, _run_sekai, actions, timing)
            ray_us = 1e6 * _time("ray", build_ray, _run_sekai, actions, timing)
            rows += [
                (f"ProcVecEnv, {workers} worker(s)", proc, 1.0),
                (f"RayVecEnv, {workers} worker(s)", ray_us, ray_us / proc),
            ]
        _table(
            "Round trip: µs per vector step, one Drift sub-env per worker (ratio vs ProcVecEnv)",
            rows,
            "µs/step",
        )
        n = RAY_ENVS
        envs: list[tuple[str, Callable[[], Any], int]] = [
            (ENV_ID, _cartpole, args.steps * 2),
            ("Busy (1 ms CPU-bound step)", _busy, max(10, args.steps // 5)),
            ("LimitOrderBook-v0", _lob, max(10, args.steps // 5)),
        ]
        for name, fn, steps in envs:
            space = batch_space(fn().action_space, n)
            space.seed(args.seed)
            samples = np.array([space.sample() for _ in range(steps)])
            fns = [fn] * n
            builders: list[tuple[str, Callable[[], Any]]] = [
                ("SyncVecEnv", functools.partial(SyncVecEnv, fns)),
                ("ProcVecEnv (2 workers)", functools.partial(ProcVecEnv, fns, num_workers=2)),
                ("RayVecEnv (2 workers)", functools.partial(RayVecEnv, fns, num_workers=2)),
            ]
            rates = {
                label: n / _time(label, build, _run_sekai, samples, timing)
                for label, build in builders
            }
            sync = rates["SyncVecEnv"]
            _table(
                f"{name}, {n} sub-envs, {steps} vector steps (ratio vs SyncVecEnv)",
                [(label, rate, rate / sync) for label, rate in rates.items()],
                "env-steps/s",
            )
    finally:
        ray.shutdown()


def main(argv: Sequence[str] | None = None) -> None:
    """Run every timing and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="timed vector steps per run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--seed", type=int, default=0, help="env and action seed")
    parser.add_argument("--ray-only", action="store_true", help="time the Ray backend only")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    timing = {"seed": args.seed, "repeats": args.repeats}
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)\n")
    if args.ray_only:
        _ray_tables(args, rng, timing)
        return

    for n in SIZES:
        # Small batches are cheap: give them more steps so each run lasts long enough.
        steps = args.steps * max(1, 256 // n)
        actions = rng.integers(0, 2, size=(steps, n))
        gym = _gymnasium_vectors(n, with_async=n <= 64)
        builders: list[tuple[str, Callable[[], Any], Any]] = [
            (name, build, _run_gymnasium) for name, build in gym
        ]
        builders += [
            ("sekai SyncVecEnv", functools.partial(make_vec, ENV_ID, n), _run_sekai),
            (
                "sekai ProcVecEnv (2 workers)",
                functools.partial(
                    make_vec, ENV_ID, n, vectorization_mode="proc", vector_kwargs={"num_workers": 2}
                ),
                _run_sekai,
            ),
        ]
        rates = {
            name: n / _time(name, build, runner, actions, timing)
            for name, build, runner in builders
        }
        base = rates.get("gymnasium SyncVectorEnv")
        rows: list[tuple[str, float | None, float | None]] = [
            (name, rate, None if base is None else rate / base) for name, rate in rates.items()
        ]
        if n > 64 and gym:
            rows.append(("gymnasium AsyncVectorEnv (1 process per sub-env)", None, None))
        _table(
            f"{ENV_ID}, {n} sub-envs, {steps} vector steps, best of {args.repeats} "
            "(ratio vs gymnasium SyncVectorEnv)",
            rows,
            "env-steps/s",
        )

    n = 1024
    actions = rng.integers(0, 2, size=(args.steps * 5, n))
    native = n / _time(
        "native", lambda: DriftVecEnv(n, max_episode_steps=100), _run_sekai, actions, timing
    )
    sync = n / _time(
        "sync",
        lambda: SyncVecEnv([lambda: sekai.TimeLimit(Drift(), 100)] * n),
        _run_sekai,
        actions[: args.steps],
        timing,
    )
    proc = n / _time(
        "proc",
        lambda: ProcVecEnv([lambda: sekai.TimeLimit(Drift(), 100)] * n, num_workers=2),
        _run_sekai,
        actions[: args.steps],
        timing,
    )
    _table(
        f"Drift, {n} sub-envs, time limit 100 (ratio vs SyncVecEnv)",
        [
            ("sekai DriftVecEnv (native)", native, native / sync),
            ("sekai SyncVecEnv", sync, 1.0),
            ("sekai ProcVecEnv (2 workers)", proc, proc / sync),
        ],
        "env-steps/s",
    )

    def stacked() -> Any:
        return VecNormalizeReward(
            VecNormalizeObservation(
                VecRecordEpisodeStatistics(DriftVecEnv(n, max_episode_steps=100))
            )
        )

    plain = 1e6 * _time(
        "plain", lambda: DriftVecEnv(n, max_episode_steps=100), _run_sekai, actions, timing
    )
    reading = 1e6 * _time(
        "reading",
        lambda: DriftVecEnv(n, max_episode_steps=100),
        _run_sekai,
        actions,
        timing,
        read_infos=True,
    )
    wrapped = 1e6 * _time("wrapped", stacked, _run_sekai, actions, timing)
    _table(
        f"DriftVecEnv, {n} sub-envs: µs per vector step (ratio vs not reading infos)",
        [
            ("infos not read", plain, 1.0),
            ("infos read (infos[0] each step)", reading, reading / plain),
            (
                "+ RecordEpisodeStatistics, NormalizeObservation, NormalizeReward",
                wrapped,
                wrapped / plain,
            ),
        ],
        "µs/step",
    )
    _ray_tables(args, rng, timing)


if __name__ == "__main__":
    main()
