"""``LazyInfos``: the per-sub-env info dicts of a native vector env, built on first read.

A native step returns its infos as arrays with a leading ``num_envs`` axis; the list of one
dict per sub-env is only built from them when something reads it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.sequence import holds_data
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple
from sekai.spaces.utils import iterate
from sekai.vector._partial import take_rows

__all__ = ["LazyInfos", "check_info_arrays", "split_infos", "take_index"]


def take_index(space: Space[Any], batch: Any, index: int) -> Any:
    """Sub-env ``index``'s sample of a batch of ``space`` (through Dict / Tuple; arrays copied)."""
    if isinstance(space, Dict):
        return {key: take_index(sub, batch[key], index) for key, sub in space.spaces.items()}
    if isinstance(space, Tuple):
        return tuple(
            take_index(sub, part, index) for sub, part in zip(space.spaces, batch, strict=True)
        )
    row = batch[index]
    return row.copy() if isinstance(row, np.ndarray) else copy.deepcopy(row)


_ARRAY_SPACES = (Box, Discrete, MultiDiscrete, MultiBinary)


def _array_batch(space: Space[Any], batch: Any) -> bool:
    """Whether ``batch`` is a batch of ``space`` with an array (ndim >= 1) on every leaf.

    Leaves must be spaces that ``concatenate`` stacks into one array, so that fancy-indexing
    the batch gives exactly the stack of its rows (Dict, MaskedBox included, and Tuple recurse).
    """
    if isinstance(space, Dict):
        return isinstance(batch, Mapping) and all(
            key in batch and _array_batch(sub, batch[key]) for key, sub in space.spaces.items()
        )
    if isinstance(space, Tuple):
        return (
            isinstance(batch, tuple)
            and len(batch) == len(space.spaces)
            and all(_array_batch(sub, part) for sub, part in zip(space.spaces, batch, strict=True))
        )
    return isinstance(space, _ARRAY_SPACES) and isinstance(batch, np.ndarray) and batch.ndim >= 1


def _array_space(space: Space[Any]) -> bool:
    """Whether every leaf of ``space`` (through Dict / Tuple) is an array space."""
    if isinstance(space, Dict):
        return all(_array_space(sub) for sub in space.spaces.values())
    if isinstance(space, Tuple):
        return all(_array_space(sub) for sub in space.spaces)
    return isinstance(space, _ARRAY_SPACES)


def _has_rows(space: Space[Any], batch: Any, count: int) -> bool:
    """Whether ``iterate(space, batch)`` yields ``count`` rows split off arrays.

    Follows ``iterate``: a Dict (Tuple) space with a mapping (tuple) batch splits the children
    holding data; anything else is iterated as is, which must then be an array of ``count``.
    """
    if isinstance(space, Dict) and isinstance(batch, Mapping):
        children = [(sub, batch.get(key)) for key, sub in space.spaces.items()]
    elif isinstance(space, Tuple) and isinstance(batch, tuple):
        if len(batch) != len(space.spaces):
            return False
        children = list(zip(space.spaces, batch, strict=True))
    else:
        return isinstance(batch, np.ndarray) and batch.ndim >= 1 and len(batch) == count
    data = [(sub, part) for sub, part in children if holds_data(sub)]
    return bool(data) and all(_has_rows(sub, part, count) for sub, part in data)


def _own(row: Any) -> Any:
    """``row`` with its arrays copied, so that it shares no memory with the batch it came from."""
    if isinstance(row, np.ndarray):
        return row.copy()
    if type(row) is dict:
        return {key: _own(value) for key, value in row.items()}
    if type(row) is tuple:
        return tuple(_own(value) for value in row)
    return copy.deepcopy(row)


def check_info_arrays(infos: Mapping[str, Any], n: int) -> dict[str, NDArray[Any]]:
    """C-contiguous copies of the info values as arrays, each with a leading axis of ``n``.

    Copying keeps a lazily split info correct when a subclass returns its own state arrays
    (or views of them, such as a transposed state: each sub-env's row comes out contiguous).
    """
    arrays = {}
    for key, value in infos.items():
        array = np.array(value, order="C")
        if array.ndim == 0 or array.shape[0] != n:
            raise ValueError(
                f"info {key!r} must be an array with a leading axis of {n} sub-envs, "
                f"got shape {array.shape}."
            )
        arrays[key] = array
    return arrays


