"""Vector wrapper bases: a ``VecEnv`` that wraps another ``VecEnv``."""

from __future__ import annotations

import abc
import weakref
from typing import TYPE_CHECKING, Any, Generic

import numpy as np
from numpy.typing import NDArray

from sekai._types import ActType, ObsType, SeedType, WActType, WObsType
from sekai.spaces.utils import concatenate, iterate
from sekai.vector.native import LazyInfos
from sekai.vector.result import VecResetResult, VecStepResult
from sekai.vector.vec_env import VecEnv

if TYPE_CHECKING:
    from sekai.core.spec import EnvSpec
    from sekai.spaces.space import Space

__all__ = ["VecActionWrapper", "VecObservationWrapper", "VecRewardWrapper", "VecWrapper"]


class VecWrapper(VecEnv[WObsType, WActType], Generic[WObsType, WActType, ObsType, ActType]):
    """Wraps a ``VecEnv``; delegates everything it does not change.

    ``num_envs`` and ``autoreset`` are copied from ``venv``; the spaces (single-env) delegate
    unless this layer sets its own; ``spec`` and ``closed`` read and write ``venv``'s. Type
    parameters as ``Wrapper``'s: this layer's batch types, then ``venv``'s.
    """

    def __init__(self, venv: VecEnv[ObsType, ActType]) -> None:
        if not isinstance(venv, VecEnv):
            raise TypeError(f"{type(self).__name__} expected a VecEnv, got {type(venv).__name__}.")
        self.venv = venv
        self.num_envs = venv.num_envs
        self.autoreset = venv.autoreset
        self._observation_space: Space[Any] | None = None
        self._action_space: Space[Any] | None = None

    # spaces and state -----------------------------------------------------------------------
    @property
    def observation_space(self) -> Space[Any]:
        """This layer's single-env observation space, else ``venv``'s."""
        if self._observation_space is None:
            return self.venv.observation_space
        return self._observation_space

    @observation_space.setter
    def observation_space(self, space: Space[Any]) -> None:
        self._observation_space = space

    @property
    def action_space(self) -> Space[Any]:
        """This layer's single-env action space, else ``venv``'s."""
        if self._action_space is None:
            return self.venv.action_space
        return self._action_space

    @action_space.setter
    def action_space(self, space: Space[Any]) -> None:
        self._action_space = space

    @property
    def spec(self) -> EnvSpec | None:
        """``venv.spec``."""
        return self.venv.spec

    @spec.setter
    def spec(self, value: EnvSpec | None) -> None:
        self.venv.spec = value

    @property
    def closed(self) -> bool:
        """``venv.closed``."""
        return self.venv.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self.venv.closed = value

    @property
    def unwrapped(self) -> VecEnv[Any, Any]:
        """The innermost VecEnv under every vector wrapper."""
        return self.venv.unwrapped

    # delegation -----------------------------------------------------------------------------
    def step(self, actions: WActType) -> VecStepResult[WObsType]:
        """Step ``venv``."""
        return self.venv.step(actions)  # type: ignore[arg-type,return-value]

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[WObsType]:
        """Reset ``venv``."""
        return self.venv.reset(seed=seed, options=options)  # type: ignore[return-value]

    async def async_step(self, actions: WActType) -> VecStepResult[WObsType]:
        """Step ``venv`` through its async path."""
        return await self.venv.async_step(actions)  # type: ignore[arg-type,return-value]

    async def async_reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[WObsType]:
        """Reset ``venv`` through its async path."""
        return await self.venv.async_reset(seed=seed, options=options)  # type: ignore[return-value]

    @property
    def batch_size(self) -> int:
        """``venv.batch_size``."""
        return self.venv.batch_size

    @property
    def in_flight(self) -> NDArray[np.intp]:
        """``venv.in_flight``."""
        return self.venv.in_flight

    def send(self, actions: WActType, env_ids: Any = None) -> None:
        """``venv.send(actions, env_ids)``."""
        self.venv.send(actions, env_ids)

    def recv(self) -> VecStepResult[WObsType]:
        """``venv.recv()``; ``NotImplementedError`` for a subclass that changes ``step`` but
        not ``recv``, whose results would otherwise pass through unchanged."""
        cls = type(self)
        if cls.recv is VecWrapper.recv and cls.step is not VecWrapper.step:
            raise NotImplementedError(
                f"{cls.__name__} overrides step() but not recv(): implement recv() to treat "
                "the partial batches of send() / recv() as step() treats whole ones (rows "
                "of sub-envs result.env_ids)."
            )
        return self.venv.recv()  # type: ignore[return-value]

    def close(self) -> None:
        """Close ``venv``."""
        self.venv.close()

    def call(self, name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """``venv.call(name, *args, **kwargs)``."""
        return self.venv.call(name, *args, **kwargs)

    def get_attr(self, name: str) -> list[Any]:
        """``venv.get_attr(name)``."""
        return self.venv.get_attr(name)

    def set_attr(self, name: str, values: Any) -> None:
        """``venv.set_attr(name, values)``."""
        self.venv.set_attr(name, values)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.venv!r})"


