"""The single-agent environment base class."""

from __future__ import annotations

import abc
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from sekai._types import ActType, ObsType, SeedType
from sekai.core.closing import Closing
from sekai.core.gymnasium_names import GymnasiumNames
from sekai.core.result import ResetResult, StepResult
from sekai.core.rng import SeededRNG

if TYPE_CHECKING:
    from sekai.core.spec import EnvSpec
    from sekai.spaces.space import Space

__all__ = ["Env", "install_async_fallbacks"]

_ASYNC_PAIRS = (("step", "async_step"), ("reset", "async_reset"))


def _owner_index(mro: tuple[type, ...], name: str) -> int:
    for index, klass in enumerate(mro):
        if name in klass.__dict__:
            return index
    return len(mro)


def _async_caller(sync: Callable[..., Any], name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    async def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return sync(self, *args, **kwargs)

    call.__name__ = name
    return call


def install_async_fallbacks(cls: type) -> None:
    """Give ``cls`` async methods that run its sync logic where it overrides only the sync one.

    For each pair, when the class defining the sync method comes earlier in the MRO than the
    class defining the async one, an async method calling that exact sync function is installed,
    so ``await env.async_step(a)`` runs the same logic as ``env.step(a)``.
    """
    mro = cls.__mro__
    for sync_name, async_name in _ASYNC_PAIRS:
        sync_at, async_at = _owner_index(mro, sync_name), _owner_index(mro, async_name)
        if sync_at < async_at < len(mro):
            fallback = _async_caller(mro[sync_at].__dict__[sync_name], async_name)
            fallback.__qualname__ = f"{cls.__name__}.{async_name}"
            setattr(cls, async_name, fallback)


class Env(SeededRNG, Closing, GymnasiumNames, abc.ABC, Generic[ObsType, ActType]):
    """A single-agent environment: ``reset()``, ``step()`` and two spaces."""

    metadata: ClassVar[dict[str, Any]] = {}
    spec: EnvSpec | None = None
    observation_space: Space[Any]
    action_space: Space[Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        install_async_fallbacks(cls)

    @abc.abstractmethod
    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Start a new episode; call ``self._set_rng(seed)`` first."""

    @abc.abstractmethod
    def step(self, action: ActType) -> StepResult[ObsType]:
        """Advance the episode by one action."""

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> ResetResult[ObsType]:
        """Async ``reset``; runs the sync method unless overridden."""
        return self.reset(seed=seed, options=options)

    async def async_step(self, action: ActType) -> StepResult[ObsType]:
        """Async ``step``; runs the sync method unless overridden."""
        return self.step(action)

    @property
    def unwrapped(self) -> Env[Any, Any]:
        """The base environment (itself)."""
        return self

    def has_attr(self, name: str) -> bool:
        """Whether the environment has attribute ``name``."""
        return hasattr(self, name)

    def get_attr(self, name: str) -> Any:
        """Attribute ``name``; ``AttributeError`` if missing."""
        return getattr(self, name)

    def set_attr(self, name: str, value: Any) -> None:
        """Set attribute ``name``."""
        setattr(self, name, value)

    def __str__(self) -> str:
        spec = self.spec
        if spec is not None and getattr(spec, "id", None):
            return f"<{spec.id}>"
        return f"<{type(self).__name__}>"

    __repr__ = __str__
