"""The built-in dashboard panels: ``LineChart`` of ``Series``, ``BarChart`` and
``StackedArea``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sekai.rendering.box import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.history import View
from sekai.rendering.layout import Panel, fits
from sekai.rendering.plot import LegendItem, Plot, Swatch, shade_steps
from sekai.rendering.sources import ColorSpec, Source, is_source, positive_number
from sekai.rendering.text import text_width
from sekai.rendering.theme import Color, Theme, mix
from sekai.rendering.ticks import (
    Ticks,
    decimals_for,
    format_number,
    nice_step,
    nice_ticks,
    tick_count,
    tick_labels,
    value_range,
)

__all__ = ["Series", "LineChart", "BarChart", "StackedArea"]

_Floats = NDArray[np.float64]
_LINE_DASH = (5.0, 3.0)


@dataclass(frozen=True)
class Series:
    """One line of a ``LineChart``.

    ``fill`` shades under the line; ``signed`` shades above the baseline in the up colour and
    below it in the down colour; ``step`` holds each value until the next step; ``rebase``
    scales the line to start at that value (``value · rebase / first finite value``).
    """

    source: Source
    label: str | None = None
    color: ColorSpec = None
    fill: bool = False
    signed: bool = False
    step: bool = False
    dashed: bool = False
    width: float = 2.0
    rebase: float | None = None

    def __post_init__(self) -> None:
        positive_number(self.width, "Series width")
        if self.rebase is not None:
            positive_number(self.rebase, "Series rebase")


class LineChart(Panel):
    """Lines over time, with an optional baseline, limit lines, value tag and shaded steps.

    ``shade`` is a source giving one boolean per step; steps where it is true are shaded in
    ``shade_color`` (``shade_label`` names them in the legend). The legend lists the series
    only when two or more have labels. Integer data gets integer ticks.
    """

    def __init__(
        self,
        *series: Series | Source,
        title: str | None = None,
        baseline: float | None = None,
        percent: bool = False,
        tag: bool = True,
        limits: Sequence[float] = (),
        shade: Source | None = None,
        shade_label: str | None = None,
        shade_color: ColorSpec = "down",
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(title, width=width, height=height)
        if not series:
            raise ValueError("LineChart needs at least one series.")
        for s in series:
            if not isinstance(s, Series) and not is_source(s):
                raise TypeError(f"A LineChart series is a Series or a source, got {s!r}.")
        if shade is not None and not is_source(shade):
            raise TypeError(f"shade must be a source, got {shade!r}.")
        self.series = tuple(s if isinstance(s, Series) else Series(s) for s in series)
        self.baseline = None if baseline is None else float(baseline)
        self.percent = percent
        self.tag = tag
        self.limits = tuple(float(v) for v in limits)
        self.shade = shade
        self.shade_label = shade_label
        self.shade_color = shade_color

    def sources(self) -> dict[str, Source]:
        """Each series as ``series<i>``, and ``shade`` when given."""
        out: dict[str, Source] = {f"series{i}": s.source for i, s in enumerate(self.series)}
        if self.shade is not None:
            out["shade"] = self.shade
        return out

    def _line(self, view: View, index: int) -> _Floats:
        series, key = self.series[index], f"series{index}"
        values = view.values(key)
        if values.ndim != 1:
            raise ValueError(f"Series {series.source!r} must give one number per step.")
        if series.rebase is not None:
            start = view.first(key)
            scale = series.rebase / start if math.isfinite(start) and start != 0 else math.nan
            values = values * scale
        return values

    def _flags(self, view: View) -> NDArray[np.bool_]:
        samples = view.raw("shade")
        if not all(isinstance(v, bool | np.bool_) for v in samples):
            raise ValueError(f"shade {self.shade!r} must give one boolean per step.")
        return np.array(samples, dtype=bool)

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the chart."""
        theme, xs = view.theme, view.steps
        colors = [view.color(s.color, i) for i, s in enumerate(self.series)]
        items: list[LegendItem] = []
        if sum(1 for s in self.series if s.label) >= 2:
            items += [
                (s.label, color, _series_swatch(s))
                for s, color in zip(self.series, colors, strict=True)
                if s.label
            ]
        shade_color = view.color(self.shade_color)
        if self.shade_label:
            items.append((self.shade_label, shade_color, "square"))
        plot_box = self.frame(canvas, box, view, items)
        if not fits(plot_box, view):
            return
        lines = [self._line(view, i) for i in range(len(self.series))]
        base = 0.0 if self.baseline is None else self.baseline
        include = list(self.limits)
        if self.baseline is not None or any(s.signed for s in self.series):
            include.append(base)
        low, high = value_range(*lines, include=include)
        data = np.concatenate(lines)
        data = data[np.isfinite(data)]
        integer = data.size > 0 and bool(np.all(data == np.round(data)))
        ticks = nice_ticks(low, high, tick_count(plot_box.height, view.scale), integer=integer)
        plot = Plot(canvas, plot_box, view.x_domain, (low, high), theme, view.scale)

        if self.shade is not None:
            shade_steps(plot, xs, self._flags(view), shade_color)
        last = _last_finite(lines[0])
        avoid = [last] if self.tag and last is not None else []
        plot.grid(ticks, tick_labels(ticks, percent=self.percent), avoid=avoid)
        self.time_axis(plot, view)
        if self.baseline is not None:
            plot.hline(self.baseline, theme.text_muted, dash=_LINE_DASH, alpha=0.7)
        for limit in self.limits:
            plot.hline(limit, theme.down, dash=_LINE_DASH, alpha=0.8)
        for series, ys, color in zip(self.series, lines, colors, strict=True):
            if series.signed:
                _signed_area(plot, xs, ys, base, theme, series.step)
            elif series.fill:
                plot.area(xs, ys, color, base=self.baseline, step=series.step)
        # The first series is drawn last, on top.
        for series, ys, color in reversed(list(zip(self.series, lines, colors, strict=True))):
            dash = _LINE_DASH if series.dashed else None
            plot.line(xs, ys, color, width=series.width, dash=dash, step=series.step)
        if last is not None:
            index = int(np.flatnonzero(np.isfinite(lines[0]))[-1])
            plot.marker(xs[index], last, colors[0], radius=3.0)
        if self.tag and last is not None:
            plot.tag(last, self._tag_text(last, ticks, integer), colors[0])

    def _tag_text(self, value: float, ticks: Ticks, integer: bool) -> str:
        """``value`` with one decimal more than the tick labels (none for integer data)."""
        decimals = 0
        if not integer:
            step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
            decimals = min(decimals_for(step * (100 if self.percent else 1)) + 1, 6)
        compact = not self.percent and abs(value) >= 10_000
        return format_number(value, decimals, percent=self.percent, compact=compact)


