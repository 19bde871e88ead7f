"""The LimitOrderBook-v0 and ``LimitOrderBookMarket`` dashboards."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from sekai.envs.finance.dashboard import EnvDashboard, base_env, plural, signed
from sekai.envs.finance.order_book.core import _Trader
from sekai.envs.finance.order_book.env import LimitOrderBookEnv, LimitOrderBookMarket
from sekai.finance.rendering import Fills, OrderBookChart, PriceChart
from sekai.rendering.dashboard import Column, LineChart, Row, Series, Source, Stat, View
from sekai.rendering.theme import Theme
from sekai.utils.validation import check_int

__all__ = ["LimitOrderBookMarketRenderer", "LimitOrderBookRenderer"]


def _mid(env: Any) -> float:
    return float(base_env(env).core.mid())


def _best_bid(env: Any) -> int | None:
    value: int | None = base_env(env).book.best_bid()
    return value


def _best_ask(env: Any) -> int | None:
    value: int | None = base_env(env).book.best_ask()
    return value


def _spread(env: Any) -> int | None:
    value: int | None = base_env(env).book.spread()
    return value


def _session_left(env: Any) -> float:
    core = base_env(env).core
    return float(max(core.session_length - core.elapsed, 0.0))


def _wealth(env: Any) -> float:
    base = base_env(env)
    return float(base.trader.wealth(base.core.mid()))


def _past_core(core: Any, mid: float, elapsed: float) -> SimpleNamespace:
    """The core as a dashboard reads it at session time ``elapsed``, with ``mid``."""
    return SimpleNamespace(mid=lambda: mid, elapsed=elapsed, session_length=core.session_length)


def _past_book(mid: float, spread: int | None) -> SimpleNamespace:
    """The book's best prices and spread as an info gives them: with a spread, both sides
    lie half of it from the mid; without one, no best prices are known."""
    bid = None if spread is None else round(mid - spread / 2)
    ask = None if bid is None or spread is None else bid + spread
    return SimpleNamespace(best_bid=lambda: bid, best_ask=lambda: ask, spread=lambda: spread)


class _TraderPrice(PriceChart):
    """The mid price and the market spread, with the agent's fills inferred from its
    inventory and cash at price ``|Δcash/Δinventory|``."""

    def __init__(self) -> None:
        super().__init__(_mid, spread=(_best_bid, _best_ask), title="Mid price and fills")

    def sources(self) -> dict[str, Source]:
        """``PriceChart.sources`` plus ``inventory`` and ``cash``."""
        return {**super().sources(), "inventory": "trader.inventory", "cash": "trader.cash"}

    def fills(self, view: View) -> Fills:
        """Net buys and sells of each step, at the sample that ends it."""
        inventory, cash = view.values("inventory"), view.values("cash")
        traded, paid = np.diff(inventory), np.diff(cash)
        out: Fills = {"buys": [], "sells": []}
        for i in np.flatnonzero(np.isfinite(traded) & (traded != 0)).tolist():
            kind = "buys" if traded[i] > 0 else "sells"
            out[kind].append((float(view.steps[i + 1]), float(abs(paid[i] / traded[i]))))
        return out


class _BookDashboard(EnvDashboard):
    """A dashboard whose order-book panel shows ``levels`` price levels a side."""

    def __init__(
        self,
        *,
        levels: int = 8,
        width: int = 720,
        height: int = 450,
        theme: str | Theme = "light",
        window: int | None = None,
    ) -> None:
        self._levels = check_int(levels, f"{type(self).__name__} levels", low=1)
        super().__init__(width=width, height=height, theme=theme, window=window)


class LimitOrderBookRenderer(_BookDashboard):
    """``LimitOrderBookEnv``: the mid price with the spread and the agent's fills, its
    inventory and wealth, and the order book with its orders highlighted."""

    draws = LimitOrderBookEnv

    def _panels(self) -> tuple[Any, ...]:
        inventory = LineChart(
            Series("trader.inventory", step=True, signed=True), title="Inventory", baseline=0.0
        )
        wealth = LineChart(Series(_wealth, signed=True), title="Wealth (ticks)", baseline=0.0)
        book = OrderBookChart(
            "book", owners={LimitOrderBookEnv.AGENT: ("You", "highlight")}, levels=self._levels
        )
        return (Row(Column(_TraderPrice(), inventory, wealth), book, widths=(2.2, 1)),)

    def _caption(self) -> str:
        return "Simulated: zero-intelligence order flow"

    def _stat_list(self) -> list[Stat]:
        return [
            Stat("Wealth", _wealth, "{:,.1f}"),
            Stat("Inventory", "trader.inventory", signed(0)),
            Stat("Spread", _spread, plural("tick")),
            Stat("Session left", _session_left, "{:,.1f}"),
        ]

    def _stand_ins(self, env: Any, entries: list[tuple[float, Any]]) -> list[Any]:
        """The mid, spread and the agent's account of each step's info, at that step's time."""
        base = base_env(env)
        owner = base.trader.owner
        stand_ins = []
        for step, info in entries:
            k = int(step)
            elapsed = base._schedule.times(k)[1] if k else 0.0
            mid = info["mid_price"]
            stand_ins.append(
                SimpleNamespace(
                    elapsed_steps=k,
                    core=_past_core(base.core, mid, elapsed),
                    book=_past_book(mid, info["spread"]),
                    trader=_Trader(owner, inventory=info["inventory"], cash=info["cash"]),
                )
            )
        return stand_ins


