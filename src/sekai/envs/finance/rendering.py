"""Dashboards for the finance environments: one renderer per environment class."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai.envs.finance.lob_env import LimitOrderBookEnv, LimitOrderBookMarket
from sekai.envs.finance.market_env import MarketEnv
from sekai.envs.finance.market_making import MarketMakingEnv
from sekai.envs.finance.optimal_execution import OptimalExecutionEnv
from sekai.envs.finance.portfolio import PortfolioEnv
from sekai.envs.finance.trading import TradingEnv
from sekai.error import ResetRequired
from sekai.finance.rendering import Fills, OrderBookChart, PriceChart, UniverseChart
from sekai.finance.simulators import (
    GARCH,
    GBM,
    BlockBootstrap,
    CointegratedPair,
    Heston,
    ListingProcess,
    MarketModel,
    MeanReverting,
    MertonJumpDiffusion,
    Randomized,
    RegimeSwitching,
)
from sekai.rendering.canvas import Canvas
from sekai.rendering.charts import (
    Box,
    LegendItem,
    Plot,
    format_number,
    nice_ticks,
    tick_count,
    tick_labels,
    value_range,
)
from sekai.rendering.dashboard import (
    BarChart,
    Column,
    Dashboard,
    LineChart,
    Panel,
    Row,
    Series,
    Source,
    StackedArea,
    Stat,
    View,
)
from sekai.rendering.theme import Theme

__all__ = [
    "TradingRenderer",
    "PortfolioRenderer",
    "MarketRenderer",
    "MarketMakingRenderer",
    "OptimalExecutionRenderer",
    "LimitOrderBookRenderer",
    "LimitOrderBookMarketRenderer",
]

_MODEL_NAMES: tuple[tuple[type[MarketModel], str], ...] = (
    (GBM, "geometric Brownian motion"),
    (Heston, "Heston"),
    (MertonJumpDiffusion, "Merton jump diffusion"),
    (RegimeSwitching, "regime switching"),
    (GARCH, "GARCH(1, 1)"),
    (MeanReverting, "mean reversion"),
    (CointegratedPair, "cointegrated pair"),
    (BlockBootstrap, "block bootstrap"),
    (Randomized, "randomised models"),
)
_SNAP = 1e-9
_DASH = (5.0, 3.0)


# --- shared pieces ---------------------------------------------------------------------------


def _base(env: Any) -> Any:
    return getattr(env, "unwrapped", env)


def _model_name(model: MarketModel | None) -> str:
    """The simulation's name as the subtitles show it (None: the env's own GBM)."""
    if model is None:
        return "geometric Brownian motion"
    if isinstance(model, ListingProcess):
        return f"{_model_name(model.model)}, with listings"
    for kind, name in _MODEL_NAMES:
        if isinstance(model, kind):
            return name
    return type(model).__name__


def _market_subtitle(env: Any) -> str:
    """``Historical data[ · YYYY-MM-DD]`` (the current decision's date), else
    ``Simulated: <model name>``."""
    base = _base(env)
    if base.prices is None:
        return f"Simulated: {_model_name(base.model)}"
    stamp = base.timestamp
    if isinstance(stamp, np.datetime64):
        return f"Historical data \u00b7 {np.datetime_as_string(stamp.astype('datetime64[D]'))}"
    return "Historical data"


def _signed(decimals: int) -> Callable[[Any], str]:
    return lambda value: format_number(value, decimals, sign=True)


def _plural(noun: str) -> Callable[[Any], str]:
    return lambda count: f"{count} {noun}" if count == 1 else f"{count} {noun}s"


class _EnvDashboard(Dashboard):
    """A dashboard that draws one environment class only."""

    draws: ClassVar[type[Any]]
    needs_reset: ClassVar[bool] = False

    def check(self, env: Any) -> None:
        """``TypeError`` for another env class; ``ResetRequired`` before the first reset when
        the panels read episode-only state."""
        base = _base(env)
        if not isinstance(base, self.draws):
            raise TypeError(
                f"{type(self).__name__} draws {self.draws.__name__}, got {type(base).__name__}."
            )
        if self.needs_reset:
            try:
                _ = base.timestamp  # a property that needs an episode
            except ResetRequired:
                raise ResetRequired(
                    f"{type(self).__name__}: call reset() on the env before rendering it."
                ) from None


# --- Trading-v0 ------------------------------------------------------------------------------


def _chosen_position(env: Any) -> float:
    """The target position of the last action: 0 at step 0, else the drifted position ``p``
    with the last price return ``r`` undone, ``p / (1 + r·(1 - p))`` (snapped to the
    nearest of ``positions``)."""
    base = _base(env)
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


class TradingRenderer(_EnvDashboard):
    """``TradingEnv``: the price with the chosen position and the pre-episode context, and
    equity against buy and hold."""

    draws = TradingEnv
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
            PriceChart("price", position=_chosen_position, context="price_history", height=3),
            LineChart(
                Series("equity", label="Strategy", color="accent", fill=True),
                Series("price", label="Buy and hold", color="neutral", rebase=1.0),
                title="Equity",
                baseline=1.0,
                height=2,
            ),
            subtitle=_market_subtitle,
            stats=[
                Stat("Equity", "equity", "{:.4f}", delta="relative"),
                Stat("Position", _chosen_position, _position_text),
                Stat("Price", "price"),
            ],
            width=width,
            height=height,
            theme=theme,
            window=window,
        )


# --- Portfolio-v0 ----------------------------------------------------------------------------


def _asset_price(index: int) -> Callable[[Any], float]:
    return lambda env: float(_base(env).price_history[-1, index])


def _cash(env: Any) -> float:
    return float(_base(env).weights[-1])


class PortfolioRenderer(_EnvDashboard):
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
            subtitle=_market_subtitle,
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
        base = _base(env)
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


# --- Market-v0 -------------------------------------------------------------------------------


def _stressed(env: Any) -> bool:
    regime = _base(env).latent_state.get("regime", 0.0)
    return bool(regime > 0)


def _asset_name(base: MarketEnv, asset: Any) -> str:
    if asset is None:
        return ""
    return f"Asset {asset + 1}" if base.data is None else str(asset)


def _slot_names(env: Any) -> list[str]:
    base = _base(env)
    return [_asset_name(base, asset) for asset in base.slot_assets]


def _tradable(env: Any) -> NDArray[np.bool_]:
    base = _base(env)
    return base.action_mask()[: base.max_assets].astype(bool)


def _gross(env: Any) -> float:
    return float(np.abs(_base(env).weights).sum())


class MarketRenderer(_EnvDashboard):
    """``MarketEnv``: equity (stressed regimes shaded), holdings across the universe over
    time, and the current holdings. Configured on first sight of an env (slot names, and
    regime shading when the simulation has a regime)."""

    draws = MarketEnv
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
            subtitle=_market_subtitle,
            stats=[
                Stat("Equity", "equity", "{:.4f}", delta="relative"),
                Stat("Gross exposure", _gross, "{:.1%}"),
                Stat("Tradable", lambda env: int(_tradable(env).sum()), _plural("asset")),
            ],
            width=width,
            height=height,
            theme=theme,
            window=window,
        )
        self.setup: tuple[Any, ...] | None = None

    def check(self, env: Any) -> None:
        """As ``Dashboard.check``; lays the panels out for the env's slots when they change."""
        super().check(env)
        base = _base(env)
        model = base.model
        regime = model is not None and "regime" in model.state_spec()
        fixed = base.max_assets >= base.n_total
        if fixed:
            labels = tuple(_slot_names(base))
        else:
            labels = tuple(f"Slot {i + 1}" for i in range(base.max_assets))
        setup = (regime, labels)
        if setup != self.setup:
            self.setup = setup
            self.set_layout(self._layout(regime, labels))

    @staticmethod
    def _layout(regime: bool, labels: Sequence[str]) -> Row:
        equity = LineChart(
            Series("equity", label="Equity", color="accent", fill=True),
            title="Equity",
            baseline=1.0,
            shade=_stressed if regime else None,
            shade_label="Stressed regime" if regime else None,
        )
        universe = UniverseChart("weights", available=_tradable, labels=_slot_names)
        holdings = BarChart("weights", labels=labels, available=_tradable, title="Holdings")
        return Row(Column(equity, universe), holdings, widths=(2.3, 1))


# --- MarketMaking-v0 -------------------------------------------------------------------------


def _bought(env: Any) -> float | None:
    base = _base(env)
    return float(base.bid) if base.bid_filled else None


def _sold(env: Any) -> float | None:
    base = _base(env)
    return float(base.ask) if base.ask_filled else None


def _quoted_spread(env: Any) -> float:
    base = _base(env)
    return float(base.ask - base.bid)


class MarketMakingRenderer(_EnvDashboard):
    """``MarketMakingEnv``: the mid price with the quotes and fills, the inventory, and the
    profit and loss."""

    draws = MarketMakingEnv

    def __init__(
        self,
        *,
        width: int = 720,
        height: int = 450,
        theme: str | Theme = "light",
        window: int | None = None,
    ) -> None:
        super().__init__(
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
            subtitle="Simulated: Brownian mid price, Poisson fills",
            stats=[
                Stat("P&L", "wealth", _signed(2)),
                Stat("Inventory", "inventory", _signed(0)),
                Stat("Quoted spread", _quoted_spread, "{:.2f}"),
                Stat("Time left", "time_remaining", "{:.2f}"),
            ],
            width=width,
            height=height,
            theme=theme,
            window=window,
        )


# --- OptimalExecution-v0 ---------------------------------------------------------------------


def _plan(env: Any) -> NDArray[np.float64]:
    plan: NDArray[np.float64] = _base(env).almgren_chriss_trajectory()
    return plan


def _shortfall_bps(env: Any) -> float:
    base = _base(env)
    return float(1e4 * base.shortfall / (base.X0 * base.s0))


def _sold_share(env: Any) -> float:
    base = _base(env)
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


class OptimalExecutionRenderer(_EnvDashboard):
    """``OptimalExecutionEnv``: the inventory and the sales per step against the
    Almgren-Chriss schedule, and the mid price with the execution prices."""

    draws = OptimalExecutionEnv

    def __init__(
        self,
        *,
        width: int = 720,
        height: int = 450,
        theme: str | Theme = "light",
        window: int | None = None,
    ) -> None:
        super().__init__(
            _InventoryPlan("Inventory"),
            _Sales("Shares sold per step"),
            _ExecutionPrice(),
            subtitle="Simulated: Almgren\u2013Chriss market impact",
            stats=[
                Stat("Shortfall", _shortfall_bps, "{:.1f} bp", higher_is_better=False),
                Stat("Sold", _sold_share, "{:.1%}"),
                Stat("Mid", "mid"),
            ],
            width=width,
            height=height,
            theme=theme,
            window=window,
        )


# --- LimitOrderBook-v0 and LimitOrderBookMarket ---------------------------------------------


def _mid(env: Any) -> float:
    return float(_base(env).core.mid())


def _best_bid(env: Any) -> int | None:
    value: int | None = _base(env).book.best_bid()
    return value


def _best_ask(env: Any) -> int | None:
    value: int | None = _base(env).book.best_ask()
    return value


def _spread(env: Any) -> int | None:
    value: int | None = _base(env).book.spread()
    return value


def _session_left(env: Any) -> float:
    core = _base(env).core
    return float(max(core.session_length - core.elapsed, 0.0))


def _wealth(env: Any) -> float:
    base = _base(env)
    return float(base.trader.wealth(base.core.mid()))


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


class LimitOrderBookRenderer(_EnvDashboard):
    """``LimitOrderBookEnv``: the mid price with the spread and the agent's fills, its
    inventory and wealth, and the order book with its orders highlighted."""

    draws = LimitOrderBookEnv

    def __init__(
        self,
        *,
        levels: int = 8,
        width: int = 720,
        height: int = 450,
        theme: str | Theme = "light",
        window: int | None = None,
    ) -> None:
        inventory = LineChart(
            Series("trader.inventory", step=True, signed=True), title="Inventory", baseline=0.0
        )
        wealth = LineChart(Series(_wealth, signed=True), title="Wealth (ticks)", baseline=0.0)
        book = OrderBookChart(
            "book", owners={LimitOrderBookEnv.AGENT: ("You", "highlight")}, levels=levels
        )
        super().__init__(
            Row(Column(_TraderPrice(), inventory, wealth), book, widths=(2.2, 1)),
            subtitle="Simulated: zero-intelligence order flow",
            stats=[
                Stat("Wealth", _wealth, "{:,.1f}"),
                Stat("Inventory", "trader.inventory", _signed(0)),
                Stat("Spread", _spread, _plural("tick")),
                Stat("Session left", _session_left, "{:,.1f}"),
            ],
            width=width,
            height=height,
            theme=theme,
            window=window,
        )


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


class LimitOrderBookMarketRenderer(_EnvDashboard):
    """``LimitOrderBookMarket``: each trader's inventory and wealth (one palette slot per
    trader) over session time, and the order book with every trader's orders highlighted.
    Configured on first sight of a market (its traders)."""

    draws = LimitOrderBookMarket

    def __init__(
        self,
        *,
        levels: int = 8,
        width: int = 720,
        height: int = 450,
        theme: str | Theme = "light",
        window: int | None = None,
    ) -> None:
        super().__init__(
            subtitle="Simulated: zero-intelligence order flow",
            stats=[
                Stat("Traders", lambda env: len(env.possible_agents), "{:d}"),
                Stat("Spread", _spread, _plural("tick")),
                Stat("Session left", _session_left, "{:,.1f}"),
            ],
            width=width,
            height=height,
            theme=theme,
            step=lambda env: env.core.elapsed,
            horizon=lambda env: env.core.session_length,
            window=window,
        )
        self.book = OrderBookChart("book", owners=_market_owners, levels=levels)
        self.agents: tuple[str, ...] | None = None

    def check(self, env: Any) -> None:
        """As ``Dashboard.check``; lays the panels out for the market's traders when they
        change."""
        super().check(env)
        agents = tuple(env.possible_agents)
        if agents != self.agents:
            self.agents = agents
            self.set_layout(self._layout(agents))

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
