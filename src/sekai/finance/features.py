"""Causal feature transforms: the output at row ``t`` depends only on rows ``<= t``.

Inputs are ``(T,)`` or ``(T, N)`` arrays with NaN marking missing values (``+/-inf`` is refused);
outputs are new float64 arrays of the input's shape.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sekai.error import LookAheadError
from sekai.finance.data.panel_arrays import float_array
from sekai.utils.validation import check_array, check_int, check_real

__all__ = [
    "log_returns",
    "simple_returns",
    "momentum",
    "lag",
    "forward_fill",
    "rolling_mean",
    "rolling_std",
    "rolling_zscore",
    "ewm_mean",
    "ewm_std",
    "realized_volatility",
    "cross_sectional_zscore",
    "cross_sectional_rank",
    "asof_join",
    "check_causal",
]

Array = NDArray[np.float64]


def _data(x: ArrayLike, name: str) -> Array:
    """A float64 copy of a 1-D or 2-D input without infinities."""
    arr = float_array(x, name)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D (T,) or 2-D (T, N), got shape {arr.shape}.")
    if np.isinf(arr).any():
        raise ValueError(f"{name} contains +/-inf; use NaN for missing values.")
    return arr


def _panel(x: ArrayLike, name: str = "x") -> tuple[Array, tuple[int, ...]]:
    """The input as a ``(T, N)`` copy, and its original shape."""
    arr = _data(x, name)
    return (arr[:, None] if arr.ndim == 1 else arr), arr.shape


def _cross_section(x: ArrayLike) -> Array:
    arr = _data(x, "x")
    if arr.ndim != 2:
        raise ValueError(f"x must be 2-D (T, N) for a cross-sectional transform, got {arr.shape}.")
    return arr


def _positive(value: Any, name: str) -> float:
    return check_real(value, name, low=0.0, low_open=True)


def _min_periods(value: int | None, window: int) -> int:
    """A rolling ``min_periods`` in ``[1, window]`` (None: ``window``)."""
    return window if value is None else check_int(value, "min_periods", low=1, high=window)


def _ratios(prices: ArrayLike, periods: int) -> tuple[Array, Array, tuple[int, ...]]:
    """``P_t / P_{t-periods}`` (NaN where undefined or either price is missing or <= 0), the
    mask of the defined entries, and the input shape."""
    p, shape = _panel(prices, "prices")
    ratio = np.full_like(p, np.nan)
    ok = np.zeros(p.shape, dtype=bool)
    if periods < p.shape[0]:
        now, before = p[periods:], p[:-periods]
        ok[periods:] = (now > 0) & (before > 0)
        ratio[ok] = now[ok[periods:]] / before[ok[periods:]]
    return ratio, ok, shape


def _last_valid_row(x: Array) -> NDArray[np.intp]:
    """Row of the latest non-NaN value at or before each row (``-1`` if none)."""
    rows = np.arange(x.shape[0])[:, None]
    return np.maximum.accumulate(np.where(np.isnan(x), -1, rows), axis=0)


def _carry(x: Array, last: NDArray[np.intp]) -> Array:
    out = np.take_along_axis(x, np.maximum(last, 0), axis=0)
    out[last < 0] = np.nan
    return out


def _trailing_sum(a: Array, window: int) -> Array:
    """Sum of each row and the ``window - 1`` rows before it (``a`` without NaN).

    Prefix sums restart every ``window`` rows, so the rounding error stays that of summing one
    window instead of growing with ``T``.
    """
    T, N = a.shape
    if window >= T:
        return np.cumsum(a, axis=0)
    blocks = -(-T // window)
    padded = np.zeros((blocks * window, N))
    padded[:T] = a
    prefix = padded.reshape(blocks, window, N).cumsum(axis=1).reshape(blocks * window, N)[:T]
    out = prefix.copy()
    rows = np.arange(window, T)
    rows = rows[(rows + 1) % window != 0]  # windows reaching back into the previous block
    block_start = rows - rows % window
    out[rows] += prefix[block_start - 1] - prefix[rows - window]
    return out


def _window_spread(x: Array, window: int) -> tuple[Array, Array, Array]:
    """Valid count, shifted mean and sum of squared deviations of each trailing window.

    Two passes over the values minus the row's last valid value ``K``, so a constant window
    gives exactly 0; the mean is returned as ``mean - K`` (``K = x_t`` when ``x_t`` is valid).
    """
    T = x.shape[0]
    valid = ~np.isnan(x)
    shift = _carry(x, _last_valid_row(x))
    count = _trailing_sum(valid.astype(np.float64), window)
    total = np.zeros_like(x)
    squares = np.zeros_like(x)
    buffer = np.empty_like(x)
    for k in range(min(window, T)):
        d = np.subtract(x[: T - k], shift[k:], out=buffer[k:])
        np.add(total[k:], d, out=total[k:], where=valid[: T - k])
    centre = np.divide(total, count, out=np.zeros_like(x), where=count > 0)
    for k in range(min(window, T)):
        d = np.subtract(x[: T - k], shift[k:], out=buffer[k:])
        d -= centre[k:]
        d *= d
        np.add(squares[k:], d, out=squares[k:], where=valid[: T - k])
    return count, centre, squares


def _ewm(x: Array, halflife: Any) -> tuple[Array, Array]:
    """Exponentially weighted mean and variance states after each row (NaN rows keep them)."""
    alpha = 1.0 - math.exp(math.log(0.5) / _positive(halflife, "halflife"))
    valid = ~np.isnan(x)
    mean = np.full(x.shape[1], np.nan)
    var = np.zeros(x.shape[1])
    means = np.empty_like(x)
    variances = np.empty_like(x)
    for t in range(x.shape[0]):
        row, ok = x[t], valid[t]
        base = np.where(np.isnan(mean), row, mean)  # the first valid value starts the state
        d = row - base
        mean = np.where(ok, base + alpha * d, mean)
        var = np.where(ok, (1.0 - alpha) * (var + alpha * d * d), var)
        means[t] = mean
        variances[t] = var
    return means, variances


def _emitting(x: Array, min_periods: int) -> NDArray[np.bool_]:
    """Valid rows preceded (inclusive) by at least ``min_periods`` valid values."""
    valid = ~np.isnan(x)
    return valid & (np.cumsum(valid, axis=0) >= check_int(min_periods, "min_periods", low=0))


def log_returns(prices: ArrayLike) -> Array:
    """``log(P_t / P_{t-1})``; row 0 and pairs with a missing or non-positive price are NaN."""
    return momentum(prices, 1)


def simple_returns(prices: ArrayLike) -> Array:
    """``P_t / P_{t-1} - 1``; row 0 and pairs with a missing or non-positive price are NaN."""
    ratio, _, shape = _ratios(prices, 1)
    return (ratio - 1.0).reshape(shape)


def momentum(prices: ArrayLike, window: int) -> Array:
    """``log(P_t / P_{t-window})`` (``window >= 1``); NaN for the first ``window`` rows and
    for pairs with a missing or non-positive price."""
    ratio, ok, shape = _ratios(prices, check_int(window, "window", low=1))
    ratio[ok] = np.log(ratio[ok])
    return ratio.reshape(shape)


def lag(x: ArrayLike, periods: int = 1) -> Array:
    """``x`` shifted down by ``periods >= 0`` rows; the leading rows are NaN."""
    arr, shape = _panel(x)
    periods = check_int(periods, "periods", low=0)
    out = np.full_like(arr, np.nan)
    if periods < arr.shape[0]:
        out[periods:] = arr[: arr.shape[0] - periods]
    return out.reshape(shape)


def forward_fill(x: ArrayLike, *, limit: int | None = None) -> Array:
    """Missing values replaced by the last valid value, at most ``limit`` rows in a row
    (``None``: no limit, 0: none); leading NaNs stay."""
    arr, shape = _panel(x)
    last = _last_valid_row(arr)
    out = _carry(arr, last)
    if limit is not None:
        limit = check_int(limit, "limit", low=0)
        out[np.arange(arr.shape[0])[:, None] - last > limit] = np.nan
    return out.reshape(shape)


def rolling_mean(x: ArrayLike, window: int, *, min_periods: int | None = None) -> Array:
    """Mean of the valid values among the last ``window`` rows; NaN with fewer than
    ``min_periods`` (default ``window``) of them, as pandas' ``rolling(...).mean()``."""
    arr, shape = _panel(x)
    window = check_int(window, "window", low=1)
    periods = _min_periods(min_periods, window)
    valid = ~np.isnan(arr)
    count = _trailing_sum(valid.astype(np.float64), window)
    total = _trailing_sum(np.where(valid, arr, 0.0), window)
    out = np.full_like(arr, np.nan)
    ok = count >= periods
    out[ok] = total[ok] / count[ok]
    return out.reshape(shape)