def _series_swatch(series: Series) -> Swatch:
    if series.dashed:
        return "dash"
    return "area" if series.fill or series.signed else "line"


def _last_finite(values: _Floats) -> float | None:
    finite = np.flatnonzero(np.isfinite(values))
    return float(values[finite[-1]]) if finite.size else None


def _signed_area(
    plot: Plot, xs: _Floats, ys: _Floats, base: float, theme: Theme, step: bool
) -> None:
    """Shade above ``base`` in the up colour and below it in the down colour, split exactly
    where the line crosses it."""
    if not step:  # a step line crosses on its risers, where clipping each value is exact
        offset = ys - base
        crossing = np.flatnonzero(offset[:-1] * offset[1:] < 0)
        t = offset[crossing] / (offset[crossing] - offset[crossing + 1])
        at = xs[crossing] + t * (xs[crossing + 1] - xs[crossing])
        xs = np.insert(xs, crossing + 1, at)
        ys = np.insert(ys, crossing + 1, base)
    plot.area(xs, np.maximum(ys, base), theme.up, base=base, alpha=0.14, step=step)
    plot.area(xs, np.minimum(ys, base), theme.down, base=base, alpha=0.14, step=step)


def _labels(labels: Sequence[str] | None, count: int) -> list[str]:
    given = list(labels or ())
    return [given[i] if i < len(given) else str(i + 1) for i in range(count)]


