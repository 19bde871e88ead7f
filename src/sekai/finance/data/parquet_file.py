"""The exact Parquet file of a panel: a long table with JSON metadata that restores it.

``write_parquet`` writes every field, the time axis, the asset ids, the exogenous series and
the warm-up; ``restore`` rebuilds the panel from such a file (``files.read_parquet`` calls it
when the file carries the metadata, under ``META_KEY``).
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai.utils.extras import missing_extra

__all__ = ["META_KEY", "pyarrow_modules", "restore", "write_parquet"]

P = TypeVar("P")
Array = NDArray[np.float64]

#: The key of the file's schema metadata that holds the panel's description.
META_KEY = b"sekai"
_FORMAT = "sekai.MarketData/1"
_UNITS = ("D", "s", "ms", "us", "ns")  # datetime units Parquet stores natively


def pyarrow_modules() -> tuple[Any, Any]:
    """``(pyarrow, pyarrow.parquet)``, or an ``ImportError`` naming the extra."""
    try:
        pa = importlib.import_module("pyarrow")
        pq = importlib.import_module("pyarrow.parquet")
    except ImportError as exc:
        raise ImportError(
            missing_extra("Reading and writing Parquet", "pyarrow", "parquet")
        ) from exc
    return pa, pq


def _unique_name(name: str, taken: set[str]) -> str:
    while name in taken:
        name = f"_{name}"
    taken.add(name)
    return name


def write_parquet(panel: Any, path: Any) -> None:
    """Write ``panel`` as a long table (time, asset, one column per field; rows time-major)
    with JSON metadata that ``read_parquet`` restores it from exactly."""
    pa, pq = pyarrow_modules()
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}.")
    assets = list(panel.assets)
    if all(isinstance(a, str) for a in assets):
        ids: list[Any] = [str(a) for a in assets]
        id_type = pa.string()
    elif all(
        isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in assets
    ):
        ids = [int(a) for a in assets]
        id_type = pa.int64()
    else:
        raise TypeError(
            f"to_parquet() writes str or int asset ids (all of one kind), got {assets!r}."
        )
    stamps = panel.timestamps
    n_steps, n_assets = len(stamps), len(assets)
    as_int = stamps.dtype.kind == "M" and np.datetime_data(stamps.dtype)[0] not in _UNITS
    stored = stamps.view(np.int64) if as_int else stamps
    taken: set[str] = set()
    time_col, asset_col = _unique_name("time", taken), _unique_name("asset", taken)
    fields = [[name, _unique_name(name, taken)] for name in panel.fields]
    columns = {
        time_col: pa.array(np.repeat(stored, n_assets)),
        asset_col: pa.array(np.tile(np.asarray(ids, dtype=object), n_steps), type=id_type),
    }
    for name, column in fields:
        columns[column] = pa.array(panel.fields[name].reshape(-1))
    exogenous = []
    null = np.ones(n_steps * n_assets, dtype=bool)
    null[::n_assets] = False
    for name, series in panel.exogenous.items():
        block = series.reshape(n_steps, -1)
        names = [_unique_name(f"exogenous:{name}:{k}", taken) for k in range(block.shape[1])]
        for k, column in enumerate(names):
            values = np.zeros(n_steps * n_assets)
            values[::n_assets] = block[:, k]
            columns[column] = pa.array(values, mask=null)
        exogenous.append([name, names, series.ndim])
    meta = {
        "format": _FORMAT,
        "time": [time_col, str(stamps.dtype), as_int],
        "assets": ids,
        "fields": fields,
        "exogenous": exogenous,
        "price_field": panel.price_field,
        "warmup": panel.warmup,
    }
    table = pa.table(columns).replace_schema_metadata({META_KEY: json.dumps(meta).encode()})
    pq.write_table(table, path)


def restore(build: Callable[..., P], handle: Any, raw: bytes) -> P:
    """``build`` the panel that the metadata ``raw`` of the Parquet file ``handle`` describes."""
    try:
        return _restored(build, handle, json.loads(raw))
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"not a valid sekai Parquet file ({exc})") from exc


def _restored(build: Callable[..., P], handle: Any, meta: Any) -> P:
    if meta.get("format") != _FORMAT:
        raise ValueError(f"unknown format {meta.get('format')!r}; expected {_FORMAT!r}")
    time_col, dtype, as_int = meta["time"]
    if np.dtype(dtype).kind not in "Mif":
        raise ValueError(f"time dtype {dtype!r}; expected datetime64, int64 or float64")
    assets = tuple(meta["assets"])
    fields = {str(name): str(column) for name, column in meta["fields"]}
    exo_cols = [c for _, cols, _ in meta["exogenous"] for c in cols]
    table = handle.read(columns=[time_col, *fields.values(), *exo_cols])
    n_assets = len(assets)
    if n_assets < 1 or table.num_rows % n_assets:
        raise ValueError(f"{table.num_rows} rows do not fill a panel of {n_assets} assets")
    n_steps = table.num_rows // n_assets
    times = np.asarray(table.column(time_col).to_numpy())
    stamps = times[::n_assets]
    if not np.array_equal(times, np.repeat(stamps, n_assets)):
        raise ValueError("the time column is not time-major (one run of rows per time)")
    stamps = stamps.view(dtype) if as_int else stamps.astype(dtype)

    def column(name: str) -> Array:
        return np.asarray(table.column(name).to_numpy(), dtype=np.float64)

    arrays = {name: column(c).reshape(n_steps, n_assets) for name, c in fields.items()}
    exogenous = {}
    for name, cols, ndim in meta["exogenous"]:
        block = np.stack([column(c)[::n_assets] for c in cols], axis=1)
        exogenous[str(name)] = block[:, 0] if ndim == 1 else block
    price = str(meta["price_field"])
    main = arrays.pop(price)
    return build(
        main,
        fields=arrays,
        timestamps=stamps,
        assets=assets,
        exogenous=exogenous,
        price_field=price,
        warmup=int(meta["warmup"]),
    )
