"""``Plot``: data mapped to pixels inside a box, with gridlines, lines, areas, markers and
tags; legends and the marker shapes they use."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal, TypeAlias, get_args, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.rendering.box import Box
from sekai.rendering.canvas import Canvas
from sekai.rendering.coverage import ramp
from sekai.rendering.text import face, text_width
from sekai.rendering.theme import Color, Theme
from sekai.rendering.ticks import Ticks, tick_labels

__all__ = [
    "Marker",
    "Swatch",
    "LegendItem",
    "Plot",
    "legend",
    "legend_width",
    "legend_rows",
    "triangle",
    "shade_steps",
]

Marker: TypeAlias = Literal["circle", "up", "down", "diamond"]
"""A marker shape of ``Plot.marker``."""
Swatch: TypeAlias = Literal["line", "dash", "area", "dot", "square", "up", "down"]
"""The mark drawn before a legend label."""
LegendItem: TypeAlias = tuple[str, Color, Swatch]
"""A legend entry: its label, colour and swatch."""

_Floats = NDArray[np.float64]

# Distances in pixels at scale 1.
_GUTTER_GAP = 6.0
_TICK_MARK = 4.0
_TAG_PAD = 4.0
_RING = 2.0
_SWATCH = 14.0
_SWATCH_GAP = 4.0
_ITEM_GAP = 12.0
# Longest piece (px) a plotted line is cut into before rasterising.
_PIECE = 4.0


def _domain(domain: Sequence[float], name: str) -> tuple[float, float]:
    low, high = (float(v) for v in domain)
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"{name} must be finite, got {tuple(domain)}.")
    if high == low:
        return low - 0.5, high + 0.5
    return low, high


def _step_path(xs: _Floats, ys: _Floats) -> tuple[_Floats, _Floats]:
    """Points of a step-after line: each value holds until the next sample."""
    if xs.size < 2:
        return xs, ys
    return np.repeat(xs, 2)[1:], np.repeat(ys, 2)[:-1]


class Plot:
    """Maps data to pixels inside ``box`` and draws marks there.

    Every mark is clipped to the box; value labels and tags go in the gutter right of it and
    time labels below it. ``scale`` multiplies line widths, radii and text sizes. A
    zero-width domain is widened by 1 (half each side).
    """

    def __init__(
        self,
        canvas: Canvas,
        box: Box,
        x_domain: Sequence[float],
        y_domain: Sequence[float],
        theme: Theme,
        scale: float = 1.0,
    ) -> None:
        self.canvas = canvas
        self.box = box
        self.x_domain = _domain(x_domain, "x_domain")
        self.y_domain = _domain(y_domain, "y_domain")
        self.theme = theme
        self.scale = float(scale)

    @overload
    def x(self, value: float) -> float: ...
    @overload
    def x(self, value: NDArray[Any] | Sequence[float]) -> _Floats: ...
    def x(self, value: float | NDArray[Any] | Sequence[float]) -> float | _Floats:
        """Pixel x of data x (a number or an array)."""
        low, high = self.x_domain
        return _map(value, low, high, self.box.left, self.box.right)

    @overload
    def y(self, value: float) -> float: ...
    @overload
    def y(self, value: NDArray[Any] | Sequence[float]) -> _Floats: ...
    def y(self, value: float | NDArray[Any] | Sequence[float]) -> float | _Floats:
        """Pixel y of data y (a number or an array)."""
        low, high = self.y_domain
        return _map(value, low, high, self.box.bottom, self.box.top)

    def _clip(self) -> AbstractContextManager[None]:
        return self.canvas.clip(self.box.left, self.box.bottom, self.box.right, self.box.top)

    def _dash(self, dash: tuple[float, float] | None) -> tuple[float, float] | None:
        return None if dash is None else (dash[0] * self.scale, dash[1] * self.scale)

    def grid(
        self,
        ticks: Ticks,
        labels: Sequence[str] | None = None,
        *,
        size: float = 10,
        avoid: Iterable[float] = (),
    ) -> None:
        """1-px gridlines at ``ticks``, labelled in the right gutter (default: ``tick_labels``).

        A label closer than its text size to the pixel height of an ``avoid`` value is skipped.
        """
        values = [float(t) for t in ticks]
        texts = tick_labels(values) if labels is None else list(labels)
        if len(texts) != len(values):
            raise ValueError(f"Got {len(texts)} labels for {len(values)} ticks.")
        box, text_size = self.box, size * self.scale
        rows = [self.y(v) for v in values]
        with self._clip():
            for row in rows:
                if box.bottom <= row <= box.top:
                    pixel = math.floor(row)
                    self.canvas.rect(box.left, pixel, box.right, pixel + 1, self.theme.grid)
        blocked = [self.y(float(v)) for v in avoid if math.isfinite(v)]
        for row, text in zip(rows, texts, strict=True):
            if not box.bottom <= row <= box.top or any(abs(row - b) < text_size for b in blocked):
                continue
            self.canvas.text(
                box.right + _GUTTER_GAP * self.scale,
                row,
                text,
                self.theme.text_muted,
                size=text_size,
                valign="middle",
            )

    def x_ticks(self, ticks: Ticks, labels: Sequence[str], *, size: float = 10) -> None:
        """Short tick marks on the bottom edge and labels centred under them.

        Ticks outside the box are skipped, and so is a label that would overlap the previous one.
        """
        if len(labels) != len(ticks):
            raise ValueError(f"Got {len(labels)} labels for {len(ticks)} ticks.")
        box, text_size = self.box, size * self.scale
        placed = -math.inf
        for tick, text in zip(ticks, labels, strict=True):
            column = self.x(float(tick))
            if not box.left <= column <= box.right:
                continue
            pixel = min(math.floor(column), math.ceil(box.right) - 1)
            with self._clip():
                self.canvas.rect(
                    pixel,
                    box.bottom,
                    pixel + 1,
                    box.bottom + _TICK_MARK * self.scale,
                    self.theme.axis,
                )
            half = text_width(text, text_size) / 2
            if column - half < placed + _GUTTER_GAP * self.scale:
                continue
            self.canvas.text(
                column,
                box.bottom - _TICK_MARK * self.scale,
                text,
                self.theme.text_muted,
                size=text_size,
                align="center",
                valign="top",
            )
            placed = column + half

    def hline(
        self,
        value: float,
        color: Color,
        *,
        width: float = 1.0,
        dash: tuple[float, float] | None = None,
        alpha: float = 1.0,
    ) -> None:
        """A horizontal line across the box at data ``value``."""
        row = _crisp(self.y(float(value)), width * self.scale)
        self._rule((self.box.left, row), (self.box.right, row), color, width, dash, alpha)

    def vline(
        self,
        value: float,
        color: Color,
        *,
        width: float = 1.0,
        dash: tuple[float, float] | None = None,
        alpha: float = 1.0,
    ) -> None:
        """A vertical line across the box at data ``value``."""
        column = _crisp(self.x(float(value)), width * self.scale)
        self._rule((column, self.box.bottom), (column, self.box.top), color, width, dash, alpha)

    def _rule(
        self,
        start: tuple[float, float],
        end: tuple[float, float],
        color: Color,
        width: float,
        dash: tuple[float, float] | None,
        alpha: float,
    ) -> None:
        """A straight line between pixel points, clipped to the box, at this plot's scale."""
        with self._clip():
            self.canvas.line(
                start, end, color, width * self.scale, alpha=alpha, dash=self._dash(dash)
            )

    def line(
        self,
        xs: ArrayLike,
        ys: ArrayLike,
        color: Color,
        *,
        width: float = 2.0,
        dash: tuple[float, float] | None = None,
        alpha: float = 1.0,
        step: bool = False,
    ) -> None:
        """A line through the samples (non-finite ones break it); ``step`` holds each value
        until the next sample."""
        px, py = self._points(xs, ys)
        if step:
            px, py = _step_path(px, py)
        points = np.column_stack([px, py])
        with self._clip():
            if dash is None:
                _stroke(self.canvas, points, color, width * self.scale, alpha, self.box)
            else:
                self.canvas.polyline(
                    points, color, width * self.scale, alpha=alpha, dash=self._dash(dash)
                )

    def area(
        self,
        xs: ArrayLike,
        ys: ArrayLike,
        color: Color,
        *,
        base: float | ArrayLike | None = None,
        alpha: float = 0.1,
        step: bool = False,
    ) -> None:
        """Fill between the samples and ``base`` (a value, one per sample, or the bottom of the
        y domain)."""
        px, py = self._points(xs, ys)
        level = self.y_domain[0] if base is None else base
        pb = np.broadcast_to(self.y(np.asarray(level, dtype=np.float64)), px.shape)
        if step:
            pb = _step_path(px, pb)[1]
            px, py = _step_path(px, py)
        with self._clip():
            self.canvas.fill_between(px, py, pb, color, alpha=alpha)

    def _points(self, xs: ArrayLike, ys: ArrayLike) -> tuple[_Floats, _Floats]:
        x = np.asarray(xs, dtype=np.float64)
        y = np.asarray(ys, dtype=np.float64)
        if x.ndim != 1 or x.shape != y.shape:
            raise ValueError(f"xs and ys must be 1-D of one length, got {x.shape} and {y.shape}.")
        return self.x(x), self.y(y)

    def shade(self, x0: float, x1: float, color: Color, *, alpha: float = 0.08) -> None:
        """A full-height band from data ``x0`` to ``x1``."""
        with self._clip():
            self.canvas.rect(
                self.x(float(x0)),
                self.box.bottom,
                self.x(float(x1)),
                self.box.top,
                color,
                alpha=alpha,
            )

    def marker(
        self,
        x: float,
        y: float,
        color: Color,
        *,
        shape: Marker = "circle",
        radius: float = 4.0,
        ring: bool = True,
    ) -> None:
        """A marker at a data point, optionally ringed 2 px wide in the background colour."""
        cx, cy, r = self.x(float(x)), self.y(float(y)), radius * self.scale
        with self._clip():
            if ring:
                _shape(self.canvas, cx, cy, r + _RING * self.scale, self.theme.background, shape)
            _shape(self.canvas, cx, cy, r, color, shape)

    def tag(self, y: float, text: str, color: Color, *, size: float = 10) -> None:
        """A pill in the gutter at data ``y`` (kept within the box's height) showing ``text``
        in ``theme.ink_on(color)``."""
        row = self.y(float(y))
        if not math.isfinite(row):
            return
        font = face(size * self.scale)
        pad = _TAG_PAD * self.scale
        half = (font.ascent + font.descent) / 2 + pad / 2
        row = min(max(row, self.box.bottom + half), self.box.top - half)
        left = self.box.right + _GUTTER_GAP * self.scale - pad
        right = left + font.width(text) + 2 * pad
        self.canvas.rect(left, row - half, right, row + half, color, radius=half)
        self.canvas.text(
            left + pad, row, text, self.theme.ink_on(color), size=font.size, valign="middle"
        )


