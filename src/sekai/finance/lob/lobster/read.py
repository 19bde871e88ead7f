"""``read_lobster``: a LOBSTER message file (and order-book file) into ``LobsterData``.

The ``"numba"`` engine parses and checks both files in one compiled pass per file
(``compiled.lobster_read``); a file it refuses is read again as below, which names the first
bad cell. Otherwise cells are parsed by ``numpy.loadtxt`` or ``pyarrow.csv`` (the same
arrays) after a check that the file holds nothing but digits, ``-``, ``.`` (times only),
commas and newlines; a file either parser refuses is scanned line by line to name the first
bad cell. Times are
parsed from their digits, exactly, into int64 nanoseconds after midnight.
"""

from __future__ import annotations

import datetime
import importlib
import importlib.util
import io
import os
import re
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from sekai.finance.lob import engine as engines
from sekai.finance.lob.lobster.data import LobsterData, parse_name
from sekai.finance.lob.lobster.replay import EMPTY_ASK, EMPTY_BID
from sekai.utils.extras import missing_extra
from sekai.utils.validation import check_choice, check_int

__all__ = ["read_lobster"]

Engine = Literal["auto", "numba", "numpy", "pyarrow"]

_MESSAGE_COLUMNS = ("time", "event type", "order id", "size", "price", "direction")
_MESSAGE_BYTES = b"0123456789,-.\n"
_BOOK_BYTES = b"0123456789,-\n"
_TIME_WIDTH = 24
_TIME = re.compile(rb"[0-9]{1,9}(?:\.[0-9]{1,9})?")
_INT = re.compile(rb"-?[0-9]{1,19}")
_TIME_EXPECTED = "seconds after midnight: up to 9 digits, optionally '.' and up to 9 decimals"
_INT_EXPECTED = "an integer"
_INT64 = (-(2**63), 2**63 - 1)


def _book_column(column: int) -> str:
    level, field = divmod(column, 4)
    return f"{('ask', 'ask', 'bid', 'bid')[field]} {('price', 'size')[field % 2]} {level + 1}"


def _fail(name: str, row: int, column: int, label: str, expected: str, got: Any) -> ValueError:
    return ValueError(
        f"{name}, line {row + 1}, column {column + 1} ({label}): expected {expected}, got {got}."
    )


def _read(path: str | os.PathLike[str]) -> bytes:
    file = Path(path)
    raw = file.read_bytes()
    if not raw:
        raise ValueError(f"{file.name}: the file is empty; expected LOBSTER rows.")
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n")
    return raw


def _lines(raw: bytes) -> int:
    return raw.count(b"\n") + (not raw.endswith(b"\n"))


def _locate(raw: bytes, name: str, labels: list[str], times: bool, cause: Exception) -> ValueError:
    """The error for the first line of ``raw`` with a wrong column count or a bad cell."""
    lines = raw.split(b"\n")
    if raw.endswith(b"\n"):
        lines.pop()
    for row, line in enumerate(lines):
        cells = line.split(b",")
        if len(cells) != len(labels):
            return ValueError(
                f"{name}, line {row + 1}: expected {len(labels)} comma-separated columns, "
                f"got {len(cells)}."
            )
        for column, cell in enumerate(cells):
            if times and not column:
                if _TIME.fullmatch(cell) is None:
                    return _fail(
                        name, row, 0, labels[0], _TIME_EXPECTED, repr(cell.decode("latin-1"))
                    )
            elif _INT.fullmatch(cell) is None or not _INT64[0] <= int(cell) <= _INT64[1]:
                got = repr(cell.decode("latin-1"))
                return _fail(name, row, column, labels[column], f"{_INT_EXPECTED} (int64)", got)
    return ValueError(f"{name}: could not be read: {cause}")


def _engine(engine: str) -> str:
    check_choice(engine, "engine", ("auto", "numba", "numpy", "pyarrow"))
    if engine == "numba" and not engines.numba_installed():
        raise ImportError(missing_extra('engine="numba"', "numba", "numba"))
    if engine != "auto":
        return engine
    if engines.numba_installed():
        return "numba"
    return _text_engine()


def _text_engine() -> str:
    """pyarrow when importable, else numpy: the parser that names a bad cell."""
    return "pyarrow" if importlib.util.find_spec("pyarrow") is not None else "numpy"