def rolling_std(
    x: ArrayLike, window: int, *, min_periods: int | None = None, ddof: int = 1
) -> Array:
    """Standard deviation (divisor ``n_valid - ddof``) of the valid values among the last
    ``window`` rows; NaN with fewer than ``max(min_periods, ddof + 1)`` of them."""
    arr, shape = _panel(x)
    window = check_int(window, "window", low=1)
    periods = _min_periods(min_periods, window)
    ddof = check_int(ddof, "ddof", low=0)
    count, _, squares = _window_spread(arr, window)
    out = np.full_like(arr, np.nan)
    ok = count >= max(periods, ddof + 1)
    out[ok] = np.sqrt(squares[ok] / (count[ok] - ddof))
    return out.reshape(shape)


def rolling_zscore(x: ArrayLike, window: int, *, min_periods: int | None = None) -> Array:
    """``(x_t - mean) / std`` over the last ``window`` rows including ``x_t`` (ddof 1, at least
    ``max(min_periods, 2)`` valid values); NaN where ``x_t`` is, 0 where the std is 0."""
    arr, shape = _panel(x)
    window = check_int(window, "window", low=1)
    periods = _min_periods(min_periods, window)
    count, centre, squares = _window_spread(arr, window)
    out = np.full_like(arr, np.nan)
    ok = (count >= max(periods, 2)) & ~np.isnan(arr)
    std = np.sqrt(squares[ok] / (count[ok] - 1.0))
    # x_t is the shift of its own window, so x_t - mean is exactly -centre.
    out[ok] = np.divide(-centre[ok], std, out=np.zeros_like(std), where=std > 0)
    return out.reshape(shape)


