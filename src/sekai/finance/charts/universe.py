"""``UniverseChart``: holdings over time, one row per slot of a changing universe."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.rendering.box import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.history import View
from sekai.rendering.layout import Panel, fits
from sekai.rendering.plot import LegendItem, Plot
from sekai.rendering.sources import ColorSpec, Source, check_source

__all__ = ["UniverseChart"]

# Pixels at scale 1.
_CELL_GAP_MIN_ROW = 4.0
_PAD = 6.0


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
        self.weights = check_source(weights, "weights")
        self.available = None if available is None else check_source(available, "available")
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
        if not fits(plot_box, view) or xs.size == 0:
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
