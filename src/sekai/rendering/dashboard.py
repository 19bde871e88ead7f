"""Dashboards: a header of stats over chart panels that follow an env through its episode.

A ``Dashboard`` records what its panels ask for (``Panel.sources``) at every render, keeps one
history per env, and draws each panel into its box of the layout (``Row`` and ``Column``
split the area by weight). Panels read their data through a ``View``.
"""

from __future__ import annotations

import math
import numbers
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias, TypeGuard

import numpy as np
from numpy.typing import NDArray

from sekai.rendering.canvas import Canvas
from sekai.rendering.charts import (
    MINUS,
    Box,
    LegendItem,
    Plot,
    Swatch,
    Ticks,
    decimals_for,
    format_number,
    legend,
    legend_width,
    nice_step,
    nice_ticks,
    shade_steps,
    tick_count,
    tick_labels,
    triangle,
    value_range,
)
from sekai.rendering.renderer import BaseRenderer
from sekai.rendering.text import face, text_width
from sekai.rendering.theme import Color, Theme, get_theme, mix, rgb

__all__ = [
    "Source",
    "read",
    "ColorSpec",
    "resolve_color",
    "Series",
    "Stat",
    "Panel",
    "Row",
    "Column",
    "View",
    "LineChart",
    "BarChart",
    "StackedArea",
    "Dashboard",
]

Source: TypeAlias = str | Callable[[Any], Any]
"""An attribute path on ``env.unwrapped`` or a function of the env."""

ColorSpec: TypeAlias = str | tuple[int, int, int] | int | None
"""A theme role, ``"#hex"``, ``(r, g, b)``, a series slot, or None (the panel's slot)."""

_Floats = NDArray[np.float64]
_COLOR_ROLES = ("text", "price", "accent", "neutral", "up", "down", "highlight", "text_muted")
_DASH = "\u2014"

# Layout in pixels at scale 1 (a 720 x 450 frame).
_BASE_WIDTH, _BASE_HEIGHT = 720, 450
_MIN_WIDTH, _MIN_HEIGHT = 160, 120
_MARGIN = 16.0
_HEADER = 64.0
_PANEL_GAP = 16.0
_GUTTER = 58.0
_TITLE_BAND = 20.0
_TIME_BAND = 16.0
_STAT_GAP = 24.0
# Header baselines, measured down from the top edge.
_TITLE_BASELINE, _SUBTITLE_BASELINE = 30.0, 48.0
_LABEL_BASELINE, _VALUE_BASELINE = 24.0, 46.0
_LINE_DASH = (5.0, 3.0)


# --- sources and colours -------------------------------------------------------------------


def read(env: Any, source: Source) -> Any:
    """The value of ``source`` for ``env``: ``source(env)``, or an attribute path on
    ``env.unwrapped`` (nothing on the path is called).

    A path of a single name missing on the base env is looked up with ``env.get_attr``, which
    finds wrapper attributes such as ``elapsed_steps``.
    """
    if callable(source):
        return source(env)
    if not isinstance(source, str):
        raise TypeError(f"A source is an attribute path or a callable, got {source!r}.")
    head, *rest = source.split(".")
    try:
        value = getattr(getattr(env, "unwrapped", env), head)
    except AttributeError:
        if rest or not hasattr(env, "get_attr"):
            raise
        return env.get_attr(head)
    for name in rest:
        value = getattr(value, name)
    return value


def resolve_color(theme: Theme, spec: ColorSpec, slot: int = 0) -> Color:
    """The colour ``spec`` names in ``theme``; None gives series colour ``slot``."""
    if isinstance(spec, bool | np.bool_):
        raise TypeError(f"A colour cannot be a bool, got {spec!r}.")
    if spec is None:
        return theme.color(slot)
    if isinstance(spec, numbers.Integral):
        return theme.color(int(spec))
    if isinstance(spec, str):
        if spec.startswith("#"):
            return rgb(spec)
        if spec in _COLOR_ROLES:
            color: Color = getattr(theme, spec)
            return color
        raise ValueError(
            f"Unknown colour role {spec!r}; expected '#hex' or one of {', '.join(_COLOR_ROLES)}."
        )
    if isinstance(spec, Sequence):
        return rgb(spec)
    raise TypeError(
        f"A colour is a role name, '#hex', (r, g, b), a slot or None, got {type(spec).__name__}."
    )


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None when it is not a finite real number."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
        number = float(value)
        if math.isfinite(number):
            return number
    return None