def ewm_mean(x: ArrayLike, halflife: float, *, min_periods: int = 1) -> Array:
    """Exponentially weighted mean, ``m <- m + alpha (x - m)`` with
    ``alpha = 1 - exp(log 0.5 / halflife)``, as pandas' ``ewm(adjust=False, ignore_na=True)``.

    It starts at the first valid value; a NaN leaves the state and gives NaN; values are
    emitted from the ``min_periods``-th valid value on.
    """
    arr, shape = _panel(x)
    emit = _emitting(arr, min_periods)
    means, _ = _ewm(arr, halflife)
    return np.where(emit, means, np.nan).reshape(shape)


def ewm_std(x: ArrayLike, halflife: float, *, min_periods: int = 2) -> Array:
    """Exponentially weighted std: with ``d = x - m``, ``v <- (1 - alpha)(v + alpha d^2)``,
    ``m <- m + alpha d``, output ``sqrt(v)``; NaN handling as in :func:`ewm_mean`."""
    arr, shape = _panel(x)
    emit = _emitting(arr, min_periods)
    _, variances = _ewm(arr, halflife)
    return np.where(emit, np.sqrt(variances), np.nan).reshape(shape)


def realized_volatility(
    returns: ArrayLike, window: int, *, periods_per_year: float | None = None
) -> Array:
    """``rolling_std(returns, window)`` (full window, ddof 1), times ``sqrt(periods_per_year)``
    when given."""
    scale = 1.0 if periods_per_year is None else _positive(periods_per_year, "periods_per_year")
    return rolling_std(returns, window) * math.sqrt(scale)


def cross_sectional_zscore(x: ArrayLike) -> Array:
    """Per row ``(x - mean) / std`` over the valid entries (population std); rows with fewer
    than 2 valid entries are NaN, constant rows 0."""
    arr = _cross_section(x)
    if arr.size == 0:
        return arr
    valid = ~np.isnan(arr)
    count = valid.sum(axis=1, keepdims=True)
    # Shifting by a value of the row makes a constant row exactly 0.
    dev = arr - arr[np.arange(arr.shape[0]), valid.argmax(axis=1)][:, None]
    dev -= np.where(valid, dev, 0.0).sum(axis=1, keepdims=True) / np.maximum(count, 1)
    std = np.sqrt(np.where(valid, dev * dev, 0.0).sum(axis=1, keepdims=True) / np.maximum(count, 1))
    out = np.divide(dev, std, out=np.zeros_like(arr), where=std > 0)
    out[~valid | (count < 2)] = np.nan
    return out


