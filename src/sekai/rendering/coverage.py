"""Pixel coverage of filled outlines, the rasteriser behind ``Canvas``.

Centre sampling fills the pixels whose centres an outline contains (a centre on a left or
bottom edge is inside, on a right or top edge outside). Exact coverage gives each pixel the
area of the region inside it: the outline is cut at every row and column line, and each pixel
that a piece of it enters is solved on its own (see ``area_cover``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Edges",
    "PixelBox",
    "ramp",
    "ring_edges",
    "centre_cover",
    "area_cover",
    "interval_cover",
]

_Floats = NDArray[np.float64]
_Ints = NDArray[np.int64]
Edges: TypeAlias = tuple[_Floats, _Floats, _Floats, _Floats, _Floats]
"""Edges of closed rings: lower end ``(x0, y0)``, upper end ``(x1, y1)`` and direction."""
PixelBox: TypeAlias = tuple[int, int, int, int]
"""Whole-pixel bounds ``(left, bottom, right, top)``, right and top exclusive."""


def ramp(counts: _Ints) -> _Ints:
    """``0, 1, ..., n-1`` for each ``n`` in ``counts``, concatenated."""
    total = int(counts.sum())
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    out: _Ints = np.arange(total, dtype=np.int64) - starts
    return out


def ring_edges(rings: Sequence[_Floats]) -> Edges:
    """Edges of closed rings given as ``(m, v, 2)`` batches: lower end ``(x0, y0)``, upper end
    ``(x1, y1)`` and direction (+1 upwards, -1 downwards). Horizontal edges keep their own
    order (from ``x0`` to ``x1``) and direction +1."""
    start = np.concatenate([r.reshape(-1, 2) for r in rings])
    end = np.concatenate([np.roll(r, -1, axis=1).reshape(-1, 2) for r in rings])
    up = end[:, 1] >= start[:, 1]
    lo = np.where(up[:, None], start, end)
    hi = np.where(up[:, None], end, start)
    return lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1], np.where(up, 1.0, -1.0)


def centre_cover(edges: Edges, box: PixelBox, nonzero: bool) -> _Floats:
    """1 where a pixel centre is inside, else 0; rows bottom-up over ``box``."""
    x0, y0, x1, y1, d = edges
    left, bottom, right, top = box
    r0 = np.clip(np.ceil(np.clip(y0 - 0.5, bottom - 1, top + 1)), bottom, top).astype(np.int64)
    r1 = np.clip(np.ceil(np.clip(y1 - 0.5, bottom - 1, top + 1)), bottom, top).astype(np.int64)
    n = r1 - r0
    e = np.repeat(np.arange(n.size), n)
    rows = r0[e] + ramp(n)
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


def _cut(edges: Edges, box: PixelBox) -> _Pieces:
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
    r = (r_lo[er] + ramp(n_rows)).astype(np.float64)
    ec = np.repeat(np.arange(n), n_cols)
    c = (c_lo[ec] + ramp(n_cols)).astype(np.float64)
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


def area_cover(edges: Edges, box: PixelBox, nonzero: bool) -> _Floats:
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
            + ramp(n_crossed)
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
    j = i + 1 + ramp(count)
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
    s = ja[p] + ramp(count)
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


def interval_cover(lo: float, hi: float, start: int, stop: int, exact: bool) -> _Floats:
    """Coverage of pixels ``start..stop-1`` by ``[lo, hi]`` along one axis."""
    p = np.arange(start, stop, dtype=np.float64)
    if exact:
        out: _Floats = np.clip(np.minimum(hi, p + 1) - np.maximum(lo, p), 0.0, 1.0)
        return out
    return ((p + 0.5 >= lo) & (p + 0.5 < hi)).astype(np.float64)
