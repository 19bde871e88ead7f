"""``to_sb3``: a sekai VecEnv as a Stable-Baselines3 VecEnv."""

from __future__ import annotations

import functools
import importlib.util
import sys
import time
from typing import Any

import numpy as np
import pytest

import sekai
import sekai.compat
from sekai.core import Env, ResetResult, StepResult
from sekai.spaces import (
    Box,
    Dict,
    Discrete,
    MaskedBox,
    MultiBinary,
    MultiDiscrete,
    Sequence,
    Tuple,
)
from sekai.spaces.utils import concatenate, flatdim, flatten, flatten_space
from sekai.stats import EpisodeStats
from sekai.vector import SyncVecEnv, VecWrapper
from sekai.vector.native import take_index
from sekai.wrappers import TimeLimit

pytest.importorskip("gymnasium")
import gymnasium

from sekai.compat import space_to_gymnasium, to_gymnasium
from sekai.compat._sb3_support import flatten_rows
from sekai.compat.gymnasium_vector import GymnasiumVectorToSekai, from_gymnasium_vector
from sekai.compat.sb3 import SB3_INSTALL_HINT, _sb3_adapter_class, _selected, to_sb3

pytestmark = pytest.mark.sb3  # CI's sb3 run selects them

needs_sb3 = pytest.mark.skipif(
    importlib.util.find_spec("stable_baselines3") is None,
    reason="stable-baselines3 is not installed (the sb3 extra)",
)
needs_contrib = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None,
    reason="sb3-contrib is not installed (the sb3 extra)",
)


def test_indices_follow_the_int_rule() -> None:
    assert _selected(None, 3) == [0, 1, 2]
    assert _selected(np.int64(1), 3) == [1] and _selected(1.0, 3) == [1]
    assert _selected([0, 2.0], 3) == [0, 2] and all(type(i) is int for i in _selected([2.0], 3))
    for bad in (1.5, [0, 1.5], [True], True):
        with pytest.raises(TypeError, match="indices"):
            _selected(bad, 3)


class MaskedWalk(Env[dict[str, Any], int]):
    """Walk right to 5 with Dict observations; action 3 is always masked.

    Actions move by 0, 1 or 2 (3 stands still, or raises when ``strict``). Terminates at
    position 5 and truncates itself after ``limit`` steps. The reset info echoes ``options``.
    """

    def __init__(self, limit: int = 20, strict: bool = True) -> None:
        self.observation_space = Dict(
            {"pos": Box(0.0, 10.0, (1,), np.float32), "steps": Discrete(limit + 1)}
        )
        self.action_space = Discrete(4)
        self.limit = limit
        self.strict = strict
        self.pos = 0
        self.steps = 0

    def _obs(self) -> dict[str, Any]:
        return {"pos": np.array([self.pos], dtype=np.float32), "steps": self.steps}

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.pos = int(self.rng.integers(0, 2))
        self.steps = 0
        return ResetResult(self._obs(), {"options": options, "start": self.pos})

    def step(self, action: int) -> StepResult[Any]:
        if int(action) == 3 and self.strict:
            raise ValueError("masked action 3 taken")
        self.pos = min(self.pos + int(action) % 3, 10)
        self.steps += 1
        terminated = self.pos >= 5
        truncated = not terminated and self.steps >= self.limit
        return StepResult(self._obs(), -1.0, terminated, truncated, {"pos": self.pos})

    def action_mask(self) -> np.ndarray:
        return np.array([True, True, self.pos < 4, False])


def masked_vec(n: int = 3, limit: int = 20) -> SyncVecEnv:
    return SyncVecEnv([lambda: MaskedWalk(limit) for _ in range(n)])


@pytest.fixture(autouse=True)
def _fresh_adapter_class() -> Any:
    """Rebuild the SB3 adapter class after each test (some hide stable-baselines3)."""
    yield
    _sb3_adapter_class.cache_clear()


# --------------------------------------------------------------------------- sekai → SB3


