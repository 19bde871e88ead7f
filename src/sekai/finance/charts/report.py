"""One-page reports of a backtest and of a walk-forward test, drawn from NumPy arrays.

``backtest_report`` stacks equity against a benchmark, drawdown and holdings per asset on one
time axis beside a summary table; ``walk_forward_report`` draws the stitched out-of-sample
equity with each test fold shaded and labelled, its drawdown and a table of the folds.
"""

from __future__ import annotations

import datetime
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.rendering.box import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.dates import date_ticks, seconds
from sekai.rendering.plot import LegendItem, Plot, legend, legend_rows, legend_width
from sekai.rendering.text import text_width
from sekai.rendering.theme import Color, Theme, get_theme
from sekai.rendering.ticks import format_number, nice_ticks, tick_count, tick_labels, value_range
from sekai.utils.validation import check_int

__all__ = ["backtest_report", "walk_forward_report"]

_Floats = NDArray[np.float64]
# A line of a panel: its label, values, colour and whether it is dashed.
_Line = tuple[str, _Floats, Color, bool]

# Pixels at scale 1, the scale of a 960 x 720 page.
_BASE_WIDTH, _BASE_HEIGHT = 960, 720
_MIN_WIDTH, _MIN_HEIGHT = 640, 480
_MARGIN = 16.0
_HEADER = 62.0
_PANEL_GAP = 18.0
_TABLE_GAP = 28.0
_GUTTER = 62.0
_TITLE_BAND = 22.0
_LEGEND_ROW = 16.0
_LEGEND_END = 10.0
_TIME_BAND = 18.0
_TABLE_ROW = 19.0
_CELL_GAP = 12.0
_TIME_LABEL = 100.0
_FOLD_LABEL = 16.0
_DASH = (5.0, 3.0)


@dataclass(frozen=True)
class _Page:
    """A report being drawn: its canvas, theme, scale and the shared time axis."""

    canvas: Canvas
    theme: Theme
    scale: float
    xs: _Floats
    times: NDArray[np.datetime64] | None

    def size(self, px: float) -> float:
        return px * self.scale


# -- inputs ---------------------------------------------------------------------------------


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}.")
    return value


def _times(timestamps: ArrayLike) -> tuple[_Floats, NDArray[np.datetime64] | None]:
    """Plot x of each time (seconds since 1970 for dates) and the dates, if they are."""
    times = np.asarray(timestamps)
    if times.dtype.kind not in "Miuf":
        raise TypeError(f"timestamps must be datetime64 or numbers, got dtype {times.dtype}.")
    if times.ndim != 1 or times.size < 2:
        raise ValueError(f"timestamps must be 1-D with 2 or more times, got shape {times.shape}.")
    dates = times if times.dtype.kind == "M" else None
    xs = seconds(times) if dates is not None else times.astype(np.float64)
    if not np.all(np.isfinite(xs)):
        raise ValueError("timestamps must be finite (no NaN or NaT).")
    if not np.all(np.diff(xs) > 0):
        raise ValueError("timestamps must be strictly increasing.")
    return xs, dates


def _curve(values: ArrayLike, name: str, n: int) -> _Floats:
    """An equity curve of ``n`` finite values > 0."""
    curve = np.asarray(values)
    if curve.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numbers, got dtype {curve.dtype}.")
    if curve.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), one value per time, got {curve.shape}.")
    out = curve.astype(np.float64)
    bad = np.flatnonzero(~(np.isfinite(out) & (out > 0)))
    if bad.size:
        raise ValueError(f"{name} must be finite and > 0, got {out[bad[0]]} at index {bad[0]}.")
    return out


def _holdings_of(positions: ArrayLike, periods: int) -> _Floats:
    """Finite holdings of shape ``(periods, k)``."""
    held = np.asarray(positions)
    if held.dtype.kind not in "iuf":
        raise TypeError(f"positions must be numbers, got dtype {held.dtype}.")
    if held.ndim != 2 or held.shape[0] != periods or held.shape[1] < 1:
        raise ValueError(
            f"positions must have shape ({periods}, k), one row per period between times, "
            f"got {held.shape}."
        )
    out = held.astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError("positions must be finite.")
    return out


