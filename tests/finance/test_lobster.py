"""Tests for LOBSTER reading, writing, simulation and book reconstruction."""

from __future__ import annotations

import dataclasses
import datetime
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sekai.finance.lob import (
    ANONYMOUS,
    EMPTY_ASK,
    EMPTY_BID,
    LobsterData,
    OrderBook,
    read_lobster,
    simulate_lobster,
    write_lobster,
)

COLUMNS = ("time_ns", "event", "order_id", "size", "price", "direction")
NO_PYARROW = importlib.util.find_spec("pyarrow") is None
NO_NUMBA = importlib.util.find_spec("numba") is None
ENGINES = [
    "numpy",
    pytest.param("pyarrow", marks=pytest.mark.skipif(NO_PYARROW, reason="no pyarrow")),
    pytest.param("numba", marks=pytest.mark.skipif(NO_NUMBA, reason="no numba")),
]


pytestmark = pytest.mark.usefixtures("order_book_engine")  # every test on both engines


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest, order_book_engine: str) -> str:
    """Each reader; the compiled one only where numba counts as installed."""
    if request.param == "numba" and order_book_engine == "python":
        pytest.skip("numba is hidden on this run")
    return str(request.param)


def assert_same(a: LobsterData, b: LobsterData) -> None:
    for name in COLUMNS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        np.testing.assert_array_equal(x, y, err_msg=name)
    assert (a.book is None) == (b.book is None)
    if a.book is not None:
        np.testing.assert_array_equal(a.book, b.book)
    assert (a.levels, a.tick_size, a.date, a.ticker) == (b.levels, b.tick_size, b.date, b.ticker)


@pytest.fixture(scope="module")
def simulated() -> LobsterData:
    return simulate_lobster(4000, levels=10, seed=3, hidden_rate=0.3, halt=True)


# -- simulation and round trip -------------------------------------------------------------


def test_simulation_has_every_kind_of_message(simulated: LobsterData) -> None:
    counts = np.bincount(simulated.event, minlength=8)
    assert counts[[1, 2, 3, 4, 5]].min() > 0
    assert counts[7] == 3 and counts[6] == 0
    halts = simulated.price[simulated.event == 7]
    np.testing.assert_array_equal(halts, [-1, 0, 1])
    assert (np.diff(simulated.time_ns) >= 0).all()
    assert len(simulated) == 4000 and simulated.book is not None
    assert simulated.book.shape == (4000, 10, 4)


def test_written_files_read_back_exactly(
    simulated: LobsterData, tmp_path: Path, engine: str
) -> None:
    message, orderbook = simulated.write(tmp_path)
    assert message.name.startswith("SEKAI_2024-01-02_34200000_")
    assert message.name.endswith("_message_10.csv")
    assert orderbook.name == message.name.replace("message", "orderbook")
    back = read_lobster(message, orderbook, engine=engine)
    assert_same(back, simulated)
    assert back.source == message.name


def test_write_lobster_equals_simulate_then_write(tmp_path: Path) -> None:
    paths = write_lobster(tmp_path / "a", 500, levels=3, seed=9, hidden_rate=0.2, halt=True)
    again = simulate_lobster(500, levels=3, seed=9, hidden_rate=0.2, halt=True)
    other = again.write(tmp_path / "b")
    for first, second in zip(paths, other, strict=True):
        assert first.name == second.name
        assert first.read_bytes() == second.read_bytes()
    assert_same(read_lobster(*paths), again)


def test_write_lobster_takes_the_simulators_options_only(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'depth'"):
        write_lobster(tmp_path, 100, depth=3)
    with pytest.raises(ValueError, match="hidden_rate"):
        write_lobster(tmp_path, 100, hidden_rate=2.0)
    assert not any(tmp_path.iterdir())


def test_message_file_alone(simulated: LobsterData, tmp_path: Path) -> None:
    message, _ = simulated.write(tmp_path)
    back = read_lobster(message)
    assert back.book is None and back.levels == 10
    for name in COLUMNS:
        np.testing.assert_array_equal(getattr(back, name), getattr(simulated, name))
    with pytest.raises(ValueError, match="order-book rows"):
        back.depth_rows()


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), levels=st.integers(1, 12), n=st.integers(1, 400))
def test_round_trip_and_reconstruction_property(
    tmp_path_factory: pytest.TempPathFactory, seed: int, levels: int, n: int
) -> None:
    data = simulate_lobster(n, levels=levels, seed=seed, hidden_rate=0.5, halt=seed % 2 == 0)
    back = read_lobster(*data.write(tmp_path_factory.mktemp("lobster")))
    assert_same(back, data)
    np.testing.assert_array_equal(back.depth_rows(), back.book)


