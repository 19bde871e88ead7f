"""Time axes: timestamps versus row positions, the point-in-time lookup and timestamp checks.

A dated axis with a step far longer than its usual spacing (``gaps``: over ``GAP_FACTOR``
times the median step and over ``GAP_FLOOR``, so that weekends, holidays and market closures
of daily and intraday data pass) gets one warning naming the dates (``warn_gaps``): such a
step is still one step, its return spanning the whole gap.
"""

from __future__ import annotations

import datetime as _dt
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.utils.validation import check_array, check_choice

__all__ = [
    "GAP_FACTOR",
    "GAP_FLOOR",
    "Time",
    "check_timestamps",
    "gaps",
    "naive_datetime64",
    "row_of",
    "warn_gaps",
]

_NUMBER = (int, float, np.integer, np.floating)
#: A step longer than this many median steps (and than ``GAP_FLOOR``) is a gap.
GAP_FACTOR = 5
#: The shortest gap: a week, longer than any weekend, holiday or usual market closure.
GAP_FLOOR = np.timedelta64(7, "D")
_SECOND = np.timedelta64(1, "s")
_UNITS = (("day", 86_400), ("hour", 3_600), ("minute", 60), ("second", 1))
_DATELIKE = (str, _dt.date, np.datetime64)


@dataclass(frozen=True, slots=True)
class Time:
    """A value to look up as a *timestamp*, not as a row position."""

    value: Any

    def __post_init__(self) -> None:
        if isinstance(self.value, (bool, np.bool_)) or not isinstance(
            self.value, _NUMBER + _DATELIKE
        ):
            raise TypeError(
                "Time(value) takes a number, a date string, a date/datetime or an "
                f"np.datetime64, got {self.value!r} ({type(self.value).__name__})."
            )

    def __repr__(self) -> str:
        return f"Time({self.value!r})"


def naive_datetime64(value: Any, what: str, *, unit: str | None = None) -> np.datetime64:
    """``value`` as a timezone-naive ``np.datetime64`` (tz-aware and NaT -> ``ValueError``)."""
    if isinstance(value, np.datetime64):
        out = value
    elif isinstance(value, _dt.datetime):
        if value.tzinfo is not None and value.utcoffset() is not None:
            raise ValueError(
                f"{what} {value!r} is timezone-aware; sekai time axes are naive: "
                "convert it first (e.g. .tz_convert(None) or .replace(tzinfo=None))."
            )
        convert = getattr(value, "to_datetime64", None)
        out = convert() if convert is not None else np.datetime64(value)
    elif isinstance(value, _dt.date):
        out = np.datetime64(value)
    elif isinstance(value, str):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = np.datetime64(value)
            except ValueError as exc:
                raise ValueError(
                    f"{what} {value!r} is not an ISO date/datetime string (e.g. '2020-01-31')."
                ) from exc
        if caught:
            raise ValueError(
                f"{what} {value!r} carries a timezone; sekai time axes are naive: drop the offset."
            )
    else:
        raise TypeError(
            f"{what} must be a date string, date/datetime or np.datetime64, got {value!r}."
        )
    if np.isnat(out):
        raise ValueError(f"{what} is NaT (not a time).")
    if unit is not None:
        out = out.astype(f"datetime64[{unit}]")
    return out


def row_of(
    timestamps: NDArray[Any], when: Any, *, side: str = "left", what: str = "the time"
) -> int:
    """Row named by ``when``: an int is a row position, anything else a timestamp.

    An int is a row on every axis, numeric ones included: ``-T <= when < 0`` counts from the
    end, and it is otherwise returned unchecked. A timestamp (``Time(x)``, a float on a
    numeric axis, a date-like value on a datetime axis) resolves to the first row with
    ``timestamp >= when`` (``>`` with ``side="right"``), or ``len(timestamps)`` if none.
    """
    check_choice(side, "side", ("left", "right"))
    if isinstance(when, (bool, np.bool_)):
        raise TypeError(f"{what} must be a row position or a timestamp, got the bool {when!r}.")
    if isinstance(when, (int, np.integer)):
        row = int(when)
        n_rows = len(timestamps)
        return row + n_rows if -n_rows <= row < 0 else row
    value = when.value if isinstance(when, Time) else when
    key: Any
    if timestamps.dtype.kind == "M":
        if isinstance(value, _NUMBER):
            raise ValueError(
                f"{what} {when!r} is a number but the time axis holds datetimes: pass a "
                "date string, date/datetime or np.datetime64 (a plain int is a row position)."
            )
        key = naive_datetime64(value, what)
    else:
        if isinstance(value, _DATELIKE):
            raise ValueError(
                f"{what} {when!r} is a date but the time axis is numeric: pass a float, "
                "Time(number), or an int row position."
            )
        if isinstance(when, Time) or isinstance(value, (float, np.floating)):
            key = value
        else:
            raise TypeError(
                f"{what} must be an int row, a timestamp or Time(...), got {when!r} "
                f"({type(when).__name__})."
            )
        if isinstance(key, (float, np.floating)) and not np.isfinite(key):
            raise ValueError(f"{what} must be a finite timestamp, got {when!r}.")
    return int(np.searchsorted(timestamps, key, side=side))  # type: ignore[call-overload]


