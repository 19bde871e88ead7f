"""Bridges between ``sekai.MultiAgentEnv`` and PettingZoo's ``ParallelEnv``."""

from __future__ import annotations

from typing import Any

import numpy as np

from sekai.compat._install import install_hint
from sekai.compat.gymnasium import space_from_gymnasium, space_to_gymnasium
from sekai.core import MAResetResult, MAStepResult, MultiAgentEnv
from sekai.utils.seeding import check_seed

try:
    from pettingzoo import ParallelEnv
except ImportError as exc:
    raise ImportError(install_hint("pettingzoo")) from exc

__all__ = ["PettingZooToSekai", "SekaiToPettingZoo"]


def _per_agent_infos(info: dict[Any, Any], agents: Any) -> dict[Any, dict[str, Any]]:
    """One info dict for each of ``agents``: its entry in ``info``, else an empty dict."""
    return {agent: dict(info.get(agent, {})) for agent in agents}


class SekaiToPettingZoo(ParallelEnv):
    """A ``sekai.MultiAgentEnv`` seen as a PettingZoo ``ParallelEnv``.

    Infos are per agent: the sekai env's ``info[agent]`` (empty when it has none). Every agent
    in ``agents`` must act at every step, as PettingZoo's parallel API has it: an env whose
    ``staggered_by`` is not ``None`` (only some agents act at a step) raises ``ValueError``.
    """

    def __init__(self, env: MultiAgentEnv[Any, Any, Any]) -> None:
        if not isinstance(env, MultiAgentEnv):
            raise TypeError(
                f"SekaiToPettingZoo expects a sekai.MultiAgentEnv, got {type(env).__name__}; "
                "use sekai.compat.to_gymnasium for a sekai.Env."
            )
        staggered_by = env.staggered_by
        if staggered_by is not None:
            raise ValueError(
                "SekaiToPettingZoo needs every agent in agents to act at every step, as "
                f"PettingZoo's ParallelEnv does, but {type(env).__name__} lets only some act: "
                f"{staggered_by}. For staggered turns use the sekai env directly."
            )
        self.sekai_env = env
        self.possible_agents = list(env.possible_agents)
        self.agents = list(env.agents)
        self.observation_spaces = {
            agent: space_to_gymnasium(env.observation_space(agent))
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: space_to_gymnasium(env.action_space(agent)) for agent in self.possible_agents
        }
        self.metadata = {
            "name": type(env).__name__,
            "render_modes": [],
            "is_parallelizable": True,
        }
        self.render_mode = None

    def observation_space(self, agent: Any) -> Any:
        """The gymnasium observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: Any) -> Any:
        """The gymnasium action space of ``agent``."""
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[Any, Any], dict[Any, dict[str, Any]]]:
        """Reset the sekai env; one info dict per observed agent."""
        result = self.sekai_env.reset(seed=seed, options=options)
        self.agents = list(self.sekai_env.agents)
        observations = dict(result.observations)
        return observations, _per_agent_infos(result.info, observations)

    def step(
        self, actions: dict[Any, Any]
    ) -> tuple[
        dict[Any, Any],
        dict[Any, float],
        dict[Any, bool],
        dict[Any, bool],
        dict[Any, dict[str, Any]],
    ]:
        """Step the sekai env; rewards as float, flags as bool, one info dict per agent seen."""
        result = self.sekai_env.step(actions)
        self.agents = list(self.sekai_env.agents)
        observations = dict(result.observations)
        rewards = {agent: float(r) for agent, r in result.rewards.items()}
        terminated = {agent: bool(t) for agent, t in result.terminated.items()}
        truncated = {agent: bool(t) for agent, t in result.truncated.items()}
        seen = dict.fromkeys([*rewards, *terminated, *truncated, *observations])
        return observations, rewards, terminated, truncated, _per_agent_infos(result.info, seen)

    def render(self) -> None:
        """Nothing: render a sekai env with a renderer instead."""

    def close(self) -> None:
        """Close the sekai env."""
        self.sekai_env.close()


class PettingZooToSekai(MultiAgentEnv[Any, Any, Any]):
    """A PettingZoo ``ParallelEnv`` seen as a ``sekai.MultiAgentEnv``."""

    def __init__(self, env: Any) -> None:
        if not isinstance(env, ParallelEnv):
            raise TypeError(
                f"PettingZooToSekai expects a pettingzoo.ParallelEnv, got {type(env).__name__}."
            )
        self.pz_env = env
        self.possible_agents = list(env.possible_agents)
        self.agents = list(env.agents)
        self.observation_spaces = {
            agent: space_from_gymnasium(env.observation_space(agent))
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: space_from_gymnasium(env.action_space(agent)) for agent in self.possible_agents
        }

    def reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> MAResetResult[Any]:
        """Reset the PettingZoo env; ``seed`` must be an int or None (checked as ``Env.reset``
        checks it: ``check_seed``)."""
        if isinstance(seed, np.random.Generator):
            raise TypeError("PettingZoo envs take an int seed, not a numpy Generator; pass an int.")
        checked = check_seed(seed)
        observations, infos = self.pz_env.reset(seed=checked, options=options)
        if isinstance(checked, int):
            self._rng_seed = checked
        self.agents = list(self.pz_env.agents)
        return MAResetResult(dict(observations), dict(infos))

    def step(self, actions: dict[Any, Any]) -> MAStepResult[Any]:
        """Step the PettingZoo env; rewards as float, flags as bool."""
        observations, rewards, terminated, truncated, infos = self.pz_env.step(actions)
        self.agents = list(self.pz_env.agents)
        return MAStepResult(
            dict(observations),
            {agent: float(r) for agent, r in rewards.items()},
            {agent: bool(t) for agent, t in terminated.items()},
            {agent: bool(t) for agent, t in truncated.items()},
            dict(infos),
        )

    def close(self) -> None:
        """Close the PettingZoo env."""
        self.pz_env.close()

    def __str__(self) -> str:
        return f"<PettingZooToSekai <{type(self.pz_env).__name__}>>"

    __repr__ = __str__
