"""Market charts for dashboards: prices with positions, quotes and fills; an order book ladder;
holdings across a changing universe."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from sekai.finance.lob import OrderBook, Side
from sekai.rendering.canvas import Canvas
from sekai.rendering.charts import (
    Box,
    LegendItem,
    Plot,
    Ticks,
    decimals_for,
    format_number,
    nice_step,
    nice_ticks,
    tick_count,
    tick_labels,
    triangle,
    value_range,
)
from sekai.rendering.dashboard import ColorSpec, Panel, Source, View
from sekai.rendering.text import text_width
from sekai.rendering.theme import Color

__all__ = ["PriceChart", "OrderBookChart", "UniverseChart"]

_Floats = NDArray[np.float64]
Fills: TypeAlias = dict[str, list[tuple[float, float]]]
"""Fill markers by kind (``"buys"``, ``"sells"``): ``(step, price)`` pairs."""
Owners: TypeAlias = Mapping[int, tuple[str, ColorSpec]]
"""Highlighted order owners: ``{owner_id: (label, colour)}``."""

_DASH = (5.0, 3.0)
# Pixels at scale 1.
_MARKER_SPACING = 6.0
_MARKER_RADIUS = 4.5
_MARKER_RING = 2.0
_QUOTE_WIDTH = 1.25
_CONTEXT_WIDTH = 1.5
_CELL_GAP_MIN_ROW = 4.0
_PAD = 6.0


def _check_source(value: Any, name: str) -> Source:
    if not (isinstance(value, str) or callable(value)):
        raise TypeError(f"{name} must be an attribute path or a callable, got {value!r}.")
    return value


def _optional_source(value: Any, name: str) -> Source | None:
    return None if value is None else _check_source(value, name)


def _pair(value: Any, name: str) -> tuple[Source, Source] | None:
    """``value`` as a pair of sources, or None."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"{name} must be a pair of sources (bid, ask), got {value!r}.")
    return (_check_source(value[0], f"{name}[0]"), _check_source(value[1], f"{name}[1]"))


def _line(view: View, key: str) -> _Floats:
    values = view.values(key)
    if values.ndim != 1:
        raise ValueError(f"{key} must give one number per step, got {values.shape[1]} numbers.")
    return values


def _last_finite(values: _Floats) -> float | None:
    finite = np.flatnonzero(np.isfinite(values))
    return float(values[finite[-1]]) if finite.size else None


def _prices(sample: Any) -> list[float]:
    """The finite prices in a fill sample: a number, a sequence of numbers, or None."""
    if sample is None:
        return []
    values = np.asarray(sample, dtype=np.float64).ravel()
    return [float(v) for v in values[np.isfinite(values)]]


def _held(xs: _Floats, ys: _Floats) -> tuple[_Floats, _Floats]:
    """Points of a line holding each value over the step that ends at its sample."""
    if xs.size < 2:
        return xs[:0], ys[:0]
    return np.repeat(xs, 2)[1:-1], np.repeat(ys[1:], 2)


