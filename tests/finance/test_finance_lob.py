"""Tests for sekai.finance.lob."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from sekai.finance.lob import BACKGROUND, Fill, Order, OrderBook, Side, ZeroIntelligenceFlow

BID, ASK = Side.BID, Side.ASK


def as_tuple(fill: Fill) -> tuple:
    return (
        fill.price,
        fill.quantity,
        fill.maker_order_id,
        fill.taker_order_id,
        fill.maker_owner,
        fill.taker_owner,
        int(fill.taker_side),
        fill.time,
    )


# -- a naive reference book: plain lists, no cleverness ------------------------------------


class RefBook:
    """Resting orders as ``[id, side, price, quantity, owner, time]`` lists in arrival order."""

    def __init__(self) -> None:
        self.orders: list[list] = []
        self.next_id = 1
        self.last_price: int | None = None
        self.time = 0.0

    def _match(self, side, limit, quantity, order_id, owner):
        fills = []
        while quantity:
            crossing = [
                o
                for o in self.orders
                if o[1] == -side and (limit is None or o[2] * side <= limit * side)
            ]
            if not crossing:
                break
            maker = min(crossing, key=lambda o: (o[2] * side, o[0]))
            traded = min(quantity, maker[3])
            maker[3] -= traded
            quantity -= traded
            fills.append((maker[2], traded, maker[0], order_id, maker[4], owner, side, self.time))
            self.last_price = maker[2]
            if maker[3] == 0:
                self.orders.remove(maker)
        return quantity, fills

    def limit(self, side, price, quantity, owner=-1):
        order_id = self.next_id
        self.next_id += 1
        rest, fills = self._match(side, price, quantity, order_id, owner)
        if rest:
            self.orders.append([order_id, side, price, rest, owner, self.time])
            return order_id, fills
        return None, fills

    def market(self, side, quantity, owner=-1):
        order_id = self.next_id
        self.next_id += 1
        return order_id, self._match(side, None, quantity, order_id, owner)[1]

    def find(self, order_id):
        return next((o for o in self.orders if o[0] == order_id), None)

    def cancel(self, order_id):
        order = self.find(order_id)
        if order is None:
            return False
        self.orders.remove(order)
        return True

    def reduce(self, order_id, quantity):
        order = self.find(order_id)
        if order is None:
            return False
        if quantity >= order[3]:
            raise ValueError
        if quantity == 0:
            self.orders.remove(order)
        else:
            order[3] = quantity
        return True

    def prices(self, side):
        return sorted({o[2] for o in self.orders if o[1] == side}, key=lambda p: -p * side)

    def best(self, side):
        prices = self.prices(side)
        return prices[0] if prices else None

    def volume(self, side, price):
        return sum(o[3] for o in self.orders if o[1] == side and o[2] == price)

    def depth(self, n):
        out = []
        for side in (1, -1):
            prices = self.prices(side)[:n]
            sizes = [self.volume(side, p) for p in prices]
            pad = [0] * (n - len(prices))
            out += [prices + pad, sizes + pad]
        return out

    def queue_ahead(self, order_id):
        order = self.find(order_id)
        return sum(
            o[3] for o in self.orders if o[1] == order[1] and o[2] == order[2] and o[0] < order_id
        )

    def owned(self, owner):
        return [o for o in self.orders if o[4] == owner]


def book_state(book: OrderBook) -> list[tuple]:
    """Every resting order, oldest first, as plain tuples."""
    len(book)  # a query: a CompiledBook copies its orders out of the compiled book
    owners = sorted({o.owner for o in book._orders.values()})
    orders = [o for owner in owners for o in book.orders_of(owner)]
    orders.sort(key=lambda o: o.order_id)
    return [(o.order_id, int(o.side), o.price, o.quantity, o.owner, o.time) for o in orders]


def check_internals(book: OrderBook) -> None:
    """The lazy-cancellation invariants: live front, exact counts, compaction rule."""
    for half in (book._bids, book._asks):
        assert sorted(half.keys) == half.keys
        assert sorted(half.sign * k for k in half.keys) == sorted(half.levels)
        for price, level in half.levels.items():
            queue = list(level.queue)
            live = [o for o in queue if o.quantity]
            assert queue[0].quantity > 0
            assert level.dead == len(queue) - len(live)
            assert not (level.dead > 16 and level.dead > len(live))
            assert level.volume == sum(o.quantity for o in live) > 0
            assert all(o.price == price for o in live)


def assert_same(book: OrderBook, ref: RefBook, owners=(-1, 0, 1)) -> None:
    assert book_state(book) == [tuple(o) for o in ref.orders]
    assert book.best_bid() == ref.best(1) and book.best_ask() == ref.best(-1)
    assert book.last_price == ref.last_price and len(book) == len(ref.orders)
    assert [a.tolist() for a in book.depth(6)] == ref.depth(6)
    for side in (BID, ASK):
        assert book.n_levels(side) == len(ref.prices(side))
        for price in range(0, 12):
            assert book.volume_at(side, price) == ref.volume(side, price)
    for owner in owners:
        assert [o.order_id for o in book.orders_of(owner)] == [o[0] for o in ref.owned(owner)]
        assert book.n_orders_of(owner) == len(ref.owned(owner))
    for o in ref.orders:
        assert book.queue_ahead(o[0]) == ref.queue_ahead(o[0])
    check_internals(book)


# -- Side, Order, Fill ---------------------------------------------------------------------


def test_side_and_background():
    assert BID == 1 and ASK == -1 and BACKGROUND == -1
    assert BID.opposite is ASK and ASK.opposite is BID
    assert Side(1) is BID and Side(-1) is ASK


def test_order_and_fill_records():
    order = Order(1, BID, 100, 5, 0, 0.5)
    order.quantity = 3
    assert order == Order(1, BID, 100, 3, 0, 0.5) and not hasattr(order, "__dict__")
    fill = Fill(100, 2, 1, 2, 0, -1, ASK, 1.5)
    assert [f.name for f in dataclasses.fields(Fill)] == [
        "price",
        "quantity",
        "maker_order_id",
        "taker_order_id",
        "maker_owner",
        "taker_owner",
        "taker_side",
        "time",
    ]
    assert [f.name for f in dataclasses.fields(Order)] == [
        "order_id",
        "side",
        "price",
        "quantity",
        "owner",
        "time",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fill.price = 3  # type: ignore[misc]
    assert not hasattr(fill, "__dict__") and pickle.loads(pickle.dumps(fill)) == fill


# -- hand-built scenarios ------------------------------------------------------------------


def test_price_time_priority_at_maker_prices():
    book = OrderBook()
    assert book.limit(ASK, 101, 2, 0) == (1, [])
    assert book.limit(ASK, 101, 3, 1) == (2, [])
    assert book.limit(ASK, 100, 1, 2) == (3, [])
    book.time = 4.0
    order_id, fills = book.limit(BID, 101, 5, 3)
    assert order_id is None
    assert fills == [
        Fill(100, 1, 3, 4, 2, 3, BID, 4.0),
        Fill(101, 2, 1, 4, 0, 3, BID, 4.0),
        Fill(101, 2, 2, 4, 1, 3, BID, 4.0),
    ]
    assert fills[0].taker_side is BID
    assert book.last_price == 101 and book.volume_at(ASK, 101) == 1
    assert book.get(1) is None and book.get(2).quantity == 1 and len(book) == 1
    assert book.best_bid() is None and book.best_ask() == 101


def test_partial_fill_rests_the_remainder_at_its_limit():
    book = OrderBook()
    book.limit(ASK, 100, 1)
    book.limit(ASK, 101, 1)
    book.limit(ASK, 103, 1)
    order_id, fills = book.limit(BID, 101, 5, 7)
    assert order_id == 4 and [(f.price, f.quantity) for f in fills] == [(100, 1), (101, 1)]
    assert book.get(4) == Order(4, BID, 101, 3, 7, 0.0)
    assert book.best_bid() == 101 and book.best_ask() == 103
    assert book.spread() == 2 and book.mid() == 102.0
    assert book.limit(ASK, 101, 1, 8) == (None, [Fill(101, 1, 4, 5, 7, 8, ASK, 0.0)])
    assert book.get(4).quantity == 2


def test_market_walks_levels_and_drops_the_remainder():
    book = OrderBook()
    book.limit(BID, 99, 2)
    book.limit(BID, 98, 1)
    book.limit(BID, 99, 1)
    order_id, fills = book.market(ASK, 10, 5)
    assert order_id == 4
    assert [(f.price, f.quantity, f.maker_order_id) for f in fills] == [
        (99, 2, 1),
        (99, 1, 3),
        (98, 1, 2),
    ]
    assert all(f.taker_owner == 5 and f.taker_side is ASK for f in fills)
    assert len(book) == 0 and book.get(4) is None and book.n_levels(BID) == 0
    assert book.last_price == 98 and book.mid() is None and book.spread() is None
    assert book.market(BID, 3) == (5, [])
    assert book.last_price == 98
    assert book.limit(BID, 50, 1) == (6, [])


def test_self_trades_are_allowed():
    book = OrderBook()
    book.limit(ASK, 10, 2, 0)
    _, fills = book.limit(BID, 10, 1, 0)
    assert fills == [Fill(10, 1, 1, 2, 0, 0, BID, 0.0)]
    assert book.get(1).quantity == 1


def test_live_records_are_zeroed_when_orders_leave():
    book = OrderBook()
    book.limit(ASK, 10, 2)
    book.limit(ASK, 11, 2)
    first, second = book.get(1), book.get(2)
    book.market(BID, 2)
    book.cancel(2)
    assert first.quantity == 0 and second.quantity == 0


def test_cancel_keeps_priority_and_exact_volumes():
    book = OrderBook()
    for quantity in (1, 2, 3, 4):
        book.limit(BID, 50, quantity, 0)
    book.limit(BID, 49, 5)
    assert book.cancel(2) is True and book.cancel(2) is False and book.cancel(999) is False
    assert book.volume_at(BID, 50) == 8 and book.queue_ahead(3) == 1
    assert book.cancel(1) is True
    assert book.volume_at(BID, 50) == 7 and book.queue_ahead(3) == 0 and book.queue_ahead(4) == 3
    assert len(book._bids.levels[50].queue) == 2
    _, fills = book.market(ASK, 4)
    assert [(f.maker_order_id, f.quantity) for f in fills] == [(3, 3), (4, 1)]
    assert book.cancel(4) and book.n_levels(BID) == 1 and book.volume_at(BID, 50) == 0
    assert book.best_bid() == 49 and book.depth(2)[0].tolist() == [49, 0]
    assert book.cancel(5) and book.best_bid() is None and len(book) == 0


def test_reduce_keeps_priority():
    book = OrderBook()
    book.limit(ASK, 20, 5, 0)
    book.limit(ASK, 20, 5, 1)
    assert book.reduce(1, 2) is True
    assert book.get(1).quantity == 2 and book.volume_at(ASK, 20) == 7
    assert book.queue_ahead(2) == 2
    _, fills = book.market(BID, 3)
    assert [(f.maker_order_id, f.quantity) for f in fills] == [(1, 2), (2, 1)]
    assert book.reduce(2, np.int64(0)) is True and book.get(2) is None
    assert len(book) == 0 and book.best_ask() is None
    assert book.reduce(2, 1) is False and book.reduce(42, 0) is False


def test_reduce_errors():
    book = OrderBook()
    book.limit(BID, 10, 3)
    for bad in (3, 4):
        with pytest.raises(ValueError, match="below the current 3"):
            book.reduce(1, bad)
    for bad in (-1, -1.0):
        with pytest.raises(ValueError, match="quantity"):
            book.reduce(1, bad)
    for bad in (True, None, 1.5):
        with pytest.raises(TypeError, match="quantity"):
            book.reduce(1, bad)
    assert book.get(1).quantity == 3 and book.volume_at(BID, 10) == 3


def test_queue_ahead():
    book = OrderBook()
    for quantity in (2, 3, 4):
        book.limit(ASK, 30, quantity)
    book.limit(ASK, 31, 9)
    assert [book.queue_ahead(i) for i in (1, 2, 3, 4)] == [0, 2, 5, 0]
    book.market(BID, 3)
    assert [book.queue_ahead(i) for i in (2, 3)] == [0, 2]
    for gone in (1, 99):
        with pytest.raises(KeyError):
            book.queue_ahead(gone)


def test_depth_pads_with_zeros():
    book = OrderBook()
    book.limit(BID, 99, 2)
    book.limit(BID, 97, 1)
    book.limit(BID, 99, 3)
    book.limit(ASK, 101, 4)
    depth = book.depth(3)
    assert all(a.dtype == np.int64 and a.shape == (3,) for a in depth)
    assert [a.tolist() for a in depth] == [[99, 97, 0], [5, 1, 0], [101, 0, 0], [4, 0, 0]]
    assert [a.tolist() for a in book.depth(1)] == [[99], [5], [101], [4]]
    assert [a.tolist() for a in OrderBook().depth(2)] == [[0, 0]] * 4
    with pytest.raises(ValueError, match="levels"):
        book.depth(-2)
    for bad in (True, 1.5):
        with pytest.raises(TypeError, match="levels"):
            book.depth(bad)
    assert [a.tolist() for a in book.depth(1.0)] == [[99], [5], [101], [4]]


def test_orders_of_oldest_first():
    book = OrderBook()
    book.limit(BID, 10, 1, 0)
    book.limit(ASK, 20, 1, 1)
    book.limit(ASK, 19, 1, 0)
    book.limit(BID, 11, 1, 0)
    book.limit(BID, 9, 1)
    assert [o.order_id for o in book.orders_of(0)] == [1, 3, 4]
    assert book.n_orders_of(0) == 3 and book.n_orders_of(1) == 1
    assert book.n_orders_of(BACKGROUND) == 1 and book.orders_of(BACKGROUND)[0].price == 9
    assert book.orders_of(7) == [] and book.n_orders_of(7) == 0
    assert book.orders_of(0)[0] is book.get(1)
    book.cancel(3)
    assert [o.order_id for o in book.orders_of(0)] == [1, 4]


def test_time_stamps_and_clear():
    book = OrderBook()
    book.time = 2.5
    book.limit(BID, 10, 1)
    book.time = 3.0
    _, fills = book.market(ASK, 1)
    assert book.get(1) is None and fills[0].time == 3.0
    book.limit(ASK, 12, 1)
    assert book.get(3).time == 3.0
    book.clear()
    assert book.time == 0.0 and book.last_price is None and len(book) == 0
    assert book.best_bid() is None and book.best_ask() is None and book.n_orders_of(-1) == 0
    assert book.limit(BID, 5, 1) == (1, [])


def test_repr():
    book = OrderBook()
    assert repr(book) == "OrderBook(time=0.0, best_bid=None, best_ask=None, orders=0)"
    book.limit(BID, 99, 1)
    book.limit(ASK, 101, 1)
    book.limit(ASK, 102, 1)
    book.time = 1.5
    assert repr(book) == "OrderBook(time=1.5, best_bid=99, best_ask=101, orders=3)"


def test_pickle_and_deepcopy_preserve_the_book():
    book = OrderBook()
    for i in range(30):
        book.limit(BID, 50 - i % 3, 1 + i % 4, i % 2)
        book.limit(ASK, 60 + i % 2, 2, -1)
    for i in range(2, 40, 3):
        book.cancel(i)
    book.time = 7.0
    book.market(ASK, 3)
    for duplicate in (lambda b: pickle.loads(pickle.dumps(b)), copy.deepcopy):
        clone = duplicate(book)
        assert book_state(clone) == book_state(book)
        assert clone.time == 7.0 and clone.last_price == book.last_price
        front = clone._bids.levels[50].queue[0]
        assert clone.get(front.order_id) is front and front is not book.get(front.order_id)
        check_internals(clone)
        assert clone.market(ASK, 20) == book.market(ASK, 20)
        assert clone.limit(BID, 61, 5) == book.limit(BID, 61, 5)
        assert book_state(clone) == book_state(book)
        book = clone


def test_compaction_rule():
    book = OrderBook()
    for _ in range(40):
        book.limit(BID, 100, 1)
    level = book._bids.levels[100]
    for order_id in range(2, 19):
        book.cancel(order_id)
    # 17 dead entries > 16, but the 23 live ones still outnumber them.
    assert level.dead == 17 and len(level.queue) == 40
    for order_id in range(19, 22):
        book.cancel(order_id)
    assert level.dead == 20 and len(level.queue) == 40
    book.cancel(22)  # 21 dead outnumber 19 live: compact
    assert book._bids.levels[100] is level and level.dead == 0 and len(level.queue) == 19
    assert [o.order_id for o in level.queue] == [1, *range(23, 41)]
    assert book.volume_at(BID, 100) == 19 and book.queue_ahead(23) == 1
    book.cancel(1)  # the front: purged at once
    assert len(level.queue) == 18 and level.queue[0].order_id == 23


def test_compaction_needs_more_than_16_dead():
    book = OrderBook()
    for _ in range(20):
        book.limit(ASK, 7, 1)
    level = book._asks.levels[7]
    for order_id in range(2, 18):
        book.cancel(order_id)
    assert level.dead == 16 and len(level.queue) == 20  # 16 dead outnumber 4 live: not yet
    book.cancel(18)
    assert level.dead == 0 and [o.order_id for o in level.queue] == [1, 19, 20]


def test_fills_that_empty_the_front_also_compact():
    book = OrderBook()
    for _ in range(40):
        book.limit(BID, 9, 1)
    level = book._bids.levels[9]
    for order_id in range(21, 41):
        book.cancel(order_id)
    assert level.dead == 20 and len(level.queue) == 40  # 20 dead, 20 live: not yet
    _, fills = book.market(ASK, 1)  # 20 dead now outnumber 19 live
    assert fills[0].maker_order_id == 1
    assert level.dead == 0 and [o.order_id for o in level.queue] == list(range(2, 21))


def test_dead_entries_are_purged_at_the_front():
    book = OrderBook()
    for _ in range(5):
        book.limit(ASK, 10, 1)
    book.cancel(2)
    book.cancel(3)
    level = book._asks.levels[10]
    assert level.dead == 2 and len(level.queue) == 5
    book.cancel(1)
    assert level.dead == 0 and [o.order_id for o in level.queue] == [4, 5]
    book.cancel(5)
    assert level.dead == 1
    _, fills = book.market(BID, 1)
    assert fills[0].maker_order_id == 4 and book.n_levels(ASK) == 0


@pytest.mark.parametrize("engine", ["python", "numba"])
def test_validation(engine):
    book = BOOKS[engine]()
    bad_values = [
        lambda: book.limit(0, 10, 1),
        lambda: book.limit(2, 10, 1),
        lambda: book.limit(2.0, 10, 1),
        lambda: book.limit(BID, 0, 1),
        lambda: book.limit(BID, 0.0, 1),
        lambda: book.limit(BID, 10, 0),
        lambda: book.limit(BID, 10, -1.0),
        lambda: book.market(ASK, 0),
        lambda: book.market(-2, 1),
        lambda: book.volume_at(0, 10),
    ]
    bad_kinds = [
        lambda: book.limit(True, 10, 1),
        lambda: book.limit("BID", 10, 1),
        lambda: book.limit(BID, True, 1),
        lambda: book.limit(BID, 10, False),
        lambda: book.limit(BID, 10, np.bool_(True)),
        lambda: book.limit(BID, 10, 1, owner=True),
        lambda: book.limit(1.5, 10, 1),
        lambda: book.limit(BID, 10.5, 1),
        lambda: book.limit(BID, 10, 1, owner=0.5),
        lambda: book.market(ASK, 1.5),
        lambda: book.market(ASK, True),
        lambda: book.n_levels(True),
    ]
    for call in bad_values:
        with pytest.raises(ValueError):
            call()
    for call in bad_kinds:
        with pytest.raises(TypeError):
            call()
    assert len(book) == 0 and book.limit(BID, 10, 1) == (1, [])
    assert book.limit(np.int8(-1), np.int64(12), np.int32(2), np.int16(3)) == (2, [])
    order = book.get(2)
    assert order.side is ASK and type(order.price) is int and type(order.quantity) is int
    assert type(order.owner) is int and order.owner == 3
    assert book.limit(-1, 13, 1)[0] == 3 and book.get(3).side is ASK
    assert book.limit(-1.0, 14.0, np.float32(2.0), owner=5.0)[0] == 4
    whole = book.get(4)
    assert (whole.side, whole.price, whole.quantity, whole.owner) == (ASK, 14, 2, 5)
    assert all(type(v) is int for v in (whole.price, whole.quantity, whole.owner))
    assert book.volume_at(-1, 12) == 2 and book.n_levels(np.int64(1)) == 1


# -- property test against the reference book ----------------------------------------------

SIDES = st.sampled_from([1, -1])
OWNERS = st.sampled_from([-1, 0, 1])
OPS = st.one_of(
    st.tuples(st.just("limit"), SIDES, st.integers(1, 10), st.integers(1, 6), OWNERS),
    st.tuples(st.just("market"), SIDES, st.integers(1, 15), OWNERS),
    st.tuples(st.just("cancel"), st.integers(0, 500)),
    st.tuples(st.just("reduce"), st.integers(0, 500), st.integers(0, 6)),
)


def apply(book: OrderBook, ref: RefBook, op: tuple, step: int) -> None:
    book.time = ref.time = float(step)
    kind = op[0]
    if kind == "limit":
        _, side, price, quantity, owner = op
        order_id, fills = book.limit(side, price, quantity, owner)
        assert (order_id, [as_tuple(f) for f in fills]) == ref.limit(side, price, quantity, owner)
    elif kind == "market":
        _, side, quantity, owner = op
        order_id, fills = book.market(side, quantity, owner)
        assert (order_id, [as_tuple(f) for f in fills]) == ref.market(side, quantity, owner)
    elif kind == "cancel_live":
        if ref.orders:
            order_id = ref.orders[op[1] % len(ref.orders)][0]
            assert book.cancel(order_id) and ref.cancel(order_id)
    else:
        order_id = 1 + op[1] % (ref.next_id + 2)
        if kind == "cancel":
            assert book.cancel(order_id) == ref.cancel(order_id)
        else:
            target = ref.find(order_id)
            if target is not None and op[2] >= target[3]:
                with pytest.raises(ValueError):
                    book.reduce(order_id, op[2])
            else:
                assert book.reduce(order_id, op[2]) == ref.reduce(order_id, op[2])


def compiled_book() -> OrderBook:
    pytest.importorskip("numba")
    from sekai.finance.lob.compiled import CompiledBook

    return CompiledBook.empty()


BOOKS = {"python": OrderBook, "numba": compiled_book}


@pytest.mark.parametrize("engine", list(BOOKS))
@settings(max_examples=150, deadline=None)
@given(ops=st.lists(OPS, max_size=60))
def test_book_matches_reference(engine, ops):
    book, ref = BOOKS[engine](), RefBook()
    for step, op in enumerate(ops):
        apply(book, ref, op, step)
        assert_same(book, ref)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=40, max_size=60),
    st.lists(
        st.one_of(
            st.tuples(st.just("cancel_live"), st.integers(0, 200)),
            st.tuples(st.just("cancel_live"), st.integers(0, 200)),
            st.tuples(st.just("cancel"), st.integers(0, 70)),
            st.tuples(st.just("reduce"), st.integers(0, 70), st.integers(0, 3)),
            st.tuples(st.just("limit"), SIDES, st.integers(4, 6), st.integers(1, 4), OWNERS),
            st.tuples(st.just("market"), SIDES, st.integers(1, 8), OWNERS),
        ),
        min_size=50,
        max_size=120,
    ),
)
def test_deep_levels_with_churn_match_reference(sizes, ops):
    """Deep queues at two prices, then mostly cancels: exercises purging and compaction."""
    book, ref = OrderBook(), RefBook()
    for i, quantity in enumerate(sizes):
        side, price = (1, 4) if i % 4 else (-1, 6)
        apply(book, ref, ("limit", side, price, quantity, i % 2 - 1), 0)
    compacted = False
    for step, op in enumerate(ops, start=1):
        queues = {
            (half.sign, price): level.queue
            for half in (book._bids, book._asks)
            for price, level in half.levels.items()
        }
        apply(book, ref, op, step)
        assert_same(book, ref)
        for (sign, price), queue in queues.items():
            level = (book._bids if sign > 0 else book._asks).levels.get(price)
            compacted |= level is not None and level.queue is not queue
    event(f"compacted={compacted}")


# -- ZeroIntelligenceFlow ------------------------------------------------------------------


def test_flow_defaults_and_validation():
    flow = ZeroIntelligenceFlow()
    assert (flow.limit_rate, flow.market_rate, flow.cancel_rate) == (10.0, 2.0, 0.5)
    assert (flow.max_offset, flow.offset_decay, flow.mean_size) == (10, 0.5, 3.0)
    assert repr(flow) == (
        "ZeroIntelligenceFlow(limit_rate=10.0, market_rate=2.0, cancel_rate=0.5, "
        "max_offset=10, offset_decay=0.5, mean_size=3.0)"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        flow.limit_rate = 1.0  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(flow)) == flow
    ok = ZeroIntelligenceFlow(
        limit_rate=1,
        market_rate=np.float64(0.5),
        cancel_rate=0,
        max_offset=np.int64(1),
        offset_decay=0,
        mean_size=1,
    )
    assert type(ok.max_offset) is int and type(ok.limit_rate) is float
    bad = [
        {"limit_rate": 0.0},
        {"limit_rate": math.inf},
        {"market_rate": -1.0},
        {"cancel_rate": -0.1},
        {"cancel_rate": math.nan},
        {"max_offset": 0},
        {"offset_decay": -1.0},
        {"mean_size": 0.5},
    ]
    for kwargs in bad:
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            ZeroIntelligenceFlow(**kwargs)
    for kwargs in (
        {"market_rate": True},
        {"max_offset": True},
        {"max_offset": 2.5},
        {"mean_size": "3"},
    ):
        with pytest.raises(TypeError, match=next(iter(kwargs))):
            ZeroIntelligenceFlow(**kwargs)


def test_draw_offset_formula():
    for decay, n in ((0.5, 10), (2.0, 4), (0.0, 7), (0.3, 1)):
        flow = ZeroIntelligenceFlow(max_offset=n, offset_decay=decay)
        rng, twin = np.random.default_rng(3), np.random.default_rng(3)
        for _ in range(300):
            u = twin.random()
            if decay == 0:
                expected = int(u * n) + 1
            else:
                expected = math.ceil(-math.log1p(u * math.expm1(-decay * n)) / decay)
            k = flow._draw_offset(rng)
            assert type(k) is int and k == min(max(expected, 1), n)


# Chi-square critical values at the 0.1% level for 9 and 5 degrees of freedom.
CHI2_999 = {9: 27.877, 5: 20.515}


@pytest.mark.parametrize(("decay", "n"), [(0.5, 10), (1.5, 6), (0.0, 10)])
def test_offset_distribution(decay, n):
    flow = ZeroIntelligenceFlow(max_offset=n, offset_decay=decay)
    rng = np.random.default_rng(11)
    draws = 30_000
    counts = np.bincount([flow._draw_offset(rng) for _ in range(draws)], minlength=n + 1)
    assert counts[0] == 0 and counts.sum() == draws
    weights = np.exp(-decay * np.arange(n))
    expected = draws * weights / weights.sum()
    chi2 = float(((counts[1:] - expected) ** 2 / expected).sum())
    assert chi2 < CHI2_999[n - 1]


def test_size_distribution():
    flow = ZeroIntelligenceFlow(mean_size=3.0)
    rng, twin = np.random.default_rng(5), np.random.default_rng(5)
    sizes = np.array([flow._draw_size(rng) for _ in range(20_000)])
    assert sizes.min() >= 1 and abs(sizes.mean() - 3.0) < 4 * math.sqrt(2.0 / sizes.size)
    assert sizes[:50].tolist() == [1 + int(twin.poisson(2.0)) for _ in range(50)]
    unit = ZeroIntelligenceFlow(mean_size=1.0)
    state = rng.bit_generator.state
    assert [unit._draw_size(rng) for _ in range(10)] == [1] * 10
    assert rng.bit_generator.state == state


def test_initialise_layout():
    flow = ZeroIntelligenceFlow()
    book = OrderBook()
    book.limit(BID, 5, 1, 0)
    book.time = 9.0
    flow.initialise(book, np.random.default_rng(1), mid=100, levels=2, orders_per_level=2)
    twin = np.random.default_rng(1)
    expected = []
    for d in (1, 2):
        for _ in range(2):
            expected.append((BID, 100 - d, 1 + int(twin.poisson(2.0))))
            expected.append((ASK, 100 + d, 1 + int(twin.poisson(2.0))))
    state = book_state(book)
    assert [(s[1], s[2], s[3]) for s in state] == expected
    assert [s[0] for s in state] == list(range(1, 9))
    assert all(s[4] == BACKGROUND and s[5] == 0.0 for s in state)
    assert book.last_price == 100 and book.time == 0.0
    assert book.best_bid() == 99 and book.best_ask() == 101
    default = OrderBook()
    flow.initialise(default, np.random.default_rng(1), mid=10_000)
    assert len(default) == 60 and default.n_levels(BID) == default.n_levels(ASK) == 10
    assert default.depth(10)[0].tolist() == list(range(9_999, 9_989, -1))


def test_initialise_clips_bids_at_one_tick():
    book = OrderBook()
    ZeroIntelligenceFlow().initialise(
        book, np.random.default_rng(0), mid=3, levels=4, orders_per_level=1
    )
    assert [(s[1], s[2]) for s in book_state(book)] == [
        (1, 2),
        (-1, 4),
        (1, 1),
        (-1, 5),
        (1, 1),
        (-1, 6),
        (1, 1),
        (-1, 7),
    ]
    for kwargs in ({"mid": 0}, {"mid": 0.0}, {"mid": 10, "levels": 0}):
        with pytest.raises(ValueError):
            ZeroIntelligenceFlow().initialise(book, np.random.default_rng(0), **kwargs)
    with pytest.raises(TypeError, match="mid"):
        ZeroIntelligenceFlow().initialise(book, np.random.default_rng(0), mid=10.5)
    with pytest.raises(TypeError):
        ZeroIntelligenceFlow().initialise(
            book, np.random.default_rng(0), mid=10, orders_per_level=True
        )


def reference_offset(flow, rng):
    u = rng.random()
    n, decay = flow.max_offset, flow.offset_decay
    k = int(u * n) + 1 if decay == 0 else math.ceil(-math.log1p(u * math.expm1(-decay * n)) / decay)
    return min(max(k, 1), n)


def reference_size(flow, rng):
    return 1 if flow.mean_size == 1 else 1 + int(rng.poisson(flow.mean_size - 1))


def reference_place(flow, book: RefBook, rng, side):
    if side == 1:
        ref = book.best(-1)
        if ref is None:
            ref = book.best(1) + 1 if book.best(1) is not None else book.last_price
    else:
        ref = book.best(1)
        if ref is None:
            ref = book.best(-1) - 1 if book.best(-1) is not None else book.last_price
    k = reference_offset(flow, rng)
    price = max(ref - k, 1) if side == 1 else ref + k
    return book.limit(side, price, reference_size(flow, rng), -1)[1]


def reference_advance(flow, book: RefBook, rng, until):
    """The event loop as the spec states it, driving the naive book."""
    lr, mr, cr = flow.limit_rate, flow.market_rate, flow.cancel_rate
    fills = []
    t = book.time
    while True:
        background = book.owned(-1)
        rate = 2 * lr + 2 * mr + cr * len(background)
        t += rng.standard_exponential() / rate
        if t > until:
            break
        book.time = t
        u = rng.random() * rate
        if u < 2 * lr:
            fills += reference_place(flow, book, rng, 1 if u < lr else -1)
        elif u < 2 * lr + 2 * mr:
            side = 1 if u < 2 * lr + mr else -1
            if book.best(-side) is not None:
                fills += book.market(side, reference_size(flow, rng), -1)[1]
        else:
            book.cancel(background[rng.integers(len(background))][0])
    while book.best(1) is None or book.best(-1) is None:
        fills += reference_place(flow, book, rng, 1 if book.best(1) is None else -1)
    book.time = float(until)
    return fills


FLOWS = [
    ZeroIntelligenceFlow(),
    ZeroIntelligenceFlow(limit_rate=1.0, market_rate=4.0, cancel_rate=2.0, mean_size=4.0),
    ZeroIntelligenceFlow(max_offset=3, offset_decay=0.0, mean_size=1.0, cancel_rate=0.0),
    ZeroIntelligenceFlow(limit_rate=5.0, market_rate=0.5, cancel_rate=3.0, offset_decay=2.0),
]


@pytest.mark.parametrize("flow", FLOWS)
def test_advance_matches_reference_event_loop(flow):
    for seed in range(3):
        rng, twin = np.random.default_rng(seed), np.random.default_rng(seed)
        book, ref = OrderBook(), RefBook()
        flow.initialise(book, rng, mid=20, levels=3, orders_per_level=2)
        ref.last_price = 20
        for d in (1, 2, 3):
            for _ in range(2):
                ref.limit(1, max(20 - d, 1), reference_size(flow, twin))
                ref.limit(-1, 20 + d, reference_size(flow, twin))
        for target in (book, ref):
            target.limit(1, 19, 2, 0)
            target.limit(-1, 22, 2, 0)
        for until in (0.5, 2.0, 2.0, 7.25, 15.0):
            fills = flow.advance(book, rng, until)
            assert [as_tuple(f) for f in fills] == reference_advance(flow, ref, twin, until)
            assert book.time == until
            assert book_state(book) == [tuple(o) for o in ref.orders]
            assert book.last_price == ref.last_price
            check_internals(book)
        assert rng.bit_generator.state == twin.bit_generator.state


def test_advance_is_reproducible():
    runs = []
    for _ in range(2):
        rng = np.random.default_rng(123)
        book = OrderBook()
        flow = ZeroIntelligenceFlow()
        flow.initialise(book, rng, mid=10_000)
        fills = [as_tuple(f) for t in range(1, 6) for f in flow.advance(book, rng, float(t))]
        runs.append((fills, book_state(book), [a.tolist() for a in book.depth(5)]))
    assert runs[0] == runs[1] and len(runs[0][0]) > 0
    other = np.random.default_rng(124)
    book = OrderBook()
    ZeroIntelligenceFlow().initialise(book, other, mid=10_000)
    assert book_state(book) != runs[0][1]


def test_advance_never_leaves_a_side_empty():
    flow = ZeroIntelligenceFlow(limit_rate=0.3, market_rate=6.0, cancel_rate=1.0, mean_size=5.0)
    rng = np.random.default_rng(7)
    book = OrderBook()
    flow.initialise(book, rng, mid=50, levels=1, orders_per_level=1)
    for step in range(1, 80):
        fills = flow.advance(book, rng, step * 0.5)
        assert book.best_bid() is not None and book.best_ask() is not None
        assert book.best_bid() < book.best_ask()
        assert all(step * 0.5 - 0.5 < f.time <= step * 0.5 for f in fills)
        assert [f.time for f in fills] == sorted(f.time for f in fills)


def test_flow_cancels_only_background_orders_and_reports_agent_fills():
    flow = ZeroIntelligenceFlow(cancel_rate=5.0)
    rng = np.random.default_rng(9)
    book = OrderBook()
    flow.initialise(book, rng, mid=1_000)
    placed = {}
    for owner in (0, 1):
        for side, price in ((BID, 999), (ASK, 1_001), (BID, 990), (ASK, 1_010)):
            order_id, _ = book.limit(side, price, 3, owner)
            placed[order_id] = owner
    filled = dict.fromkeys(placed, 0)
    for t in range(1, 21):
        for fill in flow.advance(book, rng, float(t)):
            if fill.maker_order_id in placed:
                assert fill.maker_owner == placed[fill.maker_order_id]
                filled[fill.maker_order_id] += fill.quantity
            assert fill.taker_owner == BACKGROUND
    for order_id in placed:
        order = book.get(order_id)
        assert (0 if order is None else order.quantity) + filled[order_id] == 3
    assert sum(filled.values()) > 0


def test_advance_until_validation_and_types():
    flow = ZeroIntelligenceFlow()
    rng = np.random.default_rng(0)
    book = OrderBook()
    flow.initialise(book, rng, mid=100)
    flow.advance(book, rng, 2)
    assert book.time == 2.0 and type(book.time) is float
    flow.advance(book, rng, np.float64(2.5))
    flow.advance(book, rng, Fraction(11, 4))
    assert book.time == 2.75
    state = book_state(book)
    for bad in (2.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="until"):
            flow.advance(book, rng, bad)
    for bad in (True, "3", None):
        with pytest.raises(TypeError, match="until"):
            flow.advance(book, rng, bad)
    assert book_state(book) == state and book.time == 2.75
    flow.advance(book, rng, 2.75)
    assert book.time == 2.75


def test_advance_needs_a_reference_price():
    with pytest.raises(ValueError, match="last_price"):
        ZeroIntelligenceFlow().advance(OrderBook(), np.random.default_rng(0), 1.0)
    book = OrderBook()
    book.last_price = 40
    ZeroIntelligenceFlow().advance(book, np.random.default_rng(0), 0.0)
    assert book.best_bid() < 40 and book.best_bid() < book.best_ask() and len(book) == 2


# -- place and levels (used by the LOBSTER replay) -----------------------------------------


def test_place_rests_without_matching_even_across_the_spread():
    book = OrderBook()
    ask, _ = book.limit(ASK, 101, 5)
    bid = book.place(BID, 103, 4, owner=7)
    assert bid == ask + 1
    assert book.best_bid() == 103 and book.best_ask() == 101
    assert book.spread() == -2
    order = book.get(bid)
    assert order is not None and (order.side, order.price, order.quantity, order.owner) == (
        BID,
        103,
        4,
        7,
    )
    assert book.orders_of(7) == [order]
    book.place(BID, 103, 2)
    assert book.volume_at(BID, 103) == 6 and book.queue_ahead(bid) == 0
    _, fills = book.market(ASK, 5)
    assert [(f.price, f.quantity, f.maker_order_id) for f in fills] == [(103, 4, bid), (103, 1, 3)]


@pytest.mark.parametrize(
    ("side", "price", "quantity", "error"),
    [
        (0, 100, 1, ValueError),
        (BID, 0, 1, ValueError),
        (BID, 100, 0, ValueError),
        (BID, True, 1, TypeError),
        (BID, 100, 1.5, TypeError),
        (BID, 100.5, 1, TypeError),
        (BID, 100, -1.0, ValueError),
    ],
)
def test_place_checks_like_limit(side, price, quantity, error):
    book = OrderBook()
    with pytest.raises(error):
        book.place(side, price, quantity)
    assert len(book) == 0 and book.place(BID, 100, 1) == 1


def test_levels_lists_the_best_levels_like_depth():
    book = OrderBook()
    for price, quantity in ((99, 2), (97, 1), (98, 4), (99, 3)):
        book.limit(BID, price, quantity)
    book.limit(ASK, 102, 6)
    assert book.levels(BID, 2) == ([99, 98], [5, 4])
    assert book.levels(Side.BID, 10) == ([99, 98, 97], [5, 4, 1])
    assert book.levels(-1, 3) == ([102], [6])
    assert book.levels(BID, 0) == ([], [])
    bid_prices, bid_sizes, _, _ = book.depth(3)
    assert book.levels(BID, 3) == (bid_prices.tolist(), bid_sizes.tolist())
    with pytest.raises(ValueError):
        book.levels(BID, -1)
    with pytest.raises(ValueError):
        book.levels(2, 1)
