"""Vector-env bridges: sekai ``VecEnv`` → Stable-Baselines3, gymnasium ``VectorEnv`` → sekai.

``to_sb3(venv)`` wraps any autoresetting sekai ``VecEnv`` in ``SekaiToSB3VecEnv``, a
``stable_baselines3.common.vec_env.VecEnv`` that reports episodes in SB3's ``info["episode"]``
format and, by default, flattens observations SB3's policies cannot take. Stable-Baselines3 is
imported on first use (the class itself is built then), so ``from_gymnasium_vector`` needs only
gymnasium.

``from_gymnasium_vector(gym_vec)`` wraps a ``gymnasium.vector.VectorEnv`` in
``GymnasiumVectorToSekai``, a sekai ``VecEnv``. Supported:

* ``autoreset=True`` (sekai's same-step autoreset) for ``SAME_STEP`` envs (results repacked)
  and for ``NEXT_STEP`` / ``DISABLED`` envs that reset single sub-envs with
  ``reset(options={"reset_mask": dones})``: gymnasium's ``SyncVectorEnv`` and
  ``AsyncVectorEnv``, also under vector wrappers that pass ``reset_mask`` on.
* ``autoreset=False`` (finished sub-envs freeze until ``reset()``) for every ``SAME_STEP`` and
  ``NEXT_STEP`` env, e.g. the native ``gymnasium.make_vec("CartPole-v1", n)``, and for
  ``DISABLED`` envs with ``reset_mask``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.compat._sb3_support import (
    EpisodeReporter,
    ObservationFlattener,
    observation_flattener,
)
from sekai.compat.gymnasium import space_from_gymnasium, space_to_gymnasium
from sekai.error import VecEnvWorkerError
from sekai.spaces.masking import action_mask_space, flatten_action_mask
from sekai.spaces.utils import concatenate
from sekai.utils.extras import missing_extra
from sekai.utils.validation import check_int
from sekai.vector.native import take_index
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import (
    VecEnv,
    env_call,
    env_set_attr,
    per_env_values,
    resolve_seeds,
)

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env import VecEnv as SB3VecEnv

    class SekaiToSB3VecEnv(SB3VecEnv):
        """What type checkers see of the class ``_sb3_adapter_class`` builds."""

        venv: VecEnv[Any, Any]
        flatten_observations: bool
        observation_flattener: ObservationFlattener | None
        t_start: float

        def __init__(self, venv: VecEnv[Any, Any], *, flatten_observations: bool = ...) -> None: ...
        def action_masks(self) -> NDArray[np.bool_]: ...


__all__ = [
    "GymnasiumVectorToSekai",
    "SekaiToSB3VecEnv",
    "from_gymnasium_vector",
    "to_sb3",
    "vector_infos_to_list",
]

SB3_INSTALL_HINT = missing_extra("sekai.compat.to_sb3", "stable-baselines3", "sb3")
"""Message of the ``ImportError`` raised when stable-baselines3 is missing."""

_SEKAI_FINAL_KEYS = ("final_observation", "final_info", "reset_info")
_GYM_FINAL_KEYS = ("final_obs", "_final_obs", "final_info", "_final_info")


def _is_attribute_error(exc: Exception) -> bool:
    """Whether ``exc`` is an ``AttributeError``, possibly raised in a ProcVecEnv worker."""
    if isinstance(exc, AttributeError):
        return True
    return isinstance(exc, VecEnvWorkerError) and exc.exc_type == "AttributeError"


def _selected(indices: int | Iterable[int] | None, num_envs: int) -> list[int]:
    """Stable-Baselines3's ``indices`` argument as a list (None: every sub-env); each index
    follows ``check_int`` (``1.0`` is 1, ``1.5`` a ``TypeError``)."""
    if indices is None:
        return list(range(num_envs))
    if isinstance(indices, Iterable):
        return [check_int(i, "indices entry") for i in indices]
    return [check_int(indices, "indices")]


def _covers_all(selected: list[int], num_envs: int) -> bool:
    """Whether ``selected`` names every sub-env exactly once."""
    return sorted(selected) == list(range(num_envs))


@functools.cache
def _sb3_adapter_class() -> type[SekaiToSB3VecEnv]:
    """Build ``SekaiToSB3VecEnv`` (on first use, since it subclasses SB3's ``VecEnv``)."""
    try:
        from stable_baselines3.common.vec_env import VecEnv as SB3Base
        from stable_baselines3.common.vec_env.base_vec_env import (
            VecEnvIndices,
            VecEnvObs,
            VecEnvStepReturn,
        )
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in ("stable_baselines3", "torch"):
            raise
        raise ImportError(SB3_INSTALL_HINT) from exc

    class _SekaiToSB3VecEnv(SB3Base):
        """A sekai ``VecEnv`` seen as a Stable-Baselines3 ``VecEnv``.

        Spaces are converted with ``space_to_gymnasium``. ``step_wait`` returns float32
        rewards and ``dones = terminated | truncated``; a finished sub-env's info holds
        ``terminal_observation`` (sekai's ``final_observation``) and ``TimeLimit.truncated``
        (truncated and not terminated), and its reset info goes to ``reset_infos``. Sekai's
        ``final_observation`` / ``final_info`` / ``reset_info`` keys are removed.

        Episodes: each finished sub-env's info holds SB3's ``"episode": {"r": return, "l":
        length, "t": seconds since t_start}`` ("t" rounded to 6 digits as by SB3's ``Monitor``;
        ``t_start`` is the adapter's ``time.monotonic()`` at creation). An ``EpisodeStats``
        the stack put under "episode" (``VecRecordEpisodeStatistics``, or
        ``RecordEpisodeStatistics`` in the sub-envs) gives the figures and moves to
        ``"episode_stats"``; a mapping there (gymnasium's statistics) is kept; else the adapter
        counts the rewards and steps it passes on since the last episode end or ``reset()``.

        Observations: with ``flatten_observations=True`` (default) a space SB3's policies
        cannot take is converted by ``observation_flattener`` (None otherwise): a Dict with
        nested Dict / MaskedBox / Tuple parts becomes a flat Dict keyed by path joined with "/"
        (parts SB3 takes kept as they are, others a float32 Box holding sekai's ``flatten`` of
        them), any other space one float32 Box (``flatten_space``); a Sequence raises
        ``ValueError``. ``terminal_observation`` is converted alike. False: sekai's observations.

        ``seed(s)`` gives sub-env ``i`` the seed ``s + i`` at the next ``reset()``.
        ``env_method`` / ``get_attr`` / ``set_attr`` use sekai's ``call`` / ``get_attr`` /
        ``set_attr``; a strict subset of ``indices`` needs in-process sub-envs
        (``SyncVecEnv`` / ``AsyncVecEnv``) for ``env_method`` and ``set_attr``.
        ``action_masks()`` stacks the sub-envs' flat ``action_mask()`` (for sb3-contrib's
        ``MaskablePPO``). Sekai envs have no ``render_mode``: it reads as None.
        """

        def __init__(self, venv: VecEnv[Any, Any], *, flatten_observations: bool = True) -> None:
            if not isinstance(venv, VecEnv):
                raise TypeError(f"SekaiToSB3VecEnv expects a sekai VecEnv, got {type(venv)}.")
            if not isinstance(flatten_observations, bool):
                raise TypeError(
                    "SekaiToSB3VecEnv: flatten_observations must be a bool, got "
                    f"{type(flatten_observations).__name__}."
                )
            if not venv.autoreset:
                raise ValueError(
                    "Stable-Baselines3 needs a vector env that resets finished sub-envs: "
                    "build the sekai VecEnv with autoreset=True."
                )
            self.venv = venv
            self.flatten_observations = flatten_observations
            self.observation_flattener = (
                observation_flattener(venv.observation_space) if flatten_observations else None
            )
            self._actions: Any = None
            self._pending_seeds: list[SeedType] | None = None
            self._pending_options: Any = None
            self._episodes = EpisodeReporter(venv.num_envs)
            self.t_start = self._episodes.t_start
            flattener = self.observation_flattener
            if flattener is None:
                obs_space = space_to_gymnasium(venv.observation_space)
            else:
                obs_space = flattener.gymnasium_space
            super().__init__(
                venv.num_envs,
                obs_space,
                space_to_gymnasium(venv.action_space),
            )

        def seed(self, seed: int | None = None) -> Sequence[int | None]:
            """Seed sub-env ``i`` with ``seed + i`` at the next ``reset()`` (None: no seeds)."""
            if seed is None:
                self._pending_seeds = None
                return [None] * self.num_envs
            seeds: list[int | None] = [int(seed) + i for i in range(self.num_envs)]
            self._pending_seeds = list(seeds)
            return seeds

        def set_options(self, options: list[dict[str, Any]] | dict[str, Any] | None = None) -> None:
            """Options (one dict, or one per sub-env) for the next ``reset()``."""
            self._pending_options = options

        def _observations(self, batch: Any) -> VecEnvObs:
            """``batch`` in the form of ``observation_space``."""
            flattener = self.observation_flattener
            converted: VecEnvObs = (
                batch if flattener is None else flattener.batch(batch, self.num_envs)
            )
            return converted

        def reset(self) -> VecEnvObs:
            """Reset the sekai VecEnv with the pending seeds/options; infos to ``reset_infos``.

            Restarts the adapter's episode counts.
            """
            result = self.venv.reset(seed=self._pending_seeds, options=self._pending_options)
            self._pending_seeds = None
            self._pending_options = None
            self._episodes.restart()
            self.reset_infos = list(result.infos)
            return self._observations(result.observations)

        def step_async(self, actions: np.ndarray) -> None:
            """Remember ``actions`` for ``step_wait``."""
            self._actions = actions

        def step_wait(self) -> VecEnvStepReturn:
            """Step the sekai VecEnv; returns ``(obs, rewards, dones, infos)`` as SB3 expects."""
            result = self.venv.step(self._actions)
            self._actions = None
            dones = result.terminated | result.truncated
            self._episodes.add(result.rewards)
            infos: list[dict[str, Any]] = list(result.infos)
            finished = np.flatnonzero(dones)
            for i in finished.tolist():
                infos[i] = self._finished_info(
                    i, infos[i], result.terminated[i], result.truncated[i]
                )
            self._episodes.ended(finished)
            observations = self._observations(result.observations)
            return observations, result.rewards.astype(np.float32), dones, infos

        def _finished_info(
            self, i: int, info: dict[str, Any], terminated: np.bool_, truncated: np.bool_
        ) -> dict[str, Any]:
            """Sub-env ``i``'s info in SB3's form, at the end of an episode."""
            if "final_observation" not in info:
                raise RuntimeError(
                    f"Sub-env {i} finished without 'final_observation' in its info: the "
                    "sekai VecEnv must reset finished sub-envs (autoreset=True)."
                )
            converted = {k: v for k, v in info.items() if k not in _SEKAI_FINAL_KEYS}
            final = info["final_observation"]
            flattener = self.observation_flattener
            converted["terminal_observation"] = final if flattener is None else flattener.one(final)
            converted["TimeLimit.truncated"] = bool(truncated and not terminated)
            self.reset_infos[i] = info.get("reset_info", {})
            self._episodes.report(converted, i)
            return converted

        def close(self) -> None:
            """Close the sekai VecEnv."""
            self.venv.close()

        def action_masks(self) -> NDArray[np.bool_]:
            """Flat boolean action masks ``(num_envs, mask_size)``; None masks allow all.

            ``AttributeError`` if the sub-envs have no ``action_mask``.
            """
            try:
                masks = self.venv.call("action_mask")
            except Exception as exc:
                if _is_attribute_error(exc):
                    raise AttributeError(
                        "The sub-envs of this sekai VecEnv have no action_mask()."
                    ) from exc
                raise
            space = self.venv.action_space
            size = action_mask_space(space).n
            return np.stack(
                [
                    np.ones(size, dtype=bool) if mask is None else flatten_action_mask(space, mask)
                    for mask in masks
                ]
            )

        def _in_process_envs(self, what: str) -> list[Any]:
            """The sub-env objects, for calls on a subset; ``NotImplementedError`` if remote."""
            envs = getattr(self.venv.unwrapped, "envs", None)
            if not isinstance(envs, list):
                raise NotImplementedError(
                    f"{what} on a subset of indices needs in-process sub-envs (SyncVecEnv or "
                    f"AsyncVecEnv); {type(self.venv.unwrapped).__name__} only acts on all of them."
                )
            return envs

        def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
            """Attribute ``attr_name`` of the selected sub-envs (sekai ``get_attr``)."""
            selected = _selected(indices, self.num_envs)
            if attr_name == "action_masks":
                self.action_masks()  # AttributeError when the sub-envs have no masks
                return [functools.partial(self._action_mask_row, i) for i in selected]
            try:
                values = self.venv.get_attr(attr_name)
            except Exception as exc:
                if attr_name == "render_mode" and _is_attribute_error(exc):
                    return [None] * len(selected)
                raise
            return [values[i] for i in selected]

        def _action_mask_row(self, index: int) -> NDArray[np.bool_]:
            """Sub-env ``index``'s flat action mask."""
            row: NDArray[np.bool_] = self.action_masks()[index]
            return row

        def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
            """Set ``attr_name`` to ``value`` on the selected sub-envs (sekai ``set_attr``)."""
            selected = _selected(indices, self.num_envs)
            if _covers_all(selected, self.num_envs):
                self.venv.set_attr(attr_name, [value] * self.num_envs)
                return
            envs = self._in_process_envs("set_attr")
            for i in selected:
                env_set_attr(envs[i], attr_name, value)

        def env_method(
            self,
            method_name: str,
            *method_args: Any,
            indices: VecEnvIndices = None,
            **method_kwargs: Any,
        ) -> list[Any]:
            """Call ``method_name`` on the selected sub-envs (sekai ``call``)."""
            selected = _selected(indices, self.num_envs)
            if method_name == "action_masks":
                masks = self.action_masks()
                return [masks[i] for i in selected]
            if _covers_all(selected, self.num_envs):
                results = self.venv.call(method_name, *method_args, **method_kwargs)
                return [results[i] for i in selected]
            envs = self._in_process_envs("env_method")
            return [env_call(envs[i], method_name, method_args, method_kwargs) for i in selected]

        def env_is_wrapped(
            self,
            wrapper_class: type[gym.Wrapper[Any, Any, Any, Any]],
            indices: VecEnvIndices = None,
        ) -> list[bool]:
            """Whether the selected sub-envs' wrapper chains (``.env``) hold a ``wrapper_class``.

            Always False for sub-envs in other processes or native vector envs.
            """
            selected = _selected(indices, self.num_envs)
            envs = getattr(self.venv.unwrapped, "envs", None)
            if not isinstance(envs, list):
                return [False] * len(selected)
            found = []
            for i in selected:
                env = envs[i]
                while env is not None and not isinstance(env, wrapper_class):
                    env = getattr(env, "env", None)
                found.append(env is not None)
            return found

        def __repr__(self) -> str:
            return f"SekaiToSB3VecEnv({self.venv!r})"

    _SekaiToSB3VecEnv.__module__ = __name__
    _SekaiToSB3VecEnv.__name__ = _SekaiToSB3VecEnv.__qualname__ = "SekaiToSB3VecEnv"
    return cast("type[SekaiToSB3VecEnv]", _SekaiToSB3VecEnv)


def to_sb3(venv: VecEnv[Any, Any], *, flatten_observations: bool = True) -> SekaiToSB3VecEnv:
    """``venv`` as a Stable-Baselines3 ``VecEnv`` (see ``SekaiToSB3VecEnv``).

    ``flatten_observations``: convert observation spaces SB3's policies cannot take (nested
    Dicts, MaskedBox parts, Tuples, ...) into ones they can; False keeps sekai's observations.
    """
    return _sb3_adapter_class()(venv, flatten_observations=flatten_observations)


def __getattr__(name: str) -> Any:
    if name == "SekaiToSB3VecEnv":
        return _sb3_adapter_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
