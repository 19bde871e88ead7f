"""Panels from CSV and Parquet files.

A source is one file, a folder (its ``*.csv`` or ``*.parquet`` files, sorted) or a glob
pattern. Each file is read in one of two layouts, detected or forced with ``layout=``:

* ``"long"``: one row per (time, asset), with a time column, an asset column (named like
  ``ASSET_NAMES``, any case, or ``asset=``) and one column per field;
* ``"wide"``: a time column and either asset columns (the prices) or field columns (one
  ticker's OHLCV); the column rules are those of ``pandas_io``.

How a file is read is one ``FileOptions`` (``file_options``), or its fields as keywords.
The time column is named like ``pandas_io.TIME_NAMES`` (any case) or by ``time=``; text is
parsed as dates (``datetime64[ns]``) by the rules of ``dates`` and a ``ReadOptions``, numbers
give a numeric axis. A wide file's column of repeated text is refused as the asset column of
a long file under another name (``asset=`` names it). With several files, the
long ones are merged (a (time, asset) cell listed twice: the last file wins) and each wide
one is the file of one ticker, its stem (``AAPL.csv`` -> ``"AAPL"``); the panel spans the
union of their timestamps, NaN where an asset is not listed. A wide single-ticker file is
named after its stem too. Parquet files written by ``write_parquet`` are restored exactly
from their JSON metadata (``parquet_file``). A read gives a whole panel or raises: nothing
is half-loaded.
"""

from __future__ import annotations

import csv
import glob
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.finance.data import pandas_io
from sekai.finance.data.dates import ReadOptions
from sekai.finance.data.file_options import FileKeywords, FileOptions, file_options
from sekai.finance.data.parquet_file import META_KEY, pyarrow_modules, restore, write_parquet

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["ASSET_NAMES", "read_csv", "read_parquet", "write_parquet"]

P = TypeVar("P")
Array = NDArray[np.float64]

#: Names of an asset column in a long file, matched ignoring case.
ASSET_NAMES = ("symbol", "ticker", "asset", "asset_id", "instrument", "security")


@dataclass
class _Part:
    """One file read: ``(T, N)`` arrays by field, and which cells the file lists."""

    stamps: NDArray[Any]
    arrays: dict[str, Array]
    assets: tuple[Any, ...]
    price: str
    listed: NDArray[np.bool_]
    long: bool


def _sources(source: Any, suffixes: tuple[str, ...]) -> list[Path]:
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"expected a path, folder or glob pattern, got {type(source).__name__}.")
    text = os.fspath(source)
    if any(ch in text for ch in "*?["):
        paths = sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
        if not paths:
            raise FileNotFoundError(f"no file matches the pattern {text!r}.")
        return paths
    path = Path(text)
    if path.is_dir():
        paths = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in suffixes)
        if not paths:
            raise FileNotFoundError(f"the folder {text!r} holds no {'/'.join(suffixes)} file.")
        return paths
    if not path.is_file():
        raise FileNotFoundError(f"no such file or folder: {text!r}.")
    return [path]


def _named(names: list[Any], wanted: str | None, candidates: tuple[str, ...], what: str) -> Any:
    """The column ``wanted`` (which must exist), else the first named like ``candidates``."""
    if wanted is not None:
        if wanted not in names:
            raise ValueError(f"no {what} column {wanted!r}; the columns are {names}.")
        return wanted
    for name in names:
        if isinstance(name, str) and name.strip().lower() in candidates:
            return name
    return None


def _time_of(names: list[Any], opts: FileOptions) -> Any:
    when = _named(names, opts.time, pandas_io.TIME_NAMES, "time")
    if when is None:
        raise ValueError(
            f"no time column: expected one named {list(pandas_io.TIME_NAMES)} (any case) or "
            f"time=...; the columns are {names}."
        )
    return when


