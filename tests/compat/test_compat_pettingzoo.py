"""PettingZoo bridges: to_pettingzoo passes PettingZoo's parallel API test; round trips."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.compat import from_pettingzoo, to_pettingzoo
from sekai.core import MAResetResult, MAStepResult, MultiAgentEnv
from sekai.spaces import Box, Dict, Discrete

pettingzoo = pytest.importorskip(
    "pettingzoo", reason='PettingZoo is not installed (pip install "sekai[pettingzoo]")'
)
from pettingzoo.test import parallel_api_test  # noqa: E402

AGENTS = ["scout", "guard"]


class TagTeam(MultiAgentEnv[Any, int, str]):
    """Two agents for six steps; the scout drops out after three; infos are per agent."""

    def __init__(self) -> None:
        self.possible_agents = list(AGENTS)
        self.agents = []
        self.observation_spaces = {
            "scout": Box(-10.0, 10.0, (2,), np.float32),
            "guard": Dict({"pos": Discrete(7), "alert": Box(0.0, 1.0, (), np.float32)}),
        }
        self.action_spaces = {"scout": Discrete(3), "guard": Discrete(2, start=1)}
        self._t = 0

    def _observe(self, agent: str) -> Any:
        if agent == "scout":
            return self.rng.uniform(-1.0, 1.0, 2).astype(np.float32)
        return {"pos": self._t, "alert": np.float32(self.rng.random())}

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        self._set_rng(seed)
        self._t = 0
        self.agents = list(AGENTS)
        observations = {a: self._observe(a) for a in self.agents}
        return MAResetResult(observations, {a: {"t": 0} for a in self.agents})

    def step(self, actions: dict[str, int]) -> Any:
        self._t += 1
        acting = list(self.agents)
        rewards = {a: int(actions[a]) for a in acting}  # ints: the bridge makes them floats
        terminated = {a: (a == "scout" and self._t >= 3) for a in acting}
        truncated = {a: self._t >= 6 for a in acting}
        self.agents = [a for a in acting if not (terminated[a] or truncated[a])]
        observations = {a: self._observe(a) for a in acting}
        return MAStepResult(
            observations,
            rewards,  # type: ignore[arg-type]
            terminated,
            truncated,
            {a: {"t": self._t} for a in acting},
        )


def test_parallel_api_test_passes() -> None:
    parallel_api_test(to_pettingzoo(TagTeam()), num_cycles=50)


def test_sekai_to_pettingzoo_attributes() -> None:
    import gymnasium

    env = to_pettingzoo(TagTeam())
    assert isinstance(env, pettingzoo.ParallelEnv)
    assert env.possible_agents == AGENTS and env.agents == []
    assert env.metadata == {"name": "TagTeam", "render_modes": [], "is_parallelizable": True}
    assert env.render_mode is None and env.render() is None
    assert env.action_space("guard") == gymnasium.spaces.Discrete(2, start=1)
    assert env.observation_space("scout") is env.observation_spaces["scout"]
    assert list(env.observation_space("guard").spaces) == ["pos", "alert"]


def test_sekai_to_pettingzoo_reset_and_step() -> None:
    env = to_pettingzoo(TagTeam())
    observations, infos = env.reset(seed=3)
    assert env.agents == AGENTS
    assert infos == {"scout": {"t": 0}, "guard": {"t": 0}}
    expected = TagTeam().reset(seed=3).observations
    np.testing.assert_array_equal(observations["scout"], expected["scout"])
    for _ in range(3):
        _, rewards, terminated, truncated, infos = env.step({a: 1 for a in env.agents})
    assert rewards == {"scout": 1.0, "guard": 1.0}
    assert all(type(r) is float for r in rewards.values())
    assert terminated == {"scout": True, "guard": False}
    assert truncated == {"scout": False, "guard": False}
    assert infos == {"scout": {"t": 3}, "guard": {"t": 3}}
    assert env.agents == ["guard"]


def test_sekai_to_pettingzoo_fills_missing_infos() -> None:
    class Quiet(TagTeam):
        def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
            return MAResetResult(super().reset(seed=seed).observations, {})

    _, infos = to_pettingzoo(Quiet()).reset(seed=0)
    assert infos == {"scout": {}, "guard": {}}


def test_sekai_to_pettingzoo_rejects_single_agent_envs() -> None:
    from sekai.envs import CartPoleEnv

    with pytest.raises(TypeError, match=r"sekai\.MultiAgentEnv.*to_gymnasium"):
        to_pettingzoo(CartPoleEnv())  # type: ignore[arg-type]


def test_round_trip_through_pettingzoo() -> None:
    direct, bridged = TagTeam(), from_pettingzoo(to_pettingzoo(TagTeam()))
    assert isinstance(bridged, MultiAgentEnv)
    assert bridged.possible_agents == AGENTS
    assert bridged.observation_spaces == direct.observation_spaces
    assert bridged.action_spaces == direct.action_spaces
    first, second = direct.reset(seed=11), bridged.reset(seed=11)
    assert isinstance(second, MAResetResult)
    assert bridged.agents == AGENTS and bridged._rng_seed == 11
    np.testing.assert_array_equal(first.observations["scout"], second.observations["scout"])
    assert second.info == first.info
    while direct.agents:
        actions = {a: 1 for a in direct.agents}
        a, b = direct.step(actions), bridged.step(actions)
        assert isinstance(b, MAStepResult)
        assert b.rewards == a.rewards and all(type(r) is float for r in b.rewards.values())
        assert b.terminated == a.terminated and b.truncated == a.truncated
        assert b.info == a.info
        assert bridged.agents == direct.agents
    assert bridged.agents == [] and b.all_done


def test_pettingzoo_to_sekai_seeds() -> None:
    env = from_pettingzoo(to_pettingzoo(TagTeam()))
    with pytest.raises(TypeError, match="int seed, not a numpy Generator"):
        env.reset(seed=np.random.default_rng(0))
    first = env.reset(seed=np.int64(5)).observations["scout"]
    assert env._rng_seed == 5 and type(env._rng_seed) is int
    np.testing.assert_array_equal(first, env.reset(seed=5).observations["scout"])
    env.reset()
    assert env._rng_seed == 5


def test_pettingzoo_to_sekai_str_close_and_type_check() -> None:
    closed = []

    class Closing(TagTeam):
        def close(self) -> None:
            closed.append(True)

    env = from_pettingzoo(to_pettingzoo(Closing()))
    assert str(env) == repr(env) == "<PettingZooToSekai <SekaiToPettingZoo>>"
    env.close()
    assert closed == [True]
    with pytest.raises(TypeError, match=r"pettingzoo\.ParallelEnv"):
        from_pettingzoo(TagTeam())
