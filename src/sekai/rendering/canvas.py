"""``Canvas``: a NumPy RGB raster, origin bottom-left, y up.

Without antialiasing a shape fills the pixels whose centres it contains (a centre on a left or
bottom edge is inside, on a right or top edge outside). With antialiasing each pixel gets the
exact area of the shape inside it: the outline is cut at every row and column line, and each
pixel that a piece of it enters is solved on its own (see ``_area_cover``). Circles and arcs
are drawn as polygons within 0.01 px of the true curve.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["Canvas", "rotate"]

_Floats = NDArray[np.float64]
_Ints = NDArray[np.int64]
_Edges = tuple[_Floats, _Floats, _Floats, _Floats, _Floats]
_Box = tuple[int, int, int, int]

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
def _ramp(counts: _Ints) -> _Ints:
    """``0, 1, ..., n-1`` for each ``n`` in ``counts``, concatenated."""
    total = int(counts.sum())
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    ramp: _Ints = np.arange(total, dtype=np.int64) - starts
    return ramp


def _points(points: ArrayLike) -> _Floats:
    p = np.asarray(points, dtype=np.float64)
    if p.size == 0:
        return np.zeros((0, 2))
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(f"Expected points of shape (n, 2), got {p.shape}.")
    return p


def _edges(rings: Sequence[_Floats]) -> _Edges:
    """Edges of closed rings given as ``(m, v, 2)`` batches: lower end ``(x0, y0)``, upper end
    ``(x1, y1)`` and direction (+1 upwards, -1 downwards). Horizontal edges keep their own
    order (from ``x0`` to ``x1``) and direction +1."""
    start = np.concatenate([r.reshape(-1, 2) for r in rings])
    end = np.concatenate([np.roll(r, -1, axis=1).reshape(-1, 2) for r in rings])
    up = end[:, 1] >= start[:, 1]
    lo = np.where(up[:, None], start, end)
    hi = np.where(up[:, None], end, start)
    return lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1], np.where(up, 1.0, -1.0)


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


# --- coverage ----------------------------------------------------------------------------------
def _centre_cover(edges: _Edges, box: _Box, nonzero: bool) -> _Floats:
    """1 where a pixel centre is inside, else 0; rows bottom-up over ``box``."""
    x0, y0, x1, y1, d = edges
    left, bottom, right, top = box
    r0 = np.clip(np.ceil(np.clip(y0 - 0.5, bottom - 1, top + 1)), bottom, top).astype(np.int64)
    r1 = np.clip(np.ceil(np.clip(y1 - 0.5, bottom - 1, top + 1)), bottom, top).astype(np.int64)
    n = r1 - r0
    e = np.repeat(np.arange(n.size), n)
    rows = r0[e] + _ramp(n)
    x = x0[e] + (rows + 0.5 - y0[e]) * ((x1[e] - x0[e]) / (y1[e] - y0[e]))
    # A crossing counts for every pixel whose centre is at or right of it.
    cols = np.clip(np.ceil(np.clip(x - 0.5, left - 1, right + 1)), left, right).astype(np.int64)
    width = right - left + 1
    counts = np.bincount(
        (rows - bottom) * width + (cols - left),
        weights=d[e] if nonzero else None,
        minlength=(top - bottom) * width,
    )
    winding = np.cumsum(counts.reshape(top - bottom, width), axis=1)[:, :-1]
    inside = np.abs(winding) > 0.5 if nonzero else winding % 2 == 1
    return inside.astype(np.float64)


_Pieces = tuple[_Ints, _Ints, _Floats, _Floats, _Floats, _Floats, _Floats]


def _cut(edges: _Edges, box: _Box) -> _Pieces:
    """Edges inside the box's rows cut at every row and column line into pieces: row, column,
    bottom ``(xa, ya)``, top ``(xb, yb)``, direction.

    Each piece lies in one pixel cell; columns left of the box share the column ``left - 1``,
    those right of it the column ``right``.
    """
    x0, y0, x1, y1, d = edges
    left, bottom, right, top = box
    ys, ye = np.maximum(y0, bottom), np.minimum(y1, top)
    k = ys < ye
    x0, y0, x1, y1, d, ys, ye = x0[k], y0[k], x1[k], y1[k], d[k], ys[k], ye[k]
    dx, dy = x1 - x0, y1 - y0
    xs = np.where(ys == y0, x0, x0 + (ys - y0) * (dx / dy))
    xe = np.where(ye == y1, x1, x0 + (ye - y0) * (dx / dy))
    r_lo = np.floor(ys).astype(np.int64) + 1
    n_rows = np.maximum(np.ceil(ye).astype(np.int64) - r_lo, 0)
    lo = np.clip(np.minimum(xs, xe), left - 1, right + 1)
    hi = np.clip(np.maximum(xs, xe), left - 1, right + 1)
    c_lo = np.maximum(np.floor(lo).astype(np.int64) + 1, left)
    n_cols = np.maximum(np.minimum(np.ceil(hi).astype(np.int64), right + 1) - c_lo, 0)
    n = x0.size
    er = np.repeat(np.arange(n), n_rows)
    r = (r_lo[er] + _ramp(n_rows)).astype(np.float64)
    ec = np.repeat(np.arange(n), n_cols)
    c = (c_lo[ec] + _ramp(n_cols)).astype(np.float64)
    # Cut points of every edge in order along it (kind breaks ties: start, row, column, end);
    # the position along a nearly horizontal edge is only resolved by x, so sort by a parameter.
    ts, te = (ys - y0) / dy, (ye - y0) / dy
    t_row = np.clip((r - y0[er]) / dy[er], ts[er], te[er])
    t_col = np.clip((c - x0[ec]) / dx[ec], ts[ec], te[ec])
    pe = np.concatenate([np.arange(n), er, ec, np.arange(n)])
    pt = np.concatenate([ts, t_row, t_col, te])
    py = np.concatenate([ys, r, np.clip(y0[ec] + t_col * dy[ec], ys[ec], ye[ec]), ye])
    px = np.concatenate([xs, x0[er] + (r - y0[er]) * (dx / dy)[er], c, xe])
    kind = np.repeat(np.arange(4), [n, er.size, ec.size, n])
    o = np.lexsort((kind, pt, pe))
    pe, py, px, kind = pe[o], py[o], px[o], kind[o]
    # Cells follow from the lines crossed, so rounding can never split a cut point's two
    # pieces between cells that disagree.
    rows = np.cumsum(kind == 1)
    cols = np.cumsum((kind == 2) * np.sign(dx)[pe]).astype(np.int64)
    first = np.searchsorted(pe, pe)
    xs_in = np.clip(xs, left - 2, right + 1)
    start_col = np.floor(xs_in).astype(np.int64) - ((xs_in == np.floor(xs_in)) & (dx < 0))
    start_col = np.clip(start_col, left - 1, right)
    piece = np.flatnonzero(pe[1:] == pe[:-1])
    e = pe[piece]
    row = np.floor(ys).astype(np.int64)[e] + rows[piece] - rows[first[piece]]
    col = start_col[e] + cols[piece] - cols[first[piece]]
    ya = np.clip(py[piece], row, row + 1)
    yb = np.clip(py[piece + 1], ya, row + 1)
    # Inside the box a piece keeps to its cell; the left bucket keeps left of the box.
    low = np.where(col >= left, col, -np.inf)
    high = np.where(col < right, col + 1, np.inf)
    xa = np.clip(px[piece], low, high)
    xb = np.clip(px[piece + 1], low, high)
    return row, col, xa, ya, xb, yb, d[e]


def _firsts(keys: _Ints) -> NDArray[np.bool_]:
    """True where a run of equal ``keys`` starts."""
    out: NDArray[np.bool_] = np.ones(keys.size, dtype=bool)
    out[1:] = keys[1:] != keys[:-1]
    return out


def _group_cumsum(values: _Floats, keys: _Ints) -> _Floats:
    """Running sums of ``values`` restarting wherever ``keys`` changes."""
    total = np.cumsum(values)
    start = np.flatnonzero(_firsts(keys))
    offset = (total - values)[start]
    out: _Floats = total - np.repeat(offset, np.diff(np.append(start, values.size)))
    return out


def _area_cover(edges: _Edges, box: _Box, nonzero: bool) -> _Floats:
    """Exact area of the filled region in each pixel; rows bottom-up over ``box``.

    A pixel that no piece enters is wholly in or out, by the winding number at its corner. A
    pixel with pieces is cut into strips at every height where a piece ends, two pieces cross
    or the winding number along its left side changes. In a strip the pieces keep their
    left-to-right order, so the fill rule makes each one +1 (entering the region), -1
    (leaving it) or 0, and each covers the part of the strip to its right.
    """
    left, bottom, right, top = box
    n_rows, n_cols = top - bottom, right - left

    def inside(winding: _Floats) -> NDArray[np.bool_]:
        w = np.rint(winding)
        out: NDArray[np.bool_] = w != 0 if nonzero else w % 2 == 1
        return out

    row, col, xa, ya, xb, yb, d = _cut(edges, box)
    # Winding number just above each cell's bottom-left corner: the pieces of the cells to its
    # left that start at the row's bottom.
    rising = (ya == row) & (yb > ya)
    width = n_cols + 2
    counts = np.bincount(
        (row[rising] - bottom) * width + (col[rising] - left + 1),
        weights=d[rising],
        minlength=n_rows * width,
    )
    corner = np.cumsum(counts.reshape(n_rows, width), axis=1)[:, :n_cols].ravel().astype(np.float64)
    cover = inside(corner).astype(np.float64)
    local = (col >= left) & (col < right)
    flat = (row - bottom) * n_cols + (col - left)
    # Along a cell's left side the winding number changes where a piece of the cell to the
    # left touches that side, or a horizontal edge crosses it, strictly inside the row.
    side = (col + 1 >= left) & (col + 1 < right)
    meets_a = side & (xa == col + 1) & (ya > row) & (ya < row + 1)
    meets_b = side & (xb == col + 1) & (yb > row) & (yb < row + 1)
    hx0, hy, hx1 = edges[0], edges[1], edges[2]
    level = (hy == edges[3]) & (hy > bottom) & (hy < top) & (hy != np.floor(hy))
    hx0, hy, hx1 = hx0[level], hy[level], hx1[level]
    first_col = np.floor(np.clip(np.minimum(hx0, hx1), left - 1, right)).astype(np.int64) + 1
    last_col = np.floor(np.clip(np.maximum(hx0, hx1), left - 1, right)).astype(np.int64)
    first_col = np.maximum(first_col, left)
    n_crossed = np.maximum(np.minimum(last_col, right - 1) - first_col + 1, 0)
    h = np.repeat(np.arange(hy.size), n_crossed)
    target = np.concatenate(
        [
            flat[meets_a] + 1,
            flat[meets_b] + 1,
            (np.floor(hy[h]).astype(np.int64) - bottom) * n_cols
            + first_col[h]
            + _ramp(n_crossed)
            - left,
        ]
    )
    adj_y = np.concatenate([ya[meets_a], yb[meets_b], hy[h]])
    adj_d = np.concatenate([d[meets_a], -d[meets_b], -np.sign(hx1 - hx0)[h]])
    cells = np.unique(np.concatenate([flat[local], target]))
    if cells.size == 0:
        return cover.reshape(n_rows, n_cols)
    adj_cell = np.searchsorted(cells, target)
    cell = np.searchsorted(cells, flat[local])

    order = np.argsort(cell, kind="stable")
    cell = cell[order]
    xa, ya, xb, yb, d = (v[local][order] for v in (xa, ya, xb, yb, d))
    m = cell.size

    def x_at(p: _Ints, y: _Floats) -> _Floats:
        out: _Floats = xa[p] + (y - ya[p]) * ((xb[p] - xa[p]) / (yb[p] - ya[p]))
        return out

    # Crossings of two pieces of one cell.
    idx = np.arange(m)
    count = np.searchsorted(cell, cell, side="right") - idx - 1
    i = np.repeat(idx, count)
    j = i + 1 + _ramp(count)
    lo, hi = np.maximum(ya[i], ya[j]), np.minimum(yb[i], yb[j])
    overlap = lo < hi
    i, j, lo, hi = i[overlap], j[overlap], lo[overlap], hi[overlap]
    gap_lo, gap_hi = x_at(i, lo) - x_at(j, lo), x_at(i, hi) - x_at(j, hi)
    hit = gap_lo * gap_hi < 0
    cross_y = lo[hit] + (hi[hit] - lo[hit]) * (gap_lo[hit] / (gap_lo[hit] - gap_hi[hit]))

    # Strip boundaries of every cell, with the change of winding number at each.
    n_cells = cells.size
    cell_row = (cells // n_cols + bottom).astype(np.float64)
    cell_col = (cells % n_cols + left).astype(np.float64)
    ev_cell = np.concatenate([np.arange(n_cells), np.arange(n_cells), cell, cell, adj_cell])
    ev_cell = np.concatenate([ev_cell, cell[i[hit]]])
    ev_y = np.concatenate([cell_row, cell_row + 1, ya, yb, adj_y, cross_y])
    ev_d = np.concatenate([np.zeros(2 * n_cells + 2 * m), adj_d, np.zeros(cross_y.size)])
    o = np.lexsort((ev_y, ev_cell))
    sorted_cell, sorted_y = ev_cell[o], ev_y[o]
    new = np.concatenate(
        [[True], (sorted_cell[1:] != sorted_cell[:-1]) | (sorted_y[1:] != sorted_y[:-1])]
    )
    starts = np.flatnonzero(new)
    rank = np.empty(o.size, dtype=np.int64)
    rank[o] = np.cumsum(new) - 1
    ev_cell, ev_y = sorted_cell[starts], sorted_y[starts]
    first = _firsts(ev_cell)
    winding = corner[cells][ev_cell] + _group_cumsum(np.add.reduceat(ev_d[o], starts), ev_cell)
    height = np.where(first[1:], 0.0, ev_y[1:] - ev_y[:-1])
    area = np.bincount(ev_cell[:-1], weights=inside(winding[:-1]) * height, minlength=n_cells)

    # Each piece cut into its strips, ordered by x within each strip.
    ja = rank[2 * n_cells : 2 * n_cells + m]
    count = rank[2 * n_cells + m : 2 * n_cells + 2 * m] - ja
    p = np.repeat(idx, count)
    s = ja[p] + _ramp(count)
    y_lo, y_hi = ev_y[s], ev_y[s + 1]
    x_lo = np.where(y_lo == ya[p], xa[p], x_at(p, y_lo))
    x_hi = np.where(y_hi == yb[p], xb[p], x_at(p, y_hi))
    o = np.lexsort((x_lo + x_hi, s))
    p, s, y_lo, y_hi, x_lo, x_hi = p[o], s[o], y_lo[o], y_hi[o], x_lo[o], x_hi[o]
    step = d[p]
    after = winding[s] + _group_cumsum(step, s)
    sign = inside(after).astype(np.float64) - inside(after - step)
    share = (y_hi - y_lo) * (cell_col[ev_cell[s]] + 1 - (x_lo + x_hi) / 2)
    area += np.bincount(ev_cell[s], weights=sign * share, minlength=n_cells)
    cover[cells] = np.clip(area, 0.0, 1.0)
    return cover.reshape(n_rows, n_cols)


def _interval_cover(lo: float, hi: float, start: int, stop: int, exact: bool) -> _Floats:
    """Coverage of pixels ``start..stop-1`` by ``[lo, hi]`` along one axis."""
    p = np.arange(start, stop, dtype=np.float64)
    if exact:
        out: _Floats = np.clip(np.minimum(hi, p + 1) - np.maximum(lo, p), 0.0, 1.0)
        return out
    return ((p + 0.5 >= lo) & (p + 0.5 < hi)).astype(np.float64)


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
        for name, value in (("width", width), ("height", height)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise TypeError(f"Canvas {name} must be an int, got {value!r}.")
            if value < 1:
                raise ValueError(f"Canvas {name} must be at least 1, got {value}.")
        self.width = int(width)
        self.height = int(height)
        self.antialias = bool(antialias)
        self.pixels: NDArray[np.uint8] = np.empty((self.height, self.width, 3), dtype=np.uint8)
        self.pixels[...] = _ink(background)
        self._clip: _Box = (0, 0, self.width, self.height)

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
    def _clipped(self, box: _Box) -> Iterator[None]:
        previous, self._clip = self._clip, box
        try:
            yield
        finally:
            self._clip = previous

    def _box(
        self, left: float, bottom: float, right: float, top: float, within: _Box | None = None
    ) -> _Box | None:
        """The pixels touched by a rectangle, inside the clip; None when none are."""
        cl, cb, cr, ct = self._clip if within is None else within
        lo = max(cl, math.floor(min(max(left, cl - 1.0), cr + 1.0)))
        hi = min(cr, math.ceil(min(max(right, cl - 1.0), cr + 1.0)))
        bo = max(cb, math.floor(min(max(bottom, cb - 1.0), ct + 1.0)))
        to = min(ct, math.ceil(min(max(top, cb - 1.0), ct + 1.0)))
        return (lo, bo, hi, to) if lo < hi and bo < to else None

    def _paint(self, box: _Box, cover: _Floats, ink: _Floats, alpha: float) -> None:
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
        edges = _edges(rings)
        if self.antialias:
            cover = _area_cover(edges, box, nonzero)
        else:
            cover = _centre_cover(edges, box, nonzero)
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
        cx = _interval_cover(x0, x1, box[0], box[2], self.antialias)
        cy = _interval_cover(y0, y1, box[1], box[3], self.antialias)
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
            _interval_cover(y0, y1, box[1], box[3], self.antialias)[:, None]
            * (_interval_cover(x0, x1, box[0], box[2], self.antialias)[None, :])
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
