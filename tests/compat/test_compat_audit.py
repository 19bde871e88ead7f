"""sekai.compat audited against the spec (§10): details the other compat tests leave open."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sekai
from sekai.compat import from_gymnasium, from_pettingzoo, to_gymnasium, to_pettingzoo
from sekai.core import MAResetResult, MAStepResult, MultiAgentEnv
from sekai.spaces import Discrete

pytest.importorskip("pettingzoo")


class Pair(MultiAgentEnv[Any, Any, str]):
    """Two agents, one step per episode; counts resets."""

    def __init__(self) -> None:
        self.possible_agents = ["a", "b"]
        self.agents: list[str] = []
        self.observation_spaces = {agent: Discrete(3) for agent in self.possible_agents}
        self.action_spaces = {agent: Discrete(2) for agent in self.possible_agents}
        self.resets = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self.resets += 1
        self.agents = list(self.possible_agents)
        return MAResetResult({agent: 0 for agent in self.agents}, {"a": {"x": 1}})

    def step(self, actions: dict[str, Any]) -> Any:
        done = dict.fromkeys(self.agents, True)
        result = MAStepResult(
            {agent: 1 for agent in self.agents},
            {agent: np.float32(0.5) for agent in self.agents},
            done,
            dict.fromkeys(self.agents, np.False_),
            {},
        )
        self.agents = []
        return result


def test_to_pettingzoo_shape() -> None:
    env = to_pettingzoo(Pair())
    assert env.render_mode is None and env.render() is None
    assert env.metadata == {"name": "Pair", "render_modes": [], "is_parallelizable": True}
    observations, infos = env.reset(seed=3)
    assert observations == {"a": 0, "b": 0}
    assert env.agents == ["a", "b"]
    assert infos == {"a": {"x": 1}, "b": {}}
    _, rewards, terminated, truncated, infos = env.step({"a": 0, "b": 1})
    assert {type(r) for r in rewards.values()} == {float}
    assert {type(t) for t in (*terminated.values(), *truncated.values())} == {bool}
    assert env.agents == [] and set(infos) == {"a", "b"}


def test_from_pettingzoo_rejects_a_generator_before_resetting() -> None:
    inner = Pair()
    env = from_pettingzoo(to_pettingzoo(inner))
    with pytest.raises(TypeError, match="int seed, not a numpy Generator"):
        env.reset(seed=np.random.default_rng(0))
    assert inner.resets == 0
    env.reset(seed=np.int32(4))
    assert env._rng_seed == 4 and type(env._rng_seed) is int
    assert env.agents == ["a", "b"]


def test_round_trip_through_gymnasium_keeps_the_spaces() -> None:
    native = sekai.make("CartPole-v1")
    back = from_gymnasium(to_gymnasium(native))
    assert back.observation_space == native.observation_space
    assert back.action_space == native.action_space
    assert back.metadata == {"render_modes": [], "render_fps": 50}
