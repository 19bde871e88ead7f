"""Exact comparison of nested observations, infos and other trees of values.

A tree is a mapping, tuple or list of trees, or a leaf: an array or any other value. Two trees
are equal when mappings have the same keys in the same order, tuples match tuples and lists
lists of the same length, arrays have the same shape and dtype (a NumPy scalar matches a 0-d
array), other leaves the same type, and all values are equal, NaN matching NaN and NaT
matching NaT.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["assert_trees_equal", "tree_difference"]


def tree_difference(
    a: Any, b: Any, *, rtol: float = 0.0, atol: float = 0.0, name: str = ""
) -> str | None:
    """The first difference between trees ``a`` and ``b``, as text; None when they are equal.

    The text is ``"<where>: <a> vs <b>"``, ``<where>`` being ``name`` followed by the keys and
    indices leading to the difference (``"obs['price'][3]"``). Floating-point values may differ
    within ``rtol`` and ``atol`` (as in ``numpy.isclose``); everything else must be equal.
    """
    return _difference(a, b, name, float(rtol), float(atol))


def assert_trees_equal(a: Any, b: Any, *, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Raise ``AssertionError`` naming the first difference unless the trees are equal.

    See ``tree_difference``; with the default tolerances every value must be exactly equal.
    """
    found = tree_difference(a, b, rtol=rtol, atol=atol)
    if found is not None:
        raise AssertionError(f"trees differ at {found}")


def _where(path: str) -> str:
    return path or "the root"


def _difference(a: Any, b: Any, path: str, rtol: float, atol: float) -> str | None:
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        if not (isinstance(a, Mapping) and isinstance(b, Mapping)):
            return f"{_where(path)}: {type(a).__name__} vs {type(b).__name__}"
        if list(a) != list(b):
            return f"{_where(path)}: keys {list(a)!r} vs {list(b)!r}"
        for key in a:
            found = _difference(a[key], b[key], f"{path}[{key!r}]", rtol, atol)
            if found is not None:
                return found
        return None
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        if _sequence_kind(a) is not _sequence_kind(b):
            return f"{_where(path)}: {type(a).__name__} vs {type(b).__name__}"
        if len(a) != len(b):
            return f"{_where(path)}: length {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _difference(x, y, f"{path}[{i}]", rtol, atol)
            if found is not None:
                return found
        return None
    if _is_array(a) and _is_array(b) and (isinstance(a, np.ndarray) or isinstance(b, np.ndarray)):
        return _array_difference(np.asarray(a), np.asarray(b), path, rtol, atol)
    if type(a) is not type(b):
        return f"{_where(path)}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, (numbers.Number, np.generic)) and np.asarray(a).dtype.kind != "O":
        equal = bool(_equal_elements(np.asarray(a), np.asarray(b), rtol, atol).all())
        return None if equal else f"{_where(path)}: {a!r} vs {b!r}"
    try:
        equal = bool(a == b)
    except Exception:
        equal = False
    return None if equal else f"{_where(path)}: {a!r} vs {b!r}"


def _is_array(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic))


def _sequence_kind(x: Any) -> type | None:
    if isinstance(x, tuple):
        return tuple
    return list if isinstance(x, list) else None


def _array_difference(
    a: NDArray[Any], b: NDArray[Any], path: str, rtol: float, atol: float
) -> str | None:
    if a.shape != b.shape:
        return f"{_where(path)}: shape {a.shape} vs {b.shape}"
    if a.dtype != b.dtype:
        return f"{_where(path)}: dtype {a.dtype} vs {b.dtype}"
    if a.dtype.kind == "O":
        for index in np.ndindex(a.shape):
            found = _difference(a[index], b[index], f"{path}{list(index)}", rtol, atol)
            if found is not None:
                return found
        return None
    equal = _equal_elements(a, b, rtol, atol)
    if equal.all():
        return None
    if a.ndim == 0:
        return f"{_where(path)}: {a!r} vs {b!r}"
    first = tuple(int(i) for i in np.argwhere(~equal)[0])
    return f"{path}{list(first)}: {a[first]!r} vs {b[first]!r}"


def _equal_elements(a: NDArray[Any], b: NDArray[Any], rtol: float, atol: float) -> NDArray[Any]:
    """Element-wise equality of two arrays of one dtype, NaN (NaT) matching NaN (NaT)."""
    if a.dtype.kind in "fc":
        return np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    if a.dtype.kind in "mM":
        return np.asarray((a == b) | (np.isnat(a) & np.isnat(b)))
    return np.asarray(a == b)
