"""``OrderBookChart``: the order book as a price ladder, with chosen owners' orders marked."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from sekai.finance.lob import OrderBook, Side
from sekai.rendering.box import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.history import View
from sekai.rendering.layout import Panel, fits
from sekai.rendering.plot import LegendItem
from sekai.rendering.sources import ColorSpec, Source, check_source
from sekai.rendering.text import text_width
from sekai.rendering.theme import Color
from sekai.rendering.ticks import format_number, nice_step
from sekai.utils.validation import check_int

__all__ = ["OrderBookChart", "Owners"]

Owners: TypeAlias = Mapping[int, tuple[str, ColorSpec]]
"""Highlighted order owners: ``{owner_id: (label, colour)}``."""


def _owners(value: Any) -> dict[int, tuple[str, ColorSpec]]:
    """``value`` checked as ``{owner_id: (label, colour)}``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"owners must map owner ids to (label, colour), got {value!r}.")
    out: dict[int, tuple[str, ColorSpec]] = {}
    for owner, entry in value.items():
        owner_id = check_int(owner, "An owner id")
        if (
            isinstance(entry, str)
            or not isinstance(entry, Sequence)
            or len(entry) != 2
            or not isinstance(entry[0], str)
        ):
            raise TypeError(f"owners[{owner}] must be (label, colour), got {entry!r}.")
        out[owner_id] = (entry[0], entry[1])
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
        self.book = check_source(book, "book")
        self.levels: int = check_int(levels, "levels", low=1)
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
        if not fits(area, view):
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
