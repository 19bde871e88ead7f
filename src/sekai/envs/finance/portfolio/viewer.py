"""``PortfolioRenderer``: the Portfolio-v0 dashboard."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from sekai.envs.finance.dashboard import EnvDashboard, base_env
from sekai.envs.finance.portfolio.env import PortfolioEnv
from sekai.rendering.box import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.dashboard import (
    BarChart,
    Column,
    LineChart,
    Panel,
    Row,
    Series,
    StackedArea,
    Stat,
    View,
)
from sekai.rendering.plot import LegendItem, legend, legend_rows

__all__ = ["PortfolioRenderer"]


def _asset_price(index: int) -> Callable[[Any], float]:
    return lambda env: float(base_env(env).price_history[-1, index])


def _cash(env: Any) -> float:
    return float(base_env(env).weights[-1])


# Pixels at scale 1.
_LEGEND_ROW, _LEAST_ROW = 16.0, 12.0
# The left column's least share of the frame's width, and the layout weight of a legend row.
_LEFT_SHARE = 0.65
_ROW_WEIGHT = 0.1


class Legend(Panel):
    """Legend items in rows as wide as the panel, top first, 12 to 16 px apart (at scale 1)
    to fit its height; rows that still do not fit are left out."""

    timeseries = False

    def __init__(self, items: Sequence[LegendItem], *, height: float) -> None:
        super().__init__(None, height=height)
        self.items = tuple(items)

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the rows."""
        rows = legend_rows(self.items, box.width, scale=view.scale)
        row = max(min(view.size(_LEGEND_ROW), box.height / len(rows)), view.size(_LEAST_ROW))
        for i, line in enumerate(rows[: max(int(box.height / row), 1)]):
            middle = box.top - (i + 0.5) * row
            legend(canvas, box.left, middle, line, view.theme, scale=view.scale, align="left")


class PortfolioRenderer(EnvDashboard):
    """``PortfolioEnv``: a legend of the colours, the portfolio and each asset indexed to 100,
    the allocation over time, and the current weights. Configured on first sight of an env
    (asset names from ``data.assets``, else ``Asset 1..n``)."""

    draws = PortfolioEnv
    needs_reset = True

    def _stat_list(self) -> list[Stat]:
        return [
            Stat("Value", "portfolio_value", "{:.4f}", delta="relative"),
            Stat("Cash", _cash, "{:.1%}"),
        ]

    def _stand_ins(self, env: Any, entries: list[tuple[float, Any]]) -> list[Any]:
        """The value and weights of each step's info, the prices up to it."""
        base = base_env(env)
        path, lookback = base.price_history, base.lookback
        return [
            SimpleNamespace(
                elapsed_steps=int(step),
                portfolio_value=info["portfolio_value"],
                weights=info["weights"],
                price_history=path[: lookback + int(step) + 1],
            )
            for step, info in entries
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
        # One legend of the colours, for the lines, the areas and the bars alike.
        theme = self.theme
        items: list[LegendItem] = [
            ("Portfolio", theme.price, "line"),
            *((name, theme.color(i), "square") for i, name in enumerate(assets)),
            ("Cash", theme.neutral, "square"),
        ]
        rows = len(legend_rows(items, _LEFT_SHARE * self.width, scale=self.scale))
        key = Legend(items, height=_ROW_WEIGHT * rows)
        return Row(Column(key, performance, allocation), weights, widths=(2.3, 1))