@needs_sb3
def test_lazy_names_and_class() -> None:
    from stable_baselines3.common.vec_env import VecEnv as SB3VecEnv

    assert sekai.compat.to_sb3 is to_sb3
    assert sekai.compat.from_gymnasium_vector is from_gymnasium_vector
    assert sekai.compat.GymnasiumVectorToSekai is GymnasiumVectorToSekai
    cls = sekai.compat.SekaiToSB3VecEnv
    assert issubclass(cls, SB3VecEnv)
    assert (cls.__name__, cls.__module__) == ("SekaiToSB3VecEnv", "sekai.compat.sb3")
    vec = to_sb3(sekai.make_vec("CartPole-v1", 2))
    assert isinstance(vec, cls)
    assert repr(vec) == "SekaiToSB3VecEnv(SyncVecEnv(num_envs=2))"
    vec.close()
    assert vec.venv.closed


def test_missing_stable_baselines3(monkeypatch: pytest.MonkeyPatch) -> None:
    _sb3_adapter_class.cache_clear()
    for name in [m for m in sys.modules if m.partition(".")[0] == "stable_baselines3"]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[sb3\]"') as info:
        to_sb3(sekai.make_vec("CartPole-v1", 1))
    assert str(info.value) == SB3_INSTALL_HINT
    with pytest.raises(ImportError, match="stable-baselines3"):
        sekai.compat.SekaiToSB3VecEnv  # noqa: B018
    # the gymnasium direction does not need stable-baselines3
    assert from_gymnasium_vector(gymnasium.make_vec("CartPole-v1", 2)).num_envs == 2


