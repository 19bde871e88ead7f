"""Argument checks for constructors and functions, with one exception rule.

A value of the right kind that is wrong (out of range, NaN for a real number, an array of the
wrong dtype, rank or length, a list where a scalar is needed) raises ``ValueError``; a value
of another kind altogether (a string, None or any other object where a number or an array is
needed) raises ``TypeError``. Bools are never numbers. Where an integer is needed, a float
with a fraction (``2.5``, ``inf``, NaN) is of the wrong kind and raises ``TypeError``, as in
Python's ``range(2.5)``, while a whole float (``3.0``) counts as its int; arrays of ints
(shapes, ``nvec``) apply this to every entry. Every message names the parameter, the value
and what was expected.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Iterable
from typing import Any, SupportsInt, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "check_array",
    "check_bool",
    "check_choice",
    "check_instance",
    "check_int",
    "check_int_array",
    "check_real",
    "check_shape",
]

T = TypeVar("T")

_BOOLS = (bool, np.bool_)


def _got(value: Any) -> str:
    """``value`` as messages show it: its type name, then its repr."""
    return f"{type(value).__name__} {value!r}"


def _is_numeric_sequence(value: Any) -> bool:
    """Whether ``value`` is a list, tuple or array of numbers: a number's kind, not its form."""
    if not isinstance(value, (list, tuple, np.ndarray)):
        return False
    try:
        kind = np.asarray(value).dtype.kind
    except (TypeError, ValueError):
        return False
    return kind in "iufc"


def _number_error(
    value: Any, name: str, expected: str, *, wrong_numbers: tuple[type, ...] = ()
) -> Exception:
    """``ValueError`` for a number or a sequence of numbers, ``TypeError`` for anything else
    (a bool or a number of one of the ``wrong_numbers`` types included)."""
    message = f"{name} must be {expected}, got {_got(value)}."
    if isinstance(value, (*_BOOLS, *wrong_numbers)):
        return TypeError(message)
    if isinstance(value, numbers.Number):
        return ValueError(message)
    if _is_numeric_sequence(value):
        return ValueError(f"{name} must be {expected} (a scalar), got {_got(value)}.")
    return TypeError(message)


def _bound(value: float) -> str:
    """A bound as messages show it: ``0`` rather than ``0.0``."""
    if isinstance(value, numbers.Integral) or float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _interval(
    low: float | None, high: float | None, low_open: bool, high_open: bool, *, ints: bool
) -> str:
    """The bounds in words: ``"in [0, 1)"``, ``"> 0"``, ``"at least 1"``; ``""`` for none."""
    lo = None if low is None else _bound(low)
    hi = None if high is None else _bound(high)
    if lo is not None and hi is not None:
        return f"in {'(' if low_open else '['}{lo}, {hi}{')' if high_open else ']'}"
    if lo is not None:
        return f"at least {lo}" if ints else f"{'>' if low_open else '>='} {lo}"
    if hi is not None:
        return f"at most {hi}" if ints else f"{'<' if high_open else '<='} {hi}"
    return ""


def _whole(value: Any) -> int | None:
    """``value`` as an ``int`` if it is an integer (not a bool) or a real number without a
    fraction (``3.0``, ``np.float32(3.0)``), else None."""
    if isinstance(value, _BOOLS) or not isinstance(value, numbers.Real):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    try:
        out = int(cast(SupportsInt, value))
    except (OverflowError, ValueError):  # inf, NaN
        return None
    return out if out == value else None


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (None: unbounded).

    Python and NumPy ints are taken as they are and whole floats (``3.0``) as their int. A
    float with a fraction (``2.5``, ``inf``, NaN), a bool or a non-number raises
    ``TypeError``; a sequence, a complex number or an out-of-range value ``ValueError``.
    """
    out = _whole(value)
    if out is None:
        raise _number_error(value, name, "an int", wrong_numbers=(numbers.Real,))
    if (low is not None and out < low) or (high is not None and out > high):
        bounds = _interval(low, high, False, False, ints=True)
        raise ValueError(f"{name} must be {bounds}, got {out}.")
    return out


def check_real(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> float:
    """``value`` as a ``float`` within the bounds (inclusive unless ``*_open``; None: unbounded).

    NaN is always refused, and ``±inf`` too unless ``finite=False``. A sequence, a complex
    number or an out-of-range value raises ``ValueError``; a bool or a non-number raises
    ``TypeError``.
    """
    if isinstance(value, _BOOLS) or not isinstance(value, numbers.Real):
        raise _number_error(value, name, "a real number")
    out = float(value)
    below = low is not None and (out <= low if low_open else out < low)
    above = high is not None and (out >= high if high_open else out > high)
    if math.isnan(out) or (finite and math.isinf(out)) or below or above:
        bounds = _interval(low, high, low_open, high_open, ints=False)
        if finite and bounds and not bounds.startswith("in"):
            bounds = f"finite and {bounds}"
        wanted = bounds or ("finite" if finite else "a number other than NaN")
        raise ValueError(f"{name} must be {wanted}, got {out!r}.")
    return out


def check_bool(value: Any, name: str) -> bool:
    """``value`` as a ``bool`` (Python or NumPy); anything else, ``0`` and ``1`` included,
    raises ``TypeError``."""
    if not isinstance(value, _BOOLS):
        raise TypeError(f"{name} must be a bool, got {_got(value)}.")
    return bool(value)


def check_instance(value: T, name: str, cls: type | tuple[type, ...], expected: str) -> T:
    """``value`` unchanged if it is an instance of ``cls``, else ``TypeError`` that it must be
    ``expected`` (e.g. ``"a str"``)."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be {expected}, got {_got(value)}.")
    return value


