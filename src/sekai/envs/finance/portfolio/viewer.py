"""``PortfolioRenderer``: the Portfolio-v0 dashboard."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sekai.envs.finance.dashboard import EnvDashboard, base_env
from sekai.envs.finance.portfolio.env import PortfolioEnv
from sekai.rendering.dashboard import BarChart, Column, LineChart, Row, Series, StackedArea, Stat

__all__ = ["PortfolioRenderer"]


def _asset_price(index: int) -> Callable[[Any], float]:
    return lambda env: float(base_env(env).price_history[-1, index])


def _cash(env: Any) -> float:
    return float(base_env(env).weights[-1])


class PortfolioRenderer(EnvDashboard):
    """``PortfolioEnv``: the portfolio and each asset indexed to 100, the allocation over
    time, and the current weights. Configured on first sight of an env (asset names from
    ``data.assets``, else ``Asset 1..n``)."""

    draws = PortfolioEnv
    needs_reset = True

    def _stat_list(self) -> list[Stat]:
        return [
            Stat("Value", "portfolio_value", "{:.4f}", delta="relative"),
            Stat("Cash", _cash, "{:.1%}"),
        ]

    def _setup(self, env: Any) -> tuple[str, ...]:
        """The asset names: ``data.assets``, else ``Asset 1..n``."""
        base = base_env(env)
        if base.data is not None:
            return tuple(str(asset) for asset in base.data.assets)
        return tuple(f"Asset {i + 1}" for i in range(base.n_assets))

    def _layout(self, assets: Sequence[str]) -> Row:
        labels = [*assets, "Cash"]
        colors: list[Any] = [*range(len(assets)), "neutral"]
        performance = LineChart(
            Series("portfolio_value", label="Portfolio", color="price", width=2.5, rebase=100.0),
            *(
                Series(_asset_price(i), label=name, color=i, width=1.25, rebase=100.0)
                for i, name in enumerate(assets)
            ),
            title="Performance, indexed to 100",
            baseline=100.0,
        )
        allocation = StackedArea(
            "weights", labels=labels, colors=colors, title="Allocation over time"
        )
        weights = BarChart("weights", labels=labels, colors=colors, limit=1.0, title="Weights")
        return Row(Column(performance, allocation), weights, widths=(2.3, 1))
