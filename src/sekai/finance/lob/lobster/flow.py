"""Historical LOBSTER messages as the background flow of an order book that agents trade in.

Each day is first replayed once, alone, by the rules of ``lobster.replay`` (anonymous volume
for orders resting before the file starts or rising into view), and every change that replay
makes to its book is kept as an operation: place, reduce to a quantity, cancel. An episode
lays the book as it stood at its start time and then applies the operations message by
message to the book the agents trade in. Assumptions:

* The historical flow does not react to the agents: every message is applied as recorded.
* An agent's limit order joins the back of its level's queue. A visible execution (type 4)
  of a historical order first fills, in price-time priority and up to the executed size, the
  agent orders that would have been ahead of it (a better price, or the same price and an
  earlier arrival); a hidden execution (type 5) fills agent orders at its price or better,
  as displayed orders go before hidden ones. A new historical order that crosses agent
  orders fills them at their prices and rests with what is left. The historical orders
  still trade as recorded: those fills come on top of history.
* Volume an agent takes from a historical order stays taken: the order keeps what the agent
  left, and a later message that lowers it (a cancel, a delete, an execution) lowers it to
  at most what history says is left.
* While trading is halted (type 7, price -1, until type 7 with price 1) executions stop;
  the env sends no agent market orders then.
* Historical aggressors have no order id: their fills carry ``taker_order_id = 0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sekai.finance.lob.book import BACKGROUND, Fill, Order, OrderBook, Side, plain_book
from sekai.finance.lob.engine import resolve_engine
from sekai.finance.lob.lobster.data import LobsterData
from sekai.finance.lob.lobster.replay import _Replay
from sekai.utils.validation import check_int

__all__ = ["HistoricalFlow"]

_PLACE, _REDUCE, _CANCEL = 0, 1, 2
_NS = 1_000_000_000
_SIDES = {1: Side.BID, -1: Side.ASK}

Recorded = tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], tuple[NDArray[np.int64], ...]
]
"""``(ops, op_start, executed, checkpoints)`` of a day's preparation (``_Day``'s fields)."""


class _Recorder(OrderBook):
    """An ``OrderBook`` that keeps every change as ``(kind, id, side, price, quantity, owner)``."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[tuple[int, int, int, int, int, int]] = []

    def place(self, side: Side | int, price: int, quantity: int, owner: int = BACKGROUND) -> int:
        order_id = super().place(side, price, quantity, owner)
        self.ops.append((_PLACE, order_id, int(side), price, quantity, owner))
        return order_id

    def reduce(self, order_id: int, quantity: int) -> bool:
        done = super().reduce(order_id, quantity)
        if done and quantity:
            self.ops.append((_REDUCE, order_id, 0, 0, quantity, 0))
        return done

    def cancel(self, order_id: int) -> bool:
        done = super().cancel(order_id)
        if done:
            self.ops.append((_CANCEL, order_id, 0, 0, 0, 0))
        return done


@dataclass(frozen=True, slots=True)
class _Day:
    """One day prepared for replay: messages, operations, executed ids and checkpoints."""

    time_ns: NDArray[np.int64]
    event: NDArray[np.int8]
    size: NDArray[np.int64]
    price: NDArray[np.int64]
    direction: NDArray[np.int8]
    ops: NDArray[np.int64]
    """``(n_ops, 6)``: kind, id, side, price, quantity, owner."""
    op_start: NDArray[np.int64]
    """Message ``k``'s operations are ``ops[op_start[k]:op_start[k + 1]]``."""
    executed: NDArray[np.int64]
    """The replay id of the order a type-4 message executes; 0 when it had none."""
    last_trade: NDArray[np.int64]
    """The last execution price before message ``k``, 0 when none."""
    checkpoints: tuple[NDArray[np.int64], ...]
    """The resting orders before message ``i * every``: id, side, price, quantity, owner."""


def _prepare(data: LobsterData, every: int) -> _Day:
    """Replay ``data`` alone, keeping its operations and a checkpoint every ``every`` messages.

    Compiled (``compiled.lobster_replay``) when numba is installed, with the same results; in Python
    otherwise, or to raise the error of a day that does not replay.
    """
    assert data.book is not None
    recorded = None
    if resolve_engine("auto") == "numba":
        from sekai.finance.lob.compiled import lobster_replay as compiled
        from sekai.finance.lob.compiled.compiling import reporting

        with reporting("the LOBSTER replay", 1) as done:
            recorded = compiled.prepare(data.messages, data.book, every)
            done(1)
    ops, op_start, executed, checkpoints = recorded or _record(data, every)
    n = len(data)
    trades = np.where(np.isin(data.event, (4, 5)), data.price, 0)
    traded = np.flatnonzero(trades)
    last = np.zeros(n, dtype=np.int64)
    if len(traded):
        position = np.searchsorted(traded, np.arange(n), side="left") - 1
        last = np.where(position >= 0, trades[traded[np.maximum(position, 0)]], 0)
    return _Day(
        data.time_ns,
        data.event,
        data.size,
        data.price,
        data.direction,
        ops,
        op_start,
        executed,
        last.astype(np.int64),
        checkpoints,
    )


