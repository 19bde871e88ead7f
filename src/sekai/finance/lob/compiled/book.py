"""``CompiledBook``: the ``OrderBook`` interface over a compiled (numba) array book.

The LOB environments on ``engine="numba"`` keep their book in ``book_state``'s arrays and
show it as a ``CompiledBook``: queries answer for the compiled book as it is now, and
``limit``, ``market``, ``place``, ``cancel``, ``reduce``, ``clear`` and setting ``time`` or
``last_price`` change it, with ``OrderBook``'s rules and checks. Imported only with numba.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from sekai.finance.lob.book import (
    BACKGROUND,
    Fill,
    Order,
    OrderBook,
    Side,
    _as_int,
    _as_owner,
    _as_side,
    _Half,
)
from sekai.finance.lob.compiled import book_rules, book_state

__all__ = ["CompiledBook"]


class CompiledBook(OrderBook):
    """An ``OrderBook`` whose orders live in a compiled book ``state``.

    Its queries first copy the resting orders out of ``state`` when it has changed
    (``touch()`` says so; its own changes do too), so ``Order`` records it hands out are
    copies, which read quantity 0 once the book has changed. The flows' ``initialise`` and
    ``advance`` take only a plain ``OrderBook``: the env runs the compiled flow itself.
    """

    compiled: ClassVar[bool] = True

    def __init__(self, state: Any) -> None:
        self._state = state
        self._meta = state.meta
        self._clock = book_state.clock_of(state)
        self._orders: dict[int, Order] = {}
        self._stale = True

    @classmethod
    def empty(cls) -> CompiledBook:
        """A new, empty compiled book (its flow draws from a generator seeded with 0)."""
        params = np.array([10.0, 2.0, 0.5, 10.0, 0.5, 3.0], dtype=np.float64)
        return cls(book_state.new_state(np.random.default_rng(0), params))

    def touch(self) -> None:
        """Note that the compiled book has changed."""
        self._stale = True

    @property
    def time(self) -> float:
        """The book's clock."""
        return float(self._clock[0])

    @time.setter
    def time(self, value: float) -> None:
        self._clock[0] = value

    @property  # type: ignore[override]
    def last_price(self) -> float | None:
        """The last fill price, or the reference the caller set; None when neither."""
        last = int(self._meta[book_state.M_LAST_PRICE])
        if last == book_state.FRACTIONAL:
            return float(self._clock[1])
        return last or None

    @last_price.setter
    def last_price(self, value: float | None) -> None:
        if value is None:
            self._meta[book_state.M_LAST_PRICE] = 0
        elif isinstance(value, (int, np.integer)):
            self._meta[book_state.M_LAST_PRICE] = value
        else:
            self._meta[book_state.M_LAST_PRICE] = book_state.FRACTIONAL
            self._clock[1] = value

    def _sync(self) -> None:
        """Copy the resting orders out of the compiled book if it has changed."""
        if not self._stale:
            return
        self._stale = False
        for order in self._orders.values():
            order.quantity = 0
        self._orders = {}
        self._bids = _Half(1)
        self._asks = _Half(-1)
        self._by_owner = {}
        rows, times = book_rules.resting(self._state)
        by_id = np.argsort(rows[:, 0], kind="stable")
        for (order_id, side, price, quantity, owner), stamp in zip(
            rows[by_id].tolist(), times[by_id].tolist(), strict=True
        ):
            self._rest(Order(order_id, Side(side), price, quantity, owner, stamp))
        self._next_id = int(self._meta[book_state.M_NEXT_ID])

    def _fills(self) -> list[Fill]:
        """The fills the last change made, taken out of the compiled book."""
        self._stale = True
        n = int(self._meta[book_state.M_N_FILLS])
        table, times = self._state.fills
        fills = [
            Fill(price, quantity, maker, taker, maker_owner, taker_owner, Side(side), stamp)
            for (price, quantity, maker, taker, maker_owner, taker_owner, side), stamp in zip(
                table[:n].tolist(), times[:n].tolist(), strict=True
            )
        ]
        self._meta[book_state.M_N_FILLS] = 0
        return fills

    # -- changes ---------------------------------------------------------------------------

    def clear(self) -> None:
        """Remove every order; reset ``time`` to 0, ``last_price`` to None and ids to 1."""
        book_state.clear(self._state)
        self._stale = True

    def limit(
        self, side: Side | int, price: int, quantity: int, owner: int = BACKGROUND
    ) -> tuple[int | None, list[Fill]]:
        """Match while crossing, then rest the remainder; returns (its id or None, fills)."""
        order_id = book_rules.limit(
            self._state,
            int(_as_side(side)),
            _as_int(price, "price", 1),
            _as_int(quantity, "quantity", 1),
            _as_owner(owner),
        )
        return order_id or None, self._fills()

    def market(
        self, side: Side | int, quantity: int, owner: int = BACKGROUND
    ) -> tuple[int, list[Fill]]:
        """Walk the opposite side's levels; the unfilled remainder is dropped."""
        order_id = book_rules.market(
            self._state, int(_as_side(side)), _as_int(quantity, "quantity", 1), _as_owner(owner)
        )
        return order_id, self._fills()

    def place(self, side: Side | int, price: int, quantity: int, owner: int = BACKGROUND) -> int:
        """Rest an order without matching, even across the spread; returns its id."""
        order_id: int = book_rules.place(
            self._state,
            int(_as_side(side)),
            _as_int(price, "price", 1),
            _as_int(quantity, "quantity", 1),
            _as_owner(owner),
        )
        self._stale = True
        return order_id

    def cancel(self, order_id: int) -> bool:
        """Remove a resting order; False if it is unknown or already gone."""
        if not isinstance(order_id, (int, np.integer)) or isinstance(order_id, bool):
            return False
        self._stale = True
        return bool(book_rules.cancel(self._state, int(order_id)))

    def reduce(self, order_id: int, quantity: int) -> bool:
        """Lower a resting order's quantity, keeping its priority (0 cancels it)."""
        quantity = _as_int(quantity, "quantity", 0)
        order = self.get(order_id)
        if order is None:
            return False
        if quantity >= order.quantity:
            raise ValueError(
                f"reduce needs a quantity below the current {order.quantity}, got {quantity}."
            )
        self._stale = True
        return bool(book_rules.reduce(self._state, int(order_id), quantity))


def _synced(name: str) -> Any:
    method = getattr(OrderBook, name)

    def query(self: CompiledBook, *args: Any) -> Any:
        self._sync()
        return method(self, *args)

    query.__name__ = name
    query.__doc__ = method.__doc__
    return query


for _name in (
    "get",
    "best_bid",
    "best_ask",
    "mid",
    "spread",
    "volume_at",
    "n_levels",
    "depth",
    "levels",
    "orders_of",
    "n_orders_of",
    "queue_ahead",
    "__len__",
    "__repr__",
):
    setattr(CompiledBook, _name, _synced(_name))
