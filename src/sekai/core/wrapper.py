"""Wrappers: environments that modify another environment."""

from __future__ import annotations

import abc
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Generic

import numpy as np

from sekai._types import ActType, ObsType, SeedType, WActType, WObsType
from sekai.core.env import Env
from sekai.core.result import ResetResult, StepResult

if TYPE_CHECKING:
    from sekai.core.spec import EnvSpec
    from sekai.spaces.space import Space

__all__ = ["ActionWrapper", "ObservationWrapper", "RewardWrapper", "Wrapper"]


class Wrapper(Env[WObsType, WActType], Generic[WObsType, WActType, ObsType, ActType]):
    """Wraps an environment; delegates everything it does not change.

    Unknown attributes are not forwarded: use ``get_attr`` or ``unwrapped``.
    """

    def __init__(self, env: Env[ObsType, ActType]) -> None:
        if not isinstance(env, Env):
            raise TypeError(
                f"{type(self).__name__} expects a sekai.Env, got {type(env).__name__}. "
                "Wrap a gymnasium env with sekai.compat.from_gymnasium first."
            )
        self.env = env
        self._observation_space: Space[Any] | None = None
        self._action_space: Space[Any] | None = None

    # spaces ---------------------------------------------------------------------------------
    @property
    def observation_space(self) -> Space[Any]:
        """This layer's override, else the inner env's space."""
        if self._observation_space is None:
            return self.env.observation_space
        return self._observation_space

    @observation_space.setter
    def observation_space(self, space: Space[Any]) -> None:
        self._observation_space = space

    @property
    def action_space(self) -> Space[Any]:
        """This layer's override, else the inner env's space."""
        if self._action_space is None:
            return self.env.action_space
        return self._action_space

    @action_space.setter
    def action_space(self, space: Space[Any]) -> None:
        self._action_space = space

    # episode --------------------------------------------------------------------------------
    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[WObsType]:
        """Reset the inner env."""
        return self.env.reset(seed=seed, options=options)  # type: ignore[return-value]

    def step(self, action: WActType) -> StepResult[WObsType]:
        """Step the inner env."""
        return self.env.step(action)  # type: ignore[arg-type,return-value]

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[WObsType]:
        """Reset the inner env through its async path."""
        return await self.env.async_reset(seed=seed, options=options)  # type: ignore[return-value]

    async def async_step(self, action: WActType) -> StepResult[WObsType]:
        """Step the inner env through its async path."""
        return await self.env.async_step(action)  # type: ignore[arg-type,return-value]

    def close(self) -> None:
        """Close the inner env."""
        self.env.close()

    # generator, shared with the base env ----------------------------------------------------
    @property
    def rng(self) -> np.random.Generator:
        """The base env's generator."""
        return self.env.rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self.env.rng = value

    @property
    def _rng_seed(self) -> int | None:
        return self.env._rng_seed

    @_rng_seed.setter
    def _rng_seed(self, value: int | None) -> None:
        self.env._rng_seed = value

    def _set_rng(self, seed: SeedType) -> int:
        return self.env._set_rng(seed)

    # stack ----------------------------------------------------------------------------------
    @property
    def unwrapped(self) -> Env[Any, Any]:
        """The base environment under every wrapper."""
        return self.env.unwrapped

    def __iter__(self) -> Iterator[Env[Any, Any]]:
        """Walk the stack from this wrapper to the base env."""
        layer: Env[Any, Any] = self
        while isinstance(layer, Wrapper):
            yield layer
            layer = layer.env
        yield layer

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def has_attr(self, name: str) -> bool:
        """Whether any layer, from this one inwards, has ``name``."""
        return any(hasattr(layer, name) for layer in self)

    def get_attr(self, name: str) -> Any:
        """``name`` from the outermost layer that has it."""
        for layer in self:
            if hasattr(layer, name):
                return getattr(layer, name)
        raise AttributeError(f"No layer of {self} has an attribute {name!r}.")

    def set_attr(self, name: str, value: Any) -> None:
        """Set ``name`` on the outermost layer that has it, else on this wrapper."""
        for layer in self:
            if hasattr(layer, name):
                setattr(layer, name, value)
                return
        setattr(self, name, value)

    @property
    def spec(self) -> EnvSpec | None:
        """The base env's spec."""
        return self.env.spec

    @spec.setter
    def spec(self, value: EnvSpec | None) -> None:
        self.unwrapped.spec = value

    @property
    def metadata(self) -> dict[str, Any]:  # type: ignore[override]
        """The inner env's metadata."""
        return self.env.metadata

    def __str__(self) -> str:
        return f"<{type(self).__name__}({self.env})>"

    __repr__ = __str__


class _ResultWrapper(Wrapper[WObsType, ActType, ObsType, ActType]):
    """Passes every reset and step result, sync or async, through ``_wrap_reset``/``_wrap_step``."""

    def _wrap_reset(self, result: ResetResult[Any]) -> ResetResult[WObsType]:
        return result

    def _wrap_step(self, result: StepResult[Any]) -> StepResult[WObsType]:
        return result

    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[WObsType]:
        return self._wrap_reset(self.env.reset(seed=seed, options=options))

    def step(self, action: ActType) -> StepResult[WObsType]:
        return self._wrap_step(self.env.step(action))

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[WObsType]:
        return self._wrap_reset(await self.env.async_reset(seed=seed, options=options))

    async def async_step(self, action: ActType) -> StepResult[WObsType]:
        return self._wrap_step(await self.env.async_step(action))


class ObservationWrapper(_ResultWrapper[WObsType, ActType, ObsType]):
    """Transforms every observation with ``observation()``."""

    @abc.abstractmethod
    def observation(self, observation: ObsType) -> WObsType:
        """The transformed observation."""

    def _wrap_reset(self, result: ResetResult[Any]) -> ResetResult[WObsType]:
        return ResetResult(self.observation(result.observation), result.info)

    def _wrap_step(self, result: StepResult[Any]) -> StepResult[WObsType]:
        return StepResult(
            self.observation(result.observation),
            result.reward,
            result.terminated,
            result.truncated,
            result.info,
        )


class RewardWrapper(Wrapper[ObsType, ActType, ObsType, ActType]):
    """Transforms every reward with ``reward()``."""

    @abc.abstractmethod
    def reward(self, reward: float) -> float:
        """The transformed reward."""

    def _wrap_step(self, result: StepResult[ObsType]) -> StepResult[ObsType]:
        return StepResult(
            result.observation,
            self.reward(result.reward),
            result.terminated,
            result.truncated,
            result.info,
        )

    def step(self, action: ActType) -> StepResult[ObsType]:
        return self._wrap_step(self.env.step(action))

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        return self._wrap_step(await self.env.async_step(action))


class ActionWrapper(Wrapper[ObsType, WActType, ObsType, ActType]):
    """Transforms every action with ``action()`` before the inner env sees it."""

    @abc.abstractmethod
    def action(self, action: WActType) -> ActType:
        """The action the inner env receives."""

    def reverse_action(self, action: ActType) -> WActType:
        """The inverse of ``action()``, where a subclass defines it."""
        raise NotImplementedError(f"{type(self).__name__} does not define reverse_action().")

    def step(self, action: WActType) -> StepResult[ObsType]:
        return self.env.step(self.action(action))

    async def async_step(self, action: WActType) -> StepResult[ObsType]:
        return await self.env.async_step(self.action(action))
