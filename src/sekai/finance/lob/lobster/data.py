"""``LobsterData``: the columns of a LOBSTER message file and its order-book file.

LOBSTER's message files have six columns: time (seconds after midnight), event type (see
``LobsterEvent``), order id, size (shares), price (dollars x 10,000) and direction (-1 sell,
1 buy; for an execution, the side of the resting order executed). Row ``k`` of the order-book
file is the book after message ``k``: ask price, ask size, bid price, bid size for level 1,
then level 2, and so on; an empty level is ``EMPTY_ASK`` / ``EMPTY_BID`` with size 0. Files
are named ``TICKER_YYYY-MM-DD_START_END_message_LEVELS.csv`` (and ``..._orderbook_...``),
START and END in milliseconds after midnight.
"""

from __future__ import annotations

import datetime
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.finance.lob.book import OrderBook
from sekai.finance.lob.engine import Engine
from sekai.finance.lob.lobster.replay import Messages, depth_rows, replay
from sekai.utils.validation import check_int

__all__ = ["LobsterData", "lobster_file_name"]

_NAME = re.compile(
    r"(?P<ticker>.+)_(?P<date>\d{4}-\d{2}-\d{2})_(?P<start>\d+)_(?P<end>\d+)_"
    r"(?P<kind>message|orderbook)_(?P<levels>\d+)\.csv"
)
_COLUMNS = (
    ("time_ns", np.int64),
    ("event", np.int8),
    ("order_id", np.int64),
    ("size", np.int64),
    ("price", np.int64),
    ("direction", np.int8),
)
_CHUNK = 65_536
_NS = 1_000_000_000


def lobster_file_name(
    ticker: str, date: datetime.date, start_ms: int, end_ms: int, kind: str, levels: int
) -> str:
    """LOBSTER's file name, e.g. ``AAPL_2012-06-21_34200000_57600000_message_10.csv``."""
    if kind not in ("message", "orderbook"):
        raise ValueError(f"kind must be 'message' or 'orderbook', got {kind!r}.")
    return f"{ticker}_{date.isoformat()}_{start_ms}_{end_ms}_{kind}_{levels}.csv"


def parse_name(path: str | os.PathLike[str]) -> tuple[str, datetime.date, int] | None:
    """``(ticker, date, levels)`` from a LOBSTER file name, or None when it is not one."""
    match = _NAME.fullmatch(Path(path).name)
    if match is None:
        return None
    try:
        date = datetime.date.fromisoformat(match["date"])
    except ValueError:
        return None
    return match["ticker"], date, int(match["levels"])


def _clock(ns: int) -> str:
    seconds, fraction = divmod(ns, _NS)
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours:02d}:{minute:02d}:{second:02d}.{fraction:09d}"


def _frozen(value: Any, name: str, dtype: type[np.generic], ndim: int) -> NDArray[Any]:
    """``value`` as a read-only ``dtype`` array of ``ndim`` dimensions (copied if writeable)."""
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an integer array, got dtype {array.dtype}.")
    if array.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {array.shape}.")
    converted = array.astype(dtype, copy=False)
    if converted is not array and not np.array_equal(converted, array):
        raise ValueError(f"{name} has values outside the range of {np.dtype(dtype).name}.")
    if converted is array and array.flags.writeable:
        converted = array.copy()
    converted.flags.writeable = False
    return converted


