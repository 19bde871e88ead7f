"""Run one episode of four finance environments with a baseline policy each, record their
dashboards as GIFs, and print each episode's performance summary.

* Market-v0: equal weights over whatever is tradable (assets list and delist).
* MarketMaking-v0: the Avellaneda-Stoikov quotes.
* OptimalExecution-v0: the Almgren-Chriss schedule.
* LimitOrderBook-v0: quote at the best bid and ask, flattening inventory near the limit.

Needs the render extra (``pip install -e ".[render]"`` in a sekai checkout). Run
``python examples/render_dashboards.py [--out DIR] [--theme light|dark] [--quick] [--quiet]``
(``--quiet``: no progress bars on a terminal).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import sekai
from sekai.core import ResetResult, StepResult
from sekai.envs.finance import (
    LimitOrderBookRenderer,
    MarketMakingRenderer,
    MarketRenderer,
    OptimalExecutionRenderer,
)
from sekai.finance import RecordPerformance
from sekai.rendering import Dashboard, RecordFrames
from sekai.utils import Progress

Policy = Callable[[Any], Any]


def equal_weights(env: Any) -> Any:
    """Equal scores for every tradable slot, nothing for cash (long-only Market-v0)."""
    mask = env.action_mask().astype(np.float32)
    mask[-1] = 0.0
    return mask


def avellaneda_stoikov(env: Any) -> Any:
    """The closed-form quotes of the Avellaneda-Stoikov model."""
    return env.avellaneda_stoikov_action()


def almgren_chriss(env: Any) -> Any:
    """This step's share of the Almgren-Chriss liquidation schedule."""
    return env.almgren_chriss_actions()[env.elapsed_steps]


def quote_the_touch(env: Any) -> Any:
    """Quote one lot at the best bid and ask; sell or buy at market when near the limit."""
    inventory, limit = env.trader.inventory, env.core.max_inventory
    market = 1  # hold
    if inventory >= 0.8 * limit:
        market = 0  # sell
    elif inventory <= -0.8 * limit:
        market = 2  # buy
    return np.array([1, 1, market])


def episode_length(env: Any) -> int | None:
    """The steps of an episode of ``env`` if it tells them (``n_steps``/``episode_length``)."""
    for name in ("n_steps", "episode_length"):
        if isinstance(length := getattr(env, name, None), int):
            return length
    return None


def run(
    env_id: str,
    renderer: Dashboard,
    policy: Policy,
    out: Path,
    *,
    perf: dict[str, Any] | None,
    seed: int,
    max_steps: int | None,
    quiet: bool = False,
) -> None:
    """Record one episode of ``env_id`` under ``policy`` and print what it did.

    ``perf`` holds ``RecordPerformance`` options; None prints the last info instead. A progress
    bar counts the steps on a terminal unless ``quiet``.
    """
    inner = sekai.make(env_id)
    env = RecordFrames(inner if perf is None else RecordPerformance(inner, **perf), renderer)
    start = time.perf_counter()
    result: ResetResult[Any] | StepResult[Any] = env.reset(seed=seed)
    steps = 0
    limits = [n for n in (max_steps, episode_length(inner.unwrapped)) if n is not None]
    with Progress(min(limits, default=None), env_id, enabled=not quiet, leave=False) as bar:
        while not result.done and (max_steps is None or steps < max_steps):
            result = env.step(policy(env.unwrapped))
            steps += 1
            bar.update()
    elapsed = time.perf_counter() - start
    path = env.save(out / f"{env_id}.gif")
    print(f"\n{env_id}: {steps} steps, {len(env.frames)} frames in {elapsed:.1f} s -> {path}")
    if perf is None:
        print(", ".join(f"{key} {value:.4g}" for key, value in result.info.items()))
    elif (summary := env.get_attr("last_summary")) is not None:
        print(summary)
    else:
        print("(episode cut short: no summary)")
    env.close()


def main() -> None:
    """Parse the command line and record the four episodes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("dashboards"), help="GIF folder")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="30 steps per episode")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    max_steps = 30 if args.quick else None
    size = {"width": 640, "height": 400, "theme": args.theme}
    pnl = {"pnl_key": "wealth"}
    runs: list[tuple[str, Dashboard, Policy, dict[str, Any] | None]] = [
        ("Market-v0", MarketRenderer(**size), equal_weights, {}),
        ("MarketMaking-v0", MarketMakingRenderer(**size), avellaneda_stoikov, pnl),
        ("OptimalExecution-v0", OptimalExecutionRenderer(**size), almgren_chriss, None),
        ("LimitOrderBook-v0", LimitOrderBookRenderer(**size), quote_the_touch, pnl),
    ]
    for env_id, renderer, policy, perf in runs:
        run(
            env_id,
            renderer,
            policy,
            args.out,
            perf=perf,
            seed=args.seed,
            max_steps=max_steps,
            quiet=args.quiet,
        )


if __name__ == "__main__":
    main()