def _trader_value(agent: str, field: str) -> Callable[[Any], float]:
    def value(env: Any) -> float:
        trader = env.traders[agent]
        if field == "wealth":
            return float(trader.wealth(env.core.mid()))
        return float(trader.inventory)

    return value


def _market_owners(env: Any) -> dict[int, tuple[str, int]]:
    """Every trader's owner id, with its name and palette slot."""
    return {env.traders[a].owner: (a, i) for i, a in enumerate(env.possible_agents)}


class LimitOrderBookMarketRenderer(_BookDashboard):
    """``LimitOrderBookMarket``: each trader's inventory and wealth (one palette slot per
    trader) over session time, and the order book with every trader's orders highlighted.
    Configured on first sight of a market (its traders)."""

    draws = LimitOrderBookMarket

    @functools.cached_property
    def book(self) -> OrderBookChart:
        """The order book, every trader's orders highlighted (one chart for every layout)."""
        return OrderBookChart("book", owners=_market_owners, levels=self._levels)

    def _caption(self) -> str:
        return "Simulated: zero-intelligence order flow"

    def _stat_list(self) -> list[Stat]:
        return [
            Stat("Traders", lambda env: len(env.possible_agents), "{:d}"),
            Stat("Spread", _spread, plural("tick")),
            Stat("Session left", _session_left, "{:,.1f}"),
        ]

    def _axis(self) -> dict[str, Any]:
        return {
            "step": lambda env: env.core.elapsed,
            "horizon": lambda env: env.core.session_length,
        }

    def _setup(self, env: Any) -> tuple[str, ...]:
        """The market's traders."""
        return tuple(env.possible_agents)

    def _layout(self, agents: Sequence[str]) -> Row:
        inventory = LineChart(
            *(
                Series(_trader_value(a, "inventory"), label=a, color=i, step=True)
                for i, a in enumerate(agents)
            ),
            title="Inventory",
            baseline=0.0,
        )
        wealth = LineChart(
            *(Series(_trader_value(a, "wealth"), label=a, color=i) for i, a in enumerate(agents)),
            title="Wealth (ticks)",
            baseline=0.0,
        )
        return Row(Column(inventory, wealth), self.book, widths=(2.2, 1))

    def _stand_ins(self, env: Any, entries: list[tuple[float, Any]]) -> list[Any]:
        """The mid, spread and every trader's account of each step's infos, at that time."""
        stand_ins = []
        for clock, infos in entries:
            mid = next(iter(infos.values()))["mid_price"]
            spread = next(iter(infos.values()))["spread"]
            traders = {
                agent: _Trader(
                    env.traders[agent].owner, inventory=info["inventory"], cash=info["cash"]
                )
                for agent, info in infos.items()
            }
            stand_ins.append(
                SimpleNamespace(
                    core=_past_core(env.core, mid, clock),
                    book=_past_book(mid, spread),
                    traders=traders,
                    possible_agents=env.possible_agents,
                )
            )
        return stand_ins
