"""``lobster.replay``'s reconstruction on a compiled array book (``book_rules``), with numba.

The same rules as ``lobster.replay._Replay`` (anonymous resting volume, the per-side
frontier, volume revealed from the file's rows, halts and the checks), run on the arrays of
``book_state``. It only detects that a message or a row is wrong, and where: the callers
then replay with ``_Replay``, which raises the error it names. Two uses: ``depth_rows``
(each row replayed and compared with the file) and ``prepare`` (``HistoricalFlow``'s day:
every book operation, the executed ids and the checkpoints, as ``_Recorder`` keeps them).
Imported only with numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.experimental import structref
from numpy.typing import NDArray

from sekai.finance.lob.compiled.book_rules import cancel, level_of, place, reduce, slot_of
from sekai.finance.lob.compiled.book_state import (
    BACKGROUND_LIST,
    L_VOLUME,
    M_N_BID,
    M_N_OWNED,
    O_OWNER,
    O_PRICE,
    O_QTY,
    O_SIDE,
    copy_head,
    new_state,
)

__all__ = ["depth_rows", "prepare"]

_EMPTY_ASK = 9_999_999_999
_EMPTY_BID = -9_999_999_999
_ANONYMOUS = -2
_BACKGROUND = -1
_PLACE, _REDUCE, _CANCEL = 0, 1, 2
_UNKNOWN = np.iinfo(np.int64).max
"""The frontier before a side's first row: no price is known exactly yet."""
_EXACT = np.iinfo(np.int64).min
"""The frontier of a side whose row showed fewer than ``levels`` levels: its book is exact."""
_FAIL = 3
"""What ``_apply`` returns for a message the Python replay refuses."""
# Constants go to the helpers as ``np.int64(...)``: a literal argument would compile its own
# specialisation of the helper (and of everything it calls).
# ``meta`` entries.
_HALTED, _PREPARE, _N_OPS, _N_KEPT, _LEVELS = range(5)


@structref.register
class _ReconstructionType(types.StructRef):
    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(kind)) for name, kind in fields)


class _Reconstruction(structref.StructRefProxy):
    """The book, the id maps, the frontiers and what a preparation records."""


structref.define_proxy(
    _Reconstruction,
    _ReconstructionType,
    ["book", "rows", "ids", "anonymous", "frontier", "current", "scratch", "ops", "kept", "meta"],
)


# -- LOBSTER ids ---------------------------------------------------------------------------


@njit(cache=True)
def _dense_ids(order_id: Any) -> Any:
    """``(index, count)``: each message's order id numbered 0, 1, ... by first appearance."""
    n = order_id.shape[0]
    bits = 1
    while (1 << bits) < 2 * n + 2:
        bits += 1
    mask = (1 << bits) - 1
    keys = np.empty(1 << bits, dtype=np.int64)
    values = np.zeros(1 << bits, dtype=np.int64)
    index = np.empty(n, dtype=np.int64)
    count = 0
    for k in range(n):
        key = order_id[k]
        mixed = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
        slot = np.int64(mixed >> np.uint64(64 - bits)) & mask
        while values[slot] != 0 and keys[slot] != key:
            slot = (slot + 1) & mask
        if values[slot] == 0:
            count += 1
            keys[slot] = key
            values[slot] = count
        index[k] = values[slot] - 1
    return index, count


# -- recorded book operations --------------------------------------------------------------


@njit(cache=True)
def _record(
    recon: Any, kind: int, order_id: int, side: int, price: int, quantity: int, owner: int
) -> None:
    """Keep a book operation as ``_Recorder`` does, when preparing."""
    meta = recon.meta
    if not meta[_PREPARE]:
        return
    n = meta[_N_OPS]
    if n == recon.ops.shape[0]:
        ops = np.zeros((2 * n, 6), dtype=np.int64)
        copy_head(ops, recon.ops)
        recon.ops = ops
    row = recon.ops[n]
    row[0] = kind
    row[1] = order_id
    row[2] = side
    row[3] = price
    row[4] = quantity
    row[5] = owner
    meta[_N_OPS] = n + 1


