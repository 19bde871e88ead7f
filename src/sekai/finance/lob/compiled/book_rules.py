"""``OrderBook``'s rules on a compiled book state (``book_state``), with numba.

The same order ids, fills and price-time priority as ``OrderBook`` (``lob/book.py``), which stays
the pure-Python reference. Imported only with numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from sekai.finance.lob.compiled.book_state import (
    AGENT_LIST,
    BACKGROUND,
    BACKGROUND_LIST,
    F_MAKER,
    F_MAKER_OWNER,
    F_PRICE,
    F_QTY,
    F_TAKER,
    F_TAKER_OWNER,
    F_TAKER_SIDE,
    L_HEAD,
    L_PRICE,
    L_TAIL,
    L_VOLUME,
    M_LAST_PRICE,
    M_N_BID,
    M_N_FILLS,
    M_N_FREE,
    M_N_LEVEL_FREE,
    M_N_ORDERS,
    M_N_OWNED,
    M_NEXT_ID,
    O_ID,
    O_LEVEL,
    O_NEXT,
    O_OWNER,
    O_PREV,
    O_PRICE,
    O_QTY,
    O_SIDE,
    copy_head,
)

__all__ = [
    "best",
    "cancel",
    "depth_into",
    "level_of",
    "limit",
    "market",
    "place",
    "queue_ahead",
    "reduce",
    "resting",
    "slot_of",
]

_NO_BOUND = np.int64(np.iinfo(np.int64).min)


# -- storage -------------------------------------------------------------------------------


@njit(cache=True)
def _free_list(old: int) -> Any:
    """The free list after doubling ``old`` slots: the new ones, the lowest on top."""
    free = np.empty(2 * old, dtype=np.int64)
    copy_head(free, np.arange(2 * old - 1, old - 1, -1))
    return free


@njit(cache=True)
def _grow_orders(state: Any) -> None:
    old = state.orders.shape[0]
    orders = np.zeros((2 * old, 8), dtype=np.int64)
    copy_head(orders, state.orders)
    state.orders = orders
    times = np.zeros(2 * old, dtype=np.float64)
    copy_head(times, state.order_time)
    state.order_time = times
    state.free = _free_list(old)
    state.meta[M_N_FREE] = old


@njit(cache=True)
def _grow_levels(state: Any) -> None:
    old = state.levels.shape[0]
    levels = np.zeros((2 * old, 4), dtype=np.int64)
    copy_head(levels, state.levels)
    state.levels = levels
    state.level_free = _free_list(old)
    state.meta[M_N_LEVEL_FREE] = old


@njit(cache=True)
def _grow_keys(state: Any) -> None:
    old = state.keys.shape[1]
    keys = np.zeros((2, 2 * old), dtype=np.int64)
    copy_head(keys, state.keys)
    state.keys = keys
    key_level = np.zeros((2, 2 * old), dtype=np.int64)
    copy_head(key_level, state.key_level)
    state.key_level = key_level


@njit(cache=True)
def _ensure_id(state: Any, order_id: int) -> None:
    if order_id >= state.slot_of.shape[0]:
        slot_of = np.full(2 * order_id, -1, dtype=np.int64)
        copy_head(slot_of, state.slot_of)
        state.slot_of = slot_of


@njit(cache=True)
def _add_fill(
    state: Any,
    price: int,
    quantity: int,
    maker: int,
    taker: int,
    maker_owner: int,
    taker_owner: int,
    taker_side: int,
) -> None:
    meta = state.meta
    n = meta[M_N_FILLS]
    if n == state.fills.shape[0]:
        fills = np.zeros((2 * n, 7), dtype=np.int64)
        copy_head(fills, state.fills)
        state.fills = fills
        times = np.zeros(2 * n, dtype=np.float64)
        copy_head(times, state.fill_time)
        state.fill_time = times
    row = state.fills[n]
    row[F_PRICE] = price
    row[F_QTY] = quantity
    row[F_MAKER] = maker
    row[F_TAKER] = taker
    row[F_MAKER_OWNER] = maker_owner
    row[F_TAKER_OWNER] = taker_owner
    row[F_TAKER_SIDE] = taker_side
    state.fill_time[n] = state.clock[0]
    meta[M_N_FILLS] = n + 1


# -- levels --------------------------------------------------------------------------------


@njit(cache=True)
def _search(state: Any, row: int, key: int) -> int:
    """The first position in ``row``'s keys that is >= ``key``."""
    keys = state.keys[row]
    low = 0
    high = state.meta[M_N_BID + row]
    while low < high:
        mid = (low + high) >> 1
        if keys[mid] < key:
            low = mid + 1
        else:
            high = mid
    return low