def set_info_entries(
    infos: list[dict[str, Any]], key: str, indices: list[int], values: list[Any]
) -> list[dict[str, Any]]:
    """``infos`` with ``infos[i][key] = value`` for each index/value pair.

    A ``LazyInfos`` is updated in place without building its dicts; a plain list is copied,
    and each changed dict replaced by a new one (sub-envs may reuse their info dicts).
    """
    if isinstance(infos, LazyInfos):
        infos._set_entries(key, indices, values)
        return infos
    infos = list(infos)
    for i, value in zip(indices, values, strict=True):
        infos[i] = {**infos[i], key: value}
    return infos


_BATCHED_FINAL: weakref.WeakKeyDictionary[type, bool] = weakref.WeakKeyDictionary()


def _batched_final(cls: type[VecObservationWrapper[Any, Any, Any]]) -> bool:
    """Whether ``cls._final_observation_batch`` stands for its ``final_observation``.

    True where the batched hook is defined by the class defining ``final_observation`` or by
    a subclass of it; a subclass that overrides only ``final_observation`` is served per row.
    """
    known = _BATCHED_FINAL.get(cls)
    if known is None:
        mro = cls.__mro__
        per_row = next(i for i, k in enumerate(mro) if "final_observation" in vars(k))
        batched = next(
            (i for i, k in enumerate(mro) if "_final_observation_batch" in vars(k)), len(mro)
        )
        known = _BATCHED_FINAL[cls] = batched <= per_row
    return known


