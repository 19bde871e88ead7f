"""Replaying LOBSTER messages into an ``OrderBook``, checked against the order-book file.

The replay knows nothing before message 1. Each order-book row shows the best ``levels``
price levels per side; the replay keeps, per side, a *frontier*: the worst price through
which its book is exact. Volume the file shows beyond the frontier is *revealed*: it becomes
anonymous resting volume (owner ``ANONYMOUS``, no LOBSTER order id), topped up so that the
level holds what the file shows. Deletes, partial cancels and executions of order ids that
no new-order message placed consume that anonymous volume at their price. So orders resting
before the file starts, and volume that rises into view from beyond the file's depth, are
taken from the file, and everything else must follow from the messages exactly.

Hidden executions (type 5) and cross trades (type 6) leave the visible book alone. A halt
(type 7, price -1) pauses matching until trading resumes (type 7, price 1; price 0, the
resumption of quoting, keeps it paused): new orders, cancels and deletes are replayed, but
an execution (type 4 or 5) in between is an error. New orders rest without matching
(``OrderBook.place``): LOBSTER reports every trade as an execution message of its own.

Engines. ``depth_rows`` takes ``engine="auto" | "numba" | "python"`` (``"auto"`` picks numba
when it is installed): numba runs these rules compiled on array books (``compiled.lobster_replay``),
several times faster, and returns the identical array; when a message or a row is wrong it
replays in Python, which raises the error. ``replay``, which hands out an ``OrderBook`` per
message, runs in Python.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from enum import IntEnum

import numpy as np
from numpy.typing import NDArray

from sekai.finance.lob.book import OrderBook
from sekai.finance.lob.engine import Engine, resolve_engine

__all__ = ["ANONYMOUS", "EMPTY_ASK", "EMPTY_BID", "LobsterEvent", "depth_rows", "replay"]

EMPTY_ASK = 9_999_999_999
"""The price LOBSTER writes for an empty ask level (its size is 0)."""

EMPTY_BID = -9_999_999_999
"""The price LOBSTER writes for an empty bid level (its size is 0)."""

ANONYMOUS = -2
"""Owner id of the replay's anonymous resting volume: volume the file shows without an id."""


class LobsterEvent(IntEnum):
    """LOBSTER's event types (the message file's second column)."""

    NEW = 1
    CANCEL = 2
    DELETE = 3
    EXECUTE = 4
    HIDDEN = 5
    CROSS = 6
    HALT = 7


_NAMES = {2: "partial cancel", 3: "delete", 4: "execution"}
_SIDES = {1: "bid", -1: "ask"}

Messages = tuple[
    NDArray[np.int64],
    NDArray[np.int8],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int64],
    NDArray[np.int8],
]
"""``(time_ns, event, order_id, size, price, direction)`` of ``LobsterData``."""


