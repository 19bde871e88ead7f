"""Messages per second of ``read_lobster`` (NumPy and pyarrow) and of the book replay.

Writes a LOBSTER pair of ``--messages`` zero-intelligence messages with a ``--levels``-deep
book (``write_lobster``, with hidden executions and a halt) to a temporary folder, then
times, side by side: reading the message file alone and with its order-book file, by each
reader (NumPy, and pyarrow and numba when installed), with the fastest one's ratio to NumPy;
``LobsterData.depth_rows()`` (replay plus the row-by-row check) at the file's depth and at
one level, on each engine (numba when installed, with its speed-up over python); and
``LimitOrderBook-v0`` steps per second, with simulated flow (the defaults) on each engine
(numba when installed, with its speed-up over python), and replaying the file (decisions
10 ms apart; the messages it applies per second). Each
figure is the best of ``--repeats`` runs after a warm-up. ``--quick`` shrinks the file to
100,000 messages and the repeats to 1.

Usage: ``python benchmarks/lobster.py [--messages N] [--levels L] [--repeats R] [--quick]``
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import sekai
from sekai.finance.lob import LobsterData, read_lobster, write_lobster

__all__ = ["env_steps", "main", "seconds"]


def seconds(run: Callable[[], Any], repeats: int) -> float:
    """Best-of-``repeats`` seconds of ``run()`` after a warm-up call."""
    run()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def env_steps(steps: int, **kwargs: Any) -> tuple[float, float]:
    """``(steps/s, messages/s)`` of ``steps`` random valid actions in ``LimitOrderBook-v0``."""
    env = sekai.make("LimitOrderBook-v0", **kwargs)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(steps)]
    env.reset(seed=0)
    env.step(actions[0])  # the numba engine compiles (or loads) its kernels here
    env.reset(seed=0)
    lob = env.unwrapped
    history = lob.core.history
    applied = 0
    start = time.perf_counter()
    for action in actions:
        before = history._k if history is not None else 0
        if env.step(action).terminated:
            env.reset()
        elif history is not None:
            applied += history._k - before
    taken = time.perf_counter() - start
    return steps / taken, applied / taken


def main(argv: Sequence[str] | None = None) -> None:
    """Write the files, time every reader and the replay, and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--levels", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--quick", action="store_true", help="100,000 messages, 1 repeat")
    args = parser.parse_args(argv)
    if args.quick:
        args.messages, args.repeats = 100_000, 1
    n = args.messages
    installed = {name: importlib.util.find_spec(name) is not None for name in ("pyarrow", "numba")}
    with tempfile.TemporaryDirectory() as folder:
        print(f"writing {n:,} messages, {args.levels} levels, to {folder} ...", flush=True)
        start = time.perf_counter()
        message, orderbook = write_lobster(
            Path(folder), n, levels=args.levels, hidden_rate=0.05, halt=True
        )
        mib = (message.stat().st_size + orderbook.stat().st_size) / 2**20
        print(f"written in {time.perf_counter() - start:.1f} s ({mib:,.0f} MiB)\n", flush=True)
        has_numba = installed["numba"]
        readers = [e for e in ("numpy", "pyarrow", "numba") if e == "numpy" or installed[e]]
        print(f"{'read msg/s':<28}" + "".join(f"{e:>12}" for e in readers) + f"{'best/numpy':>12}")
        for label, files in (
            ("messages only", (message,)),
            ("messages + order book", (message, orderbook)),
        ):
            rates = [
                n / seconds(partial(read_lobster, *files, engine=e), args.repeats) for e in readers
            ]
            cells = "".join(f"{rate:>12,.0f}" for rate in rates)
            print(f"{label:<28}{cells}{max(rates) / rates[0]:>11.1f}x", flush=True)
        header = f"{'python msg/s':>14}{'numba msg/s':>16}{'numba/python':>15}"
        print(f"\n{'replay (depth_rows)':<28}{header}")
        for levels in sorted({args.levels, 1}, reverse=True):
            data = read_lobster(message, orderbook, levels=levels)
            python = n / seconds(partial(data.depth_rows, engine="python"), args.repeats)
            text = f"{f'{levels} level(s)':<28}{python:>14,.0f}"
            if has_numba:
                numba = n / seconds(partial(data.depth_rows, engine="numba"), args.repeats)
                text += f"{numba:>16,.0f}{numba / python:>14.1f}x"
            else:
                text += f"{'skipped':>16}"
            print(text, flush=True)
        data: LobsterData = read_lobster(message, orderbook)
        print(f"\n{'LimitOrderBook-v0':<28}{'steps/s':>14}{'msg/s':>16}")
        python_rate, _ = env_steps(3000, engine="python")
        print(f"{'simulated flow, python':<28}{python_rate:>14,.0f}", flush=True)
        if has_numba:
            numba_rate, _ = env_steps(30_000, engine="numba")
            ratio = f"{numba_rate / python_rate:>13.1f}x python"
            print(f"{'simulated flow, numba':<28}{numba_rate:>14,.0f}{ratio}", flush=True)
        replay = {"data": data, "session_length": 1.0, "decision_interval": 0.01, "warmup": 0.05}
        engines = ["python"] + (["numba"] if has_numba else [])
        for engine in engines:
            replay_rate, messages = env_steps(3000, engine=engine, **replay)
            label = f"replay, {engine}"
            print(f"{label:<28}{replay_rate:>14,.0f}{messages:>16,.0f}", flush=True)
    print(f"\n{n:,} messages; best of {args.repeats}; msg/s = messages / seconds")


if __name__ == "__main__":
    main()