def _datetimes(arr: NDArray[Any]) -> NDArray[np.datetime64]:
    """Strings or objects as ``datetime64[ns]``; unparsable or tz-aware values -> ``ValueError``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = arr.astype("datetime64[ns]")
        except (TypeError, ValueError) as exc:
            if arr.dtype.kind == "O" and any(
                isinstance(v, _dt.datetime) and v.tzinfo is not None for v in arr.ravel()
            ):
                raise ValueError("timestamps are timezone-aware; use naive times.") from exc
            raise ValueError(
                "timestamps must be datetimes (or ISO strings) or numbers, "
                f"got values such as {arr.ravel()[:1]!r}."
            ) from exc
    if caught:
        raise ValueError("timestamps are timezone-aware; use naive times.")
    return out


def check_timestamps(value: Any, length: int) -> NDArray[Any]:
    """A new strictly increasing ``(length,)`` time axis: datetime64, int64 or float64.

    Strings and objects become ``datetime64[ns]``; timezone-aware values, NaT and non-finite
    numbers are refused.
    """
    if getattr(value, "tz", None) is not None or getattr(getattr(value, "dt", None), "tz", None):
        raise ValueError("timestamps are timezone-aware; convert them to naive times first.")
    arr = check_array(value, "timestamps", dtype_kind="MiufUSO")
    if arr.dtype.kind in "USO":
        arr = _datetimes(arr)
    elif arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "f":
        arr = arr.astype(np.float64)
    else:
        arr = arr.copy()
    if arr.shape != (length,):
        raise ValueError(f"timestamps must have shape ({length},), got {arr.shape}.")
    if arr.dtype.kind == "M":
        if np.isnat(arr).any():
            raise ValueError("timestamps contain NaT.")
    elif arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError("timestamps contain NaN or inf.")
    if length > 1 and not (arr[1:] > arr[:-1]).all():
        raise ValueError("timestamps must be strictly increasing.")
    return arr


def gaps(timestamps: NDArray[Any]) -> NDArray[np.intp]:
    """Rows ``i`` of a datetime axis whose step from row ``i - 1`` is a gap: longer than
    ``GAP_FACTOR`` median steps and than ``GAP_FLOOR`` (none on numeric axes)."""
    if timestamps.dtype.kind != "M" or len(timestamps) < 3:
        return np.zeros(0, dtype=np.intp)
    steps = _steps(timestamps)
    limit = max(GAP_FACTOR * float(np.median(steps)), float(GAP_FLOOR / _SECOND))
    return np.flatnonzero(steps > limit) + 1


def _steps(timestamps: NDArray[Any]) -> NDArray[np.float64]:
    """The steps of a datetime axis in float seconds, measured in the axis's own unit (in
    nanoseconds, dates outside the years 1677-2262 overflow); months and years as days."""
    unit, _ = np.datetime_data(timestamps.dtype)
    linear = timestamps.astype("datetime64[D]") if unit in ("Y", "M") else timestamps
    return np.asarray(np.diff(linear) / _SECOND, dtype=np.float64)


def _duration(seconds: float) -> str:
    for name, size in _UNITS:
        if seconds >= size or size == 1:
            count = seconds / size
            text = f"{count:.0f}" if count == round(count) else f"{count:.3g}"
            return f"{text} {name}{'' if text == '1' else 's'}"
    raise AssertionError("unreachable: the last unit takes every duration")


def warn_gaps(timestamps: NDArray[Any], *, stacklevel: int = 2) -> None:
    """One ``UserWarning`` naming the ``gaps`` of ``timestamps`` (the first three), if any."""
    rows = gaps(timestamps)
    if not len(rows):
        return
    steps = _steps(timestamps)
    usual = _duration(float(np.median(steps)))
    named = [
        f"{np.datetime_as_string(timestamps[i - 1], unit='auto')} -> "
        f"{np.datetime_as_string(timestamps[i], unit='auto')} ({_duration(float(steps[i - 1]))})"
        for i in rows[:3]
    ]
    more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
    warnings.warn(
        f"the time axis has {len(rows)} step(s) far longer than its usual spacing of {usual} "
        f"(over {GAP_FACTOR}x that, and over a week): {', '.join(named)}{more}. Each is one "
        "step whose return spans the whole gap; fill the missing rows or cut the data around "
        "them (data.between(...)) if that is not what you want.",
        UserWarning,
        stacklevel=stacklevel + 1,
    )