@njit(cache=True)
def _place(recon: Any, side: int, price: int, quantity: int, owner: int) -> int:
    """``OrderBook.place``, recorded; -1 for the price or quantity below 1 it refuses."""
    if price < 1 or quantity < 1:
        return -1
    order_id = place(recon.book, side, price, quantity, owner)
    _record(recon, np.int64(_PLACE), order_id, side, price, quantity, owner)
    return order_id


@njit(cache=True)
def _reduce(recon: Any, order_id: int, quantity: int) -> None:
    reduce(recon.book, order_id, quantity)
    zero = np.int64(0)
    _record(recon, np.int64(_REDUCE), order_id, zero, zero, quantity, zero)


@njit(cache=True)
def _cancel(recon: Any, order_id: int) -> None:
    cancel(recon.book, order_id)
    zero = np.int64(0)
    _record(recon, np.int64(_CANCEL), order_id, zero, zero, zero, zero)


@njit(cache=True)
def _keep(recon: Any) -> None:
    """Append the resting orders, by id, to the checkpoints (id, side, price, qty, owner).

    The book lists its background orders by id; the anonymous ones (one per level at most)
    are sorted here and merged in.
    """
    book = recon.book
    listed = book.owned[BACKGROUND_LIST]
    n_listed = book.meta[M_N_OWNED + BACKGROUND_LIST]
    anonymous = recon.anonymous[recon.anonymous > 0]
    anonymous.sort()
    meta = recon.meta
    n = meta[_N_KEPT]
    need = n + n_listed + anonymous.shape[0]
    if need > recon.kept.shape[0]:
        kept = np.zeros((max(need, 2 * recon.kept.shape[0]), 5), dtype=np.int64)
        copy_head(kept, recon.kept[:n])
        recon.kept = kept
    i = 0
    j = 0
    for row in range(n, need):
        if j == anonymous.shape[0] or (i < n_listed and listed[i] < anonymous[j]):
            order_id = listed[i]
            i += 1
        else:
            order_id = anonymous[j]
            j += 1
        record = book.orders[slot_of(book, order_id)]
        out = recon.kept[row]
        out[0] = order_id
        out[1] = record[O_SIDE]
        out[2] = record[O_PRICE]
        out[3] = record[O_QTY]
        out[4] = record[O_OWNER]
    meta[_N_KEPT] = need


# -- the rules of ``_Replay`` --------------------------------------------------------------


@njit(cache=True)
def _quantity(recon: Any, order_id: int) -> int:
    return recon.book.orders[slot_of(recon.book, order_id), O_QTY]


@njit(cache=True)
def _anonymous_id(recon: Any, side: int, price: int) -> int:
    """The book id of the anonymous volume at ``price`` on ``side``, 0 for none."""
    level = level_of(recon.book, side, price)
    return recon.anonymous[level] if 0 <= level < recon.anonymous.shape[0] else 0


@njit(cache=True)
def _anonymous_at(recon: Any, side: int, price: int) -> int:
    order_id = _anonymous_id(recon, side, price)
    return _quantity(recon, order_id) if order_id else 0


@njit(cache=True)
def _volume_at(recon: Any, side: int, price: int) -> int:
    level = level_of(recon.book, side, price)
    return recon.book.levels[level, L_VOLUME] if level >= 0 else 0