class _Replay:
    """The state of one replay: the book, the id maps, the frontiers and the halt flag."""

    def __init__(
        self,
        messages: Messages,
        book: NDArray[np.int64],
        where: str,
        first_line: int,
        into: OrderBook | None = None,
    ) -> None:
        self.book = OrderBook() if into is None else into
        self.rows = book
        self.levels = book.shape[1]
        self.where = where
        self.first_line = first_line
        self.columns = tuple(column.tolist() for column in messages)
        self.ids: dict[int, int] = {}
        self.anonymous: dict[int, int] = {}
        # Keys are ``side * price`` (larger is better); the book is exact for keys >= frontier.
        self.frontier: dict[int, float] = {1: math.inf, -1: math.inf}
        self.halted = False
        self.current: dict[int, list[int]] = {}
        n = self.levels
        self.pads = {
            side: [([empty] * m, [0] * m) for m in range(n + 1)]
            for side, empty in ((1, EMPTY_BID), (-1, EMPTY_ASK))
        }

    def error(self, k: int, text: str) -> ValueError:
        return ValueError(f"{self.where}, line {self.first_line + k}: {text}.")

    def apply(self, k: int, event: int, oid: int, size: int, price: int, side: int) -> int:
        """Apply message ``k``; returns the side whose top levels may have changed, or 0."""
        book = self.book
        if event == 1:
            if oid in self.ids:
                raise self.error(k, f"new order id {oid} is already resting")
            self.ids[oid] = book.place(side, price, size)
        elif event <= 4:
            if event == 4 and self.halted:
                raise self.error(k, "an execution while trading is halted")
            book_id = self.ids.get(oid)
            if book_id is None:
                return self.consume(k, event, oid, size, price, side)
            order = book.get(book_id)
            assert order is not None
            if order.side != side or order.price != price:
                raise self.error(
                    k,
                    f"a {_NAMES[event]} of order {oid} as a {_SIDES[side]} at {price}, but it "
                    f"rests as a {_SIDES[order.side]} at {order.price}",
                )
            left = order.quantity - size
            if left < 0 or (event == 3 and left):
                expected = "exactly" if event == 3 else "at most"
                raise self.error(
                    k,
                    f"a {_NAMES[event]} of {size} shares of order {oid}, expected {expected} "
                    f"its {order.quantity} resting shares",
                )
            if left:
                book.reduce(book_id, left)
            else:
                book.cancel(book_id)
                del self.ids[oid]
        elif event == 7:
            if price:
                self.halted = price < 0
            return 0
        else:
            if event == 5 and self.halted:
                raise self.error(k, "a hidden execution while trading is halted")
            return 0
        return side if side * price >= self.frontier[side] else 0

    def consume(self, k: int, event: int, oid: int, size: int, price: int, side: int) -> int:
        """Take ``size`` from the anonymous volume at ``price`` for an order id never placed."""
        key = side * price
        visible = key >= self.frontier[side]
        have = self.anonymous_at(key)
        if visible and have < size:
            raise self.error(
                k,
                f"a {_NAMES[event]} of {size} shares of order {oid}, which no new-order "
                f"message placed, at {_SIDES[side]} {price}: only {have} shares rest there "
                "without an order id",
            )
        if have:
            self.set_anonymous(side, price, have - min(size, have))
        return side if visible else 0

    def anonymous_at(self, key: int) -> int:
        book_id = self.anonymous.get(key)
        if book_id is None:
            return 0
        order = self.book.get(book_id)
        assert order is not None
        return order.quantity

    def set_anonymous(self, side: int, price: int, volume: int) -> None:
        """Make the anonymous volume at ``price`` equal ``volume``; a decrease keeps priority."""
        key = side * price
        book_id = self.anonymous.get(key)
        if book_id is not None and 0 < volume < self.anonymous_at(key):
            self.book.reduce(book_id, volume)
            return
        if book_id is not None:
            del self.anonymous[key]
            self.book.cancel(book_id)
        if volume:
            self.anonymous[key] = self.book.place(side, price, volume, ANONYMOUS)

    def refresh(self, k: int, side: int) -> None:
        """Move the frontier of ``side`` after row ``k``, revealing levels when it must."""
        n = self.levels
        prices, volumes = self.book.levels(side, n)
        frontier = self.frontier[side]
        if len(prices) == n and side * prices[-1] >= frontier:
            self.frontier[side] = side * prices[-1]
        elif frontier != -math.inf:
            prices, volumes = self.reveal(k, side)
        pad_prices, pad_volumes = self.pads[side][n - len(prices)]
        self.current[side] = prices + pad_prices + volumes + pad_volumes

    def reveal(self, k: int, side: int) -> tuple[list[int], list[int]]:
        """Take the levels of row ``k`` beyond the frontier from the file; returns the top."""
        n = self.levels
        column = 2 if side > 0 else 0
        row = self.rows[k]
        shown = [
            (p, v)
            for p, v in zip(row[:, column].tolist(), row[:, column + 1].tolist(), strict=True)
            if v
        ]
        old = self.frontier[side]
        for price, volume in shown:
            if side * price < old:
                self.fill(k, side, price, volume)
        file_prices = {price for price, _ in shown}
        while True:
            prices, volumes = self.book.levels(side, n)
            extra = [price for price in prices if price not in file_prices]
            if not extra:
                break
            for price in extra:
                if side * price >= old or self.book.volume_at(side, price) != self.anonymous_at(
                    side * price
                ):
                    raise self.error(
                        k,
                        f"the order-book row has no {_SIDES[side]} level at {price}, but "
                        "orders placed by earlier messages rest there",
                    )
                self.set_anonymous(side, price, 0)
        self.frontier[side] = side * shown[-1][0] if len(shown) == n else -math.inf
        return prices, volumes

    def fill(self, k: int, side: int, price: int, volume: int) -> None:
        """Make the level at ``price`` hold ``volume`` by setting its anonymous volume."""
        have = self.anonymous_at(side * price)
        known = self.book.volume_at(side, price) - have
        if known > volume:
            raise self.error(
                k,
                f"the order-book row shows {volume} shares at {_SIDES[side]} {price}, but "
                f"orders placed by earlier messages hold {known} there",
            )
        if volume - known != have:
            self.set_anonymous(side, price, volume - known)

    def step(self, k: int, t: int, event: int, oid: int, size: int, price: int, side: int) -> int:
        """Apply message ``k`` and refresh what it changed; returns that side, 2 for both."""
        self.book.time = t / 1e9
        changed = self.apply(k, event, oid, size, price, side)
        if not k:
            self.refresh(0, 1)
            self.refresh(0, -1)
            return 2
        if changed:
            self.refresh(k, changed)
        return changed

    def mismatch(self, depth: NDArray[np.int64], start: int) -> ValueError | None:
        """The error for the first row where ``depth`` and the file's rows from ``start`` differ."""
        rows = self.rows[start : start + len(depth)]
        bad = np.flatnonzero((depth != rows).any(axis=(1, 2)))
        if not len(bad):
            return None
        r = int(bad[0])
        level, column = (int(i) for i in np.argwhere(depth[r] != rows[r])[0])
        side = "ask" if column < 2 else "bid"
        base = column - column % 2
        got = tuple(rows[r, level, base : base + 2].tolist())
        want = tuple(depth[r, level, base : base + 2].tolist())
        return self.error(
            start + r,
            f"the order-book row disagrees with the messages: {side} level {level + 1} is "
            f"(price, size) {got} in the file, {want} replayed",
        )