# -- reconstruction ------------------------------------------------------------------------


@pytest.mark.parametrize("levels", [10, 1])
def test_reconstruction_equals_every_row(
    simulated: LobsterData, tmp_path: Path, levels: int
) -> None:
    data = read_lobster(*simulated.write(tmp_path), levels=levels)
    assert data.levels == levels
    np.testing.assert_array_equal(data.depth_rows(), data.book)


def test_reconstruction_of_a_one_level_simulation(tmp_path: Path) -> None:
    data = read_lobster(*write_lobster(tmp_path, 3000, levels=1, seed=5, hidden_rate=0.2))
    np.testing.assert_array_equal(data.depth_rows(), data.book)


def test_reconstruction_from_the_middle_of_a_file(simulated: LobsterData) -> None:
    part = simulated[1234:2345]
    assert part.first_line == 1235 and len(part) == 1111
    assert part.book is not None
    np.testing.assert_array_equal(part.depth_rows(), part.book)


def test_replay_yields_the_book_after_each_message(simulated: LobsterData) -> None:
    data = simulated[:600]
    assert data.book is not None
    seen = 0
    for k, book in data.replay():
        assert k == seen
        seen += 1
        assert book.best_ask() == data.book[k, 0, 0]
        assert book.best_bid() == data.book[k, 0, 2]
        assert book.time == data.time_ns[k] / 1e9
    assert seen == 600


# -- a hand-built pair: volume resting before the file, halts, hidden executions -----------

# (time, type, id, size, price, direction); tick 100, two levels.
MESSAGES = [
    ("34200.000000001", 3, 11, 100, 990000, 1),  # deletes a bid that rested before the file
    ("34200.000000002", 4, 12, 100, 1010000, -1),  # executes an ask that rested before
    ("34200.1", 1, 1, 70, 990000, 1),
    ("34200.25", 2, 13, 150, 980000, 1),  # partial cancel of unknown order 13
    ("34200.3", 5, 0, 30, 1000000, -1),  # hidden execution
    ("34200.4", 7, 0, 0, -1, -1),  # halt
    ("34200.5", 1, 2, 10, 1000000, -1),
    ("34200.6", 7, 0, 0, 0, -1),  # quoting resumes
    ("34200.7", 7, 0, 0, 1, -1),  # trading resumes
    ("34201", 4, 2, 10, 1000000, -1),
    ("34201.000000001", 3, 1, 70, 990000, 1),
]
# Per row: (ask price, ask size) x 2 levels, then (bid price, bid size) x 2 levels.
ROWS = [
    ((1010000, 300), (1020000, 200), (980000, 400), (970000, 50)),
    ((1010000, 200), (1020000, 200), (980000, 400), (970000, 50)),
    ((1010000, 200), (1020000, 200), (990000, 70), (980000, 400)),
    ((1010000, 200), (1020000, 200), (990000, 70), (980000, 250)),
    ((1010000, 200), (1020000, 200), (990000, 70), (980000, 250)),
    ((1010000, 200), (1020000, 200), (990000, 70), (980000, 250)),
    ((1000000, 10), (1010000, 200), (990000, 70), (980000, 250)),
    ((1000000, 10), (1010000, 200), (990000, 70), (980000, 250)),
    ((1000000, 10), (1010000, 200), (990000, 70), (980000, 250)),
    ((1010000, 200), (1020000, 200), (990000, 70), (980000, 250)),
    ((1010000, 200), (1020000, 200), (980000, 250), (970000, 50)),
]
NAME = "TEST_2012-06-21_34200000_57600000_{}_2.csv"


def book_line(row: tuple[tuple[int, int], ...]) -> str:
    (a1, a2, b1, b2) = row
    return ",".join(str(v) for level in ((*a1, *b1), (*a2, *b2)) for v in level)


def write_pair(
    folder: Path,
    messages: list[tuple[object, ...]] | None = None,
    rows: list[str] | None = None,
) -> tuple[Path, Path]:
    message = folder / NAME.format("message")
    orderbook = folder / NAME.format("orderbook")
    message.write_text("".join(",".join(map(str, m)) + "\n" for m in messages or MESSAGES))
    orderbook.write_text("".join(r + "\n" for r in rows or [book_line(r) for r in ROWS]))
    return message, orderbook


