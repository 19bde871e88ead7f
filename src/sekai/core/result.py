"""Results returned by ``reset()`` and ``step()``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any, Generic, SupportsIndex, overload

from sekai._types import ObsType

__all__ = ["MAResetResult", "MAStepResult", "ResetResult", "StepResult", "merge_autoreset"]


class TupleLike:
    """Unpacking, ``len()`` and indexing over a result's fields in order, as the tuples of
    gymnasium and PettingZoo allow: ``obs, info = env.reset()``, ``env.step(a)[0]``.

    Results compare as one tuple of all their fields, so a field holding the same object
    (an array) on both sides is equal, on every Python: a dataclass's own ``__eq__`` compares
    field by field from Python 3.13, where ``array == array`` has no single truth value.
    """

    __slots__ = ()

    def _fields(self) -> tuple[Any, ...]:
        """Every dataclass field in order, those that do not unpack (``env_ids``) included."""
        return tuple(getattr(self, field.name) for field in fields(self))  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def _astuple(self) -> tuple[Any, ...]:
        """The fields in order (shallow: the objects themselves, not copies)."""
        raise NotImplementedError(f"{type(self).__name__} does not define _astuple().")

    def __iter__(self) -> Iterator[Any]:
        return iter(self._astuple())

    def __len__(self) -> int:
        return len(self._astuple())

    @overload
    def __getitem__(self, index: SupportsIndex) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Any, ...]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        return self._astuple()[index]


@dataclass(frozen=True, slots=True, eq=False)
class StepResult(TupleLike, Generic[ObsType]):
    """What ``step()`` returns; unpacks as ``obs, reward, terminated, truncated, info``."""

    observation: ObsType
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    @property
    def done(self) -> bool:
        """``terminated or truncated``."""
        return bool(self.terminated or self.truncated)

    def _astuple(self) -> tuple[Any, ...]:
        return (self.observation, self.reward, self.terminated, self.truncated, self.info)


@dataclass(frozen=True, slots=True, eq=False)
class ResetResult(TupleLike, Generic[ObsType]):
    """What ``reset()`` returns; unpacks as ``obs, info``."""

    observation: ObsType
    info: dict[str, Any]

    @property
    def done(self) -> bool:
        """Always False, so one ``while not result.done`` loop serves both results."""
        return False

    def _astuple(self) -> tuple[Any, ...]:
        return (self.observation, self.info)


def _fast_init_step_result() -> None:
    # The generated frozen-dataclass __init__ sets each field through object.__setattr__ with
    # a name lookup; calling the slot descriptors directly builds a result ~40% faster, which
    # matters because every step() of every env and wrapper builds one.
    slots = vars(StepResult)
    set_obs, set_reward, set_term, set_trunc, set_info = (
        slots[name].__set__ for name in ("observation", "reward", "terminated", "truncated", "info")
    )

    def __init__(
        self: StepResult[Any],
        observation: Any,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> None:
        set_obs(self, observation)
        set_reward(self, reward)
        set_term(self, terminated)
        set_trunc(self, truncated)
        set_info(self, info)

    __init__.__qualname__ = "StepResult.__init__"
    StepResult.__init__ = __init__  # type: ignore[method-assign]


_fast_init_step_result()


def merge_autoreset(step: StepResult[Any], reset: ResetResult[Any]) -> StepResult[Any]:
    """The step of an env reset in the same call, in the ``AutoReset`` convention: the new
    episode's first observation, the terminal step's reward and flags, and its observation and
    info kept as ``final_observation`` / ``final_info`` beside ``reset_info``."""
    return StepResult(
        reset.observation,
        step.reward,
        step.terminated,
        step.truncated,
        {
            **step.info,
            "final_observation": step.observation,
            "final_info": step.info,
            "reset_info": reset.info,
        },
    )


def _agent_done(terminated: dict[Any, bool], truncated: dict[Any, bool], agent: Any) -> bool:
    return bool(terminated.get(agent, False) or truncated.get(agent, False))


@dataclass(frozen=True, slots=True, eq=False)
class MAStepResult(TupleLike, Generic[ObsType]):
    """What ``MultiAgentEnv.step()`` returns, keyed by agent ID; unpacks as PettingZoo's
    ``observations, rewards, terminations, truncations, infos``."""

    observations: dict[Any, ObsType]
    rewards: dict[Any, float]
    terminated: dict[Any, bool]
    truncated: dict[Any, bool]
    info: dict[Any, Any]

    @property
    def all_done(self) -> bool:
        """Every agent named in the flags is done (False when no agent is named)."""
        agents = self.terminated.keys() | self.truncated.keys()
        return bool(agents) and all(_agent_done(self.terminated, self.truncated, a) for a in agents)

    @property
    def any_done(self) -> bool:
        """At least one agent is done."""
        agents = self.terminated.keys() | self.truncated.keys()
        return any(_agent_done(self.terminated, self.truncated, a) for a in agents)

    def _astuple(self) -> tuple[Any, ...]:
        return (self.observations, self.rewards, self.terminated, self.truncated, self.info)


@dataclass(frozen=True, slots=True, eq=False)
class MAResetResult(TupleLike, Generic[ObsType]):
    """What ``MultiAgentEnv.reset()`` returns; unpacks as ``observations, infos``."""

    observations: dict[Any, ObsType]
    info: dict[Any, Any]

    @property
    def all_done(self) -> bool:
        """Always False."""
        return False

    @property
    def any_done(self) -> bool:
        """Always False."""
        return False

    def _astuple(self) -> tuple[Any, ...]:
        return (self.observations, self.info)
