"""Generic operations on spaces: flattening, batching, zero samples and JSON loading.

All but the JSON pair are ``functools.singledispatch`` generics; custom spaces opt in with e.g.
``flatdim.register(MySpace)``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
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
)
from sekai.spaces._jsonable import register_space_type, space_from_jsonable
from sekai.spaces._stacking import children, concatenate, iterate, zero_sample
from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.masked_box import MaskedBox
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.sequence import Sequence
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple
from sekai.utils.seeding import make_seed_sequence
from sekai.utils.validation import check_int

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
    return sum(flatdim(sub) for sub in children(space))


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
    """The member of ``space`` that the flat vector ``x`` (e.g. a policy's output) decodes to.

    Every numeric vector of length ``flatdim(space)`` decodes: Box parts are cast, rounded and
    clipped into the bounds; Discrete and MultiDiscrete take the argmax of each one-hot block
    plus ``start``; MultiBinary takes ``x > 0.5``. Non-numeric ``x`` raises TypeError, a wrong
    length ValueError.
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
    return np.intp(int(np.argmax(_flat_vector(space, x))) + space.start)


def _block_argmax(
    arr: NDArray[Any], sizes: NDArray[np.int64], starts: NDArray[np.int64]
) -> NDArray[np.int64]:
    """``np.argmax`` of each block of ``arr`` (sizes ``sizes``, all >= 1, starting at ``starts``).

    As with ``np.argmax``, ties go to the first maximum and NaN counts as the largest value.
    """
    top = np.repeat(np.maximum.reduceat(arr, starts), sizes)  # NaN if the block holds one
    hits = arr == top
    if arr.dtype.kind == "f":
        hits |= np.isnan(arr)
    index = np.where(hits, np.arange(arr.size), arr.size)
    return np.minimum.reduceat(index, starts) - starts


@unflatten.register
def _unflatten_multi_discrete(space: MultiDiscrete, x: Any) -> NDArray[Any]:
    arr = _flat_vector(space, x)
    if space.nvec.size == 0:
        return space.start.astype(space.dtype)
    picks = _block_argmax(arr, space.nvec.reshape(-1), offsets(space))
    return (picks.reshape(space.shape) + space.start).astype(space.dtype)


@unflatten.register
def _unflatten_multi_binary(space: MultiBinary, x: Any) -> NDArray[np.int8]:
    return (_flat_vector(space, x) > 0.5).astype(np.int8).reshape(space.n)


def _split(space: Dict | Tuple, x: Any) -> list[NDArray[Any]]:
    """The flat vector ``x`` cut into one piece per sub-space."""
    arr = _flat_vector(space, x)
    subs = children(space)
    if not subs:
        return []
    return np.split(arr, np.cumsum([flatdim(sub) for sub in subs])[:-1])


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
    boxes = [flatten_space(sub) for sub in children(space)]
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
    return check_int(n, "batch_space n", low=0)


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


# -- concatenate and zero_sample of Sequence and MaskedBox -------------------------------------


@concatenate.register
def _concatenate_sequence(space: Sequence, items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(items)


@zero_sample.register
def _zero_masked_box(space: MaskedBox) -> dict[str, Any]:
    return space.empty()


@zero_sample.register
def _zero_sequence(space: Sequence) -> Any:
    return space.pack([])


# -- JSON -------------------------------------------------------------------------------------

for _cls in (Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple, Sequence, MaskedBox):
    register_space_type(_cls.__name__, _cls)
