"""A price-time priority limit order book on integer ticks: the pure-Python reference engine."""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections import deque
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from sekai.utils.validation import check_int

__all__ = ["BACKGROUND", "Fill", "Order", "OrderBook", "Side", "plain_book"]

BACKGROUND = -1
"""Owner id of background (flow) orders; agents use ids >= 0."""

_MAX_DEAD = 16
"""A level's queue is compacted once it holds more dead entries than this and than live ones."""


class Side(IntEnum):
    """Order side: ``BID = 1`` buys, ``ASK = -1`` sells."""

    BID = 1
    ASK = -1

    @property
    def opposite(self) -> Side:
        """The other side."""
        return Side.ASK if self is Side.BID else Side.BID


@dataclass(slots=True)
class Order:
    """A limit order's live record; ``quantity`` becomes 0 when it leaves the book."""

    order_id: int
    side: Side
    price: int
    quantity: int
    owner: int
    time: float


@dataclass(frozen=True, slots=True)
class Fill:
    """One execution, at the resting (maker) order's price."""

    price: int
    quantity: int
    maker_order_id: int
    taker_order_id: int
    maker_owner: int
    taker_owner: int
    taker_side: Side
    time: float


def _as_int(value: Any, name: str, low: int) -> int:
    """``check_int(value, name, low=low)``, with a fast path for a plain int in range."""
    if type(value) is int and value >= low:
        return value
    return check_int(value, name, low=low)


_SIDE_OF = {1: Side.BID, -1: Side.ASK}


def _as_side(value: Any) -> Side:
    if value is Side.BID or value is Side.ASK:
        return value
    if type(value) is int and value in _SIDE_OF:
        return _SIDE_OF[value]
    side = check_int(value, "side")
    if side not in (1, -1):
        raise ValueError(f"side must be a Side or +1/-1, got {value!r}.")
    return Side(side)


def _as_owner(value: Any) -> int:
    return value if type(value) is int else check_int(value, "owner")


class _Level:
    """One price level: a FIFO queue in which cancelled entries stay, zeroed, until purged."""

    __slots__ = ("dead", "queue", "volume")

    def __init__(self) -> None:
        self.queue: deque[Order] = deque()
        self.volume = 0
        self.dead = 0


def _compacted(queue: deque[Order]) -> deque[Order]:
    """``queue`` without its dead (zero-quantity) entries, in the same order."""
    return deque([entry for entry in queue if entry.quantity])


class _Half:
    """One side of the book: its levels by price, and their keys ``sign * price`` ascending.

    The best level has the largest key, so it is ``keys[-1]`` and is popped in O(1) when
    matching empties it. A sorted list beats heaps with lazy deletion here: a book holds tens
    of levels, so a middle insertion or deletion is a short memmove in C, and ``depth`` and
    ``n_levels`` read the list as it is, with no sorting and no stale entries to skip.
    """

    __slots__ = ("keys", "levels", "sign")

    def __init__(self, sign: int) -> None:
        self.sign = sign
        self.levels: dict[int, _Level] = {}
        self.keys: list[int] = []


