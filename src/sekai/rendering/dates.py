"""Time axes of dates: calendar-aligned ticks with date labels, and dates as plot numbers."""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.rendering.ticks import nice_step
from sekai.utils.validation import check_int

__all__ = ["date_ticks", "seconds"]

# Calendar units: year, month, day, hour, minute, second.
_Unit: TypeAlias = Literal["Y", "M", "D", "h", "m", "s"]

_EPOCH = np.datetime64(0, "s")
_DAY = 86_400.0
# Steps of each unit, shortest first, with their length in seconds (a month of 30.44 days).
_STEPS: tuple[tuple[_Unit, int, float], ...] = (
    *(("s", k, float(k)) for k in (1, 2, 5, 10, 15, 30)),
    *(("m", k, 60.0 * k) for k in (1, 2, 5, 10, 15, 30)),
    *(("h", k, 3600.0 * k) for k in (1, 2, 3, 6, 12)),
    *(("D", k, _DAY * k) for k in (1, 2, 5, 10, 15)),
    *(("M", k, 30.44 * _DAY * k) for k in (1, 2, 3, 6)),
)
_YEAR = 365.25 * _DAY
# The unit each step's labels are written to.
_LABEL_UNIT: dict[_Unit, _Unit] = {"Y": "Y", "M": "M", "D": "D", "h": "m", "m": "m", "s": "s"}


def seconds(times: ArrayLike) -> NDArray[np.float64]:
    """Datetimes as float seconds since 1970-01-01 (NaT as NaN), the numbers a plot maps."""
    values = np.asarray(times, dtype="datetime64")
    out = (values - _EPOCH) / np.timedelta64(1, "s")
    return np.asarray(out, dtype=np.float64)


def _candidates(
    low: np.datetime64, high: np.datetime64, unit: _Unit, k: int
) -> NDArray[np.datetime64]:
    """The multiples of ``k`` units inside ``[low, high]``: years counted from year 0, day
    steps of 5 or more as days 1, 1+k, ... of each month, others counted from 1970."""
    if unit == "D" and k >= 5:
        months = np.arange(
            low.astype("datetime64[M]"),
            high.astype("datetime64[M]") + np.timedelta64(1, "M"),
            dtype="datetime64[M]",
        )
        offsets = np.arange(0, 31 - k + 1, k).astype("timedelta64[D]")
        found = (months.astype("datetime64[D]")[:, None] + offsets[None, :]).ravel()
    else:
        shift = 1970 if unit == "Y" else 0
        first = (low.astype(f"datetime64[{unit}]").astype(np.int64) + shift) // k * k
        last = (high.astype(f"datetime64[{unit}]").astype(np.int64) + shift) // k * k
        found = np.arange(first - shift, last - shift + 1, k).astype(f"datetime64[{unit}]")
    return found[(found >= low) & (found <= high)]


def date_ticks(
    low: np.datetime64, high: np.datetime64, count: int = 5
) -> tuple[NDArray[np.datetime64], list[str]]:
    """Calendar-aligned ticks inside ``[low, high]`` and their labels: the finest step giving
    from 2 to ``count`` ticks (else the coarsest giving 2 or more, else the finest tried).

    Labels read ``2021`` (year steps), ``2021-03`` (months), ``2021-03-15`` (days),
    ``2021-03-15 14:30`` (hours, minutes) or ``2021-03-15 14:30:15`` (seconds); the longest
    year step is ``nice_step`` whole years. Only ``low`` (to the day, or the second when it is
    not a midnight) when ``high <= low``.
    """
    count = check_int(count, "count", low=1)
    start, end = (np.datetime64(t).astype("datetime64[s]") for t in (low, high))
    if np.isnat(start) or np.isnat(end):
        raise ValueError(f"low and high must be dates, got {low!r} and {high!r}.")
    if end <= start:
        unit: _Unit = "D" if start == start.astype("datetime64[D]") else "s"
        return np.array([start]), [_label(start, unit)]
    span = float((end - start) / np.timedelta64(1, "s"))
    longest = int(nice_step(span / _YEAR, count, integer=True))
    years = [m * 10**e for e in range(len(str(longest))) for m in (1, 2, 5)]
    steps = [*_STEPS, *(("Y", k, k * _YEAR) for k in years if k <= longest)]
    # Steps short enough to give more than 4·count ticks are not tried.
    tried = [(u, k) for u, k, length in steps if span / length <= 4 * count]
    found = [(u, _candidates(start, end, u, k)) for u, k in tried]
    ranked = [f for f in found if 2 <= f[1].size <= count] or [
        f for f in reversed(found) if f[1].size >= 2
    ]
    unit, ticks = (ranked or found)[0]
    return ticks, [_label(tick, _LABEL_UNIT[unit]) for tick in ticks]


def _label(tick: np.datetime64, unit: _Unit) -> str:
    return str(np.datetime_as_string(tick, unit=unit)).replace("T", " ")