@njit(cache=True)
def _set_anonymous(recon: Any, side: int, price: int, volume: int) -> bool:
    """Make the anonymous volume at ``price`` equal ``volume``; False where Python raises."""
    order_id = _anonymous_id(recon, side, price)
    if order_id:
        if 0 < volume < _quantity(recon, order_id):
            _reduce(recon, order_id, volume)
            return True
        recon.anonymous[level_of(recon.book, side, price)] = 0
        _cancel(recon, order_id)
    if volume:
        order_id = _place(recon, side, price, volume, np.int64(_ANONYMOUS))
        if order_id < 0:
            return False
        book = recon.book
        if recon.anonymous.shape[0] < book.levels.shape[0]:
            anonymous = np.zeros(book.levels.shape[0], dtype=np.int64)
            copy_head(anonymous, recon.anonymous)
            recon.anonymous = anonymous
        recon.anonymous[level_of(book, side, price)] = order_id
    return True


@njit(cache=True)
def _visible(recon: Any, side: int, price: int) -> int:
    """``side`` when ``price`` lies within its frontier, else 0."""
    return side if side * price >= recon.frontier[0 if side > 0 else 1] else 0


@njit(cache=True)
def _consume(recon: Any, size: int, price: int, side: int) -> int:
    """Take ``size`` from the anonymous volume at ``price`` for an order id never placed."""
    visible = _visible(recon, side, price)
    have = _anonymous_at(recon, side, price)
    if visible and have < size:
        return _FAIL
    if have and not _set_anonymous(recon, side, price, have - min(size, have)):
        return _FAIL
    return visible


@njit(cache=True)
def _apply(recon: Any, event: int, index: int, size: int, price: int, side: int) -> int:
    """Apply one message; the side whose top levels may have changed, 0, or ``_FAIL``."""
    meta = recon.meta
    if event == 1:
        if recon.ids[index] or (side != 1 and side != -1):
            return _FAIL
        order_id = _place(recon, side, price, size, np.int64(_BACKGROUND))
        if order_id < 0:
            return _FAIL
        recon.ids[index] = order_id
    elif event <= 4:
        if event < 1 or (side != 1 and side != -1) or (event == 4 and meta[_HALTED]):
            return _FAIL
        order_id = recon.ids[index]
        if not order_id:
            return _consume(recon, size, price, side)
        record = recon.book.orders[slot_of(recon.book, order_id)]
        if record[O_SIDE] != side or record[O_PRICE] != price:
            return _FAIL
        left = record[O_QTY] - size
        if left < 0 or size < 1 or (event == 3 and left):
            return _FAIL
        if left:
            _reduce(recon, order_id, left)
        else:
            _cancel(recon, order_id)
            recon.ids[index] = 0
    elif event == 7:
        if price:
            meta[_HALTED] = price < 0
        return 0
    else:
        return _FAIL if event == 5 and meta[_HALTED] else 0
    return _visible(recon, side, price)


@njit(cache=True)
def _fill(recon: Any, side: int, price: int, volume: int) -> bool:
    """Make the level at ``price`` hold ``volume`` by setting its anonymous volume."""
    have = _anonymous_at(recon, side, price)
    known = _volume_at(recon, side, price) - have
    if known > volume:
        return False
    if volume - known != have:
        return _set_anonymous(recon, side, price, volume - known)
    return True


@njit(cache=True)
def _reveal(recon: Any, k: int, side: int) -> bool:
    """Take the levels of row ``k`` beyond the frontier from the file; False on an error."""
    n = recon.meta[_LEVELS]
    row = 0 if side > 0 else 1
    column = 2 if side > 0 else 0
    file_row = recon.rows[k]
    shown_prices = recon.scratch[0]
    shown_volumes = recon.scratch[1]
    extra = recon.scratch[2]
    shown = 0
    for level in range(n):
        if file_row[level, column + 1]:
            shown_prices[shown] = file_row[level, column]
            shown_volumes[shown] = file_row[level, column + 1]
            shown += 1
    old = recon.frontier[row]
    for i in range(shown):
        if side * shown_prices[i] < old and not _fill(
            recon, side, shown_prices[i], shown_volumes[i]
        ):
            return False
    book = recon.book
    while True:
        count = book.meta[M_N_BID + row]
        extras = 0
        for i in range(min(n, count)):
            key = book.keys[row, count - 1 - i]
            price = side * key
            found = False
            for j in range(shown):
                if shown_prices[j] == price:
                    found = True
                    break
            if not found:
                extra[extras] = price
                extras += 1
        if not extras:
            break
        for i in range(extras):
            price = extra[i]
            key = side * price
            if key >= old or _volume_at(recon, side, price) != _anonymous_at(recon, side, price):
                return False
            _set_anonymous(recon, side, price, np.int64(0))
    recon.frontier[row] = side * shown_prices[shown - 1] if shown == n else _EXACT
    return True


