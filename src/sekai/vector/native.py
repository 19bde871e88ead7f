"""``NativeVecEnv``: vector envs that advance every sub-env at once with array operations.

A step costs a fixed number of NumPy calls whatever ``num_envs`` is. Its ``infos`` is a
``LazyInfos``: a ``list`` of one dict per sub-env that is only built when first read.
"""

from __future__ import annotations

import abc
import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai._types import ActType, ObsType, SeedType
from sekai.core.rng import SeededRNG
from sekai.error import ResetRequired, VecEnvClosed
from sekai.spaces.box import Box
from sekai.spaces.dict import Dict
from sekai.spaces.discrete import Discrete
from sekai.spaces.multi_binary import MultiBinary
from sekai.spaces.multi_discrete import MultiDiscrete
from sekai.spaces.sequence import holds_data
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple
from sekai.spaces.utils import iterate
from sekai.utils.seeding import np_random
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import (
    VecEnv,
    check_vector_seed,
    per_env_values,
    resolve_options,
    resolve_seeds,
)

__all__ = ["LazyInfos", "NativeVecEnv", "shared", "split_infos", "take_index"]

_M = TypeVar("_M")


def shared(member: _M) -> _M:
    """Mark a method or property getter as one value for all sub-envs (apply under ``@property``).

    ``get_attr`` / ``call`` of a ``NativeVecEnv`` then give every sub-env the whole value
    instead of splitting an array whose leading axis happens to be ``num_envs``.
    """
    member.__sekai_shared__ = True  # type: ignore[attr-defined]
    return member


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


def _take_rows(space: Space[Any], batch: Any, indices: NDArray[np.intp]) -> Any:
    """The sub-batch of rows ``indices`` of an ``_array_batch`` (new arrays, same dtypes)."""
    if isinstance(space, Dict):
        return {key: _take_rows(sub, batch[key], indices) for key, sub in space.spaces.items()}
    if isinstance(space, Tuple):
        return tuple(
            _take_rows(sub, part, indices) for sub, part in zip(space.spaces, batch, strict=True)
        )
    return batch[indices]


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


def _where_rows(space: Space[Any], mask: NDArray[np.bool_], a: Any, b: Any) -> Any:
    """A new batch with the rows of batch ``a`` where ``mask`` is set and of ``b`` elsewhere."""
    if isinstance(space, Dict):
        return {key: _where_rows(sub, mask, a[key], b[key]) for key, sub in space.spaces.items()}
    if isinstance(space, Tuple):
        return tuple(
            _where_rows(sub, mask, x, y) for sub, x, y in zip(space.spaces, a, b, strict=True)
        )
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return np.where(mask.reshape(mask.shape + (1,) * (a.ndim - 1)), a, b)
    return type(b)(x if m else y for m, x, y in zip(mask.tolist(), a, b, strict=True))


def _check_info_arrays(infos: Mapping[str, Any], n: int) -> dict[str, NDArray[Any]]:
    """Copies of the info values as arrays, each checked to have a leading axis of ``n``.

    Copying keeps a lazily split info correct when a subclass returns its own state arrays.
    """
    arrays = {}
    for key, value in infos.items():
        array = np.array(value)
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
    return _split(_check_info_arrays(infos, n), n)


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
            batch = _take_rows(held, batch, self._final_indices)
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