def _pyarrow_table(raw: bytes, names: list[str], time: bool) -> Any:
    """``raw`` read by ``pyarrow.csv``: int64 columns, the first binary when ``time``."""
    pa = importlib.import_module("pyarrow")
    csv = importlib.import_module("pyarrow.csv")
    types = {name: pa.int64() for name in names}
    if time:
        types[names[0]] = pa.binary()
    return csv.read_csv(
        pa.py_buffer(raw),
        read_options=csv.ReadOptions(column_names=names),
        parse_options=csv.ParseOptions(quote_char=False, ignore_empty_lines=False),
        convert_options=csv.ConvertOptions(
            column_types=types, null_values=[], strings_can_be_null=False
        ),
    )


def _parse(
    raw: bytes, name: str, labels: list[str], times: bool, engine: str
) -> tuple[NDArray[np.uint8] | None, NDArray[np.int64]]:
    """``(time characters (rows, 24) or None, integer columns (rows, k))`` of a checked file."""
    n_ints = len(labels) - times
    allowed = _MESSAGE_BYTES if times else _BOOK_BYTES
    try:
        if raw.translate(None, allowed):
            raise ValueError("a character other than digits, '-', '.', ',' and newlines")
        if engine == "pyarrow":
            names = [f"c{i}" for i in range(len(labels))]
            table = _pyarrow_table(raw, names, times)
            # Column-major, so each column stays contiguous; ``ints`` is its transpose.
            by_column = np.empty((n_ints, table.num_rows), dtype=np.int64)
            for i, n in enumerate(names[times:]):
                by_column[i] = table.column(n).to_numpy()
            ints = by_column.T
            chars = _binary_matrix(table.column("c0").combine_chunks()) if times else None
        else:
            dtype = np.dtype([("time", f"S{_TIME_WIDTH}")] if times else []).descr
            fields = dtype + [(f"c{i}", "<i8") for i in range(n_ints)]
            array: Any = np.loadtxt(
                io.BytesIO(raw),
                delimiter=",",
                dtype=np.dtype(fields) if times else np.int64,
                comments=None,
                quotechar=None,
                ndmin=1 if times else 2,
            )
            if times:
                chars = np.ascontiguousarray(array["time"]).view(np.uint8)
                chars = chars.reshape(len(array), _TIME_WIDTH)
                ints = np.column_stack([array[f"c{i}"] for i in range(n_ints)])
            else:
                chars, ints = None, array
        if len(ints) != _lines(raw) or ints.shape[1] != n_ints:
            raise ValueError("a line with a different number of columns")
    except ValueError as exc:
        raise _locate(raw, name, labels, times, exc) from exc
    return chars, ints


def _binary_matrix(array: Any) -> NDArray[np.uint8]:
    """A pyarrow binary array as a ``(rows, width)`` byte matrix, zero-padded when ragged."""
    n = len(array)
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int32)[array.offset : array.offset + n + 1]
    buffer = array.buffers()[2]
    data = np.frombuffer(buffer, dtype=np.uint8) if buffer is not None else np.zeros(1, np.uint8)
    lengths = np.diff(offsets)
    if n and 0 < lengths[0] < _TIME_WIDTH and (lengths == lengths[0]).all():
        return data[offsets[0] : offsets[-1]].reshape(n, int(lengths[0]))
    inside = np.arange(_TIME_WIDTH) < np.minimum(lengths, _TIME_WIDTH)[:, None]
    index = np.minimum(offsets[:-1, None] + np.arange(_TIME_WIDTH), len(data) - 1)
    return np.where(inside, data[index], 0).astype(np.uint8)


def _uniform_times(chars: NDArray[np.uint8]) -> NDArray[np.int64] | None:
    """The times when every cell is laid out like the first one (the usual case), else None."""
    first = bytes(chars[0]).rstrip(b"\0")
    width = len(first)
    if _TIME.fullmatch(first) is None or (width < chars.shape[1] and chars[:, width].any()):
        return None
    point = first.find(b".")
    digits = [j for j in range(width) if j != point]
    good = chars[:, point] == 46 if point >= 0 else np.ones(len(chars), dtype=bool)
    value = np.zeros(len(chars), dtype=np.int64)
    for j in digits:
        digit = chars[:, j] - np.uint8(48)
        good &= digit < 10
        value *= 10
        value += digit
    if not good.all():
        return None
    return value * 10 ** (9 - (width - point - 1 if point >= 0 else 0))


