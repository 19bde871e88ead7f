"""Panels from pandas: wide frames (index = time, columns = assets) and tidy long frames."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import numpy as np

from sekai.utils.extras import missing_extra

__all__ = ["from_long", "from_pandas"]

P = TypeVar("P")


def _pandas() -> Any:
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(missing_extra("This feature", "pandas", "pandas")) from exc


def from_pandas(
    build: Callable[..., P],
    prices: Any,
    *,
    fields: Mapping[str, Any] | None = None,
    exogenous: Any = None,
    price_field: str = "close",
) -> P:
    """``build(prices, fields=, timestamps=, assets=, exogenous=, price_field=)`` from a wide
    frame or a Series, every other frame re-indexed to the price frame."""
    pd = _pandas()
    if isinstance(prices, pd.Series):
        frame = prices.to_frame(name="asset_0" if prices.name is None else prices.name)
    elif isinstance(prices, pd.DataFrame):
        frame = prices
    else:
        raise TypeError(
            f"from_pandas() takes a pandas Series or DataFrame, got {type(prices).__name__}."
        )
    index = frame.index
    if isinstance(index, pd.DatetimeIndex):
        if index.tz is not None:
            raise ValueError("the price index is timezone-aware; use index.tz_convert(None) first.")
        timestamps: Any = index.to_numpy().astype("datetime64[ns]")
    else:
        timestamps = index.to_numpy()

    def values(obj: Any, what: str) -> Any:
        if isinstance(obj, pd.DataFrame):
            obj = obj.reindex(index=index, columns=frame.columns)
        elif isinstance(obj, pd.Series):
            if frame.shape[1] != 1:
                raise ValueError(f"{what} is a Series but the prices have several columns.")
            obj = obj.reindex(index)
        else:
            return obj
        return obj.to_numpy(dtype=np.float64, na_value=np.nan)

    exo: dict[str, Any] = {}
    if isinstance(exogenous, pd.DataFrame):
        exogenous = {str(c): exogenous[c] for c in exogenous.columns}
    for name, series in (exogenous or {}).items():
        if isinstance(series, (pd.Series, pd.DataFrame)):
            series = series.reindex(index).to_numpy(dtype=np.float64, na_value=np.nan)
        exo[name] = series
    return build(
        frame.to_numpy(dtype=np.float64, na_value=np.nan),
        fields={name: values(v, f"field {name!r}") for name, v in (fields or {}).items()},
        timestamps=timestamps,
        assets=tuple(frame.columns.tolist()),
        exogenous=exo,
        price_field=price_field,
    )


def from_long(
    build: Callable[..., P],
    frame: Any,
    *,
    time: str = "date",
    asset: str = "symbol",
    price: str = "close",
    fields: Iterable[str] = (),
) -> P:
    """``from_pandas`` of the pivot of a tidy frame with one row per (time, asset); the last
    row wins, and the rows are sorted by time."""
    pd = _pandas()
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"from_long() takes a pandas DataFrame, got {type(frame).__name__}.")
    extra = [fields] if isinstance(fields, str) else list(fields)
    columns = [time, asset, price, *extra]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"columns {missing} not in the frame; it has {list(frame.columns)}.")
    tidy = frame[columns].drop_duplicates([time, asset], keep="last")
    if tidy[time].dtype == object or pd.api.types.is_string_dtype(tidy[time]):
        tidy = tidy.assign(**{time: pd.to_datetime(tidy[time])})
    wide = {
        name: tidy.pivot(index=time, columns=asset, values=name).sort_index()
        for name in (price, *extra)
    }
    return from_pandas(
        build, wide[price], fields={name: wide[name] for name in extra}, price_field=price
    )
