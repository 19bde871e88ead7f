"""``PriceChart``: a price line over the episode with the agent's position, quotes and fills."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from sekai.rendering.box import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.history import View
from sekai.rendering.layout import Panel, fits
from sekai.rendering.plot import LegendItem, Plot, triangle
from sekai.rendering.sources import Source, check_source
from sekai.rendering.theme import Color
from sekai.rendering.ticks import (
    Ticks,
    decimals_for,
    format_number,
    nice_ticks,
    tick_count,
    tick_labels,
    value_range,
)

__all__ = ["PriceChart", "Fills"]

_Floats = NDArray[np.float64]
Fills: TypeAlias = dict[str, list[tuple[float, float]]]
"""Fill markers by kind (``"buys"``, ``"sells"``): ``(step, price)`` pairs."""

_DASH = (5.0, 3.0)
# Pixels at scale 1.
_MARKER_SPACING = 6.0
_MARKER_RADIUS = 4.5
_MARKER_RING = 2.0
_QUOTE_WIDTH = 1.25
_CONTEXT_WIDTH = 1.5


def _optional_source(value: Any, name: str) -> Source | None:
    return None if value is None else check_source(value, name)


def _pair(value: Any, name: str) -> tuple[Source, Source] | None:
    """``value`` as a pair of sources, or None."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"{name} must be a pair of sources (bid, ask), got {value!r}.")
    return (check_source(value[0], f"{name}[0]"), check_source(value[1], f"{name}[1]"))


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
        self.price = check_source(price, "price")
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
        if not fits(plot_box, view):
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