def _tag_text(value: float, ticks: Ticks) -> str:
    """``value`` with one decimal more than the tick labels."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    return format_number(value, min(decimals_for(step) + 1, 6))


@functools.lru_cache(maxsize=32)
def _sprite(
    up: bool, radius: float, ring: float, color: Color, background: Color
) -> NDArray[np.uint8]:
    """An RGBA image of a triangle marker ringed in ``background``, centred on its middle
    pixel."""
    outer = radius + ring
    size = 2 * math.ceil(outer) + 1

    def coverage(r: float) -> _Floats:
        canvas = Canvas(size, size, (0, 0, 0), antialias=True)
        triangle(canvas, size / 2, size / 2, r, (255, 255, 255), up)
        return canvas.pixels[..., 0] / 255.0

    inner = coverage(radius)
    alpha = np.maximum(coverage(outer), inner)
    ink = np.array(color, dtype=np.float64) * inner[..., None]
    ink += np.array(background, dtype=np.float64) * (alpha - inner)[..., None]
    rgba = np.zeros((size, size, 4), dtype=np.uint8)
    rgba[..., :3] = np.floor(ink / np.maximum(alpha, 1e-12)[..., None] + 0.5)
    rgba[..., 3] = np.floor(alpha * 255 + 0.5)
    rgba.setflags(write=False)
    return rgba


def _stamp(plot: Plot, x: float, y: float, color: Color, up: bool) -> None:
    """A triangle marker at data ``(x, y)``, centred on the pixel there.

    Copies a cached image: far cheaper than filling two polygons when there are many.
    """
    scale = plot.scale
    sprite = _sprite(up, _MARKER_RADIUS * scale, _MARKER_RING * scale, color, plot.theme.background)
    half = sprite.shape[0] // 2
    column, row = math.floor(plot.x(x)), math.floor(plot.y(y))
    box = plot.box
    with plot.canvas.clip(box.left, box.bottom, box.right, box.top):
        plot.canvas.image(sprite, column - half, row - half, column + half + 1, row + half + 1)


def _fits(box: Box, view: View) -> bool:
    return box.width >= view.size(8) and box.height >= view.size(8)


class PriceChart(Panel):
    """A price line over the episode with the agent's position, quotes and fills.

    ``position`` is the position held over the step that ends at each sample: that step is
    shaded in the up colour (long) or the down colour (short) with opacity
    ``0.05 + 0.07·min(|pos|, 1)``, and each change larger than ``min_trade`` gets a triangle
    at the price of the previous sample, where the trade was made. ``quotes=(bid, ask)`` are
    the agent's quotes over the same steps, drawn as thin step lines; ``spread=(best_bid,
    best_ask)`` shades the market spread. ``buys`` and ``sells`` give a price, a sequence of
    prices or None per sample (see ``fills``); markers are all left out when there would be
    more than one per 6 px. ``context`` gives the prices before the episode, the last one
    being the first step's (read once per episode); ``reference`` a dashed level.
    """

    def __init__(
        self,
        price: Source,
        *,
        position: Source | None = None,
        quotes: tuple[Source, Source] | None = None,
        spread: tuple[Source, Source] | None = None,
        buys: Source | None = None,
        sells: Source | None = None,
        context: Source | None = None,
        reference: Source | None = None,
        reference_label: str | None = None,
        title: str | None = "Price",
        tag: bool = True,
        min_trade: float = 1e-6,
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(title, width=width, height=height)
        self.price = _check_source(price, "price")
        self.position = _optional_source(position, "position")
        self.quotes = _pair(quotes, "quotes")
        self.spread = _pair(spread, "spread")
        self.buys = _optional_source(buys, "buys")
        self.sells = _optional_source(sells, "sells")
        self.context_source = _optional_source(context, "context")
        self.reference = _optional_source(reference, "reference")
        self.reference_label = reference_label
        self.tag = tag
        if isinstance(min_trade, bool) or not isinstance(min_trade, numbers.Real):
            raise TypeError(f"min_trade must be a number, got {min_trade!r}.")
        if not (math.isfinite(min_trade) and min_trade >= 0):
            raise ValueError(f"min_trade must be finite and >= 0, got {min_trade!r}.")
        self.min_trade: float = float(min_trade)

    def sources(self) -> dict[str, Source]:
        """``price`` and each optional source that was given."""
        out: dict[str, Source] = {"price": self.price}
        if self.position is not None:
            out["position"] = self.position
        if self.quotes is not None:
            out["bid"], out["ask"] = self.quotes
        if self.spread is not None:
            out["best_bid"], out["best_ask"] = self.spread
        if self.buys is not None:
            out["buys"] = self.buys
        if self.sells is not None:
            out["sells"] = self.sells
        if self.reference is not None:
            out["reference"] = self.reference
        return out

    def context(self) -> dict[str, Source]:
        """``context``, when given."""
        return {} if self.context_source is None else {"context": self.context_source}

    def _context(self, view: View) -> tuple[_Floats, _Floats] | None:
        """Steps and prices of the pre-episode context, ending at the first recorded step."""
        if self.context_source is None or view.steps.size == 0:
            return None
        prices = np.asarray(view.context("context"), dtype=np.float64).ravel()
        if prices.size == 0:
            return None
        start = float(view.steps[0]) - prices.size + 1
        return start + np.arange(prices.size, dtype=np.float64), prices

    def x_start(self, view: View) -> float | None:
        """The step of the first context price, so the time axis shows the context."""
        context = self._context(view)
        return None if context is None else float(context[0][0])

    def fills(self, view: View) -> Fills:
        """Fill markers: each sample's ``buys`` and ``sells`` prices at that sample's step."""
        out: Fills = {"buys": [], "sells": []}
        for kind, source in (("buys", self.buys), ("sells", self.sells)):
            if source is None:
                continue
            for step, sample in zip(view.steps.tolist(), view.raw(kind), strict=True):
                out[kind].extend((step, price) for price in _prices(sample))
        return out

    def _trades(self, view: View, price: _Floats) -> list[tuple[float, float, bool]]:
        """``(step, price, bought)`` where the position changed by more than ``min_trade``."""
        if self.position is None:
            return []
        position, xs = _line(view, "position"), view.steps
        change = np.diff(position)
        moved = np.flatnonzero(np.isfinite(change) & (np.abs(change) > self.min_trade))
        return [(float(xs[i]), float(price[i]), bool(change[i] > 0)) for i in moved.tolist()]

    def _shade_positions(self, plot: Plot, view: View) -> None:
        position, xs, theme = _line(view, "position"), view.steps, view.theme
        i, n = 1, position.size
        while i < n:
            held, end = position[i], i
            while end + 1 < n and position[end + 1] == held:
                end += 1
            if math.isfinite(held) and abs(held) > self.min_trade:
                color = theme.up if held > 0 else theme.down
                alpha = 0.05 + 0.07 * min(abs(held), 1.0)
                plot.shade(xs[i - 1], xs[end], color, alpha=alpha)
            i = end + 1

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the chart."""
        theme, xs = view.theme, view.steps
        price = _line(view, "price")
        context = self._context(view)
        quotes = [_line(view, "bid"), _line(view, "ask")] if self.quotes else []
        spread = [_line(view, "best_bid"), _line(view, "best_ask")] if self.spread else []
        reference = _last_finite(_line(view, "reference")) if self.reference else None
        fills = self.fills(view)
        trades = self._trades(view, price)

        items: list[LegendItem] = []
        if quotes:
            items += [("Bid", theme.up, "line"), ("Ask", theme.down, "line")]
        if spread:
            items.append(("Spread", theme.neutral, "area"))
        if self.buys is not None or fills["buys"]:
            items.append(("Buy", theme.up, "up"))
        if self.sells is not None or fills["sells"]:
            items.append(("Sell", theme.down, "down"))
        if reference is not None and self.reference_label:
            items.append((self.reference_label, theme.text_muted, "dash"))
        plot_box = self.frame(canvas, box, view, items)
        if not _fits(plot_box, view):
            return

        marks = [p for kind in ("buys", "sells") for _, p in fills[kind]]
        low, high = value_range(
            price,
            *quotes,
            *spread,
            marks,
            context[1] if context is not None else [],
            include=[] if reference is None else [reference],
        )
        ticks = nice_ticks(low, high, tick_count(plot_box.height, view.scale))
        plot = Plot(canvas, plot_box, view.x_domain, (low, high), theme, view.scale)
        if self.position is not None:
            self._shade_positions(plot, view)
        if spread:
            plot.area(xs, spread[1], theme.neutral, base=spread[0], alpha=0.2)
        last = _last_finite(price)
        plot.grid(ticks, tick_labels(ticks), avoid=[last] if self.tag and last is not None else [])
        self.time_axis(plot, view)
        if reference is not None:
            plot.hline(reference, theme.text_muted, dash=_DASH, alpha=0.8)
        if context is not None:
            plot.line(*context, theme.text_muted, width=_CONTEXT_WIDTH)
            plot.vline(xs[0], theme.axis, dash=(3.0, 3.0))
        for ys, color in zip(quotes, (theme.up, theme.down), strict=False):
            plot.line(*_held(xs, ys), color, width=_QUOTE_WIDTH)
        plot.line(xs, price, theme.price)

        markers = [(x, y, theme.up, True) for x, y in fills["buys"]]
        markers += [(x, y, theme.down, False) for x, y in fills["sells"]]
        markers += [(x, y, theme.up if up else theme.down, up) for x, y, up in trades]
        if len(markers) <= plot_box.width / view.size(_MARKER_SPACING):
            for x, y, color, up in markers:
                _stamp(plot, x, y, color, up)
        if last is not None:
            index = int(np.flatnonzero(np.isfinite(price))[-1])
            plot.marker(xs[index], last, theme.price, radius=3.0)
            if self.tag:
                plot.tag(last, _tag_text(last, ticks), theme.price)