def _column_values(array: NDArray[Any]) -> list[Any]:
    """Per-row values: Python scalars for 1-D arrays (numpy ones for datetimes), else row copies."""
    if array.ndim > 1:
        return list(array.copy())
    return list(array) if array.dtype.kind in "mM" else array.tolist()


def _split(arrays: Mapping[str, NDArray[Any]], n: int) -> list[dict[str, Any]]:
    """One dict per row of the (checked) info arrays."""
    if not arrays:
        return [{} for _ in range(n)]
    items = iter(arrays.items())
    key, array = next(items)
    infos = [{key: value} for value in _column_values(array)]
    for key, array in items:
        for info, value in zip(infos, _column_values(array), strict=True):
            info[key] = value
    return infos


def split_infos(infos: Mapping[str, Any], n: int) -> list[dict[str, Any]]:
    """Split info arrays with a leading axis of ``n`` into one dict per sub-env.

    1-D arrays give Python scalars (``tolist()``; datetime64 / timedelta64 stay numpy
    scalars), higher-dimensional ones a copied row each.
    """
    return _split(check_info_arrays(infos, n), n)


_NO_INDICES = np.empty(0, dtype=np.intp)
_NO_INDICES.flags.writeable = False
_NO_FINAL: tuple[NDArray[np.intp], Any, Space[Any] | None, dict[str, NDArray[Any]]] = (
    _NO_INDICES,
    None,
    None,
    {},
)


