"""Shared-memory buffers for the batched observations of fixed-size spaces (private)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator, Mapping
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np

from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space, Tuple

__all__ = ["NAME_PREFIX", "SharedObservations", "supports_shared_memory"]

NAME_PREFIX = "sekai_"
"""Prefix of the name of every shared-memory block this module creates."""

_ALIGN = 64

_Writer = Callable[[int, Any], None]
_Reader = Callable[[Any], Any]


def _leaf(space: Space[Any]) -> tuple[tuple[int, ...], np.dtype[Any]] | None:
    """Shape and dtype of one stored observation of a fixed-size leaf space, else None."""
    if isinstance(space, Box):
        return space.shape, space.dtype
    if isinstance(space, Discrete):
        return (), np.dtype(np.intp)
    if isinstance(space, MultiDiscrete):
        return space.shape, space.dtype
    if isinstance(space, MultiBinary):
        return space.shape, np.dtype(np.int8)
    return None


def supports_shared_memory(space: Space[Any]) -> bool:
    """Whether every part of ``space`` has a fixed size (Box, Discrete, MultiDiscrete,
    MultiBinary, nested in Dict/Tuple/MaskedBox)."""
    if isinstance(space, Dict):
        return all(supports_shared_memory(sub) for sub in space.spaces.values())
    if isinstance(space, Tuple):
        return all(supports_shared_memory(sub) for sub in space.spaces)
    return _leaf(space) is not None


def _leaves(space: Space[Any]) -> Iterator[tuple[tuple[int, ...], np.dtype[Any]]]:
    """Shape and dtype of every leaf of ``space``, depth first in key/position order."""
    if isinstance(space, Dict):
        for sub in space.spaces.values():
            yield from _leaves(sub)
    elif isinstance(space, Tuple):
        for sub in space.spaces:
            yield from _leaves(sub)
    else:
        leaf = _leaf(space)
        if leaf is None:
            raise TypeError(f"{space!r} has no fixed size and cannot use shared memory.")
        yield leaf


def _writer(space: Space[Any], arrays: Iterator[np.ndarray[Any, Any]]) -> _Writer:
    """A function storing one sub-env's observation of ``space`` in its row of ``arrays``."""
    if isinstance(space, Dict):
        keyed = [(key, _writer(sub, arrays)) for key, sub in space.spaces.items()]

        def write_dict(index: int, obs: Any) -> None:
            if not isinstance(obs, Mapping) or len(obs) != len(keyed):
                raise _misfit(space, obs)
            for key, write in keyed:
                if key not in obs:
                    raise _misfit(space, obs)
                write(index, obs[key])

        return write_dict
    if isinstance(space, Tuple):
        positional = [_writer(sub, arrays) for sub in space.spaces]

        def write_tuple(index: int, obs: Any) -> None:
            if not isinstance(obs, (tuple, list)) or len(obs) != len(positional):
                raise _misfit(space, obs)
            for write, part in zip(positional, obs, strict=True):
                write(index, part)

        return write_tuple
    return _leaf_writer(space, next(arrays))


def _misfit(space: Space[Any], obs: Any) -> Exception:
    """The error for a Dict/Tuple observation whose keys or length differ from ``space``."""
    expected = "a mapping with its keys" if isinstance(space, Dict) else "a tuple of its length"
    error = ValueError if isinstance(obs, (Mapping, tuple, list)) else TypeError
    return error(f"observation does not fit {space!r}: expected {expected}, got {obs!r}.")


def _leaf_writer(space: Space[Any], array: np.ndarray[Any, Any]) -> _Writer:
    """Store one observation of a leaf space in its row of ``array``, checked.

    The observation must have the row's shape exactly (nothing is broadcast) and a dtype that
    casts to the row's within its kind (``same_kind``) without overflow: an integer must fit
    the row's integer type and a finite float must stay finite. ``ValueError`` for a wrong
    shape or a value that does not fit, ``TypeError`` for a dtype of another kind.
    """
    shape = array.shape[1:]
    dtype = array.dtype

    def write(index: int, obs: Any) -> None:
        if obs.__class__ is np.ndarray and obs.dtype == dtype and obs.shape == shape:
            array[index] = obs
        else:
            _store(space, array, index, obs)

    return write


