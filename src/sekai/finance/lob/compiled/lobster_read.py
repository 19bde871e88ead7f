"""LOBSTER files parsed and checked with numba, a chunk of lines per thread.

``read_lobster``'s ``"numba"`` engine. The kernels apply the same rules as ``lobster.read``'s
NumPy checks (a little stricter: at most 18 digits in an integer cell) but only say whether a
chunk is good; for a refused file ``read_lobster`` reads it again with NumPy, which names the
first bad cell. So every file this path accepts gives exactly the NumPy path's arrays, and
every error is the NumPy path's error. Imported only with numba.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

__all__ = ["read_book", "read_messages"]

_EMPTY_ASK = 9_999_999_999
_EMPTY_BID = -9_999_999_999
_MAX_DIGITS = 18
_CHUNK_BYTES = 1 << 20
"""Files below this size are parsed in one chunk, on the calling thread."""
_WORKERS = min(os.cpu_count() or 1, 8)
_MESSAGE_DTYPES = (np.int64, np.int8, np.int64, np.int64, np.int64, np.int8)
_NEWLINE, _RETURN, _COMMA, _MINUS, _POINT, _ZERO = 10, 13, 44, 45, 46, 48


@njit(cache=True, nogil=True)
def _newlines(data: NDArray[np.uint8], start: int, stop: int) -> int:
    count = 0
    for byte in data[start:stop]:  # iterating a slice skips the negative-index checks
        count += byte == _NEWLINE
    return count


@njit(cache=True, nogil=True)
def _line(data: NDArray[np.uint8], i: int, stop: int, cells: NDArray[np.int64], time: bool) -> int:
    """Parse the line at ``i`` into ``cells``; the next line's index, or -1 if it is bad.

    Cells are integers of 1 to 18 digits, optionally negative; with ``time`` the first cell
    is seconds ``s{1,9}(.f{1,9})?``, stored in nanoseconds. Bytes are read at unsigned
    indices, for which numba leaves out its negative-index check (twice as fast here).
    """
    last = len(cells) - 1
    for cell in range(len(cells)):
        seconds = time and cell == 0
        negative = not seconds and i < stop and data[np.uint64(i)] == _MINUS
        if negative:
            i += 1
        j = i
        value = 0
        while j < stop:
            digit = np.int64(data[np.uint64(j)]) - _ZERO
            if digit < 0 or digit > 9:
                break
            value = value * 10 + digit
            j += 1
        if j == i or j - i > (9 if seconds else _MAX_DIGITS):
            return -1
        if seconds:
            scale = 1_000_000_000
            if j < stop and data[np.uint64(j)] == _POINT:
                j += 1
                i = j
                while j < stop and j - i < 10 and 0 <= np.int64(data[np.uint64(j)]) - _ZERO <= 9:
                    value = value * 10 + np.int64(data[np.uint64(j)]) - _ZERO
                    scale //= 10
                    j += 1
                if j == i or j - i > 9:
                    return -1
            value *= scale
        cells[cell] = -value if negative else value
        if cell < last:
            if j >= stop or data[np.uint64(j)] != _COMMA:
                return -1
            i = j + 1
        elif j == stop:
            i = j
        elif data[np.uint64(j)] == _NEWLINE:
            i = j + 1
        elif data[np.uint64(j)] == _RETURN and j + 1 < stop and data[np.uint64(j + 1)] == _NEWLINE:
            i = j + 2
        else:
            return -1
    return i


@njit(cache=True, nogil=True)
def _message_rows(
    data: NDArray[np.uint8],
    start: int,
    stop: int,
    row: int,
    tick: int,
    time_ns: NDArray[np.int64],
    event: NDArray[np.int8],
    order_id: NDArray[np.int64],
    size: NDArray[np.int64],
    price: NDArray[np.int64],
    direction: NDArray[np.int8],
) -> bool:
    """Parse and check the message lines in ``data[start:stop]`` into rows from ``row``."""
    cells = np.empty(6, dtype=np.int64)
    first = row
    i = start
    while i < stop:
        i = _line(data, i, stop, cells, True)
        t, kind, order, quantity, cents, side = cells
        if i < 0 or kind < 1 or kind > 7 or (side != 1 and side != -1):
            return False
        if row > first and t < time_ns[row - 1]:
            return False
        if kind == 7:
            if quantity < 0 or cents < -1 or cents > 1:
                return False
        else:
            ticks = cents // tick
            if quantity <= 0 or cents <= 0 or ticks * tick != cents:
                return False
            cents = ticks
        time_ns[row] = t
        event[row] = kind
        order_id[row] = order
        size[row] = quantity
        price[row] = cents
        direction[row] = side
        row += 1
    return True


@njit(cache=True, nogil=True)
def _book_rows(
    data: NDArray[np.uint8], start: int, stop: int, row: int, tick: int, book: NDArray[np.int64]
) -> bool:
    """Parse and check the order-book lines in ``data[start:stop]`` into ``book[row:]``."""
    width = book.shape[1]
    i = start
    while i < stop:
        cells = book[row]
        i = _line(data, i, stop, cells, False)
        if i < 0:
            return False
        for column in range(0, 4, 2):
            empty = _EMPTY_ASK if column == 0 else _EMPTY_BID
            sign = 1 if column == 0 else -1
            above = empty
            for cell in range(column, width, 4):
                price = cells[cell]
                if price == empty:
                    if cells[cell + 1] != 0:
                        return False
                    above = price
                    continue
                ticks = price // tick
                if (
                    (cell > column and (above == empty or sign * (price - above) <= 0))
                    or price <= 0
                    or ticks * tick != price
                    or cells[cell + 1] <= 0
                ):
                    return False
                cells[cell] = ticks
                above = price
        row += 1
    return True


@njit(cache=True, nogil=True)
def _line_after(data: NDArray[np.uint8], i: int) -> int:
    """The index after the first newline at or after ``i``; ``len(data)`` if there is none."""
    while i < len(data):
        if data[i] == _NEWLINE:
            return i + 1
        i += 1
    return len(data)


def _each(call: Callable[..., Any], *columns: Sequence[int]) -> list[Any]:
    """``call`` on each row of ``columns``, on threads when there are several."""
    if len(columns[0]) == 1:
        return [call(*(column[0] for column in columns))]
    with ThreadPoolExecutor(len(columns[0])) as pool:
        return list(pool.map(call, *columns))


def _lines(data: NDArray[np.uint8]) -> tuple[list[int], list[int], list[int], int]:
    """Chunk starts and stops at line starts, each chunk's first row, and the row count."""
    size = len(data)
    pieces = 1 if size < _CHUNK_BYTES else _WORKERS
    bounds = [0]
    for k in range(1, pieces):
        end = _line_after(data, max(bounds[-1], k * size // pieces))
        if end >= size:
            break
        bounds.append(end)
    bounds.append(size)
    starts, stops = bounds[:-1], bounds[1:]
    firsts = np.cumsum([0, *_each(partial(_newlines, data), starts, stops)]).tolist()
    return starts, stops, firsts[:-1], firsts[-1] + (data[-1] != _NEWLINE)


def _map(path: Path) -> NDArray[np.uint8] | None:
    """The bytes of ``path``, mapped read-only; None if it is empty."""
    if not path.stat().st_size:
        return None
    return np.memmap(path, dtype=np.uint8, mode="r").view(np.ndarray)


def read_messages(path: Path, tick: int) -> tuple[NDArray[Any], ...] | None:
    """The six read-only message columns (prices in ticks; halts keep their code), or None."""
    data = _map(path)
    if data is None:
        return None
    starts, stops, firsts, rows = _lines(data)
    columns: tuple[NDArray[Any], ...] = tuple(np.empty(rows, dtype) for dtype in _MESSAGE_DTYPES)
    good = _each(
        lambda a, z, r: _message_rows(data, a, z, r, tick, *columns), starts, stops, firsts
    )
    time_ns = columns[0]
    joins = np.asarray(firsts[1:], dtype=np.int64)
    if not all(good) or (time_ns[joins] < time_ns[joins - 1]).any():
        return None
    for column in columns:
        column.flags.writeable = False
    return columns


def read_book(path: Path, tick: int, rows: int) -> NDArray[np.int64] | None:
    """The read-only ``(rows, levels, 4)`` book (real prices in ticks), or None if refused."""
    data = _map(path)
    if data is None:
        return None
    columns = int(np.count_nonzero(data[: _line_after(data, 0)] == _COMMA)) + 1
    starts, stops, firsts, found = _lines(data)
    if columns % 4 or found != rows:
        return None
    book = np.empty((rows, columns), dtype=np.int64)
    good = _each(lambda a, z, r: _book_rows(data, a, z, r, tick, book), starts, stops, firsts)
    if not all(good):
        return None
    book.flags.writeable = False
    return book.reshape(rows, columns // 4, 4)