def _labels(labels: Any, k: int) -> list[str]:
    """``k`` asset labels: ``labels``, or ``Asset 1..k`` when empty."""
    if isinstance(labels, str) or not isinstance(labels, Sequence):
        raise TypeError(f"position_labels must be a sequence of str, got {labels!r}.")
    names = [_text(label, f"position_labels[{i}]") for i, label in enumerate(labels)]
    if not names:
        return [f"Asset {i + 1}" for i in range(k)]
    if len(names) != k:
        raise ValueError(f"position_labels must have {k} labels, one per column, got {len(names)}.")
    return names


def _cells(row: Any, name: str) -> tuple[str, ...]:
    if isinstance(row, str) or not isinstance(row, Sequence):
        raise TypeError(f"{name} must be a sequence of str, got {row!r}.")
    return tuple(_text(cell, f"{name}[{j}]") for j, cell in enumerate(row))


def _rows(rows: Any, width: int | None) -> list[tuple[str, ...]]:
    """The ``summary`` rows of str cells, all ``width`` long (or as long as the first)."""
    if isinstance(rows, str) or not isinstance(rows, Sequence):
        raise TypeError(f"summary must be a sequence of rows of str, got {rows!r}.")
    out: list[tuple[str, ...]] = []
    for i, row in enumerate(rows):
        cells = _cells(row, f"summary[{i}]")
        expected = width or (len(out[0]) if out else max(len(cells), 1))
        if len(cells) != expected:
            raise ValueError(f"summary[{i}] must have {expected} cells, got {len(cells)}.")
        out.append(cells)
    return out


def _when(value: Any, dates: bool, name: str) -> float:
    """A fold bound as plot x: a date (datetime64, date or ISO str) or a number, as the
    timestamps are."""
    if not dates:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{name} must be a number like timestamps, got {value!r}.")
        number = float(value)
    elif isinstance(value, np.datetime64 | datetime.date | str):
        try:
            number = float(seconds(np.datetime64(value)))
        except ValueError:
            raise ValueError(f"{name} must be a date, got {value!r}.") from None
    else:
        raise TypeError(f"{name} must be a date like timestamps, got {value!r}.")
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}.")
    return number


def _folds(folds: Any, xs: _Floats, dates: bool) -> list[tuple[float, float, str]]:
    """Ordered, non-overlapping test periods (plot x) that meet the time axis ``xs``."""
    if isinstance(folds, str) or not isinstance(folds, Sequence):
        raise TypeError(f"folds must be a sequence of (start, end, label), got {folds!r}.")
    if not folds:
        raise ValueError("folds must hold one or more (start, end, label) test periods.")
    out: list[tuple[float, float, str]] = []
    for i, fold in enumerate(folds):
        if isinstance(fold, str) or not isinstance(fold, Sequence):
            raise TypeError(f"folds[{i}] must be a (start, end, label) tuple, got {fold!r}.")
        if len(fold) != 3:
            raise ValueError(f"folds[{i}] must be (start, end, label), got {len(fold)} items.")
        start = _when(fold[0], dates, f"folds[{i}] start")
        end = _when(fold[1], dates, f"folds[{i}] end")
        label = _text(fold[2], f"folds[{i}] label")
        if not start < end:
            raise ValueError(f"folds[{i}] must start before it ends, got {fold[0]!r}, {fold[1]!r}.")
        if out and start < out[-1][1]:
            raise ValueError(
                f"folds[{i}] starts before folds[{i - 1}] ends; folds must not overlap."
            )
        if end <= xs[0] or start >= xs[-1]:
            raise ValueError(f"folds[{i}] lies outside the timestamps.")
        out.append((start, end, label))
    return out


def _size(value: Any, default: int, least: int, name: str) -> int:
    if value is None:
        return default
    return check_int(value, name, low=least)


# -- drawing --------------------------------------------------------------------------------


def _drawdown(equity: _Floats) -> _Floats:
    """The fraction below the running peak (0 or negative)."""
    return equity / np.maximum.accumulate(equity) - 1.0


def _period(xs: _Floats, times: NDArray[np.datetime64] | None) -> str:
    """The first and last time, to the day (or minute) for dates."""
    if times is not None:
        midnight = bool(np.all(times == times.astype("datetime64[D]")))
        first, last = np.datetime_as_string(times[[0, -1]], unit="D" if midnight else "m")
        return f"{first} \u2013 {last}".replace("T", " ")
    integer = bool(np.all(xs == np.round(xs)))
    first, last = (format_number(x, 0 if integer else 2) for x in xs[[0, -1]])
    return f"{first} \u2013 {last}"