def check_choice(value: T, name: str, choices: Collection[Any]) -> T:
    """``value`` unchanged if it is one of ``choices``.

    A value of the choices' type that is not among them raises ``ValueError``; a value of
    another type (a bool among ints included) raises ``TypeError``.
    """
    kinds = tuple({type(choice) for choice in choices})
    listed = ", ".join(map(repr, choices))
    expected = f"one of {listed}" if len(choices) > 2 else " or ".join(map(repr, choices))
    bool_choices = any(isinstance(choice, _BOOLS) for choice in choices)
    if not isinstance(value, kinds) or (isinstance(value, _BOOLS) and not bool_choices):
        raise TypeError(f"{name} must be {expected}, got {_got(value)}.")
    if value not in choices:
        raise ValueError(f"{name} must be {expected}, got {value!r}.")
    return value


def _is_array_like(value: Any) -> bool:
    """Whether ``value`` is the kind of thing an array parameter takes."""
    if isinstance(value, (str, bytes)) or value is None:
        return False
    return isinstance(value, (np.ndarray, list, tuple, numbers.Number, np.generic)) or hasattr(
        value, "__array__"
    )


def _expected_dtype(dtype_kind: str) -> str:
    """What an array of these dtype kinds holds, in words."""
    parts = [
        word
        for kinds, word in (("M", "datetime64"), ("iuf", "numeric"), ("b", "bool"))
        if set(kinds) & set(dtype_kind)
    ]
    if parts == ["numeric"]:
        return "real numbers (numeric values)"
    return " or ".join(parts) + " values"


def _object_reals(arr: NDArray[Any], name: str, expected: str) -> NDArray[np.float64]:
    """An object array of real numbers (not bools) as float64, else ``ValueError``."""
    for index, item in np.ndenumerate(arr):
        if isinstance(item, _BOOLS) or not isinstance(item, numbers.Real):
            at = index[0] if len(index) == 1 else index
            raise ValueError(f"{name} must hold {expected}, got {_got(item)} at index {at}.")
    return arr.astype(np.float64)


def check_array(
    value: Any,
    name: str,
    *,
    dtype_kind: str = "iuf",
    ndim: int | tuple[int, ...] | None = None,
    shape: tuple[int, ...] | None = None,
    length: int | None = None,
    finite: bool = False,
) -> NDArray[Any]:
    """``value`` as an array (not copied when it is one) of the given form.

    ``dtype_kind`` lists the NumPy dtype kinds allowed (``"iuf"`` numbers, ``"b"`` bools,
    ``"M"`` datetimes, ``"O"`` objects, kept as they are); without ``"O"``, an object array
    of real numbers becomes float64 when ``"f"`` is allowed. ``ndim`` is a rank or a tuple of
    ranks, ``shape`` the exact shape, ``length`` the size of axis 0; ``finite`` refuses NaN and
    ``±inf``. A wrong dtype, rank, shape, length or a non-finite entry raises ``ValueError``; a
    string, None, a scalar bool (when bools are not allowed) or any non-array object raises
    ``TypeError``.
    """
    bools_allowed = "b" in dtype_kind
    expected = _expected_dtype(dtype_kind)
    if not _is_array_like(value) or (isinstance(value, _BOOLS) and not bools_allowed):
        raise TypeError(f"{name} must be an array of {expected}, got {_got(value)}.")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a rectangular array of {expected}: {exc}") from exc
    if arr.dtype.kind == "O" and "f" in dtype_kind and "O" not in dtype_kind:
        arr = _object_reals(arr, name, expected)
    elif arr.dtype.kind not in dtype_kind:
        raise ValueError(f"{name} must hold {expected}, got an array of dtype {arr.dtype}.")
    ranks = (ndim,) if isinstance(ndim, int) else ndim
    if ranks is not None and arr.ndim not in ranks:
        wanted = " or ".join(f"{r}-D" for r in ranks)
        raise ValueError(f"{name} must be {wanted}, got shape {arr.shape}.")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}.")
    if length is not None and (arr.ndim == 0 or len(arr) != length):
        got = "a scalar" if arr.ndim == 0 else f"length {len(arr)}"
        raise ValueError(f"{name} must have length {length}, got {got}.")
    if finite and arr.dtype.kind in "fc":
        bad = ~np.isfinite(arr)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            at = "" if not index else f" at index {index[0] if len(index) == 1 else index}"
            raise ValueError(f"{name} must be finite, got {arr[index]}{at}.")
    return arr


