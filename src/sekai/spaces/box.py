"""A (possibly unbounded) box in R^n or Z^n."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from sekai._types import SeedType
from sekai.spaces.space import Space
from sekai.utils.validation import check_shape

__all__ = ["Box", "float_dtype"]


def float_dtype(dtype: DTypeLike) -> np.dtype[Any]:
    """``dtype`` if it is a floating dtype, else ``float32``."""
    dt = np.dtype(dtype)
    return dt if dt.kind == "f" else np.dtype(np.float32)


def _all_python_ints(x: Any) -> NDArray[np.object_] | None:
    """``x`` as an object array of Python ints, or None if ``x`` is not made only of ints."""
    if isinstance(x, int):
        return np.array(x, dtype=object)
    if not isinstance(x, (list, tuple)):
        return None
    try:
        arr = np.array(x, dtype=object)
    except ValueError:
        return None
    if not all(isinstance(v, int) for v in arr.flat):
        return None
    return arr


def _clip_exact(arr: NDArray[np.object_], dtype: np.dtype[Any], name: str) -> NDArray[Any]:
    """Clip an object array of Python ints into ``dtype``'s range, warning if anything moves."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    if any(v < lo or v > hi for v in arr.flat):
        warnings.warn(
            f"Box {name} has values outside the range of {dtype} [{lo}, {hi}]; "
            "they are clipped to it.",
            UserWarning,
            stacklevel=4,
        )
        arr = np.array([min(max(v, lo), hi) for v in arr.flat], dtype=object).reshape(arr.shape)
    return np.array(arr.tolist(), dtype=dtype)


def _convert_bound(value: Any, dtype: np.dtype[Any], name: str) -> NDArray[Any]:
    """Convert one bound to an array of ``dtype`` (NaN check, integer clipping)."""
    is_int = dtype.kind in "iu"
    if is_int and not isinstance(value, np.ndarray):
        exact = _all_python_ints(value)
        if exact is not None:
            return _clip_exact(exact, dtype, name)
    try:
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf":
            arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"Box {name} must be a number or an array of numbers, got {value!r}."
        ) from exc
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"Box {name} contains NaN: {value!r}.")
    if not is_int:
        return arr.astype(dtype)
    info = np.iinfo(dtype)
    if arr.dtype.kind == "b" or np.can_cast(arr.dtype, dtype, "safe"):
        return arr.astype(dtype)
    if arr.dtype.kind in "iu":
        if arr.size and (int(arr.min()) < info.min or int(arr.max()) > info.max):
            return _clip_exact(arr.astype(object), dtype, name)
        return arr.astype(dtype)
    # Round fractional bounds inwards so that the integer box never holds a value outside the
    # requested interval; infinities are kept (they map to the dtype's limits below).
    arr = np.ceil(arr) if name == "low" else np.floor(arr)
    # info.max + 1 is a power of two, exact as a float even where info.max itself is not.
    finite = np.isfinite(arr)
    out_of_range = finite & ((arr < float(info.min)) | (arr >= float(info.max) + 1.0))
    if out_of_range.any():
        warnings.warn(
            f"Box {name} has values outside the range of {dtype} [{info.min}, {info.max}]; "
            "they are clipped to it.",
            UserWarning,
            stacklevel=3,
        )
    low_side = arr < 0
    in_range = finite & ~out_of_range
    result = np.where(low_side, np.array(info.min, dtype), np.array(info.max, dtype))
    result[in_range] = arr[in_range].astype(dtype)
    return result