@needs_sb3
def test_rejects_bad_venvs() -> None:
    with pytest.raises(TypeError, match="expects a sekai VecEnv"):
        to_sb3(sekai.make("CartPole-v1"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="autoreset=True"):
        to_sb3(sekai.make_vec("CartPole-v1", 2, vector_kwargs={"autoreset": False}))


@needs_sb3
def test_spaces_shapes_and_dtypes() -> None:
    vec = to_sb3(sekai.make_vec("CartPole-v1", 4))
    assert vec.num_envs == 4
    assert vec.observation_space == space_to_gymnasium(sekai.make("CartPole-v1").observation_space)
    assert vec.action_space == gymnasium.spaces.Discrete(2)
    assert vec.render_mode is None
    obs = vec.reset()
    assert obs.shape == (4, 4) and obs.dtype == np.float32
    assert vec.reset_infos == [{}, {}, {}, {}]
    obs, rewards, dones, infos = vec.step(np.array([0, 1, 0, 1]))
    assert obs.shape == (4, 4) and obs.dtype == np.float32
    assert rewards.dtype == np.float32 and rewards.shape == (4,)
    np.testing.assert_array_equal(rewards, 1.0)
    assert dones.dtype == np.bool_ and not dones.any()
    assert infos == [{"elapsed_steps": 1}] * 4
    vec.close()


@needs_sb3
def test_dict_observations_and_native_box_actions() -> None:
    vec = to_sb3(masked_vec(2))
    obs = vec.reset()
    assert set(obs) == {"pos", "steps"}
    assert obs["pos"].shape == (2, 1) and obs["steps"].shape == (2,)
    assert isinstance(vec.observation_space, gymnasium.spaces.Dict)

    native = to_sb3(sekai.make_vec("OptimalExecution-v0", 5))
    assert isinstance(native.action_space, gymnasium.spaces.Box)
    native.reset()
    for _ in range(native.get_attr("n_steps")[0]):
        obs, _, dones, infos = native.step(np.full((5, 1), 0.2, dtype=np.float32))
    assert dones.all()
    for i, info in enumerate(infos):
        assert info["terminal_observation"][0] == 0.0  # everything sold
        assert info["TimeLimit.truncated"] is False
        assert obs[i][0] == 1.0  # the next episode starts with the whole block
        assert native.reset_infos[i]["inventory"] == native.get_attr("X0")[0]


def _truncating_pair(n: int = 3, limit: int = 4) -> tuple[Any, SyncVecEnv]:
    """An adapter over ``MaskedWalk`` envs and a twin sekai VecEnv, both seeded alike."""
    adapter = to_sb3(masked_vec(n, limit))
    twin = masked_vec(n, limit)
    adapter.seed(11)
    adapter.reset()
    twin.reset(seed=[11 + i for i in range(n)])
    return adapter, twin


@needs_sb3
def test_terminal_observation_and_time_limit_truncated() -> None:
    adapter, twin = _truncating_pair()
    actions = np.array([0, 2, 1])  # stand still / run to the goal / walk
    seen_truncated = seen_terminated = False
    for _ in range(12):
        obs, _, dones, infos = adapter.step(actions)
        expected = twin.step(actions)
        np.testing.assert_array_equal(dones, expected.dones)
        np.testing.assert_array_equal(obs["pos"], expected.observations["pos"])
        for i, info in enumerate(infos):
            assert not {"final_observation", "final_info", "reset_info"} & set(info)
            if not dones[i]:
                assert info == expected.infos[i]
                continue
            want = expected.infos[i]
            assert info["pos"] == want["pos"]
            np.testing.assert_array_equal(
                info["terminal_observation"]["pos"], want["final_observation"]["pos"]
            )
            truncated = bool(expected.truncated[i] and not expected.terminated[i])
            assert info["TimeLimit.truncated"] is truncated
            seen_truncated |= truncated
            seen_terminated |= not truncated
            assert adapter.reset_infos[i] == want["reset_info"]
    assert seen_truncated and seen_terminated


@needs_sb3
def test_time_limit_truncated_from_make_vec() -> None:
    vec = to_sb3(sekai.make_vec("CartPole-v1", 2, max_episode_steps=3))
    vec.reset()
    infos: list[dict[str, Any]] = []
    for _ in range(3):
        _, _, dones, infos = vec.step(np.array([0, 1]))
    assert dones.all()
    assert [info["TimeLimit.truncated"] for info in infos] == [True, True]
    assert all(info["terminal_observation"].shape == (4,) for info in infos)


@needs_sb3
def test_seed_and_options_apply_to_the_next_reset_only() -> None:
    vec = to_sb3(sekai.make_vec("CartPole-v1", 3))
    assert vec.seed(5) == [5, 6, 7]
    first = vec.reset()
    twin = sekai.make_vec("CartPole-v1", 3)
    np.testing.assert_array_equal(first, twin.reset(seed=[5, 6, 7]).observations)
    assert not np.array_equal(vec.reset(), first)  # the seeds were used up
    assert vec.seed() == [None, None, None]

    walk = to_sb3(masked_vec(2))
    walk.set_options({"level": 1})
    walk.reset()
    assert [info["options"] for info in walk.reset_infos] == [{"level": 1}] * 2
    walk.set_options([{"level": 2}, {"level": 3}])
    walk.reset()
    assert [info["options"] for info in walk.reset_infos] == [{"level": 2}, {"level": 3}]
    walk.reset()
    assert [info["options"] for info in walk.reset_infos] == [None, None]


@needs_sb3
def test_get_attr_set_attr_env_method() -> None:
    vec = to_sb3(masked_vec(3))
    vec.reset()
    assert vec.get_attr("limit") == [20, 20, 20]
    assert vec.get_attr("limit", indices=[0, 2]) == [20, 20]
    assert vec.get_attr("render_mode") == [None, None, None]
    with pytest.raises(AttributeError):
        vec.get_attr("no_such_attribute")
    vec.set_attr("limit", 7)
    assert vec.venv.get_attr("limit") == [7, 7, 7]
    vec.set_attr("limit", [1, 2], indices=1)  # one value per selected env, even a list
    assert vec.venv.get_attr("limit") == [7, [1, 2], 7]
    assert vec.env_method("action_mask", indices=[2])[0].tolist() == [True, True, True, False]
    results = vec.env_method("reset", seed=3, options={"x": 1}, indices=0)
    assert results[0].info == {"options": {"x": 1}, "start": results[0].info["start"]}
    all_results = vec.env_method("reset", seed=3)
    assert len(all_results) == 3 and all_results[0].info["options"] is None
    assert vec.env_method("limit") == [7, [1, 2], 7]  # non-callables are returned

    native = to_sb3(sekai.make_vec("MarketMaking-v0", 2))
    native.reset()
    assert native.get_attr("sigma") == [2.0, 2.0]
    with pytest.raises(NotImplementedError, match="subset"):
        native.env_method("avellaneda_stoikov_action", indices=[0])
    with pytest.raises(NotImplementedError, match="subset"):
        native.set_attr("sigma", 1.0, indices=[0])
    native.set_attr("sigma", 1.5)
    assert native.get_attr("sigma") == [1.5, 1.5]
    quotes = native.env_method("avellaneda_stoikov_action")
    assert len(quotes) == 2 and quotes[0].shape == (2,)


@needs_sb3
def test_env_is_wrapped() -> None:
    from stable_baselines3.common.monitor import Monitor

    vec = to_sb3(sekai.make_vec("CartPole-v1", 2))  # make() adds a TimeLimit
    assert vec.env_is_wrapped(TimeLimit) == [True, True]
    assert vec.env_is_wrapped(Monitor, indices=[1]) == [False]
    native = to_sb3(sekai.make_vec("MarketMaking-v0", 2))
    assert native.env_is_wrapped(TimeLimit) == [False, False]


@needs_sb3
def test_action_masks() -> None:
    vec = to_sb3(masked_vec(2))
    vec.reset()
    masks = vec.action_masks()
    assert masks.dtype == np.bool_ and masks.shape == (2, 4)
    assert not masks[:, 3].any()
    getters = vec.get_attr("action_masks")
    np.testing.assert_array_equal(getters[1](), masks[1])
    rows = vec.env_method("action_masks", indices=[1])
    np.testing.assert_array_equal(rows[0], masks[1])

    plain = to_sb3(sekai.make_vec("CartPole-v1", 2))
    with pytest.raises(AttributeError, match="action_mask"):
        plain.action_masks()
    with pytest.raises(AttributeError):
        plain.get_attr("action_masks")


@needs_sb3
@needs_contrib
def test_sb3_contrib_mask_helpers() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    vec = to_sb3(masked_vec(3))
    vec.reset()
    assert is_masking_supported(vec)
    assert get_action_masks(vec).shape == (3, 4)
    assert not is_masking_supported(to_sb3(sekai.make_vec("CartPole-v1", 2)))


@needs_sb3
def test_vec_monitor_and_a_short_ppo_run() -> None:
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import VecMonitor

    torch.set_num_threads(1)
    vec = VecMonitor(to_sb3(sekai.make_vec("CartPole-v1", 4)))
    model = PPO("MlpPolicy", vec, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=128)
    assert model.num_timesteps == 128
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw finished episodes
    vec.close()


@needs_sb3
@pytest.mark.parametrize(
    "env_id",
    ["CartPole-v1", "Pendulum-v1", "Acrobot-v1", "MarketMaking-v0", "OptimalExecution-v0"],
)
def test_sb3_check_env_on_to_gymnasium(env_id: str) -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(to_gymnasium(sekai.make(env_id)), warn=False, skip_render_check=True)


@needs_sb3
def test_sb3_check_env_on_a_masked_dict_env() -> None:
    from stable_baselines3.common.env_checker import check_env

    env = to_gymnasium(MaskedWalk(strict=False))  # the checker ignores masks
    check_env(env, warn=False, skip_render_check=True)
    env.reset(seed=0)
    assert env.action_masks().tolist() == [True, True, True, False]


# ------------------------------------------------------------------ episodes in SB3's format


class Scored(Env[np.ndarray, int]):
    """Reward ``0.5 * action + 0.25`` per step; episodes end after ``length`` steps.

    The episode terminates (``truncate=False``) or truncates there.
    """

    def __init__(self, length: int, truncate: bool = False) -> None:
        self.observation_space = Box(0.0, 100.0, (1,), np.float32)
        self.action_space = Discrete(3)
        self.length = length
        self.truncate = truncate
        self.steps = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.steps = 0
        return ResetResult(np.zeros(1, dtype=np.float32), {})

    def step(self, action: int) -> StepResult[Any]:
        self.steps += 1
        done = self.steps >= self.length
        obs = np.array([self.steps], dtype=np.float32)
        reward = 0.5 * int(action) + 0.25
        return StepResult(obs, reward, done and not self.truncate, done and self.truncate, {})


def scored_vec(lengths: list[int]) -> SyncVecEnv:
    return SyncVecEnv([functools.partial(Scored, n, truncate=n % 2 == 0) for n in lengths])


def _run_episodes(vec: Any, steps: int, seed: int = 0) -> tuple[list[Any], list[Any]]:
    """Random actions for ``steps`` steps: (the infos' episode dicts, the expected ones).

    The expected ``(env, return, length)`` come from the rewards the adapter passed on.
    """
    rng = np.random.default_rng(seed)
    n = vec.num_envs
    returns, lengths = [0.0] * n, [0] * n
    got, want = [], []
    for _ in range(steps):
        _, rewards, dones, infos = vec.step(rng.integers(0, vec.action_space.n, n))
        for i in range(n):
            returns[i] += float(rewards[i])
            lengths[i] += 1
            if dones[i]:
                got.append((i, infos[i]["episode"]))
                want.append((i, returns[i], lengths[i]))
                returns[i], lengths[i] = 0.0, 0
            else:
                assert "episode" not in infos[i]
    return got, want


@needs_sb3
def test_episode_dicts_counted_by_the_adapter() -> None:
    vec = to_sb3(scored_vec([2, 3, 5]))
    vec.reset()
    vec.step(np.array([2, 2, 2]))
    vec.reset()  # the counts restart with the episodes
    got, want = _run_episodes(vec, 31)
    elapsed = time.monotonic() - vec.t_start
    assert [i for i, _ in got] == [i for i, _, _ in want]
    assert len(got) == 15 + 10 + 6
    for (_, episode), (_, ret, length) in zip(got, want, strict=True):
        assert set(episode) == {"r", "l", "t"}
        assert type(episode["r"]) is float and type(episode["l"]) is int
        assert (episode["r"], episode["l"]) == (ret, length)
        assert 0.0 <= episode["t"] <= elapsed and round(episode["t"], 6) == episode["t"]
    assert [episode["l"] for i, episode in got if i == 2] == [5] * 6
    times = [episode["t"] for _, episode in got]
    assert times == sorted(times)


@needs_sb3
def test_episode_stats_of_vec_record_episode_statistics_are_converted() -> None:
    stats_vec = sekai.VecRecordEpisodeStatistics(scored_vec([2, 3, 5]))
    vec = to_sb3(stats_vec)
    vec.reset()
    rng = np.random.default_rng(1)
    seen = []
    for _ in range(20):
        _, _, dones, infos = vec.step(rng.integers(0, 3, 3))
        for i in np.flatnonzero(dones):
            stats = infos[i]["episode_stats"]
            assert isinstance(stats, EpisodeStats) and stats.extra == {"env_index": i}
            assert infos[i]["episode"] == {
                "r": stats.episode_return,
                "l": stats.episode_length,
                "t": round(stats.end_time - vec.t_start, 6),
            }
            seen.append(stats)
    # every episode reported once, and the very objects the tracker got
    assert len(seen) == 10 + 6 + 4
    assert list(stats_vec.tracker.episodes) == seen  # type: ignore[attr-defined]
    # the same figures as the adapter's own count
    twin = to_sb3(scored_vec([2, 3, 5]))
    twin.reset()
    got, _ = _run_episodes(twin, 20, seed=1)
    assert [(e["r"], e["l"]) for _, e in got] == [
        (s.episode_return, s.episode_length) for s in seen
    ]


@needs_sb3
def test_episode_stats_of_sub_env_wrappers_and_gymnasium_dicts() -> None:
    from sekai.wrappers import RecordEpisodeStatistics

    vec = to_sb3(SyncVecEnv([lambda: RecordEpisodeStatistics(Scored(3)) for _ in range(2)]))
    vec.reset()
    for step in range(6):
        _, _, dones, infos = vec.step(np.array([0, 2]))
        assert dones.all() == (step % 3 == 2)
    assert [info["episode"]["r"] for info in infos] == [0.75, 3.75]
    assert [info["episode_stats"].episode_length for info in infos] == [3, 3]

    gym_vec = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.wrappers.RecordEpisodeStatistics(gymnasium.make("CartPole-v1"))] * 2
    )
    bridged = to_sb3(from_gymnasium_vector(gym_vec))
    bridged.seed(0)
    bridged.reset()
    got, want = _run_episodes(bridged, 60)
    assert got
    for (_, episode), (_, ret, length) in zip(got, want, strict=True):
        assert "episode_stats" not in episode
        assert (float(episode["r"]), int(episode["l"])) == (ret, length)  # gymnasium's own


