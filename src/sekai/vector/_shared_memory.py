"""Shared-memory buffers for the batched observations of fixed-size spaces (private)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np

from sekai.spaces import Box, Dict, Discrete, MultiBinary, MultiDiscrete, Space, Tuple

__all__ = ["NAME_PREFIX", "SharedObservations", "supports_shared_memory"]

NAME_PREFIX = "sekai_"
"""Prefix of the name of every shared-memory block this module creates."""

_ALIGN = 64

_Writer = Callable[[int, Any], None]
_Reader = Callable[[], Any]


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
            for key, write in keyed:
                write(index, obs[key])

        return write_dict
    if isinstance(space, Tuple):
        positional = [_writer(sub, arrays) for sub in space.spaces]

        def write_tuple(index: int, obs: Any) -> None:
            for write, part in zip(positional, obs, strict=True):
                write(index, part)

        return write_tuple
    return next(arrays).__setitem__


def _reader(space: Space[Any], arrays: Iterator[np.ndarray[Any, Any]]) -> _Reader:
    """A function returning a copy of the batch of ``space`` held in ``arrays``."""
    if isinstance(space, Dict):
        keyed = [(key, _reader(sub, arrays)) for key, sub in space.spaces.items()]
        return lambda: {key: read() for key, read in keyed}
    if isinstance(space, Tuple):
        positional = [_reader(sub, arrays) for sub in space.spaces]
        return lambda: tuple(read() for read in positional)
    return next(arrays).copy


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

    def read(self) -> Any:
        """Return a copy of the batched observations (arrays, or a dict/tuple of arrays)."""
        assert self._read is not None, "the shared-memory block is closed"
        return self._read()

    def close(self) -> None:
        """Detach from the block, and unlink it if this object created it. Idempotent."""
        if self._write is None:
            return
        self._write = self._read = None  # drop every view of the buffer before closing it
        self._shm.close()
        if self.owner:
            self._shm.unlink()
