"""Panels and their layout: the ``Panel`` base class, and ``Row`` and ``Column``, which share a
box among their items by weight."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, TypeAlias

import numpy as np

from sekai.rendering.box import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.history import View
from sekai.rendering.plot import LegendItem, Plot, legend, legend_width
from sekai.rendering.sources import Source, positive_number
from sekai.rendering.text import face, text_width
from sekai.rendering.ticks import nice_ticks, tick_labels

__all__ = ["Panel", "Row", "Column", "Node", "place", "fits"]

# Pixels at scale 1.
_TITLE_BAND = 20.0
_TIME_BAND = 16.0
# Least room between a panel's title and its legend.
_LEGEND_GAP = 24.0


class Panel:
    """A chart in the dashboard's layout; subclasses override ``draw`` and the hooks."""

    timeseries: ClassVar[bool] = True

    def __init__(
        self, title: str | None = None, *, width: float = 1.0, height: float = 1.0
    ) -> None:
        self.title = title
        self.width = positive_number(width, "Panel width")
        self.height = positive_number(height, "Panel height")

    def sources(self) -> dict[str, Source]:
        """The values to record at every render, by key."""
        return {}

    def context(self) -> dict[str, Source]:
        """The values to read once when an episode starts, by key."""
        return {}

    def x_start(self, view: View) -> float | None:
        """A step before the first recorded one where the time axis should start, if any."""
        return None

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the panel into ``box``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement draw().")

    def frame(
        self,
        canvas: Canvas,
        box: Box,
        view: View,
        legend_items: Sequence[LegendItem] = (),
        *,
        gutter: float | None = None,
    ) -> Box:
        """Draw the title and legend above the plot area and return the plot's box: ``box``
        less the title band, the right gutter (default ``view.gutter``) and, for a time
        series showing the time axis, the band for its labels.

        A legend that does not fit beside the title is left out.
        """
        theme, right = view.theme, box.right - (view.gutter if gutter is None else gutter)
        band = view.size(_TITLE_BAND) if self.title or legend_items else view.size(6)
        middle, title_size = box.top - band / 2, view.size(11)
        baseline = middle - face(title_size).cap_height / 2
        title_width = text_width(self.title, title_size, bold=True) if self.title else 0.0
        room = right - box.left - title_width - view.size(_LEGEND_GAP)
        if legend_items and legend_width(legend_items, scale=view.scale) <= room:
            legend(canvas, right, middle, legend_items, theme, scale=view.scale)
        if self.title:
            with canvas.clip(box.left, box.top - band, right, box.top):
                canvas.text(box.left, baseline, self.title, theme.text, size=title_size, bold=True)
        bottom = view.size(_TIME_BAND) if self.timeseries and view.show_x else 0.0
        return Box(box.left, box.bottom + bottom, right, box.top - band).snapped()

    def time_axis(self, plot: Plot, view: View) -> None:
        """The axis line under the plot and, when ``view.show_x``, step labels below it."""
        box = plot.box
        plot.canvas.rect(box.left, box.bottom, box.right, box.bottom + 1, view.theme.axis)
        if not view.show_x:
            return
        low, high = plot.x_domain
        steps = view.steps[np.isfinite(view.steps)]
        integer = bool(np.all(steps == np.round(steps)))
        count = max(int(box.width / view.size(90)), 2)
        ticks = nice_ticks(low, high, count, integer=integer)
        plot.x_ticks(ticks, tick_labels(ticks), size=9)


Node: TypeAlias = "Panel | Row | Column"
"""An item of a layout."""


def _node(child: Any) -> Node:
    if isinstance(child, list | tuple):
        return Row(*child)
    if isinstance(child, Panel | Row | Column):
        return child
    raise TypeError(
        f"A layout item is a Panel, Row, Column or a list of them (a row), "
        f"got {type(child).__name__}."
    )


def _items(
    children: Sequence[Any], given: Sequence[float] | None, attr: str
) -> tuple[tuple[Node, ...], tuple[float, ...]]:
    """The layout items of ``children`` and their weights (default: each item's ``attr``)."""
    items = tuple(_node(child) for child in children)
    if given is None:
        return items, tuple(float(getattr(item, attr, 1.0)) for item in items)
    weights = tuple(positive_number(w, f"Layout {attr}") for w in given)
    if len(weights) != len(items):
        raise ValueError(f"Got {len(weights)} {attr}s for {len(items)} items.")
    return items, weights


class Row:
    """Items side by side, sharing the width by ``widths`` (default: each item's ``width``)."""

    def __init__(
        self, *children: Any, widths: Sequence[float] | None = None, height: float = 1.0
    ) -> None:
        self.children, self.widths = _items(children, widths, "width")
        self.height = positive_number(height, "Row height")


class Column:
    """Items stacked top first, sharing the height by ``heights`` (default: each item's
    ``height``)."""

    def __init__(
        self, *children: Any, heights: Sequence[float] | None = None, width: float = 1.0
    ) -> None:
        self.children, self.heights = _items(children, heights, "height")
        self.width = positive_number(width, "Column width")


def place(node: Node, box: Box, gap: float) -> Iterator[tuple[Panel, Box]]:
    """Each panel of the layout with its box, in layout order."""
    if isinstance(node, Panel):
        yield node, box.snapped()
        return
    if not node.children:
        return
    parts = box.columns(node.widths, gap) if isinstance(node, Row) else box.rows(node.heights, gap)
    for child, part in zip(node.children, parts, strict=True):
        yield from place(child, part, gap)


def fits(box: Box, view: View) -> bool:
    """Whether ``box`` is big enough to plot in: 8 px each way at the view's scale."""
    return box.width >= view.size(8) and box.height >= view.size(8)