def _record(data: LobsterData, every: int) -> Recorded:
    """``(ops, op_start, executed, checkpoints)`` of ``_prepare``, replayed in Python."""
    assert data.book is not None
    recorder = _Recorder()
    where = data.source or "LobsterData"
    state = _Replay(data.messages, data.book, where, data.first_line, recorder)
    n = len(data)
    op_start = np.empty(n + 1, dtype=np.int64)
    executed = np.zeros(n, dtype=np.int64)
    checkpoints = []
    ops = recorder.ops
    for k, (t, event, oid, size, price, side) in enumerate(zip(*state.columns, strict=True)):
        if not k % every:
            checkpoints.append(
                np.array(
                    [
                        (o.order_id, o.side, o.price, o.quantity, o.owner)
                        for o in recorder._orders.values()
                    ],
                    dtype=np.int64,
                ).reshape(-1, 5)
            )
        op_start[k] = len(ops)
        if event == 4:
            executed[k] = state.ids.get(oid) or state.anonymous.get(side * price, 0)
        state.step(k, t, event, oid, size, price, side)
    op_start[n] = len(ops)
    return np.array(ops, dtype=np.int64).reshape(-1, 6), op_start, executed, tuple(checkpoints)


class HistoricalFlow:
    """The messages of one or more ``LobsterData`` days as an order book's background flow.

    ``seek(book, day, time)`` lays the book as it stood at ``time`` (seconds after midnight)
    and ``advance(book, rng, until)`` applies every message up to ``until``, trading with
    the agents' orders as the module docstring describes. Each day needs its order-book rows;
    it is prepared (replayed once, with a checkpoint every ``checkpoint_every`` messages) the
    first time an episode uses it. ``rng`` is not used: replay draws nothing.
    """

    def __init__(
        self, data: LobsterData | Sequence[LobsterData], *, checkpoint_every: int = 4096
    ) -> None:
        days = [data] if isinstance(data, LobsterData) else data
        if isinstance(days, (str, bytes)) or not isinstance(days, Sequence):
            raise TypeError(f"data must be a LobsterData or a list of them, got {data!r}.")
        for i, day in enumerate(days):
            if not isinstance(day, LobsterData):
                raise TypeError(f"data[{i}] must be a LobsterData, got {type(day).__name__}.")
            if day.book is None or not len(day):
                raise ValueError(
                    f"data[{i}] ({day!r}) has no order-book rows or no messages; replay needs "
                    "both: read_lobster(message_file, orderbook_file)."
                )
        if not days:
            raise ValueError("data must hold at least one LobsterData.")
        self.days: tuple[LobsterData, ...] = tuple(days)
        self.checkpoint_every = check_int(checkpoint_every, "checkpoint_every", low=1)
        self.halted = False
        self._prepared: dict[int, _Day] = {}
        self._day: _Day | None = None
        self._k = 0
        self._quantity: dict[int, int] = {}
        self._book_id: dict[int, int] = {}

    def span(self, day: int) -> tuple[int, int]:
        """``(first, last)`` message time of ``day`` in nanoseconds after midnight."""
        times = self.days[day].time_ns
        return int(times[0]), int(times[-1])

    def seek(self, book: OrderBook, day: int, time_ns: int) -> None:
        """Clear ``book`` and lay the orders resting after the messages up to ``time_ns``.

        ``book.time`` becomes ``time_ns / 1e9`` and ``last_price`` the last execution price
        before it (else ``None``); the next ``advance`` starts with the first later message.
        """
        plain_book(book, "HistoricalFlow")
        prepared, k, checkpoint, last = self.locate(day, time_ns)
        book.clear()
        self._quantity = {}
        self._book_id = {}
        for order_id, side, price, quantity, owner in prepared.checkpoints[checkpoint].tolist():
            self._quantity[order_id] = quantity
            self._book_id[order_id] = book.place(side, price, quantity, owner)
        start = int(prepared.op_start[checkpoint * self.checkpoint_every])
        self._apply(book, prepared.ops[start : prepared.op_start[k]].tolist(), [])
        book.time = time_ns / _NS
        book.last_price = last or None

    def locate(self, day: int, time_ns: int) -> tuple[_Day, int, int, int]:
        """Go to ``time_ns`` of ``day``: ``(prepared day, next message, checkpoint, last price)``.

        Prepares the day the first time; sets ``halted`` as it stands before the next message.
        The checkpoint's orders and the operations from it to the next message lay the book;
        the last price is the last execution price before it (0 for none).
        """
        prepared = self._prepared.get(day)
        if prepared is None:
            prepared = self._prepared[day] = _prepare(self.days[day], self.checkpoint_every)
        self._day = prepared
        k = int(np.searchsorted(prepared.time_ns, time_ns, side="right"))
        self._k = k
        self.halted = self._halted_at(k)
        checkpoint = min(k // self.checkpoint_every, len(prepared.checkpoints) - 1)
        last = int(prepared.last_trade[k]) if k < len(prepared.time_ns) else 0
        return prepared, k, checkpoint, last

    def _halted_at(self, k: int) -> bool:
        """Whether trading is halted after the messages before ``k``."""
        assert self._day is not None
        halts = np.flatnonzero((self._day.event[:k] == 7) & (self._day.price[:k] != 0))
        return bool(len(halts)) and int(self._day.price[halts[-1]]) < 0

    def end_of(self, until: float) -> int:
        """The index after the current day's last message at or before ``until`` seconds."""
        assert self._day is not None
        return int(np.searchsorted(self._day.time_ns, round(until * _NS), side="right"))

    def advance(self, book: OrderBook, rng: np.random.Generator, until: float) -> list[Fill]:
        """Apply the messages up to ``until`` seconds; returns every fill, agents' included."""
        day = self._day
        if day is None:
            raise RuntimeError("call seek(book, day, time_ns) before advance().")
        plain_book(book, "HistoricalFlow")
        end = self.end_of(until)
        fills: list[Fill] = []
        k = self._k
        if end > k:
            ops = day.ops[day.op_start[k] : day.op_start[end]].tolist()
            starts = (day.op_start[k : end + 1] - day.op_start[k]).tolist()
            columns = zip(
                day.time_ns[k:end].tolist(),
                day.event[k:end].tolist(),
                day.size[k:end].tolist(),
                day.price[k:end].tolist(),
                day.direction[k:end].tolist(),
                day.executed[k:end].tolist(),
                strict=True,
            )
            for i, (t, event, size, price, side, executed) in enumerate(columns):
                book.time = t / _NS
                if event == 4 or event == 5:
                    self._execute(book, event, size, price, side, executed, fills)
                elif event == 7 and price:
                    self.halted = price < 0
                self._apply(book, ops[starts[i] : starts[i + 1]], fills)
            self._k = end
        book.time = until
        return fills

    def _execute(
        self,
        book: OrderBook,
        event: int,
        size: int,
        price: int,
        side: int,
        executed: int,
        fills: list[Fill],
    ) -> None:
        """A historical execution: agent orders ahead of it first, then the trade itself."""
        if event == 4:
            ahead = self._book_id.get(executed, 0) if executed else 0
            self._fill_agents(book, side, side * price, ahead, size, fills)
        else:
            self._fill_agents(book, side, side * price, None, size, fills)
        maker = self._book_id.get(executed, 0) if event == 4 else 0
        order = book.get(maker) if maker else None
        owner = order.owner if order is not None else BACKGROUND
        fills.append(Fill(price, size, maker, 0, owner, BACKGROUND, _SIDES[-side], book.time))
        book.last_price = price

    def _fill_agents(
        self,
        book: OrderBook,
        side: int,
        key: int,
        ahead: int | None,
        size: int,
        fills: list[Fill],
    ) -> int:
        """Fill agent orders on ``side`` with priority over ``(key, ahead)``; returns shares.

        Eligible: ``side * price > key``, or ``== key`` with an id below ``ahead`` (every id
        when ``ahead`` is None). They trade in price-time priority at their own prices.
        """
        candidates: list[Order] = [
            order
            for owner, owned in book._by_owner.items()
            if owner >= 0
            for order in owned.values()
            if order.side == side
            and (
                side * order.price > key
                or (side * order.price == key and (ahead is None or order.order_id < ahead))
            )
        ]
        if not candidates:
            return 0
        candidates.sort(key=lambda order: (-side * order.price, order.order_id))
        taker_side = _SIDES[-side]
        left = size
        for order in candidates:
            traded = min(order.quantity, left)
            fills.append(
                Fill(order.price, traded, order.order_id, 0, order.owner, BACKGROUND, taker_side,
                     book.time)
            )  # fmt: skip
            book.last_price = order.price
            book.reduce(order.order_id, order.quantity - traded)
            left -= traded
            if not left:
                break
        return size - left

    def _apply(self, book: OrderBook, ops: list[list[int]], fills: list[Fill]) -> None:
        """Apply replay operations to ``book``, respecting what agents took."""
        quantities = self._quantity
        book_ids = self._book_id
        for kind, order_id, side, price, quantity, owner in ops:
            if kind == _PLACE:
                quantities[order_id] = quantity
                crossed = self._fill_agents(book, -side, -side * price, None, quantity, fills)
                left = quantity - crossed
                book_ids[order_id] = book.place(side, price, left, owner) if left else 0
            elif kind == _REDUCE:
                quantities[order_id] = quantity
                order = book.get(book_ids[order_id])
                if order is not None and order.quantity > quantity:
                    book.reduce(order.order_id, quantity)
            else:
                del quantities[order_id]
                book.cancel(book_ids.pop(order_id))
