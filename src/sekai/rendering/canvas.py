"""``Canvas``: a NumPy RGB raster, origin bottom-left, y up.

Without antialiasing a shape fills the pixels whose centres it contains; with antialiasing
each pixel gets the exact area of the shape inside it (``sekai.rendering.coverage`` computes
both). Circles and arcs are drawn as polygons within 0.01 px of the true curve.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.rendering.coverage import (
    PixelBox,
    area_cover,
    centre_cover,
    interval_cover,
    ring_edges,
)
from sekai.utils.validation import check_int

__all__ = ["Canvas", "rotate"]

_Floats = NDArray[np.float64]

# Largest distance (px) between a curve and the polygon drawn for it.
_CURVE_TOLERANCE = 0.01
# Float noise allowed where exact arithmetic would round a half.
_EPS = 1e-9

_ALIGN = {"left": 0.0, "center": 0.5, "right": 1.0}
_VALIGN = ("baseline", "middle", "top", "bottom")


def rotate(points: ArrayLike, angle: float, origin: Sequence[float] = (0.0, 0.0)) -> _Floats:
    """``points`` (one ``(x, y)`` or an ``(n, 2)`` array) turned counter-clockwise by ``angle``
    radians about ``origin``; same shape, float64."""
    p = np.asarray(points, dtype=np.float64)
    if p.shape[-1:] != (2,):
        raise ValueError(f"rotate expects points of shape (2,) or (n, 2), got {p.shape}.")
    o = np.asarray(origin, dtype=np.float64)
    c, s = math.cos(angle), math.sin(angle)
    d = p - o
    out: _Floats = np.stack([c * d[..., 0] - s * d[..., 1], s * d[..., 0] + c * d[..., 1]], -1)
    return out + o


# --- geometry helpers ------------------------------------------------------------------------
def _points(points: ArrayLike) -> _Floats:
    p = np.asarray(points, dtype=np.float64)
    if p.size == 0:
        return np.zeros((0, 2))
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(f"Expected points of shape (n, 2), got {p.shape}.")
    return p


def _circle_ring(cx: _Floats, cy: _Floats, radius: float) -> _Floats:
    """``(m, n, 2)`` counter-clockwise polygons with the area of circles of ``radius``."""
    n = max(8, math.ceil(math.pi * math.sqrt(radius / (2 * _CURVE_TOLERANCE))))
    r = radius * math.sqrt(2 * math.pi / (n * math.sin(2 * math.pi / n)))
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    return np.stack([cx[:, None] + r * np.cos(t), cy[:, None] + r * np.sin(t)], -1)


def _arc(cx: float, cy: float, radius: float, start: float) -> _Floats:
    """Points of a counter-clockwise quarter arc from angle ``start``, ends included."""
    n = max(2, math.ceil(math.pi / 2 * math.sqrt(radius / (2 * _CURVE_TOLERANCE))))
    t = start + np.linspace(0.0, math.pi / 2, n + 1)
    return np.stack([cx + radius * np.cos(t), cy + radius * np.sin(t)], -1)


def _runs(valid: NDArray[np.bool_]) -> list[tuple[int, int]]:
    """``(start, stop)`` of each run of consecutive True values."""
    padded = np.concatenate([[False], valid, [False]])
    change = np.flatnonzero(padded[1:] != padded[:-1])
    return [(int(a), int(b)) for a, b in zip(change[::2], change[1::2], strict=True)]


def _dashes(path: _Floats, on: float, off: float) -> list[_Floats]:
    """The ``on`` parts of ``path`` cut by the pattern ``(on, off)`` starting at its first point."""
    arc = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(path, axis=0).T))])
    starts = np.arange(0.0, arc[-1], on + off)
    ends = np.minimum(starts + on, arc[-1])
    first = np.stack([np.interp(starts, arc, path[:, 0]), np.interp(starts, arc, path[:, 1])], -1)
    last = np.stack([np.interp(ends, arc, path[:, 0]), np.interp(ends, arc, path[:, 1])], -1)
    lo = np.searchsorted(arc, starts, side="right")
    hi = np.searchsorted(arc, ends, side="left")
    return [
        np.concatenate([first[k : k + 1], path[lo[k] : hi[k]], last[k : k + 1]])
        for k in range(starts.size)
    ]


# --- canvas -----------------------------------------------------------------------------------
def _ink(color: Any) -> _Floats:
    ink = np.asarray(color, dtype=np.float64)
    if ink.shape != (3,) or not np.all((ink >= 0) & (ink <= 255)):
        raise ValueError(f"Expected an (r, g, b) colour with values in [0, 255], got {color!r}.")
    return ink


def _opacity(alpha: float) -> float:
    a = float(alpha)
    return min(max(a, 0.0), 1.0) if a == a else 0.0


def _finite(*values: float) -> bool:
    return all(math.isfinite(v) for v in values)


class Canvas:
    """An ``(height, width, 3)`` uint8 raster, origin bottom-left, y up (see the module docs).

    Every drawing call takes ``alpha`` (clamped into [0, 1]; NaN draws nothing) and writes
    ``dst·(1 - a) + ink·a`` rounded half up, ``a`` being alpha times the pixel's coverage.
    Colours are ``(r, g, b)`` in [0, 255] (``ValueError`` otherwise). Non-finite geometry
    draws nothing.
    """

    def __init__(
        self,
        width: int,
        height: int,
        background: Sequence[int] = (255, 255, 255),
        *,
        antialias: bool = False,
    ) -> None:
        self.width = check_int(width, "Canvas width", low=1)
        self.height = check_int(height, "Canvas height", low=1)
        self.antialias = bool(antialias)
        self.pixels: NDArray[np.uint8] = np.empty((self.height, self.width, 3), dtype=np.uint8)
        self.pixels[...] = _ink(background)
        self._clip: PixelBox = (0, 0, self.width, self.height)

    def to_array(self) -> NDArray[np.uint8]:
        """A copy of the pixels, ``(height, width, 3)`` uint8, first row at the top."""
        return self.pixels.copy()

    def clear(self, color: Sequence[int] = (255, 255, 255)) -> None:
        """Fill the whole canvas with ``color``, ignoring the clip."""
        self.pixels[...] = _ink(color)

    def clip(
        self, left: float, bottom: float, right: float, top: float
    ) -> AbstractContextManager[None]:
        """Restrict drawing to the pixels that the rectangle touches, within the current clip."""
        bounds = (float(left), float(bottom), float(right), float(top))
        if not _finite(*bounds):
            raise ValueError(f"clip bounds must be finite, got {bounds}.")
        box = self._box(*bounds, within=self._clip)
        return self._clipped(box or (0, 0, 0, 0))

    @contextmanager
    def _clipped(self, box: PixelBox) -> Iterator[None]:
        previous, self._clip = self._clip, box
        try:
            yield
        finally:
            self._clip = previous

    def _box(
        self, left: float, bottom: float, right: float, top: float, within: PixelBox | None = None
    ) -> PixelBox | None:
        """The pixels touched by a rectangle, inside the clip; None when none are."""
        cl, cb, cr, ct = self._clip if within is None else within
        lo = max(cl, math.floor(min(max(left, cl - 1.0), cr + 1.0)))
        hi = min(cr, math.ceil(min(max(right, cl - 1.0), cr + 1.0)))
        bo = max(cb, math.floor(min(max(bottom, cb - 1.0), ct + 1.0)))
        to = min(ct, math.ceil(min(max(top, cb - 1.0), ct + 1.0)))
        return (lo, bo, hi, to) if lo < hi and bo < to else None

    def _paint(self, box: PixelBox, cover: _Floats, ink: _Floats, alpha: float) -> None:
        """Composite ``ink`` (a colour or per-pixel colours) over ``box`` with ``cover·alpha``."""
        left, bottom, right, top = box
        a = (cover * alpha)[::-1, :, None]
        region = self.pixels[self.height - top : self.height - bottom, left:right]
        if ink.ndim == 3:
            ink = ink[::-1]
        mixed = region * (1.0 - a) + ink * a
        # Half up, with room for float noise where the exact value is a half.
        region[...] = np.floor(mixed + (0.5 + _EPS))

    def _fill(self, rings: Sequence[_Floats], color: Any, alpha: float, nonzero: bool) -> None:
        ink, a = _ink(color), _opacity(alpha)
        if a == 0 or not rings:
            return
        pts = np.concatenate([r.reshape(-1, 2) for r in rings])
        if not np.isfinite(pts).all():
            return
        (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
        box = self._box(x0, y0, x1, y1)
        if box is None:
            return
        edges = ring_edges(rings)
        if self.antialias:
            cover = area_cover(edges, box, nonzero)
        else:
            cover = centre_cover(edges, box, nonzero)
        self._paint(box, cover, ink, a)

    # --- shapes -------------------------------------------------------------------------------
    def polygon(self, points: ArrayLike, color: Sequence[int], *, alpha: float = 1.0) -> None:
        """Fill a polygon (even-odd rule); fewer than 3 points draw nothing."""
        pts = _points(points)
        if len(pts) < 3:
            _ink(color)
            return
        self._fill([pts[None]], color, alpha, nonzero=False)

    def rect(
        self,
        left: float,
        bottom: float,
        right: float,
        top: float,
        color: Sequence[int],
        *,
        alpha: float = 1.0,
        radius: float = 0.0,
    ) -> None:
        """Fill a rectangle, with corners rounded by ``radius`` (at most half the shorter side)."""
        ink, a = _ink(color), _opacity(alpha)
        x0, x1 = sorted((float(left), float(right)))
        y0, y1 = sorted((float(bottom), float(top)))
        r = float(radius)
        if a == 0 or not _finite(x0, y0, x1, y1, r):
            return
        r = min(max(r, 0.0), (x1 - x0) / 2, (y1 - y0) / 2)
        if r > 0:
            ring = np.concatenate(
                [
                    _arc(x1 - r, y0 + r, r, -math.pi / 2),
                    _arc(x1 - r, y1 - r, r, 0.0),
                    _arc(x0 + r, y1 - r, r, math.pi / 2),
                    _arc(x0 + r, y0 + r, r, math.pi),
                ]
            )
            self._fill([ring[None]], color, a, nonzero=False)
            return
        box = self._box(x0, y0, x1, y1)
        if box is None:
            return
        cx = interval_cover(x0, x1, box[0], box[2], self.antialias)
        cy = interval_cover(y0, y1, box[1], box[3], self.antialias)
        self._paint(box, cy[:, None] * cx[None, :], ink, a)

    def circle(
        self, cx: float, cy: float, radius: float, color: Sequence[int], *, alpha: float = 1.0
    ) -> None:
        """Fill a disc."""
        ink, a = _ink(color), _opacity(alpha)
        x, y, r = float(cx), float(cy), float(radius)
        if a == 0 or not _finite(x, y, r) or r <= 0:
            return
        if self.antialias:
            self._fill([_circle_ring(np.array([x]), np.array([y]), r)], color, a, nonzero=False)
            return
        box = self._box(x - r, y - r, x + r, y + r)
        if box is None:
            return
        dx = np.arange(box[0], box[2]) + 0.5 - x
        dy = np.arange(box[1], box[3]) + 0.5 - y
        inside = dy[:, None] ** 2 + dx[None, :] ** 2 <= r * r
        self._paint(box, inside.astype(np.float64), ink, a)

    def line(
        self,
        start: Sequence[float],
        end: Sequence[float],
        color: Sequence[int],
        width: float = 1.0,
        *,
        alpha: float = 1.0,
        dash: tuple[float, float] | None = None,
    ) -> None:
        """A straight line; see ``polyline``."""
        self.polyline([start, end], color, width, alpha=alpha, dash=dash)

    def polyline(
        self,
        points: ArrayLike,
        color: Sequence[int],
        width: float = 1.0,
        *,
        alpha: float = 1.0,
        dash: tuple[float, float] | None = None,
    ) -> None:
        """A line through ``points`` (non-finite points break it), drawn once where it overlaps.

        Antialiased: round caps and joins; otherwise butt ends. ``dash=(on, off)`` lengths in
        pixels; the pattern restarts after each break.
        """
        _ink(color)
        pattern = (1.0, 0.0) if dash is None else tuple(float(v) for v in dash)
        if len(pattern) != 2 or not (_finite(*pattern) and pattern[0] > 0 and pattern[1] >= 0):
            raise ValueError(f"dash must be (on > 0, off >= 0), got {dash!r}.")
        on, off = pattern
        pts = _points(points)
        half = float(width) / 2
        if not (math.isfinite(half) and half > 0) or _opacity(alpha) == 0:
            return
        paths: list[_Floats] = []
        for a, b in _runs(np.asarray(np.isfinite(pts).all(axis=1))):
            run = pts[a:b]
            moved = np.concatenate([[True], (np.diff(run, axis=0) != 0).any(axis=1)])
            run = run[moved]
            if len(run) < 2:
                continue
            paths.extend(_dashes(run, on, off) if off > 0 else [run])
        if not paths:
            return
        p = np.concatenate([path[:-1] for path in paths])
        q = np.concatenate([path[1:] for path in paths])
        along = q - p
        length = np.hypot(along[:, 0], along[:, 1])
        p, q, along, length = p[length > 0], q[length > 0], along[length > 0], length[length > 0]
        normal = np.stack([-along[:, 1], along[:, 0]], -1) * (half / length)[:, None]
        rings = [np.stack([p - normal, q - normal, q + normal, p + normal], 1)]
        if self.antialias:
            joints = np.concatenate(paths)
            rings.append(_circle_ring(joints[:, 0], joints[:, 1], half))
        self._fill(rings, color, alpha, nonzero=True)

    def fill_between(
        self,
        x: ArrayLike,
        y1: ArrayLike,
        y2: ArrayLike,
        color: Sequence[int],
        *,
        alpha: float = 1.0,
    ) -> None:
        """Fill between two curves sampled at ``x`` (linear in between); a non-finite sample
        leaves a gap."""
        xs = np.asarray(x, dtype=np.float64)
        if xs.ndim != 1:
            raise ValueError(f"fill_between expects 1-D x, got shape {xs.shape}.")
        lo, hi = np.broadcast_arrays(
            np.asarray(y1, dtype=np.float64), np.asarray(y2, dtype=np.float64), xs
        )[:2]
        if lo.shape != xs.shape:
            raise ValueError(f"y1 and y2 must broadcast to x's shape {xs.shape}.")
        rings = [
            np.concatenate(
                [np.stack([xs[a:b], lo[a:b]], -1), np.stack([xs[a:b], hi[a:b]], -1)[::-1]]
            )[None]
            for a, b in _runs(np.isfinite(xs) & np.isfinite(lo) & np.isfinite(hi))
            if b - a >= 2
        ]
        if not rings:
            _ink(color)
            return
        self._fill(rings, color, alpha, nonzero=False)

    def image(
        self,
        image: ArrayLike,
        left: float,
        bottom: float,
        right: float,
        top: float,
        *,
        alpha: float = 1.0,
    ) -> None:
        """Draw an RGB or RGBA uint8 image (first row at the top) stretched over the rectangle,
        each canvas pixel taking the image pixel under its centre."""
        img = np.asarray(image)
        if img.ndim != 3 or img.shape[2] not in (3, 4) or img.shape[0] < 1 or img.shape[1] < 1:
            raise ValueError(f"image must have shape (h, w, 3) or (h, w, 4), got {img.shape}.")
        if img.dtype != np.uint8:
            raise TypeError(f"image must be uint8, got {img.dtype}.")
        a = _opacity(alpha)
        x0, y0, x1, y1 = float(left), float(bottom), float(right), float(top)
        if a == 0 or not _finite(x0, y0, x1, y1) or x1 <= x0 or y1 <= y0:
            return
        box = self._box(x0, y0, x1, y1)
        if box is None:
            return
        h, w = img.shape[:2]
        xc = np.arange(box[0], box[2]) + 0.5
        yc = np.arange(box[1], box[3]) + 0.5
        col = np.clip(np.floor((xc - x0) / (x1 - x0) * w), 0, w - 1).astype(np.int64)
        row = np.clip(np.floor((y1 - yc) / (y1 - y0) * h), 0, h - 1).astype(np.int64)
        src = img[row[:, None], col[None, :]].astype(np.float64)
        cover = (
            interval_cover(y0, y1, box[1], box[3], self.antialias)[:, None]
            * (interval_cover(x0, x1, box[0], box[2], self.antialias)[None, :])
        )
        if img.shape[2] == 4:
            cover = cover * (src[..., 3] / 255.0)
        self._paint(box, cover, src[..., :3], a)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        color: Sequence[int],
        *,
        size: float = 12,
        bold: bool = False,
        align: Literal["left", "center", "right"] = "left",
        valign: Literal["baseline", "middle", "top", "bottom"] = "baseline",
        alpha: float = 1.0,
    ) -> float:
        """Draw antialiased ``text`` anchored at ``(x, y)``; returns its width in pixels.

        The anchor is snapped to whole pixels; ``valign`` places the baseline at ``y``, the
        middle of the ascent-descent band, its top or its bottom.
        """
        if align not in _ALIGN:
            raise ValueError(f"align must be one of {list(_ALIGN)}, got {align!r}.")
        if valign not in _VALIGN:
            raise ValueError(f"valign must be one of {list(_VALIGN)}, got {valign!r}.")
        ink, a = _ink(color), _opacity(alpha)
        from sekai.rendering.text import face

        font = face(size, bold)
        glyphs, width = font.layout(text)
        px, py = float(x), float(y)
        if a == 0 or not _finite(px, py):
            return width
        ascent, descent = font.ascent, font.descent
        baseline = {
            "baseline": py,
            "middle": py - (ascent - descent) / 2,
            "top": py - ascent,
            "bottom": py + descent,
        }[valign]
        ox = math.floor(px - _ALIGN[align] * width + 0.5)
        oy = math.floor(baseline + 0.5)
        for glyph, pen in glyphs:
            h, w = glyph.mask.shape
            gl = ox + round(pen) + round(glyph.left)
            gt = oy + round(glyph.top)
            box = self._box(gl, gt - h, gl + w, gt)
            if box is None:
                continue
            left, bottom, right, top = box
            mask = np.asarray(glyph.mask, dtype=np.float64)
            cover = mask[gt - top : gt - bottom, left - gl : right - gl][::-1]
            self._paint(box, cover, ink, a)
        return width