# ------------------------------------------------------------------- observation flattening


class RandomObs(Env[Any, int]):
    """Samples of ``space`` as observations; episodes of ``length`` steps."""

    def __init__(self, space: Any, length: int = 3) -> None:
        self.observation_space = space
        self.action_space = Discrete(2)
        self.length = length
        self.steps = 0

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> ResetResult[Any]:
        self._set_rng(seed)
        self.observation_space.seed(int(self.rng.integers(2**31)))
        self.steps = 0
        return ResetResult(self.observation_space.sample(), {})

    def step(self, action: int) -> StepResult[Any]:
        self.steps += 1
        return StepResult(
            self.observation_space.sample(), 0.0, self.steps >= self.length, False, {}
        )


class Recorder(VecWrapper[Any, Any, Any, Any]):
    """Keeps the last result of ``venv``."""

    last: Any = None

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        self.last = self.venv.reset(seed=seed, options=options)
        return self.last

    def step(self, actions: Any) -> Any:
        self.last = self.venv.step(actions)
        return self.last


NESTED = Dict(
    {
        "pos": Box(-1.0, 1.0, (2,), np.float32),
        "inner": Dict({"level": Discrete(3, start=1), "speed": Box(0.0, 5.0, (), np.float64)}),
        "pair": Tuple((Discrete(2), Box(0, 9, (2,), np.int64))),
        "trades": MaskedBox(-1.0, 1.0, (3,), max_size=4),
        "grid": MultiDiscrete([[2, 3], [4, 5]]),
        "flags": MultiBinary((2, 2)),
        "k": Discrete(4),
    }
)