def cross_sectional_rank(x: ArrayLike) -> Array:
    """Per row average 1-based rank among the valid entries, scaled to
    ``(rank - 1) / (n_valid - 1)``; a single valid entry gives 0.5; NaN stays NaN."""
    arr = _cross_section(x)
    if arr.size == 0:
        return arr
    T, N = arr.shape
    order = np.argsort(arr, axis=1, kind="stable")  # NaN sorts last
    ordered = np.take_along_axis(arr, order, axis=1)
    position = np.broadcast_to(np.arange(N), (T, N))
    starts = np.ones((T, N), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ends = np.ones((T, N), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, position, N - 1)[:, ::-1], axis=1)[:, ::-1]
    count = (~np.isnan(arr)).sum(axis=1, keepdims=True)
    scaled = np.divide((first + last) / 2.0, count - 1.0, out=np.full((T, N), 0.5), where=count > 1)
    out = np.empty_like(arr)
    np.put_along_axis(out, order, scaled, axis=1)
    out[np.isnan(arr)] = np.nan
    return out


def _times(value: ArrayLike, name: str) -> NDArray[Any]:
    arr = check_array(value, name, dtype_kind="Miuf", ndim=1)
    if arr.dtype.kind == "M":
        if np.isnat(arr).any():
            raise ValueError(f"{name} contains NaT.")
    elif not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or inf.")
    if (arr[1:] < arr[:-1]).any():
        raise ValueError(f"{name} must be sorted ascending.")
    return arr


def _time_lag(value: Any, dates: bool) -> Any:
    """``lag`` as a non-negative ``np.timedelta64`` (datetime axes) or finite number."""
    if dates:
        if not isinstance(value, (np.timedelta64, _dt.timedelta)):
            raise TypeError(
                f"lag must be an np.timedelta64 or datetime.timedelta for datetime times, "
                f"got {value!r}."
            )
        convert = getattr(value, "to_timedelta64", None)
        out = convert() if convert is not None else np.timedelta64(value)
        if np.isnat(out):
            raise ValueError("lag is NaT.")
        if out.astype(np.int64) < 0:  # the sign of the count, in any unit
            raise ValueError(f"lag must be >= 0, got {value!r}.")
        return out
    if isinstance(value, np.timedelta64):
        raise TypeError(f"lag must be a number for numeric times, got {value!r}.")
    check_real(value, "lag", low=0.0)
    return value  # an int lag keeps integer times exact


def asof_join(
    target_times: ArrayLike,
    event_times: ArrayLike,
    values: ArrayLike,
    *,
    lag: float | np.timedelta64 | _dt.timedelta | None = None,
) -> Array:
    """For each target time, the value of the latest event with ``event_time + lag <= time``
    (among equal times the later row wins); NaN before any event.

    ``values`` is ``(E,)`` or ``(E, k)``; the result is ``(len(target_times),)`` or
    ``(len(target_times), k)``.
    """
    target = _times(target_times, "target_times")
    events = _times(event_times, "event_times")
    dates = target.dtype.kind == "M"
    if dates != (events.dtype.kind == "M"):
        raise ValueError(
            "target_times and event_times must both be datetime64 or both numeric, got "
            f"{target.dtype} and {events.dtype}."
        )
    vals = _data(values, "values")
    if vals.shape[0] != events.shape[0]:
        raise ValueError(
            f"values must have one row per event ({events.shape[0]}), got shape {vals.shape}."
        )
    if lag is not None:
        events = events + _time_lag(lag, dates)
    common = np.promote_types(events.dtype, target.dtype)
    rows = np.searchsorted(events.astype(common), target.astype(common), side="right") - 1
    out = np.full((target.shape[0], *vals.shape[1:]), np.nan)
    found = rows >= 0
    out[found] = vals[rows[found]]
    return out