def _int_entry_error(item: Any, index: tuple[int, ...], name: str) -> Exception:
    """The error for entry ``item`` at ``index`` of an array that must hold ints."""
    at = "" if not index else f" at index {index[0] if len(index) == 1 else index}"
    if _whole(item) is not None:
        return ValueError(f"{name} must hold ints that fit int64, got {item!r}{at}.")
    message = f"{name} must hold ints, got {_got(item)}{at}."
    if isinstance(item, numbers.Number) and not isinstance(item, (numbers.Real, *_BOOLS)):
        return ValueError(message)
    return TypeError(message)


_INT64 = np.iinfo(np.int64)


def check_int_array(value: Any, name: str) -> NDArray[np.int64]:
    """``value`` (an int, or a possibly nested sequence or array of them) as an int64 array.

    Every entry follows ``check_int``: ints are taken, whole floats (``3.0``) count as their
    int, and an entry that is a float with a fraction (``2.5``, ``inf``, NaN), a bool, a
    string or another object raises ``TypeError`` naming its index; a complex entry, an
    entry outside int64 or a ragged sequence raises ``ValueError``. Anything empty gives an
    empty array.
    """
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a rectangular array of ints: {exc}") from exc
    if arr.size == 0:
        return np.zeros(arr.shape, dtype=np.int64)
    if not isinstance(value, np.ndarray):
        # A list such as [2, True] hides its bool in an int array: judge every entry.
        arr = np.array(value, dtype=object)
    kind = arr.dtype.kind
    if kind == "u" and arr.max() > _INT64.max:
        index = tuple(int(i) for i in np.argwhere(arr > _INT64.max)[0])
        raise _int_entry_error(arr[index], index, name)
    if kind in "iu":
        return arr.astype(np.int64)
    if kind == "f":
        fits = np.isfinite(arr) & (arr >= -(2.0**63)) & (arr < 2.0**63)
        good = fits & (np.trunc(np.where(fits, arr, 0)) == arr)
        if not good.all():
            index = tuple(int(i) for i in np.argwhere(~good)[0])
            raise _int_entry_error(arr[index], index, name)
        return arr.astype(np.int64)
    if kind != "O":
        index = (0,) * arr.ndim
        raise _int_entry_error(arr[index], index, name)
    out = np.empty(arr.shape, dtype=np.int64)
    for index, item in np.ndenumerate(arr):
        entry = _whole(item)
        if entry is None or not _INT64.min <= entry <= _INT64.max:
            raise _int_entry_error(item, index, name)
        out[index] = entry
    return out


def check_shape(value: Any, name: str) -> tuple[int, ...]:
    """``value`` (an iterable of ints, ``()`` included) as a shape: a tuple of Python ints.

    Entries follow ``check_int`` (whole floats count as their int). A string, a scalar or
    another non-iterable, or an entry of another kind (``2.5``, a bool, a string) raises
    ``TypeError``; a negative entry ``ValueError``.
    """
    message = f"{name} must be a tuple of ints, got {value!r}."
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(message)
    try:
        entries = tuple(value)
    except TypeError as exc:  # a 0-d array
        raise TypeError(message) from exc
    dims: list[int] = []
    for entry in entries:
        dim = _whole(entry)
        if dim is None:
            raise TypeError(message)
        dims.append(dim)
    if any(dim < 0 for dim in dims):
        raise ValueError(f"{name} must have non-negative entries, got {value!r}.")
    return tuple(dims)