class VecObservationWrapper(VecWrapper[WObsType, ActType, ObsType, ActType]):
    """Transforms every batch of observations with ``observation()``.

    Each ``infos[i]["final_observation"]`` goes through ``final_observation()``, after the
    step's batch. A subclass whose transform works row by row may also define
    ``_final_observation_batch(batch)``: for a ``NativeVecEnv``'s infos, whose terminal
    observations are still a batch, it then transforms them all in one call, where it stands
    for ``final_observation`` (it is defined alongside it or in a subclass).
    """

    @abc.abstractmethod
    def observation(self, batch: ObsType) -> WObsType:
        """The transformed batch."""

    def final_observation(self, obs: Any) -> Any:
        """One sub-env's terminal observation, transformed as a batch of one."""
        batch = concatenate(self.venv.observation_space, [obs])
        return next(iter(iterate(self.observation_space, self.observation(batch))))

    def _transform_final_observations(self, infos: LazyInfos) -> None:
        """Transform ``infos``' terminal observations: as one batch where possible, else per row."""
        if not (infos._filled or infos._final_indices.size):
            return
        if (
            _batched_final(type(self))
            and "final_observation" not in vars(self)
            and infos._map_final_batch(
                self._final_observation_batch,  # type: ignore[attr-defined]
                self.observation_space,
            )
        ):
            return
        infos._map_final_observations(self.final_observation)

    def _wrap_reset(self, result: VecResetResult[ObsType]) -> VecResetResult[WObsType]:
        return VecResetResult(self.observation(result.observations), result.infos)

    def _wrap_step(self, result: VecStepResult[ObsType]) -> VecStepResult[WObsType]:
        observations = self.observation(result.observations)
        infos = result.infos
        if isinstance(infos, LazyInfos):
            self._transform_final_observations(infos)
        else:
            finals = [
                i
                for i in np.flatnonzero(result.terminated | result.truncated).tolist()
                if "final_observation" in infos[i]
            ]
            if finals:
                infos = set_info_entries(
                    infos,
                    "final_observation",
                    finals,
                    [self.final_observation(infos[i]["final_observation"]) for i in finals],
                )
        return VecStepResult(
            observations, result.rewards, result.terminated, result.truncated, infos, result.env_ids
        )

    def reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[WObsType]:
        """Reset ``venv`` and transform the observations."""
        return self._wrap_reset(self.venv.reset(seed=seed, options=options))

    def step(self, actions: ActType) -> VecStepResult[WObsType]:
        """Step ``venv`` and transform the observations."""
        return self._wrap_step(self.venv.step(actions))

    async def async_reset(
        self, *, seed: SeedType | list[SeedType] = None, options: Any = None
    ) -> VecResetResult[WObsType]:
        """Async ``reset``."""
        return self._wrap_reset(await self.venv.async_reset(seed=seed, options=options))

    async def async_step(self, actions: ActType) -> VecStepResult[WObsType]:
        """Async ``step``."""
        return self._wrap_step(await self.venv.async_step(actions))

    def recv(self) -> VecStepResult[WObsType]:
        """``venv.recv()`` with the observations transformed."""
        return self._wrap_step(self.venv.recv())


class VecRewardWrapper(VecWrapper[ObsType, ActType, ObsType, ActType]):
    """Transforms every ``(num_envs,)`` float64 reward array with ``reward()``."""

    @abc.abstractmethod
    def reward(self, rewards: NDArray[np.float64]) -> Any:
        """The transformed rewards."""

    def _wrap_step(self, result: VecStepResult[ObsType]) -> VecStepResult[ObsType]:
        return VecStepResult(
            result.observations,
            self.reward(result.rewards),
            result.terminated,
            result.truncated,
            result.infos,
            result.env_ids,
        )

    def step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Step ``venv`` and transform the rewards."""
        return self._wrap_step(self.venv.step(actions))

    async def async_step(self, actions: ActType) -> VecStepResult[ObsType]:
        """Async ``step``."""
        return self._wrap_step(await self.venv.async_step(actions))

    def recv(self) -> VecStepResult[ObsType]:
        """``venv.recv()`` with the rewards transformed."""
        return self._wrap_step(self.venv.recv())


class VecActionWrapper(VecWrapper[ObsType, WActType, ObsType, ActType]):
    """Transforms every batch of actions with ``action()`` before ``venv`` sees it."""

    @abc.abstractmethod
    def action(self, actions: WActType) -> ActType:
        """The batch of actions ``venv`` receives."""

    def step(self, actions: WActType) -> VecStepResult[ObsType]:
        """Transform the actions, then step ``venv``."""
        return self.venv.step(self.action(actions))

    async def async_step(self, actions: WActType) -> VecStepResult[ObsType]:
        """Async ``step``."""
        return await self.venv.async_step(self.action(actions))

    def send(self, actions: WActType, env_ids: Any = None) -> None:
        """Transform the actions (one row per ``env_ids`` entry), then ``venv.send`` them."""
        self.venv.send(self.action(actions), env_ids)
