"""Conformance of ``check_causal``'s schedule and of the order book's edge cases."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from sekai.error import LookAheadError
from sekai.finance.features import check_causal
from sekai.finance.lob import (
    MAX_EXPECTED_EVENTS,
    OrderBook,
    Side,
    ZeroIntelligenceFlow,
)

BID, ASK = Side.BID, Side.ASK


# -- check_causal ---------------------------------------------------------------------------


def prices(rows: int, cols: int = 2, seed: int = 0) -> np.ndarray:
    """Positive data without NaNs (a random walk of prices)."""
    rng = np.random.default_rng(seed)
    return 100 * np.exp(np.cumsum(rng.normal(0.0, 0.01, (rows, cols)), axis=0))


def signed(rows: int, cols: int = 2, seed: int = 0) -> np.ndarray:
    """Data with negatives, no zeros, no NaNs."""
    return np.random.default_rng(seed).normal(0.0, 1.0, (rows, cols)) + 0.01


class Recorder:
    """A causal feature (the identity) that keeps a copy of every input it gets."""

    def __init__(self) -> None:
        self.calls: list[np.ndarray] = []

    def __call__(self, a: np.ndarray) -> np.ndarray:
        self.calls.append(a.copy())
        return a


def cut_of(call: np.ndarray, x: np.ndarray) -> int:
    """The last row of ``call`` that equals ``x`` before the first one that does not."""
    same = np.isclose(call, x, rtol=0, atol=0, equal_nan=True).reshape(len(x), -1).all(axis=1)
    return len(x) - 1 if same.all() else int(np.argmin(same)) - 1


@pytest.mark.parametrize(
    ("rows", "n_checks", "cuts"),
    [(12, 4, 5), (12, 9, 10), (12, 10, 11), (12, 50, 11), (3, 1, 2), (3, 7, 2), (4, 1, 2)],
)
def test_check_causal_calls_fn_on_cut_zero_plus_n_checks_cuts(
    rows: int, n_checks: int, cuts: int
) -> None:
    fn = Recorder()
    check_causal(fn, prices(rows), n_checks=n_checks)
    assert len(fn.calls) == 1 + 2 * cuts  # the input itself, then two copies per cut


@pytest.mark.parametrize(
    ("make", "per_cut"),
    [
        (lambda: prices(10), 2),
        (lambda: signed(10), 3),
        (lambda: np.where(np.arange(10)[:, None] % 3 == 0, 0.0, prices(10)), 3),
        (lambda: np.where(np.arange(10)[:, None] % 4 == 1, np.nan, prices(10)), 3),
        (lambda: np.where(np.arange(10)[:, None] % 4 == 1, np.nan, signed(10)), 4),
        (lambda: prices(10, 1)[:, 0], 2),
    ],
    ids=["positive", "negatives", "zeros", "nans", "signs-and-nans", "one-dimensional"],
)
def test_check_causal_copies_per_cut_follow_the_data(
    make: Callable[[], np.ndarray], per_cut: int
) -> None:
    fn = Recorder()
    check_causal(fn, make(), n_checks=3)
    assert len(fn.calls) == 1 + 4 * per_cut


def test_check_causal_cuts_are_zero_then_distinct_increasing_inner_rows() -> None:
    x = prices(15)
    fn = Recorder()
    check_causal(fn, x, n_checks=5)
    np.testing.assert_array_equal(fn.calls[0], x)
    cuts = [cut_of(call, x) for call in fn.calls[1::2]]  # the rescaled copy of each cut
    assert cuts[0] == 0 and cuts == sorted(set(cuts)) and len(cuts) == 6
    assert all(1 <= cut <= 13 for cut in cuts[1:])
    assert [cut_of(call, x) for call in fn.calls[2::2]] == cuts  # the reordered copies


def test_check_causal_rescaled_and_reordered_copies() -> None:
    x = prices(12, 3)
    fn = Recorder()
    check_causal(fn, x, n_checks=10)
    for cut in range(11):
        rescaled, reordered = fn.calls[1 + 2 * cut], fn.calls[2 + 2 * cut]
        for copy in (rescaled, reordered):
            np.testing.assert_array_equal(copy[: cut + 1], x[: cut + 1])
            assert (copy > 0).all()
        ratio = rescaled[cut + 1 :] / x[cut + 1 :]
        assert (ratio != 1).all() and (np.abs(np.log(ratio)) < 1.0).all()
        tail = reordered[cut + 1 :]
        rows = {tuple(row) for row in x[cut + 1 :]}
        assert {tuple(row) for row in tail} == rows and len(tail) == len(rows)
        if len(tail) > 1:
            assert not np.array_equal(tail, x[cut + 1 :])


def test_check_causal_signs_and_nan_copies() -> None:
    x = signed(40, seed=3)
    x[::5, 0] = 0.0
    x[2::7] = np.nan
    fn = Recorder()
    check_causal(fn, x, n_checks=1)
    assert len(fn.calls) == 1 + 2 * 4
    for cut_index in range(2):
        base = 1 + 4 * cut_index
        moved, holed = fn.calls[base + 2], fn.calls[base + 3]
        cut = cut_of(fn.calls[base], x)
        for copy in (moved, holed):
            np.testing.assert_array_equal(copy[: cut + 1], x[: cut + 1])
        tail, original = moved[cut + 1 :], x[cut + 1 :]
        np.testing.assert_array_equal(np.isnan(tail), np.isnan(original))
        both = ~np.isnan(original)
        assert (np.sign(tail[both]) != np.sign(original[both])).any()
        if cut == 0:  # enough rows for new zeros to be all but certain
            assert (tail == 0).any() and not np.array_equal(tail == 0, original == 0)
        assert not np.array_equal(np.isnan(holed[cut + 1 :]), np.isnan(original))


def test_check_causal_same_rng_same_copies() -> None:
    x = np.where(np.arange(9)[:, None] % 4 == 1, np.nan, signed(9))
    first, second = Recorder(), Recorder()
    check_causal(first, x)
    check_causal(second, x, rng=np.random.default_rng(0))
    assert len(first.calls) == len(second.calls) == 1 + 6 * 4
    for a, b in zip(first.calls, second.calls, strict=True):
        np.testing.assert_array_equal(a, b)


def test_check_causal_shape_change_is_a_look_ahead_error_naming_both_shapes() -> None:
    x = prices(8, 1)[:, 0]

    def widens(a: np.ndarray) -> np.ndarray:
        return np.zeros((len(a), 1 if np.array_equal(a, x) else 3))

    def shortens(a: np.ndarray) -> np.ndarray:
        return a if np.array_equal(a, x) else a[:-1]

    def flattens(a: np.ndarray) -> Any:
        return a if np.array_equal(a, x) else float(a.sum())

    for fn, got in ((widens, r"\(8, 3\)"), (shortens, r"\(7,\)"), (flattens, r"\(\)")):
        expected = r"\(8, 1\)" if fn is widens else r"\(8,\)"
        with pytest.raises(LookAheadError, match=rf"from {expected} to {got} .*cut 0"):
            check_causal(fn, x)


def test_check_causal_validates_row_count_before_anything_else() -> None:
    fn = Recorder()
    for x in (np.ones(2), np.ones((2, 3)), np.ones((1, 2, 2)), np.ones(0)):
        with pytest.raises(ValueError, match="at least 3 rows"):
            check_causal(fn, x, n_checks=0, rng=1, rtol=-1.0, atol="x")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="at least 3 rows"):
            check_causal("not callable", x)  # type: ignore[arg-type]
    assert fn.calls == []


def test_check_causal_rejects_a_non_callable_fn() -> None:
    with pytest.raises(TypeError, match="callable"):
        check_causal("mean", prices(5))  # type: ignore[arg-type]


def test_check_causal_sign_and_nan_copies_catch_what_rescaling_and_reordering_miss() -> None:
    def counts_negatives(a: np.ndarray) -> np.ndarray:  # blind to scale and row order
        out = a.copy()
        out[0] = float((a < 0).sum())
        return out

    def counts_nans(a: np.ndarray) -> np.ndarray:
        out = a.copy()
        out[0] = float(np.isnan(a).sum())
        return out

    check_causal(counts_negatives, prices(10))  # no signs to move in prices
    with pytest.raises(LookAheadError, match=r"output row 0 changed .* cut 0"):
        check_causal(counts_negatives, signed(10))
    with_nans = np.where(np.arange(20)[:, None] % 4 == 1, np.nan, prices(20))
    check_causal(counts_nans, prices(20))
    with pytest.raises(LookAheadError, match=r"output row 0 changed .* cut 0"):
        check_causal(counts_nans, with_nans)


# -- OrderBook.depth ------------------------------------------------------------------------


def test_depth_is_four_int64_arrays_padded_with_zeros() -> None:
    book = OrderBook()
    book.limit(BID, 99, 2)
    book.limit(BID, 98, 1)
    book.limit(ASK, 101, 4)
    for levels in (1, 2, 3, 5, np.int64(4)):
        depth = book.depth(levels)
        assert len(depth) == 4
        assert all(a.dtype == np.int64 and a.shape == (int(levels),) for a in depth)
    assert [a.tolist() for a in book.depth(4)] == [
        [99, 98, 0, 0],
        [2, 1, 0, 0],
        [101, 0, 0, 0],
        [4, 0, 0, 0],
    ]
    ask_only = OrderBook()
    ask_only.limit(ASK, 7, 3)
    assert [a.tolist() for a in ask_only.depth(2)] == [[0, 0], [0, 0], [7, 0], [3, 0]]


def test_depth_zero_gives_four_empty_int64_arrays() -> None:
    book = OrderBook()
    book.limit(BID, 99, 2)
    book.limit(ASK, 101, 4)
    for target in (book, OrderBook()):
        depth = target.depth(0)
        assert len(depth) == 4
        assert all(a.dtype == np.int64 and a.shape == (0,) for a in depth)
    for bad in (-1, -1.0):
        with pytest.raises(ValueError, match="levels"):
            book.depth(bad)  # type: ignore[arg-type]
    for bad in (True, None, 1.5):
        with pytest.raises(TypeError, match="levels"):
            book.depth(bad)  # type: ignore[arg-type]


# -- OrderBook.clear and repr ---------------------------------------------------------------


def test_clear_resets_time_last_price_ids_and_zeroes_handed_out_orders() -> None:
    book = OrderBook()
    book.time = 4.5
    first, _ = book.limit(BID, 99, 3, owner=2)
    second, _ = book.limit(ASK, 101, 2)
    book.market(ASK, 1)
    assert book.last_price == 99
    handed = [book.get(first), book.get(second), *book.orders_of(2)]
    assert all(order is not None and order.quantity > 0 for order in handed)
    book.clear()
    assert book.time == 0.0 and type(book.time) is float and book.last_price is None
    assert len(book) == 0 and book.get(first) is None and book.orders_of(2) == []
    assert all(order is not None and order.quantity == 0 for order in handed)
    assert book.best_bid() is None and book.best_ask() is None
    assert [a.tolist() for a in book.depth(1)] == [[0]] * 4
    assert book.limit(BID, 50, 1) == (1, [])
    assert book.market(ASK, 1)[0] == 2 and book.last_price == 50


def test_repr_prints_time_as_a_float() -> None:
    book = OrderBook()
    assert repr(book) == "OrderBook(time=0.0, best_bid=None, best_ask=None, orders=0)"
    book.limit(BID, 99, 1)
    book.limit(ASK, 101, 1)
    for time, shown in ((3, "3.0"), (np.float64(2.5), "2.5"), (10.0, "10.0"), (0.1, "0.1")):
        book.time = time  # type: ignore[assignment]
        assert repr(book) == f"OrderBook(time={shown}, best_bid=99, best_ask=101, orders=2)"
    book.clear()
    assert repr(book) == "OrderBook(time=0.0, best_bid=None, best_ask=None, orders=0)"


def test_repr_after_a_flow_run() -> None:
    book = OrderBook()
    flow = ZeroIntelligenceFlow()
    rng = np.random.default_rng(0)
    flow.initialise(book, rng, mid=1000)
    flow.advance(book, rng, 10)
    assert repr(book).startswith("OrderBook(time=10.0, best_bid=")


# -- ZeroIntelligenceFlow.advance -----------------------------------------------------------


def state(book: OrderBook) -> tuple[Any, ...]:
    return (book.time, book.last_price, len(book), [a.tolist() for a in book.depth(20)])


def test_advance_to_an_earlier_time_says_what_to_pass() -> None:
    flow = ZeroIntelligenceFlow()
    rng = np.random.default_rng(1)
    book = OrderBook()
    flow.initialise(book, rng, mid=100)
    flow.advance(book, rng, 5.0)
    before, draws = state(book), rng.bit_generator.state
    for until in (4.999, 0, -3.0, np.float64(1.0)):
        with pytest.raises(ValueError, match=r"earlier than book.time=5.0.*until >= book.time"):
            flow.advance(book, rng, until)
    assert state(book) == before and rng.bit_generator.state == draws


def test_advance_on_an_empty_book_without_last_price_asks_for_a_reference_price() -> None:
    flow = ZeroIntelligenceFlow()
    rng = np.random.default_rng(2)
    book = OrderBook()
    book.time = 1.0
    draws = rng.bit_generator.state
    for until in (1.0, 2.0, 50.0):
        with pytest.raises(ValueError, match="reference price") as info:
            flow.advance(book, rng, until)
        assert "last_price" in str(info.value) and "initialise" in str(info.value)
    assert book.time == 1.0 and rng.bit_generator.state == draws and len(book) == 0


def test_advance_needs_no_last_price_when_a_side_has_orders() -> None:
    flow = ZeroIntelligenceFlow()
    for side, price in ((BID, 40), (ASK, 60)):
        book = OrderBook()
        book.limit(side, price, 1_000)
        flow.advance(book, np.random.default_rng(3), 0.0)
        assert book.best_bid() is not None and book.best_ask() is not None


def test_advance_bound_on_expected_events_is_kept() -> None:
    flow = ZeroIntelligenceFlow(limit_rate=1e6, market_rate=1e6)
    book = OrderBook()
    rng = np.random.default_rng(4)
    flow.initialise(book, rng, mid=100)
    before = state(book)
    with pytest.raises(ValueError, match="MAX_EXPECTED_EVENTS"):
        flow.advance(book, rng, 1.0 + MAX_EXPECTED_EVENTS / 4e6)
    assert state(book) == before
