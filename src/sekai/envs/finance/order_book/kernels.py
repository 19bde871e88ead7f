"""The traders' side of the LOB environments as numba kernels, on the compiled book.

The same decisions, accounting and views as ``core._LOBCore`` with zero-intelligence flow:
a *desk* holds the book, one row per trader in ``traders`` (inventory, cash, bid id, ask id,
fills; ids 0 when not quoting), the last trades in a ring and the settings. Fills are booked
right after each book operation, as ``_LOBCore._record`` does. ``NONE`` stands for a quote
that is not set (``None`` in ``_LOBCore``). Imported only with numba, by ``compiled``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit, types
from numba.experimental import structref

from sekai.finance.lob import compiled as compiled_lob

__all__ = ["Desk", "advance", "decide", "deliver", "new_desk", "observe", "plan", "step"]

# ``traders`` columns.
T_INVENTORY, T_CASH, T_BID, T_ASK, T_FILLS = range(5)
# ``config`` entries; ``C_REPLAY`` is 1 when the flow is the tape's replay.
C_ORDER_SIZE, C_MAX_INVENTORY, C_LEVELS, C_MID_PRICE, C_REPLAY = range(5)
# ``ring`` entries: the next slot and the number of trades held.
R_NEXT, R_COUNT = range(2)
NONE = np.iinfo(np.int64).min
SELL, HOLD, BUY = 0, 1, 2


@structref.register
class _DeskType(types.StructRef):
    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(kind)) for name, kind in fields)


class Desk(structref.StructRefProxy):
    """A book and the traders quoting in it."""


structref.define_proxy(Desk, _DeskType, ["book", "tape", "traders", "trades", "ring", "config"])


@njit(cache=True)
def new_desk(book: Any, tape: Any, traders: Any, trades: Any, ring: Any, config: Any) -> Any:
    """A desk over these arrays (kept by reference: the caller may read them)."""
    return Desk(book, tape, traders, trades, ring, config)


@njit(cache=True)
def set_tape(desk: Any, tape: Any) -> None:
    """Replay ``tape`` from now on."""
    desk.tape = tape


@njit(cache=True)
def _book_fills(desk: Any) -> None:
    """Remember every new fill as a trade and book it for the traders on either side."""
    book = desk.book
    meta = book.meta
    n = meta[compiled_lob.M_N_FILLS]
    fills = book.fills
    traders = desk.traders
    n_traders = traders.shape[0]
    trades = desk.trades
    ring = desk.ring
    capacity = trades.shape[0]
    for i in range(n):
        fill = fills[i]
        price = fill[compiled_lob.F_PRICE]
        quantity = fill[compiled_lob.F_QTY]
        buy = fill[compiled_lob.F_TAKER_SIDE] == 1
        slot = ring[R_NEXT]
        trades[slot, 0] = price
        trades[slot, 1] = quantity
        trades[slot, 2] = 1 if buy else -1
        ring[R_NEXT] = (slot + 1) % capacity
        ring[R_COUNT] = min(ring[R_COUNT] + 1, capacity)
        maker = fill[compiled_lob.F_MAKER_OWNER]
        if maker < 0 or maker >= n_traders:
            maker = -1
        if maker >= 0:
            account = traders[maker]
            account[T_FILLS] += 1
            change = -quantity if buy else quantity
            account[T_INVENTORY] += change
            account[T_CASH] -= change * price
        taker = fill[compiled_lob.F_TAKER_OWNER]
        if 0 <= taker < n_traders:
            account = traders[taker]
            if taker != maker:
                account[T_FILLS] += 1
            change = quantity if buy else -quantity
            account[T_INVENTORY] += change
            account[T_CASH] -= change * price
    meta[compiled_lob.M_N_FILLS] = 0


@njit(cache=True)
def _can_buy(desk: Any, trader: int) -> bool:
    config = desk.config
    return desk.traders[trader, T_INVENTORY] + config[C_ORDER_SIZE] <= config[C_MAX_INVENTORY]


@njit(cache=True)
def _can_sell(desk: Any, trader: int) -> bool:
    config = desk.config
    return desk.traders[trader, T_INVENTORY] - config[C_ORDER_SIZE] >= -config[C_MAX_INVENTORY]


@njit(cache=True)
def _market(desk: Any, trader: int, choice: int) -> None:
    """A market order of ``order_size``, within the limits, cancelling the opposite quote."""
    if choice == HOLD or desk.book.meta[compiled_lob.M_HALTED]:
        return
    book = desk.book
    account = desk.traders[trader]
    size = desk.config[C_ORDER_SIZE]
    if choice == BUY and _can_buy(desk, trader):
        if account[T_ASK] != 0:
            compiled_lob.cancel(book, account[T_ASK])
            account[T_ASK] = 0
        compiled_lob.market(book, compiled_lob.BID, size, trader)
        _book_fills(desk)
    elif choice == SELL and _can_sell(desk, trader):
        if account[T_BID] != 0:
            compiled_lob.cancel(book, account[T_BID])
            account[T_BID] = 0
        compiled_lob.market(book, compiled_lob.ASK, size, trader)
        _book_fills(desk)


@njit(cache=True)
def _reference(desk: Any, trader: int, side: int, best: int, own: int) -> int:
    """The price a level-1 quote on ``side`` joins, ignoring the trader's own quote."""
    book = desk.book
    orders = book.orders
    if best != 0:
        if (
            own < 0
            or orders[own, compiled_lob.O_PRICE] != best
            or book.levels[compiled_lob.level_of(book, side, best), compiled_lob.L_VOLUME]
            != orders[own, compiled_lob.O_QTY]
        ):
            return best
        row = 0 if side > 0 else 1
        count = book.meta[compiled_lob.M_N_BID + row]
        if count >= 2:
            return side * book.keys[row, count - 2]
    opposite = compiled_lob.best(book, -side)
    opposite_id = desk.traders[trader, T_ASK if side > 0 else T_BID]
    own_opposite = compiled_lob.slot_of(book, opposite_id)
    if opposite != 0 and (
        own_opposite < 0 or orders[own_opposite, compiled_lob.O_PRICE] != opposite
    ):
        return opposite - 1 if side > 0 else opposite + 1
    last = compiled_lob.last_price(book)
    if last == 0.0:
        return desk.config[C_MID_PRICE]
    return math.floor(last) if side > 0 else math.ceil(last)


