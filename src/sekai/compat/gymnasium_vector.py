"""Both directions of the gymnasium vector bridge.

``to_gymnasium_vector(vec)`` wraps a sekai ``VecEnv`` in ``SekaiToGymnasiumVector``, a
``gymnasium.vector.VectorEnv``. Sekai's vector envs reset finished sub-envs in the step that
ends them, which is gymnasium's ``AutoresetMode.SAME_STEP``, the bridge's default. Built with
``autoreset=False`` (finished sub-envs freeze), a sekai env also gives gymnasium's
``NEXT_STEP`` mode, the bridge restarting the sub-envs that finished at the previous step with a
partial reset, and ``DISABLED``. The bridge declares its mode in ``metadata["autoreset_mode"]``
and repacks sekai's results and infos into gymnasium's conventions (``vector_infos``).

``from_gymnasium_vector(gym_vec)`` wraps a ``gymnasium.vector.VectorEnv`` in
``GymnasiumVectorToSekai``, a sekai ``VecEnv`` whose infos are one dict per sub-env
(``vector_infos_to_list``). Supported:

* ``autoreset=True`` (sekai's same-step autoreset) for ``SAME_STEP`` envs (results repacked)
  and for ``NEXT_STEP`` / ``DISABLED`` envs that reset single sub-envs with
  ``reset(options={"reset_mask": dones})``: gymnasium's ``SyncVectorEnv`` and
  ``AsyncVectorEnv``, also under vector wrappers that pass ``reset_mask`` on.
* ``autoreset=False`` (finished sub-envs freeze until ``reset()``) for every ``SAME_STEP`` and
  ``NEXT_STEP`` env, e.g. the native ``gymnasium.make_vec("CartPole-v1", n)``, and for
  ``DISABLED`` envs with ``reset_mask``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from sekai.compat.gymnasium import space_from_gymnasium, space_to_gymnasium
from sekai.spaces.utils import concatenate
from sekai.vector.lazy_infos import LazyInfos
from sekai.vector.native import take_index
from sekai.vector.partial_reset import RESET_MASK, split_reset_mask
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import VecEnv, check_vector_seed, per_env_values, resolve_seeds

__all__ = [
    "GymnasiumVectorToSekai",
    "SekaiToGymnasiumVector",
    "from_gymnasium_vector",
    "to_gymnasium_vector",
    "vector_infos",
    "vector_infos_to_list",
]


# -- sekai → gymnasium ------------------------------------------------------------------------


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


def _is_mask(key: str, infos: dict[str, Any]) -> bool:
    """Whether ``key`` of gymnasium's vector ``infos`` is the mask of another key."""
    return key.startswith("_") and key[1:] in infos


def _keep_rows(infos: dict[str, Any], keep: NDArray[np.bool_]) -> dict[str, Any]:
    """Gymnasium's vector ``infos`` with every mask cleared outside ``keep`` (nested too)."""
    out: dict[str, Any] = {}
    for key, value in infos.items():
        if _is_mask(key, infos):
            out[key] = value & keep
        elif isinstance(value, dict):
            out[key] = _keep_rows(value, keep)
        else:
            out[key] = value
    return out


def _merge_column(base: NDArray[Any], top: NDArray[Any], mask: NDArray[np.bool_]) -> NDArray[Any]:
    """The entries of ``top`` where ``mask`` is set, of ``base`` elsewhere."""
    if base.shape == top.shape:
        return np.where(
            mask if top.ndim == 1 else mask.reshape(-1, *[1] * (top.ndim - 1)), top, base
        )
    column = np.full(len(mask), None, dtype=object)
    for i, picked in enumerate(mask.tolist()):
        column[i] = top[i] if picked else base[i]
    return column


