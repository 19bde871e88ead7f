"""Classic finance baselines on sekai's native vector envs, thousands of episodes at once.

* OptimalExecution-v0: the Almgren-Chriss schedule against TWAP (equal slices). Simulated
  implementation shortfall (basis points of the arrival notional) is set next to the model's
  ``expected_shortfall`` mean and standard deviation, with the mean-variance objective
  ``E[IS] + λ·Var[IS]`` that Almgren-Chriss minimises (λ = ``risk_aversion``).
* MarketMaking-v0: Avellaneda-Stoikov quotes against fixed symmetric quotes with the same
  initial spread: final P&L, its spread, the episode return (P&L less the running inventory
  penalty) and the mean absolute final inventory.

Run ``python examples/finance_baselines.py`` (``--quick`` for a short smoke run, ``--quiet``
for no progress bars on a terminal).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

import sekai
from sekai.envs.finance import MarketMakingVecEnv, OptimalExecutionVecEnv
from sekai.utils import Progress

Policy = Callable[[int], NDArray[np.float32]]


def run_episodes(
    vec: sekai.vector.VecEnv, policy: Policy, seed: int, bar: Progress | None = None
) -> NDArray[np.float64]:
    """One episode per sub-env (``autoreset=False``); returns each sub-env's episode return.

    ``bar``, if given, counts the vector steps.
    """
    vec.reset(seed=seed)
    returns = np.zeros(vec.num_envs)
    done = np.zeros(vec.num_envs, dtype=bool)
    step = 0
    while not done.all():
        result = vec.step(policy(step))
        returns += result.rewards  # frozen sub-envs add 0
        done |= result.dones
        step += 1
        if bar is not None:
            bar.update()
    return returns


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """Print ``rows`` under ``header``: first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first, *rest = (
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        )
        return "  ".join([first, *rest])

    print(f"\n{title}")
    print(line(header))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))


def optimal_execution(episodes: int, seed: int, quiet: bool = False) -> None:
    """Almgren-Chriss vs TWAP on OptimalExecution-v0."""
    vec = sekai.make_vec("OptimalExecution-v0", episodes, vector_kwargs={"autoreset": False})
    assert isinstance(vec, OptimalExecutionVecEnv)
    env = vec.template  # the single env holding the shared parameters and the baselines
    n_steps, x0, s0, lam = env.n_steps, env.X0, env.s0, env.risk_aversion
    bps = 1e4 / (x0 * s0)
    ac_actions = env.almgren_chriss_actions()
    ac_holdings = env.almgren_chriss_trajectory()
    twap_actions = (1.0 / (n_steps - np.arange(n_steps))).astype(np.float32)[:, None]
    twap_holdings = x0 * (1.0 - np.arange(n_steps + 1) / n_steps)
    strategies: dict[str, tuple[NDArray[np.float32], NDArray[np.float64]]] = {
        "Almgren-Chriss": (ac_actions, ac_holdings),
        "TWAP": (twap_actions, twap_holdings),
    }
    rows = []
    for name, (actions, holdings) in strategies.items():
        with Progress(
            n_steps, f"OptimalExecution-v0 {name}", enabled=not quiet, leave=False
        ) as bar:
            returns = run_episodes(
                vec, lambda k, a=actions: np.repeat(a[k][None], episodes, axis=0), seed, bar
            )
        shortfall = vec.shortfall * bps  # per sub-env, in bps
        mean_model, var_model = env.expected_shortfall(-np.diff(holdings))
        mean_sim, var_sim = shortfall.mean(), shortfall.var()
        rows.append(
            [
                name,
                f"{mean_sim:.2f}",
                f"{mean_model * bps:.2f}",
                f"{math.sqrt(var_sim):.2f}",
                f"{math.sqrt(var_model) * bps:.2f}",
                f"{mean_sim + lam * var_sim / bps:.2f}",
                f"{(mean_model + lam * var_model) * bps:.2f}",
                f"{returns.mean():.2f}",
            ]
        )
    vec.close()
    print_table(
        f"OptimalExecution-v0: {episodes} episodes, shortfall in bps of {x0 * s0:,.0f} "
        f"(λ = {lam:g})",
        ["strategy", "E[IS]", "model", "std", "model", "E+λVar", "model", "mean return"],
        rows,
    )


def market_making(episodes: int, seed: int, quiet: bool = False) -> None:
    """Avellaneda-Stoikov vs fixed symmetric quotes on MarketMaking-v0."""
    vec = sekai.make_vec("MarketMaking-v0", episodes, vector_kwargs={"autoreset": False})
    assert isinstance(vec, MarketMakingVecEnv)
    vec.reset(seed=seed)
    half_spread = float(vec.avellaneda_stoikov_action()[0].mean())  # flat book at t = 0
    symmetric = np.full((episodes, 2), half_spread, dtype=np.float32)
    strategies: dict[str, Policy] = {
        "Avellaneda-Stoikov": lambda _k: vec.avellaneda_stoikov_action(),
        f"symmetric ±{half_spread:.3f}": lambda _k: symmetric,
    }
    rows = []
    for name, policy in strategies.items():
        with Progress(
            vec.n_steps, f"MarketMaking-v0 {name}", enabled=not quiet, leave=False
        ) as bar:
            returns = run_episodes(vec, policy, seed, bar)
        pnl, inventory = vec.wealth, vec.inventory
        rows.append(
            [
                name,
                f"{pnl.mean():.2f}",
                f"{pnl.std():.2f}",
                f"{returns.mean():.2f}",
                f"{np.abs(inventory).mean():.2f}",
            ]
        )
    vec.close()
    print_table(
        f"MarketMaking-v0: {episodes} episodes of {vec.n_steps} steps",
        ["strategy", "mean P&L", "std P&L", "mean return", "mean |q_T|"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few hundred episodes only")
    parser.add_argument("--episodes", type=int, default=None, help="episodes per strategy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args()
    episodes = args.episodes or (200 if args.quick else 20_000)
    start = time.perf_counter()
    optimal_execution(episodes, args.seed, args.quiet)
    market_making(episodes, args.seed, args.quiet)
    print(f"\n{2 * 2 * episodes} episodes in {time.perf_counter() - start:.1f}s")


if __name__ == "__main__":
    main()
