"""Results returned by ``reset()`` and ``step()``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

from sekai._types import ObsType

__all__ = ["MAResetResult", "MAStepResult", "ResetResult", "StepResult"]


@dataclass(frozen=True, slots=True)
class StepResult(Generic[ObsType]):
    """What ``step()`` returns."""

    observation: ObsType
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    @property
    def done(self) -> bool:
        """``terminated or truncated``."""
        return bool(self.terminated or self.truncated)


@dataclass(frozen=True, slots=True)
class ResetResult(Generic[ObsType]):
    """What ``reset()`` returns."""

    observation: ObsType
    info: dict[str, Any]

    @property
    def done(self) -> bool:
        """Always False, so one ``while not result.done`` loop serves both results."""
        return False


def _agent_done(terminated: dict[Any, bool], truncated: dict[Any, bool], agent: Any) -> bool:
    return bool(terminated.get(agent, False) or truncated.get(agent, False))


@dataclass(frozen=True, slots=True)
class MAStepResult(Generic[ObsType]):
    """What ``MultiAgentEnv.step()`` returns, keyed by agent ID."""

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


@dataclass(frozen=True, slots=True)
class MAResetResult(Generic[ObsType]):
    """What ``MultiAgentEnv.reset()`` returns."""

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