def _stroke(
    canvas: Canvas, points: _Floats, color: Color, width: float, alpha: float, bounds: Box
) -> None:
    """A round-capped, round-joined line through ``points`` (non-finite ones break it), drawn
    within ``bounds``.

    A pixel's opacity is the overlap of the line's width with the pixel, measured across the
    line from the pixel's centre: exact for a straight stretch, and far cheaper than the
    canvas's exact polygon coverage for series of hundreds of points.
    """
    start, end = points[:-1], points[1:]
    finite = np.isfinite(start).all(axis=1) & np.isfinite(end).all(axis=1)
    start, end = start[finite], end[finite]
    half = width / 2
    if start.size == 0 or not (math.isfinite(half) and half > 0):
        return
    # Cut long segments into short pieces, so each piece's block of pixels stays small.
    pieces = np.maximum(np.ceil(np.hypot(*(end - start).T) / _PIECE), 1).astype(np.int64)
    owner = np.repeat(np.arange(pieces.size), pieces)
    index = ramp(pieces)
    along = (end - start)[owner]
    a = start[owner] + along * (index / pieces[owner])[:, None]
    b = start[owner] + along * ((index + 1) / pieces[owner])[:, None]
    # Pixels whose centres lie within half + 0.5 of a piece, inside the bounds.
    reach = half + 0.5
    lower = np.floor(np.array([bounds.left, bounds.bottom]))
    upper = np.ceil(np.array([bounds.right, bounds.top])) - 1
    first = np.maximum(np.ceil(np.minimum(a, b) - reach - 0.5), lower).astype(np.int64)
    last = np.minimum(np.floor(np.maximum(a, b) + reach - 0.5), upper).astype(np.int64)
    span = np.maximum(last - first + 1, 0)
    count = span[:, 0] * span[:, 1]
    if count.sum() == 0:
        return
    piece = np.repeat(np.arange(count.size), count)
    cell = ramp(count)
    columns = first[piece, 0] + cell % span[piece, 0]
    rows = first[piece, 1] + cell // span[piece, 0]
    # Distance from each pixel centre to its piece.
    centre = np.column_stack([columns, rows]) + 0.5
    direction = (b - a)[piece]
    squared = np.einsum("ij,ij->i", direction, direction)
    offset = centre - a[piece]
    t = np.clip(np.einsum("ij,ij->i", offset, direction) / np.maximum(squared, 1e-300), 0, 1)
    distance = np.hypot(*(offset - direction * t[:, None]).T)
    cover = np.clip(np.minimum(0.5, distance + half) - np.maximum(-0.5, distance - half), 0, 1)
    left, bottom = int(columns.min()), int(rows.min())
    w, h = int(columns.max()) - left + 1, int(rows.max()) - bottom + 1
    opacity = np.zeros(w * h)
    np.maximum.at(opacity, (rows - bottom) * w + (columns - left), cover)
    image = np.empty((h, w, 4), dtype=np.uint8)
    image[..., :3] = color
    image[..., 3] = np.floor(opacity.reshape(h, w)[::-1] * 255 + 0.5)
    canvas.image(image, left, bottom, left + w, bottom + h, alpha=alpha)


