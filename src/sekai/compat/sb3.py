"""The Stable-Baselines3 adapter: a sekai ``VecEnv`` as a Stable-Baselines3 ``VecEnv``.

``to_sb3(venv)`` wraps any autoresetting sekai ``VecEnv`` in ``SekaiToSB3VecEnv``, a
``stable_baselines3.common.vec_env.VecEnv`` that reports episodes in SB3's ``info["episode"]``
format and, by default, flattens observations SB3's policies cannot take. Stable-Baselines3 is
imported on first use (the class itself is built then).

The gymnasium-vector-to-sekai bridge (``from_gymnasium_vector``, ``GymnasiumVectorToSekai``,
``vector_infos_to_list``) lives in ``sekai.compat.gymnasium_vector``; this module's path to it
is kept.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray

from sekai._types import SeedType
from sekai.compat._sb3_support import (
    EpisodeReporter,
    ObservationFlattener,
    observation_flattener,
)
from sekai.compat.gymnasium import space_to_gymnasium
from sekai.compat.gymnasium_vector import (
    GymnasiumVectorToSekai,
    from_gymnasium_vector,
    vector_infos_to_list,
)
from sekai.error import VecEnvWorkerError
from sekai.spaces.masking import action_mask_space, flatten_action_mask
from sekai.utils.extras import missing_extra
from sekai.utils.validation import check_int
from sekai.vector.vec_env import VecEnv, env_call, env_set_attr

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
