"""The compiled LOBSTER reader against the NumPy one: same arrays, same errors, any chunking."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sekai.finance.lob import LobsterData, read_lobster, simulate_lobster
from sekai.finance.lob import engine as engines

pytest.importorskip("numba")

from sekai.finance.lob.compiled import lobster_read as compiled_read

FIELDS = ("time_ns", "event", "order_id", "size", "price", "direction", "book")
BYTES = b"0123456789,-.\n\r x"


@contextlib.contextmanager
def chunked(chunk_bytes: int, workers: int) -> Iterator[None]:
    """Files of ``chunk_bytes`` or more split into ``workers`` chunks of lines."""
    with (
        mock.patch.object(compiled_read, "_CHUNK_BYTES", chunk_bytes),
        mock.patch.object(compiled_read, "_WORKERS", workers),
    ):
        yield


def outcome(paths: tuple[Path, ...], engine: str) -> LobsterData | str:
    """What ``read_lobster`` gives: the data, or the text of its ``ValueError``."""
    try:
        return read_lobster(*paths, engine=engine)  # type: ignore[arg-type]
    except ValueError as exc:
        return str(exc)


def assert_same_outcome(paths: tuple[Path, ...]) -> LobsterData | str:
    compiled, reference = outcome(paths, "numba"), outcome(paths, "numpy")
    if isinstance(reference, str):
        assert compiled == reference
        return reference
    assert isinstance(compiled, LobsterData)
    for name in FIELDS:
        got, want = getattr(compiled, name), getattr(reference, name)
        assert (got is None) == (want is None), name
        if want is not None:
            assert got.dtype == want.dtype and got.shape == want.shape, name
            np.testing.assert_array_equal(got, want, err_msg=name)
            assert not got.flags.writeable
    assert compiled.levels == reference.levels
    return compiled


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    data = simulate_lobster(300, levels=3, seed=5, hidden_rate=0.3, halt=True)
    return data.write(tmp_path_factory.mktemp("day"))


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 600),
    levels=st.integers(1, 11),
    seed=st.integers(0, 2**31),
    chunk_bytes=st.sampled_from([1, 100, 1 << 20]),
    workers=st.integers(1, 5),
)
def test_simulated_days_read_alike(
    tmp_path_factory: pytest.TempPathFactory,
    n: int,
    levels: int,
    seed: int,
    chunk_bytes: int,
    workers: int,
) -> None:
    data = simulate_lobster(n, levels=levels, seed=seed, hidden_rate=0.3, halt=seed % 2 == 0)
    paths = data.write(tmp_path_factory.mktemp("sim"))
    with chunked(chunk_bytes, workers):
        back = assert_same_outcome(paths)
        assert isinstance(back, LobsterData)
        assert_same_outcome(paths[:1])
    np.testing.assert_array_equal(back.book, data.book)
    np.testing.assert_array_equal(back.time_ns, data.time_ns)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    which=st.integers(0, 1),
    where=st.floats(0, 1, exclude_max=True),
    change=st.sampled_from(["replace", "insert", "delete"]),
    byte=st.sampled_from(list(BYTES)),
    chunk_bytes=st.sampled_from([1, 1 << 20]),
    workers=st.integers(1, 4),
)
def test_corrupted_files_read_alike(
    day: tuple[Path, Path],
    tmp_path: Path,
    which: int,
    where: float,
    change: str,
    byte: int,
    chunk_bytes: int,
    workers: int,
) -> None:
    """One byte replaced, inserted or deleted anywhere: the same arrays or the same error."""
    paths = [tmp_path / day[0].name, tmp_path / day[1].name]
    for source, target in zip(day, paths, strict=True):
        target.write_bytes(source.read_bytes())
    raw = bytearray(paths[which].read_bytes())
    k = int(where * len(raw))
    if change == "replace":
        raw[k] = byte
    elif change == "insert":
        raw.insert(k, byte)
    else:
        del raw[k]
    paths[which].write_bytes(bytes(raw))
    with chunked(chunk_bytes, workers):
        assert_same_outcome(tuple(paths))


def test_time_going_back_where_a_chunk_starts(tmp_path: Path) -> None:
    lines = [f"{34200 + k}.5,1,{k + 1},10,1000000,1" for k in range(40)]
    message = tmp_path / "message.csv"
    message.write_text("\n".join(lines) + "\n")
    with chunked(1, 2):
        data = np.memmap(message, dtype=np.uint8, mode="r")
        starts, _, firsts, rows = compiled_read._lines(np.asarray(data))
        assert len(starts) == 2 and rows == 40
        row = firsts[1]
        lines[row] = lines[row].replace(f"{34200 + row}.5", f"{34200 + row - 1}.25")
        message.write_text("\n".join(lines) + "\n")
        error = assert_same_outcome((message,))
    assert error == (
        f"message.csv, line {row + 1}, column 1 (time): expected a time >= the previous "
        f"line's {(34200 + row - 1) * 10**9 + 5 * 10**8} ns, got "
        f"{(34200 + row - 1) * 10**9 + 25 * 10**7} ns."
    )


def test_cells_past_eighteen_digits_fall_back_to_numpy(tmp_path: Path) -> None:
    message = tmp_path / "message.csv"
    message.write_text("34200.1,1,1234567890123456789,10,1000000,1\n34200.2,3,1,10,1000000,1\n")
    data = assert_same_outcome((message,))
    assert isinstance(data, LobsterData)
    assert data.order_id.tolist() == [1234567890123456789, 1]


def test_windows_line_ends_and_a_missing_final_newline(
    day: tuple[Path, Path], tmp_path: Path
) -> None:
    message, orderbook = (tmp_path / day[0].name, tmp_path / day[1].name)
    message.write_bytes(day[0].read_bytes().replace(b"\n", b"\r\n"))
    orderbook.write_bytes(day[1].read_bytes().rstrip(b"\n"))
    with chunked(1, 3):
        data = assert_same_outcome((message, orderbook))
    assert isinstance(data, LobsterData) and len(data) == 300


def test_the_numba_engine_needs_numba(
    day: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines, "numba_installed", lambda: False)
    with pytest.raises(ImportError, match="numba"):
        read_lobster(*day, engine="numba")
    assert isinstance(read_lobster(*day), LobsterData)  # auto: pyarrow or NumPy
