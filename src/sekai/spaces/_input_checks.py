"""Checks and error messages for the input of ``flatten`` and ``unflatten``.

A value of the right kind that is not in the space (out of range, wrong shape, wrong keys, not
0/1 flags) raises ValueError; a value of the wrong kind (not numbers, a float for a discrete
space, a non-mapping for a Dict) raises TypeError. Messages name the space and the input.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.space import Space

__all__ = [
    "as_array",
    "binary_flags",
    "check_keys",
    "check_length",
    "check_shape",
    "discrete_index",
    "flat_vector",
    "multi_discrete_index",
    "note_subspace",
    "numbers",
    "offsets",
    "show",
]


def show(x: Any) -> str:
    """``repr(x)`` (cut to a readable length) and its type, for error messages."""
    text = repr(x)
    if len(text) > 120:
        text = text[:117] + "..."
    return f"{text} ({type(x).__name__})"


def as_array(func: str, space: Space[Any], x: Any) -> NDArray[Any]:
    """``x`` as an ndarray; ragged input raises ValueError."""
    if isinstance(x, np.ndarray):
        return x
    try:
        return np.asarray(x)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"{func}: {space!r} needs a rectangular array, got {show(x)}.") from exc


def numbers(func: str, space: Space[Any], x: Any) -> NDArray[Any]:
    """``x`` as an ndarray of bools, integers or floats, else TypeError.

    Object arrays are refused too: numpy would turn ``None`` into NaN and ``"1"`` into 1.0.
    """
    arr = as_array(func, space, x)
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{func}: {space!r} needs numbers (a bool, integer or float array), got {show(x)}."
        )
    return arr


def note_subspace(exc: Exception, step: str, space: Space[Any]) -> None:
    """Note in ``exc``'s message that it arose in the sub-space ``step`` (``['a']``) of ``space``.

    Nested composites extend the recorded path, so the message names the outermost space and the
    full path to the failing leaf.
    """
    base, path = vars(exc).get("_subspace_path", (None, ""))
    if base is None:
        if len(exc.args) != 1 or not isinstance(exc.args[0], str):
            return
        base = exc.args[0]
    path = step + path
    vars(exc)["_subspace_path"] = (base, path)
    exc.args = (f"{base} (in sub-space {path} of {space!r})",)


def check_keys(func: str, space: Space[Any], keys: Collection[Any], x: Any) -> None:
    """``x`` must be a mapping with exactly ``keys`` (the keys of the Dict ``space``)."""
    if not isinstance(x, Mapping):
        raise TypeError(f"{func}: {space!r} needs a mapping, got {show(x)}.")
    if len(x) != len(keys) or any(key not in x for key in keys):
        missing = [key for key in keys if key not in x]
        extra = [key for key in x if key not in keys]
        raise ValueError(
            f"{func}: {space!r} needs exactly the keys {list(keys)}, got {show(x)} "
            f"(missing {missing}, unexpected {extra})."
        )


def check_length(func: str, space: Space[Any], length: int, x: Any) -> None:
    """``x`` must be a tuple or list of ``length`` elements (one per sub-space of ``space``)."""
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"{func}: {space!r} needs a tuple or list, got {show(x)}.")
    if len(x) != length:
        raise ValueError(
            f"{func}: {space!r} needs a sequence of length {length}, "
            f"got length {len(x)}: {show(x)}."
        )


def discrete_index(space: Discrete, x: Any) -> int:
    """``x - start`` for an integer ``x`` (not a bool) that ``space`` holds."""
    if type(x) is int or isinstance(x, np.integer):
        value = int(x)
    elif isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        if x.shape != ():
            raise ValueError(f"flatten: {space!r} needs a single integer, got {show(x)}.")
        value = int(x)
    elif isinstance(x, int) and not isinstance(x, bool):
        value = int(x)  # int subclasses such as IntEnum members
    else:
        raise TypeError(f"flatten: {space!r} needs an integer, got {show(x)}.")
    index = value - space.start
    if not 0 <= index < space.n:
        raise ValueError(
            f"flatten: {space!r} needs an integer in [{space.start}, "
            f"{space.start + space.n - 1}], got {show(x)}."
        )
    return index


def check_shape(
    func: str, space: Space[Any], arr: NDArray[Any], shape: tuple[int, ...], x: Any
) -> None:
    """``arr`` (read from ``x``) must have ``shape``, else ValueError."""
    if arr.shape != shape:
        raise ValueError(
            f"{func}: {space!r} needs an array of shape {shape}, got shape {arr.shape}: {show(x)}."
        )


def binary_flags(space: Space[Any], x: Any, shape: tuple[int, ...]) -> NDArray[Any]:
    """``x`` as an integer or bool array of ``shape`` holding only 0s and 1s."""
    arr = as_array("flatten", space, x)
    kind = arr.dtype.kind
    if kind not in "biu":
        raise TypeError(f"flatten: {space!r} needs an integer or bool array, got {show(x)}.")
    check_shape("flatten", space, arr, shape, x)
    # ``x >> 1`` is 0 exactly for 0 and 1 (negative values stay negative).
    if kind != "b" and np.count_nonzero(arr >> 1):
        raise ValueError(f"flatten: {space!r} needs only 0s and 1s, got {show(x)}.")
    return arr


def _entry_outside(space: MultiDiscrete, x: Any, i: int, value: Any) -> ValueError:
    """The error for ``x``, whose ``i``-th entry (C order) ``value`` is out of range."""
    entry = tuple(int(v) for v in np.unravel_index(i, space.shape))
    low = int(space.start.reshape(-1)[i])
    high = low + int(space.nvec.reshape(-1)[i]) - 1
    return ValueError(
        f"flatten: {space!r} needs entry {entry} in [{low}, {high}], got {value} in {show(x)}."
    )


def multi_discrete_index(space: MultiDiscrete, x: Any) -> NDArray[np.int64]:
    """``x - start`` flattened in C order, for an integer array ``x`` that ``space`` holds."""
    arr = as_array("flatten", space, x)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"flatten: {space!r} needs an integer array, got {show(x)}.")
    check_shape("flatten", space, arr, space.shape, x)
    flat = arr.reshape(-1)
    if flat.dtype == np.uint64:
        # Entries of 2**63 and more lie outside every MultiDiscrete (its values are int64).
        huge = np.flatnonzero(flat >> 63)
        if huge.size:
            raise _entry_outside(space, x, int(huge[0]), flat[huge[0]])
    index = flat.astype(np.int64, copy=False) - space.start.reshape(-1)
    outside = (index < 0) | (index >= space.nvec.reshape(-1))
    if np.count_nonzero(outside):
        i = int(np.argmax(outside))
        raise _entry_outside(space, x, i, flat[i])
    return index


def offsets(space: MultiDiscrete) -> NDArray[np.int64]:
    """Where each entry's one-hot block starts in the flat vector."""
    nvec = space.nvec.reshape(-1)
    return np.concatenate(([0], np.cumsum(nvec)[:-1])).astype(np.int64)


def flat_vector(space: Space[Any], x: Any, n: int) -> NDArray[Any]:
    """``x`` as a numeric vector of length ``n`` (``flatdim(space)``)."""
    arr = numbers("unflatten", space, x)
    if arr.shape != (n,):
        raise ValueError(
            f"unflatten: {space!r} needs a vector of shape ({n},), got shape {arr.shape}: "
            f"{show(x)}."
        )
    return arr
