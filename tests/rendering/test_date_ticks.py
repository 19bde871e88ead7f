"""Tests for sekai.rendering.dates: calendar-aligned date ticks and dates as plot numbers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sekai.rendering.dates import date_ticks, seconds

D = np.datetime64


@pytest.mark.parametrize(
    ("low", "high", "count", "labels"),
    [
        ("2021-01-04", "2023-12-29", 5, ["2021-07", "2022-01", "2022-07", "2023-01", "2023-07"]),
        ("2021-01-04", "2021-12-29", 5, ["2021-03", "2021-05", "2021-07", "2021-09", "2021-11"]),
        (
            "2021-03-01",
            "2021-04-20",
            5,
            ["2021-03-01", "2021-03-11", "2021-03-21", "2021-04-01", "2021-04-11"],
        ),
        ("2020-06-01", "2021-05-01", 3, ["2020-07", "2021-01"]),
        ("2000-01-01", "2021-01-01", 6, ["2000", "2005", "2010", "2015", "2020"]),
        ("1900-01-01", "2021-01-01", 5, ["1900", "1950", "2000"]),
        (
            "2021-03-01T09:30",
            "2021-03-01T16:00",
            5,
            ["2021-03-01 10:00", "2021-03-01 12:00", "2021-03-01 14:00", "2021-03-01 16:00"],
        ),
        (
            "2021-03-01T09:30:00",
            "2021-03-01T09:31:10",
            4,
            ["2021-03-01 09:30:00", "2021-03-01 09:30:30", "2021-03-01 09:31:00"],
        ),
        ("2021-01-01", "2021-01-02", 1, ["2021-01-01", "2021-01-02"]),
        ("2021-03-01", "2021-03-01", 5, ["2021-03-01"]),
        ("2021-03-01T10:00", "2021-02-01", 5, ["2021-03-01 10:00:00"]),
    ],
)
def test_date_tick_examples(low: str, high: str, count: int, labels: list[str]) -> None:
    ticks, texts = date_ticks(D(low), D(high), count)
    assert texts == labels
    assert ticks.dtype.kind == "M" and ticks.shape == (len(labels),)


def test_labels_read_the_ticks() -> None:
    ticks, labels = date_ticks(D("2021-01-04"), D("2021-12-29"))
    np.testing.assert_array_equal(ticks, np.array(labels, dtype="datetime64[M]"))


@given(
    st.integers(0, 60 * 365 * 86_400),
    st.integers(60, 20 * 365 * 86_400),
    st.integers(2, 10),
)
@settings(max_examples=200, deadline=None)
def test_ticks_lie_inside_ascend_and_are_few(start: int, span: int, count: int) -> None:
    low = D(start, "s")
    high = low + np.timedelta64(span, "s")
    ticks, labels = date_ticks(low, high, count)
    # Neighbouring steps differ at most 2.5-fold, so the fallback stays near ``count``.
    assert 2 <= ticks.size <= 3 * count + 1
    assert np.all(ticks >= low) and np.all(ticks <= high)
    assert np.all(np.diff(ticks.astype(np.int64)) > 0)
    assert len(set(labels)) == len(labels) and len({len(t) for t in labels}) == 1


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="count"):
        date_ticks(D("2021-01-01"), D("2022-01-01"), 0)
    for bad in (2.5, True, "5"):
        with pytest.raises(TypeError, match="count must be an int"):
            date_ticks(D("2021-01-01"), D("2022-01-01"), bad)  # type: ignore[arg-type]
    whole = date_ticks(D("2021-01-01"), D("2022-01-01"), 5.0)  # type: ignore[arg-type]
    ticks, labels = date_ticks(D("2021-01-01"), D("2022-01-01"), 5)
    assert np.array_equal(whole[0], ticks) and whole[1] == labels
    with pytest.raises(ValueError, match="dates"):
        date_ticks(D("NaT", "D"), D("2022-01-01"))


def test_seconds_are_since_1970() -> None:
    out = seconds(np.array(["1970-01-02", "NaT"], dtype="datetime64[D]"))
    assert out[0] == 86_400.0 and np.isnan(out[1])
    assert seconds(np.array(["1970-01-01T00:00:01.5"], dtype="datetime64[ms]"))[0] == 1.5