class NativeVecEnv(SeededRNG, VecEnv[ObsType, ActType]):
    """Base class of vector envs that advance all sub-envs with array operations.

    Subclasses implement ``_reset_envs``, ``_observe`` and ``_step`` (and optionally
    ``_reset_infos``); this class does seeding, options, autoreset or freezing, the time
    limit, info splitting, batched spaces and closing. All randomness comes from ``self.rng``.
    Generic like ``VecEnv``: ``NativeVecEnv[ObsType, ActType]``.
    """

    def __init__(
        self,
        num_envs: int,
        observation_space: Space[Any],
        action_space: Space[Any],
        *,
        autoreset: bool = True,
        max_episode_steps: int | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError(f"num_envs must be an int, got {num_envs!r}.")
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}.")
        if max_episode_steps is not None:
            if isinstance(max_episode_steps, bool) or not isinstance(
                max_episode_steps, (int, np.integer)
            ):
                raise TypeError(
                    f"max_episode_steps must be an int or None, got {max_episode_steps!r}."
                )
            if max_episode_steps < 1:
                raise ValueError(f"max_episode_steps must be >= 1, got {max_episode_steps}.")
            max_episode_steps = int(max_episode_steps)
        n = int(num_envs)
        self.num_envs = n
        self.observation_space = observation_space
        self.action_space = action_space
        self.autoreset = bool(autoreset)
        self.max_episode_steps: int | None = max_episode_steps
        self._all = np.arange(n)
        self._elapsed = np.zeros(n, dtype=np.int64)
        self._frozen = np.zeros(n, dtype=bool)
        self._any_frozen = False
        self._final_obs: Any = None
        self._final_terminated = np.zeros(n, dtype=bool)
        self._final_truncated = np.zeros(n, dtype=bool)
        self._last_actions: NDArray[Any] | None = None
        self._needs_reset = True

    # -- hooks ---------------------------------------------------------------------------------

    @abc.abstractmethod
    def _reset_envs(self, indices: NDArray[np.intp], options: Sequence[Any]) -> None:
        """(Re)initialise the sub-envs in ``indices``, with one options value per index."""

    @abc.abstractmethod
    def _observe(self) -> ObsType:
        """A new batch with the observation of every sub-env."""

    @abc.abstractmethod
    def _step(self, actions: ActType) -> tuple[Any, Any, Any, Mapping[str, Any]]:
        """Advance every sub-env: ``(rewards, terminated, truncated, info_arrays)``."""

    def _reset_infos(self, indices: NDArray[np.intp]) -> Mapping[str, Any]:
        """Info arrays (leading axis ``len(indices)``) for the sub-envs just reset."""
        return {}

    # -- state ---------------------------------------------------------------------------------

    @property
    def frozen(self) -> NDArray[np.bool_]:
        """Which sub-envs are frozen (finished with autoreset off); a copy."""
        return self._frozen.copy()

    @property
    def elapsed_steps(self) -> NDArray[np.int64]:
        """Steps of each sub-env's current episode; a copy."""
        return self._elapsed.copy()

    # -- reset / step --------------------------------------------------------------------------

    def _seed(self, seed: Any) -> None:
        if seed is None:
            return
        if isinstance(seed, list):
            # Every entry is checked before anything is drawn, so a bad list leaves rng untouched.
            seeds = resolve_seeds(seed, self.num_envs)
            if all(s is None for s in seeds):
                return
            entropy = [
                s if isinstance(s, int) else int((self.rng if s is None else s).integers(2**63))
                for s in seeds
            ]
            self.rng = np.random.default_rng(entropy)
            return
        self._rng, self._rng_seed = np_random(check_vector_seed(seed))

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[ObsType]:
        """Seed ``rng``, reset every sub-env and unfreeze them all."""
        self._check_open()
        opts = resolve_options(options, self.num_envs)
        self._seed(seed)
        self._frozen = np.zeros(self.num_envs, dtype=bool)
        self._any_frozen = False
        self._final_obs = self._last_actions = None
        self._reset_envs(self._all, opts)
        self._elapsed[:] = 0
        self._needs_reset = False
        observations = self._observe()
        arrays = _check_info_arrays(self._reset_infos(self._all), self.num_envs)
        return VecResetResult(observations, LazyInfos(self.num_envs, arrays))

    def _hold_frozen_actions(self, actions: Any) -> Any:
        """Give frozen sub-envs their last action again (numeric arrays only); remember them."""
        n = self.num_envs
        if not (
            isinstance(actions, np.ndarray)
            and actions.dtype.kind in "biufc"
            and actions.ndim
            and actions.shape[0] == n
        ):
            return actions
        last = self._last_actions
        if self._any_frozen and last is not None and last.shape == actions.shape:
            mask = self._frozen.reshape((n,) + (1,) * (actions.ndim - 1))
            actions = np.where(mask, last, actions).astype(actions.dtype, copy=False)
        self._last_actions = np.array(actions)
        return actions

    def step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Advance every sub-env; reset (or freeze) the ones whose episode ended."""
        if self.closed:
            raise VecEnvClosed()
        if self._needs_reset:
            raise ResetRequired("Call reset() before step() on a NativeVecEnv.")
        n = self.num_envs
        if not self.autoreset:
            actions = self._hold_frozen_actions(actions)
        rewards, terminated, truncated, info = self._step(actions)
        rewards = np.array(rewards, dtype=np.float64)
        terminated = np.array(terminated, dtype=bool)
        truncated = np.array(truncated, dtype=bool)
        if rewards.shape != (n,) or terminated.shape != (n,) or truncated.shape != (n,):
            raise ValueError(
                f"{type(self).__name__}._step() must return rewards, terminated and truncated "
                f"of shape ({n},), got {rewards.shape}, {terminated.shape} and {truncated.shape}."
            )
        arrays = _check_info_arrays(info, n)
        elapsed = self._elapsed
        if self._any_frozen:
            elapsed += ~self._frozen
        else:
            elapsed += 1
        limit = self.max_episode_steps
        if limit is not None:
            truncated |= elapsed >= limit
            arrays["elapsed_steps"] = elapsed.copy()
        observations = self._observe()
        if self.autoreset:
            return self._autoreset(observations, rewards, terminated, truncated, arrays)
        return self._freeze(observations, rewards, terminated, truncated, arrays)

    def _autoreset(
        self,
        observations: Any,
        rewards: NDArray[np.float64],
        terminated: NDArray[np.bool_],
        truncated: NDArray[np.bool_],
        arrays: dict[str, NDArray[Any]],
    ) -> VecStepResult[ObsType]:
        n = self.num_envs
        done = np.flatnonzero(terminated | truncated)
        if not len(done):
            return VecStepResult(observations, rewards, terminated, truncated, LazyInfos(n, arrays))
        self._reset_envs(done, [None] * len(done))
        self._elapsed[done] = 0
        reset_arrays = _check_info_arrays(self._reset_infos(done), len(done))
        infos = LazyInfos(
            n, arrays, final=(done, observations, self.observation_space, reset_arrays)
        )
        return VecStepResult(self._observe(), rewards, terminated, truncated, infos)

    def _freeze(
        self,
        observations: Any,
        rewards: NDArray[np.float64],
        terminated: NDArray[np.bool_],
        truncated: NDArray[np.bool_],
        arrays: dict[str, NDArray[Any]],
    ) -> VecStepResult[ObsType]:
        space = self.observation_space
        frozen = self._frozen
        empty = None
        if self._any_frozen:
            empty = frozen
            rewards[frozen] = 0.0
            terminated[frozen] = self._final_terminated[frozen]
            truncated[frozen] = self._final_truncated[frozen]
            observations = _where_rows(space, frozen, self._final_obs, observations)
        newly = (terminated | truncated) & ~frozen
        if newly.any():
            held = observations if self._final_obs is None else self._final_obs
            self._final_obs = _where_rows(space, newly, observations, held)
            self._final_terminated = terminated.copy()
            self._final_truncated = truncated.copy()
            self._frozen = frozen | newly
            self._any_frozen = True
        infos = LazyInfos(self.num_envs, arrays, empty=empty)
        return VecStepResult(observations, rewards, terminated, truncated, infos)

    def close(self) -> None:
        """Mark the env closed; idempotent."""
        self.closed = True

    # -- reaching the sub-envs -----------------------------------------------------------------

    def _is_shared(self, name: str) -> bool:
        member = getattr(type(self), name, None)
        if isinstance(member, property):
            member = member.fget
        return bool(getattr(member, "__sekai_shared__", False))

    def _per_env(self, name: str, value: Any) -> list[Any]:
        n = self.num_envs
        if (
            isinstance(value, np.ndarray)
            and value.ndim
            and value.shape[0] == n
            and not self._is_shared(name)
        ):
            return list(value.copy())
        return [value] * n

    def get_attr(self, name: str) -> list[Any]:
        """``name`` of this object, split per sub-env when it is a ``(num_envs, ...)`` array."""
        return self._per_env(name, getattr(self, name))

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call method ``name`` (or read the attribute), split per sub-env like ``get_attr``."""
        member = getattr(self, name)
        return self._per_env(name, member(*args, **kwargs) if callable(member) else member)

    def set_attr(self, name: str, values: Any) -> None:
        """Change an existing attribute: a list of ``num_envs`` values is stored as one array."""
        if not hasattr(self, name):
            raise AttributeError(
                f"{type(self).__name__} has no attribute {name!r}; set_attr only changes "
                "existing attributes."
            )
        if isinstance(values, list):
            values = np.asarray(per_env_values(name, values, self.num_envs))
        setattr(self, name, values)