@njit(cache=True)
def _refresh(recon: Any, k: int, side: int) -> bool:
    """Move the frontier of ``side`` after row ``k`` and note its top levels; False: error."""
    n = recon.meta[_LEVELS]
    row = 0 if side > 0 else 1
    book = recon.book
    count = book.meta[M_N_BID + row]
    frontier = recon.frontier[row]
    if count >= n and book.keys[row, count - n] >= frontier:
        recon.frontier[row] = book.keys[row, count - n]
    elif frontier != _EXACT:
        if not _reveal(recon, k, side):
            return False
        count = book.meta[M_N_BID + row]
    current = recon.current[row]
    for i in range(n):
        if i < count:
            position = count - 1 - i
            current[i] = side * book.keys[row, position]
            current[n + i] = book.levels[book.key_level[row, position], L_VOLUME]
        else:
            current[i] = _EMPTY_BID if side > 0 else _EMPTY_ASK
            current[n + i] = 0
    return True


@njit(cache=True)
def _matches(recon: Any, out: Any, k: int) -> bool:
    """Write the replayed row ``k`` into ``out``; whether it equals the file's row."""
    n = recon.meta[_LEVELS]
    bids = recon.current[0]
    asks = recon.current[1]
    file_row = recon.rows[k]
    row = out[k]
    same = True
    for level in range(n):
        row[level, 0] = asks[level]
        row[level, 1] = asks[n + level]
        row[level, 2] = bids[level]
        row[level, 3] = bids[n + level]
        for column in range(4):
            if row[level, column] != file_row[level, column]:
                same = False
    return same


@njit(cache=True)
def _run(
    recon: Any,
    event: Any,
    index: Any,
    size: Any,
    price: Any,
    direction: Any,
    out: Any,
    every: int,
    op_start: Any,
    executed: Any,
    kept_start: Any,
) -> int:
    """Replay every message; -1 when all is well, else the first message or row in error.

    Depth mode (``meta[_PREPARE]`` 0) writes each row into ``out`` and checks it; prepare
    mode records the operations, the executed ids and a checkpoint every ``every`` messages.
    """
    prepare = recon.meta[_PREPARE]
    meta = recon.meta
    for k in range(event.shape[0]):
        side = np.int64(direction[k])
        kind = np.int64(event[k])
        if prepare:
            if k % every == 0:
                kept_start[k // every] = meta[_N_KEPT]
                _keep(recon)
            op_start[k] = meta[_N_OPS]
            if kind == 4:
                order_id = recon.ids[index[k]]
                executed[k] = order_id if order_id else _anonymous_id(recon, side, price[k])
        changed = _apply(recon, kind, index[k], size[k], price[k], side)
        if changed == _FAIL:
            return k
        if k == 0:
            if not _refresh(recon, k, np.int64(1)) or not _refresh(recon, k, np.int64(-1)):
                return 0
        elif changed and not _refresh(recon, k, changed):
            return k
        if not prepare and not _matches(recon, out, k):
            return k
    if prepare:
        op_start[event.shape[0]] = meta[_N_OPS]
        kept_start[kept_start.shape[0] - 1] = meta[_N_KEPT]
    return -1


@njit(cache=True)
def _new(book: Any, rows: Any, count: int, prepare: bool) -> Any:
    """A reconstruction into the empty ``book`` over the file's ``rows``, ``count`` ids."""
    n = rows.shape[1]
    meta = np.zeros(5, dtype=np.int64)
    meta[_PREPARE] = prepare
    meta[_LEVELS] = n
    return _Reconstruction(
        book,
        rows,
        np.zeros(count, dtype=np.int64),
        np.zeros(book.levels.shape[0], dtype=np.int64),
        np.full(2, _UNKNOWN, dtype=np.int64),
        np.zeros((2, 2 * n), dtype=np.int64),
        np.zeros((3, n), dtype=np.int64),
        np.zeros((64 if prepare else 0, 6), dtype=np.int64),
        np.zeros((64 if prepare else 0, 5), dtype=np.int64),
        meta,
    )


@njit(cache=True)
def _ops_of(recon: Any) -> Any:
    return recon.ops[: recon.meta[_N_OPS]].copy(), recon.kept[: recon.meta[_N_KEPT]].copy()


# -- the callers' side ---------------------------------------------------------------------

Messages = tuple[NDArray[Any], ...]
Prepared = tuple[
    NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], tuple[NDArray[np.int64], ...]
]


