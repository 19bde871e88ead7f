"""The checks that turn a panel's inputs into its stored arrays (float64, read-only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.utils.validation import check_array

__all__ = ["check_names", "exogenous_array", "field_array", "float_array", "freeze"]


def float_array(value: Any, name: str) -> NDArray[np.float64]:
    """A writable float64 copy of a numeric array-like; object arrays convert as NumPy does."""
    arr = check_array(value, name, dtype_kind="iufO")
    try:
        return np.array(arr, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got an object array: {exc}") from exc


def field_array(value: Any, name: str) -> NDArray[np.float64]:
    """A field as a ``(T, N)`` float64 copy (1-D input is one column); +/-inf refused."""
    arr = float_array(value, name)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D (T, N), got shape {arr.shape}.")
    if np.isinf(arr).any():
        raise ValueError(f"{name} contains +/-inf; use NaN for missing values.")
    return arr


def exogenous_array(value: Any, name: str, length: int) -> NDArray[np.float64]:
    """An exogenous series as a ``(length,)`` or ``(length, k)`` float64 copy; +/-inf refused."""
    arr = float_array(value, f"exogenous[{name!r}]")
    if arr.ndim not in (1, 2) or arr.shape[0] != length or (arr.ndim == 2 and arr.shape[1] < 1):
        raise ValueError(
            f"exogenous[{name!r}] must have shape ({length},) or ({length}, k), got {arr.shape}."
        )
    if np.isinf(arr).any():
        raise ValueError(f"exogenous[{name!r}] contains +/-inf; use NaN for missing values.")
    return arr


def freeze(arrays: Mapping[str, NDArray[Any]]) -> dict[str, NDArray[Any]]:
    """The ``arrays`` made read-only, in a new dict."""
    for arr in arrays.values():
        arr.setflags(write=False)
    return dict(arrays)


def check_names(mapping: Mapping[Any, Any], what: str) -> None:
    """``TypeError`` unless every key of ``mapping`` is a string."""
    for key in mapping:
        if not isinstance(key, str):
            raise TypeError(f"{what} names must be strings, got {key!r}.")
