"""Dates written as text: how the readers parse them (``ReadOptions``) and the parsing.

Text that starts with a four-digit year (``2017-01-31``, ``2017-01-31 16:00``, ``2017/01/31``)
is read year, month, day. Other text is read with ``date_format`` when it is given, else in
the order ``dayfirst`` names; with neither, in the one order (day-first or month-first) that
reads every value. Text that both orders read, to different dates (``01.02.2017``: the 1st of
February or the 2nd of January), is refused as ambiguous rather than read month-first.
"""

from __future__ import annotations

import datetime as dt
import importlib
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.utils.extras import missing_extra
from sekai.utils.validation import check_bool, check_instance

__all__ = ["ReadOptions", "any_dates", "parse_dates"]

_YEAR_FIRST = re.compile(r"\s*\d{4}(\D|$)")
_EXAMPLE = "expected e.g. 2020-01-31 or 2020-01-31 16:00, or text that date_format= describes"


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """How the readers parse dates written as text (``MarketData.from_pandas``, ``from_long``,
    ``read_csv`` and ``read_parquet`` take these as keyword arguments).

    ``date_format`` is the ``strftime`` format of every value (e.g. ``"%d.%m.%Y %H:%M:%S.%f"``);
    ``dayfirst`` reads text that does not start with the year day-first (``31.01.2017``) when
    True, month-first (``01/31/2017``) when False. Left unset, text that reads as two
    different dates is refused. Give one of the two at most.
    """

    date_format: str | None = None
    dayfirst: bool | None = None

    def __post_init__(self) -> None:
        if self.date_format is not None:
            check_instance(self.date_format, "date_format", str, "a strftime format (str)")
        if self.dayfirst is not None:
            check_bool(self.dayfirst, "dayfirst")
        if self.date_format is not None and self.dayfirst is not None:
            raise ValueError(
                f"give date_format ({self.date_format!r}) or dayfirst ({self.dayfirst!r}), "
                "not both: the format already fixes the order of day and month."
            )


def _pandas() -> Any:
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(missing_extra("Reading dates", "pandas", "pandas")) from exc


def _read(values: NDArray[Any], **how: Any) -> NDArray[Any]:
    """``pandas.to_datetime(values, errors="coerce", **how)`` as an array (NaT where unread)."""
    pd = _pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        parsed = pd.to_datetime(values, errors="coerce", **how)
    if getattr(parsed, "tz", None) is not None:
        raise ValueError(
            f"the dates carry a timezone (e.g. {values[0]!r}); sekai time axes are naive: "
            "convert them first (pandas: .dt.tz_convert(None))."
        )
    return np.asarray(parsed.to_numpy()).astype("datetime64[ns]")


def _first_nat(dates: NDArray[Any]) -> int | None:
    bad = np.flatnonzero(np.isnat(dates))
    return int(bad[0]) if len(bad) else None


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _in_order(dates: NDArray[Any]) -> bool:
    return bool((dates[1:] > dates[:-1]).all())


def _ambiguous(
    values: NDArray[Any], month: NDArray[Any], day: NDArray[Any], where: Callable[[int], str]
) -> ValueError:
    row = int(np.flatnonzero(month != day)[0])
    as_month, as_day = np.datetime_as_string(np.array([month[row], day[row]]), unit="auto")
    order = ""
    if _in_order(day) != _in_order(month):
        order = f" (only the {'day' if _in_order(day) else 'month'}-first reading is in time order)"
    return ValueError(
        f"{where(row)}: {values[row]!r} reads as {as_month} month-first and as {as_day} "
        f"day-first, so these dates are ambiguous{order}. Say how to read them: "
        "dayfirst=True (31.01.2017), dayfirst=False (01/31/2017) or date_format= "
        "(e.g. '%d.%m.%Y %H:%M:%S.%f')."
    )


def any_dates(values: NDArray[Any]) -> bool:
    """Whether any of ``values`` (1-D) is a date object or date text (numbers are not)."""
    items = np.asarray(values, dtype=object).tolist()
    if any(isinstance(value, (dt.date, np.datetime64)) for value in items):
        return True
    text = np.array([value for value in items if isinstance(value, str)], dtype=object)
    return bool(len(text)) and not np.isnat(_read(text)).all()


def parse_dates(
    values: NDArray[Any], options: ReadOptions, where: Callable[[int], str], hint: str = ""
) -> NDArray[Any]:
    """Date text or date objects ``values`` (1-D) as ``datetime64[ns]``, read by ``options``.

    A missing value, a value that is no date (the message ending with ``hint``) or text that
    reads as two different dates raises ``ValueError`` naming ``where(row)``.
    """
    if values.dtype.kind == "M":
        out: NDArray[Any] = values.astype("datetime64[ns]")
    else:
        values = np.asarray(values, dtype=object)
        text = [v for v in values[:1] if isinstance(v, str)]
        if not text:
            for row, value in enumerate(values.tolist()):
                if not (_is_missing(value) or isinstance(value, (dt.date, np.datetime64))):
                    raise ValueError(f"{where(row)}: {value!r} is not a date ({_EXAMPLE}).{hint}")
            out = _read(values)
        elif options.date_format is not None:
            out = _read(values, format=options.date_format)
        elif _YEAR_FIRST.match(text[0]):
            out = _read(values, format="ISO8601")
            if _first_nat(out) is not None:
                out = _read(values, dayfirst=False)
        elif options.dayfirst is not None:
            out = _read(values, dayfirst=options.dayfirst)
        else:
            out = month = _read(values, dayfirst=False)
            day = _read(values, dayfirst=True)
            if _first_nat(month) is None and _first_nat(day) is None:
                if (month != day).any():
                    raise _ambiguous(values, month, day, where)
            elif _first_nat(day) is None:
                out = day
    bad = _first_nat(out)
    if bad is None:
        return out
    row = bad
    value = values[row]
    if _is_missing(value) or values.dtype.kind == "M":
        raise ValueError(f"{where(row)}: the time is missing.")
    if options.date_format is not None and isinstance(value, str):
        raise ValueError(
            f"{where(row)}: {value!r} does not match date_format={options.date_format!r}."
        )
    raise ValueError(f"{where(row)}: {value!r} is not a date ({_EXAMPLE}).{hint}")