@njit(cache=True)
def _target(desk: Any, trader: int, side: int, level: int) -> int:
    """The price a quote ``level`` ticks behind on ``side`` holds; ``NONE`` for level 0."""
    if level == 0:
        return NONE
    book = desk.book
    own = compiled_lob.slot_of(book, desk.traders[trader, T_BID if side > 0 else T_ASK])
    best = compiled_lob.best(book, side)
    if own >= 0 and level == 1 and best != 0 and book.orders[own, compiled_lob.O_PRICE] == best:
        return best
    offset = 1 - level if side > 0 else level - 1
    return _reference(desk, trader, side, best, own) + offset


@njit(cache=True)
def _hold(desk: Any, trader: int, side: int, price: int) -> None:
    """Keep, move or cancel the trader's quote on ``side`` to rest at ``price``."""
    book = desk.book
    column = T_BID if side > 0 else T_ASK
    account = desk.traders[trader]
    own = compiled_lob.slot_of(book, account[column])
    if own >= 0:
        if book.orders[own, compiled_lob.O_PRICE] == price:
            return
        compiled_lob.cancel(book, account[column])
    account[column] = 0
    if price == NONE:
        return
    account[column] = compiled_lob.limit(
        book, side, max(price, 1), desk.config[C_ORDER_SIZE], trader
    )
    _book_fills(desk)


@njit(cache=True)
def decide(desk: Any, trader: int, bid_level: int, ask_level: int, choice: int) -> None:
    """``_LOBCore.decide``: the market order, then the bid and the ask quote."""
    _market(desk, trader, choice)
    bid = _target(desk, trader, compiled_lob.BID, bid_level if _can_buy(desk, trader) else 0)
    _hold(desk, trader, compiled_lob.BID, bid)
    ask = _target(desk, trader, compiled_lob.ASK, ask_level if _can_sell(desk, trader) else 0)
    _hold(desk, trader, compiled_lob.ASK, ask)


@njit(cache=True)
def plan(desk: Any, trader: int, bid_level: int, ask_level: int) -> tuple[int, int]:
    """``_LOBCore.plan``'s prices: ``(bid, ask)``, ``NONE`` when not quoting."""
    bid = _target(desk, trader, compiled_lob.BID, bid_level if _can_buy(desk, trader) else 0)
    ask = _target(desk, trader, compiled_lob.ASK, ask_level if _can_sell(desk, trader) else 0)
    return bid, ask


@njit(cache=True)
def deliver(desk: Any, trader: int, choice: int, bid: int, ask: int) -> None:
    """``_LOBCore.deliver``: limits checked again on the inventory it finds."""
    _market(desk, trader, choice)
    _hold(desk, trader, compiled_lob.BID, bid if _can_buy(desk, trader) else NONE)
    _hold(desk, trader, compiled_lob.ASK, ask if _can_sell(desk, trader) else NONE)


@njit(cache=True)
def advance(desk: Any, until: float, first: int, end: int) -> None:
    """Run the flow to ``until``, book its fills and forget quotes that left the book.

    A replay applies the tape's messages ``first:end``.
    """
    book = desk.book
    if desk.config[C_REPLAY]:
        compiled_lob.replay_advance(book, desk.tape, first, end, until)
    else:
        compiled_lob.flow_advance(book, until)
    _book_fills(desk)
    traders = desk.traders
    for trader in range(traders.shape[0]):
        if compiled_lob.slot_of(book, traders[trader, T_BID]) < 0:
            traders[trader, T_BID] = 0
        if compiled_lob.slot_of(book, traders[trader, T_ASK]) < 0:
            traders[trader, T_ASK] = 0


