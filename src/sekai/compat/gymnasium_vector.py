"""A sekai ``VecEnv`` seen as a ``gymnasium.vector.VectorEnv``.

Sekai's vector envs reset finished sub-envs in the step that ends them, which is gymnasium's
``AutoresetMode.SAME_STEP``: the bridge declares it in ``metadata["autoreset_mode"]`` and
repacks sekai's results and infos into gymnasium's conventions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from sekai.compat.gymnasium import space_to_gymnasium
from sekai.vector.lazy_infos import LazyInfos
from sekai.vector.vec_env import VecEnv

__all__ = ["SekaiToGymnasiumVector", "to_gymnasium_vector", "vector_infos"]


def _add_entries(infos: dict[str, Any], info: dict[str, Any], index: int, n: int) -> None:
    """Put sub-env ``index``'s ``info`` into gymnasium's vector ``infos`` (arrays + masks)."""
    for key, value in info.items():
        if isinstance(value, dict):
            nested = infos.get(key)
            if not isinstance(nested, dict):
                nested = infos[key] = {}
            _add_entries(nested, value, index, n)
        else:
            column = infos.get(key)
            if column is None:
                column = infos[key] = _empty_column(value, n)
            column[index] = value
        mask = infos.get(f"_{key}")
        if mask is None:
            mask = infos[f"_{key}"] = np.zeros(n, dtype=bool)
        mask[index] = True


def _empty_column(value: Any, n: int) -> NDArray[Any]:
    """The array of ``n`` entries gymnasium makes for a key whose first value is ``value``."""
    if type(value) in (int, float, bool) or isinstance(value, np.number | np.bool_):
        return np.zeros(n, dtype=type(value))
    if isinstance(value, np.ndarray):
        return np.zeros((n, *value.shape), dtype=value.dtype)
    return np.full(n, None, dtype=object)


def _final_entries(
    infos: dict[str, Any], rows: Sequence[Any], indices: Iterable[int], n: int
) -> None:
    """``final_obs`` (an object array of the terminal observations) and its mask."""
    final_obs = np.full(n, None, dtype=object)
    mask = np.zeros(n, dtype=bool)
    for i, row in zip(indices, rows, strict=True):
        final_obs[i] = row
        mask[i] = True
    infos["final_obs"], infos["_final_obs"] = final_obs, mask


def _from_dicts(rows: Sequence[dict[str, Any]], n: int) -> dict[str, Any]:
    """Gymnasium's vector info of sekai's per-sub-env info dicts."""
    infos: dict[str, Any] = {}
    finished: list[int] = []
    final_rows: list[Any] = []
    for i, info in enumerate(rows):
        if "final_observation" in info:
            finished.append(i)
            final_rows.append(info["final_observation"])
            final = infos.get("final_info")
            if final is None:
                final = infos["final_info"] = {}
            _add_entries(final, info["final_info"], i, n)
            mask = infos.setdefault("_final_info", np.zeros(n, dtype=bool))
            mask[i] = True
            step_keys = info["final_info"].keys()
            info = {
                **info["reset_info"],
                **{
                    k: v
                    for k, v in info.items()
                    if k not in step_keys and k not in _SEKAI_FINAL_KEYS
                },
            }
        _add_entries(infos, info, i, n)
    if finished:
        _final_entries(infos, final_rows, finished, n)
    return infos


_SEKAI_FINAL_KEYS = frozenset({"final_observation", "final_info", "reset_info"})


def _column(array: NDArray[Any], rows: NDArray[np.intp], n: int) -> NDArray[Any]:
    """``array`` (one row per entry of ``rows``) spread over ``n`` rows, zeros elsewhere."""
    full = np.zeros((n, *array.shape[1:]), dtype=array.dtype)
    full[rows] = array
    return full


def _from_lazy(lazy: LazyInfos, n: int) -> dict[str, Any]:
    """Gymnasium's vector info straight from a native step's info arrays (no dicts built)."""
    arrays = lazy._arrays
    present = np.ones(n, dtype=bool) if lazy._empty is None else ~lazy._empty
    finished = lazy._final_indices
    infos: dict[str, Any] = {}
    if len(finished) == 0:
        for key, array in arrays.items():
            infos[key], infos[f"_{key}"] = array, present.copy()
    else:
        resets = lazy._reset_arrays
        final: dict[str, Any] = {}
        for key, array in arrays.items():
            final[key] = _column(array[finished], finished, n)
            final_mask = np.zeros(n, dtype=bool)
            final_mask[finished] = True
            final[f"_{key}"] = final_mask
            mask = present.copy()
            if key in resets:
                array = array.copy()
                array[finished] = resets[key]
            else:
                mask[finished] = False
            infos[key], infos[f"_{key}"] = array, mask
        for key, array in resets.items():
            if key not in arrays:
                infos[key] = _column(array, finished, n)
                mask = np.zeros(n, dtype=bool)
                mask[finished] = True
                infos[f"_{key}"] = mask
        final_mask = np.zeros(n, dtype=bool)
        final_mask[finished] = True
        infos["final_info"], infos["_final_info"] = final, final_mask
        _final_entries(infos, lazy._terminal_rows(), finished.tolist(), n)
    for key, indices, values in lazy._added:
        for i, value in zip(indices, values, strict=True):
            _add_entries(infos, {key: value}, i, n)
    return infos


def vector_infos(infos: Sequence[dict[str, Any]], n: int) -> dict[str, Any]:
    """Sekai's per-sub-env infos of one step as gymnasium's vector info.

    Every key becomes an array over the ``n`` sub-envs with a boolean mask ``_key`` (nested
    dicts likewise). A finished sub-env's entries are its reset info, as in gymnasium's
    ``SAME_STEP`` mode; its terminal observation is in ``final_obs`` (an object array) and
    its step info in ``final_info``, each with its mask. A native env's info arrays are used
    as they are, without building a dict per sub-env.
    """
    if isinstance(infos, LazyInfos) and not infos._filled:
        return _from_lazy(infos, n)
    return _from_dicts(infos, n)


class SekaiToGymnasiumVector(VectorEnv[Any, Any, Any]):
    """A sekai ``VecEnv`` (built with ``autoreset=True``) as a ``gymnasium.vector.VectorEnv``.

    ``single_observation_space`` / ``single_action_space`` are the sekai spaces converted by
    ``space_to_gymnasium``; ``observation_space`` / ``action_space`` batch them as gymnasium
    does. ``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``. ``reset(seed=s)``
    seeds sub-env ``i`` with ``s + i``, gymnasium's convention (a list gives one seed per
    sub-env); infos follow ``vector_infos``. The sekai env is ``sekai_vec``.
    """

    def __init__(self, vec: VecEnv[Any, Any]) -> None:
        if not isinstance(vec, VecEnv):
            raise TypeError(
                f"SekaiToGymnasiumVector expects a sekai VecEnv, got {type(vec).__name__}."
            )
        if not vec.autoreset:
            raise ValueError(
                "SekaiToGymnasiumVector needs a sekai VecEnv that resets finished sub-envs "
                "(autoreset=True), which is gymnasium's SAME_STEP autoreset mode."
            )
        self.sekai_vec = vec
        self.num_envs = vec.num_envs
        self.single_observation_space = space_to_gymnasium(vec.observation_space)
        self.single_action_space = space_to_gymnasium(vec.action_space)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
        self.render_mode = None

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env; an int ``seed`` gives sub-env ``i`` the seed ``seed + i``."""
        if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
            super().reset(seed=int(seed))
            seeds: Any = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = seed
        result = self.sekai_vec.reset(seed=seeds, options=options)
        return result.observations, vector_infos(result.infos, self.num_envs)

    def step(
        self, actions: Any
    ) -> tuple[Any, NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        """Step every sub-env; finished ones are reset in the same step."""
        result = self.sekai_vec.step(actions)
        return (
            result.observations,
            result.rewards,
            result.terminated,
            result.truncated,
            vector_infos(result.infos, self.num_envs),
        )

    def close_extras(self, **kwargs: Any) -> None:
        """Close the sekai VecEnv."""
        self.sekai_vec.close()

    def __repr__(self) -> str:
        return f"SekaiToGymnasiumVector({self.sekai_vec!r})"


def to_gymnasium_vector(vec: VecEnv[Any, Any]) -> SekaiToGymnasiumVector:
    """The sekai ``VecEnv`` ``vec`` as a ``gymnasium.vector.VectorEnv``."""
    return SekaiToGymnasiumVector(vec)