def _start(
    width: int, height: int, theme: str | Theme, title: str, subtitle: str
) -> tuple[Canvas, Theme, float, Box]:
    """A page with its header drawn: the canvas, theme, scale and the box under the header."""
    palette = get_theme(theme)
    canvas = Canvas(width, height, palette.background, antialias=True)
    s = min(width / _BASE_WIDTH, height / _BASE_HEIGHT)
    left, right = _MARGIN * s, width - _MARGIN * s
    with canvas.clip(0, height - _HEADER * s, right, height):
        canvas.text(left, height - 30 * s, title, palette.text, size=18 * s, bold=True)
        canvas.text(left, height - 48 * s, subtitle, palette.text_muted, size=11 * s)
    rule = height - (_HEADER - 4) * s
    canvas.rect(left, rule - 1, right, rule, palette.grid)
    return canvas, palette, s, Box(left, _MARGIN * s, right, height - _HEADER * s)


def _time_ticks(page: _Page, width: float) -> tuple[list[float], list[str]]:
    """The time axis's ticks (plot x) and labels for a plot ``width`` pixels wide."""
    count = max(int(width / page.size(_TIME_LABEL)), 2)
    if page.times is not None:
        ticks, labels = date_ticks(page.times[0], page.times[-1], count)
        return seconds(ticks).tolist(), labels
    integer = bool(np.all(page.xs == np.round(page.xs)))
    values = nice_ticks(float(page.xs[0]), float(page.xs[-1]), count, integer=integer)
    return values.tolist(), tick_labels(values)


def _heading(page: _Page, x: float, y: float, text: str) -> None:
    """A panel's bold title, its middle at height ``y``."""
    page.canvas.text(x, y, text, page.theme.text, size=page.size(11), bold=True, valign="middle")


def _panel(
    page: _Page,
    box: Box,
    title: str,
    axis: str,
    items: Sequence[LegendItem],
    values: Sequence[_Floats],
    *,
    percent: bool = False,
    include: Sequence[float] = (),
    time_labels: bool = False,
    headroom: float = 0.0,
) -> Plot:
    """Draw a panel's frame in ``box``: title, legend (beside the title, or in rows under it
    when it does not fit there), y-axis name, gridlines and time axis (labelled when
    ``time_labels``); the plot to draw its data in. ``headroom`` px stay clear at the top."""
    canvas, theme, s = page.canvas, page.theme, page.scale
    right = box.right - page.size(_GUTTER)
    middle = box.top - page.size(_TITLE_BAND) / 2
    _heading(page, box.left, middle, title)
    canvas.text(
        right + page.size(6), middle, axis, theme.text_muted, size=page.size(9), valign="middle"
    )
    # The legend ends a little left of the axis name.
    end, row = right - page.size(_LEGEND_END), page.size(_LEGEND_ROW)
    room = end - box.left - text_width(title, page.size(11), bold=True) - page.size(24)
    top = box.top - page.size(_TITLE_BAND)
    if legend_width(items, scale=s) <= room:
        legend(canvas, end, middle, items, theme, scale=s)
    else:
        for line in legend_rows(items, end - box.left, scale=s):
            legend(canvas, box.left, top - row / 2, line, theme, scale=s, align="left")
            top -= row
    bottom = box.bottom + (page.size(_TIME_BAND) if time_labels else 0.0)
    plot_box = Box(box.left, bottom, right, top - page.size(4)).snapped()
    low, high = value_range(*values, include=include)
    clear = page.size(headroom)
    if 0 < clear < plot_box.height - page.size(8):
        high += (high - low) * clear / (plot_box.height - clear)
    plot = Plot(canvas, plot_box, (page.xs[0], page.xs[-1]), (low, high), theme, s)
    x_ticks, x_labels = _time_ticks(page, plot_box.width)
    for x in x_ticks:
        plot.vline(x, theme.grid)
    ticks = nice_ticks(low, high, tick_count(plot_box.height, s))
    plot.grid(ticks, tick_labels(ticks, percent=percent), size=9)
    canvas.rect(plot_box.left, bottom, plot_box.right, bottom + 1, theme.axis)
    if time_labels:
        plot.x_ticks(x_ticks, x_labels, size=9)
    return plot