@njit(cache=True)
def level_of(state: Any, side: int, price: int) -> int:
    """The level slot of ``price`` on ``side``, or -1."""
    row = 0 if side > 0 else 1
    key = side * price
    position = _search(state, row, key)
    if position < state.meta[M_N_BID + row] and state.keys[row, position] == key:
        return state.key_level[row, position]
    return -1


@njit(cache=True)
def _open_level(state: Any, side: int, price: int) -> int:
    """The level slot of ``price`` on ``side``, created empty if needed."""
    row = 0 if side > 0 else 1
    key = side * price
    meta = state.meta
    n = meta[M_N_BID + row]
    position = _search(state, row, key)
    if position < n and state.keys[row, position] == key:
        return state.key_level[row, position]
    if meta[M_N_LEVEL_FREE] == 0:
        _grow_levels(state)
    meta[M_N_LEVEL_FREE] -= 1
    level = state.level_free[meta[M_N_LEVEL_FREE]]
    record = state.levels[level]
    record[L_HEAD] = -1
    record[L_TAIL] = -1
    record[L_VOLUME] = 0
    record[L_PRICE] = price
    if n == state.keys.shape[1]:
        _grow_keys(state)
    keys = state.keys[row]
    key_level = state.key_level[row]
    for i in range(n, position, -1):
        keys[i] = keys[i - 1]
        key_level[i] = key_level[i - 1]
    keys[position] = key
    key_level[position] = level
    meta[M_N_BID + row] = n + 1
    return level


@njit(cache=True)
def _close_level(state: Any, side: int, price: int, level: int) -> None:
    """Remove the empty level ``level`` at ``price`` from ``side``."""
    row = 0 if side > 0 else 1
    meta = state.meta
    n = meta[M_N_BID + row]
    position = _search(state, row, side * price)
    keys = state.keys[row]
    key_level = state.key_level[row]
    for i in range(position, n - 1):
        keys[i] = keys[i + 1]
        key_level[i] = key_level[i + 1]
    meta[M_N_BID + row] = n - 1
    state.level_free[meta[M_N_LEVEL_FREE]] = level
    meta[M_N_LEVEL_FREE] += 1


# -- orders --------------------------------------------------------------------------------


@njit(cache=True)
def _rest(state: Any, order_id: int, side: int, price: int, quantity: int, owner: int) -> None:
    """Queue a new order at the back of its level."""
    meta = state.meta
    if meta[M_N_FREE] == 0:
        _grow_orders(state)
    meta[M_N_FREE] -= 1
    slot = state.free[meta[M_N_FREE]]
    level = _open_level(state, side, price)
    record = state.orders[slot]
    record[O_ID] = order_id
    record[O_SIDE] = side
    record[O_PRICE] = price
    record[O_QTY] = quantity
    record[O_OWNER] = owner
    record[O_LEVEL] = level
    record[O_NEXT] = -1
    state.order_time[slot] = state.clock[0]
    head = state.levels[level]
    tail = head[L_TAIL]
    record[O_PREV] = tail
    if tail < 0:
        head[L_HEAD] = slot
    else:
        state.orders[tail, O_NEXT] = slot
    head[L_TAIL] = slot
    head[L_VOLUME] += quantity
    _ensure_id(state, order_id)
    state.slot_of[order_id] = slot
    meta[M_N_ORDERS] += 1
    if owner == BACKGROUND:
        _own(state, BACKGROUND_LIST, order_id)
    elif owner >= 0:
        _own(state, AGENT_LIST, order_id)