def _owners(value: Any) -> dict[int, tuple[str, ColorSpec]]:
    """``value`` checked as ``{owner_id: (label, colour)}``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"owners must map owner ids to (label, colour), got {value!r}.")
    out: dict[int, tuple[str, ColorSpec]] = {}
    for owner, entry in value.items():
        if isinstance(owner, bool) or not isinstance(owner, numbers.Integral):
            raise TypeError(f"An owner id must be an int, got {owner!r}.")
        if (
            isinstance(entry, str)
            or not isinstance(entry, Sequence)
            or len(entry) != 2
            or not isinstance(entry[0], str)
        ):
            raise TypeError(f"owners[{owner}] must be (label, colour), got {entry!r}.")
        out[int(owner)] = (entry[0], entry[1])
    return out


def _centre(book: OrderBook) -> float | None:
    """Where the ladder is centred: the mid, else beside the one occupied side, else the last
    price; None for an empty book without a last price."""
    mid = book.mid()
    if mid is not None:
        return float(mid)
    bid, ask, last = book.best_bid(), book.best_ask(), book.last_price
    if bid is not None:
        return max(bid + 0.5, -math.inf if last is None else float(last))
    if ask is not None:
        return min(ask - 0.5, math.inf if last is None else float(last))
    return None if last is None else float(last)


def _ticks(count: int) -> str:
    return f"{count} tick" if count == 1 else f"{count} ticks"


class OrderBookChart(Panel):
    """The order book as a price ladder: ``levels`` ticks each side of the mid (asks above),
    each with its resting volume as a bar, and a middle row with the mid and the spread.

    ``owners`` (``{owner_id: (label, colour)}``, or a source of it) highlights those owners'
    orders inside the bars, at their queue position. An empty book without a last price shows
    a notice.
    """

    timeseries = False

    def __init__(
        self,
        book: Source,
        *,
        owners: Owners | Source | None = None,
        levels: int = 8,
        title: str | None = "Order book",
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(title, width=width, height=height)
        self.book = _check_source(book, "book")
        if isinstance(levels, bool) or not isinstance(levels, numbers.Integral):
            raise TypeError(f"levels must be an int, got {levels!r}.")
        if levels < 1:
            raise ValueError(f"levels must be >= 1, got {levels}.")
        self.levels: int = int(levels)
        self.owners: dict[int, tuple[str, ColorSpec]] | Source | None = (
            owners
            if owners is None or isinstance(owners, str) or callable(owners)
            else _owners(owners)
        )

    def sources(self) -> dict[str, Source]:
        """``book``, and ``owners`` when it is a source."""
        out: dict[str, Source] = {"book": self.book}
        if isinstance(self.owners, str) or callable(self.owners):
            out["owners"] = self.owners
        return out

    def _owners(self, view: View) -> list[tuple[int, str, Color]]:
        owners = self.owners
        if isinstance(owners, str) or callable(owners):
            latest = view.latest("owners")
            owners = {} if latest is None else _owners(latest)
        elif owners is None:
            owners = {}
        return [
            (owner, label, view.color(spec, i))
            for i, (owner, (label, spec)) in enumerate(owners.items())
        ]

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the ladder."""
        book = view.latest("book")
        if not isinstance(book, OrderBook):
            raise TypeError(
                f"OrderBookChart needs an OrderBook from {self.book!r}, got {type(book).__name__}."
            )
        theme = view.theme
        owners = self._owners(view)
        items: list[LegendItem] = [(label, color, "square") for _, label, color in owners]
        area = self.frame(canvas, box, view, items, gutter=0.0)
        if not _fits(area, view):
            return
        centre = _centre(book)
        if centre is None:
            canvas.text(
                (area.left + area.right) / 2,
                (area.bottom + area.top) / 2,
                "The book is empty",
                theme.text_muted,
                size=view.size(11),
                align="center",
                valign="middle",
            )
            return
        n = self.levels
        asks = [math.floor(centre) + k for k in range(n, 0, -1)]
        bids = [math.ceil(centre) - k for k in range(1, n + 1)]
        volumes = [book.volume_at(Side.ASK, p) for p in asks] + [
            book.volume_at(Side.BID, p) for p in bids
        ]
        prices = [*asks, *bids]
        rows = 2 * n + 1
        row = area.height / rows
        size = min(view.size(10), row * 0.8)
        show_text = row >= 8
        labels = [format_number(p, 0) if p >= 1 else "" for p in prices]
        texts = [str(v) if v else "" for v in volumes]
        label_width = max(text_width(t, size) for t in labels) + view.size(8) if show_text else 0
        value_width = max(text_width(t, size) for t in texts) + view.size(8) if show_text else 0
        bars = area.inset(left=label_width, right=value_width)
        if bars.width < 4:
            return
        full = nice_step(float(max(volumes)), 1) if any(volumes) else 1.0
        thickness = min(row * 0.72, view.size(14))
        best = {book.best_ask(), book.best_bid()}
        middles: dict[int, float] = {}
        for i, (price, volume) in enumerate(zip(prices, volumes, strict=True)):
            index = i if i < n else i + 1  # the middle row sits between the two sides
            middle = area.top - (index + 0.5) * row
            middles[price] = middle
            low, high = middle - thickness / 2, middle + thickness / 2
            color = theme.down if i < n else theme.up
            with canvas.clip(bars.left, bars.bottom, bars.right, bars.top):
                canvas.rect(bars.left, low, bars.right, high, theme.grid, alpha=0.5)
                if volume:
                    end = bars.left + min(volume / full, 1.0) * bars.width
                    canvas.rect(bars.left, low, end, high, color, alpha=0.55)
            if show_text and labels[i]:
                ink = theme.text if price in best else theme.text_muted
                bold = price in best
                canvas.text(
                    area.left, middle, labels[i], ink, size=size, bold=bold, valign="middle"
                )
            if show_text and texts[i]:
                canvas.text(
                    area.right,
                    middle,
                    texts[i],
                    theme.text_secondary,
                    size=size,
                    align="right",
                    valign="middle",
                )
        self._draw_owners(canvas, book, owners, middles, bars, thickness, full, view)
        middle = area.top - (n + 0.5) * row
        canvas.rect(area.left, middle - row / 2, area.right, middle + row / 2, theme.grid)
        if show_text:
            summary = self._summary(book, centre)
            if text_width(summary, size) > area.width:  # small frames: keep the mid only
                summary = summary.split(" \u00b7 ")[0]
            with canvas.clip(area.left, area.bottom, area.right, area.top):
                canvas.text(
                    (area.left + area.right) / 2,
                    middle,
                    summary,
                    theme.text_secondary,
                    size=size,
                    align="center",
                    valign="middle",
                )

    @staticmethod
    def _summary(book: OrderBook, centre: float) -> str:
        mid, spread = book.mid(), book.spread()
        if mid is None or spread is None:
            return f"Last {format_number(centre, 0 if float(centre).is_integer() else 1)}"
        digits = 0 if float(mid).is_integer() else 1
        return f"Mid {format_number(mid, digits)} \u00b7 spread {_ticks(spread)}"

    @staticmethod
    def _draw_owners(
        canvas: Canvas,
        book: OrderBook,
        owners: list[tuple[int, str, Color]],
        middles: dict[int, float],
        bars: Box,
        thickness: float,
        full: float,
        view: View,
    ) -> None:
        """Each owner's orders as segments of their level's bar, after the volume ahead."""
        edge = view.size(1)
        with canvas.clip(bars.left, bars.bottom, bars.right, bars.top):
            for owner, _, color in owners:
                for order in book.orders_of(owner):
                    middle = middles.get(order.price)
                    if middle is None:
                        continue
                    ahead = book.queue_ahead(order.order_id)
                    start = bars.left + ahead / full * bars.width
                    end = bars.left + (ahead + order.quantity) / full * bars.width
                    low, high = middle - thickness / 2, middle + thickness / 2
                    canvas.rect(start, low, end, high, view.theme.background)
                    canvas.rect(start + edge, low, end - edge, high, color)