def test_hand_built_pair_reads(tmp_path: Path, engine: str) -> None:
    data = read_lobster(*write_pair(tmp_path), engine=engine)
    assert data.ticker == "TEST" and data.date == datetime.date(2012, 6, 21)
    assert data.levels == 2 and len(data) == 11
    assert data.time_ns[2] == 34200_100_000_000 and data.time_ns[9] == 34201_000_000_000
    assert data.time_ns[0] == 34200_000_000_001
    np.testing.assert_array_equal(data.price[:5], [9900, 10100, 9900, 9800, 10000])
    np.testing.assert_array_equal(data.price[5], -1)
    assert data.book is not None
    assert data.book[0].tolist() == [[10100, 300, 9800, 400], [10200, 200, 9700, 50]]
    assert data.event.dtype == np.int8 and data.direction.dtype == np.int8


def test_hand_built_pair_reconstructs(tmp_path: Path) -> None:
    data = read_lobster(*write_pair(tmp_path))
    np.testing.assert_array_equal(data.depth_rows(), data.book)
    *_, (k, book) = data.replay()
    assert k == 10
    assert book.levels(1, 2) == ([9800, 9700], [250, 50])
    assert book.levels(-1, 2) == ([10100, 10200], [200, 200])
    assert {order.quantity for order in book.orders_of(ANONYMOUS)} >= {200, 250, 50}


def test_one_level_of_the_hand_built_pair(tmp_path: Path) -> None:
    data = read_lobster(*write_pair(tmp_path), levels=1)
    np.testing.assert_array_equal(data.depth_rows(), data.book)


def test_empty_levels_keep_their_sentinels(tmp_path: Path) -> None:
    rows = [book_line(ROWS[0]), f"1010000,300,980000,400,{EMPTY_ASK},0,970000,50"]
    messages = [MESSAGES[0], ("34200.5", 3, 99, 200, 1020000, -1)]
    data = read_lobster(*write_pair(tmp_path, messages, rows))
    assert data.book is not None
    assert data.book[1, 1].tolist() == [EMPTY_ASK, 0, 9700, 50]
    np.testing.assert_array_equal(data.depth_rows(), data.book)
    rows[1] = f"1010000,300,980000,400,1020000,200,{EMPTY_BID},0"
    messages[1] = ("34200.5", 3, 98, 50, 970000, 1)
    data = read_lobster(*write_pair(tmp_path, messages, rows))
    np.testing.assert_array_equal(data.depth_rows(), data.book)


def replaced(index: int, message: tuple[object, ...]) -> list[tuple[object, ...]]:
    messages: list[tuple[object, ...]] = list(MESSAGES)
    messages[index] = message
    return messages


@pytest.mark.parametrize(
    ("messages", "row_edit", "match"),
    [
        (None, (3, "980000,250", "980000,260"), r"line 4: the order-book row disagrees .* bid"),
        (replaced(3, ("34200.25", 2, 13, 500, 980000, 1)), None, r"line 4: .*only 400 shares"),
        (replaced(7, ("34200.6", 4, 2, 5, 1000000, -1)), None, r"line 8: an execution while"),
        (replaced(7, ("34200.6", 5, 0, 5, 1000000, -1)), None, r"line 8: a hidden execution"),
        (replaced(9, ("34201", 4, 2, 11, 1000000, -1)), None, r"line 10: .*at most its 10"),
        (replaced(10, ("34201.000000001", 3, 1, 60, 990000, 1)), None, r"line 11: .*exactly"),
        (replaced(10, ("34201.000000001", 3, 1, 70, 980000, 1)), None, r"line 11: .*rests as"),
        (replaced(6, ("34200.5", 1, 1, 10, 1000000, -1)), None, r"line 7: new order id 1"),
    ],
)
def test_reconstruction_errors(
    tmp_path: Path,
    messages: list[tuple[object, ...]] | None,
    row_edit: tuple[int, str, str] | None,
    match: str,
) -> None:
    rows = [book_line(r) for r in ROWS]
    if row_edit is not None:
        index, old, new = row_edit
        rows[index] = rows[index].replace(old, new)
    data = read_lobster(*write_pair(tmp_path, messages, rows))
    with pytest.raises(ValueError, match=match) as info:
        data.depth_rows()
    assert NAME.format("message") in str(info.value)
    with pytest.raises(ValueError, match=match):
        for _ in data.replay():
            pass