def _draw_lines(plot: Plot, xs: _Floats, lines: Sequence[_Line], *, step: bool = False) -> None:
    """The lines, the first on top."""
    for _, ys, color, dashed in reversed(lines):
        dash = _DASH if dashed else None
        plot.line(xs, ys, color, width=1.5 if dashed or step else 2.0, dash=dash, step=step)


def _items(lines: Sequence[_Line]) -> list[LegendItem]:
    return [(label, color, "dash" if dashed else "line") for label, _, color, dashed in lines]


def _equity_panel(
    page: _Page,
    box: Box,
    title: str,
    lines: Sequence[_Line],
    folds: Sequence[tuple[float, float, str]] = (),
) -> None:
    """The equity lines over the folds' shading (labelled), the first line on top."""
    items = _items(lines) + ([("test fold", page.theme.accent, "square")] if folds else [])
    values = [ys for _, ys, _, _ in lines]
    headroom = _FOLD_LABEL if folds else 0.0
    plot = _panel(page, box, title, "equity", items, values, headroom=headroom)
    _shade_folds(plot, folds, labels=True)
    _draw_lines(plot, page.xs, lines)


def _drawdown_panel(
    page: _Page,
    box: Box,
    lines: Sequence[_Line],
    folds: Sequence[tuple[float, float, str]] = (),
    *,
    time_labels: bool,
) -> None:
    """Each curve's drawdown over the folds' shading; the first is shaded, and its deepest
    point is in the title."""
    theme = page.theme
    drawdowns = [(label, _drawdown(ys), color, dashed) for label, ys, color, dashed in lines]
    deepest = format_number(float(drawdowns[0][1].min()), 1, percent=True)
    plot = _panel(
        page,
        box,
        f"Drawdown \u00b7 max {deepest}",
        "drawdown",
        _items(drawdowns) if len(drawdowns) > 1 else [],
        [ys for _, ys, _, _ in drawdowns],
        percent=True,
        include=[0.0],
        time_labels=time_labels,
    )
    _shade_folds(plot, folds, labels=False)
    plot.area(page.xs, drawdowns[0][1], theme.down, base=0.0, alpha=0.14)
    plot.hline(0.0, theme.axis)
    _draw_lines(plot, page.xs, drawdowns)


def _grouped(held: _Floats, labels: Sequence[str], colors: int) -> tuple[_Floats, list[str]]:
    """Every column when there are at most ``colors``; else the ``colors - 1`` largest by mean
    ``|holding|`` (largest first) and ``others``, the sum of the rest."""
    if held.shape[1] <= colors:
        return held, list(labels)
    order = np.argsort(-np.abs(held).mean(axis=0), kind="stable")
    top, rest = order[: colors - 1], order[colors - 1 :]
    columns = np.column_stack([held[:, top], held[:, rest].sum(axis=1)])
    return columns, [*(labels[i] for i in top), "others"]


def _holdings_panel(
    page: _Page, box: Box, held: _Floats, labels: Sequence[str], weights: bool
) -> None:
    """One step line per asset (or group), held over each period, with the time labels."""
    theme = page.theme
    palette = max(len(theme.series), 1)
    columns, names = _grouped(held, labels, palette)
    colors = [theme.color(i) for i in range(len(names))]
    if held.shape[1] > palette:
        colors[-1] = theme.neutral
    # Each period's holding lasts until the next time; the last one to the end.
    series = np.vstack([columns, columns[-1:]])
    lines = [(name, series[:, i], colors[i], False) for i, name in enumerate(names)]
    kind = "weight" if weights else "position"
    title, items = f"{kind.capitalize()}s by asset", _items(lines)
    plot = _panel(
        page, box, title, kind, items, [series], percent=weights, include=[0.0], time_labels=True
    )
    plot.hline(0.0, theme.axis)
    _draw_lines(plot, page.xs, lines, step=True)


def _column_widths(
    header: Sequence[str], rows: Sequence[Sequence[str]], scale: float
) -> list[float]:
    table = [*([header] if header else []), *rows]
    return [
        max(float(text_width(row[j], 10 * scale)) for row in table) for j in range(len(table[0]))
    ]