def _times(chars: NDArray[np.uint8], name: str) -> NDArray[np.int64]:
    """Int64 nanoseconds after midnight from the time characters, exactly."""
    uniform = _uniform_times(chars)
    if uniform is not None:
        return uniform
    digit = (chars >= 48) & (chars <= 57)
    dot = chars == 46
    length = np.count_nonzero(chars, axis=1)
    dots = np.count_nonzero(dot, axis=1)
    point = np.where(dots > 0, dot.argmax(axis=1), length)
    decimals = np.where(dots > 0, length - point - 1, 0)
    good = (np.count_nonzero(digit, axis=1) == length - dots) & (dots <= 1)
    good &= (point >= 1) & (point <= 9) & (decimals <= 9) & (length < _TIME_WIDTH)
    good &= (dots == 0) | (decimals >= 1)
    if not good.all():
        row = int(np.flatnonzero(~good)[0])
        got = repr(bytes(chars[row]).rstrip(b"\0").decode("latin-1"))
        raise _fail(name, row, 0, "time", _TIME_EXPECTED, got)
    value = np.zeros(len(chars), dtype=np.int64)
    for j in range(int(length.max(initial=0))):
        value = np.where(digit[:, j], value * 10 + (chars[:, j] - 48), value)
    return value * 10 ** (9 - decimals)


def _check(
    bad: NDArray[np.bool_],
    name: str,
    column: int,
    label: str,
    expected: str,
    values: NDArray[np.int64],
) -> None:
    """Raise for the first row (row-major over levels) where ``bad`` holds."""
    if bad.any():
        where = np.unravel_index(int(np.argmax(bad.ravel())), bad.shape)
        row = int(where[0])
        level = int(where[1]) if bad.ndim == 2 else 0
        raise _fail(
            name, row, column + 4 * level, label.format(level + 1), expected, int(values[where])
        )


def _messages(raw: bytes, name: str, tick: int, engine: str) -> tuple[NDArray[np.int64], ...]:
    """The six checked message columns; prices in ticks (halts keep their code)."""
    chars, ints = _parse(raw, name, list(_MESSAGE_COLUMNS), True, engine)
    assert chars is not None
    time_ns = _times(chars, name)
    event, order_id, size, price, direction = (np.ascontiguousarray(c) for c in ints.T)
    _check((event < 1) | (event > 7), name, 1, "event type", "an event type 1..7", event)
    _check(np.abs(direction) != 1, name, 5, "direction", "-1 (sell) or 1 (buy)", direction)
    halt = event == 7
    _check(
        np.where(halt, size < 0, size <= 0), name, 3, "size", "a size > 0 (>= 0 for a halt)", size
    )
    _check(
        halt & (np.abs(price) > 1),
        name,
        4,
        "price",
        "-1 (halt), 0 (quoting resumes) or 1 (trading resumes) for a halt",
        price,
    )
    _check(~halt & (price <= 0), name, 4, "price", "a price > 0", price)
    ticks = price // tick
    grid = f"a price on the tick grid (a multiple of tick_size={tick})"
    _check(~halt & (ticks * tick != price), name, 4, "price", grid, price)
    back = np.flatnonzero(time_ns[1:] < time_ns[:-1])
    if len(back):
        row = int(back[0]) + 1
        raise _fail(
            name,
            row,
            0,
            "time",
            f"a time >= the previous line's {int(time_ns[row - 1])} ns",
            f"{int(time_ns[row])} ns",
        )
    price = np.where(halt, price, ticks)
    return time_ns, event, order_id, size, price, direction