class _PartsPanel(Panel):
    """A panel of the parts of one vector source, with a label and a colour per part."""

    def _set_parts(
        self,
        source: Source,
        labels: Sequence[str] | None,
        colors: Sequence[ColorSpec] | None,
        percent: bool,
    ) -> None:
        self.source = source
        self.labels = None if labels is None else tuple(labels)
        self.colors = None if colors is None else tuple(colors)
        self.percent = percent


class BarChart(_PartsPanel):
    """The latest vector as horizontal bars, one labelled row per element with its value.

    A bar's full length is ``limit`` or ``nice_step(max|v|, 1)``; bars grow from a zero line
    that moves to the middle when a value is negative. Elements where ``available`` is false
    are greyed and marked "not tradable".
    """

    timeseries = False

    def __init__(
        self,
        source: Source,
        *,
        labels: Sequence[str] | None = None,
        colors: Sequence[ColorSpec] | None = None,
        color: ColorSpec = None,
        negative_color: ColorSpec = "down",
        available: Source | None = None,
        percent: bool = True,
        limit: float | None = None,
        title: str | None = None,
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(title, width=width, height=height)
        self._set_parts(source, labels, colors, percent)
        self.color = color
        self.negative_color = negative_color
        self.available = available
        self.limit = None if limit is None else positive_number(limit, "BarChart limit")

    def sources(self) -> dict[str, Source]:
        """``values``, and ``available`` when given."""
        out: dict[str, Source] = {"values": self.source}
        if self.available is not None:
            out["available"] = self.available
        return out

    def _bar_color(self, view: View, index: int, value: float) -> Color:
        if value < 0 and self.negative_color is not None:
            return view.color(self.negative_color, index)
        if self.colors is not None and index < len(self.colors):
            return view.color(self.colors[index], index)
        return view.color("accent" if self.color is None else self.color, index)

    def _tradable(self, view: View, count: int) -> NDArray[np.bool_]:
        flags = None if self.available is None else view.latest("available")
        if flags is None:
            return np.ones(count, dtype=bool)
        tradable = np.asarray(flags, dtype=bool).ravel()
        if tradable.size not in (1, count):
            raise ValueError(f"available gave {tradable.size} flags for {count} values.")
        return np.broadcast_to(tradable, (count,))

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the bars."""
        theme = view.theme
        area = self.frame(canvas, box, view, gutter=0.0)
        latest = view.latest("values")
        values = np.asarray(np.nan if latest is None else latest, dtype=np.float64).ravel()
        if values.size == 0 or not fits(area, view):
            return
        tradable = self._tradable(view, values.size)
        labels = _labels(self.labels, values.size)
        texts = [format_number(v, 1 if self.percent else 2, percent=self.percent) for v in values]
        finite = np.abs(values[np.isfinite(values)])
        full = self.limit or nice_step(float(finite.max()) if finite.size else 1.0, 1)

        # Rows of label | bar | value; text only when a row is tall enough to read.
        row = area.height / values.size
        size = min(view.size(10), row * 0.8)
        show_text = row >= 9
        label_width = max(text_width(t, size) for t in labels) + view.size(8) if show_text else 0
        value_width = max(text_width(t, size) for t in texts) + view.size(8) if show_text else 0
        bars = area.inset(left=label_width, right=value_width)
        if bars.width < 4:
            return
        negative = bool(np.any(values < 0))
        half = bars.width / 2 if negative else bars.width
        zero = bars.left + (half if negative else 0.0)
        thickness = min(row * 0.62, view.size(12))
        for i, value in enumerate(values):
            middle = area.top - (i + 0.5) * row
            low, high = middle - thickness / 2, middle + thickness / 2
            ok = bool(tradable[i])
            with canvas.clip(bars.left, bars.bottom, bars.right, bars.top):
                canvas.rect(bars.left, low, bars.right, high, theme.grid, alpha=0.6 if ok else 0.3)
                if math.isfinite(value) and value != 0:
                    color = self._bar_color(view, i, value) if ok else theme.neutral
                    end = zero + max(min(value / full, 1.0), -1.0) * half
                    radius = min(view.size(2), thickness / 2)
                    canvas.rect(
                        zero, low, end, high, color, alpha=1.0 if ok else 0.6, radius=radius
                    )
                if not ok and show_text:
                    canvas.text(
                        bars.right - view.size(4),
                        middle,
                        "not tradable",
                        theme.text_muted,
                        size=size * 0.9,
                        align="right",
                        valign="middle",
                    )
            if show_text:
                ink = theme.text_secondary if ok else theme.text_muted
                canvas.text(area.left, middle, labels[i], ink, size=size, valign="middle")
                ink = theme.text if ok else theme.text_muted
                canvas.text(
                    area.right, middle, texts[i], ink, size=size, align="right", valign="middle"
                )
        canvas.rect(math.floor(zero), bars.bottom, math.floor(zero) + 1, bars.top, theme.axis)


class StackedArea(_PartsPanel):
    """A vector per step drawn as stacked areas: positive parts stacked up from zero,
    negative parts down."""

    def __init__(
        self,
        source: Source,
        *,
        labels: Sequence[str] | None = None,
        colors: Sequence[ColorSpec] | None = None,
        percent: bool = True,
        legend: bool = False,
        title: str | None = None,
        width: float = 1.0,
        height: float = 1.0,
    ) -> None:
        super().__init__(title, width=width, height=height)
        self._set_parts(source, labels, colors, percent)
        self.legend = legend

    def sources(self) -> dict[str, Source]:
        """``parts``: the vector to stack."""
        return {"parts": self.source}

    def _color(self, view: View, index: int) -> Color:
        spec = self.colors[index] if self.colors and index < len(self.colors) else None
        return view.color(spec, index)

    def draw(self, canvas: Canvas, box: Box, view: View) -> None:
        """Draw the stack."""
        theme, xs = view.theme, view.steps
        parts = view.values("parts")
        parts = parts.reshape(parts.shape[0], -1)
        k = parts.shape[1]
        colors = [self._color(view, i) for i in range(k)]
        items: list[LegendItem] = []
        if self.legend:
            items = [
                (label, c, "square")
                for label, c in zip(_labels(self.labels, k), colors, strict=True)
            ]
        plot_box = self.frame(canvas, box, view, items)
        if not fits(plot_box, view):
            return
        # A step with no sample at all is a gap; a missing part within a sample is zero.
        gap = np.all(np.isnan(parts), axis=1, keepdims=True)
        filled = np.where(gap, np.nan, np.nan_to_num(parts, nan=0.0))
        positive, negative = np.maximum(filled, 0.0), np.minimum(filled, 0.0)
        up, down = np.cumsum(positive, axis=1), np.cumsum(negative, axis=1)
        low, high = value_range(up[:, -1:], down[:, -1:], include=(0.0,))
        ticks = nice_ticks(low, high, tick_count(plot_box.height, view.scale))
        plot = Plot(canvas, plot_box, view.x_domain, (low, high), theme, view.scale)
        plot.grid(ticks, tick_labels(ticks, percent=self.percent))
        self.time_axis(plot, view)
        # Each layer is filled from zero, outermost first, so neighbours share no seam; a part
        # that is zero throughout draws nothing.
        for stack, side in ((up, positive), (down, negative)):
            for i in reversed(range(k)):
                if np.any(np.nan_to_num(side[:, i]) != 0):
                    color = mix(colors[i], theme.background, 0.15)
                    plot.area(xs, stack[:, i], color, base=0.0, alpha=1.0)
        plot.hline(0.0, theme.axis)