def _map(
    value: float | NDArray[Any] | Sequence[float],
    low: float,
    high: float,
    start: float,
    end: float,
) -> float | _Floats:
    out = start + (np.asarray(value, dtype=np.float64) - low) * ((end - start) / (high - low))
    return float(out) if out.ndim == 0 else out


def _crisp(position: float, width: float) -> float:
    """A thin line's centre moved onto a pixel centre (odd widths) or edge (even ones)."""
    if not math.isfinite(position) or width > 3:
        return position
    offset = 0.5 if round(width) % 2 else 0.0
    return math.floor(position - offset + 0.5) + offset


def _shape(canvas: Canvas, x: float, y: float, r: float, color: Color, shape: Marker) -> None:
    if shape == "circle":
        canvas.circle(x, y, r, color)
    elif shape == "diamond":
        canvas.polygon([(x, y - r), (x + r, y), (x, y + r), (x - r, y)], color)
    elif shape in ("up", "down"):
        triangle(canvas, x, y, r, color, shape == "up")
    else:
        raise ValueError(f"Unknown marker shape {shape!r}; expected one of {get_args(Marker)}.")


def triangle(canvas: Canvas, x: float, y: float, r: float, color: Color, up: bool) -> None:
    """An equilateral triangle centred at ``(x, y)``, vertices ``r`` from the centre, pointing
    up or down."""
    sign = 1.0 if up else -1.0
    half = r * math.sqrt(3) / 2
    canvas.polygon(
        [(x, y + sign * r), (x - half, y - sign * r / 2), (x + half, y - sign * r / 2)], color
    )


