"""``TradingRenderer``: the Trading-v0 dashboard."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from sekai.envs.finance.dashboard import EnvDashboard, base_env
from sekai.envs.finance.trading.env import TradingEnv
from sekai.finance.rendering import PriceChart
from sekai.rendering.dashboard import LineChart, Series, Stat

__all__ = ["TradingRenderer"]

_SNAP = 1e-9


def _chosen_position(env: Any) -> float:
    """The target position of the last action: 0 at step 0, else the drifted position ``p``
    with the last price return ``r`` undone, ``p / (1 + r·(1 - p))`` (snapped to the
    nearest of ``positions``)."""
    base = base_env(env)
    if base.elapsed_steps == 0:
        return 0.0
    p = float(base.position)
    history = base.price_history
    r = float(history[-1] / history[-2] - 1.0)
    w = p / (1.0 + r * (1.0 - p))
    nearest = float(base.positions[np.argmin(np.abs(base.positions - w))])
    return nearest if abs(nearest - w) <= _SNAP * max(1.0, abs(w)) else w


def _position_text(position: float) -> str:
    if abs(position) < _SNAP:
        return "Flat"
    return f"{'Long' if position > 0 else 'Short'} {abs(position):.0%}"


class TradingRenderer(EnvDashboard):
    """``TradingEnv``: the price with the chosen position and the pre-episode context, and
    equity against buy and hold."""

    draws = TradingEnv
    needs_reset = True

    def _panels(self) -> tuple[Any, ...]:
        return (
            PriceChart("price", position=_chosen_position, context="price_history", height=3),
            LineChart(
                Series("equity", label="Strategy", color="accent", fill=True),
                Series("price", label="Buy and hold", color="neutral", rebase=1.0),
                title="Equity",
                baseline=1.0,
                height=2,
            ),
        )

    def _stat_list(self) -> list[Stat]:
        return [
            Stat("Equity", "equity", "{:.4f}", delta="relative"),
            Stat("Position", _chosen_position, _position_text),
            Stat("Price", "price"),
        ]

    def _stand_ins(self, env: Any, entries: list[tuple[float, Any]]) -> list[Any]:
        """The price, position and equity of each step's info, the prices up to it."""
        base = base_env(env)
        path, lookback, positions = base.price_history, base.lookback, base.positions
        return [
            SimpleNamespace(
                elapsed_steps=int(step),
                price=info["price"],
                position=info["position"],
                equity=info["equity"],
                positions=positions,
                price_history=path[: lookback + int(step) + 1],
            )
            for step, info in entries
        ]
