"""``PortfolioRenderer``: the Portfolio-v0 dashboard."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sekai.envs.finance.dashboard import EnvDashboard, base_env, market_subtitle
from sekai.envs.finance.portfolio.env import PortfolioEnv
from sekai.rendering.dashboard import BarChart, Column, LineChart, Row, Series, StackedArea, Stat
from sekai.rendering.theme import Theme

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

    def __init__(
        self,
        *,
        width: int = 720,
        height: int = 450,
        theme: str | Theme = "light",
        window: int | None = None,
    ) -> None:
        super().__init__(
            subtitle=market_subtitle,
            stats=[
                Stat("Value", "portfolio_value", "{:.4f}", delta="relative"),
                Stat("Cash", _cash, "{:.1%}"),
            ],
            width=width,
            height=height,
            theme=theme,
            window=window,
        )
        self.assets: tuple[str, ...] | None = None

    def check(self, env: Any) -> None:
        """As ``Dashboard.check``; lays the panels out for the env's assets when they change."""
        super().check(env)
        base = base_env(env)
        if base.data is not None:
            assets = tuple(str(asset) for asset in base.data.assets)
        else:
            assets = tuple(f"Asset {i + 1}" for i in range(base.n_assets))
        if assets != self.assets:
            self.assets = assets
            self.set_layout(self._layout(assets))

    @staticmethod
    def _layout(assets: Sequence[str]) -> Row:
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
