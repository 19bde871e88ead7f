"""Three scripted traders in ``LimitOrderBookMarket``, driven through PettingZoo's parallel API.

``sekai.compat.to_pettingzoo`` turns the market into a ``pettingzoo.ParallelEnv``; the loop
below uses only that API (``reset``, ``step``, ``agents``, ``action_space``). The traders:

* ``trader_0``, a market maker: quotes at the best prices on both sides and stops quoting the
  side that would grow its inventory past half the limit;
* ``trader_1``, a momentum taker: sends a market order in the direction of most recent trades;
* ``trader_2``, a random trader: samples its action space under the market's action mask.

Each step the loop asks the agents due to act, the ones ``reset``/``step`` observed: with one
``decision_intervals`` value and ``jitter=0`` every trader decides at every step; last, the
script runs the traders on staggered clocks (intervals 1, 1 and 2.5), where the market is
event-driven and the slow trader is asked less often. Run
``python examples/pettingzoo_market.py`` (``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.compat import to_pettingzoo
from sekai.envs.finance.order_book import BUY, HOLD, SELL, LimitOrderBookMarket

Policy = Callable[[Any, str, dict[str, Any]], NDArray[np.int64]]


def market_maker(env: Any, agent: str, obs: dict[str, Any]) -> NDArray[np.int64]:
    """Quote at level 1 on both sides; drop the side that pushes ``|inventory|`` past half."""
    inventory = float(obs["agent"][0])  # inventory / max_inventory
    bid = 0 if inventory > 0.5 else 1
    ask = 0 if inventory < -0.5 else 1
    return np.array([bid, ask, HOLD], dtype=np.int64)


def momentum_taker(env: Any, agent: str, obs: dict[str, Any]) -> NDArray[np.int64]:
    """No quotes; buy at market after mostly buyer-initiated trades, sell after sellers'."""
    trades = obs["trades"]
    signs = trades["values"][trades["mask"].astype(bool), 2]
    flow = float(signs[-8:].sum())
    market = BUY if flow > 2 else SELL if flow < -2 else HOLD
    return np.array([0, 0, market], dtype=np.int64)


def random_trader(env: Any, agent: str, obs: dict[str, Any]) -> NDArray[np.int64]:
    """A masked sample of the action space (quotes and orders within the inventory limit)."""
    mask = env.sekai_env.action_mask(agent)
    return np.asarray(env.action_space(agent).sample(mask=mask), dtype=np.int64)


POLICIES: dict[str, tuple[str, Policy]] = {
    "trader_0": ("market maker", market_maker),
    "trader_1": ("momentum taker", momentum_taker),
    "trader_2": ("random", random_trader),
}


def run_episode(env: Any, seed: int) -> dict[str, dict[str, float]]:
    """One episode through the ParallelEnv API; per agent: return, fills, decisions and the
    final account."""
    observations, infos = env.reset(seed=seed)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed * len(env.possible_agents) + i)
    totals = {
        agent: {"return": 0.0, "fills": 0.0, "decisions": 0.0} for agent in env.possible_agents
    }
    steps = 0
    while env.agents:
        # The observed agents are the ones due to act; only they send actions.
        actions = {
            agent: POLICIES[agent][1](env, agent, obs) for agent, obs in observations.items()
        }
        for agent in actions:
            totals[agent]["decisions"] += 1
        observations, rewards, _, _, infos = env.step(actions)
        steps += 1
        for agent, reward in rewards.items():
            totals[agent]["return"] += reward
            totals[agent]["fills"] += infos[agent]["fills"]
    for agent, total in totals.items():
        info = infos[agent]
        total.update(
            inventory=info["inventory"], cash=info["cash"], wealth=info["wealth"], steps=steps
        )
    return totals


def show_staggered(session_length: float, seed: int) -> None:
    """Run the traders on staggered clocks and print how often each was asked to act."""
    intervals = [1.0, 1.0, 2.5]
    market = LimitOrderBookMarket(3, decision_intervals=intervals, session_length=session_length)
    env = to_pettingzoo(market)
    totals = run_episode(env, seed)
    print(f"\nStaggered turns, decision_intervals {intervals}: only the traders due act")
    for agent, total in totals.items():
        print(f"  {agent} decided {total['decisions']:.0f} times, return {total['return']:.2f}")
    env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one short episode")
    parser.add_argument("--episodes", type=int, default=None, help="episodes to run")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    episodes = args.episodes if args.episodes is not None else 1 if args.quick else 5
    session_length = 30.0 if args.quick else 300.0
    env = to_pettingzoo(LimitOrderBookMarket(3, session_length=session_length))
    print(f"{env.metadata['name']} as a PettingZoo ParallelEnv: agents {env.possible_agents}")
    print(f"{episodes} episode(s) of {session_length:g} time units, one decision per unit\n")
    header = f"{'episode':>7}  {'agent':<9} {'strategy':<15} {'return':>9} {'fills':>6}"
    print(f"{header} {'inventory':>9} {'cash':>10} {'wealth':>9}")
    for episode in range(episodes):
        totals = run_episode(env, args.seed + episode)
        for agent, total in totals.items():
            print(
                f"{episode:>7}  {agent:<9} {POLICIES[agent][0]:<15} {total['return']:>9.2f} "
                f"{total['fills']:>6.0f} {total['inventory']:>9.0f} {total['cash']:>10.0f} "
                f"{total['wealth']:>9.2f}"
            )
    env.close()
    show_staggered(session_length, args.seed)


if __name__ == "__main__":
    main()