def _table(
    page: _Page, box: Box, title: str, header: Sequence[str], rows: Sequence[Sequence[str]]
) -> None:
    """A titled table: the first column left-aligned, the others right-aligned, spread over
    the box's width; rows that do not fit end in a ``+ N more`` row."""
    canvas, theme = page.canvas, page.theme
    size, row_height = page.size(10), page.size(_TABLE_ROW)
    _heading(page, box.left, box.top - page.size(_TITLE_BAND) / 2, title)
    widths = _column_widths(header, rows, page.scale)
    gap = max((box.width - sum(widths)) / max(len(widths) - 1, 1), page.size(_CELL_GAP))
    edges = [box.left + sum(widths[: j + 1]) + gap * j for j in range(len(widths))]
    top = box.top - page.size(_TITLE_BAND)

    def cells(row: Sequence[str], middle: float, ink: Color) -> None:
        for j, text in enumerate(row):
            if j == 0:
                canvas.text(box.left, middle, text, ink, size=size, valign="middle")
            else:
                canvas.text(edges[j], middle, text, ink, size=size, align="right", valign="middle")

    with canvas.clip(box.left, box.bottom, box.right, box.top):
        if header:
            cells(header, top - row_height / 2, theme.text_muted)
            top -= row_height
            canvas.rect(box.left, top, box.right, top + 1, theme.axis)
        fit = max(int((top - box.bottom) / row_height), 1)
        shown = rows if len(rows) <= fit else rows[: fit - 1]
        for row in shown:
            cells(row, top - row_height / 2, theme.text_secondary)
            top -= row_height
            canvas.rect(box.left, top, box.right, top + 1, theme.grid)
        if len(shown) < len(rows):
            more = f"+ {len(rows) - len(shown)} more"
            canvas.text(
                box.left, top - row_height / 2, more, theme.text_muted, size=size, valign="middle"
            )


def _columns(
    page: _Page, body: Box, header: Sequence[str], rows: Sequence[Sequence[str]]
) -> tuple[Box, Box | None]:
    """The charts' box and the table's (None without rows): as wide as the table needs, from
    22% to 40% of the page."""
    if not rows:
        return body, None
    width = page.canvas.width
    widths = _column_widths(header, rows, page.scale)
    natural = sum(widths) + page.size(_CELL_GAP) * (len(widths) - 1) + page.size(8)
    share = min(max(natural, 0.22 * width), 0.40 * width)
    table = Box(body.right - share, body.bottom, body.right, body.top)
    return Box(body.left, body.bottom, table.left - page.size(_TABLE_GAP), body.top), table


def _shade_folds(plot: Plot, folds: Sequence[tuple[float, float, str]], *, labels: bool) -> None:
    """Each fold's period shaded, accent and neutral in turn, between dashed bounds; with
    ``labels``, its label at the top when it fits the band."""
    theme, canvas, s = plot.theme, plot.canvas, plot.scale
    for i, (start, end, label) in enumerate(folds):
        color = theme.accent if i % 2 == 0 else theme.neutral
        plot.shade(start, end, color, alpha=0.09 if i % 2 == 0 else 0.14)
        for bound in (start, end):
            plot.vline(bound, theme.axis, dash=(3.0, 3.0))
        left, right = max(plot.x(start), plot.box.left), min(plot.x(end), plot.box.right)
        if labels and text_width(label, 9 * s) + 6 * s <= right - left:
            canvas.text(
                (left + right) / 2,
                plot.box.top - 4 * s,
                label,
                theme.text_secondary,
                size=9 * s,
                align="center",
                valign="top",
            )


