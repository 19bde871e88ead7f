"""``MarketMakingRenderer``: the MarketMaking-v0 dashboard."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from sekai.envs.finance.dashboard import EnvDashboard, base_env, signed
from sekai.envs.finance.market_making.env import MarketMakingEnv
from sekai.finance.rendering import PriceChart
from sekai.rendering.dashboard import LineChart, Series, Stat

__all__ = ["MarketMakingRenderer"]


def _bought(env: Any) -> float | None:
    base = base_env(env)
    return float(base.bid) if base.bid_filled else None


def _sold(env: Any) -> float | None:
    base = base_env(env)
    return float(base.ask) if base.ask_filled else None


def _quoted_spread(env: Any) -> float:
    base = base_env(env)
    return float(base.ask - base.bid)


class MarketMakingRenderer(EnvDashboard):
    """``MarketMakingEnv``: the mid price with the quotes and fills, the inventory, and the
    profit and loss."""

    draws = MarketMakingEnv

    def _panels(self) -> tuple[Any, ...]:
        return (
            PriceChart(
                "mid",
                quotes=("bid", "ask"),
                buys=_bought,
                sells=_sold,
                title="Mid price and quotes",
                height=2,
            ),
            LineChart(Series("inventory", step=True, signed=True), title="Inventory"),
            LineChart(Series("wealth", signed=True), title="Profit and loss", baseline=0.0),
        )

    def _caption(self) -> str:
        return "Simulated: Brownian mid price, Poisson fills"

    def _stat_list(self) -> list[Stat]:
        return [
            Stat("P&L", "wealth", signed(2)),
            Stat("Inventory", "inventory", signed(0)),
            Stat("Quoted spread", _quoted_spread, "{:.2f}"),
            Stat("Time left", "time_remaining", "{:.2f}"),
        ]

    def _stand_ins(self, env: Any, entries: list[tuple[float, Any]]) -> list[Any]:
        """The mid, quotes, fills, inventory and wealth of each step's info."""
        base = base_env(env)
        return [
            SimpleNamespace(
                elapsed_steps=int(step),
                mid=info["mid_price"],
                bid=info["bid"],
                ask=info["ask"],
                bid_filled=info["bid_filled"],
                ask_filled=info["ask_filled"],
                inventory=info["inventory"],
                wealth=info["wealth"],
                time_remaining=(base.n_steps - int(step)) * base.dt,
            )
            for step, info in entries
        ]