def _factorise_times(stamps: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
    if len(stamps) and (stamps[1:] >= stamps[:-1]).all():
        change = stamps[1:] != stamps[:-1]
        rows = np.concatenate([[0], np.cumsum(change)]).astype(np.intp)
        return stamps[np.concatenate([[True], change])], rows
    times, rows = np.unique(stamps, return_inverse=True)
    return times, rows.astype(np.intp)


def _pivot(
    stamps: NDArray[Any],
    codes: NDArray[np.intp],
    assets: tuple[Any, ...],
    columns: dict[Any, Array],
    price_field: str,
) -> _Part:
    """Scatter long rows into ``(T, N)`` arrays by field; of rows for one cell, the last wins."""
    keys = {name: pandas_io.field_name(name) or str(name) for name in columns}
    if len(set(keys.values())) != len(keys):
        raise ValueError(f"columns {list(columns)} name the same field twice once normalised.")
    values = {keys[name]: column for name, column in columns.items()}
    price = _price_of(values, price_field, list(columns))
    times, rows = _factorise_times(stamps)
    n_cells = len(times) * len(assets)
    flat = rows * len(assets) + codes
    counts = np.bincount(flat, minlength=n_cells)
    if len(flat) and counts.max() > 1:
        _, first_back = np.unique(flat[::-1], return_index=True)
        keep = len(flat) - 1 - first_back
        flat = flat[keep]
        values = {name: v[keep] for name, v in values.items()}
    arrays = {}
    for name, column in values.items():
        out = np.full(n_cells, np.nan)
        out[flat] = column
        arrays[name] = out.reshape(len(times), len(assets))
    listed = (counts > 0).reshape(len(times), len(assets))
    return _Part(times, arrays, assets, price, listed, True)


def _price_of(fields: Iterable[str], price_field: str, names: list[Any]) -> str:
    key = pandas_io.field_name(price_field) or price_field
    if key not in list(fields):
        raise ValueError(
            f"no price column {price_field!r}; the field columns are {names} (rename one with "
            "columns={...: 'close'} or pass price_field=)."
        )
    return key


def _wide_part(frame: Any, opts: FileOptions, stem: str) -> _Part:
    """A wide pandas frame with its time index as one ``_Part``."""
    names = frame.columns.tolist()
    asset = stem if any(pandas_io.field_name(c) for c in names) else None
    stamps = pandas_io.time_axis(frame.index, opts.dates)
    price, arrays, assets = pandas_io.layout(frame, price_field=opts.price_field, asset=asset)
    listed = np.ones((len(frame), len(assets)), dtype=bool)
    return _Part(stamps, arrays, assets, price, listed, False)


def _select(names: list[Any], opts: FileOptions, keep: list[Any]) -> list[Any]:
    """The field columns to read: ``opts.fields`` (matched normalised) or all but ``keep``."""
    rest = [n for n in names if n not in keep]
    if opts.fields is None:
        return rest
    wanted = {pandas_io.field_name(f) or f for f in opts.fields}
    chosen = [n for n in rest if (pandas_io.field_name(n) or n) in wanted]
    found = {pandas_io.field_name(n) or n for n in chosen}
    missing = sorted(wanted - found)
    if missing:
        raise ValueError(f"no columns for fields {missing}; the columns are {names}.")
    return chosen


def _is_long(names: list[Any], opts: FileOptions) -> Any:
    """The asset column of a long file, or None for a wide one."""
    column = _named(names, opts.asset, ASSET_NAMES, "asset")
    if opts.layout == "long" and column is None:
        raise ValueError(
            f"layout='long' needs an asset column named {list(ASSET_NAMES)} (any case) or "
            f"asset=...; the columns are {names}."
        )
    return None if opts.layout == "wide" else column


def _check_asset_text(frame: Any, names: list[Any]) -> None:
    """Refuse a wide file's column of text repeated over rows: the asset column of a long file
    under a name that is none of ``ASSET_NAMES``."""
    pd = pandas_io._pandas()
    for name in names:
        text = frame[name].dropna()
        if pd.api.types.is_numeric_dtype(text) or len(text) < 2:
            continue
        bad = pd.to_numeric(text, errors="coerce").isna().to_numpy()
        if bad.any() and 2 * text.nunique() <= len(text):
            raise ValueError(
                f"column {name!r} holds text repeated over rows (such as {text[bad].iloc[0]!r}), "
                "not numbers: it looks like the asset column of a long file (one row per time "
                f"and asset). Pass asset={name!r}, or rename it to one of {list(ASSET_NAMES)}."
            )


# -- CSV ------------------------------------------------------------------------------------


def _csv_rows(path: Path, sep: str) -> Iterator[tuple[int, int]]:
    """``(line, number of fields)`` of each non-blank data row (pandas skips blank lines)."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter=sep)
        next(reader, None)
        yield from ((reader.line_num, len(row)) for row in reader if row)


def _check_short_rows(path: Path, sep: str, width: int) -> None:
    for line, count in _csv_rows(path, sep):
        if count < width:
            raise ValueError(
                f"line {line} has {count} fields, the header {width} (a truncated or "
                "malformed row)."
            )


def _csv_part(path: Path, opts: FileOptions, sep: str) -> _Part:
    pd = pandas_io._pandas()
    # pandas before 3.1 parses a float's text to within a unit in the last place unless
    # asked for the round trip; 3.1 parses it exactly by default and deprecates the option.
    version = tuple(int(part) for part in pd.__version__.split(".")[:2])
    exact = {"float_precision": "round_trip"} if version < (3, 1) else {}
    try:
        frame = pd.read_csv(path, sep=sep, **exact)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"not a readable CSV file ({exc})") from exc
    if not isinstance(frame.index, pd.RangeIndex):
        raise ValueError("the rows have more fields than the header.")
    names = list(frame.columns)
    if frame.shape[0] and frame[names[-1]].isna().any():
        _check_short_rows(path, sep, len(names))
    frame = frame.rename(columns=opts.columns)
    names = list(frame.columns)

    def where(row: int) -> str:
        return f"line {next(itertools.islice(_csv_rows(path, sep), row, None))[0]}"

    when = _time_of(names, opts)
    asset = _is_long(names, opts)
    chosen = _select(names, opts, [when, asset])
    stamps = pandas_io.parse_times(frame[when].to_numpy(), when, where, opts.dates)
    if asset is None:
        _check_asset_text(frame, chosen)
    values = pandas_io.numbers(frame, chosen, where)
    if asset is None:
        wide = pd.DataFrame(values, index=pd.Index(stamps), columns=chosen)
        return _wide_part(wide, opts, path.stem)
    codes, ids = pd.factorize(frame[asset], sort=True)
    if (codes < 0).any():
        raise ValueError(f"{where(int(np.flatnonzero(codes < 0)[0]))}: no asset in {asset!r}.")
    return _pivot(stamps, codes.astype(np.intp), tuple(ids.tolist()), values, opts.price_field)


# -- Parquet --------------------------------------------------------------------------------


def _parquet_file(path: Path) -> Any:
    _, pq = pyarrow_modules()
    try:
        return pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError for broken files
        raise ValueError(f"not a readable Parquet file ({exc})") from exc


def _arrow_numbers(table: Any, names: list[Any]) -> dict[Any, Array]:
    pa, _ = pyarrow_modules()
    out = {}
    for name in names:
        column = table.column(name)
        kind = column.type
        if not (
            pa.types.is_integer(kind)
            or pa.types.is_floating(kind)
            or pa.types.is_decimal(kind)
            or pa.types.is_null(kind)
        ):
            raise ValueError(f"column {name!r} has type {kind}; expected numbers.")
        out[name] = np.asarray(column.cast(pa.float64()).to_numpy(), dtype=np.float64)
    return out


def _arrow_times(column: Any, name: str, dates: ReadOptions) -> NDArray[Any]:
    pa, _ = pyarrow_modules()
    kind = column.type
    if pa.types.is_timestamp(kind) and kind.tz is not None:
        raise ValueError(f"time column {name!r} is timezone-aware ({kind}); expected naive times.")
    if column.null_count:
        row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
        raise ValueError(f"row {row} (0-based), column {name!r}: the time is missing.")
    values = column.to_numpy()
    return pandas_io.parse_times(values, name, lambda row: f"row {row} (0-based)", dates)


def _arrow_assets(column: Any, name: str) -> tuple[NDArray[np.intp], tuple[Any, ...]]:
    pa, _ = pyarrow_modules()
    if column.null_count:
        row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
        raise ValueError(f"row {row} (0-based), column {name!r}: no asset.")
    array = column.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    encoded = array.dictionary_encode()
    ids = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
    order = np.argsort(ids, kind="stable")
    rank = np.empty(len(ids), dtype=np.intp)
    rank[order] = np.arange(len(ids))
    codes = rank[np.asarray(encoded.indices.to_numpy(zero_copy_only=False))]
    return codes, tuple(ids[order].tolist())


def _parquet_part(path: Path, opts: FileOptions) -> _Part:
    handle = _parquet_file(path)
    if META_KEY in (handle.schema_arrow.metadata or {}):
        raise ValueError("a file written by to_parquet() must be read alone.")
    table = handle.read()
    if opts.columns:
        table = table.rename_columns([opts.columns.get(n, n) for n in table.column_names])
    names = list(table.column_names)
    asset = _is_long(names, opts)
    if asset is None:
        frame = _wide_frame(table, opts)
        if frame.columns.nlevels == 1:
            _check_asset_text(frame, frame.columns.tolist())
        return _wide_part(frame, opts, path.stem)
    when = _time_of(names, opts)
    chosen = _select(names, opts, [when, asset])
    stamps = _arrow_times(table.column(when), when, opts.dates)
    codes, ids = _arrow_assets(table.column(asset), asset)
    return _pivot(stamps, codes, ids, _arrow_numbers(table, chosen), opts.price_field)


def _wide_frame(table: Any, opts: FileOptions) -> Any:
    """A wide table as a pandas frame indexed by its time (its pandas index, if saved)."""
    pd = pandas_io._pandas()
    frame = table.to_pandas()
    if not isinstance(frame.index, pd.RangeIndex) and opts.time is None:
        index = frame.index
    else:
        names = frame.columns.tolist()
        when = _time_of(names, opts)
        index = pd.Index(
            pandas_io.parse_times(
                frame[when].to_numpy(), when, lambda row: f"row {row} (0-based)", opts.dates
            )
        )
        frame = frame.drop(columns=[when])
    if frame.columns.nlevels == 1:
        frame = frame[_select(frame.columns.tolist(), opts, [])]
    return frame.set_axis(index, axis=0)


# -- assembling -----------------------------------------------------------------------------


def _merge(parts: list[_Part], paths: list[Path]) -> _Part:
    """One part over the union of the parts' timestamps and assets; later files win."""
    if len(parts) == 1:
        return parts[0]
    kinds = {p.long for p in parts}
    if len(kinds) > 1:
        raise ValueError("the files mix long and wide layouts; read them separately.")
    if not parts[0].long:
        for part, path in zip(parts, paths, strict=True):
            if len(part.assets) != 1:
                raise ValueError(
                    f"{path}: a file among several is one ticker's file, but this one has "
                    f"{len(part.assets)} asset columns {list(part.assets)}."
                )
            part.assets = (path.stem,)
        stems = [p.stem for p in paths]
        twice = sorted({s for s in stems if stems.count(s) > 1})
        if twice:
            raise ValueError(f"several files are named {twice}; each ticker needs one file.")
    if len({p.stamps.dtype.kind == "M" for p in parts}) > 1:
        raise ValueError("the files mix dated and numeric time columns.")
    stamps = np.unique(np.concatenate([p.stamps for p in parts]))
    assets = list(dict.fromkeys(a for p in parts for a in p.assets))
    if parts[0].long:
        assets = sorted(assets)
    position = {a: j for j, a in enumerate(assets)}
    names = list(dict.fromkeys(n for p in parts for n in p.arrays))
    arrays = {n: np.full((len(stamps), len(assets)), np.nan) for n in names}
    listed = np.zeros((len(stamps), len(assets)), dtype=bool)
    for part in parts:
        rows = np.searchsorted(stamps, part.stamps)
        cols = np.array([position[a] for a in part.assets], dtype=np.intp)
        for name in names:
            block = part.arrays.get(name, np.full(part.listed.shape, np.nan))
            target = arrays[name][np.ix_(rows, cols)]
            arrays[name][np.ix_(rows, cols)] = np.where(part.listed, block, target)
        listed[np.ix_(rows, cols)] |= part.listed
    return _Part(stamps, arrays, tuple(assets), parts[0].price, listed, parts[0].long)


def _read(
    build: Callable[..., P], paths: list[Path], read_one: Callable[[Path], _Part], source: Any
) -> P:
    parts = []
    for path in paths:
        try:
            parts.append(read_one(path))
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from exc
    prices = {p.price for p in parts}
    if len(prices) > 1:
        raise ValueError(f"the files name the price field differently: {sorted(prices)}.")
    try:
        part = _merge(parts, paths)
        arrays = dict(part.arrays)
        main = arrays.pop(part.price)
        return build(
            main,
            fields=arrays,
            timestamps=part.stamps,
            assets=part.assets,
            price_field=part.price,
        )
    except ValueError as exc:
        raise ValueError(f"{os.fspath(source)}: {exc}") from exc


def read_csv(
    build: Callable[..., P],
    source: Any,
    *,
    sep: str = ",",
    options: FileOptions | None = None,
    **keywords: Unpack[FileKeywords],
) -> P:
    """``build(prices, fields=, timestamps=, assets=, price_field=)`` from CSV files read by
    ``options`` and the ``FileOptions`` fields given as ``keywords``."""
    opts = file_options(options, keywords)
    paths = _sources(source, (".csv",))
    return _read(build, paths, lambda path: _csv_part(path, opts, sep), source)


def read_parquet(
    build: Callable[..., P],
    source: Any,
    *,
    options: FileOptions | None = None,
    **keywords: Unpack[FileKeywords],
) -> P:
    """Like ``read_csv`` for Parquet files; a ``write_parquet`` file is restored exactly."""
    opts = file_options(options, keywords)
    paths = _sources(source, (".parquet", ".pq"))
    if len(paths) == 1:
        try:
            handle = _parquet_file(paths[0])
            meta = (handle.schema_arrow.metadata or {}).get(META_KEY)
            if meta is not None:
                return restore(build, handle, meta)
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{paths[0]}: {exc}") from exc
    return _read(build, paths, lambda path: _parquet_part(path, opts), source)