def shade_steps(
    plot: Plot, steps: ArrayLike, on: ArrayLike, color: Color, alpha: float = 0.08
) -> None:
    """Shade each run of steps where ``on`` is true; a step's band reaches halfway to its
    neighbours (half a step past the ends)."""
    xs = np.asarray(steps, dtype=np.float64)
    flags = np.asarray(on)
    if xs.ndim != 1 or flags.shape != xs.shape:
        raise ValueError(f"Need one flag per step, got {flags.shape} for {xs.shape} steps.")
    if xs.size == 0:
        return
    gaps = np.diff(xs)
    first = gaps[0] / 2 if gaps.size else 0.5
    last = gaps[-1] / 2 if gaps.size else 0.5
    edges = np.concatenate([[xs[0] - first], xs[:-1] + gaps / 2, [xs[-1] + last]])
    padded = np.concatenate([[False], flags.astype(bool), [False]])
    change = np.flatnonzero(padded[1:] != padded[:-1])
    for start, stop in zip(change[::2], change[1::2], strict=True):
        plot.shade(edges[start], edges[stop], color, alpha=alpha)


def legend_width(items: Sequence[LegendItem], *, scale: float = 1.0, size: float = 10) -> float:
    """Width of the legend that ``legend`` draws for ``items``."""
    if not items:
        return 0.0
    texts = sum(text_width(label, size * scale) for label, _, _ in items)
    marks = len(items) * (_SWATCH + _SWATCH_GAP) + (len(items) - 1) * _ITEM_GAP
    return texts + marks * scale


