"""``OptimalExecutionRenderer``: the OptimalExecution-v0 dashboard."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance.dashboard import EnvDashboard, base_env
from sekai.envs.finance.optimal_execution.env import OptimalExecutionEnv
from sekai.finance.rendering import Fills, PriceChart
from sekai.rendering.canvas import Canvas
from sekai.rendering.charts import (
    Box,
    LegendItem,
    Plot,
    nice_ticks,
    tick_count,
    tick_labels,
    value_range,
)
from sekai.rendering.dashboard import Panel, Source, Stat, View

__all__ = ["OptimalExecutionRenderer"]

_DASH = (5.0, 3.0)


def _plan(env: Any) -> NDArray[np.float64]:
    plan: NDArray[np.float64] = base_env(env).almgren_chriss_trajectory()
    return plan


def _shortfall_bps(env: Any) -> float:
    base = base_env(env)
    return float(1e4 * base.shortfall / (base.X0 * base.s0))


def _sold_share(env: Any) -> float:
    base = base_env(env)
    return float(1.0 - base.inventory / base.X0)


class _Schedule(Panel):
    """Base of the execution panels: the inventory every step and the Almgren-Chriss
    holdings, read once per episode, at steps ``0..N``."""

    def sources(self) -> dict[str, Source]:
        """``inventory``."""
        return {"inventory": "inventory"}

    def context(self) -> dict[str, Source]:
        """``plan``: the Almgren-Chriss holdings."""
        return {"plan": _plan}

    def _plot(
        self, canvas: Canvas, box: Box, view: View, items: list[LegendItem], *data: Any
    ) -> Plot | None:
        """Title, legend, grid and time axis for a plot of ``data`` from 0 up; None when the
        box is too small."""
        plot_box = self.frame(canvas, box, view, items)
        if plot_box.width < view.size(8) or plot_box.height < view.size(8):
            return None
        low, high = value_range(*data, include=(0.0,))
        ticks = nice_ticks(low, high, tick_count(plot_box.height, view.scale))
        plot = Plot(canvas, plot_box, view.x_domain, (low, high), view.theme, view.scale)
        plot.grid(ticks, tick_labels(ticks))
        self.time_axis(plot, view)
        return plot


class _InventoryPlan(_Schedule):
    """Shares still held against the Almgren-Chriss trajectory over the whole horizon."""

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the chart."""
        theme = view.theme
        inventory = view.values("inventory")
        plan = np.asarray(view.context("plan"), dtype=np.float64)
        items: list[LegendItem] = [
            ("Inventory", theme.accent, "area"),
            ("Almgren\u2013Chriss", theme.neutral, "dash"),
        ]
        plot = self._plot(canvas, box, view, items, inventory, plan)
        if plot is None:
            return
        plot.line(np.arange(plan.size, dtype=np.float64), plan, theme.neutral, dash=_DASH)
        plot.area(view.steps, inventory, theme.accent, base=0.0, alpha=0.12)
        plot.line(view.steps, inventory, theme.accent)
        plot.marker(view.steps[-1], inventory[-1], theme.accent, radius=3.0)


class _Sales(_Schedule):
    """Shares sold in each step (columns) against the Almgren-Chriss schedule."""

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the chart."""
        theme, xs = view.theme, view.steps
        inventory = view.values("inventory")
        plan = np.asarray(view.context("plan"), dtype=np.float64)
        schedule = plan[:-1] - plan[1:]
        sold = inventory[:-1] - inventory[1:]
        items: list[LegendItem] = [
            ("Sold", theme.accent, "square"),
            ("Schedule", theme.neutral, "square"),
        ]
        plot = self._plot(canvas, box, view, items, schedule, sold)
        if plot is None:
            return
        zero = plot.y(0.0)
        with canvas.clip(plot.box.left, plot.box.bottom, plot.box.right, plot.box.top):
            for k, amount in enumerate(schedule.tolist()):
                left, right = plot.x(k + 0.1), plot.x(k + 0.9)
                canvas.rect(left, zero, right, plot.y(amount), theme.neutral, alpha=0.35)
            for start, end, amount in zip(xs[:-1], xs[1:], sold.tolist(), strict=True):
                if math.isfinite(amount) and amount > 0:
                    middle, half = (start + end) / 2, (end - start) * 0.25
                    left, right = plot.x(middle - half), plot.x(middle + half)
                    canvas.rect(left, zero, right, plot.y(amount), theme.accent)


class _ExecutionPrice(PriceChart):
    """The mid price against the arrival price, with each step's sale at its execution price
    ``s0 - Δshortfall/Δshares``, placed at the step where it was made."""

    def __init__(self) -> None:
        super().__init__(
            "mid",
            reference="s0",
            reference_label="Arrival price",
            title="Mid price and sales",
        )

    def sources(self) -> dict[str, Source]:
        """``PriceChart.sources`` plus ``inventory`` and ``shortfall``."""
        return {**super().sources(), "inventory": "inventory", "shortfall": "shortfall"}

    def fills(self, view: View) -> Fills:
        """Sales recovered from the changes of inventory and shortfall."""
        s0 = view.latest("reference")
        inventory, shortfall = view.values("inventory"), view.values("shortfall")
        shares = inventory[:-1] - inventory[1:]
        cost = shortfall[1:] - shortfall[:-1]
        sells = [
            (float(view.steps[i]), float(s0 - cost[i] / shares[i]))
            for i in np.flatnonzero(shares > 0).tolist()
        ]
        return {"buys": [], "sells": sells}


class OptimalExecutionRenderer(EnvDashboard):
    """``OptimalExecutionEnv``: the inventory and the sales per step against the
    Almgren-Chriss schedule, and the mid price with the execution prices."""

    draws = OptimalExecutionEnv

    def _panels(self) -> tuple[Any, ...]:
        return _InventoryPlan("Inventory"), _Sales("Shares sold per step"), _ExecutionPrice()

    def _caption(self) -> str:
        return "Simulated: Almgren\u2013Chriss market impact"

    def _stat_list(self) -> list[Stat]:
        return [
            Stat("Shortfall", _shortfall_bps, "{:.1f} bp", higher_is_better=False),
            Stat("Sold", _sold_share, "{:.1%}"),
            Stat("Mid", "mid"),
        ]

    def _stand_ins(self, env: Any, entries: list[tuple[float, Any]]) -> list[Any]:
        """The inventory, shortfall and mid of each step's info."""
        base = base_env(env)
        return [
            SimpleNamespace(
                elapsed_steps=int(step),
                inventory=info["inventory"],
                shortfall=info["implementation_shortfall"],
                mid=info["mid_price"],
                s0=base.s0,
                X0=base.X0,
                almgren_chriss_trajectory=base.almgren_chriss_trajectory,
            )
            for step, info in entries
        ]
