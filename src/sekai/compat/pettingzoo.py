"""Bridges between ``sekai.MultiAgentEnv`` and PettingZoo's ``ParallelEnv``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sekai.compat._install import install_hint
from sekai.compat.gymnasium import space_from_gymnasium, space_to_gymnasium
from sekai.core import MAResetResult, MAStepResult, MultiAgentEnv
from sekai.utils.seeding import check_seed
from sekai.utils.validation import check_instance

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

    ``reset`` and ``step`` return the observations of the agents due to act: those observed
    that are still in ``agents`` (every live agent in a lockstep env; in an event-driven one,
    such as ``LimitOrderBookMarket`` with staggered turns, only the agents whose decision time
    has come). ``step`` takes one action for each of them and no other (``ValueError``
    otherwise, before the sekai env is touched). Rewards, flags and infos are the sekai env's
    (the market's come for every live agent), with one info dict per agent: its
    ``info[agent]``, empty when it has none. PettingZoo's ``parallel_api_test`` has every agent
    act at every step, so it applies to envs whose ``staggered_by`` is ``None``.
    """

    def __init__(self, env: MultiAgentEnv[Any, Any, Any]) -> None:
        if not isinstance(env, MultiAgentEnv):
            raise TypeError(
                f"SekaiToPettingZoo expects a sekai.MultiAgentEnv, got {type(env).__name__}; "
                "use sekai.compat.to_gymnasium for a sekai.Env."
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
        self._due: list[Any] | None = None  # None before the first reset

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
        observations = self._observed(result.observations)
        return observations, _per_agent_infos(result.info, observations)

    def _observed(self, observations: Mapping[Any, Any]) -> dict[Any, Any]:
        """Refresh ``agents`` and the agents due to act from a result's ``observations``."""
        self.agents = list(self.sekai_env.agents)
        live = set(self.agents)
        self._due = [agent for agent in observations if agent in live]
        return dict(observations)

    def _check_actions(self, actions: Any) -> None:
        """``actions`` must hold exactly the agents due to act while an episode runs; without
        one, the sekai env's ``step`` says what is wrong."""
        check_instance(actions, "actions", Mapping, "a dict of one action per agent due to act")
        due = self._due
        if due is None or not self.agents:
            return
        missing = [agent for agent in due if agent not in actions]
        extra = [agent for agent in actions if agent not in due]
        if missing or extra:
            problems = [f"missing {missing}"] if missing else []
            problems += [f"not due to act {extra}"] if extra else []
            raise ValueError(
                "SekaiToPettingZoo.step: actions must hold one action for each agent due to "
                f"act, {due}, and no other; {', '.join(problems)}. The agents due to act are "
                "those the last reset() or step() observed that are still in agents."
            )

    def step(
        self, actions: dict[Any, Any]
    ) -> tuple[
        dict[Any, Any],
        dict[Any, float],
        dict[Any, bool],
        dict[Any, bool],
        dict[Any, dict[str, Any]],
    ]:
        """Step the sekai env with the actions of the agents due to act; rewards as float,
        flags as bool, one info dict per agent seen."""
        self._check_actions(actions)
        result = self.sekai_env.step(actions)
        observations = self._observed(result.observations)
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
