"""``HistoricalFlow``'s replay on a compiled book state, with numba, with its results.

A *tape* holds one prepared day (``lobster.flow._Day``: the messages, the replay's
operations per message and the replay ids that executions name) and, per episode, the book
id of each replay id and the cursor. ``seek`` lays a checkpoint and the operations after it;
``advance`` applies the messages up to a given one, trading with the agents' orders by the
rules in ``lobster.flow``'s docstring. Imported only with numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.experimental import structref

from sekai.finance.lob.compiled.book_rules import _add_fill, cancel, place, reduce, slot_of
from sekai.finance.lob.compiled.book_state import (
    AGENT_LIST,
    BACKGROUND,
    M_HALTED,
    M_LAST_PRICE,
    M_N_OWNED,
    NO_ORDER,
    O_ID,
    O_OWNER,
    O_PRICE,
    O_QTY,
    O_SIDE,
    clear,
)

__all__ = ["Tape", "new_tape", "replay_advance", "replay_seek"]

_PLACE, _REDUCE = 0, 1
_NS = 1_000_000_000


@structref.register
class _TapeType(types.StructRef):
    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(kind)) for name, kind in fields)


class Tape(structref.StructRefProxy):
    """One prepared day, the book ids of its replay ids and the next message."""


structref.define_proxy(
    Tape,
    _TapeType,
    ["time_ns", "event", "size", "price", "direction", "ops", "op_start", "executed", "book_of"],
)


@njit(cache=True)
def new_tape(
    time_ns: Any,
    event: Any,
    size: Any,
    price: Any,
    direction: Any,
    ops: Any,
    op_start: Any,
    executed: Any,
    book_of: Any,
) -> Any:
    """A tape over these int64 arrays; ``book_of`` has a slot per replay id."""
    return Tape(time_ns, event, size, price, direction, ops, op_start, executed, book_of)


@njit(cache=True)
def _fill_agents(
    state: Any, side: int, key: int, ahead: int, any_id: bool | np.bool_, size: int
) -> int:
    """Fill agent orders on ``side`` with priority over ``(key, ahead)``; returns shares.

    Eligible: ``side * price > key``, or ``== key`` with an id below ``ahead`` (any id when
    ``any_id``). They trade in price-time priority at their own prices.
    """
    n = state.meta[M_N_OWNED + AGENT_LIST]
    if n == 0:
        return 0
    ids = state.owned[AGENT_LIST]
    orders = state.orders
    chosen = np.empty(n, dtype=np.int64)
    count = 0
    for i in range(n):
        slot = slot_of(state, ids[i])
        order_key = side * orders[slot, O_PRICE]
        if orders[slot, O_SIDE] == side and (
            order_key > key or (order_key == key and (any_id or ids[i] < ahead))
        ):
            # Best price first; ids ascend, so equal prices keep their time priority.
            j = count
            while j > 0 and side * orders[chosen[j - 1], O_PRICE] < order_key:
                chosen[j] = chosen[j - 1]
                j -= 1
            chosen[j] = slot
            count += 1
    left = size
    for i in range(count):
        slot = chosen[i]
        price = orders[slot, O_PRICE]
        quantity = orders[slot, O_QTY]
        order_id = orders[slot, O_ID]
        traded = min(quantity, left)
        _add_fill(
            state, price, traded, order_id, NO_ORDER, orders[slot, O_OWNER], BACKGROUND, -side
        )
        state.meta[M_LAST_PRICE] = price
        reduce(state, order_id, quantity - traded)
        left -= traded
        if left == 0:
            break
    return size - left


@njit(cache=True)
def _apply(state: Any, tape: Any, first: int, last: int) -> None:
    """Apply operations ``first:last``, respecting what agents took."""
    ops = tape.ops
    book_of = tape.book_of
    for r in range(first, last):
        kind = ops[r, 0]
        replay_id = ops[r, 1]
        if kind == _PLACE:
            side = ops[r, 2]
            price = ops[r, 3]
            quantity = ops[r, 4]
            crossed = _fill_agents(state, -side, -side * price, NO_ORDER, np.True_, quantity)
            left = quantity - crossed
            book_of[replay_id] = place(state, side, price, left, ops[r, 5]) if left else 0
        elif kind == _REDUCE:
            order_id = book_of[replay_id]
            slot = slot_of(state, order_id)
            if slot >= 0 and state.orders[slot, O_QTY] > ops[r, 4]:
                reduce(state, order_id, ops[r, 4])
        else:
            cancel(state, book_of[replay_id])
            book_of[replay_id] = 0


@njit(cache=True)
def replay_seek(
    state: Any,
    tape: Any,
    resting: Any,
    first: int,
    last: int,
    time: float,
    last_price: int,
    halted: bool,
) -> None:
    """Clear the book, lay ``resting`` (id, side, price, quantity, owner rows), apply
    operations ``first:last``, then set the clock, the last price (0: none) and the halt."""
    clear(state)
    tape.book_of[:] = 0
    for i in range(resting.shape[0]):
        tape.book_of[resting[i, 0]] = place(
            state, resting[i, 1], resting[i, 2], resting[i, 3], resting[i, 4]
        )
    _apply(state, tape, first, last)
    state.clock[0] = time
    state.meta[M_LAST_PRICE] = last_price
    state.meta[M_HALTED] = halted


@njit(cache=True)
def replay_advance(state: Any, tape: Any, first: int, end: int, until: float) -> None:
    """Apply messages ``first:end`` (the first after the cursor to the last by ``until``)."""
    meta = state.meta
    for i in range(first, end):
        state.clock[0] = tape.time_ns[i] / _NS
        event = tape.event[i]
        price = tape.price[i]
        if event == 4 or event == 5:
            side = tape.direction[i]
            size = tape.size[i]
            executed = tape.executed[i] if event == 4 else 0
            maker = tape.book_of[executed] if executed else 0
            _fill_agents(state, side, side * price, maker, event == 5, size)
            slot = slot_of(state, maker)
            owner = state.orders[slot, O_OWNER] if slot >= 0 else BACKGROUND
            _add_fill(state, price, size, maker, NO_ORDER, owner, BACKGROUND, -side)
            meta[M_LAST_PRICE] = price
        elif event == 7 and price != 0:
            meta[M_HALTED] = 1 if price < 0 else 0
        _apply(state, tape, tape.op_start[i], tape.op_start[i + 1])
    state.clock[0] = until