def _read_only(array: NDArray[Any], dtype: type[np.generic]) -> NDArray[Any]:
    """``array`` as a C-contiguous, read-only ``dtype`` array (one compiled signature)."""
    array = np.ascontiguousarray(array, dtype=dtype)
    if array.flags.writeable:
        array = array.view()
        array.flags.writeable = False
    return array


def _start(
    messages: Messages, book: NDArray[np.int64], prepare: bool
) -> tuple[Any, tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]]:
    """The reconstruction and its columns: event, dense id, size, price, direction."""
    _, event, order_id, size, price, direction = messages
    index, count = _dense_ids(_read_only(order_id, np.int64))
    empty = new_state(np.random.default_rng(0), np.zeros(6, dtype=np.float64))
    recon = _new(empty, _read_only(book, np.int64), count, prepare)
    columns = (
        _read_only(event, np.int8),
        index,
        _read_only(size, np.int64),
        _read_only(price, np.int64),
        _read_only(direction, np.int8),
    )
    return recon, columns


def _fits(messages: Messages, book: NDArray[np.int64]) -> bool:
    """Whether ``book`` is ``(rows, levels >= 1, 4)`` with a row per message of each column."""
    n = len(book)
    return (
        book.ndim == 3
        and book.shape[1] >= 1
        and book.shape[2] == 4
        and all(len(column) == n for column in messages)
    )


def depth_rows(messages: Messages, book: NDArray[np.int64]) -> NDArray[np.int64] | None:
    """The replayed depth after each message, or None when a message or a row is wrong."""
    if not _fits(messages, book):
        return None
    recon, columns = _start(messages, book, False)
    out = np.empty(book.shape, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    if _run(recon, *columns, out, 1, none, none, none) >= 0:
        return None
    return out


def prepare(messages: Messages, book: NDArray[np.int64], every: int) -> Prepared | None:
    """``(ops, op_start, executed, checkpoints)`` of ``HistoricalFlow``'s day preparation.

    ``ops`` is ``(n_ops, 6)``; the checkpoints are the resting orders (id, side, price,
    quantity, owner) before every ``every``-th message. None when a message is wrong.
    """
    if not _fits(messages, book):
        return None
    n = len(messages[0])
    recon, columns = _start(messages, book, True)
    op_start = np.empty(n + 1, dtype=np.int64)
    executed = np.zeros(n, dtype=np.int64)
    kept_start = np.zeros(-(-n // every) + 1, dtype=np.int64)
    out = np.empty((0, book.shape[1], 4), dtype=np.int64)
    if _run(recon, *columns, out, every, op_start, executed, kept_start) >= 0:
        return None
    ops, kept = _ops_of(recon)
    checkpoints = tuple(np.split(kept, kept_start[1:-1]))
    return ops, op_start, executed, checkpoints