def _recorded(space: Any, n: int = 3, **kwargs: Any) -> tuple[Any, Recorder]:
    recorder = Recorder(SyncVecEnv([lambda: RandomObs(space) for _ in range(n)]))
    return to_sb3(recorder, **kwargs), recorder


def _part(obs: Any, key: str) -> Any:
    for name in key.split("/"):
        obs = obs[name]
    return obs


@needs_sb3
def test_nested_dict_becomes_a_flat_dict_keyed_by_path() -> None:
    vec, recorder = _recorded(NESTED)
    space = vec.observation_space
    assert isinstance(space, gymnasium.spaces.Dict)
    gspaces = gymnasium.spaces
    assert list(space.spaces) == [
        "pos",
        "inner/level",
        "inner/speed",
        "pair",
        "trades/values",
        "trades/mask",
        "grid",
        "flags",
        "k",
    ]
    assert space["pos"] == space_to_gymnasium(NESTED["pos"])
    assert space["inner/level"] == gspaces.Box(0.0, 1.0, (3,), np.float32)
    assert space["inner/speed"] == gspaces.Box(0.0, 5.0, (1,), np.float32)
    assert space["pair"] == space_to_gymnasium(flatten_space(NESTED["pair"]))
    assert space["trades/values"] == space_to_gymnasium(_part(NESTED, "trades/values"))
    assert space["trades/mask"] == gspaces.MultiBinary([4])
    assert space["grid"] == gspaces.Box(0.0, 1.0, (14,), np.float32)
    assert space["flags"] == gspaces.MultiBinary([2, 2])
    assert space["k"] == gspaces.Discrete(4)
    flat_keys = {"inner/level", "inner/speed", "pair", "grid"}
    vec.seed(3)
    infos: list[dict[str, Any]] = [{}] * 3
    obs, dones = vec.reset(), np.zeros(3, dtype=bool)
    for step in range(4):
        if step:
            obs, _, dones, infos = vec.step(np.zeros(3, dtype=np.int64))
        raw = recorder.last.observations
        assert list(obs) == list(space.spaces)
        assert all({key: value[i] for key, value in obs.items()} in space for i in range(3))
        for key in space.spaces:
            if key in flat_keys:
                sub = _part(NESTED, key)
                rows = [flatten(sub, take_index(sub, _part(raw, key), i)) for i in range(3)]
                np.testing.assert_array_equal(obs[key], np.stack(rows))
                assert obs[key].dtype == np.float32
            else:
                assert obs[key] is _part(raw, key)  # passed through, not copied
        assert dones.all() == (step == 3)
    for i, info in enumerate(infos):  # the episodes of 3 steps ended
        final = recorder.last.infos[i]["final_observation"]
        terminal = info["terminal_observation"]
        assert list(terminal) == list(space.spaces)
        for key in flat_keys:
            np.testing.assert_array_equal(
                terminal[key], flatten(_part(NESTED, key), _part(final, key))
            )
        assert terminal["trades/mask"] is final["trades"]["mask"]
        assert not np.array_equal(terminal["pair"], obs["pair"][i])  # not the new episode's