def _store(space: Space[Any], array: np.ndarray[Any, Any], index: int, obs: Any) -> None:
    """The checked slow path of ``_leaf_writer``: any array-like ``obs``."""
    shape = array.shape[1:]
    target = array.dtype
    value = np.asarray(obs)
    arrived = f"got {obs!r} (shape {value.shape}, dtype {value.dtype})"
    if value.shape != shape:
        raise ValueError(f"observation does not fit {space!r}: expected shape {shape}, {arrived}.")
    if not np.can_cast(value.dtype, target, "same_kind"):
        raise TypeError(
            f"observation does not fit {space!r}: expected dtype {target} (or one that casts "
            f"to it within its kind), {arrived}."
        )
    if target.kind in "iu" and value.dtype.kind in "iub" and value.size:
        limits = np.iinfo(target)
        if value.min() < limits.min or value.max() > limits.max:
            raise ValueError(
                f"observation does not fit {space!r}: values outside the range of {target} "
                f"[{limits.min}, {limits.max}], {arrived}."
            )
    with np.errstate(over="ignore"):
        array[index] = value
    if target.kind == "f" and value.dtype != target:
        overflow = np.isinf(array[index]) & ~np.isinf(value)
        if overflow.any():
            raise ValueError(
                f"observation does not fit {space!r}: finite values overflow {target}, {arrived}."
            )


def _reader(space: Space[Any], arrays: Iterator[np.ndarray[Any, Any]]) -> _Reader:
    """A function returning a copy of the batch of ``space`` held in ``arrays``: of the rows
    it is given (an int array), or of all rows for None."""
    if isinstance(space, Dict):
        keyed = [(key, _reader(sub, arrays)) for key, sub in space.spaces.items()]
        return lambda rows: {key: read(rows) for key, read in keyed}
    if isinstance(space, Tuple):
        positional = [_reader(sub, arrays) for sub in space.spaces]
        return lambda rows: tuple(read(rows) for read in positional)
    array = next(arrays)
    return lambda rows: array.copy() if rows is None else array[rows]


class SharedObservations:
    """The observations of ``num_envs`` sub-envs of ``space`` in one shared-memory block.

    Without ``name`` a new block named ``sekai_<pid>_<random>`` is created (and owned:
    :meth:`close` unlinks it); with ``name`` an existing block is attached.
    """

    def __init__(self, space: Space[Any], num_envs: int, name: str | None = None) -> None:
        layout = list(_leaves(space))
        offsets = []
        size = 0
        for shape, dtype in layout:
            offsets.append(size)
            nbytes = num_envs * int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            size += -(-nbytes // _ALIGN) * _ALIGN
        self.owner = name is None
        if name is None:
            name = f"{NAME_PREFIX}{os.getpid()}_{secrets.token_hex(6)}"
            self._shm = SharedMemory(name=name, create=True, size=max(size, 1))
        else:
            self._shm = SharedMemory(name=name)
        self.name: str = self._shm.name
        arrays = [
            np.ndarray((num_envs, *shape), dtype, buffer=self._shm.buf, offset=offset)
            for (shape, dtype), offset in zip(layout, offsets, strict=True)
        ]
        self._write: _Writer | None = _writer(space, iter(arrays))
        self._read: _Reader | None = _reader(space, iter(arrays))

    def write(self, index: int, obs: Any) -> None:
        """Store the observation of sub-env ``index``."""
        assert self._write is not None, "the shared-memory block is closed"
        self._write(index, obs)

    def read(self, rows: Any = None) -> Any:
        """Return a copy of the batched observations (arrays, or a dict/tuple of arrays): of
        sub-envs ``rows`` (an int array) in that order, or of all of them."""
        assert self._read is not None, "the shared-memory block is closed"
        return self._read(rows)

    def close(self) -> None:
        """Detach from the block, and unlink it if this object created it. Idempotent."""
        if self._write is None:
            return
        self._write = self._read = None  # drop every view of the buffer before closing it
        self._shm.close()
        if self.owner:
            self._shm.unlink()
