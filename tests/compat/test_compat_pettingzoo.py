"""PettingZoo bridges: to_pettingzoo passes PettingZoo's parallel API test; round trips."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sekai.compat import from_pettingzoo, to_pettingzoo
from sekai.core import MAResetResult, MAStepResult, MultiAgentEnv
from sekai.spaces import Box, Dict, Discrete

pettingzoo = pytest.importorskip(
    "pettingzoo", reason="PettingZoo is not installed (the pettingzoo extra)"
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


def test_pettingzoo_to_sekai_seeds_follow_the_int_rule() -> None:
    env = from_pettingzoo(to_pettingzoo(TagTeam()))
    first = env.reset(seed=5).observations["scout"]
    np.testing.assert_array_equal(first, env.reset(seed=5.0).observations["scout"])
    assert env._rng_seed == 5 and type(env._rng_seed) is int
    for bad in (2.5, True, float("nan")):
        with pytest.raises(TypeError, match="seed must be"):
            env.reset(seed=bad)
    with pytest.raises(ValueError, match="non-negative"):
        env.reset(seed=-1)


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


# -- LimitOrderBookMarket through the bridge -------------------------------------------------

LOCKSTEP_MARKETS: list[dict[str, Any]] = [
    {"n_agents": 2},
    {"n_agents": 3, "decision_intervals": [2.0, 2.0, 2.0], "session_length": 7.5},
    {"n_agents": 1, "jitter": 0.3},
]
STAGGERED_MESSAGES: list[tuple[dict[str, Any], str]] = [
    (
        {"decision_intervals": [1.0, 2.5]},
        "unequal decision_intervals [1.0, 2.5] (every agent acts at every step only with "
        "equal decision_intervals and jitter=0)",
    ),
    (
        {"jitter": 0.3},
        "jitter=0.3 (every agent acts at every step only with equal decision_intervals and "
        "jitter=0)",
    ),
    (
        {"n_agents": 3, "decision_intervals": [1.0, 1.0, 3.0], "jitter": 0.1},
        "unequal decision_intervals [1.0, 1.0, 3.0] and jitter=0.1 (every agent acts at every "
        "step only with equal decision_intervals and jitter=0)",
    ),
]


def _market(**kwargs: Any) -> Any:
    from sekai.envs.finance.order_book import LimitOrderBookMarket

    kwargs.setdefault("session_length", 10.0)
    return LimitOrderBookMarket(**kwargs)


@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize("kwargs", LOCKSTEP_MARKETS)
def test_market_passes_parallel_api_test(kwargs: dict[str, Any], seed: int) -> None:
    import warnings

    env = to_pettingzoo(_market(**kwargs))
    for agent in env.possible_agents:
        env.action_space(agent).seed(seed + env.possible_agents.index(agent))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(env, num_cycles=100)
    assert [str(w.message) for w in caught if w.filename.endswith("parallel_test.py")] == []
    assert env.agents == []


@pytest.mark.parametrize("seed", [3, 4])
def test_market_through_bridge_matches_sekai_env(seed: int) -> None:
    from sekai.envs.finance.order_book import BUY, HOLD, SELL

    direct = _market(n_agents=3, decision_intervals=2.0, session_length=9.0)
    env = to_pettingzoo(_market(n_agents=3, decision_intervals=2.0, session_length=9.0))
    first = direct.reset(seed=seed)
    observations, infos = env.reset(seed=seed)
    assert env.agents == env.possible_agents == ["trader_0", "trader_1", "trader_2"]
    assert set(observations) == set(env.agents) and infos == first.info
    choices = [np.array([1, 2, BUY]), np.array([2, 1, SELL]), np.array([0, 0, HOLD])]
    steps = 0
    while env.agents:
        actions = {a: choices[(i + steps) % 3] for i, a in enumerate(env.agents)}
        a = direct.step(actions)
        observations, rewards, terminated, truncated, infos = env.step(actions)
        steps += 1
        assert set(observations) == set(rewards) == set(env.possible_agents)
        for agent in env.possible_agents:
            np.testing.assert_array_equal(
                observations[agent]["agent"], a.observations[agent]["agent"]
            )
            assert rewards[agent] == a.rewards[agent]
            assert infos[agent]["acting"] is True
        assert terminated == a.terminated and truncated == a.truncated
    assert steps == 5  # decisions at 0, 2, 4, 6, 8; the last interval is cut at 9
    assert all(terminated.values()) and not any(truncated.values())


@pytest.mark.parametrize(("kwargs", "reason"), STAGGERED_MESSAGES)
def test_staggered_market_is_bridged_and_says_why_turns_differ(
    kwargs: dict[str, Any], reason: str
) -> None:
    market = _market(**kwargs)
    assert market.staggered_by == reason
    env = to_pettingzoo(market)
    assert env.sekai_env is market and env.possible_agents == market.possible_agents


# -- event-driven markets: only the agents due to act are observed and asked -------------------

HOLD_ACTION = np.array([1, 1, 1])
CHOICES = [np.array([1, 2, 2]), np.array([2, 1, 0]), np.array([0, 0, 1]), np.array([1, 1, 2])]


def _choose(agent: str, step: int) -> np.ndarray:
    """A scripted action that differs between agents and steps."""
    return CHOICES[(int(agent.rsplit("_", 1)[1]) + step) % len(CHOICES)]


def test_event_driven_market_asks_each_agent_at_its_own_times() -> None:
    """Intervals [1, 2]: trader_1 is asked at every second decision time of trader_0."""
    env = to_pettingzoo(_market(decision_intervals=[1.0, 2.0]))
    agents = ["trader_0", "trader_1"]
    observations, infos = env.reset(seed=5)
    assert sorted(observations) == sorted(infos) == env.agents == agents
    asked: dict[str, list[float]] = {agent: [0.0] for agent in agents}
    step = 0
    while env.agents:
        actions = {agent: _choose(agent, step) for agent in observations}
        observations, rewards, terminated, truncated, infos = env.step(actions)
        step += 1
        for result in (rewards, terminated, truncated, infos):
            assert sorted(result) == agents  # every live agent, every step
        assert all(type(r) is float for r in rewards.values())
        now = infos["trader_0"]["timestamp"]
        assert infos["trader_1"]["timestamp"] == now == pytest.approx(step)
        if env.agents:
            assert env.agents == agents
            assert sorted(observations) == [a for a in agents if infos[a]["acting"]]
            for agent in observations:
                asked[agent].append(round(now, 6))
    assert step == 10 and all(terminated.values()) and not any(truncated.values())
    assert asked["trader_0"] == [float(t) for t in range(10)]
    assert asked["trader_1"] == [0.0, 2.0, 4.0, 6.0, 8.0] == asked["trader_0"][::2]


EVENT_DRIVEN: list[dict[str, Any]] = [
    {"decision_intervals": [1.0, 2.0]},
    {"jitter": 0.3},
    {"n_agents": 3, "decision_intervals": [1.0, 1.0, 2.5], "jitter": 0.1},
]


@pytest.mark.parametrize("kwargs", EVENT_DRIVEN)
def test_event_driven_episode_equals_the_sekai_market(kwargs: dict[str, Any]) -> None:
    direct, env = _market(**kwargs), to_pettingzoo(_market(**kwargs))
    expected = direct.reset(seed=9)
    observations, infos = env.reset(seed=9)
    assert sorted(observations) == sorted(expected.observations) and infos == expected.info
    totals = dict.fromkeys(env.possible_agents, 0.0)
    direct_totals = dict.fromkeys(env.possible_agents, 0.0)
    step = 0
    partial = 0
    while env.agents:
        actions = {agent: _choose(agent, step) for agent in observations}
        partial += len(actions) < len(env.agents)
        a = direct.step(dict(actions))
        observations, rewards, terminated, truncated, infos = env.step(actions)
        step += 1
        assert list(observations) == list(a.observations)
        for agent, observation in observations.items():
            for key in ("book", "agent"):
                np.testing.assert_array_equal(observation[key], a.observations[agent][key])
        assert rewards == a.rewards and infos == a.info
        assert terminated == a.terminated and truncated == a.truncated
        assert env.agents == direct.agents
        for agent in env.possible_agents:
            totals[agent] += rewards[agent]
            direct_totals[agent] += a.rewards[agent]
    assert totals == direct_totals and partial > 0  # some steps asked only some agents
    final = {agent: infos[agent]["wealth"] for agent in env.possible_agents}
    assert final == {agent: a.info[agent]["wealth"] for agent in env.possible_agents}


def _at_a_partial_step() -> tuple[Any, dict[str, Any]]:
    """The bridged [1, 2] market after one step: only trader_0 is due."""
    env = to_pettingzoo(_market(decision_intervals=[1.0, 2.0]))
    env.reset(seed=1)
    observations, *_ = env.step({"trader_0": HOLD_ACTION, "trader_1": HOLD_ACTION})
    assert list(observations) == ["trader_0"] and env.agents == ["trader_0", "trader_1"]
    return env, observations


@pytest.mark.parametrize(
    ("actions", "problem"),
    [
        ({}, "missing ['trader_0']"),
        ({"trader_0": HOLD_ACTION, "trader_1": HOLD_ACTION}, "not due to act ['trader_1']"),
        ({"trader_1": HOLD_ACTION}, "missing ['trader_0'], not due to act ['trader_1']"),
        ({"trader_0": HOLD_ACTION, "trader_7": HOLD_ACTION}, "not due to act ['trader_7']"),
    ],
)
def test_actions_must_name_exactly_the_agents_due(actions: dict[str, Any], problem: str) -> None:
    import re

    env, _ = _at_a_partial_step()
    market = env.sekai_env
    before = (market.next_decision.tolist(), market.book.time, list(market.acting))
    message = (
        "SekaiToPettingZoo.step: actions must hold one action for each agent due to act, "
        f"['trader_0'], and no other; {problem}. The agents due to act are those the last "
        "reset() or step() observed that are still in agents."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        env.step(actions)
    assert (market.next_decision.tolist(), market.book.time, market.acting) == before
    _, rewards, *_ = env.step({"trader_0": HOLD_ACTION})
    assert sorted(rewards) == ["trader_0", "trader_1"]


def test_actions_must_be_a_mapping() -> None:
    env, _ = _at_a_partial_step()
    with pytest.raises(TypeError, match=r"^actions must be a dict .*, got list \[.*\]\.$"):
        env.step([HOLD_ACTION])


def test_a_finished_agent_is_not_due() -> None:
    env = to_pettingzoo(TagTeam())
    env.reset(seed=0)
    for _ in range(3):
        observations, *_ = env.step({a: 1 for a in env.agents})
    assert sorted(observations) == ["guard", "scout"] and env.agents == ["guard"]
    with pytest.raises(ValueError, match=r"not due to act \['scout'\]"):
        env.step({"scout": 1, "guard": 1})
    _, rewards, *_ = env.step({"guard": 1})
    assert rewards == {"guard": 1.0}


def test_stepping_without_an_episode_is_left_to_the_sekai_env() -> None:
    from sekai.error import ResetRequired

    env = to_pettingzoo(_market(decision_intervals=[1.0, 2.0], session_length=1.0))
    with pytest.raises(ResetRequired):
        env.step({"trader_0": HOLD_ACTION})
    env.reset(seed=0)
    env.step({"trader_0": HOLD_ACTION, "trader_1": HOLD_ACTION})
    assert env.agents == []
    with pytest.raises(ResetRequired):
        env.step({"trader_0": HOLD_ACTION})


def test_staggered_by_tells_whether_all_agents_act() -> None:
    """``staggered_by`` is None exactly when the market makes every agent act every step."""
    assert TagTeam().staggered_by is None
    configs = [*LOCKSTEP_MARKETS, *(kwargs for kwargs, _ in STAGGERED_MESSAGES)]
    for kwargs in configs:
        market = _market(**kwargs)
        market.reset(seed=2)
        lockstep = True
        while market.agents:
            lockstep &= market.acting == market.agents
            market.step({a: np.array([1, 1, 1]) for a in market.acting})
        assert lockstep is (market.staggered_by is None), kwargs