def _positive(value: Any, name: str) -> float:
    number = _number(value)
    if number is None or number <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}.")
    return number


def _snapshot(value: Any) -> Any:
    """A copy of a mutable array or list, so later changes in the env do not rewrite history."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return list(value)
    return value


# --- series and stats ----------------------------------------------------------------------


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
        _positive(self.width, "Series width")
        if self.rebase is not None:
            _positive(self.rebase, "Series rebase")


@dataclass(frozen=True)
class Stat:
    """A header figure: its label, value source, format and optional change since the episode
    started (``delta="relative"`` as a percentage, ``"absolute"`` in the value's format)."""

    label: str
    source: Source
    format: str | Callable[[Any], Any] = "{:,.2f}"
    delta: Literal["relative", "absolute"] | None = None
    higher_is_better: bool = True

    def __post_init__(self) -> None:
        if self.delta not in (None, "relative", "absolute"):
            raise ValueError(f"delta must be None, 'relative' or 'absolute', got {self.delta!r}.")

    def text(self, value: Any) -> str:
        """``value`` formatted; ``—`` for None or a non-finite float; a leading hyphen's text
        gets true minus signs."""
        if value is None or (isinstance(value, float | np.floating) and not math.isfinite(value)):
            return _DASH
        out = str(self.format(value)) if callable(self.format) else self.format.format(value)
        return out.replace("-", MINUS) if out.startswith("-") else out


# --- recorded history and the view of it ---------------------------------------------------


class _History:
    """The samples recorded for one env during one episode."""

    __slots__ = ("context", "first", "steps", "values")

    def __init__(self) -> None:
        self.steps: list[Any] = []
        self.values: dict[str, list[Any]] = {}
        self.context: dict[str, Any] = {}
        # First finite value of each key among the samples that trim() dropped.
        self.first: dict[str, float] = {}

    def record(self, step: Any, samples: Mapping[str, Any], replace: bool) -> None:
        """Append a sample (every key; missing ones NaN), or overwrite the last when
        ``replace`` and there is one. A new key is back-filled with NaN."""
        if replace and self.steps:
            self.steps[-1] = step
            for column in self.values.values():
                column[-1] = math.nan
        else:
            self.steps.append(step)
            for column in self.values.values():
                column.append(math.nan)
        n = len(self.steps)
        for key, value in samples.items():
            self.values.setdefault(key, [math.nan] * n)[-1] = value

    def trim(self, keep: int) -> None:
        """Keep only the last ``keep`` samples."""
        if keep < 0:
            raise ValueError(f"keep must be >= 0, got {keep}.")
        drop = max(len(self.steps) - keep, 0)
        if drop == 0:
            return
        del self.steps[:drop]
        for key, column in self.values.items():
            if key not in self.first:
                found = next((v for v in map(_number, column[:drop]) if v is not None), None)
                if found is not None:
                    self.first[key] = found
            del column[:drop]

    def first_finite(self, key: str) -> float:
        """The first finite number recorded under ``key`` this episode (NaN if none)."""
        if key in self.first:
            return self.first[key]
        found = (v for v in map(_number, self.values.get(key, ())) if v is not None)
        return next(found, math.nan)


class View:
    """What a panel sees while drawing: the env, its history under the panel's keys, the
    theme, the scale and the shared time axis."""

    def __init__(
        self,
        env: Any,
        history: _History,
        prefix: str,
        theme: Theme,
        scale: float,
        x_domain: tuple[float, float],
        show_x: bool,
        gutter: float,
    ) -> None:
        self.env = env
        self.theme = theme
        self.scale = float(scale)
        self.steps: _Floats = np.asarray(history.steps, dtype=np.float64)
        self.x_domain = x_domain
        self.show_x = show_x
        self.gutter = float(gutter)
        self._history = history
        self._prefix = prefix

    @property
    def step(self) -> float:
        """The latest recorded step (NaN before any)."""
        return float(self.steps[-1]) if self.steps.size else math.nan

    def raw(self, key: str) -> list[Any]:
        """Every recorded sample of ``key``, as read (NaN where it was not recorded)."""
        try:
            return self._history.values[self._prefix + key]
        except KeyError:
            raise KeyError(
                f"Nothing recorded under {key!r}; is it in the panel's sources()?"
            ) from None

    def latest(self, key: str) -> Any:
        """The latest sample of ``key``."""
        return self.raw(key)[-1]

    def values(self, key: str) -> _Floats:
        """The samples of ``key`` as floats: ``(n,)`` for numbers, ``(n, k)`` for vectors
        (shorter vectors, numbers and None padded with NaN)."""
        samples = self.raw(key)
        try:
            out = np.array([np.nan if v is None else v for v in samples], dtype=np.float64)
        except ValueError:  # ragged
            rows = [
                np.asarray(np.nan if v is None else v, dtype=np.float64).ravel() for v in samples
            ]
            out = np.full((len(rows), max(r.size for r in rows)), np.nan)
            for i, row in enumerate(rows):
                out[i, : row.size] = row
        return out.reshape(len(samples), -1) if out.ndim > 2 else out

    def first(self, key: str) -> float:
        """The first finite number of ``key`` this episode, even if the window dropped it."""
        return self._history.first_finite(self._prefix + key)

    def context(self, key: str) -> Any:
        """The value of the panel's context ``key``, read when the episode started."""
        try:
            return self._history.context[self._prefix + key]
        except KeyError:
            raise KeyError(f"No context {key!r}; is it in the panel's context()?") from None

    def color(self, spec: ColorSpec, slot: int = 0) -> Color:
        """``resolve_color`` with this view's theme."""
        return resolve_color(self.theme, spec, slot)

    def size(self, px: float) -> float:
        """``px`` pixels at this view's scale."""
        return px * self.scale


# --- panels and layout ---------------------------------------------------------------------


class Panel:
    """A chart in the dashboard's layout; subclasses override ``draw`` and the hooks."""

    timeseries: ClassVar[bool] = True

    def __init__(
        self, title: str | None = None, *, width: float = 1.0, height: float = 1.0
    ) -> None:
        self.title = title
        self.width = _positive(width, "Panel width")
        self.height = _positive(height, "Panel height")

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
        room = right - box.left - title_width - view.size(_STAT_GAP)
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


_Node: TypeAlias = "Panel | Row | Column"


def _node(child: Any) -> _Node:
    if isinstance(child, list | tuple):
        return Row(*child)
    if isinstance(child, Panel | Row | Column):
        return child
    raise TypeError(
        f"A layout item is a Panel, Row, Column or a list of them (a row), "
        f"got {type(child).__name__}."
    )


def _weights(
    given: Sequence[float] | None, children: Sequence[_Node], attr: str
) -> tuple[float, ...]:
    if given is None:
        return tuple(float(getattr(child, attr, 1.0)) for child in children)
    weights = tuple(_positive(w, f"Layout {attr}") for w in given)
    if len(weights) != len(children):
        raise ValueError(f"Got {len(weights)} {attr}s for {len(children)} items.")
    return weights


class Row:
    """Items side by side, sharing the width by ``widths`` (default: each item's ``width``)."""

    def __init__(
        self, *children: Any, widths: Sequence[float] | None = None, height: float = 1.0
    ) -> None:
        self.children = tuple(_node(child) for child in children)
        self.widths = _weights(widths, self.children, "width")
        self.height = _positive(height, "Row height")


class Column:
    """Items stacked top first, sharing the height by ``heights`` (default: each item's
    ``height``)."""

    def __init__(
        self, *children: Any, heights: Sequence[float] | None = None, width: float = 1.0
    ) -> None:
        self.children = tuple(_node(child) for child in children)
        self.heights = _weights(heights, self.children, "height")
        self.width = _positive(width, "Column width")


def _place(node: _Node, box: Box, gap: float) -> Iterator[tuple[Panel, Box]]:
    """Each panel of the layout with its box, in layout order."""
    if isinstance(node, Panel):
        yield node, box.snapped()
        return
    if not node.children:
        return
    parts = box.columns(node.widths, gap) if isinstance(node, Row) else box.rows(node.heights, gap)
    for child, part in zip(node.children, parts, strict=True):
        yield from _place(child, part, gap)


# --- charts --------------------------------------------------------------------------------


def _plot_fits(box: Box, view: View) -> bool:
    return box.width >= view.size(8) and box.height >= view.size(8)


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
            if not isinstance(s, Series) and not _is_source(s):
                raise TypeError(f"A LineChart series is a Series or a source, got {s!r}.")
        if shade is not None and not _is_source(shade):
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
        if not _plot_fits(plot_box, view):
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


class BarChart(Panel):
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
        self.source = source
        self.labels = None if labels is None else tuple(labels)
        self.colors = None if colors is None else tuple(colors)
        self.color = color
        self.negative_color = negative_color
        self.available = available
        self.percent = percent
        self.limit = None if limit is None else _positive(limit, "BarChart limit")

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
        if values.size == 0 or not _plot_fits(area, view):
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


class StackedArea(Panel):
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
        self.source = source
        self.labels = None if labels is None else tuple(labels)
        self.colors = None if colors is None else tuple(colors)
        self.percent = percent
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
        if not _plot_fits(plot_box, view):
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


# --- the dashboard -------------------------------------------------------------------------


def _size(value: Any, least: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"Dashboard {name} must be an int, got {value!r}.")
    if value < least:
        raise ValueError(f"Dashboard {name} must be at least {least}, got {value}.")
    return int(value)


def _count(value: Any) -> bool:
    """Whether ``value`` is a positive int (not a bool)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and int(value) > 0


def _is_source(value: Any) -> TypeGuard[Source]:
    return isinstance(value, str) or callable(value)


class Dashboard(BaseRenderer):
    """A renderer drawing a header (title, subtitle, stats, progress) over a layout of panels.

    Each env (keyed by ``env.unwrapped``) gets its own history of what the panels record.
    The ``step`` source is the episode clock: 0, or less than the last recorded value, starts
    a new history; the same value replaces the last sample. ``horizon`` is where the time axis
    ends at least: ``"auto"`` (a positive int ``episode_length`` or ``n_steps`` of the base env,
    else ``spec.max_episode_steps``), a number, a source or None. With ``window`` only the
    last ``window`` steps are kept and shown.
    """

    def __init__(
        self,
        *items: Any,
        title: str | Callable[[Any], Any] | None = None,
        subtitle: str | Callable[[Any], Any] | None = None,
        stats: Sequence[Stat] = (),
        heights: Sequence[float] | None = None,
        width: int = 720,
        height: int = 450,
        theme: str | Theme = "light",
        step: Source = "elapsed_steps",
        horizon: float | Source | None = "auto",
        window: int | None = None,
    ) -> None:
        self.width = _size(width, _MIN_WIDTH, "width")
        self.height = _size(height, _MIN_HEIGHT, "height")
        self.window = None if window is None else _size(window, 1, "window")
        self.scale = min(self.width / _BASE_WIDTH, self.height / _BASE_HEIGHT)
        self.theme = get_theme(theme)
        for name, text in (("title", title), ("subtitle", subtitle)):
            if text is not None and not _is_source(text):
                raise TypeError(f"Dashboard {name} must be a str or a callable, got {text!r}.")
        self.title = title
        self.subtitle = subtitle
        self.stats = tuple(stats)
        for stat in self.stats:
            if not isinstance(stat, Stat):
                raise TypeError(f"Dashboard stats must be Stat objects, got {stat!r}.")
        if not _is_source(step):
            raise TypeError(f"Dashboard step must be a source, got {step!r}.")
        self.step = step
        if horizon is not None and not _is_source(horizon):
            if isinstance(horizon, bool):
                raise TypeError(f"Dashboard horizon cannot be a bool, got {horizon!r}.")
            _positive(horizon, "Dashboard horizon")
        self.horizon = horizon
        self._histories: weakref.WeakKeyDictionary[Any, _History] = weakref.WeakKeyDictionary()
        # Envs that cannot be weakly referenced, by id; the env is kept so its id stays unique.
        self._by_id: dict[int, tuple[Any, _History]] = {}
        self.set_layout(*items, heights=heights)

    # layout -----------------------------------------------------------------------------------
    def set_layout(self, *items: Any, heights: Sequence[float] | None = None) -> None:
        """Replace the layout (items stacked top first) and forget every history."""
        self.root = Column(*items, heights=heights)
        s = self.scale
        body = Box(_MARGIN * s, _MARGIN * s, self.width - _MARGIN * s, self.height - _HEADER * s)
        placed = list(_place(self.root, body, _PANEL_GAP * s))
        self.panels = [panel for panel, _ in placed]
        self._boxes = [box for _, box in placed]
        # Time series stacked with equal widths share one time axis, labelled on the lowest.
        series_boxes = [box for panel, box in placed if panel.timeseries]
        self._show_x = [
            panel.timeseries and not any(_shares_axis(other, box) for other in series_boxes)
            for panel, box in placed
        ]
        self.reset()

    def check(self, env: Any) -> None:
        """Raise if this dashboard cannot draw ``env`` (a hook; accepts anything here)."""

    def reset(self, env: Any = None) -> None:
        """Forget the history of ``env``, or of every env."""
        if env is None:
            self._histories.clear()
            self._by_id.clear()
            return
        base = getattr(env, "unwrapped", env)
        try:
            self._histories.pop(base, None)
        except TypeError:
            self._by_id.pop(id(base), None)

    # recording ----------------------------------------------------------------------------
    def _history(self, env: Any) -> _History | None:
        base = getattr(env, "unwrapped", env)
        try:
            return self._histories.get(base)
        except TypeError:
            entry = self._by_id.get(id(base))
            return None if entry is None else entry[1]

    def _keep(self, env: Any, history: _History) -> None:
        base = getattr(env, "unwrapped", env)
        try:
            self._histories[base] = history
        except TypeError:
            self._by_id[id(base)] = (base, history)

    def _clock(self, env: Any) -> float | None:
        """The episode clock, or None when the ``step`` source does not exist."""
        try:
            value = read(env, self.step)
        except AttributeError:
            return None
        return None if value is None else float(value)

    def _record(self, env: Any) -> _History:
        """Record the panels' and stats' sources for ``env``'s current step; the history."""
        history = self._history(env)
        last = history.steps[-1] if history is not None and history.steps else None
        clock = self._clock(env)
        if clock is None:
            step = 0.0 if last is None else last + 1.0
            fresh = last is None
        else:
            step = clock
            fresh = last is None or clock == 0 or clock < last
        if history is None or fresh:
            history = _History()
            for index, panel in enumerate(self.panels):
                for key, source in panel.context().items():
                    history.context[f"{index}:{key}"] = _snapshot(read(env, source))
            self._keep(env, history)
        samples = {
            f"{index}:{key}": _snapshot(read(env, source))
            for index, panel in enumerate(self.panels)
            for key, source in panel.sources().items()
        }
        for index, stat in enumerate(self.stats):
            samples[f"stat:{index}"] = _snapshot(read(env, stat.source))
        history.record(step, samples, replace=not fresh and step == last)
        if self.window is not None:
            history.trim(self.window + 1)
        return history

    def _horizon(self, env: Any) -> float | None:
        """Where the episode ends on the clock, if known."""
        horizon = self.horizon
        if horizon is None:
            return None
        if horizon == "auto":
            base = getattr(env, "unwrapped", env)
            spec = getattr(env, "spec", None)
            candidates = (
                getattr(base, "episode_length", None),
                getattr(base, "n_steps", None),
                getattr(spec, "max_episode_steps", None),
            )
            return next((float(v) for v in candidates if v is not None and _count(v)), None)
        number = _number(read(env, horizon) if _is_source(horizon) else horizon)
        return number if number is not None and number > 0 else None

    # drawing --------------------------------------------------------------------------------
    def render(self, env: Any) -> NDArray[np.uint8]:
        """The ``(height, width, 3)`` uint8 frame for ``env``'s current state."""
        self.check(env)
        history = self._record(env)
        horizon = self._horizon(env)
        canvas = Canvas(self.width, self.height, self.theme.background, antialias=True)
        self._draw_header(canvas, env, history, horizon)
        gutter = _GUTTER * self.scale
        views = [
            View(env, history, f"{i}:", self.theme, self.scale, (0.0, 1.0), show_x, gutter)
            for i, show_x in enumerate(self._show_x)
        ]
        domain = self._x_domain(history, horizon, views)
        for panel, box, view in zip(self.panels, self._boxes, views, strict=True):
            if box.width >= 1 and box.height >= 1:
                view.x_domain = domain
                panel.draw(canvas, box, view)
        return canvas.pixels

    def _x_domain(
        self, history: _History, horizon: float | None, views: Sequence[View]
    ) -> tuple[float, float]:
        first, last = float(history.steps[0]), float(history.steps[-1])
        starts = [
            panel.x_start(view)
            for panel, view in zip(self.panels, views, strict=True)
            if panel.timeseries
        ]
        low = min([first, *(float(s) for s in starts if s is not None)])
        end = last if horizon is None else max(horizon, last)
        if self.window is None:
            return low, end
        high = min(end, max(last, low + self.window))
        return max(low, high - self.window), high

    def _draw_header(
        self, canvas: Canvas, env: Any, history: _History, horizon: float | None
    ) -> None:
        theme, s, width, height = self.theme, self.scale, self.width, self.height
        left, right = _MARGIN * s, width - _MARGIN * s
        stats_left = self._draw_stats(canvas, history, right, height)
        with canvas.clip(0, height - _HEADER * s, stats_left - _STAT_GAP * s, height):
            title, subtitle = self._title(env), self._subtitle(env)
            top = height - _TITLE_BASELINE * s
            canvas.text(left, top, title, theme.text, size=17 * s, bold=True)
            if subtitle:
                below = height - _SUBTITLE_BASELINE * s
                canvas.text(left, below, subtitle, theme.text_muted, size=11 * s)
        rule = height - (_HEADER - 6) * s
        canvas.rect(left, rule - 1, right, rule, theme.grid)
        step = float(history.steps[-1])
        if horizon is not None:
            done = min(max(step / horizon, 0.0), 1.0)
            canvas.rect(left, rule - 2 * s, left + done * (right - left), rule, theme.accent)

    def _draw_stats(self, canvas: Canvas, history: _History, right: float, height: int) -> float:
        """Draw the stats right-aligned at ``right``; the left edge of the block."""
        theme, s = self.theme, self.scale
        label_size, value_size, delta_size = 10 * s, 16 * s, 10 * s
        x = right + _STAT_GAP * s
        for index in reversed(range(len(self.stats))):
            stat = self.stats[index]
            key = f"stat:{index}"
            value = history.values[key][-1]
            text = stat.text(value)
            delta = _delta(stat, value, history.first_finite(key))
            value_width = text_width(text, value_size, bold=True)
            mark = 0.0
            if delta is not None:
                mark = 14 * s + text_width(delta[0], delta_size)
            block = max(text_width(stat.label, label_size), value_width + mark)
            x -= _STAT_GAP * s + block
            canvas.text(
                x, height - _LABEL_BASELINE * s, stat.label, theme.text_muted, size=label_size
            )
            baseline = height - _VALUE_BASELINE * s
            canvas.text(x, baseline, text, theme.text, size=value_size, bold=True)
            if delta is not None:
                change, amount = delta
                good = (amount > 0) == stat.higher_is_better
                color = theme.text_muted if amount == 0 else theme.up if good else theme.down
                pen = x + value_width + 6 * s
                if amount != 0:
                    triangle(canvas, pen + 3.5 * s, baseline + 3.5 * s, 4 * s, color, amount > 0)
                canvas.text(pen + 8 * s, baseline, change, color, size=delta_size)
        return x

    def _title(self, env: Any) -> str:
        if isinstance(self.title, str):
            return self.title
        if self.title is not None:
            return str(read(env, self.title))
        spec_id = getattr(getattr(env, "spec", None), "id", None)
        return str(spec_id) if spec_id else type(getattr(env, "unwrapped", env)).__name__

    def _subtitle(self, env: Any) -> str:
        if self.subtitle is None or isinstance(self.subtitle, str):
            return self.subtitle or ""
        value = read(env, self.subtitle)
        return "" if value is None else str(value)


def _shares_axis(lower: Box, upper: Box) -> bool:
    """Whether ``lower`` lies under ``upper`` with the same left and right edges."""
    return (
        lower.top <= upper.bottom
        and abs(lower.left - upper.left) < 1
        and abs(lower.right - upper.right) < 1
    )


def _delta(stat: Stat, value: Any, start: float) -> tuple[str, float] | None:
    """The change text since the episode started and its amount, when the stat has one."""
    now = _number(value)
    if stat.delta is None or now is None or not math.isfinite(start):
        return None
    if stat.delta == "relative":
        if start == 0:
            return None
        amount = (now - start) / abs(start)
        return format_number(amount, 2, sign=True, percent=True), amount
    amount = now - start
    # An integer stat keeps an integer delta, so formats such as "{:d}" apply to both.
    text = stat.text(int(amount) if isinstance(value, numbers.Integral) else amount)
    return ("+" + text if amount > 0 and not text.startswith("+") else text), amount
