"""The state of a compiled (numba) order book: NumPy arrays in one numba structref.

``book_rules`` changes it with ``OrderBook``'s rules, ``zi_flow`` runs
``ZeroIntelligenceFlow`` on it and ``lobster_flow`` replays LOBSTER days into it; the state
also holds the ``np.random.Generator`` the flow draws from. Imported only with numba.

Layout. Orders live in slots of ``orders`` (``O_ID`` .. ``O_LEVEL`` columns) with their times
in ``order_time``; each price level is a doubly linked FIFO of order slots, kept in a slot of
``levels`` (head, tail, volume, price). Per side, ``keys`` holds ``sign * price`` of its
levels in ascending order (the best last, as ``OrderBook`` keeps them) and ``key_level`` the
level slot of each key. ``slot_of[id]`` finds an order's slot (-1 once it left the book).
``owned[BACKGROUND_LIST]`` lists the resting background orders by id, oldest first, so that
the flow's ``k``-th oldest cancel is a lookup, and ``owned[AGENT_LIST]`` the orders of
owners >= 0 (agents). Every fill is appended to ``fills`` / ``fill_time``. Arrays grow
(doubling) inside the compiled functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.experimental import structref

__all__ = [
    "ArrayBook",
    "clear",
    "clock_of",
    "copy_head",
    "export",
    "last_price",
    "new_state",
    "restore",
    "set_rng",
]

# Order columns.
O_ID, O_SIDE, O_PRICE, O_QTY, O_OWNER, O_PREV, O_NEXT, O_LEVEL = range(8)
# Level columns.
L_HEAD, L_TAIL, L_VOLUME, L_PRICE = range(4)
# Fill columns.
F_PRICE, F_QTY, F_MAKER, F_TAKER, F_MAKER_OWNER, F_TAKER_OWNER, F_TAKER_SIDE = range(7)
# ``meta`` entries. ``M_LAST_PRICE`` is 0 for none and ``FRACTIONAL`` for a fractional
# reference the caller set, kept in ``clock[1]``; ``clock[0]`` is the time.
# ``M_N_OWNED + list`` (entries 3 and 4) counts the ids in ``owned[list]``; ``M_HALTED`` is 1
# while replayed trading is halted.
M_NEXT_ID, M_N_BID, M_N_ASK, M_N_OWNED, M_N_FREE, M_N_LEVEL_FREE = 0, 1, 2, 3, 5, 6
M_LAST_PRICE, M_N_ORDERS, M_N_FILLS, M_HALTED = 7, 8, 9, 10
_N_META = 11
FRACTIONAL = -1
# The constants that compiled code passes to other compiled functions are numpy scalars, not
# ints: numba types an int constant as a literal and compiles the callee (and all it calls)
# once more for every literal value it is given, which more than doubled the first compile.
BACKGROUND_LIST, AGENT_LIST = np.int64(0), np.int64(1)
# ``params`` entries: the flow's parameters.
P_LIMIT, P_MARKET, P_CANCEL, P_MAX_OFFSET, P_DECAY, P_MEAN_SIZE = range(6)

BACKGROUND = np.int64(-1)
BID, ASK = np.int64(1), np.int64(-1)
NO_ORDER = np.int64(0)
"""The id that names no order (as the taker of a recorded execution)."""


@structref.register
class _ArrayBookType(types.StructRef):
    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(kind)) for name, kind in fields)


class ArrayBook(structref.StructRefProxy):
    """The arrays of one book, its flow's parameters and the generator the flow draws from."""

    @property
    def meta(self) -> Any:
        """The counters (``M_*`` entries); a live view."""
        return _meta(self)

    @property
    def fills(self) -> Any:
        """``(fills, fill_time)``: the fill table (``F_*`` columns) and times; live views."""
        return _fills(self)


_FIELDS = [
    "rng",
    "orders",
    "order_time",
    "free",
    "levels",
    "level_free",
    "keys",
    "key_level",
    "slot_of",
    "owned",
    "fills",
    "fill_time",
    "meta",
    "clock",
    "params",
]
structref.define_proxy(ArrayBook, _ArrayBookType, _FIELDS)


@njit(cache=True)
def _meta(state: Any) -> Any:
    return state.meta


@njit(cache=True)
def _fills(state: Any) -> Any:
    return state.fills, state.fill_time


@njit(cache=True)
def clock_of(state: Any) -> Any:
    """``state.clock`` (time, fractional last price): a live view."""
    return state.clock


@njit(cache=True)
def new_state(rng: Any, params: Any) -> Any:
    """An empty book whose flow has ``params`` and draws from ``rng``."""
    orders = np.zeros((64, 8), dtype=np.int64)
    levels = np.zeros((16, 4), dtype=np.int64)
    state = ArrayBook(
        rng,
        orders,
        np.zeros(64, dtype=np.float64),
        np.arange(63, -1, -1).astype(np.int64),
        levels,
        np.arange(15, -1, -1).astype(np.int64),
        np.zeros((2, 16), dtype=np.int64),
        np.zeros((2, 16), dtype=np.int64),
        np.full(64, -1, dtype=np.int64),
        np.zeros((2, 64), dtype=np.int64),
        np.zeros((64, 7), dtype=np.int64),
        np.zeros(64, dtype=np.float64),
        np.zeros(_N_META, dtype=np.int64),
        np.zeros(2, dtype=np.float64),
        params,
    )
    clear(state)
    return state


@njit(cache=True)
def export(state: Any) -> Any:
    """Copies of every array of ``state`` but the generator, in ``restore``'s order."""
    return (
        state.orders.copy(),
        state.order_time.copy(),
        state.free.copy(),
        state.levels.copy(),
        state.level_free.copy(),
        state.keys.copy(),
        state.key_level.copy(),
        state.slot_of.copy(),
        state.owned.copy(),
        state.fills.copy(),
        state.fill_time.copy(),
        state.meta.copy(),
        state.clock.copy(),
        state.params.copy(),
    )


@njit(cache=True)
def copy_head(out: Any, values: Any) -> None:
    """``out[:n] = values`` (or ``out[:, :n]``): copy ``values`` into the leading corner of
    ``out``. A slice assignment of an array would carry numba's shape-mismatch message, whose
    formatting code roughly doubled the compiled code of every function that can grow a
    book."""
    for index in np.ndindex(values.shape):
        out[index] = values[index]


@njit(cache=True)
def restore(rng: Any, arrays: Any) -> Any:
    """The book ``export`` gave ``arrays`` of, drawing from ``rng``."""
    return ArrayBook(rng, *arrays)


@njit(cache=True)
def clear(state: Any) -> None:
    """Remove every order and fill; time 0, no last price, ids from 1."""
    capacity = state.orders.shape[0]
    copy_head(state.free, np.arange(capacity - 1, -1, -1))
    level_capacity = state.levels.shape[0]
    copy_head(state.level_free, np.arange(level_capacity - 1, -1, -1))
    state.slot_of[:] = -1
    meta = state.meta
    meta[:] = 0
    meta[M_NEXT_ID] = 1
    meta[M_N_FREE] = capacity
    meta[M_N_LEVEL_FREE] = level_capacity
    state.clock[:] = 0.0


@njit(cache=True)
def set_rng(state: Any, rng: Any) -> None:
    """Draw from ``rng`` from now on."""
    state.rng = rng


@njit(cache=True)
def last_price(state: Any) -> float:
    """The last price as a float, 0 for none."""
    last = state.meta[M_LAST_PRICE]
    return state.clock[1] if last == FRACTIONAL else float(last)