def backtest_report(
    timestamps: ArrayLike,
    equity: ArrayLike,
    *,
    benchmark: ArrayLike | None = None,
    benchmark_label: str = "benchmark",
    positions: ArrayLike | None = None,
    position_labels: Sequence[str] = (),
    position_kind: str = "weight",
    summary: Sequence[tuple[str, str]] = (),
    title: str = "Backtest",
    theme: str | Theme = "light",
    width: int | None = None,
    height: int | None = None,
) -> NDArray[np.uint8]:
    """A one-page backtest report as an ``(height, width, 3)`` uint8 frame (960 x 720 by
    default).

    On one time axis (dates as labels when ``timestamps`` are datetime64): the equity curve
    ("strategy") against ``benchmark``; the drawdown below each one's running peak; and,
    with ``positions`` (one row per period between times, held until the next time), one
    line per asset (``position_labels``, default ``Asset 1..k``): weights as percentages
    (``position_kind="weight"``) or units (``"position"``). With more assets than the theme's
    palette has colours, the ``len(palette) - 1`` largest by mean ``|holding|`` get a colour
    and the rest are summed as ``others``. ``summary`` rows ``(label, value)`` fill a table
    beside the charts. ``ValueError`` for wrong values, ``TypeError`` for wrong kinds.
    """
    xs, times = _times(timestamps)
    curve = _curve(equity, "equity", xs.size)
    bench = None if benchmark is None else _curve(benchmark, "benchmark", xs.size)
    label = _text(benchmark_label, "benchmark_label")
    if not isinstance(position_kind, str):
        raise TypeError(f"position_kind must be a str, got {position_kind!r}.")
    if position_kind not in ("weight", "position"):
        raise ValueError(f"position_kind must be 'weight' or 'position', got {position_kind!r}.")
    held = None if positions is None else _holdings_of(positions, xs.size - 1)
    if held is None and len(position_labels):
        raise ValueError("position_labels were given without positions.")
    names = [] if held is None else _labels(position_labels, held.shape[1])
    rows = _rows(summary, 2)
    w = _size(width, _BASE_WIDTH, _MIN_WIDTH, "width")
    h = _size(height, _BASE_HEIGHT, _MIN_HEIGHT, "height")
    subtitle = f"{_period(xs, times)} \u00b7 {xs.size - 1} periods"
    canvas, palette, s, body = _start(w, h, theme, _text(title, "title"), subtitle)
    page = _Page(canvas, palette, s, xs, times)
    charts, table = _columns(page, body, (), rows)
    boxes = charts.rows((1.5, 0.8, 1.1) if held is not None else (1.5, 0.8), s * _PANEL_GAP)
    lines: list[_Line] = [("strategy", curve, palette.accent, False)]
    losses: list[_Line] = [("strategy", curve, palette.down, False)]
    if bench is not None:
        lines.append((label, bench, palette.text_muted, True))
        losses.append((label, bench, palette.text_muted, True))
    _equity_panel(page, boxes[0], "Equity", lines)
    _drawdown_panel(page, boxes[1], losses, time_labels=held is None)
    if held is not None:
        _holdings_panel(page, boxes[2], held, names, position_kind == "weight")
    if table is not None:
        _table(page, table, "Summary", (), rows)
    return canvas.to_array()


def walk_forward_report(
    timestamps: ArrayLike,
    equity: ArrayLike,
    *,
    folds: Sequence[tuple[Any, Any, str]],
    summary: Sequence[Sequence[str]] = (),
    columns: Sequence[str] = (),
    title: str = "Walk-forward",
    theme: str | Theme = "light",
    width: int | None = None,
    height: int | None = None,
) -> NDArray[np.uint8]:
    """A one-page walk-forward report as an ``(height, width, 3)`` uint8 frame (960 x 720 by
    default).

    The stitched out-of-sample ``equity`` on one time axis with each test period of
    ``folds`` (``(start, end, label)``, in order and not overlapping; dates when
    ``timestamps`` are datetime64) shaded in turn and labelled where the label fits; its
    drawdown, shaded the same; and ``summary``, one row of str cells per fold (e.g. label,
    return, Sharpe) under the ``columns`` header, as a table. ``ValueError`` for wrong
    values, ``TypeError`` for wrong kinds.
    """
    xs, times = _times(timestamps)
    curve = _curve(equity, "equity", xs.size)
    header = _cells(columns, "columns")
    rows = _rows(summary, len(header) or None)
    w = _size(width, _BASE_WIDTH, _MIN_WIDTH, "width")
    h = _size(height, _BASE_HEIGHT, _MIN_HEIGHT, "height")
    periods = _folds(folds, xs, times is not None)
    subtitle = f"{len(periods)} test folds \u00b7 {_period(xs, times)}"
    canvas, palette, s, body = _start(w, h, theme, _text(title, "title"), subtitle)
    page = _Page(canvas, palette, s, xs, times)
    charts, table = _columns(page, body, header, rows)
    top, bottom = charts.rows((1.6, 0.9), s * _PANEL_GAP)
    lines: list[_Line] = [("out-of-sample", curve, palette.accent, False)]
    _equity_panel(page, top, "Out-of-sample equity", lines, periods)
    losses: list[_Line] = [("equity", curve, palette.down, False)]
    _drawdown_panel(page, bottom, losses, periods, time_labels=True)
    if table is not None:
        _table(page, table, "Folds", header, rows)
    return canvas.to_array()