class _Perturber:
    """The perturbed copies of ``x`` that ``check_causal`` passes to ``fn``, drawn from ``rng``.

    A copy keeps the rows up to its cut and changes only those after it. ``kinds`` lists the
    copies each cut gets: ``"rescaled"`` (each value times ``exp(N(0, 0.1))``) and
    ``"reordered"`` (the rows in another order) always, ``"signs"`` (random signs, Gaussian
    noise and zeros at the data's zero rate) for data with negatives or zeros, and ``"nans"``
    (the NaNs filled with observed values, new NaNs at the data's NaN rate) for data with NaNs.
    """

    def __init__(self, x: Array, rng: np.random.Generator) -> None:
        self.x = x
        self.rng = rng
        self.finite = x[np.isfinite(x)]
        self.missing = float(np.isnan(x).mean())
        signed = bool((self.finite <= 0).any())
        self.zeros = float(np.mean(self.finite == 0)) if signed else 0.0
        self.scale = (float(self.finite.std()) or 1.0) if signed else 1.0
        kinds = ["rescaled", "reordered"]
        if signed:
            kinds.append("signs")
        if self.missing:
            kinds.append("nans")
        self.kinds = tuple(kinds)

    def copy(self, cut: int, kind: str) -> Array:
        """A new copy of ``x`` whose rows after ``cut`` are changed as ``kind`` says."""
        x, rng = self.x, self.rng
        out = x.copy()
        tail = out[cut + 1 :]
        if kind == "rescaled":
            tail *= np.exp(rng.normal(0.0, 0.1, tail.shape))
        elif kind == "reordered":
            order = rng.permutation(tail.shape[0])
            if order.size > 1 and (order == np.arange(order.size)).all():
                order = np.roll(order, 1)
            tail[:] = x[cut + 1 :][order]
        elif kind == "signs":
            tail *= rng.choice([-1.0, 1.0], tail.shape)
            tail += rng.normal(0.0, self.scale, tail.shape)
            tail[(rng.random(tail.shape) < self.zeros) & ~np.isnan(tail)] = 0.0
        else:
            holes = np.isnan(tail)
            count = int(holes.sum())
            if self.finite.size:
                tail[holes] = rng.choice(self.finite, count)
            else:
                tail[holes] = rng.standard_normal(count)
            tail[rng.random(tail.shape) < self.missing] = np.nan
        return out


def check_causal(
    fn: Callable[[Array], ArrayLike],
    x: ArrayLike,
    *,
    n_checks: int = 5,
    rng: np.random.Generator | None = None,
    rtol: float = 0.0,
    atol: float = 0.0,
) -> None:
    """Raise :class:`~sekai.error.LookAheadError` if ``fn(x)`` at some row uses later rows.

    Checks cut 0 and ``n_checks`` random cuts in ``[1, T - 2]`` (all of them when
    ``n_checks >= T - 2``), in increasing order. At each cut ``fn`` gets perturbed copies of
    ``x`` that differ only after the cut: one rescaled and one reordered, one with moved signs
    and zeros if ``x`` has negatives or zeros, and one with another NaN pattern if ``x`` has
    NaNs; ``fn`` is called once on ``x`` before them. Every output must have the shape of the
    first (else ``LookAheadError`` naming both shapes) and equal it up to the cut (``isclose``
    with ``rtol``/``atol``, NaN equal to NaN). ``x`` needs ``T >= 3`` rows, checked first.
    """
    arr = float_array(x, "x")
    if arr.ndim and arr.shape[0] < 3:
        raise ValueError(f"x needs at least 3 rows to be checked, got {arr.shape[0]}.")
    if arr.ndim not in (1, 2):
        raise ValueError(f"x must be 1-D (T,) or 2-D (T, N), got shape {arr.shape}.")
    T = arr.shape[0]
    n_checks = check_int(n_checks, "n_checks", low=1)
    rtol, atol = check_real(rtol, "rtol", low=0.0), check_real(atol, "atol", low=0.0)
    if rng is None:
        rng = np.random.default_rng(0)
    elif not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator or None, got {rng!r}.")
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}.")
    name = getattr(fn, "__name__", repr(fn))
    expected = np.array(fn(arr.copy()))
    if expected.ndim == 0 or expected.shape[0] != T:
        raise ValueError(
            f"{name} must return an array with {T} rows (axis 0), got shape {expected.shape}."
        )
    candidates = np.arange(1, T - 1)
    if n_checks < candidates.size:
        candidates = np.sort(rng.choice(candidates, n_checks, replace=False))
    perturber = _Perturber(arr, rng)
    for cut in (0, *candidates.tolist()):
        for kind in perturber.kinds:
            got = np.array(fn(perturber.copy(cut, kind)))
            if got.shape != expected.shape:
                raise LookAheadError(
                    f"{name} looks ahead: its output shape changed from {expected.shape} to "
                    f"{got.shape} when the rows after cut {cut} were perturbed."
                )
            same = np.isclose(got[: cut + 1], expected[: cut + 1], rtol, atol, equal_nan=True)
            differ = np.flatnonzero(~same.all(axis=tuple(range(1, same.ndim))))
            if differ.size:
                raise LookAheadError(
                    f"{name} looks ahead: output row {differ[0]} changed when the rows after "
                    f"cut {cut} were perturbed."
                )