def _has_fraction(value: Any) -> bool:
    """Whether ``value`` holds a finite number that is not a whole number."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return False
    finite = arr[np.isfinite(arr)]
    return bool(np.any(finite != np.floor(finite)))


def _empty_bound(value: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    """A bound of a zero-size ``shape`` read back from JSON, as an empty array of that shape.

    ``tolist()`` drops the dimensions after the first zero one (``(0, 2)`` gives ``[]``), so the
    list cannot be broadcast back; with no entries there is no value to lose.
    """
    if math.prod(shape) == 0 and isinstance(value, list) and np.size(value) == 0:
        return np.zeros(shape, dtype=dtype)
    return value


def _collapse(arr: NDArray[Any]) -> Any:
    """The single value of ``arr`` if all its entries are equal, else ``arr``."""
    flat = arr.reshape(-1)
    return flat[0] if flat.size and (flat == flat[0]).all() else arr


def _format_value(v: Any) -> str:
    if isinstance(v, np.floating):
        return np.format_float_positional(v, trim="0")
    if isinstance(v, np.bool_):
        return str(bool(v))
    return str(int(v))


def format_bound(arr: NDArray[Any]) -> str:
    """Render a bound for a repr: one value, all values, or the first and last three."""
    flat = arr.reshape(-1)
    if flat.size == 0:
        return "[]"
    if np.all(flat == flat[0]):
        return _format_value(flat[0])
    if flat.size <= 8:
        return "[" + ", ".join(_format_value(v) for v in flat) + "]"
    head = ", ".join(_format_value(v) for v in flat[:3])
    tail = ", ".join(_format_value(v) for v in flat[-3:])
    return f"[{head}, ..., {tail}]"


class Box(Space[NDArray[Any]]):
    """A box ``[low, high]`` of arrays of one shape and dtype; bounds may be infinite.

    For integer dtypes, fractional bounds are rounded inwards (``low`` up, ``high`` down; a
    bound interval holding no integer raises ``ValueError``), infinite bounds become the
    dtype's limits and finite bounds outside them are clipped with a ``UserWarning``.
    """

    low: NDArray[Any]
    high: NDArray[Any]
    _shape: tuple[int, ...]
    _dtype: np.dtype[Any]

    def __init__(
        self,
        low: Any,
        high: Any,
        shape: tuple[int, ...] | None = None,
        dtype: DTypeLike = np.float32,
        seed: SeedType = None,
    ) -> None:
        if dtype is None:
            raise TypeError("Box dtype must be a numpy dtype, got None.")
        dt = np.dtype(dtype)
        if dt.kind not in "biuf":
            raise TypeError(f"Box dtype must be a boolean, integer or float dtype, got {dt}.")
        low_arr = _convert_bound(low, dt, "low")
        high_arr = _convert_bound(high, dt, "high")
        if shape is not None:
            shp = check_shape(shape, "Box shape")
            low_arr = np.full(shp, low_arr, dtype=dt)
            high_arr = np.full(shp, high_arr, dtype=dt)
        elif low_arr.shape != high_arr.shape:
            raise ValueError(
                f"Box low and high must have the same shape when shape is None, "
                f"got {low_arr.shape} and {high_arr.shape}."
            )
        else:
            shp = low_arr.shape
        if np.any(low_arr > high_arr):
            hint = ""
            if dt.kind in "iu" and (_has_fraction(low) or _has_fraction(high)):
                hint = f" (after rounding the bounds inwards to {dt} values: low up, high down)"
            raise ValueError(
                f"Box low must be <= high everywhere{hint}, got low={low!r}, high={high!r}."
            )
        low_arr.flags.writeable = False
        high_arr.flags.writeable = False
        self.low = low_arr
        self.high = high_arr
        zero = np.asarray(np.clip(np.zeros(shp, dtype=dt), low_arr, high_arr), dtype=dt)
        zero.flags.writeable = False
        self._zero = zero
        self._is_int = dt.kind in "iu"
        self._low_finite = np.isfinite(low_arr) if dt.kind == "f" else np.ones(shp, dtype=bool)
        self._high_finite = np.isfinite(high_arr) if dt.kind == "f" else np.ones(shp, dtype=bool)
        self._bounded = bool(self._low_finite.all() and self._high_finite.all())
        # Sampling groups of a partly unbounded float Box: (bounded, low only, high only, neither).
        self._groups = (
            self._low_finite & self._high_finite,
            self._low_finite & ~self._high_finite,
            ~self._low_finite & self._high_finite,
            ~self._low_finite & ~self._high_finite,
        )
        self._group_sizes = tuple(int(g.sum()) for g in self._groups)
        # Uniform bounds are sampled from scalars, which numpy handles much faster.
        self._sample_low = _collapse(low_arr)
        self._sample_high = _collapse(high_arr)
        self._low_obj: NDArray[np.object_] | None = None
        self._high_obj: NDArray[np.object_] | None = None
        super().__init__(shp, dt, seed)

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of a sample."""
        return self._shape

    @property
    def dtype(self) -> np.dtype[Any]:
        """The dtype of a sample."""
        return self._dtype

    @property
    def is_flattenable(self) -> bool:
        """Always True."""
        return True

    @property
    def is_bounded(self) -> tuple[bool, bool]:
        """Whether every lower bound, and every upper bound, is finite."""
        return bool(self._low_finite.all()), bool(self._high_finite.all())

    def zero(self) -> NDArray[Any]:
        """Zeros clipped into the bounds."""
        return self._zero.copy()

    def sample(self, mask: Any = None) -> NDArray[Any]:
        """A random element; where ``mask`` (broadcast to the shape) is 0 the value is ``zero()``.

        Float dtypes: uniform on bounded components, shifted exponential on half-bounded ones
        and standard normal on unbounded ones. Integer dtypes: uniform over ``[low, high]``.
        """
        dt = self._dtype
        rng = self.rng
        if self._is_int:
            out = np.asarray(
                rng.integers(
                    self._sample_low, self._sample_high, size=self._shape, dtype=dt, endpoint=True
                )
            )
        elif dt.kind != "f":
            raise TypeError(f"Box cannot sample dtype {dt}.")
        elif self._bounded:
            out = rng.uniform(self._sample_low, self._sample_high, size=self._shape).astype(dt)
        else:
            out = self._sample_unbounded(rng)
        if mask is None:
            return out
        try:
            flags = np.broadcast_to(np.asarray(mask), self._shape)
        except ValueError as exc:
            raise ValueError(
                f"Box mask must broadcast to shape {self._shape}, got shape {np.shape(mask)}."
            ) from exc
        return np.where(flags == 0, self._zero, out)

    def _sample_unbounded(self, rng: np.random.Generator) -> NDArray[Any]:
        # Draw order: uniforms, then exponentials (low only, high only), then normals.
        both, low_only, high_only, neither = self._groups
        n_both, n_low, n_high, n_neither = self._group_sizes
        if n_neither == neither.size:
            return rng.standard_normal(size=self._shape).astype(self._dtype)
        out = np.empty(self._shape, dtype=np.float64)
        if n_both:
            out[both] = rng.uniform(self.low[both], self.high[both])
        if n_low:
            out[low_only] = self.low[low_only] + rng.exponential(size=n_low)
        if n_high:
            out[high_only] = self.high[high_only] - rng.exponential(size=n_high)
        if n_neither:
            out[neither] = rng.standard_normal(size=n_neither)
        return out.astype(self._dtype)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` has this shape, a same-kind-castable dtype and values within bounds.

        Non-array Python ints on an integer Box are judged by exact value.
        """
        if not isinstance(x, np.ndarray):
            if self._is_int:
                exact = _all_python_ints(x)
                if exact is not None:
                    return self._contains_exact(exact)
            try:
                x = np.asarray(x)
            except (ValueError, TypeError):
                return False
        if x.shape != self._shape:
            return False
        if x.dtype is not self._dtype:
            if not np.can_cast(x.dtype, self._dtype, "same_kind"):
                return False
            if self._is_int and x.dtype.kind in "iu":
                if not np.can_cast(x.dtype, self._dtype, "safe"):
                    return self._contains_exact(x.astype(object))
                x = x.astype(self._dtype)
        return bool((x >= self.low).all() and (x <= self.high).all())

    def _contains_exact(self, x: NDArray[np.object_]) -> bool:
        if x.shape != self._shape:
            return False
        if self._low_obj is None or self._high_obj is None:
            self._low_obj = self.low.astype(object)
            self._high_obj = self.high.astype(object)
        return bool((x >= self._low_obj).all() and (x <= self._high_obj).all())

    def to_jsonable(self) -> dict[str, Any]:
        """A JSON-ready description of the space."""
        return {
            "type": "Box",
            "low": self.low.tolist(),
            "high": self.high.tolist(),
            "shape": list(self._shape),
            "dtype": str(self._dtype),
        }

    @classmethod
    def from_jsonable(cls, data: Mapping[str, Any]) -> Box:
        """Rebuild a Box from ``to_jsonable()`` output (zero-size shapes included)."""
        shape = tuple(data["shape"])
        dtype = np.dtype(data["dtype"])
        low = _empty_bound(data["low"], shape, dtype)
        high = _empty_bound(data["high"], shape, dtype)
        return cls(low, high, shape=shape, dtype=dtype)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Box)
            and self._shape == other._shape
            and self._dtype == other._dtype
            and np.array_equal(self.low, other.low)
            and np.array_equal(self.high, other.high)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Box({format_bound(self.low)}, {format_bound(self.high)}, "
            f"{self._shape}, {self._dtype})"
        )