@needs_sb3
def test_tuple_and_other_spaces_become_one_box() -> None:
    space = Tuple((Discrete(3), Dict({"a": Box(0.0, 1.0, (2,)), "b": MultiBinary(2)})))
    vec, recorder = _recorded(space, n=2)
    assert vec.observation_space == space_to_gymnasium(flatten_space(space))
    obs = vec.reset()
    rows = [flatten(space, take_index(space, recorder.last.observations, i)) for i in range(2)]
    np.testing.assert_array_equal(obs, np.stack(rows))
    for _ in range(3):
        obs, _, dones, infos = vec.step(np.zeros(2, dtype=np.int64))
    assert dones.all()
    for i in range(2):
        final = recorder.last.infos[i]["final_observation"]
        np.testing.assert_array_equal(infos[i]["terminal_observation"], flatten(space, final))

    scalar, recorder = _recorded(Box(0.0, 1.0, (), np.float64), n=2)
    assert scalar.observation_space == gymnasium.spaces.Box(0.0, 1.0, (1,), np.float32)
    np.testing.assert_array_equal(
        scalar.reset(), recorder.last.observations.astype(np.float32).reshape(2, 1)
    )
    shifted, recorder = _recorded(Discrete(3, start=-1), n=2)
    obs = shifted.reset()
    np.testing.assert_array_equal(obs, np.eye(3, dtype=np.float32)[recorder.last.observations + 1])