@dataclass(frozen=True, eq=False, repr=False, slots=True)
class LobsterData:
    """The messages (and optionally the book) of one LOBSTER file pair; immutable.

    Arrays are read-only (the constructor copies any writeable one). ``price`` is in ticks
    (file price // ``tick_size``), except for halts (type 7), where it keeps LOBSTER's code:
    -1 halt, 0 quoting resumes, 1 trading resumes. ``book`` is ``(rows, levels, 4)``: ask
    price, ask size, bid price, bid size; prices in ticks, empty levels ``EMPTY_ASK`` /
    ``EMPTY_BID`` with size 0, as in the file. ``source`` names the file in error messages
    and ``first_line`` is the file line of row 0. ``data[a:b]`` keeps rows ``a..b-1``.
    """

    time_ns: NDArray[np.int64]
    event: NDArray[np.int8]
    order_id: NDArray[np.int64]
    size: NDArray[np.int64]
    price: NDArray[np.int64]
    direction: NDArray[np.int8]
    book: NDArray[np.int64] | None = None
    levels: int | None = None
    tick_size: int = 100
    date: datetime.date | None = None
    ticker: str | None = None
    source: str | None = None
    first_line: int = 1

    def __post_init__(self) -> None:
        rows = None
        for name, dtype in _COLUMNS:
            array = _frozen(getattr(self, name), name, dtype, 1)
            if rows is not None and len(array) != rows:
                raise ValueError(f"{name} has {len(array)} rows, time_ns has {rows}.")
            rows = len(array)
            object.__setattr__(self, name, array)
        levels = None if self.levels is None else check_int(self.levels, "levels", low=1)
        if self.book is not None:
            book = _frozen(self.book, "book", np.int64, 3)
            if book.shape[0] != rows or book.shape[2] != 4 or book.shape[1] < 1:
                raise ValueError(
                    f"book must have shape ({rows}, levels, 4) with levels >= 1, got {book.shape}."
                )
            if levels is not None and levels != book.shape[1]:
                raise ValueError(f"levels={levels} but the book has {book.shape[1]} levels.")
            levels = book.shape[1]
            object.__setattr__(self, "book", book)
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "tick_size", check_int(self.tick_size, "tick_size", low=1))
        object.__setattr__(self, "first_line", check_int(self.first_line, "first_line", low=1))
        if self.date is not None and not isinstance(self.date, datetime.date):
            raise TypeError(f"date must be a datetime.date or None, got {self.date!r}.")
        for name in ("ticker", "source"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{name} must be a str or None, got {value!r}.")

    def __len__(self) -> int:
        return len(self.time_ns)

    def __getitem__(self, rows: slice) -> LobsterData:
        if not isinstance(rows, slice):
            raise TypeError(f"LobsterData is sliced by message rows (a slice), got {rows!r}.")
        start, stop, step = rows.indices(len(self))
        if step != 1:
            raise ValueError(f"LobsterData slices must have step 1, got {step}.")
        stop = max(start, stop)
        arrays = {name: getattr(self, name)[start:stop] for name, _ in _COLUMNS}
        book = None if self.book is None else self.book[start:stop]
        return replace(self, **arrays, book=book, first_line=self.first_line + start)

    def __repr__(self) -> str:
        span = (
            f"{_clock(int(self.time_ns[0]))} to {_clock(int(self.time_ns[-1]))}"
            if len(self)
            else ""
        )
        date = self.date.isoformat() if self.date is not None else None
        return (
            f"LobsterData(ticker={self.ticker!r}, date={date}, messages={len(self):,}, "
            f"levels={self.levels}, tick_size={self.tick_size}, time={span or None})"
        )

    @property
    def messages(self) -> Messages:
        """``(time_ns, event, order_id, size, price, direction)``."""
        return (self.time_ns, self.event, self.order_id, self.size, self.price, self.direction)

    def _book(self) -> NDArray[np.int64]:
        if self.book is None or not len(self):
            raise ValueError("replaying needs the order-book rows and at least one message.")
        return self.book

    def depth_rows(self, engine: Engine = "auto") -> NDArray[np.int64]:
        """The book replayed from the messages after each one, laid out like ``book``.

        It equals ``book``: ``ValueError`` names the line of the first row where the messages
        and the file disagree (see ``sekai.finance.lob.lobster.replay`` for the rules).
        ``engine``: ``"numba"`` replays compiled (the same array and errors, several times
        faster), ``"python"`` in Python, ``"auto"`` (the default) numba when it is installed.
        """
        return depth_rows(
            self.messages, self._book(), self.source or "LobsterData", self.first_line, engine
        )

    def replay(self) -> Iterator[tuple[int, OrderBook]]:
        """Yield ``(k, book)`` after each message ``k``, each row checked like ``depth_rows``.

        The same ``OrderBook`` comes each time; its ``time`` is the message time in seconds.
        """
        return replay(self.messages, self._book(), self.source or "LobsterData", self.first_line)

    def write(
        self,
        directory: str | os.PathLike[str],
        *,
        start_ms: int | None = None,
        end_ms: int | None = None,
    ) -> tuple[Path, Path]:
        """Write the message and order-book files under LOBSTER's names; returns their paths.

        Needs ``book``, ``ticker`` and ``date``. ``start_ms`` / ``end_ms`` (the names' span)
        default to the first message's millisecond and the one after the last message.
        """
        if self.book is None or self.ticker is None or self.date is None or not len(self):
            raise ValueError("write needs messages, book, ticker and date.")
        if self.time_ns[0] < 0:
            raise ValueError(f"times must be >= 0 ns after midnight, got {self.time_ns[0]}.")
        first, last = int(self.time_ns[0]), int(self.time_ns[-1])
        start = first // 1_000_000 if start_ms is None else check_int(start_ms, "start_ms", low=0)
        end = math.ceil((last + 1) / 1_000_000) if end_ms is None else check_int(end_ms, "end_ms")
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        levels = self.book.shape[1]
        paths = tuple(
            folder / lobster_file_name(self.ticker, self.date, start, end, kind, levels)
            for kind in ("message", "orderbook")
        )
        seconds, fraction = np.divmod(self.time_ns, _NS)
        price = np.where(self.event == 7, self.price, self.price * self.tick_size)
        columns = (seconds, fraction, self.event, self.order_id, self.size, price, self.direction)
        _write_rows(paths[0], np.column_stack(columns), "%d.%09d,%d,%d,%d,%d,%d\n")
        book = self.book.copy()
        for column in (0, 2):
            real = book[:, :, column + 1] > 0
            book[:, :, column] = np.where(
                real, book[:, :, column] * self.tick_size, book[:, :, column]
            )
        _write_rows(paths[1], book.reshape(len(book), -1), ",".join(["%d"] * 4 * levels) + "\n")
        return paths[0], paths[1]


def _write_rows(path: Path, table: NDArray[np.int64], line: str) -> None:
    with open(path, "w", encoding="ascii", newline="\n") as file:
        for start in range(0, len(table), _CHUNK):
            file.write(
                "".join([line % tuple(row) for row in table[start : start + _CHUNK].tolist()])
            )