def depth_rows(
    messages: Messages,
    book: NDArray[np.int64],
    where: str,
    first_line: int,
    engine: Engine = "auto",
) -> NDArray[np.int64]:
    """The replayed depth after each message, ``(rows, levels, 4)`` like ``book``.

    ``ValueError`` naming the line of the first row where the file and the messages disagree.
    ``engine`` as in the module docstring; both give the same array and the same errors.
    """
    if resolve_engine(engine) == "numba":
        from sekai.finance.lob.compiled import lobster_replay as compiled

        depth = compiled.depth_rows(messages, book)
        if depth is not None:
            return depth
    state = _Replay(messages, book, where, first_line)
    records: dict[int, tuple[list[int], list[list[int]]]] = {1: ([], []), -1: ([], [])}
    bid_rows, bid_values = records[1]
    ask_rows, ask_values = records[-1]
    step = state.step
    current = state.current
    k = 0
    try:
        for k, message in enumerate(zip(*state.columns, strict=True)):
            side = step(k, *message)
            if side == 1 or side == 2:
                bid_rows.append(k)
                bid_values.append(current[1])
            if side == -1 or side == 2:
                ask_rows.append(k)
                ask_values.append(current[-1])
    except ValueError as exc:
        earlier = state.mismatch(_assemble(k, state.levels, records), 0) if k else None
        if earlier is not None:
            raise earlier from exc
        raise
    depth = _assemble(len(book), state.levels, records)
    error = state.mismatch(depth, 0)
    if error is not None:
        raise error
    return depth


def replay(
    messages: Messages, book: NDArray[np.int64], where: str, first_line: int
) -> Iterator[tuple[int, OrderBook]]:
    """Yield ``(k, book)`` after each message ``k``, each row checked as in ``depth_rows``.

    The same ``OrderBook`` comes every time, holding the state after message ``k``.
    """
    state = _Replay(messages, book, where, first_line)
    current = state.current
    for k, message in enumerate(zip(*state.columns, strict=True)):
        state.step(k, *message)
        ask_prices, ask_sizes, bid_prices, bid_sizes = book[k].T.tolist()
        if current[-1] != ask_prices + ask_sizes or current[1] != bid_prices + bid_sizes:
            records = {side: ([0], [current[side]]) for side in (1, -1)}
            error = state.mismatch(_assemble(1, state.levels, records), k)
            assert error is not None
            raise error
        yield k, state.book


def _assemble(
    rows: int, levels: int, records: dict[int, tuple[list[int], list[list[int]]]]
) -> NDArray[np.int64]:
    """The ``(rows, levels, 4)`` depth: each side's last recorded levels, carried forward."""
    depth = np.empty((rows, levels, 4), dtype=np.int64)
    for side, column in ((-1, 0), (1, 2)):
        changed, values = records[side]
        index = np.full(rows, -1, dtype=np.intp)
        index[np.asarray(changed[: np.searchsorted(changed, rows)], dtype=np.intp)] = np.arange(
            min(len(changed), rows), dtype=np.intp
        )
        table = np.array(values, dtype=np.int64).reshape(len(values), 2, levels)
        taken = table[np.maximum.accumulate(index)]
        depth[:, :, column] = taken[:, 0]
        depth[:, :, column + 1] = taken[:, 1]
    return depth
