"""Split stepping against full steps when one sub-env in eight is ten times slower.

Eight ``Latency`` sub-envs in ``ProcVecEnv`` (one worker each; ``--backend ray`` for
``RayVecEnv``): a step sleeps ``--cost`` ms, sub-env 0's ten times as long, as an env waiting
on a simulator or a remote service would. ``step()`` waits for the slowest sub-env every time;
``send`` / ``recv`` with ``batch_size=4`` returns the first four sub-envs to finish and sends
them their next actions at once. Each figure is env-steps per second over ``--seconds`` of
stepping, the best of ``--repeats`` runs after a warm-up; the ratio is split over full.

Usage: ``python benchmarks/async_batches.py [--seconds S] [--repeats R] [--cost MS]
[--backend proc|ray]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import sekai
from sekai.vector import ProcVecEnv, RayVecEnv, VecEnv

__all__ = ["Latency", "full_steps", "main", "split_steps"]

NUM_ENVS = 8
SLOWDOWN = 10


class Latency(sekai.Env):
    """Steps that take ``delay`` seconds of waiting; episodes of 100 steps."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.observation_space = sekai.Box(-1.0, 1.0, shape=(4,))
        self.action_space = sekai.Discrete(2)
        self.t = 0

    def reset(self, *, seed: Any = None, options: Any = None) -> sekai.ResetResult[Any]:
        self._set_rng(seed)
        self.t = 0
        return sekai.ResetResult(self.rng.uniform(-1, 1, 4).astype(np.float32), {})

    def step(self, action: Any) -> sekai.StepResult[Any]:
        time.sleep(self.delay)
        self.t += 1
        obs = self.rng.uniform(-1, 1, 4).astype(np.float32)
        return sekai.StepResult(obs, 1.0, self.t >= 100, False, {})


def full_steps(vec: VecEnv[Any, Any], seconds: float) -> float:
    """Env-steps per second of ``step()`` on every sub-env for ``seconds``."""
    vec.reset(seed=0)
    actions = np.zeros(vec.num_envs, dtype=np.int64)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        vec.step(actions)
        steps += vec.num_envs
    return steps / (time.perf_counter() - start)


def split_steps(vec: VecEnv[Any, Any], seconds: float) -> float:
    """Env-steps per second of ``recv()`` then ``send`` to the rows returned, for ``seconds``
    (the steps still in flight at the end are not counted)."""
    vec.reset(seed=0)
    vec.send(np.zeros(vec.num_envs, dtype=np.int64))
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        ids = vec.recv().env_ids
        steps += len(ids)
        vec.send(np.zeros(len(ids), dtype=np.int64), ids)
    elapsed = time.perf_counter() - start
    while vec.in_flight.size:
        vec.recv()
    return steps / elapsed


def _build(backend: str, cost: float, batch_size: int | None) -> VecEnv[Any, Any]:
    delays = [cost * SLOWDOWN] + [cost] * (NUM_ENVS - 1)
    fns = [lambda d=d: Latency(d) for d in delays]
    if backend == "ray":
        return RayVecEnv(fns, num_workers=NUM_ENVS, batch_size=batch_size)
    return ProcVecEnv(fns, batch_size=batch_size)


def _best(backend: str, cost: float, batch_size: int | None, args: argparse.Namespace) -> float:
    vec = _build(backend, cost, batch_size)
    run = full_steps if batch_size is None else split_steps
    try:
        run(vec, min(0.5, args.seconds))  # warm-up
        return max(run(vec, args.seconds) for _ in range(args.repeats))
    finally:
        vec.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cost", type=float, default=2.0, help="ms of a fast step")
    parser.add_argument("--backend", choices=("proc", "ray"), default="proc")
    args = parser.parse_args(argv)
    cost = args.cost / 1000
    print(
        f"{NUM_ENVS} sub-envs on {args.backend}, steps of {args.cost:g} ms, sub-env 0's "
        f"{SLOWDOWN}x slower"
    )
    full = _best(args.backend, cost, None, args)
    split = _best(args.backend, cost, NUM_ENVS // 2, args)
    print(f"  step()                            {full:10,.0f} env-steps/s")
    print(f"  send/recv, batch_size={NUM_ENVS // 2:<2}          {split:10,.0f} env-steps/s")
    print(f"  ratio                             {split / full:10.2f}x")


if __name__ == "__main__":
    main()
