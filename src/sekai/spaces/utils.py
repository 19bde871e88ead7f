"""Generic operations on spaces: flattening, batching, zero samples and JSON loading.

All but the JSON pair are ``functools.singledispatch`` generics; custom spaces opt in with e.g.
``flatdim.register(MySpace)``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from functools import singledispatch
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces._input_checks import (
    binary_flags,
    check_keys,
    check_length,
    check_shape,
    discrete_index,
    flat_vector,
    multi_discrete_index,
    note_subspace,
    numbers,
    offsets,
    one_hot_picks,
    show,
)
from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.masked_box import MaskedBox
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.sequence import Sequence, holds_data
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple
from sekai.utils.seeding import make_seed_sequence

__all__ = [
    "batch_space",
    "concatenate",
    "flatdim",
    "flatten",
    "flatten_space",
    "iterate",
    "register_space_type",
    "space_from_jsonable",
    "unflatten",
    "zero_sample",
]


def _unsupported(func: str, space: Any) -> NotImplementedError:
    return NotImplementedError(
        f"{func} is not defined for {type(space).__name__}; "
        f"register an implementation with {func}.register({type(space).__name__})."
    )


def _children(space: Dict | Tuple) -> list[Space[Any]]:
    return list(space.spaces.values()) if isinstance(space, Dict) else list(space.spaces)


def _values(space: Dict | Tuple, x: Any) -> list[Any]:
    return [x[key] for key in space.spaces] if isinstance(space, Dict) else list(x)


def _rebuild(space: Dict | Tuple, parts: Iterable[Any]) -> Any:
    if isinstance(space, Dict):
        return dict(zip(space.spaces, parts, strict=True))
    return tuple(parts)


# -- flatdim ----------------------------------------------------------------------------------


@singledispatch
def flatdim(space: Space[Any]) -> int:
    """The length of ``flatten(space, x)``."""
    raise _unsupported("flatdim", space)


@flatdim.register
def _flatdim_box(space: Box) -> int:
    return int(np.prod(space.shape))


@flatdim.register
def _flatdim_discrete(space: Discrete) -> int:
    return space.n


@flatdim.register
def _flatdim_multi_discrete(space: MultiDiscrete) -> int:
    return int(space.nvec.sum())


@flatdim.register
def _flatdim_multi_binary(space: MultiBinary) -> int:
    return int(np.prod(space.n))


@flatdim.register(Dict)
@flatdim.register(Tuple)
def _flatdim_composite(space: Dict | Tuple) -> int:
    return sum(flatdim(sub) for sub in _children(space))


# -- flatten ----------------------------------------------------------------------------------


@singledispatch
def flatten(space: Space[Any], x: Any) -> NDArray[np.float32]:
    """``x`` as a 1-D float32 vector (one-hot encodings for discrete spaces).

    ``x`` of the wrong kind raises TypeError; of the right kind but not in ``space`` (an
    out-of-range discrete value, a wrong shape, wrong keys) raises ValueError. Box values are
    not checked against the bounds.
    """
    raise _unsupported("flatten", space)


@flatten.register
def _flatten_box(space: Box, x: Any) -> NDArray[np.float32]:
    arr = numbers("flatten", space, x)
    check_shape("flatten", space, arr, space.shape, x)
    with np.errstate(over="ignore"):
        return np.asarray(arr, dtype=np.float32).reshape(-1)


@flatten.register
def _flatten_multi_binary(space: MultiBinary, x: Any) -> NDArray[np.float32]:
    return np.asarray(binary_flags(space, x, space.n), dtype=np.float32).reshape(-1)


@flatten.register
def _flatten_discrete(space: Discrete, x: Any) -> NDArray[np.float32]:
    out = np.zeros(space.n, dtype=np.float32)
    out[discrete_index(space, x)] = 1.0
    return out


@flatten.register
def _flatten_multi_discrete(space: MultiDiscrete, x: Any) -> NDArray[np.float32]:
    index = multi_discrete_index(space, x)
    out = np.zeros(flatdim(space), dtype=np.float32)
    out[offsets(space) + index] = 1.0
    return out


def _joined(parts: list[NDArray[np.float32]]) -> NDArray[np.float32]:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)


@flatten.register
def _flatten_dict(space: Dict, x: Any) -> NDArray[np.float32]:
    check_keys("flatten", space, space.spaces.keys(), x)
    parts = []
    for key, sub in space.spaces.items():
        try:
            parts.append(flatten(sub, x[key]))
        except (TypeError, ValueError) as exc:
            note_subspace(exc, f"[{key!r}]", space)
            raise
    return _joined(parts)


@flatten.register
def _flatten_tuple(space: Tuple, x: Any) -> NDArray[np.float32]:
    check_length("flatten", space, len(space.spaces), x)
    parts = []
    for i, (sub, value) in enumerate(zip(space.spaces, x, strict=True)):
        try:
            parts.append(flatten(sub, value))
        except (TypeError, ValueError) as exc:
            note_subspace(exc, f"[{i}]", space)
            raise
    return _joined(parts)


# -- unflatten --------------------------------------------------------------------------------


def _flat_vector(space: Space[Any], x: Any) -> NDArray[Any]:
    return flat_vector(space, x, flatdim(space))


@singledispatch
def unflatten(space: Space[Any], x: Any) -> Any:
    """The element of ``space`` that the flat vector ``x`` encodes (always a member).

    Non-numeric ``x`` raises TypeError; a wrong length, or a discrete part that is not an exact
    encoding (one-hot blocks, 0/1 flags), raises ValueError. Box parts are cast, rounded and
    clipped into the bounds.
    """
    raise _unsupported("unflatten", space)


@unflatten.register
def _unflatten_box(space: Box, x: Any) -> NDArray[Any]:
    arr = _flat_vector(space, x).reshape(space.shape)
    dtype = space.dtype
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            out = np.clip(arr.astype(dtype), space.low, space.high)
        return np.asarray(np.where(np.isnan(out), space.zero(), out), dtype=dtype)
    if dtype.kind == "b":
        return np.asarray(np.clip(arr.astype(dtype), space.low, space.high), dtype=dtype)
    if arr.dtype.kind in "biu":
        common = np.result_type(arr.dtype, dtype)
        if common.kind not in "iu":
            common = np.dtype(object)
        clipped = np.clip(arr.astype(common), space.low.astype(common), space.high.astype(common))
        return np.asarray(clipped, dtype=dtype)
    return _unflatten_float_to_int(space, arr.astype(np.float64))


def _unflatten_float_to_int(space: Box, arr: NDArray[np.float64]) -> NDArray[Any]:
    """Round to the nearest integer and saturate at the exact bounds; NaN gives ``zero()``.

    Rounded values inside the dtype's range convert to it exactly and are clipped there, so a
    bound that float64 cannot represent (e.g. ``2**53 + 1``) is never compared in floating point.
    """
    dtype = space.dtype
    info = np.iinfo(dtype)
    # Both limits are 0 or powers of two, hence exact in float64.
    dtype_low = float(info.min)
    dtype_end = 2.0 ** (info.bits - 1 if info.min < 0 else info.bits)
    rounded = np.rint(arr)
    nan = np.isnan(rounded)
    under = rounded < dtype_low
    over = rounded >= dtype_end
    inside = ~(nan | under | over)
    ints = np.where(inside, rounded, 0.0).astype(dtype)
    out = np.clip(ints, space.low, space.high)
    out = np.where(under, space.low, out)
    out = np.where(over, space.high, out)
    return np.asarray(np.where(nan, space.zero(), out), dtype=dtype)


@unflatten.register
def _unflatten_discrete(space: Discrete, x: Any) -> np.intp:
    arr = _flat_vector(space, x)
    ones = arr == 1
    # Exactly one entry equal to 1 and exactly one non-zero entry (NaN counts as non-zero).
    if np.count_nonzero(ones) != 1 or np.count_nonzero(arr) != 1:
        raise ValueError(f"unflatten: {space!r} needs a one-hot vector, got {show(x)}.")
    return np.intp(int(np.argmax(ones)) + space.start)


@unflatten.register
def _unflatten_multi_discrete(space: MultiDiscrete, x: Any) -> NDArray[Any]:
    arr = _flat_vector(space, x)
    if space.nvec.size == 0:
        return space.start.astype(space.dtype)
    picks = one_hot_picks(space, arr, x)
    return (picks.reshape(space.shape) + space.start).astype(space.dtype)


@unflatten.register
def _unflatten_multi_binary(space: MultiBinary, x: Any) -> NDArray[np.int8]:
    arr = _flat_vector(space, x)
    ones = arr == 1
    if not np.all(ones | (arr == 0)):
        raise ValueError(f"unflatten: {space!r} needs only 0s and 1s, got {show(x)}.")
    return ones.astype(np.int8).reshape(space.n)


def _split(space: Dict | Tuple, x: Any) -> list[NDArray[Any]]:
    """The flat vector ``x`` cut into one piece per sub-space."""
    arr = _flat_vector(space, x)
    children = _children(space)
    if not children:
        return []
    return np.split(arr, np.cumsum([flatdim(sub) for sub in children])[:-1])


@unflatten.register
def _unflatten_dict(space: Dict, x: Any) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for (key, sub), part in zip(space.spaces.items(), _split(space, x), strict=True):
        try:
            out[key] = unflatten(sub, part)
        except (TypeError, ValueError) as exc:
            note_subspace(exc, f"[{key!r}]", space)
            raise
    return out


@unflatten.register
def _unflatten_tuple(space: Tuple, x: Any) -> tuple[Any, ...]:
    out = []
    for i, (sub, part) in enumerate(zip(space.spaces, _split(space, x), strict=True)):
        try:
            out.append(unflatten(sub, part))
        except (TypeError, ValueError) as exc:
            note_subspace(exc, f"[{i}]", space)
            raise
    return tuple(out)


@unflatten.register
def _unflatten_masked_box(space: MaskedBox, x: Any) -> dict[str, Any]:
    out: dict[str, Any] = _unflatten_dict(space, x)
    out["values"][out["mask"] == 0] = space.fill_value
    return out


# -- flatten_space ----------------------------------------------------------------------------


@singledispatch
def flatten_space(space: Space[Any]) -> Box:
    """The float32 Box that ``flatten`` maps ``space`` into."""
    raise _unsupported("flatten_space", space)


@flatten_space.register
def _flatten_space_box(space: Box) -> Box:
    # Finite float64 bounds beyond float32's range become +-inf, as flatten's values do.
    with np.errstate(over="ignore"):
        low = space.low.reshape(-1).astype(np.float32)
        high = space.high.reshape(-1).astype(np.float32)
    return Box(low, high, dtype=np.float32)


@flatten_space.register(Discrete)
@flatten_space.register(MultiDiscrete)
@flatten_space.register(MultiBinary)
def _flatten_space_discrete(space: Space[Any]) -> Box:
    return Box(0, 1, (flatdim(space),), np.float32)


@flatten_space.register(Dict)
@flatten_space.register(Tuple)
def _flatten_space_composite(space: Dict | Tuple) -> Box:
    boxes = [flatten_space(sub) for sub in _children(space)]
    if not boxes:
        return Box([], [], (0,), np.float32)
    return Box(
        np.concatenate([b.low for b in boxes]),
        np.concatenate([b.high for b in boxes]),
        dtype=np.float32,
    )


# -- batch_space ------------------------------------------------------------------------------


@singledispatch
def batch_space(space: Space[Any], n: int) -> Space[Any]:
    """The space of ``n`` stacked samples of ``space`` (a Tuple of copies for a Sequence)."""
    raise _unsupported("batch_space", space)


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"batch_space n must be an int, got {n!r}.")
    if n < 0:
        raise ValueError(f"batch_space n must be >= 0, got {n}.")
    return int(n)


@batch_space.register
def _batch_box(space: Box, n: int) -> Box:
    n = _check_n(n)
    shape = (n, *space.shape)
    return Box(
        np.broadcast_to(space.low, shape), np.broadcast_to(space.high, shape), dtype=space.dtype
    )


@batch_space.register
def _batch_discrete(space: Discrete, n: int) -> MultiDiscrete:
    n = _check_n(n)
    return MultiDiscrete([space.n] * n, dtype=np.int64, start=[space.start] * n)


@batch_space.register
def _batch_multi_discrete(space: MultiDiscrete, n: int) -> MultiDiscrete:
    shape = (_check_n(n), *space.shape)
    return MultiDiscrete(
        np.broadcast_to(space.nvec, shape),
        dtype=space.dtype,
        start=np.broadcast_to(space.start, shape),
    )


@batch_space.register
def _batch_multi_binary(space: MultiBinary, n: int) -> MultiBinary:
    return MultiBinary((_check_n(n), *space.n))


@batch_space.register
def _batch_dict(space: Dict, n: int) -> Dict:
    return Dict({key: batch_space(sub, n) for key, sub in space.spaces.items()})


@batch_space.register
def _batch_tuple(space: Tuple, n: int) -> Tuple:
    return Tuple([batch_space(sub, n) for sub in space.spaces])


@batch_space.register
def _batch_sequence(space: Sequence, n: int) -> Tuple:
    n = _check_n(n)
    seeds = make_seed_sequence(int(space.rng.integers(2**63)), n)
    copies = []
    for seed in seeds:
        dup = copy.deepcopy(space)
        dup.seed(seed)
        copies.append(dup)
    return Tuple(copies)


# -- concatenate / iterate --------------------------------------------------------------------


@singledispatch
def concatenate(space: Space[Any], items: Iterable[Any]) -> Any:
    """Stack samples of ``space`` into one batched sample (a list for unregistered spaces)."""
    return list(items)


@concatenate.register(Box)
@concatenate.register(Discrete)
@concatenate.register(MultiDiscrete)
@concatenate.register(MultiBinary)
def _concatenate_array(space: Space[Any], items: Iterable[Any]) -> NDArray[Any]:
    rows = list(items)
    if not rows:
        raise ValueError("need at least one sample to concatenate")
    # One array from the list: several times faster than np.stack for small samples, and it
    # refuses samples of different shapes just the same.
    return np.array(rows)


@concatenate.register
def _concatenate_dict(space: Dict, items: Iterable[Any]) -> dict[Any, Any]:
    rows = list(items)
    return {key: concatenate(sub, [row[key] for row in rows]) for key, sub in space.spaces.items()}


@concatenate.register
def _concatenate_tuple(space: Tuple, items: Iterable[Any]) -> tuple[Any, ...]:
    rows = list(items)
    return tuple(concatenate(sub, [row[i] for row in rows]) for i, sub in enumerate(space.spaces))


@concatenate.register
def _concatenate_sequence(space: Sequence, items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(items)


@singledispatch
def iterate(space: Space[Any], batch: Any) -> Iterator[Any]:
    """Iterate over the samples in a batch (inverse of ``concatenate``)."""
    return iter(batch)


def _iterate_composite(space: Dict | Tuple, batch: Any) -> Iterator[Any]:
    """Check the batch now (errors surface on the call), then yield its rows lazily."""
    children = _children(space)
    columns: list[list[Any] | None] = [
        list(iterate(sub, value)) if holds_data(sub) else None
        for sub, value in zip(children, _values(space, batch), strict=True)
    ]
    lengths = {len(col) for col in columns if col is not None}
    if not lengths:
        raise ValueError(f"Cannot iterate {space!r}: it has no sub-space holding data.")
    if len(lengths) > 1:
        raise ValueError(
            f"Cannot iterate {space!r}: its sub-spaces hold different numbers of samples "
            f"{sorted(lengths)}."
        )
    (count,) = lengths
    fillers = [
        None if col is not None else zero_sample(sub)
        for sub, col in zip(children, columns, strict=True)
    ]
    return _iterate_rows(space, columns, fillers, count)


def _iterate_rows(
    space: Dict | Tuple, columns: list[list[Any] | None], fillers: list[Any], count: int
) -> Iterator[Any]:
    for i in range(count):
        yield _rebuild(
            space,
            (
                col[i] if col is not None else filler
                for col, filler in zip(columns, fillers, strict=True)
            ),
        )


@iterate.register
def _iterate_dict(space: Dict, batch: Any) -> Iterator[Any]:
    if not isinstance(batch, Mapping):
        return iter(batch)
    return _iterate_composite(space, batch)


@iterate.register
def _iterate_tuple(space: Tuple, batch: Any) -> Iterator[Any]:
    if not isinstance(batch, tuple):
        return iter(batch)
    return _iterate_composite(space, batch)


# -- zero_sample ------------------------------------------------------------------------------


@singledispatch
def zero_sample(space: Space[Any]) -> Any:
    """A fixed, valid "zero" element of ``space``."""
    raise TypeError(
        f"zero_sample is not defined for {type(space).__name__}; "
        f"register an implementation with zero_sample.register({type(space).__name__})."
    )


@zero_sample.register
def _zero_box(space: Box) -> NDArray[Any]:
    return space.zero()


@zero_sample.register
def _zero_discrete(space: Discrete) -> np.intp:
    return np.intp(space.start)


@zero_sample.register
def _zero_multi_discrete(space: MultiDiscrete) -> NDArray[Any]:
    return space.start.astype(space.dtype)


@zero_sample.register
def _zero_multi_binary(space: MultiBinary) -> NDArray[np.int8]:
    return np.zeros(space.n, dtype=np.int8)


@zero_sample.register
def _zero_dict(space: Dict) -> dict[Any, Any]:
    return {key: zero_sample(sub) for key, sub in space.spaces.items()}


@zero_sample.register
def _zero_masked_box(space: MaskedBox) -> dict[str, Any]:
    return space.empty()


@zero_sample.register
def _zero_tuple(space: Tuple) -> tuple[Any, ...]:
    return tuple(zero_sample(sub) for sub in space.spaces)


@zero_sample.register
def _zero_sequence(space: Sequence) -> Any:
    return space.pack([])


# -- JSON -------------------------------------------------------------------------------------

_SPACE_TYPES: dict[str, type[Space[Any]]] = {
    "Box": Box,
    "Discrete": Discrete,
    "MultiDiscrete": MultiDiscrete,
    "MultiBinary": MultiBinary,
    "Dict": Dict,
    "Tuple": Tuple,
    "Sequence": Sequence,
    "MaskedBox": MaskedBox,
}


def register_space_type(name: str, cls: type[Space[Any]]) -> None:
    """Make ``space_from_jsonable`` rebuild ``{"type": name, ...}`` with ``cls.from_jsonable``."""
    if not isinstance(name, str):
        raise TypeError(f"register_space_type name must be a str, got {name!r}.")
    if not (isinstance(cls, type) and issubclass(cls, Space)):
        raise TypeError(f"register_space_type cls must be a Space subclass, got {cls!r}.")
    _SPACE_TYPES[name] = cls


def space_from_jsonable(data: Mapping[str, Any]) -> Space[Any]:
    """Rebuild a space from ``to_jsonable()`` output, dispatching on ``data["type"]``."""
    if not isinstance(data, Mapping):
        raise TypeError(f"space_from_jsonable expects a mapping, got {data!r}.")
    kind = data.get("type")
    cls = _SPACE_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"Unknown space type {kind!r}; known types: {sorted(_SPACE_TYPES)}.")
    return cls.from_jsonable(dict(data))
