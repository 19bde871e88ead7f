"""A step far longer than the usual spacing is warned about once, naming its dates.

The case: a daily file with a two-month hole, which an env trades as one step with a -28 %
log return.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

import sekai
from sekai.finance.data import MarketData
from sekai.finance.data.timeaxis import gaps

pd = pytest.importorskip("pandas")


def _daily_with_a_hole() -> Any:
    dates = pd.bdate_range("2020-01-02", periods=250)
    prices = pd.Series(np.linspace(3200.0, 2400.0, 250), index=dates, name="SPX")
    hole = (dates > "2020-02-20") & (dates < "2020-04-21")
    return prices[~hole]


def test_a_two_month_hole_is_one_warning_naming_its_dates() -> None:
    series = _daily_with_a_hole()
    with pytest.warns(UserWarning, match="far longer than its usual spacing") as caught:
        data = MarketData.from_pandas(series)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "2020-02-20 -> 2020-04-21 (61 days)" in message and "1 day" in message
    row = int(np.searchsorted(data.timestamps, np.datetime64("2020-04-21")))
    assert gaps(data.timestamps).tolist() == [row]
    assert data.log_returns()[row, 0] == pytest.approx(
        np.log(series.iloc[row] / series.iloc[row - 1])
    )
    with pytest.warns(UserWarning, match="2020-02-20 -> 2020-04-21"):
        sekai.make("Trading-v0", prices=series, lookback=5, episode_length=20)


def test_copies_and_slices_of_a_read_panel_do_not_warn_again() -> None:
    with pytest.warns(UserWarning):
        data = MarketData.from_pandas(_daily_with_a_hole())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data.with_fields(volume=np.ones((data.n_steps, 1)))
        data[10:]
        data.select(["SPX"])


@pytest.mark.parametrize(
    "index",
    [
        pd.bdate_range("2001-08-01", "2001-10-31").drop(
            pd.bdate_range("2001-09-11", "2001-09-14")  # the market closed for four days
        ),
        pd.bdate_range("2020-12-01", "2021-01-29"),  # weekends and holidays
        pd.date_range("2020-01-06 09:30", periods=2000, freq="min")[
            pd.date_range("2020-01-06 09:30", periods=2000, freq="min").indexer_between_time(
                "09:30", "16:00"
            )
        ],  # minutes with nights and a weekend
        pd.date_range("2000-01-31", periods=60, freq="ME"),  # monthly
    ],
)
def test_usual_closures_and_spacings_are_no_gap(index: Any) -> None:
    series = pd.Series(np.linspace(1.0, 2.0, len(index)), index=index)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MarketData.from_pandas(series)


def test_numeric_axes_are_not_checked() -> None:
    stamps = np.array([0.0, 1.0, 2.0, 3.0, 100.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MarketData(np.ones(5), timestamps=stamps)
    assert gaps(stamps).tolist() == []


def test_more_than_three_gaps_are_counted() -> None:
    stamps = np.datetime64("2020-01-01") + np.concatenate(
        [np.arange(30), 60 + np.arange(30), 120 + np.arange(30), 180 + np.arange(30), [300]]
    )
    with pytest.warns(UserWarning, match=r"has 4 step\(s\).* and 1 more\."):
        MarketData(np.ones(len(stamps)), timestamps=stamps)


@pytest.mark.parametrize("start", ["2262-03-31", "1677-08-01", "9000-01-01"])
def test_dates_outside_the_nanosecond_range_are_measured_in_their_own_unit(start: str) -> None:
    # Nanoseconds reach from 1677-09-21 to 2262-04-11 only. The steps used to be measured in
    # them: NumPy before 2.5 wrapped around silently (gaps missed, or found in the wrong
    # place), NumPy 2.5 raises OverflowError.
    first = np.datetime64(start, "D")
    stamps = np.concatenate(
        [first + np.arange(20, dtype="timedelta64[D]"), [first + np.timedelta64(80, "D")]]
    )
    assert gaps(stamps).tolist() == [20]
    hole = f"{stamps[19]} -> {stamps[20]} (61 days)"
    with pytest.warns(UserWarning, match=re.escape(hole)):
        MarketData(np.linspace(1.0, 2.0, len(stamps)), timestamps=stamps)