def legend_rows(
    items: Sequence[LegendItem], width: float, *, scale: float = 1.0
) -> list[list[LegendItem]]:
    """Legend items in rows no wider than ``width`` (one item a row at least)."""
    rows: list[list[LegendItem]] = []
    for item in items:
        if not rows or legend_width([*rows[-1], item], scale=scale) > width:
            rows.append([])
        rows[-1].append(item)
    return rows


def legend(
    canvas: Canvas,
    x: float,
    y: float,
    items: Sequence[LegendItem],
    theme: Theme,
    *,
    scale: float = 1.0,
    size: float = 10,
    align: Literal["left", "right"] = "right",
) -> float:
    """Draw ``(label, colour, swatch)`` items in a row centred on height ``y``, starting at
    ``x`` (``align="left"``) or ending there; returns the width."""
    if align not in ("left", "right"):
        raise ValueError(f"align must be 'left' or 'right', got {align!r}.")
    width = legend_width(items, scale=scale, size=size)
    pen = x if align == "left" else x - width
    for label, color, swatch in items:
        _swatch(canvas, pen, y, color, swatch, scale)
        pen += (_SWATCH + _SWATCH_GAP) * scale
        pen += canvas.text(pen, y, label, theme.text_secondary, size=size * scale, valign="middle")
        pen += _ITEM_GAP * scale
    return width


def _swatch(
    canvas: Canvas, left: float, y: float, color: Color, swatch: Swatch, scale: float
) -> None:
    right, middle = left + _SWATCH * scale, left + _SWATCH * scale / 2
    half = 4 * scale
    if swatch in ("line", "dash"):
        dash = (4 * scale, 2 * scale) if swatch == "dash" else None
        canvas.line((left, y), (right, y), color, 2 * scale, dash=dash)
    elif swatch == "area":
        canvas.rect(left, y - half, right, y + half, color, alpha=0.25)
        canvas.line((left, y + half), (right, y + half), color, 1.5 * scale)
    elif swatch == "dot":
        canvas.circle(middle, y, 3.5 * scale, color)
    elif swatch == "square":
        canvas.rect(middle - half, y - half, middle + half, y + half, color, radius=scale)
    elif swatch in ("up", "down"):
        triangle(canvas, middle, y, 5 * scale, color, swatch == "up")
    else:
        raise ValueError(f"Unknown swatch {swatch!r}; expected one of {get_args(Swatch)}.")
