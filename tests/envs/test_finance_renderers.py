"""Tests for the finance environments' dashboards (the ``viewer`` of each env package)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from PIL import Image

import sekai
import sekai.envs.finance as fin
from sekai.envs.finance.dashboard import model_name as _model_name
from sekai.envs.finance.trading.viewer import _chosen_position
from sekai.error import ResetRequired
from sekai.finance import (
    GARCH,
    GBM,
    BlockBootstrap,
    CointegratedPair,
    Heston,
    ListingProcess,
    MarketData,
    MeanReverting,
    MertonJumpDiffusion,
    Randomized,
    RegimeSwitching,
)
from sekai.finance.rendering import OrderBookChart, PriceChart, UniverseChart
from sekai.rendering import RecordFrames
from sekai.rendering.dashboard import (
    BarChart,
    Column,
    Dashboard,
    LineChart,
    Row,
    StackedArea,
    read,
)
from sekai.rendering.theme import DARK, LIGHT

Factory = Callable[[], Any]


def trading() -> fin.TradingEnv:
    return fin.TradingEnv(episode_length=12, lookback=5)


def portfolio() -> fin.PortfolioEnv:
    return fin.PortfolioEnv(episode_length=12, lookback=5, n_assets=3)


def market() -> fin.MarketEnv:
    return fin.MarketEnv(episode_length=12, lookback=5, model=fin.default_market(4))


def market_making() -> fin.MarketMakingEnv:
    return fin.MarketMakingEnv(n_steps=12)


def execution() -> fin.OptimalExecutionEnv:
    return fin.OptimalExecutionEnv(n_steps=8)


def order_book() -> fin.LimitOrderBookEnv:
    return fin.LimitOrderBookEnv(session_length=12.0, warmup=5.0)


CASES: dict[str, tuple[type[Dashboard], Factory]] = {
    "trading": (fin.TradingRenderer, trading),
    "portfolio": (fin.PortfolioRenderer, portfolio),
    "market": (fin.MarketRenderer, market),
    "market_making": (fin.MarketMakingRenderer, market_making),
    "execution": (fin.OptimalExecutionRenderer, execution),
    "order_book": (fin.LimitOrderBookRenderer, order_book),
}


def sample(env: Any, rng: np.random.Generator) -> Any:
    """A random action drawn from ``rng`` (the spaces' own generators are not seeded)."""
    if isinstance(env, fin.TradingEnv):
        return int(rng.integers(len(env.positions)))
    if isinstance(env, fin.OptimalExecutionEnv):
        return np.array([0.3], dtype=np.float32)
    if isinstance(env, fin.LimitOrderBookEnv):
        return np.array([1, 1, int(rng.integers(3))])
    space = env.action_space
    return rng.uniform(space.low, space.high).astype(np.float32)


def play(renderer: Dashboard, env: Any, steps: int, seed: int = 0) -> list[NDArray[np.uint8]]:
    """Reset, then step with random actions, rendering after each call."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    frames = [renderer.render(env)]
    for _ in range(steps):
        result = env.step(sample(env, rng))
        frames.append(renderer.render(env))
        if result.terminated or result.truncated:
            break
    return frames


def stats(renderer: Dashboard, env: Any) -> dict[str, str]:
    return {stat.label: stat.text(read(env, stat.source)) for stat in renderer.stats}


def signed(count: int) -> str:
    """How the header writes a signed count."""
    return "0" if count == 0 else ("+" if count > 0 else "\u2212") + str(abs(count))


def lob_market(n_agents: int = 3) -> fin.LimitOrderBookMarket:
    return fin.LimitOrderBookMarket(
        n_agents, session_length=8.0, warmup=5.0, decision_intervals=[1.0, 1.5, 2.0][:n_agents]
    )


def play_market(renderer: Dashboard, env: fin.LimitOrderBookMarket) -> list[NDArray[np.uint8]]:
    env.reset(seed=3)
    frames = [renderer.render(env)]
    while env.agents:
        env.step({a: np.array([1, 1 + i % 2, 1]) for i, a in enumerate(env.acting)})
        frames.append(renderer.render(env))
    return frames


# -- every renderer ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_frames_have_the_shape_and_background(case: str, theme: str) -> None:
    kind, factory = CASES[case]
    frames = play(kind(theme=theme), factory(), 3)
    background = (LIGHT if theme == "light" else DARK).background
    for frame in frames:
        assert frame.shape == (450, 720, 3) and frame.dtype == np.uint8
        assert tuple(frame[0, 0]) == tuple(frame[-1, -1]) == background


@pytest.mark.parametrize("case", CASES)
def test_custom_sizes_and_window(case: str) -> None:
    kind, factory = CASES[case]
    renderer = kind(width=320, height=200, window=4)
    env = factory()
    frames = play(renderer, env, 6)
    assert all(frame.shape == (200, 320, 3) for frame in frames)
    history = renderer._history(env)
    assert history is not None and len(history.steps) == 5
    with pytest.raises(ValueError):
        kind(width=100)
    with pytest.raises(ValueError):
        kind(window=0)


@pytest.mark.parametrize("case", CASES)
def test_another_env_class_is_refused(case: str) -> None:
    kind, _ = CASES[case]
    other = fin.MarketMakingEnv() if kind is not fin.MarketMakingRenderer else trading()
    other.reset(seed=0)
    with pytest.raises(TypeError, match=kind.__name__):
        kind().render(other)
    with pytest.raises(TypeError, match=kind.__name__):
        kind().render(sekai.make("CartPole-v1"))


@pytest.mark.parametrize("case", ["trading", "portfolio", "market"])
def test_windowed_envs_need_a_reset(case: str) -> None:
    kind, factory = CASES[case]
    env = factory()
    renderer = kind()
    with pytest.raises(ResetRequired, match=kind.__name__):
        renderer.render(env)
    assert renderer._history(env) is None
    env.reset(seed=0)
    assert renderer.render(env).shape == (450, 720, 3)


@pytest.mark.parametrize("case", ["market_making", "execution", "order_book"])
def test_other_envs_draw_their_initial_state(case: str) -> None:
    kind, factory = CASES[case]
    env = factory()
    before = kind().render(env)
    assert before.shape == (450, 720, 3)
    env.reset(seed=0)
    assert kind().render(env).shape == (450, 720, 3)


def test_the_market_renderer_draws_before_a_reset() -> None:
    assert fin.LimitOrderBookMarketRenderer().render(lob_market()).shape == (450, 720, 3)


@pytest.mark.parametrize("case", CASES)
def test_frames_are_deterministic(case: str) -> None:
    kind, factory = CASES[case]
    one = play(kind(), factory(), 5, seed=4)
    two = play(kind(), factory(), 5, seed=4)
    assert len(one) == len(two)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    assert not np.array_equal(one[0], one[-1])


@pytest.mark.parametrize("case", CASES)
def test_record_a_whole_episode_as_a_gif(case: str, tmp_path: Path) -> None:
    kind, factory = CASES[case]
    env = RecordFrames(factory(), kind(width=240, height=160))
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    while True:
        result = env.step(sample(env.unwrapped, rng))
        if result.terminated or result.truncated:
            break
    assert len(env.frames) == env.unwrapped.elapsed_steps + 1
    path = env.save(tmp_path / "episode.gif")
    with Image.open(path) as gif:
        assert gif.size == (240, 160) and gif.n_frames == len(env.frames)


# -- panels, stats and subtitles per renderer -------------------------------------------------


def test_trading_renderer() -> None:
    renderer = fin.TradingRenderer()
    env = trading()
    play(renderer, env, 0)
    price, equity = renderer.panels
    assert type(price) is PriceChart and type(equity) is LineChart
    assert price.position is _chosen_position and price.context_source == "price_history"
    assert (price.sources()["price"], price.height, equity.height) == ("price", 3.0, 2.0)
    strategy, hold = equity.series
    assert (strategy.source, strategy.label, strategy.color, strategy.fill) == (
        "equity", "Strategy", "accent", True,
    )  # fmt: skip
    assert (hold.source, hold.label, hold.color, hold.rebase) == (
        "price", "Buy and hold", "neutral", 1.0,
    )  # fmt: skip
    assert (equity.title, equity.baseline) == ("Equity", 1.0)
    assert stats(renderer, env) == {
        "Equity": "1.0000", "Position": "Flat", "Price": f"{env.price:,.2f}",
    }  # fmt: skip
    env.step(2)
    assert stats(renderer, env)["Position"] == "Long 100%"
    env.step(0)
    assert stats(renderer, env)["Position"] == "Short 100%"
    half = fin.TradingEnv(episode_length=5, lookback=2, positions=(-0.5, 0.0, 1.5))
    half.reset(seed=0)
    half.step(0)
    assert stats(renderer, half)["Position"] == "Short 50%"
    half.step(2)
    assert stats(renderer, half)["Position"] == "Long 150%"
    assert stats(renderer, half)["Equity"] == f"{half.equity:.4f}"


def test_chosen_position_is_the_last_target() -> None:
    env = fin.TradingEnv(episode_length=40, lookback=3, positions=(-1.0, -0.3, 0.0, 0.6, 1.0))
    env.reset(seed=5)
    assert _chosen_position(env) == 0.0
    rng = np.random.default_rng(0)
    for _ in range(40):
        action = int(rng.integers(5))
        env.step(action)
        assert _chosen_position(env) == env.positions[action]
    wrapped = sekai.make("Trading-v0")
    wrapped.reset(seed=0)
    wrapped.step(2)
    assert _chosen_position(wrapped) == 1.0


def test_portfolio_renderer() -> None:
    renderer = fin.PortfolioRenderer()
    assert renderer.panels == []  # configured on first sight of an env
    env = portfolio()
    play(renderer, env, 2)
    key, performance, allocation, weights = renderer.panels
    assert [label for label, _, _ in key.items] == [  # type: ignore[attr-defined]
        "Portfolio", "Asset 1", "Asset 2", "Asset 3", "Cash",
    ]  # fmt: skip
    assert type(performance) is LineChart and type(allocation) is StackedArea
    assert type(weights) is BarChart
    assert performance.title == "Performance, indexed to 100"
    assert [s.label for s in performance.series] == ["Portfolio", "Asset 1", "Asset 2", "Asset 3"]
    assert all(s.rebase == 100.0 for s in performance.series)
    assert allocation.title == "Allocation over time"
    assert (weights.title, weights.limit) == ("Weights", 1.0)
    labels = ("Asset 1", "Asset 2", "Asset 3", "Cash")
    assert allocation.labels == weights.labels == labels
    assert weights.colors is not None and weights.colors[-1] == "neutral"
    (row,) = renderer.root.children
    assert isinstance(row, Row) and row.widths == (2.3, 1.0)
    assert isinstance(row.children[0], Column) and len(row.children[0].children) == 3
    env.reset(seed=0)
    assert stats(renderer, env) == {"Value": "1.0000", "Cash": "100.0%"}
    env.step(np.array([1, 1, 0, 0], dtype=np.float32))
    assert stats(renderer, env)["Cash"] == "0.0%"
    data = MarketData(
        100 + np.arange(60.0).reshape(20, 3), assets=["AAA", "BBB", "CCC"],
        timestamps=np.arange("2021-03-01", "2021-03-21", dtype="datetime64[D]"),
    )  # fmt: skip
    dated = fin.PortfolioEnv(data=data, episode_length=5, lookback=3)
    dated.reset(options={"start": 4})
    renderer.render(dated)
    assert renderer.panels[3].labels == ("AAA", "BBB", "CCC", "Cash")  # type: ignore[attr-defined]
    assert [label for label, _, _ in renderer.panels[0].items] == [  # type: ignore[attr-defined]
        "Portfolio", "AAA", "BBB", "CCC", "Cash",
    ]  # fmt: skip
    assert renderer._subtitle(dated) == "Historical data \u00b7 2021-03-05"
    dated.step(np.array([1, 0, 0, 0], dtype=np.float32))
    assert renderer._subtitle(dated) == "Historical data \u00b7 2021-03-06"


@pytest.mark.parametrize(("n_assets", "theme"), [(3, LIGHT), (12, DARK)])
def test_portfolio_legend_names_the_colour_of_every_asset(n_assets: int, theme: Any) -> None:
    renderer = fin.PortfolioRenderer(theme=theme)
    env = fin.PortfolioEnv(episode_length=12, lookback=5, n_assets=n_assets)
    frame = play(renderer, env, 4)[-1]
    key = renderer.panels[0]
    names = [f"Asset {i + 1}" for i in range(n_assets)]
    assert key.items == (  # type: ignore[attr-defined]
        ("Portfolio", theme.price, "line"),
        *((name, theme.color(i), "square") for i, name in enumerate(names)),
        ("Cash", theme.neutral, "square"),
    )
    # The colours are those the performance lines, the allocation areas and the bars use.
    _, performance, allocation, weights = renderer.panels
    assert [s.color for s in performance.series[1:]] == list(range(n_assets))  # type: ignore[attr-defined]
    assert allocation.colors == weights.colors == (*range(n_assets), "neutral")  # type: ignore[attr-defined]
    # The legend is drawn above the performance chart: every swatch colour and some text.
    box = renderer._boxes[0]
    strip = frame[renderer.height - int(box.top) : renderer.height - int(box.bottom)]
    strip = strip[:, int(box.left) : int(box.right)]
    for color in {theme.color(i) for i in range(n_assets)} | {theme.neutral, theme.price}:
        assert np.all(strip == color, axis=-1).any(), color
    near = np.abs(strip.astype(int) - theme.text_secondary).max(axis=-1) < 48
    assert near.sum() > 40 * (n_assets + 2)  # the labels' ink


def test_market_renderer() -> None:
    renderer = fin.MarketRenderer()
    env = market()
    play(renderer, env, 2)
    equity, universe, holdings = renderer.panels
    assert type(equity) is LineChart and type(universe) is UniverseChart
    assert type(holdings) is BarChart and holdings.title == "Holdings"
    assert equity.shade is not None and equity.shade_label == "Stressed regime"
    assert holdings.labels == ("Asset 1", "Asset 2", "Asset 3", "Asset 4")
    (row,) = renderer.root.children
    assert isinstance(row, Row) and row.widths == (2.3, 1.0)
    env.reset(seed=0)
    tradable = int(env.action_mask()[:-1].sum())
    assert stats(renderer, env) == {
        "Equity": "1.0000",
        "Gross exposure": "0.0%",
        "Tradable": f"{tradable} assets",
    }
    env.step(np.array([1, 1, 1, 1, 0], dtype=np.float32))
    assert stats(renderer, env)["Gross exposure"] == f"{np.abs(env.weights).sum():.1%}"
    assert renderer._subtitle(env) == "Simulated: regime switching, with listings"
    assert equity.shade is not None
    assert read(env, equity.shade) == (env.latent_state["regime"] > 0)
    prices = np.full((30, 3), 100.0) * np.linspace(1, 1.2, 30)[:, None]
    prices[:10, 2] = np.nan
    data_env = fin.MarketEnv(MarketData(prices), episode_length=10, lookback=3, max_assets=2)
    data_env.reset(seed=0)
    renderer.render(data_env)
    equity, universe, holdings = renderer.panels
    assert equity.shade is None and equity.shade_label is None  # type: ignore[attr-defined]
    assert holdings.labels == ("Slot 1", "Slot 2")  # type: ignore[attr-defined]
    assert renderer._subtitle(data_env) == "Historical data"


def test_market_making_renderer() -> None:
    renderer = fin.MarketMakingRenderer()
    env = market_making()
    price, inventory, pnl = renderer.panels
    assert type(price) is PriceChart and price.title == "Mid price and quotes"
    assert price.quotes == ("bid", "ask") and price.sources()["price"] == "mid"
    assert price.buys is not None and price.sells is not None
    assert type(inventory) is LineChart and type(pnl) is LineChart
    assert inventory.series[0].source == "inventory"
    assert inventory.series[0].step and inventory.series[0].signed
    assert pnl.title == "Profit and loss" and pnl.series[0].source == "wealth"
    assert stats(renderer, env) == {
        "P&L": "0.00", "Inventory": "0", "Quoted spread": "\u2014", "Time left": "1.00",
    }  # fmt: skip
    env.reset(seed=2)
    for _ in range(12):
        env.step(np.array([0.1, 0.2], dtype=np.float32))
        if env.bid_filled or env.ask_filled:
            break
    shown = stats(renderer, env)
    assert shown["Quoted spread"] == f"{env.ask - env.bid:.2f}"
    assert shown["Inventory"] == signed(env.inventory)
    assert read(env, price.buys) == (env.bid if env.bid_filled else None)
    assert read(env, price.sells) == (env.ask if env.ask_filled else None)
    assert renderer._subtitle(env) == "Simulated: Brownian mid price, Poisson fills"


def test_optimal_execution_renderer() -> None:
    renderer = fin.OptimalExecutionRenderer()
    env = execution()
    plan, sales, price = renderer.panels
    assert [type(p).__name__ for p in renderer.panels] == [
        "_InventoryPlan", "_Sales", "_ExecutionPrice",
    ]  # fmt: skip
    assert isinstance(price, PriceChart) and price.reference == "s0"
    for panel in (plan, sales):
        assert panel.sources() == {"inventory": "inventory"}
        np.testing.assert_array_equal(
            read(env, panel.context()["plan"]), env.almgren_chriss_trajectory()
        )
    assert [plan.title, sales.title] == ["Inventory", "Shares sold per step"]
    assert stats(renderer, env) == {"Shortfall": "0.0 bp", "Sold": "0.0%", "Mid": "50.00"}
    assert not renderer.stats[0].higher_is_better
    env.reset(seed=0)
    renderer.render(env)
    sold_prices = []
    for _ in range(3):
        result = env.step(np.array([0.25], dtype=np.float32))
        sold_prices.append(result.info["execution_price"])
        renderer.render(env)
    view = _view(renderer, env, 2)
    fills = price.fills(view)
    assert fills["buys"] == []
    assert [s for s, _ in fills["sells"]] == [0.0, 1.0, 2.0]
    np.testing.assert_allclose([p for _, p in fills["sells"]], sold_prices, rtol=1e-12)
    bps = 1e4 * env.shortfall / (env.X0 * env.s0)
    assert stats(renderer, env)["Shortfall"] == f"{bps:.1f} bp"
    assert stats(renderer, env)["Sold"] == f"{1 - env.inventory / env.X0:.1%}"


def _view(renderer: Dashboard, env: Any, index: int) -> Any:
    from sekai.rendering.dashboard import View

    history = renderer._history(env)
    assert history is not None
    return View(env, history, f"{index}:", renderer.theme, 1.0, (0.0, 1.0), True, 58.0)


def test_limit_order_book_renderer() -> None:
    renderer = fin.LimitOrderBookRenderer(levels=5)
    env = order_book()
    price, inventory, wealth, book = renderer.panels
    assert isinstance(price, PriceChart) and type(price).__name__ == "_TraderPrice"
    assert price.spread is not None
    assert type(inventory) is LineChart and type(wealth) is LineChart
    assert wealth.title == "Wealth (ticks)"
    assert type(book) is OrderBookChart and book.levels == 5
    assert book.owners == {0: ("You", "highlight")}
    (row,) = renderer.root.children
    assert isinstance(row, Row) and row.widths == (2.2, 1.0)
    assert stats(renderer, env) == {
        "Wealth": "0.0", "Inventory": "0", "Spread": "\u2014", "Session left": "12.0",
    }  # fmt: skip
    env.reset(seed=0)
    renderer.render(env)
    spread = env.book.spread()
    assert stats(renderer, env)["Spread"] == (f"{spread} tick" + ("s" if spread != 1 else ""))
    trades = []
    for k in range(8):
        before = (env.trader.inventory, env.trader.cash)
        env.step(np.array([1, 1, 2 if k % 2 else 0]))
        renderer.render(env)
        change = env.trader.inventory - before[0]
        if change:
            trades.append((k + 1, change > 0, abs((env.trader.cash - before[1]) / change)))
    fills = price.fills(_view(renderer, env, 0))
    expected = {
        "buys": [(float(k), p) for k, up, p in trades if up],
        "sells": [(float(k), p) for k, up, p in trades if not up],
    }
    assert fills == expected and trades
    assert stats(renderer, env)["Inventory"] == signed(env.trader.inventory)
    assert stats(renderer, env)["Session left"] == "4.0"


def test_limit_order_book_highlights_the_agent() -> None:
    env = order_book()
    env.reset(seed=0)
    env.step(np.array([1, 1, 1]))
    theme = LIGHT.with_colors(highlight="#ff00ff")
    frame = fin.LimitOrderBookRenderer(theme=theme).render(env)
    assert env.book.n_orders_of(0) >= 1
    assert (frame[90:] == np.array([255, 0, 255], dtype=np.uint8)).all(axis=2).sum() > 30


def test_limit_order_book_market_renderer() -> None:
    renderer = fin.LimitOrderBookMarketRenderer(levels=4)
    env = lob_market(3)
    frames = play_market(renderer, env)
    assert all(frame.shape == (450, 720, 3) for frame in frames)
    inventory, wealth, book = renderer.panels
    assert type(inventory) is LineChart and type(wealth) is LineChart
    assert type(book) is OrderBookChart and book.levels == 4
    assert [s.label for s in inventory.series] == ["trader_0", "trader_1", "trader_2"]
    assert [s.color for s in wealth.series] == [0, 1, 2]
    assert read(env, book.owners) == {  # type: ignore[arg-type]
        0: ("trader_0", 0), 1: ("trader_1", 1), 2: ("trader_2", 2),
    }  # fmt: skip
    history = renderer._history(env)
    assert history is not None and history.steps[0] == 0.0 and history.steps[-1] == 8.0
    assert renderer._horizon(env) == 8.0
    assert stats(renderer, env) == {
        "Traders": "3", "Spread": stats(renderer, env)["Spread"], "Session left": "0.0",
    }  # fmt: skip
    assert renderer._subtitle(env) == "Simulated: zero-intelligence order flow"
    with pytest.raises(TypeError, match="LimitOrderBookMarketRenderer"):
        renderer.render(order_book())
    two = lob_market(2)
    renderer.render(two)
    assert len(renderer.panels[0].series) == 2  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="levels"):
        fin.LimitOrderBookMarketRenderer(levels=0)


def test_market_renderer_on_the_same_market_is_deterministic() -> None:
    one = play_market(fin.LimitOrderBookMarketRenderer(), lob_market())
    two = play_market(fin.LimitOrderBookMarketRenderer(), lob_market())
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


# -- subtitles --------------------------------------------------------------------------------


def test_subtitles_name_the_data_or_the_model() -> None:
    renderer = fin.TradingRenderer()
    env = trading()
    env.reset(seed=0)
    assert renderer._subtitle(env) == "Simulated: geometric Brownian motion"
    raw = fin.TradingEnv(100 + np.arange(30.0), episode_length=5, lookback=3)
    raw.reset(seed=0)
    assert renderer._subtitle(raw) == "Historical data"
    stamps = np.arange("2020-01-01", "2020-01-31", dtype="datetime64[D]")
    dated = fin.TradingEnv(data=MarketData(100 + np.arange(30.0), timestamps=stamps),
                           episode_length=5, lookback=3)  # fmt: skip
    dated.reset(options={"start": 3})
    assert renderer._subtitle(dated) == "Historical data \u00b7 2020-01-04"
    heston = fin.TradingEnv(model=Heston(), episode_length=5, lookback=3)
    heston.reset(seed=0)
    assert renderer._subtitle(heston) == "Simulated: Heston"


@pytest.mark.parametrize(
    ("model", "name"),
    [
        (None, "geometric Brownian motion"),
        (GBM(), "geometric Brownian motion"),
        (Heston(), "Heston"),
        (MertonJumpDiffusion(), "Merton jump diffusion"),
        (RegimeSwitching([GBM(), GBM(sigma=0.4)], [[0.9, 0.1], [0.1, 0.9]]), "regime switching"),
        (GARCH(), "GARCH(1, 1)"),
        (MeanReverting(), "mean reversion"),
        (CointegratedPair(), "cointegrated pair"),
        (BlockBootstrap(np.zeros(30)), "block bootstrap"),
        (Randomized(lambda rng: GBM()), "randomised models"),
        (ListingProcess(GBM(n_assets=2)), "geometric Brownian motion, with listings"),
    ],
)
def test_model_names(model: Any, name: str) -> None:
    assert _model_name(model) == name