@needs_sb3
def test_spaces_sb3_takes_pass_through() -> None:
    for space in (
        Box(0.0, 1.0, (2, 3)),
        Discrete(4),
        MultiDiscrete([2, 3]),
        MultiBinary(3),
        Dict({"a": Box(0.0, 1.0, (2,)), "b": Discrete(2)}),
        MaskedBox(0.0, 1.0, (2,), max_size=3),  # a Dict of a Box and a MultiBinary
    ):
        vec, recorder = _recorded(space, n=2)
        assert vec.observation_flattener is None
        assert vec.observation_space == space_to_gymnasium(space)
        assert vec.reset() is recorder.last.observations


@needs_sb3
def test_flattening_off_and_bad_options() -> None:
    vec, recorder = _recorded(NESTED, flatten_observations=False)
    assert vec.flatten_observations is False and vec.observation_flattener is None
    assert vec.observation_space == space_to_gymnasium(NESTED)
    assert vec.reset() is recorder.last.observations
    for _ in range(3):
        _, _, dones, infos = vec.step(np.zeros(3, dtype=np.int64))
    assert dones.all()
    assert infos[0]["terminal_observation"] is recorder.last.infos[0]["final_observation"]

    with pytest.raises(TypeError, match="flatten_observations must be a bool, got str"):
        to_sb3(sekai.make_vec("CartPole-v1", 2), flatten_observations="yes")  # type: ignore[arg-type]
    sequence = Dict({"a": Box(0.0, 1.0, (2,)), "s": Sequence(Box(0.0, 1.0, (2,)))})
    with pytest.raises(ValueError, match=r"part 's'.*flatten_observations=False"):
        _recorded(sequence)
    assert _recorded(sequence, flatten_observations=False)[0].observation_space["s"]
    clash = Dict({"a/b": Box(0.0, 1.0, (1,)), "a": Dict({"b": Box(0.0, 1.0, (1,))})})
    with pytest.raises(ValueError, match="two of its parts are keyed 'a/b'"):
        _recorded(clash)
    dotted = Dict({"a": Dict({"b.c": Box(0.0, 1.0, (1,))})})
    with pytest.raises(ValueError, match=r"'a/b\.c' of a part holds '\.'"):
        _recorded(dotted)


