"""Dates written as text: ISO text as it is, day-first text read day-first or refused.

The case: an FX tick-data export whose first column reads ``01.01.2017 22:00:00.000``, day
first. Read month-first, its 12 days became the 1st of every month of 2017, without a word.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sekai.finance.data import MarketData, ReadOptions

pd = pytest.importorskip("pandas")

DAYFIRST = "%d.%m.%Y %H:%M:%S.%f"
TWELVE_DAYS = np.datetime64("2017-01-01T22:00") + np.arange(12) * np.timedelta64(1, "D")


def _fx_text(days: int = 12) -> list[str]:
    return [f"{d:02d}.01.2017 22:00:00.000" for d in range(1, days + 1)]


def _fx_csv(tmp_path: Path, days: int = 12) -> Path:
    rows = [f"{stamp},{1.05 + 0.001 * k}" for k, stamp in enumerate(_fx_text(days))]
    path = tmp_path / "EURUSD.csv"
    path.write_text("Local time,Close\n" + "\n".join(rows) + "\n")
    return path


def test_a_day_first_file_is_refused_as_ambiguous_and_read_when_told(tmp_path: Path) -> None:
    path = _fx_csv(tmp_path)
    with pytest.raises(ValueError, match="ambiguous") as caught:
        MarketData.read_csv(path, time="Local time")
    message = str(caught.value)
    assert "line 3" in message and "'02.01.2017 22:00:00.000'" in message
    assert "2017-02-01T22:00 month-first" in message and "2017-01-02T22:00 day-first" in message
    assert "dayfirst=True" in message and "date_format=" in message
    for options in ({"dayfirst": True}, {"date_format": DAYFIRST}):
        data = MarketData.read_csv(path, time="Local time", **options)
        np.testing.assert_array_equal(data.timestamps, TWELVE_DAYS.astype("datetime64[ns]"))
    month_first = MarketData.read_csv(path, time="Local time", dayfirst=False)
    assert month_first.timestamps[1] == np.datetime64("2017-02-01T22:00")


def test_a_longer_day_first_file_reads_in_the_only_order_that_fits(tmp_path: Path) -> None:
    data = MarketData.read_csv(_fx_csv(tmp_path, days=20), time="Local time")
    assert data.timestamps[12] == np.datetime64("2017-01-13T22:00")
    assert data.timestamps[-1] == np.datetime64("2017-01-20T22:00")
    us = pd.Series([1.0, 2.0, 3.0], index=["12/30/2016", "12/31/2016", "01/03/2017"])
    assert MarketData.from_pandas(us).timestamps[0] == np.datetime64("2016-12-30")


def test_iso_text_is_never_ambiguous() -> None:
    iso = pd.Series([1.0, 2.0, 3.0], index=["1999-01-04", "1999-01-05", "1999-02-01"])
    expected = np.array(["1999-01-04", "1999-01-05", "1999-02-01"], dtype="datetime64[ns]")
    for options in ({}, {"dayfirst": True}, {"dayfirst": False}):
        np.testing.assert_array_equal(MarketData.from_pandas(iso, **options).timestamps, expected)
    mixed = pd.Series([1.0, 2.0], index=["2020-01-31", "2020-01-31 16:00"])
    assert MarketData.from_pandas(mixed).timestamps[1] == np.datetime64("2020-01-31T16:00")


def test_every_reader_takes_the_options() -> None:
    text = _fx_text()
    wide = pd.Series(np.linspace(1.0, 2.0, 12), index=text)
    with pytest.raises(ValueError, match=r"the index, row 1: .*ambiguous"):
        MarketData.from_pandas(wide)
    dated = MarketData.from_pandas(wide, date_format=DAYFIRST)
    np.testing.assert_array_equal(dated.timestamps, TWELVE_DAYS.astype("datetime64[ns]"))
    fields = {"volume": pd.Series(np.arange(12.0) + 1.0, index=text)}
    with_volume = MarketData.from_pandas(wide, fields=fields, dayfirst=True)
    np.testing.assert_array_equal(with_volume.field("volume")[:, 0], np.arange(12.0) + 1.0)
    long = pd.DataFrame({"date": text * 2, "symbol": ["A"] * 12 + ["B"] * 12, "close": 1.0})
    with pytest.raises(ValueError, match=r"row 1, column 'date': .*ambiguous"):
        MarketData.from_long(long)
    from_long = MarketData.from_long(long, dayfirst=True)
    np.testing.assert_array_equal(from_long.timestamps, TWELVE_DAYS.astype("datetime64[ns]"))


def test_parquet_files_take_the_options(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "EURUSD.parquet"
    pd.DataFrame({"time": _fx_text(), "close": np.linspace(1.0, 2.0, 12)}).to_parquet(path)
    with pytest.raises(ValueError, match="ambiguous"):
        MarketData.read_parquet(path)
    data = MarketData.read_parquet(path, dayfirst=True)
    np.testing.assert_array_equal(data.timestamps, TWELVE_DAYS.astype("datetime64[ns]"))


def test_a_format_that_does_not_fit_names_the_value(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"line 2.*does not match date_format='%Y-%m-%d'"):
        MarketData.read_csv(_fx_csv(tmp_path), time="Local time", date_format="%Y-%m-%d")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"date_format": 5}, TypeError, "date_format"),
        ({"dayfirst": "yes"}, TypeError, "dayfirst"),
        ({"dayfirst": 1}, TypeError, "dayfirst"),
        ({"date_format": DAYFIRST, "dayfirst": True}, ValueError, "not both"),
    ],
)
def test_read_options_are_checked(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ReadOptions(**kwargs)
    with pytest.raises(error, match=match):
        MarketData.from_pandas(pd.Series([1.0, 2.0]), **kwargs)


def test_read_options_are_frozen_and_compare_by_value() -> None:
    options = ReadOptions(dayfirst=True)
    assert options == ReadOptions(None, True) and options != ReadOptions()
    with pytest.raises(AttributeError):
        options.dayfirst = False  # type: ignore[misc]