def _book(raw: bytes, name: str, tick: int, engine: str, rows: int) -> NDArray[np.int64]:
    """The checked ``(rows, levels, 4)`` book; real prices in ticks, sentinels kept."""
    first = raw[: raw.find(b"\n")] if b"\n" in raw else raw
    columns = first.count(b",") + 1
    if columns % 4:
        raise ValueError(
            f"{name}, line 1: expected 4 columns per level (ask price, ask size, bid price, "
            f"bid size), got {columns} columns."
        )
    labels = [_book_column(c) for c in range(columns)]
    _, table = _parse(raw, name, labels, False, engine)
    if len(table) != rows:
        raise ValueError(
            f"{name}: expected one order-book row per message ({rows:,}), got {len(table):,}."
        )
    if table.flags.c_contiguous:
        book = table.reshape(rows, columns // 4, 4)
    else:  # pyarrow's column-major table: a view, (level, field, row) moved to row first
        book = table.T.reshape(columns // 4, 4, rows).transpose(2, 0, 1)
    for column, side, empty in ((0, "ask", EMPTY_ASK), (2, "bid", EMPTY_BID)):
        prices = np.ascontiguousarray(book[:, :, column])
        sizes = book[:, :, column + 1]
        label = f"{side} price {{}}"
        blank = prices == empty
        ticks = prices // tick
        _check(~blank & (prices <= 0), name, column, label, f"a price > 0, or {empty}", prices)
        grid = f"a price on the tick grid (a multiple of tick_size={tick})"
        _check(~blank & (ticks * tick != prices), name, column, label, grid, prices)
        expected = "a size > 0, or 0 at an empty level"
        size_label = f"{side} size {{}}"
        _check(
            np.where(blank, sizes != 0, sizes <= 0), name, column + 1, size_label, expected, sizes
        )
        after_blank = np.pad(blank[:, :-1] & ~blank[:, 1:], ((0, 0), (1, 0)))
        _check(after_blank, name, column, label, f"{empty}: the level above is empty", prices)
        sign = 1 if column == 0 else -1
        worse = np.pad(
            ~blank[:, 1:] & (sign * (prices[:, 1:] - prices[:, :-1]) <= 0), ((0, 0), (1, 0))
        )
        _check(worse, name, column, label, "a price worse than the level above", prices)
        np.putmask(ticks, blank, empty)
        book[:, :, column] = ticks
    return book


def _date(value: datetime.date | str | None) -> datetime.date | None:
    if value is None or isinstance(value, datetime.date):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"date must be an ISO date 'YYYY-MM-DD', got {value!r}.") from None
    raise TypeError(f"date must be a datetime.date, an ISO date string or None, got {value!r}.")


def read_lobster(
    message_file: str | os.PathLike[str],
    orderbook_file: str | os.PathLike[str] | None = None,
    *,
    levels: int | None = None,
    tick_size: int = 100,
    date: datetime.date | str | None = None,
    ticker: str | None = None,
    engine: Engine = "auto",
) -> LobsterData:
    """Read a LOBSTER message file, and its order-book file if given, into ``LobsterData``.

    ``levels`` (at most the file's) keeps the best levels of the book; it defaults to the
    book's column count / 4, else to the level count in the message file's name. Prices
    become ticks, ``price // tick_size``. ``date`` and ``ticker`` default to those in the
    file names when they follow LOBSTER's naming, else None. ``engine``: ``"numba"``
    (compiled, in threads; the numba extra), ``"pyarrow"``, ``"numpy"`` or ``"auto"`` (the
    first of these installed); all give the same arrays and errors.
    ``ValueError`` names the file, line and column of the first cell that breaks the format.
    """
    tick = check_int(tick_size, "tick_size", low=1)
    chosen = _engine(engine)
    if levels is not None:
        levels = check_int(levels, "levels", low=1)
    if ticker is not None and not isinstance(ticker, str):
        raise TypeError(f"ticker must be a str or None, got {ticker!r}.")
    message = Path(message_file)
    orderbook = None if orderbook_file is None else Path(orderbook_file)
    text = _text_engine() if chosen == "numba" else chosen
    compiled: Any = None
    if chosen == "numba":
        from sekai.finance.lob.compiled import lobster_read as compiled
    # The compiled reader returns None for a file it refuses; the text reader names the error.
    columns = compiled and compiled.read_messages(message, tick)
    if columns is None:
        columns = _messages(_read(message), message.name, tick, text)
    named = parse_name(message) or (parse_name(orderbook) if orderbook else None)
    if orderbook is not None:
        rows = len(columns[0])
        book = compiled and compiled.read_book(orderbook, tick, rows)
        if book is None:
            book = _book(_read(orderbook), orderbook.name, tick, text, rows)
        if levels is not None and levels > book.shape[1]:
            raise ValueError(
                f"levels={levels}, but {orderbook.name} has only {book.shape[1]} levels."
            )
        book = book[:, :levels] if levels is not None else book
        book.flags.writeable = False
        levels = book.shape[1]
    else:
        book = None
        if levels is None and named is not None:
            levels = named[2]
    time_ns, event, order_id, size, price, direction = columns
    return LobsterData(
        time_ns,
        event.astype(np.int8, copy=False),
        order_id,
        size,
        price,
        direction.astype(np.int8, copy=False),
        book=book,
        levels=levels,
        tick_size=tick,
        date=_date(date) if date is not None else (named[1] if named else None),
        ticker=ticker if ticker is not None else (named[0] if named else None),
        source=message.name,
    )