class OrderBook:
    """A limit order book: integer ticks, price-time priority, fills at the maker's price.

    Self-trades are allowed. Every accepted order gets the next id (1, 2, ...). ``time`` is
    set by the caller (or a flow) and stamped on orders and fills; ``last_price`` is the last
    fill price, or a reference the caller sets.
    """

    compiled: ClassVar[bool] = False
    """Whether the orders live in a compiled book (``CompiledBook``), not in this object."""

    def __init__(self) -> None:
        self._orders: dict[int, Order] = {}
        self.clear()

    def clear(self) -> None:
        """Remove every order; reset ``time`` to 0, ``last_price`` to None and ids to 1.

        Orders handed out earlier (by ``get`` or ``orders_of``) read quantity 0 afterwards.
        """
        for order in self._orders.values():
            order.quantity = 0
        self.time = 0.0
        self.last_price: int | None = None
        self._bids = _Half(1)
        self._asks = _Half(-1)
        self._orders = {}
        self._by_owner: dict[int, dict[int, Order]] = {}
        self._next_id = 1

    # -- orders ----------------------------------------------------------------------------

    def limit(
        self, side: Side | int, price: int, quantity: int, owner: int = BACKGROUND
    ) -> tuple[int | None, list[Fill]]:
        """Match while crossing, then rest the remainder; returns (its id or None, fills)."""
        fills: list[Fill] = []
        order_id = self._limit(
            _as_side(side),
            _as_int(price, "price", 1),
            _as_int(quantity, "quantity", 1),
            _as_owner(owner),
            fills,
        )
        return order_id, fills

    def market(
        self, side: Side | int, quantity: int, owner: int = BACKGROUND
    ) -> tuple[int, list[Fill]]:
        """Walk the opposite side's levels; the unfilled remainder is dropped."""
        fills: list[Fill] = []
        order_id = self._market(
            _as_side(side), _as_int(quantity, "quantity", 1), _as_owner(owner), fills
        )
        return order_id, fills

    def cancel(self, order_id: int) -> bool:
        """Remove a resting order; False if it is unknown or already gone."""
        order = self._orders.pop(order_id, None)
        if order is None:
            return False
        del self._by_owner[order.owner][order_id]
        half = self._bids if order.side > 0 else self._asks
        level = half.levels[order.price]
        level.volume -= order.quantity
        order.quantity = 0
        if not level.volume:
            del half.levels[order.price]
            keys = half.keys
            del keys[bisect_left(keys, half.sign * order.price)]
            return True
        queue = level.queue
        level.dead += 1
        while not queue[0].quantity:
            queue.popleft()
            level.dead -= 1
        if level.dead > _MAX_DEAD and level.dead > len(queue) - level.dead:
            level.queue = _compacted(queue)
            level.dead = 0
        return True

    def place(self, side: Side | int, price: int, quantity: int, owner: int = BACKGROUND) -> int:
        """Rest an order without matching, even across the spread; returns its id.

        For replaying recorded messages, in which executions come as messages of their own.
        """
        side = _as_side(side)
        price = _as_int(price, "price", 1)
        quantity = _as_int(quantity, "quantity", 1)
        owner = _as_owner(owner)
        order_id = self._next_id
        self._next_id = order_id + 1
        self._rest(Order(order_id, side, price, quantity, owner, self.time))
        return order_id

    def reduce(self, order_id: int, quantity: int) -> bool:
        """Lower a resting order's quantity, keeping its priority (0 cancels it).

        False if the order is unknown or gone; a quantity not below the current one is refused.
        """
        quantity = _as_int(quantity, "quantity", 0)
        order = self._orders.get(order_id)
        if order is None:
            return False
        if quantity >= order.quantity:
            raise ValueError(
                f"reduce needs a quantity below the current {order.quantity}, got {quantity}."
            )
        if not quantity:
            return self.cancel(order_id)
        half = self._bids if order.side > 0 else self._asks
        half.levels[order.price].volume -= order.quantity - quantity
        order.quantity = quantity
        return True

    def _limit(
        self, side: Side, price: int, quantity: int, owner: int, fills: list[Fill]
    ) -> int | None:
        order_id = self._next_id
        self._next_id = order_id + 1
        quantity = self._match(side, -side * price, quantity, order_id, owner, fills)
        if not quantity:
            return None
        self._rest(Order(order_id, side, price, quantity, owner, self.time))
        return order_id

    def _rest(self, order: Order) -> None:
        """Queue ``order`` at the back of its level, creating the level if needed."""
        price = order.price
        half = self._bids if order.side > 0 else self._asks
        level = half.levels.get(price)
        if level is None:
            level = half.levels[price] = _Level()
            insort(half.keys, half.sign * price)
        level.queue.append(order)
        level.volume += order.quantity
        self._orders[order.order_id] = order
        self._owned(order.owner)[order.order_id] = order

    def _market(self, side: Side, quantity: int, owner: int, fills: list[Fill]) -> int:
        order_id = self._next_id
        self._next_id = order_id + 1
        self._match(side, -math.inf, quantity, order_id, owner, fills)
        return order_id

    def _match(
        self, side: Side, bound: float, quantity: int, order_id: int, owner: int, fills: list[Fill]
    ) -> int:
        """Trade against the opposite side while its best key is >= ``bound``; returns the rest."""
        half = self._asks if side > 0 else self._bids
        keys = half.keys
        levels = half.levels
        orders = self._orders
        by_owner = self._by_owner
        time = self.time
        while quantity and keys and keys[-1] >= bound:
            price = half.sign * keys[-1]
            level = levels[price]
            queue = level.queue
            while quantity:
                maker = queue[0]
                traded = maker.quantity if maker.quantity < quantity else quantity
                maker.quantity -= traded
                level.volume -= traded
                quantity -= traded
                fills.append(
                    Fill(price, traded, maker.order_id, order_id, maker.owner, owner, side, time)
                )
                if not maker.quantity:
                    queue.popleft()
                    del orders[maker.order_id]
                    del by_owner[maker.owner][maker.order_id]
                    if not level.volume:
                        del levels[price]
                        keys.pop()
                        break
                    while not queue[0].quantity:
                        queue.popleft()
                        level.dead -= 1
                    if level.dead > _MAX_DEAD and level.dead > len(queue) - level.dead:
                        queue = level.queue = _compacted(queue)
                        level.dead = 0
            self.last_price = price
        return quantity

    # -- queries ---------------------------------------------------------------------------

    def get(self, order_id: int) -> Order | None:
        """The resting order with this id, or None."""
        return self._orders.get(order_id)

    def best_bid(self) -> int | None:
        """The highest bid price, or None."""
        keys = self._bids.keys
        return keys[-1] if keys else None

    def best_ask(self) -> int | None:
        """The lowest ask price, or None."""
        keys = self._asks.keys
        return -keys[-1] if keys else None

    def mid(self) -> float | None:
        """``(best_bid + best_ask) / 2``, or None if a side is empty."""
        if not self._bids.keys or not self._asks.keys:
            return None
        return (self._bids.keys[-1] - self._asks.keys[-1]) / 2

    def spread(self) -> int | None:
        """``best_ask - best_bid``, or None if a side is empty."""
        if not self._bids.keys or not self._asks.keys:
            return None
        return -self._asks.keys[-1] - self._bids.keys[-1]

    def volume_at(self, side: Side | int, price: int) -> int:
        """The resting volume at ``price`` on ``side``."""
        level = self._half(side).levels.get(price)
        return level.volume if level is not None else 0

    def n_levels(self, side: Side | int) -> int:
        """The number of occupied price levels on ``side``."""
        return len(self._half(side).keys)

    def depth(
        self, levels: int
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """``(bid_prices, bid_sizes, ask_prices, ask_sizes)``, ``(levels,)`` int64 each.

        Best level first; levels a side lacks are 0; ``depth(0)`` gives four empty arrays.
        """
        n = _as_int(levels, "levels", 0)
        out = np.zeros((4, n), dtype=np.int64)
        for row, half in ((0, self._bids), (2, self._asks)):
            prices = [half.sign * key for key in half.keys[: -n - 1 : -1]]
            out[row, : len(prices)] = prices
            out[row + 1, : len(prices)] = [half.levels[price].volume for price in prices]
        return out[0], out[1], out[2], out[3]

    def levels(self, side: Side | int, n: int) -> tuple[list[int], list[int]]:
        """``(prices, volumes)`` of the best ``n`` levels on ``side``, best first, as lists."""
        n = _as_int(n, "n", 0)
        half = self._half(side)
        prices = [half.sign * key for key in half.keys[: -n - 1 : -1]]
        levels = half.levels
        return prices, [levels[price].volume for price in prices]

    def orders_of(self, owner: int) -> list[Order]:
        """The resting orders of ``owner``, oldest first."""
        return list(self._by_owner.get(owner, {}).values())

    def n_orders_of(self, owner: int) -> int:
        """The number of resting orders of ``owner``."""
        return len(self._by_owner.get(owner, ()))

    def queue_ahead(self, order_id: int) -> int:
        """The volume ahead of a resting order in its level; ``KeyError`` if not resting."""
        order = self._orders.get(order_id)
        if order is None:
            raise KeyError(f"order {order_id!r} is not resting in the book.")
        ahead = 0
        for entry in self._half(order.side).levels[order.price].queue:
            if entry is order:
                break
            ahead += entry.quantity
        return ahead

    def _half(self, side: Side | int) -> _Half:
        return self._bids if _as_side(side) > 0 else self._asks

    def _owned(self, owner: int) -> dict[int, Order]:
        """The live id-to-order dict of ``owner``'s resting orders, oldest first."""
        owned = self._by_owner.get(owner)
        if owned is None:
            owned = self._by_owner[owner] = {}
        return owned

    def __len__(self) -> int:
        return len(self._orders)

    def __repr__(self) -> str:
        return (
            f"OrderBook(time={float(self.time)!r}, best_bid={self.best_bid()}, "
            f"best_ask={self.best_ask()}, orders={len(self)})"
        )


def plain_book(book: OrderBook, flow: str) -> None:
    """``TypeError`` unless ``book`` is a plain ``OrderBook`` that ``flow`` can drive."""
    if book.compiled:
        raise TypeError(
            f"{flow} drives a plain OrderBook, not the CompiledBook of an env on "
            "engine='numba' (that env runs its flow itself); build the env with "
            "engine='python' to drive its book from outside."
        )