@njit(cache=True)
def mid(desk: Any) -> tuple[float, bool]:
    """``(mid, exact)``: the book mid, else ``last_price`` or ``mid_price`` (``exact``: ints)."""
    book = desk.book
    bid = compiled_lob.best(book, compiled_lob.BID)
    ask = compiled_lob.best(book, compiled_lob.ASK)
    if bid != 0 and ask != 0:
        return (bid + ask) / 2, False
    last = compiled_lob.last_price(book)
    if last == 0.0:
        return float(desk.config[C_MID_PRICE]), True
    return last, book.meta[compiled_lob.M_LAST_PRICE] != compiled_lob.FRACTIONAL


@njit(cache=True)
def observe(desk: Any, trader: int, elapsed: float, session_length: float) -> Any:
    """``_LOBCore.observation``'s arrays in one float32 buffer: book, trade values, agent.

    ``(levels, 4)``, ``(max_trades, 3)`` and ``(6,)`` one after the other; the trade mask is
    1 for the first ``ring[R_COUNT]`` rows.
    """
    book = desk.book
    config = desk.config
    levels = config[C_LEVELS]
    trades = desk.trades
    capacity = trades.shape[0]
    out = np.zeros(4 * levels + 3 * capacity + 6, dtype=np.float32)
    centre, _ = mid(desk)
    depth = np.zeros((4, levels), dtype=np.int64)
    compiled_lob.depth_into(book, levels, depth)
    for i in range(levels):
        row = 4 * i
        out[row] = depth[0, i] - centre if depth[0, i] > 0 else 0.0
        out[row + 1] = depth[1, i]
        out[row + 2] = depth[2, i] - centre if depth[2, i] > 0 else 0.0
        out[row + 3] = depth[3, i]
    count = desk.ring[R_COUNT]
    first = (desk.ring[R_NEXT] - count) % capacity
    base = 4 * levels
    for i in range(count):
        slot = (first + i) % capacity
        out[base + 3 * i] = trades[slot, 0] - centre
        out[base + 3 * i + 1] = trades[slot, 1]
        out[base + 3 * i + 2] = trades[slot, 2]
    account = desk.traders[trader]
    bid = compiled_lob.slot_of(book, account[T_BID])
    ask = compiled_lob.slot_of(book, account[T_ASK])
    base += 3 * capacity
    out[base] = account[T_INVENTORY] / config[C_MAX_INVENTORY]
    out[base + 1] = max(1.0 - elapsed / session_length, 0.0)
    out[base + 2] = 1.0 if bid >= 0 else 0.0
    out[base + 3] = 1.0 if ask >= 0 else 0.0
    out[base + 4] = compiled_lob.queue_ahead(book, bid) if bid >= 0 else 0
    out[base + 5] = compiled_lob.queue_ahead(book, ask) if ask >= 0 else 0
    return out


@njit(cache=True)
def step(
    desk: Any,
    trader: int,
    bid_level: int,
    ask_level: int,
    choice: int,
    arrival: float,
    elapsed: float,
    t0: float,
    session_length: float,
    ends: Any,
    floats: Any,
    ints: Any,
) -> Any:
    """One single-agent step: decide (or plan, wait ``arrival``, deliver), run to ``elapsed``.

    ``arrival`` is -1 for no latency and -2 for a decision that arrives too late to be sent.
    A replay applies messages ``ends[0]:ends[1]`` until the arrival, ``ends[1]:ends[2]`` after.
    Returns ``observe``'s buffer; writes the mids before and after and the clock into
    ``floats``, and into ``ints`` whether each mid is exact (an int), the spread (0: none),
    the trade count and the trader's row: inventory, cash, bid id, ask id, fills.
    """
    account = desk.traders[trader]
    account[T_FILLS] = 0
    before, before_exact = mid(desk)
    if arrival == -1.0:
        decide(desk, trader, bid_level, ask_level, choice)
    elif arrival >= 0.0:
        bid, ask = plan(desk, trader, bid_level, ask_level)
        advance(desk, t0 + arrival, ends[0], ends[1])
        deliver(desk, trader, choice, bid, ask)
    advance(desk, t0 + elapsed, ends[1], ends[2])
    after, after_exact = mid(desk)
    out = observe(desk, trader, elapsed, session_length)
    book = desk.book
    best_bid = compiled_lob.best(book, compiled_lob.BID)
    best_ask = compiled_lob.best(book, compiled_lob.ASK)
    floats[0] = before
    floats[1] = after
    floats[2] = book.clock[0]
    ints[0] = before_exact
    ints[1] = after_exact
    ints[2] = best_ask - best_bid if best_bid != 0 and best_ask != 0 else 0
    ints[3] = desk.ring[R_COUNT]
    compiled_lob.copy_head(ints[4:], account)
    return out