def test_the_earliest_disagreement_is_reported(tmp_path: Path) -> None:
    rows = [book_line(r) for r in ROWS]
    rows[1] = rows[1].replace("1010000,200", "1010000,210")
    messages = replaced(3, ("34200.25", 2, 13, 500, 980000, 1))
    with pytest.raises(ValueError, match=r"line 2: the order-book row disagrees"):
        read_lobster(*write_pair(tmp_path, messages, rows)).depth_rows()


# -- bad files -----------------------------------------------------------------------------

GOOD = [",".join(map(str, m)) for m in MESSAGES]


@pytest.mark.parametrize(
    ("line", "text", "match"),
    [
        (
            2,
            "34200.000000002,4,12,100,1010000",
            r"line 3: expected 6 comma-separated columns, got 5",
        ),
        (2, "", r"line 3: expected 6 comma-separated columns, got 1"),
        (1, "34200.1,1,1,7x,990000,1", r"line 2, column 4 \(size\): expected an integer"),
        (1, "34200.1,1, 1,70,990000,1", r"line 2, column 3 \(order id\): expected an integer"),
        (1, "34200.1,8,1,70,990000,1", r"line 2, column 2 \(event type\): expected an event type"),
        (1, "34200.1,1,1,70,990000,0", r"line 2, column 6 \(direction\)"),
        (1, "34200.1,1,1,0,990000,1", r"line 2, column 4 \(size\): expected a size > 0"),
        (1, "34200.1,1,1,70,990050,1", r"line 2, column 5 \(price\): expected a price on the tick"),
        (1, "34200.1,1,1,70,-990000,1", r"line 2, column 5 \(price\): expected a price > 0"),
        (5, "34200.4,7,0,0,2,-1", r"line 6, column 5 \(price\): expected -1 \(halt\)"),
        (1, "34199.9,1,1,70,990000,1", r"line 2, column 1 \(time\): expected a time >="),
        (1, "34200.1234567891,1,1,70,990000,1", r"line 2, column 1 \(time\): expected seconds"),
        (1, "34200.,1,1,70,990000,1", r"line 2, column 1 \(time\): expected seconds"),
        (1, "-34200.1,1,1,70,990000,1", r"line 2, column 1 \(time\): expected seconds"),
        (1, "1e5,1,1,70,990000,1", r"line 2, column 1 \(time\): expected seconds"),
        (1, "34200.1,1,1,99999999999999999999,990000,1", r"line 2, column 4 \(size\)"),
    ],
)
def test_bad_message_files(tmp_path: Path, engine: str, line: int, text: str, match: str) -> None:
    lines = list(GOOD)
    lines[line] = text
    message = tmp_path / "bad_message.csv"
    message.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=match) as info:
        read_lobster(message, engine=engine)
    assert str(info.value).startswith("bad_message.csv, line")


@pytest.mark.parametrize(
    ("row", "text", "match"),
    [
        (0, "1010000,300,980000,400,1020000,200,970000", r"line 1: expected 4 columns per level"),
        (2, "1010000,200,1020000,200,990000,70,980000", r"line 3: expected 8 comma-separated"),
        (
            2,
            f"{EMPTY_ASK},5,990000,70,{EMPTY_ASK},0,980000,400",
            r"line 3, column 2 \(ask size 1\)",
        ),
        (2, "1010000,200,990000,70,1020000,200,-5,400", r"line 3, column 7 \(bid price 2\)"),
        (2, "1010000,200,990000,70,1020050,200,980000,400", r"column 5 \(ask price 2\).*tick"),
        (2, "1010000,200,990000,70,1000000,200,980000,400", r"column 5 \(ask price 2\).*worse"),
        (2, f"{EMPTY_ASK},0,990000,70,1020000,200,980000,400", r"column 5 \(ask price 2\).*empty"),
        (2, "1010000,200,990000,0,1020000,200,980000,400", r"line 3, column 4 \(bid size 1\)"),
    ],
)
def test_bad_orderbook_files(tmp_path: Path, engine: str, row: int, text: str, match: str) -> None:
    rows = [book_line(r) for r in ROWS]
    rows[row] = text
    message, orderbook = write_pair(tmp_path, rows=rows)
    with pytest.raises(ValueError, match=match) as info:
        read_lobster(message, orderbook, engine=engine)
    assert str(info.value).startswith(orderbook.name)