def _lay_over(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """Gymnasium's vector ``base`` infos with the entries of ``top`` where its masks are set."""
    out = dict(base)
    for key, value in top.items():
        if _is_mask(key, top):
            continue
        mask = top[f"_{key}"]
        held = out.get(key)
        if isinstance(value, dict):
            out[key] = _lay_over(held, value) if isinstance(held, dict) else value
        elif isinstance(held, np.ndarray) and isinstance(value, np.ndarray):
            out[key] = _merge_column(held, value, mask)
        else:
            out[key] = value
        held_mask = out.get(f"_{key}")
        out[f"_{key}"] = mask if held_mask is None else held_mask | mask
    return out


_MODES = {
    "same_step": AutoresetMode.SAME_STEP,
    "next_step": AutoresetMode.NEXT_STEP,
    "disabled": AutoresetMode.DISABLED,
}


def _check_mode(mode: Any) -> AutoresetMode:
    """``mode`` as an ``AutoresetMode``: a member, or its name in ``_MODES``."""
    if isinstance(mode, AutoresetMode):
        return mode
    if not isinstance(mode, str):
        raise TypeError(
            f"autoreset_mode must be one of {sorted(_MODES)} or a gymnasium AutoresetMode, "
            f"got {mode!r} ({type(mode).__name__})."
        )
    if mode not in _MODES:
        raise ValueError(
            f"autoreset_mode must be one of {sorted(_MODES)} or a gymnasium AutoresetMode, "
            f"got {mode!r}."
        )
    return _MODES[mode]


class SekaiToGymnasiumVector(VectorEnv[Any, Any, Any]):
    """A sekai ``VecEnv`` as a ``gymnasium.vector.VectorEnv`` in one of gymnasium's autoreset
    modes, declared in ``metadata["autoreset_mode"]`` and ``autoreset_mode``.

    * ``SAME_STEP`` needs a sekai env built with ``autoreset=True``; a finished sub-env's row
      holds the first observation of its next episode and ``infos["final_obs"]`` its terminal
      observation.
    * ``NEXT_STEP`` needs one built with ``autoreset=False``: a sub-env that finished at one
      step gives its terminal observation there; at the next step its action is ignored and
      it gives the first observation of its next episode, reward 0, not terminated nor
      truncated, and its reset info (a partial reset of the sub-envs that finished).
    * ``DISABLED`` needs one built with ``autoreset=False`` too: a finished sub-env stays
      frozen (terminal observation, reward 0, its final flags) until
      ``reset(options={"reset_mask": mask})`` restarts it.

    ``single_observation_space`` / ``single_action_space`` are the sekai spaces converted by
    ``space_to_gymnasium``; ``observation_space`` / ``action_space`` batch them as gymnasium
    does. ``reset(seed=s)`` seeds sub-env ``i`` with ``s + i``, gymnasium's convention (a
    list gives one seed per sub-env); infos follow ``vector_infos``. The sekai env is
    ``sekai_vec``.
    """

    def __init__(self, vec: VecEnv[Any, Any], autoreset_mode: Any = "same_step") -> None:
        if not isinstance(vec, VecEnv):
            raise TypeError(
                f"SekaiToGymnasiumVector expects a sekai VecEnv, got {type(vec).__name__}."
            )
        mode = _check_mode(autoreset_mode)
        if mode is AutoresetMode.SAME_STEP and not vec.autoreset:
            raise ValueError(
                "SekaiToGymnasiumVector needs a sekai VecEnv that resets finished sub-envs "
                "(autoreset=True) for gymnasium's SAME_STEP autoreset mode; this one freezes "
                "them (autoreset=False): use autoreset_mode='next_step'."
            )
        if mode is not AutoresetMode.SAME_STEP and vec.autoreset:
            raise ValueError(
                f"autoreset_mode={autoreset_mode!r} needs a sekai VecEnv whose finished "
                "sub-envs wait for a reset (autoreset=False), such as "
                "sekai.make_vec(id, n, vector_kwargs={'autoreset': False}); this one resets "
                "them itself (autoreset=True), gymnasium's SAME_STEP mode."
            )
        self.sekai_vec = vec
        self.autoreset_mode = mode
        self.num_envs = vec.num_envs
        self.single_observation_space = space_to_gymnasium(vec.observation_space)
        self.single_action_space = space_to_gymnasium(vec.action_space)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.render_mode = None
        self._restart = np.zeros(self.num_envs, dtype=bool)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env, or those ``options["reset_mask"]`` selects; an int ``seed``
        gives sub-env ``i`` the seed ``seed + i``."""
        if isinstance(seed, numbers.Real) and not isinstance(seed, (bool, np.bool_)):
            first = check_vector_seed(seed)
            super().reset(seed=first)
            seeds: Any = [first + i for i in range(self.num_envs)]
        else:
            seeds = seed
        result = self.sekai_vec.reset(seed=seeds, options=options)
        mask, _ = split_reset_mask(options, self.num_envs)
        self._restart[slice(None) if mask is None else mask] = False
        return result.observations, vector_infos(result.infos, self.num_envs)

    def step(
        self, actions: Any
    ) -> tuple[Any, NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        """Step every sub-env; what a finished one does next follows ``autoreset_mode``."""
        result = self.sekai_vec.step(actions)
        n = self.num_envs
        observations, rewards = result.observations, result.rewards
        terminated, truncated = result.terminated, result.truncated
        infos = vector_infos(result.infos, n)
        if self.autoreset_mode is not AutoresetMode.NEXT_STEP:
            return observations, rewards, terminated, truncated, infos
        restart = self._restart
        if restart.any():
            reset = self.sekai_vec.reset(options={RESET_MASK: restart})
            observations = reset.observations
            rewards = np.where(restart, 0.0, rewards)
            terminated, truncated = terminated & ~restart, truncated & ~restart
            infos = _lay_over(_keep_rows(infos, ~restart), vector_infos(reset.infos, n))
        self._restart = terminated | truncated
        return observations, rewards, terminated, truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Close the sekai VecEnv."""
        self.sekai_vec.close()

    def __repr__(self) -> str:
        return f"SekaiToGymnasiumVector({self.sekai_vec!r})"


def to_gymnasium_vector(
    vec: VecEnv[Any, Any], *, autoreset_mode: Any = "same_step"
) -> SekaiToGymnasiumVector:
    """The sekai ``VecEnv`` ``vec`` as a ``gymnasium.vector.VectorEnv``.

    ``autoreset_mode``: ``"same_step"`` (default; ``vec`` built with ``autoreset=True``),
    ``"next_step"`` or ``"disabled"`` (``vec`` built with ``autoreset=False``), or the
    ``gymnasium.vector.AutoresetMode`` member of that name. See ``SekaiToGymnasiumVector``.
    """
    return SekaiToGymnasiumVector(vec, autoreset_mode)


# -- gymnasium → sekai ------------------------------------------------------------------------


_GYM_FINAL_KEYS = ("final_obs", "_final_obs", "final_info", "_final_info")


def vector_infos_to_list(infos: dict[str, Any], num_envs: int) -> list[dict[str, Any]]:
    """Split gymnasium's vector info (arrays plus ``_key`` masks) into one dict per sub-env.

    A key is given to sub-env ``i`` where its mask ``_key`` is set (everywhere without a
    mask); nested info dicts are split the same way. 1-D arrays give Python scalars
    (``tolist()``; datetime64 / timedelta64 stay numpy scalars), higher-dimensional ones,
    lists and tuples an entry each; any other value is shared.
    """
    result: list[dict[str, Any]] = [{} for _ in range(num_envs)]
    for key, value in infos.items():
        if key.startswith("_") and key[1:] in infos:
            continue
        mask = infos.get(f"_{key}")
        present = [True] * num_envs if mask is None else np.asarray(mask, dtype=bool).tolist()
        if isinstance(value, dict):
            rows: list[Any] = vector_infos_to_list(value, num_envs)
        elif isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind not in "mM":
            rows = value.tolist()
        elif isinstance(value, np.ndarray | list | tuple):
            rows = list(value)
        else:
            rows = [value] * num_envs
        for i in range(num_envs):
            if present[i]:
                result[i][key] = rows[i]
    return result


class GymnasiumVectorToSekai(VecEnv[Any, Any]):
    """A ``gymnasium.vector.VectorEnv`` seen as a sekai ``VecEnv``.

    Spaces are the converted single-env spaces; infos become one dict per sub-env
    (``vector_infos_to_list``). ``reset`` checks seeds like sekai's backends but hands them to
    gymnasium unchanged (an int seeds sub-env ``i`` as gymnasium does) and takes one options
    dict. ``call`` / ``get_attr`` / ``set_attr`` use the gymnasium env's methods.

    ``autoreset=True``: a finished sub-env's entry holds the next episode's first observation
    and ``{**step_info, "final_observation", "final_info": step_info, "reset_info"}``.
    ``SAME_STEP`` results are repacked; ``NEXT_STEP`` and ``DISABLED`` envs are reset in the
    same call with ``reset(options={"reset_mask": dones})``, which needs a gymnasium
    ``SyncVectorEnv`` or ``AsyncVectorEnv`` underneath (``ValueError`` otherwise).
    ``autoreset=False``: finished sub-envs are frozen until ``reset()`` as in sekai's backends
    (gymnasium's own resets of them are hidden; ``DISABLED`` needs ``reset_mask`` support).
    ``autoreset=None`` picks True when possible, else False.
    """

    def __init__(
        self, gym_vec: gym.vector.VectorEnv[Any, Any, Any], *, autoreset: bool | None = None
    ) -> None:
        if not isinstance(gym_vec, gym.vector.VectorEnv):
            raise TypeError(
                f"GymnasiumVectorToSekai expects a gymnasium.vector.VectorEnv, got {type(gym_vec)}."
            )
        mode = AutoresetMode(gym_vec.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP))
        masked_reset = isinstance(
            gym_vec.unwrapped, gym.vector.SyncVectorEnv | gym.vector.AsyncVectorEnv
        )
        if autoreset is None:
            autoreset = masked_reset or mode is AutoresetMode.SAME_STEP
        needs_masked_reset = mode is AutoresetMode.DISABLED or (
            autoreset and mode is AutoresetMode.NEXT_STEP
        )
        if needs_masked_reset and not masked_reset:
            raise ValueError(
                f"{type(gym_vec.unwrapped).__name__} (autoreset mode {mode.name}) cannot reset "
                f"single sub-envs, which autoreset={autoreset} needs: build it with gymnasium's "
                "SyncVectorEnv / AsyncVectorEnv (make_vec(..., vectorization_mode='sync'))"
                + (" or use autoreset=False." if mode is AutoresetMode.NEXT_STEP else ".")
            )
        self.gym_vec = gym_vec
        self.num_envs = int(gym_vec.num_envs)
        self.observation_space = space_from_gymnasium(gym_vec.single_observation_space)
        self.action_space = space_from_gymnasium(gym_vec.single_action_space)
        self.metadata = dict(gym_vec.metadata)
        self.autoreset_mode = mode
        self.autoreset = autoreset
        self._frozen: dict[int, tuple[Any, bool, bool]] = {}

    def reset(self, *, seed: Any = None, options: Any = None) -> VecResetResult[Any]:
        """Reset every sub-env (seed: int, list of ``num_envs`` seeds or None); unfreezes."""
        self._check_open()
        seeds = resolve_seeds(seed, self.num_envs)  # validates; gymnasium gets the original
        if isinstance(options, list):
            raise ValueError(
                "A gymnasium vector env takes one options dict for all sub-envs, not a list."
            )
        gym_seed: Any = None
        if isinstance(seed, list):
            gym_seed = None if all(s is None for s in seeds) else seeds
        elif seed is not None:
            gym_seed = int(seed)
        obs, infos = self.gym_vec.reset(seed=gym_seed, options=options)
        self._frozen = {}
        return VecResetResult(obs, vector_infos_to_list(infos, self.num_envs))

    def step(self, actions: Any) -> VecStepResult[Any]:
        """Step every sub-env; finished ones are reset in the same call, or frozen."""
        self._check_open()
        obs, rewards, terminated, truncated, infos = self.gym_vec.step(actions)
        rewards = np.array(rewards, dtype=np.float64)
        terminated = np.array(terminated, dtype=bool)
        truncated = np.array(truncated, dtype=bool)
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        step_infos = (
            self._split_step_infos(infos)
            if same_step
            else vector_infos_to_list(infos, self.num_envs)
        )
        finished = [
            i for i in np.flatnonzero(terminated | truncated).tolist() if i not in self._frozen
        ]
        if self.autoreset:
            if finished and not same_step:
                final_obs = {i: take_index(self.observation_space, obs, i) for i in finished}
                obs, reset_infos = self.gym_vec.reset(
                    options={"reset_mask": terminated | truncated}
                )
                reset_list = vector_infos_to_list(reset_infos, self.num_envs)
                for i in finished:
                    step_infos[i] = {
                        **step_infos[i],
                        "final_observation": final_obs[i],
                        "final_info": step_infos[i],
                        "reset_info": reset_list[i],
                    }
            return VecStepResult(obs, rewards, terminated, truncated, step_infos)
        return self._freeze(obs, rewards, terminated, truncated, step_infos, finished)

    def _split_step_infos(self, infos: dict[str, Any]) -> list[dict[str, Any]]:
        """Sekai infos of a ``SAME_STEP`` step (``final_obs`` / ``final_info`` repacked)."""
        plain = {k: v for k, v in infos.items() if k not in _GYM_FINAL_KEYS}
        result = vector_infos_to_list(plain, self.num_envs)
        if "_final_obs" not in infos:
            return result
        final_obs = infos["final_obs"]
        final_infos = vector_infos_to_list(infos.get("final_info", {}), self.num_envs)
        for i in np.flatnonzero(infos["_final_obs"]).tolist():
            step_info = final_infos[i]
            result[i] = {
                **step_info,
                "final_observation": final_obs[i],
                "final_info": step_info,
                "reset_info": result[i],
            }
        return result

    def _freeze(
        self,
        obs: Any,
        rewards: NDArray[np.float64],
        terminated: NDArray[np.bool_],
        truncated: NDArray[np.bool_],
        infos: list[dict[str, Any]],
        finished: list[int],
    ) -> VecStepResult[Any]:
        """The step with autoreset off: finished sub-envs freeze, frozen ones repeat."""
        space = self.observation_space
        frozen = self._frozen
        for i in finished:
            info = infos[i]
            if "final_observation" in info:  # SAME_STEP: gymnasium reset it already
                infos[i] = info["final_info"]
                final = info["final_observation"]
            else:
                final = take_index(space, obs, i)
            frozen[i] = (final, bool(terminated[i]), bool(truncated[i]))
        done = terminated | truncated
        if self.autoreset_mode is AutoresetMode.DISABLED and done.any():
            self.gym_vec.reset(options={"reset_mask": done})  # their new episodes stay hidden
        if not frozen:
            return VecStepResult(obs, rewards, terminated, truncated, infos)
        rows = [
            frozen[i][0] if i in frozen else take_index(space, obs, i) for i in range(len(infos))
        ]
        newly = set(finished)
        for i, (_, term, trunc) in frozen.items():
            if i not in newly:
                rewards[i] = 0.0
                terminated[i] = term
                truncated[i] = trunc
                infos[i] = {}
        return VecStepResult(concatenate(space, rows), rewards, terminated, truncated, infos)

    def close(self) -> None:
        """Close the gymnasium env; idempotent."""
        if not self.closed:
            self.closed = True
            self.gym_vec.close()

    def _gym_method(self, name: str) -> Callable[..., Any]:
        """The gymnasium env's method ``name``; ``NotImplementedError`` if it has none."""
        method = getattr(self.gym_vec, name, None)
        if method is None:
            raise NotImplementedError(f"{type(self.gym_vec).__name__} has no {name}().")
        return method

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """``gym_vec.call(name, ...)`` as a list."""
        return list(self._gym_method("call")(name, *args, **kwargs))

    def get_attr(self, name: str) -> list[Any]:
        """``gym_vec.get_attr(name)`` as a list."""
        return list(self._gym_method("get_attr")(name))

    def set_attr(self, name: str, values: Any) -> None:
        """``gym_vec.set_attr``; a list gives one value per sub-env, anything else is shared."""
        self._gym_method("set_attr")(name, per_env_values(name, values, self.num_envs))

    def __repr__(self) -> str:
        return f"GymnasiumVectorToSekai(num_envs={self.num_envs})"


def from_gymnasium_vector(gym_vec: Any, *, autoreset: bool | None = None) -> GymnasiumVectorToSekai:
    """The ``gymnasium.vector.VectorEnv`` ``gym_vec`` as a sekai ``VecEnv``."""
    return GymnasiumVectorToSekai(gym_vec, autoreset=autoreset)
