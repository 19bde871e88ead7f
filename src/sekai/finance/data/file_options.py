"""``FileOptions``: how the CSV and Parquet readers find a file's columns and read its dates.

``MarketData.read_csv`` and ``read_parquet`` take one ``FileOptions`` (``options=``) or its
fields as keyword arguments (``FileKeywords``); keywords given with ``options`` replace its
fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from sekai.finance.data.dates import ReadOptions
from sekai.utils.validation import check_choice

__all__ = ["FileKeywords", "FileOptions", "file_options"]


@dataclass(frozen=True)
class FileOptions:
    """How a file is read, checked once (the rules are those of ``sekai.finance.data.files``).

    ``layout`` is ``"long"`` or ``"wide"`` (None: detected), ``columns`` renames headers
    first, ``time`` / ``asset`` name those columns, ``fields`` keeps only these fields,
    ``price_field`` names the price field; ``date_format`` / ``dayfirst`` read date text, as
    ``dates`` (a ``ReadOptions``).
    """

    layout: str | None = None
    columns: Mapping[str, str] | None = field(default=None, hash=False)
    time: str | None = None
    asset: str | None = None
    fields: Iterable[str] | None = None
    price_field: str = "close"
    date_format: str | None = None
    dayfirst: bool | None = None
    dates: ReadOptions = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.layout is not None:
            check_choice(self.layout, "layout", ("long", "wide"))
        renames = dict(self.columns or {})
        for old, new in renames.items():
            if not isinstance(old, str) or not isinstance(new, str):
                raise TypeError(f"columns= maps header strings to names, got {old!r}: {new!r}.")
        for name in ("time", "asset", "price_field"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {value!r}.")
        fields = self.fields
        keep = None if fields is None else tuple([fields] if isinstance(fields, str) else fields)
        object.__setattr__(self, "columns", renames)
        object.__setattr__(self, "fields", keep)
        object.__setattr__(self, "dates", ReadOptions(self.date_format, self.dayfirst))


class FileKeywords(TypedDict, total=False):
    """The fields of ``FileOptions`` as the readers' keyword arguments."""

    layout: str | None
    columns: Mapping[str, str] | None
    time: str | None
    asset: str | None
    fields: Iterable[str] | None
    price_field: str
    date_format: str | None
    dayfirst: bool | None


_NAMES = ", ".join(FileKeywords.__annotations__)


def file_options(options: FileOptions | None, keywords: Mapping[str, Any]) -> FileOptions:
    """``options`` (default ``FileOptions()``) with the fields that ``keywords`` give replaced.

    ``options`` of another kind raises ``TypeError``, and so does an unknown keyword.
    """
    if options is None:
        options = FileOptions()
    elif not isinstance(options, FileOptions):
        raise TypeError(f"options must be a FileOptions or None, got {type(options).__name__}.")
    if not keywords:
        return options
    unknown = sorted(set(keywords) - set(FileKeywords.__annotations__))
    if unknown:
        raise TypeError(f"unexpected keyword arguments {unknown}; the readers take {_NAMES}.")
    return dataclasses.replace(options, **keywords)