def _labels_of(value: Any, count: int) -> list[str]:
    given = [] if value is None else [str(v) for v in value]
    return [given[i] if i < len(given) else str(i + 1) for i in range(count)]


class UniverseChart(Panel):
    """Holdings over time: one row per slot, one column per step.

    A held cell takes ``color`` (``negative_color`` when short) mixed into the background
    with depth ``0.25 + 0.75·min(|w|/ref, 1)``, ``ref`` being the largest ``|w|`` shown; a
    tradable cell that is not held is drawn in the grid colour, an untradable one not at all.
    ``available`` gives one flag per slot and step (all tradable when None); ``labels`` are
    the row names, or a source of them read at every step.
    """

    def __init__(
        self,
        weights: Source,
        *,
        available: Source | None = None,
        labels: Sequence[str] | Source | None = None,
        color: ColorSpec = "accent",
        negative_color: ColorSpec = "down",
        title: str | None = "Universe",
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(title, width=width, height=height)
        self.weights = _check_source(weights, "weights")
        self.available = _optional_source(available, "available")
        self.labels: tuple[str, ...] | Source | None = (
            labels
            if labels is None or isinstance(labels, str) or callable(labels)
            else tuple(str(label) for label in labels)
        )
        self.color = color
        self.negative_color = negative_color

    def sources(self) -> dict[str, Source]:
        """``weights``, and ``available`` and ``labels`` when they are sources."""
        out: dict[str, Source] = {"weights": self.weights}
        if self.available is not None:
            out["available"] = self.available
        if isinstance(self.labels, str) or callable(self.labels):
            out["labels"] = self.labels
        return out

    def _tradable(self, view: View, shape: tuple[int, int]) -> NDArray[np.bool_]:
        if self.available is None:
            return np.ones(shape, dtype=bool)
        out = np.zeros(shape, dtype=bool)
        for i, flags in enumerate(view.raw("available")):
            if flags is None or (isinstance(flags, float) and math.isnan(flags)):
                continue
            row = np.asarray(flags, dtype=bool).ravel()[: shape[1]]
            out[i, : row.size] = row
        return out

    def _cells(self, view: View) -> NDArray[np.uint8]:
        """Opaque-or-clear RGBA colours ``(slots, samples, 4)`` of the grid's cells."""
        theme = view.theme
        weights = view.values("weights")
        weights = weights.reshape(weights.shape[0], -1)
        tradable = self._tradable(view, weights.shape)
        held = np.isfinite(weights) & (weights != 0)
        size = np.abs(np.where(held, weights, 0.0))
        ref = float(size.max()) if held.any() else 1.0
        depth = 0.25 + 0.75 * np.minimum(size / ref, 1.0)
        ink = np.where(
            (weights < 0)[..., None],
            np.array(view.color(self.negative_color), dtype=np.float64),
            np.array(view.color(self.color), dtype=np.float64),
        )
        background = np.array(theme.background, dtype=np.float64)
        mixed = np.floor(background + (ink - background) * depth[..., None] + 0.5)
        rgba = np.zeros((*weights.shape, 4), dtype=np.uint8)
        rgba[tradable, :3] = theme.grid
        rgba[tradable, 3] = 255
        rgba[held, :3] = mixed[held].astype(np.uint8)
        rgba[held, 3] = 255
        return rgba.transpose(1, 0, 2)

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the grid."""
        theme, xs = view.theme, view.steps
        items: list[LegendItem] = [
            ("Held", view.color(self.color), "square"),
            ("Tradable", theme.grid, "square"),
        ]
        plot_box = self.frame(canvas, box, view, items)
        if not _fits(plot_box, view) or xs.size == 0:
            return
        cells = self._cells(view)
        slots = cells.shape[0]
        plot = Plot(canvas, plot_box, view.x_domain, (0.0, float(slots)), theme, view.scale)
        width, height = int(plot_box.width), int(plot_box.height)
        # Each sample owns the pixel columns up to halfway to its neighbours.
        gaps = np.diff(xs)
        first = gaps[0] / 2 if gaps.size else 0.5
        last = gaps[-1] / 2 if gaps.size else 0.5
        edges = plot.x(np.concatenate([[xs[0] - first], xs[:-1] + gaps / 2, [xs[-1] + last]]))
        centres = plot_box.left + np.arange(width) + 0.5
        column = np.searchsorted(edges, centres, side="right") - 1
        valid_column = (column >= 0) & (column < xs.size)
        band = height / slots
        position = (np.arange(height) + 0.5) / band
        row = np.minimum(position.astype(np.int64), slots - 1)
        gap = position - row > 1 - 1 / band
        if band < _CELL_GAP_MIN_ROW:
            gap[:] = False
        image = cells[row][:, np.clip(column, 0, xs.size - 1)]
        image[:, ~valid_column, 3] = 0
        image[gap, :, 3] = 0
        canvas.image(image, plot_box.left, plot_box.bottom, plot_box.right, plot_box.top)
        self.time_axis(plot, view)
        self._draw_labels(canvas, box, plot_box, view, slots)

    def _draw_labels(self, canvas: Canvas, box: Box, plot_box: Box, view: View, slots: int) -> None:
        band = plot_box.height / slots
        if band < 7:
            return
        names = self.labels
        if isinstance(names, str) or callable(names):
            names = view.latest("labels")
        labels = _labels_of(names, slots)
        size = min(view.size(9), band * 0.85)
        with canvas.clip(plot_box.right, plot_box.bottom, box.right, plot_box.top):
            for i, label in enumerate(labels):
                canvas.text(
                    plot_box.right + view.size(_PAD),
                    plot_box.top - (i + 0.5) * band,
                    label,
                    view.theme.text_muted,
                    size=size,
                    valign="middle",
                )
