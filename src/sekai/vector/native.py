"""``NativeVecEnv``: vector envs that advance every sub-env at once with array operations.

A step costs a fixed number of NumPy calls whatever ``num_envs`` is. Its ``infos`` is a
``LazyInfos``: a ``list`` of one dict per sub-env that is only built when first read.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from sekai._types import ActType, ObsType, SeedType
from sekai.core.options import check_options_type
from sekai.core.rng import SeededRNG
from sekai.error import ResetRequired, VecEnvClosed
from sekai.spaces.dict import Dict
from sekai.spaces.space import Space
from sekai.spaces.tuple import Tuple
from sekai.utils.seeding import np_random
from sekai.utils.validation import check_int
from sekai.vector.lazy_infos import LazyInfos as LazyInfos
from sekai.vector.lazy_infos import check_info_arrays
from sekai.vector.lazy_infos import split_infos as split_infos
from sekai.vector.lazy_infos import take_index as take_index
from sekai.vector.partial_reset import PARTIAL_RESET_FIRST, split_reset_mask
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


def _spread(array: NDArray[Any], indices: NDArray[np.intp], n: int) -> NDArray[Any]:
    """``array`` (a row per entry of ``indices``) as those rows of ``n``, zeros elsewhere."""
    full = np.zeros((n, *array.shape[1:]), dtype=array.dtype)
    full[indices] = array
    return full


class NativeVecEnv(SeededRNG, VecEnv[ObsType, ActType]):
    """Base class of vector envs that advance all sub-envs with array operations.

    Subclasses implement ``_reset_envs``, ``_observe`` and ``_step`` (and optionally
    ``_reset_infos``); this class does seeding, options, autoreset or freezing, the time
    limit, info splitting, batched spaces and closing. All randomness comes from ``self.rng``.
    With ``autoreset=False``, ``_step`` reads ``active`` to leave frozen sub-envs unchanged;
    their observations, rewards, flags, infos and actions are restored here.
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
        owner = type(self).__name__
        num_envs = check_int(num_envs, f"{owner}: num_envs", low=1)
        if max_episode_steps is not None:
            max_episode_steps = check_int(max_episode_steps, f"{owner}: max_episode_steps", low=1)
        n = num_envs
        self.num_envs = n
        self.observation_space = observation_space
        self.action_space = action_space
        self.autoreset = bool(autoreset)
        self.max_episode_steps: int | None = max_episode_steps
        self._all = np.arange(n)
        self._elapsed = np.zeros(n, dtype=np.int64)
        self._frozen = np.zeros(n, dtype=bool)
        self._active: NDArray[np.bool_] | None = None
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
        """Advance the sub-envs in ``active`` (all when None): ``(rewards, terminated,
        truncated, info_arrays)``, each with a leading ``num_envs`` axis."""

    def _reset_infos(self, indices: NDArray[np.intp]) -> Mapping[str, Any]:
        """Info arrays (leading axis ``len(indices)``) for the sub-envs just reset."""
        return {}

    # -- state ---------------------------------------------------------------------------------

    @property
    def frozen(self) -> NDArray[np.bool_]:
        """Which sub-envs are frozen (finished with autoreset off); a copy."""
        return self._frozen.copy()

    @property
    def active(self) -> NDArray[np.bool_] | None:
        """The sub-envs that ``_step`` advances: None while none is frozen, else a read-only mask.

        Only ``autoreset=False`` freezes sub-envs, so with autoreset it is always None.
        """
        return self._active

    @property
    def elapsed_steps(self) -> NDArray[np.int64]:
        """Steps of each sub-env's current episode; a copy."""
        return self._elapsed.copy()

    # -- reset / step --------------------------------------------------------------------------

    def _seed(self, seed: Any, mask: NDArray[np.bool_] | None = None) -> None:
        """Reseed ``rng`` from ``seed``; a list counts only the entries ``mask`` selects."""
        if seed is None:
            return
        if isinstance(seed, list):
            # Every entry is checked before anything is drawn, so a bad list leaves rng untouched.
            seeds = resolve_seeds(seed, self.num_envs)
            if mask is not None:
                seeds = [s for s, m in zip(seeds, mask.tolist(), strict=True) if m]
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
        """Seed ``rng``, reset every sub-env and unfreeze them all (only the selected ones
        with a ``reset_mask`` in ``options``)."""
        self._check_open()
        self._check_idle("reset")
        mask, options = split_reset_mask(options, self.num_envs)
        if mask is not None:
            return self._reset_masked(mask, seed, options)
        opts = resolve_options(options, self.num_envs)
        self._seed(seed)
        self._frozen = np.zeros(self.num_envs, dtype=bool)
        self._active = None
        self._final_obs = self._last_actions = None
        self._reset_envs(self._all, opts)
        self._elapsed[:] = 0
        self._needs_reset = False
        observations = self._observe()
        arrays = check_info_arrays(self._reset_infos(self._all), self.num_envs)
        return VecResetResult(observations, LazyInfos(self.num_envs, arrays))

    def _reset_masked(
        self, mask: NDArray[np.bool_], seed: Any, options: Any
    ) -> VecResetResult[ObsType]:
        """Reset and unfreeze the sub-envs ``mask`` selects; the others keep their episode.

        ``seed`` reseeds ``rng`` as a full reset does (a list through the selected entries
        only), unless nothing is selected. The other rows are the current observations (the
        final one of a frozen sub-env) with ``{}`` as info.
        """
        if self._needs_reset:
            raise ResetRequired(PARTIAL_RESET_FIRST)
        check_options_type(options)
        indices = np.flatnonzero(mask)
        n = self.num_envs
        arrays: dict[str, NDArray[Any]] = {}
        if len(indices):
            self._seed(seed, mask)
            self._reset_envs(indices, [options] * len(indices))
            self._elapsed[indices] = 0
            frozen = self._frozen & ~mask
            self._frozen = frozen
            if frozen.any():
                active = ~frozen
                active.flags.writeable = False
                self._active = active
            else:
                self._active = None
            reset_arrays = check_info_arrays(self._reset_infos(indices), len(indices))
            arrays = {key: _spread(array, indices, n) for key, array in reset_arrays.items()}
        else:
            resolve_seeds(seed, n)  # checked all the same; nothing is reset, nothing seeded
        observations = self._observe()
        if self._active is not None:
            observations = _where_rows(
                self.observation_space, self._frozen, self._final_obs, observations
            )
        return VecResetResult(observations, LazyInfos(n, arrays, empty=~mask))

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
        if self._active is not None and last is not None and last.shape == actions.shape:
            mask = self._frozen.reshape((n,) + (1,) * (actions.ndim - 1))
            actions = np.where(mask, last, actions).astype(actions.dtype, copy=False)
        self._last_actions = np.array(actions)
        return actions

    def step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Advance every sub-env; reset (or freeze) the ones whose episode ended."""
        if self.closed:
            raise VecEnvClosed()
        if self._sent:
            self._check_idle("step")
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
        arrays = check_info_arrays(info, n)
        elapsed = self._elapsed
        if self._active is not None:
            elapsed += self._active
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
        done = np.logical_or(terminated, truncated).nonzero()[0]
        if not len(done):
            return VecStepResult(observations, rewards, terminated, truncated, LazyInfos(n, arrays))
        self._reset_envs(done, [None] * len(done))
        self._elapsed[done] = 0
        reset_arrays = check_info_arrays(self._reset_infos(done), len(done))
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
        if self._active is not None:
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
            active = ~self._frozen
            active.flags.writeable = False
            self._active = active
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
        self._check_idle("get_attr")
        return self._per_env(name, getattr(self, name))

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Call method ``name`` (or read the attribute), split per sub-env like ``get_attr``."""
        self._check_idle("call")
        member = getattr(self, name)
        return self._per_env(name, member(*args, **kwargs) if callable(member) else member)

    def set_attr(self, name: str, values: Any) -> None:
        """Change an existing attribute: a list of ``num_envs`` values is stored as one array."""
        self._check_idle("set_attr")
        if not hasattr(self, name):
            raise AttributeError(
                f"{type(self).__name__} has no attribute {name!r}; set_attr only changes "
                "existing attributes."
            )
        if isinstance(values, list):
            values = np.asarray(per_env_values(name, values, self.num_envs))
        setattr(self, name, values)
