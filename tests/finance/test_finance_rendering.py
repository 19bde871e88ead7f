"""Tests for sekai.finance.rendering: PriceChart, OrderBookChart and UniverseChart."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import sekai.finance
from sekai.finance.charts import price as price_chart
from sekai.finance.charts.order_book import _centre
from sekai.finance.lob import OrderBook, Side
from sekai.finance.rendering import OrderBookChart, PriceChart, UniverseChart
from sekai.rendering import charts
from sekai.rendering.canvas import Canvas
from sekai.rendering.dashboard import Dashboard, View
from sekai.rendering.theme import DARK, LIGHT, mix


class Toy:
    """An env-like object whose clock and values the tests set directly."""

    def __init__(self) -> None:
        self.elapsed_steps = 0
        self.price = 100.0
        self.position: Any = 0.0
        self.bid: Any = math.nan
        self.ask: Any = math.nan
        self.buys: Any = None
        self.sells: Any = None
        self.level = 100.0
        self.history = np.array([97.0, 98.0, 99.0, 100.0])
        self.book = OrderBook()
        self.weights = np.zeros(3)
        self.available = np.ones(3, dtype=bool)
        self.names = ["A", "B", "C"]


def step(dash: Dashboard, env: Toy, clock: int, **values: Any) -> NDArray[np.uint8]:
    env.elapsed_steps = clock
    for name, value in values.items():
        setattr(env, name, value)
    return dash.render(env)


def view_of(dash: Dashboard, env: Toy, index: int = 0) -> View:
    history = dash._history(env)
    assert history is not None
    return View(env, history, f"{index}:", dash.theme, dash.scale, (0.0, 1.0), True, 58.0)


def capture(monkeypatch: pytest.MonkeyPatch, method: str) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []
    original = getattr(charts.Plot, method)

    def spy(self: charts.Plot, *args: Any, **kwargs: Any) -> Any:
        calls.append((*args, kwargs))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(charts.Plot, method, spy)
    return calls


def colour_mask(frame: NDArray[np.uint8], color: tuple[int, int, int]) -> NDArray[np.bool_]:
    mask: NDArray[np.bool_] = (frame == np.array(color, dtype=np.uint8)).all(axis=2)
    return mask


def test_exported_from_the_finance_package() -> None:
    assert sekai.finance.PriceChart is PriceChart
    assert sekai.finance.rendering.__all__ == ["PriceChart", "OrderBookChart", "UniverseChart"]


# -- PriceChart -------------------------------------------------------------------------------


def test_price_chart_validation() -> None:
    with pytest.raises(TypeError, match="price"):
        PriceChart(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="position"):
        PriceChart("price", position=1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="quotes"):
        PriceChart("price", quotes="bid")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="spread"):
        PriceChart("price", spread=("a", "b", "c"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="quotes"):
        PriceChart("price", quotes=("bid", 2))  # type: ignore[arg-type]
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="min_trade"):
            PriceChart("price", min_trade=bad)
    with pytest.raises(TypeError, match="min_trade"):
        PriceChart("price", min_trade=True)
    with pytest.raises(ValueError):
        PriceChart("price", height=0)


def test_price_chart_sources_and_attributes() -> None:
    def buys(env: Any) -> None:
        return None

    chart = PriceChart(
        "price",
        position="position",
        quotes=("bid", "ask"),
        spread=("lo", "hi"),
        buys=buys,
        sells="sells",
        context="history",
        reference="level",
    )
    assert chart.sources() == {
        "price": "price",
        "position": "position",
        "bid": "bid",
        "ask": "ask",
        "best_bid": "lo",
        "best_ask": "hi",
        "buys": buys,
        "sells": "sells",
        "reference": "level",
    }
    assert chart.context() == {"context": "history"}
    assert chart.buys is buys and chart.sells == "sells"
    assert PriceChart("price").sources() == {"price": "price"}
    assert PriceChart("price").context() == {}
    assert (chart.title, chart.tag, chart.min_trade, chart.timeseries) == (
        "Price",
        True,
        1e-6,
        True,
    )


def test_context_starts_the_time_axis_before_the_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = capture(monkeypatch, "line")
    env = Toy()
    dash = Dashboard(PriceChart("price", context="history"), horizon=10)
    step(dash, env, 0)
    env.history = np.arange(50.0)  # read once per episode: later changes are ignored
    step(dash, env, 1, price=101.0)
    view = view_of(dash, env)
    assert dash.panels[0].x_start(view) == -3.0
    assert dash._x_domain(dash._history(env), 10.0, [view]) == (-3.0, 10.0)  # type: ignore[arg-type]
    context = lines[-2]
    np.testing.assert_array_equal(context[0], [-3, -2, -1, 0])
    np.testing.assert_array_equal(context[1], [97, 98, 99, 100])
    np.testing.assert_array_equal(lines[-1][1], [100, 101])  # the price line, drawn last
    assert PriceChart("price").x_start(view) is None


def test_positions_shade_the_steps_they_were_held(monkeypatch: pytest.MonkeyPatch) -> None:
    shades = capture(monkeypatch, "shade")
    env = Toy()
    dash = Dashboard(PriceChart("price", position="position"))
    for clock, held in enumerate([0.0, 1.0, 1.0, -0.5, 0.0, 2.0]):
        step(dash, env, clock, position=held)
    calls = shades[-3:]
    assert [c[:3] for c in calls] == [
        (0.0, 2.0, LIGHT.up),
        (2.0, 3.0, LIGHT.down),
        (4.0, 5.0, LIGHT.up),
    ]
    assert [c[3]["alpha"] for c in calls] == pytest.approx([0.12, 0.085, 0.12])


def stamps(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, float, Any, bool]]:
    """Capture the triangle markers that PriceChart stamps."""
    calls: list[tuple[float, float, Any, bool]] = []
    original = price_chart._stamp

    def spy(plot: charts.Plot, x: float, y: float, color: Any, up: bool) -> None:
        calls.append((x, y, color, up))
        original(plot, x, y, color, up)

    monkeypatch.setattr(price_chart, "_stamp", spy)
    return calls


def test_trades_are_marked_where_they_were_made(monkeypatch: pytest.MonkeyPatch) -> None:
    triangles = stamps(monkeypatch)
    dots = capture(monkeypatch, "marker")
    env = Toy()
    dash = Dashboard(PriceChart("price", position="position", min_trade=0.1))
    prices = [100.0, 101.0, 102.0, 103.0, 104.0]
    for clock, (price, held) in enumerate(zip(prices, [0.0, 1.0, 1.05, -1.0, None], strict=True)):
        triangles.clear()
        step(dash, env, clock, price=price, position=held)
    assert triangles == [(0.0, 100.0, LIGHT.up, True), (2.0, 102.0, LIGHT.down, False)]
    assert dots[-1][:3] == (4.0, 104.0, LIGHT.price)  # the latest price


def test_marker_sprite() -> None:
    sprite = price_chart._sprite(True, 4.5, 2.0, (255, 0, 0), (0, 0, 255))
    assert sprite.shape == (15, 15, 4) and sprite.dtype == np.uint8
    assert tuple(sprite[7, 7]) == (255, 0, 0, 255)  # the triangle's middle
    assert tuple(sprite[0, 0])[3] == 0  # a clear corner
    ring = (sprite[..., 3] > 0) & (sprite[..., 2] > sprite[..., 0])
    assert ring.sum() > 20  # the ring in the background colour
    down = price_chart._sprite(False, 4.5, 2.0, (255, 0, 0), (0, 0, 255))
    assert np.array_equal(down[..., 3], sprite[::-1, :, 3])
    frame = Canvas(30, 30, (0, 0, 255), antialias=True)
    blue = LIGHT.with_colors(background="#0000ff")
    plot = charts.Plot(frame, charts.Box(0, 0, 30, 30), (0, 1), (0, 1), blue)
    price_chart._stamp(plot, 0.5, 0.5, (255, 0, 0), True)
    red = np.nonzero(colour_mask(frame.pixels, (255, 0, 0)))
    assert red[0].mean() == pytest.approx(14.5, abs=1.5) and red[1].mean() == pytest.approx(15, 0.5)


def test_fills_read_numbers_sequences_and_none() -> None:
    env = Toy()
    dash = Dashboard(PriceChart("price", buys="buys", sells="sells"))
    samples = [(None, 101.0), (99.0, None), ([98.0, 97.5], math.nan), (np.array([]), [102.0])]
    for clock, (bought, sold) in enumerate(samples):
        step(dash, env, clock, buys=bought, sells=sold)
    chart = dash.panels[0]
    assert isinstance(chart, PriceChart)
    assert chart.fills(view_of(dash, env)) == {
        "buys": [(1.0, 99.0), (2.0, 98.0), (2.0, 97.5)],
        "sells": [(0.0, 101.0), (3.0, 102.0)],
    }


def test_markers_are_left_out_when_too_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    markers = stamps(monkeypatch)

    def shapes(per_step: int) -> int:
        env = Toy()
        dash = Dashboard(PriceChart("price", buys="buys"))
        for clock in range(3):
            markers.clear()
            step(dash, env, clock, buys=[100.0] * per_step)
        return len(markers)

    # The plot is 630 px wide: at most 105 markers, one per 6 px.
    assert shapes(30) == 90
    assert shapes(40) == 0


def test_quotes_hold_over_the_step_and_spread_is_a_band(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = capture(monkeypatch, "line")
    areas = capture(monkeypatch, "area")
    env = Toy()
    env.lo, env.hi = 99.5, 100.5  # type: ignore[attr-defined]
    dash = Dashboard(PriceChart("price", quotes=("bid", "ask"), spread=("lo", "hi")))
    step(dash, env, 0)
    step(dash, env, 1, bid=99.0, ask=101.0)
    step(dash, env, 2, bid=98.0, ask=102.0)
    bid, ask = lines[-3], lines[-2]
    np.testing.assert_array_equal(bid[0], [0, 1, 1, 2])
    np.testing.assert_array_equal(bid[1], [99, 99, 98, 98])
    np.testing.assert_array_equal(ask[1], [101, 101, 102, 102])
    assert (bid[2], ask[2]) == (LIGHT.up, LIGHT.down)
    band = areas[-1]
    np.testing.assert_array_equal(band[1], [100.5] * 3)
    np.testing.assert_array_equal(band[3]["base"], [99.5] * 3)


def test_reference_is_a_dashed_level_and_widens_the_range(monkeypatch: pytest.MonkeyPatch) -> None:
    hlines = capture(monkeypatch, "hline")
    grids = capture(monkeypatch, "grid")
    env = Toy()
    dash = Dashboard(PriceChart("price", reference="level", reference_label="Arrival"))
    step(dash, env, 0, level=120.0)
    assert hlines[-1][0] == 120.0 and hlines[-1][2]["dash"] is not None
    assert max(grids[-1][0]) >= 115


def test_price_chart_pixels() -> None:
    env = Toy()
    dash = Dashboard(PriceChart("price", position="position", buys="buys"))
    plain = Dashboard(PriceChart("price"))
    for clock in range(6):
        env.price = 100.0 + clock
        env.position = 1.0 if clock >= 2 else 0.0
        env.buys = 100.0 + clock if clock == 3 else None
        frame = dash.render(env)
        bare = plain.render(env)
        env.elapsed_steps += 1
    assert frame.shape == (450, 720, 3) and frame.dtype == np.uint8
    assert colour_mask(frame, LIGHT.up).sum() > 20  # the trade and the fill triangles
    assert not colour_mask(bare, LIGHT.up).any()
    assert colour_mask(frame, LIGHT.price).sum() > 100  # the price line


# -- OrderBookChart ---------------------------------------------------------------------------


def laid_book() -> OrderBook:
    book = OrderBook()
    for price, size in [(100, 5), (99, 3), (97, 4)]:
        book.limit(Side.BID, price, size)
    for price, size in [(101, 2), (103, 6)]:
        book.limit(Side.ASK, price, size)
    return book


def test_order_book_chart_validation() -> None:
    with pytest.raises(ValueError, match="levels"):
        OrderBookChart("book", levels=0)
    for bad in (1.5, True):
        with pytest.raises(TypeError, match="levels"):
            OrderBookChart("book", levels=bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="owners"):
        OrderBookChart("book", owners={0: "You"})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="owner id"):
        OrderBookChart("book", owners={"a": ("You", "highlight")})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="owners"):
        OrderBookChart("book", owners=[(0, "You")])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="owner id must be an int"):
        OrderBookChart("book", owners={0.5: ("You", "highlight")})
    whole = OrderBookChart("book", levels=3.0, owners={7.0: ("Mine", "highlight")})  # type: ignore[arg-type]
    assert whole.levels == 3 and whole.owners == {7: ("Mine", "highlight")}
    assert type(whole.levels) is int and all(type(k) is int for k in whole.owners)  # type: ignore[union-attr]
    env = Toy()
    env.book = "not a book"  # type: ignore[assignment]
    with pytest.raises(TypeError, match="OrderBook"):
        Dashboard(OrderBookChart("book")).render(env)


def test_order_book_chart_sources() -> None:
    def owners(env: Any) -> dict[int, tuple[str, str]]:
        return {0: ("You", "highlight")}

    chart = OrderBookChart("book", owners={0: ("You", "highlight")})
    assert chart.sources() == {"book": "book"}
    assert OrderBookChart("book", owners=owners).sources() == {"book": "book", "owners": owners}
    assert (chart.levels, chart.title, chart.timeseries) == (8, "Order book", False)


def test_ladder_centre() -> None:
    book = laid_book()
    assert _centre(book) == 100.5
    assert _centre(OrderBook()) is None
    empty = OrderBook()
    empty.last_price = 50
    assert _centre(empty) == 50.0
    bids = OrderBook()
    bids.limit(Side.BID, 99, 1)
    assert _centre(bids) == 99.5
    bids.last_price = 120
    assert _centre(bids) == 120.0
    asks = OrderBook()
    asks.limit(Side.ASK, 99, 1)
    assert _centre(asks) == 98.5


def test_ladder_rows_asks_above_bids(monkeypatch: pytest.MonkeyPatch) -> None:
    texts: list[str] = []
    original = Canvas.text

    def spy(self: Canvas, x: float, y: float, text: str, *args: Any, **kwargs: Any) -> float:
        texts.append(text)
        return original(self, x, y, text, *args, **kwargs)

    env = Toy()
    env.book = laid_book()
    dash = Dashboard(OrderBookChart("book", levels=3))
    monkeypatch.setattr(Canvas, "text", spy)
    dash.render(env)
    assert texts[texts.index("Order book") + 1 :] == [
        "103", "6", "102", "101", "2", "100", "5", "99", "3", "98",
        "Mid 100.5 \u00b7 spread 1 tick",
    ]  # fmt: skip


def test_order_book_summary() -> None:
    book = laid_book()
    assert OrderBookChart._summary(book, 100.5) == "Mid 100.5 \u00b7 spread 1 tick"
    book.cancel(1)  # the bid at 100
    assert OrderBookChart._summary(book, 100.0) == "Mid 100 \u00b7 spread 2 ticks"
    one_sided = OrderBook()
    one_sided.limit(Side.ASK, 10_001, 1)
    assert OrderBookChart._summary(one_sided, 10_000.5) == "Last 10,000.5"


def test_empty_book_draws_a_notice() -> None:
    env = Toy()
    dash = Dashboard(OrderBookChart("book"))
    empty = dash.render(env)
    env.book = laid_book()
    laid = dash.render(env)
    blank = Dashboard(OrderBookChart("book", title=None))
    panel = (slice(84, 434), slice(16, 704))
    assert not np.array_equal(empty, laid)
    assert (empty[panel] != LIGHT.background).any(axis=2).sum() > 50  # the notice's text
    assert (empty[panel] != LIGHT.background).any(axis=2).sum() < 2000
    assert (laid[panel] != LIGHT.background).any(axis=2).sum() > 20_000
    env.book = OrderBook()
    env.book.last_price = 100
    assert not np.array_equal(blank.render(env), empty)  # a last price draws the ladder


def test_highlighted_orders_are_drawn_at_their_queue_position() -> None:
    magenta = (255, 0, 255)

    def columns(ahead: int) -> NDArray[np.intp]:
        book = laid_book()
        if ahead:
            book.limit(Side.BID, 98, ahead)
        book.limit(Side.BID, 98, 2, owner=7)
        env = Toy()
        env.book = book
        frame = Dashboard(OrderBookChart("book", owners={7: ("Mine", "#ff00ff")})).render(env)
        return np.nonzero(colour_mask(frame[90:], magenta).any(axis=0))[0]  # below the legend

    front, behind = columns(0), columns(4)
    assert front.size > 10 and behind.size > 10
    assert behind.min() > front.max()  # 4 lots queue ahead of the 2-lot order
    env = Toy()
    env.book = laid_book()
    env.book.limit(Side.BID, 98, 2, owner=7)
    frame = Dashboard(OrderBookChart("book")).render(env)
    assert not colour_mask(frame, magenta).any()
    owners = OrderBookChart("book", owners=lambda e: {7: ("Mine", "#ff00ff")})
    assert colour_mask(Dashboard(owners).render(env), magenta).sum() > 50


# -- UniverseChart ----------------------------------------------------------------------------


def test_universe_chart_validation_and_sources() -> None:
    with pytest.raises(TypeError, match="weights"):
        UniverseChart(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="available"):
        UniverseChart("weights", available=3)  # type: ignore[arg-type]
    chart = UniverseChart("weights", available="available", labels="names")
    assert chart.sources() == {"weights": "weights", "available": "available", "labels": "names"}
    fixed = UniverseChart("weights", labels=["x", "y"])
    assert fixed.labels == ("x", "y") and fixed.sources() == {"weights": "weights"}
    assert (fixed.title, fixed.color, fixed.negative_color) == ("Universe", "accent", "down")


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_universe_cells_follow_holdings_and_tradability(theme: Any) -> None:
    env = Toy()
    env.weights = np.array([0.5, 0.25, 0.0, 0.0, -0.125])
    env.available = np.array([True, True, True, False, False])
    dash = Dashboard(UniverseChart("weights", available="available"), theme=theme)
    step(dash, env, 0)
    frame = step(dash, env, 1)
    cells = dash.panels[0]._cells(view_of(dash, env))  # type: ignore[attr-defined]
    assert cells.shape == (5, 2, 4)
    full = theme.accent
    half = mix(theme.background, theme.accent, 0.25 + 0.75 * 0.5)
    short = mix(theme.background, theme.down, 0.25 + 0.75 * 0.25)
    assert tuple(cells[0, 0]) == (*full, 255)
    assert tuple(cells[1, 0]) == (*half, 255)
    assert tuple(cells[2, 0]) == (*theme.grid, 255)
    assert cells[3, 0, 3] == 0  # untradable: clear
    assert tuple(cells[4, 0]) == (*short, 255)  # a holding shows even when untradable
    plot = frame[90:]  # below the legend
    rows = {
        name: np.nonzero(colour_mask(plot, color).sum(axis=1) > 20)[0]
        for name, color in (("full", full), ("half", half), ("grid", theme.grid), ("short", short))
    }
    assert all(r.size for r in rows.values())
    assert rows["full"].max() < rows["half"].min() < rows["half"].max() < rows["grid"].min()
    assert rows["grid"].max() + 50 < rows["short"].min()  # the clear row lies between


def test_universe_columns_follow_the_steps() -> None:
    env = Toy()
    env.weights = np.array([1.0, 0.0, 0.0])
    dash = Dashboard(UniverseChart("weights"), horizon=9)
    widths = []
    for clock in range(4):
        frame = step(dash, env, clock)
        widths.append(int(colour_mask(frame[90:], LIGHT.accent).any(axis=0).sum()))
    # One column per step, reaching half a step past the last one (domain 0..9 over 630 px).
    column = 630 / 9
    assert widths == pytest.approx([column * (k + 0.5) for k in range(4)], abs=2)


def test_universe_labels_from_a_source() -> None:
    env = Toy()
    env.weights = np.array([0.2, 0.3, 0.5])
    named = Dashboard(UniverseChart("weights", labels="names")).render(env)
    default = Dashboard(UniverseChart("weights")).render(env)
    fixed = Dashboard(UniverseChart("weights", labels=["A", "B", "C"])).render(env)
    assert np.array_equal(named, fixed) and not np.array_equal(named, default)