@njit(cache=True)
def _remove(state: Any, slot: int) -> None:
    """Take the order in ``slot`` out of its level (closing it when empty) and the indexes."""
    record = state.orders[slot]
    level = record[O_LEVEL]
    head = state.levels[level]
    head[L_VOLUME] -= record[O_QTY]
    previous = record[O_PREV]
    following = record[O_NEXT]
    if previous < 0:
        head[L_HEAD] = following
    else:
        state.orders[previous, O_NEXT] = following
    if following < 0:
        head[L_TAIL] = previous
    else:
        state.orders[following, O_PREV] = previous
    if head[L_HEAD] < 0:
        _close_level(state, record[O_SIDE], record[O_PRICE], level)
    order_id = record[O_ID]
    state.slot_of[order_id] = -1
    record[O_QTY] = 0
    meta = state.meta
    state.free[meta[M_N_FREE]] = slot
    meta[M_N_FREE] += 1
    meta[M_N_ORDERS] -= 1
    owner = record[O_OWNER]
    if owner == BACKGROUND:
        _disown(state, BACKGROUND_LIST, order_id)
    elif owner >= 0:
        _disown(state, AGENT_LIST, order_id)


@njit(cache=True)
def _own(state: Any, which: int, order_id: int) -> None:
    """Append the new (largest) id ``order_id`` to ``owned[which]``."""
    n = state.meta[M_N_OWNED + which]
    if n == state.owned.shape[1]:
        owned = np.zeros((2, 2 * n), dtype=np.int64)
        copy_head(owned, state.owned)
        state.owned = owned
    state.owned[which, n] = order_id
    state.meta[M_N_OWNED + which] = n + 1


@njit(cache=True)
def _disown(state: Any, which: int, order_id: int) -> None:
    """Remove ``order_id`` from ``owned[which]``, keeping the rest in order."""
    ids = state.owned[which]
    n = state.meta[M_N_OWNED + which]
    low = 0
    high = n
    while low < high:
        mid = (low + high) >> 1
        if ids[mid] < order_id:
            low = mid + 1
        else:
            high = mid
    for i in range(low, n - 1):
        ids[i] = ids[i + 1]
    state.meta[M_N_OWNED + which] = n - 1


@njit(cache=True)
def _match(state: Any, side: int, bound: int, quantity: int, taker: int, taker_owner: int) -> int:
    """Trade against the other side while its best key is >= ``bound``; returns the rest."""
    row = 1 if side > 0 else 0
    meta = state.meta
    orders = state.orders
    while quantity > 0:
        n = meta[M_N_BID + row]
        if n == 0 or state.keys[row, n - 1] < bound:
            break
        level = state.key_level[row, n - 1]
        price = state.levels[level, L_PRICE]
        while quantity > 0:
            slot = state.levels[level, L_HEAD]
            maker = orders[slot]
            traded = min(maker[O_QTY], quantity)
            quantity -= traded
            _add_fill(state, price, traded, maker[O_ID], taker, maker[O_OWNER], taker_owner, side)
            if traded == maker[O_QTY]:
                closing = state.levels[level, L_TAIL] == slot
                _remove(state, slot)
                if closing:
                    break
            else:
                maker[O_QTY] -= traded
                state.levels[level, L_VOLUME] -= traded
        meta[M_LAST_PRICE] = price
    return quantity


@njit(cache=True)
def limit(state: Any, side: int, price: int, quantity: int, owner: int) -> int:
    """``OrderBook.limit``: match while crossing, rest the rest; its id, or 0 if filled."""
    meta = state.meta
    order_id = meta[M_NEXT_ID]
    meta[M_NEXT_ID] = order_id + 1
    left = _match(state, side, -side * price, quantity, order_id, owner)
    if left == 0:
        return 0
    _rest(state, order_id, side, price, left, owner)
    return order_id