class LazyInfos(list[dict[str, Any]]):
    """The ``list`` of one info dict per sub-env, built from arrays on its first read.

    It behaves as the list of dicts for every read and write. The library's own consumers
    use this private API instead, which never builds the dicts:

    * ``_arrays``: the step's info arrays (``elapsed_steps`` included), leading axis
      ``num_envs``; read-only. Rows of sub-envs in ``_empty`` are not in the dicts.
    * ``_empty``: bool mask of the sub-envs whose dict is ``{}`` (frozen ones), or None.
    * ``_final_indices``: the sub-envs reset by autoreset in this step (their dicts hold
      ``final_observation``, ``final_info`` and ``reset_info``).
    * ``_filled``: whether the dicts have been built.
    * ``_column(key)``: one key for every sub-env as an array, or None.
    * ``_set_entries(key, indices, values)``: set ``infos[i][key]`` for the given sub-envs.
    * ``_map_final_observations(fn)``: replace each ``final_observation`` by ``fn(obs)``, now.
    * ``_map_final_batch(fn, space)``: the same with ``fn`` applied once to the terminal
      rows as one batch (its rows, of ``space``, split off on read); False where it can't.

    The terminal observations are held as a batch until read: first the step's whole batch
    (rows ``_final_indices``), after a ``_map_final_batch`` only those rows
    (``_final_compact``); ``_final_rows`` holds them once split into rows.
    """

    __slots__ = (
        "_added",
        "_arrays",
        "_empty",
        "_filled",
        "_final_batch",
        "_final_compact",
        "_final_indices",
        "_final_rows",
        "_n",
        "_reset_arrays",
        "_space",
    )

    def __init__(
        self,
        n: int,
        arrays: dict[str, NDArray[Any]],
        *,
        empty: NDArray[np.bool_] | None = None,
        final: tuple[NDArray[np.intp], Any, Space[Any], dict[str, NDArray[Any]]] | None = None,
    ) -> None:
        """``final``: (reset sub-envs, terminal observation batch, its space, reset infos)."""
        super().__init__()
        self._n = n
        self._arrays = arrays
        self._empty = empty
        self._filled = False
        self._added: list[tuple[str, list[int], list[Any]]] = []
        self._final_rows: list[Any] | None = None
        self._final_compact = False
        self._final_indices, self._final_batch, self._space, self._reset_arrays = final or _NO_FINAL

    def _terminal_rows(self) -> list[Any]:
        if self._final_rows is None:
            space, batch = self._space, self._final_batch
            assert space is not None
            if self._final_compact:
                self._final_rows = [_own(row) for row in iterate(space, batch)]
            elif isinstance(space, _ARRAY_SPACES) and _array_batch(space, batch):
                # one fancy-indexed copy, split into rows that share no memory with the batch
                self._final_rows = list(batch[self._final_indices])
            else:
                indices = self._final_indices.tolist()
                self._final_rows = [take_index(space, batch, i) for i in indices]
        return self._final_rows

    def _fill(self) -> None:
        if self._filled:
            return
        infos = _split(self._arrays, self._n)
        if self._empty is not None:
            for i in np.flatnonzero(self._empty).tolist():
                infos[i] = {}
        if len(self._final_indices):
            resets = _split(self._reset_arrays, len(self._final_indices))
            rows = self._terminal_rows()
            for i, row, reset in zip(self._final_indices.tolist(), rows, resets, strict=True):
                info = infos[i]
                infos[i] = {
                    **info,
                    "final_observation": row,
                    "final_info": info,
                    "reset_info": reset,
                }
        for key, indices, values in self._added:
            for i, value in zip(indices, values, strict=True):
                infos[i][key] = value
        list.extend(self, infos)
        self._filled = True

    def _column(self, key: str) -> NDArray[Any] | None:
        """``key``'s value for every sub-env as one array, or None where some lack it."""
        if not self._filled and self._empty is None and all(k != key for k, _, _ in self._added):
            return self._arrays.get(key)
        if not all(key in info for info in self):
            return None
        return np.array([info[key] for info in self])

    def _set_entries(self, key: str, indices: Sequence[int], values: Sequence[Any]) -> None:
        """Set ``infos[i][key] = value`` for each sub-env ``i`` of ``indices``."""
        indices, values = [int(i) for i in indices], list(values)
        if len(indices) != len(values):
            raise ValueError(f"got {len(indices)} indices but {len(values)} values for {key!r}.")
        if self._filled:
            for i, value in zip(indices, values, strict=True):
                self[i][key] = value
        else:
            self._added.append((key, indices, values))

    def _map_final_observations(self, fn: Callable[[Any], Any]) -> None:
        """Replace every ``final_observation`` by ``fn(final_observation)`` (applied now)."""
        if self._filled:
            for info in self:
                if "final_observation" in info:
                    info["final_observation"] = fn(info["final_observation"])
        elif len(self._final_indices):
            self._final_rows = [fn(row) for row in self._terminal_rows()]

    def _map_final_batch(self, fn: Callable[[Any], Any], space: Space[Any]) -> bool:
        """Replace the terminal observations by ``fn(batch)`` of them, a batch of ``space``.

        ``fn`` is called once, now, with the terminal rows (in ``_final_indices`` order) as one
        batch, and each ``final_observation`` becomes, on read, its own copy of a row of the
        result (split by ``iterate(space, ...)``). ``fn`` must transform each row on its own.

        Returns False, having changed nothing, where ``_map_final_observations`` must be used
        instead: the dicts or the rows are already built, the batch or ``space`` is not made
        of array spaces, or ``fn``'s result does not split into one row per terminal
        observation (``fn`` was then called, its result dropped).
        """
        if self._filled or self._final_rows is not None:
            return False
        count = len(self._final_indices)
        if not count:
            return True
        held, batch = self._space, self._final_batch
        if held is None:
            return False
        if not (_array_space(space) and _array_batch(held, batch)):
            return False
        if not self._final_compact:
            batch = take_rows(held, batch, self._final_indices)
        out = fn(batch)
        if not _has_rows(space, out, count):
            return False
        self._final_batch, self._space, self._final_compact = out, space, True
        return True

    def __len__(self) -> int:
        return list.__len__(self) if self._filled else self._n

    def __radd__(self, other: Any) -> Any:
        if not isinstance(other, list):
            return NotImplemented
        self._fill()
        return list.__add__(other, self)

    def __reduce_ex__(self, protocol: Any) -> tuple[type[list[Any]], tuple[list[Any]]]:
        self._fill()
        return list, (list.copy(self),)

    def __reduce__(self) -> tuple[type[list[Any]], tuple[list[Any]]]:
        return self.__reduce_ex__(2)

    def __repr__(self) -> str:
        self._fill()
        return list.__repr__(self)


def _filling(name: str) -> Callable[..., Any]:
    """``list.<name>``, run once this list and any LazyInfos argument have been built."""
    method = getattr(list, name)

    def filled_first(self: LazyInfos, *args: Any, **kwargs: Any) -> Any:
        self._fill()
        for arg in args:
            if isinstance(arg, LazyInfos):
                arg._fill()
        return method(self, *args, **kwargs)

    filled_first.__name__ = name
    filled_first.__qualname__ = f"LazyInfos.{name}"
    filled_first.__doc__ = method.__doc__
    return filled_first


for _name in (
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__iter__",
    "__reversed__",
    "__contains__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__add__",
    "__iadd__",
    "__mul__",
    "__rmul__",
    "__imul__",
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "index",
    "count",
    "sort",
    "reverse",
    "copy",
):
    setattr(LazyInfos, _name, _filling(_name))
