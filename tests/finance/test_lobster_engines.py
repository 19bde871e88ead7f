"""The compiled LOBSTER reconstruction against the Python one: same rows, operations, errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sekai.finance.lob import LobsterData, simulate_lobster
from sekai.finance.lob.lobster.flow import _prepare, _record

pytest.importorskip("numba")

from sekai.finance.lob.compiled import lobster_replay as compiled_replay


def _simulated(n: int, levels: int, seed: int, start: int) -> LobsterData:
    """A simulated day with hidden executions and halts, from message ``start`` on."""
    data = simulate_lobster(n, levels=levels, seed=seed, hidden_rate=0.3, halt=seed % 2 == 0)
    return data[min(start, n - 1) :]


def _error(data: LobsterData, engine: str) -> str | None:
    """The message of the ``ValueError`` ``depth_rows`` raises, or None when it returns."""
    try:
        data.depth_rows(engine=engine)  # type: ignore[arg-type]
    except ValueError as exc:
        return str(exc)
    return None


def _assert_same_preparation(data: LobsterData, every: int) -> None:
    assert data.book is not None
    compiled = compiled_replay.prepare(data.messages, data.book, every)
    assert compiled is not None
    ops, op_start, executed, checkpoints = compiled
    python = _record(data, every)
    for got, want in zip((ops, op_start, executed), python[:3], strict=True):
        assert got.dtype == want.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    assert len(checkpoints) == len(python[3]) == -(-len(data) // every)
    for got, want in zip(checkpoints, python[3], strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 1500),
    levels=st.sampled_from([1, 10]),
    seed=st.integers(0, 2**31),
    start=st.integers(0, 1000),
    every=st.integers(1, 600),
)
def test_compiled_and_python_reconstructions_agree(
    n: int, levels: int, seed: int, start: int, every: int
) -> None:
    data = _simulated(n, levels, seed, start)
    assert data.book is not None
    compiled = data.depth_rows(engine="numba")
    np.testing.assert_array_equal(compiled, data.depth_rows(engine="python"))
    np.testing.assert_array_equal(compiled, data.book)
    assert compiled.dtype == np.int64 and compiled.shape == data.book.shape
    _assert_same_preparation(data, every)


_COLUMNS = ("event", "size", "price", "direction", "order_id", "book")


@settings(max_examples=60, deadline=None)
@given(
    levels=st.sampled_from([1, 10]),
    seed=st.integers(0, 2**31),
    start=st.integers(0, 400),
    column=st.sampled_from(_COLUMNS),
    at=st.floats(0.0, 1.0, exclude_max=True),
    change=st.integers(-3, 3).filter(bool),
    cell=st.integers(0, 39),
)
def test_corrupted_files_fail_alike(
    levels: int, seed: int, start: int, column: str, at: float, change: int, cell: int
) -> None:
    data = _simulated(800, levels, seed, start)
    assert data.book is not None
    k = int(at * len(data))
    if column == "book":
        book = data.book.copy()
        book[k].reshape(-1)[cell % (4 * levels)] += change
        bad = dataclasses.replace(data, book=book)
    else:
        values = getattr(data, column).copy()
        if column == "event":
            values[k] = (values[k] - 1 + change) % 7 + 1
        elif column == "direction":
            values[k] = -values[k]
        else:
            values[k] += change
        bad = dataclasses.replace(data, **{column: values})
    python = _error(bad, "python")
    assert _error(bad, "numba") == python
    assert bad.book is not None
    detected = compiled_replay.depth_rows(bad.messages, bad.book) is None
    assert detected == (python is not None)
    try:
        _record(bad, 100)
    except ValueError:
        assert compiled_replay.prepare(bad.messages, bad.book, 100) is None
    else:
        _assert_same_preparation(bad, 100)


def test_prepare_falls_back_to_the_python_error() -> None:
    data = simulate_lobster(300, levels=2, seed=4)
    event = data.event.copy()
    placed = set(data.order_id[event == 1].tolist())
    first = next(k for k in np.flatnonzero(event == 3).tolist() if int(data.order_id[k]) in placed)
    event[first] = 4
    size = data.size.copy()
    size[first] += 1
    bad = dataclasses.replace(data, event=event, size=size)
    with pytest.raises(ValueError, match=rf"line {first + 1}: an? ") as info:
        _prepare(bad, 50)
    with pytest.raises(ValueError) as again:
        bad.depth_rows(engine="python")
    assert str(info.value) == str(again.value)


def test_depth_rows_checks_its_engine() -> None:
    data = simulate_lobster(20, levels=2, seed=1)
    with pytest.raises(ValueError, match="engine"):
        data.depth_rows(engine="fortran")  # type: ignore[arg-type]
