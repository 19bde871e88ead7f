"""The multi-agent environment base class."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, Generic

from sekai._types import ActType, AgentID, ObsType, SeedType
from sekai.core.closing import Closing
from sekai.core.gymnasium_names import GymnasiumNames
from sekai.core.result import MAResetResult, MAStepResult
from sekai.core.rng import SeededRNG

if TYPE_CHECKING:
    from sekai.spaces.space import Space

__all__ = ["MultiAgentEnv"]


class MultiAgentEnv(
    SeededRNG, Closing, GymnasiumNames, abc.ABC, Generic[ObsType, ActType, AgentID]
):
    """Several agents acting at once; every dict is keyed by agent ID."""

    agents: list[AgentID]
    possible_agents: list[AgentID]
    observation_spaces: dict[AgentID, Space[Any]]
    action_spaces: dict[AgentID, Space[Any]]

    @abc.abstractmethod
    def reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[ObsType]:
        """Start a new episode."""

    @abc.abstractmethod
    def step(self, actions: dict[AgentID, ActType]) -> MAStepResult[ObsType]:
        """Advance by one joint action."""

    async def async_reset(
        self, *, seed: SeedType = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[ObsType]:
        """Async ``reset``; runs the sync method."""
        return self.reset(seed=seed, options=options)

    async def async_step(self, actions: dict[AgentID, ActType]) -> MAStepResult[ObsType]:
        """Async ``step``; runs the sync method."""
        return self.step(actions)

    @property
    def staggered_by(self) -> str | None:
        """What lets only some of ``agents`` act at a step, or ``None``: all act at every step.

        Envs with their own turn clocks override this with a short phrase naming the setting
        (and how to turn it off). Checks that have every agent act at every step, such as
        PettingZoo's ``parallel_api_test``, apply only where it is ``None``.
        """
        return None

    @property
    def num_agents(self) -> int:
        """Agents currently active."""
        return len(self.agents)

    @property
    def max_num_agents(self) -> int:
        """Agents that can ever take part."""
        return len(self.possible_agents)

    def observation_space(self, agent: AgentID) -> Space[Any]:
        """The observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: AgentID) -> Space[Any]:
        """The action space of ``agent``."""
        return self.action_spaces[agent]

    def __str__(self) -> str:
        return f"<{type(self).__name__} agents={self.agents}>"

    __repr__ = __str__
