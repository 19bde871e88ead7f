"""Market data: an immutable ``T x N`` panel of prices and fields on a time axis."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from sekai.finance.data import files, pandas_io
from sekai.finance.data.dates import ReadOptions
from sekai.finance.data.file_options import FileKeywords, FileOptions
from sekai.finance.data.panel_arrays import check_names, exogenous_array, field_array, freeze
from sekai.finance.data.timeaxis import check_timestamps, row_of, warn_gaps
from sekai.utils.validation import check_instance, check_int

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["MarketData"]


class MarketData:
    """An immutable ``T x N`` panel: prices plus optional fields, timestamps and exogenous series.

    A NaN price means the asset is not listed at that row.
    """

    __slots__ = (
        "_assets",
        "_exogenous",
        "_fields",
        "_periods_per_year",
        "_price_field",
        "_timestamps",
        "_warmup",
    )

    _fields: dict[str, NDArray[np.float64]]
    _timestamps: NDArray[Any]
    _assets: tuple[Any, ...]
    _exogenous: dict[str, NDArray[np.float64]]
    _price_field: str
    _warmup: int
    _periods_per_year: float | None

    def __init__(
        self,
        prices: Any = None,
        *,
        fields: Mapping[str, Any] | None = None,
        timestamps: Any = None,
        assets: Iterable[Any] | None = None,
        exogenous: Mapping[str, Any] | None = None,
        price_field: str = "close",
        warmup: int = 0,
    ) -> None:
        self._check_init(prices, fields, timestamps, assets, exogenous, price_field, warmup, 3)

    def _check_init(
        self,
        prices: Any,
        fields: Mapping[str, Any] | None,
        timestamps: Any,
        assets: Iterable[Any] | None,
        exogenous: Mapping[str, Any] | None,
        price_field: str,
        warmup: int,
        warn: int | None,
    ) -> None:
        """Check the inputs and store them; ``warn`` is the stack level of the caller that
        ``warn_gaps`` names (None: no gap warning, for a copy of a checked panel)."""
        check_instance(price_field, "price_field", str, "a string")
        fields = dict(fields or {})
        check_names(fields, "field")
        if prices is not None:
            if price_field in fields:
                raise ValueError(f"prices given twice: as `prices` and as fields[{price_field!r}].")
            fields = {price_field: prices, **fields}
        elif price_field not in fields:
            raise ValueError(f"no prices: pass `prices` or fields[{price_field!r}].")
        else:
            fields = {price_field: fields[price_field], **fields}
        arrays = {name: field_array(value, f"field {name!r}") for name, value in fields.items()}
        price = arrays[price_field]
        n_steps, n_assets = price.shape
        if n_steps < 2 or n_assets < 1:
            raise ValueError(
                f"prices must have at least 2 rows and 1 column, got shape {price.shape}."
            )
        for name, arr in arrays.items():
            if arr.shape != price.shape:
                raise ValueError(
                    f"field {name!r} has shape {arr.shape}; every field needs the price "
                    f"shape {price.shape}."
                )
        if (price <= 0).any():
            raise ValueError("prices must be > 0 (strictly positive; NaN marks an unlisted asset).")
        if timestamps is None:
            stamps: NDArray[Any] = np.arange(n_steps, dtype=np.int64)
        else:
            stamps = check_timestamps(timestamps, n_steps)
            if warn is not None:
                warn_gaps(stamps, stacklevel=warn)
        if assets is None:
            ids: tuple[Any, ...] = tuple(f"asset_{j}" for j in range(n_assets))
        else:
            if isinstance(assets, (str, bytes)) or not isinstance(assets, Iterable):
                raise TypeError(f"assets must be a sequence of ids, got {assets!r}.")
            ids = tuple(assets)
            if len(ids) != n_assets:
                raise ValueError(f"assets has {len(ids)} ids for {n_assets} columns.")
            if len(set(ids)) != n_assets:
                raise ValueError(f"assets ids must be unique, got {ids!r}.")
        exo = dict(exogenous or {})
        check_names(exo, "exogenous")
        exo_arrays = {name: exogenous_array(v, name, n_steps) for name, v in exo.items()}
        warmup = check_int(warmup, "warmup", low=0, high=n_steps)
        self._init(arrays, stamps, ids, exo_arrays, price_field, warmup)

    def _init(
        self,
        fields: dict[str, NDArray[np.float64]],
        timestamps: NDArray[Any],
        assets: tuple[Any, ...],
        exogenous: dict[str, NDArray[np.float64]],
        price_field: str,
        warmup: int,
    ) -> None:
        timestamps.setflags(write=False)
        ppy = None
        if timestamps.dtype.kind == "M":
            ends = timestamps[[0, -1]]
            if np.datetime_data(ends.dtype)[0] in ("Y", "M"):  # no fixed length in days
                ends = ends.astype("datetime64[D]")
            span_days = float((ends[1] - ends[0]) / np.timedelta64(1, "D"))
            ppy = (len(timestamps) - 1) / (span_days / 365.25)
        setter = object.__setattr__
        setter(self, "_fields", freeze(fields))
        setter(self, "_timestamps", timestamps)
        setter(self, "_assets", assets)
        setter(self, "_exogenous", freeze(exogenous))
        setter(self, "_price_field", price_field)
        setter(self, "_warmup", warmup)
        setter(self, "_periods_per_year", ppy)

    @classmethod
    def _build(
        cls,
        fields: dict[str, NDArray[np.float64]],
        timestamps: NDArray[Any],
        assets: tuple[Any, ...],
        exogenous: dict[str, NDArray[np.float64]],
        price_field: str,
        warmup: int,
    ) -> MarketData:
        """A panel from arrays that are already valid (no checks, no copies)."""
        self = cls.__new__(cls)
        self._init(fields, timestamps, assets, exogenous, price_field, warmup)
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("MarketData is immutable; use with_fields() / with_exogenous().")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("MarketData is immutable.")

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild,
            (
                {k: np.array(v) for k, v in self._fields.items()},
                np.array(self._timestamps),
                self._assets,
                {k: np.array(v) for k, v in self._exogenous.items()},
                self._price_field,
                self._warmup,
            ),
        )

    # -- properties ---------------------------------------------------------------------

    @property
    def prices(self) -> NDArray[np.float64]:
        """Prices ``(T, N)``; NaN where an asset is not listed."""
        return self._fields[self._price_field]

    @property
    def mask(self) -> NDArray[np.bool_]:
        """``isfinite(prices)``: True where the asset is listed."""
        return np.isfinite(self.prices)

    @property
    def fields(self) -> dict[str, NDArray[np.float64]]:
        """Every field by name, prices included (a new dict)."""
        return dict(self._fields)

    @property
    def exogenous(self) -> dict[str, NDArray[np.float64]]:
        """Exogenous series by name (a new dict)."""
        return dict(self._exogenous)

    @property
    def timestamps(self) -> NDArray[Any]:
        """Time axis ``(T,)``: datetime64 or numeric."""
        return self._timestamps

    @property
    def assets(self) -> tuple[Any, ...]:
        """Asset ids, one per column."""
        return self._assets

    @property
    def n_steps(self) -> int:
        """Number of rows ``T``."""
        return len(self._timestamps)

    @property
    def n_assets(self) -> int:
        """Number of columns ``N``."""
        return len(self._assets)

    @property
    def is_datetime(self) -> bool:
        """Whether the time axis holds datetimes."""
        return self._timestamps.dtype.kind == "M"

    @property
    def warmup(self) -> int:
        """Leading rows that may be observed but never traded."""
        return self._warmup

    @property
    def periods_per_year(self) -> float | None:
        """``(T-1)/(span in years)`` on datetime axes, else None."""
        return self._periods_per_year

    @property
    def price_field(self) -> str:
        """Name of the field that holds prices."""
        return self._price_field

    # -- access -------------------------------------------------------------------------

    def field(self, name: str) -> NDArray[np.float64]:
        """The ``(T, N)`` field ``name``."""
        try:
            return self._fields[name]
        except KeyError:
            raise KeyError(
                f"no field {name!r}; available fields: {sorted(self._fields)}."
            ) from None

    def exogenous_series(self, name: str) -> NDArray[np.float64]:
        """The exogenous series ``name``: ``(T,)`` or ``(T, k)``."""
        try:
            return self._exogenous[name]
        except KeyError:
            raise KeyError(
                f"no exogenous series {name!r}; available: {sorted(self._exogenous)}."
            ) from None

    def exogenous_width(self, name: str) -> int:
        """Columns of the exogenous series ``name`` (1 for a 1-D series)."""
        series = self.exogenous_series(name)
        return 1 if series.ndim == 1 else int(series.shape[1])

    def log_returns(self) -> NDArray[np.float64]:
        """``(T, N)`` log returns; row 0 and pairs with a missing price are NaN."""
        prices = self.prices
        out = np.full(prices.shape, np.nan)
        out[1:] = np.log(prices[1:] / prices[:-1])
        return out

    def index_of(self, when: Any, *, side: str = "left") -> int:
        """Row of ``when`` by the point-in-time rule of ``row_of``: an int is a row position."""
        return row_of(self._timestamps, when, side=side)

    def __len__(self) -> int:
        return len(self._timestamps)

    def __getitem__(self, key: slice) -> MarketData:
        if not isinstance(key, slice):
            raise TypeError(
                f"MarketData supports row slices only (data[a:b]), got {key!r}; use "
                "field() or select() for columns."
            )
        for bound in (key.start, key.stop, key.step):
            if bound is not None and (
                isinstance(bound, (bool, np.bool_)) or not isinstance(bound, (int, np.integer))
            ):
                raise TypeError(
                    f"MarketData slices take int row positions, got {bound!r}; use "
                    "between() to select by timestamp."
                )
        rows = range(self.n_steps)[key]
        if rows.step < 0:
            raise ValueError("MarketData slices must run forward in time (positive step).")
        warmup = len(range(rows.start, min(rows.stop, self._warmup), rows.step))
        if rows.step == 1:
            return self._rows(rows.start, rows.stop, warmup)
        return self._take(np.arange(rows.start, rows.stop, rows.step), warmup)

    def _rows(self, start: int, stop: int, warmup: int) -> MarketData:
        return self._take(slice(start, stop), warmup)

    def _take(self, index: slice | NDArray[np.intp], warmup: int) -> MarketData:
        stamps = self._timestamps[index]
        if len(stamps) < 2:
            raise ValueError(
                f"a MarketData needs at least 2 rows; this selection keeps {len(stamps)}."
            )
        return MarketData._build(
            {k: v[index] for k, v in self._fields.items()},
            stamps,
            self._assets,
            {k: v[index] for k, v in self._exogenous.items()},
            self._price_field,
            warmup,
        )

    def between(self, start: Any = None, end: Any = None) -> MarketData:
        """Rows ``[index_of(start), index_of(end))``; None means the first / past the last row."""
        first = 0 if start is None else self.index_of(start)
        stop = self.n_steps if end is None else self.index_of(end)
        return self[first:stop]

    def select(self, assets: Any) -> MarketData:
        """The columns of ``assets`` (ids, in the given order; a string is one id)."""
        ids = [assets] if isinstance(assets, str) else list(assets)
        if not ids:
            raise ValueError("select() needs at least one asset id.")
        if len(set(ids)) != len(ids):
            raise ValueError(f"select() got duplicate asset ids: {ids!r}.")
        position = {a: j for j, a in enumerate(self._assets)}
        missing = [a for a in ids if a not in position]
        if missing:
            raise KeyError(f"unknown assets {missing!r}; available: {list(self._assets)}.")
        cols = np.array([position[a] for a in ids], dtype=np.intp)
        return MarketData._build(
            {k: v[:, cols] for k, v in self._fields.items()},
            self._timestamps,
            tuple(ids),
            dict(self._exogenous),
            self._price_field,
            self._warmup,
        )

    def with_fields(self, **arrays: Any) -> MarketData:
        """A copy with fields added or replaced."""
        out = MarketData.__new__(MarketData)
        fields = {**self._fields, **arrays}
        out._check_init(
            None,
            fields,
            self._timestamps,
            self._assets,
            self._exogenous,
            self._price_field,
            self._warmup,
            None,
        )
        return out

    def with_exogenous(self, **arrays: Any) -> MarketData:
        """A copy with exogenous series added or replaced."""
        exo = {name: exogenous_array(v, name, self.n_steps) for name, v in arrays.items()}
        return MarketData._build(
            dict(self._fields),
            self._timestamps,
            self._assets,
            {**self._exogenous, **freeze(exo)},
            self._price_field,
            self._warmup,
        )

    # -- splitting ----------------------------------------------------------------------

    def _part(self, start: int, stop: int, history: int) -> MarketData:
        """Rows ``[start, stop)`` with up to ``history`` earlier rows prepended as warm-up."""
        first = max(0, start - history)
        warmup = max(start - first, min(self._warmup, stop) - first)
        return self._rows(first, stop, warmup)

    def _cut(self, boundary: Any) -> int:
        if isinstance(boundary, (float, np.floating)):
            if not 0.0 < boundary < 1.0:
                raise ValueError(
                    f"a float boundary is a fraction in (0, 1), got {boundary!r}; use "
                    "Time(x) for a numeric timestamp."
                )
            return round(float(boundary) * self.n_steps)
        return row_of(self._timestamps, boundary, what="boundary")

    def split(self, *boundaries: Any, embargo: int = 0, history: int = 0) -> list[MarketData]:
        """Consecutive parts cut at ``boundaries`` (fractions, rows or timestamps).

        Part ``i+1`` starts ``embargo`` rows after its cut and gets up to ``history`` earlier
        rows prepended as warm-up.
        """
        embargo = check_int(embargo, "embargo", low=0)
        history = check_int(history, "history", low=0)
        if not boundaries:
            raise ValueError("split() needs at least one boundary.")
        cuts = [self._cut(b) for b in boundaries]
        edges = [0, *cuts, self.n_steps]
        if any(not lo < hi for lo, hi in itertools.pairwise(edges)):
            raise ValueError(
                f"split cuts must be strictly increasing inside (0, {self.n_steps}); "
                f"{boundaries!r} gives rows {cuts}."
            )
        if cuts[0] < 2:
            raise ValueError(f"part 0 keeps {cuts[0]} rows; every part needs at least 2.")
        parts = [self._rows(0, cuts[0], min(self._warmup, cuts[0]))]
        for i, (cut, stop) in enumerate(zip(cuts, edges[2:], strict=True), start=1):
            start = cut + embargo
            if stop - start < 2:
                raise ValueError(
                    f"part {i} keeps {max(stop - start, 0)} rows (rows [{start}, {stop}) after "
                    f"an embargo of {embargo}); every part needs at least 2."
                )
            parts.append(self._part(start, stop, history))
        return parts

    def walk_forward(
        self,
        train_size: int,
        test_size: int,
        *,
        step: int | None = None,
        embargo: int = 0,
        history: int = 0,
        expanding: bool = False,
    ) -> Iterator[tuple[MarketData, MarketData]]:
        """Generator of ``(train, test)`` folds moving forward by ``step`` rows."""
        train_size = check_int(train_size, "train_size", low=2)
        test_size = check_int(test_size, "test_size", low=2)
        step = test_size if step is None else check_int(step, "step", low=1)
        embargo = check_int(embargo, "embargo", low=0)
        history = check_int(history, "history", low=0)
        return self._folds(train_size, test_size, step, embargo, history, bool(expanding))

    def _folds(
        self, train_size: int, test_size: int, step: int, embargo: int, history: int, grow: bool
    ) -> Iterator[tuple[MarketData, MarketData]]:
        start = 0
        while True:
            test_start = start + train_size + embargo
            test_stop = test_start + test_size
            if test_stop > self.n_steps:
                return
            train_first = 0 if grow else start
            train_stop = start + train_size
            train = self._rows(
                train_first, train_stop, max(0, min(self._warmup, train_stop) - train_first)
            )
            yield train, self._part(test_start, test_stop, history)
            start += step

    # -- pandas and files ---------------------------------------------------------------

    @classmethod
    def from_pandas(
        cls,
        prices: Any,
        *,
        fields: Mapping[str, Any] | None = None,
        exogenous: Any = None,
        price_field: str = "close",
        asset: Any = None,
        date_format: str | None = None,
        dayfirst: bool | None = None,
    ) -> MarketData:
        """A panel from a pandas or polars Series or wide frame (index = time).

        Columns are assets, fields of one asset (id ``asset``, default ``"asset_0"``) or a
        (ticker, field) / (field, ticker) MultiIndex; see ``sekai.finance.data.pandas_io``.
        An index of date text is read by ``date_format`` / ``dayfirst`` (``ReadOptions``).
        """
        return pandas_io.from_pandas(
            cls, prices, fields=fields, exogenous=exogenous, price_field=price_field,
            asset=asset, options=ReadOptions(date_format, dayfirst),
        )  # fmt: skip

    @classmethod
    def from_long(
        cls,
        frame: Any,
        *,
        time: str = "date",
        asset: str = "symbol",
        price: str = "close",
        fields: Iterable[str] = (),
        date_format: str | None = None,
        dayfirst: bool | None = None,
    ) -> MarketData:
        """A panel from a tidy frame with one row per (time, asset); the last row wins.
        Date text is read by ``date_format`` / ``dayfirst`` (``ReadOptions``)."""
        return pandas_io.from_long(
            cls, frame, time=time, asset=asset, price=price, fields=fields,
            options=ReadOptions(date_format, dayfirst),
        )  # fmt: skip

    @classmethod
    def read_csv(
        cls,
        source: Any,
        *,
        sep: str = ",",
        options: FileOptions | None = None,
        **keywords: Unpack[FileKeywords],
    ) -> MarketData:
        """A panel from a CSV file, a folder of them or a glob pattern.

        ``options`` (a ``FileOptions``) or its fields as keywords say how: ``layout`` is
        ``"long"`` or ``"wide"`` (default detected), ``columns`` renames headers first,
        ``time`` / ``asset`` name those columns, ``fields`` keeps only these fields,
        ``price_field`` names the prices, ``date_format`` / ``dayfirst`` read date text;
        the rules are those of ``sekai.finance.data.files``.
        """
        return files.read_csv(cls, source, sep=sep, options=options, **keywords)

    @classmethod
    def read_parquet(
        cls,
        source: Any,
        *,
        options: FileOptions | None = None,
        **keywords: Unpack[FileKeywords],
    ) -> MarketData:
        """Like ``read_csv`` for Parquet; a ``to_parquet`` file reads back exactly."""
        return files.read_parquet(cls, source, options=options, **keywords)

    def to_parquet(self, path: Any) -> None:
        """Write the panel (fields, time axis, ids, exogenous, warm-up) as one Parquet file."""
        files.write_parquet(self, path)

    def __repr__(self) -> str:
        parts = [f"T={self.n_steps}", f"N={self.n_assets}", f"fields={list(self._fields)}"]
        if self._exogenous:
            parts.append(f"exogenous={list(self._exogenous)}")
        if self._warmup:
            parts.append(f"warmup={self._warmup}")
        ends = self._timestamps[[0, -1]]
        if self.is_datetime:
            first, last = np.datetime_as_string(ends, unit="auto")
        else:
            first, last = (str(v) for v in ends.tolist())
        parts.append(f"{first} .. {last}")
        return f"MarketData({', '.join(parts)})"


def _rebuild(
    fields: dict[str, NDArray[np.float64]],
    timestamps: NDArray[Any],
    assets: tuple[Any, ...],
    exogenous: dict[str, NDArray[np.float64]],
    price_field: str,
    warmup: int,
) -> MarketData:
    return MarketData._build(fields, timestamps, assets, exogenous, price_field, warmup)