def test_flatten_rows_matches_flatten_of_each_row() -> None:
    space = Dict(
        {
            "box": Box(-5, 5, (2, 2), np.int32),
            "grid": MultiDiscrete([[2, 3], [4, 5]], start=[[1, 0], [-2, 3]]),
            "d": Discrete(5, start=10),
            "flags": MultiBinary((2, 3)),
            "t": Tuple((Discrete(2), MaskedBox(0.0, 1.0, (2,), max_size=3), Dict({}))),
        },
        seed=7,
    )
    rows = [space.sample() for _ in range(6)]
    batch = concatenate(space, rows)
    flat = flatten_rows(space, batch, 6)
    assert flat.dtype == np.float32 and flat.shape == (6, flatdim(space))
    np.testing.assert_array_equal(flat, np.stack([flatten(space, row) for row in rows]))


@needs_sb3
def test_proc_vec_env_backend() -> None:
    vec = to_sb3(sekai.make_vec("CartPole-v1", 2, vectorization_mode="proc"))
    try:
        assert vec.render_mode is None  # the worker's AttributeError is recognised
        with pytest.raises(AttributeError, match="action_mask"):
            vec.action_masks()
        with pytest.raises(NotImplementedError, match="subset"):
            vec.env_method("reset", indices=[0])
        assert vec.env_is_wrapped(TimeLimit) == [False, False]  # not visible across processes
        obs = vec.reset()
        assert obs.shape == (2, 4)
        for _ in range(30):
            obs, _, dones, infos = vec.step(np.zeros(2, dtype=np.int64))
            for i in np.flatnonzero(dones):
                assert infos[i]["terminal_observation"].shape == (4,)
        assert vec.get_attr("spec")[0].id == "CartPole-v1"
    finally:
        vec.close()


@needs_sb3
def test_a_sync_gymnasium_vector_env_trains_in_sb3s_format() -> None:
    sb3_vec = to_sb3(
        from_gymnasium_vector(gymnasium.make_vec("CartPole-v1", 4, vectorization_mode="sync"))
    )
    sb3_vec.reset()
    for _ in range(30):
        obs, _, dones, infos = sb3_vec.step(np.zeros(4, dtype=np.int64))
        for i in np.flatnonzero(dones):
            assert abs(infos[i]["terminal_observation"][2]) > 0.2  # the pole fell
            assert abs(obs[i][2]) < 0.06  # a fresh episode
    sb3_vec.close()