def test_row_count_and_levels_are_checked(tmp_path: Path) -> None:
    rows = [book_line(r) for r in ROWS]
    message, orderbook = write_pair(tmp_path, rows=rows[:-1])
    with pytest.raises(ValueError, match=r"one order-book row per message \(11\), got 10"):
        read_lobster(message, orderbook)
    message, orderbook = write_pair(tmp_path)
    with pytest.raises(ValueError, match=r"levels=3, but .* has only 2 levels"):
        read_lobster(message, orderbook, levels=3)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match=r"empty\.csv: the file is empty"):
        read_lobster(tmp_path / "empty.csv")


def test_arguments_are_checked(tmp_path: Path) -> None:
    message, _ = write_pair(tmp_path)
    with pytest.raises(ValueError, match="tick_size"):
        read_lobster(message, tick_size=0)
    with pytest.raises(TypeError, match="tick_size"):
        read_lobster(message, tick_size="100")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="engine"):
        read_lobster(message, engine="polars")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ISO date"):
        read_lobster(message, date="21/06/2012")
    data = read_lobster(message, date="2020-01-31", ticker="X", tick_size=1)
    assert (data.date, data.ticker, int(data.price[0])) == (datetime.date(2020, 1, 31), "X", 990000)


def test_windows_line_ends_and_no_final_newline(tmp_path: Path) -> None:
    message, orderbook = write_pair(tmp_path)
    expected = read_lobster(message, orderbook)
    message.write_bytes(message.read_bytes().replace(b"\n", b"\r\n"))
    orderbook.write_bytes(orderbook.read_bytes().rstrip(b"\n"))
    assert_same(read_lobster(message, orderbook), expected)


def test_names_that_are_not_lobster_names(tmp_path: Path) -> None:
    message = tmp_path / "messages.csv"
    message.write_text("\n".join(GOOD) + "\n")
    data = read_lobster(message)
    assert (data.date, data.ticker, data.levels, data.book) == (None, None, None, None)


# -- engines -------------------------------------------------------------------------------


def test_pyarrow_and_numpy_give_identical_arrays(simulated: LobsterData, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    for paths in (simulated.write(tmp_path / "sim"), write_pair(tmp_path)):
        assert_same(read_lobster(*paths, engine="numpy"), read_lobster(*paths, engine="pyarrow"))
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("1,1,1,1,100,1\n2.5,1,2,1,100,1\n3.123456789,1,3,1,100,1\n")
    numpy_data = read_lobster(ragged, engine="numpy")
    assert_same(numpy_data, read_lobster(ragged, engine="pyarrow"))
    assert numpy_data.time_ns.tolist() == [10**9, 2_500_000_000, 3_123_456_789]


# -- the container -------------------------------------------------------------------------


def test_lobster_data_is_immutable(simulated: LobsterData) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        simulated.ticker = "X"  # type: ignore[misc]
    for name in (*COLUMNS, "book"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(simulated, name)[0] = 0
    source = np.arange(3)
    data = LobsterData(source, [1, 1, 1], source, source + 1, source + 1, [1, 1, 1])
    source[0] = 99
    assert data.time_ns[0] == 0 and data.event.dtype == np.int8


def test_lobster_data_checks_its_arrays() -> None:
    ones = np.ones(3, dtype=np.int64)
    with pytest.raises(ValueError, match="rows"):
        LobsterData(ones, ones, ones, ones, ones, ones[:2])
    with pytest.raises(TypeError, match="integer array"):
        LobsterData(ones * 1.0, ones, ones, ones, ones, ones)
    with pytest.raises(ValueError, match="int8"):
        LobsterData(ones, ones * 300, ones, ones, ones, ones)
    with pytest.raises(ValueError, match="shape"):
        LobsterData(ones, ones, ones, ones, ones, ones, book=np.zeros((3, 2, 3), np.int64))


def test_slicing_and_repr(simulated: LobsterData) -> None:
    part = simulated[10:20]
    assert len(part) == 10 and part.first_line == 11
    np.testing.assert_array_equal(part.time_ns, simulated.time_ns[10:20])
    assert len(simulated[-5:]) == 5 and len(simulated[20:10]) == 0
    with pytest.raises(ValueError, match="step 1"):
        simulated[::2]
    with pytest.raises(TypeError, match="slice"):
        simulated[3]  # type: ignore[call-overload]
    text = repr(simulated)
    assert text.startswith("LobsterData(ticker='SEKAI', date=2024-01-02, messages=4,000")
    assert "levels=10" in text and "09:30:00." in text


def test_replay_uses_a_fresh_order_book(simulated: LobsterData) -> None:
    books = {id(book) for _, book in simulated[:50].replay()}
    assert len(books) == 1
    assert isinstance(next(iter(simulated[:5].replay()))[1], OrderBook)