@njit(cache=True)
def market(state: Any, side: int, quantity: int, owner: int) -> int:
    """``OrderBook.market``: walk the other side; the rest is dropped. Returns the id."""
    meta = state.meta
    order_id = meta[M_NEXT_ID]
    meta[M_NEXT_ID] = order_id + 1
    _match(state, side, _NO_BOUND, quantity, order_id, owner)
    return order_id


@njit(cache=True)
def place(state: Any, side: int, price: int, quantity: int, owner: int) -> int:
    """``OrderBook.place``: rest without matching; returns the id."""
    meta = state.meta
    order_id = meta[M_NEXT_ID]
    meta[M_NEXT_ID] = order_id + 1
    _rest(state, order_id, side, price, quantity, owner)
    return order_id


@njit(cache=True)
def slot_of(state: Any, order_id: int) -> int:
    """The slot of a resting order, or -1."""
    if order_id <= 0 or order_id >= state.slot_of.shape[0]:
        return -1
    return state.slot_of[order_id]


@njit(cache=True)
def cancel(state: Any, order_id: int) -> bool:
    """``OrderBook.cancel``: False if the order is unknown or gone."""
    slot = slot_of(state, order_id)
    if slot < 0:
        return False
    _remove(state, slot)
    return True


@njit(cache=True)
def reduce(state: Any, order_id: int, quantity: int) -> bool:
    """``OrderBook.reduce`` for a ``quantity`` below the current one (0 cancels)."""
    slot = slot_of(state, order_id)
    if slot < 0:
        return False
    if quantity == 0:
        _remove(state, slot)
        return True
    record = state.orders[slot]
    state.levels[record[O_LEVEL], L_VOLUME] -= record[O_QTY] - quantity
    record[O_QTY] = quantity
    return True


@njit(cache=True)
def best(state: Any, side: int) -> int:
    """The best price on ``side``, 0 when it is empty."""
    row = 0 if side > 0 else 1
    n = state.meta[M_N_BID + row]
    if n == 0:
        return 0
    return side * state.keys[row, n - 1]


@njit(cache=True)
def queue_ahead(state: Any, slot: int) -> int:
    """The volume ahead of the order in ``slot`` in its level."""
    ahead = 0
    current = state.levels[state.orders[slot, O_LEVEL], L_HEAD]
    while current != slot:
        ahead += state.orders[current, O_QTY]
        current = state.orders[current, O_NEXT]
    return ahead


@njit(cache=True)
def depth_into(state: Any, n: int, out: Any) -> None:
    """Write ``(bid_prices, bid_sizes, ask_prices, ask_sizes)`` of ``n`` levels into ``out``."""
    out[:, :n] = 0
    for row in range(2):
        count = state.meta[M_N_BID + row]
        sign = 1 if row == 0 else -1
        for i in range(min(n, count)):
            position = count - 1 - i
            out[2 * row, i] = sign * state.keys[row, position]
            out[2 * row + 1, i] = state.levels[state.key_level[row, position], L_VOLUME]


@njit(cache=True)
def resting(state: Any) -> Any:
    """Every resting order, one row each (id, side, price, quantity, owner), queue order.

    Bids best first then asks best first; within a level, oldest first. Times come in
    the second array.
    """
    n = state.meta[M_N_ORDERS]
    rows = np.empty((n, 5), dtype=np.int64)
    times = np.empty(n, dtype=np.float64)
    k = 0
    for row in range(2):
        count = state.meta[M_N_BID + row]
        for position in range(count - 1, -1, -1):
            slot = state.levels[state.key_level[row, position], L_HEAD]
            while slot >= 0:
                record = state.orders[slot]
                rows[k, 0] = record[O_ID]
                rows[k, 1] = record[O_SIDE]
                rows[k, 2] = record[O_PRICE]
                rows[k, 3] = record[O_QTY]
                rows[k, 4] = record[O_OWNER]
                times[k] = state.order_time[slot]
                k += 1
                slot = record[O_NEXT]
    return rows, times
