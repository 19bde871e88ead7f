"""Panels from pandas and polars: wide frames in their layouts, and tidy long frames.

A wide frame (index = time) is read by its columns:

* a 2-level column ``MultiIndex``, (ticker, field) or (field, ticker): the level whose values
  are all field names (``FIELDS``) holds the fields, the other the tickers (the assets, in
  first-appearance order);
* columns that are all field names: one asset with those fields (a single-ticker OHLCV frame);
* columns none of which is a field name: one asset per column, the prices;
* columns mixing field names and other names are refused.

Field names are matched ignoring case, spaces, hyphens and underscores (``"Adj Close"`` is
``adj_close``) and stored in their snake_case form; ``price_field`` may name a column that is
no field name (``price_field="Price"``), which is then the price field. A column that only
looks like a field (``LOOKALIKES``: ``"Vol."``, ``"Price"``, ``"Change %"``) is refused
rather than read as an asset. Dates written as text are read by ``dates.parse_dates``.
Polars objects are converted to pandas first (``as_pandas``); polars is never imported here.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.finance.data.dates import ReadOptions, any_dates, parse_dates
from sekai.utils.extras import missing_extra

__all__ = [
    "FIELDS",
    "LOOKALIKES",
    "TIME_NAMES",
    "as_pandas",
    "field_name",
    "from_long",
    "from_pandas",
    "is_frame",
    "is_label_index",
    "is_numeric_index",
    "layout",
    "numbers",
    "parse_times",
    "time_axis",
    "time_column",
]

P = TypeVar("P")
Layout = tuple[str, dict[str, NDArray[np.float64]], tuple[Any, ...]]

#: The field names a column header is recognised as (price, volume and quote fields).
FIELDS = (
    "open",
    "high",
    "low",
    "close",
    "adj_close",
    "volume",
    "vwap",
    "bid",
    "ask",
    "mid",
    "spread",
    "bid_size",
    "ask_size",
    "trades",
    "dividends",
    "stock_splits",
)
#: Names of a time column, matched ignoring case.
TIME_NAMES = ("date", "datetime", "time", "timestamp")
#: Column names that look like a field but are none (matched like field names, dots ignored),
#: with the field each probably is (None: a derived column, to drop).
LOOKALIKES: dict[str, str | None] = {
    "vol": "volume",
    "price": "close",
    "change": None,
    "chg": None,
    "change%": None,
    "chg%": None,
    "%": None,
    "pctchange": None,
    "pctchg": None,
}

_KEYS = {name.replace("_", ""): name for name in FIELDS}
_SEPARATORS = re.compile(r"[\s_\-]+")
_DEFAULT = ReadOptions()


def _pandas() -> Any:
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(missing_extra("This feature", "pandas", "pandas")) from exc


def _key(name: str) -> str:
    return _SEPARATORS.sub("", name.strip().lower())


def field_name(name: Any, price_field: str | None = None) -> str | None:
    """The snake_case field ``name`` stands for (``"Adj Close"`` -> ``"adj_close"``), or None.

    A ``price_field`` that is no field name is one more field (``"Price"`` -> ``"price"``).
    """
    if not isinstance(name, str):
        return None
    key = _key(name)
    known = _KEYS.get(key)
    if known is None and price_field is not None and key == _key(price_field):
        return _SEPARATORS.sub("_", price_field.strip().lower()).strip("_")
    return known


def _lookalikes(names: Iterable[Any]) -> dict[Any, str | None]:
    """The ``names`` that look like a field (``LOOKALIKES``), with the field each may be."""
    found = {}
    for name in names:
        if isinstance(name, str):
            key = _key(name).replace(".", "")
            if key in LOOKALIKES:
                found[name] = LOOKALIKES[key]
    return found


def _lookalike_error(found: dict[Any, str | None]) -> ValueError:
    renames = {name: field for name, field in found.items() if field is not None}
    drops = [name for name, field in found.items() if field is None]
    fixes = []
    if renames:
        fixes.append(f"rename them to their fields (frame.rename(columns={renames!r}))")
    if drops:
        fixes.append(f"drop the columns that are no field (frame.drop(columns={drops!r}))")
    fix = " and ".join(fixes)
    price = next((name for name, field in found.items() if field == "close"), None)
    keep = ""
    if price is not None:
        keep = f" To keep the name {price!r}, pass price_field={price!r}: it is then the price."
    return ValueError(
        f"columns {list(found)} look like fields, not assets: a frame's columns are either "
        f"assets (one price each) or the fields of one asset ({', '.join(FIELDS[:6])}, ...). "
        f"{fix[0].upper()}{fix[1:]}.{keep}"
    )


def time_column(names: Iterable[Any]) -> Any:
    """The first of ``names`` that is a time column name (``TIME_NAMES``, any case), or None."""
    for name in names:
        if isinstance(name, str) and name.strip().lower() in TIME_NAMES:
            return name
    return None


def is_frame(value: Any) -> bool:
    """Whether ``value`` is a pandas or polars Series or DataFrame."""
    module = type(value).__module__
    return module.startswith(("pandas", "polars")) and type(value).__name__ in (
        "Series",
        "DataFrame",
    )


def _dtype_name(dtype: Any) -> str:
    return dtype.__name__ if isinstance(dtype, type) else type(dtype).__name__


def _polars_values(series: Any) -> NDArray[Any]:
    if getattr(series.dtype, "time_zone", None) is not None:
        raise ValueError(
            f"polars column {series.name!r} is timezone-aware; sekai time axes are naive: "
            "use .dt.replace_time_zone(None) first."
        )
    return np.asarray(series.to_numpy())


def as_pandas(value: Any, *, index: bool = True, options: ReadOptions = _DEFAULT) -> Any:
    """A polars Series or DataFrame as pandas (other values unchanged).

    ``index=True`` makes the frame's time column its index: the first Date/Datetime column,
    else a column named like ``TIME_NAMES`` (text read by ``options``). ``index=False``
    converts every column as is.
    """
    if not type(value).__module__.startswith("polars") or not is_frame(value):
        return value
    pd = _pandas()
    if type(value).__name__ == "Series":
        return pd.Series(_polars_values(value), name=value.name or None)
    names = list(value.columns)
    if not index:
        return pd.DataFrame({name: _polars_values(value[name]) for name in names}, columns=names)
    dtypes = dict(zip(names, value.dtypes, strict=True))
    temporal = [n for n in names if _dtype_name(dtypes[n]) in ("Date", "Datetime")]
    when = temporal[0] if temporal else time_column(names)
    if when is None:
        raise ValueError(
            "a polars frame has no index: it needs a Date/Datetime column or a column named "
            f"one of {list(TIME_NAMES)} (any case); its columns are {names}."
        )
    stamps = _polars_values(value[when])
    if stamps.dtype.kind in "OUS":
        stamps = parse_dates(stamps, options, lambda row: f"polars time column {when!r}, row {row}")
    rest = [n for n in names if n != when]
    data = {name: _polars_values(value[name]) for name in rest}
    return pd.DataFrame(data, index=pd.Index(stamps, name=when), columns=rest)


def is_numeric_index(index: Any) -> bool:
    """Whether a pandas ``index`` holds numbers (ints or floats, not bools): row numbers or a
    numeric time axis rather than dates."""
    pd = _pandas()
    return bool(pd.api.types.is_numeric_dtype(index) and not pd.api.types.is_bool_dtype(index))


def is_label_index(index: Any) -> bool:
    """Whether a pandas ``index`` holds labels: one level of text (or other objects) none of
    which reads as a date."""
    pd = _pandas()
    if index.nlevels != 1 or isinstance(index, pd.DatetimeIndex) or is_numeric_index(index):
        return False
    return not any_dates(index.to_numpy(dtype=object))


def time_axis(index: Any, options: ReadOptions = _DEFAULT) -> NDArray[Any]:
    """The timestamps of a pandas index: ``datetime64[ns]`` for dates (a ``DatetimeIndex``,
    date objects, or text read by ``options``), the numbers of a numeric index.

    Refuses a timezone-aware, a multi-level, a duplicated or an unsorted index.
    """
    pd = _pandas()
    if index.nlevels > 1:
        raise ValueError(
            f"the index has {index.nlevels} levels; a long frame goes to from_long() "
            "(after reset_index()), or unstack() it to one row per time."
        )
    if isinstance(index, pd.DatetimeIndex):
        if index.tz is not None:
            raise ValueError("the price index is timezone-aware; use index.tz_convert(None) first.")
        stamps: NDArray[Any] = index.to_numpy().astype("datetime64[ns]")
    elif is_numeric_index(index):
        stamps = index.to_numpy()
    else:
        stamps = parse_dates(
            index.to_numpy(dtype=object),
            options,
            lambda row: f"the index, row {row}",
            " An index of labels, not times, is dropped with reset_index(drop=True).",
        )
    repeated = np.flatnonzero(pd.Index(stamps).duplicated())
    if len(repeated):
        first = index[repeated[0]]
        rows = np.flatnonzero(stamps == stamps[repeated[0]]).tolist()
        raise ValueError(
            f"the index has duplicate timestamps: {first} at rows {rows}; keep one row per "
            "time (e.g. frame[~frame.index.duplicated(keep='last')])."
        )
    back = np.flatnonzero(stamps[1:] < stamps[:-1])
    if len(back):
        row = int(back[0]) + 1
        raise ValueError(
            f"the index is not sorted: row {row} ({index[row]}) is earlier than row "
            f"{row - 1} ({index[row - 1]}); sort it with frame.sort_index()."
        )
    return stamps


def parse_times(
    values: NDArray[Any],
    column: Any,
    where: Callable[[int], str],
    options: ReadOptions = _DEFAULT,
) -> NDArray[Any]:
    """A time column as ``datetime64[ns]`` (dates, date text read by ``options``) or
    int64/float64 (numbers).

    A missing, unparseable or ambiguous value raises ``ValueError`` naming ``where(row)``,
    the column and the value.
    """
    kind = values.dtype.kind
    if kind in "iu":
        return values.astype(np.int64)
    if kind == "f":
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):
            raise ValueError(f"{where(int(bad[0]))}, column {column!r}: the time is missing.")
        return values.astype(np.float64)
    if kind not in "MOUS":
        raise ValueError(f"time column {column!r} has dtype {values.dtype}; expected dates.")
    return parse_dates(values, options, lambda row: f"{where(row)}, column {column!r}")


def numbers(
    frame: Any, names: list[Any], where: Callable[[int], str]
) -> dict[Any, NDArray[np.float64]]:
    """The columns ``names`` of ``frame`` as float64; a value that is no number raises
    ``ValueError`` naming ``where(row)``, the column and the value."""
    pd = _pandas()
    out = {}
    for name in names:
        column = frame[name]
        kind = column.dtype.kind if isinstance(column.dtype, np.dtype) else "O"
        if kind == "b":
            raise ValueError(f"column {name!r} holds booleans; expected numbers.")
        if kind not in "iuf":
            numbers = pd.to_numeric(column, errors="coerce")
            bad = np.flatnonzero(numbers.isna().to_numpy() & column.notna().to_numpy())
            if len(bad):
                row = int(bad[0])
                raise ValueError(
                    f"{where(row)}, column {name!r}: {column.iloc[row]!r} is not a number."
                )
            column = numbers
        out[name] = column.to_numpy(dtype=np.float64, na_value=np.nan)
    return out


def _check_numeric(frame: Any, what: str) -> None:
    pd = _pandas()
    bad = [
        f"{name!r} ({dtype})"
        for name, dtype in frame.dtypes.items()
        if not pd.api.types.is_numeric_dtype(dtype)
        or pd.api.types.is_bool_dtype(dtype)
        or getattr(dtype, "kind", "") == "c"
    ]
    if bad:
        hint = ""
        if time_column(frame.columns.get_level_values(0)) is not None:
            hint = "; set the time column as the index first (frame.set_index(...))"
        raise ValueError(
            f"{what} must be numeric: columns {', '.join(bad)} are not (expected int or float "
            f"dtypes){hint}."
        )


def _float(frame: Any) -> NDArray[np.float64]:
    values: NDArray[np.float64] = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    return values


def _price_key(price_field: str, present: Iterable[str]) -> str:
    key = field_name(price_field, price_field) or price_field
    names = list(present)
    if key not in names:
        raise ValueError(
            f"the price field {price_field!r} is not in the frame; its fields are {names} "
            "(pass price_field= to pick one)."
        )
    return key


def _multi_index(frame: Any, price_field: str) -> Layout:
    pd = _pandas()
    columns = frame.columns
    if columns.nlevels != 2:
        raise ValueError(
            f"a column MultiIndex must have 2 levels (ticker, field) or (field, ticker), "
            f"got {columns.nlevels}."
        )
    levels = [columns.get_level_values(i) for i in (0, 1)]
    is_field = [
        all(field_name(v, price_field) is not None for v in level.unique()) for level in levels
    ]
    if is_field[0] == is_field[1]:
        which = "both" if is_field[0] else "neither"
        raise ValueError(
            f"{which} column level holds only field names ({', '.join(FIELDS)}); a column "
            "MultiIndex needs one level of fields and one of tickers. Level values: "
            f"{levels[0].unique().tolist()[:8]} and {levels[1].unique().tolist()[:8]}."
        )
    f_level, t_level = (levels[0], levels[1]) if is_field[0] else (levels[1], levels[0])
    names = [field_name(v, price_field) for v in f_level]
    field_codes, field_ids = pd.factorize(pd.Index(names), sort=False)
    ticker_codes, tickers = pd.factorize(t_level, sort=False)
    pairs = field_codes * len(tickers) + ticker_codes
    if len(np.unique(pairs)) != len(pairs):
        dup = columns[pd.Index(pairs).duplicated()][0]
        raise ValueError(f"column {dup!r} appears twice (after normalising the field names).")
    _check_numeric(frame, "prices")
    values = _float(frame)
    arrays: dict[str, NDArray[np.float64]] = {}
    for code, name in enumerate(field_ids.tolist()):
        out = np.full((len(frame), len(tickers)), np.nan)
        cols = np.flatnonzero(field_codes == code)
        out[:, ticker_codes[cols]] = values[:, cols]
        arrays[name] = out
    return _price_key(price_field, arrays), arrays, tuple(tickers.tolist())


def layout(prices: Any, *, price_field: str = "close", asset: Any = None) -> Layout:
    """``(price field, (T, N) arrays by field, asset ids)`` of a pandas Series or wide frame.

    A Series is one asset (``asset``, else its name, else ``"asset_0"``); a frame is read by
    the rules of this module, ``asset`` naming the one asset of a frame of field columns.
    """
    pd = _pandas()
    if isinstance(prices, pd.Series):
        if asset is None:
            asset = "asset_0" if prices.name is None else prices.name
        _check_numeric(prices.to_frame(name=asset), "prices")
        return price_field, {price_field: _float(prices).reshape(-1, 1)}, (asset,)
    if not isinstance(prices, pd.DataFrame):
        raise TypeError(
            f"expected a pandas or polars Series or DataFrame, got {type(prices).__name__}."
        )
    columns = prices.columns
    names = columns.tolist()
    known = [field_name(c, price_field) for c in names] if columns.nlevels == 1 else []
    if any(known):
        return _field_columns(prices, names, known, price_field, asset)
    if columns.nlevels > 1:
        _no_asset(asset)
        return _multi_index(prices, price_field)
    found = _lookalikes(names)
    if found:
        raise _lookalike_error(found)
    _no_asset(asset)
    _check_numeric(prices, "prices")
    return price_field, {price_field: _float(prices)}, tuple(names)


def _no_asset(asset: Any) -> None:
    if asset is not None:
        raise ValueError(
            f"asset={asset!r} names the one asset of a Series or of a frame of field columns; "
            "this frame's columns hold several assets."
        )


def _field_columns(
    frame: Any, names: list[Any], known: list[str | None], price_field: str, asset: Any
) -> Layout:
    others = [n for n, k in zip(names, known, strict=True) if k is None]
    found = _lookalikes(others)
    if found:
        raise _lookalike_error(found)
    _check_numeric(frame, "prices")
    if others:
        fields = [n for n, k in zip(names, known, strict=True) if k is not None]
        raise ValueError(
            f"the columns mix field names {fields} with other names {others}: a frame's "
            "columns are either all assets (one price each) or all fields of one asset. "
            "Select the asset columns (frame[[...]]), pass a (ticker, field) column "
            "MultiIndex frame, or use MarketData.from_long() for one row per (time, asset)."
        )
    seen: dict[str, Any] = {}
    for name, key in zip(names, known, strict=True):
        assert key is not None
        if key in seen:
            raise ValueError(f"columns {seen[key]!r} and {name!r} are both the field {key!r}.")
        seen[key] = name
    values = _float(frame)
    arrays = {str(key): values[:, [j]] for j, key in enumerate(known)}
    return _price_key(price_field, arrays), arrays, ("asset_0" if asset is None else asset,)


def from_pandas(
    build: Callable[..., P],
    prices: Any,
    *,
    fields: Mapping[str, Any] | None = None,
    exogenous: Any = None,
    price_field: str = "close",
    asset: Any = None,
    options: ReadOptions = _DEFAULT,
) -> P:
    """``build(prices, fields=, timestamps=, assets=, exogenous=, price_field=)`` from a wide
    frame or a Series (pandas or polars), every other frame re-indexed to the price frame;
    dates written as text are read by ``options``."""
    if not is_frame(prices):
        raise TypeError(
            "from_pandas() takes a pandas or polars Series or DataFrame, got "
            f"{type(prices).__name__}."
        )
    prices = as_pandas(prices, options=options)
    timestamps = time_axis(prices.index, options)
    price, arrays, assets = layout(prices, price_field=price_field, asset=asset)
    read = (price, arrays, assets)
    return _finish(build, timestamps, read, fields, exogenous, options)


def _finish(
    build: Callable[..., P],
    timestamps: NDArray[Any],
    read: Layout,
    fields: Mapping[str, Any] | None,
    exogenous: Any,
    options: ReadOptions,
) -> P:
    """``build`` the panel of ``read``, adding ``fields`` and ``exogenous`` re-indexed to its
    ``timestamps`` (their own text dates read by ``options``)."""
    pd = _pandas()
    price, arrays, assets = read
    columns = list(assets)
    index = pd.Index(timestamps)

    def timed(obj: Any) -> Any:
        obj = as_pandas(obj, options=options)
        if isinstance(obj, (pd.Series, pd.DataFrame)) and not (
            isinstance(obj.index, pd.DatetimeIndex) or is_numeric_index(obj.index)
        ):
            obj = obj.set_axis(time_axis(obj.index, options), axis=0)
        return obj

    def values(obj: Any, what: str) -> Any:
        obj = timed(obj)
        if isinstance(obj, pd.DataFrame):
            obj = obj.reindex(index=index, columns=columns)
        elif isinstance(obj, pd.Series):
            if len(columns) != 1:
                raise ValueError(f"{what} is a Series but the prices have several columns.")
            obj = obj.reindex(index)
        else:
            return obj
        return obj.to_numpy(dtype=np.float64, na_value=np.nan)

    extra = {name: values(v, f"field {name!r}") for name, v in (fields or {}).items()}
    clash = [name for name in extra if name in arrays and name != price]
    if clash:
        raise ValueError(f"fields {clash} are given twice: as frame columns and in fields=.")
    exo: dict[str, Any] = {}
    exogenous = timed(exogenous)
    if isinstance(exogenous, pd.DataFrame):
        exogenous = {str(c): exogenous[c] for c in exogenous.columns}
    for name, series in (exogenous or {}).items():
        series = timed(series)
        if isinstance(series, (pd.Series, pd.DataFrame)):
            series = series.reindex(index).to_numpy(dtype=np.float64, na_value=np.nan)
        exo[name] = series
    arrays = dict(arrays)
    main = arrays.pop(price)
    return build(
        main,
        fields={**arrays, **extra},
        timestamps=timestamps,
        assets=assets,
        exogenous=exo,
        price_field=price,
    )


def from_long(
    build: Callable[..., P],
    frame: Any,
    *,
    time: str = "date",
    asset: str = "symbol",
    price: str = "close",
    fields: Iterable[str] = (),
    options: ReadOptions = _DEFAULT,
) -> P:
    """``from_pandas`` of the pivot of a tidy frame with one row per (time, asset); the last
    row wins, and the rows are sorted by time (text read by ``options``). Known field names
    are stored normalised."""
    pd = _pandas()
    frame = as_pandas(frame, index=False)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"from_long() takes a pandas or polars DataFrame, got {type(frame).__name__}."
        )
    extra = [fields] if isinstance(fields, str) else list(fields)
    columns = [time, asset, price, *extra]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(
            f"columns {missing} not in the frame; it has {list(frame.columns)} (name the "
            "time, asset and price columns with time=, asset= and price=)."
        )
    names = {c: field_name(c) or c for c in (price, *extra)}
    if len(set(names.values())) != len(names):
        raise ValueError(f"fields {list(names)} name the same field twice once normalised.")
    _check_numeric(frame[[price, *extra]], "long-frame fields")
    tidy = frame[columns]
    when = tidy[time]
    if not (pd.api.types.is_datetime64_any_dtype(when) or is_numeric_index(when)):
        stamps = parse_dates(
            when.to_numpy(dtype=object), options, lambda row: f"row {row}, column {time!r}"
        )
        tidy = tidy.assign(**{time: stamps})
    tidy = tidy.drop_duplicates([time, asset], keep="last")
    wide = {
        names[c]: tidy.pivot(index=time, columns=asset, values=c).sort_index()
        for c in (price, *extra)
    }
    key = names[price]
    first = wide[key]
    arrays = {name: _float(w.reindex(columns=first.columns)) for name, w in wide.items()}
    read = (key, arrays, tuple(first.columns.tolist()))
    return _finish(build, time_axis(first.index), read, None, None, options)
